// Only what the binary, tests and tools use is `pub`: the lint keeps it so.
#![warn(unreachable_pub)]
//! # capicua-server
//!
//! The lobby, referee and persistence of capicua: HTTP and WebSocket on one
//! port (axum), one task per room owning its match (a two-faced
//! [`Game`](capicua_engine::Game) or a game of tiles with 3, 4 or 6 faces,
//! behind [`table`]'s one interface), one receive task and one send task per
//! connection, SQLite through sqlx.
//!
//! ```text
//! client ──ws──▶ conn task ──RoomCmd──▶ room task (owns the match) ──▶ Outbox of each member ──▶ send task ──ws──▶ client
//!                                           │ finished game
//!                                           ▼
//!                                   db writer task (batched transactions, ratings) ──▶ SQLite (WAL)
//! ```
//!
//! [`run`] serves until its shutdown future resolves, then tells every
//! connection and every room, waits for them, and lets the database writer
//! commit what is queued.

// The library's API is what the `capicua-server` binary, its tests and
// tools use: `run` with its `Config` and `Listener`, the persistence layer
// (`db`), and tournament specs (`tournament::store`). Everything else is
// the server's own.
pub(crate) mod accept;
pub(crate) mod api;
pub(crate) mod bots;
pub(crate) mod conn;
pub(crate) mod cpu;
pub mod db;
pub(crate) mod hints;
pub(crate) mod http;
pub mod ladder;
pub(crate) mod limits;
pub(crate) mod metrics;
pub(crate) mod nodes;
pub(crate) mod outbox;
pub mod record;
pub(crate) mod replays;
pub(crate) mod room;
pub(crate) mod table;
pub mod tournament;
pub(crate) mod web;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use capicua_protocol::{RoomId, RoomInfo};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, watch};

pub use db::Db;
pub(crate) use outbox::{Flusher, Outbox, encode};

/// Server settings (the CLI fills them from flags and environment).
#[derive(Clone, Debug)]
pub struct Config {
    /// The admin token, if admin actions are enabled.
    pub admin_token: Option<String>,
    /// Web origins whose pages may call the HTTP API (`/api/...`) from a
    /// browser; none by default (same-origin only).
    pub cors: CorsOrigins,
    /// Most simultaneous WebSocket connections.
    pub max_connections: usize,
    /// Messages per second a connection may send (token bucket refill).
    pub rate_per_sec: u32,
    /// Burst size of the token bucket.
    pub rate_burst: u32,
    /// Rejected messages in a row before a flooding connection is closed.
    pub flood_limit: u32,
    /// How long a disconnected player's seat is kept.
    pub reconnect_grace: Duration,
    /// Frames queued for a connection before it counts as a slow consumer.
    pub outbound_buffer: usize,
    /// Longest wait of an event to a connection that asked for batched
    /// events (they usually leave sooner, with its next reply or prompt).
    /// The flusher ticks at a fifth of this period (`Flusher::tick_for`).
    pub batch_every: Duration,
    /// What a hosted bot may spend on a move (every hosted bot's spec came
    /// from a client).
    pub bot_caps: capicua_strategy::SearchCaps,
    /// How long a room stays open with no player connected in a seat and no
    /// match in play; `None` keeps it open (tournament tables are exempt).
    pub room_idle: Option<Duration>,
    /// Most open rooms one registered player, or one guest address, may
    /// have created; 0 is no limit (the admin has none).
    pub max_rooms_per_owner: usize,
    /// HTTP API writes (`POST`, `DELETE`) per minute per address, in bursts
    /// of up to that many; 0 is no limit.
    pub http_writes_per_min: u32,
    /// HTTP API reads per minute per address, in bursts of up to that many;
    /// 0 is no limit.
    pub http_reads_per_min: u32,
    /// Reverse proxies whose `X-Forwarded-For` names the client address
    /// that per-address limits count; empty trusts none.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The ladder's pairing and the clock of its rooms.
    pub ladder: ladder::LadderConfig,
    /// The base URL clients reach this server at (`http://host:port`),
    /// recorded for the other servers on the database, which send clients
    /// of this server's rooms here; `None`: `http://` and the listening
    /// address.
    pub public_url: Option<String>,
    /// How long a room of hosted bots alone stays open with no one
    /// watching (its match stands still meanwhile); `None` lets such rooms
    /// play on unwatched. Tables and the admin's rooms are exempt.
    pub unwatched_room: Option<Duration>,
    /// Registrations (new names) per minute per address, in bursts of up
    /// to that many; 0 is no limit.
    pub registrations_per_min: u32,
    /// Time a new TCP connection has to send a request's headers (and an
    /// idle HTTP connection to start its next request) before it is
    /// closed.
    pub header_timeout: Duration,
    /// Time a WebSocket has to say `hello` before it is closed.
    pub hello_timeout: Duration,
    /// Time a WebSocket may stay silent (no frame, no pong to the server's
    /// pings) before it is closed.
    pub idle_timeout: Duration,
    /// Most open TCP connections from one address (not a trusted proxy's:
    /// its clients are counted by their forwarded address on the
    /// WebSocket); 0 is no limit.
    pub max_connections_per_addr: usize,
    /// Most spectators in one room; 0 is no limit.
    pub max_spectators: usize,
    /// Bytes of frames queued for a connection before it counts as a slow
    /// consumer (one frame alone may be larger).
    pub outbound_bytes: usize,
    /// Most bytes of steps in one page of a replay (`GET /api/games/{id}`);
    /// a page always holds at least one step.
    pub replay_page_bytes: usize,
    /// Replay requests of one address being answered at once (their
    /// answers still being sent count); 0 is no limit.
    pub replays_per_addr: usize,

