//! Meeting counts, and pairing an ordered list while avoiding repeats.

use serde::Serialize;

use crate::round::EntrantId;

/// Symmetric counts per pair of entrants (dense, by entrant index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct PairCounts {
    n: usize,
    counts: Vec<u32>,
}

impl PairCounts {
    pub(crate) fn new(n: usize) -> PairCounts {
        PairCounts { n, counts: vec![0; n * n] }
    }

    /// Makes room for one more entrant (a late entry), who has met nobody.
    pub(crate) fn grow(&mut self) {
        self.counts = crate::standings::grown(&self.counts, self.n);
        self.n += 1;
    }

    pub(crate) fn get(&self, a: EntrantId, b: EntrantId) -> u32 {
        self.counts[a.index() * self.n + b.index()]
    }

    pub(crate) fn add(&mut self, a: EntrantId, b: EntrantId) {
        self.counts[a.index() * self.n + b.index()] += 1;
        self.counts[b.index() * self.n + a.index()] += 1;
    }
}

/// Search steps before giving up on a repeat-free pairing.
const BUDGET: u32 = 200_000;

/// Pairs an even-length `order` (most preferred pairing: neighbours, first
/// with the earliest possible): a repeat-free pairing if the bounded search
/// finds one, else a greedy pairing with the fewest repeats for each entrant
/// in turn. Each pair is (earlier in order, later).
pub(crate) fn pair_avoiding(order: &[EntrantId], met: &PairCounts) -> Vec<(EntrantId, EntrantId)> {
    debug_assert!(order.len().is_multiple_of(2));
    let mut used = vec![false; order.len()];
    let mut pairs = Vec::with_capacity(order.len() / 2);
    let mut budget = BUDGET;
    if search(order, met, &mut used, &mut pairs, &mut budget) {
        return pairs;
    }
    let mut left: Vec<EntrantId> = order.to_vec();
    let mut pairs = Vec::new();
    while left.len() >= 2 {
        let a = left.remove(0);
        let best = (0..left.len()).min_by_key(|&i| (met.get(a, left[i]), i)).expect("even length");
        pairs.push((a, left.remove(best)));
    }
    pairs
}

fn search(
    order: &[EntrantId],
    met: &PairCounts,
    used: &mut [bool],
    pairs: &mut Vec<(EntrantId, EntrantId)>,
    budget: &mut u32,
) -> bool {
    let Some(first) = used.iter().position(|u| !u) else { return true };
    used[first] = true;
    for j in first + 1..order.len() {
        if used[j] || met.get(order[first], order[j]) > 0 {
            continue;
        }
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        used[j] = true;
        pairs.push((order[first], order[j]));
        if search(order, met, used, pairs, budget) {
            return true;
        }
        pairs.pop();
        used[j] = false;
    }
    used[first] = false;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: u32) -> Vec<EntrantId> {
        (0..n).map(EntrantId).collect()
    }

    #[test]
    fn neighbours_when_nothing_was_played() {
        let p = pair_avoiding(&ids(4), &PairCounts::new(4));
        assert_eq!(p, vec![(EntrantId(0), EntrantId(1)), (EntrantId(2), EntrantId(3))]);
    }

    #[test]
    fn avoids_a_repeat_by_backtracking() {
        let mut met = PairCounts::new(4);
        met.add(EntrantId(0), EntrantId(1));
        met.add(EntrantId(2), EntrantId(3));
        met.add(EntrantId(0), EntrantId(2));
        let p = pair_avoiding(&ids(4), &met);
        assert_eq!(p, vec![(EntrantId(0), EntrantId(3)), (EntrantId(1), EntrantId(2))]);
    }

    #[test]
    fn repeats_only_when_forced() {
        let mut met = PairCounts::new(2);
        met.add(EntrantId(0), EntrantId(1));
        assert_eq!(pair_avoiding(&ids(2), &met), vec![(EntrantId(0), EntrantId(1))]);
    }
}
