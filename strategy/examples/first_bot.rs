//! A first strategy of one's own: doubles first, then the heaviest tile.
//! It plays block matches against `bota-gorda`, each deal twice with the
//! seats swapped, and prints how many it won.
//!
//! cargo run --release -p capicua-strategy --example first_bot

use std::sync::Arc;

use capicua_engine::{Game, Move, MoveList, Rules, Seat, Seating};
use capicua_strategy::{SeatView, Strategy, build, referee::play_turn};

/// Plays a double when it can (the heaviest one), else its heaviest tile;
/// draws or passes only when that is all it may do.
struct DoublesFirst;

impl Strategy for DoublesFirst {
    fn name(&self) -> String {
        "doubles-first".into()
    }

    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let mut moves = MoveList::new();
        view.legal_moves(&mut moves);
        // Rank each move: plays above draws and passes, doubles above other
        // tiles, heavy tiles (by this deal's tile values) above light ones.
        let rank = |m: &Move| match *m {
            Move::Play { tile, .. } => (1, tile.is_double(), view.tile_value(tile)),
            Move::Draw | Move::Pass => (0, false, 0),
        };
        // The view is asked only when the seat is to move, so a legal move exists.
        moves.iter().copied().max_by_key(rank).unwrap_or(Move::Pass)
    }

    fn is_quick(&self) -> bool {
        true // one pass over the legal moves
    }

    fn reseed(&mut self, _seed: u64) {
        // Nothing random to restart.
    }
}

fn main() {
    let rules = Arc::new(Rules::preset("block").expect("a preset"));
    let matches = 500;
    let (mut won, mut lost) = (0, 0);
    for m in 0..matches {
        // Deal `m / 2` twice: once with our strategy at seat 0, once at seat 1.
        let ours = Seat((m % 2) as u8);
        let mut game = Game::new(rules.clone(), Seating::new(2), m / 2).expect("a table of two");
        let mut seats: [Box<dyn Strategy>; 2] = [Box::new(DoublesFirst), build("bota-gorda", m).expect("a strategy")];
        if ours.index() == 1 {
            seats.swap(0, 1);
        }
        let mut scratch = Vec::new();
        while let Some(seat) = game.to_move() {
            play_turn(&mut game, seats[seat.index()].as_mut(), &mut scratch).expect("a legal move");
        }
        let winner = game.outcome().expect("the match is over").winner;
        let our_side = game.table().side_of(ours);
        match winner {
            Some(side) if side == our_side => won += 1,
            Some(_) => lost += 1,
            None => {}
        }
    }
    println!("doubles-first against bota-gorda, {matches} block matches: won {won}, lost {lost}");
}
