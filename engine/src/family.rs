//! One interface for a match of either tile family: two-faced dominoes
//! ([`Game`]) and tiles with 3, 4 or 6 faces ([`PolyGame`]).
//!
//! Code that runs a match without caring about the shape of its tiles (a
//! room's table, a search that samples deals and plays them out, a test
//! that plays every preset to the end) is written once against
//! [`Family`]; what only one family has (a two-faced board's open ends, a
//! poly lattice) stays on the concrete type.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::poly::{
    PolyEvent, PolyEvents, PolyGame, PolyIllegal, PolyMove, PolyMoveList, PolyRules, PolyView, PolyViewSnapshot,
};
use crate::{
    Event, Events, Game, IllegalMove, Move, MoveList, Rules, Seat, Seating, SeatingError, Side, View, ViewSnapshot,
};

/// A match of one tile family: who is to move, the legal moves, a referee
/// that plays them, the scores and what each seat may see.
///
/// What a room's table (the server's `table.rs`, an enum of the two games)
/// asks of its game is here: dealing a match ([`Family::deal`], then
/// [`Family::keep_hand_ends`]), the seat to move, the plies and the seed,
/// playing a move as the table's referee ([`Family::referee`]), whether a
/// pass is legal ([`Family::PASS`] among [`Family::legal_moves_into`]),
/// each receiver's view and a hand's final position as data
/// ([`Family::snapshot`], [`Family::revealed_snapshot`],
/// [`Family::take_hand_end`]), and the scores and winner of the match.
/// What stays per family is what the families tell differently: the
/// protocol messages built from events and snapshots, which events a
/// receiver may see (a poly `drew` names its tile to the drawer only), and
/// the stored record of hands (a [`Game`] keeps its log and hand results,
/// a [`PolyGame`] only its totals).
///
/// Seats are [`Seat`]s and sides [`Side`]s in both families; in a poly
/// match every seat is its own side.
///
/// ```
/// use capicua_engine::poly::{PolyGame, PolyRules};
/// use capicua_engine::{Family, Game, Rules, Seating};
///
/// /// Plays the first legal move until the match is over; returns the plies.
/// fn first_moves<F: Family>(mut game: F) -> usize {
///     let mut moves = F::MoveList::default();
///     while !game.is_over() {
///         game.legal_moves_into(&mut moves);
///         game.play(moves[0]).expect("a legal move is accepted");
///     }
///     game.plies()
/// }
///
/// let tiles = Game::new(Rules::preset("block").unwrap().into(), Seating::new(2), 1).unwrap();
/// let poly = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 1).unwrap();
/// assert!(first_moves(tiles) > 0 && first_moves(poly) > 0);
/// ```
pub trait Family: Clone + fmt::Debug + Send + Sync + Sized + 'static {
    /// The checked rules a match is dealt from.
    type Rules: fmt::Debug + Send + Sync;
    /// Who sits at the table: a [`Seating`] (seats and teams) or a number
    /// of seats.
    type Seating: Clone + fmt::Debug;
    /// A move.
    type Move: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static;
    /// A reusable list of moves.
    type MoveList: Default + Clone + fmt::Debug + Deref<Target = [Self::Move]>;
    /// Something that happened in a move.
    type Event: Clone + fmt::Debug + PartialEq;
    /// The events of one move.
    type Events: Deref<Target = [Self::Event]>;
    /// Why a move was refused.
    type Illegal: std::error::Error + Clone + PartialEq;
    /// What one seat may know, borrowed from the game.
    type View<'a>: Copy
    where
        Self: 'a;
    /// What one receiver may know, owned and serializable.
    type Snapshot: Clone + fmt::Debug + PartialEq;

    /// The pass, a move in both families (legal when the rules say so).
    const PASS: Self::Move;

    /// A match for `seating`, its first hand dealt from `seed`.
    fn deal(rules: Arc<Self::Rules>, seating: Self::Seating, seed: u64) -> Result<Self, SeatingError>;

    /// Starts a new match at the same table with another seed, keeping the
    /// memory (an arena plays many).
    fn restart(&mut self, seed: u64);

    /// Seats at the table.
    fn seats(&self) -> u8;
    /// Sides that score (teams; in a poly match, the seats).
    fn sides(&self) -> u8;
    /// The side `seat` plays for.
    fn side_of(&self, seat: Seat) -> Side;
    /// The match's seed.
    fn seed(&self) -> u64;
    /// The hand being played, from 0.
    fn hand_number(&self) -> u32;
    /// Moves played in the match.
    fn plies(&self) -> usize;

    /// The seat to move; `None` once the match is over.
    fn to_move(&self) -> Option<Seat>;
    /// Whether the match is over.
    fn is_over(&self) -> bool {
        self.to_move().is_none()
    }
    /// Fills `out` with the legal moves of the seat to move (empty once the
    /// match is over; never empty before), reusing its memory.
    fn legal_moves_into(&self, out: &mut Self::MoveList);
    /// Whether `m` is legal for the seat to move.
    fn is_legal(&self, m: Self::Move) -> bool;
    /// Plays a move of the seat to move. An illegal move is refused and
    /// the match left exactly as it was.
    fn play(&mut self, m: Self::Move) -> Result<Self::Events, Self::Illegal>;
    /// Plays a move as the match's referee rules it: as [`Family::play`],
    /// except that a two-faced variant with a lenient referee may let an
    /// illegal play stand (seeded by the move's position, so a replay
    /// rules the same).
    fn referee(&mut self, m: Self::Move) -> Result<Self::Events, Self::Illegal> {
        self.play(m)
    }

    /// Match totals by side.
    fn scores(&self) -> &[i32];
    /// Each seat's share of its side's total.
    fn seat_scores(&self) -> &[i32];
    /// The winning side of a finished match; `None` while it goes on or
    /// when it ended drawn.
    fn winner(&self) -> Option<Side>;
    /// Tiles in `seat`'s hand.
    fn hand_len(&self, seat: Seat) -> usize;
    /// Tiles in the stock.
    fn stock_len(&self) -> usize;

    /// Keeps the final position of every hand for
    /// [`Family::take_hand_end`] (the next hand is dealt in the move that
    /// ends one).
    fn keep_hand_ends(&mut self, keep: bool);
    /// The final position of the hand the last move ended, once.
    fn take_hand_end(&mut self) -> Option<Box<Self>>;

    /// What `seat` may know.
    fn view(&self, seat: Seat) -> Self::View<'_>;
    /// What `seat` (`None`: a spectator) may know, as data.
    fn snapshot(&self, seat: Option<Seat>) -> Self::Snapshot;
    /// What `seat` (`None`: a spectator) sees of a hand's final position:
    /// every hand face up, nobody to move.
    fn revealed_snapshot(&self, seat: Option<Seat>) -> Self::Snapshot;
}

