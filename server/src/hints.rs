//! Hints and post-match reviews: what the strongest hosted bot (`pimc`)
//! would play at a decision, with each legal move's estimated chance to
//! win the hand ([`capicua_strategy::strategy::analyse`]).
//!
//! Every analysis reads one seat's view only (the strategy crate's
//! analysis samples the hidden tiles, it never looks at them), runs on the
//! blocking pool holding one of the server's search slots ([`crate::cpu`],
//! shared with hosted bots), has a fixed sample budget and a wall-time cap,
//! and is cached: asking twice costs nothing.
//!
//! - A hint (`hint` on the WebSocket) answers a seat's pending prompt in
//!   an unrated room that is not a tournament's table (the room's core
//!   checks that, and the seat and turn, before a job comes here); one hint
//!   at a time per connection and per player, `--hints-per-addr` per client
//!   address. Hints queue for a slot, taking turns with searches and
//!   reviews ([`crate::cpu`]), for [`HINT_WAIT`] at most: then `busy`, to be
//!   asked again.
//! - A review (`GET /api/games/{id}/review?seat=N`) replays a stored game
//!   and analyses each decision of seat N (a turn with two legal moves or
//!   more), one decision per slot in the searches' queue, so a review takes
//!   turns with hosted bots instead of holding slots; refused for a game of
//!   a tournament still being played. One review at a time per client
//!   address (another is `busy`); a review is bounded in all by
//!   `--review-secs`, waits included (beyond it, `busy`); a client that
//!   hangs up stops its review at once. A finished review is stored in the
//!   database and served from there by every server afterwards.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{Extensions, header};
use axum::response::{IntoResponse, Response};
use capicua_engine::{Game, Move, Rules, Seat};
use capicua_protocol::{ErrorCode, HintMove, PromptId, RoomId, ServerMsg};
use capicua_strategy::StopFlag;
use capicua_strategy::TableSeat;
use capicua_strategy::strategy::{Analysis, Budget, Pimc, PimcConfig};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::api::{ApiError, ApiPath, ApiQuery};
use crate::cpu::Class;
use crate::db::Play;
use crate::metrics::Metrics;
use crate::state::hints::{Asking, Hints};
use crate::{AppState, ConnId, Outbox};

/// Deals sampled for a hint: the hosted `pimc`'s own budget, so the hint
/// is what that bot would play.
pub(crate) const HINT_SAMPLES: u32 = 200;
/// The wall-time cap of one hint (a slow variant samples fewer deals).
pub(crate) const HINT_TIME: Duration = Duration::from_secs(2);
/// The longest a hint waits for a search slot before it is answered
/// `busy`: a player waits at a prompt, on the clock.
pub(crate) const HINT_WAIT: Duration = Duration::from_secs(3);
/// Deals sampled per decision of a review: a match has dozens of them.
pub(crate) const REVIEW_SAMPLES: u32 = 60;
/// The wall-time cap of one decision of a review (less when the review's
/// time in all runs short).
pub(crate) const REVIEW_TIME: Duration = Duration::from_millis(400);
/// The least time a decision of a review is given: below it the review
/// would answer from a handful of deals, so it is refused `busy` instead.
const REVIEW_TIME_MIN: Duration = Duration::from_millis(10);
/// Hints kept (by room, sequence number and seat); the cache starts over
/// beyond this.
const HINTS_CACHED: usize = 1024;
/// Reviews kept in memory (by game and seat); the cache starts over beyond
/// this (the database keeps them all).
const REVIEWS_CACHED: usize = 64;

