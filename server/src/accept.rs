//! The TCP accept loop: HTTP/1 connections (and the WebSockets they
//! upgrade to) with the limits an anonymous client must not escape.
//!
//! `axum::serve` takes every connection and never times one out, so a
//! silent socket or headers sent a byte at a time (slowloris) hold a
//! descriptor for as long as the client likes, and about 20,000 of them
//! leave none for `/healthz`. Here:
//! - a connection has [`Config::header_timeout`] to send a request's
//!   headers, and so has an idle keep-alive connection to start its next
//!   request (hyper's header read timer);
//! - one address holds at most [`Config::max_connections_per_addr`]
//!   connections (a trusted proxy's are not counted here: the WebSocket
//!   counts its clients by their forwarded address);
//! - the whole server holds at most what its descriptor limit allows, less
//!   a margin for the database and files ([`fd_budget`]);
//! - past either cap, a few connections are still taken into a reserve
//!   that only answers `/healthz`, `/metrics` and requests bearing the
//!   admin token, with a short header timeout: an operator can always see
//!   and act on a server under attack. Everything else there gets `503
//!   too-many-connections` and the connection is closed.
//!
//! What a WebSocket may hold once upgraded (its `hello`, its silence) is
//! the connection's business (`conn`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::connect_info::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::AppState;
use crate::api::ApiError;
use crate::metrics::Metrics;

/// Connections the reserve takes past the caps, server-wide.
pub(crate) const RESERVE: usize = 16;
/// The reserve's header timeout: it serves probes and the admin, whose
/// requests arrive whole at once; an attacker's connections that fill it
/// are let go this soon.
const RESERVE_HEADER_TIMEOUT: Duration = Duration::from_millis(500);
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

/// Whether the reserve may serve this request: the probes, and the admin.
fn reserve_serves(admin: Option<&str>, req: &Request<Incoming>) -> bool {
    if matches!(req.uri().path(), "/healthz" | "/metrics") {
        return true;
    }
    let bearer = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    matches!((admin, bearer.and_then(|b| b.strip_prefix("Bearer "))), (Some(a), Some(b)) if a == b)
}

fn too_many_connections() -> Response {
    let mut response = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::TooManyConnections,
        "too many connections: from this address, or to the server; retry shortly",
    )
    .into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1));
    response
}

/// Counts a connection from `peer` against the caps (a trusted proxy's by
/// no address): what it holds, and whether it is on the reserve; `None`
/// when it is refused.
fn admit(state: &AppState, peer: IpAddr) -> Option<(Held, bool)> {
    let counted = (!state.config.trusted_proxies.contains(&peer)).then_some(peer);
    let admitted = match state.conn_counts.admit(counted) {
        Admit::Full(h) => Some((h, false)),
        Admit::Reserve(h) => Some((h, true)),
        Admit::Refused => None,
    };
    if !matches!(admitted, Some((_, false))) {
        Metrics::inc(&state.metrics.connections_refused);
    }
    admitted
}

/// Accepts connections on `listener` and serves `app` on them until
/// `stopped` resolves; then lets each connection finish the request in
/// hand and returns once they all have.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    state: Arc<AppState>,
    stopped: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (close_tx, close_rx) = tokio::sync::watch::channel(());
    let mut stopped = pin!(stopped);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors (EMFILE) or a connection reset
                    // before it was taken: wait a moment, the caps free
                    // descriptors as connections time out.
                    tracing::debug!(error = %e, "accept");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stopped => break,
        };
        let Some((held, reserve)) = admit(&state, peer.ip()) else {
            drop(tcp);
            continue;
        };
        // Prompts and moves are small frames on a round trip: Nagle's
        // algorithm would hold each one back waiting for an ACK.
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        // The reserve's check needs the admin token only: a connection
        // holds no reference to the server's state of its own.
        let admin = if reserve { state.config.admin_token.clone() } else { None };
        let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            let app = app.clone();
            let refuse = reserve && !reserve_serves(admin.as_deref(), &req);
            req.extensions_mut().insert(ConnectInfo(peer));
            async move {
                if refuse {
                    return Ok::<_, Infallible>(too_many_connections());
                }
                app.oneshot(req.map(Body::new)).await
            }
        });
        let timeout = if reserve { RESERVE_HEADER_TIMEOUT } else { state.config.header_timeout };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(timeout).keep_alive(!reserve);
        let mut closing = close_rx.clone();
        tokio::spawn(async move {
            let _held = held;
            let conn = builder.serve_connection(TokioIo::new(tcp), service).with_upgrades();
            let mut conn = pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::trace!(error = %e, "connection ended");
                    }
                    return;
                }
                _ = closing.changed() => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    // What holds the server's state goes first: shutdown waits for every
    // holder of it to let go.
    drop((listener, app, state, close_rx));
    let _ = close_tx.send(());
    // Each connection task holds a receiver: all gone, all done.
    close_tx.closed().await;
    Ok(())
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
