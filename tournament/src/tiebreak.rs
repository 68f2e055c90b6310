//! Tie-breaks: what decides between entrants level on the winner rule.

use serde::{Deserialize, Serialize};

/// One tie-break criterion; higher values rank first.
///
/// They apply in the configured order to entrants still level; `head-to-head`
/// is computed among exactly the entrants still level at that point. When
/// every tie-break is exhausted the better (lower) seed ranks first, so a
/// ranking is always total and reproducible.
///
/// Byes in the Buchholz family and Sonneborn-Berger: a bye counts as a draw
/// against oneself (its virtual opponent has the entrant's own points), the
/// simpler of FIDE's two rules. An opponent's points are its points as
/// scored, byes included. `buchholz` itself counts byes for nothing: it
/// keeps the value stored tournaments were ranked (and so paired and
/// advanced) by.
///
/// ```
/// use capicua_tournament::TieBreak;
/// let tbs: Vec<TieBreak> =
///     serde_json::from_str(r#"["direct-encounter", "most-wins", "buchholz-cut-1", "median-buchholz"]"#).unwrap();
/// assert_eq!(tbs, [TieBreak::HeadToHead, TieBreak::Wins, TieBreak::BuchholzCut1, TieBreak::MedianBuchholz]);
/// // The names written back are the ones stored specs use.
/// assert_eq!(serde_json::to_string(&tbs).unwrap(), r#"["head-to-head","wins","buchholz-cut-1","median-buchholz"]"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Results among the tied entrants: +1 per game whose winning side holds
    /// the entrant and a tied rival sits on a losing side, -1 the other way
    /// round. FIDE's direct encounter; `direct-encounter` is accepted for it.
    #[serde(alias = "direct-encounter")]
    HeadToHead,
    /// Games won (`most-wins` is accepted for it).
    #[serde(alias = "most-wins")]
    Wins,
    /// Tournament points.
    Points,
    /// Sum over games of (own side's match score - best opposing side's match score).
    ScoreDifference,
    /// Buchholz: sum of the tournament points of every opponent met (once
    /// per meeting); a bye adds nothing.
    Buchholz,
    /// FIDE's Buchholz: every opponent met, and a virtual opponent with the
    /// entrant's own points per bye.
    FideBuchholz,
    /// FIDE's Buchholz less its lowest contribution.
    #[serde(rename = "buchholz-cut-1")]
    BuchholzCut1,
    /// FIDE's Buchholz less its highest and its lowest contributions.
    MedianBuchholz,
    /// Sonneborn-Berger, doubled to stay in integers: twice the points of
    /// every opponent beaten, plus the points of every opponent drawn (a
    /// bye: the entrant's own points, a draw against itself).
    SonnebornBerger,
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
