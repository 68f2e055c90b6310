//! Finished reviews (`migrations/0013_reviews.sql`): a seat of a stored game
//! is analysed once, and every server on the database serves the stored
//! answer afterwards.

use super::{Db, DbError, now_ms};

impl Db {
    /// The stored review of `seat` in game `game`: its JSON as served.
    pub async fn review(&self, game: i64, seat: u8) -> Result<Option<String>, DbError> {
        let body: Option<String> = sqlx::query_scalar("SELECT body FROM reviews WHERE game_id = $1 AND seat = $2")
            .bind(game)
            .bind(i64::from(seat))
            .fetch_optional(&self.pool)
            .await?;
        Ok(body)
    }

    /// Stores a finished review. Two servers that computed the same review
    /// at once keep the first one stored (they agree anyway: the analysis
    /// is seeded by game, step and seat).
    pub async fn store_review(&self, game: i64, seat: u8, body: &str) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO reviews (game_id, seat, body, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (game_id, seat) DO NOTHING",
        )
        .bind(game)
        .bind(i64::from(seat))
        .bind(body)
        .bind(now_ms() as i64)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
