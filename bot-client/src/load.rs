//! `capicua-bot load`: fills N rooms with 4 remote bots each (uniform random
//! legal moves from the prompt), plays for S seconds, and reports moves/s,
//! finished games/s and the server's response time: move sent to the
//! table's next prompt received (and to `accepted`, for bots that ask for
//! one). Bots answer at once, or after a think time drawn
//! from an exponential distribution (as people and real bots think); a
//! share of them (churn) drop their connection in the middle of a match
//! and come back to their seat with their token, as phones and flaky
//! networks do.
//!
//! The bots ask for lean prompts (no view: they choose from the legal moves
//! alone), and by default for no `accepted` (a move is known to be played
//! once the table's next prompt comes), and read each frame into a small struct that skips everything but
//! the fields they use, so the load client spends little of the machine's
//! CPU on decoding.
//!
//! Every seat notes the stored game id each `game-over` names (or that it
//! names none: the server could not store the match), so a run reports how
//! many finished matches were stored, and which: a crash drill checks each
//! against the database. The window ends early once every seat's
//! connection is gone (the server died) or, with `games`, once that many
//! matches have finished.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::borrow::Cow;

use capicua_protocol::{ClientMsg, ErrorCode, GameId, RoomId, RoomSpec, ServerMsg, TimeControl};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::remote::{Connection, Greeting, RemoteError, code_name, unexpected};

/// What to load.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// Rooms to fill.
    pub tables: usize,
    /// Seconds of measured play.
    pub seconds: u64,
    /// The preset played (4 seats).
    pub preset: String,
    /// Ask for batched events (`hello`'s `batch-events`).
    pub batch_events: bool,
    /// Ask for no `accepted` for legal moves (`hello`'s `skip-accepted`):
    /// the server then writes one frame per move, the next seat's prompt.
    pub skip_accepted: bool,
    /// Mean think time per move (exponentially distributed, capped at ten
    /// times the mean); `None`: answer at once.
    pub think: Option<Duration>,
    /// Share of seats (0 to 1) that drop their connection once per match, at
    /// a random prompt, and reconnect with their token.
    pub churn: f64,
    /// The server's process id, to report its resident memory.
    pub server_pid: Option<u32>,
    /// Print a line of figures (moves/s, matches, errors, the server's
    /// memory) to stderr at this period of the measured window: the curve
    /// of a soak.
    pub report_every: Option<Duration>,
    /// Rated rooms: every seat registers (a rated room admits registered
    /// players only), so each stored match moves ratings as on a club's
    /// server.
    pub rated: bool,
    /// End the window once this many matches have finished (warm-up
    /// included); `None`: play the whole window.
    pub games: Option<u64>,
    /// Tokens of registered players to seat first, one seat each, in table
    /// order (the other seats register or come as guests, as above): the
    /// same players play on, e.g. against a restarted server.
    pub players: Vec<String>,
}

/// The figures of a run.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// Rooms.
    pub tables: usize,
    /// Connections opened.
    pub connections: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// Moves played: each move the server answered with the table's next
    /// prompt or the match's end.
    pub moves: u64,
    /// Moves played per second.
    pub moves_per_sec: f64,
    /// Matches finished and stored in the measured window (the server
    /// announces a match only after its commit, with the stored game's id).
    pub finished_games: u64,
    /// Matches finished per second.
    pub finished_games_per_sec: f64,
    /// Move sent to accepted received, median, milliseconds (`None` when
    /// the bots skipped `accepted`).
    pub latency_p50_ms: Option<f64>,
    /// Same, 99th percentile.
    pub latency_p99_ms: Option<f64>,
    /// Move sent to the table's next prompt received (whichever seat it
    /// goes to), median, milliseconds.
    pub next_prompt_p50_ms: f64,
    /// Same, 99th percentile.
    pub next_prompt_p99_ms: f64,
    /// Error frames, failed connections and dropped connections.
    pub errors: u64,
    /// Reconnections made by churning seats during the measured window.
    pub reconnects: u64,
    /// Matches over whose `game-over` named their stored game, over the
    /// whole run (warm-up and drain included).
    pub games_stored: u64,
    /// Matches over whose `game-over` named no game: the server could not
    /// store them.
    pub games_not_stored: u64,
    /// The stored matches (what `games_stored` counts): each one's room and
    /// stored game, by game id. Left out of the JSON report, which stays one
    /// short line.
    #[serde(skip)]
    pub stored: Vec<(RoomId, GameId)>,
    /// The tokens of the registered players seated (given or registered),
    /// table by table: a later run can seat the same players
    /// (`LoadConfig::players`). Secret: never in the JSON report.
    #[serde(skip)]
    pub tokens: Vec<String>,
    /// The server's resident memory at the end of the window, MiB (with
    /// `server_pid`).
    pub server_rss_mib: Option<f64>,
    /// The same per open connection, KiB.
    pub server_rss_per_connection_kib: Option<f64>,
}

