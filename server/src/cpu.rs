//! The server's budget of CPU-bound work: every hosted-bot search, hint and
//! review decision runs on tokio's blocking pool only while it holds one of
//! `--max-searches` slots, so the threads busy searching never outnumber
//! the slots however many rooms, hints and reviews ask at once.
//!
//! Slots are handed out in two queues, each first come first served:
//!
//! - [`Class::Hint`]: a player waiting at a prompt for a hint. Its wait is
//!   short and bounded (the asker gets `busy` beyond it), and an address
//!   and a player ask one hint at a time (`hints`).
//! - [`Class::Search`]: a hosted bot's move and one decision of a review.
//!   A room asks one search per turn and a review one decision at a time,
//!   so each room and each review holds at most one place in the queue: a
//!   room with bots that think long cannot starve the others, and neither
//!   can a review of a long game.
//!
//! While both queues wait, a released slot goes to the queue that did not
//! have the last one: hints go first when they are rare, but players who
//! ask a hint at every turn cannot starve the hosted bots (nor bots the
//! hints), each queue having at least every other slot.
//!
//! A slot is released when its [`Slot`] drops: the blocking closure owns it,
//! so a search whose asker went away (a closed room, a hung-up review)
//! still holds its slot until its thread is free again (each search is
//! bounded in time and watches a stop flag).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Which queue a request for a slot joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// A hint: served first, but never twice in a row while searches wait.
    Hint,
    /// A hosted bot's search or a review's decision.
    Search,
}

/// The slots and their queues.
pub(crate) struct Cpu {
    queue: Mutex<Queue>,
    /// Slots held (the `cpu_slots_busy` gauge).
    pub(crate) busy: AtomicI64,
    /// Requests waiting for a slot (the `cpu_slots_waiting` gauge).
    pub(crate) waiting: AtomicI64,
    /// The number of slots.
    pub(crate) slots: usize,
}

struct Queue {
    /// Slots nobody holds. Positive only while both queues are empty: a
    /// released slot goes straight to the next waiter.
    free: usize,
    hints: VecDeque<oneshot::Sender<Slot>>,
    searches: VecDeque<oneshot::Sender<Slot>>,
    /// The queue that had the last slot handed over.
    last: Class,
}

impl Queue {
    /// The queue the next released slot goes to: the one waiting, or, both
    /// waiting, the one that did not have the last slot.
    fn next(&self) -> Option<Class> {
        match (self.hints.is_empty(), self.searches.is_empty()) {
            (true, true) => None,
            (false, true) => Some(Class::Hint),
            (true, false) => Some(Class::Search),
            (false, false) if self.last == Class::Hint => Some(Class::Search),
            (false, false) => Some(Class::Hint),
        }
    }
}

/// One slot, held while it lives.
pub(crate) struct Slot {
    cpu: Option<Arc<Cpu>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(cpu) = self.cpu.take() {
            cpu.release();
        }
    }
}

impl Cpu {
    /// A budget of `slots` slots (at least one).
    pub(crate) fn new(slots: usize) -> Arc<Cpu> {
        let slots = slots.max(1);
        Arc::new(Cpu {
            queue: Mutex::new(Queue {
                free: slots,
                hints: VecDeque::new(),
                searches: VecDeque::new(),
                last: Class::Search,
            }),
            busy: AtomicI64::new(0),
            waiting: AtomicI64::new(0),
            slots,
        })
    }

    /// A slot, once one is free and every request queued before this one in
    /// its class has one (the two classes taking turns while both wait).
    /// Dropping the future leaves the queue.
    pub(crate) async fn acquire(self: &Arc<Self>, class: Class) -> Slot {
        let rx = {
            let mut q = self.queue.lock().expect("cpu queue lock");
            if q.free > 0 {
                q.free -= 1;
                self.busy.fetch_add(1, Ordering::Relaxed);
                return Slot { cpu: Some(self.clone()) };
            }
            let (tx, rx) = oneshot::channel();
            match class {
                Class::Hint => q.hints.push_back(tx),
                Class::Search => q.searches.push_back(tx),
            }
            rx
        };
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let _left = Waiting(self);
        // The sender lives in the queue until a slot is handed over, and
        // `release` never drops a sender without sending: a closed channel
        // would be a bug, not a state to wait in.
        rx.await.expect("a queued request is handed a slot")
    }

