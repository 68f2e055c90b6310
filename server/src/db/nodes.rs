//! The servers ("nodes") serving this database: several may serve one
//! PostgreSQL database, each hosting its own rooms. A node records itself
//! at start with the base URL its clients reach it at, beats every
//! [`BEAT`] with its load and its listed rooms (so any node can show the
//! whole lobby and send a client to the node hosting a room), and stamps
//! its row when it shuts down cleanly. A node whose last beat is older
//! than [`DEAD_AFTER`] is dead (a `kill -9` stamps nothing).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde::Serialize;

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
            "SELECT {NODE_COLUMNS} FROM nodes n WHERE n.stopped_at IS NULL AND n.heartbeat_at >= $1 ORDER BY n.id"
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
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT url, rooms_json FROM nodes
             WHERE stopped_at IS NULL AND heartbeat_at >= $1 AND id <> $2 ORDER BY id",
        )
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
             WHERE r.id = $1 AND n.id <> $2 AND n.stopped_at IS NULL AND n.heartbeat_at >= $3"
        ))
        .bind(room)
        .bind(self.node_id().unwrap_or(0))
        .bind(live_since())
        .fetch_optional(&self.pool)
        .await?)
    }
}

/// The oldest beat (unix ms) of a live node.
pub(super) fn live_since() -> i64 {
    now_ms() as i64 - DEAD_AFTER.as_millis() as i64
}
