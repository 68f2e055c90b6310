//! The referee of a poly game: deals, legal moves, play, scoring.

use std::fmt;
use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use super::board::{PolyBoard, PolySpot};
use super::tile::{PolyTile, PolyTileId};
use super::variant::{
    MAX_POLY_HANDS, MAX_POLY_SEATS, PolyMatchTarget, PolyOpening, PolyPlayPoints, PolyRules, PolyScoring,
};
use crate::error::{SeatingError, SetupError};
use crate::rng::SeededRng;

/// The ChaCha stream of hand `hand`'s deal (distinct from every stream of
/// the two-faced engine).
fn deal_stream(hand: u32) -> u64 {
    (8 << 60) | hand as u64
}

/// How good an opening tile is: tiles with every number equal first, then
/// by sum, then by id.
fn opener_rank(tile: PolyTile, id: PolyTileId) -> (bool, i32, PolyTileId) {
    (tile.period() == 1, tile.value(), id)
}

/// A move: small and `Copy`.
///
/// ```
/// use capicua_engine::poly::{PolyMove, PolySpot, PolyTileId};
/// let m = PolyMove::Play { tile: PolyTileId(3), at: PolySpot::Cell { x: -1, y: 2 }, rotation: 1 };
/// assert_eq!(m.to_string(), "play #3 at (-1, 2) turned 1");
/// assert!(std::mem::size_of::<PolyMove>() <= 12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "kind")]
pub enum PolyMove {
    /// Put `tile` at `at`: on a graph board joined by its face `rotation`,
    /// on a lattice turned clockwise by `rotation` (see
    /// [`PlacedTile`](super::PlacedTile)).
    Play {
        /// The tile, from the mover's hand.
        tile: PolyTileId,
        /// Where.
        at: PolySpot,
        /// Graph: the tile's joining face; lattice: its rotation.
        rotation: u8,
    },
    /// Take a tile from the stock (only when no tile fits).
    Draw,
    /// Pass (only when no tile fits and no draw is allowed).
    Pass,
}

impl fmt::Display for PolyMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PolyMove::Play { tile, at, rotation } => {
                write!(f, "play #{}", tile.0)?;
                match at {
                    PolySpot::Root => write!(f, " first"),
                    PolySpot::Face { node, face } => write!(f, " on node {node} face {face} by face {rotation}"),
                    PolySpot::Cell { x, y } => write!(f, " at ({x}, {y}) turned {rotation}"),
                }
            }
            PolyMove::Draw => write!(f, "draw"),
            PolyMove::Pass => write!(f, "pass"),
        }
    }
}

/// The legal moves of a position, in a caller-owned buffer: fill it again
/// and again with [`PolyGame::legal_moves`]; once it has grown to the
/// game's largest position it never allocates again.
#[derive(Clone, Debug, Default)]
pub struct PolyMoveList(Vec<PolyMove>);

impl PolyMoveList {
    /// An empty list with room for `capacity` moves.
    pub fn with_capacity(capacity: usize) -> PolyMoveList {
        PolyMoveList(Vec::with_capacity(capacity))
    }

    /// The moves.
    pub fn as_slice(&self) -> &[PolyMove] {
        &self.0
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (never after [`PolyGame::legal_moves`] while
    /// the match is on).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Its current capacity.
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }
}

impl std::ops::Deref for PolyMoveList {
    type Target = [PolyMove];
    fn deref(&self) -> &[PolyMove] {
        &self.0
    }
}

/// A move the game refused; the game is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolyIllegal {
    /// The match is over.
    #[error("the match is over")]
    MatchOver,
    /// The move is not legal for the seat to move.
    #[error("{0} is not a legal move here")]
    NotLegal(PolyMove),
}

