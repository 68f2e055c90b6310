//! What one seat may know of a poly game.

use serde::{Deserialize, Serialize};

use super::board::{BoardKind, PlacedTile, PolyBoard};
use super::game::{PolyGame, PolyMoveList};
use super::tile::{PolyTile, PolyTileId};
use super::variant::PolyRules;
use crate::error::SetupError;

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

    /// The hand being played (or last played), from 0.
    pub fn hand_number(&self) -> u32 {
        self.game.hand_number()
    }

    /// The rules (public).
    pub fn rules(&self) -> &'a PolyRules {
        self.game.rules()
    }

    /// Tiles the seat to move has drawn this turn (public: draws are seen,
    /// the tiles drawn are not).
    pub fn drawn_this_turn(&self) -> u32 {
        self.game.drawn_this_turn()
    }

    /// The tiles this seat has not seen, by id: in no place it can see
    /// (its hand, the board). The other hands and the stock hold exactly
    /// these. Fills `out`, keeping its memory.
    pub fn unseen(&self, out: &mut Vec<PolyTileId>) {
        let len = self.game.rules().set().len();
        let mut seen = vec![false; len];
        for &t in self.hand().iter().chain(self.board().placed().iter().map(|p| &p.tile)) {
            seen[t.0 as usize] = true;
        }
        out.clear();
        out.extend((0..len as u16).map(PolyTileId).filter(|t| !seen[t.0 as usize]));
    }

    /// A game this seat could be in: the public state (board, scores, turn,
    /// draws this turn, hand sizes, stock size) with the hidden parts as
    /// the caller imagines them: `hands[s]` for every seat (the viewer's
    /// own hand, in any order, at its own index), `stock` (top last), and
    /// `seed` for the deals of later hands. What a search samples and plays
    /// out; the real hands, stock and seed are never copied into it.
    ///
    /// Refused, naming only public facts or the caller's own input, unless
    /// every hand and the stock have their public sizes and they hold the
    /// [`unseen`](PolyView::unseen) tiles exactly once between them.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyRules};
    /// let game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 5).unwrap();
    /// let view = game.view(0);
    /// let mut unseen = Vec::new();
    /// view.unseen(&mut unseen);
    /// unseen.reverse(); // any order: the caller's guess
    /// let theirs = unseen.split_off(unseen.len() - 9);
    /// let imagined = view.imagine(vec![view.hand().to_vec(), theirs.clone()], unseen.clone(), 99).unwrap();
    /// assert_eq!(imagined.hand(1), &theirs[..]);
    /// assert_eq!(imagined.view(0).hand(), view.hand());
    /// assert!(view.imagine(vec![view.hand().to_vec(), theirs], Vec::new(), 99).is_err());
    /// ```
    pub fn imagine(
        &self,
        hands: Vec<Vec<PolyTileId>>,
        stock: Vec<PolyTileId>,
        seed: u64,
    ) -> Result<PolyGame, SetupError> {
        let g = self.game;
        let seats = g.seats() as usize;
        if self.seat as usize >= seats {
            return Err(SetupError::Tiles(format!("seat {} is not at the table", self.seat)));
        }
        if hands.len() != seats {
            return Err(SetupError::Tiles(format!("{} hands for {seats} seats", hands.len())));
        }
        for (s, hand) in hands.iter().enumerate() {
            let public = g.hand(s as u8).len();
            if hand.len() != public {
                return Err(SetupError::Tiles(format!("seat {s} holds {public} tiles, not {}", hand.len())));
            }
        }
        if stock.len() != g.stock().len() {
            return Err(SetupError::Tiles(format!("the stock holds {} tiles, not {}", g.stock().len(), stock.len())));
        }
        let mut own = hands[self.seat as usize].clone();
        let mut real = self.hand().to_vec();
        own.sort_unstable();
        real.sort_unstable();
        if own != real {
            return Err(SetupError::Tiles(format!("hand {} is not the viewer's own hand", self.seat)));
        }
        let len = g.rules().set().len();
        let mut seen = vec![false; len];
        let placed = g.board().placed().iter().map(|p| p.tile);
        for t in placed.chain(hands.iter().flatten().copied()).chain(stock.iter().copied()) {
            match seen.get_mut(t.0 as usize) {
                None => return Err(SetupError::Tiles(format!("#{} is not in a set of {len}", t.0))),
                Some(true) => return Err(SetupError::Tiles(format!("#{} is placed or dealt twice", t.0))),
                Some(slot) => *slot = true,
            }
        }
        let mut imagined = g.clone();
        imagined.keep_hand_ends(false);
        imagined.replace_hidden(hands, stock, seed);
        Ok(imagined)
    }

    /// A serializable copy, for sending to the seat.
    pub fn snapshot(&self) -> PolyViewSnapshot {
        self.game.snapshot_for(Some(self.seat))
    }
}

impl PolyGame {
    /// What a spectator sees: the board, hand sizes, stock size and scores,
    /// no tile of any hand.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyRules};
    /// let game = PolyGame::new(PolyRules::preset("quadominoes").unwrap(), 3, 4).unwrap();
    /// let snap = game.spectator_snapshot();
    /// assert_eq!(snap.seat, None);
    /// assert!(snap.hand.is_empty());
    /// assert_eq!(snap.hand_sizes, game.view(0).snapshot().hand_sizes);
    /// ```
    pub fn spectator_snapshot(&self) -> PolyViewSnapshot {
        self.snapshot_for(None)
    }

    /// What `seat` (`None`: a spectator) sees of a hand's final position
    /// (from [`PolyGame::take_hand_end`]): its view with every seat's hand
    /// face up, and nobody to move.
    pub fn revealed_snapshot(&self, seat: Option<u8>) -> PolyViewSnapshot {
        let set = self.rules().set();
        let mut snap = self.snapshot_for(seat);
        snap.hands = (0..self.seats()).map(|s| self.hand(s).iter().map(|&id| (id, set.tile(id))).collect()).collect();
        snap.to_move = None;
        snap
    }

    fn snapshot_for(&self, seat: Option<u8>) -> PolyViewSnapshot {
        let set = self.rules().set();
        let hand = match seat {
            Some(s) => self.hand(s).iter().map(|&id| (id, set.tile(id))).collect(),
            None => Vec::new(),
        };
        PolyViewSnapshot {
            seat,
            variant: self.rules().variant().name.clone(),
            board_kind: self.board().kind(),
            hand,
            hands: Vec::new(),
            board: self.board().placed().to_vec(),
            hand_sizes: (0..self.seats()).map(|s| self.hand(s).len() as u16).collect(),
            stock: self.stock().len() as u16,
            scores: self.scores().to_vec(),
            to_move: self.to_move(),
            hand_number: self.hand_number(),
            drawn: self.drawn_this_turn(),
            passes: self.passes_in_a_row(),
        }
    }
}

/// A seat's view as data: its own hand with pips, the board with
/// positions, hand sizes, stock size and scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct PolyViewSnapshot {
    /// The viewing seat; absent for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// The variant's name.
    pub variant: String,
    /// The table's shape (for drawing the positions).
    pub board_kind: BoardKind,
    /// Its hand: ids and pips (empty for a spectator).
    pub hand: Vec<(PolyTileId, PolyTile)>,
    /// Every seat's hand, by seat: only in the final position of a hand
    /// (when the hands are turned face up), empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hands: Vec<Vec<(PolyTileId, PolyTile)>>,
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
    /// Tiles the seat to move has drawn this turn (a draw limit counts them).
    pub drawn: u32,
    /// Passes in a row since the last play or draw (the hand is blocked
    /// when every seat has passed).
    pub passes: u8,
}
