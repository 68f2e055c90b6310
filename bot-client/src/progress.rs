//! The arena's progress bar: games done, games per second and an ETA.
//!
//! The arena counts finished games in an `AtomicU64`; [`watch`] runs the
//! arena on its own thread and copies that count into an `indicatif` bar
//! ten times a second. The bar is drawn on stderr only when stderr is a
//! terminal ([`stderr_bar`]): piped into a file or another program, the
//! arena writes nothing but its report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How often the bar copies the arena's count and redraws.
const POLL: Duration = Duration::from_millis(100);

/// A bar of `total` games drawn on `target`: `[bar] done/total N games/s ETA t`.
///
/// ```
/// use indicatif::ProgressDrawTarget;
/// let bar = capicua_bot::progress::arena_bar(1000, ProgressDrawTarget::hidden());
/// bar.set_position(10);
/// assert_eq!(bar.position(), 10);
/// ```
pub fn arena_bar(total: u64, target: ProgressDrawTarget) -> ProgressBar {
    let style = ProgressStyle::with_template("[{elapsed_precise}] [{bar:40}] {pos}/{len} {rate} ETA {eta}")
        .expect("the template is a constant")
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            // Whole games: indicatif's `{per_sec}` prints four decimals.
            let _ = write!(w, "{:.0} games/s", s.per_sec());
        })
        .progress_chars("=> ");
    ProgressBar::with_draw_target(Some(total), target).with_style(style)
}

/// The bar for the `arena` command: on stderr when it is a terminal, hidden
/// (drawing nothing, costing nothing) otherwise.
pub fn stderr_bar(total: u64) -> ProgressBar {
    // indicatif's stderr target also hides itself off a terminal; asking
    // here keeps "nothing on a pipe" independent of that default.
    let target = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    arena_bar(total, target)
}

/// Runs `work` on a scoped thread while `bar` follows `done` (games
/// finished), then clears the bar and returns what `work` returned.
pub fn watch<T: Send>(bar: &ProgressBar, done: &AtomicU64, work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let watcher = std::thread::current();
        let run = scope.spawn(move || {
            let result = work();
            watcher.unpark();
            result
        });
        while !run.is_finished() {
            bar.set_position(done.load(Ordering::Relaxed));
            // Parked rather than slept: the worker unparks us when it ends,
            // so a short run is not held up by a poll interval.
            std::thread::park_timeout(POLL);
        }
        bar.finish_and_clear();
        match run.join() {
            Ok(v) => v,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
