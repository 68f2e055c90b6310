//! The servers ("nodes") serving this database: several may serve one
//! PostgreSQL database, each hosting its own rooms. A node records itself
//! at start with the base URL its clients reach it at, beats every
//! [`BEAT`] with its load and its listed rooms (so any node can show the
//! whole lobby and send a client to the node hosting a room), and stamps
//! its row when it shuts down cleanly. A node whose last beat is older
//! than [`DEAD_AFTER`] is dead (a `kill -9` stamps nothing).
//!
//! On PostgreSQL a beat is too slow a sign of death to move tournament
//! tables by: each node also holds, on a connection of its own, a
//! session-level advisory lock keyed by its id ([`NodeLock`]), and a node
//! counts as live only while the database shows that lock granted. The
//! database frees the lock the moment the node's session ends, however its
//! process ended, so a killed node is dead to every other node at once.
//! Reading `pg_locks` has no side effects (probing with
//! `pg_try_advisory_lock` would briefly take the dead node's lock).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde::Serialize;
use sqlx::{Connection, PgConnection};

use super::backend::Backend;
use super::{Db, DbError, now_ms};

/// How often a node beats.
pub const BEAT: Duration = Duration::from_secs(2);

/// How old a node's last beat may be while it counts as live: a few beats,
/// so a busy database or a pause of the process does not declare it dead.
pub const DEAD_AFTER: Duration = Duration::from_secs(10);

/// A live node, as `GET /api/nodes` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct Node {
    /// The node's id (numbered by the database at its start).
    pub id: i64,
    /// The base URL its clients reach it at (`http://host:port`; the
    /// WebSocket is at `/ws`).
    pub url: String,
    /// When it started (unix ms).
    pub started_at: i64,
    /// Its last beat (unix ms).
    pub heartbeat_at: i64,
    /// Rooms open on it at its last beat.
    pub rooms: i64,
    /// Connections open to it at its last beat.
    pub connections: i64,
    /// Whether it runs the tournaments (their tables open there).
    #[sqlx(try_from = "super::columns::Flag")]
    pub scheduler: bool,
}

/// The first key of every node lock (`pg_advisory_lock(class, node id)`,
/// the two-int form, which `pg_locks` shows with `objsubid = 2`): "capn" in
/// ASCII, apart from the scheduler lock's one-bigint key.
const NODE_LOCK_CLASS: i32 = 0x6361_706e;

/// How long the node waits for its lock connection to answer before it
/// counts the lock as lost.
const LOCK_PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The columns of a [`Node`], of the `nodes` row aliased `n`.
const NODE_COLUMNS: &str = "n.id, n.url, n.started_at, n.heartbeat_at, n.rooms, n.connections, n.scheduler";

/// A node's load and lobby, written at each beat.
pub struct Beat<'a> {
    /// Rooms open.
    pub rooms: i64,
    /// Connections open.
    pub connections: i64,
    /// Its listed rooms as JSON (a `list-rooms` reply's `rooms`).
    pub rooms_json: &'a str,
    /// The registered players connected to it, their ids as a JSON array.
    pub players_json: &'a str,
    /// Whether it runs the tournaments.
    pub scheduler: bool,
}

impl Db {
    /// Records this server as a node reached at `url`; the rooms it opens
    /// from now on are stored as this node's.
    pub async fn register_node(&self, url: &str) -> Result<i64, DbError> {
        let now = now_ms() as i64;
        let id: i64 =
            sqlx::query_scalar("INSERT INTO nodes (url, started_at, heartbeat_at) VALUES ($1, $2, $3) RETURNING id")
                .bind(url)
                .bind(now)
                .bind(now)
                .fetch_one(&self.pool)
                .await?;
        self.node.store(id, Ordering::Relaxed);
        Ok(id)
    }

    /// This server's node id, once registered.
    pub fn node_id(&self) -> Option<i64> {
        Some(self.node.load(Ordering::Relaxed)).filter(|&id| id > 0)
    }

