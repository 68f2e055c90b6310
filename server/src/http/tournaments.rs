//! `POST /api/tournaments` (admin), `GET /api/tournaments`,
//! `GET /api/tournaments/{id}`, `GET /api/tournaments/{id}/standings`, the
//! organiser's controls (admin): `POST /api/tournaments/{id}/pause`,
//! `resume`, `cancel`, `withdraw`, `correct`, `enter` (a late entrant into a
//! Swiss or an arena), `DELETE /api/tournaments/{id}`
//! (one not started), and their audit trail, `GET /api/tournaments/{id}/audit`;
//! each round's pairings and the recorded results,
//! `GET /api/tournaments/{id}/pairings` and `/results` ([`pairings`]), and
//! their CSV exports with the standings' ([`exports`]).
//!
//! Errors answer `{"code", "message"}` like every HTTP error of the server,
//! plus `"field"` when a spec field is at fault (its path for a parse error:
//! `stages[0].legs`): 400 `bad-tournament` (also a body that is not UTF-8;
//! 413 `bad-tournament` for one over [`store::MAX_SPEC_BYTES`]; a spec sent
//! over HTTP plays presets only, never a variant file on the server's disk),
//! 401 `unauthorized` (no token), 401 `bad-token` (an unknown token),
//! 403 `unauthorized` (a player's token), 404 `no-such-tournament`; a
//! control answers 400 `bad-request` for a body that does not parse or
//! names no entrant or recorded result, and 409 `tournament-state` when the
//! tournament's status (or the entrant's, or the bracket) does not allow it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};

use axum::routing::{get, post};
use axum::{Json, Router};
use capicua_engine::Variant;
use capicua_protocol::{ErrorCode, Progress};
use capicua_tournament::{
    Control, ControlError, Entrant, EntrantId, EntrantSpec, MatchResult, Round, Standing, StopReason, Table,
    Tournament, TournamentSpec,
};
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::api::{ApiError, ApiPath, ApiQuery, Caller, Peer};
use crate::db::tournaments::{self, ControlAction, ControlOutcome, StoredResult, StoredTable, Summary};
use crate::state::tournaments::Replayed;
use crate::tournament::TournamentError;
use crate::tournament::announce::control_progress;
use crate::tournament::store::{self, SpecFormat};

mod exports;
mod pairings;
mod presence;
mod reads;

/// The tournament routes (merged into [`super::router`]).
pub(super) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        // A spec is small: a larger body is refused before it is read whole.
        .route("/api/tournaments", get(list).post(create).layer(DefaultBodyLimit::max(store::MAX_SPEC_BYTES)))
        .route("/api/tournaments/{id}", get(detail).delete(delete))
        .route("/api/tournaments/{id}/standings", get(standings))
        .route("/api/tournaments/{id}/pairings", get(reads::pairings_json))
        .route("/api/tournaments/{id}/results", get(reads::results_json))
        .route("/api/tournaments/{id}/standings.csv", get(reads::standings_csv))
        .route("/api/tournaments/{id}/pairings.csv", get(reads::pairings_csv))
        .route("/api/tournaments/{id}/results.csv", get(reads::results_csv))
        .route("/api/tournaments/{id}/audit", get(audit))
        .route("/api/tournaments/{id}/{control}", post(control).layer(DefaultBodyLimit::max(MAX_CONTROL_BYTES)))
}

/// Largest control body accepted, in bytes: a correction of a table of a
/// few seats fits many times over.
const MAX_CONTROL_BYTES: usize = 16 * 1024;

/// Longest name a control may give as who took it.
const MAX_BY_CHARS: usize = 64;

/// Who took a control: `by` in the body, or `admin` (the only credential
/// that may take one).
#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct StatusBody {
    by: Option<String>,
}

/// An entrant named in a control: its id or its name.
#[derive(Deserialize)]
#[serde(untagged)]
enum EntrantRef {
    Id(u32),
    Name(String),
}

/// `POST .../enter`: the entrant as a spec's `entrants` writes it.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct EnterBody {
    entrant: EntrantSpec,
    by: Option<String>,
}

/// `POST .../withdraw`.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct WithdrawBody {
    entrant: EntrantRef,
    by: Option<String>,
}

