//! One WebSocket connection: a receive loop (this task) and a send task.
//!
//! The receive loop `select!`s between the next frame, the server's shutdown
//! signal and the slow-consumer signal; it decodes frames, enforces the
//! handshake, the rate limit and the frame size, and forwards room requests
//! to room tasks. The send task drains the connection's [`Outbox`]. Both are
//! written over `Sink`/`Stream` of WebSocket messages so tests can drive them
//! with plain channels.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::extract::ws::{CloseFrame, Message};
use capicua_protocol::{
    CHAT_BURST, CHAT_PER_SEC, ClientFrame, ClientMsg, ErrorCode, MAX_CHAT_CHARS, MAX_FRAME_BYTES, PROTOCOL_VERSION,
    PlayerInfo, RoomId, SeatRef, ServerMsg, close, decode_client,
};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use crate::limits::RoomOwner;
use crate::metrics::Metrics;
use crate::room::{self, RoomCmd};
use crate::{AppState, Client, ConnId, Identity, Outbox};

/// A token bucket: `rate` tokens a second, at most `burst` saved.
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: u32, burst: u32) -> Bucket {
        Bucket { tokens: burst as f64, rate: rate as f64, burst: burst as f64, last: Instant::now() }
    }
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Why the receive loop ended.
enum End {
    /// The client went away.
    Gone,
    /// We close with this code and reason.
    Close(u16, &'static str),
}

struct Conn {
    state: Arc<AppState>,
    id: ConnId,
    out: Outbox,
    ident: Option<Arc<Identity>>,
    /// The rooms this connection spoke to, with their command senders: a
    /// move goes to its room without the lobby's lock.
    rooms: HashMap<RoomId, mpsc::UnboundedSender<RoomCmd>>,
    bucket: Bucket,
    /// Chat lines: a slower bucket of their own.
    chat: Bucket,
    rejected_in_a_row: u32,
    /// The client's address, if known: a guest's rooms count against it.
    peer: Option<std::net::IpAddr>,
    /// Notified when a newer connection acts for this connection's player.
    replaced: Arc<tokio::sync::Notify>,
}

/// Refuses a connection at the cap: an error frame, then close code 1013
/// (try again later).
pub(crate) async fn refuse<S>(mut sink: S)
where
    S: Sink<Message> + Unpin,
{
    let frame = crate::encode(
        None,
        ServerMsg::Error {
            code: ErrorCode::TooManyConnections,
            message: "the server is at its connection cap".into(),
            url: None,
        },
    );
    let _ = sink.send(Message::Text(frame)).await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame { code: close::TRY_AGAIN_LATER, reason: "connection cap".into() })))
        .await;
}

/// Serves one connection until the client leaves, the server shuts down or
/// the connection must be closed. `peer` is the client's address, if known.
pub(crate) async fn serve<S, R, E>(state: Arc<AppState>, peer: Option<std::net::IpAddr>, sink: S, stream: R)
where
    S: Sink<Message> + Unpin + Send + 'static,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    // One span per connection: its id, and its player's name once `hello`
    // says who it is, so one client's requests can be followed in the log.
    let id = state.next_conn_id();
    let span = tracing::info_span!("conn", conn = id, player = tracing::field::Empty);
    serve_as(state, id, peer, sink, stream).instrument(span).await
}

