//! One batch of finished games as the writer commits it: the games, seats
//! and hands as multi-row inserts, the ratings [`crate::ratings`] computes
//! for them, and their tournament results with the standings the
//! tournaments' [`Replicas`] give, all in one transaction.

use std::collections::HashMap;
use std::sync::Arc;

use capicua_engine::Variant;
use sqlx::{Any, AnyPool, Row, Transaction};

use super::StoreJob;
use crate::db::games::{Play, SeatKind};
use crate::db::ratings;
use crate::db::tournaments::lock;
use crate::db::tournaments::log::{insert_match, last_control, replica};
use crate::db::tournaments::standings::write_standings;
use crate::db::tournaments::tables::arena_rounds_from;
use crate::db::{Backend, DbError, now_ms, now_secs};
use crate::ratings::{Rated, Ratings};
use crate::replicas::Replicas;

/// Rows per multi-row `INSERT` (SQLite allows 32,766 bound values, PostgreSQL 65,535).
const GAME_ROWS: usize = 64;
const SEAT_ROWS: usize = 128;
const HAND_ROWS: usize = 256;
const RATING_ROWS: usize = 128;

/// What the writer knows of the committed database.
pub(super) struct WriterState {
    /// The `game-stores` counter as this writer's last commit (or the load)
    /// left it: the memory below is the committed state while nobody else
    /// moved it.
    pub(super) generation: i64,
    /// Every rating, by (variant, player).
    pub(super) ratings: Ratings,
    /// The last variant encoded, and its JSON (games of a room share it).
    variant_json: Option<(Variant, Arc<str>)>,
    /// Running tournaments as their committed log leaves them, loaded
    /// at their first stored match (dropped with the state after a failed
    /// transaction, as they may hold results that were never committed).
    pub(super) tournaments: Replicas,
}

impl WriterState {
    pub(super) async fn load(pool: &AnyPool) -> Result<WriterState, DbError> {
        // The counter first: a store committed between the two reads makes
        // the first batch find it moved and load the ratings again.
        let generation = generation(pool).await?;
        let ratings = ratings::load(pool).await?;
        Ok(WriterState { generation, ratings, variant_json: None, tournaments: Replicas::default() })
    }

    /// The JSON of a game's variant; a two-faced one is cached (a run of
    /// games of one variant encodes it once).
    fn variant_json(&mut self, play: &Play) -> Result<Arc<str>, DbError> {
        let v = match play {
            Play::Tiles { variant, .. } => variant,
            Play::Poly { variant, .. } => return Ok(serde_json::to_string(variant)?.into()),
        };
        if let Some((cached, json)) = &self.variant_json
            && cached == v
        {
            return Ok(json.clone());
        }
        let json: Arc<str> = serde_json::to_string(v)?.into();
        self.variant_json = Some((v.clone(), json.clone()));
        Ok(json)
    }
}

/// The `game-stores` counter as committed.
async fn generation<'e>(conn: impl sqlx::Executor<'e, Database = Any>) -> Result<i64, DbError> {
    Ok(sqlx::query("SELECT value FROM counters WHERE name = 'game-stores'").fetch_one(conn).await?.try_get("value")?)
}

type AnyQuery<'a> = sqlx::query::Query<'a, Any, sqlx::any::AnyArguments<'a>>;

/// `INSERT INTO table (cols) VALUES ($1, ...), ...` for `rows` rows, with a
/// tail; with `positional`, anonymous `?` placeholders instead. SQLite finds
/// a named placeholder's number by a scan of the statement's names, once
/// per placeholder on every execution: for a statement of a thousand
/// placeholders that scan cost more than the insert itself (it halved the
/// games stored per second), while `?` needs none. PostgreSQL knows only `$N`.
pub(super) fn multi_insert(head: &str, cols: usize, rows: usize, tail: &str, positional: bool) -> String {
    let values: Vec<String> = (0..rows)
        .map(|r| {
            let row: Vec<String> =
                (1..=cols).map(|c| if positional { "?".to_string() } else { format!("${}", r * cols + c) }).collect();
            format!("({})", row.join(", "))
        })
        .collect();
    format!("{head} VALUES {}{tail}", values.join(", "))
}