/// A hint to compute: a copy of the game at a seat's pending prompt.
pub(crate) struct HintJob {
    /// The asking connection.
    pub conn: ConnId,
    /// Its registered player, if any.
    pub player: Option<i64>,
    /// Its client address, if known.
    pub addr: Option<IpAddr>,
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

/// The moves of an analysis of `game`'s decision as the protocol writes
/// them, one per result as the prompt offers them (moves that leave the
/// same board up to its sides are one, scored by the better estimate), and
/// the best move as the one of them it equals.
fn hint_moves(game: &Game, a: &Analysis) -> (Move, Vec<HintMove>) {
    let mut moves: Vec<HintMove> = Vec::with_capacity(a.moves.len());
    for e in &a.moves {
        let shown = HintMove { r#move: e.mv, win: round3(e.win), value: round3(e.value) };
        match moves.iter_mut().find(|k| game.same_result(k.r#move, e.mv)) {
            Some(k) if shown.value > k.value => *k = HintMove { r#move: k.r#move, ..shown },
            Some(_) => {}
            None => moves.push(shown),
        }
    }
    let best = moves.iter().map(|k| k.r#move).find(|&k| game.same_result(k, a.best)).unwrap_or(a.best);
    (best, moves)
}

/// Answers a hint job on `out`: from the cache at once, else computed on
/// the blocking pool once a search slot is free; `busy` when the connection
/// already awaits one or no slot is free within [`HINT_WAIT`].
pub(crate) fn hint(state: &Arc<AppState>, out: Outbox, job: HintJob) {
    let hints = &state.hints;
    let key = (job.room, job.seq, job.seat.0);
    if let Some(msg) = hints.cached.lock().expect("hint cache lock").get(&key).cloned() {
        out.send(job.id, msg);
        return;
    }
    let busy = |out: &Outbox, id, message: &str| {
        out.send(id, ServerMsg::Error { code: ErrorCode::Busy, message: message.into(), url: None });
    };
    let asker = match Asker::take(state, &job) {
        Ok(asker) => asker,
        Err(why) => return busy(&out, job.id, why),
    };
    let state = state.clone();
    tokio::spawn(async move {
        let HintJob { id, room, seq, prompt, seat, game, stop, .. } = job;
        let Ok(slot) = tokio::time::timeout(HINT_WAIT, state.cpu.acquire(Class::Hint)).await else {
            drop(asker);
            return busy(&out, id, "every search slot is busy: ask again in a second or two");
        };
        let analysed = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let mut pimc = Pimc::new(config(HINT_SAMPLES, HINT_TIME), seed_of(room, seq, seat.0));
            capicua_strategy::Strategy::watch(&mut pimc, &stop);
            let a = pimc.analyse(&TableSeat::new(&game, seat));
            (hint_moves(&game, &a), a.samples)
        })
        .await;
        drop(asker);
        match analysed {
            Ok(((best, moves), samples)) => {
                let msg = ServerMsg::Hint { room, prompt, seat: seat.0, best, moves, samples };
                if samples > 0 {
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

/// A hint's place among those asked: its connection, its player and its
/// address each hold one until the hint is answered (or refused), so one
/// client cannot keep the search slots for itself by asking from many
/// rooms, connections or names.
struct Asker {
    state: Arc<AppState>,
    who: Who,
}

/// Who asks a hint.
#[derive(Clone, Copy, Debug)]
struct Who {
    conn: ConnId,
    player: Option<i64>,
    addr: Option<IpAddr>,
}

impl Asking {
    /// Counts `who` as asking, or says why it may not ask now (`per_addr`
    /// hints an address may have at once, 0 for no limit).
    fn take(&mut self, who: Who, per_addr: usize) -> Result<(), &'static str> {
        if self.conns.contains(&who.conn) {
            return Err("a hint is already being computed for this connection");
        }
        if who.player.is_some_and(|p| self.players.contains(&p)) {
            return Err("a hint is already being computed for this player");
        }
        if let Some(a) = who.addr
            && per_addr > 0
            && self.addrs.get(&a).copied().unwrap_or(0) >= per_addr
        {
            return Err("hints from this address are being computed: ask again in a moment");
        }
        self.conns.insert(who.conn);
        if let Some(p) = who.player {
            self.players.insert(p);
        }
        if let Some(a) = who.addr {
            *self.addrs.entry(a).or_default() += 1;
        }
        Ok(())
    }

    /// `who`'s hint was answered or refused.
    fn give_back(&mut self, who: Who) {
        self.conns.remove(&who.conn);
        if let Some(p) = who.player {
            self.players.remove(&p);
        }
        if let Some(a) = who.addr
            && let Some(n) = self.addrs.get_mut(&a)
        {
            *n -= 1;
            if *n == 0 {
                self.addrs.remove(&a);
            }
        }
    }
}

impl Asker {
    /// Takes the places of the job's asker, or says why it may not ask now.
    fn take(state: &Arc<AppState>, job: &HintJob) -> Result<Asker, &'static str> {
        let who = Who { conn: job.conn, player: job.player, addr: job.addr };
        state.hints.asking.lock().expect("hint askers lock").take(who, state.config.hints_per_addr)?;
        Ok(Asker { state: state.clone(), who })
    }
}

impl Drop for Asker {
    fn drop(&mut self) {
        self.state.hints.asking.lock().expect("hint askers lock").give_back(self.who);
    }
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
    /// The move played, as `moves` lists it (a twin on the other side of
    /// the board is that move).
    pub played: Move,
    /// Its estimated chance to win the hand (none for a play the lenient
    /// referee let stand although illegal).
    pub played_win: Option<f64>,
    /// What the strongest bot would have played.
    pub best: Move,
    /// Its estimated chance to win the hand.
    pub best_win: f64,
    /// Every legal move with its chance, one per result.
    pub moves: Vec<HintMove>,
    /// Deals sampled (fewer than the review's `samples` when the server
    /// was busy or the variant is slow).
    pub samples: u32,
    /// The move played was a mistake: the best move's chance beats it by
    /// more than the estimates' own error ([`is_mistake`]).
    pub mistake: bool,
}

/// Whether a move whose estimated chance is `played` is a mistake beside
/// one of chance `best`, both shares of `samples` sampled deals: only when
/// `best` is higher by more than two standard errors of the difference.
/// Sampling a few dozen deals makes two good moves differ by a few points
/// by chance alone, and two moves that both win every deal are never a
/// mistake, whichever is played. The estimates are taken as independent
/// (they share the deals, so this errs towards not flagging).
pub(crate) fn is_mistake(played: f64, best: f64, samples: u32) -> bool {
    if samples == 0 {
        return false;
    }
    let n = f64::from(samples);
    let variance = |p: f64| p.clamp(0.0, 1.0) * (1.0 - p.clamp(0.0, 1.0)) / n;
    let error = (variance(played) + variance(best)).sqrt();
    best - played > 2.0 * error && best > played
}

/// The steps of `moves`, played from `game`, at which `seat` had a
/// decision: its turn, with two moves of different results or more.
fn decision_steps(mut game: Game, moves: &[Move], seat: Seat) -> Result<Vec<usize>, String> {
    let mut steps = Vec::new();
    let mut legal = capicua_engine::MoveList::new();
    for (step, &m) in moves.iter().enumerate() {
        if game.to_move() == Some(seat) {
            game.fill_distinct_moves(&mut legal);
            if legal.len() > 1 {
                steps.push(step);
            }
        }
        game.referee_play(m).map_err(|e| e.to_string())?;
    }
    Ok(steps)
}

/// One decision of a review to analyse: the game `id`, its moves, the seat,
/// the step of the decision, the analysis' time cap and stop flag.
struct DecisionJob {
    id: i64,
    moves: Arc<[Move]>,
    seat: Seat,
    step: usize,
    time: Duration,
    stop: StopFlag,
}

impl DecisionJob {
    /// Plays the moves from `*at` to the decision's step on `game` (standing
    /// at step `*at`), then analyses the decision.
    fn run(&self, game: &mut Game, at: &mut usize) -> Result<Decision, String> {
        for &m in &self.moves[*at..self.step] {
            game.referee_play(m).map_err(|e| e.to_string())?;
        }
        *at = self.step;
        let seed = seed_of(self.id as u64, self.step as u64, self.seat.0);
        let mut pimc = Pimc::new(config(REVIEW_SAMPLES, self.time), seed);
        capicua_strategy::Strategy::watch(&mut pimc, &self.stop);
        let a = pimc.analyse(&TableSeat::new(game, self.seat));
        let m = self.moves[self.step];
        let (best, moves) = hint_moves(game, &a);
        // A move and its twin on the other side of the board are one move:
        // the played one as the list gives it.
        let played = moves.iter().find(|k| game.same_result(k.r#move, m));
        let played_win = a.of(m).and(played.map(|k| k.win));
        let best_win = moves.iter().find(|k| k.r#move == best).map_or(0.0, |k| k.win);
        Ok(Decision {
            step: self.step,
            hand: game.hand_results().len(),
            played: played.map_or(m, |k| k.r#move),
            played_win,
            best,
            best_win,
            moves,
            samples: a.samples,
            // A play only a lenient referee let stand has no estimate: its
            // penalty is its own verdict.
            mistake: !game.same_result(m, best) && played_win.is_some_and(|p| is_mistake(p, best_win, a.samples)),
        })
    }
}

/// Why a review was not finished.
#[derive(Debug)]
enum Unfinished {
    /// Its time in all ran out, waiting for slots or analysing.
    TooLong,
    /// Its client hung up or the server is shutting down.
    Stopped,
    /// The stored game does not replay (a bug or a damaged row).
    Broken(String),
}

/// Raises a review's stop flag when the request is dropped (its client hung
/// up: the server drops the handler's future) or answered.
struct StopOnDrop(StopFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Counts a review in the `reviews_running` gauge while its computation
/// lives (it ends with the request, or when finished).
struct Running<'a>(&'a std::sync::atomic::AtomicI64);

impl<'a> Running<'a> {
    fn start(gauge: &'a std::sync::atomic::AtomicI64) -> Running<'a> {
        gauge.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Running(gauge)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Holds a client address's one review in progress.
struct Reviewing<'a> {
    hints: &'a Hints,
    addr: Option<IpAddr>,
}

impl Drop for Reviewing<'_> {
    fn drop(&mut self) {
        if let Some(addr) = self.addr {
            self.hints.reviewing.lock().expect("reviewers lock").remove(&addr);
        }
    }
}

/// Runs `job` on the blocking pool once a search slot is free, if one is
/// before `deadline` and before the server shuts down.
async fn on_slot<T: Send + 'static>(
    state: &Arc<AppState>,
    deadline: Instant,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Unfinished> {
    let mut shutdown = state.shutdown();
    let slot = tokio::select! {
        slot = tokio::time::timeout_at(deadline, state.cpu.acquire(Class::Search)) => {
            slot.map_err(|_| Unfinished::TooLong)?
        }
        _ = crate::shutdown_signalled(&mut shutdown) => return Err(Unfinished::Stopped),
    };
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        job()
    })
    .await
    .map_err(|e| Unfinished::Broken(e.to_string()))
}

/// Reviews `seat`'s decisions in game `id` (started as `start`, played by
/// `moves`) before `deadline`: each decision waits its turn for a search
/// slot, then is analysed on the blocking pool, watching `stop`.
async fn compute_review(
    state: &Arc<AppState>,
    id: i64,
    start: Game,
    moves: Arc<[Move]>,
    seat: Seat,
    stop: &StopFlag,
    deadline: Instant,
) -> Result<Review, Unfinished> {
    let _running = Running::start(&state.metrics.reviews_running);
    let stopped = || stop.is_stopped() || state.hints.stop.is_stopped();
    let (game, list) = (start.clone(), moves.clone());
    let steps =
        on_slot(state, deadline, move || decision_steps(game, &list, seat)).await?.map_err(Unfinished::Broken)?;
    let (mut game, mut at) = (start, 0);
    let mut decisions = Vec::with_capacity(steps.len());
    for (k, &step) in steps.iter().enumerate() {
        if stopped() {
            return Err(Unfinished::Stopped);
        }
        // The time left, shared among the decisions left.
        let share = deadline.saturating_duration_since(Instant::now()) / (steps.len() - k) as u32;
        let time = share.min(REVIEW_TIME);
        if time < REVIEW_TIME_MIN {
            return Err(Unfinished::TooLong);
        }
        let job = DecisionJob { id, moves: moves.clone(), seat, step, time, stop: stop.clone() };
        let (back, decision) = on_slot(state, deadline, move || {
            let d = job.run(&mut game, &mut at);
            ((game, at), d)
        })
        .await?;
        (game, at) = back;
        decisions.push(decision.map_err(Unfinished::Broken)?);
    }
    // A search stopped midway answered from fewer samples: not a review.
    if stopped() {
        return Err(Unfinished::Stopped);
    }
    Ok(Review { game: id, seat: seat.0, samples: REVIEW_SAMPLES, decisions })
}

/// The review's query.
#[derive(Deserialize)]
pub(crate) struct ReviewQuery {
    seat: u8,
    /// A private room's invite (see [`crate::replays::check_access`]).
    key: Option<String>,
}

/// A review's JSON as the answer.
fn review_response(body: Arc<str>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The review of one seat's decisions in a stored game: from memory, from
/// the database, or computed (then stored).
pub(crate) async fn review(
    State(state): State<Arc<AppState>>,
    extensions: Extensions,
    headers: axum::http::HeaderMap,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<ReviewQuery>,
) -> Result<Response, ApiError> {
    let peer = crate::limits::peer_of(&extensions);
    crate::replays::check_access(&state, id, q.key.as_deref(), peer, &headers).await?;
    let remember = |body: Arc<str>| {
        let mut reviews = state.hints.reviews.lock().expect("review cache lock");
        if reviews.len() >= REVIEWS_CACHED {
            reviews.clear();
        }
        reviews.insert((id, q.seat), body);
    };
    if let Some(body) = state.hints.reviews.lock().expect("review cache lock").get(&(id, q.seat)).cloned() {
        return Ok(review_response(body));
    }
    // Stored only once finished, which a game of a tournament still being
    // played never is (below): a stored review is always served.
    if let Some(body) = state.db.review(id, q.seat).await? {
        let body: Arc<str> = body.into();
        remember(body.clone());
        return Ok(review_response(body));
    }
    let g = state.db.game(id).await?.ok_or_else(|| ApiError::of(ErrorCode::NoSuchGame, format!("no game {id}")))?;
    if q.seat >= g.play.seats() {
        let message = crate::api::no_such_seat(q.seat, g.play.seats());
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
    let start = Game::new(rules.into(), seating, g.seed).map_err(ApiError::internal)?;
    let secs = state.config.review_time.as_secs().max(1);
    let addr = crate::limits::peer_of(&extensions);
    if let Some(addr) = addr
        && !state.hints.reviewing.lock().expect("reviewers lock").insert(addr)
    {
        let message = format!("a review for this address is being computed: one at a time (retry in {secs} s)");
        return Err(ApiError::of(ErrorCode::Busy, message).with_retry_after(secs));
    }
    let _reviewing = Reviewing { hints: &state.hints, addr };
    let stop = StopFlag::new();
    let _stop_on_drop = StopOnDrop(stop.clone());
    let deadline = Instant::now() + state.config.review_time;
    let review = match compute_review(&state, id, start, moves.into(), Seat(q.seat), &stop, deadline).await {
        Ok(review) => review,
        Err(Unfinished::TooLong) => {
            let message = format!("the server is too busy to finish this review within {secs} s (retry in {secs} s)");
            return Err(ApiError::of(ErrorCode::Busy, message).with_retry_after(secs));
        }
        Err(Unfinished::Stopped) => return Err(ApiError::of(ErrorCode::ShuttingDown, "the server is shutting down")),
        Err(Unfinished::Broken(e)) => return Err(ApiError::internal(e)),
    };
    Metrics::inc(&state.metrics.reviews_computed);
    let body: Arc<str> = serde_json::to_string(&review).map_err(ApiError::internal)?.into();
    // Served even if it could not be stored: the next request computes it
    // again.
    if let Err(e) = state.db.store_review(id, q.seat, &body).await {
        tracing::warn!(error = %e, game = id, seat = q.seat, "storing a review");
    }
    remember(body.clone());
    Ok(review_response(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::Seating;

    #[test]
    fn an_address_and_a_player_ask_one_hint_at_a_time_over_all_their_connections() {
        let mut asking = Asking::default();
        let home: IpAddr = "10.0.0.1".parse().unwrap();
        let ana = Who { conn: 1, player: Some(7), addr: Some(home) };
        asking.take(ana, 1).expect("the first hint");
        let again = asking.take(ana, 1).unwrap_err();
        assert!(again.contains("connection"), "{again}");
        // Ana on another device, at another address: still one at a time.
        let ana_phone = Who { conn: 2, player: Some(7), addr: Some("10.9.9.9".parse().unwrap()) };
        assert!(asking.take(ana_phone, 1).unwrap_err().contains("player"));
        // Another room, another guest connection, the same address.
        let neighbour = Who { conn: 3, player: None, addr: Some(home) };
        assert!(asking.take(neighbour, 1).unwrap_err().contains("address"));
        assert!(asking.take(neighbour, 2).is_ok(), "two per address when the operator allows it");
        asking.give_back(neighbour);
        let elsewhere = Who { conn: 4, player: None, addr: Some("10.0.0.2".parse().unwrap()) };
        assert!(asking.take(elsewhere, 1).is_ok(), "another address asks meanwhile");
        asking.give_back(ana);
        assert!(asking.take(neighbour, 1).is_ok(), "the address's hint was answered");
        asking.give_back(neighbour);
        asking.give_back(elsewhere);
        assert!(asking.conns.is_empty() && asking.players.is_empty() && asking.addrs.is_empty(), "nothing kept");
    }

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
    fn decisions_are_turns_with_a_choice_analysed_in_order() {
        let (start, moves) = played();
        let steps = decision_steps(start.clone(), &moves, Seat(0)).unwrap();
        assert!(!steps.is_empty() && steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
        let moves: Arc<[Move]> = moves.into();
        let (mut game, mut at) = (start, 0);
        for &step in &steps[..2] {
            let job = DecisionJob {
                id: 1,
                moves: moves.clone(),
                seat: Seat(0),
                step,
                time: REVIEW_TIME,
                stop: StopFlag::new(),
            };
            let d = job.run(&mut game, &mut at).unwrap();
            assert_eq!((d.step, d.played, at), (step, moves[step], step));
            assert!(d.moves.len() > 1 && d.samples > 0, "{d:?}");
            assert_eq!(game.to_move(), Some(Seat(0)));
        }
    }

    /// A decision is a mistake only when the chances differ by more than
    /// the sampling error of the estimates.
    #[test]
    fn a_mistake_is_a_loss_beyond_the_estimates_error() {
        // Both moves win every sampled deal: never a mistake.
        assert!(!is_mistake(1.0, 1.0, 60));
        assert!(!is_mistake(0.0, 0.0, 60));
        // A few points apart on 60 deals is noise (two standard errors of
        // 0.55 vs 0.5 on 60 deals are about 0.18).
        assert!(!is_mistake(0.5, 0.55, 60));
        assert!(!is_mistake(0.97, 1.0, 60));
        // A clear loss is one.
        assert!(is_mistake(0.2, 0.8, 60));
        assert!(is_mistake(0.5, 1.0, 60));
        // The same gap is a mistake with enough deals, not with few.
        assert!(is_mistake(0.5, 0.6, 2000));
        assert!(!is_mistake(0.5, 0.6, 20));
        // A better played move, or no deals at all, is no mistake.
        assert!(!is_mistake(0.9, 0.1, 60));
        assert!(!is_mistake(0.0, 1.0, 0));
    }

    #[test]
    fn a_raised_stop_flag_ends_a_decision_at_once() {
        let (start, moves) = played();
        let step = decision_steps(start.clone(), &moves, Seat(0)).unwrap()[0];
        let stop = StopFlag::new();
        stop.stop();
        let job =
            DecisionJob { id: 1, moves: moves.into(), seat: Seat(0), step, time: Duration::from_secs(3600), stop };
        let t0 = std::time::Instant::now();
        let d = job.run(&mut start.clone(), &mut 0).unwrap();
        assert!(d.samples < REVIEW_SAMPLES, "{d:?}");
        assert!(t0.elapsed() < Duration::from_secs(60));
    }
}
