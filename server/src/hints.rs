//! Hints and post-match reviews: what the strongest hosted bot (`pimc`)
//! would play at a decision, with each legal move's estimated chance to
//! win the hand ([`capicua_strategy::strategy::analyse`]).
//!
//! Every analysis reads one seat's view only (the strategy crate's
//! analysis samples the hidden tiles, it never looks at them), runs on the
//! blocking pool under a global limit of one analysis per core
//! ([`Hints::slots`]), has a fixed sample budget and a wall-time cap, and
//! is cached: asking twice costs nothing.
//!
//! - A hint (`hint` on the WebSocket) answers a seat's pending prompt in
//!   an unrated room that is not a tournament's table (the room's core
//!   checks that, and the seat and turn, before a job comes here); one hint
//!   at a time per connection, refused with `busy` when every slot is
//!   taken rather than queued behind other players' analyses.
//! - A review (`GET /api/games/{id}/review?seat=N`) replays a stored game
//!   and analyses each decision of seat N (a turn with two legal moves or
//!   more) with a smaller budget; refused for a game of a tournament still
//!   being played.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use capicua_engine::{Game, Move, Rules, Seat};
use capicua_protocol::{ErrorCode, HintMove, PromptId, RoomId, ServerMsg};
use capicua_strategy::StopFlag;
use capicua_strategy::TableSeat;
use capicua_strategy::strategy::{Analysis, Budget, Pimc, PimcConfig};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::api::{ApiError, ApiPath, ApiQuery};
use crate::db::Play;
use crate::{AppState, ConnId, Outbox};

/// Deals sampled for a hint: the hosted `pimc`'s own budget, so the hint
/// is what that bot would play.
pub(crate) const HINT_SAMPLES: u32 = 200;
/// The wall-time cap of one hint (a slow variant samples fewer deals).
pub(crate) const HINT_TIME: Duration = Duration::from_secs(2);
/// Deals sampled per decision of a review: a match has dozens of them.
pub(crate) const REVIEW_SAMPLES: u32 = 60;
/// The wall-time cap of one decision of a review.
pub(crate) const REVIEW_TIME: Duration = Duration::from_millis(400);
/// Hints kept (by room, sequence number and seat); the cache starts over
/// beyond this.
const HINTS_CACHED: usize = 1024;
/// Reviews kept (by game and seat); the cache starts over beyond this.
const REVIEWS_CACHED: usize = 64;

/// The shared state of hints and reviews.
pub(crate) struct Hints {
    /// One permit per analysis running: as many as the machine has cores,
    /// so analyses never take every worker of the blocking pool.
    slots: Arc<Semaphore>,
    /// Connections with a hint being computed.
    asking: Mutex<HashSet<ConnId>>,
    /// Answered hints by (room, sequence number, seat).
    cached: Mutex<HashMap<(RoomId, u64, u8), ServerMsg>>,
    /// Computed reviews by (game, seat).
    reviews: Mutex<HashMap<(i64, u8), Arc<Review>>>,
    /// Raised when the server shuts down: a review (many analyses in a
    /// row) ends at once instead of holding the process up.
    pub(crate) stop: StopFlag,
}

impl Default for Hints {
    fn default() -> Hints {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Hints {
            slots: Arc::new(Semaphore::new(cores)),
            asking: Mutex::new(HashSet::new()),
            cached: Mutex::new(HashMap::new()),
            reviews: Mutex::new(HashMap::new()),
            stop: StopFlag::new(),
        }
    }
}

/// A hint to compute: a copy of the game at a seat's pending prompt.
pub(crate) struct HintJob {
    /// The asking connection.
    pub conn: ConnId,
    /// Request id to echo.
    pub id: Option<u64>,
    /// The room.
    pub room: RoomId,
    /// The room's sequence number at the prompt.
    pub seq: u64,
    /// The pending prompt.
    pub prompt: PromptId,
    /// The seat to move (the analysis reads its view only).
    pub seat: Seat,
    /// The game at the prompt.
    pub game: Game,
    /// The room's stop flag: a closing room ends the analysis.
    pub stop: StopFlag,
}

/// Pimc's configuration for an analysis of `samples` deals capped at `time`.
fn config(samples: u32, time: Duration) -> PimcConfig {
    PimcConfig { budget: Budget { samples, time: Some(time) }, ..PimcConfig::default() }
}

