//! Remote bots: play on a capicua server over its WebSocket protocol.
//!
//! `capicua-bot play` runs [`play_as`]: each bot connects, says hello (with a
//! token, or as a guest; asking for batched events, since it decides from
//! each prompt's view), takes the seat it is given back (reconnect), asked
//! for (`--room`) or finds (the fullest waiting room of its variant and
//! kind, casual or rated, with an empty seat, else a new room), says ready,
//! answers every prompt with its strategy, says ready again after each
//! match, and prints each stored match's address once per process.
//!
//! Errors are transient or permanent ([`RemoteError::is_transient`]): a bot
//! retries the transient ones (an unreachable or restarting server, a
//! dropped connection) with the backoff of [`crate::backoff`], saying so
//! once per outage, and stops on a permanent one (a bad address, an HTTP
//! answer that is not a WebSocket upgrade, a refused token, a request the
//! server calls bad), since retrying cannot fix it.
//!
//! Bots named by `--register` get their tokens first ([`tokens_for`]): from
//! their token files ([`crate::token_file`]), or by registering.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use capicua_engine::poly::{PolyGame, PolyMove, PolyRules, PolyVariant, PolyViewSnapshot};
use capicua_engine::{Move, Rules, Variant, ViewSnapshot};
use capicua_protocol::{
    Assignment, ClientFrame, ClientMsg, ErrorCode, GameId, PROTOCOL_VERSION, PlayerInfo, Progress, PromptId, RoomId,
    RoomInfo, RoomSpec, RoomStatus, SeatRef, ServerFrame, ServerMsg, close,
};
use capicua_strategy::poly::{PolyStrategy, build_poly};
use capicua_strategy::rng::derive_seed;
use capicua_strategy::{SnapshotSeat, SpecError, Strategy, spec};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use crate::backoff::{Backoff, Outage};
use crate::token_file::{self, TokenFileError};
use crate::transport::{AddrError, ServerAddr, Transport};

/// How long connecting and the WebSocket handshake may take before the
/// attempt counts as failed (and is retried): a server that accepts and
/// then says nothing must not hold a bot forever.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Errors of a remote bot.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The server address cannot be used.
    #[error(transparent)]
    Addr(#[from] AddrError),
    /// The WebSocket failed.
    #[error("websocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// The server answered the WebSocket handshake with another HTTP status.
    #[error("{url} answered HTTP {status} {reason} instead of accepting a WebSocket{hint}",
        hint = if *status == 404 { " (is the path right? capicua serves it at /ws)" } else { "" })]
    Http {
        /// The address tried.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Its reason phrase.
        reason: String,
    },
    /// Connecting and the handshake took longer than [`CONNECT_TIMEOUT`].
    #[error("no answer within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout,
    /// The server sent something we could not read.
    #[error("bad frame from the server: {0}")]
    Frame(#[from] serde_json::Error),
    /// The server closed the connection with a close code.
    #[error("closed by the server with code {code}: {reason}{hint}",
        hint = if *code == close::REPLACED { " (another program or tab connected with this token; this bot stops)" } else { "" })]
    Refused {
        /// The close code.
        code: u16,
        /// Its reason.
        reason: String,
    },
    /// The server answered a request with an error.
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
    /// The room asked for is hosted by another server of the same database
    /// (`wrong-node`): the bot reconnects there.
    #[error("the room is hosted by another server: {server}")]
    Moved {
        /// That server's WebSocket address.
        server: String,
    },
    /// A bot's task panicked or was cancelled.
    #[error("bot task failed: {0}")]
    Task(tokio::task::JoinError),
    /// The strategy spec does not build.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The connection ended.
    #[error("connection closed")]
    Closed,
    /// The server prompted a move and offered none: a server bug the bot
    /// cannot play around, so it stops instead of guessing a move.
    #[error("the server prompted a move in room {room} (prompt {prompt}) with no legal moves")]
    NoLegalMoves {
        /// The room.
        room: RoomId,
        /// The prompt's id.
        prompt: PromptId,
    },
    /// Rated rooms admit registered players only.
    #[error("rated rooms admit registered players only: give --register NAME (or --token)")]
    RatedGuest,
    /// A token file cannot be read or written.
    #[error(transparent)]
    TokenFile(#[from] TokenFileError),
    /// `--register` names a player that exists, and its token file is missing.
    #[error(
        "the name {name:?} is already taken on {server} and its token file {} is missing: \
         give that player's token file (--token-file) or token (--token), or register another name",
        path.display()
    )]
    NameTaken {
        /// The player name.
        name: String,
        /// The server.
        server: String,
        /// The token file looked for.
        path: PathBuf,
    },
    /// The server does not know the token of a token file.
    #[error("the token in {} is not known to {server} (a token file of another server or database?)", path.display())]
    TokenRejected {
        /// The token file.
        path: PathBuf,
        /// The server.
        server: String,
    },
    /// A token file holds another player's token than its name says.
    #[error("{} holds the token of player {holder:?}, not {name:?}", path.display())]
    WrongPlayer {
        /// The token file.
        path: PathBuf,
        /// The name it was read for.
        name: String,
        /// The player the server says the token is for.
        holder: String,
    },
}

impl RemoteError {
    /// Whether retrying later may succeed: an unreachable, overloaded or
    /// restarting server, a dropped connection, a server fault. Everything
    /// else (a bad address, an HTTP answer other than 5xx or 429, a refused
    /// token, a request the server calls bad, a taken name) would fail the
    /// same way again.
    pub fn is_transient(&self) -> bool {
        use tokio_tungstenite::tungstenite::Error as W;
        match self {
            RemoteError::Ws(W::Io(_) | W::ConnectionClosed | W::AlreadyClosed | W::Protocol(_)) => true,
            RemoteError::Http { status, .. } => *status >= 500 || *status == 429,
            RemoteError::Timeout | RemoteError::Closed | RemoteError::NoSeat => true,
            RemoteError::Refused { code, .. } => close::may_reconnect(*code),
            RemoteError::Server { code, .. } => matches!(
                code,
                ErrorCode::RateLimited
                    | ErrorCode::TooManyConnections
                    | ErrorCode::ShuttingDown
                    | ErrorCode::SlowConsumer
                    | ErrorCode::Internal
                    | ErrorCode::GameInProgress
                    | ErrorCode::Busy
            ),
            _ => false,
        }
    }

    /// What went wrong in a few words, for the line telling an outage.
    pub fn cause(&self) -> String {
        use std::io::ErrorKind;
        use tokio_tungstenite::tungstenite::Error as W;
        match self {
            RemoteError::Ws(W::Io(e)) => match e.kind() {
                ErrorKind::ConnectionRefused => "connection refused".into(),
                ErrorKind::ConnectionReset => "connection reset".into(),
                ErrorKind::ConnectionAborted => "connection aborted".into(),
                ErrorKind::UnexpectedEof => "connection closed".into(),
                ErrorKind::TimedOut => "timed out".into(),
                ErrorKind::NotFound => "no such socket".into(),
                _ => e.to_string(),
            },
            RemoteError::Ws(W::ConnectionClosed | W::AlreadyClosed) | RemoteError::Closed => "connection closed".into(),
            RemoteError::Ws(W::Protocol(p)) => format!("WebSocket handshake failed ({p})"),
            RemoteError::Http { status, reason, .. } => format!("HTTP {status} {reason}"),
            other => other.to_string(),
        }
    }
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
    /// The poly strategy spec (rooms of tiles with 3, 4 or 6 faces; see
    /// [`capicua_strategy::poly::build_poly`]).
    pub poly_strategy: String,
    /// The room to join, or find one.
    pub room: Option<RoomId>,
    /// The preset for a room this bot creates when it finds none (a poly
    /// preset such as `triominoes` finds and creates poly rooms).
    pub preset: String,
    /// Bots in this process.
    pub count: usize,
    /// Stop after this many finished matches per bot (`None`: until stopped).
    pub matches: Option<u64>,
}

