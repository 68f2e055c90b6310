//! Which server schedules tournaments. Several `capicua-server serve`
//! processes ("nodes") may serve one PostgreSQL database: each hosts its
//! own rooms and stores its own games (the writers take turns, see the
//! writer), but only one may run the tournaments, or two would open the
//! same table. The database elects it: the scheduler is the node holding a
//! session-level advisory lock on a connection of its own; the others wait
//! for the lock, and the first to get it when the holder dies takes over.
//! No home-made consensus: PostgreSQL frees the lock when the holder's
//! connection closes, however its process ended.
//!
//! On a SQLite file there is only ever one server (a file lock beside the
//! database, taken by the binary), so it schedules without an election.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgConnection};

use super::DbError;

/// The advisory lock's key: "capicua" in ASCII, so another program's
/// advisory locks on the same database are unlikely to collide with it.
const SCHEDULER_KEY: i64 = 0x0063_6170_6963_7561;

/// How long the holder waits for its lock connection to answer before it
/// counts the lock as lost.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// A held scheduler lock; dropping it (or the process ending) frees it.
pub struct SchedulerLock {
    conn: PgConnection,
}

impl SchedulerLock {
    /// Waits until this process holds the scheduler lock of the PostgreSQL
    /// database at `url` (at once when nobody holds it). Fails when the
    /// database cannot be reached or drops the connection while waiting.
    pub async fn acquire(url: &str) -> Result<SchedulerLock, DbError> {
        let mut conn = lock_connection(url).await?;
        sqlx::query("SELECT pg_advisory_lock($1)").bind(SCHEDULER_KEY).execute(&mut conn).await?;
        Ok(SchedulerLock { conn })
    }

    /// Whether the lock is still held: its connection answers. A session
    /// lock lives exactly as long as its session, so once the connection is
    /// gone another node may hold the lock, and this one must stop
    /// scheduling.
    pub async fn is_held(&mut self) -> bool {
        matches!(tokio::time::timeout(PING_TIMEOUT, self.conn.ping()).await, Ok(Ok(())))
    }
}

/// A connection of its own for a session-level advisory lock, which it
/// holds for as long as it lives. Its statements are not logged: a standby
/// waits minutes in `pg_advisory_lock` by design, and a "slow statement"
/// warning would read as trouble with the database.
pub(super) async fn lock_connection(url: &str) -> Result<PgConnection, DbError> {
    Ok(PgConnectOptions::from_str(url)?.disable_statement_logging().connect().await?)
}
