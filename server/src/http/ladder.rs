//! `GET /api/ladder`: a preset's ratings board with who is on its ladder.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use capicua_protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::api::{ApiError, ApiQuery};
use crate::db::Standing;
use crate::ladder::{ladder_seats, no_ladder};

/// A line of `GET /api/ladder`: the leaderboard's, and whether the player
/// is on the ladder now (waiting or playing a ladder match).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct LadderRow {
    /// Rank, name, rating, games, wins, draws, losses.
    #[serde(flatten)]
    pub(crate) standing: Standing,
    /// On the ladder now.
    pub(crate) in_pool: bool,
}

/// `GET /api/ladder`'s answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct LadderBoard {
    /// The preset.
    pub(crate) variant: String,
    /// Players waiting to be paired now.
    pub(crate) waiting: u32,
    /// The ratings board, best first.
    pub(crate) players: Vec<LadderRow>,
}

#[derive(Deserialize)]
pub(super) struct LadderQuery {
    variant: Option<String>,
    limit: Option<u32>,
}

/// `GET /api/ladder?variant=PRESET[&limit=N]`: the preset's ratings board
/// (every rated game of the preset counts, ladder or not) with who is on
/// the ladder now.
pub(super) async fn board(
    State(state): State<Arc<AppState>>,
    ApiQuery(q): ApiQuery<LadderQuery>,
) -> Result<Json<LadderBoard>, ApiError> {
    let limit = q.limit.unwrap_or(100).min(1000);
    let Some(variant) = q.variant else {
        return Err(ApiError::of(ErrorCode::BadRequest, "give ?variant=PRESET").with_field(Some("variant")));
    };
    if ladder_seats(&variant).is_none() {
        return Err(ApiError::of(ErrorCode::BadVariant, no_ladder(&variant)).with_field(Some("variant")));
    }
    let rows = state.db.leaderboard_rows(&variant, limit).await.map_err(ApiError::internal)?;
    let (on, waiting) = state.ladder.on(&variant);
    let players =
        rows.into_iter().map(|(p, standing)| LadderRow { standing, in_pool: on.contains(&p) }).collect::<Vec<_>>();
    Ok(Json(LadderBoard { variant, waiting: waiting as u32, players }))
}

/// `GET /api/seeks`' answer: Play now's queue.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct SeekBoard {
    /// How many seek each kind of table now, most sought first.
    pub(crate) seeks: Vec<crate::ladder::seeks::SeekCount>,
}

/// `GET /api/seeks`: how many people seek each preset, table size and
/// rated or casual play now (who they are is not shown).
pub(super) async fn seeks(State(state): State<Arc<AppState>>) -> Json<SeekBoard> {
    Json(SeekBoard { seeks: state.seeks.counts() })
}
