//! A seat lent for the length of one call: the view a Python strategy is
//! handed reads the seat in place while the strategy chooses, instead of
//! a whole snapshot taken every move.
//!
//! The crate's only unsafe code is here, behind a safe interface: a
//! [`Slot`] holds a [`Lent`] seat only while [`Slot::lend`] runs (a guard
//! takes it out when the call returns or unwinds), and [`Slot::with`]
//! hands it out, to a closure it cannot outlive, on the lending thread
//! alone: the seat need not be `Sync`, and no lock is taken (a Python
//! strategy is called for every move).
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use capicua_engine::Move;
use capicua_strategy::seat_view::SeatView;

/// A seat to move and its legal moves, as lent.
pub struct Lent<'a> {
    /// The seat.
    pub seat: &'a dyn SeatView,
    /// Its legal moves.
    pub legal: &'a [Move],
}

/// Where a seat is lent: empty outside [`Slot::lend`].
#[derive(Debug, Default)]
pub struct Slot {
    /// The lent [`Lent`], its lifetime erased; null when none.
    lent: AtomicPtr<()>,
    /// The lending thread's mark ([`thread_mark`]); 0 when none.
    thread: AtomicUsize,
}

/// This thread's mark: the address of a thread-local, unique among the
/// threads alive (a lending thread is alive while it lends).
fn thread_mark() -> usize {
    thread_local!(static MARK: u8 = const { 0 });
    MARK.with(|m| m as *const u8 as usize)
}

impl Slot {
    /// Runs `f` with `lent` in the slot: [`Slot::with`] reads it on this
    /// thread until `f` returns or unwinds. A lending inside another one
    /// (on the same thread) replaces it for its length.
    ///
    /// # Panics
    ///
    /// When another thread is lending in this slot: a slot is lent from
    /// one thread at a time.
    pub fn lend<R>(&self, lent: &Lent<'_>, f: impl FnOnce() -> R) -> R {
        let me = thread_mark();
        let outer = match self.thread.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => None,
            Err(t) if t == me => Some(self.lent.load(Ordering::Relaxed)),
            Err(_) => panic!("a slot is lent from one thread at a time"),
        };
        // Only this thread writes the slot until the guard below clears it.
        self.lent.store(lent as *const Lent<'_> as *mut (), Ordering::Relaxed);
        /// Puts back what the slot held before, on every path out of `f`.
        struct Restore<'a>(&'a Slot, Option<*mut ()>);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                match self.1 {
                    Some(outer) => self.0.lent.store(outer, Ordering::Relaxed),
                    None => {
                        self.0.lent.store(std::ptr::null_mut(), Ordering::Relaxed);
                        self.0.thread.store(0, Ordering::Release);
                    }
                }
            }
        }
        let _restore = Restore(self, outer);
        f()
    }

    /// Calls `f` with what is lent: `None` outside a lending, and on any
    /// thread but the lender's.
    pub fn with<R>(&self, f: impl FnOnce(Option<&Lent<'_>>) -> R) -> R {
        if self.thread.load(Ordering::Relaxed) != thread_mark() {
            return f(None);
        }
        let lent = self.lent.load(Ordering::Relaxed) as *const Lent<'_>;
        // SAFETY: this thread is lending (its mark is in the slot, and only
        // it writes the slot meanwhile), so the pointer is the `Lent` its
        // `lend` borrows for as long as the mark stays, which is past this
        // call: `f` cannot keep the reference, whose lifetime ends with it.
        f(unsafe { lent.as_ref() })
    }
}

#[cfg(test)]
mod tests {
    use capicua_engine::{Game, MoveList, Rules, Seat, Seating};
    use capicua_strategy::{SeatView, TableSeat};

    use super::{Lent, Slot};

    fn game() -> Game {
        Game::new(Rules::preset("block").unwrap().into(), Seating::new(4), 3).unwrap()
    }

    #[test]
    fn a_seat_is_read_only_while_lent_and_only_on_the_lending_thread() {
        let game = game();
        let seat = TableSeat::new(&game, game.to_move().unwrap());
        let mut legal = MoveList::new();
        seat.legal_moves(&mut legal);
        let slot = Slot::default();
        assert!(slot.with(|l| l.is_none()));
        let read = slot.lend(&Lent { seat: &seat, legal: &legal }, || {
            // Another thread sees nothing lent, and cannot lend here.
            std::thread::scope(|t| {
                t.spawn(|| assert!(slot.with(|l| l.is_none()))).join().unwrap();
                let other = t.spawn(|| slot.lend(&Lent { seat: &seat, legal: &[] }, || ())).join();
                assert!(other.is_err());
            });
            slot.with(|l| l.map(|l| (l.seat.hand(), l.legal.len())))
        });
        assert_eq!(read, Some((seat.hand(), legal.len())));
        assert!(!legal.is_empty());
        assert!(slot.with(|l| l.is_none()));
    }

    #[test]
    fn a_lending_ends_when_its_call_unwinds_and_an_inner_one_restores_the_outer() {
        let game = game();
        let (a, b) = (TableSeat::new(&game, Seat(0)), TableSeat::new(&game, Seat(1)));
        let slot = Slot::default();
        slot.lend(&Lent { seat: &a, legal: &[] }, || {
            let inner = slot.lend(&Lent { seat: &b, legal: &[] }, || slot.with(|l| l.map(|l| l.seat.seat())));
            assert_eq!(inner, Some(Seat(1)));
            assert_eq!(slot.with(|l| l.map(|l| l.seat.seat())), Some(Seat(0)));
        });
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            slot.lend(&Lent { seat: &a, legal: &[] }, || panic!("boom"))
        }));
        assert!(unwound.is_err());
        assert!(slot.with(|l| l.is_none()));
        // Free again for any thread.
        std::thread::scope(|t| t.spawn(|| slot.lend(&Lent { seat: &a, legal: &[] }, || ())).join().unwrap());
    }
}
