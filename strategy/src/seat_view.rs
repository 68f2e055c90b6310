//! What a seat knows: the one interface every strategy decides from.
//!
//! A strategy never sees a [`Game`]: it gets a `&dyn SeatView`, which
//! answers only what the seat's [`View`] answers. Three implementations
//! serve every place a bot plays:
//!
//! - [`View<'_>`]: the engine's borrowed view, for any in-process caller;
//! - [`TableSeat`]: a game and a seat, for hot loops (arena, search). It
//!   forwards to [`Game::view`] and only differs in filling the legal moves
//!   into a caller's list instead of copying a 4 KiB list by value;
//! - [`SnapshotSeat`]: the rules and an owned [`ViewSnapshot`], for remote
//!   bots that receive snapshots from the server.
//!
//! So one implementation of each strategy serves local arenas, the bots the
//! server hosts and remote clients.

use capicua_engine::{
    Action, Direction, Game, LeadRequirement, MoveList, OpenEnd, Record, Rules, Seat, Side, Table, Tile, TileSet,
    TurnOrder, View, ViewSnapshot,
};

use crate::error::BotError;

/// Everything one seat may know about the hand in progress.
pub trait SeatView {
    /// The viewer.
    fn seat(&self) -> Seat;
    /// The rules.
    fn rules(&self) -> &Rules;
    /// Number of seats.
    fn seats(&self) -> u8;
    /// The side a seat scores for.
    fn side_of(&self, s: Seat) -> Side;
    /// The seat after `s` in turn order.
    fn next_seat(&self, s: Seat) -> Seat;
    /// The viewer's hand.
    fn hand(&self) -> TileSet;
    /// A seat's hand, if the viewer may see it.
    fn hand_of(&self, s: Seat) -> Option<TileSet>;
    /// The tiles the viewer drew this hand.
    fn own_draws(&self) -> TileSet;
    /// How many tiles a seat holds.
    fn hand_len(&self, s: Seat) -> usize;
    /// Tiles in the stock.
    fn stock_len(&self) -> usize;
    /// The open ends.
    fn ends(&self) -> &[OpenEnd];
    /// The public history of this hand.
    fn history(&self) -> &[Record];
    /// The seat that led this hand.
    fn leader(&self) -> Seat;
    /// What the leader must lead, while the table is empty.
    fn lead_requirement(&self) -> Option<LeadRequirement>;
    /// Current hand number, from 0.
    fn hand_number(&self) -> u32;
    /// Match scores by side.
    fn scores(&self) -> &[i32];
    /// Points scored during play this hand, by side.
    fn play_points(&self) -> &[i32];
    /// Fills `out` with the viewer's legal moves (empty unless it is to move).
    fn legal_moves(&self, out: &mut MoveList);
    /// The per-deal value of every tile by id under the random tile-value
    /// rules (`None`: the catalog's fixed values).
    fn tile_values(&self) -> Option<&[i32]>;
    /// The tiles of a seat's hand shown to everyone (visibility `shown`),
    /// whether or not the viewer sees the whole hand.
    fn shown_of(&self, s: Seat) -> TileSet;

    /// The seat's view as data, the same snapshot a server sends it, for a
    /// strategy that decides outside Rust (the Python package hands it to a
    /// Python function). `None` where the view cannot be taken whole; the
    /// implementations here all can. Never more than the seat's own view:
    /// a table shown open ([`TableSeat::open`]) still gives the seat's.
    fn snapshot(&self) -> Option<ViewSnapshot> {
        None
    }

    /// The value of a tile in this deal: what scoring counts (the per-deal
    /// value under random tile values, else the catalog's).
    fn tile_value(&self, t: Tile) -> i32 {
        match self.tile_values() {
            Some(v) => v[t.index()],
            None => self.rules().catalog().value(t),
        }
    }
    /// The total value of a set of tiles in this deal.
    fn value_of(&self, set: TileSet) -> i32 {
        set.iter().map(|t| self.tile_value(t)).sum()
    }
    /// The tiles of `s`'s hand the viewer knows: the whole hand where it
    /// sees it ([`SeatView::hand_of`], the viewer's own included), else the
    /// shown ones.
    fn known_of(&self, s: Seat) -> TileSet {
        if s == self.seat() {
            return self.hand();
        }
        self.hand_of(s).unwrap_or_else(|| self.shown_of(s))
    }

    /// The seats of each side, by side, when seats play in teams (empty
    /// otherwise): the explicit seating that rebuilds this table.
    fn teams(&self) -> Vec<Vec<u8>> {
        let seats = (0..self.seats()).map(Seat);
        let sides = seats.clone().map(|s| self.side_of(s).0 as usize + 1).max().unwrap_or(0);
        if sides == self.seats() as usize {
            return Vec::new();
        }
        let mut teams = vec![Vec::new(); sides];
        for s in seats {
            teams[self.side_of(s).index()].push(s.0);
        }
        teams
    }
    /// Whether two seats are on the same side.
    fn partners(&self, a: Seat, b: Seat) -> bool {
        self.side_of(a) == self.side_of(b)
    }
    /// The tiles played so far this hand.
    fn played(&self) -> TileSet {
        self.history()
            .iter()
            .filter_map(|r| match r.action {
                Action::Play { tile, .. } => Some(tile),
                _ => None,
            })
            .collect()
    }
    /// The tiles whose place the viewer does not know (hidden hands, stock,
    /// out of play).
    fn unseen(&self) -> TileSet {
        let mut known = self.played();
        for s in (0..self.seats()).map(Seat) {
            known = known.or(self.known_of(s));
        }
        self.rules().catalog().all().minus(known)
    }
}

