//! The lobby over HTTP: `GET /api/variants` (what a room may play),
//! `GET /api/rooms` (the lobby), `POST /api/rooms` (a new room),
//! `GET /api/nodes` (the servers on the database).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode};
use capicua_protocol::{ErrorCode, RoomInfo, RoomSpec};
use serde::Serialize;

use crate::AppState;
use crate::api::{ApiError, Caller};
use crate::limits::RoomOwner;

#[derive(Serialize)]
struct PresetEntry<V> {
    name: &'static str,
    /// The variant's one-line description, beside its name: what a lobby
    /// shows under the name (the bots read the same catalog).
    description: String,
    /// The sources its rules follow and its choices where they disagree
    /// (the rules page shows them).
    sources: &'static str,
    variant: V,
}

pub(super) async fn variants() -> Json<serde_json::Value> {
    let presets: Vec<PresetEntry<_>> = capicua_engine::PRESETS
        .iter()
        .filter_map(|&name| {
            let variant = capicua_engine::preset(name)?;
            let sources = capicua_engine::preset_sources(name).unwrap_or_default();
            Some(PresetEntry { name, description: variant.description.clone(), sources, variant })
        })
        .collect();
    let poly_presets: Vec<PresetEntry<_>> = capicua_engine::poly::POLY_PRESETS
        .iter()
        .filter_map(|&name| {
            let variant = capicua_engine::poly::poly_preset(name)?;
            let sources = capicua_engine::preset_sources(name).unwrap_or_default();
            Some(PresetEntry { name, description: variant.description.clone(), sources, variant })
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
pub(super) async fn rooms(State(state): State<Arc<AppState>>) -> Json<Vec<capicua_protocol::RoomInfo>> {
    Json(crate::nodes::lobby(&state).await)
}

/// `GET /api/nodes`: the live servers on this database, oldest first, with
/// their load at their last beat.
pub(super) async fn nodes(State(state): State<Arc<AppState>>) -> Result<Json<Vec<crate::db::nodes::Node>>, ApiError> {
    Ok(Json(state.db.live_nodes().await.map_err(ApiError::internal)?))
}

/// Bodies `POST /api/rooms` reads: a spec with a variant file (64 KiB at
/// most) and room for its JSON escaping.
pub(super) const MAX_ROOM_SPEC_BYTES: usize = 256 * 1024;

/// `POST /api/rooms`: creates a room from a JSON [`RoomSpec`] (the fields of
/// the `create-room` message), with the WebSocket path's validation and
/// error codes. `Authorization: Bearer TOKEN` (a player's token or the
/// admin token) is needed for rated rooms; without it the caller is a guest.
pub(super) async fn create_room(
    State(state): State<Arc<AppState>>,
    extensions: Extensions,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<(StatusCode, Json<RoomInfo>), ApiError> {
    let caller = Caller::of(&state, crate::limits::peer_of(&extensions), &headers).await?;
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
    let addr = crate::limits::peer_of(&extensions);
    match crate::room::create(&state, spec, owner, addr, creator).await {
        Ok(info) => Ok((StatusCode::CREATED, Json(info))),
        Err(e) => Err(ApiError::of(e.code(), e.to_string()).with_field(e.field())),
    }
}