/// Something that happened at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "event")]
pub enum PolyEvent {
    /// A seat played a tile.
    Played {
        /// Who.
        seat: u8,
        /// The move's tile.
        tile: PolyTileId,
        /// Where.
        at: PolySpot,
        /// Its face or rotation.
        rotation: u8,
        /// Points it scored (play points).
        points: i32,
    },
    /// A seat drew a tile. The game names the tile; what a seat is told
    /// goes through [`PolyEvent::seen_by`], which names it to the drawer only.
    Drew {
        /// Who.
        seat: u8,
        /// The tile, `None` where the receiver may not see it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tile: Option<PolyTileId>,
    },
    /// A seat passed.
    Passed {
        /// Who.
        seat: u8,
    },
    /// A hand ended.
    HandEnded {
        /// Its number, from 0.
        hand: u32,
        /// The seat that went out or was lightest when blocked; `None` for
        /// a blocked tie.
        winner: Option<u8>,
        /// Whether nobody could move.
        blocked: bool,
        /// Points scored as the hand ended, by seat (play points came with
        /// each `Played`).
        points: [i32; MAX_POLY_SEATS as usize],
    },
    /// The match ended.
    MatchEnded {
        /// The seat with the best total; `None` on a tie.
        winner: Option<u8>,
    },
}

impl PolyEvent {
    /// The event as `viewer` may see it (`None`: a spectator): a drawn
    /// tile is named to the seat that drew it and to nobody else; every
    /// other event is public.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyEvent, PolyTileId};
    /// let drew = PolyEvent::Drew { seat: 1, tile: Some(PolyTileId(7)) };
    /// assert_eq!(drew.seen_by(Some(1)), drew);
    /// assert_eq!(drew.seen_by(Some(0)), PolyEvent::Drew { seat: 1, tile: None });
    /// assert_eq!(drew.seen_by(None), PolyEvent::Drew { seat: 1, tile: None });
    /// ```
    pub fn seen_by(self, viewer: Option<u8>) -> PolyEvent {
        match self {
            PolyEvent::Drew { seat, .. } if viewer != Some(seat) => PolyEvent::Drew { seat, tile: None },
            e => e,
        }
    }
}

/// The events of one move.
pub type PolyEvents = ArrayVec<PolyEvent, 4>;

/// How a match ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct PolyOutcome {
    /// The seat with the best total (highest, or lowest with own-pips
    /// scoring); `None` on a tie.
    pub winner: Option<u8>,
    /// Final totals by seat.
    pub scores: Vec<i32>,
    /// Hands played.
    pub hands: u32,
}

/// A game of 3-, 4- or 6-faced tiles: a match of hands, deterministic from
/// its rules, seat count and seed.
///
/// ```
/// use capicua_engine::poly::{PolyGame, PolyMoveList, PolyRules};
/// let mut g = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 3, 7).unwrap();
/// let mut moves = PolyMoveList::default();
/// while g.to_move().is_some() {
///     g.legal_moves(&mut moves);
///     g.play(moves[0]).expect("a legal move is accepted");
/// }
/// assert!(g.outcome().unwrap().scores.iter().any(|&s| s >= 400));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyGame {
    rules: Arc<PolyRules>,
    seats: u8,
    seed: u64,
    hand_no: u32,
    hands: Vec<Vec<PolyTileId>>,
    stock: Vec<PolyTileId>,
    board: PolyBoard,
    to_move: Option<u8>,
    /// Tiles drawn by the seat to move this turn.
    drawn: u32,
    /// Passes in a row with no play or draw between them.
    idle: u8,
    scores: Vec<i32>,
    outcome: Option<PolyOutcome>,
    /// Moves played in the match.
    plies: usize,
    /// Keep each hand's final position ([`PolyGame::keep_hand_ends`]).
    keep_hand_end: bool,
    /// The final position of the hand the last move ended, until taken.
    hand_end: Option<Box<PolyGame>>,
}

impl PolyGame {
    /// A match for `seats` seats, its first hand dealt from `seed`.
    pub fn new(rules: impl Into<Arc<PolyRules>>, seats: u8, seed: u64) -> Result<PolyGame, SeatingError> {
        let rules = rules.into();
        let range = rules.seat_range();
        if !range.contains(&seats) {
            return Err(SeatingError::SeatCount { seats, min: *range.start(), max: *range.end() });
        }
        let board = PolyBoard::with_matching(rules.variant().board, rules.variant().matching);
        let mut g = PolyGame {
            rules,
            seats,
            seed,
            hand_no: 0,
            plies: 0,
            hands: vec![Vec::new(); seats as usize],
            stock: Vec::new(),
            board,
            to_move: None,
            drawn: 0,
            idle: 0,
            scores: vec![0; seats as usize],
            outcome: None,
            keep_hand_end: false,
            hand_end: None,
        };
        g.deal();
        Ok(g)
    }

