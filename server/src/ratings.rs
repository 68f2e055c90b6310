//! Weng-Lin (OpenSkill) ratings per board: which board a game counts on,
//! which games are rated, and how a rated game moves its players' ratings.
//! Pure: the database writer applies these in the game's transaction, and a
//! replay of the stored games computes the same, to the bit.

use std::collections::HashMap;

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use capicua_engine::Variant;
use capicua_engine::poly::PolyVariant;

use crate::record::{GameRecord, Play};

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

/// The leaderboard a game of `play` counts on: its preset's name when it
/// plays a published preset's exact rules (two-faced or poly), else its
/// name with a fingerprint of its rules.
pub fn play_rating_key(play: &Play) -> String {
    match play {
        Play::Tiles { variant, .. } => rating_key(variant),
        Play::Poly { variant, .. } => poly_rating_key(variant),
    }
}

/// [`rating_key`] of a poly variant.
pub fn poly_rating_key(v: &PolyVariant) -> String {
    if is_poly_preset(v) {
        v.name.clone()
    } else {
        format!(
            "{}#{}",
            v.name,
            fingerprint_of(v, |v| {
                v.name.clear();
                v.description.clear();
            })
        )
    }
}

/// Whether `v` is the published poly preset of its name, rule for rule
/// (the description aside).
pub fn is_poly_preset(v: &PolyVariant) -> bool {
    capicua_engine::poly::poly_preset(&v.name).is_some_and(|mut p| {
        p.description.clone_from(&v.description);
        &p == v
    })
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
    fingerprint_of(v, |v| {
        v.name.clear();
        v.description.clear();
    })
}

/// Twelve hex digits of the SHA-256 of `v`'s JSON once `anonymize` has
/// cleared what does not make the rules.
fn fingerprint_of<T: Clone + serde::Serialize>(v: &T, anonymize: impl FnOnce(&mut T)) -> String {
    use sha2::{Digest, Sha256};
    let mut rules = v.clone();
    anonymize(&mut rules);
    let json = serde_json::to_vec(&rules).expect("a variant serializes");
    Sha256::digest(&json)[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// The rating people read, scaled like lichess's: 1500 for a new player,
/// 60 points for each point of Weng-Lin mean skill (the starting
/// uncertainty, 25/3, is 500 points).
pub(crate) fn shown(mu: f64) -> i32 {
    (1500.0 + 60.0 * (mu - 25.0)).round() as i32
}

/// The uncertainty above which a rating is provisional (shown with `?`):
/// a new player's rating has 25/3, and about twelve games against even
/// opponents bring it under this.
pub(crate) const PROVISIONAL_SIGMA: f64 = 6.0;

/// Whether a rating of uncertainty `sigma` is still provisional.
pub(crate) fn provisional(sigma: f64) -> bool {
    sigma > PROVISIONAL_SIGMA
}

/// What a rated game did to one seat's rating, as read back with the game:
/// the shown rating before and after ([`shown`]), whether the new one is
/// provisional, and the Weng-Lin values after.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct RatingMove {
    /// The shown rating before the game.
    pub before: i32,
    /// The shown rating after it.
    pub after: i32,
    /// `after - before`.
    pub change: i32,
    /// Whether the rating after is provisional.
    pub provisional: bool,
    /// Mean skill after.
    pub mu: f64,
    /// Uncertainty after.
    pub sigma: f64,
}

impl RatingMove {
    /// From the stored `(mu, sigma)` before and after, when the game rated the seat.
    pub fn of(before: Option<(f64, f64)>, after: Option<(f64, f64)>) -> Option<RatingMove> {
        let ((mu0, _), (mu, sigma)) = (before?, after?);
        let (before, after) = (shown(mu0), shown(mu));
        Some(RatingMove { before, after, change: after - before, provisional: provisional(sigma), mu, sigma })
    }
}

/// A player's rating in one variant, with the games behind it.
#[derive(Clone, Copy)]
pub(crate) struct Rated {
    pub(crate) rating: WengLinRating,
    pub(crate) games: i64,
    pub(crate) wins: i64,
    pub(crate) draws: i64,
}

/// Ratings by (variant, player).
pub(crate) type Ratings = HashMap<(String, i64), Rated>;

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
/// itself, or a person's partner and both opponents).
pub fn self_play(g: &GameRecord) -> bool {
    let players: Vec<i64> = g.seats.iter().filter_map(|s| s.player_id).collect();
    players.iter().any(|p| seats_held(&players, *p) > 1)
}

/// Seats `player` holds among a game's seated players.
fn seats_held(players: &[i64], player: i64) -> usize {
    players.iter().filter(|&&p| p == player).count()
}

/// Whether a stored game moves ratings: rated, every seat a player's, and
/// someone in one seat only. A player in several seats (one hosted
/// strategy as a person's partner and both opponents) plays with its
/// rating but is not moved by the game: one identity cannot both win and
/// lose it, and two updates of one rating from one game would leave only
/// the last. So a person against three `bot:pimc` is rated, and the bot's
/// rating is the yardstick; two seats of one strategy alone rate no one.
pub(crate) fn counts(g: &GameRecord) -> bool {
    let sides: Vec<(u8, i64)> = g.seats.iter().filter_map(|s| Some((s.side, s.player_id?))).collect();
    g.rated && seats_count(&sides, sides.len() == g.seats.len())
}

/// Whether a stored game's seats, as `(side, player)` of its players' seats
/// (`all_players`: no seat was a guest's), are rated: [`counts`] for a game
/// read back.
pub(crate) fn seats_count(sides: &[(u8, i64)], all_players: bool) -> bool {
    let players: Vec<i64> = sides.iter().map(|&(_, p)| p).collect();
    all_players && players.iter().any(|p| seats_held(&players, *p) == 1)
}

/// What a rated game did to one player's rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Change {
    /// The player.
    pub(crate) player: i64,
    /// The rating before the game (the starting one before a first game).
    pub(crate) before: WengLinRating,
    /// The rating after it.
    pub(crate) after: WengLinRating,
}