#[derive(Default)]
struct Counters {
    moves: AtomicU64,
    games: AtomicU64,
    errors: AtomicU64,
    reconnects: AtomicU64,
    /// Every match over, by (room, sequence number of its `game-over`):
    /// the stored game it names. Each of the four seats notes it, so a
    /// match counts even if some seats lost their connection first.
    over: Mutex<HashMap<(RoomId, u64), Option<GameId>>>,
    /// Matches to finish before the window ends (`LoadConfig::games`).
    target: Option<u64>,
    /// Told when `over` reaches `target`.
    reached: Notify,
}

impl Counters {
    /// Notes a match over, once per match however many seats report it.
    fn over(&self, room: RoomId, seq: u64, game: Option<GameId>) {
        let mut over = self.over.lock().expect("game-over log lock");
        if over.insert((room, seq), game).is_none() && self.target == Some(over.len() as u64) {
            self.reached.notify_one();
        }
    }
}

/// A process's resident set size in KiB, from `/proc` (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Microseconds since the load began: the clock that the seats of a table
/// share through an atomic (0 is "no move pending").
fn now_us(epoch: Instant) -> u64 {
    epoch.elapsed().as_micros().min(u64::MAX as u128) as u64 + 1
}

/// What the four seats of a table share: when its last move was sent, until
/// a prompt at the table (the next seat's, usually) takes it.
struct Table {
    epoch: Instant,
    move_sent_us: AtomicU64,
}

/// What a seat does besides answering: think, churn.
#[derive(Clone, Copy)]
struct Behaviour {
    think: Option<Duration>,
    churns: bool,
    greeting: Greeting,
}

/// What `run` and every seat share.
#[derive(Default)]
struct Shared {
    counters: Counters,
    /// Whether the measured window is open: seats count only then.
    measuring: AtomicBool,
    /// Set at the end of the window: seats stop at their next frame.
    stop: AtomicBool,
}

/// A table's room and its seats' connections, each with its player's
/// token if registered.
type SeatedTable = (RoomId, Vec<(Connection, Option<String>)>);

/// What a seat's task returns: its move-to-accepted and move-to-next-prompt
/// samples, in microseconds.
type Samples = (Vec<u32>, Vec<u32>);

/// The measured window's figures.
struct Window {
    seconds: f64,
    moves: u64,
    games: u64,
    /// The server's resident memory at its end, KiB (with `server_pid`).
    rss_kib: Option<u64>,
}

