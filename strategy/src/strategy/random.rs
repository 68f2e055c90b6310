//! `random`: uniform over the legal moves.

use capicua_engine::{Move, MoveList};

use super::Strategy;
use crate::rng::BotRng;
use crate::seat_view::SeatView;

/// Plays a legal move chosen uniformly at random.
pub struct Random {
    rng: BotRng,
}

impl Random {
    /// A random player seeded with `seed`.
    pub fn new(seed: u64) -> Random {
        Random { rng: BotRng::new(seed) }
    }
}

impl Strategy for Random {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let mut moves = MoveList::new();
        view.legal_moves(&mut moves);
        match moves.len() {
            0 => Move::Pass,
            n => moves[self.rng.below(n)],
        }
    }
    fn is_quick(&self) -> bool {
        true
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}
