//! Seats, teams and the sides that score.

use serde::{Deserialize, Serialize};

use crate::error::SeatingError;
use crate::variant::Teams;

/// The most seats at a table.
pub const MAX_SEATS: usize = 10;

/// A seat at the table, numbered clockwise from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat number as an index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Who scores together: a team, or a single seat when there are no teams.
/// Sides are numbered from 0; with no teams, side `i` is seat `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Side(pub u8);

impl Side {
    /// The side number as an index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// How many seats, and optionally an explicit partition into teams (which
/// overrides the variant's team rule).
///
/// ```
/// use capicua_engine::Seating;
/// let four = Seating::new(4);
/// let six_in_threes = Seating::new(6).with_teams(vec![vec![0, 3], vec![1, 4], vec![2, 5]]);
/// # let _ = (four, six_in_threes);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Seating {
    /// Seats at the table.
    pub seats: u8,
    /// Explicit teams, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<Vec<u8>>>,
}

impl Seating {
    /// `seats` seats, teamed by the variant's rule.
    pub fn new(seats: u8) -> Seating {
        Seating { seats, teams: None }
    }

    /// Sets an explicit partition into teams.
    #[must_use]
    pub fn with_teams(mut self, teams: Vec<Vec<u8>>) -> Seating {
        self.teams = Some(teams);
        self
    }
}

/// A checked table: the side of every seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    seats: u8,
    sides: u8,
    teams: bool,
    side_of: [u8; MAX_SEATS],
}

impl Table {
    /// Resolves a seating against a team rule (the seating's explicit
    /// teams, if any, override the rule).
    ///
    /// ```
    /// use capicua_engine::{Seat, Seating, Table, Teams};
    /// let t = Table::resolve(&Seating::new(4), &Teams::Pairs).unwrap();
    /// assert!(t.same_side(Seat(0), Seat(2)));
    /// assert_eq!(t.teams(), vec![vec![0, 2], vec![1, 3]]);
    /// ```
    pub fn resolve(seating: &Seating, rule: &Teams) -> Result<Table, SeatingError> {
        let n = seating.seats;
        if let Some(p) = &seating.teams {
            return Table::from_partition(n, Some(p));
        }
        // Computed rules fill the sides directly: a table is resolved for
        // every game dealt, so this path does not allocate.
        let pairs = |rule| {
            if !n.is_multiple_of(2) || n as usize > MAX_SEATS {
                return Err(SeatingError::TeamRule { rule, seats: n });
            }
            let mut side_of = [u8::MAX; MAX_SEATS];
            for (s, side) in side_of.iter_mut().enumerate().take(n as usize) {
                *side = (s % (n as usize / 2)) as u8;
            }
            Ok(Table { seats: n, sides: n / 2, teams: true, side_of })
        };
        match rule {
            Teams::None => Table::from_partition(n, None),
            Teams::Pairs => pairs("pairs"),
            Teams::PairsIfFourPlus if n >= 4 && n.is_multiple_of(2) => pairs("pairs-if-four-plus"),
            Teams::PairsIfFourPlus => Table::from_partition(n, None),
            Teams::Alternate => {
                if !n.is_multiple_of(2) {
                    return Err(SeatingError::TeamRule { rule: "alternate", seats: n });
                }
                let mut side_of = [u8::MAX; MAX_SEATS];
                for (s, side) in side_of.iter_mut().enumerate().take(n as usize) {
                    *side = (s % 2) as u8;
                }
                Ok(Table { seats: n, sides: 2, teams: true, side_of })
            }
            Teams::Fixed(p) => Table::from_partition(n, Some(p)),
        }
    }