impl Family for Game {
    type Rules = Rules;
    type Seating = Seating;
    type Move = Move;
    type MoveList = MoveList;
    type Event = Event;
    type Events = Events;
    type Illegal = IllegalMove;
    type View<'a> = View<'a>;
    type Snapshot = ViewSnapshot;

    const PASS: Move = Move::Pass;

    fn deal(rules: Arc<Rules>, seating: Seating, seed: u64) -> Result<Game, SeatingError> {
        Game::new(rules, seating, seed)
    }
    fn restart(&mut self, seed: u64) {
        Game::restart(self, seed)
    }
    fn seats(&self) -> u8 {
        self.table().seats()
    }
    fn sides(&self) -> u8 {
        self.table().sides()
    }
    fn side_of(&self, seat: Seat) -> Side {
        self.table().side_of(seat)
    }
    fn seed(&self) -> u64 {
        Game::seed(self)
    }
    fn hand_number(&self) -> u32 {
        Game::hand_number(self)
    }
    fn plies(&self) -> usize {
        self.log().len()
    }
    #[inline]
    fn to_move(&self) -> Option<Seat> {
        Game::to_move(self)
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut MoveList) {
        self.fill_legal_moves(out)
    }
    fn is_legal(&self, m: Move) -> bool {
        Game::is_legal(self, m)
    }
    #[inline]
    fn play(&mut self, m: Move) -> Result<Events, IllegalMove> {
        Game::play(self, m)
    }
    fn referee(&mut self, m: Move) -> Result<Events, IllegalMove> {
        self.referee_play(m).map(|r| r.events().clone())
    }
    fn scores(&self) -> &[i32] {
        Game::scores(self)
    }
    fn seat_scores(&self) -> &[i32] {
        Game::seat_scores(self)
    }
    fn winner(&self) -> Option<Side> {
        self.outcome().and_then(|o| o.winner)
    }
    fn hand_len(&self, seat: Seat) -> usize {
        Game::hand_len(self, seat)
    }
    fn stock_len(&self) -> usize {
        Game::stock_len(self)
    }
    fn keep_hand_ends(&mut self, keep: bool) {
        Game::keep_hand_ends(self, keep)
    }
    fn take_hand_end(&mut self) -> Option<Box<Game>> {
        Game::take_hand_end(self)
    }
    fn view(&self, seat: Seat) -> View<'_> {
        Game::view(self, seat)
    }
    fn snapshot(&self, seat: Option<Seat>) -> ViewSnapshot {
        match seat {
            Some(s) => Game::view(self, s).snapshot(),
            None => self.spectator_view().snapshot(),
        }
    }
    fn revealed_snapshot(&self, seat: Option<Seat>) -> ViewSnapshot {
        Game::revealed_snapshot(self, seat)
    }
}

