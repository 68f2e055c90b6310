//! What the server keeps of tournaments in [`AppState`](super::AppState):
//! the [`Registry`] and what it holds. Data only: their methods and tasks
//! are `tournament`'s (`impl Registry` in `tournament/mod.rs`,
//! `impl ReplayCache` in `tournament/replays.rs`), which reads the state
//! these types are part of.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use capicua_protocol::{Assignment, TournamentId};
use capicua_tournament::Tournament;
use tokio::sync::Notify;

use crate::Client;
use crate::db::tournaments::StoredResult;

/// What the registry's lock guards.
#[derive(Default)]
pub(crate) struct RegistryInner {
    pub(crate) running: HashSet<TournamentId>,
    /// Connections of players awaiting assignments.
    pub(crate) waiting: HashMap<i64, Vec<Client>>,
    /// Tables due, by player.
    pub(crate) assignments: HashMap<i64, Vec<Assignment>>,
    pub(crate) subscribers: HashMap<TournamentId, Vec<Client>>,
    /// The wake-up channel of each running tournament's runner.
    pub(crate) runners: HashMap<TournamentId, tokio::sync::mpsc::UnboundedSender<Wake>>,
    /// Controls taken on this node (by their audit id) that its followers
    /// were told of when they were taken; the relay skips them.
    pub(crate) told_here: HashSet<(TournamentId, i64)>,
    /// Per followed tournament, the audit id of the last control its
    /// followers here were told of (set when the first one subscribes).
    pub(crate) controls_told: HashMap<TournamentId, i64>,
}

/// The server's tournament state: who waits for tables, who follows which
/// tournament, which tournaments run here.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) inner: Mutex<RegistryInner>,
    pub(crate) wake: Arc<Notify>,
    /// Wakes this node's host task: a table was placed here.
    pub(crate) host: Notify,
    /// Replayed tournaments for the detail endpoint.
    pub(crate) replays: ReplayCache,
}

/// What wakes a runner.
#[derive(Debug)]
pub(crate) enum Wake {
    /// A table's room ended: its stored game, or `None` when it ended without one.
    Table {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The stored game.
        game: Option<i64>,
    },
    /// The organiser took a control: read the status and the log again.
    Control,
    /// A table placed on this node ended: look at the placements now.
    Placements,
}

/// A tournament replayed up to its stored log's last entries.
pub(crate) struct Replayed {
    /// The state after the log below.
    pub(crate) tournament: Tournament,
    /// The results recorded, in order.
    pub(crate) results: Vec<StoredResult>,
    /// The id of the last control of the log replayed (0: none).
    pub(crate) last_control: i64,
}

/// Replayed tournaments by id.
#[derive(Default)]
pub(crate) struct ReplayCache {
    // A std mutex over the map (held for a lookup only), and an async one
    // per tournament: requests for one tournament wait for a single replay
    // instead of each doing its own, while other tournaments go on.
    pub(crate) entries: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<Option<Replayed>>>>>,
}
