//! Persistence: SQLite through sqlx, WAL mode, numbered migrations from the
//! top-level `migrations/` folder. Every SQL statement of the server is in
//! this module, one file per concept:
//!
//! - [`players`]: registered players and hosted bots' rows.
//! - [`games`]: rooms, finished games as stored and read back, the compact
//!   move log.
//! - [`ratings`]: Weng-Lin ratings per variant and the leaderboard.
//! - [`writer`]: the single writer task that stores finished games.
//! - [`tournaments`]: the tables of `migrations/0002_tournaments.sql`.
//!
//! Finished games go through one writer task ([`Db::store_game`]): it
//! batches the games that arrive together into one transaction (SQLite has a
//! single writer anyway, and one commit per batch is what makes thousands of
//! games per second possible), updates ratings in the same transaction, and
//! only then answers each room, which announces the result after the commit.

mod columns;
pub mod games;
pub mod players;
pub mod ratings;
pub mod tournaments;
mod writer;

use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::mpsc;

pub use games::{GameRecord, SeatKind, SeatRecord, StoredGame, decode_moves, encode_moves};
pub use players::Player;
pub use ratings::{Standing, side_ranks};
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
    /// The writer task is gone (shutting down).
    #[error("the database writer has stopped")]
    WriterGone,
}

/// The database: a pool for reads and a writer task for finished games.
#[derive(Clone)]
pub struct Db {
    pool: SqlitePool,
    writer: mpsc::Sender<writer::StoreJob>,
    writer_done: tokio::sync::watch::Receiver<bool>,
}

/// Hex SHA-256 of a token: only this is stored.
pub fn hash_token(token: &str) -> String {
    let d = Sha256::digest(token.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh secret token: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the OS random source works");
    b.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Normalizes a `--database` value: a bare path becomes `sqlite://path`.
pub fn database_url(arg: &str) -> String {
    if arg.starts_with("sqlite:") { arg.to_string() } else { format!("sqlite://{arg}") }
}

impl Db {
    /// Opens (creating if missing) and migrates the database, in WAL mode,
    /// and starts the writer task.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        let opts = SqliteConnectOptions::from_str(&database_url(url))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL: a commit survives a process crash; only an OS
            // crash can lose the last commits, never corrupt the file.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            // No ping before each checkout: it costs a round trip to the
            // SQLite worker thread on every query.
            .test_before_acquire(false)
            .connect_with(opts)
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        let (writer, writer_done) = writer::spawn(pool.clone()).await?;
        Ok(Db { pool, writer, writer_done })
    }

    /// The pool, for tools and benchmarks that seed or inspect a database
    /// in bulk (the server itself reads and writes through this module).
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Waits until every queued game is committed, then closes the pool.
    pub async fn close(self) {
        let Db { pool, writer, mut writer_done } = self;
        // The writer drains its queue and ends when every sender is dropped
        // (the caller drops the other clones first).
        drop(writer);
        let _ = tokio::time::timeout(Duration::from_secs(10), writer_done.wait_for(|done| *done)).await;
        pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_hash_is_stable_hex() {
        assert_eq!(hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token());
    }
}
