//! The single writer of finished games: it batches the games queued
//! together into one transaction of multi-row inserts, with their ratings
//! and tournament results, and answers each room once it is committed. A
//! batch whose transaction fails is stored again game by game, so each room
//! hears whether its own game was stored.
//!
//! A transaction that fails for a reason that can pass (another process
//! holds the write lock, the disk is full, an I/O error) is retried, the
//! whole batch, for a bounded time before its rooms hear that their games
//! were not stored: a player would rather wait a few seconds for the result
//! than lose the match to a momentary lock. Every attempt's outcome is
//! recorded for `/healthz`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::time::Duration;

use capicua_engine::Variant;
use capicua_tournament::Tournament;
use sqlx::AnyPool;
use sqlx::{Any, Row, Transaction};
use tokio::sync::{mpsc, oneshot, watch};

use super::games::{Encoded, GameRecord, Play, SeatKind};
use super::ratings::{self, Rated, Ratings};
use super::{Backend, Db, DbError, StoreHealth, now_secs, tournaments};

/// A finished game queued for the writer.
pub(super) struct StoreJob {
    pub(super) record: GameRecord,
    /// Encoded by the caller (in parallel, off the single writer).
    pub(super) encoded: Encoded,
    pub(super) reply: oneshot::Sender<Result<i64, String>>,
}

impl Db {
    /// Stores a finished game (and updates ratings) in one committed
    /// transaction; returns its id once it is durable.
    pub async fn store_game(&self, record: GameRecord) -> Result<i64, DbError> {
        if self.read_only {
            return Err(DbError::ReadOnly);
        }
        let (reply, rx) = oneshot::channel();
        let encoded = Encoded::of(&record)?;
        self.writer.send(StoreJob { record, encoded, reply }).await.map_err(|_| DbError::WriterGone)?;
        match rx.await {
            Ok(Ok(id)) => Ok(id),
            Ok(Err(msg)) => Err(DbError::NotStored(msg)),
            Err(_) => Err(DbError::WriterGone),
        }
    }
}

/// Starts the writer task: the queue to it, and a flag set once it has
/// stored everything queued and ended (every sender dropped).
pub(super) async fn spawn(
    pool: AnyPool,
    backend: Backend,
    health: Arc<StoreHealth>,
    retry: Duration,
) -> Result<(mpsc::Sender<StoreJob>, watch::Receiver<bool>), DbError> {
    let (tx, rx) = mpsc::channel(4096);
    let (done_tx, done) = watch::channel(false);
    // Loaded now, so the first finished game costs no extra reads.
    let state = WriterState::load(&pool).await?;
    tokio::spawn(async move {
        let mut writer = Writer { pool, backend, state: Some(state), health, retry };
        writer.run(rx).await;
        let _ = done_tx.send(true);
    });
    Ok((tx, done))
}

/// The single writer of finished games.
struct Writer {
    pool: AnyPool,
    /// Which engine's error codes say a failure can pass.
    backend: Backend,
    /// What the writer knows of the committed database; `None` after a
    /// failed transaction, until it is loaded again.
    state: Option<WriterState>,
    /// Where each attempt's outcome is recorded.
    health: Arc<StoreHealth>,
    /// How long a failure that can pass is retried.
    retry: Duration,
}

/// The first pause before a failed batch is tried again; it doubles up to
/// [`MAX_RETRY_PAUSE`].
const FIRST_RETRY_PAUSE: Duration = Duration::from_millis(100);
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(1);

