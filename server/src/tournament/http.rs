//! `POST /api/tournaments` (admin), `GET /api/tournaments`,
//! `GET /api/tournaments/{id}`, `GET /api/tournaments/{id}/standings`.
//!
//! Errors answer `{"code", "message"}` like every HTTP error of the server,
//! plus `"field"` when a spec field is at fault (its path for a parse error:
//! `stages[0].legs`): 400 `bad-tournament` (also a body that is not UTF-8;
//! 413 `bad-tournament` for one over [`store::MAX_SPEC_BYTES`]; a spec sent
//! over HTTP plays presets only, never a variant file on the server's disk),
//! 401 `unauthorized` (no token), 401 `bad-token` (an unknown token),
//! 403 `unauthorized` (a player's token), 404 `no-such-tournament`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};

use axum::routing::get;
use axum::{Json, Router};
use capicua_engine::Variant;
use capicua_protocol::ErrorCode;
use capicua_tournament::{Entrant, MatchResult, Round, Standing, StopReason, Table, TournamentSpec};
use serde::{Deserialize, Serialize};

use super::TournamentError;
use super::replays::Replayed;
use super::store::{self, SpecFormat};
use crate::AppState;
use crate::api::{ApiError, ApiPath, ApiQuery, Caller};
use crate::db::tournaments::{self, StoredResult, StoredTable, Summary};

/// The tournament routes (merged into [`crate::http::router`]).
pub(crate) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        // A spec is small: a larger body is refused before it is read whole.
        .route("/api/tournaments", get(list).post(create).layer(DefaultBodyLimit::max(store::MAX_SPEC_BYTES)))
        .route("/api/tournaments/{id}", get(detail))
        .route("/api/tournaments/{id}/standings", get(standings))
}

impl From<TournamentError> for ApiError {
    fn from(e: TournamentError) -> Self {
        if e.is_bad_spec() {
            ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadTournament, e.to_string()).with_field(e.field())
        } else {
            ApiError::internal(e)
        }
    }
}

fn not_found(id: i64) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NoSuchTournament, format!("no tournament {id}"))
}

/// Checks `Authorization: Bearer <admin token>` (see
/// [`crate::api::status_of`] for the statuses).
async fn check_admin(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let disabled = state.config.admin_token.is_none();
    let hint = if disabled { " (admin actions are disabled: start the server with --admin-token)" } else { "" };
    match Caller::of(state, headers).await {
        Ok(Caller::Admin) => Ok(()),
        Ok(Caller::Guest) => {
            Err(Caller::Guest.refuse(format!("send the admin token as `Authorization: Bearer TOKEN`{hint}")))
        }
        Ok(caller) => Err(caller.refuse(format!("only the admin token creates tournaments{hint}"))),
        // Any token is wrong when the server has none: say why.
        Err(_) if disabled => {
            Err(ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::BadToken, format!("not a known token{hint}")))
        }
        Err(e) => Err(e),
    }
}

async fn create(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Summary>), ApiError> {
    check_admin(&state, &headers).await?;
    let body = body.map_err(|e| ApiError::body(&e, ErrorCode::BadTournament, store::MAX_SPEC_BYTES))?;
    let body = std::str::from_utf8(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadTournament,
            format!("the spec is not UTF-8 text (invalid byte at offset {})", e.valid_up_to()),
        )
    })?;
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let format = if is_json { SpecFormat::Json } else { SpecFormat::detect(body) };
    let (id, _) = store::create(&state.db, body, format, state.config.bot_caps, store::Origin::Network).await?;
    state.tournaments.wake();
    let summary = tournaments::summary_of(&state.db, id).await?.ok_or_else(|| not_found(id))?;
    Ok((StatusCode::CREATED, Json(summary)))
}

async fn list(State(state): State<Arc<AppState>>) -> Result<Json<Vec<Summary>>, ApiError> {
    Ok(Json(tournaments::list(&state.db).await?))
}

/// One table of a round, with its room and result.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct TableDetail {
    #[serde(flatten)]
    table: Table,
    room: Option<i64>,
    attempts: i64,
    game: Option<i64>,
    result: Option<MatchResult>,
}

/// One round.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct RoundDetail {
    number: u32,
    stage: u32,
    variant: String,
    byes: Vec<capicua_tournament::EntrantId>,
    in_progress: bool,
    tables: Vec<TableDetail>,
}

/// `GET /api/tournaments/{id}`.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Detail {
    #[serde(flatten)]
    summary: Summary,
    spec: TournamentSpec,
    /// The variants of the spec's variant files, as stored when it was created.
    variant_files: BTreeMap<String, Variant>,
    entrants: Vec<Entrant>,
    rounds: Vec<RoundDetail>,
    standings: Vec<Standing>,
    winners: Vec<String>,
    stop_reason: Option<StopReason>,
}

/// `GET /api/tournaments/{id}?from-round=A&to-round=B`: which rounds to
/// detail (both optional and inclusive; default: every round).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RoundRange {
    from_round: Option<u32>,
    to_round: Option<u32>,
}

async fn detail(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(range): ApiQuery<RoundRange>,
) -> Result<Json<Detail>, ApiError> {
    let summary = tournaments::summary_of(&state.db, id).await?.ok_or_else(|| not_found(id))?;
    let (from, to) = (range.from_round.unwrap_or(0), range.to_round.unwrap_or(u32::MAX));
    let replayed = state.tournaments.replays.current(&state.db, id).await?;
    let Some(Some(Replayed { tournament: t, results })) = replayed.as_deref() else {
        return Err(not_found(id));
    };
    let rooms: HashMap<(u32, u32), StoredTable> = tournaments::tables_of_rounds(&state.db, id, from, to)
        .await?
        .into_iter()
        .map(|s| ((s.round, s.table.id), s))
        .collect();
    let by_table: HashMap<(u32, u32), &StoredResult> = results
        .iter()
        .filter(|r| (from..=to).contains(&r.result.round))
        .map(|r| ((r.result.round, r.result.table), r))
        .collect();
    let round = |r: &Round, in_progress: bool| RoundDetail {
        number: r.number,
        stage: r.stage,
        variant: r.variant.clone(),
        byes: r.byes.clone(),
        in_progress,
        tables: r
            .tables
            .iter()
            .map(|tb| {
                let stored = rooms.get(&(r.number, tb.id));
                let res = by_table.get(&(r.number, tb.id));
                TableDetail {
                    table: tb.clone(),
                    room: stored.and_then(|s| s.room),
                    attempts: stored.map_or(0, |s| s.attempts),
                    game: res.map(|r| r.game),
                    result: res.map(|r| r.result.clone()),
                }
            })
            .collect(),
    };
    let wanted = |r: &Round| (from..=to).contains(&r.number);
    let mut rounds: Vec<RoundDetail> = t.rounds().iter().filter(|r| wanted(r)).map(|r| round(r, false)).collect();
    rounds.extend(t.rounds_in_play().iter().filter(|r| wanted(r)).map(|r| round(r, true)));
    let winners = t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect();
    Ok(Json(Detail {
        summary,
        spec: t.config().spec().clone(),
        variant_files: t.config().variant_files().clone(),
        entrants: t.entrants().to_vec(),
        rounds,
        standings: t.standings(),
        winners,
        stop_reason: t.stop_reason(),
    }))
}

async fn standings(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Vec<capicua_tournament::Standing>>, ApiError> {
    if tournaments::summary_of(&state.db, id).await?.is_none() {
        return Err(not_found(id));
    }
    Ok(Json(tournaments::standings(&state.db, id).await?))
}
