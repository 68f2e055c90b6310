//! The room task: the thin async shell around a [`RoomCore`]. It moves
//! commands in and performs the core's effects: encodes its messages and
//! pushes the frames to outboxes,
//! stores finished matches, runs slow strategies on the blocking pool,
//! sleeps until the core's next deadline. It decides nothing.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use axum::extract::ws::Utf8Bytes;
use capicua_protocol::{ErrorCode, RoomId, RoomInfo, ServerMsg};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::RoomCmd;
use super::core::RoomCore;
use super::effect::{BotFill, Counter, Effect, Push, Think};
use crate::bots::HostedStrategy;
use crate::cpu::Class;
use crate::metrics::Metrics;
use crate::outbox::encode_ref;
use crate::{AppState, ConnId, Outbox};

type Thought = (Box<dyn HostedStrategy>, crate::table::AnyMove);
/// A search waiting for its slot, then running on the blocking pool.
type Thinking = JoinHandle<Result<Thought, tokio::task::JoinError>>;

/// Runs a room until it closes.
pub(crate) struct RoomTask {
    /// Boxed: the task's future holds its `RoomTask` more than once (the
    /// spawned block's capture, `run`'s argument, the instrumented body),
    /// each copy for the room's whole life; boxed, the core (about 3 KiB)
    /// is held once.
    core: Box<RoomCore>,
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
}