async fn serve_as<S, R, E>(state: Arc<AppState>, id: ConnId, peer: Option<std::net::IpAddr>, sink: S, mut stream: R)
where
    S: Sink<Message> + Unpin + Send + 'static,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    let _guard = state.task_guard();
    let out = Outbox::new(state.config.outbound_buffer, state.config.outbound_bytes, &state.flusher);
    // Pings a third of the idle timeout apart: a live client's pongs keep
    // it from being closed as silent.
    let sender = tokio::spawn(send_loop(sink, out.clone(), state.config.idle_timeout / 3));
    let hello_by = tokio::time::Instant::now() + state.config.hello_timeout;
    let idle = state.config.idle_timeout;
    state.metrics.connections.fetch_add(1, Ordering::Relaxed);
    Metrics::inc(&state.metrics.connections_total);
    tracing::debug!("connected");
    let mut conn = Conn {
        id,
        bucket: Bucket::new(state.config.rate_per_sec, state.config.rate_burst),
        chat: Bucket::new(CHAT_PER_SEC, CHAT_BURST),
        state,
        out: out.clone(),
        ident: None,
        rooms: HashMap::new(),
        rejected_in_a_row: 0,
        peer,
        replaced: Arc::new(tokio::sync::Notify::new()),
    };
    let mut shutdown = conn.state.shutdown();
    let mut heard = tokio::time::Instant::now();
    let end = loop {
        // A connection that never says `hello`, or goes silent (no frame,
        // no pong), holds a descriptor and memory for nothing.
        let deadline = if conn.ident.is_none() { hello_by.min(heard + idle) } else { heard + idle };
        tokio::select! {
            // First: once replaced, no later frame of this connection acts
            // for the player.
            biased;
            () = conn.replaced.notified() => {
                out.send(None, ServerMsg::Closing {
                    reason: "this player connected again elsewhere (another tab or program)".into(),
                    reconnect: false,
                });
                break End::Close(close::REPLACED, "replaced by a newer connection");
            }
            frame = stream.next() => match frame {
                // The WebSocket layer refuses a frame above its own cap
                // (above ours) from its header, unread: still our error.
                Some(Err(e)) if too_long(&e) => {
                    Metrics::inc(&conn.state.metrics.frames_in);
                    conn.error(None, ErrorCode::FrameTooLarge, format!("frames are limited to {MAX_FRAME_BYTES} bytes"));
                    break End::Close(close::TOO_BIG, "frame too large");
                }
                Some(Err(e)) if bad_utf8(&e) => {
                    Metrics::inc(&conn.state.metrics.frames_in);
                    conn.error(None, ErrorCode::BadJson, "a text frame that is not UTF-8");
                    break End::Close(close::INVALID_DATA, "text frame not UTF-8");
                }
                None | Some(Err(_)) => break End::Gone,
                Some(Ok(msg)) => {
                    heard = tokio::time::Instant::now();
                    match conn.on_message(msg).await {
                        Some(end) => break end,
                        None => continue,
                    }
                }
            },
            () = tokio::time::sleep_until(deadline) => {
                let (code, reason) = if conn.ident.is_none() {
                    (ErrorCode::HelloRequired, "no hello in time")
                } else {
                    (ErrorCode::BadRequest, "silent for too long")
                };
                conn.error(None, code, format!("{reason}: closing the connection"));
                break End::Close(close::TIMED_OUT, reason);
            }
            _ = crate::shutdown_signalled(&mut shutdown) => {
                out.send(None, ServerMsg::Closing { reason: "the server is shutting down".into(), reconnect: true });
                break End::Close(close::GOING_AWAY, "server shutting down");
            }
            _ = out.killed() => break End::Close(close::SLOW_CONSUMER, "too slow reading frames"),
        }
    };
    for (_, tx) in conn.rooms.drain() {
        let _ = tx.send(RoomCmd::Disconnected { conn: conn.id });
    }
    if let Some(pid) = conn.ident.as_ref().and_then(|i| i.player_id) {
        conn.state.ladder.disconnected(pid, conn.id);
    }
    conn.forget_player();
    conn.state.metrics.connections.fetch_sub(1, Ordering::Relaxed);
    let closing = matches!(end, End::Close(..));
    // Rooms may still hold clones of the outbox: closing it refuses their
    // later frames and ends the send task once what is queued is written.
    out.close(match end {
        End::Close(code, reason) => Some((code, reason)),
        End::Gone => None,
    });
    drop(conn);
    drop(out);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), sender).await;
    if closing {
        // Finish the closing handshake: drop what the client still sends
        // until its close frame. A socket closed with unread input is reset
        // by the kernel, and a reset can destroy our close frame and last
        // replies before the client has read them.
        let _ = tokio::time::timeout(CLOSE_WAIT, async {
            while let Some(Ok(msg)) = stream.next().await {
                if matches!(msg, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
}

/// The WebSocket layer's own error behind a receive error, if it is one.
fn ws_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a tungstenite::Error> {
    let mut cause = Some(e);
    while let Some(e) = cause {
        if let Some(ws) = e.downcast_ref::<tungstenite::Error>() {
            return Some(ws);
        }
        cause = e.source();
    }
    None
}

/// Whether a receive error is the WebSocket layer's refusal of a frame or
/// message above its size cap.
fn too_long(e: &(dyn std::error::Error + 'static)) -> bool {
    matches!(ws_error(e), Some(tungstenite::Error::Capacity(_)))
}

/// Whether a receive error is the WebSocket layer's refusal of a text
/// frame that is not UTF-8.
fn bad_utf8(e: &(dyn std::error::Error + 'static)) -> bool {
    matches!(ws_error(e), Some(tungstenite::Error::Utf8(_)))
}

/// How long a closing connection waits for the client's close frame.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The send task: writes what is queued, one flush (one `write`) for every
/// batch; once the outbox closes, the last frames, then the close frame if
/// one was asked for.
async fn send_loop<S>(mut sink: S, out: Outbox, ping_every: std::time::Duration)
where
    S: Sink<Message> + Unpin,
{
    let mut spare = Vec::new();
    let ping_every = ping_every.max(std::time::Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let next = out.next_batch(spare);
        let mut next = std::pin::pin!(next);
        let batch = loop {
            tokio::select! {
                batch = &mut next => break batch,
                _ = ping.tick() => {
                    if sink.send(Message::Ping(Default::default())).await.is_err() {
                        return;
                    }
                }
            }
        };
        let mut frames = batch.frames;
        for text in frames.drain(..) {
            if sink.feed(Message::Text(text)).await.is_err() {
                return;
            }
        }
        spare = frames;
        if sink.flush().await.is_err() {
            return;
        }
        match batch.close {
            None => {}
            Some(Some((code, reason))) => {
                let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
                return;
            }
            Some(None) => break,
        }
    }
    let _ = sink.close().await;
}

impl Conn {
    fn error(&self, id: Option<u64>, code: ErrorCode, message: impl Into<String>) {
        self.error_with_url(id, code, message.into(), None);
    }

    /// An error frame that may name another server (`wrong-node`).
    fn error_with_url(&self, id: Option<u64>, code: ErrorCode, message: String, url: Option<String>) {
        Metrics::inc(&self.state.metrics.errors);
        self.out.send(id, ServerMsg::Error { code, message, url });
    }

    /// Why a chat line is refused, if it is: blank, too long, or too soon
    /// (a chat bucket of its own, far slower than the frame rate, so that a
    /// table's log stays readable).
    fn check_chat(&mut self, text: &str) -> Option<(ErrorCode, String)> {
        if text.trim().is_empty() {
            return Some((ErrorCode::BadRequest, "chat: the text is blank".into()));
        }
        let n = text.chars().count();
        if n > MAX_CHAT_CHARS {
            return Some((ErrorCode::BadRequest, format!("chat: {n} characters, over the limit of {MAX_CHAT_CHARS}")));
        }
        if !self.chat.take() {
            return Some((
                ErrorCode::RateLimited,
                format!("chat: at most {CHAT_PER_SEC} a second after {CHAT_BURST} in a row; wait a moment"),
            ));
        }
        None
    }

    /// The room a `join` or `spectate` (the `verb`) names: by number
    /// (refused for a private room), or by a private room's invite.
    fn room_target(
        &self,
        verb: &str,
        room: Option<RoomId>,
        invite: Option<&str>,
    ) -> Result<RoomId, (ErrorCode, String)> {
        let rooms = self.state.rooms.lock().expect("rooms lock");
        match (room, invite) {
            (Some(room), None) => match rooms.get(&room) {
                Some(h) if h.invite.is_some() => {
                    Err((ErrorCode::InviteOnly, format!("room {room} is private: {verb} it with its invite")))
                }
                // An unknown room is reported as such by the forwarding.
                _ => Ok(room),
            },
            (None, Some(invite)) => rooms
                .iter()
                .find(|(_, h)| h.invite.as_deref() == Some(invite))
                .map(|(id, _)| *id)
                .ok_or_else(|| (ErrorCode::NoSuchRoom, "no open room has this invite".to_string())),
            _ => Err((ErrorCode::BadRequest, format!("{verb} needs exactly one of `room` and `invite`"))),
        }
    }

    /// Makes this connection the one acting for its registered player, and
    /// tells the one it replaces (if any) to close.
    fn claim_player(&self) {
        let Some(pid) = self.ident.as_ref().and_then(|i| i.player_id) else { return };
        let old =
            self.state.player_conns.lock().expect("player conns lock").insert(pid, (self.id, self.replaced.clone()));
        if let Some((conn, replaced)) = old.filter(|(conn, _)| *conn != self.id) {
            tracing::info!(replaced = conn, "a newer connection acts for this player");
            // A stored permit: the old connection closes even if it is busy now.
            replaced.notify_one();
        }
    }

    /// Forgets this connection as its player's, unless a newer one took over.
    fn forget_player(&self) {
        let Some(pid) = self.ident.as_ref().and_then(|i| i.player_id) else { return };
        let mut conns = self.state.player_conns.lock().expect("player conns lock");
        if conns.get(&pid).is_some_and(|(conn, _)| *conn == self.id) {
            conns.remove(&pid);
        }
    }

    fn client(&self) -> Option<Client> {
        Some(Client { conn: self.id, ident: self.ident.clone()?, out: self.out.clone() })
    }

    async fn on_message(&mut self, msg: Message) -> Option<End> {
        let text = match msg {
            Message::Text(t) => t,
            Message::Binary(_) => {
                self.error(None, ErrorCode::BinaryFrame, "the protocol uses text frames only");
                return Some(End::Close(close::POLICY, "binary frame"));
            }
            Message::Close(_) => return Some(End::Gone),
            Message::Ping(_) | Message::Pong(_) => return None,
        };
        Metrics::inc(&self.state.metrics.frames_in);
        if text.len() > MAX_FRAME_BYTES {
            self.error(None, ErrorCode::FrameTooLarge, format!("frames are limited to {MAX_FRAME_BYTES} bytes"));
            return Some(End::Close(close::TOO_BIG, "frame too large"));
        }
        if !self.bucket.take() {
            self.rejected_in_a_row += 1;
            if self.rejected_in_a_row > self.state.config.flood_limit {
                self.error(None, ErrorCode::RateLimited, "flooding: closing the connection");
                return Some(End::Close(close::FLOOD, "flood"));
            }
            self.error(None, ErrorCode::RateLimited, "too many messages; slow down");
            return None;
        }
        self.rejected_in_a_row = 0;
        let frame = match decode_client(&text) {
            Ok(f) => f,
            Err((id, e)) => {
                self.error(id, e.code(), e.to_string());
                return None;
            }
        };
        self.on_frame(frame).await
    }

    async fn on_frame(&mut self, ClientFrame { id, msg }: ClientFrame) -> Option<End> {
        let Some(client) = self.client() else {
            return match msg {
                ClientMsg::Hello { version, token, lean_prompts, batch_events } => {
                    self.out.set_lean_prompts(lean_prompts);
                    self.out.set_batch_events(batch_events);
                    self.hello(id, version, token).await
                }
                ClientMsg::Ping => {
                    self.out.send(id, ServerMsg::Pong);
                    None
                }
                _ => {
                    self.error(id, ErrorCode::HelloRequired, "the first message must be hello");
                    None
                }
            };
        };
        // Checked before `forward` borrows the connection.
        let chat_refused = match &msg {
            ClientMsg::Chat { text, .. } => self.check_chat(text),
            _ => None,
        };
        let target = match &msg {
            ClientMsg::Join { room, invite, .. } => Some(self.room_target("join", *room, invite.as_deref())),
            ClientMsg::Spectate { room, invite } => Some(self.room_target("spectate", *room, invite.as_deref())),
            _ => None,
        };
        let mut forward = |room: RoomId, cmd: RoomCmd| -> bool {
            if let Some(tx) = self.rooms.get(&room) {
                match tx.send(cmd) {
                    Ok(()) => return true,
                    // The room closed; ids are never reused.
                    Err(_) => {
                        self.rooms.remove(&room);
                        return false;
                    }
                }
            }
            match self.state.room(room) {
                Some(h) if h.tx.send(cmd).is_ok() => {
                    self.rooms.insert(room, h.tx);
                    true
                }
                _ => false,
            }
        };
        let (room, sent) = match msg {
            ClientMsg::Hello { .. } => {
                self.error(id, ErrorCode::AlreadyGreeted, "hello was already received");
                return None;
            }
            ClientMsg::Ping => {
                self.out.send(id, ServerMsg::Pong);
                return None;
            }
            ClientMsg::Register { name } => {
                self.register(id, name).await;
                return None;
            }
            ClientMsg::ListRooms => {
                let list = crate::nodes::lobby(&self.state).await;
                self.out.send(id, ServerMsg::Rooms { rooms: list });
                return None;
            }
            ClientMsg::CreateRoom(spec) => {
                if spec.rated && client.ident.player_id.is_none() && !client.ident.admin {
                    self.error(id, ErrorCode::Unauthorized, "only registered players create rated rooms");
                    return None;
                }
                let owner = RoomOwner::of(client.ident.player_id, client.ident.admin, self.peer);
                let creator = match (client.ident.admin, client.ident.player_id) {
                    (true, _) => room::Creator::Admin,
                    (false, Some(p)) => room::Creator::Owner(room::Owner::Player(p)),
                    (false, None) => room::Creator::Owner(room::Owner::Guest(self.id)),
                };
                match room::create(&self.state, *spec, owner, creator).await {
                    Ok(info) => {
                        self.out.send(id, ServerMsg::Room { room: info });
                    }
                    Err(e) => self.error(id, e.code(), e.to_string()),
                }
                return None;
            }
            ClientMsg::AwaitAssignments => {
                crate::tournament::await_assignments(&self.state, &client, id);
                return None;
            }
            ClientMsg::SubscribeTournament { tournament } => {
                crate::tournament::subscribe(&self.state, &client, tournament, id).await;
                return None;
            }
            ClientMsg::JoinLadder { variant } => {
                crate::ladder::join(&self.state, &client, variant, id).await;
                return None;
            }
            ClientMsg::LeaveLadder => {
                crate::ladder::leave(&self.state, &client, id);
                return None;
            }
            ClientMsg::Chat { room, text } => {
                if let Some((code, message)) = chat_refused {
                    self.error(id, code, message);
                    return None;
                }
                (room, forward(room, RoomCmd::Chat { client, text, id }))
            }
            ClientMsg::Join { seat, .. } => {
                let room = match target.expect("resolved above") {
                    Ok(room) => room,
                    Err((code, message)) => {
                        self.error(id, code, message);
                        return None;
                    }
                };
                (room, forward(room, RoomCmd::Join { client, seat, id }))
            }
            ClientMsg::Leave { room } => (room, forward(room, RoomCmd::Leave { client, id })),
            ClientMsg::Spectate { .. } => {
                let room = match target.expect("resolved above") {
                    Ok(room) => room,
                    Err((code, message)) => {
                        self.error(id, code, message);
                        return None;
                    }
                };
                (room, forward(room, RoomCmd::Spectate { client, id }))
            }
            ClientMsg::FillBots { room, strategy } => (room, forward(room, RoomCmd::FillBots { client, strategy, id })),
            ClientMsg::Ready { room } => (room, forward(room, RoomCmd::Ready { client, id })),
            ClientMsg::Move { room, prompt, r#move } => {
                (room, forward(room, RoomCmd::Move { client, prompt, mv: r#move, id }))
            }
            ClientMsg::Resync { room } => (room, forward(room, RoomCmd::Resync { client, id })),
            ClientMsg::Hint { room } => (room, forward(room, RoomCmd::Hint { client, id })),
            ClientMsg::CloseRoom { room } => {
                if !client.ident.admin {
                    self.error(id, ErrorCode::Unauthorized, "closing a room needs the admin token");
                    return None;
                }
                (room, forward(room, RoomCmd::Close { client, id }))
            }
        };
        if !sent {
            self.no_such_room(id, room).await;
        }
        None
    }

    /// Answers a message for a room this server does not host: the room
    /// may be open on another server of the database (`wrong-node`, with
    /// its URL), else there is no such room.
    async fn no_such_room(&self, id: Option<u64>, room: RoomId) {
        let elsewhere = match self.state.db.backend() {
            crate::db::Backend::Postgres => self.state.db.room_elsewhere(room as i64).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, room, "looking for the node of a room");
                None
            }),
            crate::db::Backend::Sqlite => None,
        };
        match elsewhere {
            Some(node) => {
                let message = format!("room {room} is hosted by another server: {}", node.url);
                self.error_with_url(id, ErrorCode::WrongNode, message, Some(node.url));
            }
            None => self.error(id, ErrorCode::NoSuchRoom, format!("no room {room}")),
        }
    }

    /// A guest's name: `guest-N` by its connection's number; on PostgreSQL,
    /// where other servers number their guests too, `guest-N@NODE`, so two
    /// guests of one lobby never share a name.
    fn guest_name(&self) -> String {
        match (self.state.db.backend(), self.state.db.node_id()) {
            (crate::db::Backend::Postgres, Some(node)) => format!("guest-{}@{node}", self.id),
            _ => format!("guest-{}", self.id),
        }
    }

    async fn hello(&mut self, id: Option<u64>, version: u32, token: Option<String>) -> Option<End> {
        if version != PROTOCOL_VERSION {
            self.error(
                id,
                ErrorCode::VersionMismatch,
                format!("this server speaks protocol version {PROTOCOL_VERSION}, not {version}"),
            );
            return Some(End::Close(close::VERSION_MISMATCH, "protocol version mismatch"));
        }
        let ident = match token {
            None => Identity { player_id: None, name: self.guest_name(), admin: false },
            Some(t) if self.state.config.admin_token.as_deref() == Some(t.as_str()) => {
                Identity { player_id: None, name: "admin".into(), admin: true }
            }
            Some(t) => match self.state.db.player_by_token(&t).await {
                Ok(Some(p)) => Identity { player_id: Some(p.id), name: p.name, admin: false },
                Ok(None) => {
                    self.error(id, ErrorCode::BadToken, "unknown token");
                    return Some(End::Close(close::BAD_TOKEN, "bad token"));
                }
                Err(e) => {
                    tracing::error!(error = %e, "token lookup");
                    self.error(id, ErrorCode::Internal, "could not check the token; try again");
                    return Some(End::Close(close::TRY_AGAIN_LATER, "internal error"));
                }
            },
        };
        tracing::Span::current().record("player", ident.name.as_str());
        self.ident = Some(Arc::new(ident));
        // Before the seats move here: the old connection stops acting first.
        self.claim_player();
        let seats = self.reattach().await;
        let ident = self.ident.as_ref().expect("just set");
        self.out.send(
            id,
            ServerMsg::Welcome {
                version: PROTOCOL_VERSION,
                player: PlayerInfo { name: ident.name.clone(), guest: ident.player_id.is_none(), admin: ident.admin },
                seats: seats.clone(),
            },
        );
        // After the welcome: each room sends its state and the pending prompt.
        let client = self.client().expect("greeted");
        for s in seats {
            if let Some(h) = self.state.room(s.room) {
                let _ = h.tx.send(RoomCmd::Resync { client: client.clone(), id: None });
            }
        }
        None
    }

    /// Gives a registered player its seats back on this connection.
    async fn reattach(&mut self) -> Vec<SeatRef> {
        let client = self.client().expect("greeted");
        let Some(pid) = client.ident.player_id else { return vec![] };
        let rooms: Vec<RoomId> = self
            .state
            .seats_by_player
            .lock()
            .expect("seats lock")
            .get(&pid)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        let mut seats = vec![];
        for room in rooms {
            let Some(h) = self.state.room(room) else { continue };
            let (reply, rx) = oneshot::channel();
            if h.tx.send(RoomCmd::Reattach { client: client.clone(), reply }).is_err() {
                continue;
            }
            if let Ok(got) = rx.await {
                if !got.is_empty() {
                    self.rooms.insert(room, h.tx.clone());
                }
                seats.extend(got.into_iter().map(|seat| SeatRef { room, seat }));
            }
        }
        seats.sort_by_key(|s| (s.room, s.seat));
        seats
    }

    async fn register(&mut self, id: Option<u64>, name: String) {
        if let Err(rules) = capicua_protocol::check_name(&name) {
            return self.error(id, ErrorCode::BadName, rules);
        }
        if self.ident.as_ref().is_some_and(|i| i.player_id.is_some()) {
            return self.error(id, ErrorCode::BadRequest, "this connection already acts for a registered player");
        }
        // Each name is a database row and a fresh owner for the room quota:
        // an address may only mint so many a minute.
        if let Some(wait) = self.peer.and_then(|a| self.state.http_limits.check_registration(a).err()) {
            let secs = wait.as_secs().max(1);
            return self.error(
                id,
                ErrorCode::RateLimited,
                format!("too many new names from this address; retry in {secs} s"),
            );
        }
        match self.state.db.register(&name).await {
            Ok((player, token)) => {
                self.ident =
                    Some(Arc::new(Identity { player_id: Some(player.id), name: player.name.clone(), admin: false }));
                self.claim_player();
                // Seats taken as a guest now belong to the player. The rooms
                // hear it before any later command of this connection (same
                // channel, sent first), so the next move finds its seat.
                let client = self.client().expect("greeted");
                for tx in self.rooms.values() {
                    let _ = tx.send(RoomCmd::Promote { client: client.clone() });
                }
                self.out.send(id, ServerMsg::Registered { name: player.name, token });
            }
            Err(crate::db::DbError::NameTaken(n)) => self.error(id, ErrorCode::NameTaken, format!("{n:?} is taken")),
            Err(e) => {
                tracing::error!(error = %e, "register");
                self.error(id, ErrorCode::Internal, "could not register; try again");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppState, Config, Db};

    /// The handler over plain channels: no socket, no HTTP.
    #[tokio::test]
    async fn a_connection_driven_through_channels_answers_in_order() {
        let path = std::env::temp_dir().join(format!("capicua-conn-unit-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let db = Db::open(path.to_str().unwrap()).await.unwrap();
        let (state, _shutdown, _done) = AppState::new(db, Config::default());
        let frames = [
            r#"{"id":1,"type":"ping"}"#,
            r#"{"id":2,"type":"hello","version":2}"#,
            r#"{"oops"#,
            r#"{"id":3,"type":"join","room":77}"#,
        ];
        let input = futures_util::stream::iter(
            frames.iter().map(|f| Ok::<_, std::convert::Infallible>(Message::Text((*f).into()))).collect::<Vec<_>>(),
        );
        let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
        let sink = futures_util::sink::unfold(tx, |tx, m: Message| async move {
            tx.send(m).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        });
        serve(state, None, Box::pin(sink), input).await;
        let mut got = vec![];
        while let Ok(Message::Text(t)) = rx.try_recv() {
            let v: serde_json::Value = serde_json::from_str(&t).unwrap();
            got.push((v["id"].as_u64(), v["type"].as_str().unwrap().to_string(), v["code"].as_str().map(String::from)));
        }
        assert_eq!(
            got,
            vec![
                (Some(1), "pong".into(), None),
                (Some(2), "welcome".into(), None),
                (None, "error".into(), Some("bad-json".into())),
                (Some(3), "error".into(), Some("no-such-room".into())),
            ]
        );
    }

    /// A client that never reads: its queue fills, the connection is closed
    /// as a slow consumer (4004), and what was queued is still sent first.
    #[tokio::test]
    async fn a_client_that_never_reads_is_closed_as_a_slow_consumer() {
        let path = std::env::temp_dir().join(format!("capicua-conn-slow-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let db = Db::open(path.to_str().unwrap()).await.unwrap();
        // After the database is open (its pool's timeouts run on real
        // time): the handler's 5 s and 2 s closing waits pass at once.
        tokio::time::pause();
        let config = Config { outbound_buffer: 4, ..Config::default() };
        let (state, _shutdown, _done) = AppState::new(db, config);
        let mut frames = vec![r#"{"id":1,"type":"hello","version":2}"#.to_string()];
        frames.extend((2..40).map(|i| format!(r#"{{"id":{i},"type":"ping"}}"#)));
        let input = futures_util::stream::iter(
            frames.into_iter().map(|f| Ok::<_, std::convert::Infallible>(Message::Text(f.into()))).collect::<Vec<_>>(),
        )
        .chain(futures_util::stream::pending());
        // The socket takes nothing until the gate opens.
        let (gate, gate_rx) = tokio::sync::watch::channel(false);
        let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
        let sink = futures_util::sink::unfold((tx, gate_rx), |(tx, mut gate), m: Message| async move {
            let _ = gate.wait_for(|open| *open).await;
            tx.send(m).map_err(|_| ())?;
            Ok::<_, ()>((tx, gate))
        });
        tokio::time::timeout(std::time::Duration::from_secs(60), serve(state, None, Box::pin(sink), input))
            .await
            .expect("the handler closes a client that never reads");
        gate.send(true).unwrap();
        let mut got = vec![];
        while let Some(m) = rx.recv().await {
            let end = matches!(m, Message::Close(_));
            got.push(m);
            if end {
                break;
            }
        }
        let Some(Message::Close(Some(close))) = got.last() else { panic!("no close frame: {got:?}") };
        assert_eq!(close.code, close::SLOW_CONSUMER);
        let texts: Vec<serde_json::Value> = got
            .iter()
            .filter_map(|m| match m {
                Message::Text(t) => Some(serde_json::from_str(t).unwrap()),
                _ => None,
            })
            .collect();
        assert_eq!(texts[0]["type"], "welcome", "{texts:?}");
        assert!(texts.len() <= 1 + 4, "at most the queue's capacity besides the frame being written: {texts:?}");
    }
}
