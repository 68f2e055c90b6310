//! Guards run before a database is used: is the file there, is it
//! capicua's, and is its schema the one this binary was built with.
//!
//! On SQLite they read through a read-only connection that sets no pragma,
//! so a refused file is left byte for byte as it was: no journal-mode
//! switch, no migration, no `-wal` file of ours. On PostgreSQL they read the
//! current schema before anything is migrated.

use std::collections::BTreeSet;
use std::path::Path;

use sqlx::AnyConnection;
use sqlx::migrate::Migrator;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, Row};

use super::columns::Flag;
use super::{Backend, DbError};

/// The SQLite schema this binary creates and expects.
pub(super) static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// The PostgreSQL schema: the same migrations, numbered alike, in
/// PostgreSQL's dialect.
pub(super) static PG_MIGRATOR: Migrator = sqlx::migrate!("../migrations/postgres");

/// The migrations of a backend.
pub(super) fn migrator(backend: Backend) -> &'static Migrator {
    match backend {
        Backend::Sqlite => &MIGRATOR,
        Backend::Postgres => &PG_MIGRATOR,
    }
}

/// How many foreign tables an error names before it says "and N more".
const NAMED_FOREIGN: usize = 5;

/// The newest migration this binary knows (both backends have the same).
fn latest() -> i64 {
    MIGRATOR.iter().filter(|m| !m.migration_type.is_down_migration()).map(|m| m.version).max().unwrap_or(0)
}

/// Whether `opts` names a file that exists and holds at least one byte.
/// An in-memory database names no file.
pub(super) fn file_has_data(opts: &SqliteConnectOptions) -> bool {
    std::fs::metadata(opts.get_filename()).is_ok_and(|m| m.len() > 0)
}

/// Whether `path` exists.
pub(super) fn file_exists(path: &Path) -> bool {
    std::fs::metadata(path).is_ok()
}

/// Whether a `-wal` file with content sits beside the database `path`.
pub(super) fn has_wal(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).is_ok_and(|m| m.len() > 0)
}

/// Whether SQLite failed for want of the `-shm` index of a WAL-mode file:
/// `SQLITE_READONLY_DIRECTORY` (1544), `SQLITE_READONLY_CANTINIT` (1288) or
/// `SQLITE_CANTOPEN` (14), the codes of a read-only directory.
pub(super) fn no_wal_index(e: &sqlx::Error) -> bool {
    e.as_database_error().and_then(|d| d.code()).is_some_and(|c| matches!(&*c, "1544" | "1288" | "14"))
}

/// A read-only connection to a SQLite file that changes nothing in it (no
/// pragma but sqlx's `foreign_keys`, which only affects this connection).
pub(super) async fn inspect(opts: &SqliteConnectOptions) -> Result<AnyConnection, DbError> {
    let url = format!("sqlite://{}?mode=ro", opts.get_filename().display());
    Ok(AnyConnection::connect(&url).await?)
}

/// The tables and views of a database: `sqlite_*` internals left out on
/// SQLite, the current schema's on PostgreSQL.
async fn tables(conn: &mut AnyConnection) -> Result<BTreeSet<String>, DbError> {
    let sql = match Backend::of_connection(conn) {
        // `table_name` is of PostgreSQL's `name` type, which the `Any`
        // driver does not read: cast to text.
        Backend::Postgres => {
            "SELECT CAST(table_name AS TEXT) AS name FROM information_schema.tables WHERE table_schema = current_schema()"
        }
        Backend::Sqlite => {
            r"SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'"
        }
    };
    let rows = sqlx::query(sql).fetch_all(conn).await?;
    Ok(rows.iter().map(|r| r.try_get::<String, _>("name")).collect::<Result<_, _>>()?)
}

/// The tables and views capicua's migrations create (and sqlx's own
/// `_sqlx_migrations`), read from a scratch in-memory database migrated
/// here, so the list can never drift from the migrations. Both backends'
/// migrations create the same tables (a test holds them in step).
async fn our_tables() -> Result<BTreeSet<String>, DbError> {
    let mut scratch = AnyConnection::connect("sqlite::memory:").await?;
    MIGRATOR.run_direct(&mut scratch).await?;
    let ours = tables(&mut scratch).await?;
    scratch.close().await?;
    Ok(ours)
}

