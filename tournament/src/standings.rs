//! Per-entrant statistics, the public [`Standing`], and the ranking order.

use serde::{Deserialize, Serialize};

use crate::round::EntrantId;
use crate::scoring::WinnerRule;
use crate::tiebreak::TieBreak;

/// One row of the standings.
///
/// Numbers cover the whole tournament (points carry over between stages).
/// Ranks are total: no two entrants share one (ties left after every
/// tie-break go to the better seed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Standing {
    /// 1 for the leader.
    pub rank: u32,
    /// The entrant.
    pub entrant: EntrantId,
    /// Its name.
    pub name: String,
    /// Tournament points (byes and the lenient referee's halving included).
    pub points: i64,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Games played.
    pub games: u32,
    /// Byes received.
    pub byes: u32,
    /// Timeouts of its players.
    pub timeouts: u32,
    /// Sum of its sides' match scores.
    pub score: i64,
    /// One value per configured tie-break, in order (higher ranks first).
    pub tie_breaks: Vec<i64>,
    /// The furthest stage it reached (index into `stages`).
    pub stage: u32,
    /// Out of a knockout, or did not advance from a stage.
    pub eliminated: bool,
    /// Disqualified (ranks below everyone not disqualified).
    pub disqualified: bool,
    /// Withdrawn by the organiser: seated in no round planned after the
    /// withdrawal, never a winner. Absent in rows stored before the field
    /// existed, which read as not withdrawn.
    #[serde(default)]
    pub withdrawn: bool,
    /// Times the lenient referee let it stay in.
    pub reprieves: u32,
}

/// Running statistics of one entrant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Stats {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub byes: u32,
    pub timeouts: u32,
    pub points: i64,
    pub score: i64,
    pub margin: i64,
    /// Current run of consecutive losses.
    pub streak: u32,
    /// Seat scores summed per member (one entry per player of the entrant).
    pub member_scores: Vec<i64>,
    pub reprieves: u32,
}

/// One played game, as the ranking needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct GameLog {
    pub sides: Vec<Vec<EntrantId>>,
    pub winner: Option<usize>,
}

/// How often each entrant met each other one as an opponent (once per
/// game and opposing member): Buchholz from it costs one pass over the
/// entrants instead of a walk over every game played.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Meetings {
    n: usize,
    /// Row `e`, column `o`.
    counts: Vec<u32>,
}

impl Meetings {
    pub(crate) fn new(n: usize) -> Meetings {
        Meetings { n, counts: vec![0; n * n] }
    }

    /// Makes room for one more entrant (a late entry), who has met nobody.
    pub(crate) fn grow(&mut self) {
        self.counts = grown(&self.counts, self.n);
        self.n += 1;
    }

    /// Counts one game between `sides`.
    pub(crate) fn record(&mut self, sides: &[Vec<EntrantId>]) {
        for (i, side) in sides.iter().enumerate() {
            for (_, other) in sides.iter().enumerate().filter(|&(j, _)| j != i) {
                for e in side {
                    for o in other {
                        self.counts[e.index() * self.n + o.index()] += 1;
                    }
                }
            }
        }
    }

    /// Sum of the tournament points of every opponent `e` met, once per meeting.
    fn buchholz(&self, e: EntrantId, stats: &[Stats]) -> i64 {
        self.counts[e.index() * self.n..][..self.n].iter().zip(stats).map(|(&c, s)| i64::from(c) * s.points).sum()
    }
}

/// Everything the ranking reads.
pub(crate) struct Ranker<'a> {
    pub stats: &'a [Stats],
    pub games: &'a [GameLog],
    pub tie_breaks: &'a [TieBreak],
    pub winner: WinnerRule,
    pub seeds: &'a [u32],
    pub lots: &'a [u32],
    /// Indices into `games` of each entrant's games.
    pub by_entrant: &'a [Vec<usize>],
    /// Who met whom.
    pub meetings: &'a Meetings,
}