/// Runs the load and returns its figures.
pub async fn run(cfg: LoadConfig) -> Result<LoadReport, RemoteError> {
    let shared =
        Arc::new(Shared { counters: Counters { target: cfg.games, ..Counters::default() }, ..Shared::default() });
    // Set up every table first (connect, create, join), then start the clock.
    let seated = set_up_tables(&cfg, &shared.counters).await;
    let connections = seated.iter().map(|(_, (_, c))| c.len()).sum();
    let tokens = seated.iter().flat_map(|(_, (_, c))| c.iter().filter_map(|(_, t)| t.clone())).collect();
    // Each seat holds a sender it never uses: the receiver hears `None` once
    // every seat has ended (the server went away), which ends the window.
    let (alive, all_gone) = mpsc::channel::<()>(1);
    let players = start_players(&cfg, seated, &shared, alive);
    let window = measure(&cfg, &shared, all_gone).await;
    shared.stop.store(true, Ordering::Relaxed);
    // A thinking seat may be asleep for up to ten times the mean.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10) + cfg.think.unwrap_or_default() * 10;
    let (latencies, to_prompt) = gather_samples(players, deadline).await;
    // Every seat has ended or been stopped: no more game-overs come.
    let over = std::mem::take(&mut *shared.counters.over.lock().expect("game-over log lock"));
    let mut stored: Vec<(RoomId, GameId)> = over.iter().filter_map(|(&(room, _), &g)| Some((room, g?))).collect();
    stored.sort_unstable_by_key(|&(_, game)| game);
    let (elapsed, moves, games, rss) = (window.seconds, window.moves, window.games, window.rss_kib);
    Ok(LoadReport {
        tables: cfg.tables,
        connections,
        seconds: elapsed,
        moves,
        moves_per_sec: moves as f64 / elapsed,
        finished_games: games,
        finished_games_per_sec: games as f64 / elapsed,
        latency_p50_ms: (!cfg.skip_accepted).then(|| percentile_ms(&latencies, 0.50)),
        latency_p99_ms: (!cfg.skip_accepted).then(|| percentile_ms(&latencies, 0.99)),
        next_prompt_p50_ms: percentile_ms(&to_prompt, 0.50),
        next_prompt_p99_ms: percentile_ms(&to_prompt, 0.99),
        errors: shared.counters.errors.load(Ordering::Relaxed),
        reconnects: shared.counters.reconnects.load(Ordering::Relaxed),
        games_stored: stored.len() as u64,
        games_not_stored: over.values().filter(|g| g.is_none()).count() as u64,
        stored,
        tokens,
        server_rss_mib: rss.map(|k| k as f64 / 1024.0),
        server_rss_per_connection_kib: rss.filter(|_| connections > 0).map(|k| k as f64 / connections as f64),
    })
}