impl Writer {
    /// Batches queued games into one transaction each round.
    async fn run(&mut self, mut rx: mpsc::Receiver<StoreJob>) {
        // This task is this server's only writer of `games` and `ratings`.
        // It keeps every rating in memory (loaded at open; reloaded after a
        // failed transaction, or when another server on the same database
        // stored games since its last store), so a batch reads no rating.
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
            self.store_and_answer(&mut batch).await;
        }
    }

    /// Stores a batch and answers each of its jobs, leaving `batch` empty.
    ///
    /// A failure that can pass is retried for the whole batch; if it
    /// outlasts the retries, every game of the batch is answered with it
    /// (storing them one by one would only wait for the same lock or disk
    /// once per game). A failure of the data itself (a constraint) stores
    /// each game again in its own transaction: one game the database
    /// refuses costs only its own answer, not those of the games that
    /// happened to finish with it.
    async fn store_and_answer(&mut self, batch: &mut Vec<StoreJob>) {
        match self.store_retrying(batch).await {
            Ok(first) => {
                for (job, id) in batch.drain(..).zip(first..) {
                    let _ = job.reply.send(Ok(id));
                }
            }
            Err(e) if batch.len() == 1 || can_pass(self.backend, &e) => {
                tracing::error!(error = %e, games = batch.len(), "storing finished games failed");
                let reason = e.to_string();
                for job in batch.drain(..) {
                    let _ = job.reply.send(Err(reason.clone()));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, games = batch.len(), "storing a batch failed; storing its games one by one");
                for job in batch.drain(..) {
                    let result = self.store(std::slice::from_ref(&job)).await;
                    if let Err(e) = &result {
                        tracing::error!(error = %e, "storing a finished game failed");
                    }
                    let _ = job.reply.send(result.map_err(|e| e.to_string()));
                }
            }
        }
    }

    /// [`Writer::store`], tried again after a failure that can pass until
    /// the retry time is spent: the last attempt starts when it ends, so
    /// the whole takes at most the retry time and one attempt (which may
    /// wait out the busy timeout).
    async fn store_retrying(&mut self, jobs: &[StoreJob]) -> Result<i64, DbError> {
        let deadline = tokio::time::Instant::now() + self.retry;
        let mut pause = FIRST_RETRY_PAUSE;
        loop {
            let result = self.store(jobs).await;
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match result {
                Err(e) if can_pass(self.backend, &e) && !left.is_zero() => {
                    let wait = pause.min(left);
                    tracing::warn!(error = %e, games = jobs.len(), retry_in_ms = wait.as_millis() as u64, "storing finished games failed; retrying");
                    tokio::time::sleep(wait).await;
                    pause = (pause * 2).min(MAX_RETRY_PAUSE);
                }
                result => return result,
            }
        }
    }

    /// Stores `jobs` in one transaction (loading the writer's state first
    /// if a failed transaction dropped it) and records the outcome; returns
    /// the id of the first game, the others following in order.
    async fn store(&mut self, jobs: &[StoreJob]) -> Result<i64, DbError> {
        let result = store(&self.pool, &mut self.state, jobs).await;
        match &result {
            Ok(_) => self.health.stored(),
            Err(e) => self.health.failed(reason(e)),
        }
        result
    }
}

/// Whether a failed transaction may succeed if tried again unchanged: the
/// database was busy or locked, the disk full or read-only, an I/O error,
/// the pool had no connection to give, a PostgreSQL server restarting or a
/// transaction it chose to abort. A refused row (a constraint) or bad data
/// would fail the same way again.
fn can_pass(backend: Backend, e: &DbError) -> bool {
    match e {
        DbError::Sql(sqlx::Error::Database(db)) => {
            let code = db.code().unwrap_or_default();
            match backend {
                Backend::Sqlite => {
                    let code = code.parse::<i32>().unwrap_or(0);
                    // Primary result codes (the low byte of an extended one):
                    // BUSY, LOCKED, READONLY, IOERR, FULL, CANTOPEN, PROTOCOL.
                    matches!(code & 0xff, 5 | 6 | 8 | 10 | 13 | 14 | 15)
                }
                // SQLSTATE classes: connection exception (08), transaction
                // rollback (40: serialization failure, deadlock),
                // insufficient resources (53), operator intervention (57:
                // shutdown, cancel) and system error (58).
                Backend::Postgres => ["08", "40", "53", "57", "58"].iter().any(|c| code.starts_with(c)),
            }
        }
        DbError::Sql(sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut) => true,
        _ => false,
    }
}

