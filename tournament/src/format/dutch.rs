//! Dutch-system Swiss pairing (FIDE C.04.3) for two entrants per table.
//!
//! The whole field is paired at once by a maximum-weight matching
//! (Edmonds' blossom algorithm, `integer-blossom`), so "no repeat while one
//! can be avoided" is exact rather than the result of a bounded search.
//! Every pair gets a cost whose levels are weighed so that each level
//! outweighs everything below it summed over a whole round (most important
//! first):
//!
//! | level | cost of a pair |
//! |---|---|
//! | second byes | for the bye, byes its taker already had |
//! | repeats | times the two met before |
//! | bye | for the bye, how many entrants rank below its taker |
//! | side limit | both would need the same side to stay within two of even |
//! | runs | both would need the same side not to play a third game in a row on one side |
//! | score | (difference of their score groups)² |
//! | sides | both prefer the same side: the weaker preference (absolute 3, strong 2, mild 1) |
//! | floats | across score groups: the higher floated down last round (or had the bye), the lower floated up |
//! | order | distance from the Dutch order: in a score group, the i-th of the top half meets the i-th of the bottom half; a floater is the lowest of its group and meets the highest of the next |
//!
//! An odd field adds one vertex, the bye, joined to every entrant: the bye
//! therefore goes to nobody twice while that can be avoided, and to the
//! lowest-ranked entrant whose removal leaves the rest pairable without
//! repeats.
//! The matching is over a complete graph with positive weights, so it is
//! perfect: everyone is paired.
//!
//! Sides follow chess colours (side 0 is white): each entrant keeps a
//! [`History`], and in each pair the stronger preference is granted
//! (FIDE's colour allocation, with the higher-ranked entrant winning ties);
//! in round 1 the top board's higher-ranked entrant takes side 0 and the
//! boards alternate.

use crate::format::{PairCounts, Plan};
use crate::round::EntrantId;

/// What Dutch pairing remembers of an entrant's games: its sides, as colour
/// allocation needs them, and whether it floated last round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct History {
    /// Games on side 0 less games on side 1.
    pub diff: i32,
    /// The side of its last game.
    pub last: Option<u8>,
    /// Games in a row on `last`.
    pub run: u32,
    /// Last round: 1 if it met a lower score or had the bye (floated
    /// down), -1 if it met a higher score (floated up), else 0.
    pub float: i8,
}

impl History {
    /// Counts one game on `side` (0 or 1).
    pub(crate) fn record(&mut self, side: u8) {
        self.diff += if side == 0 { 1 } else { -1 };
        self.run = if self.last == Some(side) { self.run + 1 } else { 1 };
        self.last = Some(side);
    }

    /// The side it should get next, and how strongly (FIDE's absolute,
    /// strong and mild colour preferences as 3, 2, 1).
    fn preference(&self) -> Option<(u8, u8)> {
        let away = |side: u8| 1 - side;
        if self.diff >= 2 {
            Some((1, 3))
        } else if self.diff <= -2 {
            Some((0, 3))
        } else if self.run >= 2 {
            self.last.map(|s| (away(s), 3))
        } else if self.diff == 1 {
            Some((1, 2))
        } else if self.diff == -1 {
            Some((0, 2))
        } else {
            self.last.map(|s| (away(s), 1))
        }
    }
}

/// Largest count a repeat cost takes (more meetings weigh the same).
const MAX_REPEATS: i128 = 63;

// Level multipliers: each is above the largest sum of the levels below it
// over a whole round of 512 entrants (257 pairs with the bye), and the
// heaviest round stays far inside i128.
const ORDER: i128 = 1;
const FLOAT: i128 = 1 << 21;
const SIDES: i128 = 1 << 31;
const SCORE: i128 = 1 << 41;
const RUN: i128 = 1 << 68;
const LIMIT: i128 = 1 << 77;
const BYE: i128 = 1 << 86;
const REPEAT: i128 = 1 << 96;
const SECOND_BYE: i128 = 1 << 110;
/// Every weight is `BASE - cost`: positive, so the matching is perfect.
const BASE: i128 = 1 << 116;

/// Where each ranked entrant stands: its score group and place in it.
struct Field {
    /// Score group (0 = highest score) by position in `ranked`.
    group: Vec<usize>,
    /// Place within its group by position in `ranked`.
    place: Vec<usize>,
    /// Size of each group.
    sizes: Vec<usize>,
}

impl Field {
    fn new(ranked: &[EntrantId], scores: &[i64]) -> Field {
        let (mut group, mut place, mut sizes) = (Vec::new(), Vec::new(), Vec::<usize>::new());
        for (i, e) in ranked.iter().enumerate() {
            let score = scores[e.index()];
            if i == 0 || score != scores[ranked[i - 1].index()] {
                sizes.push(0);
            }
            let g = sizes.len() - 1;
            group.push(g);
            place.push(sizes[g]);
            sizes[g] += 1;
        }
        Field { group, place, sizes }
    }