    // CPU-bound work: hosted searches, hints, reviews.
    /// Hosted-bot searches, hints and review decisions running at once,
    /// server-wide (at least 1); more wait their turn in a queue.
    pub max_searches: usize,
    /// The longest a review may take in all, waiting for slots included;
    /// a review that needs longer is refused `busy` and not stored.
    pub review_time: Duration,
}

impl Config {
    /// The policy for strategy specs from the network.
    pub(crate) fn bot_policy(&self) -> capicua_strategy::Policy {
        capicua_strategy::Policy::network(self.bot_caps)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            admin_token: None,
            cors: CorsOrigins::None,
            max_connections: 20_000,
            rate_per_sec: 1000,
            rate_burst: 2000,
            flood_limit: 200,
            reconnect_grace: Duration::from_secs(60),
            outbound_buffer: 1024,
            batch_every: Duration::from_millis(1000),
            bot_caps: capicua_strategy::SearchCaps::default(),
            room_idle: Some(Duration::from_secs(600)),
            max_rooms_per_owner: 4,
            http_writes_per_min: 60,
            http_reads_per_min: 1200,
            trusted_proxies: Vec::new(),
            ladder: ladder::LadderConfig::default(),
            public_url: None,
            unwatched_room: Some(Duration::from_secs(60)),
            registrations_per_min: 10,
            header_timeout: Duration::from_secs(10),
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(90),
            max_connections_per_addr: 64,
            max_spectators: 200,
            outbound_bytes: 4 << 20,
            replay_page_bytes: 1 << 20,
            replays_per_addr: 4,
            max_searches: std::thread::available_parallelism().map_or(1, |n| n.get()),
            review_time: Duration::from_secs(30),
        }
    }
}

/// Which web origins may call the HTTP API from a browser (CORS). The
/// WebSocket, `/healthz` and `/metrics` never answer cross-origin requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No CORS headers: browsers allow same-origin calls only.
    #[default]
    None,
    /// Any origin (`--cors-origin '*'`).
    Any,
    /// These origins exactly, as browsers send them (`https://club.example`).
    List(Vec<String>),
}

/// A `--cors-origin` value that no browser would ever send as its origin.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad CORS origin {origin:?}: {why}")]
pub struct BadOrigin {
    /// The value given.
    pub origin: String,
    /// What is wrong with it.
    pub why: &'static str,
}

