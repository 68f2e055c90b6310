//! Limits on what one client may take from the server: open TCP
//! connections per address and in all (the accept loop's caps, with their
//! reserve), open rooms per owner (a registered player, or a guest's
//! address), HTTP API requests per address, and replay answers in flight
//! per address.
//!
//! The WebSocket has its own per-connection rate limit (in `conn`); these
//! limits are per address, because an address can open as many connections
//! (or send as many HTTP requests) as it likes. An address is the TCP
//! peer's, unless that peer is a reverse proxy the operator trusts
//! (`--trusted-proxy`): then it is the client address the proxy reports in
//! `X-Forwarded-For`. On a Unix socket there is none, so no per-address
//! limit applies there.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::connect_info::ConnectInfo;
use axum::http::Extensions;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};

/// The client address of a request, as the `client_addr` middleware found it; `None` on
/// a Unix socket.
pub(crate) fn peer_of(extensions: &Extensions) -> Option<IpAddr> {
    match extensions.get::<ClientAddr>() {
        Some(ClientAddr(addr)) => Some(*addr),
        None => extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()),
    }
}

/// The address a request counts against, put in its extensions by
/// the `client_addr` middleware.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientAddr(pub(crate) IpAddr);

/// The client behind a chain of proxies: the TCP peer, unless it is a
/// trusted proxy; then the `X-Forwarded-For` entries read from the right
/// (the nearest proxy appends last), skipping trusted proxies, up to the
/// first address that is not one. A header a client forged is on the left of
/// what our proxy appended, so it is never reached; an entry that is not an
/// address stops the walk at the last trusted hop. `forwarded_for` gives the
/// header's lines last first.
pub(crate) fn forwarded_client<'a>(
    peer: IpAddr,
    trusted: &[IpAddr],
    forwarded_for: impl Iterator<Item = &'a str>,
) -> IpAddr {
    let mut client = peer;
    if !trusted.contains(&peer) {
        return client;
    }
    for entry in forwarded_for.flat_map(|h| h.rsplit(',')).map(str::trim) {
        let Ok(addr) = entry.parse::<IpAddr>() else { break };
        client = addr;
        if !trusted.contains(&addr) {
            break;
        }
    }
    client
}

// --- rooms per owner ----------------------------------------------------------

/// Who a room counts against: the registered player who created it, or the
/// address of the guest who did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RoomOwner {
    /// A registered player.
    Player(i64),
    /// A guest, by address.
    Addr(IpAddr),
}

impl RoomOwner {
    /// The owner a creator counts as: `None` (no limit) for the admin, and
    /// for a guest whose address is unknown (a Unix socket).
    pub(crate) fn of(player_id: Option<i64>, admin: bool, addr: Option<IpAddr>) -> Option<RoomOwner> {
        match (admin, player_id, addr) {
            (true, _, _) => None,
            (false, Some(p), _) => Some(RoomOwner::Player(p)),
            (false, None, Some(a)) => Some(RoomOwner::Addr(a)),
            (false, None, None) => None,
        }
    }
}

/// Open rooms per owner, at most `max` each (0: no limit).
#[derive(Debug)]
pub(crate) struct RoomQuota {
    max: usize,
    open: Mutex<HashMap<RoomOwner, usize>>,
}

/// The owner holds `max` open rooms already.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TooManyRooms(pub(crate) usize);

impl RoomQuota {
    /// A quota of `max` open rooms per owner; 0 is no limit.
    pub(crate) fn new(max: usize) -> Arc<RoomQuota> {
        Arc::new(RoomQuota { max, open: Mutex::new(HashMap::new()) })
    }

    /// Takes one of the owner's slots: the room holds it while it is open.
    pub(crate) fn take(self: &Arc<Self>, owner: RoomOwner) -> Result<RoomSlot, TooManyRooms> {
        if self.max > 0 {
            let mut open = self.open.lock().expect("room quota lock");
            let n = open.entry(owner).or_insert(0);
            if *n >= self.max {
                return Err(TooManyRooms(self.max));
            }
            *n += 1;
        }
        Ok(RoomSlot { quota: self.clone(), owner })
    }

