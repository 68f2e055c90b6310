//! Seeded randomness that replays forever.
//!
//! The engine's generator (ChaCha8 keyed from the 64-bit tournament seed by
//! SplitMix64, Lemire bounded integers) on one ChaCha stream per purpose.

use capicua_engine::SeededRng;

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

/// The tournament's random source: the engine's [`SeededRng`] on the
/// tournament's own streams.
pub(crate) struct TourRng(SeededRng);

impl TourRng {
    pub(crate) fn new(seed: u64, purpose: Purpose) -> TourRng {
        TourRng(SeededRng::new(seed, purpose.stream()))
    }

    /// A uniform integer in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        self.0.below(n)
    }

    /// Fisher-Yates shuffle, from the last element down.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        self.0.shuffle(items)
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
