//! Seeded randomness that replays forever.
//!
//! A stored seed must reproduce the same deal after any dependency upgrade, so
//! nothing here goes through `rand`'s distributions (whose algorithms may
//! change between versions). The generator is ChaCha8 (a fixed, published
//! stream cipher): the 64-bit game seed is expanded to the 256-bit key with
//! SplitMix64, each independent purpose gets its own ChaCha stream number, and
//! bounded integers use Lemire's multiply-shift with rejection, written here.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// What a random stream is used for in a game; each gets a distinct ChaCha
/// stream so that adding a new use never shifts the numbers of an existing one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Purpose {
    /// Shuffling the tiles of hand `hand`, attempt `attempt` (redeals).
    Deal { hand: u32, attempt: u32 },
    /// Drawing the leader of a hand by lot.
    Lot { hand: u32 },
    /// The lenient referee's coin for the move at log position `position`.
    Referee { hand: u32, position: u32 },
    /// The per-deal tile values of hand `hand` (random-valued tile rules).
    Values { hand: u32 },
    /// The tiles of each hand shown to everyone (partial visibility).
    Shown { hand: u32 },
}

impl Purpose {
    pub(crate) fn stream(self) -> u64 {
        match self {
            Purpose::Deal { hand, attempt } => (1 << 60) | ((hand as u64) << 20) | attempt as u64,
            Purpose::Lot { hand } => (2 << 60) | hand as u64,
            Purpose::Referee { hand, position } => (3 << 60) | ((hand as u64) << 32) | position as u64,
            Purpose::Values { hand } => (4 << 60) | hand as u64,
            Purpose::Shown { hand } => (5 << 60) | hand as u64,
        }
    }
}

/// SplitMix64: expands a 64-bit seed into a ChaCha key, and hashes
/// (seed, hand, turn) for the random turn order.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seeded randomness with a stable, named algorithm: ChaCha8 keyed from a
/// 64-bit seed by SplitMix64, on a caller-chosen ChaCha stream, with bounded
/// integers by Lemire's method written here. The same (seed, stream) gives
/// the same numbers forever; the engine uses it for deals and lots, the
/// tournament library for draws, tie-breaks and its lenient judge.
///
/// ```
/// use capicua_engine::SeededRng;
/// let a: Vec<u32> = { let mut r = SeededRng::new(7, 1); (0..4).map(|_| r.below(10)).collect() };
/// let b: Vec<u32> = { let mut r = SeededRng::new(7, 1); (0..4).map(|_| r.below(10)).collect() };
/// assert_eq!(a, b);
/// ```
pub struct SeededRng(ChaCha8Rng);

/// The engine's own name for it.
pub(crate) type GameRng = SeededRng;

impl SeededRng {
    /// The generator for `seed` on ChaCha stream `stream`.
    // Inlined so the generator (a few hundred bytes with its block buffer)
    // is built where it is used rather than copied out of a call: every
    // deal makes one.
    #[inline(always)]
    pub fn new(seed: u64, stream: u64) -> SeededRng {
        let mut state = seed;
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(stream);
        SeededRng(rng)
    }

    /// The generator of a game purpose.
    #[inline]
    pub(crate) fn for_purpose(seed: u64, purpose: Purpose) -> SeededRng {
        SeededRng::new(seed, purpose.stream())
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's method.
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let mut m = self.0.next_u32() as u64 * n as u64;
        if (m as u32) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u32) < threshold {
                m = self.0.next_u32() as u64 * n as u64;
            }
        }
        (m >> 32) as u32
    }

    /// A uniform number in `[0, 1)` from 53 random bits (exact in `f64`).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`, span below 2^32).
    pub fn between(&mut self, lo: i32, hi: i32) -> i32 {
        debug_assert!(lo <= hi);
        let span = (hi as i64 - lo as i64 + 1) as u64;
        if span > u32::MAX as u64 {
            return lo.wrapping_add(self.0.next_u32() as i32);
        }
        (lo as i64 + self.below(span as u32) as i64) as i32
    }

    /// A uniform 64-bit number: a seed for a child generator (a seat's bot,
    /// the k-th table of a round) that replays with its parent's seed.
    ///
    /// ```
    /// use capicua_engine::SeededRng;
    /// let child = SeededRng::new(7, 3).next_u64();
    /// assert_eq!(child, SeededRng::new(7, 3).next_u64());
    /// assert_ne!(child, SeededRng::new(7, 4).next_u64());
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Fisher-Yates shuffle, from the last element down.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = GameRng::for_purpose(7, Purpose::Lot { hand: 0 });
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let x = rng.below(7) as usize;
            seen[x] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    #[test]
    fn shuffle_is_uniform_over_positions() {
        // 5 items: each item lands in each position 1/5 of the time.
        let mut counts = [[0u32; 5]; 5];
        let mut rng = GameRng::for_purpose(3, Purpose::Deal { hand: 0, attempt: 0 });
        for _ in 0..50_000 {
            let mut v = [0usize, 1, 2, 3, 4];
            rng.shuffle(&mut v);
            for (pos, &item) in v.iter().enumerate() {
                counts[item][pos] += 1;
            }
        }
        for row in counts {
            for c in row {
                assert!((9_400..10_600).contains(&c), "{counts:?}");
            }
        }
    }

    #[test]
    fn batches_use_several_draws_for_long_decks() {
        // 190 tiles (double-18) need many batches; all items must survive.
        let mut rng = GameRng::for_purpose(5, Purpose::Deal { hand: 2, attempt: 0 });
        let mut v: Vec<u16> = (0..190).collect();
        rng.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..190).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u32> = {
            let mut r = GameRng::for_purpose(1, Purpose::Deal { hand: 0, attempt: 0 });
            (0..8).map(|_| r.below(1000)).collect()
        };
        let b: Vec<u32> = {
            let mut r = GameRng::for_purpose(1, Purpose::Deal { hand: 1, attempt: 0 });
            (0..8).map(|_| r.below(1000)).collect()
        };
        let a2: Vec<u32> = {
            let mut r = GameRng::for_purpose(1, Purpose::Deal { hand: 0, attempt: 0 });
            (0..8).map(|_| r.below(1000)).collect()
        };
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }
}
