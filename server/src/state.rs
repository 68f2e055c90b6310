//! [`AppState`]: what every task of the server shares, in an `Arc`.
//!
//! Every part it holds is a type of a module that never reads `AppState`
//! back (`limits`, `lobby`, `ladder`, `cpu`, ...), or data kept here
//! ([`tournaments`], [`hints`]) whose methods are in `tournament` and
//! `hints`, which read the state: so no module loops through it.

pub(crate) mod hints;
pub(crate) mod tournaments;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use capicua_protocol::RoomId;
use tokio::sync::{mpsc, watch};

use crate::lobby::{Lobby, RoomHandle};
use crate::{ConnId, Db, Flusher, config::Config, cpu, ladder, limits, metrics};

/// State shared by every task: held in an `Arc`.
pub struct AppState {
    /// Settings.
    pub(crate) config: Config,
    /// The database.
    pub(crate) db: Db,
    /// Open rooms, seats by player, the connection acting for each player.
    pub(crate) lobby: Lobby,
    /// Counters for `/metrics`.
    pub(crate) metrics: metrics::Metrics,
    /// Tournaments: assignments, subscribers, running tournaments.
    pub(crate) tournaments: tournaments::Registry,
    /// The ladder: who is on which, the pools of those waiting.
    pub(crate) ladder: ladder::Ladder,
    /// Play now: who seeks what table.
    pub(crate) seeks: crate::ladder::seeks::Seeks,
    /// Sends the deferred frames of connections that batch events.
    pub(crate) flusher: Arc<Flusher>,
    /// Open TCP connections per address and in all (the accept loop's
    /// caps).
    pub(crate) conn_counts: Arc<limits::ConnCounts>,
    /// Open WebSockets per client address behind a trusted proxy (its
    /// TCP connections are not counted by address).
    pub(crate) proxied_counts: Arc<limits::ConnCounts>,
    /// Open rooms per owner.
    pub(crate) room_quota: limits::RoomQuota,
    /// HTTP API requests per address.
    pub(crate) http_limits: limits::HttpLimits,
    /// Signing in: attempts per name and per address, the hashing slots.
    pub(crate) accounts: crate::accounts::Accounts,
    /// Hints and reviews: the analysis slots, who awaits one, the caches.
    pub(crate) hints: hints::Hints,
    /// The slots of CPU-bound work, shared by hosted searches, hints and
    /// reviews.
    pub(crate) cpu: Arc<cpu::Cpu>,
    next_conn: AtomicU64,
    /// Set when shutdown starts: no new rooms.
    closing: AtomicBool,
    shutdown: watch::Receiver<bool>,
    /// Every connection and room task holds a clone; `run` waits for all to
    /// be dropped (mini-redis's shutdown-complete pattern).
    done: mpsc::Sender<()>,
    /// Why the server must stop serving, once something it cannot go on
    /// without is lost ([`AppState::fail`]); `run` then shuts down and
    /// returns it as an error.
    failure: Mutex<Option<String>>,
    failed: tokio::sync::Notify,
    /// Whether this server runs the tournaments (elected, on PostgreSQL).
    pub(crate) scheduler: AtomicBool,
    /// Replay requests being answered, per address.
    pub(crate) replays: Arc<limits::ReplayGate>,
    /// Bytes of stored games per room owner and per address; `None`: no
    /// limit.
    pub(crate) store_budget: Option<Arc<limits::StoreBudget>>,
    /// Seats per address in rooms waiting for their match.
    pub(crate) seat_slots: Arc<limits::Slots<std::net::IpAddr>>,
    /// Guest sessions: a reloaded page is the same guest, seats included.
    pub(crate) guests: crate::guests::Guests,
}