impl RoomTask {
    pub(crate) fn new(
        core: RoomCore,
        state: Arc<AppState>,
        info: Arc<Mutex<RoomInfo>>,
        on_stored: Option<oneshot::Sender<Option<i64>>>,
    ) -> RoomTask {
        RoomTask {
            core: Box::new(core),
            state,
            info,
            outboxes: HashMap::new(),
            thinking: None,
            on_stored,
            fx: Vec::with_capacity(16),
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
            let mut sender = None;
            tokio::select! {
                cmd = rx.recv() => {
                    let cmd = cmd.unwrap_or(RoomCmd::Shutdown);
                    sender = self.remember(&cmd);
                    self.core.command(Instant::now(), cmd, &mut fx);
                }
                _ = sleep_until(deadline) => self.core.tick(Instant::now(), &mut fx),
                thought = joined(&mut self.thinking) => {
                    let answer = thought.map_err(|e| tracing::error!(error = %e, "a hosted strategy failed")).ok();
                    self.core.thought(Instant::now(), answer, &mut fx);
                }
            }
            self.perform(&mut fx).await;
            if let Some(conn) = sender
                && !self.core.knows(conn)
            {
                self.outboxes.remove(&conn);
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

    /// Keeps the outbox of a command's sender (a connection keeps its
    /// outbox for its life: inserted once), and forgets an ended
    /// connection's; the sender, whose outbox goes once it is no member.
    fn remember(&mut self, cmd: &RoomCmd) -> Option<ConnId> {
        if let RoomCmd::Disconnected { conn } = cmd {
            self.outboxes.remove(conn);
        }
        let client = cmd.client()?;
        self.outboxes.entry(client.conn).or_insert_with(|| client.out.clone());
        Some(client.conn)
    }

    /// Performs the effects in order.
    async fn perform(&mut self, fx: &mut Vec<Effect>) {
        // Storing, registering and yielding feed the core again, which may
        // add effects: loop until none are left.
        while !fx.is_empty() {
            let mut follow_up = None;
            // Messages shared by several recipients, encoded once.
            let mut shared: Vec<(Arc<ServerMsg>, Utf8Bytes)> = vec![];
            for effect in fx.drain(..) {
                match effect {
                    Effect::Send { to, id, msg, push } => self.send(&mut shared, to, id, &msg, push),
                    Effect::Wake(to) => {
                        if let Some(out) = self.outboxes.get(&to) {
                            out.wake();
                        }
                    }
                    Effect::Think(think) => self.think(*think),
                    Effect::Hint(job) => {
                        if let Some(out) = self.outboxes.get(&job.conn) {
                            crate::hints::hint(&self.state, out.clone(), *job);
                        }
                    }
                    // The database's futures are boxed: a task is as large
                    // as its largest await for as long as it lives (a room,
                    // for hours), and these run once a match or less.
                    Effect::RegisterBots(fill) => {
                        let row = Box::pin(hosted_bot_row(&self.state, &fill.strategy, fill.who.ident.addr)).await;
                        follow_up = Some(FollowUp::Registered(fill, row));
                    }
                    Effect::Store(record) => {
                        let gate = self.core.store_gate().cloned();
                        follow_up = Some(FollowUp::Stored(Box::pin(store(&self.state, *record, gate)).await));
                    }
                    Effect::MatchDone(game) => {
                        if let Some(tx) = self.on_stored.take() {
                            let _ = tx.send(game);
                        }
                    }
                    Effect::Seated(p) => self.state.lobby.seat(p, self.core.id()),
                    Effect::Unseated(p) => self.state.lobby.unseat(p, self.core.id()),
                    Effect::GaveBack(reply, seats) => {
                        let _ = reply.send(seats);
                    }
                    Effect::Count(c) => self.count(c),
                    Effect::Info => *self.info.lock().expect("room info lock") = self.core.info(),
                    Effect::Yield => follow_up = Some(FollowUp::Resume),
                    Effect::Closed => {}
                }
            }
            match follow_up {
                None => {}
                Some(FollowUp::Stored(game)) => self.core.stored(Instant::now(), game, fx),
                Some(FollowUp::Registered(fill, row)) => self.core.bots_registered(Instant::now(), *fill, row, fx),
                Some(FollowUp::Resume) => {
                    tokio::task::yield_now().await;
                    self.core.resume(Instant::now(), fx);
                }
            }
        }
    }

    /// Pushes a message's frame to a connection's outbox.
    fn send(
        &self,
        shared: &mut Vec<(Arc<ServerMsg>, Utf8Bytes)>,
        to: ConnId,
        id: Option<u64>,
        msg: &Arc<ServerMsg>,
        push: Push,
    ) {
        let Some(out) = self.outboxes.get(&to) else { return };
        let frame = encoded(shared, id, msg);
        match push {
            Push::Now => out.send_text(frame),
            Push::Defer => out.send_deferrable(frame),
            Push::Quiet => out.queue_text(frame),
            Push::Sync(room) => out.send_sync(room, frame),
        };
    }

    fn count(&self, c: Counter) {
        Metrics::inc(match c {
            Counter::Move => &self.state.metrics.moves,
            Counter::Error => &self.state.metrics.errors,
            Counter::Timeout => &self.state.metrics.timeouts,
        });
    }

    /// Runs a strategy off the task. The search waits its turn for one of
    /// the server's search slots (the room keeps serving commands
    /// meanwhile), then holds it on the blocking pool.
    fn think(&mut self, think: Think) {
        let Think { seat, mut strategy, game } = think;
        let state = self.state.clone();
        self.thinking = Some(tokio::spawn(async move {
            let slot = state.cpu.acquire(Class::Search).await;
            let running = Searching::start(state);
            tokio::task::spawn_blocking(move || {
                // The gauge goes down before the slot is free for the next
                // search (in this order).
                let _held = (running, slot);
                let mv = strategy.choose(&game, seat);
                (strategy, mv)
            })
            .await
        }));
    }
}

/// Stores a finished match: its id, or `None` if it could not be stored.
/// Stores a finished match: its id, or `None`. What it stored counts
/// against the room's budget (`gate`).
async fn store(
    state: &AppState,
    record: crate::record::GameRecord,
    gate: Option<crate::limits::StoreGate>,
) -> Option<i64> {
    match state.db.store_game_sized(record).await {
        Ok((id, bytes)) => {
            if let Some(g) = gate {
                g.charge(Instant::now(), bytes);
            }
            Metrics::inc(&state.metrics.games_finished);
            tracing::info!(game = id, "match stored");
            Some(id)
        }
        Err(e) => {
            Metrics::inc(&state.metrics.games_store_failed);
            tracing::error!(error = %e, "storing a finished match");
            None
        }
    }
}

/// The player row a rated room's hosted bots of `strategy` play under, or
/// why it could not be had. A new row is a new name: it counts against the
/// registrations of the address asking (`addr`), or every spec a client
/// can write would be a row.
async fn hosted_bot_row(
    state: &AppState,
    strategy: &str,
    addr: Option<std::net::IpAddr>,
) -> Result<i64, (ErrorCode, String)> {
    let internal = |e: crate::db::DbError| {
        tracing::error!(error = %e, "registering a hosted bot");
        (ErrorCode::Internal, "could not register the hosted bot".to_string())
    };
    if let Some(id) = state.db.hosted_bot_id(strategy).await.map_err(internal)? {
        return Ok(id);
    }
    if let Some(wait) = addr.and_then(|a| state.http_limits.check_registration(a).err()) {
        let secs = wait.as_secs().max(1);
        let message =
            format!("too many new names from this address (a rated bot of a new spec is one); retry in {secs} s");
        return Err((ErrorCode::RateLimited, message));
    }
    state.db.hosted_bot(strategy).await.map(|p| p.id).map_err(internal)
}

/// What the core hears once an effect is performed.
enum FollowUp {
    /// The match was stored (its id) or not.
    Stored(Option<i64>),
    /// The hosted bots' player row, or why it could not be had.
    Registered(Box<BotFill>, Result<i64, (ErrorCode, String)>),
    /// Go on after yielding.
    Resume,
}

/// The frame of a message: one shared by several recipients is encoded
/// once (kept in `shared` while others still hold it).
fn encoded(shared: &mut Vec<(Arc<ServerMsg>, Utf8Bytes)>, id: Option<u64>, msg: &Arc<ServerMsg>) -> Utf8Bytes {
    if id.is_some() {
        return encode_ref(id, msg);
    }
    if let Some((_, frame)) = shared.iter().find(|(m, _)| Arc::ptr_eq(m, msg)) {
        return frame.clone();
    }
    let frame = encode_ref(None, msg);
    if Arc::strong_count(msg) > 1 {
        shared.push((msg.clone(), frame.clone()));
    }
    frame
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