/// A short reason for `/healthz`: the database's own message when there is one
/// (`database or disk is full`, `database is locked`).
fn reason(e: &DbError) -> String {
    match e {
        DbError::Sql(sqlx::Error::Database(db)) => db.message().to_string(),
        other => other.to_string(),
    }
}

/// Stores `jobs` in one transaction (loading the writer's state first if a
/// failed transaction dropped it); returns the id of the first game, the
/// others following in order.
async fn store(pool: &AnyPool, state: &mut Option<WriterState>, jobs: &[StoreJob]) -> Result<i64, DbError> {
    let result = match state {
        Some(st) => store_batch(pool, st, jobs).await,
        None => match WriterState::load(pool).await {
            Ok(st) => store_batch(pool, state.insert(st), jobs).await,
            Err(e) => Err(e),
        },
    };
    if result.is_err() {
        // The transaction rolled back: the memory state may hold ids and
        // ratings that were never committed.
        *state = None;
    }
    result
}

/// Most games stored in one transaction.
const MAX_BATCH: usize = 512;
/// Rows per multi-row `INSERT` (SQLite allows 32,766 bound values, PostgreSQL 65,535).
const GAME_ROWS: usize = 64;
const SEAT_ROWS: usize = 128;
const HAND_ROWS: usize = 256;
const RATING_ROWS: usize = 128;

/// What the writer knows of the committed database.
struct WriterState {
    /// The `game-stores` counter as this writer's last commit (or the load)
    /// left it: the memory below is the committed state while nobody else
    /// moved it.
    generation: i64,
    /// Every rating, by (variant, player).
    ratings: Ratings,
    /// The last variant encoded, and its JSON (games of a room share it).
    variant_json: Option<(Variant, Arc<str>)>,
    /// Running tournaments as their committed log leaves them, loaded
    /// at their first stored match (dropped with the state after a failed
    /// transaction, as they may hold results that were never committed),
    /// with the id of the last control of the log they hold: the organiser's
    /// controls are committed by another connection, so a replica whose
    /// tournament has a newer control is loaded again.
    tournaments: HashMap<i64, (Tournament, i64)>,
}

impl WriterState {
    async fn load(pool: &AnyPool) -> Result<WriterState, DbError> {
        // The counter first: a store committed between the two reads makes
        // the first batch find it moved and load the ratings again.
        let generation = generation(pool).await?;
        let ratings = ratings::load(pool).await?;
        Ok(WriterState { generation, ratings, variant_json: None, tournaments: HashMap::new() })
    }

