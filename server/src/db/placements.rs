//! Where tournament tables play (`migrations/0011_table_placements.sql`):
//! on PostgreSQL the scheduler places each table on the least loaded live
//! node (live: its node lock held, see [`super::nodes`]), and that node
//! opens its room. A placement moves through
//! [`PlacementState`]s; each move is one conditional `UPDATE`, so a node
//! and the scheduler never both decide a placement's fate.

use std::time::Duration;

use sqlx::Row;
use sqlx::postgres::PgListener;

use super::backend::Backend;
use super::columns::text_column;
use super::nodes::live_since;
use super::{Db, DbError, now_ms};

/// How long a placement may wait for its node to open it: a live node
/// claims its placements within a quarter of a second, so one that has not
/// after this is not taking tables (it is stuck: a dead node's placements
/// are lost as soon as its lock is gone), and the table goes to another node.
pub const CLAIM_WITHIN: Duration = Duration::from_secs(3);

/// The PostgreSQL channel on which placements are announced (see
/// [`News`]): a node hears of a table placed on it, and a runner of its
/// placement's moves, at once rather than at its next look.
const CHANNEL: &str = "capicua_placements";

/// What the placements channel says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum News {
    /// A table was placed on this node.
    Placed {
        /// The node.
        node: i64,
    },
    /// A placement of this tournament moved (opened, ended, lost...).
    Moved {
        /// The tournament.
        tournament: i64,
    },
}

impl News {
    /// The notification's payload.
    fn payload(self) -> String {
        match self {
            News::Placed { node } => format!("placed {node}"),
            News::Moved { tournament } => format!("moved {tournament}"),
        }
    }

    /// Reads a notification's payload; `None` for anything else.
    pub fn parse(payload: &str) -> Option<News> {
        let (what, id) = payload.split_once(' ')?;
        let id = id.parse().ok()?;
        match what {
            "placed" => Some(News::Placed { node: id }),
            "moved" => Some(News::Moved { tournament: id }),
            _ => None,
        }
    }
}

/// Where a placement stands (`table_placements.state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementState {
    /// Placed: its node has yet to open the room.
    Placed,
    /// Its room is open on its node.
    Open,
    /// Its match is stored (with the tournament's result).
    Done,
    /// Its room ended without a stored match: the table is played again.
    Ended,
    /// The tournament was cancelled: its node closes the room.
    Cancel,
    /// Its node died or stopped before the match was stored.
    Lost,
}

text_column!(PlacementState {
    Placed => "placed",
    Open => "open",
    Done => "done",
    Ended => "ended",
    Cancel => "cancel",
    Lost => "lost",
});

/// A placement as its tournament's runner watches it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Watched {
    /// The placement.
    pub id: i64,
    /// The table in its round.
    #[sqlx(rename = "table_no", try_from = "i64")]
    pub table: u32,
    /// Where it stands.
    pub state: PlacementState,
    /// The node it is placed on.
    #[sqlx(rename = "node_id")]
    pub node: i64,
    /// Whether its node is live (see [`super::nodes`]).
    #[sqlx(try_from = "super::columns::Flag")]
    pub node_live: bool,
    /// Whether it is still placed after [`CLAIM_WITHIN`]: its node is not
    /// taking tables.
    #[sqlx(try_from = "super::columns::Flag")]
    pub overdue: bool,
}

/// A placement lost with its node ([`Db::lose_placement`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lost {
    /// Before its node opened the room.
    Unopened,
    /// With its room open.
    InPlay,
}

/// A placed table: which, and what its room is.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlacedTable {
    /// The placement.
    pub id: i64,
    /// The tournament.
    #[sqlx(rename = "tournament_id")]
    pub tournament: i64,
    /// The round.
    #[sqlx(try_from = "i64")]
    pub round: u32,
    /// The table in its round.
    #[sqlx(rename = "table_no", try_from = "i64")]
    pub table: u32,
    /// What the room is (the server's `TablePlan`, as JSON).
    pub table_json: String,
}

/// A table open on another node, for the players connected here.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct OpenElsewhere {
    /// The table.
    #[sqlx(flatten)]
    pub placed: PlacedTable,
    /// Its room.
    #[sqlx(rename = "room_id")]
    pub room: i64,
    /// The node's base URL.
    pub url: String,
}