    /// The rooms an owner holds open (for tests and metrics).
    #[cfg(test)]
    pub(crate) fn held(&self, owner: RoomOwner) -> usize {
        self.open.lock().expect("room quota lock").get(&owner).copied().unwrap_or(0)
    }
}

/// One open room of an owner: dropping it (the room closed, or its
/// creation failed) frees the slot.
#[derive(Debug)]
pub(crate) struct RoomSlot {
    quota: Arc<RoomQuota>,
    owner: RoomOwner,
}

impl Drop for RoomSlot {
    fn drop(&mut self) {
        if self.quota.max == 0 {
            return;
        }
        let mut open = self.quota.open.lock().expect("room quota lock");
        if let Some(n) = open.get_mut(&self.owner) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.owner);
            }
        }
    }
}

// --- HTTP requests per address ------------------------------------------------

type Limiter = RateLimiter<IpAddr, HashMapStateStore<IpAddr>, DefaultClock>;

/// Checks between two sweeps of addresses whose buckets are full again.
const SWEEP_EVERY: u64 = 4096;

/// Token buckets per address for the HTTP API: one for writes (`POST`,
/// `DELETE`), one for reads. The WebSocket, `/healthz`, `/metrics` and the
/// browser client's files are not limited here.
pub(crate) struct HttpLimits {
    writes: Option<Limiter>,
    reads: Option<Limiter>,
    /// New names (`register` on the WebSocket): each costs a database row
    /// and is a fresh owner for the per-player room quota.
    registrations: Option<Limiter>,
    checks: AtomicU64,
}

