//! Persistence: SQLite (the default, a file in WAL mode) or PostgreSQL,
//! through sqlx's `Any` driver, with numbered migrations kept in step for
//! both: the top-level `migrations/` folder for SQLite and
//! `migrations/postgres/` for PostgreSQL, the same numbers and the same
//! tables. Every statement is written once in the SQL both engines accept
//! (`$1` placeholders, `ON CONFLICT`, `RETURNING`, flags as integers) and
//! runs on either. Every SQL statement of the server is in this module, one
//! file per concept:
//!
//! - [`players`]: registered players and hosted bots' rows.
//! - [`nodes`]: the servers serving the database, their beats and lobbies.
//! - [`placements`]: where the scheduler placed each tournament table.
//! - [`games`]: rooms, finished games as stored and read back, the compact
//!   move log.
//! - [`ratings`]: the ratings table as `crate::ratings` moves it, and the leaderboard.
//! - [`reviews`]: finished reviews, computed once per game and seat.
//! - `writer`: the single writer task that stores finished games.
//! - [`tournaments`]: the tables of `migrations/0002_tournaments.sql`, with
//!   the status changes [`capicua_tournament::ControlAction`] decides.
//! - [`Backend`] and [`Topology`]: the engine, and whether servers share it.
//! - `schema`: the guards run before a file is used (is it there, is it
//!   capicua's, is its schema this binary's).
//! - [`SchedulerLock`]: which of the servers on one PostgreSQL database runs the tournaments.
//!
//! Finished games go through one writer task ([`Db::store_game`]): it
//! batches the games that arrive together into one transaction (SQLite has a
//! single writer anyway, and one commit per batch is what makes thousands of
//! games per second possible), updates ratings in the same transaction, and
//! only then answers each room, which announces the result after the commit.
//! Several servers on one PostgreSQL database each have their writer; their
//! transactions take turns on one counter row, so games are numbered and
//! rated in commit order whichever server stores them.

pub mod accounts;
mod backend;
mod columns;
pub mod games;
pub mod nodes;
pub mod placements;
pub mod players;
pub mod ratings;
pub mod reviews;
mod scheduler_lock;
mod schema;
pub mod tournaments;
mod writer;

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, Executor};
use tokio::sync::mpsc;

pub use backend::{Backend, Topology};
pub use games::{
    GameRecord, GameSummary, HandResults, Play, RoomVariant, SeatKind, SeatRating, SeatRecord, StoredGame, SummarySeat,
    decode_moves, encode_moves,
};
pub use players::{Player, Profile};
pub use ratings::{BoardRating, Standing, side_ranks};
pub use scheduler_lock::SchedulerLock;
pub use tournaments::TableLink;

