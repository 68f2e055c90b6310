//! How a game turns into tournament points, and who leads the standings.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::table::TableKind;
use crate::tiebreak::TieBreak;

/// Tournament scoring: the points a game is worth, and the order of the
/// standings. `book/src/organising/scoring.md` defines each rule and tie-break with a
/// worked example that its test recomputes.
///
/// ```
/// use capicua_tournament::{PointsRule, ScoringSpec};
/// let s: ScoringSpec = serde_json::from_str(
///     r#"{ "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } }, "tie-breaks": ["wins", "lot"] }"#,
/// ).unwrap();
/// assert_eq!(s.points, PointsRule::PerResult { win: 3, draw: 1, loss: 0 });
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScoringSpec {
    /// Points an entrant earns from one game: `match-score` (default, its
    /// side's match score), `wins` (1 a win) or `per-result` (fixed points
    /// per win, draw and loss). Knockout games count like any other.
    #[serde(default)]
    pub points: PointsRule,
    /// A side's match score: `members` (default, the sum of its seats'
    /// scores) or `opponents-pips` (the pips left in the other sides' hands).
    #[serde(default)]
    pub team_score: TeamScore,
    /// The first ranking criterion, before tie-breaks: `most-points`
    /// (default), `most-wins` (then points) or `best-player` (then points;
    /// `fixed-pairs` only).
    #[serde(default)]
    pub winner: WinnerRule,
    /// Tie-breaks, applied in order; ties left after all of them go to the better seed.
    /// Higher values rank first ([`TieBreak::definition`] gives these lines):
    ///
    /// - `head-to-head` (or `direct-encounter`): Games won minus games lost
    ///   against the entrants still level when this tie-break is reached,
    ///   counted once among all of them and not again among those it leaves level.
    /// - `wins` (or `most-wins`): Games won.
    /// - `points`: Tournament points; every winner rule already ranks by them,
    ///   so it separates no one the winner rule left level.
    /// - `score-difference`: The sum over the entrant's games of its side's
    ///   match score minus the best match score among the other sides.
    /// - `buchholz`: The sum of the points of every opponent, once per game
    ///   against it; a bye adds nothing.
    /// - `fide-buchholz`: Buchholz plus the entrant's own points once per bye
    ///   (a draw against itself).
    /// - `buchholz-cut-1`: FIDE Buchholz less its lowest contribution.
    /// - `median-buchholz`: FIDE Buchholz less its highest and its lowest contributions.
    /// - `sonneborn-berger`: Twice the points of every opponent beaten, plus the
    ///   points of every opponent drawn, plus the entrant's own points once per bye.
    /// - `fewest-timeouts`: Minus the timeouts of the entrant's players: fewer
    ///   timeouts rank first.
    /// - `lot`: Minus the entrant's place in an order drawn once from the tournament seed.
    ///
    /// Default: `head-to-head`, `wins`, `score-difference`, `buchholz`.
    #[serde(default = "TieBreak::defaults")]
    pub tie_breaks: Vec<TieBreak>,
    /// What a bye (or walkover) is worth: `nothing` (default), or the points
    /// of a `win` or a `draw` (nothing under `match-score`).
    #[serde(default)]
    pub bye: ByeRule,
}

impl Default for ScoringSpec {
    fn default() -> ScoringSpec {
        ScoringSpec {
            points: PointsRule::default(),
            team_score: TeamScore::default(),
            winner: WinnerRule::default(),
            tie_breaks: TieBreak::defaults(),
            bye: ByeRule::default(),
        }
    }
}

/// Points an entrant earns from one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PointsRule {
    /// The sum of its match scores (its side's score, see [`TeamScore`]).
    #[default]
    MatchScore,
    /// One point per game won.
    Wins,
    /// Fixed points per result (e.g. 3 / 1 / 0).
    PerResult {
        /// Points for a win.
        win: i64,
        /// Points for a draw (no winner).
        draw: i64,
        /// Points for a loss.
        loss: i64,
    },
}

