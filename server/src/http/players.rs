//! `GET /api/players/{name}`: a player's profile, what the page's profile
//! shows beside the player's recent games (`GET /api/games?player=NAME`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use capicua_protocol::{ErrorCode, OccupantKind};
use serde::Serialize;

use crate::AppState;
use crate::api::{ApiError, ApiPath};
use crate::db::BoardRating;

/// A profile: the name, who holds it, since when, and its rating on
/// every board it has rated games on.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ProfileBody {
    name: String,
    kind: OccupantKind,
    /// Registered at (Unix seconds).
    since: i64,
    ratings: Vec<BoardRating>,
}

/// The profile of `name` (its exact spelling, or the name its canonical
/// key belongs to: `ANA` shows `ana`); `404` `no-such-player` for a name
/// nobody has. Public, as the leaderboard is: a name, its ratings and its
/// public games, never a token.
pub(super) async fn profile(
    State(state): State<Arc<AppState>>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<ProfileBody>, ApiError> {
    let Some(p) = state.db.profile(&name).await.map_err(ApiError::internal)? else {
        return Err(ApiError::of(ErrorCode::NoSuchPlayer, format!("nobody is called {name:?}")));
    };
    let ratings = state.db.player_ratings(p.id).await.map_err(ApiError::internal)?;
    Ok(Json(ProfileBody { name: p.name, kind: p.kind, since: p.since, ratings }))
}
