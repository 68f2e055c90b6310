//! When a tournament ends before its stages run out.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// Early stop conditions, checked after every complete round (a round
/// always finishes, so every entrant plays the same number of rounds).
/// Without any, the tournament ends when its last stage does.
///
/// - `rounds`: after this many rounds.
/// - `games`: once this many games (tables) have been played, counted at
///   the end of a round: the round that reaches the count finishes, so a
///   tournament may play up to a round's tables more than `games`.
/// - `points`: when an entrant has this many tournament points. With
///   `winners = X`, when X entrants have; exactly X are named even when
///   more reach the target in the same round (the standings order decides).
/// - `winners` alone: when at most X entrants remain in contention (neither
///   eliminated nor disqualified); those are the winners. It also sets how
///   many entrants [`Tournament::winners`](crate::Tournament::winners) names at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StopSpec {
    /// Stop after this many rounds.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// Stop once this many games have been played.
    #[serde(default)]
    pub games: Option<u32>,
    /// Stop when an entrant (or `winners` entrants) reaches this many points.
    #[serde(default)]
    pub points: Option<i64>,
    /// How many winners the tournament decides.
    #[serde(default)]
    pub winners: Option<u32>,
}

/// Why a tournament ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The last stage ran out of rounds (or too few entrants remained to play).
    Completed,
    /// `stop.rounds` was reached.
    Rounds,
    /// `stop.games` was reached.
    Games,
    /// `stop.points` was reached by enough entrants.
    Points,
    /// Only `stop.winners` entrants remain in contention.
    Winners,
}

impl StopSpec {
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        if self.rounds == Some(0) {
            return Err(ConfigError::new("stop.rounds", "at least 1"));
        }
        if self.games == Some(0) {
            return Err(ConfigError::new("stop.games", "at least 1"));
        }
        if self.winners == Some(0) {
            return Err(ConfigError::new("stop.winners", "at least 1"));
        }
        Ok(())
    }

    /// Checks the rules that depend on the number of entrants: a target
    /// that every entrant already holds at the start (`points` of zero or
    /// below), more winners than entrants, or, without `points`, as many
    /// winners as entrants (the tournament would end after its first round).
    pub(crate) fn check_for(&self, entrants: usize) -> Result<(), ConfigError> {
        if let Some(p) = self.points
            && p <= 0
        {
            return Err(ConfigError::new("stop.points", format!("{p}: at least 1 (everyone starts with 0 points)")));
        }
        if let Some(w) = self.winners {
            let w = w as usize;
            if w > entrants {
                return Err(ConfigError::new("stop.winners", format!("{w} winners of {entrants} entrants")));
            }
            if w == entrants && self.points.is_none() {
                return Err(ConfigError::new(
                    "stop.winners",
                    format!(
                        "{w} winners of {entrants} entrants: it stops once at most {w} remain in contention, \
                         which all of them are after the first round"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The stop reason, if any, after `rounds` rounds and `games` games, given
    /// every contender's points.
    ///
    /// ```
    /// use capicua_tournament::{StopReason, StopSpec};
    /// let stop = StopSpec { points: Some(100), winners: Some(2), ..StopSpec::default() };
    /// assert_eq!(stop.reached(3, 9, &[120, 80, 40]), None);
    /// assert_eq!(stop.reached(4, 12, &[130, 100, 50]), Some(StopReason::Points));
    /// ```
    pub fn reached(&self, rounds: u32, games: u32, contenders: &[i64]) -> Option<StopReason> {
        if let Some(target) = self.points {
            let needed = self.winners.unwrap_or(1) as usize;
            if contenders.iter().filter(|&&p| p >= target).count() >= needed {
                return Some(StopReason::Points);
            }
        } else if let Some(w) = self.winners
            && contenders.len() <= w as usize
        {
            return Some(StopReason::Winners);
        }
        if self.rounds.is_some_and(|r| rounds >= r) {
            return Some(StopReason::Rounds);
        }
        if self.games.is_some_and(|g| games >= g) {
            return Some(StopReason::Games);
        }
        None
    }
}
