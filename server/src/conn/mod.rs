//! One WebSocket connection: a receive loop (this task) and a send task.
//!
//! | file | concept |
//! |---|---|
//! | `mod.rs` | the receive loop, frame checks, dispatch, the room family |
//! | `route.rs` | which family of handlers a message goes to (pure) |
//! | `session.rs` | `hello`, `register`, the connection acting for a player |
//! | `lobby.rs` | the lobby, tournament and ladder families |
//! | `bucket.rs` | the token buckets of frames and chat lines |
//! | `send.rs` | the send task, and the refusal at the connection cap |
//!
//! The receive loop `select!`s between the next frame, the server's shutdown
//! signal and the slow-consumer signal; it decodes frames, enforces the
//! handshake, the rate limit and the frame size, and forwards room requests
//! to room tasks. The send task drains the connection's [`Outbox`]. Both are
//! written over `Sink`/`Stream` of WebSocket messages so tests can drive them
//! with plain channels.

mod bucket;
mod lobby;
mod route;
mod send;
mod session;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::ws::Message;
use capicua_protocol::{
    CHAT_BURST, CHAT_PER_SEC, ClientFrame, ClientMsg, ErrorCode, MAX_CHAT_CHARS, MAX_FRAME_BYTES, RoomId, ServerMsg,
    close, decode_client,
};
use futures_util::{Sink, Stream, StreamExt};
use tokio::sync::mpsc;
use tracing::Instrument;

use self::bucket::Bucket;
use self::route::{Route, route};
pub(crate) use self::send::refuse;
use self::send::send_loop;
use crate::metrics::Metrics;
use crate::room::RoomCmd;
use crate::{AppState, Client, ConnId, Identity, Outbox};

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
    /// Requests that read the database or the whole lobby: another.
    slow: Bucket,
    rejected_in_a_row: u32,
    /// The client's address, if known: a guest's rooms count against it.
    peer: Option<std::net::IpAddr>,
    /// Notified when a newer connection acts for this connection's player.
    replaced: Arc<tokio::sync::Notify>,
    /// The guest session this connection uses, released when it ends.
    guest_session: Option<crate::guests::SessionKey>,
    /// A new guest session's secret, until the `welcome` carries it.
    guest_secret: Option<String>,
    /// The signed-in browser's session secret (its cookie), which a
    /// `hello` without a player's token acts for.
    cookie: Option<String>,
}

/// Serves one connection until the client leaves, the server shuts down or
/// the connection must be closed. `peer` is the client's address, if known;
/// `cookie` the session of a signed-in browser's page.
pub(crate) async fn serve<S, R, E>(
    state: Arc<AppState>,
    peer: Option<std::net::IpAddr>,
    cookie: Option<String>,
    sink: S,
    stream: R,
) where
    S: Sink<Message> + Unpin + Send + 'static,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    // One span per connection: its id, and its player's name once `hello`
    // says who it is, so one client's requests can be followed in the log.
    let id = state.next_conn_id();
    let span = tracing::info_span!("conn", conn = id, player = tracing::field::Empty);
    serve_as(state, id, peer, cookie, sink, stream).instrument(span).await
}