/// Errors of the persistence layer.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database failed.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Stored JSON did not decode.
    #[error("stored data: {0}")]
    Json(#[from] serde_json::Error),
    /// The name is already registered.
    #[error("the name {0:?} is taken")]
    NameTaken(String),
    /// The writer could not store a finished game (its reason, as the
    /// writer logged it).
    #[error("the game was not stored: {0}")]
    NotStored(String),
    /// The writer task is gone (shutting down).
    #[error("the database writer has stopped")]
    WriterGone,
    /// The operating system's random source failed, so no token can be made.
    #[error("the operating system's random source failed")]
    NoEntropy,
    /// A reader found no database file (readers never create one).
    #[error("no database at {path} (serve creates one; check --database)")]
    Missing {
        /// The file looked for.
        path: String,
    },
    /// The file holds tables capicua's schema does not have: likely another
    /// program's database, which migrating would alter.
    #[error(
        "the database holds tables that are not capicua's: {}{}; is --database the right file? \
         (--allow-foreign-tables uses it anyway)",
        tables.join(", "),
        if *more > 0 { format!(" and {more} more") } else { String::new() }
    )]
    ForeignTables {
        /// The first foreign tables, by name.
        tables: Vec<String>,
        /// How many more there are.
        more: usize,
    },
    /// A reader found no `_sqlx_migrations` table: not a capicua database,
    /// or one never migrated.
    #[error("not a capicua database: it records no migrations (serve creates and migrates one)")]
    NotCapicua,
    /// The database's schema predates this binary's; a reader cannot migrate it.
    #[error(
        "the database's schema is at migration {found}, this capicua-server expects {expected}: \
         run `capicua-server serve` on it once to migrate it"
    )]
    SchemaOlder {
        /// The newest migration applied to the database.
        found: i64,
        /// The newest migration this binary knows.
        expected: i64,
    },
    /// The database's schema is newer than this binary's.
    #[error(
        "the database's schema is at migration {found}, newer than this capicua-server knows ({expected}): \
         use a newer capicua-server"
    )]
    SchemaNewer {
        /// The newest migration applied to the database.
        found: i64,
        /// The newest migration this binary knows.
        expected: i64,
    },
    /// A recorded migration failed half-way or differs from this binary's.
    #[error("migration {version} in the database failed or differs from this capicua-server's")]
    SchemaChanged {
        /// The migration.
        version: i64,
    },
    /// A write on a database opened read-only.
    #[error("the database was opened read-only")]
    ReadOnly,
}

/// How [`Db::open_with`] treats a file it did not make, and how long a
/// write waits out a busy database.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// Use a database that also holds tables capicua's schema does not
    /// have (a file shared with another program) instead of refusing it.
    pub allow_foreign_tables: bool,
    /// How long one statement waits for another process's write lock
    /// (SQLite's busy timeout) before it fails with "database is locked".
    pub busy_timeout: Duration,
    /// How long the writer keeps retrying a finished game's transaction
    /// that failed for a reason that can pass (a lock, a full disk, an I/O
    /// error) before the room hears that its match was not stored. Each
    /// retry may itself wait up to `busy_timeout`.
    pub store_retry: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            allow_foreign_tables: false,
            busy_timeout: Duration::from_secs(10),
            store_retry: Duration::from_secs(5),
        }
    }
}

/// Why the last attempt to store a finished game failed, while no later
/// attempt has succeeded: what `/healthz` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreFailure {
    /// The database's reason (`database or disk is full`).
    pub error: String,
    /// When the failures began (Unix seconds): the first failed attempt
    /// after the last success.
    pub since: i64,
}

/// The outcome of the writer's latest attempt, shared with readers of
/// [`Db::store_failure`].
#[derive(Debug, Default)]
pub(crate) struct StoreHealth(std::sync::Mutex<Option<StoreFailure>>);

