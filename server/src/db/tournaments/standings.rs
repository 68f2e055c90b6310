//! The standings rows behind the `tournament_standings` view, rewritten
//! whole in the transaction of each result or control that moves them.

use capicua_tournament::{EntrantId, Standing};
use sqlx::{Any, Transaction};

use crate::db::columns::Flag;
use crate::db::{Db, DbError};

/// [`Db::save_tournament_standings`] inside a transaction.
pub(in crate::db) async fn write_standings(
    tx: &mut Transaction<'_, Any>,
    id: i64,
    standings: &[Standing],
) -> Result<(), DbError> {
    sqlx::query("DELETE FROM tournament_standing_rows WHERE tournament_id = $1").bind(id).execute(&mut **tx).await?;
    for s in standings {
        sqlx::query(
            "INSERT INTO tournament_standing_rows (tournament_id, rank, entrant_id, entrant, points, wins, draws,
             losses, games, byes, timeouts, score, stage, eliminated, disqualified, reprieves, tie_breaks, withdrawn)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        )
        .bind(id)
        .bind(s.rank as i64)
        .bind(s.entrant.0 as i64)
        .bind(&s.name)
        .bind(s.points)
        .bind(s.wins as i64)
        .bind(s.draws as i64)
        .bind(s.losses as i64)
        .bind(s.games as i64)
        .bind(s.byes as i64)
        .bind(s.timeouts as i64)
        .bind(s.score)
        .bind(s.stage as i64)
        .bind(i64::from(s.eliminated))
        .bind(i64::from(s.disqualified))
        .bind(s.reprieves as i64)
        .bind(serde_json::to_string(&s.tie_breaks)?)
        .bind(i64::from(s.withdrawn))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

impl Db {
    /// Rewrites the standings rows behind the `tournament_standings` view.
    pub async fn save_tournament_standings(&self, id: i64, standings: &[Standing]) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await?;
        write_standings(&mut tx, id, standings).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The standings of a tournament, read from the `tournament_standings` view
    /// (the rows the runner saved from the library's [`Standing`]s).
    pub async fn tournament_standings(&self, id: i64) -> Result<Vec<Standing>, DbError> {
        /// A row of the view, named as its columns.
        #[derive(sqlx::FromRow)]
        struct StandingRow {
            #[sqlx(try_from = "i64")]
            rank: u32,
            entrant: String,
            #[sqlx(try_from = "i64")]
            entrant_id: u32,
            points: i64,
            #[sqlx(try_from = "i64")]
            wins: u32,
            #[sqlx(try_from = "i64")]
            draws: u32,
            #[sqlx(try_from = "i64")]
            losses: u32,
            #[sqlx(try_from = "i64")]
            games: u32,
            #[sqlx(try_from = "i64")]
            byes: u32,
            #[sqlx(try_from = "i64")]
            timeouts: u32,
            score: i64,
            #[sqlx(try_from = "i64")]
            stage: u32,
            #[sqlx(try_from = "Flag")]
            eliminated: bool,
            #[sqlx(try_from = "Flag")]
            disqualified: bool,
            #[sqlx(try_from = "Flag")]
            withdrawn: bool,
            tie_breaks: String,
            #[sqlx(try_from = "i64")]
            reprieves: u32,
        }
        let rows: Vec<StandingRow> = sqlx::query_as(
            "SELECT rank, entrant, entrant_id, points, wins, draws, losses, games, byes, timeouts, score, stage,
             eliminated, disqualified, withdrawn, tie_breaks, reprieves FROM tournament_standings WHERE tournament_id = $1 ORDER BY rank",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Standing {
                    rank: r.rank,
                    name: r.entrant,
                    entrant: EntrantId(r.entrant_id),
                    points: r.points,
                    wins: r.wins,
                    draws: r.draws,
                    losses: r.losses,
                    games: r.games,
                    byes: r.byes,
                    timeouts: r.timeouts,
                    score: r.score,
                    stage: r.stage,
                    eliminated: r.eliminated,
                    disqualified: r.disqualified,
                    withdrawn: r.withdrawn,
                    tie_breaks: serde_json::from_str(&r.tie_breaks)?,
                    reprieves: r.reprieves,
                })
            })
            .collect()
    }
}
