//! `GET /ws`: the WebSocket upgrade, behind the connection caps.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use futures_util::StreamExt;

use super::socket::Upgrade;
use crate::AppState;

/// Whether a browser page of `origin` may open the WebSocket: the server's
/// own pages (the request's `Host`, or `--public-url`) and the
/// `--cors-origin` ones. Without the check any web page could make its
/// visitors' browsers hold guest sockets here.
fn origin_allowed(state: &AppState, origin: &str, host: Option<&str>) -> bool {
    super::account::is_own_origin(state, origin, host) || state.config.cors.allows(origin)
}

pub(super) async fn ws(
    State(state): State<Arc<AppState>>,
    extensions: Extensions,
    headers: HeaderMap,
    upgrade: Upgrade,
) -> Response {
    // Bots send no `Origin`; a browser always does.
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        if !origin.to_str().is_ok_and(|o| origin_allowed(&state, o, host)) {
            crate::metrics::Metrics::inc(&state.metrics.connections_refused);
            return crate::api::ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::BadOrigin,
                "this server's WebSocket opens from its own pages and the origins its operator allows (--cors-origin)",
            )
            .into_response();
        }
    }
    let peer = crate::limits::peer_of(&extensions);
    // Behind a trusted proxy the accept loop counts no address: the
    // proxy's clients are counted here, by the address it forwards.
    let tcp_peer = extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
    let proxied = match (tcp_peer, peer) {
        (Some(t), Some(p)) if state.config.trusted_proxies.contains(&t) && t != p => {
            match state.proxied_counts.admit(Some(p)) {
                crate::limits::Admit::Full(held) => Some(held),
                _ => {
                    crate::metrics::Metrics::inc(&state.metrics.connections_refused);
                    return crate::api::ApiError::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        ErrorCode::TooManyConnections,
                        "too many connections from this address; retry shortly",
                    )
                    .into_response();
                }
            }
        }
        _ => None,
    };
    // The protocol's own limit, on a message's fragments as they arrive:
    // a message begun and never finished holds at most that much (the
    // WebSocket layer counts a fragmented message as it grows, and the
    // receive loop answers its refusal with `frame-too-large`).
    // A small read buffer: the transport zero-fills the whole buffer on
    // every read (at the default 128 KiB that memset dominated a profile of
    // small-frame traffic), and every connection holds one for its life.
    // Clients' frames are a few hundred bytes; a larger one takes more reads.
    // The TCP connection's place in the per-address and descriptor counts:
    // held by the socket, which outlives the HTTP connection it came from.
    let held = extensions.get::<crate::limits::HeldConn>().cloned();
    // A signed-in browser's session, from its cookie: honoured only from
    // this server's own pages, so another site's page cannot open a socket
    // that acts for the player.
    let session =
        super::account::own_origin(&state, &headers).then(|| super::account::session_cookie(&headers)).flatten();
    upgrade.on_upgrade(1024, capicua_protocol::MAX_FRAME_BYTES, move |socket| async move {
        let _held = (held, proxied);
        let (sink, stream) = socket.split();
        match state.lobby.admit() {
            Some(permit) => {
                crate::conn::serve(state, peer, session, sink, stream).await;
                drop(permit);
            }
            None => {
                crate::metrics::Metrics::inc(&state.metrics.connections_refused);
                crate::conn::refuse(sink).await;
            }
        }
    })
}
