//! What the server plays and what it reports back: rounds, tables, results.

use serde::{Deserialize, Serialize};

/// An entrant's index in the configured entrant list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EntrantId(pub u32);

impl EntrantId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An entrant: a player, or a fixed team of two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Entrant {
    /// Its id.
    pub id: EntrantId,
    /// Its name.
    pub name: String,
    /// The players: one for individual tables, two for `fixed-pairs`.
    pub members: Vec<String>,
    /// Seed position (0 = top seed) after the optional draw.
    pub seed: u32,
}

/// One round: tables played at the same time, and who sits out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Round {
    /// Round number, from 0, across all stages.
    pub number: u32,
    /// The stage it belongs to (index into `stages`).
    pub stage: u32,
    /// Variant to play at every table of the round (preset, poly preset or file).
    pub variant: String,
    /// The tables.
    pub tables: Vec<Table>,
    /// Entrants without a table this round (odd numbers, walkovers, sit-outs).
    pub byes: Vec<EntrantId>,
}

/// One table of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Table {
    /// Index of the table in its round; a [`MatchResult`] names it.
    pub id: u32,
    /// The sides: the entrants playing together (one each, or two rotating partners).
    pub sides: Vec<Vec<EntrantId>>,
    /// Seats in the engine's seat order; partners sit opposite (seats 0 and 2, 1 and 3).
    pub seats: Vec<Seat>,
}

/// One seat at a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Seat {
    /// The player sitting there.
    pub player: String,
    /// The entrant it plays for.
    pub entrant: EntrantId,
    /// Which side of [`Table::sides`] it belongs to.
    pub side: u32,
}

/// The result of one table, as the server reports it.
///
/// ```
/// use capicua_tournament::{MatchResult, SeatResult};
/// let r = MatchResult {
///     round: 0, table: 1,
///     seats: vec![SeatResult { score: 100, ..SeatResult::default() }, SeatResult { score: 35, pips: 12, timeouts: 1 }],
///     winner: Some(0),
/// };
/// let json = serde_json::to_string(&r).unwrap();
/// assert_eq!(serde_json::from_str::<MatchResult>(&json).unwrap(), r);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MatchResult {
    /// The round ([`Round::number`]).
    pub round: u32,
    /// The table ([`Table::id`]).
    pub table: u32,
    /// One entry per seat, in the table's seat order.
    pub seats: Vec<SeatResult>,
    /// The winning side (index into [`Table::sides`]); `None` for a draw.
    /// In a knockout a draw goes to the side with the higher match score, then to the better seed.
    pub winner: Option<u32>,
}

/// What one seat did in a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SeatResult {
    /// The seat's own match score: in a team variant, the seat's share of its
    /// side's score (sides sum their seats; `winner = "best-player"` compares members by it).
    pub score: i64,
    /// Pips left in the seat's hand at the end of each hand, summed over the
    /// match (for `team-score = "opponents-pips"`).
    #[serde(default)]
    pub pips: u32,
    /// Timeouts the seat incurred.
    #[serde(default)]
    pub timeouts: u32,
}