    /// A match whose first hand is dealt as given (a puzzle, a test, a real
    /// deal typed in): `hands[s]` is seat `s`'s hand, `stock` the stock (top
    /// last) and `leader` moves first; later hands are dealt from `seed`.
    /// Hands and stock must hold every tile of the set exactly once.
    pub fn from_deal(
        rules: impl Into<Arc<PolyRules>>,
        seed: u64,
        hands: Vec<Vec<PolyTileId>>,
        stock: Vec<PolyTileId>,
        leader: u8,
    ) -> Result<PolyGame, SetupError> {
        let seats = u8::try_from(hands.len()).unwrap_or(u8::MAX);
        let mut g = PolyGame::new(rules, seats, seed)?;
        let len = g.rules.set().len();
        let mut seen = vec![false; len];
        for &t in hands.iter().flatten().chain(&stock) {
            match seen.get_mut(t.0 as usize) {
                None => return Err(SetupError::Tiles(format!("#{} is not in a set of {len}", t.0))),
                Some(true) => return Err(SetupError::Tiles(format!("#{} is dealt twice", t.0))),
                Some(slot) => *slot = true,
            }
        }
        if let Some(missing) = seen.iter().position(|&b| !b) {
            return Err(SetupError::Tiles(format!("#{missing} is in no hand and not in the stock")));
        }
        if leader >= seats {
            return Err(SetupError::Leader(leader));
        }
        g.hands = hands;
        g.stock = stock;
        g.to_move = Some(leader);
        Ok(g)
    }

    /// Starts a new match with another seed, keeping the memory.
    pub fn restart(&mut self, seed: u64) {
        self.seed = seed;
        self.hand_no = 0;
        self.plies = 0;
        self.scores.iter_mut().for_each(|s| *s = 0);
        self.outcome = None;
        self.hand_end = None;
        self.deal();
    }

    fn deal(&mut self) {
        let set = self.rules.set();
        let mut ids: Vec<PolyTileId> = std::mem::take(&mut self.stock);
        ids.clear();
        ids.extend((0..set.len() as u16).map(PolyTileId));
        SeededRng::new(self.seed, deal_stream(self.hand_no)).shuffle(&mut ids);
        let size = self.rules.hand_size(self.seats).expect("validated for every seat count") as usize;
        for (s, hand) in self.hands.iter_mut().enumerate() {
            hand.clear();
            hand.extend_from_slice(&ids[s * size..(s + 1) * size]);
        }
        ids.drain(..size * self.seats as usize);
        self.stock = ids;
        self.board.clear();
        self.to_move = Some(match self.rules.variant().opening {
            PolyOpening::Rotate => (self.hand_no % self.seats as u32) as u8,
            PolyOpening::HighestTriple => {
                (0..self.seats).max_by_key(|&s| self.opener(s).map(|t| opener_rank(set.tile(t), t))).unwrap_or(0)
            }
        });
        self.drawn = 0;
        self.idle = 0;
    }

    /// Keeps the final position of every hand (the board with its last
    /// tile, every seat's remaining tiles) for [`PolyGame::take_hand_end`]:
    /// the next hand is dealt in the same move that ends one, so this is
    /// the only way to see how a hand ended. Off by default (it clones the
    /// game at each hand's end).
    pub fn keep_hand_ends(&mut self, keep: bool) {
        self.keep_hand_end = keep;
        if !keep {
            self.hand_end = None;
        }
    }