/// Runs a multi-row insert over `items` in chunks of `per` rows; `bind`
/// binds one item's values. Full chunks reuse one prepared statement.
async fn insert_rows<T>(
    tx: &mut Transaction<'_, Any>,
    head: &str,
    cols: usize,
    tail: &str,
    per: usize,
    items: &[T],
    bind: impl for<'a> Fn(AnyQuery<'a>, &'a T) -> AnyQuery<'a>,
) -> Result<(), DbError> {
    let positional = Backend::of_connection(tx) == Backend::Sqlite;
    let full = multi_insert(head, cols, per, tail, positional);
    for chunk in items.chunks(per) {
        let partial;
        let sql: &str = if chunk.len() == per {
            &full
        } else {
            partial = multi_insert(head, cols, chunk.len(), tail, positional);
            &partial
        };
        // A partial chunk's statement is used once: not worth caching.
        let mut q = sqlx::query(sql).persistent(chunk.len() == per);
        for item in chunk {
            q = bind(q, item);
        }
        // The statement text is owned by this frame; run it before it goes.
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

struct GameRow<'a> {
    id: i64,
    room_id: Option<i64>,
    variant: &'a str,
    variant_json: Arc<str>,
    seed: i64,
    seating_json: &'a str,
    moves_json: &'a str,
    scores_json: &'a str,
    winner: Option<i64>,
    forfeit: Option<i64>,
    hands: i64,
    rated: bool,
    finished_at: i64,
    poly: bool,
}

struct SeatRow<'a> {
    game_id: i64,
    seat: i64,
    side: i64,
    player_id: Option<i64>,
    name: &'a str,
    kind: SeatKind,
    score: i64,
    /// What the game did to the player's rating, when it rated them.
    change: Option<crate::ratings::Change>,
}

struct HandRow<'a> {
    game_id: i64,
    hand: i64,
    result_json: &'a str,
}

/// Stores `batch` in one transaction and advances `st` once it is
/// committed; returns the id of the first game.
pub(super) async fn store_batch(pool: &AnyPool, st: &mut WriterState, batch: &[StoreJob]) -> Result<i64, DbError> {
    // Everything is encoded before the transaction opens (the moves, scores
    // and hands as JSON); the rows are only borrowed from it.
    let now = now_secs();
    let mut tx = pool.begin().await?;
    let generation = take_turn(&mut tx, st).await?;
    let max: Option<i64> =
        sqlx::query("SELECT MAX(id) AS max_id FROM games").fetch_one(&mut *tx).await?.try_get("max_id")?;
    let first = max.unwrap_or(0) + 1;
    let rows = Rows::of(st, batch, first, now)?;
    rows.insert(&mut tx).await?;
    record_matches(&mut tx, st, batch, first).await?;
    let touched: Vec<((String, i64), Rated)> = rows.touched.into_iter().collect();
    upsert_ratings(&mut tx, &touched).await?;
    tx.commit().await?;
    st.generation = generation;
    st.ratings.extend(touched);
    Ok(first)
}

/// Takes this transaction's turn on the `game-stores` counter and returns
/// its new value. The counter's row lock makes the stores of every writer
/// on this database one sequence, held to the commit: games are numbered
/// and rated in the order they commit, whichever server stores them, so a
/// replay of the games in id order gives the ratings table.
async fn take_turn(tx: &mut Transaction<'_, Any>, st: &mut WriterState) -> Result<i64, DbError> {
    let generation: i64 =
        sqlx::query("UPDATE counters SET value = value + 1 WHERE name = 'game-stores' RETURNING value")
            .fetch_one(&mut **tx)
            .await?
            .try_get("value")?;
    if generation != st.generation + 1 {
        // Another server stored games since this one last did: what this
        // writer keeps of ratings and tournaments may be behind.
        tracing::debug!(ours = st.generation, now = generation - 1, "another writer stored games; reloading");
        st.ratings = ratings::load(&mut **tx).await?;
        st.tournaments.clear();
    }
    Ok(generation)
}

/// The rows of a batch, borrowed from its jobs, and the ratings its rated
/// games leave.
struct Rows<'a> {
    games: Vec<GameRow<'a>>,
    seats: Vec<SeatRow<'a>>,
    hands: Vec<HandRow<'a>>,
    /// Ratings changed by the batch, by (board, player).
    touched: Ratings,
}

