//! Formats: who meets whom, round by round.
//!
//! A stage splits its entrants into groups; each [`Group`] schedules its own
//! rounds from its state, the entrants still active and their current
//! ranking. Groups never see results except the knockout winners they are told.

mod dutch;
mod knockout;
mod pairing;
mod round_robin;
mod swiss;

use serde::Serialize;

use crate::config::{FormatKind, StageSpec, SwissPairing};
use crate::rng::TourRng;
use crate::round::EntrantId;
use crate::table::TableKind;

pub(crate) use dutch::History;
pub(crate) use pairing::PairCounts;

/// One table as a format plans it: sides of entrants.
pub(crate) type PlannedTable = Vec<Vec<EntrantId>>;

/// A group's share of one round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub tables: Vec<PlannedTable>,
    pub byes: Vec<EntrantId>,
}

/// What a group needs to know to plan a round.
pub(crate) struct Ctx<'a> {
    /// Whether each entrant (by index) may still be seated.
    pub active: &'a [bool],
    /// The group's active members, best first.
    pub ranked: &'a [EntrantId],
    /// Each entrant's (by index) score on the winner rule's first
    /// criterion: Dutch pairing's score groups. Empty unless the group
    /// needs a ranking.
    pub scores: &'a [i64],
}

/// Format-specific state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
enum State {
    RoundRobin(round_robin::RoundRobin),
    Swiss {
        rounds: u32,
        pairing: SwissPairing,
    },
    Knockout(knockout::Knockout),
    DoubleKnockout(knockout::DoubleKnockout),
    /// Plans no rounds: an arena pairs entrants as they come free (see
    /// `tournament/arena.rs`).
    Arena,
}

/// One group of one stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Group {
    /// Members in seed order.
    pub members: Vec<EntrantId>,
    kind: TableKind,
    state: State,
    /// Times two entrants sat on opposing sides, in this group.
    pub opponents: PairCounts,
    /// Times two entrants sat on the same side, in this group.
    pub partners: PairCounts,
    /// Byes per entrant (by index), in this group.
    pub byes: Vec<u32>,
    /// Rounds planned so far.
    pub rounds: u32,
    /// Sides played and last float per entrant (by index) at tables of
    /// two single entrants, in this group (Dutch pairing reads it).
    pub history: Vec<History>,
}

impl Group {
    pub(crate) fn new(stage: &StageSpec, kind: TableKind, members: Vec<EntrantId>, total: usize) -> Group {
        let state = match stage.format {
            FormatKind::RoundRobin => {
                State::RoundRobin(round_robin::RoundRobin::new(kind, &members, stage.legs.unwrap_or(1)))
            }
            FormatKind::Swiss => State::Swiss {
                rounds: stage.rounds.unwrap_or(1),
                pairing: stage.pairing.unwrap_or(SwissPairing::Neighbours),
            },
            FormatKind::Knockout => State::Knockout(knockout::Knockout::new(&members)),
            FormatKind::DoubleKnockout => State::DoubleKnockout(knockout::DoubleKnockout::new(total)),
            FormatKind::Arena => State::Arena,
        };
        Group {
            members,
            kind,
            state,
            opponents: PairCounts::new(total),
            partners: PairCounts::new(total),
            byes: vec![0; total],
            rounds: 0,
            history: vec![History::default(); total],
        }
    }

    /// Makes room for a late entrant (the next entrant index), a member of
    /// this group if `member`.
    pub(crate) fn grow(&mut self, entrant: EntrantId, member: bool) {
        if member {
            self.members.push(entrant);
        }
        self.opponents.grow();
        self.partners.grow();
        self.byes.push(0);
        self.history.push(History::default());
    }

    /// Whether this group eliminates losers (a knockout).
    pub(crate) fn is_knockout(&self) -> bool {
        matches!(self.state, State::Knockout(_) | State::DoubleKnockout(_))
    }

    /// Whether planning reads the current ranking (Swiss pairs by standing).
    pub(crate) fn needs_ranking(&self) -> bool {
        matches!(self.state, State::Swiss { .. })
    }