impl StoreHealth {
    fn get(&self) -> Option<StoreFailure> {
        // A poisoned lock still holds a sound value: an `Option` is
        // replaced whole.
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn stored(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    pub(crate) fn failed(&self, error: String) {
        let mut last = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let since = last.as_ref().map_or_else(now_secs, |f| f.since);
        *last = Some(StoreFailure { error, since });
    }
}

/// The database: a pool for reads and a writer task for finished games.
#[derive(Clone)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    writer: mpsc::Sender<writer::StoreJob>,
    writer_done: tokio::sync::watch::Receiver<bool>,
    /// Opened by [`Db::open_read_only`]: there is no writer task.
    read_only: bool,
    /// The writer's latest outcome.
    health: Arc<StoreHealth>,
    /// A PostgreSQL database's URL, for the scheduler election's own
    /// connection ([`Db::elect_scheduler`]).
    postgres_url: Option<Arc<str>>,
    /// This server's node id once registered ([`Db::register_node`]), 0
    /// before: the rooms it opens are stored as its.
    node: Arc<AtomicI64>,
}

/// Hex SHA-256 of a token: only this is stored.
pub fn hash_token(token: &str) -> String {
    let d = Sha256::digest(token.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh secret token: 32 random bytes, hex.
pub fn new_token() -> Result<String, DbError> {
    let mut b = [0u8; 32];
    // No fallback: a token from anything but the OS's random source could
    // be guessed.
    getrandom::fill(&mut b).map_err(|_| DbError::NoEntropy)?;
    Ok(b.iter().map(|b| format!("{b:02x}")).collect())
}

pub(crate) fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Unix milliseconds (an arena's deadline and the time it is told).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Normalizes a `--database` value: a bare path becomes `sqlite://path`; a
/// `sqlite:` or PostgreSQL URL stays as it is.
pub fn database_url(arg: &str) -> String {
    if arg.starts_with("sqlite:") || Backend::of(arg) == Backend::Postgres {
        arg.to_string()
    } else {
        format!("sqlite://{arg}")
    }
}

impl Db {
    /// Opens (creating if missing) and migrates the database, in WAL mode,
    /// and starts the writer task; [`Db::open_with`] with the default
    /// options (a file holding foreign tables is refused).
    pub async fn open(url: &str) -> Result<Db, DbError> {
        Db::open_with(url, OpenOptions::default()).await
    }

    /// Opens (creating if missing) and migrates the database and starts the
    /// writer task. A SQLite file runs in WAL mode; an existing one is
    /// checked first, through a read-only connection, and refused untouched
    /// when it holds tables capicua's schema does not have (unless
    /// `options` allows them) or a schema newer than this binary's. A
    /// PostgreSQL database gets the same checks over its current schema.
    pub async fn open_with(url: &str, options: OpenOptions) -> Result<Db, DbError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of(url);
        let pool = match backend {
            Backend::Sqlite => Db::sqlite_pool(url, options).await?,
            Backend::Postgres => Db::postgres_pool(url, options).await?,
        };
        schema::migrator(backend).run(&pool).await?;
        // Counted before the writer loads the ratings it keeps in memory.
        let (closed, _) = mpsc::channel(1);
        let (_, done) = tokio::sync::watch::channel(true);
        let counting = Db {
            pool: pool.clone(),
            backend,
            writer: closed,
            writer_done: done,
            read_only: false,
            health: Arc::default(),
            postgres_url: None,
            node: Arc::default(),
        };
        counting.count_missing_draws().await?;
        counting.key_names().await?;
        let health = Arc::new(StoreHealth::default());
        let (writer, writer_done) = writer::spawn(pool.clone(), backend, health.clone(), options.store_retry).await?;
        let postgres_url = (backend == Backend::Postgres).then(|| url.into());
        Ok(Db { pool, backend, writer, writer_done, read_only: false, health, postgres_url, node: Arc::default() })
    }

    /// The read-write pool on a SQLite file, checked first.
    async fn sqlite_pool(url: &str, options: OpenOptions) -> Result<AnyPool, DbError> {
        let url = database_url(url);
        let opts = SqliteConnectOptions::from_str(&url)?;
        // A missing or empty file is simply created and migrated; only one
        // with content can belong to someone else.
        if schema::file_has_data(&opts) {
            let mut conn = schema::inspect(&opts).await?;
            let checked = schema::check_before_migrating(&mut conn, options.allow_foreign_tables).await;
            conn.close().await?;
            checked?;
        }
        let busy_ms = options.busy_timeout.as_millis();
        Ok(AnyPoolOptions::new()
            .max_connections(4)
            // No ping before each checkout: it costs a round trip to the
            // SQLite worker thread on every query.
            .test_before_acquire(false)
            // The `Any` driver opens a connection from its URL alone, so the
            // pragmas are set on each new connection here. WAL + NORMAL: a
            // commit survives a process crash; only an OS crash can lose
            // the last commits, never corrupt the file.
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    conn.execute(&*format!(
                        "PRAGMA busy_timeout = {busy_ms}; PRAGMA journal_mode = WAL; \
                         PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
                    ))
                    .await?;
                    Ok(())
                })
            })
            // On a full disk or an I/O error SQLite rolls the transaction
            // back by itself; sqlx still counts it open, its own ROLLBACK
            // then fails, and the connection stays counted in a
            // transaction: its next `begin` would open a savepoint, not a
            // transaction, and its commit would leave the write lock held,
            // locking every later write out. Such a connection is closed
            // instead of reused (closing rolls back whatever SQLite still
            // holds and frees the lock); the pool opens a fresh one.
            .after_release(|conn, _| Box::pin(async move { Ok(!conn.is_in_transaction()) }))
            .connect(&with_param(&url, "mode=rwc"))
            .await?)
    }

    /// The pool on a PostgreSQL database, checked first: a schema of
    /// another program or a newer capicua is refused before migrating.
    async fn postgres_pool(url: &str, options: OpenOptions) -> Result<AnyPool, DbError> {
        let pool = AnyPoolOptions::new()
            // A server connection is cheap to hold and reads run in
            // parallel there, unlike SQLite's single file.
            .max_connections(16)
            .acquire_timeout(options.busy_timeout.max(Duration::from_secs(1)))
            .after_release(|conn, _| Box::pin(async move { Ok(!conn.is_in_transaction()) }))
            .connect(url)
            .await?;
        let checked = async {
            let mut conn = pool.acquire().await?;
            schema::check_before_migrating(&mut conn, options.allow_foreign_tables).await
        }
        .await;
        if let Err(e) = checked {
            pool.close().await;
            return Err(e);
        }
        Ok(pool)
    }

    /// Waits until this server may run the tournaments: at once on SQLite,
    /// where one server has the file to itself (`None`: nothing to hold);
    /// on PostgreSQL once it holds the [`SchedulerLock`], which the caller
    /// keeps for as long as it schedules.
    pub async fn elect_scheduler(&self) -> Result<Option<SchedulerLock>, DbError> {
        match &self.postgres_url {
            None => Ok(None),
            Some(url) => SchedulerLock::acquire(url).await.map(Some),
        }
    }

    /// Opens an existing database for reading only: no file is created, no
    /// pragma changes the file, nothing is migrated, and a read-only file
    /// (mode 0444) is fine. A missing file, one without capicua's
    /// migrations, or one whose schema is not exactly this binary's is
    /// refused. Storing a game on it answers [`DbError::ReadOnly`]. On
    /// PostgreSQL the schema is checked the same way and every transaction
    /// of the pool is read-only.
    pub async fn open_read_only(url: &str) -> Result<Db, DbError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of(url);
        let pool = match backend {
            Backend::Sqlite => Db::sqlite_read_only_pool(url).await?,
            Backend::Postgres => Db::read_only_pool(url, Backend::Postgres).await?,
        };
        // No writer task: its queue is closed at once and it counts as done.
        let (writer, _) = mpsc::channel(1);
        let (_, writer_done) = tokio::sync::watch::channel(true);
        Ok(Db {
            pool,
            backend,
            writer,
            writer_done,
            read_only: true,
            health: Arc::default(),
            postgres_url: None,
            node: Arc::default(),
        })
    }

    /// A read-only pool on an existing SQLite file whose schema is exactly
    /// this binary's.
    async fn sqlite_read_only_pool(url: &str) -> Result<AnyPool, DbError> {
        let url = database_url(url);
        let opts = SqliteConnectOptions::from_str(&url)?;
        if !schema::file_exists(opts.get_filename()) {
            return Err(DbError::Missing { path: opts.get_filename().display().to_string() });
        }
        let path = opts.get_filename().to_path_buf();
        let read_only = with_param(&url, "mode=ro");
        match Db::read_only_pool(&read_only, Backend::Sqlite).await {
            Err(DbError::Sql(e)) if schema::no_wal_index(&e) && !schema::has_wal(&path) => {
                // A WAL-mode file in a directory we cannot write: SQLite
                // cannot create the `-shm` index it reads through. With no
                // `-wal` file no writer is at work (a writer keeps one), so
                // the file alone is the whole database and can be read as
                // immutable.
                Db::read_only_pool(&with_param(&read_only, "immutable=true"), Backend::Sqlite).await
            }
            other => other,
        }
    }

    /// A read-only pool on a database whose schema is exactly this binary's:
    /// a SQLite URL opened read-only (`mode=ro`), or a PostgreSQL database
    /// whose every transaction is read-only.
    async fn read_only_pool(url: &str, backend: Backend) -> Result<AnyPool, DbError> {
        let setup = match backend {
            Backend::Sqlite => "PRAGMA busy_timeout = 10000",
            Backend::Postgres => "SET default_transaction_read_only = on",
        };
        let pool = AnyPoolOptions::new()
            .max_connections(2)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    conn.execute(setup).await?;
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        let checked = async {
            let mut conn = pool.acquire().await?;
            schema::check_schema(&mut conn, true).await
        }
        .await;
        if let Err(e) = checked {
            pool.close().await;
            return Err(e);
        }
        Ok(pool)
    }

    /// The pool, for tools and benchmarks that seed or inspect a database
    /// in bulk (the server itself reads and writes through this module).
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The engine this database runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether this server is alone on its database or one node of a cluster.
    pub fn topology(&self) -> Topology {
        self.backend.topology()
    }

    /// Why storing finished games fails, while it does: `None` once the
    /// latest attempt succeeded (or none was made).
    pub fn store_failure(&self) -> Option<StoreFailure> {
        self.health.get()
    }

    /// Waits until every queued game is committed, then closes the pool.
    pub async fn close(self) {
        let Db { pool, backend, writer, mut writer_done, read_only, .. } = self;
        // The writer drains its queue and ends when every sender is dropped
        // (the caller drops the other clones first).
        drop(writer);
        let _ = tokio::time::timeout(Duration::from_secs(10), writer_done.wait_for(|done| *done)).await;
        if !read_only && backend == Backend::Sqlite {
            // Every commit into the main file now. SQLite would do it when
            // the last connection closes, but sqlx closes a connection that
            // was just released from a spawned task, which a command that
            // exits at once may never run: its commits would stay in the
            // `-wal` file, invisible to a copy of the file alone or to a
            // reader that cannot open the `-wal` (a read-only directory).
            if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&pool).await {
                tracing::warn!(error = %e, "checkpointing the database on close");
            }
        }
        pool.close().await;
    }
}