/// Sets up every table at once; each one that fails counts an error and
/// is left out. Returns the seated tables by table number.
async fn set_up_tables(cfg: &LoadConfig, counters: &Counters) -> Vec<(usize, SeatedTable)> {
    let mut tables = Vec::with_capacity(cfg.tables);
    let mut given = cfg.players.iter();
    for t in 0..cfg.tables {
        // Players given come first. Churning seats need a token to come back
        // to, and a rated room admits registered players only: they register.
        let logins = (0..4)
            .map(|s| match given.next() {
                Some(token) => Login::Token(token.clone()),
                None if cfg.rated || churner(t * 4 + s, cfg.churn) => Login::Register,
                None => Login::Guest,
            })
            .collect();
        let setup = setup_table(cfg.server.clone(), cfg.preset.clone(), greeting(cfg), cfg.rated, logins);
        tables.push(tokio::spawn(setup));
    }
    let mut seated = Vec::new();
    for (t, setup) in tables.into_iter().enumerate() {
        match setup.await {
            Ok(Ok(conns)) => seated.push((t, conns)),
            Ok(Err(e)) => {
                eprintln!("table setup failed: {e}");
                counters.errors.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                counters.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    seated
}

/// Starts a task per seat of every seated table; the first seat of a table
/// counts its finished matches.
fn start_players(
    cfg: &LoadConfig,
    seated: Vec<(usize, SeatedTable)>,
    shared: &Arc<Shared>,
    alive: mpsc::Sender<()>,
) -> Vec<JoinHandle<Result<Samples, RemoteError>>> {
    let mut players = Vec::new();
    let epoch = Instant::now();
    for (t, (room, conns)) in seated {
        let table = Arc::new(Table { epoch, move_sent_us: AtomicU64::new(0) });
        for (i, (conn, token)) in conns.into_iter().enumerate() {
            let churns = churner(t * 4 + i, cfg.churn);
            let seat = Seat {
                server: cfg.server.clone(),
                token,
                how: Behaviour { think: cfg.think, churns, greeting: greeting(cfg) },
                room,
                table: table.clone(),
                counts_games: i == 0,
                shared: shared.clone(),
                _alive: alive.clone(),
            };
            players.push(tokio::spawn(player(conn, seat)));
        }
    }
    players
}

/// A short warm-up, then the measured window: until its seconds are up,
/// every seat has ended, or the matches asked for have finished. Prints a
/// line of figures every `report_every`.
async fn measure(cfg: &LoadConfig, shared: &Shared, mut all_gone: mpsc::Receiver<()>) -> Window {
    let counters = &shared.counters;
    let ends_early = async {
        tokio::select! {
            _ = all_gone.recv() => {}
            _ = counters.reached.notified() => {}
        }
    };
    tokio::pin!(ends_early);
    let warm_up = tokio::time::sleep(Duration::from_millis(500));
    let ended_in_warm_up = tokio::select! {
        _ = warm_up => false,
        _ = &mut ends_early => true,
    };
    let m0 = counters.moves.load(Ordering::Relaxed);
    let g0 = counters.games.load(Ordering::Relaxed);
    shared.measuring.store(true, Ordering::Relaxed);
    let t0 = Instant::now();
    let window = tokio::time::sleep(Duration::from_secs(cfg.seconds));
    tokio::pin!(window);
    let mut report = cfg
        .report_every
        .filter(|e| !e.is_zero())
        .map(|every| tokio::time::interval_at(tokio::time::Instant::now() + every, every));
    let mut progress = Progress { t0, g0, moves_then: m0, then: t0 };
    if !ended_in_warm_up {
        loop {
            tokio::select! {
                _ = &mut window => break,
                _ = &mut ends_early => break,
                _ = async { report.as_mut().expect("guarded").tick().await }, if report.is_some() => {
                    progress.print(counters, cfg.server_pid);
                }
            }
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    shared.measuring.store(false, Ordering::Relaxed);
    let moves = counters.moves.load(Ordering::Relaxed) - m0;
    let games = counters.games.load(Ordering::Relaxed) - g0;
    Window { seconds, moves, games, rss_kib: cfg.server_pid.and_then(rss_kib) }
}

/// The periodic line of a soak: where the window began, and the moves
/// counted at the last line.
struct Progress {
    t0: Instant,
    g0: u64,
    moves_then: u64,
    then: Instant,
}

impl Progress {
    /// Prints the moves per second since the last line, and the totals.
    fn print(&mut self, counters: &Counters, server_pid: Option<u32>) {
        let now = counters.moves.load(Ordering::Relaxed);
        let not_stored = counters.over.lock().expect("game-over log lock").values().filter(|g| g.is_none()).count();
        let rss = server_pid.and_then(rss_kib).map_or("-".into(), |k| format!("{:.1}", k as f64 / 1024.0));
        eprintln!(
            "t {:>6.0} s  moves/s {:>7.0}  matches stored {:>7}  not stored {not_stored}  errors {}  reconnects {}  server RSS MiB {rss}",
            self.t0.elapsed().as_secs_f64(),
            (now - self.moves_then) as f64 / self.then.elapsed().as_secs_f64(),
            counters.games.load(Ordering::Relaxed) - self.g0,
            counters.errors.load(Ordering::Relaxed),
            counters.reconnects.load(Ordering::Relaxed),
        );
        (self.moves_then, self.then) = (now, Instant::now());
    }
}

/// Every seat's samples, each list sorted; a seat still running at
/// `deadline` is aborted and its samples lost.
async fn gather_samples(
    players: Vec<JoinHandle<Result<Samples, RemoteError>>>,
    deadline: tokio::time::Instant,
) -> Samples {
    let mut latencies: Vec<u32> = Vec::new();
    let mut to_prompt: Vec<u32> = Vec::new();
    for p in players {
        let abort = p.abort_handle();
        match tokio::time::timeout_at(deadline, p).await {
            Ok(Ok(Ok((l, p)))) => {
                latencies.extend(l);
                to_prompt.extend(p);
            }
            Ok(_) => {}
            Err(_) => abort.abort(),
        }
    }
    latencies.sort_unstable();
    to_prompt.sort_unstable();
    (latencies, to_prompt)
}

/// The `q` quantile of `sorted` microseconds, in milliseconds (0 if empty).
fn percentile_ms(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * q) as usize).min(sorted.len() - 1);
    sorted[i] as f64 / 1000.0
}

/// Whether seat number `n` churns, for a share `churn` of the seats
/// (spread evenly, so any run has its share).
fn churner(n: usize, churn: f64) -> bool {
    churn > 0.0 && ((n as f64 + 1.0) * churn).floor() > (n as f64 * churn).floor()
}

/// What every load bot asks for in its `hello`: lean prompts, and the
/// events and `accepted` as configured.
fn greeting(cfg: &LoadConfig) -> Greeting {
    Greeting { lean_prompts: true, batch_events: cfg.batch_events, skip_accepted: cfg.skip_accepted }
}

/// How a seat of a table comes in.
enum Login {
    /// A guest.
    Guest,
    /// A new player, registered on the spot.
    Register,
    /// A registered player's token.
    Token(String),
}

async fn setup_table(
    server: String,
    preset: String,
    greeting: Greeting,
    rated: bool,
    logins: Vec<Login>,
) -> Result<(RoomId, Vec<(Connection, Option<String>)>), RemoteError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() % 1_000_000);
    let mut conns = Vec::with_capacity(4);
    for login in logins {
        let mut c = Connection::connect(&server).await?;
        let token = match login {
            Login::Token(token) => {
                c.hello_with(Some(token.clone()), greeting).await?;
                Some(token)
            }
            Login::Register => {
                c.hello_with(None, greeting).await?;
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                let name = format!("load-{run}-{}-{n}", std::process::id());
                match c.request(ClientMsg::Register { name }, |_| {}).await? {
                    ServerMsg::Registered { token, .. } => Some(token),
                    other => return Err(unexpected("register", other)),
                }
            }
            Login::Guest => {
                c.hello_with(None, greeting).await?;
                None
            }
        };
        conns.push((c, token));
    }
    let spec = RoomSpec {
        preset: Some(preset),
        seats: Some(4),
        time: Some(TimeControl { move_ms: 60_000, bank_ms: 0 }),
        rated,
        ..Default::default()
    };
    let room = match conns[0].0.request(ClientMsg::CreateRoom(Box::new(spec)), |_| {}).await? {
        ServerMsg::Room { room } => room.id,
        other => return Err(unexpected("create-room", other)),
    };
    for (i, (c, _)) in conns.iter_mut().enumerate() {
        match c.request(ClientMsg::join(room, Some(i as u8)), |_| {}).await? {
            ServerMsg::Seated { .. } => {}
            other => return Err(unexpected("join", other)),
        }
    }
    Ok((room, conns))
}

/// How an `events` frame from capicua-server starts.
const EVENTS_PREFIX: &str = r#"{"type":"events","#;

/// The fields of a server frame a load bot reads; the rest (views, events)
/// is skipped unparsed, and the legal moves stay JSON text: a load bot
/// sends one back as it came, so its own CPU (which the server's shares
/// the machine with) goes on the wire, not on decoding and encoding moves.
#[derive(Deserialize)]
struct LeanFrame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    prompt: Option<u64>,
    #[serde(default, borrow)]
    family: Option<Cow<'a, str>>,
    #[serde(default, rename = "legal-moves", borrow)]
    legal_moves: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    code: Option<ErrorCode>,
    #[serde(default)]
    message: Option<String>,
}

