//! When and how loudly a remote bot retries.
//!
//! [`Backoff`] is the wait between two attempts: randomized exponential
//! backoff with full jitter (uniform over `[0, min(cap, base * 2^attempt)]`),
//! so that bots dropped by the same server restart do not all come back in
//! the same instant. [`Outage`] decides what a person sees while the bots of
//! one process retry: one line when the first bot loses the server, one line
//! when the last one is back, nothing per attempt.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The first wait's ceiling.
pub const BASE: Duration = Duration::from_millis(250);
/// The longest wait.
pub const CAP: Duration = Duration::from_secs(30);

/// Capped exponential backoff with full jitter, from its own random stream.
#[derive(Clone, Debug)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    attempt: u32,
    rng: ChaCha8Rng,
}

impl Backoff {
    /// A backoff from [`BASE`] to [`CAP`] drawing its jitter from `seed`.
    pub fn new(seed: u64) -> Backoff {
        Backoff::with_limits(BASE, CAP, seed)
    }

    /// A backoff from [`BASE`] to [`CAP`] seeded by the OS, so that the bots
    /// of different processes do not share a schedule.
    pub fn from_os() -> Backoff {
        // Without OS randomness the clock still tells processes apart.
        let seed = getrandom::u64().unwrap_or_else(|_| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            now.as_nanos() as u64 ^ u64::from(std::process::id())
        });
        Backoff::new(seed)
    }

    /// A backoff with its own first ceiling and cap.
    pub fn with_limits(base: Duration, cap: Duration, seed: u64) -> Backoff {
        Backoff { base, cap, attempt: 0, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The longest wait it may draw for attempt `attempt` (from 0):
    /// `min(cap, base * 2^attempt)`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        // 2^20 times any sensible base is past any sensible cap.
        self.base.saturating_mul(1 << attempt.min(20)).min(self.cap)
    }

    /// The cap.
    pub fn cap(&self) -> Duration {
        self.cap
    }

    /// Failed attempts since the last success.
    pub fn attempts(&self) -> u32 {
        self.attempt
    }

    /// The wait before the next attempt, uniform over `[0, ceiling]`; each
    /// call counts one more failed attempt.
    pub fn next_delay(&mut self) -> Duration {
        let top = self.ceiling(self.attempt).as_micros() as u64;
        self.attempt = self.attempt.saturating_add(1);
        Duration::from_micros(self.rng.next_u64() % (top + 1))
    }

    /// A wait of about `around`: uniform over `[around / 2, 3 * around / 2]`,
    /// so that bots polling at the same pace do not poll in step.
    pub fn jitter(&mut self, around: Duration) -> Duration {
        let half = around.as_micros() as u64 / 2;
        Duration::from_micros(half + self.rng.next_u64() % (2 * half + 1))
    }

    /// An attempt succeeded: the next failure starts from the base again.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

/// The bots of one process that cannot reach the server. What a person
/// hears of it: one line when the first of them fails ([`down_line`]), one
/// when the last of them is back ([`up_line`]), nothing per attempt.
#[derive(Debug, Default)]
pub struct Outage {
    down: Mutex<HashSet<u64>>,
}

impl Outage {
    /// Bot `bot` failed with a transient error. True when it is the first
    /// of the process to fail (tell it), false while the outage is known.
    pub fn failed(&self, bot: u64) -> bool {
        let mut down = self.down.lock().expect("outage lock");
        let first = down.is_empty();
        down.insert(bot);
        first
    }

    /// Bot `bot` is connected. True when it was the last one of the
    /// process still retrying (tell it).
    pub fn recovered(&self, bot: u64) -> bool {
        let mut down = self.down.lock().expect("outage lock");
        down.remove(&bot) && down.is_empty()
    }

    /// Bot `bot` stopped (done, or failed for good) without reconnecting: it
    /// no longer keeps the outage open, and nothing is said for it.
    pub fn gone(&self, bot: u64) {
        self.down.lock().expect("outage lock").remove(&bot);
    }
}

/// The line telling that the bots lost `server` (`connected`: a connection
/// dropped) or cannot reach it, and that they retry.
pub fn down_line(server: &str, cause: &str, connected: bool) -> String {
    let what = if connected { "lost the connection to" } else { "cannot reach" };
    format!("{what} {server}: {cause}; retrying with backoff up to {}", seconds(CAP))
}

/// The line telling that the bots are back.
pub fn up_line(server: &str) -> String {
    format!("reconnected to {server}")
}

/// `30 s`, `1.5 s`: a duration for people.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s} s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_doubles_from_the_base_up_to_the_cap() {
        let b = Backoff::new(1);
        let ceilings: Vec<u64> = (0..10).map(|a| b.ceiling(a).as_millis() as u64).collect();
        assert_eq!(ceilings, [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
        assert_eq!(b.ceiling(u32::MAX), CAP, "no overflow far past the cap");
    }

    #[test]
    fn every_wait_is_within_its_ceiling_and_the_waits_grow() {
        for seed in 0..50 {
            let mut b = Backoff::new(seed);
            for attempt in 0..40 {
                let ceiling = b.ceiling(attempt);
                assert!(b.next_delay() <= ceiling, "seed {seed} attempt {attempt}");
            }
            assert_eq!(b.attempts(), 40);
        }
        // Full jitter: a wait may be short, but on average they grow with
        // the attempt until the cap (the mean of uniform [0, c] is c / 2).
        let mean = |attempt: u32| {
            let total: Duration = (0..400)
                .map(|seed| {
                    let mut b = Backoff::new(seed);
                    (0..attempt).for_each(|_| {
                        b.next_delay();
                    });
                    b.next_delay()
                })
                .sum();
            total / 400
        };
        let (first, fourth, late) = (mean(0), mean(3), mean(12));
        assert!(first < fourth && fourth < late, "{first:?} {fourth:?} {late:?}");
        let near = |d: Duration, c: Duration| d > c.mul_f64(0.4) && d < c.mul_f64(0.6);
        assert!(near(first, BASE), "{first:?}");
        assert!(near(late, CAP), "{late:?}");
    }

    #[test]
    fn the_jitter_spreads_over_the_whole_range_and_a_seed_repeats() {
        let draws: Vec<Duration> = (0..200).map(|seed| Backoff::new(seed).next_delay()).collect();
        assert!(draws.iter().any(|d| *d < BASE / 4), "full jitter reaches near zero");
        assert!(draws.iter().any(|d| *d > BASE * 3 / 4), "and near the ceiling");
        let distinct: HashSet<_> = draws.iter().collect();
        assert!(distinct.len() > 150, "different seeds, different waits");
        let a: Vec<_> = (0..8)
            .map({
                let mut b = Backoff::new(7);
                move |_| b.next_delay()
            })
            .collect();
        let b: Vec<_> = (0..8)
            .map({
                let mut b = Backoff::new(7);
                move |_| b.next_delay()
            })
            .collect();
        assert_eq!(a, b);
        let mut j = Backoff::new(5);
        for _ in 0..100 {
            let d = j.jitter(Duration::from_secs(1));
            assert!(d >= Duration::from_millis(500) && d <= Duration::from_millis(1500), "{d:?}");
        }
    }

    #[test]
    fn a_reset_starts_again_from_the_base() {
        let mut b = Backoff::with_limits(Duration::from_secs(1), Duration::from_secs(8), 3);
        for _ in 0..6 {
            b.next_delay();
        }
        b.reset();
        assert_eq!(b.attempts(), 0);
        assert!(b.next_delay() <= Duration::from_secs(1));
    }

    #[test]
    fn an_outage_is_told_once_when_it_starts_and_once_when_it_ends() {
        let o = Outage::default();
        assert!(o.failed(0), "the first failure is told");
        // Other bots and later attempts of the same outage: silent.
        assert!(!o.failed(1));
        assert!(!o.failed(0));
        assert!(!o.recovered(0), "bot 1 still retries");
        assert!(!o.recovered(0), "a bot that was up says nothing");
        assert!(o.recovered(1), "the last one back is told");
        assert!(o.failed(1), "a new outage is told");
        o.gone(1);
        assert!(!o.recovered(1), "a bot that stopped is not back");
        assert!(o.failed(2), "and leaves no outage open");
        assert_eq!(
            down_line("ws://127.0.0.1:9/ws", "connection refused", false),
            "cannot reach ws://127.0.0.1:9/ws: connection refused; retrying with backoff up to 30 s"
        );
        assert!(down_line("ws://h/ws", "connection closed", true).starts_with("lost the connection to ws://h/ws:"));
        assert_eq!(up_line("ws://h/ws"), "reconnected to ws://h/ws");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
