//! Knockouts, single and double elimination.
//!
//! Single: a bracket of the next power of two, seeds placed in the standard
//! order (1 v 8, 4 v 5, 2 v 7, 3 v 6), so the byes (empty slots) all fall in
//! the first round and go to the top seeds. A disqualified entrant's slot
//! empties: its next opponent walks over.
//!
//! Double: entrants are out at their second loss. Each round pairs the
//! unbeaten among themselves and the once-beaten among themselves (top seed
//! against bottom, avoiding rematches); an odd one out waits with a bye.
//! When one unbeaten and one once-beaten entrant remain they play the final;
//! if the once-beaten one wins, both have one loss and play again.

use serde::Serialize;

use super::{Ctx, PairCounts, Plan, pairing::pair_avoiding};
use crate::round::EntrantId;

/// Bracket positions of seeds `0..size` (`size` a power of two).
pub(crate) fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![0];
    while order.len() < size {
        let len = order.len();
        order = order.iter().flat_map(|&s| [s, 2 * len - 1 - s]).collect();
    }
    order
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Knockout {
    bracket: Vec<Option<EntrantId>>,
    /// The next bracket, filled in as tables report.
    pending: Option<Vec<Option<EntrantId>>>,
    /// Bracket slot (in `pending`) of each table of the last plan.
    slots: Vec<usize>,
}

impl Knockout {
    pub(crate) fn new(members: &[EntrantId]) -> Knockout {
        let size = members.len().next_power_of_two();
        let bracket = bracket_order(size).into_iter().map(|seed| members.get(seed).copied()).collect();
        Knockout { bracket, pending: None, slots: Vec::new() }
    }

    pub(crate) fn next(&mut self, ctx: &Ctx<'_>) -> Option<Plan> {
        if let Some(next) = self.pending.take() {
            self.bracket = next;
        }
        loop {
            if self.bracket.len() <= 1 {
                return None;
            }
            let alive = |e: &Option<EntrantId>| e.filter(|e| ctx.active[e.index()]);
            let mut next = vec![None; self.bracket.len() / 2];
            let mut plan = Plan::default();
            self.slots.clear();
            for (i, pair) in self.bracket.chunks(2).enumerate() {
                match (alive(&pair[0]), alive(&pair[1])) {
                    (Some(a), Some(b)) => {
                        plan.tables.push(vec![vec![a], vec![b]]);
                        self.slots.push(i);
                    }
                    (Some(x), None) | (None, Some(x)) => {
                        next[i] = Some(x);
                        plan.byes.push(x);
                    }
                    (None, None) => {}
                }
            }
            if plan.tables.is_empty() {
                self.bracket = next;
                continue;
            }
            self.pending = Some(next);
            return Some(plan);
        }
    }

    pub(crate) fn report(&mut self, table: usize, winner: EntrantId, loser: EntrantId) -> Option<EntrantId> {
        let pending = self.pending.as_mut().expect("a round is in progress");
        pending[self.slots[table]] = Some(winner);
        Some(loser)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct DoubleKnockout {
    losses: Vec<u32>,
}

impl DoubleKnockout {
    pub(crate) fn new(total: usize) -> DoubleKnockout {
        DoubleKnockout { losses: vec![0; total] }
    }

    pub(crate) fn next(
        &mut self,
        members: &[EntrantId],
        ctx: &Ctx<'_>,
        opponents: &PairCounts,
        byes: &[u32],
    ) -> Option<Plan> {
        let alive: Vec<EntrantId> =
            members.iter().copied().filter(|e| ctx.active[e.index()] && self.losses[e.index()] < 2).collect();
        if alive.len() <= 1 {
            return None;
        }
        let pools: [Vec<EntrantId>; 2] =
            [0, 1].map(|l| alive.iter().copied().filter(|e| self.losses[e.index()] == l).collect());
        let mut plan = Plan::default();
        if pools[0].len() == 1 && pools[1].len() == 1 {
            plan.tables.push(vec![vec![pools[0][0]], vec![pools[1][0]]]);
            return Some(plan);
        }
        for pool in pools {
            let mut pool = pool;
            if pool.len() % 2 == 1 {
                let i = (0..pool.len()).min_by_key(|&i| (byes[pool[i].index()], i)).expect("odd is not empty");
                plan.byes.push(pool.remove(i));
            }
            let folded: Vec<EntrantId> =
                (0..pool.len() / 2).flat_map(|i| [pool[i], pool[pool.len() - 1 - i]]).collect();
            plan.tables.extend(pair_avoiding(&folded, opponents).into_iter().map(|(a, b)| vec![vec![a], vec![b]]));
        }
        Some(plan)
    }

    pub(crate) fn report(&mut self, loser: EntrantId) -> Option<EntrantId> {
        self.losses[loser.index()] += 1;
        (self.losses[loser.index()] >= 2).then_some(loser)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_bracket_order() {
        assert_eq!(bracket_order(1), vec![0]);
        assert_eq!(bracket_order(4), vec![0, 3, 1, 2]);
        assert_eq!(bracket_order(8), vec![0, 7, 3, 4, 1, 6, 2, 5]);
    }
}
