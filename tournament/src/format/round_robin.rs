//! Round robin: everyone meets everyone, `legs` times.
//!
//! - Two entrants per table: the circle method (one fixed, the others
//!   rotate); an odd count adds a ghost whose opponent has a bye. Every pair
//!   meets exactly `legs` times; the second leg swaps sides.
//! - `rotating-partners`: the circle method decides partners, so every pair
//!   partners at most `legs` times (exactly, when nobody has to sit out);
//!   partnerships are matched against the partnerships they have opposed least.
//! - `free-for-all`: rounds are built greedily until every pair has shared a
//!   table `legs` times, each table maximizing pairs that still need to meet
//!   and then minimizing repeats; sit-outs go to those with the fewest byes.

use serde::Serialize;

use super::{Ctx, PairCounts, Plan, fill_fours, sit_out};
use crate::rng::TourRng;
use crate::round::EntrantId;
use crate::table::TableKind;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct RoundRobin {
    legs: u32,
    /// Circle-method rounds: pairs of member indices, `None` for the ghost.
    circle: Vec<Vec<(Option<usize>, Option<usize>)>>,
    next: u32,
}

/// The circle method for `n` members.
fn circle(n: usize) -> Vec<Vec<(Option<usize>, Option<usize>)>> {
    let m = n + n % 2;
    let mut arr: Vec<Option<usize>> = (0..m).map(|i| (i < n).then_some(i)).collect();
    let mut rounds = Vec::with_capacity(m - 1);
    for r in 0..m - 1 {
        let round = (0..m / 2)
            .map(|i| {
                let (a, b) = (arr[i], arr[m - 1 - i]);
                if i == 0 && r % 2 == 1 { (b, a) } else { (a, b) }
            })
            .collect();
        rounds.push(round);
        arr[1..].rotate_right(1);
    }
    rounds
}

impl RoundRobin {
    pub(crate) fn new(kind: TableKind, members: &[EntrantId], legs: u32) -> RoundRobin {
        let circle = if kind == TableKind::FreeForAll { Vec::new() } else { circle(members.len()) };
        RoundRobin { legs, circle, next: 0 }
    }

    pub(crate) fn next(
        &mut self,
        kind: TableKind,
        members: &[EntrantId],
        ctx: &Ctx<'_>,
        opponents: &PairCounts,
        byes: &[u32],
        rng: &mut TourRng,
    ) -> Option<Plan> {
        let active: Vec<EntrantId> = members.iter().copied().filter(|e| ctx.active[e.index()]).collect();
        if active.len() < kind.entrants_per_table() {
            return None;
        }
        let plan = if kind == TableKind::FreeForAll {
            self.free_for_all(&active, opponents, byes, rng)?
        } else {
            let total = self.circle.len() as u32 * self.legs;
            if self.next >= total {
                return None;
            }
            let base = &self.circle[(self.next as usize) % self.circle.len()];
            let swap = (self.next as usize / self.circle.len()) % 2 == 1;
            let mut pairs = Vec::new();
            let mut plan = Plan::default();
            for &(a, b) in base {
                let a = a.map(|i| members[i]).filter(|e| ctx.active[e.index()]);
                let b = b.map(|i| members[i]).filter(|e| ctx.active[e.index()]);
                match (a, b) {
                    (Some(a), Some(b)) => pairs.push(if swap { (b, a) } else { (a, b) }),
                    (Some(x), None) | (None, Some(x)) => plan.byes.push(x),
                    (None, None) => {}
                }
            }
            if kind == TableKind::RotatingPartners {
                rotating_tables(&mut plan, pairs, opponents, byes);
            } else {
                plan.tables = pairs.into_iter().map(|(a, b)| vec![vec![a], vec![b]]).collect();
            }
            plan
        };
        self.next += 1;
        Some(plan)
    }

    fn free_for_all(
        &self,
        active: &[EntrantId],
        opponents: &PairCounts,
        byes: &[u32],
        rng: &mut TourRng,
    ) -> Option<Plan> {
        let legs = self.legs;
        let deficit = |e: EntrantId| active.iter().filter(|&&f| f != e && opponents.get(e, f) < legs).count();
        if active.iter().all(|&e| deficit(e) == 0) || self.next as usize > 4 * active.len() * legs as usize + 8 {
            return None;
        }
        let mut order = active.to_vec();
        rng.shuffle(&mut order);
        order.sort_by_key(|&e| std::cmp::Reverse(deficit(e)));
        let (out, play) = sit_out(&order, order.len() % 4, byes);
        let tables = fill_fours(&play, |table, c| {
            let new = table.iter().filter(|&&t| opponents.get(t, c) < legs).count() as i64;
            let seen: u32 = table.iter().map(|&t| opponents.get(t, c)).sum();
            (-new, seen)
        });
        Some(Plan { tables: tables.into_iter().map(|t| t.into_iter().map(|e| vec![e]).collect()).collect(), byes: out })
    }
}

/// Seats partnerships two by two: an odd one out sits out (fewest byes), each
/// partnership meets the partnership it has opposed least.
fn rotating_tables(plan: &mut Plan, mut pairs: Vec<(EntrantId, EntrantId)>, opponents: &PairCounts, byes: &[u32]) {
    if pairs.len() % 2 == 1 {
        let out = (0..pairs.len())
            .min_by_key(|&i| (byes[pairs[i].0.index()] + byes[pairs[i].1.index()], std::cmp::Reverse(i)))
            .expect("odd count is not empty");
        let (a, b) = pairs.remove(out);
        plan.byes.extend([a, b]);
    }
    let cross = |p: (EntrantId, EntrantId), q: (EntrantId, EntrantId)| {
        opponents.get(p.0, q.0) + opponents.get(p.0, q.1) + opponents.get(p.1, q.0) + opponents.get(p.1, q.1)
    };
    while pairs.len() >= 2 {
        let p = pairs.remove(0);
        let best = (0..pairs.len()).min_by_key(|&i| (cross(p, pairs[i]), i)).expect("even count");
        let q = pairs.remove(best);
        plan.tables.push(vec![vec![p.0, p.1], vec![q.0, q.1]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circle_meets_every_pair_once() {
        for n in 2..=11 {
            let rounds = circle(n);
            let mut met = vec![vec![0; n]; n];
            for round in &rounds {
                let mut seen = vec![false; n];
                for &(a, b) in round {
                    for x in [a, b].into_iter().flatten() {
                        assert!(!seen[x], "{x} twice in a round");
                        seen[x] = true;
                    }
                    if let (Some(a), Some(b)) = (a, b) {
                        met[a][b] += 1;
                        met[b][a] += 1;
                    }
                }
            }
            for (a, row) in met.iter().enumerate() {
                for (b, &m) in row.iter().enumerate() {
                    assert_eq!(m, u32::from(a != b), "n={n} {a}-{b}");
                }
            }
        }
    }
}
