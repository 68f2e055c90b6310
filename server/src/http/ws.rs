//! `GET /ws`: the WebSocket upgrade, behind the connection caps.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use futures_util::StreamExt;

use super::socket::Upgrade;
use crate::AppState;

pub(super) async fn ws(State(state): State<Arc<AppState>>, extensions: Extensions, upgrade: Upgrade) -> Response {
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
    // Above our own protocol limit, so an oversize frame gets a clear error
    // code from us before the connection closes.
    // A small read buffer: the transport zero-fills the whole buffer on
    // every read (at the default 128 KiB that memset dominated a profile of
    // small-frame traffic), and every connection holds one for its life.
    // Clients' frames are a few hundred bytes; a larger one takes more reads.
    upgrade.on_upgrade(1024, 1 << 20, move |socket| async move {
        let _proxied = proxied;
        let (sink, stream) = socket.split();
        match state.lobby.admit() {
            Some(permit) => {
                crate::conn::serve(state, peer, sink, stream).await;
                drop(permit);
            }
            None => {
                crate::metrics::Metrics::inc(&state.metrics.connections_refused);
                crate::conn::refuse(sink).await;
            }
        }
    })
}
