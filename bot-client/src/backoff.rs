//! When and how loudly a remote bot retries.
//!
//! [`Backoff`] is the wait between two attempts: randomized exponential
//! backoff with full jitter (uniform over `[0, min(cap, base * 2^attempt)]`),
//! so that bots dropped by the same server restart do not all come back in
//! the same instant. [`Outage`] decides what a person sees while the bots of
//! one process retry: one line when the first bot loses the server, one per
//! new cause, one line when the last one is back, nothing per attempt.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
        Backoff::from_os_with_limits(BASE, CAP)
    }

    /// A backoff with its own first ceiling and cap, seeded by the OS.
    pub fn from_os_with_limits(base: Duration, cap: Duration) -> Backoff {
        // Without OS randomness the clock still tells processes apart.
        let seed = getrandom::u64().unwrap_or_else(|_| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            now.as_nanos() as u64 ^ u64::from(std::process::id())
        });
        Backoff::with_limits(base, cap, seed)
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
/// more when a failure has a cause not yet told in this outage
/// ([`still_line`]: the server went from dropping connections to refusing
/// them), one when the last of them is back ([`up_line`]); nothing per
/// attempt.
#[derive(Debug, Default)]
pub struct Outage {
    state: Mutex<OutageState>,
}

/// One outage, from the first failure of a bot of the process until every
/// failing bot is back or gone.
#[derive(Debug, Default)]
struct OutageState {
    /// The bots failing now.
    down: HashSet<u64>,
    /// Every bot that failed in this outage.
    hit: HashSet<u64>,
    /// When the first of them failed.
    since: Option<Instant>,
    /// Failed attempts of all of them.
    attempts: u32,
    /// The causes already told.
    told: HashSet<String>,
    /// Whether the outage began with a connection lost (rather than one
    /// never made).
    lost: bool,
}

/// What to tell of a failed attempt ([`Outage::failed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// The outage starts: [`down_line`].
    Start,
    /// A cause this outage has not told yet: [`still_line`].
    NewCause,
    /// Nothing new.
    Quiet,
}

/// What a bot being connected again means ([`Outage::recovered`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recovery {
    /// The bot was not failing.
    Up,
    /// The bot is back, others still fail.
    Back,
    /// The bot is the last one back: the outage is over ([`up_line`]).
    Over(OutageEnd),
}

/// An outage that is over, for [`up_line`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutageEnd {
    /// From the first failure to the last bot back.
    pub after: Duration,
    /// Failed attempts, all bots together.
    pub attempts: u32,
    /// Bots that failed.
    pub bots: usize,
    /// Whether it began with a connection lost (then the bots reconnected;
    /// else they connected for the first time).
    pub lost: bool,
}

impl Outage {
    /// Bot `bot` failed an attempt with a transient error, for `cause`
    /// ([`crate::remote::RemoteError::cause`]); `connected`: it had a
    /// connection and lost it. Says what to tell.
    pub fn failed(&self, bot: u64, cause: &str, connected: bool, now: Instant) -> Told {
        let mut s = self.state.lock().expect("outage lock");
        let start = s.down.is_empty();
        if start {
            *s = OutageState { since: Some(now), lost: connected, ..OutageState::default() };
        }
        s.down.insert(bot);
        s.hit.insert(bot);
        s.attempts = s.attempts.saturating_add(1);
        let new_cause = s.told.insert(cause.to_string());
        match (start, new_cause) {
            (true, _) => Told::Start,
            (false, true) => Told::NewCause,
            (false, false) => Told::Quiet,
        }
    }

    /// Bot `bot` is connected.
    pub fn recovered(&self, bot: u64, now: Instant) -> Recovery {
        let mut s = self.state.lock().expect("outage lock");
        if !s.down.remove(&bot) {
            return Recovery::Up;
        }
        if !s.down.is_empty() {
            return Recovery::Back;
        }
        let since = s.since.unwrap_or(now);
        Recovery::Over(OutageEnd {
            after: now.saturating_duration_since(since),
            attempts: s.attempts,
            bots: s.hit.len(),
            lost: s.lost,
        })
    }

    /// Bot `bot` stopped (done, or failed for good) without reconnecting: it
    /// no longer keeps the outage open, and nothing is said for it.
    pub fn gone(&self, bot: u64) {
        self.state.lock().expect("outage lock").down.remove(&bot);
    }
}

