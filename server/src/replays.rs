//! Replays of stored games (`GET /api/games/{id}`), a page of steps at a
//! time.
//!
//! A step carries the viewer's whole view, and a view grows with the hand's
//! history: a long match with a big set (thousands of moves of
//! double-eighteen) is hundreds of megabytes of steps. So a replay is
//! answered in pages. The moves before the page are replayed without taking
//! views, and the page ends at `limit` steps or before the step that would
//! take its steps past `--replay-page-bytes`, whichever comes first (one
//! step alone is never cut): a request holds one game and one page, whatever
//! the match's length.
//!
//! The requests of one address being answered at once are capped
//! (`--replays-per-addr`): a page counts until the last of its bytes is
//! handed to the socket, so a client that never reads its answers holds at
//! most that many pages, and the rest of its requests get `429`.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{Extensions, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use capicua_engine::poly::{PolyGame, PolyMove, PolyVariant};
use capicua_engine::{Game, Move, Rules, Seat, Seating, Variant};
use capicua_protocol::ErrorCode;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::api::{ApiError, ApiPath, ApiQuery};
use crate::db::tournaments::GameCorrection;
use crate::db::{Play, SeatRating, SeatRecord, StoredGame};

/// The most steps in one page, and the default `limit`: the byte bound
/// usually ends a page first.
pub(crate) const MAX_PAGE_STEPS: usize = 1000;

/// The pieces a page's body is handed to the socket in: the permit is let
/// go once the last one is taken, so the bytes a slow reader still holds
/// past it are at most the transport's buffer.
const CHUNK: usize = 64 * 1024;

#[derive(Deserialize)]
pub(crate) struct ReplayQuery {
    seat: Option<u8>,
    from: Option<usize>,
    limit: Option<usize>,
    /// A private room's invite: the key to its games.
    key: Option<String>,
}

/// Refuses a private room's game to whoever shows neither its room's
/// invite (`key`), nor the token of a registered player seated in it, nor
/// the admin's: as `no-such-game`, so a stranger learns nothing of it.
pub(crate) async fn check_access(
    state: &AppState,
    id: i64,
    key: Option<&str>,
    peer: Option<std::net::IpAddr>,
    headers: &axum::http::HeaderMap,
) -> Result<(), ApiError> {
    let Some((Some(hash), players)) = state.db.game_access(id).await? else { return Ok(()) };
    if key.is_some_and(|k| crate::secret::same(&crate::db::hash_token(k), &hash)) {
        return Ok(());
    }
    match crate::api::Caller::of(state, peer, headers).await? {
        crate::api::Caller::Admin => Ok(()),
        crate::api::Caller::Player(p) if players.contains(&p) => Ok(()),
        _ => Err(ApiError::of(ErrorCode::NoSuchGame, format!("no game {id}"))),
    }
}

/// One step of a replay: what the viewer saw after a move.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ReplayStep<View, Ev, End> {
    /// The events of the move, as the viewer saw them (a poly `drew` names
    /// its tile to the drawer's viewpoint only).
    events: Vec<Ev>,
    /// The viewer's view afterwards.
    view: View,
    /// When the move ended a hand: its final position, hands face up, as
    /// the live frame's `hand-end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    hand_end: Option<End>,
}

/// A page of a finished game from one viewpoint, but its steps (written
/// after it): never more than that viewer saw during play (no seed, no raw
/// deal). Of either family: its variant, views and events are two-faced or
/// poly.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ReplayHead<'a, V, View> {
    /// The game id.
    id: i64,
    /// The room it was played in.
    room: Option<i64>,
    /// A poly game (absent for a two-faced one).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    poly: bool,
    /// The variant.
    variant: &'a V,
    /// The viewpoint, `None` for the spectator's.
    seat: Option<u8>,
    /// Who sat where.
    seats: &'a [SeatRecord],
    /// Final scores by side: of the result that counts (the organiser's
    /// correction of a tournament table, if any).
    scores: &'a [i32],
    /// The winning side of the result that counts.
    winner: Option<u8>,
    /// The scores as played, when a correction replaced them.
    #[serde(skip_serializing_if = "Option::is_none")]
    played_scores: Option<&'a [i32]>,
    /// The winning side as played, when a correction replaced it (absent
    /// otherwise; `null` for a draw as played).
    #[serde(skip_serializing_if = "Option::is_none")]
    played_winner: Option<Option<u8>>,
    /// The organiser's correction of the tournament table this game was.
    #[serde(skip_serializing_if = "Option::is_none")]
    correction: Option<&'a GameCorrection>,
    /// The seat whose side forfeited.
    forfeit: Option<u8>,
    /// What a rated game did to its seats' ratings (absent when it rated none).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    ratings: &'a [SeatRating],
    /// The view at the start.
    start: View,
    /// Moves in the game: steps in all its pages.
    total_steps: usize,
    /// The index of this page's first step.
    from: usize,
}

