//! The room task: the thin async shell around a [`RoomCore`]. It moves
//! commands in and performs the core's effects: pushes frames to outboxes,
//! stores finished matches, runs slow strategies on the blocking pool,
//! sleeps until the core's next deadline. It decides nothing.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use capicua_protocol::{RoomId, RoomInfo};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::RoomCmd;
use super::core::{Counter, Effect, Input, Member, Push, RoomCore, Think};
use crate::bots::HostedStrategy;
use crate::cpu::Class;
use crate::metrics::Metrics;
use crate::{AppState, Client, ConnId, Outbox};

type Thought = (Box<dyn HostedStrategy>, crate::table::AnyMove);
/// A search waiting for its slot, then running on the blocking pool.
type Thinking = JoinHandle<Result<Thought, tokio::task::JoinError>>;

/// Runs a room until it closes.
pub(crate) struct RoomTask {
    core: RoomCore,
    state: Arc<AppState>,
    /// The lobby's copy of the room's entry.
    info: Arc<Mutex<RoomInfo>>,
    /// The outbox of every connection the core knows.
    outboxes: HashMap<ConnId, Outbox>,
    /// A strategy waiting for a search slot or thinking on the blocking pool.
    thinking: Option<Thinking>,
    /// Told the stored game's id once the room's match is over (a table).
    on_stored: Option<oneshot::Sender<Option<i64>>>,
    /// Reused effect buffer.
    fx: Vec<Effect>,
    /// Replies for `Reattach` commands, in order.
    gave_back: Option<oneshot::Sender<Vec<u8>>>,
}

impl RoomTask {
    pub(crate) fn new(
        core: RoomCore,
        state: Arc<AppState>,
        info: Arc<Mutex<RoomInfo>>,
        on_stored: Option<oneshot::Sender<Option<i64>>>,
    ) -> RoomTask {
        RoomTask {
            core,
            state,
            info,
            outboxes: HashMap::new(),
            thinking: None,
            on_stored,
            fx: Vec::with_capacity(16),
            gave_back: None,
        }
    }

    /// The room's id.
    pub(crate) fn id(&self) -> RoomId {
        self.core.id()
    }