/// `url` with one more query parameter.
fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_hash_is_stable_hex() {
        assert_eq!(hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let t = new_token().unwrap();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token().unwrap());
    }

    #[tokio::test]
    async fn every_sqlite_connection_runs_in_wal_with_normal_sync_foreign_keys_and_the_busy_timeout() {
        use sqlx::Row;
        let path = std::env::temp_dir().join(format!("capicua-pragmas-{}.db", std::process::id()));
        let options = OpenOptions { busy_timeout: Duration::from_millis(1234), ..Default::default() };
        let db = Db::open_with(path.to_str().unwrap(), options).await.unwrap();
        // Every connection of the pool, not only the first.
        let mut conns = Vec::new();
        for _ in 0..4 {
            conns.push(db.pool.acquire().await.unwrap());
        }
        for conn in &mut conns {
            let mut read = async |pragma: &str| -> String {
                let row = sqlx::query(&format!("PRAGMA {pragma}")).fetch_one(&mut **conn).await.unwrap();
                row.try_get::<String, _>(0).or_else(|_| row.try_get::<i64, _>(0).map(|n| n.to_string())).unwrap()
            };
            assert_eq!(read("journal_mode").await, "wal");
            assert_eq!(read("synchronous").await, "1", "NORMAL");
            assert_eq!(read("foreign_keys").await, "1");
            assert_eq!(read("busy_timeout").await, "1234");
        }
        drop(conns);
        db.close().await;
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
        }
    }
}