/// A spectator's view answers as seat 0 for [`SeatView::seat`] with an
/// empty hand; strategies are only ever asked to move for seated views.
impl SeatView for View<'_> {
    fn seat(&self) -> Seat {
        View::seat(self).unwrap_or(Seat(0))
    }
    fn snapshot(&self) -> Option<ViewSnapshot> {
        Some(View::snapshot(self))
    }
    fn rules(&self) -> &Rules {
        View::rules(self)
    }
    fn seats(&self) -> u8 {
        View::seats(self)
    }
    fn side_of(&self, s: Seat) -> Side {
        View::side_of(self, s)
    }
    fn next_seat(&self, s: Seat) -> Seat {
        View::next_seat(self, s)
    }
    fn hand(&self) -> TileSet {
        View::hand(self)
    }
    fn hand_of(&self, s: Seat) -> Option<TileSet> {
        View::hand_of(self, s)
    }
    fn own_draws(&self) -> TileSet {
        View::seat(self).and_then(|s| self.drawn_by(s)).unwrap_or_default()
    }
    fn hand_len(&self, s: Seat) -> usize {
        View::hand_len(self, s)
    }
    fn stock_len(&self) -> usize {
        View::stock_len(self)
    }
    fn ends(&self) -> &[OpenEnd] {
        View::ends(self)
    }
    fn history(&self) -> &[Record] {
        View::history(self)
    }
    fn leader(&self) -> Seat {
        View::leader(self)
    }
    fn lead_requirement(&self) -> Option<LeadRequirement> {
        View::lead_requirement(self)
    }
    fn hand_number(&self) -> u32 {
        View::hand_number(self)
    }
    fn scores(&self) -> &[i32] {
        View::scores(self)
    }
    fn play_points(&self) -> &[i32] {
        View::play_points(self)
    }
    fn legal_moves(&self, out: &mut MoveList) {
        View::fill_legal_moves(self, out);
    }
    fn tile_values(&self) -> Option<&[i32]> {
        View::tile_values(self)
    }
    fn shown_of(&self, s: Seat) -> TileSet {
        View::shown_of(self, s)
    }
}

/// A seat at an in-process game: the same answers as `game.view(seat)`,
/// with legal moves filled in place (the fast path for arenas and search).
#[derive(Clone, Copy)]
pub struct TableSeat<'a> {
    view: View<'a>,
    game: &'a Game,
    /// Whether every hand is shown ([`TableSeat::open`]).
    open: bool,
}

impl<'a> TableSeat<'a> {
    /// The view of `seat` at `game`.
    #[inline]
    pub fn new(game: &'a Game, seat: Seat) -> TableSeat<'a> {
        TableSeat { view: game.view(seat), game, open: false }
    }

    /// The view of `seat` with every hand face up: [`SeatView::hand_of`]
    /// answers for every seat (the stock's order stays hidden). Only for a
    /// strategy that sees every hand ([`crate::Strategy::sees_all_hands`],
    /// the `oracle`) in the operator's own arena; never for a seat in play.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating};
    /// use capicua_strategy::{SeatView, TableSeat};
    /// let game = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 1).unwrap();
    /// assert_eq!(TableSeat::new(&game, Seat(0)).hand_of(Seat(1)), None);
    /// assert_eq!(TableSeat::open(&game, Seat(0)).hand_of(Seat(1)), Some(game.hand(Seat(1))));
    /// ```
    pub fn open(game: &'a Game, seat: Seat) -> TableSeat<'a> {
        TableSeat { view: game.view(seat), game, open: true }
    }
}

impl SeatView for TableSeat<'_> {
    fn seat(&self) -> Seat {
        SeatView::seat(&self.view)
    }
    fn snapshot(&self) -> Option<ViewSnapshot> {
        Some(self.view.snapshot())
    }
    fn rules(&self) -> &Rules {
        self.game.rules()
    }
    fn seats(&self) -> u8 {
        self.view.seats()
    }
    fn side_of(&self, s: Seat) -> Side {
        self.view.side_of(s)
    }
    fn next_seat(&self, s: Seat) -> Seat {
        self.game.next_seat(s)
    }
    fn hand(&self) -> TileSet {
        self.view.hand()
    }
    fn hand_of(&self, s: Seat) -> Option<TileSet> {
        if self.open {
            return Some(self.game.hand(s));
        }
        self.view.hand_of(s)
    }
    fn own_draws(&self) -> TileSet {
        SeatView::own_draws(&self.view)
    }
    fn hand_len(&self, s: Seat) -> usize {
        self.view.hand_len(s)
    }
    fn stock_len(&self) -> usize {
        self.view.stock_len()
    }
    fn ends(&self) -> &[OpenEnd] {
        self.game.board().ends()
    }
    fn history(&self) -> &[Record] {
        self.game.history()
    }
    fn leader(&self) -> Seat {
        self.view.leader()
    }
    fn lead_requirement(&self) -> Option<LeadRequirement> {
        self.view.lead_requirement()
    }
    fn hand_number(&self) -> u32 {
        self.view.hand_number()
    }
    fn scores(&self) -> &[i32] {
        self.game.scores()
    }
    fn play_points(&self) -> &[i32] {
        self.game.play_points()
    }
    #[inline]
    fn legal_moves(&self, out: &mut MoveList) {
        self.view.fill_legal_moves(out);
    }
    fn tile_values(&self) -> Option<&[i32]> {
        self.game.tile_values()
    }
    fn shown_of(&self, s: Seat) -> TileSet {
        self.game.shown(s)
    }
}

/// A seat known only through a [`ViewSnapshot`] (a remote bot).
pub struct SnapshotSeat<'a> {
    rules: &'a Rules,
    snap: &'a ViewSnapshot,
    seat: Seat,
    table: Table,
}