impl CorsOrigins {
    /// Reads `--cors-origin` values: nothing for [`CorsOrigins::None`], a
    /// `*` among them for [`CorsOrigins::Any`], otherwise each must be an
    /// origin: `http://` or `https://`, a host, an optional port, and no path
    /// (browsers send `https://club.example`, never with a trailing `/`, so
    /// such a value would silently match nothing).
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<CorsOrigins, BadOrigin> {
        let values: Vec<&str> = values.iter().map(|v| v.as_ref().trim()).filter(|v| !v.is_empty()).collect();
        if values.is_empty() {
            return Ok(CorsOrigins::None);
        }
        if values.contains(&"*") {
            return Ok(CorsOrigins::Any);
        }
        let mut list = Vec::with_capacity(values.len());
        for v in values {
            let bad = |why| BadOrigin { origin: v.to_string(), why };
            let Some(rest) = v.strip_prefix("https://").or_else(|| v.strip_prefix("http://")) else {
                return Err(bad("an origin starts with http:// or https://"));
            };
            if rest.is_empty() {
                return Err(bad("no host"));
            }
            if rest.contains(['/', '?', '#']) {
                return Err(bad("an origin has no path, not even a trailing /"));
            }
            if !v.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(bad("an origin is printable ASCII without spaces"));
            }
            list.push(v.to_string());
        }
        Ok(CorsOrigins::List(list))
    }
}

/// Errors of the server as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Socket trouble.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    /// Database trouble.
    #[error(transparent)]
    Db(#[from] db::DbError),
    /// The server stopped because it lost something it cannot serve without.
    #[error("{0}")]
    Failed(String),
}

/// A connection's id, unique for the server's life.
pub type ConnId = u64;

/// Who a connection acts for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The registered player, `None` for a guest.
    pub player_id: Option<i64>,
    /// Name shown.
    pub name: String,
    /// Admin rights.
    pub admin: bool,
}

/// A connected client as rooms see it.
#[derive(Clone)]
pub struct Client {
    /// The connection.
    pub conn: ConnId,
    /// Who it acts for.
    pub ident: Arc<Identity>,
    /// Where its frames go.
    pub out: Outbox,
}

/// A running room, as the lobby holds it.
#[derive(Clone)]
pub struct RoomHandle {
    /// Commands to the room task.
    pub tx: mpsc::UnboundedSender<room::RoomCmd>,
    /// The room's lobby entry, updated by the room task.
    pub info: Arc<Mutex<RoomInfo>>,
    /// A private room's invite id: the only way to join it.
    pub invite: Option<String>,
}

/// State shared by every task: held in an `Arc`.
pub struct AppState {
    /// Settings.
    pub config: Config,
    /// The database.
    pub db: Db,
    /// Open rooms. A std `Mutex`: it is held only to insert, remove or clone
    /// a handle, never across an `.await`, so it never blocks a worker for long.
    pub rooms: Mutex<HashMap<RoomId, RoomHandle>>,
    /// Rooms where each registered player holds a seat (for reconnects).
    /// Same locking rule as `rooms`.
    pub seats_by_player: Mutex<HashMap<i64, HashSet<RoomId>>>,
    /// The connection acting for each registered player, with the signal
    /// that tells it a newer connection with the same token replaced it.
    /// Same locking rule as `rooms`.
    pub(crate) player_conns: Mutex<HashMap<i64, (ConnId, Arc<tokio::sync::Notify>)>>,
    /// One permit per open WebSocket connection.
    pub conn_permits: Arc<Semaphore>,
    /// Counters for `/metrics`.
    pub metrics: metrics::Metrics,
    /// Tournaments: assignments, subscribers, running tournaments.
    pub tournaments: tournament::Registry,
    /// The ladder: who is on which, the pools of those waiting.
    pub ladder: ladder::Ladder,
    /// Sends the deferred frames of connections that batch events.
    pub flusher: Arc<Flusher>,
    /// Open TCP connections per address and in all (the accept loop's
    /// caps).
    pub(crate) conn_counts: Arc<accept::ConnCounts>,
    /// Open WebSockets per client address behind a trusted proxy (its
    /// TCP connections are not counted by address).
    pub(crate) proxied_counts: Arc<accept::ConnCounts>,
    /// Open rooms per owner.
    pub(crate) room_quota: Arc<limits::RoomQuota>,
    /// HTTP API requests per address.
    pub(crate) http_limits: limits::HttpLimits,
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
    pub(crate) replays: Arc<replays::ReplayGate>,
}

