//! What one seat may know of a poly game.

use serde::{Deserialize, Serialize};

use super::board::{BoardKind, PlacedTile, PolyBoard};
use super::game::{PolyGame, PolyMoveList};
use super::tile::{PolyTile, PolyTileId};

/// A seat's view: its own hand and the public state, nothing else.
#[derive(Clone, Copy, Debug)]
pub struct PolyView<'a> {
    game: &'a PolyGame,
    seat: u8,
}

impl PolyGame {
    /// What `seat` may know (a seat beyond the table sees an empty hand).
    pub fn view(&self, seat: u8) -> PolyView<'_> {
        PolyView { game: self, seat }
    }
}

impl<'a> PolyView<'a> {
    /// The viewing seat.
    pub fn seat(&self) -> u8 {
        self.seat
    }

    /// Its hand.
    pub fn hand(&self) -> &'a [PolyTileId] {
        self.game.hand(self.seat)
    }

    /// The table (public).
    pub fn board(&self) -> &'a PolyBoard {
        self.game.board()
    }

    /// The pips of a tile of the set (`None` for an id beyond it).
    pub fn tile(&self, id: PolyTileId) -> Option<PolyTile> {
        self.game.rules().set().get(id)
    }

    /// How many tiles each seat holds.
    pub fn hand_sizes(&self) -> impl Iterator<Item = usize> + 'a {
        let g = self.game;
        (0..g.seats()).map(move |s| g.hand(s).len())
    }

    /// Tiles left in the stock.
    pub fn stock_len(&self) -> usize {
        self.game.stock().len()
    }

    /// Match totals by seat.
    pub fn scores(&self) -> &'a [i32] {
        self.game.scores()
    }

    /// The seat to move.
    pub fn to_move(&self) -> Option<u8> {
        self.game.to_move()
    }

    /// Its legal moves when it is to move (else `out` is left empty).
    pub fn legal_moves(&self, out: &mut PolyMoveList) {
        if self.game.to_move() == Some(self.seat) {
            self.game.legal_moves(out);
        } else {
            out.clear();
        }
    }

    /// A serializable copy, for sending to the seat.
    pub fn snapshot(&self) -> PolyViewSnapshot {
        let g = self.game;
        PolyViewSnapshot {
            seat: self.seat,
            variant: g.rules().variant().name.clone(),
            board_kind: g.board().kind(),
            hand: self.hand().iter().map(|&id| (id, g.rules().set().tile(id))).collect(),
            board: g.board().placed().to_vec(),
            hand_sizes: self.hand_sizes().map(|n| n as u16).collect(),
            stock: self.stock_len() as u16,
            scores: g.scores().to_vec(),
            to_move: g.to_move(),
            hand_number: g.hand_number(),
        }
    }
}

/// A seat's view as data: its own hand with pips, the board with
/// positions, hand sizes, stock size and scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct PolyViewSnapshot {
    /// The viewing seat.
    pub seat: u8,
    /// The variant's name.
    pub variant: String,
    /// The table's shape (for drawing the positions).
    pub board_kind: BoardKind,
    /// Its hand: ids and pips.
    pub hand: Vec<(PolyTileId, PolyTile)>,
    /// Placed tiles by node id, with positions.
    pub board: Vec<PlacedTile>,
    /// Tiles held by each seat.
    pub hand_sizes: Vec<u16>,
    /// Tiles left in the stock.
    pub stock: u16,
    /// Match totals.
    pub scores: Vec<i32>,
    /// The seat to move, if the match is on.
    pub to_move: Option<u8>,
    /// The hand being played, from 0.
    pub hand_number: u32,
}