impl Family for PolyGame {
    type Rules = PolyRules;
    type Seating = u8;
    type Move = PolyMove;
    type MoveList = PolyMoveList;
    type Event = PolyEvent;
    type Events = PolyEvents;
    type Illegal = PolyIllegal;
    type View<'a> = PolyView<'a>;
    type Snapshot = PolyViewSnapshot;

    const PASS: PolyMove = PolyMove::Pass;

    fn deal(rules: Arc<PolyRules>, seats: u8, seed: u64) -> Result<PolyGame, SeatingError> {
        PolyGame::new(rules, seats, seed)
    }
    fn restart(&mut self, seed: u64) {
        PolyGame::restart(self, seed)
    }
    fn seats(&self) -> u8 {
        PolyGame::seats(self)
    }
    fn sides(&self) -> u8 {
        PolyGame::seats(self)
    }
    fn side_of(&self, seat: Seat) -> Side {
        Side(seat.0)
    }
    fn seed(&self) -> u64 {
        PolyGame::seed(self)
    }
    fn hand_number(&self) -> u32 {
        PolyGame::hand_number(self)
    }
    fn plies(&self) -> usize {
        PolyGame::plies(self)
    }
    #[inline]
    fn to_move(&self) -> Option<Seat> {
        PolyGame::to_move(self).map(Seat)
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut PolyMoveList) {
        self.legal_moves(out)
    }
    fn is_legal(&self, m: PolyMove) -> bool {
        PolyGame::is_legal(self, m)
    }
    #[inline]
    fn play(&mut self, m: PolyMove) -> Result<PolyEvents, PolyIllegal> {
        PolyGame::play(self, m)
    }
    fn scores(&self) -> &[i32] {
        PolyGame::scores(self)
    }
    fn seat_scores(&self) -> &[i32] {
        PolyGame::scores(self)
    }
    fn winner(&self) -> Option<Side> {
        self.outcome().and_then(|o| o.winner).map(Side)
    }
    fn hand_len(&self, seat: Seat) -> usize {
        self.hand(seat.0).len()
    }
    fn stock_len(&self) -> usize {
        self.stock().len()
    }
    fn keep_hand_ends(&mut self, keep: bool) {
        PolyGame::keep_hand_ends(self, keep)
    }
    fn take_hand_end(&mut self) -> Option<Box<PolyGame>> {
        PolyGame::take_hand_end(self)
    }
    fn view(&self, seat: Seat) -> PolyView<'_> {
        PolyGame::view(self, seat.0)
    }
    fn snapshot(&self, seat: Option<Seat>) -> PolyViewSnapshot {
        match seat {
            Some(s) => PolyGame::view(self, s.0).snapshot(),
            None => self.spectator_snapshot(),
        }
    }
    fn revealed_snapshot(&self, seat: Option<Seat>) -> PolyViewSnapshot {
        PolyGame::revealed_snapshot(self, seat.map(|s| s.0))
    }
}
