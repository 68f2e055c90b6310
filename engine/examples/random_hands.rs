//! Prints how many complete random hands per second one thread plays, per
//! preset: `cargo run --release -p capicua-engine --example random_hands [HANDS [PRESET]]`.
//! Columns: hands/s through `play` (validated), through `play_unchecked`,
//! deals/s alone, moves per hand; then a special-purpose latin loop as the
//! yardstick the issue compares against.
//!
//! Moves are uniform over the legal (tile, end) moves; each game is dealt
//! fresh from its seed and played to the end of its first hand. Also prints
//! the cost of dealing alone, to separate setup from play.

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, MatchTarget, MoveList, PRESETS, Rules, Seating, Tile, preset};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

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
    println!("{:<18} {:>14} {:>14} {:>14} {:>12}", "preset", "hands/s", "unchecked/s", "deals/s", "moves/hand");
    for name in PRESETS.iter().filter(|n| only.as_deref().is_none_or(|o| o == **n)) {
        let mut v = preset(name).unwrap();
        v.target = MatchTarget::Hands(1);
        let rules = Arc::new(v.validate().unwrap());
        let seats = if rules.seat_range().contains(&4) { 4 } else { *rules.seat_range().start() };
        // MODE=checked|unchecked|special runs one loop alone (for callgrind).
        let mode = std::env::var("MODE").unwrap_or_default();
        let run = |m: &str| mode.is_empty() || mode == m;
        let deals = if run("deals") { measure_deals(&rules, seats, hands) } else { 0.0 };
        let (rate, moves) = if run("checked") { measure_hands(&rules, seats, hands, false) } else { (0.0, 0.0) };
        let (unchecked, _) = if run("unchecked") { measure_hands(&rules, seats, hands, true) } else { (0.0, 0.0) };
        println!("{name:<18} {rate:>14.0} {unchecked:>14.0} {deals:>14.0} {moves:>12.1}");
    }
    let mode = std::env::var("MODE").unwrap_or_default();
    if only.as_deref().is_none_or(|o| o == "latin") && (mode.is_empty() || mode == "special") {
        let (rate, moves) = special_latin(hands);
        println!("{:<18} {rate:>14.0} {:>14} {:>14} {moves:>12.1}", "latin (special)", "-", "-");
    }
}

/// The yardstick: a loop written for exactly the latin rules (4 seats,
/// double-six, 7 each, [6|6] leads, pass when unable, blocked after four
/// passes), 32-bit hands, the same ChaCha8 deal and the same uniform choice
/// over (tile, end) moves. No validation, no history, no events.
fn special_latin(hands: u64) -> (f64, f64) {
    let mut suit = [0u32; 7];
    for id in 0..28u8 {
        let (lo, hi) = Tile(id).faces();
        suit[lo as usize] |= 1 << id;
        suit[hi as usize] |= 1 << id;
    }
    let six_six = Tile::domino(6, 6).0;
    let mut rng = WyRand(1);
    let mut moves = 0u64;
    let mut check = 0i64;
    let start = Instant::now();
    for seed in 0..hands {
        let mut deal = ChaCha8Rng::seed_from_u64(seed);
        let mut deck: [u8; 28] = std::array::from_fn(|i| i as u8);
        for i in (1..28usize).rev() {
            let j = ((deal.next_u32() as u64 * (i as u64 + 1)) >> 32) as usize;
            deck.swap(i, j);
        }
        let mut hand = [0u32; 4];
        for (k, &t) in deck.iter().enumerate() {
            hand[k / 7] |= 1 << t;
        }
        let mut seat = (0..4).find(|&s| hand[s] & (1 << six_six) != 0).unwrap();
        hand[seat] &= !(1 << six_six);
        let (mut a, mut b) = (6u8, 6u8);
        let mut passes = 0;
        moves += 1;
        loop {
            seat = (seat + 3) % 4;
            let (ca, cb) = (hand[seat] & suit[a as usize], hand[seat] & suit[b as usize]);
            let n = (ca.count_ones() + cb.count_ones()) as usize;
            moves += 1;
            if n == 0 {
                passes += 1;
                if passes == 4 {
                    break;
                }
                continue;
            }
            passes = 0;
            let mut k = rng.below(n);
            let (mut bits, on_a) = if k < ca.count_ones() as usize { (ca, true) } else { (cb, false) };
            if !on_a {
                k -= ca.count_ones() as usize;
            }
            for _ in 0..k {
                bits &= bits - 1;
            }
            let t = bits.trailing_zeros() as u8;
            hand[seat] &= !(1 << t);
            let (lo, hi) = Tile(t).faces();
            let end = if on_a { &mut a } else { &mut b };
            *end = if lo == *end { hi } else { lo };
            if hand[seat] == 0 {
                break;
            }
        }
        let pips: i64 = (0..4)
            .map(|s| {
                (0..28)
                    .filter(|&t| hand[s] & (1 << t) != 0)
                    .map(|t| {
                        let (lo, hi) = Tile(t).faces();
                        (lo + hi) as i64
                    })
                    .sum::<i64>()
            })
            .sum();
        check += pips;
    }
    std::hint::black_box(check);
    (hands as f64 / start.elapsed().as_secs_f64(), moves as f64 / hands as f64)
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

/// Random hands through `play` (every move validated, as a referee does), or
/// through `play_unchecked` (the move comes from the legal list).
fn measure_hands(rules: &Arc<Rules>, seats: u8, hands: u64, unchecked: bool) -> (f64, f64) {
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
            if unchecked {
                g.play_unchecked(m);
            } else {
                g.play(m).unwrap();
            }
            moves += 1;
        }
    }
    (hands as f64 / start.elapsed().as_secs_f64(), moves as f64 / hands as f64)
}