    /// Plans the next round, or `None` when the group is done.
    pub(crate) fn next(&mut self, ctx: &Ctx<'_>, rng: &mut TourRng) -> Option<Plan> {
        let plan = match &mut self.state {
            State::RoundRobin(rr) => rr.next(self.kind, &self.members, ctx, &self.opponents, &self.byes, rng),
            State::Swiss { rounds, pairing } => {
                if self.rounds >= *rounds {
                    None
                } else if *pairing == SwissPairing::Dutch && self.kind.head_to_head() {
                    (ctx.ranked.len() >= 2)
                        .then(|| dutch::pair(ctx.ranked, ctx.scores, &self.opponents, &self.byes, &self.history))
                } else {
                    swiss::next(self.kind, ctx, &self.opponents, &self.partners, &self.byes)
                }
            }
            State::Knockout(k) => k.next(ctx),
            State::DoubleKnockout(d) => d.next(&self.members, ctx, &self.opponents, &self.byes),
            State::Arena => None,
        }?;
        self.remember(&plan, ctx.scores);
        for table in &plan.tables {
            for (i, side) in table.iter().enumerate() {
                for (j, &a) in side.iter().enumerate() {
                    for &b in &side[j + 1..] {
                        self.partners.add(a, b);
                    }
                    for other in &table[i + 1..] {
                        for &b in other {
                            self.opponents.add(a, b);
                        }
                    }
                }
            }
        }
        for &b in &plan.byes {
            self.byes[b.index()] += 1;
        }
        self.rounds += 1;
        Some(plan)
    }

    /// Records each entrant's side and float in `plan` (floats only where
    /// `scores` are known, as they are for a Swiss).
    fn remember(&mut self, plan: &Plan, scores: &[i64]) {
        for table in plan.tables.iter().filter(|t| t.len() == 2 && t.iter().all(|s| s.len() == 1)) {
            let (a, b) = (table[0][0], table[1][0]);
            self.history[a.index()].record(0);
            self.history[b.index()].record(1);
            if !scores.is_empty() {
                let order = scores[a.index()].cmp(&scores[b.index()]) as i8;
                self.history[a.index()].float = order;
                self.history[b.index()].float = -order;
            }
        }
        if !scores.is_empty() {
            for b in &plan.byes {
                self.history[b.index()].float = 1;
            }
        }
    }

    /// Tells a knockout who went through at its table `table` (index in this
    /// group's last plan); returns the entrants eliminated by it.
    pub(crate) fn report(&mut self, table: usize, winner: EntrantId, loser: EntrantId) -> Option<EntrantId> {
        match &mut self.state {
            State::Knockout(k) => k.report(table, winner, loser),
            State::DoubleKnockout(d) => d.report(loser),
            _ => None,
        }
    }
}

/// Splits `4k` entrants, taken in `order`, into tables of four: each table
/// starts with the first entrant left and adds, one at a time, the entrant
/// with the lowest `cost` against the table so far (first in order on ties).
pub(crate) fn fill_fours<K: Ord>(
    order: &[EntrantId],
    cost: impl Fn(&[EntrantId], EntrantId) -> K,
) -> Vec<Vec<EntrantId>> {
    let mut left: Vec<EntrantId> = order.to_vec();
    let mut tables = Vec::new();
    while left.len() >= 4 {
        let mut table = vec![left.remove(0)];
        while table.len() < 4 {
            let best = (0..left.len()).min_by_key(|&i| (cost(&table, left[i]), i)).expect("enough left");
            table.push(left.remove(best));
        }
        tables.push(table);
    }
    tables
}

/// Splits four entrants into two pairs, repeating partnerships as little as
/// possible (then opponents), first split on ties.
pub(crate) fn split_pairs(t: &[EntrantId], partners: &PairCounts, opponents: &PairCounts) -> PlannedTable {
    let splits = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 1, 2]];
    let best = splits
        .iter()
        .min_by_key(|s| {
            let p = partners.get(t[s[0]], t[s[1]]) + partners.get(t[s[2]], t[s[3]]);
            let o = opponents.get(t[s[0]], t[s[2]])
                + opponents.get(t[s[0]], t[s[3]])
                + opponents.get(t[s[1]], t[s[2]])
                + opponents.get(t[s[1]], t[s[3]]);
            (p, o)
        })
        .expect("three splits");
    vec![vec![t[best[0]], t[best[1]]], vec![t[best[2]], t[best[3]]]]
}

/// Chooses `count` entrants to sit out, fewest byes first, preferring entrants
/// late in `order` (the lower ranked or seeded); returns (sitting out, playing).
pub(crate) fn sit_out(order: &[EntrantId], count: usize, byes: &[u32]) -> (Vec<EntrantId>, Vec<EntrantId>) {
    let mut candidates: Vec<usize> = (0..order.len()).collect();
    candidates.sort_by_key(|&i| (byes[order[i].index()], std::cmp::Reverse(i)));
    let out: Vec<EntrantId> = candidates[..count].iter().map(|&i| order[i]).collect();
    let play = order.iter().copied().filter(|e| !out.contains(e)).collect();
    (out, play)
}
