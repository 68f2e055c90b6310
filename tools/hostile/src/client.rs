//! The tool's WebSocket connection and protocol helpers over it. Replies
//! are read as JSON values, not as the protocol crate's types, so the tool
//! also reads a server that answers with error codes this build does not
//! know. Connections come from the local address their [`Server`] names:
//! the probe's from another one than the attacks'.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use capicua_protocol::{ClientFrame, ClientMsg, PROTOCOL_VERSION, RoomSpec, TimeControl};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{self, Message, Utf8Bytes};

use crate::http::Server;

/// How long a request waits for its reply.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

/// How long connecting (TCP and the WebSocket handshake) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The WebSocket stream under a [`Conn`].
pub type Ws = WebSocketStream<TcpStream>;

/// A WebSocket connection speaking the protocol: frames numbered by
/// request id, text frames read undecoded.
pub struct Conn {
    ws: Ws,
    next_id: u64,
}

/// How a connection ended or failed, for a tally: `closed CODE` (the
/// server's close frame), `HTTP STATUS` (the upgrade refused), or the
/// error's kind.
#[derive(Debug)]
pub enum Ended {
    /// The server's close frame, with its code (none: a close without one).
    Closed(Option<u16>),
    /// The stream ended, or was reset, without a close frame.
    Cut,
    /// The upgrade was answered with this status.
    Http(u16),
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Closed(Some(code)) => write!(f, "closed {code}"),
            Ended::Closed(None) => write!(f, "closed"),
            Ended::Cut => write!(f, "cut without a close frame"),
            Ended::Http(status) => write!(f, "HTTP {status}"),
        }
    }
}

impl std::error::Error for Ended {}

/// A tungstenite error as an [`Ended`] where it is one.
pub fn ended(e: tungstenite::Error) -> anyhow::Error {
    use tungstenite::Error as E;
    match e {
        E::Http(response) => Ended::Http(response.status().as_u16()).into(),
        E::ConnectionClosed | E::AlreadyClosed | E::Io(_) => Ended::Cut.into(),
        E::Protocol(tungstenite::error::ProtocolError::ResetWithoutClosingHandshake) => Ended::Cut.into(),
        e => e.into(),
    }
}

/// What an error is, in a few words, for a tally: an [`Ended`] as it
/// prints, a timeout, or the error's first words.
pub fn why(e: &anyhow::Error) -> String {
    if let Some(end) = e.downcast_ref::<Ended>() {
        return end.to_string();
    }
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        return format!("{:?}", io.kind());
    }
    let text = format!("{e:#}");
    text.chars().take(60).collect()
}

impl Conn {
    /// Opens a WebSocket to `server` (TCP from its local address, Nagle
    /// off: frames are small and latency matters), within
    /// [`CONNECT_TIMEOUT`]; says nothing yet.
    pub async fn open(server: &Server) -> anyhow::Result<Conn> {
        let open = async {
            let tcp = server.tcp().await?;
            tcp.set_nodelay(true)?;
            // A small read buffer: thousands of connections are held open.
            let config = tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
            let (ws, _) = tokio_tungstenite::client_async_with_config(server.ws.as_str(), tcp, Some(config))
                .await
                .map_err(ended)?;
            anyhow::Ok(Conn { ws, next_id: 0 })
        };
        tokio::time::timeout(CONNECT_TIMEOUT, open).await.map_err(|_| anyhow::anyhow!("connect: timed out"))?
    }

    /// Sends a message with a fresh request id, returning the id.
    pub async fn send(&mut self, msg: ClientMsg) -> anyhow::Result<u64> {
        self.next_id += 1;
        let text = serde_json::to_string(&ClientFrame::new(Some(self.next_id), msg))?;
        self.ws.send(Message::Text(text.into())).await.map_err(ended)?;
        Ok(self.next_id)
    }

    /// Sends an already serialized frame (no request id bookkeeping).
    pub async fn send_text(&mut self, text: impl Into<Utf8Bytes>) -> anyhow::Result<()> {
        self.ws.send(Message::Text(text.into())).await.map_err(ended)
    }

    /// The next text frame, undecoded; the server's close frame (or the
    /// stream's end) is an [`Ended`] error.
    pub async fn recv_text(&mut self) -> anyhow::Result<Utf8Bytes> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(t),
                Some(Ok(Message::Close(c))) => return Err(Ended::Closed(c.map(|c| c.code.into())).into()),
                None => return Err(Ended::Cut.into()),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(ended(e)),
            }
        }
    }

    /// The WebSocket itself, for frames the protocol does not send (pings,
    /// fragments).
    pub fn into_ws(self) -> Ws {
        self.ws
    }

    /// Closes politely.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// The `hello` bots say (lean prompts, batched events), as a guest or
