//! What the server keeps of hints and reviews in
//! [`AppState`](super::AppState): who awaits one, and the caches. Data
//! only: `hints` answers them.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use capicua_protocol::{RoomId, ServerMsg};
use capicua_strategy::StopFlag;

use crate::ConnId;

/// Who awaits a hint.
#[derive(Default)]
pub(crate) struct Asking {
    /// Connections: one hint at a time each.
    pub(crate) conns: HashSet<ConnId>,
    /// Registered players: one hint at a time each, over all their
    /// connections.
    pub(crate) players: HashSet<i64>,
    /// Hints per client address.
    pub(crate) addrs: HashMap<IpAddr, usize>,
}

/// The shared state of hints and reviews.
#[derive(Default)]
pub(crate) struct Hints {
    /// Who has a hint being computed or waiting: connections, players and
    /// addresses (an address holds at most `--hints-per-addr`).
    pub(crate) asking: Mutex<Asking>,
    /// Answered hints by (room, sequence number, seat).
    pub(crate) cached: Mutex<HashMap<(RoomId, u64, u8), ServerMsg>>,
    /// Served reviews by (game, seat): their JSON.
    pub(crate) reviews: Mutex<HashMap<(i64, u8), Arc<str>>>,
    /// Client addresses with a review being computed.
    pub(crate) reviewing: Mutex<HashSet<IpAddr>>,
    /// Raised when the server shuts down: a review (many analyses in a
    /// row) ends at once instead of holding the process up.
    pub(crate) stop: StopFlag,
}
