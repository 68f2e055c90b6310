//! Stored games and ratings: `GET /api/games` (a page of games, each as
//! its result counts: a corrected tournament table shows its correction),
//! `GET /api/leaderboard`, `GET /api/leaderboards`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use capicua_protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::api::{ApiError, ApiQuery, Caller, Peer};
use crate::db::tournaments::GameCorrection;
use crate::db::{GameSummary, Standing};

/// A game of `GET /api/games`: its summary, whose `scores` and `winner` are
/// the result that counts; for a tournament table the organiser
/// corrected, also the result as played and the correction.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Listed {
    #[serde(flatten)]
    game: GameSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    played_scores: Option<Vec<i32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    played_winner: Option<Option<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    correction: Option<GameCorrection>,
}

/// `game` as it counts: corrected by `correction`, if any.
fn listed(mut game: GameSummary, correction: Option<GameCorrection>) -> Listed {
    let Some(c) = correction else {
        return Listed { game, played_scores: None, played_winner: None, correction: None };
    };
    let sides: Vec<u8> = game.seats.iter().map(|s| s.side).collect();
    let (scores, winner) = c.by_side(&sides, &game.scores);
    let played_scores = Some(std::mem::replace(&mut game.scores, scores));
    let played_winner = Some(std::mem::replace(&mut game.winner, winner));
    Listed { game, played_scores, played_winner, correction: Some(c) }
}

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
/// `?player=NAME` for one registered player's (or hosted bot's). A
/// private room's games are not listed (but to the admin).
pub(super) async fn games(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<GamesQuery>,
) -> Result<Json<Vec<Listed>>, ApiError> {
    // The games of private rooms are listed to the admin alone.
    let private = Caller::of(&state, peer, &headers).await? == Caller::Admin;
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
    let games =
        state.db.recent_games(limit, q.before, q.player.as_deref(), private).await.map_err(ApiError::internal)?;
    let (lo, hi) = games.iter().fold((i64::MAX, i64::MIN), |(lo, hi), g| (lo.min(g.id), hi.max(g.id)));
    let maybe = if games.is_empty() {
        Vec::new()
    } else {
        state.db.maybe_corrected_games(lo, hi).await.map_err(ApiError::internal)?
    };
    let mut out = Vec::with_capacity(games.len());
    for g in games {
        let correction = match maybe.contains(&g.id) {
            true => state.db.game_correction(g.id).await.map_err(ApiError::internal)?,
            false => None,
        };
        out.push(listed(g, correction));
    }
    Ok(Json(out))
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