    /// Distance of the pair (positions `i < j`) from the Dutch order.
    fn order_cost(&self, i: usize, j: usize) -> i128 {
        let (gi, gj) = (self.group[i], self.group[j]);
        let (pi, pj) = (self.place[i] as i128, self.place[j] as i128);
        if gi == gj {
            let half = (self.sizes[gi] / 2) as i128;
            let same_half = (pi < half) == (pj < half);
            (pj - pi - half).abs() + if same_half { half } else { 0 }
        } else {
            // Which floater, and whom it meets, outweigh how the rest of the
            // groups pair (as Dutch picks them before pairing the remainder).
            4 * ((self.sizes[gi] as i128 - 1 - pi) + pj)
        }
    }
}

/// Pairs `ranked` (best first, at least two): the tables as
/// `[[side 0], [side 1]]`, and the bye if the count is odd.
pub(crate) fn pair(
    ranked: &[EntrantId],
    scores: &[i64],
    opponents: &PairCounts,
    byes: &[u32],
    sides: &[History],
) -> Plan {
    let n = ranked.len();
    let field = Field::new(ranked, scores);
    let size = n + n % 2;
    let bye = (n % 2 == 1).then_some(n);
    let mut weight = vec![0i128; size * size];
    for i in 0..n {
        let a = ranked[i];
        for j in i + 1..n {
            let b = ranked[j];
            let (ha, hb) = (sides[a.index()], sides[b.index()]);
            let limit = (ha.diff >= 2 && hb.diff >= 2) || (ha.diff <= -2 && hb.diff <= -2);
            let run = ha.run >= 2 && hb.run >= 2 && ha.last == hb.last;
            let side_cost = match (ha.preference(), hb.preference()) {
                (Some((sa, ka)), Some((sb, kb))) if sa == sb => ka.min(kb),
                _ => 0,
            };
            let groups = (field.group[j] - field.group[i]) as i128;
            // A pair across score groups floats `a` down and `b` up.
            let floats = if groups > 0 { i128::from(ha.float == 1) + i128::from(hb.float == -1) } else { 0 };
            let cost = REPEAT * i128::from(opponents.get(a, b)).min(MAX_REPEATS)
                + LIMIT * i128::from(limit)
                + RUN * i128::from(run)
                + SCORE * groups * groups
                + SIDES * i128::from(side_cost)
                + FLOAT * floats
                + ORDER * field.order_cost(i, j);
            weight[i * size + j] = BASE - cost;
        }
        if let Some(b) = bye {
            let cost = SECOND_BYE * i128::from(byes[a.index()]).min(MAX_REPEATS) + BYE * (n - 1 - i) as i128;
            weight[i * size + b] = BASE - cost;
        }
    }
    let mates = integer_blossom::max_weight_matching(&weight, size);
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(n / 2);
    let mut out = Vec::new();
    for (i, mate) in mates.iter().enumerate().take(n) {
        match *mate {
            Some(j) if Some(j) == bye => out.push(ranked[i]),
            Some(j) if i < j => pairs.push((i, j)),
            Some(_) => {}
            None => unreachable!("a complete graph with positive weights is matched perfectly"),
        }
    }
    pairs.sort();
    let tables = pairs
        .into_iter()
        .enumerate()
        .map(|(board, (i, j))| {
            let (a, b) = (ranked[i], ranked[j]);
            if allocate(sides[a.index()], sides[b.index()], board) == 0 {
                vec![vec![a], vec![b]]
            } else {
                vec![vec![b], vec![a]]
            }
        })
        .collect();
    Plan { tables, byes: out }
}

