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

mod batch;

use std::sync::Arc;
use std::time::Duration;

use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot, watch};

use super::games::{Encoded, GameRecord};
use super::{Backend, Db, DbError, StoreHealth};
use batch::{WriterState, store_batch};

/// A finished game queued for the writer.
pub(super) struct StoreJob {
    pub(super) record: GameRecord,
    /// Encoded by the caller (in parallel, off the single writer).
    pub(super) encoded: Encoded,
    pub(super) reply: oneshot::Sender<Result<i64, String>>,
}

/// What a row costs beside its text: its key, numbers and index entries.
const ROW_BYTES: usize = 64;

impl Db {
    /// Stores a finished game (and updates ratings) in one committed
    /// transaction; returns its id once it is durable.
    pub async fn store_game(&self, record: GameRecord) -> Result<i64, DbError> {
        self.store_game_sized(record).await.map(|(id, _)| id)
    }

    /// Stores a finished game as [`Db::store_game`] does; its id and the
    /// bytes of its rows (what it costs the disk, about).
    pub async fn store_game_sized(&self, record: GameRecord) -> Result<(i64, usize), DbError> {
        if self.read_only {
            return Err(DbError::ReadOnly);
        }
        let (reply, rx) = oneshot::channel();
        let encoded = Encoded::of(&record)?;
        let bytes = encoded.bytes() + record.seats.len() * ROW_BYTES;
        self.writer.send(StoreJob { record, encoded, reply }).await.map_err(|_| DbError::WriterGone)?;
        match rx.await {
            Ok(Ok(id)) => Ok((id, bytes)),
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

#[cfg(test)]
mod tests {
    use capicua_engine::Seating;
    use capicua_protocol::OccupantKind;

    use super::batch::multi_insert;
    use super::*;
    use crate::db::games::Play;
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