/// Three decimals: the estimates are not more precise than that.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The moves of an analysis as the protocol writes them.
fn hint_moves(a: &Analysis) -> Vec<HintMove> {
    a.moves.iter().map(|e| HintMove { r#move: e.mv, win: round3(e.win), value: round3(e.value) }).collect()
}

/// Answers a hint job on `out`: from the cache at once, else computed on
/// the blocking pool; `busy` when the connection already awaits one or
/// every analysis slot is taken.
pub(crate) fn hint(state: &Arc<AppState>, out: Outbox, job: HintJob) {
    let hints = &state.hints;
    let key = (job.room, job.seq, job.seat.0);
    if let Some(msg) = hints.cached.lock().expect("hint cache lock").get(&key).cloned() {
        out.send(job.id, msg);
        return;
    }
    let busy = |message: &str| {
        out.send(job.id, ServerMsg::Error { code: ErrorCode::Busy, message: message.into(), url: None });
    };
    if !hints.asking.lock().expect("hint askers lock").insert(job.conn) {
        return busy("a hint is already being computed for this connection");
    }
    let Ok(permit) = hints.slots.clone().try_acquire_owned() else {
        hints.asking.lock().expect("hint askers lock").remove(&job.conn);
        return busy("every analysis slot is busy: ask again shortly");
    };
    let state = state.clone();
    tokio::spawn(async move {
        let HintJob { conn, id, room, seq, prompt, seat, game, stop } = job;
        let analysed = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut pimc = Pimc::new(config(HINT_SAMPLES, HINT_TIME), seed_of(room, seq, seat.0));
            capicua_strategy::Strategy::watch(&mut pimc, &stop);
            pimc.analyse(&TableSeat::new(&game, seat))
        })
        .await;
        state.hints.asking.lock().expect("hint askers lock").remove(&conn);
        match analysed {
            Ok(a) => {
                let moves = hint_moves(&a);
                let msg = ServerMsg::Hint { room, prompt, seat: seat.0, best: a.best, moves, samples: a.samples };
                if a.samples > 0 {
                    let mut cached = state.hints.cached.lock().expect("hint cache lock");
                    if cached.len() >= HINTS_CACHED {
                        cached.clear();
                    }
                    cached.insert(key, msg.clone());
                }
                out.send(id, msg);
            }
            Err(e) => {
                tracing::error!(error = %e, room, "a hint analysis failed");
                out.send(
                    id,
                    ServerMsg::Error { code: ErrorCode::Internal, message: "the analysis failed".into(), url: None },
                );
            }
        }
    });
}

/// A fixed seed per decision: the same question gets the same answer.
fn seed_of(a: u64, b: u64, seat: u8) -> u64 {
    a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F) ^ seat as u64
}

/// `GET /api/games/{id}/review?seat=N`: each decision of seat N.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Review {
    /// The game.
    pub game: i64,
    /// The seat reviewed.
    pub seat: u8,
    /// Deals sampled per decision at most.
    pub samples: u32,
    /// Every turn of the seat with two legal moves or more, in order.
    pub decisions: Vec<Decision>,
}

/// One decision of a review.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Decision {
    /// The replay step it was taken at: the index of the move in the game's
    /// log (the replay shows this position at step `step`).
    pub step: usize,
    /// The hand, from 0.
    pub hand: usize,
    /// The move played.
    pub played: Move,
    /// Its estimated chance to win the hand (none for a play the lenient
    /// referee let stand although illegal).
    pub played_win: Option<f64>,
    /// What the strongest bot would have played.
    pub best: Move,
    /// Its estimated chance to win the hand.
    pub best_win: f64,
    /// Every legal move with its chance.
    pub moves: Vec<HintMove>,
}