    /// Appends the gauges of the slots to a Prometheus text exposition.
    pub(crate) fn render(&self, out: &mut String) {
        use std::fmt::Write;
        let gauges = [
            ("cpu_slots", "Search slots (--max-searches).", self.slots as i64),
            ("cpu_slots_busy", "Search slots held by searches, hints and reviews.", self.busy.load(Ordering::Relaxed)),
            (
                "cpu_slots_waiting",
                "Searches, hints and review decisions waiting for a slot.",
                self.waiting.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, v) in gauges {
            let _ = writeln!(out, "# HELP capicua_{name} {help}\n# TYPE capicua_{name} gauge\ncapicua_{name} {v}");
        }
    }

    /// Hands a released slot to the next live waiter, or frees it.
    fn release(self: &Arc<Self>) {
        let mut q = self.queue.lock().expect("cpu queue lock");
        while let Some(class) = q.next() {
            let tx = match class {
                Class::Hint => q.hints.pop_front(),
                Class::Search => q.searches.pop_front(),
            };
            let Some(tx) = tx else { break };
            match tx.send(Slot { cpu: Some(self.clone()) }) {
                Ok(()) => {
                    q.last = class;
                    return;
                }
                // The waiter left: its slot must not release again (under
                // this lock), so it is disarmed and the next waiter tried.
                Err(mut slot) => slot.cpu = None,
            }
        }
        q.free += 1;
        self.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Counts a request in the waiting gauge until it has its slot or leaves.
struct Waiting<'a>(&'a Cpu);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The future's output if it is ready now.
    async fn ready<F: std::future::Future + Unpin>(f: &mut F) -> Option<F::Output> {
        tokio::time::timeout(Duration::from_millis(1), f).await.ok()
    }

    async fn pending<F: std::future::Future + Unpin>(f: &mut F) -> bool {
        tokio::time::timeout(Duration::from_millis(1), f).await.is_err()
    }

    #[tokio::test(start_paused = true)]
    async fn slots_go_to_hints_first_then_searches_in_order() {
        let cpu = Cpu::new(1);
        let held = cpu.acquire(Class::Search).await;
        assert_eq!(cpu.busy.load(Ordering::Relaxed), 1);
        let mut s1 = Box::pin(cpu.acquire(Class::Search));
        let mut s2 = Box::pin(cpu.acquire(Class::Search));
        assert!(pending(&mut s1).await && pending(&mut s2).await);
        let mut h = Box::pin(cpu.acquire(Class::Hint));
        assert!(pending(&mut h).await);
        assert_eq!(cpu.waiting.load(Ordering::Relaxed), 3);
        drop(held);
        let hint = h.await;
        assert!(pending(&mut s1).await && pending(&mut s2).await, "the hint went first");
        drop(hint);
        let first = s1.await;
        assert!(pending(&mut s2).await, "one slot: the second search waits");
        drop(first);
        let second = s2.await;
        assert_eq!((cpu.busy.load(Ordering::Relaxed), cpu.waiting.load(Ordering::Relaxed)), (1, 0));
        drop(second);
        assert_eq!(cpu.busy.load(Ordering::Relaxed), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn hints_asked_at_every_turn_leave_every_other_slot_to_the_searches() {
        let cpu = Cpu::new(1);
        let mut held = cpu.acquire(Class::Search).await;
        let mut searches: VecDeque<_> = (0..3).map(|_| Box::pin(cpu.acquire(Class::Search))).collect();
        let mut hints: VecDeque<_> = (0..3).map(|_| Box::pin(cpu.acquire(Class::Hint))).collect();
        for s in &mut searches {
            assert!(pending(s).await);
        }
        for h in &mut hints {
            assert!(pending(h).await);
        }
        let mut order = vec![];
        for _ in 0..6 {
            drop(held);
            let hint = match hints.front_mut() {
                Some(h) => ready(h).await,
                None => None,
            };
            held = match hint {
                Some(slot) => {
                    order.push('h');
                    hints.pop_front();
                    slot
                }
                None => {
                    order.push('s');
                    let slot = ready(searches.front_mut().expect("a search waits")).await;
                    searches.pop_front();
                    slot.expect("the slot went to the search")
                }
            };
            // The other queue's first waiter did not get it as well.
            for s in searches.iter_mut().take(1) {
                assert!(pending(s).await);
            }
        }
        assert_eq!(order.iter().collect::<String>(), "hshshs", "the queues take turns, hints first");
        drop(held);
        assert_eq!((cpu.busy.load(Ordering::Relaxed), cpu.waiting.load(Ordering::Relaxed)), (0, 0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_that_leaves_loses_nothing_for_the_others() {
        let cpu = Cpu::new(1);
        let held = cpu.acquire(Class::Search).await;
        let mut gone = Box::pin(cpu.acquire(Class::Search));
        assert!(pending(&mut gone).await);
        let mut next = Box::pin(cpu.acquire(Class::Search));
        assert!(pending(&mut next).await);
        drop(gone);
        drop(held);
        let slot = next.await;
        drop(slot);
        // The slot came back: a fresh request has it at once.
        let again = cpu.acquire(Class::Hint).await;
        assert_eq!((cpu.busy.load(Ordering::Relaxed), cpu.waiting.load(Ordering::Relaxed)), (1, 0));
        drop(again);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_handed_to_a_waiter_that_never_takes_it_comes_back() {
        let cpu = Cpu::new(1);
        let held = cpu.acquire(Class::Search).await;
        let mut late = Box::pin(cpu.acquire(Class::Search));
        assert!(pending(&mut late).await);
        // The slot is sent, then the waiter leaves before reading it.
        drop(held);
        drop(late);
        let slot = tokio::time::timeout(Duration::from_secs(1), cpu.acquire(Class::Search)).await;
        assert!(slot.is_ok(), "the slot was released with the dropped channel");
    }
}
