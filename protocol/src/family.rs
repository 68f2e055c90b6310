//! The two tile families a room may play, and how a message names its
//! family on the wire.
//!
//! The game messages (`game-started`, `prompt`, `events`, `sync` and the
//! client's `move`) are the same for both families; their game payload
//! sits beside the message's own keys, tagged by `"family": "tiles"`
//! (two-faced dominoes, [`crate::tiles`]) or `"family": "poly"` (tiles with
//! 3, 4 or 6 faces, [`crate::poly`]). A room plays one family: every such
//! message of a room carries the same tag.

use std::fmt;

use capicua_engine::Move;
use capicua_engine::poly::PolyMove;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tiles::MoveShape;

/// A game payload of one family: its keys sit beside the message's, with
/// `family` naming which.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum Family<T, P> {
    /// Two-faced dominoes.
    Tiles(T),
    /// Tiles with 3, 4 or 6 faces.
    Poly(P),
}

impl<T, P> Family<T, P> {
    /// The two-faced payload, if it is one.
    pub fn tiles(&self) -> Option<&T> {
        match self {
            Family::Tiles(t) => Some(t),
            Family::Poly(_) => None,
        }
    }

    /// The poly payload, if it is one.
    pub fn poly(&self) -> Option<&P> {
        match self {
            Family::Tiles(_) => None,
            Family::Poly(p) => Some(p),
        }
    }
}

/// A move of either family: `"family"` and `"move"` beside the `move`
/// message's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "family", content = "move", rename_all = "kebab-case")]
pub enum AnyMove {
    /// A two-faced move: one of a tiles prompt's legal moves.
    Tiles(#[schemars(with = "MoveShape")] Move),
    /// A move of tiles with 3, 4 or 6 faces: one of a poly prompt's legal
    /// moves.
    Poly(PolyMove),
}

impl From<Move> for AnyMove {
    fn from(m: Move) -> AnyMove {
        AnyMove::Tiles(m)
    }
}

impl From<PolyMove> for AnyMove {
    fn from(m: PolyMove) -> AnyMove {
        AnyMove::Poly(m)
    }
}

impl fmt::Display for AnyMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyMove::Tiles(m) => m.fmt(f),
            AnyMove::Poly(m) => m.fmt(f),
        }
    }
}