impl AppState {
    /// Fresh shared state, with the sender that signals shutdown and the
    /// receiver that yields `None` once every task guard is dropped.
    pub(crate) fn new(db: Db, config: Config) -> (Arc<AppState>, watch::Sender<bool>, mpsc::Receiver<()>) {
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let (done_tx, done_rx) = mpsc::channel::<()>(1);
        let flusher = Arc::new(Flusher::default());
        tokio::spawn(Flusher::run(Arc::downgrade(&flusher), Flusher::tick_for(config.batch_every)));
        let cpu = cpu::Cpu::new(config.max_searches);
        let state = Arc::new(AppState {
            lobby: Lobby::new(config.max_connections),
            conn_counts: limits::ConnCounts::new(
                config.max_connections_per_addr,
                limits::fd_budget().unwrap_or(usize::MAX),
            ),
            proxied_counts: limits::ConnCounts::new(config.max_connections_per_addr, usize::MAX),
            room_quota: limits::RoomQuota::new(config.max_rooms_per_owner, config.max_rooms_per_addr),
            http_limits: limits::HttpLimits::new(limits::Rates {
                writes: config.http_writes_per_min,
                reads: config.http_reads_per_min,
                registrations: config.registrations_per_min,
                replay_pages: config.replay_pages_per_min,
                guesses: config.token_guesses_per_min,
            }),
            // One hash per core at once: a flood of sign-ins waits, play does not.
            accounts: crate::accounts::Accounts::new(std::thread::available_parallelism().map_or(2, |n| n.get())),
            replays: limits::replay_gate(config.replays_per_addr),
            store_budget: limits::StoreBudget::new(config.stored_kib_per_hour),
            seat_slots: limits::Slots::new(config.max_seats_per_addr),
            // As many idle sessions as connections: a guest's seat outlives
            // its connection by the grace, and so does its session.
            guests: crate::guests::Guests::new(config.reconnect_grace, config.max_connections),
            config,
            db,
            metrics: metrics::Metrics::default(),
            tournaments: tournaments::Registry::default(),
            ladder: ladder::Ladder::default(),
            seeks: crate::ladder::seeks::Seeks::default(),
            flusher,
            hints: hints::Hints::default(),
            cpu,
            next_conn: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            shutdown: shutdown_rx,
            done: done_tx,
            failure: Mutex::new(None),
            failed: tokio::sync::Notify::new(),
            scheduler: AtomicBool::new(false),
        });
        (state, shutdown_tx, done_rx)
    }

    /// A fresh connection id.
    pub(crate) fn next_conn_id(&self) -> ConnId {
        self.next_conn.fetch_add(1, Ordering::Relaxed) + 1
    }
    /// A receiver that turns true when the server shuts down.
    pub(crate) fn shutdown(&self) -> watch::Receiver<bool> {
        self.shutdown.clone()
    }
    /// A guard that keeps `run` from returning while held.
    pub(crate) fn task_guard(&self) -> mpsc::Sender<()> {
        self.done.clone()
    }
    /// The handle of a room (the lobby's).
    pub(crate) fn room(&self, id: RoomId) -> Option<RoomHandle> {
        self.lobby.room(id)
    }
    /// Stops the server: it shuts down as on a signal, and `run` returns
    /// [`ServerError::Failed`](crate::ServerError::Failed) with `why`.
    pub(crate) fn fail(&self, why: &str) {
        tracing::error!("{why}: shutting down");
        self.failure.lock().expect("failure lock").get_or_insert_with(|| why.to_string());
        self.failed.notify_one();
    }
    /// Resolves once [`AppState::fail`] was called.
    pub(crate) async fn failed(&self) {
        self.failed.notified().await
    }
    /// Why the server failed, if it did.
    pub(crate) fn failure(&self) -> Option<String> {
        self.failure.lock().expect("failure lock").clone()
    }
    /// Starts shutting down: no new rooms from now on.
    pub(crate) fn start_closing(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }
    /// Whether the server is shutting down.
    pub(crate) fn is_shutting_down(&self) -> bool {
        self.closing.load(Ordering::SeqCst) || *self.shutdown.borrow()
    }
}

/// Resolves once the shutdown flag is set (at once if it already is).
pub(crate) async fn shutdown_signalled(rx: &mut watch::Receiver<bool>) {
    // The borrow guard `wait_for` returns is not `Send`: drop it here.
    let _ = rx.wait_for(|s| *s).await.is_ok();
}
