//! Limits on what one client may take from the server: open rooms per
//! owner (a registered player, or a guest's address) and HTTP API requests
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
use std::sync::atomic::{AtomicU64, Ordering};
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
}
