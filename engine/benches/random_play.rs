//! Uniform-random play (uniform over the legal (tile, end) moves), one
//! thread: complete hands per second for each preset. Each game is dealt
//! fresh from its seed as the first hand of a match and played to the end
//! of that hand.
//!
//! Run: `cargo bench -p capicua-engine --bench random_play`

use std::sync::Arc;

use capicua_engine::{Game, MatchTarget, MoveList, PRESETS, Rules, Seating, preset};
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

/// A tiny, fast generator for the random player (not the engine's dealer).
struct WyRand(u64);
impl WyRand {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        let r = ((t >> 64) ^ t) as u64;
        ((r as u128 * n as u128) >> 64) as usize
    }
}

fn one_hand_rules(name: &str) -> Arc<Rules> {
    let mut v = preset(name).unwrap();
    v.target = MatchTarget::Hands(1);
    Arc::new(v.validate().unwrap())
}

fn seats_for(rules: &Rules) -> u8 {
    if rules.seat_range().contains(&4) { 4 } else { *rules.seat_range().start() }
}

const HANDS: usize = 10_000;

#[divan::bench(args = PRESETS)]
fn random_hands(bencher: divan::Bencher, name: &str) {
    let rules = one_hand_rules(name);
    let seats = seats_for(&rules);
    let mut seed = 0u64;
    bencher.counter(ItemsCount::new(HANDS)).bench_local(|| {
        let mut rng = WyRand(seed);
        let mut moves = 0usize;
        let mut legal = MoveList::new();
        let mut g = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
        for _ in 0..HANDS {
            seed += 1;
            g.restart(seed);
            while g.to_move().is_some() {
                g.fill_legal_moves(&mut legal);
                let m = legal[rng.below(legal.len())];
                g.play(m).unwrap();
                moves += 1;
            }
        }
        moves
    });
}