impl<'a> Rows<'a> {
    /// The rows of `batch`, numbered from `first`, finished at `now`.
    fn of(st: &mut WriterState, batch: &'a [StoreJob], first: i64, now: i64) -> Result<Rows<'a>, DbError> {
        let mut rows = Rows {
            games: Vec::with_capacity(batch.len()),
            seats: Vec::with_capacity(batch.len() * 4),
            hands: Vec::with_capacity(batch.len() * 4),
            touched: HashMap::new(),
        };
        for (i, job) in batch.iter().enumerate() {
            let (g, e) = (&job.record, &job.encoded);
            let id = first + i as i64;
            rows.games.push(GameRow {
                id,
                room_id: g.room_id,
                variant: g.play.name(),
                variant_json: st.variant_json(&g.play)?,
                seed: g.seed as i64,
                seating_json: &e.seating_json,
                moves_json: &e.moves_json,
                scores_json: &e.scores_json,
                winner: g.winner.map(i64::from),
                forfeit: g.forfeit.map(i64::from),
                hands: g.hands.len() as i64,
                rated: g.rated,
                finished_at: now,
                poly: g.play.is_poly(),
            });
            let changes = if crate::ratings::counts(g) {
                crate::ratings::rate(&st.ratings, &mut rows.touched, g)
            } else {
                Vec::new()
            };
            for s in &g.seats {
                rows.seats.push(SeatRow {
                    game_id: id,
                    seat: s.seat as i64,
                    side: s.side as i64,
                    player_id: s.player_id,
                    name: &s.name,
                    kind: s.kind,
                    score: g.scores.get(s.side as usize).copied().unwrap_or(0) as i64,
                    change: changes.iter().find(|c| Some(c.player) == s.player_id).copied(),
                });
            }
            for (hand, json) in &e.hands {
                rows.hands.push(HandRow { game_id: id, hand: *hand, result_json: json });
            }
        }
        Ok(rows)
    }

    /// Inserts the games, their seats and their hands.
    async fn insert(&self, tx: &mut Transaction<'_, Any>) -> Result<(), DbError> {
        insert_rows(
            tx,
            "INSERT INTO games (id, room_id, variant, variant_json, seed, seating_json, moves_json, scores_json, winner, \
             forfeit, hands, rated, finished_at, poly)",
            14,
            "",
            GAME_ROWS,
            &self.games,
            |q, g| {
                q.bind(g.id)
                    .bind(g.room_id)
                    .bind(g.variant)
                    .bind(&*g.variant_json)
                    .bind(g.seed)
                    .bind(g.seating_json)
                    .bind(g.moves_json)
                    .bind(g.scores_json)
                    .bind(g.winner)
                    .bind(g.forfeit)
                    .bind(g.hands)
                    .bind(i64::from(g.rated))
                    .bind(g.finished_at)
                    .bind(i64::from(g.poly))
            },
        )
        .await?;
        insert_rows(
            tx,
            "INSERT INTO game_seats (game_id, seat, side, player_id, name, kind, score, mu_before, sigma_before, \
             mu_after, sigma_after)",
            11,
            "",
            SEAT_ROWS,
            &self.seats,
            |q, s| {
                let (before, after) = (s.change.map(|c| c.before), s.change.map(|c| c.after));
                q.bind(s.game_id)
                    .bind(s.seat)
                    .bind(s.side)
                    .bind(s.player_id)
                    .bind(s.name)
                    .bind(s.kind)
                    .bind(s.score)
                    .bind(before.map(|r| r.rating))
                    .bind(before.map(|r| r.uncertainty))
                    .bind(after.map(|r| r.rating))
                    .bind(after.map(|r| r.uncertainty))
            },
        )
        .await?;
        insert_rows(tx, "INSERT INTO hands (game_id, hand, result_json)", 3, "", HAND_ROWS, &self.hands, |q, h| {
            q.bind(h.game_id).bind(h.hand).bind(h.result_json)
        })
        .await
    }
}

/// Inserts the batch's tournament results, game `first + i` deciding job
/// `i`'s, and rewrites the standings of each tournament they move.
///
/// A tournament match is stored with its game: a result is never
/// committed without the game that decided it, nor the reverse. The
/// standings rows are rewritten in the same transaction, so the
/// `tournament_standings` view is exact at every commit (a crash between
/// a match and its standings would leave the view behind the results).
async fn record_matches(
    tx: &mut Transaction<'_, Any>,
    st: &mut WriterState,
    batch: &[StoreJob],
    first: i64,
) -> Result<(), DbError> {
    let mut standings_of = Vec::new();
    for (i, job) in batch.iter().enumerate() {
        let Some(link) = &job.record.tournament else { continue };
        let id = link.tournament;
        lock(tx, id).await?;
        let control = last_control(tx, id).await?;
        if st.tournaments.needs_reading(id, control) {
            // Read before this match is inserted: the replica holds the committed log.
            if let Some(t) = replica(tx, id).await? {
                st.tournaments.hold(id, t, control);
            }
        }
        insert_match(tx, first + i as i64, job.record.room_id, link).await?;
        // An arena's tables are paired as games end: its table is stored before its room opens.
        if let Some(known) = st.tournaments.arena_tables_known(id) {
            let rounds = arena_rounds_from(&mut **tx, id, known).await?;
            st.tournaments.add_arena_tables(id, rounds);
        }
        if st.tournaments.record(id, link.result.clone()) && !standings_of.contains(&id) {
            standings_of.push(id);
        }
    }
    for id in standings_of {
        if let Some(standings) = st.tournaments.settle(id, now_ms()) {
            write_standings(tx, id, &standings).await?;
        }
    }
    Ok(())
}

/// Writes the ratings a batch changed.
async fn upsert_ratings(tx: &mut Transaction<'_, Any>, touched: &[((String, i64), Rated)]) -> Result<(), DbError> {
    insert_rows(
        tx,
        "INSERT INTO ratings (variant, player_id, mu, sigma, ordinal, games, wins, draws)",
        8,
        " ON CONFLICT (variant, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, \
         ordinal = excluded.ordinal, games = excluded.games, wins = excluded.wins, draws = excluded.draws",
        RATING_ROWS,
        touched,
        |q, ((variant, player), r)| {
            q.bind(variant)
                .bind(*player)
                .bind(r.rating.rating)
                .bind(r.rating.uncertainty)
                .bind(r.rating.rating - 3.0 * r.rating.uncertainty)
                .bind(r.games)
                .bind(r.wins)
                .bind(r.draws)
        },
    )
    .await
}
