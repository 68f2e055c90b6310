//! Remote bots: play on a capicua server over its WebSocket protocol.
//!
//! `capicua-bot play` runs [`play`]: each bot connects, says hello (with a
//! token, or as a guest; asking for batched events, since it decides from
//! each prompt's view), takes the seat it is given back (reconnect), asked
//! for (`--room`) or finds (the first waiting room with an empty seat, else a
//! new room), says ready, answers every prompt with its strategy, says ready
//! again after each match, and on a dropped connection reconnects with
//! randomized, capped exponential backoff. A close code that forbids
//! reconnecting (bad token, version mismatch) ends the bot with an error.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use capicua_engine::{Move, Rules, Variant, ViewSnapshot};
use capicua_protocol::{
    Assignment, ClientFrame, ClientMsg, ErrorCode, PROTOCOL_VERSION, Progress, RoomId, RoomSpec, RoomStatus,
    ServerFrame, ServerMsg, close,
};
use capicua_strategy::rng::derive_seed;
use capicua_strategy::{SnapshotSeat, SpecError, Strategy, spec};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::error::UrlError;

use crate::transport::{self, Transport};

/// Errors of a remote bot.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The WebSocket failed.
    #[error("websocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// The server sent something we could not read.
    #[error("bad frame from the server: {0}")]
    Frame(#[from] serde_json::Error),
    /// The server closed the connection with a code that forbids reconnecting.
    #[error("closed by the server with code {code}: {reason}")]
    Refused {
        /// The close code.
        code: u16,
        /// Its reason.
        reason: String,
    },
    /// The server answered with an error we cannot recover from.
    #[error("server error {}: {message}", code_name(.code))]
    Server {
        /// The code.
        code: ErrorCode,
        /// The message.
        message: String,
    },
    /// The server answered a request with a message that is not its reply.
    #[error("unexpected answer to {request}: {answer}")]
    Unexpected {
        /// The request's `type`.
        request: &'static str,
        /// The answer, for people.
        answer: String,
    },
    /// Every room tried was full or taken meanwhile.
    #[error("could not find a free seat")]
    NoSeat,
    /// A bot's task panicked or was cancelled.
    #[error("bot task failed: {0}")]
    Task(tokio::task::JoinError),
    /// The strategy spec does not build.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The connection ended.
    #[error("connection closed")]
    Closed,
}

/// What `capicua-bot play` was asked.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// A registered player's token (guests play casual rooms only).
    pub token: Option<String>,
    /// The strategy spec.
    pub strategy: String,
    /// The room to join, or find one.
    pub room: Option<RoomId>,
    /// The preset for a room this bot creates when it finds none.
    pub preset: String,
    /// Bots in this process.
    pub count: usize,
    /// Stop after this many finished matches per bot (`None`: until stopped).
    pub matches: Option<u64>,
}

/// Counters shared by the bots of one process.
#[derive(Debug, Default)]
pub struct Tally {
    /// Moves accepted.
    pub moves: AtomicU64,
    /// Matches finished (seen by each bot).
    pub games: AtomicU64,
    /// Error frames received.
    pub errors: AtomicU64,
    /// Reconnects.
    pub reconnects: AtomicU64,
}

/// A WebSocket connection speaking the protocol.
pub struct Connection {
    ws: WebSocketStream<Transport>,
    next_id: u64,
}

