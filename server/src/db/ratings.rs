//! Weng-Lin (OpenSkill) ratings per variant: how a rated game moves them
//! (the writer applies it in the game's transaction) and the leaderboard.

use std::collections::HashMap;

use serde::Serialize;
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use sqlx::Row;

use capicua_engine::Variant;

use super::{Db, DbError, GameRecord};

/// The leaderboard a variant's rated games count on.
///
/// A client names its variant, so a name proves nothing about the rules: a
/// published preset played with exactly its rules counts under the preset's
/// name (`latin`); any other rules count under the name and a fingerprint of
/// the rules (`house-latin#3f09c2a1b7d4`), so no custom variant can feed a
/// preset's board, and two customs of one name with different rules keep
/// apart. The fingerprint is the first 48 bits of the SHA-256 of the rules
/// as JSON, the name and description left out (renaming does not split a
/// board; changing a rule does).
pub fn rating_key(v: &Variant) -> String {
    if is_preset(v) { v.name.clone() } else { format!("{}#{}", v.name, fingerprint(v)) }
}

/// Whether `v` is the published preset of its name, rule for rule (the
/// description aside).
pub fn is_preset(v: &Variant) -> bool {
    capicua_engine::preset(&v.name).is_some_and(|mut p| {
        p.description.clone_from(&v.description);
        &p == v
    })
}

/// Twelve hex digits naming a variant's rules, whatever it is called.
pub fn fingerprint(v: &Variant) -> String {
    use sha2::{Digest, Sha256};
    let mut rules = v.clone();
    rules.name.clear();
    rules.description.clear();
    let json = serde_json::to_vec(&rules).expect("a variant serializes");
    Sha256::digest(&json)[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// One line of the leaderboard.
#[derive(Clone, Debug, Serialize, PartialEq, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct Standing {
    /// 1-based rank.
    #[sqlx(skip)]
    pub rank: u32,
    /// Player name.
    pub name: String,
    /// Conservative rating: mu - 3 sigma.
    pub ordinal: f64,
    /// Mean skill.
    pub mu: f64,
    /// Uncertainty.
    pub sigma: f64,
    /// Rated games played.
    pub games: i64,
    /// Rated games won.
    pub wins: i64,
}

impl Db {
    /// The leaderboard of a variant, best first (served from the ratings
    /// table and its `(variant, ordinal)` index: its cost does not grow with
    /// the number of stored games).
    pub async fn leaderboard(&self, variant: &str, limit: u32) -> Result<Vec<Standing>, DbError> {
        let mut rows: Vec<Standing> = sqlx::query_as(
            "SELECT p.name, r.ordinal, r.mu, r.sigma, r.games, r.wins FROM ratings r
             JOIN players p ON p.id = r.player_id
             WHERE r.variant = ? ORDER BY r.ordinal DESC LIMIT ?",
        )
        .bind(variant)
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        for (i, s) in rows.iter_mut().enumerate() {
            s.rank = i as u32 + 1;
        }
        Ok(rows)
    }

    /// Variants that have ratings.
    pub async fn rated_variants(&self) -> Result<Vec<String>, DbError> {
        let rows = sqlx::query("SELECT DISTINCT variant FROM ratings ORDER BY variant").fetch_all(&self.pool).await?;
        Ok(rows.iter().map(|r| r.try_get("variant")).collect::<Result<_, _>>()?)
    }
}

/// A player's rating in one variant, with the games behind it.
#[derive(Clone, Copy)]
pub(super) struct Rated {
    pub(super) rating: WengLinRating,
    pub(super) games: i64,
    pub(super) wins: i64,
}

/// Ratings by (variant, player).
pub(super) type Ratings = HashMap<(String, i64), Rated>;

/// A `ratings` row.
#[derive(sqlx::FromRow)]
struct RatingRow {
    variant: String,
    player_id: i64,
    mu: f64,
    sigma: f64,
    games: i64,
    wins: i64,
}

/// Every stored rating (the writer keeps them in memory).
pub(super) async fn load(pool: &sqlx::SqlitePool) -> Result<Ratings, DbError> {
    let rows: Vec<RatingRow> =
        sqlx::query_as("SELECT variant, player_id, mu, sigma, games, wins FROM ratings").fetch_all(pool).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let rated =
                Rated { rating: WengLinRating { rating: r.mu, uncertainty: r.sigma }, games: r.games, wins: r.wins };
            ((r.variant, r.player_id), rated)
        })
        .collect())
}