impl<'a> SnapshotSeat<'a> {
    /// The seat a snapshot was taken for. Fails for a spectator's snapshot,
    /// one whose seating the rules do not allow, or one whose tile values
    /// do not cover the set.
    ///
    /// Teams are the snapshot's explicit ones, else the variant's team
    /// rule's (snapshots from before teams were sent).
    pub fn new(rules: &'a Rules, snap: &'a ViewSnapshot) -> Result<SnapshotSeat<'a>, BotError> {
        let seat = snap.seat.ok_or(BotError::Spectator)?;
        let table = snap.table(rules).map_err(|e| BotError::Snapshot(e.to_string()))?;
        if seat.0 >= table.seats() {
            return Err(BotError::Snapshot(format!("seat {} of {}", seat.0, table.seats())));
        }
        if let Some(v) = snap.values.as_ref().filter(|v| v.len() != rules.catalog().len()) {
            return Err(BotError::Snapshot(format!("{} tile values for a set of {}", v.len(), rules.catalog().len())));
        }
        Ok(SnapshotSeat { rules, snap, seat, table })
    }
}

impl SeatView for SnapshotSeat<'_> {
    fn seat(&self) -> Seat {
        self.seat
    }
    fn snapshot(&self) -> Option<ViewSnapshot> {
        Some(self.snap.clone())
    }
    fn rules(&self) -> &Rules {
        self.rules
    }
    fn seats(&self) -> u8 {
        self.table.seats()
    }
    fn side_of(&self, s: Seat) -> Side {
        self.table.side_of(s)
    }
    /// The direction of the rules in force (the snapshot's active
    /// conditions), reversed by every pass this hand under the turn order
    /// "reverse on pass" (exact unless a condition switches that order).
    fn next_seat(&self, s: Seat) -> Seat {
        let last = self.table.seats() - 1;
        let now = self.rules.when_rules(self.snap.active_conditions).map_or(self.rules, |r| &**r);
        let mut clockwise = now.variant().turn.direction == Direction::Clockwise;
        if now.variant().turn.order == TurnOrder::ReverseOnPass {
            let passes = self.snap.history.iter().filter(|r| matches!(r.action, Action::Pass { .. })).count();
            clockwise ^= passes % 2 == 1;
        }
        if clockwise {
            Seat(if s.0 == last { 0 } else { s.0 + 1 })
        } else {
            Seat(if s.0 == 0 { last } else { s.0 - 1 })
        }
    }
    fn hand(&self) -> TileSet {
        self.snap.hand.unwrap_or_default()
    }
    fn hand_of(&self, s: Seat) -> Option<TileSet> {
        self.snap.hands.get(s.index()).copied().flatten()
    }
    fn own_draws(&self) -> TileSet {
        self.snap.drawn.get(self.seat.index()).copied().flatten().unwrap_or_default()
    }
    fn hand_len(&self, s: Seat) -> usize {
        self.snap.hand_sizes.get(s.index()).map_or(0, |&n| n as usize)
    }
    fn stock_len(&self) -> usize {
        self.snap.stock
    }
    fn ends(&self) -> &[OpenEnd] {
        &self.snap.ends
    }
    fn history(&self) -> &[Record] {
        &self.snap.history
    }
    fn leader(&self) -> Seat {
        self.snap.leader
    }
    fn lead_requirement(&self) -> Option<LeadRequirement> {
        self.snap.lead_requirement
    }
    fn hand_number(&self) -> u32 {
        self.snap.hand_number
    }
    fn scores(&self) -> &[i32] {
        &self.snap.scores
    }
    fn play_points(&self) -> &[i32] {
        &self.snap.play_points
    }
    fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        out.extend(self.snap.legal_moves.iter().copied());
    }
    fn tile_values(&self) -> Option<&[i32]> {
        self.snap.values.as_deref()
    }
    fn shown_of(&self, s: Seat) -> TileSet {
        self.snap.shown.get(s.index()).copied().unwrap_or_default()
    }
}
