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

mod conns;
mod http;
mod replays;
mod rooms;
mod slots;
mod stored;

use std::net::{IpAddr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::http::Extensions;

pub(crate) use self::conns::{Admit, ConnCounts, Held, HeldConn, fd_budget};
pub(crate) use self::http::{HttpLimits, Rates};
pub(crate) use self::replays::{ReplayGate, replay_gate};
pub(crate) use self::rooms::{RoomOwner, RoomQuota, RoomSlot, TooManyRooms};
pub(crate) use self::slots::{Slot, Slots};
pub(crate) use self::stored::{StoreBudget, StoreGate};

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

/// The address the per-address limits count for `ip`: an IPv6 address by
/// its first `ipv6_prefix` bits (one subscriber is given a /64, so every
/// address in it is one client), an IPv4-mapped IPv6 address as IPv4.
pub(crate) fn group(ip: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let bits = u32::from(ipv6_prefix.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & mask))
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_subscriber_is_one_address_and_ipv4_stays_itself() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(group(ip("2001:db8:1:2:aaaa::1"), 64), ip("2001:db8:1:2::"));
        assert_eq!(group(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"), 64), ip("2001:db8:1:2::"));
        assert_ne!(group(ip("2001:db8:1:3::1"), 64), ip("2001:db8:1:2::"), "another /64");
        assert_eq!(group(ip("2001:db8:1:2::1"), 48), ip("2001:db8:1::"));
        assert_eq!(group(ip("2001:db8::1"), 128), ip("2001:db8::1"), "every address apart");
        assert_eq!(group(ip("::ffff:192.0.2.7"), 64), ip("192.0.2.7"), "IPv4-mapped is IPv4");
        assert_eq!(group(ip("192.0.2.7"), 64), ip("192.0.2.7"));
    }

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
}