impl AppState {
    /// Fresh shared state, with the sender that signals shutdown and the
    /// receiver that yields `None` once every task guard is dropped.
    pub fn new(db: Db, config: Config) -> (Arc<AppState>, watch::Sender<bool>, mpsc::Receiver<()>) {
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let (done_tx, done_rx) = mpsc::channel::<()>(1);
        let flusher = Arc::new(Flusher::default());
        tokio::spawn(Flusher::run(Arc::downgrade(&flusher), Flusher::tick_for(config.batch_every)));
        let cpu = cpu::Cpu::new(config.max_searches);
        let state = Arc::new(AppState {
            conn_permits: Arc::new(Semaphore::new(config.max_connections)),
            conn_counts: accept::ConnCounts::new(
                config.max_connections_per_addr,
                accept::fd_budget().unwrap_or(usize::MAX),
            ),
            proxied_counts: accept::ConnCounts::new(config.max_connections_per_addr, usize::MAX),
            room_quota: limits::RoomQuota::new(config.max_rooms_per_owner),
            http_limits: limits::HttpLimits::new(
                config.http_writes_per_min,
                config.http_reads_per_min,
                config.registrations_per_min,
            ),
            replays: replays::ReplayGate::new(config.replays_per_addr),
            config,
            db,
            rooms: Mutex::new(HashMap::new()),
            seats_by_player: Mutex::new(HashMap::new()),
            player_conns: Mutex::new(HashMap::new()),
            metrics: metrics::Metrics::default(),
            tournaments: tournament::Registry::default(),
            ladder: ladder::Ladder::default(),
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
    pub fn next_conn_id(&self) -> ConnId {
        self.next_conn.fetch_add(1, Ordering::Relaxed) + 1
    }
    /// A receiver that turns true when the server shuts down.
    pub fn shutdown(&self) -> watch::Receiver<bool> {
        self.shutdown.clone()
    }
    /// A guard that keeps `run` from returning while held.
    pub fn task_guard(&self) -> mpsc::Sender<()> {
        self.done.clone()
    }
    /// The handle of a room.
    pub fn room(&self, id: RoomId) -> Option<RoomHandle> {
        self.rooms.lock().expect("rooms lock").get(&id).cloned()
    }
    /// Stops the server: it shuts down as on a signal, and `run` returns
    /// [`ServerError::Failed`] with `why`.
    pub fn fail(&self, why: &str) {
        tracing::error!("{why}: shutting down");
        self.failure.lock().expect("failure lock").get_or_insert_with(|| why.to_string());
        self.failed.notify_one();
    }
    /// Whether the server is shutting down.
    pub fn is_shutting_down(&self) -> bool {
        self.closing.load(Ordering::SeqCst) || *self.shutdown.borrow()
    }
}

/// Where the server takes connections.
pub enum Listener {
    /// A TCP socket (the default: `--listen 127.0.0.1:8080`).
    Tcp(TcpListener),
    /// A Unix domain socket (`--listen unix:/path`): for a reverse proxy or
    /// local bots on the same host, without the TCP stack's cost per frame.
    #[cfg(unix)]
    Unix(tokio::net::UnixListener),
}

impl Listener {
    /// The URL the listening address is reached at, as far as this host
    /// knows it (`http://127.0.0.1:8080`, `unix:/run/capicua.sock`).
    fn url(&self) -> String {
        match self {
            Listener::Tcp(l) => l.local_addr().map(|a| format!("http://{a}")).unwrap_or_default(),
            #[cfg(unix)]
            Listener::Unix(l) => l
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| format!("unix:{}", p.display())))
                .unwrap_or_default(),
        }
    }
}

impl From<TcpListener> for Listener {
    fn from(l: TcpListener) -> Listener {
        Listener::Tcp(l)
    }
}

#[cfg(unix)]
impl From<tokio::net::UnixListener> for Listener {
    fn from(l: tokio::net::UnixListener) -> Listener {
        Listener::Unix(l)
    }
}

/// Serves HTTP and WebSocket on `listener` until `shutdown` resolves; then
/// tells every connection and room, waits for them to finish, and closes the
/// database once every finished game is committed.
pub async fn run(
    listener: impl Into<Listener>,
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let listener = listener.into();
    let url = config.public_url.clone().unwrap_or_else(|| listener.url());
    let (state, shutdown_tx, mut done_rx) = AppState::new(db.clone(), config);
    // Recorded before any room opens: every room is stored as this node's.
    nodes::join(&state, &url).await?;
    let shutdown_rx = state.shutdown();
    let app = http::router(state.clone());
    tournament::spawn_scheduler(state.clone());
    tournament::spawn_host(state.clone());
    ladder::spawn(state.clone());
    let mut http_shutdown = shutdown_rx.clone();
    let stopped = async move {
        shutdown_signalled(&mut http_shutdown).await;
    };
    let server = match listener {
        // Prompts and moves are small frames on a round trip: Nagle's
        // algorithm would hold each one back waiting for an ACK.
        // Each request carries its peer's address (the per-address limits
        // read it); connections are timed out and capped (`accept`).
        Listener::Tcp(listener) => tokio::spawn(accept::serve(listener, app, state.clone(), stopped)),
        #[cfg(unix)]
        Listener::Unix(listener) => spawn_http(listener, app, stopped),
    };
    tokio::select! {
        _ = shutdown => {}
        _ = state.failed.notified() => {}
    }
    let failure = state.failure.lock().expect("failure lock").clone();
    tracing::info!("shutting down: closing rooms, then connections");
    // Rooms first, so players still connected hear that their room closed;
    // a room never stops mid-write (a finished game's commit is awaited
    // inside the room task before it reads its next command).
    state.closing.store(true, Ordering::SeqCst);
    state.hints.stop.stop();
    let rooms: Vec<RoomHandle> = state.rooms.lock().expect("rooms lock").values().cloned().collect();
    for r in &rooms {
        let _ = r.tx.send(room::RoomCmd::Shutdown);
    }
    drop(rooms);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !state.rooms.lock().expect("rooms lock").is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let _ = shutdown_tx.send(true);
    let done = state.done.clone();
    drop(state);
    drop(done);
    // Every task holding a guard has ended when recv() yields None.
    let _ = tokio::time::timeout(Duration::from_secs(10), done_rx.recv()).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
    if let Err(e) = db.stop_node().await {
        tracing::warn!(error = %e, "stamping this node stopped");
    }
    db.close().await;
    tracing::info!("shutdown complete");
    match failure {
        Some(why) => Err(ServerError::Failed(why)),
        None => Ok(()),
    }
}

/// Serves the router on a listener with no peer addresses (a Unix socket)
/// until `stopped` resolves.
#[cfg(unix)]
fn spawn_http<L>(
    listener: L,
    app: axum::Router,
    stopped: impl Future<Output = ()> + Send + 'static,
) -> tokio::task::JoinHandle<std::io::Result<()>>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    let server = axum::serve(listener, app).with_graceful_shutdown(stopped);
    tokio::spawn(async move { server.await })
}

/// Resolves once the shutdown flag is set (at once if it already is).
pub async fn shutdown_signalled(rx: &mut watch::Receiver<bool>) {
    // The borrow guard `wait_for` returns is not `Send`: drop it here.
    let _ = rx.wait_for(|s| *s).await.is_ok();
}
