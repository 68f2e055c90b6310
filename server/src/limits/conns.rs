//! Open TCP connections per address and in all: the accept loop's caps,
//! with their reserve.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Connections the reserve takes past the caps, server-wide.
pub(crate) const RESERVE: usize = 16;
/// Descriptors kept out of the connection budget: the database (and its
/// journal), log files, the listener, the blocking pool's files, the
/// reserve.
const FD_MARGIN: usize = 128 + RESERVE;

/// How many connections this process can hold at once: its descriptor
/// limit (`RLIMIT_NOFILE`, raised to the hard limit if it can be) less
/// [`FD_MARGIN`]; `None` where the limit cannot be read.
pub(crate) fn fd_budget() -> Option<usize> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let mut lim = getrlimit(Resource::Nofile);
        if let (Some(cur), Some(max)) = (lim.current, lim.maximum)
            && cur < max
        {
            let raised = rustix::process::Rlimit { current: Some(max), maximum: Some(max) };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                lim = raised;
            }
        }
        // `None` is no limit.
        let cur = lim.current.map_or(usize::MAX, |c| usize::try_from(c).unwrap_or(usize::MAX));
        Some(cur.saturating_sub(FD_MARGIN).max(1))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Whether a new connection is served in full, from the reserve, or not.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Within the caps.
    Full(Held),
    /// Past a cap: `/healthz`, `/metrics` and the admin only.
    Reserve(Held),
    /// Past a cap with the reserve full: closed at once.
    Refused,
}

/// Open connections per address and in all; what a connection holds is
/// given back when its [`Held`] drops.
#[derive(Debug)]
pub(crate) struct ConnCounts {
    per_addr: usize,
    total: usize,
    inner: Mutex<Counts>,
    reserve: AtomicUsize,
}

#[derive(Debug, Default)]
struct Counts {
    by_addr: HashMap<IpAddr, usize>,
    total: usize,
}

/// A request's connection's place in the counts, in its extensions: a
/// WebSocket keeps it for as long as the socket is open.
#[derive(Clone, Debug)]
pub(crate) struct HeldConn(#[allow(dead_code, reason = "held for its drop, never read")] pub(crate) Arc<Held>);

/// One connection's place in the counts.
#[derive(Debug)]
pub(crate) struct Held {
    counts: Arc<ConnCounts>,
    /// `None`: a trusted proxy's connection, not counted by address.
    addr: Option<IpAddr>,
    reserve: bool,
}

impl PartialEq for Held {
    fn eq(&self, other: &Held) -> bool {
        self.addr == other.addr && self.reserve == other.reserve
    }
}
impl Eq for Held {}

impl ConnCounts {
    /// At most `per_addr` connections from one address (0: no limit) and
    /// `total` in all.
    pub(crate) fn new(per_addr: usize, total: usize) -> Arc<ConnCounts> {
        Arc::new(ConnCounts { per_addr, total, inner: Mutex::default(), reserve: AtomicUsize::new(0) })
    }

    /// Counts a connection from `addr` (`None`: not counted by address).
    pub(crate) fn admit(self: &Arc<Self>, addr: Option<IpAddr>) -> Admit {
        let mut c = self.inner.lock().expect("connection counts lock");
        let mine = addr.map_or(0, |a| c.by_addr.get(&a).copied().unwrap_or(0));
        let over_addr = addr.is_some() && self.per_addr > 0 && mine >= self.per_addr;
        if !over_addr && c.total < self.total {
            c.total += 1;
            if let Some(a) = addr {
                *c.by_addr.entry(a).or_default() += 1;
            }
            return Admit::Full(Held { counts: self.clone(), addr, reserve: false });
        }
        drop(c);
        let taken = self.reserve.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| (r < RESERVE).then_some(r + 1));
        match taken {
            Ok(_) => Admit::Reserve(Held { counts: self.clone(), addr: None, reserve: true }),
            Err(_) => Admit::Refused,
        }
    }

    /// Connections open in all (the reserve's not included).
    #[cfg(test)]
    pub(crate) fn total(&self) -> usize {
        self.inner.lock().expect("connection counts lock").total
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.reserve {
            self.counts.reserve.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let mut c = self.counts.inner.lock().expect("connection counts lock");
        c.total -= 1;
        if let Some(a) = self.addr
            && let Some(n) = c.by_addr.get_mut(&a)
        {
            *n -= 1;
            if *n == 0 {
                // An address gone must not stay in memory.
                c.by_addr.remove(&a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_at_its_cap_goes_to_the_reserve_then_is_refused() {
        let counts = ConnCounts::new(2, 100);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let held: Vec<Admit> = (0..2).map(|_| counts.admit(Some(a))).collect();
        assert!(held.iter().all(|h| matches!(h, Admit::Full(_))));
        // Another address is not affected.
        assert!(matches!(counts.admit(Some(b)), Admit::Full(_)));
        let reserve: Vec<Admit> = (0..RESERVE).map(|_| counts.admit(Some(a))).collect();
        assert!(reserve.iter().all(|h| matches!(h, Admit::Reserve(_))));
        assert_eq!(counts.admit(Some(a)), Admit::Refused);
        drop(reserve);
        assert!(matches!(counts.admit(Some(a)), Admit::Reserve(_)));
        drop(held);
        assert!(matches!(counts.admit(Some(a)), Admit::Full(_)));
    }

    #[test]
    fn the_total_cap_holds_across_addresses_and_uncounted_peers() {
        let counts = ConnCounts::new(0, 3);
        let held: Vec<Admit> = (0..3).map(|i| counts.admit(Some(IpAddr::from([10, 0, 0, i])))).collect();
        assert!(held.iter().all(|h| matches!(h, Admit::Full(_))));
        assert!(matches!(counts.admit(None), Admit::Reserve(_)));
        assert_eq!(counts.total(), 3);
        drop(held);
        assert_eq!(counts.total(), 0);
        assert!(counts.inner.lock().unwrap().by_addr.is_empty(), "addresses gone are forgotten");
    }
}
