//! A hand's end read at the table: the next hand's first move, and its
//! clock, wait for the people who read hand ends (bots never do), at most
//! [`HAND_END_READ`].

use std::time::Duration;

use capicua_engine::Seat;
use tokio::time::Instant;

use super::RoomCore;
use crate::room::effect::Effect;

/// The longest a hand's end holds the next hand for the people reading it.
pub(crate) const HAND_END_READ: Duration = Duration::from_secs(30);

/// A hand's end shown to the people at the table: the next hand's first
/// move (and its clock) waits until each has read it, or until `until`.
pub(super) struct Reading {
    pub(super) until: Instant,
    /// The seats that said they read it.
    read: Vec<bool>,
}

impl RoomCore {
    /// A hand just ended: while people at the table read it, nobody moves
    /// and no clock runs (for at most [`HAND_END_READ`]).
    pub(super) fn start_reading(&mut self, now: Instant) {
        let n = self.seats.len();
        if (0..n).any(|i| self.seats.reads_hand_ends(i)) {
            self.play.reading = Some(Reading { until: now + HAND_END_READ, read: vec![false; n] });
        }
    }

    /// Whether a connected reader of the hand's end has not said it read it.
    pub(super) fn readers_left(&self) -> bool {
        let Some(r) = &self.play.reading else { return false };
        r.read.iter().enumerate().any(|(i, &read)| !read && self.seats.reads_hand_ends(i))
    }

    /// `seat` read the hand's end: the next hand goes on once all have.
    pub(in crate::room) fn hand_end_read(&mut self, now: Instant, fx: &mut Vec<Effect>, seat: Seat) {
        if let Some(r) = &mut self.play.reading {
            r.read[seat.index()] = true;
        }
        self.resume_if_read(now, fx);
    }

    /// Ends the wait at a hand's end once no reader is left (read, left or
    /// dropped), or its time is up: the next hand goes on.
    pub(in crate::room) fn resume_if_read(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let Some(until) = self.play.reading_until() else { return };
        if until <= now || !self.readers_left() {
            self.play.reading = None;
            self.advance(now, fx);
        }
    }
}