/// Who the bots of [`play_as`] are and which rooms they look for, beyond
/// [`PlayConfig`]; the default is what [`play`] does.
#[derive(Clone, Debug, Default)]
pub struct PlayOptions {
    /// One token per bot, bot `i` playing with `tokens[i]` (registered
    /// players, from [`tokens_for`]); bots past the end use
    /// [`PlayConfig::token`].
    pub tokens: Vec<String>,
    /// Find or create rated rooms only (every bot needs a token). Without
    /// it, casual rooms only.
    pub rated: bool,
    /// The full variant of the rooms to find or create, instead of
    /// [`PlayConfig::preset`].
    pub variant: Option<PlayVariant>,
}

/// The rules of the rooms a bot finds or creates, from a variant file.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayVariant {
    /// Dominoes: the variant, sent whole in `create-room`.
    Tiles(Box<Variant>),
    /// Tiles with 3, 4 or 6 faces: the variant's name, and the file's
    /// text, sent as `variant-file` (the server parses it as it would any
    /// client's).
    Poly {
        /// The variant's name (rooms are found by it).
        name: String,
        /// The variant file's text.
        file: String,
    },
}

/// Counters and reports shared by the bots of one process.
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
    /// The bots that cannot reach the server right now.
    pub outage: Outage,
    /// Matches already reported: by stored game id, or by room and sequence
    /// number when the server could not store one.
    reported: Mutex<HashSet<(Option<GameId>, RoomId, u64)>>,
}

impl Tally {
    /// The line telling that a match ended (`game 17 stored:
    /// http://HOST:PORT/api/games/17`), the first time a bot of this
    /// process reports it; `None` when another bot at the same table
    /// already did.
    pub fn match_over(&self, server: &ServerAddr, room: RoomId, seq: u64, game: Option<GameId>) -> Option<String> {
        // Every bot at a table hears the same `game-over`: the stored id
        // (or, unstored, the room's sequence number) tells them apart.
        let key = match game {
            Some(id) => (Some(id), 0, 0),
            None => (None, room, seq),
        };
        if !self.reported.lock().expect("report lock").insert(key) {
            return None;
        }
        Some(match (game, game.and_then(|id| server.game_url(id))) {
            (Some(id), Some(url)) => format!("game {id} stored: {url}"),
            (Some(id), None) => format!("game {id} stored"),
            (None, _) => format!("match in room {room} over; the server could not store it"),
        })
    }

    /// Bot `bot` failed with a transient error: tells the outage if it is
    /// the first bot to fail, and counts a reconnect.
    fn failed(&self, bot: u64, server: &str, e: &RemoteError, connected: bool) {
        self.reconnects.fetch_add(1, Ordering::Relaxed);
        if self.outage.failed(bot) {
            eprintln!("{}", crate::backoff::down_line(server, &e.cause(), connected));
        }
    }

    /// Bot `bot` is connected: tells the end of the outage if it was the
    /// last bot retrying.
    fn recovered(&self, bot: u64, server: &str) {
        if self.outage.recovered(bot) {
            eprintln!("{}", crate::backoff::up_line(server));
        }
    }
}

/// A WebSocket connection speaking the protocol.
pub struct Connection {
    ws: WebSocketStream<Transport>,
    next_id: u64,
}

impl Connection {
    /// Connects to `ws://HOST:PORT/PATH` (TCP, Nagle off: frames are small
    /// and latency matters) or `unix:PATH` (a Unix domain socket), within
    /// [`CONNECT_TIMEOUT`].
    pub async fn connect(server: &str) -> Result<Connection, RemoteError> {
        let addr = ServerAddr::parse(server)?;
        tokio::time::timeout(CONNECT_TIMEOUT, Connection::connect_to(&addr)).await.map_err(|_| RemoteError::Timeout)?
    }