impl Connection {
    /// Connects to `ws://HOST:PORT/PATH` (TCP, Nagle off: frames are small
    /// and latency matters) or `unix:PATH` (a Unix domain socket).
    pub async fn connect(server: &str) -> Result<Connection, RemoteError> {
        use tokio_tungstenite::tungstenite::Error as WsError;
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        // Small read buffer: the transport zero-fills it on every read.
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
        let (request, stream) = match transport::unix_path(server) {
            #[cfg(unix)]
            Some(path) => {
                let unix = tokio::net::UnixStream::connect(path).await.map_err(WsError::Io)?;
                // The handshake still names a host and a path; the socket
                // decides where it goes.
                ("ws://localhost/ws".into_client_request()?, Transport::Unix(unix))
            }
            _ => {
                let request = server.into_client_request()?;
                let uri = request.uri();
                let host = uri.host().ok_or(WsError::Url(UrlError::NoHostName))?;
                let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
                let port = uri.port_u16().unwrap_or(80);
                let tcp = TcpStream::connect((host.as_str(), port)).await.map_err(WsError::Io)?;
                tcp.set_nodelay(true).map_err(WsError::Io)?;
                (request, Transport::Tcp(tcp))
            }
        };
        let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, Some(config)).await?;
        Ok(Connection { ws, next_id: 0 })
    }

    /// Sends a message with a fresh request id, returning the id.
    pub async fn send(&mut self, msg: ClientMsg) -> Result<u64, RemoteError> {
        self.next_id += 1;
        let text = serde_json::to_string(&ClientFrame::new(Some(self.next_id), msg))?;
        self.ws.send(Message::Text(text.into())).await?;
        Ok(self.next_id)
    }

    /// The next server frame; a close frame becomes an error carrying its code.
    pub async fn recv(&mut self) -> Result<ServerFrame, RemoteError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(serde_json::from_str(&t)?),
                Some(Ok(Message::Close(Some(c)))) => {
                    return Err(RemoteError::Refused { code: c.code.into(), reason: c.reason.to_string() });
                }
                Some(Ok(Message::Close(None))) | None => return Err(RemoteError::Closed),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
            }
        }
    }

    /// Sends a request and waits for its reply, handing other frames to `other`.
    pub async fn request(
        &mut self,
        msg: ClientMsg,
        mut other: impl FnMut(ServerMsg),
    ) -> Result<ServerMsg, RemoteError> {
        let id = self.send(msg).await?;
        loop {
            let f = self.recv().await?;
            if f.id == Some(id) {
                return Ok(f.msg);
            }
            other(f.msg);
        }
    }

    /// Says hello; returns the rooms where this player already sits.
    pub async fn hello(&mut self, token: Option<String>) -> Result<Vec<capicua_protocol::SeatRef>, RemoteError> {
        self.hello_with(token, false, false).await
    }

    /// Says hello, asking for lean prompts (no view) or not, and for batched
    /// events (events may wait for the next prompt or reply) or not.
    pub async fn hello_with(
        &mut self,
        token: Option<String>,
        lean_prompts: bool,
        batch_events: bool,
    ) -> Result<Vec<capicua_protocol::SeatRef>, RemoteError> {
        let hello = ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts, batch_events };
        match self.request(hello, |_| {}).await? {
            ServerMsg::Welcome { seats, .. } => Ok(seats),
            other => Err(unexpected("hello", other)),
        }
    }

    /// Sends an already serialized client frame (no request id bookkeeping).
    pub async fn send_text(&mut self, text: String) -> Result<(), RemoteError> {
        self.ws.send(Message::Text(text.into())).await?;
        Ok(())
    }

    /// The next text frame, undecoded; a close frame becomes an error
    /// carrying its code.
    pub async fn recv_text(&mut self) -> Result<tokio_tungstenite::tungstenite::Utf8Bytes, RemoteError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(t),
                Some(Ok(Message::Close(Some(c)))) => {
                    return Err(RemoteError::Refused { code: c.code.into(), reason: c.reason.to_string() });
                }
                Some(Ok(Message::Close(None))) | None => return Err(RemoteError::Closed),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
            }
        }
    }

    /// Closes politely.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// A strategy and the rules of the rooms it plays in: turns a prompt into
/// a move, the same way for a seat found in the lobby and a tournament table.
struct Decider {
    strategy: Box<dyn Strategy>,
    /// Each room's rules, from its `game-started` (the full variant, so a
    /// custom variant plays as well as a preset).
    rules: HashMap<RoomId, Rules>,
}

impl Decider {
    fn new(strategy: Box<dyn Strategy>) -> Decider {
        Decider { strategy, rules: HashMap::new() }
    }

    /// Takes note of a room's rules; a variant that does not validate (a
    /// server newer than this bot) leaves the room to the fallbacks.
    fn learn(&mut self, room: RoomId, variant: Variant) {
        match variant.validate() {
            Ok(rules) => {
                self.rules.insert(room, rules);
            }
            Err(_) => {
                self.rules.remove(&room);
            }
        }
    }

    /// A match ended: its room's next match (if any) starts with its own
    /// `game-started`.
    fn forget(&mut self, room: RoomId) {
        self.rules.remove(&room);
    }

    /// The strategy's move for a prompt; the first legal move when the bot
    /// cannot rebuild the position (no view: lean prompts; unknown rules: a
    /// prompt resent after a reconnect for a custom variant) or when the
    /// strategy's choice is not among the legal moves.
    fn decide(&mut self, room: RoomId, view: Option<&ViewSnapshot>, legal: &[Move]) -> Move {
        let Some(view) = view else { return legal[0] };
        if let std::collections::hash_map::Entry::Vacant(slot) = self.rules.entry(room) {
            if let Some(rules) = Rules::preset(&view.variant) {
                slot.insert(rules);
            }
        }
        let m = match self.rules.get(&room).map(|rules| SnapshotSeat::new(rules, view)) {
            Some(Ok(seat)) => self.strategy.choose(&seat),
            _ => legal[0],
        };
        if legal.contains(&m) { m } else { legal[0] }
    }
}