/// Ranks of the sides: the winner first, then by score; a forfeiting side last.
pub fn side_ranks(scores: &[i32], winner: Option<u8>, forfeit_side: Option<u8>) -> Vec<usize> {
    let key = |s: usize| -> (i64, i64) {
        let tier = if Some(s as u8) == forfeit_side {
            0
        } else if Some(s as u8) == winner {
            2
        } else {
            1
        };
        (tier, scores.get(s).copied().unwrap_or(0) as i64)
    };
    (0..scores.len()).map(|s| 1 + (0..scores.len()).filter(|&o| key(o) > key(s)).count()).collect()
}

/// Whether one player holds more than one seat (a hosted strategy playing
/// itself). Such a game is not rated: one identity cannot both win and lose
/// it, and two updates of one rating from one game would leave only the
/// last; leaving it out keeps `wins <= games` and every update whole.
pub fn self_play(g: &GameRecord) -> bool {
    g.seats
        .iter()
        .enumerate()
        .any(|(i, s)| s.player_id.is_some() && g.seats[..i].iter().any(|o| o.player_id == s.player_id))
}

/// Updates the ratings of a rated game's players into `touched` (ratings
/// changed in this batch, read first) over `stored` (the committed ones).
pub(super) fn rate(stored: &Ratings, touched: &mut Ratings, g: &GameRecord) {
    let sides = g.scores.len();
    let forfeit_side = g.forfeit.and_then(|seat| g.seats.iter().find(|s| s.seat == seat)).map(|s| s.side);
    let ranks = side_ranks(&g.scores, g.winner, forfeit_side);
    let board = rating_key(&g.variant);
    let mut teams: Vec<Vec<(i64, Rated)>> = vec![Vec::new(); sides];
    for s in &g.seats {
        let pid = s.player_id.expect("checked by the caller");
        let key = (board.clone(), pid);
        let current = touched.get(&key).or_else(|| stored.get(&key)).copied().unwrap_or(Rated {
            rating: WengLinRating::new(),
            games: 0,
            wins: 0,
        });
        if let Some(team) = teams.get_mut(s.side as usize) {
            team.push((pid, current));
        }
    }
    let ratings: Vec<Vec<WengLinRating>> = teams.iter().map(|t| t.iter().map(|(_, r)| r.rating).collect()).collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
        .iter()
        .zip(&ranks)
        .filter(|(t, _)| !t.is_empty())
        .map(|(t, &rank)| (t.as_slice(), MultiTeamOutcome::new(rank)))
        .collect();
    let new = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut new_iter = new.into_iter();
    for (side, team) in teams.iter().enumerate() {
        if team.is_empty() {
            continue;
        }
        let Some(updated) = new_iter.next() else { break };
        for ((pid, old), rating) in team.iter().zip(updated) {
            let won = g.winner == Some(side as u8);
            touched
                .insert((board.clone(), *pid), Rated { rating, games: old.games + 1, wins: old.wins + i64::from(won) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_variant_named_like_a_preset_gets_a_board_of_its_own() {
        let latin = capicua_engine::preset("latin").unwrap();
        assert_eq!(rating_key(&latin), "latin");
        let mut described = latin.clone();
        described.description = "our club's latin".into();
        assert_eq!(rating_key(&described), "latin", "the description is not a rule");
        let mut impostor = latin.clone();
        impostor.scoring.win_bonus = 500;
        let key = rating_key(&impostor);
        assert!(key.starts_with("latin#") && key.len() == "latin#".len() + 12, "{key}");
        assert!(!is_preset(&impostor));
        let mut renamed = impostor.clone();
        renamed.name = "house".into();
        assert_eq!(
            rating_key(&renamed),
            format!("house#{}", fingerprint(&impostor)),
            "renaming keeps the rules' print"
        );
        let mut other = impostor.clone();
        other.scoring.win_bonus = 400;
        assert_ne!(fingerprint(&other), fingerprint(&impostor));
    }

    #[test]
    fn ranks_put_winner_first_and_forfeit_last() {
        assert_eq!(side_ranks(&[100, 40], Some(0), None), vec![1, 2]);
        assert_eq!(side_ranks(&[10, 40, 5], Some(2), Some(1)), vec![2, 3, 1]);
        assert_eq!(side_ranks(&[10, 10], None, None), vec![1, 1]);
    }
}