/// with a token.
pub fn hello(token: Option<String>) -> ClientMsg {
    ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts: true, batch_events: true, skip_accepted: false }
}

/// A connection that said `hello` (lean prompts, batched events: as bots
/// connect), as a guest or with a token.
pub async fn connect(server: &Server, token: Option<String>) -> anyhow::Result<Conn> {
    connect_with(server, token, true).await
}

/// A connection that said `hello`, with batched events or (as a browser
/// does) without.
pub async fn connect_with(server: &Server, token: Option<String>, batch_events: bool) -> anyhow::Result<Conn> {
    let mut conn = Conn::open(server).await?;
    let hello =
        ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts: true, batch_events, skip_accepted: false };
    expect(request(&mut conn, hello).await?, "welcome")?;
    Ok(conn)
}

/// A connection acting for a newly registered player named
/// `{prefix}-{pid}-{n}`; returns it and the player's token.
pub async fn register(server: &Server, prefix: &str) -> anyhow::Result<(Conn, String)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut conn = connect(server, None).await?;
    let reply = expect(request(&mut conn, ClientMsg::Register { name: name.clone() }).await?, "registered")?;
    let token = reply["token"].as_str().with_context(|| format!("register {name}: no token"))?.to_string();
    Ok((conn, token))
}

/// A connection acting for a newly registered player (see [`register`]),
/// or for a guest when the server refuses the registration (a limit on
/// names per address, say): what needs an owner, not a name.
pub async fn register_or_guest(server: &Server, prefix: &str) -> anyhow::Result<Conn> {
    match register(server, prefix).await {
        Ok((conn, _)) => Ok(conn),
        Err(_) => connect(server, None).await,
    }
}

/// Sends `msg` and waits for the frame that answers it (the same `id`),
/// skipping the others; within [`REPLY_TIMEOUT`].
pub async fn request(conn: &mut Conn, msg: ClientMsg) -> anyhow::Result<Value> {
    let id = conn.send(msg).await?;
    let wait = async {
        loop {
            let text = conn.recv_text().await?;
            let v: Value = serde_json::from_str(&text)?;
            if v["id"].as_u64() == Some(id) {
                return anyhow::Ok(v);
            }
        }
    };
    tokio::time::timeout(REPLY_TIMEOUT, wait).await.map_err(|_| anyhow::anyhow!("no reply within 15 s"))?
}

/// What a reply is, in a word: its `type`, or `error:CODE`.
pub fn outcome(reply: &Value) -> String {
    match reply["type"].as_str() {
        Some("error") => format!("error:{}", reply["code"].as_str().unwrap_or("?")),
        Some(t) => t.to_string(),
        None => "?".into(),
    }
}

/// Sends `msg` and waits for its reply: its [`outcome`], or [`why`] none
/// came.
pub async fn outcome_of(conn: &mut Conn, msg: ClientMsg) -> String {
    request(conn, msg).await.map_or_else(|e| why(&e), |r| outcome(&r))
}

/// The reply if its `type` is `kind`, else an error naming what came.
pub fn expect(reply: Value, kind: &str) -> anyhow::Result<Value> {
    if reply["type"].as_str() == Some(kind) {
        return Ok(reply);
    }
    let message = reply["message"].as_str().unwrap_or("");
    bail!("expected {kind}, got {} {message}", outcome(&reply))
}

/// A 4-seat room spec of `preset` with a minute per move: the tool's seats
/// answer at once, and a slow server must not time them out.
pub fn four_seats(preset: &str) -> RoomSpec {
    RoomSpec {
        preset: Some(preset.into()),
        seats: Some(4),
        time: Some(TimeControl { move_ms: 60_000, bank_ms: 0 }),
        ..Default::default()
    }
}

/// Creates a room; returns its info.
pub async fn create_room(conn: &mut Conn, spec: RoomSpec) -> anyhow::Result<Value> {
    let reply = expect(request(conn, ClientMsg::CreateRoom(Box::new(spec))).await?, "room")?;
    Ok(reply["room"].clone())
}

/// Takes seat `seat` of room `room`.
pub async fn join(conn: &mut Conn, room: u64, seat: u8) -> anyhow::Result<()> {
    expect(request(conn, ClientMsg::join(room, Some(seat))).await?, "seated").map(drop)
}

/// The `move` frame answering prompt `prompt` with `mv` (a legal move as
/// the prompt gave it).
pub fn move_frame(room: u64, prompt: u64, mv: &Value) -> String {
    serde_json::json!({"type": "move", "room": room, "prompt": prompt, "family": "tiles", "move": mv}).to_string()
}

/// A small xorshift generator: bots pick among legal moves with it.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any; 0 is mapped away).
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// How a frame the server wrote starts when it is `events`, which the
/// tool's bots skip unparsed.
pub const EVENTS_PREFIX: &str = r#"{"type":"events","#;