    async fn connect_to(addr: &ServerAddr) -> Result<Connection, RemoteError> {
        use tokio_tungstenite::tungstenite::Error as WsError;
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        // Small read buffer: the transport zero-fills it on every read.
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
        let (request, stream, url) = match addr {
            #[cfg(not(unix))]
            ServerAddr::Unix { path } => {
                let e =
                    std::io::Error::new(std::io::ErrorKind::Unsupported, format!("unix:{path}: no Unix sockets here"));
                return Err(WsError::Io(e).into());
            }
            #[cfg(unix)]
            ServerAddr::Unix { path } => {
                let unix = tokio::net::UnixStream::connect(path).await.map_err(WsError::Io)?;
                // The handshake still names a host and a path; the socket
                // decides where it goes.
                ("ws://localhost/ws".into_client_request()?, Transport::Unix(unix), format!("unix:{path}"))
            }
            ServerAddr::Ws { url, host, port, .. } => {
                let tcp = TcpStream::connect((host.as_str(), *port)).await.map_err(WsError::Io)?;
                tcp.set_nodelay(true).map_err(WsError::Io)?;
                (url.as_str().into_client_request()?, Transport::Tcp(tcp), url.clone())
            }
        };
        let (ws, _) =
            tokio_tungstenite::client_async_with_config(request, stream, Some(config)).await.map_err(|e| match e {
                WsError::Http(response) => RemoteError::Http {
                    url,
                    status: response.status().as_u16(),
                    reason: response.status().canonical_reason().unwrap_or("").to_string(),
                },
                e => e.into(),
            })?;
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
        let text = self.recv_text().await?;
        Ok(serde_json::from_str(&text)?)
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
    pub async fn hello(&mut self, token: Option<String>) -> Result<Vec<SeatRef>, RemoteError> {
        self.hello_with(token, false, false).await
    }

    /// Says hello, asking for lean prompts (no view) or not, and for batched
    /// events (events may wait for the next prompt or reply) or not.
    pub async fn hello_with(
        &mut self,
        token: Option<String>,
        lean_prompts: bool,
        batch_events: bool,
    ) -> Result<Vec<SeatRef>, RemoteError> {
        Ok(self.greet(token, lean_prompts, batch_events).await?.1)
    }

    /// Says hello as [`Connection::hello_with`] does; returns who the
    /// connection acts for and the rooms where that player already sits.
    pub async fn greet(
        &mut self,
        token: Option<String>,
        lean_prompts: bool,
        batch_events: bool,
    ) -> Result<(PlayerInfo, Vec<SeatRef>), RemoteError> {
        let hello = ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts, batch_events };
        match self.request(hello, |_| {}).await? {
            ServerMsg::Welcome { player, seats, .. } => Ok((player, seats)),
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
    /// Rules known by variant name besides the presets: the custom variant
    /// this bot plays, for a prompt resent after a reconnect (which comes
    /// without its `game-started`).
    known: HashMap<String, Rules>,
    /// What plays in poly rooms.
    poly: PolyDecider,
}

/// The poly half of a [`Decider`]: a poly strategy, each poly room's rules
/// (from `poly-game-started` or `sync`) and the latest view the bot was
/// sent there (by `poly-game-started`, `poly-events`, `poly-prompt` or
/// `sync`), from which it rebuilds a game to hand the strategy.
struct PolyDecider {
    strategy: Box<dyn PolyStrategy>,
    rules: HashMap<RoomId, Arc<PolyRules>>,
    views: HashMap<RoomId, PolyViewSnapshot>,
}

impl PolyDecider {
    fn new(strategy: Box<dyn PolyStrategy>) -> PolyDecider {
        PolyDecider { strategy, rules: HashMap::new(), views: HashMap::new() }
    }

    /// Takes note of a poly room's rules; a variant that does not validate
    /// leaves the room to the presets and the first legal move.
    fn learn(&mut self, room: RoomId, variant: &PolyVariant) {
        match variant.validate() {
            Ok(rules) => {
                self.rules.insert(room, Arc::new(rules));
            }
            Err(_) => {
                self.rules.remove(&room);
            }
        }
    }

    /// Keeps the latest view of a poly room.
    fn see(&mut self, room: RoomId, view: PolyViewSnapshot) {
        self.views.insert(room, view);
    }

    fn forget(&mut self, room: RoomId) {
        self.rules.remove(&room);
        self.views.remove(&room);
    }

    /// The strategy's move for a poly prompt to `seat`, from the prompt's
    /// view or else the latest one kept: the first legal move when the bot
    /// has no view or rules, or cannot rebuild the position from them, or
    /// when the strategy's choice is not among the legal moves (told on
    /// stderr: the view and the prompt disagree). `None` for a prompt
    /// without legal moves.
    fn decide(
        &mut self,
        room: RoomId,
        seat: u8,
        view: Option<PolyViewSnapshot>,
        legal: &[PolyMove],
    ) -> Option<PolyMove> {
        let first = *legal.first()?;
        if let Some(view) = view {
            self.see(room, view);
        }
        let Some(view) = self.views.get(&room) else { return Some(first) };
        if view.seat != Some(seat) {
            return Some(first);
        }
        let rules = match self.rules.get(&room) {
            Some(rules) => rules.clone(),
            None => match PolyRules::preset(&view.variant) {
                Some(rules) => {
                    let rules = Arc::new(rules);
                    self.rules.insert(room, rules.clone());
                    rules
                }
                None => return Some(first),
            },
        };
        let game = match PolyGame::from_snapshot(rules, view) {
            Ok(game) => game,
            Err(e) => {
                eprintln!("room {room}: cannot rebuild the position from the view ({e}); playing the first legal move");
                return Some(first);
            }
        };
        if game.to_move() != Some(seat) {
            return Some(first);
        }
        let m = self.strategy.choose(&game.view(seat));
        if legal.contains(&m) {
            Some(m)
        } else {
            eprintln!(
                "room {room}: {} chose {m}, not one of the {} legal moves; playing {first}",
                self.strategy.name(),
                legal.len()
            );
            Some(first)
        }
    }
}

impl Decider {
    fn new(strategy: Box<dyn Strategy>, poly: Box<dyn PolyStrategy>) -> Decider {
        Decider { strategy, rules: HashMap::new(), known: HashMap::new(), poly: PolyDecider::new(poly) }
    }

    /// Takes note of a variant's rules for any room that plays it under its
    /// name; a variant that does not validate is not noted.
    fn know(&mut self, variant: &Variant) {
        if let Ok(rules) = variant.clone().validate() {
            self.known.insert(variant.name.clone(), rules);
        }
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
        self.poly.forget(room);
    }

    /// Takes note of what a poly room's frame tells (rules, the latest
    /// view); `false` for a frame that is no poly news.
    fn note_poly(&mut self, msg: &ServerMsg) -> bool {
        match msg {
            ServerMsg::PolyGameStarted { room, view, variant, .. } => {
                self.poly.learn(*room, variant);
                self.poly.see(*room, (**view).clone());
            }
            ServerMsg::PolyEvents { room, view: Some(view), .. } => self.poly.see(*room, (**view).clone()),
            ServerMsg::Sync { room, poly_view, poly_variant, .. } if poly_view.is_some() || poly_variant.is_some() => {
                if let Some(variant) = poly_variant {
                    self.poly.learn(*room, variant);
                }
                if let Some(view) = poly_view {
                    self.poly.see(*room, (**view).clone());
                }
            }
            _ => return false,
        }
        true
    }

    /// The strategy's move for a prompt; the first legal move when the bot
    /// cannot rebuild the position (no view: lean prompts; unknown rules: a
    /// prompt resent after a reconnect for a custom variant) or when the
    /// strategy's choice is not among the legal moves. `None` for a prompt
    /// without legal moves, which a correct server never sends.
    fn decide(&mut self, room: RoomId, view: Option<&ViewSnapshot>, legal: &[Move]) -> Option<Move> {
        let first = *legal.first()?;
        let Some(view) = view else { return Some(first) };
        if let std::collections::hash_map::Entry::Vacant(slot) = self.rules.entry(room) {
            if let Some(rules) = self.known.get(&view.variant).cloned().or_else(|| Rules::preset(&view.variant)) {
                slot.insert(rules);
            }
        }
        let m = match self.rules.get(&room).map(|rules| SnapshotSeat::new(rules, view)) {
            Some(Ok(seat)) => self.strategy.choose(&seat),
            _ => first,
        };
        Some(if legal.contains(&m) { m } else { first })
    }
}

/// The error for an answer to `request` that is not the expected reply: the
/// server's error, or an unexpected message.
pub(crate) fn unexpected(request: &'static str, msg: ServerMsg) -> RemoteError {
    match msg {
        ServerMsg::Error { code, message, .. } => RemoteError::Server { code, message },
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

/// The rooms a bot looks for: one variant (by name, as the lobby lists
/// rooms), casual or rated, unseeded; and the spec of the room it creates
/// when there is none.
#[derive(Debug)]
struct Wanted {
    name: String,
    rated: bool,
    /// Rooms of tiles with 3, 4 or 6 faces (a poly preset).
    poly: bool,
    spec: RoomSpec,
}

impl Wanted {
    fn new(cfg: &PlayConfig, opts: &PlayOptions) -> Wanted {
        let (name, spec, poly) = match &opts.variant {
            Some(PlayVariant::Tiles(v)) => {
                (v.name.clone(), RoomSpec { variant: Some(v.as_ref().clone()), ..Default::default() }, false)
            }
            Some(PlayVariant::Poly { name, file }) => {
                (name.clone(), RoomSpec { variant_file: Some(file.clone()), ..Default::default() }, true)
            }
            None => (
                cfg.preset.clone(),
                RoomSpec { preset: Some(cfg.preset.clone()), ..Default::default() },
                capicua_engine::poly::poly_preset(&cfg.preset).is_some(),
            ),
        };
        Wanted { name, rated: opts.rated, poly, spec: RoomSpec { rated: opts.rated, ..spec } }
    }

    /// Whether room `r` is one to sit in now. A seeded room is for practice
    /// (its seed tells every hand), and a casual bot does not sit in a rated
    /// room it was not asked to play, nor a rated bot in a casual one. A
    /// room another server of the database hosts (listed with its `node`)
    /// is left to the bots connected there.
    fn fits(&self, r: &RoomInfo) -> bool {
        r.node.is_none()
            && r.status == RoomStatus::Waiting
            && r.variant == self.name
            && r.poly == self.poly
            && r.rated == self.rated
            && !r.seeded
            && occupied(r) < r.seats.len()
    }
}

/// Seats taken in a room.
fn occupied(r: &RoomInfo) -> usize {
    r.seats.iter().filter(|s| s.occupant.is_some()).count()
}

/// The better room to wait in: the fuller one (its match starts sooner),
/// then the older one. A total order, so bots of different processes that
/// each created a room end up in the same one.
fn rank(r: &RoomInfo) -> (usize, std::cmp::Reverse<RoomId>) {
    (occupied(r), std::cmp::Reverse(r.id))
}

/// The bots of one process look for seats one at a time, so they fill one
/// room together instead of each creating its own.
static FINDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How often a bot waiting for its match to start looks for a fuller room.
const LOOK_AROUND: Duration = Duration::from_secs(1);

/// Runs `count` bots until stopped (or each has played `matches`).
pub async fn play(cfg: PlayConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    play_as(cfg, PlayOptions::default(), tally).await
}

/// Runs `count` bots as `opts` says until stopped (or each has played
/// `matches`); the first permanent error stops them all.
pub async fn play_as(cfg: PlayConfig, opts: PlayOptions, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    build_poly(&cfg.poly_strategy, 0)?;
    let addr = Arc::new(ServerAddr::parse(&cfg.server)?);
    let count = cfg.count.max(1);
    let tokens: Vec<Option<String>> =
        (0..count).map(|i| opts.tokens.get(i).cloned().or_else(|| cfg.token.clone())).collect();
    if opts.rated && cfg.room.is_none() && tokens.iter().any(Option::is_none) {
        return Err(RemoteError::RatedGuest);
    }
    let wanted = Arc::new(Wanted::new(&cfg, &opts));
    let cfg = Arc::new(cfg);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, token) in tokens.into_iter().enumerate() {
        let bot = Bot {
            index: i as u64,
            token,
            cfg: cfg.clone(),
            wanted: wanted.clone(),
            server: cfg.server.clone(),
            addr: addr.clone(),
            tally: tally.clone(),
            played: 0,
            backoff: Backoff::from_os(),
        };
        tasks.spawn(bot.run());
    }
    while let Some(done) = tasks.join_next().await {
        let failed = match done {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => e,
            Err(e) => RemoteError::Task(e),
        };
        // Retrying cannot fix it, and the others would only wait for
        // a bot that is gone.
        tasks.abort_all();
        return Err(failed);
    }
    Ok(())
}

/// One bot of [`play_as`].
struct Bot {
    index: u64,
    token: Option<String>,
    cfg: Arc<PlayConfig>,
    wanted: Arc<Wanted>,
    /// The server in use: `cfg.server`, or the server hosting the room
    /// asked for.
    server: String,
    addr: Arc<ServerAddr>,
    tally: Arc<Tally>,
    /// Matches finished.
    played: u64,
    backoff: Backoff,
}

/// How a session ended without an error.
enum SessionEnd {
    /// The bot played its matches.
    Done,
    /// Its room closed: find another one.
    RoomClosed,
}

impl Bot {
    /// Sessions separated by backoff until done or failed for good.
    async fn run(mut self) -> Result<(), RemoteError> {
        // Servers that sent the bot on, in a row: two servers that each
        // say the other hosts the room must not bounce it forever.
        let mut moves = 0;
        let result = loop {
            let mut connected = false;
            match self.session(&mut connected).await {
                Ok(SessionEnd::Done) => break Ok(()),
                Ok(SessionEnd::RoomClosed) => continue,
                Err(RemoteError::Moved { server }) if moves < MAX_MOVES => {
                    moves += 1;
                    self.addr = Arc::new(ServerAddr::parse(&server)?);
                    eprintln!("bot {}: room {:?} is hosted by {server}: connecting there", self.index, self.cfg.room);
                    self.server = server;
                }
                Err(e) if !e.is_transient() => break Err(e),
                Err(e) => {
                    self.tally.failed(self.index, &self.server, &e, connected);
                    tokio::time::sleep(self.backoff.next_delay()).await;
                }
            }
        };
        self.tally.outage.gone(self.index);
        result
    }

    async fn session(&mut self, connected: &mut bool) -> Result<SessionEnd, RemoteError> {
        let mut conn = Connection::connect(&self.server).await?;
        // Batched events: a bot decides from its prompt's view alone.
        let (_, seats) = conn.greet(self.token.clone(), false, true).await?;
        *connected = true;
        self.backoff.reset();
        self.tally.recovered(self.index, &self.server);
        // Frames that arrived while a request waited for its reply.
        let mut pending = VecDeque::new();
        let (mut room, mut waiting) = match seats.first() {
            // A seat given back: its room resends its state.
            Some(s) => (s.room, false),
            None => {
                let room = {
                    let _turn = FINDING.lock().await;
                    find_seat(&mut conn, self.cfg.room, &self.wanted, &mut pending).await?
                };
                conn.send(ClientMsg::Ready { room }).await?;
                (room, true)
            }
        };
        // A bot sent to a room does not leave it for another.
        let may_move = self.cfg.room.is_none();
        let seed = derive_seed(self.index, u64::from(std::process::id()));
        let strategy = spec::build(&self.cfg.strategy, seed)?;
        let mut decider = Decider::new(strategy, build_poly(&self.cfg.poly_strategy, seed)?);
        if let Some(v) = &self.wanted.spec.variant {
            decider.know(v);
        }
        let mut look = tokio::time::Instant::now() + self.backoff.jitter(LOOK_AROUND);
        loop {
            let msg = match pending.pop_front() {
                Some(msg) => msg,
                None => tokio::select! {
                    frame = conn.recv() => frame?.msg,
                    () = tokio::time::sleep_until(look), if waiting && may_move => {
                        look = tokio::time::Instant::now() + self.backoff.jitter(LOOK_AROUND);
                        if let Some(better) = regroup(&mut conn, room, &self.wanted, &mut pending).await? {
                            room = better;
                            conn.send(ClientMsg::Ready { room }).await?;
                        }
                        continue;
                    }
                },
            };
            if decider.note_poly(&msg) {
                if matches!(msg, ServerMsg::PolyGameStarted { room: r, .. } if r == room) {
                    waiting = false;
                }
                continue;
            }
            match msg {
                ServerMsg::GameStarted { room: r, variant, .. } if r == room => {
                    waiting = false;
                    decider.learn(room, *variant);
                }
                ServerMsg::PolyPrompt { room: r, prompt, seat, view, legal_moves, .. } if r == room => {
                    waiting = false;
                    let m = decider
                        .poly
                        .decide(room, seat, view.map(|v| *v), &legal_moves)
                        .ok_or(RemoteError::NoLegalMoves { room, prompt })?;
                    conn.send(ClientMsg::PolyMove { room, prompt, r#move: m }).await?;
                }
                ServerMsg::Prompt { room: r, prompt, view, legal_moves, .. } if r == room => {
                    waiting = false;
                    let m = decider
                        .decide(room, view.as_deref(), &legal_moves)
                        .ok_or(RemoteError::NoLegalMoves { room, prompt })?;
                    conn.send(ClientMsg::Move { room, prompt, r#move: m }).await?;
                }
                ServerMsg::Accepted { .. } => {
                    self.tally.moves.fetch_add(1, Ordering::Relaxed);
                }
                ServerMsg::GameOver { room: r, seq, game, .. } if r == room => {
                    decider.forget(room);
                    self.tally.games.fetch_add(1, Ordering::Relaxed);
                    if let Some(line) = self.tally.match_over(&self.addr, room, seq, game) {
                        println!("{line}");
                    }
                    self.played += 1;
                    if self.cfg.matches.is_some_and(|m| self.played >= m) {
                        let _ = conn.send(ClientMsg::Leave { room }).await;
                        conn.close().await;
                        return Ok(SessionEnd::Done);
                    }
                    conn.send(ClientMsg::Ready { room }).await?;
                    waiting = true;
                }
                ServerMsg::RoomClosed { room: r, .. } if r == room => {
                    conn.close().await;
                    return Ok(SessionEnd::RoomClosed);
                }
                ServerMsg::Error { code, message, .. } => {
                    self.tally.errors.fetch_add(1, Ordering::Relaxed);
                    eprintln!("bot {}: server error {}: {message}", self.index, code_name(&code));
                }
                _ => {}
            }
        }
    }
}

/// The rooms the server lists now.
async fn list_rooms(conn: &mut Connection, pending: &mut VecDeque<ServerMsg>) -> Result<Vec<RoomInfo>, RemoteError> {
    match conn.request(ClientMsg::ListRooms, |m| pending.push_back(m)).await? {
        ServerMsg::Rooms { rooms } => Ok(rooms),
        other => Err(unexpected("list-rooms", other)),
    }
}

/// Takes a seat: in the room asked for, else in the best waiting room that
/// fits, else in a new room. The caller holds [`FINDING`].
async fn find_seat(
    conn: &mut Connection,
    asked: Option<RoomId>,
    wanted: &Wanted,
    pending: &mut VecDeque<ServerMsg>,
) -> Result<RoomId, RemoteError> {
    if let Some(room) = asked {
        return match conn.request(ClientMsg::join(room, None), |m| pending.push_back(m)).await? {
            ServerMsg::Seated { .. } => Ok(room),
            ServerMsg::Error { code: ErrorCode::WrongNode, url: Some(url), .. } => {
                Err(RemoteError::Moved { server: ServerAddr::of_node(&url)?.as_server() })
            }
            other => Err(unexpected("join", other)),
        };
    }
    for _ in 0..5 {
        let rooms = list_rooms(conn, pending).await?;
        let room = match rooms.iter().filter(|r| wanted.fits(r)).max_by_key(|r| rank(r)) {
            Some(r) => r.id,
            None => {
                let create = ClientMsg::CreateRoom(Box::new(wanted.spec.clone()));
                match conn.request(create, |m| pending.push_back(m)).await? {
                    ServerMsg::Room { room } => room.id,
                    other => return Err(unexpected("create-room", other)),
                }
            }
        };
        // Another bot may have taken the seat in between: try again.
        match conn.request(ClientMsg::join(room, None), |m| pending.push_back(m)).await? {
            ServerMsg::Seated { .. } => return Ok(room),
            ServerMsg::Error {
                code: ErrorCode::SeatTaken | ErrorCode::GameInProgress | ErrorCode::NoSuchRoom, ..
            } => {}
            other => return Err(unexpected("join", other)),
        }
    }
    Err(RemoteError::NoSeat)
}

/// How many times in a row a bot follows `wrong-node` to another server.
const MAX_MOVES: u32 = 3;

/// A bot waiting in `room` for its match to start moves to a better room
/// ([`rank`]) that fits, if there is one: bots of different processes that
/// each created a room at the same moment gather in one. Returns the new
/// room, seated (not ready yet).
async fn regroup(
    conn: &mut Connection,
    room: RoomId,
    wanted: &Wanted,
    pending: &mut VecDeque<ServerMsg>,
) -> Result<Option<RoomId>, RemoteError> {
    let _turn = FINDING.lock().await;
    let rooms = list_rooms(conn, pending).await?;
    let Some(ours) = rooms.iter().find(|r| r.id == room) else { return Ok(None) };
    // A full room starts as soon as everyone is ready: stay.
    if ours.status != RoomStatus::Waiting || occupied(ours) == ours.seats.len() {
        return Ok(None);
    }
    let better =
        rooms.iter().filter(|r| r.id != room && wanted.fits(r) && rank(r) > rank(ours)).max_by_key(|r| rank(r));
    let Some(target) = better else { return Ok(None) };
    if pending.iter().any(|m| matches!(m, ServerMsg::GameStarted { room: r, .. } if *r == room)) {
        return Ok(None);
    }
    match conn.request(ClientMsg::Leave { room }, |m| pending.push_back(m)).await? {
        ServerMsg::Left { .. } => {}
        other => return Err(unexpected("leave", other)),
    }
    match conn.request(ClientMsg::join(target.id, None), |m| pending.push_back(m)).await? {
        ServerMsg::Seated { .. } => Ok(Some(target.id)),
        // Taken meanwhile: any seat will do, even the one just left.
        ServerMsg::Error { code: ErrorCode::SeatTaken | ErrorCode::GameInProgress | ErrorCode::NoSuchRoom, .. } => {
            find_seat(conn, None, wanted, pending).await.map(Some)
        }
        other => Err(unexpected("join", other)),
    }
}

/// A bot named by `--register`: its player's name and token file.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The player name.
    pub name: String,
    /// Where its token is kept.
    pub token_file: PathBuf,
}

/// The tokens of `players`, in order: read from each token file (and
/// checked with the server: known, and the player's), or, for a missing
/// file, registered and written to it. Transient errors are retried with
/// backoff as the bots' are.
pub async fn tokens_for(server: &str, players: &[Registration], tally: &Tally) -> Result<Vec<String>, RemoteError> {
    ServerAddr::parse(server)?;
    let mut backoff = Backoff::from_os();
    let mut tokens = Vec::with_capacity(players.len());
    for (i, player) in players.iter().enumerate() {
        let token = token_for(server, player, &mut backoff, tally, i as u64).await;
        tally.outage.gone(i as u64);
        tokens.push(token?);
    }
    Ok(tokens)
}

async fn token_for(
    server: &str,
    player: &Registration,
    backoff: &mut Backoff,
    tally: &Tally,
    bot: u64,
) -> Result<String, RemoteError> {
    let path = &player.token_file;
    let known = token_file::read(path)?;
    // Created before registering: a directory that cannot be written fails
    // before the name is taken.
    let mut pending = match known {
        Some(_) => None,
        None => Some(token_file::Pending::create(path)?),
    };
    loop {
        let mut connected = false;
        let attempt = async {
            let mut conn = Connection::connect(server).await?;
            connected = true;
            let got = match &known {
                Some(token) => check_token(&mut conn, server, player, token).await,
                None => register(&mut conn, server, player).await,
            };
            conn.close().await;
            got
        };
        match attempt.await {
            Ok(token) => {
                tally.recovered(bot, server);
                backoff.reset();
                match pending.take() {
                    Some(file) => {
                        file.commit(&token)?;
                        eprintln!("registered {} on {server}; its token is in {}", player.name, path.display());
                    }
                    None => eprintln!("playing as {} (token from {})", player.name, path.display()),
                }
                return Ok(token);
            }
            Err(e) if !e.is_transient() => return Err(e),
            Err(e) => {
                tally.failed(bot, server, &e, connected);
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    }
}

/// Checks that the server knows `token` and that it is `player`'s.
async fn check_token(
    conn: &mut Connection,
    server: &str,
    player: &Registration,
    token: &str,
) -> Result<String, RemoteError> {
    match conn.greet(Some(token.to_string()), false, false).await {
        Ok((info, _)) if info.name == player.name => Ok(token.to_string()),
        Ok((info, _)) => Err(RemoteError::WrongPlayer {
            path: player.token_file.clone(),
            name: player.name.clone(),
            holder: info.name,
        }),
        Err(RemoteError::Server { code: ErrorCode::BadToken, .. }) => {
            Err(RemoteError::TokenRejected { path: player.token_file.clone(), server: server.to_string() })
        }
        Err(e) => Err(e),
    }
}

/// Registers `player`'s name, returning its new token.
async fn register(conn: &mut Connection, server: &str, player: &Registration) -> Result<String, RemoteError> {
    conn.greet(None, false, false).await?;
    match conn.request(ClientMsg::Register { name: player.name.clone() }, |_| {}).await? {
        ServerMsg::Registered { token, .. } => Ok(token),
        ServerMsg::Error { code: ErrorCode::NameTaken, .. } => Err(RemoteError::NameTaken {
            name: player.name.clone(),
            server: server.to_string(),
            path: player.token_file.clone(),
        }),
        other => Err(unexpected("register", other)),
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
    /// Other servers of the same database (`ws://HOST:PORT/ws`), tried in
    /// turn after `server` when the one in use cannot be reached.
    pub fallbacks: Vec<String>,
}

/// Waits for tournament assignments and plays them: joins the reserved
/// seat, says ready, answers prompts; reconnects with backoff (and asks for
/// its assignments again) when the connection drops. With a tournament,
/// returns when that tournament is over.
pub async fn await_assignments(cfg: AwaitConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    let servers: Vec<String> = std::iter::once(cfg.server.clone()).chain(cfg.fallbacks.iter().cloned()).collect();
    // A tournament seat is reserved by name: an answer that is not the
    // expected one will not change, so only transient errors reconnect.
    reconnecting(&servers, 0, &tally, Session::Assignments(&cfg)).await
}

/// What one connection of a seated bot does.
#[derive(Clone, Copy)]
enum Session<'a> {
    /// Plays its tournament assignments ([`await_assignments`]).
    Assignments(&'a AwaitConfig),
    /// Plays on a ladder ([`ladder`]).
    Ladder(&'a LadderConfig),
}

impl Session<'_> {
    /// The registered player's token the connection says `hello` with.
    fn token(&self) -> &str {
        match self {
            Session::Assignments(cfg) => &cfg.token,
            Session::Ladder(cfg) => &cfg.token,
        }
    }
}

/// Runs `session` until it ends well or fails for good, reconnecting with
/// backoff after each transient failure (told to the tally as bot `index`'s).
/// With several `servers` (nodes of one database), each failure moves on to
/// the next one, so a dead node costs one backoff.
async fn reconnecting(
    servers: &[String],
    index: u64,
    tally: &Arc<Tally>,
    session: Session<'_>,
) -> Result<(), RemoteError> {
    let addrs = servers.iter().map(|s| ServerAddr::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let mut turn = 0;
    let mut backoff = Backoff::from_os();
    let result = loop {
        let (server, addr) = (&servers[turn % servers.len()], &addrs[turn % servers.len()]);
        let mut connected = false;
        let ended = async {
            let mut conn = Connection::connect(server).await?;
            // Seats given back by `hello` resend their prompts: the session
            // answers them.
            conn.hello_with(Some(session.token().to_string()), false, true).await?;
            connected = true;
            backoff.reset();
            tally.recovered(index, server);
            match session {
                Session::Assignments(cfg) => assignment_session(cfg, conn, addr, tally).await,
                Session::Ladder(cfg) => ladder_session(cfg, conn, addr, tally).await,
            }
        }
        .await;
        match ended {
            Ok(()) => break Ok(()),
            Err(e) if !e.is_transient() => break Err(e),
            Err(e) => {
                tally.failed(index, server, &e, connected);
                turn += 1;
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    };
    tally.outage.gone(index);
    result
}

/// What `capicua-bot play --ladder` was asked.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// The registered player's token (the ladder rates players).
    pub token: String,
    /// The strategy spec.
    pub strategy: String,
    /// The preset whose ladder to play.
    pub preset: String,
    /// Which bot of the process this is (its outage reports and seeds).
    pub index: u64,
}

/// Plays on a preset's ladder until stopped: joins the pool, takes every
/// seat the server gives it (`ladder-match`: join, ready), answers prompts;
/// reconnects with backoff and joins again when the connection drops. The
/// server takes the player off the ladder when its connection ends.
pub async fn ladder(cfg: LadderConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    reconnecting(std::slice::from_ref(&cfg.server), cfg.index, &tally, Session::Ladder(&cfg)).await
}

async fn ladder_session(
    cfg: &LadderConfig,
    mut conn: Connection,
    addr: &ServerAddr,
    tally: &Tally,
) -> Result<(), RemoteError> {
    let mut early = VecDeque::new();
    match conn.request(ClientMsg::JoinLadder { variant: cfg.preset.clone() }, |m| early.push_back(m)).await? {
        ServerMsg::Ladder { .. } => {}
        other => return Err(unexpected("join-ladder", other)),
    }
    let seed = derive_seed(0x1add + cfg.index, u64::from(std::process::id()));
    let mut decider = Decider::new(spec::build(&cfg.strategy, seed)?, build_poly(SEATED_POLY_STRATEGY, seed)?);
    loop {
        let msg = match early.pop_front() {
            Some(m) => m,
            None => conn.recv().await?.msg,
        };
        match play_seated(&mut conn, &mut decider, tally, addr, msg).await? {
            None => {}
            Some(ServerMsg::Error { code, message, .. }) => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                if code != ErrorCode::AlreadySeated {
                    eprintln!("bot {}: server error {}: {message}", cfg.index, code_name(&code));
                }
                if code == ErrorCode::Busy {
                    // The pool was full when this player came back to it:
                    // it is off the ladder; reconnecting joins again.
                    return Err(RemoteError::Server { code, message });
                }
            }
            _ => {}
        }
    }
}

async fn assignment_session(
    cfg: &AwaitConfig,
    mut conn: Connection,
    addr: &ServerAddr,
    tally: &Arc<Tally>,
) -> Result<(), RemoteError> {
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
    let seed = derive_seed(0xa55, u64::from(std::process::id()));
    let mut decider = Decider::new(spec::build(&cfg.strategy, seed)?, build_poly(SEATED_POLY_STRATEGY, seed)?);
    // Tables played on another node by a task of their own, by room.
    let mut elsewhere: HashMap<RoomId, tokio::task::JoinHandle<()>> = HashMap::new();
    loop {
        let frame = conn.recv().await?;
        elsewhere.retain(|_, task| !task.is_finished());
        if let ServerMsg::Assignment(a @ Assignment { url: Some(_), .. }) = &frame.msg {
            // The table is open on another node of the database: play it
            // there on a connection of its own, and keep waiting here.
            elsewhere
                .entry(a.room)
                .or_insert_with(|| tokio::spawn(play_elsewhere(cfg.clone(), a.clone(), tally.clone())));
            continue;
        }
        match play_seated(&mut conn, &mut decider, tally, addr, frame.msg).await? {
            None => {}
            Some(ServerMsg::TournamentProgress { tournament, progress: Progress::Finished { .. } })
                if Some(tournament) == cfg.tournament =>
            {
                conn.close().await;
                return Ok(());
            }
            Some(ServerMsg::Error { code, message, .. }) => {
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

/// How many times a table on another node is connected to before it is
/// given up (its no-show deadline decides the match then).
const ELSEWHERE_TRIES: u32 = 5;

/// Plays one tournament table on the node that hosts it (the assignment's
/// `url`): connects there with the same token, joins the reserved seat,
/// says ready and plays until the match is over or the room is closed.
/// A dropped connection is tried again with backoff a few times; the seat
/// stays reserved meanwhile.
async fn play_elsewhere(cfg: AwaitConfig, a: Assignment, tally: Arc<Tally>) {
    let url = a.url.clone().unwrap_or_default();
    let addr = match ServerAddr::of_node(&url) {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("table {} of tournament {}: {e}", a.table, a.tournament);
            return;
        }
    };
    let server = addr.as_server();
    let mut backoff = Backoff::from_os();
    for _ in 0..ELSEWHERE_TRIES {
        let played = async {
            let mut conn = Connection::connect(&server).await?;
            conn.hello_with(Some(cfg.token.clone()), false, true).await?;
            let seed = derive_seed(0xe15e, a.room);
            let mut decider = Decider::new(spec::build(&cfg.strategy, seed)?, build_poly(SEATED_POLY_STRATEGY, seed)?);
            play_seated(&mut conn, &mut decider, &tally, &addr, ServerMsg::Assignment(a.clone())).await?;
            loop {
                let msg = conn.recv().await?.msg;
                let over = match &msg {
                    ServerMsg::GameOver { room, .. } | ServerMsg::RoomClosed { room, .. } => *room == a.room,
                    _ => false,
                };
                match play_seated(&mut conn, &mut decider, &tally, &addr, msg).await? {
                    Some(ServerMsg::Error { code, message, .. }) if code != ErrorCode::AlreadySeated => {
                        tally.errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("{server}: server error {}: {message}", code_name(&code));
                        // The seat is gone (the match ended meanwhile, or
                        // the room did): nothing is left to play here.
                        if matches!(
                            code,
                            ErrorCode::NoSuchRoom | ErrorCode::WrongNode | ErrorCode::SeatTaken | ErrorCode::NoSuchSeat
                        ) {
                            break;
                        }
                    }
                    _ => {}
                }
                if over {
                    break;
                }
            }
            conn.close().await;
            Ok::<(), RemoteError>(())
        }
        .await;
        match played {
            Ok(()) => return,
            Err(e) if !e.is_transient() => {
                eprintln!("{server}: {e}");
                return;
            }
            Err(_) => tokio::time::sleep(backoff.next_delay()).await,
        }
    }
}

/// The poly strategy of ladder and tournament bots, which are given seats
/// rather than a preset (their tables are two-faced today).
const SEATED_POLY_STRATEGY: &str = "greedy";

/// Answers the frames every seated bot answers alike: a seat offered (a
/// ladder match or a tournament assignment: join it and say ready; a seat
/// already held answers `already-seated`, which changes nothing), a match's
/// start, prompts, acceptances and match ends. Any other frame is handed
/// back.
async fn play_seated(
    conn: &mut Connection,
    decider: &mut Decider,
    tally: &Tally,
    addr: &ServerAddr,
    msg: ServerMsg,
) -> Result<Option<ServerMsg>, RemoteError> {
    if decider.note_poly(&msg) {
        return Ok(None);
    }
    match msg {
        ServerMsg::LadderMatch { room, seat, .. } | ServerMsg::Assignment(Assignment { room, seat, .. }) => {
            conn.send(ClientMsg::join(room, Some(seat))).await?;
            conn.send(ClientMsg::Ready { room }).await?;
        }
        ServerMsg::GameStarted { room, variant, .. } => decider.learn(room, *variant),
        ServerMsg::Prompt { room, prompt, view, legal_moves, .. } => {
            let m = decider
                .decide(room, view.as_deref(), &legal_moves)
                .ok_or(RemoteError::NoLegalMoves { room, prompt })?;
            conn.send(ClientMsg::Move { room, prompt, r#move: m }).await?;
        }
        ServerMsg::PolyPrompt { room, prompt, seat, view, legal_moves, .. } => {
            let m = decider
                .poly
                .decide(room, seat, view.map(|v| *v), &legal_moves)
                .ok_or(RemoteError::NoLegalMoves { room, prompt })?;
            conn.send(ClientMsg::PolyMove { room, prompt, r#move: m }).await?;
        }
        ServerMsg::Accepted { .. } => {
            tally.moves.fetch_add(1, Ordering::Relaxed);
        }
        ServerMsg::GameOver { room, seq, game, .. } => {
            decider.forget(room);
            tally.games.fetch_add(1, Ordering::Relaxed);
            if let Some(line) = tally.match_over(addr, room, seq, game) {
                println!("{line}");
            }
        }
        other => return Ok(Some(other)),
    }
    Ok(None)
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
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
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
        assert_eq!(decider.decide(7, Some(&view), &legal), Some(legal[0]));
        decider.learn(7, variant.clone());
        assert_eq!(decider.decide(7, Some(&view), &legal), Some(heaviest));
        // Lean prompts carry no view: the first legal move.
        assert_eq!(decider.decide(7, None, &legal), Some(legal[0]));
        decider.forget(7);
        assert_eq!(decider.decide(7, Some(&view), &legal), Some(legal[0]));
    }

    /// A frame as the server sends it: serialized and read back, as a bot
    /// reads it off the wire.
    fn wire(msg: ServerMsg) -> ServerMsg {
        let text = serde_json::to_string(&ServerFrame { id: None, msg }).unwrap();
        serde_json::from_str::<ServerFrame>(&text).unwrap().msg
    }

    /// A triominoes position (3 seats) where the greedy choice is not the
    /// first legal move, and the game to make frames from.
    fn poly_position() -> (PolyGame, u8, Vec<PolyMove>, PolyMove) {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let mut game = PolyGame::new(rules, 3, 21).unwrap();
        let mut greedy = build_poly("greedy", 1).unwrap();
        let mut moves = capicua_engine::poly::PolyMoveList::default();
        loop {
            let seat = game.to_move().expect("such a position comes before the end");
            game.legal_moves(&mut moves);
            let choice = greedy.choose(&game.view(seat));
            if moves.len() > 1 && choice != moves[0] {
                return (game.clone(), seat, moves.to_vec(), choice);
            }
            game.play(moves[moves.len() - 1]).unwrap();
        }
    }

    #[test]
    fn poly_prompts_are_answered_by_the_poly_strategy_from_the_view() {
        let (game, seat, legal, greedy) = poly_position();
        let variant = game.rules().variant().clone();
        let view = game.view(seat).snapshot();
        let prompt = |view: Option<PolyViewSnapshot>, legal: &[PolyMove]| {
            wire(ServerMsg::PolyPrompt {
                room: 7,
                prompt: 3,
                seat,
                view: view.map(Box::new),
                legal_moves: legal.to_vec(),
                deadline_ms: 1000,
            })
        };
        let answer = |d: &mut Decider, msg: ServerMsg| match msg {
            ServerMsg::PolyPrompt { room, seat, view, legal_moves, .. } => {
                d.poly.decide(room, seat, view.map(|v| *v), &legal_moves)
            }
            other => panic!("{other:?}"),
        };
        let decider = || Decider::new(spec::build("random", 1).unwrap(), build_poly("greedy", 1).unwrap());

        // A full prompt: the strategy chooses from its view.
        let mut d = decider();
        assert_eq!(answer(&mut d, prompt(Some(view.clone()), &legal)), Some(greedy));
        // A lean prompt after game-started (or events) with the view: the
        // latest view kept.
        let mut d = decider();
        let started = wire(ServerMsg::PolyGameStarted {
            room: 7,
            seq: 1,
            seat: Some(seat),
            view: Box::new(view.clone()),
            variant: Box::new(variant.clone()),
        });
        assert!(d.note_poly(&started));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        let mut d = decider();
        let events = wire(ServerMsg::PolyEvents {
            room: 7,
            seq: 4,
            events: vec![],
            view: Some(Box::new(view.clone())),
            hand_end: None,
        });
        assert!(d.note_poly(&events));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        // A custom variant's rules come from sync (a reconnect).
        let mut renamed = variant.clone();
        renamed.name = "house-triominoes".into();
        let mut house_view = view.clone();
        house_view.variant = renamed.name.clone();
        let mut d = decider();
        assert_eq!(answer(&mut d, prompt(Some(house_view.clone()), &legal)), Some(legal[0]), "unknown rules");
        let info = bots_room_info();
        let sync = wire(ServerMsg::Sync {
            room: 7,
            seq: 9,
            info,
            view: None,
            variant: None,
            poly_view: Some(Box::new(house_view.clone())),
            poly_variant: Some(Box::new(renamed)),
        });
        assert!(d.note_poly(&sync));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        // The match ends: nothing of the room is kept.
        d.forget(7);
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(legal[0]));
        // A choice the prompt does not offer, a view of another seat, a
        // view no game shows, no view at all: the first legal move.
        let mut d = decider();
        let others: Vec<PolyMove> = legal.iter().copied().filter(|&m| m != greedy).collect();
        assert_eq!(answer(&mut d, prompt(Some(view.clone()), &others)), Some(others[0]));
        let mut theirs = view.clone();
        theirs.seat = Some((seat + 1) % 3);
        assert_eq!(answer(&mut decider(), prompt(Some(theirs), &legal)), Some(legal[0]));
        let mut garbled = view.clone();
        garbled.stock += 5;
        assert_eq!(answer(&mut decider(), prompt(Some(garbled), &legal)), Some(legal[0]));
        assert_eq!(answer(&mut decider(), prompt(None, &legal)), Some(legal[0]));
        assert_eq!(answer(&mut decider(), prompt(Some(view), &[])), None, "no legal moves: a server bug");
        // Two-faced frames are no poly news.
        let two = wire(ServerMsg::Sync {
            room: 7,
            seq: 9,
            info: bots_room_info(),
            view: None,
            variant: None,
            poly_view: None,
            poly_variant: None,
        });
        assert!(!decider().note_poly(&two));
    }

    fn bots_room_info() -> RoomInfo {
        let mut r = room(7, "triominoes", false, 1);
        r.poly = true;
        r
    }

    /// A prompt without legal moves is a server bug: the bot stops with an
    /// error naming the prompt, and does not retry into the same prompt.
    #[test]
    fn a_prompt_without_legal_moves_is_a_clear_permanent_error() {
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
        let view = capicua_engine::Game::new(
            std::sync::Arc::new(capicua_engine::preset("block").unwrap().validate().unwrap()),
            capicua_engine::Seating::new(2),
            5,
        )
        .unwrap()
        .view(capicua_engine::Seat(0))
        .snapshot();
        assert_eq!(decider.decide(7, Some(&view), &[]), None);
        assert_eq!(decider.decide(7, None, &[]), None);
        let e = RemoteError::NoLegalMoves { room: 7, prompt: 3 };
        assert_eq!(e.to_string(), "the server prompted a move in room 7 (prompt 3) with no legal moves");
        assert!(!e.is_transient());
    }

    #[test]
    fn server_errors_carry_the_protocol_code_and_print_its_wire_name() {
        let e = unexpected(
            "hello",
            ServerMsg::Error { code: ErrorCode::BadToken, message: "unknown token".into(), url: None },
        );
        assert!(matches!(e, RemoteError::Server { code: ErrorCode::BadToken, .. }), "{e:?}");
        assert_eq!(e.to_string(), "server error bad-token: unknown token");
    }

    #[test]
    fn errors_are_transient_only_when_retrying_may_help() {
        use tokio_tungstenite::tungstenite::Error as W;
        let server = |code| RemoteError::Server { code, message: String::new() };
        let http = |status| RemoteError::Http { url: "ws://h/ws".into(), status, reason: String::new() };
        let io = |kind| RemoteError::Ws(W::Io(std::io::Error::from(kind)));
        let transient = [
            io(std::io::ErrorKind::ConnectionRefused),
            io(std::io::ErrorKind::ConnectionReset),
            RemoteError::Timeout,
            RemoteError::Closed,
            http(500),
            http(503),
            http(429),
            RemoteError::Refused { code: close::GOING_AWAY, reason: String::new() },
            RemoteError::Refused { code: close::TRY_AGAIN_LATER, reason: String::new() },
            server(ErrorCode::ShuttingDown),
            server(ErrorCode::TooManyConnections),
            server(ErrorCode::Internal),
            // A full ladder pool: `busy` says to ask again shortly.
            server(ErrorCode::Busy),
        ];
        for e in &transient {
            assert!(e.is_transient(), "{e:?}");
        }
        let permanent = [
            RemoteError::Addr(AddrError::Scheme { addr: "http://h/ws".into() }),
            http(404),
            http(400),
            http(401),
            http(403),
            http(200),
            RemoteError::Refused { code: close::BAD_TOKEN, reason: String::new() },
            RemoteError::Refused { code: close::VERSION_MISMATCH, reason: String::new() },
            server(ErrorCode::BadToken),
            server(ErrorCode::Unauthorized),
            server(ErrorCode::BadRequest),
            server(ErrorCode::BadVariant),
            server(ErrorCode::NameTaken),
            RemoteError::NameTaken { name: "b".into(), server: "ws://h/ws".into(), path: "b.token".into() },
            RemoteError::Unexpected { request: "join", answer: String::new() },
        ];
        for e in &permanent {
            assert!(!e.is_transient(), "{e:?}");
        }
        assert_eq!(io(std::io::ErrorKind::ConnectionRefused).cause(), "connection refused");
        assert!(http(404).to_string().contains("answered HTTP 404"), "{}", http(404));
    }

    #[test]
    fn a_match_is_reported_once_per_process_with_its_address() {
        let tally = Tally::default();
        let ws = ServerAddr::parse("ws://127.0.0.1:8080/ws").unwrap();
        let line = tally.match_over(&ws, 3, 90, Some(17));
        assert_eq!(line.as_deref(), Some("game 17 stored: http://127.0.0.1:8080/api/games/17"));
        assert_eq!(tally.match_over(&ws, 3, 90, Some(17)), None, "the other bots at the table say nothing");
        assert!(tally.match_over(&ws, 3, 150, Some(18)).is_some(), "the next match is told");
        let unix = ServerAddr::parse("unix:/tmp/c.sock").unwrap();
        assert_eq!(tally.match_over(&unix, 4, 5, Some(19)).as_deref(), Some("game 19 stored"));
        let lost = tally.match_over(&unix, 4, 9, None).unwrap();
        assert!(lost.contains("could not store"), "{lost}");
        assert_eq!(tally.match_over(&unix, 4, 9, None), None);
    }

    fn room(id: RoomId, variant: &str, rated: bool, taken: u8) -> RoomInfo {
        use capicua_protocol::{Occupant, OccupantKind, SeatInfo, TimeControl, TimeoutPolicy};
        let occupant =
            |i: u8| Occupant { name: format!("p{i}"), kind: OccupantKind::Player, ready: false, connected: true };
        RoomInfo {
            id,
            variant: variant.into(),
            poly: false,
            seats: (0..4)
                .map(|i| SeatInfo { seat: i, side: i % 2, occupant: (i < taken).then(|| occupant(i)) })
                .collect(),
            status: RoomStatus::Waiting,
            rated,
            spectators: 0,
            time: TimeControl::default(),
            on_timeout: TimeoutPolicy::default(),
            games_played: 0,
            seeded: false,
            private: false,
            invite: None,
            node: None,
        }
    }

    #[test]
    fn bots_sit_in_the_fullest_fitting_room_and_rated_bots_in_rated_ones() {
        let cfg = PlayConfig {
            server: String::new(),
            token: None,
            strategy: "random".into(),
            poly_strategy: "greedy".into(),
            room: None,
            preset: "latin".into(),
            count: 1,
            matches: None,
        };
        let casual = Wanted::new(&cfg, &PlayOptions::default());
        let rated = Wanted::new(&cfg, &PlayOptions { rated: true, ..Default::default() });
        assert!(rated.spec.rated && rated.spec.preset.as_deref() == Some("latin"));
        assert!(casual.fits(&room(1, "latin", false, 1)));
        assert!(!casual.fits(&room(1, "latin", true, 1)), "a casual bot stays out of rated rooms");
        assert!(rated.fits(&room(1, "latin", true, 1)));
        assert!(!rated.fits(&room(1, "latin", false, 1)), "a rated bot stays out of casual rooms");
        assert!(!casual.fits(&room(1, "block", false, 1)));
        assert!(!casual.fits(&room(1, "latin", false, 4)), "full");
        let mut seeded = room(1, "latin", false, 1);
        seeded.seeded = true;
        assert!(!casual.fits(&seeded));
        let mut playing = room(1, "latin", false, 1);
        playing.status = RoomStatus::Playing;
        assert!(!casual.fits(&playing));
        let mut elsewhere = room(1, "latin", false, 1);
        elsewhere.node = Some("http://10.0.0.2:8080".into());
        assert!(!casual.fits(&elsewhere), "a room on another server is not joined here");
        // The fuller room first, then the older one.
        assert!(rank(&room(5, "latin", true, 3)) > rank(&room(2, "latin", true, 1)));
        assert!(rank(&room(2, "latin", true, 1)) > rank(&room(5, "latin", true, 1)));
        let mut custom = capicua_engine::preset("block").unwrap();
        custom.name = "house-block".into();
        let house = Wanted::new(
            &cfg,
            &PlayOptions { variant: Some(PlayVariant::Tiles(Box::new(custom.clone()))), ..Default::default() },
        );
        assert!(house.fits(&room(1, "house-block", false, 0)));
        assert_eq!(house.spec.variant, Some(custom));
        assert_eq!(house.spec.preset, None);
        // A poly preset finds and creates poly rooms, and two-faced bots
        // stay out of them.
        let tri = Wanted::new(&PlayConfig { preset: "triominoes".into(), ..cfg.clone() }, &PlayOptions::default());
        assert_eq!(tri.spec.preset.as_deref(), Some("triominoes"));
        assert!(tri.fits(&bots_room_info()));
        assert!(!tri.fits(&room(1, "triominoes", false, 1)), "a two-faced room of that name");
        assert!(!casual.fits(&RoomInfo { variant: "latin".into(), ..bots_room_info() }));
    }
}