/// The line telling that the bots lost `server` (`connected`: a connection
/// dropped) or cannot reach it, and that they retry.
pub fn down_line(server: &str, cause: &str, connected: bool) -> String {
    let what = if connected { "lost the connection to" } else { "cannot reach" };
    format!("{what} {server}: {cause}; retrying with backoff up to {}", seconds(CAP))
}

/// The line telling a new cause during an outage already told.
pub fn still_line(server: &str, cause: &str) -> String {
    format!("still cannot reach {server}: {cause}")
}

/// The line telling that the bots are back, how long it took and how many
/// attempts failed meanwhile.
pub fn up_line(server: &str, end: &OutageEnd) -> String {
    let what = if end.lost { "reconnected to" } else { "connected to" };
    let plural = if end.attempts == 1 { "" } else { "s" };
    let bots = if end.bots > 1 { format!(" by {} bots", end.bots) } else { String::new() };
    format!("{what} {server} after {:.1} s ({} failed attempt{plural}{bots})", end.after.as_secs_f64(), end.attempts)
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
    fn an_outage_is_told_once_when_it_starts_once_per_new_cause_and_once_when_it_ends() {
        let o = Outage::default();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(o.failed(0, "connection closed", true, at(0)), Told::Start, "the first failure is told");
        // Other bots and later attempts of the same outage: silent, unless
        // the cause is new.
        assert_eq!(o.failed(1, "connection closed", true, at(10)), Told::Quiet);
        assert_eq!(o.failed(0, "connection refused", false, at(300)), Told::NewCause);
        assert_eq!(o.failed(1, "connection refused", false, at(400)), Told::Quiet);
        assert_eq!(o.failed(0, "connection refused", false, at(900)), Told::Quiet);
        assert_eq!(o.recovered(0, at(2000)), Recovery::Back, "bot 1 still retries");
        assert_eq!(o.recovered(0, at(2000)), Recovery::Up, "a bot that was up says nothing");
        let end = OutageEnd { after: Duration::from_millis(3100), attempts: 5, bots: 2, lost: true };
        assert_eq!(o.recovered(1, at(3100)), Recovery::Over(end), "the last one back is told");
        assert_eq!(o.failed(1, "connection refused", false, at(5000)), Told::Start, "a new outage is told");
        assert_eq!(o.failed(1, "connection refused", false, at(5200)), Told::Quiet);
        o.gone(1);
        assert_eq!(o.recovered(1, at(6000)), Recovery::Up, "a bot that stopped is not back");
        assert_eq!(o.failed(2, "connection refused", false, at(7000)), Told::Start, "and leaves no outage open");
        let end = OutageEnd { after: Duration::from_millis(250), attempts: 1, bots: 1, lost: false };
        assert_eq!(o.recovered(2, at(7250)), Recovery::Over(end), "counted from its own start");
    }

    #[test]
    fn the_outage_lines_name_the_server_the_cause_and_the_attempts() {
        assert_eq!(
            down_line("ws://127.0.0.1:9/ws", "connection refused", false),
            "cannot reach ws://127.0.0.1:9/ws: connection refused; retrying with backoff up to 30 s"
        );
        assert!(down_line("ws://h/ws", "connection closed", true).starts_with("lost the connection to ws://h/ws:"));
        assert_eq!(still_line("ws://h/ws", "connection refused"), "still cannot reach ws://h/ws: connection refused");
        let end = OutageEnd { after: Duration::from_millis(3140), attempts: 6, bots: 1, lost: true };
        assert_eq!(up_line("ws://h/ws", &end), "reconnected to ws://h/ws after 3.1 s (6 failed attempts)");
        let first = OutageEnd { after: Duration::from_millis(500), attempts: 1, bots: 1, lost: false };
        assert_eq!(up_line("ws://h/ws", &first), "connected to ws://h/ws after 0.5 s (1 failed attempt)");
        let many = OutageEnd { after: Duration::from_secs(12), attempts: 20, bots: 4, lost: true };
        assert_eq!(up_line("ws://h/ws", &many), "reconnected to ws://h/ws after 12.0 s (20 failed attempts by 4 bots)");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