/// The side the higher-ranked entrant (history `a`) takes against `b` on
/// board `board` (0 = top): both preferences when they differ, else the
/// stronger one, else (both absolute) the one further from even or on the
/// longer run, else the higher-ranked entrant's; with no history at all,
/// alternating down the boards.
fn allocate(a: History, b: History, board: usize) -> u8 {
    match (a.preference(), b.preference()) {
        (None, None) => (board % 2) as u8,
        (Some((sa, _)), None) => sa,
        (None, Some((sb, _))) => 1 - sb,
        (Some((sa, ka)), Some((sb, kb))) => {
            if sa != sb {
                return sa;
            }
            let strength = |h: History, k: u8| (k, h.diff.abs(), h.run);
            if strength(b, kb) > strength(a, ka) { 1 - sb } else { sa }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: u32) -> Vec<EntrantId> {
        (0..n).map(EntrantId).collect()
    }

    fn history(sides: &[u8]) -> History {
        let mut h = History::default();
        for &s in sides {
            h.record(s);
        }
        h
    }

    #[test]
    fn preferences_follow_fide() {
        assert_eq!(history(&[]).preference(), None);
        assert_eq!(history(&[0]).preference(), Some((1, 2)));
        assert_eq!(history(&[0, 1]).preference(), Some((0, 1)));
        assert_eq!(history(&[1, 1]).preference(), Some((0, 3)));
        assert_eq!(history(&[1, 0, 0]).preference(), Some((1, 3)));
        assert_eq!(history(&[0, 0, 1, 0]).preference(), Some((1, 3)));
    }

    #[test]
    fn stronger_preference_wins_the_side() {
        // Both want side 1; b is on a run of two (absolute), a only strong.
        assert_eq!(allocate(history(&[0]), history(&[0, 0]), 0), 0);
        // Different wishes are both granted.
        assert_eq!(allocate(history(&[1]), history(&[0]), 0), 0);
        // Equal strength: the higher-ranked entrant gets its wish.
        assert_eq!(allocate(history(&[0, 1]), history(&[0, 1]), 0), 0);
        assert_eq!(allocate(history(&[]), history(&[]), 1), 1);
    }

    #[test]
    fn first_round_is_top_half_against_bottom_half_with_alternating_sides() {
        let n = 8;
        let plan = pair(&ids(n), &vec![0; n as usize], &PairCounts::new(8), &[0; 8], &[History::default(); 8]);
        let e = EntrantId;
        let expected = vec![
            vec![vec![e(0)], vec![e(4)]],
            vec![vec![e(5)], vec![e(1)]],
            vec![vec![e(2)], vec![e(6)]],
            vec![vec![e(7)], vec![e(3)]],
        ];
        assert_eq!(plan.tables, expected);
        assert!(plan.byes.is_empty());
    }

    #[test]
    fn the_bye_goes_where_the_rest_can_still_be_paired() {
        // 0 met 1, 2 and 3: a bye for 4 would force 0 into a repeat.
        let mut met = PairCounts::new(5);
        for b in 1..4 {
            met.add(EntrantId(0), EntrantId(b));
        }
        let plan = pair(&ids(5), &[0; 5], &met, &[0; 5], &[History::default(); 5]);
        assert_eq!(plan.byes, vec![EntrantId(3)]);
        assert!(plan.tables.iter().all(|t| met.get(t[0][0], t[1][0]) == 0), "{:?}", plan.tables);
        // Today's neighbours pairing gives 4 the bye and repeats.
        let ctx = crate::format::Ctx { active: &[true; 5], ranked: &ids(5), scores: &[0; 5] };
        let old = crate::format::swiss::next(crate::table::TableKind::Duel, &ctx, &met, &PairCounts::new(5), &[0; 5])
            .expect("a round");
        assert_eq!(old.byes, vec![EntrantId(4)]);
        assert!(old.tables.iter().any(|t| met.get(t[0][0], t[1][0]) > 0));
    }

    #[test]
    fn nobody_gets_a_second_bye_while_avoidable() {
        let mut byes = [0; 5];
        byes[4] = 1;
        let plan = pair(&ids(5), &[0; 5], &PairCounts::new(5), &byes, &[History::default(); 5]);
        assert_eq!(plan.byes, vec![EntrantId(3)]);
    }

    #[test]
    fn nobody_floats_up_twice_in_a_row_while_avoidable() {
        // 0 must float down into 1, 2, 3; 1, the top of that group, floated up last round.
        let mut history = [History::default(); 4];
        history[1].float = -1;
        let plan = pair(&ids(4), &[1, 0, 0, 0], &PairCounts::new(4), &[0; 4], &history);
        let opponent = |e: u32| {
            plan.tables.iter().find_map(|t| match (t[0][0].0, t[1][0].0) {
                (a, b) if a == e => Some(b),
                (a, b) if b == e => Some(a),
                _ => None,
            })
        };
        assert_eq!(opponent(0), Some(2));
        let plan = pair(&ids(4), &[1, 0, 0, 0], &PairCounts::new(4), &[0; 4], &[History::default(); 4]);
        assert!(plan.tables.iter().any(|t| [t[0][0].0, t[1][0].0].contains(&0) && [t[0][0].0, t[1][0].0].contains(&1)));
    }

    #[test]
    fn floaters_go_down_one_group_and_the_bye_to_the_last() {
        // Scores 2, 1, 1, 1, 0: 0 floats to meet 1 (the top of its new group), 2 and 3 meet, 4 gets the bye.
        let scores = [2, 1, 1, 1, 0];
        let plan = pair(&ids(5), &scores, &PairCounts::new(5), &[0; 5], &[History::default(); 5]);
        let mut pairs: Vec<(u32, u32)> =
            plan.tables.iter().map(|t| (t[0][0].0.min(t[1][0].0), t[0][0].0.max(t[1][0].0))).collect();
        pairs.sort();
        assert_eq!(pairs, vec![(0, 1), (2, 3)]);
        assert_eq!(plan.byes, vec![EntrantId(4)]);
    }
}
