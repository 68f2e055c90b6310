//! Errors of the engine, one enum per failure domain.

use thiserror::Error;

use crate::moves::Move;

/// A variant that cannot be played, naming the offending field.
///
/// ```
/// use capicua_engine::preset;
/// let mut v = preset("latin").unwrap();
/// v.deal.hand_size = capicua_engine::HandSize::Fixed(8);
/// let err = v.validate().unwrap_err();
/// assert_eq!(err.field, "deal.hand-size");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{field}: {message}")]
pub struct VariantError {
    /// The dotted path of the bad field, in the file format's spelling.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl VariantError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> VariantError {
        VariantError { field: field.into(), message: message.into() }
    }
}

/// A seating that does not fit the rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SeatingError {
    /// The variant does not allow this many seats.
    #[error("{}", seat_count(*seats, *min, *max))]
    SeatCount {
        /// Seats asked for.
        seats: u8,
        /// Fewest allowed.
        min: u8,
        /// Most allowed.
        max: u8,
    },
    /// The teams are not a partition of the seats.
    #[error("{}: {reason}", teams_rule(*seats))]
    NotAPartition {
        /// Seats at the table.
        seats: u8,
        /// What is wrong.
        reason: String,
    },
    /// Two partners would move one after the other.
    #[error("seats {0} and {1} are partners but sit side by side")]
    AdjacentPartners(u8, u8),
    /// The variant's team rule cannot seat this many players.
    #[error("team rule {rule} cannot seat {seats} players")]
    TeamRule {
        /// The rule's name.
        rule: &'static str,
        /// Seats asked for.
        seats: u8,
    },
}

/// The seat count's error, as players say it.
fn seat_count(seats: u8, min: u8, max: u8) -> String {
    let players = if min == max { format!("{min} players") } else { format!("{min} to {max} players") };
    format!("this game seats {players}, not {seats}")
}

/// What teams must be, as players say it.
fn teams_rule(seats: u8) -> String {
    match seats {
        0 => "a table needs seats before it has teams".into(),
        n => format!("the teams must share out seats 0 to {}, each seat in exactly one team", n - 1),
    }
}

/// A move the engine refused; the game is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum IllegalMove {
    /// The match is over.
    #[error("the match is over")]
    MatchOver,
    /// The move is not among the legal moves of the seat to move.
    #[error("{0} is not a legal move here")]
    NotLegal(Move),
}

/// A setup (explicit deal) that is not a consistent position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The seating does not fit the rules.
    #[error(transparent)]
    Seating(#[from] SeatingError),
    /// Hands and stock do not describe disjoint tiles of the set.
    #[error("tiles: {0}")]
    Tiles(String),
    /// The leader is not a seat at the table.
    #[error("leader {0} is not at the table")]
    Leader(u8),
}
