//! The loops the speed figures compare, shared by the engine's
//! `random_hands` example and the strategy crate's `loop_ratios` example
//! (included by path, so both time the very same code).

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, MoveList, Rules, Seating, Tile};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The example's own move picker (wyrand): cheap, so the loops time the
/// engine, not the choice.
pub struct WyRand(pub u64);
impl WyRand {
    /// A uniform number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        let r = ((t >> 64) ^ t) as u64;
        ((r as u128 * n as u128) >> 64) as usize
    }
}

/// The yardstick: a loop written for exactly the latin rules (4 seats,
/// double-six, 7 each, [6|6] leads, pass when unable, blocked after four
/// passes), 32-bit hands, the same ChaCha8 deal and the same uniform choice
/// over (tile, end) moves. No validation, no history, no events.
pub fn special_latin(hands: u64) -> (f64, f64) {
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

/// Random hands through `play` (every move validated, as a referee does), or
/// through `play_unchecked` (the move comes from the legal list).
pub fn measure_hands(rules: &Arc<Rules>, seats: u8, hands: u64, unchecked: bool) -> (f64, f64) {
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
