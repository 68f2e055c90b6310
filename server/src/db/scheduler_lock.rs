//! The serving lock of a PostgreSQL database: one `capicua-server serve` at
//! a time. The writer numbers games and keeps every rating in memory, so a
//! second server on the same database would hand out the same game ids and
//! overwrite the first one's ratings. (On SQLite the lock is a file lock
//! beside the database, taken by the binary.)
//!
//! The lock is a PostgreSQL session-level advisory lock, held by a
//! connection of its own for as long as the server runs. It needs no
//! cleanup: when the process dies, however it dies, its connection closes
//! and the server frees the lock.

use sqlx::{Connection, PgConnection};

use super::DbError;

/// The advisory lock's key: "capicua" in ASCII, so another program's
/// advisory locks on the same database are unlikely to collide with it.
const SERVING_KEY: i64 = 0x0063_6170_6963_7561;

/// A held serving lock; dropping it (or the process ending) frees it.
pub struct ServingLock {
    _conn: PgConnection,
}

impl ServingLock {
    /// Takes the serving lock of the PostgreSQL database at `url` without
    /// waiting: [`DbError::InUse`] when another server holds it.
    pub async fn take(url: &str) -> Result<ServingLock, DbError> {
        let mut conn = PgConnection::connect(url).await?;
        let taken: bool =
            sqlx::query_scalar("SELECT pg_try_advisory_lock($1)").bind(SERVING_KEY).fetch_one(&mut conn).await?;
        if !taken {
            let _ = conn.close().await;
            return Err(DbError::InUse);
        }
        Ok(ServingLock { _conn: conn })
    }
}
