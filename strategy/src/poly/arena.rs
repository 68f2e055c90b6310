//! The poly arena: seeded games of 3-, 4- or 6-faced tiles between poly
//! strategies, in process, with the two-faced arena's statistics.
//!
//! Game `i` is dealt from the `i`-th number of [`SeededRng`]'s stream for
//! the master seed, and entry `e` sits at seat `(e + i) % entries`: every
//! strategy sits everywhere, and the same seed and games give the same
//! results. A game is a whole match ([`Mode::Matches`]) or its first hand
//! ([`Mode::Hands`]).
//!
//! ```
//! use capicua_engine::poly::PolyRules;
//! use capicua_strategy::arena::Mode;
//! use capicua_strategy::poly::{build_poly, run_poly_arena};
//!
//! let rules = PolyRules::preset("triominoes").unwrap();
//! let mut seats = vec![build_poly("greedy", 1).unwrap(), build_poly("random", 2).unwrap()];
//! let report = run_poly_arena(rules, &mut seats, 4, 7, Mode::Hands).unwrap();
//! assert_eq!(report.games, 4);
//! assert_eq!(report.hands, 4, "one hand a game");
//! let e = &report.seats[0];
//! assert_eq!(e.wins + e.losses + e.ties, 4);
//! assert!(e.ci95_low <= e.win_rate && e.win_rate <= e.ci95_high);
//! ```

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::SeededRng;
use capicua_engine::poly::{PolyEvent, PolyGame, PolyRules};
use serde::Serialize;

use super::PolyStrategy;
use crate::arena::{Entry, Mode};
use crate::error::{ArenaError, BotError};
use crate::rng::derive_seed;
use crate::stats::wilson95;

/// Everything a poly arena run measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolyArenaReport {
    /// The variant's name.
    pub variant: String,
    /// Faces of its tiles.
    pub faces: u8,
    /// Tiles in its set.
    pub tiles: usize,
    /// Hands or matches.
    pub mode: Mode,
    /// The master seed.
    pub seed: u64,
    /// Worker threads (the poly arena plays on the caller's thread).
    pub threads: usize,
    /// Games played.
    pub games: u64,
    /// Hands played (equal to games in hands mode).
    pub hands: u64,
    /// Moves played (plays, draws and passes).
    pub moves: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Games per second.
    pub games_per_sec: f64,
    /// Hands per second.
    pub hands_per_sec: f64,
    /// Moves per second.
    pub moves_per_sec: f64,
    /// Fraction of hands that ended with nobody able to move.
    pub blocked_rate: f64,
    /// Fraction of games nobody won (the best score shared).
    pub tie_rate: f64,
    /// Per entry, in the order given: entry `e` sat at seat `e` in the
    /// first game and moved one seat a game.
    pub seats: Vec<Entry>,
}

/// Integer tallies per entry and overall.
struct Tally {
    wins: Vec<u64>,
    points: Vec<i64>,
    ties: u64,
    hands: u64,
    blocked: u64,
    moves: u64,
}

/// Plays `games` games of `rules` between `strategies` (one per seat),
/// each dealt from its own seed with the entries rotated one seat a game.
///
/// Fails when the number of strategies is not a table the variant seats,
/// or when a strategy chooses an illegal move.
pub fn run_poly_arena(
    rules: impl Into<Arc<PolyRules>>,
    strategies: &mut [Box<dyn PolyStrategy>],
    games: u64,
    seed: u64,
    mode: Mode,
) -> Result<PolyArenaReport, ArenaError> {
    let rules = rules.into();
    let k = strategies.len();
    let mut game = PolyGame::new(rules.clone(), u8::try_from(k).unwrap_or(u8::MAX), seed)?;
    let mut tally = Tally { wins: vec![0; k], points: vec![0; k], ties: 0, hands: 0, blocked: 0, moves: 0 };
    let start = Instant::now();
    for i in 0..games {
        let deal = SeededRng::new(seed, i).next_u64();
        game.restart(deal);
        for (e, strategy) in strategies.iter_mut().enumerate() {
            strategy.reseed(derive_seed(deal, e as u64));
        }
        // Seat s plays entry (s + i) % k: every entry sits everywhere.
        let of_seat = |s: u8| (s as usize + i as usize) % k;
        let winner = play_game(&mut game, strategies, &of_seat, mode, &mut tally)?;
        for (s, &score) in game.scores().iter().enumerate() {
            tally.points[of_seat(s as u8)] += score as i64;
        }
        match winner {
            Some(w) => tally.wins[of_seat(w)] += 1,
            None => tally.ties += 1,
        }
    }
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    Ok(report(&rules, strategies, &tally, games, seed, mode, seconds))
}