impl Ranker<'_> {
    /// The winner rule's key (higher first).
    pub(crate) fn primary(&self, e: EntrantId) -> [i64; 2] {
        let s = &self.stats[e.index()];
        match self.winner {
            WinnerRule::MostPoints => [s.points, 0],
            WinnerRule::MostWins => [i64::from(s.wins), s.points],
            WinnerRule::BestPlayer => [s.member_scores.iter().copied().max().unwrap_or(0), s.points],
        }
    }

    fn value(&self, tb: TieBreak, e: EntrantId, group: &[EntrantId]) -> i64 {
        let s = &self.stats[e.index()];
        match tb {
            TieBreak::HeadToHead => self.head_to_head(e, group),
            TieBreak::Wins => i64::from(s.wins),
            TieBreak::Points => s.points,
            TieBreak::ScoreDifference => s.margin,
            TieBreak::Buchholz => self.meetings.buchholz(e, self.stats),
            TieBreak::FideBuchholz => self.meetings.buchholz(e, self.stats) + i64::from(s.byes) * s.points,
            TieBreak::BuchholzCut1 => self.cut_buchholz(e, 1, 0),
            TieBreak::MedianBuchholz => self.cut_buchholz(e, 1, 1),
            TieBreak::SonnebornBerger => self.sonneborn_berger(e),
            TieBreak::FewestTimeouts => -i64::from(s.timeouts),
            TieBreak::Lot => -i64::from(self.lots[e.index()]),
        }
    }

    /// The points of every opponent `e` met, once per meeting, and its own
    /// once per bye (FIDE's Buchholz contributions).
    fn contributions(&self, e: EntrantId) -> Vec<i64> {
        let s = &self.stats[e.index()];
        let mut out: Vec<i64> = vec![s.points; s.byes as usize];
        for g in self.by_entrant[e.index()].iter().map(|&i| &self.games[i]) {
            for side in g.sides.iter().filter(|side| !side.contains(&e)) {
                out.extend(side.iter().map(|o| self.stats[o.index()].points));
            }
        }
        out
    }

    /// FIDE's Buchholz less its `low` lowest and `high` highest contributions.
    fn cut_buchholz(&self, e: EntrantId, low: usize, high: usize) -> i64 {
        let mut c = self.contributions(e);
        c.sort_unstable();
        let end = c.len().saturating_sub(high).max(low.min(c.len()));
        c[low.min(c.len())..end].iter().sum()
    }

    /// Sonneborn-Berger, doubled: each opponent's points twice for a game
    /// won, once for a game drawn; the entrant's own points once per bye.
    fn sonneborn_berger(&self, e: EntrantId) -> i64 {
        let s = &self.stats[e.index()];
        let mut total = i64::from(s.byes) * s.points;
        for g in self.by_entrant[e.index()].iter().map(|&i| &self.games[i]) {
            let Some(mine) = g.sides.iter().position(|side| side.contains(&e)) else { continue };
            let factor = match g.winner {
                Some(w) if w == mine => 2,
                None => 1,
                Some(_) => continue,
            };
            for (_, side) in g.sides.iter().enumerate().filter(|&(j, _)| j != mine) {
                total += factor * side.iter().map(|o| self.stats[o.index()].points).sum::<i64>();
            }
        }
        total
    }

    fn head_to_head(&self, e: EntrantId, group: &[EntrantId]) -> i64 {
        let rival = |side: &Vec<EntrantId>| side.iter().any(|x| *x != e && group.contains(x));
        let mut total = 0;
        for g in self.by_entrant[e.index()].iter().map(|&i| &self.games[i]) {
            let (Some(mine), Some(w)) = (g.sides.iter().position(|s| s.contains(&e)), g.winner) else { continue };
            if w == mine {
                if g.sides.iter().enumerate().any(|(j, s)| j != mine && rival(s)) {
                    total += 1;
                }
            } else if rival(&g.sides[w]) {
                total -= 1;
            }
        }
        total
    }

    /// Orders `ids` by `coarse` (higher first), then the tie-breaks, then
    /// seed; returns each entrant with its tie-break values.
    pub(crate) fn rank<K: Ord>(
        &self,
        ids: &[EntrantId],
        coarse: impl Fn(EntrantId) -> K,
    ) -> Vec<(EntrantId, Vec<i64>)> {
        self.rank_with(ids, coarse, true)
    }

    /// The order alone: tie-breaks are computed only where a tie needs them.
    /// Pairings and stop rules rank after every round; computing every
    /// entrant's tie-breaks there (each a walk over its games) made a long
    /// tournament's replay quadratic in its results.
    pub(crate) fn order<K: Ord>(&self, ids: &[EntrantId], coarse: impl Fn(EntrantId) -> K) -> Vec<EntrantId> {
        self.rank_with(ids, coarse, false).into_iter().map(|(e, _)| e).collect()
    }

    fn rank_with<K: Ord>(
        &self,
        ids: &[EntrantId],
        coarse: impl Fn(EntrantId) -> K,
        all_values: bool,
    ) -> Vec<(EntrantId, Vec<i64>)> {
        let mut order: Vec<EntrantId> = ids.to_vec();
        order.sort_by_key(|&e| self.seeds[e.index()]);
        order.sort_by_key(|&e| std::cmp::Reverse(coarse(e)));
        let mut values: Vec<Vec<i64>> = vec![Vec::new(); self.stats.len()];
        let mut start = 0;
        while start < order.len() {
            let key = coarse(order[start]);
            let end = start + order[start..].iter().take_while(|&&e| coarse(e) == key).count();
            let group = &mut order[start..end];
            for &e in group.iter() {
                values[e.index()] = if all_values {
                    self.tie_breaks.iter().map(|&tb| self.value(tb, e, group)).collect()
                } else {
                    // `refine` fills the levels a tie reaches.
                    vec![0; self.tie_breaks.len()]
                };
            }
            self.refine(group, 0, &mut values);
            start = end;
        }
        order.into_iter().map(|e| (e, std::mem::take(&mut values[e.index()]))).collect()
    }

    fn refine(&self, group: &mut [EntrantId], level: usize, values: &mut [Vec<i64>]) {
        if group.len() <= 1 {
            return;
        }
        let Some(&tb) = self.tie_breaks.get(level) else {
            group.sort_by_key(|&e| self.seeds[e.index()]);
            return;
        };
        let snapshot = group.to_vec();
        for &e in group.iter() {
            values[e.index()][level] = self.value(tb, e, &snapshot);
        }
        group.sort_by(|&a, &b| values[b.index()][level].cmp(&values[a.index()][level]));
        let mut start = 0;
        while start < group.len() {
            let v = values[group[start].index()][level];
            let end = start + group[start..].iter().take_while(|&&e| values[e.index()][level] == v).count();
            self.refine(&mut group[start..end], level + 1, values);
            start = end;
        }
    }
}