    /// Writes this node's beat.
    pub async fn beat(&self, beat: &Beat<'_>) -> Result<(), DbError> {
        let Some(id) = self.node_id() else { return Ok(()) };
        sqlx::query(
            "UPDATE nodes SET heartbeat_at = $1, rooms = $2, connections = $3, rooms_json = $4, scheduler = $5,
             players_json = $7 WHERE id = $6",
        )
        .bind(now_ms() as i64)
        .bind(beat.rooms)
        .bind(beat.connections)
        .bind(beat.rooms_json)
        .bind(i64::from(beat.scheduler))
        .bind(id)
        .bind(beat.players_json)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Stamps this node stopped (a clean shutdown): it leaves the lists at
    /// once instead of after [`DEAD_AFTER`].
    pub async fn stop_node(&self) -> Result<(), DbError> {
        let Some(id) = self.node_id() else { return Ok(()) };
        sqlx::query(
            "UPDATE nodes SET stopped_at = $1, rooms = 0, connections = 0, rooms_json = '[]', scheduler = 0
             WHERE id = $2",
        )
        .bind(now_ms() as i64)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The live nodes, this one included, oldest first.
    pub async fn live_nodes(&self) -> Result<Vec<Node>, DbError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {NODE_COLUMNS} FROM nodes n WHERE {} ORDER BY n.id",
            self.live_sql("n", "$1")
        ))
        .bind(live_since())
        .fetch_all(&self.pool)
        .await?)
    }

    /// The registered players connected to the other live nodes, as of
    /// their last beats.
    pub async fn players_elsewhere(&self) -> Result<std::collections::HashSet<i64>, DbError> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT players_json FROM nodes WHERE stopped_at IS NULL AND heartbeat_at >= $1 AND id <> $2",
        )
        .bind(live_since())
        .bind(self.node_id().unwrap_or(0))
        .fetch_all(&self.pool)
        .await?;
        let mut out = std::collections::HashSet::new();
        for json in rows {
            out.extend(serde_json::from_str::<Vec<i64>>(&json)?);
        }
        Ok(out)
    }

    /// The other live nodes' URLs and listed rooms (JSON), oldest first.
    pub async fn other_lobbies(&self) -> Result<Vec<(String, String)>, DbError> {
        let rows: Vec<(String, String)> = sqlx::query_as(&format!(
            "SELECT n.url, n.rooms_json FROM nodes n WHERE {} AND n.id <> $2 ORDER BY n.id",
            self.live_sql("n", "$1")
        ))
        .bind(live_since())
        .bind(self.node_id().unwrap_or(0))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// The live node other than this one that opened `room`, if any.
    pub async fn room_elsewhere(&self, room: i64) -> Result<Option<Node>, DbError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {NODE_COLUMNS} FROM rooms r JOIN nodes n ON n.id = r.node_id
             WHERE r.id = $1 AND n.id <> $2 AND {}",
            self.live_sql("n", "$3")
        ))
        .bind(room)
        .bind(self.node_id().unwrap_or(0))
        .bind(live_since())
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The ids of the nodes whose lock the database shows held, i.e. whose
    /// session lives (PostgreSQL; on SQLite, this server if registered).
    pub async fn locked_nodes(&self) -> Result<Vec<i64>, DbError> {
        match self.backend {
            Backend::Sqlite => Ok(self.node_id().into_iter().collect()),
            Backend::Postgres => Ok(sqlx::query_scalar(&locked_nodes_sql()).fetch_all(&self.pool).await?),
        }
    }

    /// SQL condition: the node aliased `n` is live (not stopped, its last
    /// beat not older than the unix ms in placeholder `since` and, on
    /// PostgreSQL, its lock held: see the module's doc).
    pub(super) fn live_sql(&self, n: &str, since: &str) -> String {
        let beat = format!("{n}.stopped_at IS NULL AND {n}.heartbeat_at >= {since}");
        match self.backend {
            Backend::Sqlite => beat,
            Backend::Postgres => format!("{beat} AND {}", self.locked_sql(&format!("{n}.id"))),
        }
    }

    /// SQL condition: the node whose id is the expression `id` holds its
    /// lock (always true on SQLite, where one server has the file).
    pub(super) fn locked_sql(&self, id: &str) -> String {
        match self.backend {
            Backend::Sqlite => "1 = 1".into(),
            Backend::Postgres => format!("{id} IN ({})", locked_nodes_sql()),
        }
    }

    /// Takes this node's lock on a connection of its own (PostgreSQL, once
    /// registered; `None` on SQLite, where nobody else needs to know).
    pub async fn lock_node(&self) -> Result<Option<NodeLock>, DbError> {
        let (Some(url), Some(id)) = (self.postgres_url.clone(), self.node_id()) else { return Ok(None) };
        // The key is an int4 that `pg_locks` shows as an unsigned oid: ids
        // up to 2^32 - 1 fit, which 4 billion node starts would exhaust.
        let Ok(key) = u32::try_from(id) else {
            tracing::error!(node = id, "the node id does not fit a node lock: this node takes no tournament tables");
            return Ok(None);
        };
        let mut lock = NodeLock { url, key: key as i32, conn: None };
        if !lock.take().await? {
            // Nobody else takes a fresh node's key; the next beat tries again.
            tracing::warn!(node = id, "this node's lock is held by another session");
        }
        Ok(Some(lock))
    }
}

