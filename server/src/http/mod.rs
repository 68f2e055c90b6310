//! HTTP routes: the WebSocket endpoint and the REST API (with CORS when
//! `--cors-origin` allows other origins), one file per family of routes.
//!
//! HTTP errors log their internals and answer a JSON body
//! `{"code": ..., "message": ...}` with the matching status
//! ([`ApiError`](crate::api::ApiError)).

mod account;
mod games;
mod ladder;
mod limits;
mod ops;
mod players;
mod rooms;
mod socket;
mod tournaments;
mod ws;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::routing::get;
use capicua_protocol::ErrorCode;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::AppState;
use crate::api::ApiError;
use crate::config::CorsOrigins;

/// The routes.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/variants", get(rooms::variants))
        .route(
            "/api/rooms",
            get(rooms::rooms)
                .post(rooms::create_room)
                .layer(axum::extract::DefaultBodyLimit::max(rooms::MAX_ROOM_SPEC_BYTES)),
        )
        .route("/api/nodes", get(rooms::nodes))
        .route("/api/games", get(games::games))
        .route("/api/games/{id}", get(crate::replays::game))
        .route("/api/games/{id}/review", get(crate::hints::review))
        .route("/api/leaderboard", get(games::leaderboard))
        .route("/api/leaderboards", get(games::leaderboards))
        .route("/api/players/{name}", get(players::profile))
        .route(
            "/api/account",
            get(account::account)
                .post(account::register)
                .layer(axum::extract::DefaultBodyLimit::max(account::MAX_BODY)),
        )
        .route(
            "/api/account/password",
            axum::routing::put(account::set_password).layer(axum::extract::DefaultBodyLimit::max(account::MAX_BODY)),
        )
        .route(
            "/api/account/tokens",
            axum::routing::post(account::new_token).layer(axum::extract::DefaultBodyLimit::max(account::MAX_BODY)),
        )
        .route("/api/account/tokens/{id}", axum::routing::delete(account::revoke_token))
        .route(
            "/api/session",
            axum::routing::post(account::sign_in)
                .delete(account::sign_out)
                .layer(axum::extract::DefaultBodyLimit::max(account::MAX_BODY)),
        )
        .route("/api/sessions", axum::routing::delete(account::sign_out_everywhere))
        .route("/api/ladder", get(ladder::board))
        .route("/api/seeks", get(ladder::seeks))
        .merge(tournaments::routes())
        .method_not_allowed_fallback(method_not_allowed)
        // Inside CORS: a browser can read a 429 only with its CORS headers.
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), limits::limit_api));
    // CORS on the API only: the WebSocket checks no origin header and
    // `/metrics` is for the operator, not for pages.
    let api = match cors_layer(&state.config.cors) {
        Some(cors) => api.layer(cors),
        None => api,
    };
    Router::new()
        .route("/ws", get(ws::ws))
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        // Each route answers a method it lacks with the API's error shape,
        // not axum's empty 405 (the API's routes below, inside CORS, so a
        // preflight still gets its headers).
        .method_not_allowed_fallback(method_not_allowed)
        .merge(api)
        .merge(crate::docs::router())
        .merge(crate::web::router())
        // Outermost: the limits inside read the address it records.
        .layer(axum::middleware::from_fn_with_state(state.clone(), limits::client_addr))
        .with_state(state)
}

/// The CORS layer for `origins`, `None` when no origin is allowed (no CORS
/// headers at all). Browsers may send `Authorization` and `Content-Type`
/// with GET, POST and DELETE; credentials (cookies) are never involved, the
/// API reads bearer tokens only.
fn cors_layer(origins: &CorsOrigins) -> Option<CorsLayer> {
    let allow = match origins {
        CorsOrigins::None => return None,
        CorsOrigins::Any => AllowOrigin::any(),
        CorsOrigins::List(list) => {
            // `CorsOrigins::parse` admits printable ASCII only: each is a
            // valid header value.
            AllowOrigin::list(list.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
        }
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE]),
    )
}

/// A method the path does not take: `405` with the API's error shape.
async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> ApiError {
    let message = format!("{} does not take {method}", uri.path());
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, ErrorCode::BadRequest, message)
}

#[cfg(test)]
mod tests;
