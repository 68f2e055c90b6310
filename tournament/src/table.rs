//! The shape of a table: how many seats, how many entrants, which sides.
//!
//! Its own file because the scoring rules and the formats need the table's
//! shape as much as the tournament description that names it.

use serde::{Deserialize, Serialize};

/// Who sits at a table.
///
/// | kind | seats | entrants per table | sides |
/// |---|---|---|---|
/// | `duel` | 2 | 2 players | 2 |
/// | `free-for-all` | 4 | 4 players | 4 (each for itself) |
/// | `fixed-pairs` | 4 | 2 teams | 2 (partners opposite) |
/// | `rotating-partners` | 4 | 4 players | 2 pairs, partners change every round |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableKind {
    /// One against one.
    Duel,
    /// Four players, each for itself.
    FreeForAll,
    /// Two fixed teams of two.
    FixedPairs,
    /// Four individual entrants as two pairs; partners and opponents rotate
    /// between rounds (as bridge movements do).
    RotatingPartners,
}

impl TableKind {
    /// Seats at one table.
    pub fn seats(self) -> usize {
        match self {
            TableKind::Duel => 2,
            _ => 4,
        }
    }

    /// Entrants at one table.
    pub fn entrants_per_table(self) -> usize {
        match self {
            TableKind::Duel | TableKind::FixedPairs => 2,
            TableKind::FreeForAll | TableKind::RotatingPartners => 4,
        }
    }

    /// Whether an entrant is a team of two players.
    pub fn team_entrants(self) -> bool {
        self == TableKind::FixedPairs
    }

    /// Whether every table holds exactly two entrants (needed by knockouts).
    pub fn head_to_head(self) -> bool {
        self.entrants_per_table() == 2
    }
}