/// Reviews `seat`'s decisions in the game `id`, replayed from `game` (its
/// start) by `moves`: `None` if `stop` was raised meanwhile (a search
/// stopped midway answered from fewer samples, so that is not a review).
fn review_of(id: i64, mut game: Game, moves: &[Move], seat: Seat, stop: &StopFlag) -> Result<Option<Review>, String> {
    let mut decisions = Vec::new();
    let mut legal = capicua_engine::MoveList::new();
    for (step, &m) in moves.iter().enumerate() {
        if game.to_move() == Some(seat) {
            game.fill_legal_moves(&mut legal);
            if legal.len() > 1 {
                if stop.is_stopped() {
                    return Ok(None);
                }
                let seed = seed_of(id as u64, step as u64, seat.0);
                let mut pimc = Pimc::new(config(REVIEW_SAMPLES, REVIEW_TIME), seed);
                capicua_strategy::Strategy::watch(&mut pimc, stop);
                let a = pimc.analyse(&TableSeat::new(&game, seat));
                let best_win = a.of(a.best).map_or(0.0, |e| round3(e.win));
                decisions.push(Decision {
                    step,
                    hand: game.hand_results().len(),
                    played: m,
                    played_win: a.of(m).map(|e| round3(e.win)),
                    best: a.best,
                    best_win,
                    moves: hint_moves(&a),
                });
            }
        }
        game.referee_play(m).map_err(|e| e.to_string())?;
    }
    Ok((!stop.is_stopped()).then_some(Review { game: id, seat: seat.0, samples: REVIEW_SAMPLES, decisions }))
}

/// The review's query.
#[derive(Deserialize)]
pub(crate) struct ReviewQuery {
    seat: u8,
}

/// The review of one seat's decisions in a stored game.
pub(crate) async fn review(
    State(state): State<Arc<AppState>>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<ReviewQuery>,
) -> Result<Json<Arc<Review>>, ApiError> {
    if let Some(r) = state.hints.reviews.lock().expect("review cache lock").get(&(id, q.seat)).cloned() {
        return Ok(Json(r));
    }
    let g = state.db.game(id).await?.ok_or_else(|| ApiError::of(ErrorCode::NoSuchGame, format!("no game {id}")))?;
    if q.seat >= g.play.seats() {
        let message = format!("seats are 0..{}", g.play.seats());
        return Err(ApiError::of(ErrorCode::NoSuchSeat, message).with_field(Some("seat")));
    }
    let Play::Tiles { variant, seating, moves } = g.play else {
        let message = "reviews are offered for dominoes, not for tiles with 3, 4 or 6 faces";
        return Err(ApiError::of(ErrorCode::HintUnavailable, message));
    };
    let status: Option<String> = sqlx::query_scalar(
        "SELECT t.status FROM tournament_matches m JOIN tournaments t ON t.id = m.tournament_id WHERE m.game_id = $1",
    )
    .bind(id)
    .fetch_optional(state.db.pool())
    .await
    .map_err(ApiError::internal)?;
    if status.as_deref().is_some_and(|s| s == "pending" || s == "running") {
        let message = "no review of a game of a tournament still being played";
        return Err(ApiError::of(ErrorCode::HintUnavailable, message));
    }
    let rules = Rules::new(variant).map_err(ApiError::internal)?;
    let permit = state.hints.slots.clone().acquire_owned().await.map_err(ApiError::internal)?;
    let seat = Seat(q.seat);
    let stop = state.hints.stop.clone();
    let shutting_down = || ApiError::of(ErrorCode::ShuttingDown, "the server is shutting down");
    let review = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let game = Game::new(rules.into(), seating, g.seed).map_err(|e| e.to_string())?;
        review_of(g.id, game, &moves, seat, &stop)
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?
    .ok_or_else(shutting_down)?;
    let review = Arc::new(review);
    let mut reviews = state.hints.reviews.lock().expect("review cache lock");
    if reviews.len() >= REVIEWS_CACHED {
        reviews.clear();
    }
    reviews.insert((id, q.seat), review.clone());
    Ok(Json(review))
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::Seating;

    /// A latin match played to its end by the first legal move: its start and moves.
    fn played() -> (Game, Vec<Move>) {
        let rules: Arc<Rules> = Rules::preset("latin").unwrap().into();
        let start = Game::new(rules, Seating::new(4), 3).unwrap();
        let mut game = start.clone();
        let (mut moves, mut legal) = (vec![], capicua_engine::MoveList::new());
        while game.to_move().is_some() {
            game.fill_legal_moves(&mut legal);
            let m = legal[0];
            game.referee_play(m).unwrap();
            moves.push(m);
        }
        (start, moves)
    }

    #[test]
    fn a_raised_stop_flag_ends_a_review_without_an_answer() {
        let (start, moves) = played();
        let review = review_of(1, start.clone(), &moves, Seat(0), &StopFlag::new()).unwrap().expect("a review");
        assert!(!review.decisions.is_empty());
        let stop = StopFlag::new();
        stop.stop();
        assert!(review_of(1, start, &moves, Seat(0), &stop).unwrap().is_none(), "stopped: no partial review");
    }
}
