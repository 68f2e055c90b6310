//! Server-hosted bots and timeout moves: a small strategy trait.
//!
//! A hosted bot decides from its seat's [`View`] only, exactly like a
//! remote one; the room asks it for a move when its seat is to move.

use capicua_engine::{Move, View};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// A move chooser for a hosted seat.
pub trait HostedStrategy: Send {
    /// The strategy's name.
    fn name(&self) -> &str;
    /// A legal move for the viewer, who is to move.
    fn choose(&mut self, view: &View<'_>) -> Move;
}

/// The names of the hosted strategies.
pub const STRATEGIES: &[&str] = &["random", "first", "heaviest"];

/// A hosted strategy by name, seeded.
pub fn strategy(name: &str, seed: u64) -> Option<Box<dyn HostedStrategy>> {
    Some(match name {
        "random" => Box::new(Random(ChaCha8Rng::seed_from_u64(seed))),
        "first" => Box::new(First),
        "heaviest" => Box::new(Heaviest),
        _ => return None,
    })
}

/// Uniform over the legal moves.
struct Random(ChaCha8Rng);

impl HostedStrategy for Random {
    fn name(&self) -> &str {
        "random"
    }
    fn choose(&mut self, view: &View<'_>) -> Move {
        let moves = view.legal_moves();
        moves[(self.0.next_u64() % moves.len() as u64) as usize]
    }
}

/// The first legal move.
struct First;

impl HostedStrategy for First {
    fn name(&self) -> &str {
        "first"
    }
    fn choose(&mut self, view: &View<'_>) -> Move {
        view.legal_moves()[0]
    }
}

/// Plays the tile worth the most pips (sheds weight), else draws or passes.
struct Heaviest;

impl HostedStrategy for Heaviest {
    fn name(&self) -> &str {
        "heaviest"
    }
    fn choose(&mut self, view: &View<'_>) -> Move {
        let catalog = view.rules().catalog();
        let moves = view.legal_moves();
        *moves
            .iter()
            .max_by_key(|m| match m {
                Move::Play { tile, .. } => catalog.value(*tile),
                _ => -1,
            })
            .expect("the seat to move has a legal move")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{Game, Rules, Seating};

    #[test]
    fn every_strategy_finishes_a_match_with_legal_moves() {
        for name in STRATEGIES {
            let rules = Rules::preset("draw").unwrap();
            let mut game = Game::new(rules.into(), Seating::new(3), 9).unwrap();
            let mut bots: Vec<_> = (0..3).map(|i| strategy(name, i).unwrap()).collect();
            while let Some(seat) = game.to_move() {
                let m = bots[seat.index()].choose(&game.view(seat));
                game.play(m).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(game.outcome().is_some());
        }
        assert!(strategy("nope", 0).is_none());
    }
}
