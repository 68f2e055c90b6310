//! The public history of a hand: who did what, as every seat saw it.
//!
//! A record names a played tile but never a drawn one, and a pass keeps the
//! open pips it proves the passer lacks. It lives apart from the game so the
//! layout ([`Board::apply`](crate::Board::apply)) can replay it without
//! depending on the referee.

use serde::{Deserialize, Serialize};

use crate::moves::EndId;
use crate::seating::Seat;
use crate::tile::Tile;

/// One entry of a hand's public history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct Record {
    /// Who acted.
    pub seat: Seat,
    /// What they did.
    pub action: Action,
}

/// A public action: a draw never names its tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "kind")]
pub enum Action {
    /// Played `tile` on `end` by `face`.
    Play {
        /// The tile.
        tile: Tile,
        /// The end ([`EndId::LEAD`] for the lead).
        end: EndId,
        /// The face that joined.
        face: u8,
    },
    /// Drew a tile from the stock.
    Draw,
    /// Passed while the open ends showed these pips (bit `p` for pip `p`):
    /// the seat holds no tile that joins them.
    Pass {
        /// Bitmask of open pips at the time.
        open_pips: u32,
    },
}