/// The `move` frame answering `prompt` with one of its legal moves, as the
/// prompt gave it (JSON text): what `ClientMsg::play` would serialize.
fn move_frame(room: RoomId, prompt: u64, family: &str, m: &RawValue) -> String {
    format!(r#"{{"type":"move","room":{room},"prompt":{prompt},"family":"{family}","move":{}}}"#, m.get())
}

/// What a load bot reads of a `game-over` (parsed a second time, once per
/// match, the only frame whose `game` it reads).
#[derive(Deserialize)]
struct GameOverFrame {
    seq: u64,
    game: Option<GameId>,
}

/// One seat of a table, as `run` hands it to its task.
struct Seat {
    /// Where to reconnect after churning.
    server: String,
    /// The player's token, if registered: what a churning seat comes back with.
    token: Option<String>,
    how: Behaviour,
    room: RoomId,
    table: Arc<Table>,
    /// Whether this seat counts the table's finished matches (one seat a table does).
    counts_games: bool,
    shared: Arc<Shared>,
    /// Dropped when this seat ends: `run` ends the window once all are.
    _alive: mpsc::Sender<()>,
}

/// One seat: ready, answer prompts (after thinking, if it thinks), ready
/// again after each match; a churning seat drops its connection once per
/// match and comes back with its token.
async fn player(mut conn: Connection, seat: Seat) -> Result<Samples, RemoteError> {
    let mut bot = Bot::new(seat);
    conn.send(ClientMsg::Ready { room: bot.seat.room, read_hand_ends: false }).await?;
    while !bot.seat.shared.stop.load(Ordering::Relaxed) {
        // No timeout around each read (a timer armed and cancelled per
        // frame): tables play without pause, so the stop flag is seen at the
        // next frame; `run` stops waiting for a silent table at a deadline.
        let text = match conn.recv_text().await {
            Ok(t) => t,
            Err(e) => {
                bot.seat.shared.counters.errors.fetch_add(1, Ordering::Relaxed);
                return Err(e);
            }
        };
        // Most frames are events, which these bots ignore: the server writes
        // `type` first in a frame without an `id`, so a prefix tells them
        // apart without parsing the events (anything else is parsed).
        if text.starts_with(EVENTS_PREFIX) {
            continue;
        }
        if bot.answer(&mut conn, &text).await? == After::Churn {
            // Drop the connection, come back with the token: the server
            // gives the seat back, then sends `sync` and the pending prompt
            // again.
            conn.close().await;
            conn = bot.reconnect().await?;
        }
    }
    conn.close().await;
    Ok((bot.latencies, bot.to_prompt))
}

/// What a seat does once it has answered a frame.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    /// Read the next frame.
    Read,
    /// Leave and come back (a churning seat, once a match).
    Churn,
}

