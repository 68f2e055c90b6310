//! Read-only: the node where each of a tournament's open tables plays, for
//! the tournament's detail to say where to find it.

use std::collections::HashMap;

use serde::Serialize;

use crate::db::{Db, DbError};

/// A node, as a table's detail names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct TableNode {
    /// The node's id.
    pub id: i64,
    /// The base URL its clients reach it at.
    pub url: String,
}

impl Db {
    /// The node of each table of tournament `id` with a room or a live
    /// placement, by (round, table): its placement's node while the
    /// placement is placed or open (several nodes on PostgreSQL), else the
    /// node that opened its latest room.
    pub async fn tournament_table_nodes(&self, id: i64) -> Result<HashMap<(u32, u32), TableNode>, DbError> {
        let by_room: Vec<(i64, i64, i64, String)> = sqlx::query_as(
            "SELECT t.round, t.table_no, n.id, n.url FROM tournament_tables t
             JOIN rooms r ON r.id = t.room_id JOIN nodes n ON n.id = r.node_id
             WHERE t.tournament_id = $1",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let placed: Vec<(i64, i64, i64, String)> = sqlx::query_as(
            "SELECT p.round, p.table_no, n.id, n.url FROM table_placements p JOIN nodes n ON n.id = p.node_id
             WHERE p.tournament_id = $1 AND p.state IN ('placed', 'open') ORDER BY p.id",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Ok(by_room
            .into_iter()
            .chain(placed)
            .map(|(round, table, node, url)| ((round as u32, table as u32), TableNode { id: node, url }))
            .collect())
    }
}