/// A page's JSON body, written as its steps come.
struct PageWriter {
    buf: Vec<u8>,
    /// Where the steps start in `buf`.
    steps_at: usize,
    steps: usize,
    limit: usize,
    budget: usize,
}

impl PageWriter {
    /// A page of at most `limit` steps and `budget` bytes of steps after `head`.
    fn new<H: Serialize>(head: &H, limit: usize, budget: usize) -> Result<PageWriter, ApiError> {
        let mut buf = serde_json::to_vec(head).map_err(ApiError::internal)?;
        // The head is an object: its closing brace gives way to the steps.
        buf.pop();
        buf.extend_from_slice(br#","steps":["#);
        Ok(PageWriter { steps_at: buf.len(), buf, steps: 0, limit, budget })
    }

    /// Whether the page takes no more steps.
    fn full(&self) -> bool {
        self.steps >= self.limit
    }

    /// Adds a step; false (the step left out) when it would take the page's
    /// steps past the budget and it is not the page's first.
    fn push<S: Serialize>(&mut self, step: &S) -> Result<bool, ApiError> {
        let mark = self.buf.len();
        if self.steps > 0 {
            self.buf.push(b',');
        }
        serde_json::to_writer(&mut self.buf, step).map_err(ApiError::internal)?;
        if self.steps > 0 && self.buf.len() - self.steps_at > self.budget {
            self.buf.truncate(mark);
            return Ok(false);
        }
        self.steps += 1;
        Ok(true)
    }

    /// The body, naming the next page's first step (`None`: this is the last).
    fn finish(mut self, next: Option<usize>) -> Vec<u8> {
        self.buf.extend_from_slice(br#"],"next":"#);
        match next {
            Some(n) => self.buf.extend_from_slice(n.to_string().as_bytes()),
            None => self.buf.extend_from_slice(b"null"),
        }
        self.buf.push(b'}');
        self.buf
    }
}

/// What a page asks for, checked.
#[derive(Clone, Copy)]
struct Window {
    seat: Option<u8>,
    from: usize,
    limit: usize,
    budget: usize,
}

/// `GET /api/games/{id}?seat=N&from=K&limit=M`: a page of a stored game's
/// replay from seat N's viewpoint (or a spectator's), from step K (0 by
/// default), of at most M steps ([`MAX_PAGE_STEPS`] by default and at most)
/// and `--replay-page-bytes` of steps.
pub(crate) async fn game(
    State(state): State<Arc<AppState>>,
    extensions: Extensions,
    headers: axum::http::HeaderMap,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<ReplayQuery>,
) -> Result<Response, ApiError> {
    let peer = crate::limits::peer_of(&extensions);
    let permit = match admit(&state, peer) {
        Ok(permit) => permit,
        Err(refused) => return refused,
    };
    let bad = |m: String, field: &str| {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, m).with_field(Some(field))
    };
    let limit = q.limit.unwrap_or(MAX_PAGE_STEPS);
    if !(1..=MAX_PAGE_STEPS).contains(&limit) {
        return Err(bad(format!("limit must be 1 to {MAX_PAGE_STEPS}, not {limit}"), "limit"));
    }
    check_access(&state, id, q.key.as_deref(), peer, &headers).await?;
    let g = state
        .db
        .game(id)
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::of(ErrorCode::NoSuchGame, format!("no game {id}")))?;
    let correction = state.db.game_correction(id).await.map_err(ApiError::internal)?;
    if let Some(s) = q.seat
        && s >= g.play.seats()
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::NoSuchSeat,
            crate::api::no_such_seat(s, g.play.seats()),
        ));
    }
    let total = g.play.plies();
    let from = q.from.unwrap_or(0);
    if from > total {
        return Err(bad(format!("from must be 0 to {total} (the game's steps), not {from}"), "from"));
    }
    let window = Window { seat: q.seat, from, limit, budget: state.config.replay_page_bytes };
    // Replaying thousands of moves is CPU work: off the workers that move
    // every connection's bytes.
    let body = tokio::task::spawn_blocking(move || page(g, correction, window)).await.map_err(ApiError::internal)??;
    let body = Bytes::from(body);
    let chunks: Vec<Bytes> =
        (0..body.len()).step_by(CHUNK).map(|at| body.slice(at..(at + CHUNK).min(body.len()))).collect();
    // The stream owns the permit: it is dropped with the stream, once the
    // transport has taken the last chunk (or the client is gone).
    let stream = futures_util::stream::iter(chunks).map(move |chunk| {
        let _held = &permit;
        Ok::<_, std::convert::Infallible>(chunk)
    });
    let mut response = Body::from_stream(stream).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

