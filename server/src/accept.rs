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
//!   a margin for the database and files ([`fd_budget`](crate::limits::fd_budget));
//! - past either cap, a few connections are still taken into a reserve
//!   that only answers `/healthz`, `/metrics` and requests bearing the
//!   admin token, with a short header timeout: an operator can always see
//!   and act on a server under attack. Everything else there gets `503
//!   too-many-connections` and the connection is closed.
//!
//! What a WebSocket may hold once upgraded (its `hello`, its silence) is
//! the connection's business (`conn`).

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::Arc;
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
use crate::limits::{Admit, Held, HeldConn};
use crate::metrics::Metrics;

/// The reserve's header timeout: it serves probes and the admin, whose
/// requests arrive whole at once; an attacker's connections that fill it
/// are let go this soon.
const RESERVE_HEADER_TIMEOUT: Duration = Duration::from_millis(500);
/// Whether the reserve may serve this request: the probes, and the admin.
fn reserve_serves(admin: Option<&str>, req: &Request<Incoming>) -> bool {
    if matches!(req.uri().path(), "/healthz" | "/metrics") {
        return true;
    }
    let bearer = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    bearer.and_then(|b| b.strip_prefix("Bearer ")).is_some_and(|b| crate::secret::is_admin(b.trim(), admin))
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
    let counted =
        (!state.config.trusted_proxies.contains(&peer)).then(|| crate::limits::group(peer, state.config.ipv6_prefix));
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
        // Shared with every request on the connection: a WebSocket upgrade
        // keeps its clone for the socket's life, so the connection counts
        // against its address (and the descriptor budget) until the socket
        // closes, not only until hyper hands the socket over.
        let held = Arc::new(held);
        let counted = held.clone();
        let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            let app = app.clone();
            let refuse = reserve && !reserve_serves(admin.as_deref(), &req);
            req.extensions_mut().insert(ConnectInfo(peer));
            req.extensions_mut().insert(HeldConn(counted.clone()));
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
