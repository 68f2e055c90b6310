//! The tournament routes that read its tables: who is here (for the
//! detail), the pairings, the results and the CSV exports.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use serde::Deserialize;

use super::pairings::{self, Loaded};
use super::{exports, not_found, presence, replayed};
use crate::AppState;
use crate::api::{ApiError, ApiPath, ApiQuery};
use crate::db::tournaments::Summary;

/// The detail's `presence` rows: the rounds in play paired as this
/// server's rooms say, and every entrant's state.
pub(super) async fn presence_of(
    state: &AppState,
    l: &Loaded,
    summary: &Summary,
) -> Result<Vec<presence::PresenceRow>, ApiError> {
    use capicua_protocol::TournamentStatus::{Paused, Pending, Running};
    let live = matches!(summary.status, Pending | Running | Paused) && !l.t.is_finished();
    let open: Vec<pairings::PairedRound> = l
        .rounds()
        .iter()
        .filter(|(_, in_progress)| *in_progress)
        .map(|(r, _)| pairings::pair_round(l, r, true, &|room, tb| pairings::live(state, room, tb)))
        .collect();
    presence::rows(state, &l.t, live, &open).await
}

/// `GET /api/tournaments/{id}/pairings?round=N`: which round (from 0;
/// default every round).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct RoundQuery {
    round: Option<u32>,
}

/// Every round's pairings of tournament `id` (or round `only`'s).
async fn paired(state: &AppState, id: i64, only: Option<u32>) -> Result<(Loaded, pairings::Pairings), ApiError> {
    let l = Loaded::read(state, id).await?.ok_or_else(|| not_found(id))?;
    let p = pairings::pairings(id, &l, only, &|room, tb| pairings::live(state, room, tb));
    Ok((l, p))
}

/// `GET /api/tournaments/{id}/pairings[?round=N]`.
pub(super) async fn pairings_json(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<RoundQuery>,
) -> Result<Json<pairings::Pairings>, ApiError> {
    Ok(Json(paired(&state, id, q.round).await?.1))
}

/// `GET /api/tournaments/{id}/results`: every recorded result, as it counts.
pub(super) async fn results_json(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Vec<pairings::ResultRow>>, ApiError> {
    Ok(Json(pairings::results(&paired(&state, id, None).await?.1)))
}

fn csv(body: String) -> ([(header::HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, exports::CSV)], body)
}

/// `GET /api/tournaments/{id}/standings.csv`.
pub(super) async fn standings_csv(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    let t = replayed(&state, id).await?;
    Ok(csv(exports::standings(&t.standings(), &t.config().spec().scoring.tie_breaks)))
}

/// `GET /api/tournaments/{id}/pairings.csv[?round=N]`.
pub(super) async fn pairings_csv(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<RoundQuery>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    Ok(csv(exports::pairings(&paired(&state, id, q.round).await?.1)))
}

/// `GET /api/tournaments/{id}/results.csv`.
pub(super) async fn results_csv(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    Ok(csv(exports::results(&pairings::results(&paired(&state, id, None).await?.1))))
}