/// The winner of a corrected table: a side, or `null` for a draw (never
/// left out: a forgotten field must not turn a result into a draw).
#[derive(Deserialize)]
#[serde(untagged)]
enum WinnerField {
    Side(u32),
    Draw(()),
}

/// `POST .../correct`: the table's new winner and, optionally, each seat's
/// new score (the recorded pips and timeouts stay).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct CorrectBody {
    round: u32,
    table: u32,
    winner: WinnerField,
    scores: Option<Vec<i64>>,
    by: Option<String>,
}

fn bad_control(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
}

fn conflict(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, ErrorCode::TournamentState, message)
}

fn parse_body<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| bad_control(format!("the body is not a control: {e}")))
}

fn parse_required<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| bad_control(format!("the body is not a control: {e}")))
}

fn check_by(by: Option<String>) -> Result<String, ApiError> {
    match by {
        None => Ok("admin".into()),
        Some(b) if b.trim().is_empty() || b.chars().count() > MAX_BY_CHARS || b.chars().any(char::is_control) => {
            Err(bad_control(format!("`by` must be 1 to {MAX_BY_CHARS} printable characters")))
        }
        Some(b) => Ok(b),
    }
}

/// `POST /api/tournaments/{id}/{pause|resume|cancel|withdraw|correct|enter}` (admin).
async fn control(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    ApiPath((id, name)): ApiPath<(i64, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Summary>, ApiError> {
    check_admin(&state, peer, &headers).await?;
    let body = body.map_err(|e| ApiError::body(&e, ErrorCode::BadRequest, MAX_CONTROL_BYTES))?;
    let (action, by) = action_of(&state, id, &name, &body).await?;
    let outcome = state.db.take_tournament_control(id, &action, &by).await?;
    let (progress, control) = progress_of(id, outcome, &action, by)?;
    // This node's followers are told now; the other nodes' relays tell theirs.
    state.tournaments.told(id, control);
    state.tournaments.publish(id, progress);
    // The runner (if one runs here) reads the status and the log again; a
    // resumed tournament is runnable, for the scheduler.
    state.tournaments.poke(id);
    state.tournaments.wake();
    let summary = state.db.tournament_summary(id).await?.ok_or_else(|| not_found(id))?;
    Ok(Json(summary))
}

/// The control `name` asks for with `body`, and who asks.
async fn action_of(state: &AppState, id: i64, name: &str, body: &[u8]) -> Result<(ControlAction, String), ApiError> {
    Ok(match name {
        "pause" | "resume" | "cancel" => {
            let b: StatusBody = parse_body(body)?;
            let action = match name {
                "pause" => ControlAction::Pause,
                "resume" => ControlAction::Resume,
                _ => ControlAction::Cancel,
            };
            (action, check_by(b.by)?)
        }
        "withdraw" => {
            let b: WithdrawBody = parse_required(body)?;
            let by = check_by(b.by)?;
            let t = replayed(state, id).await?;
            let entrant = match b.entrant {
                EntrantRef::Id(i) => EntrantId(i),
                EntrantRef::Name(n) => t
                    .entrants()
                    .iter()
                    .find(|e| e.name == n)
                    .map(|e| e.id)
                    .ok_or_else(|| bad_control(format!("tournament {id} has no entrant {n:?}")))?,
            };
            // Stored `before_start` if the tournament has not started (see `take_control`).
            (ControlAction::Log(Control::Withdraw { entrant, before_start: false }), by)
        }
        "enter" => {
            let b: EnterBody = parse_required(body)?;
            let by = check_by(b.by)?;
            // A late entrant plays the tournament's families of tiles too.
            let families = replayed(state, id).await?.config().families();
            store::check_entrant(&state.db, "entrant", &b.entrant, &families, state.config.bot_caps)
                .await
                .map_err(|e| bad_control(e.to_string()))?;
            (ControlAction::Log(Control::Enter { entrant: b.entrant }), by)
        }
        "correct" => {
            let mut b: CorrectBody = parse_required(body)?;
            let by = check_by(b.by.take())?;
            let t = replayed(state, id).await?;
            (ControlAction::Log(Control::Correct { result: corrected(&t, b)? }), by)
        }
        other => {
            return Err(ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no control {other:?}")));
        }
    })
}

/// The result a `correct` control records instead of the one stored.
fn corrected(t: &Tournament, b: CorrectBody) -> Result<MatchResult, ApiError> {
    let old = t
        .result_of(b.round, b.table)
        .cloned()
        .ok_or_else(|| bad_control(format!("round {} table {} has no recorded result to correct", b.round, b.table)))?;
    let mut seats = old.seats.clone();
    if let Some(scores) = b.scores {
        if scores.len() != seats.len() {
            return Err(bad_control(format!("`scores` gives {} seats, the table has {}", scores.len(), seats.len())));
        }
        for (seat, score) in seats.iter_mut().zip(scores) {
            seat.score = score;
        }
    }
    let winner = match b.winner {
        WinnerField::Side(s) => Some(s),
        WinnerField::Draw(()) => None,
    };
    Ok(MatchResult { seats, winner, ..old })
}

/// What the tournament's followers hear of a control taken, or the error
/// of one refused.
fn progress_of(
    id: i64,
    outcome: ControlOutcome,
    action: &ControlAction,
    by: String,
) -> Result<(Progress, i64), ApiError> {
    match outcome {
        ControlOutcome::NoSuchTournament => Err(not_found(id)),
        ControlOutcome::WrongStatus(status) => {
            Err(conflict(format!("tournament {id} is {status}: it cannot {}", action.name())))
        }
        ControlOutcome::Refused(e) => Err(match e {
            ControlError::NoSuchEntrant(_)
            | ControlError::NoSuchResult { .. }
            | ControlError::Shape(_)
            | ControlError::BadEntrant(_) => bad_control(e.to_string()),
            _ => conflict(e.to_string()),
        }),
        ControlOutcome::Taken { tournament, control, .. } => {
            let logged = match action {
                ControlAction::Log(c) => Some(c),
                _ => None,
            };
            let progress = control_progress(action.name(), logged, by, &tournament)
                .ok_or_else(|| ApiError::internal(format!("control {control} of tournament {id} tells nothing")))?;
            Ok((progress, control))
        }
    }
}

/// `DELETE /api/tournaments/{id}` (admin): a tournament that has not
/// started, with everything stored of it. Body optional: `{"by": NAME}`.
async fn delete(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    ApiPath(id): ApiPath<i64>,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, ApiError> {
    check_admin(&state, peer, &headers).await?;
    let body = body.map_err(|e| ApiError::body(&e, ErrorCode::BadRequest, MAX_CONTROL_BYTES))?;
    let b: StatusBody = parse_body(&body)?;
    let by = check_by(b.by)?;
    match state.db.delete_unstarted_tournament(id).await? {
        tournaments::Deleted::Yes => {
            tracing::info!(tournament = id, by, "tournament deleted");
            state.tournaments.publish(id, Progress::Deleted { by });
            Ok(StatusCode::NO_CONTENT)
        }
        tournaments::Deleted::NoSuchTournament => Err(not_found(id)),
        tournaments::Deleted::Started(status) => {
            Err(conflict(format!("tournament {id} is {status} and has started: only a pending one is deleted")))
        }
    }
}

/// The tournament as its stored log leaves it (through the replay cache).
async fn replayed(state: &AppState, id: i64) -> Result<Tournament, ApiError> {
    let replayed = state.tournaments.replays.current(&state.db, id).await?;
    match replayed.as_deref() {
        Some(Some(r)) => Ok(r.tournament.clone()),
        _ => Err(not_found(id)),
    }
}

/// `GET /api/tournaments/{id}/audit`: every control taken, oldest first.
async fn audit(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Vec<tournaments::AuditEntry>>, ApiError> {
    if state.db.tournament_summary(id).await?.is_none() {
        return Err(not_found(id));
    }
    Ok(Json(state.db.tournament_audit(id).await?))
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
async fn check_admin(state: &AppState, peer: Option<std::net::IpAddr>, headers: &HeaderMap) -> Result<(), ApiError> {
    let disabled = state.config.admin_token.is_none();
    let hint = if disabled { " (admin actions are disabled: start the server with --admin-token)" } else { "" };
    match Caller::of(state, peer, headers).await {
        Ok(Caller::Admin) => Ok(()),
        Ok(Caller::Guest) => {
            Err(Caller::Guest.refuse(format!("send the admin token as `Authorization: Bearer TOKEN`{hint}")))
        }
        Ok(caller) => Err(caller.refuse(format!("only the admin token creates and controls tournaments{hint}"))),
        // Any token is wrong when the server has none: say why.
        Err(_) if disabled => {
            Err(ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::BadToken, format!("not a known token{hint}")))
        }
        Err(e) => Err(e),
    }
}

/// `POST /api/tournaments?starts-at=T`: when it may start (RFC 3339 or
/// unix seconds; default at once).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct CreateQuery {
    starts_at: Option<String>,
}

async fn create(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<CreateQuery>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Summary>), ApiError> {
    check_admin(&state, peer, &headers).await?;
    let starts_at = query.starts_at.as_deref().map(store::parse_starts_at).transpose()?;
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
    let (id, _) =
        store::create(&state.db, body, format, state.config.bot_caps, store::Origin::Network, starts_at).await?;
    state.tournaments.wake();
    let summary = state.db.tournament_summary(id).await?.ok_or_else(|| not_found(id))?;
    Ok((StatusCode::CREATED, Json(summary)))
}

async fn list(State(state): State<Arc<AppState>>) -> Result<Json<Vec<Summary>>, ApiError> {
    Ok(Json(state.db.tournaments().await?))
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
    /// The reserved seats of its open room not yet taken and ready: the
    /// players it waits for (empty once its match is under way or over).
    waiting: Vec<String>,
    /// The node where its room is open (or placed to open), while it has
    /// no result.
    node: Option<tournaments::TableNode>,
    /// Who corrected its result (the last correction), when it was.
    corrected_by: Option<String>,
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
    /// Entrants the organiser withdrew.
    withdrawn: Vec<EntrantId>,
    rounds: Vec<RoundDetail>,
    standings: Vec<Standing>,
    winners: Vec<String>,
    stop_reason: Option<StopReason>,
    /// Who is here: one row per entrant (see [`presence`]).
    presence: Vec<presence::PresenceRow>,
}

/// The players a table's open room still waits for: its reserved seats
/// (the table's seats in order) that are empty or not ready. None once the
/// room's match has started or the room is not this server's.
fn waiting(state: &AppState, room: u64, table: &Table) -> Vec<String> {
    match pairings::live(state, room as i64, table) {
        pairings::Live::Waiting(who) => who,
        pairings::Live::Playing | pairings::Live::Unknown => Vec::new(),
    }
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
    let summary = state.db.tournament_summary(id).await?.ok_or_else(|| not_found(id))?;
    let (from, to) = (range.from_round.unwrap_or(0), range.to_round.unwrap_or(u32::MAX));
    // Read before the replay below is held: it takes the same replay. Its
    // corrections also name who corrected each table.
    let loaded = pairings::Loaded::read(&state, id).await?.ok_or_else(|| not_found(id))?;
    let presence = reads::presence_of(&state, &loaded, &summary).await?;
    let replayed = state.tournaments.replays.current(&state.db, id).await?;
    let Some(Some(Replayed { tournament: t, results, .. })) = replayed.as_deref() else {
        return Err(not_found(id));
    };
    let rooms: HashMap<(u32, u32), StoredTable> = state
        .db
        .tournament_tables_of_rounds(id, from, to)
        .await?
        .into_iter()
        .map(|s| ((s.round, s.table.id), s))
        .collect();
    let nodes = state.db.tournament_table_nodes(id).await?;
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
                    // As corrected by the organiser, if it was.
                    result: res.and_then(|_| t.result_of(r.number, tb.id).cloned()),
                    waiting: match (in_progress, res, stored.and_then(|s| s.room)) {
                        (true, None, Some(room)) => waiting(&state, room as u64, tb),
                        _ => Vec::new(),
                    },
                    node: match (in_progress, res) {
                        (true, None) => nodes.get(&(r.number, tb.id)).cloned(),
                        _ => None,
                    },
                    corrected_by: loaded.corrections.get(&(r.number, tb.id)).map(|c| c.by.clone()),
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
        withdrawn: t.withdrawn(),
        rounds,
        standings: t.standings(),
        winners,
        stop_reason: t.stop_reason(),
        presence,
    }))
}

async fn standings(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Vec<capicua_tournament::Standing>>, ApiError> {
    if state.db.tournament_summary(id).await?.is_none() {
        return Err(not_found(id));
    }
    Ok(Json(state.db.tournament_standings(id).await?))
}
