//! The send side of a connection: a queue of encoded frames that rooms and
//! the connection's receive loop fill, and that the connection's send task
//! drains into the socket.
//!
//! Why not an `mpsc` channel: every frame through a channel wakes the send
//! task, and every wake-up ends in a `send` syscall, which on loopback costs
//! the sender the receiver's TCP work too (perf: over half of the server's
//! CPU at 2,000 tables). Here a frame is either *urgent* (a reply, a prompt,
//! `game-over`: the send task is woken at once and writes everything queued
//! in one `write`) or *deferrable* (an `events` broadcast, a lobby update).
//! A deferrable frame to a connection that asked for batched events in
//! `hello` waits for the next urgent frame to the same connection, or for
//! the server's [`Flusher`] tick, whichever comes first; to any other
//! connection it is urgent. Frames always leave in the order they were queued.
//!
//! Rooms never wait on a client: a queue past its capacity, in frames or in
//! bytes, marks the connection as a slow consumer and it is closed, so one
//! stuck client cannot stall a table nor hold the server's memory. The bound
//! in bytes is the one that matters for memory: a frame's size ranges from a
//! few bytes to a view of tens of kilobytes, so a bound in frames alone lets
//! a client that never reads hold a thousand full views.
//!
//! A `sync` (the answer to `resync`) replaces any earlier `sync` of the same
//! room still queued: it holds the whole state, so the older one is of no
//! use to the client, and a client that asks again and again without reading
//! holds one view per room, not one per request.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use capicua_protocol::ServerMsg;
use tokio::sync::Notify;

/// Serializes a server frame.
pub(crate) fn encode(id: Option<u64>, msg: ServerMsg) -> Utf8Bytes {
    encode_ref(id, &msg)
}

/// Serializes a server frame from a message others share (a room's
/// broadcast, encoded once for all its recipients).
pub(crate) fn encode_ref(id: Option<u64>, msg: &ServerMsg) -> Utf8Bytes {
    let s = serde_json::to_string(&FrameRef { id, msg }).expect("server frames always serialize");
    Utf8Bytes::from(s)
}

/// A [`capicua_protocol::ServerFrame`] that borrows its message: the same JSON.
#[derive(serde::Serialize)]
struct FrameRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(flatten)]
    msg: &'a ServerMsg,
}

