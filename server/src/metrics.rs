//! Counters exported at `GET /metrics` in the Prometheus text format.

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// With `--features heap-stats`, every allocation is counted, so that
/// `/metrics` can tell the heap the server uses from the memory its
/// allocator holds (RSS): a growing RSS over a flat live heap is the
/// allocator's, not a leak. Off by default: the counters are shared atomics
/// on every allocation.
#[cfg(feature = "heap-stats")]
#[global_allocator]
static HEAP: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Server counters: relaxed atomics, bumped on hot paths without locks.
#[derive(Default)]
pub(crate) struct Metrics {
    /// Open WebSocket connections.
    pub(crate) connections: AtomicI64,
    /// Connections accepted since start.
    pub(crate) connections_total: AtomicU64,
    /// Connections refused at the cap.
    pub(crate) connections_refused: AtomicU64,
    /// Frames received.
    pub(crate) frames_in: AtomicU64,
    /// Errors sent to clients.
    pub(crate) errors: AtomicU64,
    /// Moves applied by referees.
    pub(crate) moves: AtomicU64,
    /// Matches finished and stored.
    pub(crate) games_finished: AtomicU64,
    /// Matches whose storing failed.
    pub(crate) games_store_failed: AtomicU64,
    /// Open rooms.
    pub(crate) rooms: AtomicI64,
    /// Timeouts applied.
    pub(crate) timeouts: AtomicU64,
    /// Hosted-bot searches running on the blocking pool.
    pub(crate) searches: AtomicI64,
    /// Reviews computed (not served from memory or the database).
    pub(crate) reviews_computed: AtomicU64,
    /// Reviews being computed.
    pub(crate) reviews_running: AtomicI64,
}

impl Metrics {
    /// Adds one.
    pub(crate) fn inc(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |name: &str, kind: &str, help: &str, v: i64| {
            let _ = writeln!(out, "# HELP capicua_{name} {help}\n# TYPE capicua_{name} {kind}\ncapicua_{name} {v}");
        };
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed) as i64;
        line("connections", "gauge", "Open WebSocket connections.", self.connections.load(Ordering::Relaxed));
        line("connections_total", "counter", "WebSocket connections accepted.", g(&self.connections_total));
        line("connections_refused_total", "counter", "Connections refused at the cap.", g(&self.connections_refused));
        line("frames_received_total", "counter", "Client frames received.", g(&self.frames_in));
        line("errors_total", "counter", "Error messages sent to clients.", g(&self.errors));
        line("moves_total", "counter", "Moves applied by referees.", g(&self.moves));
        line("games_finished_total", "counter", "Matches finished and stored.", g(&self.games_finished));
        line("games_store_failed_total", "counter", "Matches that could not be stored.", g(&self.games_store_failed));
        line("rooms", "gauge", "Open rooms.", self.rooms.load(Ordering::Relaxed));
        line("timeouts_total", "counter", "Moves decided by a timeout policy.", g(&self.timeouts));
        line("searches", "gauge", "Hosted-bot searches running.", self.searches.load(Ordering::Relaxed));
        line("reviews_running", "gauge", "Reviews being computed.", self.reviews_running.load(Ordering::Relaxed));
        line(
            "reviews_computed_total",
            "counter",
            "Reviews computed rather than served stored.",
            g(&self.reviews_computed),
        );
        #[cfg(feature = "heap-stats")]
        {
            let s = HEAP.stats();
            // A realloc already moves `bytes_allocated` or `bytes_deallocated` by
            // its difference (`bytes_reallocated` repeats it).
            let live = s.bytes_allocated as i64 - s.bytes_deallocated as i64;
            line("heap_live_bytes", "gauge", "Heap bytes allocated and not yet freed.", live);
            line(
                "heap_live_blocks",
                "gauge",
                "Heap blocks allocated and not yet freed.",
                s.allocations as i64 - s.deallocations as i64,
            );
        }
        out
    }
}

#[cfg(all(test, feature = "heap-stats"))]
mod tests {
    use super::*;

    fn live(text: &str) -> i64 {
        let line = text.lines().find(|l| l.starts_with("capicua_heap_live_bytes ")).expect("heap gauge");
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    #[test]
    fn the_live_heap_follows_allocations_reallocations_and_frees() {
        let m = Metrics::default();
        let before = live(&m.render());
        let mut block = vec![7u8; 1 << 20];
        // Grown in place or moved: a realloc either way.
        block.reserve_exact(63 << 20);
        block.resize(64 << 20, 7);
        let during = live(&m.render());
        drop(block);
        let after = live(&m.render());
        // Other test threads allocate too, but not megabytes at once.
        let mib = |b: i64| b >> 20;
        assert_eq!(mib(during - before), 64, "{before} -> {during}");
        assert!(mib(after - before).abs() <= 1, "{before} -> {during} -> {after}");
    }
}