impl Db {
    /// The live node with the least load: rooms open at its last beat, plus
    /// tables placed on it or opened there since. Ties go to the oldest node.
    /// A node with a placement unclaimed for [`CLAIM_WITHIN`] is passed over,
    /// and so is one that lost a placement unopened lately (within
    /// [`super::nodes::DEAD_AFTER`]): a stuck node's lock stays held, and it
    /// would be given table after table, each lost [`CLAIM_WITHIN`] later.
    pub async fn least_loaded_node(&self) -> Result<Option<i64>, DbError> {
        let row = sqlx::query(&format!(
            "SELECT n.id, n.rooms + (SELECT COUNT(*) FROM table_placements p WHERE p.node_id = n.id
                 AND (p.state = 'placed' OR (p.state = 'open' AND p.opened_at > n.heartbeat_at))) AS load
             FROM nodes n WHERE {}
               AND NOT EXISTS (SELECT 1 FROM table_placements q
                               WHERE q.node_id = n.id AND ((q.state = 'placed' AND q.placed_at < $2)
                                 OR (q.state = 'lost' AND q.opened_at IS NULL AND q.ended_at >= $1)))
             ORDER BY load, n.id LIMIT 1",
            self.live_sql("n", "$1")
        ))
        .bind(live_since())
        .bind(claim_since())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.get::<i64, _>(0)))
    }

    /// Places a tournament table on `node`; returns the placement's id.
    pub async fn place_table(
        &self,
        tournament: i64,
        round: u32,
        table: u32,
        node: i64,
        table_json: &str,
    ) -> Result<i64, DbError> {
        let id = sqlx::query_scalar(
            "INSERT INTO table_placements (tournament_id, round, table_no, node_id, state, table_json, placed_at)
             VALUES ($1, $2, $3, $4, 'placed', $5, $6) RETURNING id",
        )
        .bind(tournament)
        .bind(i64::from(round))
        .bind(i64::from(table))
        .bind(node)
        .bind(table_json)
        .bind(now_ms() as i64)
        .fetch_one(&self.pool)
        .await?;
        self.announce(News::Placed { node }).await?;
        Ok(id)
    }

    /// Announces placement news to every node listening (PostgreSQL; the
    /// nodes also look every quarter of a second, so news is a shortcut,
    /// never the only way a node learns).
    async fn announce(&self, news: News) -> Result<(), DbError> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(news.payload()).execute(&self.pool).await?;
        }
        Ok(())
    }

    /// A listener to the placements channel (PostgreSQL; `None` on SQLite),
    /// on a connection of its own; [`News::parse`] reads what it hears.
    pub async fn listen_placements(&self) -> Result<Option<PgListener>, DbError> {
        let Some(url) = &self.postgres_url else { return Ok(None) };
        let mut listener = PgListener::connect(url).await?;
        listener.listen(CHANNEL).await?;
        Ok(Some(listener))
    }

    /// The placements this node is to open, oldest first; none while the
    /// database does not show this node's lock held: the other nodes count
    /// it dead then, and place its tables elsewhere.
    pub async fn placed_here(&self) -> Result<Vec<PlacedTable>, DbError> {
        let Some(node) = self.node_id() else { return Ok(Vec::new()) };
        Ok(sqlx::query_as(&format!(
            "SELECT id, tournament_id, round, table_no, table_json FROM table_placements
             WHERE node_id = $1 AND state = 'placed' AND {} ORDER BY id",
            self.locked_sql("$1")
        ))
        .bind(node)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Moves a placement from `from` to `to` (stamping `opened_at` on
    /// `open`, `ended_at` on any end); false when it was not in `from`
    /// any more (another party decided first).
    pub async fn move_placement(&self, id: i64, from: &[PlacementState], to: PlacementState) -> Result<bool, DbError> {
        let states: Vec<String> = from.iter().map(|s| format!("'{}'", s.column_name())).collect();
        let stamp = if to == PlacementState::Open { "opened_at" } else { "ended_at" };
        let moved: Option<i64> = sqlx::query_scalar(&format!(
            "UPDATE table_placements SET state = $1, {stamp} = $2 WHERE id = $3 AND state IN ({}) RETURNING tournament_id",
            states.join(", ")
        ))
        .bind(to)
        .bind(now_ms() as i64)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(tournament) = moved {
            self.announce(News::Moved { tournament }).await?;
        }
        Ok(moved.is_some())
    }

    /// Marks a placement placed or open `lost` (its node died or is not
    /// taking tables); `None` when it was neither any more (another party
    /// decided first).
    pub async fn lose_placement(&self, id: i64) -> Result<Option<Lost>, DbError> {
        use PlacementState::{Open, Placed};
        // Placed first: a claim moves it to open, never back.
        if self.move_placement(id, &[Placed], PlacementState::Lost).await? {
            return Ok(Some(Lost::Unopened));
        }
        Ok(self.move_placement(id, &[Open], PlacementState::Lost).await?.then_some(Lost::InPlay))
    }

    /// Records the room a placement's node opened.
    pub async fn set_placement_room(&self, id: i64, room: u64) -> Result<(), DbError> {
        sqlx::query("UPDATE table_placements SET room_id = $1 WHERE id = $2")
            .bind(room as i64)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The placements of a tournament's round that still matter to its
    /// runner (placed, open, done or ended), with whether their node is live.
    pub async fn watch_placements(&self, tournament: i64, round: u32) -> Result<Vec<Watched>, DbError> {
        Ok(sqlx::query_as(&format!(
            "SELECT p.id, p.table_no, p.state, p.node_id,
                    CASE WHEN {} THEN 1 ELSE 0 END AS node_live,
                    CASE WHEN p.state = 'placed' AND p.placed_at < $4 THEN 1 ELSE 0 END AS overdue
             FROM table_placements p JOIN nodes n ON n.id = p.node_id
             WHERE p.tournament_id = $2 AND p.round = $3 AND p.state IN ('placed', 'open', 'done', 'ended')
             ORDER BY p.id",
            self.live_sql("n", "$1")
        ))
        .bind(live_since())
        .bind(tournament)
        .bind(i64::from(round))
        .bind(claim_since())
        .fetch_all(&self.pool)
        .await?)
    }

    /// Asks the nodes to close the rooms of a cancelled tournament's
    /// placements still placed or open.
    pub async fn cancel_placements(&self, tournament: i64) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE table_placements SET state = 'cancel', ended_at = $1
             WHERE tournament_id = $2 AND state IN ('placed', 'open')",
        )
        .bind(now_ms() as i64)
        .bind(tournament)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The rooms of this node's cancelled placements.
    pub async fn cancelled_here(&self) -> Result<Vec<(i64, i64)>, DbError> {
        let Some(node) = self.node_id() else { return Ok(Vec::new()) };
        Ok(sqlx::query_as(
            "SELECT id, room_id FROM table_placements WHERE node_id = $1 AND state = 'cancel' AND room_id IS NOT NULL",
        )
        .bind(node)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The tables open on the other live nodes, with their rooms.
    pub async fn open_elsewhere(&self) -> Result<Vec<OpenElsewhere>, DbError> {
        Ok(sqlx::query_as(&format!(
            "SELECT p.id, p.tournament_id, p.round, p.table_no, p.room_id, n.url, p.table_json
             FROM table_placements p JOIN nodes n ON n.id = p.node_id
             WHERE p.state = 'open' AND p.room_id IS NOT NULL AND p.node_id <> $1 AND {}
             ORDER BY p.id",
            self.live_sql("n", "$2")
        ))
        .bind(self.node_id().unwrap_or(0))
        .bind(live_since())
        .fetch_all(&self.pool)
        .await?)
    }
}

/// The oldest placement (unix ms) still waiting for its node in time.
fn claim_since() -> i64 {
    now_ms() as i64 - CLAIM_WITHIN.as_millis() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn news_reads_back_as_it_was_announced_and_nothing_else_is_news() {
        for news in [News::Placed { node: 3 }, News::Moved { tournament: 12 }] {
            assert_eq!(News::parse(&news.payload()), Some(news));
        }
        for noise in ["", "placed", "placed x", "opened 3", "placed 3 4"] {
            assert_eq!(News::parse(noise), None, "{noise:?}");
        }
    }
}
