//! A tournament's stored tables (`tournament_tables`): each round's
//! pairings, an arena's tables as it pairs them, the room of each table's
//! latest attempt; and an arena's deadline.

use capicua_tournament::{Round, Table};
use serde::Serialize;
use sqlx::Any;

use crate::db::{Db, DbError};

/// An arena's stored tables from number `from` on, in creation order, as
/// the rounds of one table they are.
pub(in crate::db) async fn arena_rounds_from<'e, E>(ex: E, id: i64, from: usize) -> Result<Vec<Round>, DbError>
where
    E: sqlx::Executor<'e, Database = Any>,
{
    #[derive(sqlx::FromRow)]
    struct ArenaRow {
        #[sqlx(try_from = "i64")]
        round: u32,
        #[sqlx(try_from = "i64")]
        stage: u32,
        variant: String,
        table_json: String,
    }
    let rows: Vec<ArenaRow> = sqlx::query_as(
        "SELECT round, stage, variant, table_json FROM tournament_tables
         WHERE tournament_id = $1 AND round >= $2 ORDER BY round, table_no",
    )
    .bind(id)
    .bind(from as i64)
    .fetch_all(ex)
    .await?;
    rows.into_iter()
        .map(|r| {
            let table: Table = serde_json::from_str(&r.table_json)?;
            Ok(Round { number: r.round, stage: r.stage, variant: r.variant, tables: vec![table], byes: Vec::new() })
        })
        .collect()
}

/// A stored table: its pairing, room and attempts.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct StoredTable {
    /// The round.
    pub round: u32,
    /// The room of the latest attempt.
    pub room: Option<i64>,
    /// Rooms opened for it.
    pub attempts: i64,
    /// The table (sides and seats).
    pub table: Table,
}

impl Db {
    /// Stores a round's pairings (once: a resumed round keeps its rows).
    pub async fn save_tournament_round(&self, id: i64, round: &Round) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await?;
        for t in &round.tables {
            sqlx::query(
                "INSERT INTO tournament_tables (tournament_id, round, table_no, stage, variant, table_json)
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(round.number as i64)
            .bind(t.id as i64)
            .bind(round.stage as i64)
            .bind(&round.variant)
            .bind(serde_json::to_string(t)?)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Stores an arena's deadline unless one is stored already; returns the
    /// stored one (a resumed arena keeps its first deadline).
    pub async fn set_arena_ends_at(&self, id: i64, ends_at_ms: u64) -> Result<u64, DbError> {
        sqlx::query("UPDATE tournaments SET ends_at_ms = COALESCE(ends_at_ms, $1) WHERE id = $2")
            .bind(ends_at_ms as i64)
            .bind(id)
            .execute(&self.pool)
            .await?;
        let (stored,): (i64,) =
            sqlx::query_as("SELECT ends_at_ms FROM tournaments WHERE id = $1").bind(id).fetch_one(&self.pool).await?;
        Ok(stored as u64)
    }

    /// Stores an arena's new table (a round of one table) before its room
    /// opens, with the last result recorded when it was paired (`after_seq`).
    pub async fn save_arena_table(&self, id: i64, round: &Round, after_seq: i64) -> Result<(), DbError> {
        for t in &round.tables {
            sqlx::query(
                "INSERT INTO tournament_tables
                 (tournament_id, round, table_no, stage, variant, table_json, after_seq) VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(round.number as i64)
            .bind(t.id as i64)
            .bind(round.stage as i64)
            .bind(&round.variant)
            .bind(serde_json::to_string(t)?)
            .bind(after_seq)
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// Notes the room opened for a table (one more attempt, unless the room's
    /// stored match already noted it: see `super::log::insert_match`).
    pub async fn set_tournament_table_room(&self, id: i64, round: u32, table: u32, room: u64) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE tournament_tables SET attempts = attempts + (CASE WHEN room_id IS NOT DISTINCT FROM $1 THEN 0 ELSE 1 END), room_id = $2
             WHERE tournament_id = $3 AND round = $4 AND table_no = $5",
        )
        .bind(room as i64)
        .bind(room as i64)
        .bind(id)
        .bind(round as i64)
        .bind(table as i64)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every stored table, by round and table.
    pub async fn tournament_tables(&self, id: i64) -> Result<Vec<StoredTable>, DbError> {
        self.tournament_tables_of_rounds(id, 0, u32::MAX).await
    }

    /// The stored tables of rounds `from..=to`.
    pub async fn tournament_tables_of_rounds(&self, id: i64, from: u32, to: u32) -> Result<Vec<StoredTable>, DbError> {
        #[derive(sqlx::FromRow)]
        struct TableRow {
            #[sqlx(try_from = "i64")]
            round: u32,
            room_id: Option<i64>,
            attempts: i64,
            table_json: String,
        }
        let rows: Vec<TableRow> = sqlx::query_as(
            "SELECT round, room_id, attempts, table_json FROM tournament_tables
             WHERE tournament_id = $1 AND round BETWEEN $2 AND $3 ORDER BY round, table_no",
        )
        .bind(id)
        .bind(i64::from(from))
        .bind(i64::from(to))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(StoredTable {
                    round: r.round,
                    room: r.room_id,
                    attempts: r.attempts,
                    table: serde_json::from_str(&r.table_json)?,
                })
            })
            .collect()
    }

    /// An arena's stored tables from number `from` on, in creation order,
    /// as the rounds of one table they are.
    pub async fn arena_rounds_from(&self, id: i64, from: usize) -> Result<Vec<Round>, DbError> {
        arena_rounds_from(&self.pool, id, from).await
    }
}
