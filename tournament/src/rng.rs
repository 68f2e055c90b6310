//! Seeded randomness that replays forever.
//!
//! Same scheme as the engine: ChaCha8 keyed from the 64-bit tournament seed by
//! SplitMix64, one ChaCha stream per purpose, bounded integers by Lemire's
//! method written here (no `rand` distributions, whose algorithms may change).

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// What a random stream is used for; each gets its own ChaCha stream.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Purpose {
    /// The draw of the seeding order (`draw = true`).
    Draw,
    /// The lot tie-break: one random rank per entrant.
    Lot,
    /// Tie-breaking among equal choices while scheduling round `round`.
    Schedule { round: u32 },
    /// The lenient referee's coin for entrant `entrant` at round `round`.
    Judge { round: u32, entrant: u32 },
}

impl Purpose {
    fn stream(self) -> u64 {
        match self {
            Purpose::Draw => 1 << 60,
            Purpose::Lot => 2 << 60,
            Purpose::Schedule { round } => (3 << 60) | round as u64,
            Purpose::Judge { round, entrant } => (4 << 60) | ((round as u64) << 24) | entrant as u64,
        }
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The tournament's random source.
pub(crate) struct TourRng(ChaCha8Rng);

impl TourRng {
    pub(crate) fn new(seed: u64, purpose: Purpose) -> TourRng {
        let mut state = seed;
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(purpose.stream());
        TourRng(rng)
    }

    /// A uniform integer in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
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

    /// Fisher-Yates shuffle, from the last element down.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// True with probability `per_million / 1_000_000`.
    pub(crate) fn chance(&mut self, per_million: u32) -> bool {
        self.below(1_000_000) < per_million
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_repeat_and_differ() {
        let draw = |p| {
            let mut r = TourRng::new(9, p);
            (0..8).map(|_| r.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(Purpose::Draw), draw(Purpose::Draw));
        assert_ne!(draw(Purpose::Draw), draw(Purpose::Lot));
        assert_ne!(draw(Purpose::Schedule { round: 0 }), draw(Purpose::Schedule { round: 1 }));
    }

    #[test]
    fn chance_is_roughly_its_probability() {
        let mut r = TourRng::new(1, Purpose::Judge { round: 0, entrant: 0 });
        let hits = (0..10_000).filter(|_| r.chance(250_000)).count();
        assert!((2200..2800).contains(&hits), "{hits}");
        assert!(!(0..1000).any(|_| r.chance(0)));
        assert!((0..1000).all(|_| r.chance(1_000_000)));
    }
}
