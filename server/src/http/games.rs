//! Stored games and ratings: `GET /api/games` (a page of games),
//! `GET /api/leaderboard`, `GET /api/leaderboards`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use capicua_protocol::ErrorCode;
use serde::Deserialize;

use crate::AppState;
use crate::api::{ApiError, ApiQuery};
use crate::db::{GameSummary, Standing};

/// The longest page of `GET /api/games`.
const GAMES_LIMIT: u32 = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GamesQuery {
    limit: Option<u32>,
    before: Option<i64>,
    player: Option<String>,
}

/// Stored games, newest first, a page at a time: `?limit=N` (1 to 100,
/// 20 by default), `?before=ID` for the page after the one ending at ID,
/// `?player=NAME` for one registered player's (or hosted bot's).
pub(super) async fn games(
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
pub(super) struct BoardQuery {
    variant: Option<String>,
    limit: Option<u32>,
}

pub(super) async fn leaderboard(
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
pub(super) async fn leaderboards(State(state): State<Arc<AppState>>) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(state.db.rated_variants().await.map_err(ApiError::internal)?))
}
