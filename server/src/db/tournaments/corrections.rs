//! Read-only: whether a stored game is a tournament table whose result the
//! organiser corrected, for the game's replay and summary to show the
//! result that counts beside the one played.

use capicua_tournament::{Control, MatchResult};
use serde::Serialize;

use crate::db::{Db, DbError};

/// The correction that counts for a stored game: the last `correct`
/// control of its table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct GameCorrection {
    /// Who took the correction.
    pub by: String,
    /// When, in unix milliseconds (the audit trail keeps seconds: a whole
    /// second, times 1000).
    pub at: i64,
    /// The result that counts for the tournament.
    pub result: MatchResult,
    /// The tournament.
    pub tournament: i64,
    /// The round (from 0).
    pub round: u32,
    /// The table (from 0).
    pub table: u32,
}

impl GameCorrection {
    /// The corrected result as a game tells it, by side: each side's score
    /// (the sum of its seats' corrected shares, as a match's seat scores
    /// sum to its side's) and the winning side. `sides` gives each seat's
    /// side; a side no seat names keeps its `played` score.
    pub fn by_side(&self, sides: &[u8], played: &[i32]) -> (Vec<i32>, Option<u8>) {
        let mut scores = played.to_vec();
        let mut summed = vec![false; scores.len()];
        for (&side, result) in sides.iter().zip(&self.result.seats) {
            let side = usize::from(side);
            if side < scores.len() {
                if !summed[side] {
                    scores[side] = 0;
                    summed[side] = true;
                }
                scores[side] = scores[side].saturating_add(i32::try_from(result.score).unwrap_or(i32::MAX));
            }
        }
        (scores, self.result.winner.and_then(|w| u8::try_from(w).ok()))
    }
}

impl Db {
    /// The correction that counts for game `game`, if it is a tournament
    /// table's recorded game and its result was corrected.
    pub async fn game_correction(&self, game: i64) -> Result<Option<GameCorrection>, DbError> {
        let table: Option<(i64, i64, i64)> =
            sqlx::query_as("SELECT tournament_id, round, table_no FROM tournament_matches WHERE game_id = $1")
                .bind(game)
                .fetch_optional(&self.pool)
                .await?;
        let Some((tournament, round, table)) = table else { return Ok(None) };
        let rows: Vec<(String, i64, Option<String>)> = sqlx::query_as(
            "SELECT by_name, at, control_json FROM tournament_controls
             WHERE tournament_id = $1 AND action = 'correct' ORDER BY id DESC",
        )
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
        for (by, at, json) in rows {
            let Some(json) = json else { continue };
            if let Control::Correct { result } = serde_json::from_str(&json)?
                && i64::from(result.round) == round
                && i64::from(result.table) == table
            {
                let (round, table) = (result.round, result.table);
                return Ok(Some(GameCorrection { by, at: at * 1000, result, tournament, round, table }));
            }
        }
        Ok(None)
    }

    /// The games with ids `lo..=hi` that are tournament tables of a
    /// tournament with any correction: the only ones of a page of games
    /// [`Db::game_correction`] can find a correction for.
    pub async fn maybe_corrected_games(&self, lo: i64, hi: i64) -> Result<Vec<i64>, DbError> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT m.game_id FROM tournament_matches m
             JOIN tournament_controls c ON c.tournament_id = m.tournament_id AND c.action = 'correct'
             WHERE m.game_id BETWEEN $1 AND $2",
        )
        .bind(lo)
        .bind(hi)
        .fetch_all(&self.pool)
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use capicua_tournament::SeatResult;

    use super::*;

    fn correction(scores: &[i64], winner: Option<u32>) -> GameCorrection {
        let seats = scores.iter().map(|&score| SeatResult { score, ..SeatResult::default() }).collect();
        GameCorrection {
            by: "referee".into(),
            at: 0,
            result: MatchResult { round: 0, table: 0, seats, winner },
            tournament: 1,
            round: 0,
            table: 0,
        }
    }

    #[test]
    fn a_duel_takes_each_seat_score_as_its_side_score() {
        let c = correction(&[10, 150], Some(1));
        assert_eq!(c.by_side(&[0, 1], &[150, 10]), (vec![10, 150], Some(1)));
    }

    #[test]
    fn partners_shares_sum_to_their_side_and_a_draw_has_no_winner() {
        let c = correction(&[40, 30, 60, 30], None);
        assert_eq!(c.by_side(&[0, 1, 0, 1], &[0, 0]), (vec![100, 60], None));
    }
}