/// How a side's match score is counted (the sources' team scoring).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TeamScore {
    /// The sum of the scores of the side's seats.
    #[default]
    Members,
    /// The pips left in the opponents' hands (the classic partnership count).
    OpponentsPips,
}

/// The first ranking criterion (the sources' "winner of the tournament").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WinnerRule {
    /// Most tournament points.
    #[default]
    MostPoints,
    /// Most games won, then most points.
    MostWins,
    /// The team whose best player scored most (sum of that player's seat
    /// scores), then most points. Only for `fixed-pairs`.
    BestPlayer,
}

/// What a bye or walkover is worth in tournament points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ByeRule {
    /// Nothing.
    #[default]
    Nothing,
    /// The points of a win (under `per-result`; one point under `wins`; nothing under `match-score`).
    Win,
    /// The points of a draw (under `per-result`; nothing otherwise).
    Draw,
}

/// The result of one game for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The side won.
    Win,
    /// Nobody won.
    Draw,
    /// Another side won.
    Loss,
}

impl ScoringSpec {
    pub(crate) fn check(&self, table: TableKind) -> Result<(), ConfigError> {
        if self.winner == WinnerRule::BestPlayer && table != TableKind::FixedPairs {
            return Err(ConfigError::new("scoring.winner", "best-player ranks teams: use it with fixed-pairs"));
        }
        for (i, t) in self.tie_breaks.iter().enumerate() {
            if self.tie_breaks[..i].contains(t) {
                return Err(ConfigError::new(format!("scoring.tie-breaks[{i}]"), format!("{t:?} is listed twice")));
            }
        }
        Ok(())
    }

    /// Tournament points for one game: `outcome` of the entrant's side and that side's match `score`.
    ///
    /// ```
    /// use capicua_tournament::{Outcome, PointsRule, ScoringSpec};
    /// let mut s = ScoringSpec::default();
    /// assert_eq!(s.game_points(Outcome::Loss, 37), 37);
    /// s.points = PointsRule::PerResult { win: 3, draw: 1, loss: 0 };
    /// assert_eq!(s.game_points(Outcome::Draw, 37), 1);
    /// ```
    pub fn game_points(&self, outcome: Outcome, score: i64) -> i64 {
        match self.points {
            PointsRule::MatchScore => score,
            PointsRule::Wins => i64::from(outcome == Outcome::Win),
            PointsRule::PerResult { win, draw, loss } => match outcome {
                Outcome::Win => win,
                Outcome::Draw => draw,
                Outcome::Loss => loss,
            },
        }
    }

    /// Tournament points for a bye.
    pub fn bye_points(&self) -> i64 {
        match (self.bye, self.points) {
            (ByeRule::Nothing, _) | (_, PointsRule::MatchScore) => 0,
            (ByeRule::Win, _) => self.game_points(Outcome::Win, 0),
            (ByeRule::Draw, _) => self.game_points(Outcome::Draw, 0),
        }
    }

    /// Match score of side `side`, from every seat's `(side, score, pips)`.
    ///
    /// ```
    /// use capicua_tournament::{ScoringSpec, TeamScore};
    /// let seats = [(0, 10, 0), (1, 0, 7), (0, 5, 3), (1, 0, 9)];
    /// let mut s = ScoringSpec::default();
    /// assert_eq!(s.side_score(0, &seats), 15);
    /// s.team_score = TeamScore::OpponentsPips;
    /// assert_eq!(s.side_score(0, &seats), 16);
    /// ```
    pub fn side_score(&self, side: usize, seats: &[(usize, i64, u32)]) -> i64 {
        match self.team_score {
            TeamScore::Members => seats.iter().filter(|s| s.0 == side).map(|s| s.1).sum(),
            TeamScore::OpponentsPips => seats.iter().filter(|s| s.0 != side).map(|s| i64::from(s.2)).sum(),
        }
    }
}
