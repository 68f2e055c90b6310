//! The serving lock: one server per SQLite file.

use anyhow::Context;

/// A held serving lock: a file lock beside a SQLite file.
pub(crate) struct Serving(#[allow(dead_code, reason = "held, never read")] std::fs::File);

/// Takes the serving lock of a SQLite `database`, so a second server on
/// the same file refuses to start instead of fighting the first over the
/// file's single writer and tournament tables: an exclusive lock on the
/// file `<database>.lock` beside it (the file stays), which dies with the
/// process, however it ends. Commands that only read, and `register`, do
/// not take it. `None` for an in-memory database, which no other process
/// can share, and for PostgreSQL, where several servers may serve one
/// database and elect the one that runs the tournaments
/// ([`capicua_server::db::SchedulerLock`]).
pub(crate) async fn lock_for_serving(database: &str) -> anyhow::Result<Option<Serving>> {
    use std::str::FromStr;
    if capicua_server::db::Backend::of(database) == capicua_server::db::Backend::Postgres {
        return Ok(None);
    }
    let url = capicua_server::db::database_url(database);
    let opts = sqlx::sqlite::SqliteConnectOptions::from_str(&url).with_context(|| format!("opening {database}"))?;
    let file = opts.get_filename();
    if url.contains(":memory:") || file.as_os_str().is_empty() || file == std::path::Path::new(":memory:") {
        return Ok(None);
    }
    // A path in a folder that does not exist is the user's typo, not a
    // lock-file problem: say so in their terms.
    if let Some(folder) = file.parent()
        && !folder.as_os_str().is_empty()
        && !folder.is_dir()
    {
        anyhow::bail!(
            "the database {database} is in the folder {}, which does not exist: create it first, or give \
             --database a file in an existing folder",
            folder.display()
        );
    }
    let mut lock_path = file.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock_path = std::path::PathBuf::from(lock_path);
    let lock = match std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path) {
        Ok(lock) => lock,
        // Serving stores every finished match: on a file system it cannot
        // write, every result would be lost while the server looked
        // healthy. Refused before anything else, in one line.
        Err(e) if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem => anyhow::bail!(
            "the database {database} is on a read-only file system: serve needs to write it (it stores every \
             finished match), so it does not start; `standings` and `tournament list` read such a database"
        ),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("opening the lock file {}", lock_path.display()))),
    };
    match try_lock(&lock) {
        Ok(true) => Ok(Some(Serving(lock))),
        Ok(false) => anyhow::bail!(
            "the database {database} is in use by another capicua-server (it holds {}): \
             stop that server or give another --database",
            lock_path.display()
        ),
        Err(e) => Err(anyhow::Error::new(e).context(format!("locking {}", lock_path.display()))),
    }
}

/// Takes an exclusive `flock` on `file` without waiting: false when another
/// process holds it.
#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Elsewhere the serving lock is not taken.
#[cfg(not(unix))]
fn try_lock(_: &std::fs::File) -> std::io::Result<bool> {
    Ok(true)
}
