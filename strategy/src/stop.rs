//! Telling a search to stop early.
//!
//! A search (`pimc`, `ismcts`) runs synchronously on a thread of its own and
//! cannot be aborted from outside. A host that no longer needs its answer
//! (the room closed, the server is shutting down) raises the search's
//! [`StopFlag`]; the search checks it between samples and returns the best
//! move it has so far (or its fallback's), so the thread is free within one
//! sample's time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A shared flag that stops the searches watching it.
///
/// ```
/// use capicua_strategy::{StopFlag, build};
///
/// let stop = StopFlag::new();
/// let mut bot = build("pimc:samples=100000", 1).unwrap();
/// bot.watch(&stop);
/// stop.stop();
/// assert!(stop.is_stopped());
/// ```
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag not yet raised.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Raises the flag: every search watching it stops at its next check.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag was raised.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Whether an optional flag was raised (no flag: never).
pub(crate) fn raised(flag: &Option<StopFlag>) -> bool {
    flag.as_ref().is_some_and(StopFlag::is_stopped)
}