/// The error for an answer to `request` that is not the expected reply: the
/// server's error, or an unexpected message.
pub(crate) fn unexpected(request: &'static str, msg: ServerMsg) -> RemoteError {
    match msg {
        ServerMsg::Error { code, message } => RemoteError::Server { code, message },
        other => RemoteError::Unexpected { request, answer: format!("{other:?}") },
    }
}

/// An error code's name on the wire (`bad-token`), for messages to people.
pub(crate) fn code_name(code: &ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{code:?}"),
    }
}

/// Randomized capped exponential backoff: full jitter over
/// `[0, min(cap, base * 2^attempt)]`.
pub fn backoff(attempt: u32, seed: u64) -> Duration {
    let base_ms = 200u64;
    let cap_ms = 30_000u64;
    let top = base_ms.saturating_mul(1u64 << attempt.min(20)).min(cap_ms);
    let r = derive_seed(seed, attempt as u64);
    Duration::from_millis(top / 2 + r % (top / 2 + 1))
}

/// Runs `count` bots until stopped (or each has played `matches`).
pub async fn play(cfg: PlayConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    let mut tasks = Vec::new();
    for i in 0..cfg.count.max(1) {
        let cfg = cfg.clone();
        let tally = tally.clone();
        tasks.push(tokio::spawn(async move { run_bot(cfg, i as u64, tally).await }));
    }
    let mut first_err = None;
    for t in tasks {
        match t.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(e) => {
                first_err.get_or_insert(RemoteError::Task(e));
            }
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// Whether reconnecting cannot help: a refusal whose close code says so, a
/// bad strategy spec, or a server error that `final_code` calls final.
fn is_final(e: &RemoteError, final_code: impl Fn(ErrorCode) -> bool) -> bool {
    match e {
        RemoteError::Refused { code, .. } => !close::may_reconnect(*code),
        RemoteError::Spec(_) => true,
        RemoteError::Server { code, .. } => final_code(*code),
        _ => false,
    }
}

/// Waits the capped, jittered backoff of `attempt` before a reconnect, and
/// counts it.
async fn back_off(what: &str, attempt: &mut u32, seed: u64, tally: &Tally) {
    let wait = backoff(*attempt, seed);
    eprintln!("{what}; reconnecting in {wait:?}");
    *attempt += 1;
    tally.reconnects.fetch_add(1, Ordering::Relaxed);
    tokio::time::sleep(wait).await;
}

/// One bot: sessions separated by backoff until done or refused.
async fn run_bot(cfg: PlayConfig, index: u64, tally: Arc<Tally>) -> Result<(), RemoteError> {
    let mut attempt = 0u32;
    let mut played = 0u64;
    let seed = derive_seed(0xb07, index ^ std::process::id() as u64);
    loop {
        match session(&cfg, index, &tally, &mut played, &mut attempt).await {
            Ok(()) => return Ok(()),
            // Retrying cannot fix a bad token or protocol version.
            Err(e) if is_final(&e, |code| matches!(code, ErrorCode::BadToken | ErrorCode::VersionMismatch)) => {
                return Err(e);
            }
            Err(e) => back_off(&format!("bot {index}: {e}"), &mut attempt, seed, &tally).await,
        }
    }
}

/// Finds a room with an empty seat, or creates one.
async fn find_seat(conn: &mut Connection, cfg: &PlayConfig) -> Result<RoomId, RemoteError> {
    if let Some(room) = cfg.room {
        return match conn.request(ClientMsg::Join { room, seat: None }, |_| {}).await? {
            ServerMsg::Seated { .. } => Ok(room),
            other => Err(unexpected("join", other)),
        };
    }
    // The bots of one process look for seats one at a time, so they fill
    // one room together instead of each creating its own.
    static FINDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _turn = FINDING.lock().await;
    for _ in 0..5 {
        let ServerMsg::Rooms { rooms } = conn.request(ClientMsg::ListRooms, |_| {}).await? else {
            continue;
        };
        let open = rooms.iter().find(|r| {
            r.status == RoomStatus::Waiting
                && r.variant == cfg.preset
                && r.seats.iter().any(|s| s.occupant.is_none())
                && (cfg.token.is_some() || !r.rated)
        });
        let room = match open {
            Some(r) => r.id,
            None => {
                let spec = RoomSpec { preset: Some(cfg.preset.clone()), ..Default::default() };
                match conn.request(ClientMsg::CreateRoom(Box::new(spec)), |_| {}).await? {
                    ServerMsg::Room { room } => room.id,
                    other => return Err(unexpected("create-room", other)),
                }
            }
        };
        // Another bot may have taken the seat in between: try again.
        if let ServerMsg::Seated { .. } = conn.request(ClientMsg::Join { room, seat: None }, |_| {}).await? {
            return Ok(room);
        }
    }
    Err(RemoteError::NoSeat)
}

async fn session(
    cfg: &PlayConfig,
    index: u64,
    tally: &Tally,
    played: &mut u64,
    attempt: &mut u32,
) -> Result<(), RemoteError> {
    let mut conn = Connection::connect(&cfg.server).await?;
    // Batched events: a bot decides from its prompt's view alone.
    let seats = conn.hello_with(cfg.token.clone(), false, true).await?;
    *attempt = 0;
    let room = match seats.first() {
        Some(s) => s.room,
        None => {
            let room = find_seat(&mut conn, cfg).await?;
            conn.send(ClientMsg::Ready { room }).await?;
            room
        }
    };
    let strategy = spec::build(&cfg.strategy, derive_seed(index, std::process::id() as u64))?;
    let mut decider = Decider::new(strategy);
    loop {
        let frame = conn.recv().await?;
        match frame.msg {
            ServerMsg::GameStarted { room: r, variant, .. } if r == room => decider.learn(room, *variant),
            ServerMsg::Prompt { room: r, prompt, view, legal_moves, .. } if r == room => {
                let m = decider.decide(room, view.as_deref(), &legal_moves);
                conn.send(ClientMsg::Move { room, prompt, r#move: m }).await?;
            }
            ServerMsg::Accepted { .. } => {
                tally.moves.fetch_add(1, Ordering::Relaxed);
            }
            ServerMsg::GameOver { room: r, .. } if r == room => {
                decider.forget(room);
                tally.games.fetch_add(1, Ordering::Relaxed);
                *played += 1;
                if cfg.matches.is_some_and(|m| *played >= m) {
                    let _ = conn.send(ClientMsg::Leave { room }).await;
                    conn.close().await;
                    return Ok(());
                }
                conn.send(ClientMsg::Ready { room }).await?;
            }
            ServerMsg::RoomClosed { room: r, .. } if r == room => {
                // Start over: find another room.
                return Err(RemoteError::Closed);
            }
            ServerMsg::Error { code, message } => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("bot {index}: server error {}: {message}", code_name(&code));
            }
            _ => {}
        }
    }
}

/// What `capicua-bot play --await-assignments` was asked.
#[derive(Clone, Debug)]
pub struct AwaitConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// The registered player's token (tournament tables are reserved by name).
    pub token: String,
    /// The strategy spec.
    pub strategy: String,
    /// Follow this tournament and stop when it ends (default: wait forever).
    pub tournament: Option<i64>,
}

/// Waits for tournament assignments and plays them: joins the reserved
/// seat, says ready, answers prompts; reconnects with backoff (and asks for
/// its assignments again) when the connection drops. With a tournament,
/// returns when that tournament is over.
pub async fn await_assignments(cfg: AwaitConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    let mut attempt = 0u32;
    let seed = derive_seed(0xa551, std::process::id() as u64);
    loop {
        match assignment_session(&cfg, &tally, &mut attempt).await {
            Ok(()) => return Ok(()),
            // A tournament seat is reserved by name: any error answer is final.
            Err(e) if is_final(&e, |_| true) || matches!(e, RemoteError::Unexpected { .. }) => return Err(e),
            Err(e) => back_off(&e.to_string(), &mut attempt, seed, &tally).await,
        }
    }
}

async fn assignment_session(cfg: &AwaitConfig, tally: &Tally, attempt: &mut u32) -> Result<(), RemoteError> {
    let mut conn = Connection::connect(&cfg.server).await?;
    conn.hello_with(Some(cfg.token.clone()), false, true).await?;
    *attempt = 0;
    if let Some(t) = cfg.tournament {
        match conn.request(ClientMsg::SubscribeTournament { tournament: t }, |_| {}).await? {
            ServerMsg::TournamentProgress { progress: Progress::Subscribed { status, .. }, .. } => {
                if status.is_over() {
                    conn.close().await;
                    return Ok(());
                }
            }
            other => return Err(unexpected("subscribe-tournament", other)),
        }
    }
    // Seats given back by `hello` resend their prompt; assignments follow.
    let await_id = conn.send(ClientMsg::AwaitAssignments).await?;
    let strategy = spec::build(&cfg.strategy, derive_seed(0xa55, std::process::id() as u64))?;
    let mut decider = Decider::new(strategy);
    loop {
        let frame = conn.recv().await?;
        match frame.msg {
            ServerMsg::Assignment(Assignment { room, seat, .. }) => {
                // The room handles both in order; a seat already held answers
                // `already-seated`, which changes nothing.
                conn.send(ClientMsg::Join { room, seat: Some(seat) }).await?;
                conn.send(ClientMsg::Ready { room }).await?;
            }
            ServerMsg::GameStarted { room, variant, .. } => decider.learn(room, *variant),
            ServerMsg::Prompt { room, prompt, view, legal_moves, .. } => {
                let m = decider.decide(room, view.as_deref(), &legal_moves);
                conn.send(ClientMsg::Move { room, prompt, r#move: m }).await?;
            }
            ServerMsg::Accepted { .. } => {
                tally.moves.fetch_add(1, Ordering::Relaxed);
            }
            ServerMsg::GameOver { room, .. } => {
                decider.forget(room);
                tally.games.fetch_add(1, Ordering::Relaxed);
            }
            ServerMsg::TournamentProgress { tournament, progress: Progress::Finished { .. } }
                if Some(tournament) == cfg.tournament =>
            {
                conn.close().await;
                return Ok(());
            }
            ServerMsg::Error { code, message } => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                if code != ErrorCode::AlreadySeated {
                    eprintln!("server error {}: {message}", code_name(&code));
                }
                if frame.id == Some(await_id) {
                    return Err(RemoteError::Server { code, message });
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_variant_is_played_by_the_strategy_once_its_rules_are_known() {
        use capicua_engine::{Game, Seating};
        let mut variant = capicua_engine::preset("block").unwrap();
        variant.name = "house-block".into();
        let rules = std::sync::Arc::new(variant.clone().validate().unwrap());
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap());
        // A position where the heaviest tile is not the first legal move.
        let mut game = Game::new(rules.clone(), Seating::new(2), 5).unwrap();
        let mut strategy = spec::build("bota-gorda", 1).unwrap();
        let (view, legal, heaviest) = loop {
            let seat = game.to_move().expect("such a position comes before the end");
            let legal: Vec<Move> = game.legal_moves().iter().copied().collect();
            let choice = strategy.choose(&capicua_strategy::TableSeat::new(&game, seat));
            if choice != legal[0] {
                break (game.view(seat).snapshot(), legal, choice);
            }
            game.play(*legal.last().unwrap()).unwrap();
        };
        // Unknown rules (no game-started, and no preset of that name): the
        // first legal move.
        assert_eq!(decider.decide(7, Some(&view), &legal), legal[0]);
        decider.learn(7, variant.clone());
        assert_eq!(decider.decide(7, Some(&view), &legal), heaviest);
        // Lean prompts carry no view: the first legal move.
        assert_eq!(decider.decide(7, None, &legal), legal[0]);
        decider.forget(7);
        assert_eq!(decider.decide(7, Some(&view), &legal), legal[0]);
    }

    #[test]
    fn server_errors_carry_the_protocol_code_and_print_its_wire_name() {
        let e = unexpected("hello", ServerMsg::Error { code: ErrorCode::BadToken, message: "unknown token".into() });
        assert!(matches!(e, RemoteError::Server { code: ErrorCode::BadToken, .. }), "{e:?}");
        assert_eq!(e.to_string(), "server error bad-token: unknown token");
        let bot_rule = |code| matches!(code, ErrorCode::BadToken | ErrorCode::VersionMismatch);
        assert!(is_final(&e, bot_rule));
        let busy = RemoteError::Server { code: ErrorCode::TooManyConnections, message: String::new() };
        assert!(!is_final(&busy, bot_rule));
        assert!(is_final(&RemoteError::Refused { code: close::BAD_TOKEN, reason: String::new() }, |_| false));
        assert!(!is_final(&RemoteError::Refused { code: close::GOING_AWAY, reason: String::new() }, |_| false));
    }

    #[test]
    fn backoff_grows_is_capped_and_jittered() {
        let first = backoff(0, 1);
        assert!(first >= Duration::from_millis(100) && first <= Duration::from_millis(200));
        let late = backoff(30, 1);
        assert!(late >= Duration::from_millis(15_000) && late <= Duration::from_millis(30_000));
        assert!(backoff(4, 1) > backoff(1, 1));
        let spread: std::collections::HashSet<_> = (0..20).map(|s| backoff(6, s)).collect();
        assert!(spread.len() > 10, "jittered");
    }
}