async fn serve_as<S, R, E>(
    state: Arc<AppState>,
    id: ConnId,
    peer: Option<std::net::IpAddr>,
    cookie: Option<String>,
    sink: S,
    mut stream: R,
) where
    S: Sink<Message> + Unpin + Send + 'static,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    let _guard = state.task_guard();
    let out = Outbox::new(state.config.outbound_buffer, state.config.outbound_bytes, &state.flusher);
    // Pings a third of the idle timeout apart: a live client's pongs keep
    // it from being closed as silent.
    let sender = tokio::spawn(send_loop(sink, out.clone(), state.config.idle_timeout / 3));
    state.metrics.connections.fetch_add(1, Ordering::Relaxed);
    Metrics::inc(&state.metrics.connections_total);
    tracing::debug!("connected");
    let mut conn = Conn {
        id,
        bucket: Bucket::new(state.config.rate_per_sec, state.config.rate_burst),
        chat: Bucket::new(CHAT_PER_SEC, CHAT_BURST),
        slow: Bucket::new(lobby::SLOW_PER_SEC, lobby::SLOW_BURST),
        state,
        out: out.clone(),
        ident: None,
        rooms: HashMap::new(),
        rejected_in_a_row: 0,
        peer,
        replaced: Arc::new(tokio::sync::Notify::new()),
        guest_session: None,
        guest_secret: None,
        cookie,
    };
    let end = conn.receive(&mut stream).await;
    conn.leave();
    drop(conn);
    let closing = matches!(end, End::Close(..));
    // Rooms may still hold clones of the outbox: closing it refuses their
    // later frames and ends the send task once what is queued is written.
    out.close(match end {
        End::Close(code, reason) => Some((code, reason)),
        End::Gone => None,
    });
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

impl Conn {
    /// The receive loop: frames until the connection ends, and why it does.
    async fn receive<R, E>(&mut self, stream: &mut R) -> End
    where
        R: Stream<Item = Result<Message, E>> + Unpin,
        E: std::error::Error + 'static,
    {
        let hello_by = tokio::time::Instant::now() + self.state.config.hello_timeout;
        let idle = self.state.config.idle_timeout;
        let mut shutdown = self.state.shutdown();
        let mut heard = tokio::time::Instant::now();
        loop {
            // A connection that never says `hello`, or goes silent (no frame,
            // no pong), holds a descriptor and memory for nothing.
            let deadline = if self.ident.is_none() { hello_by.min(heard + idle) } else { heard + idle };
            tokio::select! {
                // First: once replaced, no later frame of this connection acts
                // for the player.
                biased;
                () = self.replaced.notified() => {
                    self.out.send(None, ServerMsg::Closing {
                        reason: "this player connected again elsewhere (another tab or program)".into(),
                        reconnect: false,
                    });
                    return End::Close(close::REPLACED, "replaced by a newer connection");
                }
                frame = stream.next() => match frame {
                    // The WebSocket layer refuses a frame above its own cap
                    // (above ours) from its header, unread: still our error.
                    Some(Err(e)) if too_long(&e) => {
                        Metrics::inc(&self.state.metrics.frames_in);
                        self.error(None, ErrorCode::FrameTooLarge, format!("frames are limited to {MAX_FRAME_BYTES} bytes"));
                        return End::Close(close::TOO_BIG, "frame too large");
                    }
                    Some(Err(e)) if bad_utf8(&e) => {
                        Metrics::inc(&self.state.metrics.frames_in);
                        self.error(None, ErrorCode::BadJson, "a text frame that is not UTF-8");
                        return End::Close(close::INVALID_DATA, "text frame not UTF-8");
                    }
                    None | Some(Err(_)) => return End::Gone,
                    Some(Ok(msg)) => {
                        heard = tokio::time::Instant::now();
                        if let Some(end) = self.on_message(msg).await {
                            return end;
                        }
                    }
                },
                () = tokio::time::sleep_until(deadline) => {
                    let (code, reason) = if self.ident.is_none() {
                        (ErrorCode::HelloRequired, "no hello in time")
                    } else {
                        (ErrorCode::BadRequest, "silent for too long")
                    };
                    self.error(None, code, format!("{reason}: closing the connection"));
                    return End::Close(close::TIMED_OUT, reason);
                }
                _ = crate::shutdown_signalled(&mut shutdown) => {
                    self.out.send(None, ServerMsg::Closing { reason: "the server is shutting down".into(), reconnect: true });
                    return End::Close(close::GOING_AWAY, "server shutting down");
                }
                _ = self.out.killed() => return End::Close(close::SLOW_CONSUMER, "too slow reading frames"),
            }
        }
    }