/// A dense `n` by `n` table of counts as an `n + 1` by `n + 1` one, the new
/// row and column zero.
pub(crate) fn grown(counts: &[u32], n: usize) -> Vec<u32> {
    let mut out = vec![0; (n + 1) * (n + 1)];
    for row in 0..n {
        out[row * (n + 1)..][..n].copy_from_slice(&counts[row * n..][..n]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(points: i64, wins: u32, margin: i64, timeouts: u32) -> Stats {
        Stats { points, wins, margin, timeouts, games: 2, member_scores: vec![0], ..Stats::default() }
    }

    /// Three entrants level on points; games: 0 beat 1, 2 beat 0 (4 players, 2 at a table).
    fn order(tie_breaks: &[TieBreak], lots: &[u32]) -> Vec<u32> {
        let st = vec![stats(6, 2, 5, 3), stats(6, 1, 9, 0), stats(6, 2, -1, 1), stats(12, 3, 0, 0)];
        let e = EntrantId;
        let games = vec![
            GameLog { sides: vec![vec![e(0)], vec![e(1)]], winner: Some(0) },
            GameLog { sides: vec![vec![e(2)], vec![e(0)]], winner: Some(0) },
            GameLog { sides: vec![vec![e(1)], vec![e(3)]], winner: Some(1) },
        ];
        let by_entrant = vec![vec![0, 1], vec![0, 2], vec![1], vec![2]];
        let mut meetings = Meetings::new(4);
        for g in &games {
            meetings.record(&g.sides);
        }
        let ranker = Ranker {
            stats: &st,
            games: &games,
            tie_breaks,
            winner: WinnerRule::MostPoints,
            seeds: &[0, 1, 2, 3],
            lots,
            by_entrant: &by_entrant,
            meetings: &meetings,
        };
        let ids: Vec<EntrantId> = (0..3).map(e).collect();
        ranker.order(&ids, |x| ranker.primary(x)).into_iter().map(|x| x.0).collect()
    }

    #[test]
    fn each_tie_break_orders_level_entrants() {
        let lots = [0, 1, 2, 3];
        assert_eq!(order(&[], &lots), vec![0, 1, 2]);
        // Head-to-head among 0, 1, 2: 0 is +1 -1, 1 is -1, 2 is +1.
        assert_eq!(order(&[TieBreak::HeadToHead], &lots), vec![2, 0, 1]);
        assert_eq!(order(&[TieBreak::Wins], &lots), vec![0, 2, 1]);
        assert_eq!(order(&[TieBreak::ScoreDifference], &lots), vec![1, 0, 2]);
        assert_eq!(order(&[TieBreak::FewestTimeouts], &lots), vec![1, 2, 0]);
        // Buchholz: 0 met 1 and 2 (12), 1 met 0 and 3 (18), 2 met 0 (6).
        assert_eq!(order(&[TieBreak::Buchholz], &lots), vec![1, 0, 2]);
        assert_eq!(order(&[TieBreak::Lot], &[2, 0, 1, 3]), vec![1, 2, 0]);
        // Later tie-breaks only split what earlier ones left level.
        assert_eq!(order(&[TieBreak::Wins, TieBreak::ScoreDifference], &lots), vec![0, 2, 1]);
        assert_eq!(order(&[TieBreak::Wins, TieBreak::FewestTimeouts], &lots), vec![2, 0, 1]);
        assert_eq!(order(&[TieBreak::Points], &lots), vec![0, 1, 2]);
    }

    #[test]
    fn buchholz_family_and_sonneborn_berger_count_a_bye_as_a_draw_against_oneself() {
        let e = EntrantId;
        let mut st = vec![stats(6, 1, 0, 0), stats(3, 0, 0, 0), stats(9, 0, 0, 0), stats(0, 1, 0, 0)];
        st[0].byes = 1;
        // 0 beat 1, drew with 2, lost to 3, and had a bye.
        let games = vec![
            GameLog { sides: vec![vec![e(0)], vec![e(1)]], winner: Some(0) },
            GameLog { sides: vec![vec![e(2)], vec![e(0)]], winner: None },
            GameLog { sides: vec![vec![e(3)], vec![e(0)]], winner: Some(0) },
        ];
        let by_entrant = vec![vec![0, 1, 2], vec![0], vec![1], vec![2]];
        let mut meetings = Meetings::new(4);
        for g in &games {
            meetings.record(&g.sides);
        }
        let ranker = Ranker {
            stats: &st,
            games: &games,
            tie_breaks: &[],
            winner: WinnerRule::MostPoints,
            seeds: &[0, 1, 2, 3],
            lots: &[0, 1, 2, 3],
            by_entrant: &by_entrant,
            meetings: &meetings,
        };
        let value = |tb| ranker.value(tb, e(0), &[e(0)]);
        // Contributions: 6 (the bye), 3, 9, 0.
        assert_eq!(value(TieBreak::Buchholz), 12, "the stored tournaments' Buchholz ignores the bye");
        assert_eq!(value(TieBreak::FideBuchholz), 18);
        assert_eq!(value(TieBreak::BuchholzCut1), 18);
        assert_eq!(value(TieBreak::MedianBuchholz), 9);
        // Doubled: the bye 6, the win 2 * 3, the draw 9, the loss nothing.
        assert_eq!(value(TieBreak::SonnebornBerger), 21);
        // A lone contribution leaves nothing to a median.
        assert_eq!(ranker.value(TieBreak::MedianBuchholz, e(1), &[e(1)]), 0);
        assert_eq!(ranker.value(TieBreak::BuchholzCut1, e(1), &[e(1)]), 0);
    }
}