/// Plays one game from a fresh deal: the match, or its first hand. Returns
/// its winner (`None` on a tie).
fn play_game(
    game: &mut PolyGame,
    strategies: &mut [Box<dyn PolyStrategy>],
    of_seat: &impl Fn(u8) -> usize,
    mode: Mode,
    tally: &mut Tally,
) -> Result<Option<u8>, ArenaError> {
    while let Some(seat) = game.to_move() {
        let strategy = &mut strategies[of_seat(seat)];
        let m = strategy.choose(&game.view(seat));
        let events = game.play(m).map_err(|error| BotError::PolyIllegal { strategy: strategy.name(), error })?;
        tally.moves += 1;
        for event in events {
            if let PolyEvent::HandEnded { winner, blocked, .. } = event {
                tally.hands += 1;
                tally.blocked += u64::from(blocked);
                if mode == Mode::Hands {
                    return Ok(winner);
                }
            }
        }
    }
    Ok(game.outcome().and_then(|o| o.winner))
}

/// The report of a run's tallies.
fn report(
    rules: &PolyRules,
    strategies: &[Box<dyn PolyStrategy>],
    t: &Tally,
    games: u64,
    seed: u64,
    mode: Mode,
    seconds: f64,
) -> PolyArenaReport {
    let per_game = |x: f64| x / games.max(1) as f64;
    let seats = strategies
        .iter()
        .enumerate()
        .map(|(e, s)| {
            let (ci95_low, ci95_high) = wilson95(t.wins[e], games);
            Entry {
                strategy: s.name(),
                wins: t.wins[e],
                losses: games - t.wins[e] - t.ties,
                ties: t.ties,
                win_rate: per_game(t.wins[e] as f64),
                ci95_low,
                ci95_high,
                mean_score: per_game(t.points[e] as f64),
                ms_per_move: None,
                refused: 0,
            }
        })
        .collect();
    PolyArenaReport {
        variant: rules.variant().name.clone(),
        faces: rules.variant().faces,
        tiles: rules.set().len(),
        mode,
        seed,
        threads: 1,
        games,
        hands: t.hands,
        moves: t.moves,
        seconds,
        games_per_sec: games as f64 / seconds,
        hands_per_sec: t.hands as f64 / seconds,
        moves_per_sec: t.moves as f64 / seconds,
        blocked_rate: t.blocked as f64 / t.hands.max(1) as f64,
        tie_rate: per_game(t.ties as f64),
        seats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::build_poly;

    fn seats(specs: &[&str]) -> Vec<Box<dyn PolyStrategy>> {
        specs.iter().enumerate().map(|(e, s)| build_poly(s, e as u64).unwrap()).collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_report_and_the_tallies_add_up() {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let a =
            run_poly_arena(rules.clone(), &mut seats(&["greedy", "random", "random"]), 6, 3, Mode::Matches).unwrap();
        let b = run_poly_arena(rules, &mut seats(&["greedy", "random", "random"]), 6, 3, Mode::Matches).unwrap();
        let results = |r: &PolyArenaReport| (r.hands, r.moves, r.seats.clone());
        assert_eq!(results(&a), results(&b));
        assert!(a.hands > a.games, "a triominoes match takes several hands: {}", a.hands);
        let wins: u64 = a.seats.iter().map(|e| e.wins).sum();
        assert_eq!(wins + a.seats[0].ties, 6, "every game is won by one entry or tied");
        for e in &a.seats {
            assert_eq!(e.wins + e.losses + e.ties, 6, "{e:?}");
        }
    }

    #[test]
    fn hands_mode_plays_one_hand_a_game() {
        let mut s = seats(&["greedy", "random"]);
        let r = run_poly_arena(PolyRules::preset("quadominoes").unwrap(), &mut s, 5, 1, Mode::Hands).unwrap();
        assert_eq!((r.games, r.hands), (5, 5));
        assert_eq!(r.mode, Mode::Hands);
    }

    #[test]
    fn a_table_the_variant_does_not_seat_is_refused() {
        let mut s = seats(&["greedy"; 7]);
        let err = run_poly_arena(PolyRules::preset("triominoes").unwrap(), &mut s, 1, 1, Mode::Matches).unwrap_err();
        assert!(matches!(err, ArenaError::Seating(_)), "{err}");
    }
}