impl HttpLimits {
    /// Writes, reads and registrations per minute per address, each in
    /// bursts of up to that many; 0 is no limit.
    pub(crate) fn new(writes_per_min: u32, reads_per_min: u32, registrations_per_min: u32) -> HttpLimits {
        let limiter = |n: u32| NonZeroU32::new(n).map(|n| RateLimiter::hashmap(Quota::per_minute(n)));
        HttpLimits {
            writes: limiter(writes_per_min),
            reads: limiter(reads_per_min),
            registrations: limiter(registrations_per_min),
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

    fn check_in(&self, limiter: &Option<Limiter>, addr: IpAddr) -> Result<(), Duration> {
        let Some(limiter) = limiter else { return Ok(()) };
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            // Addresses seen once must not stay in memory forever.
            for l in [&self.writes, &self.reads, &self.registrations].into_iter().flatten() {
                l.retain_recent();
                l.shrink_to_fit();
            }
        }
        limiter.check_key(&addr).map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

// --- connections per address and in all ------------------------------------

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

// --- replay answers per address ---------------------------------------------

/// Replay requests being answered, per address.
pub(crate) struct ReplayGate {
    max: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

/// One replay request being answered: dropping it (its answer was sent, or
/// refused, or the client left) frees the slot.
pub(crate) struct ReplayPermit {
    gate: Arc<ReplayGate>,
    addr: IpAddr,
}

impl ReplayGate {
    /// At most `max` requests of one address at once; 0 is no limit.
    pub(crate) fn new(max: usize) -> Arc<ReplayGate> {
        Arc::new(ReplayGate { max, held: Mutex::new(HashMap::new()) })
    }

    /// A slot for `addr`, or `None` when it holds `max` already.
    pub(crate) fn take(self: &Arc<Self>, addr: IpAddr) -> Option<ReplayPermit> {
        if self.max > 0 {
            let mut held = self.held.lock().expect("replay gate lock");
            let n = held.entry(addr).or_insert(0);
            if *n >= self.max {
                return None;
            }
            *n += 1;
        }
        Some(ReplayPermit { gate: self.clone(), addr })
    }

    /// Requests of `addr` being answered.
    #[cfg(test)]
    pub(crate) fn held(&self, addr: IpAddr) -> usize {
        self.held.lock().expect("replay gate lock").get(&addr).copied().unwrap_or(0)
    }
}

impl Drop for ReplayPermit {
    fn drop(&mut self) {
        if self.gate.max == 0 {
            return;
        }
        let mut held = self.gate.held.lock().expect("replay gate lock");
        if let Some(n) = held.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.addr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trusted_proxy_forwards_its_clients_address_and_nobody_else_does() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let proxy = ip("127.0.0.1");
        let trusted = [proxy, ip("10.0.0.2")];
        let xff = |h: &'static [&'static str]| h.iter().rev().copied();
        // Not a trusted peer: its header is ignored.
        assert_eq!(forwarded_client(ip("192.0.2.9"), &trusted, xff(&["203.0.113.5"])), ip("192.0.2.9"));
        // Through our proxy: the address it appended.
        assert_eq!(forwarded_client(proxy, &trusted, xff(&["203.0.113.5"])), ip("203.0.113.5"));
        // A client forging the header gets the proxy's appended entry, not its own.
        assert_eq!(forwarded_client(proxy, &trusted, xff(&["1.2.3.4, 203.0.113.5"])), ip("203.0.113.5"));
        // Two trusted hops (several header lines count as one list).
        assert_eq!(forwarded_client(proxy, &trusted, xff(&["1.2.3.4", "203.0.113.5, 10.0.0.2"])), ip("203.0.113.5"));
        // No header, or garbage: the nearest hop known.
        assert_eq!(forwarded_client(proxy, &trusted, xff(&[])), proxy);
        assert_eq!(forwarded_client(proxy, &trusted, xff(&["203.0.113.5, nonsense"])), proxy);
        assert_eq!(forwarded_client(proxy, &trusted, xff(&["2001:db8::7"])), ip("2001:db8::7"));
    }

    #[test]
    fn a_closed_room_frees_its_owners_slot() {
        let quota = RoomQuota::new(2);
        let ana = RoomOwner::Player(1);
        let a = quota.take(ana).expect("first");
        let _b = quota.take(ana).expect("second");
        assert_eq!(quota.take(ana).unwrap_err(), TooManyRooms(2));
        // Another owner is counted apart.
        let _c = quota.take(RoomOwner::Addr(IpAddr::from([10, 0, 0, 1]))).expect("another owner");
        drop(a);
        assert_eq!(quota.held(ana), 1);
        let _d = quota.take(ana).expect("a slot was freed");
    }

    #[test]
    fn zero_is_no_limit() {
        let quota = RoomQuota::new(0);
        let slots: Vec<_> = (0..100).map(|_| quota.take(RoomOwner::Player(1)).expect("no limit")).collect();
        drop(slots);
    }

    #[test]
    fn the_admin_and_unknown_addresses_own_nothing() {
        let ip = IpAddr::from([127, 0, 0, 1]);
        assert_eq!(RoomOwner::of(Some(3), true, Some(ip)), None);
        assert_eq!(RoomOwner::of(Some(3), false, Some(ip)), Some(RoomOwner::Player(3)));
        assert_eq!(RoomOwner::of(None, false, Some(ip)), Some(RoomOwner::Addr(ip)));
        assert_eq!(RoomOwner::of(None, false, None), None);
    }

    #[test]
    fn writes_and_reads_have_buckets_of_their_own_per_address() {
        let limits = HttpLimits::new(2, 3, 0);
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
        let open = HttpLimits::new(0, 0, 0);
        assert!((0..1000).all(|_| open.check(a, true).is_ok()));
    }

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

    #[test]
    fn an_address_holds_at_most_its_replays_and_a_finished_one_frees_its_slot() {
        let gate = ReplayGate::new(2);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let first = gate.take(a).expect("first");
        let _second = gate.take(a).expect("second");
        assert!(gate.take(a).is_none(), "a third at once");
        let _other = gate.take(b).expect("another address is counted apart");
        drop(first);
        assert_eq!(gate.held(a), 1);
        assert!(gate.take(a).is_some(), "a slot was freed");
        let open = ReplayGate::new(0);
        let all: Vec<_> = (0..100).map(|_| open.take(a).expect("no limit")).collect();
        drop(all);
    }
}
