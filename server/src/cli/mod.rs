//! The commands of `capicua-server`, one file each, and what they share:
//! command output, opening the database, a small HTTP client.

/// `println!` for command output: a reader that closes the pipe early
/// (`capicua-server standings | head`) ends the command quietly, with
/// success, instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::emit(format_args!($($arg)*))?
    };
}

pub(crate) mod board;
pub(crate) mod health;
pub(crate) mod http;
pub(crate) mod ladder;
pub(crate) mod pairings;
pub(crate) mod reader;
pub(crate) mod register;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod serving_lock;
pub(crate) mod standings;
pub(crate) mod tournament;

use anyhow::Context;

/// Writes one line of command output to stdout; see [`outln!`].
pub(crate) fn emit(line: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        // The reader has all it wanted: nothing is left to do.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.context("writing to stdout"),
    }
}

/// Opens the database of a command that writes (`serve`, `register`,
/// `tournament create`): created and migrated if needed, refused untouched
/// if it holds foreign tables (unless allowed).
pub(crate) async fn open_for_writing(database: &str, allow_foreign_tables: bool) -> anyhow::Result<capicua_server::Db> {
    open_with(database, capicua_server::db::OpenOptions { allow_foreign_tables, ..Default::default() }).await
}

/// [`open_for_writing`] with every option given.
pub(crate) async fn open_with(
    database: &str,
    options: capicua_server::db::OpenOptions,
) -> anyhow::Result<capicua_server::Db> {
    capicua_server::Db::open_with(database, options).await.with_context(|| format!("opening {database}"))
}

/// Opens the database of a command that only reads: never created,
/// migrated or altered. The guards' errors name the file themselves.
pub(crate) async fn open_read_only(database: &str) -> anyhow::Result<capicua_server::Db> {
    use capicua_server::db::DbError;
    match capicua_server::Db::open_read_only(database).await {
        Ok(db) => Ok(db),
        Err(e @ DbError::Missing { .. }) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context(format!("opening {database}"))),
    }
}
