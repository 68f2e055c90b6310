//! Protocol helpers over the bot client's WebSocket [`Connection`]. Replies
//! are read as JSON values, not as the protocol crate's types, so the tool
//! also reads a server that answers with error codes this build does not
//! know.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use capicua_bot::remote::Connection;
use capicua_protocol::{ClientMsg, PROTOCOL_VERSION, RoomSpec, TimeControl};
use serde_json::Value;

/// How long a request waits for its reply.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection that said `hello` (lean prompts, batched events: as bots
/// connect), as a guest or with a token.
pub async fn connect(ws: &str, token: Option<String>) -> anyhow::Result<Connection> {
    connect_with(ws, token, true).await
}

/// A connection that said `hello`, with batched events or (as a browser
/// does) without.
pub async fn connect_with(ws: &str, token: Option<String>, batch_events: bool) -> anyhow::Result<Connection> {
    let mut conn = Connection::connect(ws).await?;
    let hello =
        ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts: true, batch_events, skip_accepted: false };
    expect(request(&mut conn, hello).await?, "welcome")?;
    Ok(conn)
}

/// A connection acting for a newly registered player named
/// `{prefix}-{pid}-{n}`; returns it and the player's token.
pub async fn register(ws: &str, prefix: &str) -> anyhow::Result<(Connection, String)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut conn = connect(ws, None).await?;
    let reply = expect(request(&mut conn, ClientMsg::Register { name: name.clone() }).await?, "registered")?;
    let token = reply["token"].as_str().with_context(|| format!("register {name}: no token"))?.to_string();
    Ok((conn, token))
}

/// A connection acting for a newly registered player (see [`register`]),
/// or for a guest when the server refuses the registration (a limit on
/// names per address, say): what needs an owner, not a name.
pub async fn register_or_guest(ws: &str, prefix: &str) -> anyhow::Result<Connection> {
    match register(ws, prefix).await {
        Ok((conn, _)) => Ok(conn),
        Err(_) => connect(ws, None).await,
    }
}

/// Sends `msg` and waits for the frame that answers it (the same `id`),
/// skipping the others; within [`REPLY_TIMEOUT`].
pub async fn request(conn: &mut Connection, msg: ClientMsg) -> anyhow::Result<Value> {
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
pub async fn create_room(conn: &mut Connection, spec: RoomSpec) -> anyhow::Result<Value> {
    let reply = expect(request(conn, ClientMsg::CreateRoom(Box::new(spec))).await?, "room")?;
    Ok(reply["room"].clone())
}

/// Takes seat `seat` of room `room`.
pub async fn join(conn: &mut Connection, room: u64, seat: u8) -> anyhow::Result<()> {
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
