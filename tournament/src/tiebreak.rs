//! Tie-breaks: what decides between entrants level on the winner rule.

use serde::{Deserialize, Serialize};

/// One tie-break criterion; higher values rank first.
///
/// They apply in the configured order to entrants still level; `head-to-head`
/// is computed among exactly the entrants still level at that point. When
/// every tie-break is exhausted the better (lower) seed ranks first, so a
/// ranking is always total and reproducible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Results among the tied entrants: +1 per game whose winning side holds
    /// the entrant and a tied rival sits on a losing side, -1 the other way round.
    HeadToHead,
    /// Games won.
    Wins,
    /// Tournament points.
    Points,
    /// Sum over games of (own side's match score - best opposing side's match score).
    ScoreDifference,
    /// Buchholz: sum of the tournament points of every opponent met (once per meeting).
    Buchholz,
    /// Fewer timeouts rank first (the value shown is minus the timeouts).
    FewestTimeouts,
    /// A seeded random order, drawn once per tournament.
    Lot,
}

impl TieBreak {
    /// The default order: head-to-head, wins, score difference, Buchholz.
    pub fn defaults() -> Vec<TieBreak> {
        vec![TieBreak::HeadToHead, TieBreak::Wins, TieBreak::ScoreDifference, TieBreak::Buchholz]
    }
}
