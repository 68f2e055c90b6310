//! The middleware of the per-address limits: which address a request
//! counts against, and the HTTP API's request rate per address.

use std::sync::Arc;

use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use std::net::SocketAddr;

use crate::AppState;
use crate::api::ApiError;
use crate::limits::{ClientAddr, forwarded_client, peer_of};

/// Middleware on every route: records the client address of the request
/// (see [`forwarded_client`]) for the per-address limits and room quotas.
pub(super) async fn client_addr(State(state): State<Arc<AppState>>, mut req: Request, next: Next) -> Response {
    if let Some(peer) = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()) {
        // The last header line is the nearest hop's: read from the end.
        let headers = req.headers().get_all("x-forwarded-for").iter().rev().filter_map(|h| h.to_str().ok());
        let addr = forwarded_client(peer, &state.config.trusted_proxies, headers);
        req.extensions_mut().insert(ClientAddr(crate::limits::group(addr, state.config.ipv6_prefix)));
    }
    next.run(req).await
}

/// Middleware of the `/api` routes: a request over its address's rate gets
/// `429 rate-limited` with `Retry-After` (whole seconds, at least 1).
pub(super) async fn limit_api(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let Some(addr) = peer_of(req.extensions()) else { return next.run(req).await };
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    match state.http_limits.check(addr, write) {
        Ok(()) => next.run(req).await,
        Err(wait) => {
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let secs = secs.max(1);
            let kind = if write { "writes" } else { "reads" };
            let mut response = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("too many API {kind} from this address; retry in {secs} s"),
            )
            .into_response();
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            response
        }
    }
}
