//! Disqualification rules and the lenient referee.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// When an entrant is disqualified. Checked after every round for the
/// entrants that played in it; a disqualified entrant is never seated again
/// (its scheduled opponents get a bye) and ranks below every other.
///
/// ```
/// use capicua_tournament::{DisqualifySpec, Violation};
/// let d = DisqualifySpec { loss_percent: Some(60), min_games: 3, ..DisqualifySpec::default() };
/// assert_eq!(d.violation(2, 2, 2, 0), None); // too few games yet
/// assert_eq!(d.violation(3, 2, 2, 0), Some(Violation::LossPercent)); // 2/3 > 60 %
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DisqualifySpec {
    /// Disqualify when more than this percentage of its games are lost.
    #[serde(default)]
    pub loss_percent: Option<u32>,
    /// Games played before `loss-percent` applies. Default 1.
    #[serde(default = "one")]
    pub min_games: u32,
    /// Disqualify after this many consecutive losses.
    #[serde(default)]
    pub consecutive_losses: Option<u32>,
    /// Disqualify after more than this many timeouts.
    #[serde(default)]
    pub timeouts: Option<u32>,
}

fn one() -> u32 {
    1
}

impl Default for DisqualifySpec {
    fn default() -> DisqualifySpec {
        DisqualifySpec { loss_percent: None, min_games: 1, consecutive_losses: None, timeouts: None }
    }
}

/// Which disqualification rule an entrant broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Violation {
    /// Lost more than `loss-percent` of its games.
    LossPercent,
    /// Lost `consecutive-losses` games in a row.
    ConsecutiveLosses,
    /// More than `timeouts` timeouts.
    Timeouts,
}

impl DisqualifySpec {
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        if self.loss_percent.is_some_and(|p| p > 100) {
            return Err(ConfigError::new("disqualify.loss-percent", "a percentage, 0 to 100"));
        }
        if self.min_games == 0 {
            return Err(ConfigError::new("disqualify.min-games", "at least 1"));
        }
        if self.consecutive_losses == Some(0) {
            return Err(ConfigError::new("disqualify.consecutive-losses", "at least 1"));
        }
        Ok(())
    }

    /// The first rule broken by an entrant with these counts, if any.
    pub fn violation(&self, games: u32, losses: u32, losing_streak: u32, timeouts: u32) -> Option<Violation> {
        if let Some(p) = self.loss_percent
            && games >= self.min_games
            && u64::from(losses) * 100 > u64::from(p) * u64::from(games)
        {
            return Some(Violation::LossPercent);
        }
        if self.consecutive_losses.is_some_and(|c| losing_streak >= c) {
            return Some(Violation::ConsecutiveLosses);
        }
        if self.timeouts.is_some_and(|t| timeouts > t) {
            return Some(Violation::Timeouts);
        }
        None
    }
}

/// The lenient referee (the sources' "corrupt tournament judge"): each time
/// an entrant would be disqualified, with probability `probability` (a
/// seeded draw) it stays in with its points halved (rounded toward zero).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LenientJudgeSpec {
    /// Chance of a reprieve, 0 to 1.
    pub probability: f64,
}

impl LenientJudgeSpec {
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.probability) {
            return Err(ConfigError::new("lenient-judge.probability", "between 0 and 1"));
        }
        Ok(())
    }

    /// The probability in millionths, as the seeded draw uses it.
    pub fn per_million(&self) -> u32 {
        (self.probability * 1_000_000.0).round() as u32
    }
}
