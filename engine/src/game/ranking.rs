//! Counting hands and ranking seats and sides (`ranking`).

use arrayvec::ArrayVec;

use super::Game;
use crate::history::Action;
use crate::seating::{MAX_SEATS, Seat, Side};
use crate::variant::RankBy;

impl Game {
    /// Each seat's count for the hand: its tiles' values in this deal,
    /// multiplied by `ranking.never-played` for a seat that never played.
    pub(super) fn counted_pips(&self) -> [i32; MAX_SEATS] {
        let n = self.table.seats() as usize;
        let penalty = self.base.variant().ranking.never_played as i32;
        let mut played = 0u16;
        if penalty != 1 {
            for r in &self.history {
                if let Action::Play { .. } = r.action {
                    played |= 1 << r.seat.0;
                }
            }
        }
        std::array::from_fn(|s| {
            if s >= n {
                return 0;
            }
            let p = self.value_of(self.hands[s]);
            if penalty != 1 && played & (1 << s) == 0 { p * penalty } else { p }
        })
    }

    /// Sort key of seat `s` under the ranking rule: lower ranks first.
    fn rank_key(&self, by: RankBy, pips: &[i32; MAX_SEATS], s: Seat) -> (i64, i32, u8) {
        let n = self.table.seats() as usize;
        let p = pips[s.index()];
        let team = |s: Seat| -> i64 { self.table.members(self.table.side_of(s)).map(|m| pips[m.index()] as i64).sum() };
        let primary = match by {
            RankBy::Standard | RankBy::FewestPoints => p as i64,
            RankBy::MostPoints => -(p as i64),
            RankBy::MedianPoints => {
                let mut sorted: ArrayVec<i32, MAX_SEATS> = pips[..n].iter().copied().collect();
                sorted.sort_unstable();
                (p as i64 - sorted[(n - 1) / 2] as i64).abs()
            }
            RankBy::FewestTiles => self.hands[s.index()].len() as i64,
            RankBy::MostTiles => -(self.hands[s.index()].len() as i64),
            RankBy::TeamFewest => team(s),
            RankBy::TeamMost => -team(s),
        };
        (primary, p, s.0)
    }

    /// The winner of a hand nobody went out of under a ranking rule other
    /// than the standard one; `None` when the best rank is shared by
    /// different sides.
    pub(super) fn ranked_winner(&self, pips: &[i32; MAX_SEATS]) -> Option<(Side, Seat)> {
        let by = self.base.variant().ranking.by;
        let seats = (0..self.table.seats()).map(Seat);
        let best = seats.clone().map(|s| self.rank_key(by, pips, s).0).min()?;
        let mut top = seats.filter(|&s| self.rank_key(by, pips, s).0 == best);
        let first = top.next()?;
        let side = self.table.side_of(first);
        if !top.all(|s| self.table.side_of(s) == side) {
            return None;
        }
        // The side's best seat by count leads next.
        let seat = self
            .table
            .members(side)
            .filter(|&s| self.rank_key(by, pips, s).0 == best)
            .min_by_key(|s| (pips[s.index()], s.0));
        Some((side, seat.unwrap_or(first)))
    }

    /// Every seat, best first, by the ranking rule; the hand's winning seat
    /// first under the standard rule.
    pub(super) fn hand_ranking(&self, pips: &[i32; MAX_SEATS], winner: Option<Seat>) -> ArrayVec<Seat, MAX_SEATS> {
        let n = self.table.seats() as usize;
        if !self.hot.ranked {
            // The standard rule: the winner, then by count, then by seat.
            let key = |s: usize| {
                let loser = (Some(Seat(s as u8)) != winner) as u64;
                loser << 40 | (order_bits(pips[s]) as u64) << 8 | s as u64
            };
            return ranked_by(n, key).map(Seat).collect();
        }
        let by = self.base.variant().ranking.by;
        let mut keyed: ArrayVec<((i64, i32, u8), Seat), MAX_SEATS> =
            (0..n as u8).map(Seat).map(|s| (self.rank_key(by, pips, s), s)).collect();
        // Insertion sort: at most ten seats, no allocation.
        for i in 1..keyed.len() {
            let mut j = i;
            while j > 0 && keyed[j - 1].0 > keyed[j].0 {
                keyed.swap(j - 1, j);
                j -= 1;
            }
        }
        keyed.iter().map(|k| k.1).collect()
    }

    /// Every side, best first: the winner, then by match score.
    pub(super) fn match_ranking(&self, winner: Option<Side>) -> ArrayVec<Side, MAX_SEATS> {
        // Penalty scoring ranks the lowest total first.
        let low = self.rules.penalty_scoring();
        let key = |i: usize| {
            let loser = (Some(Side(i as u8)) != winner) as u64;
            let score = order_bits(self.scores[i]);
            loser << 40 | (if low { score } else { !score } as u64) << 8 | i as u64
        };
        ranked_by(self.table.sides() as usize, key).map(Side).collect()
    }
}

/// `x` as a `u32` in the same order (the sign bit flipped).
fn order_bits(x: i32) -> u32 {
    x as u32 ^ 1 << 31
}

/// The indices `0..n` (at most [`MAX_SEATS`]) by their distinct `key`,
/// smallest first: each index lands at the count of keys below its own. No
/// comparison decides a branch, so the order of a hand's counts costs no
/// mispredicted jumps.
#[inline(always)]
fn ranked_by(n: usize, key: impl Fn(usize) -> u64) -> impl Iterator<Item = u8> {
    let n = n.min(MAX_SEATS);
    let mut keys = [0u64; MAX_SEATS];
    for (i, k) in keys[..n].iter_mut().enumerate() {
        *k = key(i);
    }
    let mut order = [0u8; MAX_SEATS];
    for (i, &k) in keys[..n].iter().enumerate() {
        let below: usize = keys[..n].iter().map(|&o| (o < k) as usize).sum();
        order[below] = i as u8;
    }
    order.into_iter().take(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_bits_keep_the_order_of_signed_counts() {
        let xs = [i32::MIN, -7, -1, 0, 1, 42, i32::MAX];
        for w in xs.windows(2) {
            assert!(order_bits(w[0]) < order_bits(w[1]), "{w:?}");
        }
    }

    #[test]
    fn ranked_by_puts_the_smallest_key_first() {
        let keys = [50u64, 10, 30, 20];
        let order: Vec<u8> = ranked_by(keys.len(), |i| keys[i]).collect();
        assert_eq!(order, vec![1, 3, 2, 0]);
        assert_eq!(ranked_by(0, |_| 0).count(), 0);
    }
}
