//! Tie-breaks: what decides between entrants level on the winner rule.

use serde::{Deserialize, Serialize};

/// One tie-break criterion; higher values rank first.
///
/// Each one's definition ([`TieBreak::definition`]) and a worked example
/// are in `book/src/organising/scoring.md`, whose examples a test recomputes.
///
/// They apply in the configured order to entrants still level; `head-to-head`
/// is computed among exactly the entrants still level at that point, and not
/// again among those it leaves level (the next tie-break takes them). When
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
    /// the entrant and a tied rival sits on a losing side, -1 per game whose
    /// winning side holds a tied rival and not the entrant; draws count 0.
    /// FIDE's direct encounter; `direct-encounter` is accepted for it.
    #[serde(alias = "direct-encounter")]
    HeadToHead,
    /// Games won (`most-wins` is accepted for it).
    #[serde(alias = "most-wins")]
    Wins,
    /// Tournament points (the winner rule already compares them: this
    /// separates no one it left level).
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
    /// Every tie-break, in the order `book/src/organising/scoring.md` defines them.
    pub const ALL: [TieBreak; 11] = [
        TieBreak::HeadToHead,
        TieBreak::Wins,
        TieBreak::Points,
        TieBreak::ScoreDifference,
        TieBreak::Buchholz,
        TieBreak::FideBuchholz,
        TieBreak::BuchholzCut1,
        TieBreak::MedianBuchholz,
        TieBreak::SonnebornBerger,
        TieBreak::FewestTimeouts,
        TieBreak::Lot,
    ];

    /// The default order: head-to-head, wins, score difference, Buchholz.
    pub fn defaults() -> Vec<TieBreak> {
        vec![TieBreak::HeadToHead, TieBreak::Wins, TieBreak::ScoreDifference, TieBreak::Buchholz]
    }

    /// The name a spec writes it by (aliases aside).
    ///
    /// ```
    /// use capicua_tournament::TieBreak;
    /// assert_eq!(TieBreak::BuchholzCut1.name(), "buchholz-cut-1");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::HeadToHead => "head-to-head",
            TieBreak::Wins => "wins",
            TieBreak::Points => "points",
            TieBreak::ScoreDifference => "score-difference",
            TieBreak::Buchholz => "buchholz",
            TieBreak::FideBuchholz => "fide-buchholz",
            TieBreak::BuchholzCut1 => "buchholz-cut-1",
            TieBreak::MedianBuchholz => "median-buchholz",
            TieBreak::SonnebornBerger => "sonneborn-berger",
            TieBreak::FewestTimeouts => "fewest-timeouts",
            TieBreak::Lot => "lot",
        }
    }

    /// Its definition in one line, as `book/src/organising/scoring.md` gives it above
    /// its worked example (higher values rank first).
    pub fn definition(self) -> &'static str {
        match self {
            TieBreak::HeadToHead => {
                "Games won minus games lost against the entrants still level when this tie-break is reached, \
                 counted once among all of them and not again among those it leaves level."
            }
            TieBreak::Wins => "Games won.",
            TieBreak::Points => {
                "Tournament points; every winner rule already ranks by them, so it separates no one the winner \
                 rule left level."
            }
            TieBreak::ScoreDifference => {
                "The sum over the entrant's games of its side's match score minus the best match score among \
                 the other sides."
            }
            TieBreak::Buchholz => {
                "The sum of the points of every opponent, once per game against it; a bye adds nothing."
            }
            TieBreak::FideBuchholz => "Buchholz plus the entrant's own points once per bye (a draw against itself).",
            TieBreak::BuchholzCut1 => "FIDE Buchholz less its lowest contribution.",
            TieBreak::MedianBuchholz => "FIDE Buchholz less its highest and its lowest contributions.",
            TieBreak::SonnebornBerger => {
                "Twice the points of every opponent beaten, plus the points of every opponent drawn, plus the \
                 entrant's own points once per bye."
            }
            TieBreak::FewestTimeouts => "Minus the timeouts of the entrant's players: fewer timeouts rank first.",
            TieBreak::Lot => "Minus the entrant's place in an order drawn once from the tournament seed.",
        }
    }
}