/// A seat at play: its seat, what it measured, and what it remembers
/// between frames.
struct Bot {
    seat: Seat,
    /// Move sent to `accepted`, microseconds.
    latencies: Vec<u32>,
    /// Move sent (at the table) to the next prompt, microseconds.
    to_prompt: Vec<u32>,
    /// When the move awaiting its `accepted` was sent.
    sent: Option<Instant>,
    /// The last move's frame, to send again if it was rate limited.
    last_move: Option<Utf8Bytes>,
    /// The xorshift state behind its choices, think times and churn.
    rng: u64,
    /// Whether it has churned this match: a churning seat leaves at about
    /// its tenth prompt of each match.
    churned: bool,
}

impl Bot {
    fn new(seat: Seat) -> Bot {
        let rng = 0x9e37_79b9_7f4a_7c15u64
            ^ seat.room
            ^ (u64::from(seat.counts_games) << 40)
            ^ (seat.token.is_some() as u64) << 41;
        Bot {
            seat,
            latencies: Vec::with_capacity(4096),
            to_prompt: Vec::with_capacity(4096),
            sent: None,
            last_move: None,
            rng,
            churned: false,
        }
    }

    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn measuring(&self) -> bool {
        self.seat.shared.measuring.load(Ordering::Relaxed)
    }

