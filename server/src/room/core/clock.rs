//! What a room does when time passes with no command: a prompt runs out,
//! a disconnected player's grace ends, a table's players do not show up,
//! a room nobody sits in or watches closes.

use std::time::Duration;

use capicua_engine::Seat;
use tokio::time::Instant;

use super::RoomCore;
use crate::room::effect::Effect;

/// The room's own clocks (the prompt's is the match's).
pub(crate) struct Clocks {
    /// When a table's missing players forfeit.
    no_show_at: Option<Instant>,
    /// Since when nobody has been seated and connected, with no match in
    /// play (see [`crate::room::settings::Settings::idle`]).
    idle_since: Option<Instant>,
    /// Since when the room's seats are all hosted bots and no one watches
    /// (see [`crate::room::settings::Settings::unwatched`]).
    unwatched_since: Option<Instant>,
}

impl Clocks {
    /// The clocks of a room created at `now`, with a table's no-show delay.
    pub(crate) fn new(now: Instant, no_show: Option<Duration>) -> Clocks {
        Clocks { no_show_at: no_show.map(|d| now + d), idle_since: Some(now), unwatched_since: None }
    }
}

impl RoomCore {
    /// The earliest moment the room must act without a command: the pending
    /// prompt's deadline, the end of a hand end's reading, the end of a
    /// disconnected player's grace, or a
    /// table's no-show deadline, or the end of the room's idle time.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        if self.closed || self.play.is_storing() {
            return None;
        }
        self.play
            .deadline()
            .into_iter()
            .chain(self.play.reading_until())
            .chain(self.seats.grace_ends(self.settings.grace))
            .chain(self.no_show_end())
            .chain(self.idle_end())
            .chain(self.unwatched_end())
            .min()
    }

    /// When a table's missing players forfeit, before its first match.
    pub(in crate::room) fn no_show_end(&self) -> Option<Instant> {
        self.clocks.no_show_at.filter(|_| self.play.game().is_none() && self.play.games_played() == 0)
    }

    /// When the room closes for idleness, if its idle clock runs.
    pub(in crate::room) fn idle_end(&self) -> Option<Instant> {
        if self.options.is_table() {
            return None;
        }
        // A deadline too far to represent is no deadline.
        self.clocks.idle_since?.checked_add(self.settings.idle?)
    }

    /// When a room of bots nobody watches closes, if that clock runs.
    pub(in crate::room) fn unwatched_end(&self) -> Option<Instant> {
        self.clocks.unwatched_since?.checked_add(self.settings.unwatched?)
    }

    /// Whether the room would play for nobody: no person is connected to
    /// it (in a seat or watching) and machines would make its moves
    /// (hosted bots, or the timeout policy of seats whose players left or
    /// dropped). Such a room does not play (its searches would burn the
    /// CPU, and its stored games the disk, for nobody), and closes once
    /// [`crate::room::settings::Settings::unwatched`] has passed. Leaving a
    /// seat does not keep a room of bots playing: only a connected person
    /// does. Tables (their event needs the result) and the admin's rooms
    /// play on.
    pub(in crate::room) fn unattended(&self) -> bool {
        self.settings.unwatched.is_some()
            && !self.options.is_table()
            && !self.seats.by_admin()
            && self.seats.spectators().is_empty()
            && !self.seats.has_connected()
            && (self.seats.has_bots() || self.play.is_on())
    }

    /// A room that stood still for want of a person goes on once one came
    /// (`stood_still` is whether it stood still before the command): its
    /// hosted seats move, or its match starts. A pending prompt waits for
    /// its player as it did.
    pub(in crate::room) fn wake(&mut self, now: Instant, fx: &mut Vec<Effect>, stood_still: bool) {
        if !stood_still || self.unattended() || self.closed {
            return;
        }
        if self.play.game().is_none() {
            self.maybe_start(now, fx);
        } else if self.play.pending_seat().is_none() {
            self.advance(now, fx);
        }
    }

    /// Starts or stops the idle clock: it runs while no seat holds a
    /// connected player and no match is in play (a match ends on its own,
    /// by its clock and timeout policy). Starts or stops the unwatched
    /// clock of a room of bots.
    pub(in crate::room) fn track_idle(&mut self, now: Instant) {
        if !self.unattended() {
            self.clocks.unwatched_since = None;
        } else if self.clocks.unwatched_since.is_none() {
            self.clocks.unwatched_since = Some(now);
        }
        if self.play.is_on() || self.seats.has_connected() {
            self.clocks.idle_since = None;
        } else if self.clocks.idle_since.is_none() {
            self.clocks.idle_since = Some(now);
        }
    }

    pub(in crate::room) fn on_timer(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if self.no_show_end().is_some_and(|t| t <= now) {
            return self.forfeit_no_show(now, fx);
        }
        if self.idle_end().is_some_and(|t| t <= now) {
            let secs = self.settings.idle.map_or(0, |d| d.as_secs());
            return self.close(fx, &format!("nobody was seated for {secs} s"));
        }
        if self.unwatched_end().is_some_and(|t| t <= now) {
            let secs = self.settings.unwatched.map_or(0, |d| d.as_secs());
            return self.close(fx, &format!("nobody watched this room of bots for {secs} s"));
        }
        let expired = self.seats.expire(now, self.settings.grace);
        if self.play.game().is_none() {
            for &i in &expired {
                self.vacate(fx, i);
            }
        }
        if !expired.is_empty() {
            self.changed(fx);
            if self.play.pending_seat().is_some_and(|s| self.seats.is_abandoned(s)) {
                return self.timeout(now, fx);
            }
        }
        if self.play.deadline().is_some_and(|d| d <= now) {
            self.timeout(now, fx);
        }
        self.resume_if_read(now, fx);
    }

    /// A table's players did not all come in time: the side of the first
    /// missing seat forfeits the match, which is stored (a fresh deal, no
    /// moves) like any other so the event goes on.
    pub(in crate::room) fn forfeit_no_show(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let Some(missing) = self.seats.first_missing() else { return self.maybe_start(now, fx) };
        if !self.deal_match(fx) {
            return;
        }
        tracing::info!(room = self.settings.id, seat = missing, "no-show: the seat's side forfeits");
        self.finish(fx, Some(Seat(missing as u8)));
    }
}
