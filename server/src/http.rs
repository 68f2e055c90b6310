//! HTTP routes: the WebSocket endpoint and the REST API (with CORS when
//! `--cors-origin` allows other origins).
//!
//! HTTP errors log their internals and answer a JSON body
//! `{"code": ..., "message": ...}` with the matching status.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::{Extensions, HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use capicua_protocol::{ErrorCode, RoomInfo, RoomSpec};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::AppState;
use crate::api::{ApiError, ApiQuery, Caller};
use crate::db::{GameSummary, Standing};
use crate::limits::RoomOwner;

/// The routes.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/variants", get(variants))
        .route(
            "/api/rooms",
            get(rooms).post(create_room).layer(axum::extract::DefaultBodyLimit::max(MAX_ROOM_SPEC_BYTES)),
        )
        .route("/api/nodes", get(nodes))
        .route("/api/games", get(games))
        .route("/api/games/{id}", get(crate::replays::game))
        .route("/api/games/{id}/review", get(crate::hints::review))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/leaderboards", get(leaderboards))
        .route("/api/ladder", get(crate::ladder::board))
        .merge(crate::tournament::http::routes())
        .method_not_allowed_fallback(method_not_allowed)
        // Inside CORS: a browser can read a 429 only with its CORS headers.
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), crate::limits::limit_api));
    // CORS on the API only: the WebSocket checks no origin header and
    // `/metrics` is for the operator, not for pages.
    let api = match cors_layer(&state.config.cors) {
        Some(cors) => api.layer(cors),
        None => api,
    };
    Router::new()
        .route("/ws", get(ws))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        // Each route answers a method it lacks with the API's error shape,
        // not axum's empty 405 (the API's routes below, inside CORS, so a
        // preflight still gets its headers).
        .method_not_allowed_fallback(method_not_allowed)
        .merge(api)
        .merge(crate::web::router())
        // Outermost: the limits inside read the address it records.
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::limits::client_addr))
        .with_state(state)
}

