//! HTTP API requests, new names and replay pages per address: token
//! buckets of `governor`, keyed by address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};

type Limiter = RateLimiter<IpAddr, HashMapStateStore<IpAddr>, DefaultClock>;

/// Checks between two sweeps of addresses whose buckets are full again.
const SWEEP_EVERY: u64 = 4096;

/// Token buckets per address: the HTTP API's writes (`POST`, `DELETE`)
/// and reads, replay pages, new names and wrong tokens. The WebSocket's
/// frames, `/healthz`, `/metrics` and the browser client's files are not
/// limited here.
pub(crate) struct HttpLimits {
    writes: Option<Limiter>,
    reads: Option<Limiter>,
    /// New names (`register` on the WebSocket, a rated room's new hosted
    /// bot): each costs a database row, and a name is a fresh owner for the
    /// per-player room quota.
    registrations: Option<Limiter>,
    /// Replay pages: each is up to `--replay-page-bytes` to build and send,
    /// far more than another read.
    replay_pages: Option<Limiter>,
    /// Wrong tokens (`hello`, `Authorization`).
    guesses: Option<Limiter>,
    /// Addresses out of guesses, until when: they are refused any token,
    /// the right one too, so guessing on past the limit learns nothing.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
    checks: AtomicU64,
}

/// The rates of [`HttpLimits`], each per minute per address in bursts of
/// up to that many; 0 is no limit.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rates {
    pub(crate) writes: u32,
    pub(crate) reads: u32,
    pub(crate) registrations: u32,
    pub(crate) replay_pages: u32,
    pub(crate) guesses: u32,
}

impl HttpLimits {
    /// Buckets of these rates.
    pub(crate) fn new(rates: Rates) -> HttpLimits {
        let limiter = |n: u32| NonZeroU32::new(n).map(|n| RateLimiter::hashmap(Quota::per_minute(n)));
        HttpLimits {
            writes: limiter(rates.writes),
            reads: limiter(rates.reads),
            registrations: limiter(rates.registrations),
            replay_pages: limiter(rates.replay_pages),
            guesses: limiter(rates.guesses),
            blocked: Mutex::new(HashMap::new()),
            checks: AtomicU64::new(0),
        }
    }

    /// `Ok` if `addr` may make one more request of this kind now, else how
    /// long until it may.
    pub(crate) fn check(&self, addr: IpAddr, write: bool) -> Result<(), Duration> {
        self.check_in(if write { &self.writes } else { &self.reads }, addr)
    }

    /// `Ok` if `addr` may register one more name now, else how long until
    /// it may.
    pub(crate) fn check_registration(&self, addr: IpAddr) -> Result<(), Duration> {
        self.check_in(&self.registrations, addr)
    }

    /// `Ok` if `addr` may be answered one more replay page now, else how
    /// long until it may.
    pub(crate) fn check_replay_page(&self, addr: IpAddr) -> Result<(), Duration> {
        self.check_in(&self.replay_pages, addr)
    }

    /// `Ok` if a token from `addr` may be checked now, else how long until
    /// one may: an address that sent too many wrong ones waits.
    pub(crate) fn may_try_token(&self, addr: IpAddr) -> Result<(), Duration> {
        let mut blocked = self.blocked.lock().expect("blocked addresses lock");
        let now = Instant::now();
        match blocked.get(&addr) {
            Some(until) if *until > now => Err(*until - now),
            Some(_) => {
                blocked.remove(&addr);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Counts a wrong token from `addr`: past the rate, the address may try
    /// no token until its bucket has a guess again.
    pub(crate) fn wrong_token(&self, addr: IpAddr) {
        if let Err(wait) = self.check_in(&self.guesses, addr) {
            let mut blocked = self.blocked.lock().expect("blocked addresses lock");
            blocked.insert(addr, Instant::now() + wait.max(Duration::from_secs(1)));
        }
    }

    fn check_in(&self, limiter: &Option<Limiter>, addr: IpAddr) -> Result<(), Duration> {
        let Some(limiter) = limiter else { return Ok(()) };
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        limiter.check_key(&addr).map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Addresses seen once must not stay in memory forever.
    fn sweep(&self) {
        let all = [&self.writes, &self.reads, &self.registrations, &self.replay_pages, &self.guesses];
        for l in all.into_iter().flatten() {
            l.retain_recent();
            l.shrink_to_fit();
        }
        let now = Instant::now();
        self.blocked.lock().expect("blocked addresses lock").retain(|_, until| *until > now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_have_buckets_of_their_own_per_address() {
        let limits = HttpLimits::new(Rates { writes: 2, reads: 3, ..Rates::default() });
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        assert!(limits.check(a, true).is_ok());
        assert!(limits.check(a, true).is_ok());
        let wait = limits.check(a, true).expect_err("third write in a burst of 2");
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(30), "{wait:?}");
        assert!(limits.check(b, true).is_ok(), "another address");
        for _ in 0..3 {
            assert!(limits.check(a, false).is_ok(), "reads are counted apart");
        }
        assert!(limits.check(a, false).is_err());
        let open = HttpLimits::new(Rates::default());
        assert!((0..1000).all(|_| open.check(a, true).is_ok()));
    }

    #[test]
    fn an_address_out_of_guesses_may_try_no_token_until_it_has_one_again() {
        let limits = HttpLimits::new(Rates { guesses: 3, ..Rates::default() });
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        for _ in 0..3 {
            assert!(limits.may_try_token(a).is_ok());
            limits.wrong_token(a);
        }
        assert!(limits.may_try_token(a).is_ok(), "three wrong guesses are within the rate");
        limits.wrong_token(a);
        let wait = limits.may_try_token(a).expect_err("the fourth wrong guess blocks the address");
        assert!(wait >= Duration::from_secs(1) && wait <= Duration::from_secs(20), "{wait:?}");
        assert!(limits.may_try_token(b).is_ok(), "another address is counted apart");
        let open = HttpLimits::new(Rates::default());
        for _ in 0..100 {
            open.wrong_token(a);
        }
        assert!(open.may_try_token(a).is_ok(), "0 is no limit");
    }
}