/// Whether an address may have one more replay page now: so many a minute,
/// and so many being sent at once. The permit it gives back is held until
/// the page's last byte is taken.
#[allow(clippy::result_large_err)]
fn admit(
    state: &AppState,
    peer: Option<std::net::IpAddr>,
) -> Result<Option<crate::limits::Slot<std::net::IpAddr>>, Result<Response, ApiError>> {
    // A page is up to `--replay-page-bytes` to build and send: an address
    // gets so many a minute, beside the HTTP API's reads.
    if let Some(wait) = peer.and_then(|a| state.http_limits.check_replay_page(a).err()) {
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let per_min = state.config.replay_pages_per_min;
        let message = format!("at most {per_min} replay pages a minute for one address; retry in {} s", secs.max(1));
        return Err(Err(
            ApiError::new(StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited, message).with_retry_after(secs)
        ));
    }
    let Some(addr) = peer else { return Ok(None) };
    match state.replays.take(addr) {
        Some(p) => Ok(Some(p)),
        None => {
            let max = state.config.replays_per_addr;
            let mut response = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!(
                    "at most {max} replay requests of one address are answered at once; ask again once one is read"
                ),
            )
            .into_response();
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            Err(Ok(response))
        }
    }
}

/// The page's JSON body.
fn page(g: StoredGame, correction: Option<GameCorrection>, w: Window) -> Result<Vec<u8>, ApiError> {
    let StoredGame { id, room_id: room, play, seed, scores, winner, forfeit, seats, ratings, .. } = g;
    let sides: Vec<u8> = seats.iter().map(|s| s.side).collect();
    let counted = correction.as_ref().map(|c| c.by_side(&sides, &scores));
    let facts = Facts { id, room, seats, scores, winner, forfeit, ratings, total: play.plies(), correction, counted };
    match play {
        Play::Tiles { variant, seating, moves } => tiles_page(&facts, &variant, seating, &moves, seed, w),
        Play::Poly { variant, seats, moves } => poly_page(&facts, &variant, seats, moves, seed, w),
    }
}

/// What a page tells of its game besides the play, whatever its family.
struct Facts {
    id: i64,
    room: Option<i64>,
    seats: Vec<SeatRecord>,
    scores: Vec<i32>,
    winner: Option<u8>,
    forfeit: Option<u8>,
    ratings: Vec<SeatRating>,
    /// The game's steps.
    total: usize,
    /// The organiser's correction of its tournament table.
    correction: Option<GameCorrection>,
    /// The corrected result by side (scores, winner), when corrected.
    counted: Option<(Vec<i32>, Option<u8>)>,
}

impl Facts {
    /// The head of a page from `w`'s viewpoint, with the view at the start.
    fn head<'a, V, View>(&'a self, poly: bool, variant: &'a V, w: Window, start: View) -> ReplayHead<'a, V, View> {
        ReplayHead {
            id: self.id,
            room: self.room,
            poly,
            variant,
            seat: w.seat,
            seats: &self.seats,
            scores: self.counted.as_ref().map_or(&self.scores, |c| &c.0),
            winner: self.counted.as_ref().map_or(self.winner, |c| c.1),
            played_scores: self.counted.as_ref().map(|_| &self.scores[..]),
            played_winner: self.counted.as_ref().map(|_| self.winner),
            correction: self.correction.as_ref(),
            forfeit: self.forfeit,
            ratings: &self.ratings,
            start,
            total_steps: self.total,
            from: w.from,
        }
    }
}