/// The ids of the nodes whose lock is granted in this database (advisory
/// locks are per database, and one PostgreSQL server may hold several).
fn locked_nodes_sql() -> String {
    format!(
        "SELECT l.objid::bigint FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = {NODE_LOCK_CLASS}::oid
           AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())"
    )
}

/// This node's lock (PostgreSQL): while the database shows it granted the
/// node is live to the others, and it takes tournament tables. Dropping it
/// (or the process ending) frees it.
pub struct NodeLock {
    url: std::sync::Arc<str>,
    /// The node id, as the lock's second key (its bits: `pg_locks` shows
    /// it as the unsigned `objid`).
    key: i32,
    /// The connection holding the lock; `None` once it was found gone.
    conn: Option<PgConnection>,
}

/// Whether this node holds its lock, as [`NodeLock::keep`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Held, as before.
    Still,
    /// Held again, on a new connection, after it was lost.
    Again,
    /// Its connection is gone (the other nodes count this one dead); taking
    /// it again failed for now.
    Lost,
}

impl NodeLock {
    /// Checks that the lock's connection answers; once it is gone, tries to
    /// take the lock again on a new connection (the database freed it with
    /// the old session).
    pub async fn keep(&mut self) -> Held {
        if let Some(conn) = &mut self.conn {
            if matches!(tokio::time::timeout(LOCK_PING_TIMEOUT, conn.ping()).await, Ok(Ok(()))) {
                return Held::Still;
            }
            self.conn = None;
        }
        match self.take().await {
            Ok(true) => Held::Again,
            Ok(false) => Held::Lost,
            Err(e) => {
                tracing::debug!(error = %e, "taking the node lock again");
                Held::Lost
            }
        }
    }

    /// Takes the lock on a new connection; false when another session
    /// holds it. A try, not a wait: the only other holder can be this
    /// node's own old session, which the database has yet to end.
    async fn take(&mut self) -> Result<bool, DbError> {
        let mut conn = super::scheduler_lock::lock_connection(&self.url).await?;
        let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
            .bind(NODE_LOCK_CLASS)
            .bind(self.key)
            .fetch_one(&mut conn)
            .await?;
        if taken {
            self.conn = Some(conn);
        }
        Ok(taken)
    }
}

/// The oldest beat (unix ms) of a live node.
pub(super) fn live_since() -> i64 {
    now_ms() as i64 - DEAD_AFTER.as_millis() as i64
}
