//! Prints how many complete random hands per second one thread plays, per
//! preset: `cargo run --release -p capicua-engine --example random_hands [HANDS]`.
//!
//! Moves are uniform over the legal (tile, end) moves; each game is dealt
//! fresh from its seed and played to the end of its first hand. Also prints
//! the cost of dealing alone, to separate setup from play.

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, MatchTarget, MoveList, PRESETS, Rules, Seating, preset};

struct WyRand(u64);
impl WyRand {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        let r = ((t >> 64) ^ t) as u64;
        ((r as u128 * n as u128) >> 64) as usize
    }
}

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let only: Option<String> = std::env::args().nth(2);
    println!("{:<18} {:>14} {:>14} {:>12}", "preset", "hands/s", "deals/s", "moves/hand");
    for name in PRESETS.iter().filter(|n| only.as_deref().is_none_or(|o| o == **n)) {
        let mut v = preset(name).unwrap();
        v.target = MatchTarget::Hands(1);
        let rules = Arc::new(v.validate().unwrap());
        let seats = if rules.seat_range().contains(&4) { 4 } else { *rules.seat_range().start() };
        let deals = if std::env::var_os("SKIP_DEALS").is_some() { 0.0 } else { measure_deals(&rules, seats, hands) };
        let (rate, moves) = measure_hands(&rules, seats, hands);
        println!("{name:<18} {rate:>14.0} {deals:>14.0} {moves:>12.1}");
    }
}

fn measure_deals(rules: &Arc<Rules>, seats: u8, hands: u64) -> f64 {
    let start = Instant::now();
    let mut check = 0u64;
    for seed in 0..hands {
        let g = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
        check += g.leader().0 as u64;
    }
    std::hint::black_box(check);
    hands as f64 / start.elapsed().as_secs_f64()
}

fn measure_hands(rules: &Arc<Rules>, seats: u8, hands: u64) -> (f64, f64) {
    let mut rng = WyRand(1);
    let mut legal = MoveList::new();
    let mut moves = 0u64;
    let start = Instant::now();
    let mut g = Game::new(rules.clone(), Seating::new(seats), 0).unwrap();
    for seed in 0..hands {
        g.restart(seed);
        while g.to_move().is_some() {
            g.fill_legal_moves(&mut legal);
            let m = legal[rng.below(legal.len())];
            g.play(m).unwrap();
            moves += 1;
        }
    }
    (hands as f64 / start.elapsed().as_secs_f64(), moves as f64 / hands as f64)
}