/// A close frame's code and reason.
pub(crate) type CloseReason = (u16, &'static str);

/// The send side of one connection; clones share the queue.
#[derive(Clone)]
pub struct Outbox(Arc<Inner>);

struct Inner {
    /// A std `Mutex`: held only to push a frame or swap the queue out, never
    /// across an `.await`, so contention is a few instructions long.
    queue: Mutex<Queue>,
    /// Wakes the send task (a stored permit if it is busy writing).
    ready: Notify,
    /// Wakes the receive loop to close a slow consumer.
    kill: Notify,
    killed: AtomicBool,
    /// Set when the connection ended: pushes are refused from then on.
    closed: AtomicBool,
    lean: AtomicBool,
    batch: AtomicBool,
    skip_accepted: AtomicBool,
    capacity: usize,
    /// Most bytes of frames queued at once.
    max_bytes: usize,
    flusher: Weak<Flusher>,
}

#[derive(Default)]
struct Queue {
    frames: Vec<Utf8Bytes>,
    /// The bytes of `frames`.
    bytes: usize,
    /// The queued `sync` frames: (room, index in `frames`).
    syncs: Vec<(u64, usize)>,
    /// The close frame to send after the last queued frame.
    close: Option<Option<CloseReason>>,
    /// The flusher generation in which the oldest deferred frame still
    /// queued was pushed; cleared when the send task takes the frames.
    deferred_since: Option<u64>,
    /// On the flusher's list: it stays there, looked at once a tick, for as
    /// long as it keeps deferring frames, so the flusher's lock is taken once
    /// per quiet spell, not once per frame.
    listed: bool,
}

/// What the send task takes from the queue.
pub struct Batch {
    /// Frames, in order.
    pub frames: Vec<Utf8Bytes>,
    /// `Some` once the connection is closing: `Some(code, reason)` asks for a
    /// close frame after the frames, `None` for none.
    pub close: Option<Option<CloseReason>>,
}

impl Outbox {
    /// A new outbox holding at most `capacity` unsent frames of at most
    /// `max_bytes` in all (one frame alone may be larger), whose deferrable
    /// frames (once batching is asked for) `flusher` sends on its tick.
    pub fn new(capacity: usize, max_bytes: usize, flusher: &Arc<Flusher>) -> Outbox {
        Outbox(Arc::new(Inner {
            queue: Mutex::new(Queue::default()),
            ready: Notify::new(),
            kill: Notify::new(),
            killed: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            lean: AtomicBool::new(false),
            batch: AtomicBool::new(false),
            skip_accepted: AtomicBool::new(false),
            capacity,
            max_bytes,
            flusher: Arc::downgrade(flusher),
        }))
    }

    /// Queues an encoded frame and wakes the send task; false if the
    /// connection is gone or too slow.
    pub fn send_text(&self, text: Utf8Bytes) -> bool {
        self.push(text, Push::Wake)
    }

    /// Serializes and queues a frame, waking the send task.
    pub fn send(&self, id: Option<u64>, msg: ServerMsg) -> bool {
        self.send_text(encode(id, msg))
    }

    /// Queues an encoded frame that nobody answers (events, lobby updates):
    /// sent at once, unless the connection batches them (see the module
    /// docs).
    pub fn send_deferrable(&self, text: Utf8Bytes) -> bool {
        let how = if self.0.batch.load(Ordering::Relaxed) { Push::Defer } else { Push::Wake };
        self.push(text, how)
    }

    /// Serializes and queues a frame without waking the send task: it leaves
    /// with the next frame that does, or at [`Outbox::wake`]. For a reply
    /// that must travel with the frames queued right after it.
    pub fn queue(&self, id: Option<u64>, msg: ServerMsg) -> bool {
        self.queue_text(encode(id, msg))
    }

    /// Queues an encoded frame without waking the send task (see [`Outbox::queue`]).
    pub fn queue_text(&self, text: Utf8Bytes) -> bool {
        self.push(text, Push::Quiet)
    }

    /// Queues room `room`'s `sync` frame and wakes the send task; a `sync`
    /// of that room still queued is dropped, the new one going last (after
    /// the events the old one would have preceded, which it includes).
    pub fn send_sync(&self, room: u64, text: Utf8Bytes) -> bool {
        self.push(text, Push::Sync(room))
    }

    /// Bytes queued and not yet taken by the send task.
    #[cfg(test)]
    fn queued_bytes(&self) -> usize {
        self.0.queue.lock().expect("outbox lock").bytes
    }

    /// Wakes the send task if anything is queued.
    pub fn wake(&self) {
        self.0.ready.notify_one();
    }

    fn push(&self, text: Utf8Bytes, how: Push) -> bool {
        if self.0.closed.load(Ordering::Relaxed) {
            return false;
        }
        let wake_anyway = {
            let mut q = self.0.queue.lock().expect("outbox lock");
            if let Push::Sync(room) = how
                && let Some(at) = q.syncs.iter().position(|&(r, _)| r == room)
            {
                let (_, i) = q.syncs.remove(at);
                let old = q.frames.remove(i);
                q.bytes -= old.len();
                for (_, j) in &mut q.syncs {
                    if *j > i {
                        *j -= 1;
                    }
                }
            }
            // One frame alone is never refused for its size: a client that
            // reads takes it, and the bound is on what piles up behind it.
            let over_bytes = !q.frames.is_empty() && q.bytes + text.len() > self.0.max_bytes;
            if q.frames.len() >= self.0.capacity || over_bytes {
                drop(q);
                self.0.killed.store(true, Ordering::Relaxed);
                self.0.kill.notify_one();
                return false;
            }
            if let Push::Sync(room) = how {
                let at = q.frames.len();
                q.syncs.push((room, at));
            }
            q.bytes += text.len();
            q.frames.push(text);
            // A batching connection still gets its frames once half its
            // queue (in frames or bytes) is deferred ones: a burst of events
            // between two ticks (a fast match watched by a spectator) must
            // not close a client that reads well.
            if matches!(how, Push::Defer) && (q.frames.len() * 2 >= self.0.capacity || q.bytes * 2 >= self.0.max_bytes)
            {
                true
            } else if matches!(how, Push::Defer) {
                match self.0.flusher.upgrade() {
                    Some(f) => {
                        if q.deferred_since.is_none() {
                            q.deferred_since = Some(f.generation.load(Ordering::Relaxed));
                        }
                        if !q.listed {
                            // Lock order: outbox, then flusher (the tick takes
                            // its list before it locks any outbox).
                            q.listed = true;
                            f.listed.lock().expect("flusher lock").push(self.clone());
                        }
                        false
                    }
                    // No flusher (the server is gone): nothing would send it later.
                    None => true,
                }
            } else {
                false
            }
        };
        if wake_anyway || matches!(how, Push::Wake | Push::Sync(_)) {
            self.0.ready.notify_one();
        }
        true
    }

    /// Resolves when the connection was marked as a slow consumer.
    pub async fn killed(&self) {
        if self.0.killed.load(Ordering::Relaxed) {
            return;
        }
        self.0.kill.notified().await;
    }

    /// Asks for lean prompts (no view), as the client said in `hello`.
    pub fn set_lean_prompts(&self, lean: bool) {
        self.0.lean.store(lean, Ordering::Relaxed);
    }

    /// Whether prompts to this connection leave out the view.
    pub fn lean_prompts(&self) -> bool {
        self.0.lean.load(Ordering::Relaxed)
    }

    /// Asks for batched events, as the client said in `hello`.
    pub fn set_batch_events(&self, batch: bool) {
        self.0.batch.store(batch, Ordering::Relaxed);
    }

    /// Asks for no `accepted` for legal moves sent without an id, as the
    /// client said in `hello`.
    pub fn set_skip_accepted(&self, skip: bool) {
        self.0.skip_accepted.store(skip, Ordering::Relaxed);
    }

    /// Whether a legal move from this connection, sent without an id, goes
    /// without its `accepted`.
    pub fn skip_accepted(&self) -> bool {
        self.0.skip_accepted.load(Ordering::Relaxed)
    }

    /// Whether the connection is still there.
    pub fn is_open(&self) -> bool {
        !self.0.closed.load(Ordering::Relaxed)
    }

    /// Ends the connection's output: what is queued is still sent, then the
    /// close frame if one is given, then the send task ends. Later frames are
    /// refused.
    pub fn close(&self, frame: Option<CloseReason>) {
        self.0.closed.store(true, Ordering::Relaxed);
        self.0.queue.lock().expect("outbox lock").close.get_or_insert(frame);
        self.0.ready.notify_one();
    }

    /// The send task's side: waits to be woken with something to write (or
    /// for the close) and takes all that is queued.
    pub async fn next_batch(&self, frames: Vec<Utf8Bytes>) -> Batch {
        let mut spare = frames;
        spare.clear();
        loop {
            // Woken first, then look: frames deferred while the last batch
            // was being written stay for the next wake-up (a permit is kept
            // for a wake-up that came meanwhile).
            self.0.ready.notified().await;
            let mut q = self.0.queue.lock().expect("outbox lock");
            if !q.frames.is_empty() || q.close.is_some() {
                q.deferred_since = None;
                q.bytes = 0;
                q.syncs.clear();
                std::mem::swap(&mut q.frames, &mut spare);
                return Batch { frames: spare, close: q.close.take() };
            }
        }
    }
}

/// How a frame is pushed.
#[derive(Clone, Copy)]
enum Push {
    /// Wake the send task now.
    Wake,
    /// Leave it for the next urgent frame, or for the flusher's tick once
    /// it has waited a full tick period.
    Defer,
    /// Do not wake it: the caller will, or the next frame will.
    Quiet,
    /// A room's `sync`: wake the send task now, and drop that room's
    /// `sync` still queued.
    Sync(u64),
}

/// Sends the deferred frames of batching connections on a fixed tick: one
/// timer for the whole server instead of one per connection.
///
/// Ticks number generations. A frame deferred in generation `g` is sent at
/// the tick that starts generation `g + WAIT_TICKS + 1` unless an urgent
/// frame took it first, so each waits at least `WAIT_TICKS` tick periods and
/// at most one more: a bot prompted every few hundred milliseconds gets its
/// events with its prompts, not on a tick that falls between. The tick is a
/// fraction of the wait so that the connections it wakes are spread over
/// time as their frames were: waking every waiting connection at once (tens
/// of thousands of writes) would delay the moves that arrive meanwhile.
#[derive(Default)]
pub struct Flusher {
    /// The generation frames deferred now belong to.
    generation: AtomicU64,
    /// Outboxes that deferred frames since they were last found without any.
    /// A std `Mutex`: taken when an outbox joins and twice a tick, never
    /// across an `.await`.
    listed: Mutex<Vec<Outbox>>,
}

impl Flusher {
    /// Whole tick periods a deferred frame waits, at least.
    pub const WAIT_TICKS: u64 = 4;

    /// The tick period for frames that wait at most `longest`: the wait is
    /// `WAIT_TICKS` to `WAIT_TICKS + 1` periods.
    pub fn tick_for(longest: Duration) -> Duration {
        (longest / (Self::WAIT_TICKS as u32 + 1)).max(Duration::from_millis(1))
    }

    /// Starts a new generation, wakes every listed outbox whose deferred
    /// frames are `WAIT_TICKS + 1` generations old, and drops from the list
    /// the outboxes that hold none or are closed.
    pub fn tick(&self) {
        let now = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        let listed = std::mem::take(&mut *self.listed.lock().expect("flusher lock"));
        let mut keep = Vec::with_capacity(listed.len());
        for out in listed {
            let mut q = out.0.queue.lock().expect("outbox lock");
            // A closed outbox's send task was woken by the close and takes
            // what is queued, if it still runs; if its socket is gone it
            // never will, and listing it would keep it and its frames alive
            // for ever (a leak per dropped connection).
            if out.0.closed.load(Ordering::Relaxed) {
                q.listed = false;
                continue;
            }
            match q.deferred_since {
                None => q.listed = false,
                Some(g) => {
                    if g + Self::WAIT_TICKS < now {
                        out.0.ready.notify_one();
                    }
                    drop(q);
                    keep.push(out);
                }
            }
        }
        self.listed.lock().expect("flusher lock").append(&mut keep);
    }

    /// Ticks every `every` until the flusher is dropped. Spawned once by the
    /// server; it holds only a weak reference, so it ends with the server.
    pub async fn run(this: Weak<Flusher>, every: Duration) {
        let mut interval = tokio::time::interval(every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            match this.upgrade() {
                Some(f) => f.tick(),
                None => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(s: &str) -> Utf8Bytes {
        Utf8Bytes::from(s.to_string())
    }

    /// A flusher and an outbox of `capacity` frames, batching or not.
    fn outbox(capacity: usize, batch: bool) -> (Arc<Flusher>, Outbox) {
        let flusher = Arc::new(Flusher::default());
        let out = Outbox::new(capacity, usize::MAX, &flusher);
        out.set_batch_events(batch);
        (flusher, out)
    }

    async fn ready_now(out: &Outbox) -> Option<Batch> {
        tokio::time::timeout(Duration::from_millis(20), out.next_batch(Vec::new())).await.ok()
    }

    #[tokio::test]
    async fn an_urgent_frame_carries_what_was_deferred_before_it_in_order() {
        let (_flusher, out) = outbox(16, true);
        assert!(out.send_deferrable(frame("e1")));
        assert!(out.send_deferrable(frame("e2")));
        assert!(ready_now(&out).await.is_none(), "deferred frames alone do not wake the send task");
        assert!(out.send_text(frame("prompt")));
        let b = ready_now(&out).await.expect("an urgent frame wakes it");
        assert_eq!(b.frames, vec![frame("e1"), frame("e2"), frame("prompt")]);
        assert!(b.close.is_none());
    }

    #[test]
    fn a_closed_connection_with_deferred_frames_is_let_go() {
        // A client that drops its socket while events wait for a tick: its
        // send task is gone and will never take them, so the flusher must
        // not keep the outbox (and its frames) listed for ever.
        let (flusher, out) = outbox(16, true);
        assert!(out.send_deferrable(frame("e1")));
        out.close(None);
        let inner = Arc::downgrade(&out.0);
        drop(out);
        for _ in 0..=Flusher::WAIT_TICKS + 1 {
            flusher.tick();
        }
        assert!(flusher.listed.lock().unwrap().is_empty(), "still listed");
        assert!(inner.upgrade().is_none(), "the outbox is still held");
    }

    #[tokio::test]
    async fn the_flusher_tick_sends_deferred_frames() {
        let (flusher, out) = outbox(16, true);
        out.send_deferrable(frame("e1"));
        out.send_deferrable(frame("e2"));
        assert_eq!(flusher.listed.lock().unwrap().len(), 1, "listed once");
        assert!(ready_now(&out).await.is_none());
        for _ in 0..Flusher::WAIT_TICKS {
            flusher.tick();
            assert!(ready_now(&out).await.is_none(), "the first ticks only age them");
        }
        out.send_deferrable(frame("e3"));
        assert_eq!(flusher.listed.lock().unwrap().len(), 1, "still listed once");
        flusher.tick();
        let b = ready_now(&out).await.expect("the tick after the wait wakes it");
        assert_eq!(b.frames, vec![frame("e1"), frame("e2"), frame("e3")]);
        out.send_deferrable(frame("e4"));
        assert_eq!(flusher.listed.lock().unwrap().len(), 1, "still listed while it defers");
        for _ in 0..Flusher::WAIT_TICKS {
            flusher.tick();
            assert!(ready_now(&out).await.is_none(), "e4 has not waited long enough");
        }
        flusher.tick();
        assert_eq!(ready_now(&out).await.expect("its wait is over").frames, vec![frame("e4")]);
        flusher.tick();
        assert!(flusher.listed.lock().unwrap().is_empty(), "dropped from the list once it holds nothing deferred");
    }

    #[tokio::test]
    async fn frames_taken_by_an_urgent_frame_are_not_woken_again_by_the_tick() {
        let (flusher, out) = outbox(16, true);
        out.send_deferrable(frame("e1"));
        out.send_text(frame("prompt"));
        assert_eq!(ready_now(&out).await.unwrap().frames.len(), 2);
        flusher.tick();
        out.send_deferrable(frame("e2"));
        // e2 was deferred in generation 1: until its wait is over, the ticks
        // would send only frames of generation 0, which the prompt took.
        for _ in 0..Flusher::WAIT_TICKS {
            flusher.tick();
            assert!(ready_now(&out).await.is_none(), "nothing old enough");
        }
        flusher.tick();
        assert_eq!(ready_now(&out).await.expect("its own generation").frames, vec![frame("e2")]);
    }

    #[tokio::test]
    async fn deferred_frames_leave_without_a_tick_once_they_fill_half_the_queue() {
        let (_flusher, out) = outbox(8, true);
        for i in 0..3 {
            assert!(out.send_deferrable(frame(&format!("e{i}"))));
        }
        assert!(ready_now(&out).await.is_none(), "three of eight wait for the tick");
        assert!(out.send_deferrable(frame("e3")));
        let b = ready_now(&out).await.expect("half the queue wakes the send task");
        assert_eq!(b.frames.len(), 4);
        // A burst longer than the queue is never a slow consumer while the
        // send task keeps taking it.
        for i in 0..64 {
            assert!(out.send_deferrable(frame(&format!("f{i}"))), "frame {i} refused");
            if i % 4 == 3 {
                assert_eq!(ready_now(&out).await.expect("woken").frames.len(), 4);
            }
        }
    }

    #[tokio::test]
    async fn without_batching_deferrable_frames_are_sent_at_once() {
        let (flusher, out) = outbox(16, false);
        out.send_deferrable(frame("e1"));
        assert_eq!(ready_now(&out).await.expect("live events").frames, vec![frame("e1")]);
        assert!(flusher.listed.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_quiet_reply_waits_for_the_wake() {
        let (_flusher, out) = outbox(16, true);
        out.queue(Some(7), ServerMsg::Pong);
        out.send_deferrable(frame("e1"));
        assert!(ready_now(&out).await.is_none());
        out.wake();
        let b = ready_now(&out).await.expect("woken");
        assert_eq!(b.frames.len(), 2);
        assert_eq!(b.frames[0].as_str(), r#"{"id":7,"type":"pong"}"#);
    }

    #[tokio::test]
    async fn a_full_queue_kills_the_connection_and_a_closed_one_refuses() {
        let (_flusher, out) = outbox(2, false);
        assert!(out.send_text(frame("a")));
        assert!(out.send_text(frame("b")));
        assert!(!out.send_text(frame("c")), "over capacity");
        ready_killed(&out).await;
        out.close(Some((1008, "slow")));
        assert!(!out.is_open());
        assert!(!out.send_text(frame("d")), "closed");
        let b = ready_now(&out).await.expect("closing wakes it");
        assert_eq!(b.frames, vec![frame("a"), frame("b")]);
        assert_eq!(b.close, Some(Some((1008, "slow"))));
    }

    #[tokio::test]
    async fn a_queue_over_its_bytes_kills_the_connection_though_few_frames_wait() {
        let flusher = Arc::new(Flusher::default());
        let out = Outbox::new(1024, 100, &flusher);
        let big = "x".repeat(40);
        assert!(out.send_text(frame(&big)));
        assert!(out.send_text(frame(&big)));
        assert_eq!(out.queued_bytes(), 80);
        assert!(!out.send_text(frame(&big)), "120 bytes would be over 100");
        ready_killed(&out).await;
        // Taken by the send task, the queue holds nothing again.
        let out = Outbox::new(1024, 100, &flusher);
        assert!(out.send_text(frame(&big)));
        assert_eq!(ready_now(&out).await.expect("woken").frames.len(), 1);
        assert_eq!(out.queued_bytes(), 0);
        assert!(out.send_text(frame(&big)) && out.send_text(frame(&big)), "room again once sent");
        // One frame larger than the bound alone is sent, not refused.
        let out = Outbox::new(1024, 100, &flusher);
        assert!(out.send_text(frame(&"y".repeat(500))));
        assert!(!out.send_text(frame("z")), "nothing queues behind it");
    }

    #[tokio::test]
    async fn deferred_frames_leave_once_they_fill_half_the_bytes() {
        let flusher = Arc::new(Flusher::default());
        let out = Outbox::new(1024, 100, &flusher);
        out.set_batch_events(true);
        assert!(out.send_deferrable(frame(&"e".repeat(30))));
        assert!(ready_now(&out).await.is_none(), "30 of 100 bytes wait for the tick");
        assert!(out.send_deferrable(frame(&"e".repeat(30))));
        assert_eq!(ready_now(&out).await.expect("half the bytes wake it").frames.len(), 2);
    }

    #[tokio::test]
    async fn a_sync_replaces_the_same_rooms_sync_still_queued() {
        let flusher = Arc::new(Flusher::default());
        // Room for two syncs of 40 bytes and a little more, no more.
        let out = Outbox::new(1024, 100, &flusher);
        let sync = |room: u64, n: u32| frame(&format!("{{\"type\":\"sync\",\"room\":{room},\"n\":{n:>10}}}"));
        assert!(out.send_sync(1, sync(1, 0)));
        assert!(out.send_text(frame("ev")));
        for n in 1..1000 {
            assert!(out.send_sync(1, sync(1, n)), "resync {n} refused: the queue grew");
        }
        assert!(out.send_sync(2, sync(2, 0)), "another room's sync is kept apart");
        assert!(out.send_sync(1, sync(1, 1000)));
        assert_eq!(out.queued_bytes(), 2 + sync(2, 0).len() + sync(1, 1000).len());
        let b = ready_now(&out).await.expect("a sync wakes the send task");
        assert_eq!(b.frames, vec![frame("ev"), sync(2, 0), sync(1, 1000)], "the latest last, after the event");
        // Taken: the next sync is queued anew, not matched to one sent.
        assert!(out.send_sync(1, sync(1, 1001)));
        assert!(out.send_text(frame("ev2")));
        assert_eq!(ready_now(&out).await.expect("woken").frames, vec![sync(1, 1001), frame("ev2")]);
        // Other frames still count: a client that never reads is closed.
        let big = "x".repeat(70);
        assert!(out.send_sync(1, sync(1, 0)));
        assert!(!out.send_text(frame(&big)), "over the bytes");
        ready_killed(&out).await;
    }

    async fn ready_killed(out: &Outbox) {
        tokio::time::timeout(Duration::from_millis(20), out.killed()).await.expect("marked as a slow consumer");
    }

    #[test]
    fn a_shared_message_encodes_as_its_frame() {
        let msg = ServerMsg::Ok { room: 4 };
        for id in [None, Some(9)] {
            let frame = capicua_protocol::ServerFrame { id, msg: msg.clone() };
            assert_eq!(encode_ref(id, &msg).as_str(), serde_json::to_string(&frame).unwrap());
        }
    }
}