/// Refuses a database holding tables that capicua's migrations did not
/// create: most likely `--database` points at another program's file (or
/// PostgreSQL database), which migrating (and switching to WAL) would alter.
pub(super) async fn refuse_foreign_tables(conn: &mut AnyConnection) -> Result<(), DbError> {
    let present = tables(conn).await?;
    if present.is_empty() {
        return Ok(());
    }
    // Without sqlx's record of our migrations no table is ours, even one
    // named like ours: migrating would trip over it or, worse, use it.
    let ours = if present.contains("_sqlx_migrations") { our_tables().await? } else { BTreeSet::new() };
    let foreign: Vec<String> = present.difference(&ours).cloned().collect();
    if foreign.is_empty() {
        return Ok(());
    }
    let more = foreign.len().saturating_sub(NAMED_FOREIGN);
    Err(DbError::ForeignTables { tables: foreign.into_iter().take(NAMED_FOREIGN).collect(), more })
}

/// One row of `_sqlx_migrations`.
struct Applied {
    version: i64,
    success: bool,
    checksum: Vec<u8>,
}

/// The migrations recorded in the database, `None` without a
/// `_sqlx_migrations` table.
async fn applied(conn: &mut AnyConnection) -> Result<Option<Vec<Applied>>, DbError> {
    if !tables(conn).await?.contains("_sqlx_migrations") {
        return Ok(None);
    }
    // sqlx declares `success` BOOLEAN, a column type the `Any` driver does
    // not read on SQLite: cast, it reads as the integer it holds.
    let rows = sqlx::query(
        "SELECT version, CAST(success AS INTEGER) AS success, checksum FROM _sqlx_migrations ORDER BY version",
    )
    .fetch_all(&mut *conn)
    .await?;
    let applied = rows
        .iter()
        .map(|r| {
            Ok(Applied {
                version: r.try_get("version")?,
                success: r.try_get::<Flag, _>("success")?.0,
                checksum: r.try_get("checksum")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()?;
    Ok(Some(applied))
}

/// Checks the recorded migrations against this binary's. A schema newer
/// than the binary, or a migration that failed or differs from ours, is
/// refused; an older one only when `exact` (a reader cannot migrate it).
/// A database with no migrations table at all is refused when `exact`.
/// The migrations are those of the connection's backend.
pub(super) async fn check_schema(conn: &mut AnyConnection, exact: bool) -> Result<(), DbError> {
    let migrator = migrator(Backend::of_connection(conn));
    let expected = latest();
    let Some(applied) = applied(conn).await? else {
        return if exact { Err(DbError::NotCapicua) } else { Ok(()) };
    };
    let found = applied.iter().map(|a| a.version).max().unwrap_or(0);
    for a in &applied {
        match migrator.iter().find(|m| m.version == a.version && !m.migration_type.is_down_migration()) {
            None => return Err(DbError::SchemaNewer { found, expected }),
            Some(m) if !a.success || *m.checksum != *a.checksum => {
                return Err(DbError::SchemaChanged { version: a.version });
            }
            Some(_) => {}
        }
    }
    let complete = migrator
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .all(|m| applied.iter().any(|a| a.version == m.version));
    if exact && !complete {
        return Err(DbError::SchemaOlder { found, expected });
    }
    Ok(())
}

/// What a writer checks before it migrates a database that already holds
/// something: no foreign tables (unless `allow_foreign_tables`), and no
/// schema newer than, or different from, this binary's.
pub(super) async fn check_before_migrating(
    conn: &mut AnyConnection,
    allow_foreign_tables: bool,
) -> Result<(), DbError> {
    if !allow_foreign_tables {
        refuse_foreign_tables(conn).await?;
    }
    check_schema(conn, false).await
}