/// Updates the ratings of a rated game's players into `touched` (ratings
/// changed in this batch, read first) over `stored` (the committed ones).
pub(crate) fn rate(stored: &Ratings, touched: &mut Ratings, g: &GameRecord) -> Vec<Change> {
    let forfeit_side = g.forfeit.and_then(|seat| g.seats.iter().find(|s| s.seat == seat)).map(|s| s.side);
    let seats: Vec<(u8, i64)> = g.seats.iter().map(|s| (s.side, s.player_id.expect("checked by the caller"))).collect();
    rate_result(stored, touched, &play_rating_key(&g.play), &g.scores, g.winner, forfeit_side, &seats)
}

/// [`rate`] from a result alone: the board, scores by side, the winning
/// side, the forfeiting side and each seat's (side, player). The writer and
/// [`crate::db::Db::replay_ratings`] both come here, so a replay computes what the
/// writer computed, to the bit. Returns the change of each player it
/// moved (the players in one seat only, see [`counts`]).
pub(crate) fn rate_result(
    stored: &Ratings,
    touched: &mut Ratings,
    board: &str,
    scores: &[i32],
    winner: Option<u8>,
    forfeit_side: Option<u8>,
    seats: &[(u8, i64)],
) -> Vec<Change> {
    let players: Vec<i64> = seats.iter().map(|&(_, p)| p).collect();
    let mut changes = Vec::with_capacity(seats.len());
    let sides = scores.len();
    let ranks = side_ranks(scores, winner, forfeit_side);
    let mut teams: Vec<Vec<(i64, Rated)>> = vec![Vec::new(); sides];
    for &(side, pid) in seats {
        let key = (board.to_string(), pid);
        let current = touched.get(&key).or_else(|| stored.get(&key)).copied().unwrap_or(Rated {
            rating: WengLinRating::new(),
            games: 0,
            wins: 0,
            draws: 0,
        });
        if let Some(team) = teams.get_mut(side as usize) {
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
            if seats_held(&players, *pid) > 1 {
                continue;
            }
            changes.push(Change { player: *pid, before: old.rating, after: rating });
            let won = winner == Some(side as u8);
            touched.insert(
                (board.to_string(), *pid),
                Rated {
                    rating,
                    games: old.games + 1,
                    wins: old.wins + i64::from(won),
                    draws: old.draws + i64::from(winner.is_none()),
                },
            );
        }
    }
    changes
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
    fn a_new_rating_shows_1500_provisional_and_settles_after_a_dozen_even_games() {
        let fresh = WengLinRating::new();
        assert_eq!(shown(fresh.rating), 1500);
        assert!(provisional(fresh.uncertainty));
        // Two players trading wins: their ratings stay near 1500 and stop being provisional.
        let (mut a, mut b) = (fresh, fresh);
        let mut settled = None;
        for game in 1..=40 {
            let (first, second) = if game % 2 == 1 { (a, b) } else { (b, a) };
            let new = weng_lin_multi_team(
                &[(&[first][..], MultiTeamOutcome::new(1)), (&[second][..], MultiTeamOutcome::new(2))],
                &WengLinConfig::new(),
            );
            (a, b) = if game % 2 == 1 { (new[0][0], new[1][0]) } else { (new[1][0], new[0][0]) };
            if settled.is_none() && !provisional(a.uncertainty) {
                settled = Some(game);
            }
        }
        let settled = settled.expect("settles");
        assert!((8..=20).contains(&settled), "settled after {settled} games");
        assert!((shown(a.rating) - 1500).abs() < 60, "{}", shown(a.rating));
        let m = RatingMove::of(Some((25.0, 8.3)), Some((26.0, 7.9))).unwrap();
        assert_eq!((m.before, m.after, m.change, m.provisional), (1500, 1560, 60, true));
        assert_eq!(RatingMove::of(None, Some((26.0, 7.9))), None);
    }

    #[test]
    fn a_person_against_three_seats_of_one_bot_is_rated_and_the_bot_is_the_yardstick() {
        let (stored, mut touched) = (Ratings::new(), Ratings::new());
        // Person 1 with bot 9 as partner (side 0) against bot 9 twice (side 1).
        let seats = [(0, 1), (1, 9), (0, 9), (1, 9)];
        assert!(seats_count(&seats, true));
        let changes = rate_result(&stored, &mut touched, "latin", &[200, 120], Some(0), None, &seats);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].player, 1);
        assert!(changes[0].after.rating > changes[0].before.rating, "a win moves the person up");
        assert!(touched.contains_key(&("latin".to_string(), 1)));
        assert!(!touched.contains_key(&("latin".to_string(), 9)), "the bot in three seats is not moved");
        // One strategy in both seats rates no one; one guest seat rates no one.
        assert!(!seats_count(&[(0, 9), (1, 9)], true));
        assert!(!seats_count(&[(0, 1)], false));
    }

    #[test]
    fn ranks_put_winner_first_and_forfeit_last() {
        assert_eq!(side_ranks(&[100, 40], Some(0), None), vec![1, 2]);
        assert_eq!(side_ranks(&[10, 40, 5], Some(2), Some(1)), vec![2, 3, 1]);
        assert_eq!(side_ranks(&[10, 10], None, None), vec![1, 1]);
    }
}
