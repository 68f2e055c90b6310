//! Which database engine a [`super::Db`] runs on, and what that makes of
//! the servers that share it.

/// The database engine a [`super::Db`] runs on, chosen by the `--database` URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file (a bare path or `sqlite://...`): the default.
    Sqlite,
    /// A PostgreSQL server (`postgres://...` or `postgresql://...`).
    Postgres,
}

impl Backend {
    /// The engine a `--database` value names.
    pub fn of(url: &str) -> Backend {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }

    /// The engine an open connection talks to.
    pub(crate) fn of_connection(conn: &sqlx::AnyConnection) -> Backend {
        if conn.backend_name() == "PostgreSQL" { Backend::Postgres } else { Backend::Sqlite }
    }

    /// What running on this engine makes of the server: a SQLite file has
    /// one server to itself; a PostgreSQL database may be shared by many.
    pub fn topology(self) -> Topology {
        match self {
            Backend::Sqlite => Topology::Single,
            Backend::Postgres => Topology::Cluster,
        }
    }
}

/// How many servers share the database: what the lobby, tournament tables
/// and guest names depend on, whichever engine stands behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// One server has the database to itself: every room is its own.
    Single,
    /// Servers (nodes) share the database: rooms, lobbies and tournament
    /// tables may be on any of them.
    Cluster,
}
