//! Moves and the non-allocating list of legal moves.

use std::fmt;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::tile::Tile;

/// The most legal moves a position can have. [`Variant::validate`]
/// rejects variants whose worst case could exceed it.
///
/// [`Variant::validate`]: crate::Variant::validate
pub const MAX_MOVES: usize = 1024;

/// An open end of the layout, by its stable index in
/// [`Board::ends`](crate::Board::ends). Ends are only ever added, so an id
/// keeps naming the same place for the whole hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct EndId(pub u8);

impl EndId {
    /// The end of a lead: the first tile of a hand goes on the empty table.
    pub const LEAD: EndId = EndId(u8::MAX);
}

/// A move: small and `Copy`.
///
/// ```
/// use capicua_engine::{EndId, Move, Tile};
/// let m = Move::Play { tile: Tile::domino(6, 6), end: EndId::LEAD, face: 0 };
/// assert_eq!(m.to_string(), "play [6|6] lead");
/// assert_eq!(std::mem::size_of::<Move>(), 4);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "kind")]
pub enum Move {
    /// Join `tile` to open end `end` by its face number `face` (0: the low
    /// face joins and the high face becomes the new end; 1: the reverse). For a
    /// lead, `end` is [`EndId::LEAD`] and `face` is 0.
    Play {
        /// The tile played.
        tile: Tile,
        /// Where.
        end: EndId,
        /// Which face touches the end.
        face: u8,
    },
    /// Take the next tile of the stock (only the drawer learns which).
    Draw,
    /// Pass the turn.
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Play { tile, end: EndId::LEAD, .. } => write!(f, "play {tile} lead"),
            Move::Play { tile, end, face } => write!(f, "play {tile} on end {} face {face}", end.0),
            Move::Draw => f.write_str("draw"),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The legal moves of a position: a fixed-capacity list on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