/// A page of a two-faced game.
fn tiles_page(
    facts: &Facts,
    variant: &Variant,
    seating: Seating,
    moves: &[Move],
    seed: u64,
    w: Window,
) -> Result<Vec<u8>, ApiError> {
    let rules = Rules::new(variant.clone()).map_err(ApiError::internal)?;
    let mut game = Game::new(rules.into(), seating, seed).map_err(ApiError::internal)?;
    game.keep_hand_ends(true);
    let snap = |game: &Game| match w.seat {
        Some(s) => game.view(Seat(s)).snapshot(),
        None => game.spectator_view().snapshot(),
    };
    let mut out = PageWriter::new(&facts.head(false, variant, w, snap(&game)), w.limit, w.budget)?;
    let next = write_steps(&mut out, w.from, moves, |m, shown| {
        // `referee_play` also replays the plays a lenient referee let stand.
        let ruling = game.referee_play(*m).map_err(ApiError::internal)?;
        let end = game.take_hand_end();
        if !shown {
            return Ok(None);
        }
        let hand_end = end.as_deref().and_then(|end| crate::table::tiles_hand_end(end, w.seat.map(Seat)));
        Ok(Some(ReplayStep { events: ruling.events().to_vec(), view: snap(&game), hand_end }))
    })?;
    Ok(out.finish(next))
}

/// A page of a poly game.
fn poly_page(
    facts: &Facts,
    variant: &PolyVariant,
    seats: u8,
    moves: Vec<PolyMove>,
    seed: u64,
    w: Window,
) -> Result<Vec<u8>, ApiError> {
    let rules = variant.validate().map_err(ApiError::internal)?;
    let mut game = PolyGame::new(rules, seats, seed).map_err(ApiError::internal)?;
    game.keep_hand_ends(true);
    let snap = |game: &PolyGame| match w.seat {
        Some(s) => game.view(s).snapshot(),
        None => game.spectator_snapshot(),
    };
    let mut out = PageWriter::new(&facts.head(true, variant, w, snap(&game)), w.limit, w.budget)?;
    let next = write_steps(&mut out, w.from, moves, |m, shown| {
        let events = game.play(m).map_err(ApiError::internal)?;
        let end = game.take_hand_end();
        if !shown {
            return Ok(None);
        }
        let hand_end = end.as_deref().and_then(|end| crate::table::poly_hand_end(end, &events, w.seat.map(Seat)));
        let events: Vec<_> = events.iter().map(|e| e.seen_by(w.seat)).collect();
        Ok(Some(ReplayStep { events, view: snap(&game), hand_end }))
    })?;
    Ok(out.finish(next))
}

/// Plays `moves` in order and writes the steps from `from` into `out` until
/// it is full. `play` plays one move and, when it is `shown` (at or past
/// `from`), returns its step: the moves before the page are played without
/// taking views. Returns the next page's first step (`None`: none is left).
fn write_steps<M, S: Serialize>(
    out: &mut PageWriter,
    from: usize,
    moves: impl IntoIterator<Item = M>,
    mut play: impl FnMut(M, bool) -> Result<Option<S>, ApiError>,
) -> Result<Option<usize>, ApiError> {
    for (i, m) in moves.into_iter().enumerate() {
        let shown = i >= from;
        if shown && out.full() {
            return Ok(Some(i));
        }
        if let Some(step) = play(m, shown)?
            && !out.push(&step)?
        {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_stops_before_the_step_that_would_pass_its_bytes_but_keeps_one() {
        #[derive(Serialize)]
        struct Head {
            id: i64,
        }
        let step = "x".repeat(40);
        let mut w = PageWriter::new(&Head { id: 7 }, 10, 100).unwrap();
        assert!(w.push(&step).unwrap());
        assert!(w.push(&step).unwrap(), "two steps of 42 bytes and a comma: 85");
        assert!(!w.push(&step).unwrap(), "a third would be 128");
        let body: serde_json::Value = serde_json::from_slice(&w.finish(Some(2))).unwrap();
        assert_eq!(body, serde_json::json!({"id": 7, "steps": [step, step], "next": 2}));
        let mut w = PageWriter::new(&Head { id: 7 }, 10, 10).unwrap();
        assert!(w.push(&step).unwrap(), "the first step alone is never cut");
        assert!(!w.push(&"y").unwrap());
        let mut w = PageWriter::new(&Head { id: 7 }, 1, 1000).unwrap();
        assert!(w.push(&step).unwrap());
        assert!(w.full(), "limit reached");
        let body: serde_json::Value = serde_json::from_slice(&w.finish(None)).unwrap();
        assert_eq!(body["next"], serde_json::Value::Null);
    }
}
