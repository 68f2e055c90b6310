//! Replay answers in flight per address: a request holds a [`Slot`] until
//! its answer is sent, refused, or the client left ([`super::Slot`]).

use std::net::IpAddr;
use std::sync::Arc;

use super::slots::Slots;

/// Replay requests being answered, per address.
pub(crate) type ReplayGate = Slots<IpAddr>;

/// At most `max` replay requests of one address at once; 0 is no limit.
pub(crate) fn replay_gate(max: usize) -> Arc<ReplayGate> {
    Slots::new(max)
}