    /// The final position of the hand the last move ended (scores counted,
    /// next hand not dealt), once; `None` if the last move ended no hand
    /// or [`PolyGame::keep_hand_ends`] is off.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyMoveList, PolyRules};
    /// let mut g = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 3, 7).unwrap();
    /// g.keep_hand_ends(true);
    /// let mut moves = PolyMoveList::default();
    /// let end = loop {
    ///     g.legal_moves(&mut moves);
    ///     g.play(moves[0]).unwrap();
    ///     if let Some(end) = g.take_hand_end() { break end; }
    /// };
    /// assert_eq!(end.hand_number(), 0);
    /// assert_eq!(g.hand_number(), 1);
    /// assert!(end.board().placed().len() > g.board().placed().len());
    /// ```
    pub fn take_hand_end(&mut self) -> Option<Box<PolyGame>> {
        self.hand_end.take()
    }

    /// The rules.
    pub fn rules(&self) -> &PolyRules {
        &self.rules
    }

    /// The seat count.
    pub fn seats(&self) -> u8 {
        self.seats
    }

    /// The match seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hand being played (or last played), from 0.
    pub fn hand_number(&self) -> u32 {
        self.hand_no
    }

    /// The seat to move; `None` once the match is over.
    pub fn to_move(&self) -> Option<u8> {
        self.to_move
    }

    /// A seat's hand (the referee's knowledge: send seats their
    /// [`view`](PolyGame::view)). An unknown seat has an empty hand.
    pub fn hand(&self, seat: u8) -> &[PolyTileId] {
        self.hands.get(seat as usize).map_or(&[], Vec::as_slice)
    }

    /// The stock, top last (the referee's knowledge).
    pub fn stock(&self) -> &[PolyTileId] {
        &self.stock
    }

    /// The table.
    pub fn board(&self) -> &PolyBoard {
        &self.board
    }

    /// Moves played in the match.
    pub fn plies(&self) -> usize {
        self.plies
    }

    /// Match totals by seat.
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// How the match ended, once it has.
    pub fn outcome(&self) -> Option<&PolyOutcome> {
        self.outcome.as_ref()
    }

    /// Replaces what only the referee knows: every hand, the stock and the
    /// seed of later deals (see [`PolyView::imagine`](super::PolyView::imagine),
    /// which checks them).
    pub(super) fn replace_hidden(&mut self, hands: Vec<Vec<PolyTileId>>, stock: Vec<PolyTileId>, seed: u64) {
        self.hands = hands;
        self.stock = stock;
        self.seed = seed;
    }