    /// The connection ended: its rooms, its ladder and the lobby forget it.
    fn leave(&mut self) {
        for (_, tx) in self.rooms.drain() {
            let _ = tx.send(RoomCmd::Disconnected { conn: self.id });
        }
        if let Some(ident) = self.ident.as_ref() {
            if let Some(pid) = ident.player_id {
                self.state.ladder.disconnected(pid, self.id);
            }
            self.state.seeks.disconnected(ident.owner(self.id), self.id);
        }
        self.forget_player();
        if let Some(key) = self.guest_session.take() {
            self.state.guests.release(&key, std::time::Instant::now());
        }
        self.state.metrics.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sends `cmd` to `room`'s task, through the sender this connection
/// already holds or else the lobby's; false when there is no such room.
fn forward(
    rooms: &mut HashMap<RoomId, mpsc::UnboundedSender<RoomCmd>>,
    lobby: &crate::lobby::Lobby,
    room: RoomId,
    cmd: RoomCmd,
) -> bool {
    if let Some(tx) = rooms.get(&room) {
        match tx.send(cmd) {
            Ok(()) => return true,
            // The room closed; ids are never reused.
            Err(_) => {
                rooms.remove(&room);
                return false;
            }
        }
    }
    match lobby.room(room) {
        Some(h) if h.tx.send(cmd).is_ok() => {
            rooms.insert(room, h.tx);
            true
        }
        _ => false,
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
        let lobby = &self.state.lobby;
        match (room, invite) {
            (Some(room), None) if lobby.is_private(room) => {
                Err((ErrorCode::InviteOnly, format!("room {room} is private: {verb} it with its invite")))
            }
            // An unknown room is reported as such by the forwarding.
            (Some(room), None) => Ok(room),
            (None, Some(invite)) => lobby
                .by_invite(invite)
                .ok_or_else(|| (ErrorCode::NoSuchRoom, "no open room has this invite".to_string())),
            _ => Err((ErrorCode::BadRequest, format!("{verb} needs exactly one of `room` and `invite`"))),
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
            // A ping costs a pong (the WebSocket layer answers it on its
            // own): control frames count against the rate like messages,
            // dropped over it without an error frame of their own.
            Message::Ping(_) | Message::Pong(_) => return self.spend(false).err().flatten(),
        };
        Metrics::inc(&self.state.metrics.frames_in);
        if text.len() > MAX_FRAME_BYTES {
            self.error(None, ErrorCode::FrameTooLarge, format!("frames are limited to {MAX_FRAME_BYTES} bytes"));
            return Some(End::Close(close::TOO_BIG, "frame too large"));
        }
        if let Err(end) = self.spend(true) {
            return end;
        }
        let frame = match decode_client(&text) {
            Ok(f) => f,
            Err((id, e)) => {
                self.error(id, e.code(), e.to_string());
                return None;
            }
        };
        self.on_frame(frame).await
    }

    /// Takes a token of the connection's rate for a frame: `Ok` within the
    /// rate; over it the frame is dropped (with a `rate-limited` error when
    /// `say`), and `Err(Some(_))` closes a connection that went on flooding.
    fn spend(&mut self, say: bool) -> Result<(), Option<End>> {
        if self.bucket.take() {
            self.rejected_in_a_row = 0;
            return Ok(());
        }
        self.rejected_in_a_row += 1;
        if self.rejected_in_a_row > self.state.config.flood_limit {
            self.error(None, ErrorCode::RateLimited, "flooding: closing the connection");
            return Err(Some(End::Close(close::FLOOD, "flood")));
        }
        if say {
            self.error(None, ErrorCode::RateLimited, "too many messages; slow down");
        }
        Err(None)
    }

    async fn on_frame(&mut self, ClientFrame { id, msg }: ClientFrame) -> Option<End> {
        let Some(client) = self.client() else {
            return match msg {
                ClientMsg::Hello { version, token, lean_prompts, batch_events, skip_accepted } => {
                    self.out.set_lean_prompts(lean_prompts);
                    self.out.set_batch_events(batch_events);
                    self.out.set_skip_accepted(skip_accepted);
                    Box::pin(self.hello(id, version, token)).await
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
        // The connection's task is as large as its largest await for as
        // long as the connection lives: the handlers that reach the database
        // or the lobby (a few times a match at most) are boxed, so the task
        // stays small; a move's path (`on_room`) is not.
        match route(&msg) {
            Route::Session => Box::pin(self.on_session(id, msg)).await,
            Route::Lobby => Box::pin(self.on_lobby(id, &client, msg)).await,
            Route::Room => self.on_room(id, client, msg).await,
            Route::Tournament => Box::pin(self.on_tournament(id, &client, msg)).await,
            Route::Ladder => Box::pin(self.on_ladder(id, &client, msg)).await,
        }
        None
    }

    /// A command to one room: checked here (chat lines, private rooms,
    /// admin rights), then sent to the room's task.
    async fn on_room(&mut self, id: Option<u64>, client: Client, msg: ClientMsg) {
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
        let mut forward = |room: RoomId, cmd: RoomCmd| forward(&mut self.rooms, &self.state.lobby, room, cmd);
        let (room, sent) = match msg {
            ClientMsg::Chat { room, text } => {
                if let Some((code, message)) = chat_refused {
                    self.error(id, code, message);
                    return;
                }
                (room, forward(room, RoomCmd::Chat { client, text, id }))
            }
            ClientMsg::Join { seat, .. } => {
                let room = match target.expect("resolved above") {
                    Ok(room) => room,
                    Err((code, message)) => {
                        self.error(id, code, message);
                        return;
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
                        return;
                    }
                };
                (room, forward(room, RoomCmd::Spectate { client, id }))
            }
            ClientMsg::FillBots { room, strategy } => (room, forward(room, RoomCmd::FillBots { client, strategy, id })),
            ClientMsg::Unseat { room, seat } => (room, forward(room, RoomCmd::Unseat { client, seat, id })),
            ClientMsg::Ready { room, read_hand_ends } => {
                (room, forward(room, RoomCmd::Ready { client, reads: read_hand_ends, id }))
            }
            ClientMsg::Move { room, prompt, r#move } => {
                (room, forward(room, RoomCmd::Move { client, prompt, mv: r#move, id }))
            }
            ClientMsg::Resync { room } => (room, forward(room, RoomCmd::Resync { client, id })),
            ClientMsg::Hint { room } => (room, forward(room, RoomCmd::Hint { client, id })),
            ClientMsg::CloseRoom { room } => {
                if !client.ident.admin {
                    self.error(id, ErrorCode::Unauthorized, "closing a room needs the admin token");
                    return;
                }
                (room, forward(room, RoomCmd::Close { from: crate::room::From::Member(client), id }))
            }
            _ => unreachable!("routed to rooms: {msg:?}"),
        };
        if !sent {
            // Boxed: it may ask the database (see `on_frame`).
            Box::pin(self.no_such_room(id, room)).await;
        }
    }

    /// Answers a message for a room this server does not host: the room
    /// may be open on another server of the database (`wrong-node`, with
    /// its URL), else there is no such room.
    async fn no_such_room(&self, id: Option<u64>, room: RoomId) {
        let elsewhere = match self.state.db.topology() {
            crate::db::Topology::Cluster => self.state.db.room_elsewhere(room as i64).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, room, "looking for the node of a room");
                None
            }),
            crate::db::Topology::Single => None,
        };
        match elsewhere {
            Some(node) => {
                let message = format!("room {room} is hosted by another server: {}", node.url);
                self.error_with_url(id, ErrorCode::WrongNode, message, Some(node.url));
            }
            None => self.error(id, ErrorCode::NoSuchRoom, format!("no room {room}")),
        }
    }
}

#[cfg(test)]
mod tests;
