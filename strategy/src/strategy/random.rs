//! `random`: uniform over the legal moves.

use capicua_engine::{Move, MoveList};

use super::Strategy;
use crate::rng::BotRng;
use crate::seat_view::{SeatView, TableSeat};

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

impl Random {
    /// One of `moves`, uniformly (a pass when there are none).
    #[inline]
    fn pick(&mut self, moves: &MoveList) -> Move {
        match moves.len() {
            0 => Move::Pass,
            n => moves[self.rng.below(n)],
        }
    }
}

impl Strategy for Random {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let mut moves = MoveList::new();
        view.legal_moves(&mut moves);
        self.pick(&moves)
    }
    #[inline]
    fn choose_at_table(&mut self, seat: &TableSeat<'_>, legal: &mut MoveList) -> Move {
        seat.legal_moves(legal);
        self.pick(legal)
    }
    fn is_quick(&self) -> bool {
        true
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use capicua_engine::{Game, PRESETS, Seating, preset};

    use super::*;

    /// The arena's quick entry picks, from the same state, the move that
    /// `choose` picks through a `dyn` view, on every preset.
    #[test]
    fn chooses_at_the_table_what_it_chooses_through_a_view() {
        let mut compared = 0;
        for name in PRESETS {
            let rules = Arc::new(preset(name).unwrap().validate().unwrap());
            let seats = *rules.seat_range().start();
            for seed in 0..5 {
                let mut game = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
                let (mut by_view, mut at_table) = (Random::new(seed), Random::new(seed));
                let mut legal = MoveList::new();
                while let Some(seat) = game.to_move().filter(|_| game.hand_number() == 0) {
                    let table = TableSeat::new(&game, seat);
                    let m = by_view.choose(&table as &dyn SeatView);
                    assert_eq!(at_table.choose_at_table(&table, &mut legal), m, "{name}, seed {seed}");
                    game.play(m).unwrap();
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "only {compared} moves compared");
    }
}