/// The CORS layer for `origins`, `None` when no origin is allowed (no CORS
/// headers at all). Browsers may send `Authorization` and `Content-Type`
/// with GET, POST and DELETE; credentials (cookies) are never involved, the
/// API reads bearer tokens only.
fn cors_layer(origins: &crate::CorsOrigins) -> Option<CorsLayer> {
    let allow = match origins {
        crate::CorsOrigins::None => return None,
        crate::CorsOrigins::Any => AllowOrigin::any(),
        crate::CorsOrigins::List(list) => {
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

async fn ws(State(state): State<Arc<AppState>>, extensions: Extensions, upgrade: WebSocketUpgrade) -> Response {
    let peer = crate::limits::peer_of(&extensions);
    // Behind a trusted proxy the accept loop counts no address: the
    // proxy's clients are counted here, by the address it forwards.
    let tcp_peer = extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
    let proxied = match (tcp_peer, peer) {
        (Some(t), Some(p)) if state.config.trusted_proxies.contains(&t) && t != p => {
            match state.proxied_counts.admit(Some(p)) {
                crate::accept::Admit::Full(held) => Some(held),
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
    // every read, and at the default 128 KiB that memset dominated a
    // profile of small-frame traffic.
    upgrade.max_message_size(1 << 20).max_frame_size(1 << 20).read_buffer_size(4096).on_upgrade(
        move |socket| async move {
            let _proxied = proxied;
            let (sink, stream) = socket.split();
            match state.conn_permits.clone().try_acquire_owned() {
                Ok(permit) => {
                    crate::conn::serve(state, peer, sink, stream).await;
                    drop(permit);
                }
                Err(_) => {
                    crate::metrics::Metrics::inc(&state.metrics.connections_refused);
                    crate::conn::refuse(sink).await;
                }
            }
        },
    )
}

#[derive(Serialize)]
struct PresetEntry<V> {
    name: &'static str,
    /// The variant's one-line description, beside its name: what a lobby
    /// shows under the name (the bots read the same catalog).
    description: String,
    variant: V,
}

async fn variants() -> Json<serde_json::Value> {
    let presets: Vec<PresetEntry<_>> = capicua_engine::PRESETS
        .iter()
        .filter_map(|&name| {
            let variant = capicua_engine::preset(name)?;
            Some(PresetEntry { name, description: variant.description.clone(), variant })
        })
        .collect();
    let poly_presets: Vec<PresetEntry<_>> = capicua_engine::poly::POLY_PRESETS
        .iter()
        .filter_map(|&name| {
            let variant = capicua_engine::poly::poly_preset(name)?;
            Some(PresetEntry { name, description: variant.description.clone(), variant })
        })
        .collect();
    // The rule catalog lets a client build its variant menus: every option
    // of every field with its parameters.
    Json(serde_json::json!({
        "presets": presets,
        "catalog": capicua_engine::catalog(),
        "strategies": crate::bots::names(),
        // Rooms of tiles with 3, 4 or 6 faces: their presets (`preset` in a
        // room spec) and the strategies that play them (`fill-bots`).
        "poly-presets": poly_presets,
        "poly-strategies": crate::bots::poly_names(),
    }))
}

/// `GET /api/rooms`: the lobby, every server's on a shared database.
async fn rooms(State(state): State<Arc<AppState>>) -> Json<Vec<capicua_protocol::RoomInfo>> {
    Json(crate::nodes::lobby(&state).await)
}

/// `GET /api/nodes`: the live servers on this database, oldest first, with
/// their load at their last beat.
async fn nodes(State(state): State<Arc<AppState>>) -> Result<Json<Vec<crate::db::nodes::Node>>, ApiError> {
    Ok(Json(state.db.live_nodes().await.map_err(ApiError::internal)?))
}

/// A method the path does not take: `405` with the API's error shape.
async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> ApiError {
    let message = format!("{} does not take {method}", uri.path());
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, ErrorCode::BadRequest, message)
}

/// Bodies `POST /api/rooms` reads: a spec with a variant file (64 KiB at
/// most) and room for its JSON escaping.
const MAX_ROOM_SPEC_BYTES: usize = 256 * 1024;

/// `POST /api/rooms`: creates a room from a JSON [`RoomSpec`] (the fields of
/// the `create-room` message), with the WebSocket path's validation and
/// error codes. `Authorization: Bearer TOKEN` (a player's token or the
/// admin token) is needed for rated rooms; without it the caller is a guest.
async fn create_room(
    State(state): State<Arc<AppState>>,
    extensions: Extensions,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<(StatusCode, Json<RoomInfo>), ApiError> {
    let caller = Caller::of(&state, &headers).await?;
    let body = body.map_err(|e| ApiError::body(&e, ErrorCode::BadRequest, MAX_ROOM_SPEC_BYTES))?;
    let spec: RoomSpec = match capicua_protocol::decode_strict(&body) {
        Ok(s) => s,
        Err(e @ capicua_protocol::DecodeError::Json(_)) => {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, e.code(), e.to_string()));
        }
        Err(e) => {
            let e = e.to_string();
            let why = e.strip_prefix("not a known message: ").unwrap_or(&e);
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadMessage,
                format!("not a room spec: {why}"),
            ));
        }
    };
    if spec.rated && caller == Caller::Guest {
        return Err(caller.refuse("only registered players create rated rooms"));
    }
    let owner = match caller {
        Caller::Admin => None,
        Caller::Player(id) => Some(RoomOwner::Player(id)),
        Caller::Guest => RoomOwner::of(None, false, crate::limits::peer_of(&extensions)),
    };
    // A guest over HTTP is no one a later WebSocket request can be
    // recognized as: only the players it seats may fill its room.
    let creator = match caller {
        Caller::Admin => crate::room::Creator::Admin,
        Caller::Player(id) => crate::room::Creator::Owner(crate::room::Owner::Player(id)),
        Caller::Guest => crate::room::Creator::Unknown,
    };
    match crate::room::create(&state, spec, owner, creator).await {
        Ok(info) => Ok((StatusCode::CREATED, Json(info))),
        Err(e) => Err(ApiError::of(e.code(), e.to_string()).with_field(e.field())),
    }
}

/// The longest page of `GET /api/games`.
const GAMES_LIMIT: u32 = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GamesQuery {
    limit: Option<u32>,
    before: Option<i64>,
    player: Option<String>,
}

/// Stored games, newest first, a page at a time: `?limit=N` (1 to 100,
/// 20 by default), `?before=ID` for the page after the one ending at ID,
/// `?player=NAME` for one registered player's (or hosted bot's).
async fn games(
    State(state): State<Arc<AppState>>,
    ApiQuery(q): ApiQuery<GamesQuery>,
) -> Result<Json<Vec<GameSummary>>, ApiError> {
    let bad = |m: String| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, m);
    let limit = q.limit.unwrap_or(20);
    if !(1..=GAMES_LIMIT).contains(&limit) {
        return Err(bad(format!("limit must be 1 to {GAMES_LIMIT}, not {limit}")).with_field(Some("limit")));
    }
    if let Some(b) = q.before.filter(|&b| b < 1) {
        return Err(bad(format!("before must be a game id (1 or more), not {b}")).with_field(Some("before")));
    }
    if let Some(p) = q.player.as_deref().filter(|p| p.is_empty() || p.len() > 64) {
        return Err(
            bad(format!("player must be a name of 1 to 64 bytes, not {} bytes", p.len())).with_field(Some("player"))
        );
    }
    let games = state.db.recent_games(limit, q.before, q.player.as_deref()).await.map_err(ApiError::internal)?;
    Ok(Json(games))
}

#[derive(Deserialize)]
struct BoardQuery {
    variant: Option<String>,
    limit: Option<u32>,
}

async fn leaderboard(
    State(state): State<Arc<AppState>>,
    ApiQuery(q): ApiQuery<BoardQuery>,
) -> Result<Json<Vec<Standing>>, ApiError> {
    let limit = q.limit.unwrap_or(100).min(1000);
    let Some(variant) = q.variant else {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, "give ?variant=NAME"));
    };
    Ok(Json(state.db.leaderboard(&variant, limit).await.map_err(ApiError::internal)?))
}

/// `GET /api/leaderboards`: the boards that have rated games: a preset's
/// name, or a custom variant's name and rules fingerprint (`house#3f09c2a1b7d4`).
async fn leaderboards(State(state): State<Arc<AppState>>) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(state.db.rated_variants().await.map_err(ApiError::internal)?))
}

/// `GET /healthz`: `200 ok` while finished matches are being stored;
/// `503` with the reason while the latest attempt to store one failed (a
/// full disk, a read-only file system, a lock held by another process), so
/// a health check sees a server that plays on but loses every result.
async fn healthz(State(state): State<Arc<AppState>>) -> Response {
    match state.db.store_failure() {
        None => "ok".into_response(),
        Some(f) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({
                "status": "degraded",
                "database": format!("storing finished matches failed: {}", f.error),
                "since": f.since,
            })),
        )
            .into_response(),
    }
}

async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    let mut text = state.metrics.render();
    state.cpu.render(&mut text);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