    fn from_partition(n: u8, partition: Option<&[Vec<u8>]>) -> Result<Table, SeatingError> {
        let mut side_of = [u8::MAX; MAX_SEATS];
        let Some(teams) = partition else {
            for (s, side) in side_of.iter_mut().enumerate().take(n as usize) {
                *side = s as u8;
            }
            return Ok(Table { seats: n, sides: n, teams: false, side_of });
        };
        let bad = |reason: String| SeatingError::NotAPartition { seats: n, reason };
        if teams.len() < 2 {
            return Err(bad(format!("{} team(s); at least 2 needed", teams.len())));
        }
        for (i, team) in teams.iter().enumerate() {
            if team.is_empty() {
                return Err(bad(format!("team {i} is empty")));
            }
            for &s in team {
                if s >= n {
                    return Err(bad(format!("seat {s} does not exist")));
                }
                if side_of[s as usize] != u8::MAX {
                    return Err(bad(format!("seat {s} is in two teams")));
                }
                side_of[s as usize] = i as u8;
            }
        }
        if let Some(s) = (0..n).find(|&s| side_of[s as usize] == u8::MAX) {
            return Err(bad(format!("seat {s} has no team")));
        }
        for s in 0..n {
            let next = (s + 1) % n;
            if side_of[s as usize] == side_of[next as usize] {
                return Err(SeatingError::AdjacentPartners(s.min(next), s.max(next)));
            }
        }
        Ok(Table { seats: n, sides: teams.len() as u8, teams: true, side_of })
    }

    /// Seats at the table.
    pub fn seats(&self) -> u8 {
        self.seats
    }
    /// Number of sides (teams, or seats when there are no teams).
    pub fn sides(&self) -> u8 {
        self.sides
    }
    /// Whether seats play in teams.
    pub fn has_teams(&self) -> bool {
        self.teams
    }
    /// The side a seat scores for.
    #[inline]
    pub fn side_of(&self, s: Seat) -> Side {
        Side(self.side_of[s.index()])
    }
    /// Whether two seats score for the same side.
    #[inline]
    pub fn same_side(&self, a: Seat, b: Seat) -> bool {
        self.side_of[a.index()] == self.side_of[b.index()]
    }
    /// The seats of each side, by side (empty when seats play alone): an
    /// explicit partition that [`Table::resolve`] turns back into this table.
    pub fn teams(&self) -> Vec<Vec<u8>> {
        if !self.teams {
            return Vec::new();
        }
        (0..self.sides).map(|side| self.members(Side(side)).map(|s| s.0).collect()).collect()
    }
    /// The seats of a side.
    pub fn members(&self, side: Side) -> impl Iterator<Item = Seat> + '_ {
        (0..self.seats).map(Seat).filter(move |&s| self.side_of(s) == side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_sit_opposite() {
        let t = Table::resolve(&Seating::new(4), &Teams::Pairs).unwrap();
        assert_eq!(t.sides(), 2);
        assert!(t.same_side(Seat(0), Seat(2)));
        assert!(!t.same_side(Seat(0), Seat(1)));
        let t6 = Table::resolve(&Seating::new(6), &Teams::Pairs).unwrap();
        assert_eq!(t6.sides(), 3);
        assert!(t6.same_side(Seat(1), Seat(4)));
    }

    #[test]
    fn partners_may_not_sit_side_by_side() {
        let e = Table::resolve(&Seating::new(4).with_teams(vec![vec![0, 1], vec![2, 3]]), &Teams::None);
        assert_eq!(e, Err(SeatingError::AdjacentPartners(0, 1)));
        let wrap = Table::resolve(&Seating::new(4).with_teams(vec![vec![0, 3], vec![1, 2]]), &Teams::None);
        assert!(matches!(wrap, Err(SeatingError::AdjacentPartners(..))));
        let odd = Table::resolve(&Seating::new(5), &Teams::Alternate);
        assert!(matches!(odd, Err(SeatingError::TeamRule { .. })));
    }

    #[test]
    fn partitions_are_checked() {
        let missing = Table::resolve(&Seating::new(4).with_teams(vec![vec![0, 2], vec![1]]), &Teams::None);
        assert!(matches!(missing, Err(SeatingError::NotAPartition { .. })));
        let twice = Table::resolve(&Seating::new(4).with_teams(vec![vec![0, 2], vec![1, 3, 0]]), &Teams::None);
        assert!(matches!(twice, Err(SeatingError::NotAPartition { .. })));
    }
}