    /// Acts on a frame other than events.
    async fn answer(&mut self, conn: &mut Connection, text: &str) -> Result<After, RemoteError> {
        let frame: LeanFrame = serde_json::from_str(text)?;
        let counters = &self.seat.shared.counters;
        match (frame.kind.as_ref(), frame.prompt, frame.legal_moves) {
            ("prompt", Some(prompt), Some(legal_moves)) if !legal_moves.is_empty() => {
                let family = frame.family.as_deref().unwrap_or("tiles");
                return self.on_prompt(conn, prompt, family, &legal_moves).await;
            }
            ("accepted", ..) => {
                if let Some(t) = self.sent.take()
                    && self.measuring()
                {
                    self.latencies.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                }
            }
            ("game-over", ..) => self.on_game_over(conn, text).await?,
            ("error", ..) if frame.code == Some(ErrorCode::RateLimited) => {
                // The move was dropped unread: the prompt stands, send it again.
                counters.errors.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                if let Some(m) = self.last_move.clone() {
                    conn.send_text(m).await?;
                }
            }
            ("error", ..) => {
                let n = counters.errors.fetch_add(1, Ordering::Relaxed);
                if n < 10 {
                    let code = frame.code.as_ref().map(code_name).unwrap_or_default();
                    eprintln!("room {}: server error {code}: {}", self.seat.room, frame.message.unwrap_or_default());
                }
            }
            _ => {}
        }
        Ok(After::Read)
    }

