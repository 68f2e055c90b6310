//! What the server keeps of hints and reviews in
//! [`AppState`](super::AppState): who awaits one, and the caches. Data
//! only: `hints` answers them.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use capicua_protocol::{RoomId, ServerMsg};
use capicua_strategy::StopFlag;

use crate::ConnId;

/// The shared state of hints and reviews.
#[derive(Default)]
pub(crate) struct Hints {
    /// Connections with a hint being computed.
    pub(crate) asking: Mutex<HashSet<ConnId>>,
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