    #[tracing::instrument(name = "room", skip_all, fields(room = self.core.id()))]
    pub(crate) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<RoomCmd>) {
        let mut fx = std::mem::take(&mut self.fx);
        self.core.start(Instant::now(), &mut fx);
        self.perform(&mut fx).await;
        while !self.core.is_closed() {
            let deadline = self.core.next_deadline();
            let input = tokio::select! {
                cmd = rx.recv() => match cmd {
                    None => Input::Shutdown,
                    Some(cmd) => match self.input(cmd).await {
                        Some(input) => input,
                        None => continue,
                    },
                },
                _ = sleep_until(deadline) => Input::Tick,
                thought = joined(&mut self.thinking) => match thought {
                    Ok(answer) => Input::Thought(Some(answer)),
                    Err(e) => {
                        tracing::error!(error = %e, "a hosted strategy failed");
                        Input::Thought(None)
                    }
                },
            };
            let conn = input_conn(&input);
            self.core.handle(Instant::now(), input, &mut fx);
            self.perform(&mut fx).await;
            if let Some(conn) = conn {
                if !self.core.knows(conn) {
                    self.outboxes.remove(&conn);
                }
            }
        }
        // A search on the blocking pool cannot be aborted: tell it to stop,
        // so its thread and slot are free at once (shutdown waits for those
        // threads). A search still queued for a slot leaves the queue.
        self.core.stop_flag().stop();
        if let Some(t) = self.thinking.take() {
            t.abort();
        }
        let id = self.core.id();
        self.state.lobby.remove_room(id);
        self.state.metrics.rooms.fetch_sub(1, Ordering::Relaxed);
    }

    /// Turns a command into the core's input, remembering the sender's
    /// outbox; `None` when the command was answered here.
    async fn input(&mut self, cmd: RoomCmd) -> Option<Input> {
        Some(match cmd {
            RoomCmd::Join { client, seat, id } => Input::Join { who: self.member(client), seat, id },
            RoomCmd::Leave { client, id } => Input::Leave { who: self.member(client), id },
            RoomCmd::Spectate { client, id } => Input::Spectate { who: self.member(client), id },
            RoomCmd::FillBots { client, strategy, id } => {
                // A rated room's hosted bots play under a player row of
                // their own (ratings): the only IO a command needs first.
                let player_id = if self.core.rated() {
                    match self.state.db.hosted_bot(&strategy).await {
                        Ok(p) => Some(p.id),
                        Err(e) => {
                            tracing::error!(error = %e, "registering a hosted bot");
                            Metrics::inc(&self.state.metrics.errors);
                            client.out.send(
                                id,
                                capicua_protocol::ServerMsg::Error {
                                    code: capicua_protocol::ErrorCode::Internal,
                                    message: "could not register the hosted bot".into(),
                                    url: None,
                                },
                            );
                            return None;
                        }
                    }
                } else {
                    None
                };
                Input::FillBots { who: self.member(client), strategy, player_id, id }
            }
            RoomCmd::Ready { client, id } => Input::Ready { who: self.member(client), id },
            RoomCmd::Chat { client, text, id } => Input::Chat { who: self.member(client), text, id },
            RoomCmd::Move { client, prompt, mv, id } => Input::Move { who: self.member(client), prompt, mv, id },
            RoomCmd::Resync { client, id } => Input::Resync { who: self.member(client), id },
            RoomCmd::Hint { client, id } => Input::Hint { who: self.member(client), id },
            RoomCmd::Close { client, id } => Input::Close { who: self.member(client), id },
            RoomCmd::Reattach { client, reply } => {
                self.gave_back = Some(reply);
                Input::Reattach { who: self.member(client) }
            }
            RoomCmd::Promote { client } => Input::Promote { who: self.member(client) },
            RoomCmd::Disconnected { conn } => {
                self.outboxes.remove(&conn);
                Input::Disconnected { conn }
            }
            RoomCmd::Shutdown => Input::Shutdown,
        })
    }

    fn member(&mut self, client: Client) -> Member {
        let lean = client.out.lean_prompts();
        // A connection keeps its outbox for its life: insert it once.
        self.outboxes.entry(client.conn).or_insert(client.out);
        Member { conn: client.conn, ident: client.ident, lean }
    }

    /// Performs the effects in order.
    async fn perform(&mut self, fx: &mut Vec<Effect>) {
        // Storing and yielding feed the core again, which may add effects:
        // loop until none are left.
        while !fx.is_empty() {
            let mut follow_up = None;
            for effect in fx.drain(..) {
                match effect {
                    Effect::Send { to, frame, push } => {
                        if let Some(out) = self.outboxes.get(&to) {
                            match push {
                                Push::Now => out.send_text(frame),
                                Push::Defer => out.send_deferrable(frame),
                                Push::Quiet => out.queue_text(frame),
                                Push::Sync(room) => out.send_sync(room, frame),
                            };
                        }
                    }
                    Effect::Wake(to) => {
                        if let Some(out) = self.outboxes.get(&to) {
                            out.wake();
                        }
                    }
                    Effect::Think(think) => {
                        let Think { seat, mut strategy, game } = *think;
                        // The search waits its turn for one of the server's
                        // search slots (the room keeps serving commands
                        // meanwhile), then holds it on the blocking pool.
                        let state = self.state.clone();
                        self.thinking = Some(tokio::spawn(async move {
                            let slot = state.cpu.acquire(Class::Search).await;
                            let running = Searching::start(state);
                            tokio::task::spawn_blocking(move || {
                                // The gauge goes down before the slot is
                                // free for the next search (in this order).
                                let _held = (running, slot);
                                let mv = strategy.choose(&game, seat);
                                (strategy, mv)
                            })
                            .await
                        }));
                    }
                    Effect::Hint(job) => {
                        if let Some(out) = self.outboxes.get(&job.conn) {
                            crate::hints::hint(&self.state, out.clone(), *job);
                        }
                    }
                    Effect::Store(record) => {
                        let stored = match self.state.db.store_game(*record).await {
                            Ok(id) => {
                                Metrics::inc(&self.state.metrics.games_finished);
                                tracing::info!(game = id, "match stored");
                                Some(id)
                            }
                            Err(e) => {
                                Metrics::inc(&self.state.metrics.games_store_failed);
                                tracing::error!(error = %e, "storing a finished match");
                                None
                            }
                        };
                        follow_up = Some(Input::Stored(stored));
                    }
                    Effect::MatchDone(game) => {
                        if let Some(tx) = self.on_stored.take() {
                            let _ = tx.send(game);
                        }
                    }
                    Effect::Seated(p) => self.state.lobby.seat(p, self.core.id()),
                    Effect::Unseated(p) => self.state.lobby.unseat(p, self.core.id()),
                    Effect::GaveBack(seats) => {
                        if let Some(reply) = self.gave_back.take() {
                            let _ = reply.send(seats);
                        }
                    }
                    Effect::Count(c) => Metrics::inc(match c {
                        Counter::Move => &self.state.metrics.moves,
                        Counter::Error => &self.state.metrics.errors,
                        Counter::Timeout => &self.state.metrics.timeouts,
                    }),
                    Effect::Info => *self.info.lock().expect("room info lock") = self.core.info(),
                    Effect::Yield => follow_up = Some(Input::Continue),
                    Effect::Closed => {}
                }
            }
            if let Some(input) = follow_up {
                if matches!(input, Input::Continue) {
                    tokio::task::yield_now().await;
                }
                self.core.handle(Instant::now(), input, fx);
            }
        }
    }
}

/// Counts a search in the `searches` gauge while it lives (its thread may
/// outlive the room that asked).
struct Searching(Arc<AppState>);

impl Searching {
    fn start(state: Arc<AppState>) -> Searching {
        state.metrics.searches.fetch_add(1, Ordering::Relaxed);
        Searching(state)
    }
}

impl Drop for Searching {
    fn drop(&mut self) {
        self.0.metrics.searches.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The connection an input came from, if any.
fn input_conn(input: &Input) -> Option<ConnId> {
    match input {
        Input::Join { who, .. }
        | Input::Leave { who, .. }
        | Input::Spectate { who, .. }
        | Input::FillBots { who, .. }
        | Input::Ready { who, .. }
        | Input::Chat { who, .. }
        | Input::Move { who, .. }
        | Input::Resync { who, .. }
        | Input::Hint { who, .. }
        | Input::Close { who, .. }
        | Input::Reattach { who }
        | Input::Promote { who } => Some(who.conn),
        _ => None,
    }
}

/// Resolves when the thinking strategy (if any) is done, taking it out.
async fn joined(thinking: &mut Option<Thinking>) -> Result<Thought, tokio::task::JoinError> {
    let Some(t) = thinking.as_mut() else { return std::future::pending().await };
    let result = t.await;
    *thinking = None;
    result.and_then(|searched| searched)
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