    /// Sets everything public and hidden at once, for
    /// [`PolyGame::from_snapshot`] (which checks that the parts agree).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn set_state(
        &mut self,
        board: PolyBoard,
        hands: Vec<Vec<PolyTileId>>,
        stock: Vec<PolyTileId>,
        scores: Vec<i32>,
        hand_no: u32,
        to_move: Option<u8>,
        drawn: u32,
        passes: u8,
        outcome: Option<PolyOutcome>,
    ) {
        self.board = board;
        self.hands = hands;
        self.stock = stock;
        self.scores = scores;
        self.hand_no = hand_no;
        self.to_move = to_move;
        self.drawn = drawn;
        self.idle = passes;
        self.outcome = outcome;
    }

    /// Tiles the seat to move has drawn this turn.
    pub fn drawn_this_turn(&self) -> u32 {
        self.drawn
    }

    /// Passes in a row with no play or draw between them: the hand ends
    /// blocked when it reaches the number of seats.
    pub fn passes_in_a_row(&self) -> u8 {
        self.idle
    }

    /// Fills `out` with the legal moves of the seat to move (empty once the
    /// match is over): every distinct placement of every tile in its hand,
    /// else a draw if the rules allow one, else a pass. Reuses `out`'s
    /// memory.
    pub fn legal_moves(&self, out: &mut PolyMoveList) {
        out.0.clear();
        let Some(seat) = self.to_move else { return };
        let set = self.rules.set();
        let opener = self.required_opener(seat);
        for &id in &self.hands[seat as usize] {
            if opener.is_some_and(|o| o != id) {
                continue;
            }
            self.board.placements(set.tile(id), set.period(id), |at, rotation| {
                out.0.push(PolyMove::Play { tile: id, at, rotation });
                true
            });
        }
        if out.0.is_empty() {
            out.0.push(if self.may_draw() { PolyMove::Draw } else { PolyMove::Pass });
        }
    }

    /// Whether the seat to move holds a tile that fits somewhere.
    pub fn can_play(&self) -> bool {
        let Some(seat) = self.to_move else { return false };
        let set = self.rules.set();
        self.hands[seat as usize].iter().any(|&id| !self.board.placements(set.tile(id), set.period(id), |_, _| false))
    }

    fn may_draw(&self) -> bool {
        !self.stock.is_empty() && self.drawn < self.rules.variant().stuck.draw_limit()
    }

    /// Whether `m` is legal for the seat to move (the test
    /// [`PolyGame::play`] makes).
    pub fn is_legal(&self, m: PolyMove) -> bool {
        let Some(seat) = self.to_move else { return false };
        match m {
            PolyMove::Play { tile, at, rotation } => {
                let set = self.rules.set();
                set.get(tile).is_some()
                    && self.hands[seat as usize].contains(&tile)
                    && self.required_opener(seat).is_none_or(|o| o == tile)
                    && self.board.allows(set.tile(tile), set.period(tile), at, rotation)
            }
            PolyMove::Draw => self.may_draw() && !self.can_play(),
            PolyMove::Pass => !self.may_draw() && !self.can_play(),
        }
    }

    /// Plays a move of the seat to move. An illegal move is refused and the
    /// game left exactly as it was.
    pub fn play(&mut self, m: PolyMove) -> Result<PolyEvents, PolyIllegal> {
        let Some(seat) = self.to_move else { return Err(PolyIllegal::MatchOver) };
        if !self.is_legal(m) {
            return Err(PolyIllegal::NotLegal(m));
        }
        let mut events = PolyEvents::new();
        let s = seat as usize;
        self.plies += 1;
        match m {
            PolyMove::Play { tile, at, rotation } => {
                let hand = &mut self.hands[s];
                let i = hand.iter().position(|&t| t == tile).expect("checked legal");
                hand.remove(i);
                let pips = self.rules.set().tile(tile);
                let points = self.placement_points(pips, at);
                self.board.place(tile, pips, at, rotation);
                self.scores[s] = self.scores[s].saturating_add(points);
                events.push(PolyEvent::Played { seat, tile, at, rotation, points });
                self.idle = 0;
                if self.hands[s].is_empty() {
                    self.end_hand(Some(seat), false, &mut events);
                } else {
                    self.next_turn(seat);
                }
            }
            PolyMove::Draw => {
                let tile = self.stock.pop().expect("checked legal");
                self.hands[s].push(tile);
                self.drawn += 1;
                self.idle = 0;
                let penalty = self.rules.variant().bonuses.draw_penalty as i32;
                self.scores[s] = self.scores[s].saturating_sub(penalty);
                events.push(PolyEvent::Drew { seat, tile: Some(tile) });
            }
            PolyMove::Pass => {
                events.push(PolyEvent::Passed { seat });
                self.idle += 1;
                let penalty = self.rules.variant().bonuses.pass_penalty as i32;
                self.scores[s] = self.scores[s].saturating_sub(penalty);
                if self.idle >= self.seats {
                    let pips: ArrayVec<i32, { MAX_POLY_SEATS as usize }> =
                        (0..self.seats).map(|s| self.pips_in_hand(s)).collect();
                    let least = pips.iter().copied().min().unwrap_or(0);
                    let mut lightest = (0..self.seats).filter(|&s| pips[s as usize] == least);
                    let winner = match (lightest.next(), lightest.next()) {
                        (Some(w), None) => Some(w),
                        _ => None,
                    };
                    self.end_hand(winner, true, &mut events);
                } else {
                    self.next_turn(seat);
                }
            }
        }
        Ok(events)
    }

    /// The best opening tile in a seat's hand: its highest tile with every
    /// number equal, else its tile of the highest sum (ties: the highest).
    fn opener(&self, seat: u8) -> Option<PolyTileId> {
        let set = self.rules.set();
        self.hands[seat as usize].iter().copied().max_by_key(|&t| opener_rank(set.tile(t), t))
    }

    /// The tile the seat must open with, when the board is empty and the
    /// rules name the opening tile.
    fn required_opener(&self, seat: u8) -> Option<PolyTileId> {
        match self.rules.variant().opening {
            PolyOpening::HighestTriple if self.board.is_empty() => self.opener(seat),
            _ => None,
        }
    }

    /// What placing `pips` at `at` scores, before it is placed: play
    /// points, the opening bonus and the corner bonuses.
    fn placement_points(&self, pips: PolyTile, at: PolySpot) -> i32 {
        let v = self.rules.variant();
        let b = v.bonuses;
        let mut points = match v.play_points {
            PolyPlayPoints::None => 0,
            PolyPlayPoints::TilePips => pips.value(),
        };
        if self.board.is_empty() {
            if pips.period() == 1 {
                points += b.opening as i32;
                if pips.face(0) == 0 {
                    points += b.zero_triple as i32;
                }
            }
        } else if let PolySpot::Cell { x, y } = at {
            let contact = self.board.corner_contact(x, y);
            if contact.bridge {
                points += b.bridge as i32;
            }
            if contact.rings > 0 {
                points += b.ring[contact.rings.min(3) - 1] as i32;
            }
        }
        points
    }

    fn next_turn(&mut self, seat: u8) {
        self.to_move = Some((seat + 1) % self.seats);
        self.drawn = 0;
    }

    /// The pips left in a seat's hand.
    pub fn pips_in_hand(&self, seat: u8) -> i32 {
        let set = self.rules.set();
        self.hand(seat).iter().map(|&t| set.tile(t).value()).sum()
    }

    fn end_hand(&mut self, winner: Option<u8>, blocked: bool, events: &mut PolyEvents) {
        let mut points = [0i32; MAX_POLY_SEATS as usize];
        match self.rules.variant().scoring {
            PolyScoring::Opponents => {
                if let Some(w) = winner {
                    let b = self.rules.variant().bonuses;
                    let others: i32 = (0..self.seats).filter(|&s| s != w).map(|s| self.pips_in_hand(s)).sum();
                    points[w as usize] = match blocked {
                        false => others + b.going_out as i32,
                        true if b.blocked_minus_own => others - self.pips_in_hand(w),
                        true => others,
                    };
                }
            }
            PolyScoring::OwnPips => {
                for s in 0..self.seats {
                    points[s as usize] = self.pips_in_hand(s);
                }
            }
        }
        for (total, p) in self.scores.iter_mut().zip(points) {
            *total = total.saturating_add(p);
        }
        events.push(PolyEvent::HandEnded { hand: self.hand_no, winner, blocked, points });
        if self.keep_hand_end {
            self.hand_end = None;
            let mut end = Box::new(self.clone());
            end.keep_hand_end = false;
            end.to_move = None;
            self.hand_end = Some(end);
        }
        let played = self.hand_no + 1;
        let over = match self.rules.variant().target {
            PolyMatchTarget::Points { points } => {
                played >= MAX_POLY_HANDS || self.scores.iter().any(|&s| s >= points.min(i32::MAX as u32) as i32)
            }
            PolyMatchTarget::Hands(n) => played >= n,
        } || self.plies >= crate::MAX_MOVES_PER_MATCH;
        if over {
            let best = match self.rules.variant().scoring {
                PolyScoring::Opponents => self.scores.iter().copied().max(),
                PolyScoring::OwnPips => self.scores.iter().copied().min(),
            }
            .unwrap_or(0);
            let mut top = (0..self.seats).filter(|&s| self.scores[s as usize] == best);
            let winner = match (top.next(), top.next()) {
                (Some(w), None) => Some(w),
                _ => None,
            };
            events.push(PolyEvent::MatchEnded { winner });
            self.outcome = Some(PolyOutcome { winner, scores: self.scores.clone(), hands: played });
            self.to_move = None;
        } else {
            self.hand_no = played;
            self.deal();
        }
    }
}