    /// Notes the wait since the table's last move, then churns, or thinks
    /// and plays a random legal move.
    async fn on_prompt(
        &mut self,
        conn: &mut Connection,
        prompt: u64,
        family: &str,
        legal_moves: &[&RawValue],
    ) -> Result<After, RemoteError> {
        let table = &self.seat.table;
        // The first prompt at the table since its last move (a prompt sent
        // again after a reconnect finds none) is how the table learns that
        // the move was played, with or without an `accepted`: it counts here.
        let moved = table.move_sent_us.swap(0, Ordering::Relaxed);
        if moved != 0 && self.measuring() {
            let waited = now_us(table.epoch).saturating_sub(moved);
            self.to_prompt.push(waited.min(u32::MAX as u64) as u32);
            self.seat.shared.counters.moves.fetch_add(1, Ordering::Relaxed);
        }
        if self.seat.how.churns && !self.churned && self.next().is_multiple_of(10) {
            return Ok(After::Churn);
        }
        if let Some(mean) = self.seat.how.think {
            // Exponential, capped: -ln(u) * mean with u in (0, 1].
            let u = ((self.next() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
            tokio::time::sleep(mean.mul_f64((-u.ln()).min(10.0))).await;
        }
        let m = legal_moves[(self.next() % legal_moves.len() as u64) as usize];
        let text: Utf8Bytes = move_frame(self.seat.room, prompt, family, m).into();
        self.last_move = Some(text.clone());
        self.sent = Some(Instant::now());
        self.seat.table.move_sent_us.store(now_us(self.seat.table.epoch), Ordering::Relaxed);
        conn.send_text(text).await?;
        Ok(After::Read)
    }

    /// Comes back to the seat with the token, its old connection closed;
    /// churns no more this match.
    async fn reconnect(&mut self) -> Result<Connection, RemoteError> {
        self.churned = true;
        let seat = &self.seat;
        let mut conn = Connection::connect(&seat.server).await?;
        conn.hello_with(seat.token.clone(), seat.how.greeting).await?;
        if self.measuring() {
            seat.shared.counters.reconnects.fetch_add(1, Ordering::Relaxed);
        }
        Ok(conn)
    }

    /// Notes the match over (and its stored game), then readies for the next.
    async fn on_game_over(&mut self, conn: &mut Connection, text: &str) -> Result<(), RemoteError> {
        let over: GameOverFrame = serde_json::from_str(text)?;
        let seat = &self.seat;
        seat.shared.counters.over(seat.room, over.seq, over.game);
        self.churned = false;
        // The match's last move was played (the first seat to hear counts
        // it); the next match's first prompt waits for every seat's
        // `ready`: not a move's answer.
        if seat.table.move_sent_us.swap(0, Ordering::Relaxed) != 0 && self.measuring() {
            seat.shared.counters.moves.fetch_add(1, Ordering::Relaxed);
        }
        if seat.counts_games && seat.shared.measuring.load(Ordering::Relaxed) && over.game.is_some() {
            seat.shared.counters.games.fetch_add(1, Ordering::Relaxed);
        }
        conn.send(ClientMsg::Ready { room: seat.room, read_hand_ends: false }).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_protocol::{AnyMove, ClientFrame, Family, ServerFrame, decode_client, tiles};

    /// A load bot's move, echoed from a prompt's legal moves as text, is the
    /// frame the protocol's own types make of that move, in both families.
    #[test]
    fn a_move_echoed_from_a_prompt_is_the_move_the_protocol_would_send() {
        let prompts = [
            r#"{"type":"prompt","room":3,"prompt":41,"seat":1,"deadline-ms":10,"family":"tiles","legal-moves":[{"kind":"pass"},{"kind":"draw"},{"kind":"play","tile":[2,5],"end":1,"face":0},{"kind":"play","tile":[6,6],"end":255,"face":0}]}"#,
            r#"{"type":"prompt","room":3,"prompt":42,"seat":0,"deadline-ms":10,"family":"poly","legal-moves":[{"kind":"play","tile":25,"at":{"kind":"cell","x":0,"y":-1},"rotation":2},{"kind":"draw"}]}"#,
        ];
        for text in prompts {
            // The prompt as the protocol reads it, and its moves.
            let ServerFrame { msg: ServerMsg::Prompt { turn, .. }, .. } = serde_json::from_str(text).unwrap() else {
                panic!("not a prompt: {text}")
            };
            let expected: Vec<AnyMove> = match turn {
                Family::Tiles(t) => t.legal_moves.into_iter().map(AnyMove::Tiles).collect(),
                Family::Poly(p) => p.legal_moves.into_iter().map(AnyMove::Poly).collect(),
            };
            let frame: LeanFrame = serde_json::from_str(text).unwrap();
            let legal = frame.legal_moves.unwrap();
            assert_eq!(legal.len(), expected.len());
            for (raw, m) in legal.iter().zip(expected) {
                let prompt = frame.prompt.unwrap();
                let sent = move_frame(3, prompt, frame.family.as_deref().unwrap(), raw);
                let ours = ClientFrame::new(None, ClientMsg::play(3, prompt, m));
                assert_eq!(decode_client(&sent).map_err(|(_, e)| e.to_string()), Ok(ours), "{sent}");
            }
        }
    }

    #[test]
    fn events_frames_start_with_the_skipped_prefix_and_prompts_do_not() {
        let events = ServerFrame {
            id: None,
            msg: ServerMsg::Events {
                room: 3,
                seq: 9,
                happened: Family::Tiles(tiles::Events { events: vec![], view: None, hand_end: None }),
            },
        };
        assert!(serde_json::to_string(&events).unwrap().starts_with(EVENTS_PREFIX));
        let prompt = ServerFrame {
            id: None,
            msg: ServerMsg::Prompt {
                room: 3,
                prompt: 1,
                seat: 0,
                deadline_ms: 10,
                turn: Family::Tiles(tiles::Prompt { view: None, legal_moves: vec![] }),
            },
        };
        assert!(!serde_json::to_string(&prompt).unwrap().starts_with(EVENTS_PREFIX));
    }
}