    /// The JSON of a game's variant; a two-faced one is cached (a run of
    /// games of one variant encodes it once).
    fn variant_json(&mut self, play: &Play) -> Result<Arc<str>, DbError> {
        let v = match play {
            Play::Tiles { variant, .. } => variant,
            Play::Poly { variant, .. } => return Ok(serde_json::to_string(variant)?.into()),
        };
        if let Some((cached, json)) = &self.variant_json {
            if cached == v {
                return Ok(json.clone());
            }
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
fn multi_insert(head: &str, cols: usize, rows: usize, tail: &str, positional: bool) -> String {
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
}

struct HandRow<'a> {
    game_id: i64,
    hand: i64,
    result_json: &'a str,
}

/// Stores `batch` in one transaction and advances `st` once it is
/// committed; returns the id of the first game.
async fn store_batch(pool: &AnyPool, st: &mut WriterState, batch: &[StoreJob]) -> Result<i64, DbError> {
    // Everything is encoded before the transaction opens (the moves, scores
    // and hands as JSON); the rows are only borrowed from it.
    let now = now_secs();
    let mut tx = pool.begin().await?;
    // The counter's row lock makes the stores of every writer on this
    // database one sequence, held to the commit: games are numbered and
    // rated in the order they commit, whichever server stores them, so a
    // replay of the games in id order gives the ratings table.
    let generation: i64 =
        sqlx::query("UPDATE counters SET value = value + 1 WHERE name = 'game-stores' RETURNING value")
            .fetch_one(&mut *tx)
            .await?
            .try_get("value")?;
    if generation != st.generation + 1 {
        // Another server stored games since this one last did: what this
        // writer keeps of ratings and tournaments may be behind.
        tracing::debug!(ours = st.generation, now = generation - 1, "another writer stored games; reloading");
        st.ratings = ratings::load(&mut *tx).await?;
        st.tournaments.clear();
    }
    let max: Option<i64> =
        sqlx::query("SELECT MAX(id) AS max_id FROM games").fetch_one(&mut *tx).await?.try_get("max_id")?;
    let first = max.unwrap_or(0) + 1;
    let mut games = Vec::with_capacity(batch.len());
    let mut seats = Vec::with_capacity(batch.len() * 4);
    let mut hands = Vec::with_capacity(batch.len() * 4);
    let mut touched: HashMap<(String, i64), Rated> = HashMap::new();
    for (i, job) in batch.iter().enumerate() {
        let (g, e) = (&job.record, &job.encoded);
        let id = first + i as i64;
        games.push(GameRow {
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
        for s in &g.seats {
            seats.push(SeatRow {
                game_id: id,
                seat: s.seat as i64,
                side: s.side as i64,
                player_id: s.player_id,
                name: &s.name,
                kind: s.kind,
                score: g.scores.get(s.side as usize).copied().unwrap_or(0) as i64,
            });
        }
        for (hand, json) in &e.hands {
            hands.push(HandRow { game_id: id, hand: *hand, result_json: json });
        }
        if g.rated && g.seats.iter().all(|s| s.player_id.is_some()) && !ratings::self_play(g) {
            ratings::rate(&st.ratings, &mut touched, g);
        }
    }
    let ratings: Vec<((String, i64), Rated)> = touched.iter().map(|(k, r)| (k.clone(), *r)).collect();
    insert_rows(
        &mut tx,
        "INSERT INTO games (id, room_id, variant, variant_json, seed, seating_json, moves_json, scores_json, winner, \
         forfeit, hands, rated, finished_at, poly)",
        14,
        "",
        GAME_ROWS,
        &games,
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
        &mut tx,
        "INSERT INTO game_seats (game_id, seat, side, player_id, name, kind, score)",
        7,
        "",
        SEAT_ROWS,
        &seats,
        |q, s| q.bind(s.game_id).bind(s.seat).bind(s.side).bind(s.player_id).bind(s.name).bind(s.kind).bind(s.score),
    )
    .await?;
    insert_rows(&mut tx, "INSERT INTO hands (game_id, hand, result_json)", 3, "", HAND_ROWS, &hands, |q, h| {
        q.bind(h.game_id).bind(h.hand).bind(h.result_json)
    })
    .await?;
    // A tournament match is stored with its game: a result is never
    // committed without the game that decided it, nor the reverse. The
    // standings rows are rewritten in the same transaction, so the
    // `tournament_standings` view is exact at every commit (a crash between
    // a match and its standings would leave the view behind the results).
    let mut standings_of = Vec::new();
    for (i, job) in batch.iter().enumerate() {
        if let Some(link) = &job.record.tournament {
            let id = link.tournament;
            tournaments::lock(&mut tx, id).await?;
            let control = tournaments::last_control(&mut tx, id).await?;
            if st.tournaments.get(&id).is_some_and(|(_, c)| *c != control) {
                st.tournaments.remove(&id);
            }
            if let Entry::Vacant(slot) = st.tournaments.entry(id) {
                // Read before this match is inserted: the replica holds the committed log.
                if let Some(t) = tournaments::replica(&mut tx, id).await? {
                    slot.insert((t, control));
                }
            }
            tournaments::insert_match(&mut tx, first + i as i64, job.record.room_id, link).await?;
            if let Some((t, _)) = st.tournaments.get_mut(&id) {
                // An arena's tables are paired as games end: its table is stored before its room opens.
                tournaments::catch_up_tables(&mut tx, id, t).await?;
                match t.record(link.result.clone()) {
                    Ok(()) if !standings_of.contains(&id) => standings_of.push(id),
                    Ok(()) => {}
                    Err(e) => {
                        // The runner fails the tournament on such a result; the view keeps its rows.
                        tracing::warn!(tournament = id, error = %e, "a stored result does not fit the tournament");
                        st.tournaments.remove(&id);
                    }
                }
            }
        }
    }
    for id in standings_of {
        if let Some((t, _)) = st.tournaments.get_mut(&id) {
            tournaments::write_standings(&mut tx, id, &t.standings()).await?;
            // An arena finishes by the clock: past its deadline, with its last game recorded.
            t.arena_tick(super::now_ms());
            if t.is_finished() {
                st.tournaments.remove(&id);
            }
        }
    }
    insert_rows(
        &mut tx,
        "INSERT INTO ratings (variant, player_id, mu, sigma, ordinal, games, wins, draws)",
        8,
        " ON CONFLICT (variant, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, \
         ordinal = excluded.ordinal, games = excluded.games, wins = excluded.wins, draws = excluded.draws",
        RATING_ROWS,
        &ratings,
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
    .await?;
    tx.commit().await?;
    st.generation = generation;
    st.ratings.extend(touched);
    Ok(first)
}

#[cfg(test)]
mod tests {
    use capicua_engine::Seating;
    use capicua_protocol::OccupantKind;

    use super::*;
    use crate::db::{Db, HandResults, SeatRecord};

    /// A fresh database file, removed (with its WAL files) on drop.
    struct TempDb(std::path::PathBuf);

    impl TempDb {
        fn new(name: &str) -> TempDb {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
            TempDb(std::env::temp_dir().join(format!("capicua-{name}-{}-{nanos}.db", std::process::id())))
        }
    }

    impl Drop for TempDb {
        fn drop(&mut self) {
            for ext in ["", "-wal", "-shm"] {
                let mut p = self.0.clone().into_os_string();
                p.push(ext);
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// A rated two-seat game between two players, won by seat 0.
    fn record(room: i64, seed: u64, players: [i64; 2]) -> GameRecord {
        let seat = |i: u8| SeatRecord {
            seat: i,
            side: i,
            player_id: Some(players[i as usize]),
            name: format!("bot:p{i}"),
            kind: OccupantKind::HostedBot.into(),
        };
        GameRecord {
            room_id: Some(room),
            play: Play::Tiles {
                variant: capicua_engine::preset("block").unwrap(),
                seating: Seating::new(2),
                moves: Vec::new(),
            },
            seed,
            scores: vec![10, 0],
            seat_scores: vec![10, 0],
            hands: HandResults::Tiles(Vec::new()),
            winner: Some(0),
            forfeit: None,
            seats: vec![seat(0), seat(1)],
            rated: true,
            timeouts: vec![0; 2],
            tournament: None,
        }
    }

    /// A database error with a code, as a driver reports one.
    #[derive(Debug)]
    struct Coded(&'static str);

    impl std::fmt::Display for Coded {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "error {}", self.0)
        }
    }

    impl std::error::Error for Coded {}

    impl sqlx::error::DatabaseError for Coded {
        fn message(&self) -> &str {
            self.0
        }

        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }

        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }

        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }

        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }

        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    #[test]
    fn failures_that_can_pass_are_told_apart_by_each_backends_codes() {
        let passes = |backend, code| can_pass(backend, &DbError::Sql(sqlx::Error::Database(Box::new(Coded(code)))));
        // SQLite: BUSY (and an extended BUSY), LOCKED, FULL, IOERR pass; a constraint does not.
        for code in ["5", "517", "6", "13", "10"] {
            assert!(passes(Backend::Sqlite, code), "SQLite {code}");
        }
        for code in ["19", "787", "2067"] {
            assert!(!passes(Backend::Sqlite, code), "SQLite {code}");
        }
        // PostgreSQL: a lost connection, a serialization failure, a deadlock, a full disk, a
        // shutting-down server pass; a unique or foreign-key violation, bad data do not.
        for code in ["08006", "40001", "40P01", "53100", "57P01"] {
            assert!(passes(Backend::Postgres, code), "PostgreSQL {code}");
        }
        for code in ["23505", "23503", "22P02", "42P01"] {
            assert!(!passes(Backend::Postgres, code), "PostgreSQL {code}");
        }
    }

    #[test]
    fn multi_row_inserts_number_their_placeholders_for_postgres_and_not_for_sqlite() {
        assert_eq!(
            multi_insert("INSERT INTO t (a, b)", 2, 2, "", false),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"
        );
        assert_eq!(
            multi_insert("INSERT INTO t (a, b)", 2, 2, " X", true),
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?) X"
        );
    }

    fn job(record: GameRecord) -> (StoreJob, oneshot::Receiver<Result<i64, String>>) {
        let (reply, rx) = oneshot::channel();
        let encoded = Encoded::of(&record).unwrap();
        (StoreJob { record, encoded, reply }, rx)
    }

    #[tokio::test]
    async fn a_game_that_cannot_be_stored_fails_alone_and_the_rest_of_its_batch_is_stored() {
        let file = TempDb::new("writer-retry");
        let db = Db::open(file.0.to_str().unwrap()).await.unwrap();
        let variant = capicua_engine::preset("block").unwrap();
        let room = db.create_room(&variant, 2, true).await.unwrap();
        let players = [db.hosted_bot("a").await.unwrap().id, db.hosted_bot("b").await.unwrap().id];
        // The middle game names a room that does not exist: the foreign key
        // refuses it, and with it the batch's transaction.
        let (mut batch, replies): (Vec<_>, Vec<_>) =
            [record(room, 1, players), record(room + 1, 2, players), record(room, 3, players)]
                .into_iter()
                .map(job)
                .unzip();
        let state = Some(WriterState::load(&db.pool).await.unwrap());
        let mut writer = Writer {
            pool: db.pool.clone(),
            backend: Backend::Sqlite,
            state,
            health: Arc::default(),
            retry: Duration::ZERO,
        };
        writer.store_and_answer(&mut batch).await;
        assert!(batch.is_empty());
        let mut answers = Vec::new();
        for rx in replies {
            answers.push(rx.await.expect("every job is answered"));
        }
        let err = answers[1].as_ref().expect_err("the poisoned game fails");
        assert!(err.contains("FOREIGN KEY"), "{err}");
        let mut last = 0;
        for (answer, seed) in [(&answers[0], 1), (&answers[2], 3)] {
            let id = *answer.as_ref().expect("a sound game of the batch is stored");
            assert_eq!(db.game(id).await.unwrap().expect("stored").seed, seed);
            last = id;
        }
        assert_eq!(db.game_count().await.unwrap(), 2);
        // Ratings count the two stored games only, and the writer goes on
        // numbering after them.
        let board = db.leaderboard(&variant.name, 10).await.unwrap();
        assert_eq!(board.iter().map(|s| s.games).collect::<Vec<_>>(), [2, 2]);
        let (next, rx) = job(record(room, 4, players));
        let mut batch = vec![next];
        writer.store_and_answer(&mut batch).await;
        let id = rx.await.unwrap().expect("stored");
        assert_eq!(id, last + 1);
        assert_eq!(db.leaderboard(&variant.name, 10).await.unwrap()[0].games, 3);
        db.close().await;
    }

    #[tokio::test]
    async fn a_player_holding_two_seats_is_not_rated_by_that_game() {
        let file = TempDb::new("writer-self-play");
        let db = Db::open(file.0.to_str().unwrap()).await.unwrap();
        let variant = capicua_engine::preset("block").unwrap();
        let room = db.create_room(&variant, 2, true).await.unwrap();
        let a = db.hosted_bot("a").await.unwrap().id;
        let b = db.hosted_bot("b").await.unwrap().id;
        // One hosted strategy on both sides, then a game against another.
        for r in [record(room, 1, [a, a]), record(room, 2, [a, b])] {
            db.store_game(r).await.unwrap();
        }
        assert_eq!(db.game_count().await.unwrap(), 2, "the self-play game is stored");
        let board = db.leaderboard(&variant.name, 10).await.unwrap();
        let rows: Vec<(&str, i64, i64)> = board.iter().map(|s| (s.name.as_str(), s.games, s.wins)).collect();
        assert_eq!(rows.len(), 2);
        assert!(rows.contains(&("bot:a", 1, 1)) && rows.contains(&("bot:b", 1, 0)), "{rows:?}");
        db.close().await;
    }

    /// A database whose writes wait `busy` for a lock and whose failed
    /// stores are retried for `retry`, with a room and two hosted bots.
    async fn locked_db(file: &TempDb, busy: u64, retry: u64) -> (Db, i64, [i64; 2]) {
        let options = crate::db::OpenOptions {
            busy_timeout: Duration::from_millis(busy),
            store_retry: Duration::from_millis(retry),
            ..Default::default()
        };
        let db = Db::open_with(file.0.to_str().unwrap(), options).await.unwrap();
        let room = db.create_room(&capicua_engine::preset("block").unwrap(), 2, true).await.unwrap();
        let players = [db.hosted_bot("a").await.unwrap().id, db.hosted_bot("b").await.unwrap().id];
        (db, room, players)
    }

    /// Another connection that holds the database's write lock until it
    /// rolls back.
    async fn hold_write_lock(file: &TempDb) -> sqlx::SqliteConnection {
        use sqlx::Connection;
        let mut other = sqlx::SqliteConnection::connect(&format!("sqlite://{}", file.0.display())).await.unwrap();
        sqlx::query("BEGIN IMMEDIATE").execute(&mut other).await.unwrap();
        other
    }

    #[tokio::test]
    async fn a_store_waits_out_a_lock_released_within_its_retry_time() {
        let file = TempDb::new("writer-lock-passes");
        let (db, room, players) = locked_db(&file, 50, 10_000).await;
        let mut other = hold_write_lock(&file).await;
        let storing = tokio::spawn({
            let db = db.clone();
            async move { db.store_game(record(room, 1, players)).await }
        });
        // The first attempt fails on the lock, and says so, while the room
        // still waits for its answer.
        let failure = loop {
            if let Some(f) = db.store_failure() {
                break f;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        assert_eq!(failure.error, "database is locked");
        assert!(!storing.is_finished(), "the room heard before the retries were spent");
        sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
        let id = storing.await.unwrap().expect("stored once the lock is gone");
        assert_eq!(db.game(id).await.unwrap().expect("stored").seed, 1);
        assert_eq!(db.store_failure(), None, "a success clears the failure");
        db.close().await;
    }

    #[tokio::test]
    async fn a_lock_that_outlasts_the_retries_fails_the_store_and_nothing_of_it_is_written() {
        let file = TempDb::new("writer-lock-stays");
        let (db, room, players) = locked_db(&file, 20, 200).await;
        let mut other = hold_write_lock(&file).await;
        let started = std::time::Instant::now();
        let err = db.store_game(record(room, 1, players)).await.expect_err("the lock outlasts the retries");
        // Retried, and bounded: 200 ms of retries plus one busy wait,
        // with room for a slow machine.
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(200) && took < Duration::from_secs(5), "{took:?}");
        assert!(matches!(&err, DbError::NotStored(m) if m.contains("database is locked")), "{err}");
        let failure = db.store_failure().expect("the failure is reported");
        assert_eq!(failure.error, "database is locked");
        sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
        assert_eq!(db.game_count().await.unwrap(), 0);
        // The next game is stored, with the first id: the failed one took none.
        let id = db.store_game(record(room, 2, players)).await.expect("stored after the lock is gone");
        assert_eq!(id, 1);
        assert_eq!(db.store_failure(), None);
        db.close().await;
    }
}
