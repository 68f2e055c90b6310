//! A match in progress: the referee.
//!
//! A [`Game`] is a whole match: hands are dealt from the seed one after the
//! other until the target is reached. Its state changes only through
//! [`Game::play`], which either applies a legal move or returns an
//! [`IllegalMove`] and leaves everything as it was. The seed and the move
//! log replay the match exactly ([`Game::replay`]).
//!
//! The state and the move loop live here; the rest of the referee is split
//! by concern into child modules, each adding to `impl Game`: dealing and
//! leading (`deal`), move generation (`movegen`), scoring and the end of
//! hands and matches (`scoring`), ranking (`ranking`), per-deal extras
//! (`dealt`), conditional rules (`conditions`) and the lenient referee
//! (`referee`). The children read the state defined here; this module
//! imports from none of them but `events` and `ext`, which are plain data,
//! so no two modules import each other.

use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::error::{IllegalMove, SeatingError};
use crate::history::{Action, Record};
use crate::moves::{EndId, Move};
use crate::rules::Rules;
use crate::seating::{MAX_SEATS, Seat, Seating, Table};
use crate::tile::{MAX_TILES, Tile, TileSet};
use crate::variant::{
    BoardLayout, Direction, DoubleCover, PlayScoring, RankBy, Referee, TrainsSpec, TurnOrder, WhenUnable,
};

mod choices;
mod conditions;
pub(crate) mod deal;
mod dealt;
pub(crate) mod events;
mod ext;
mod movegen;
mod ranking;
pub(crate) mod referee;
mod scoring;

use events::{Event, Events, HandEnd, HandResult, Outcome};
use ext::Ext;
use scoring::append;

/// A safety net for targets that may never be reached (an exact target
/// always overshot, scores that stay tied): after this many hands the match
/// ends and the highest score wins (a shared top score is a draw).
pub const MAX_HANDS_PER_MATCH: u32 = 500;

/// The other safety net, on a match's length in moves: the hand being
/// played when a match reaches this many moves is its last, the highest
/// score winning (a shared top score is a draw). Every preset's matches end
/// far sooner (a 13-hand Mexican Train at ten seats plays a few thousand
/// moves); a custom variant of a big set and many hands (double-eighteen,
/// all tiles dealt, 500 hands: hundreds of thousands of moves) would
/// otherwise hold a room, and every replay or review of it, for that long.
/// A hand itself is bounded (each tile is drawn once and played once, and a
/// round of passes blocks it), so a match is too.
pub const MAX_MOVES_PER_MATCH: usize = 10_000;

/// What the leader must lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LeadRequirement {
    /// Any tile.
    Any,
    /// Any double.
    AnyDouble,
    /// This tile.
    Tile(Tile),
}

/// A replay that failed: the move at `index` was illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {index}: {error}")]
pub struct ReplayError {
    /// Position of the offending move in the log.
    pub index: usize,
    /// Why it was refused.
    pub error: IllegalMove,
}

/// A match in progress.
///
/// ```
/// use capicua_engine::{Game, Rules, Seating};
/// let rules = Rules::preset("latin").unwrap();
/// let mut game = Game::new(rules.into(), Seating::new(4), 42).unwrap();
/// // Play the first legal move until the first hand ends.
/// while game.hand_results().is_empty() {
///     let m = game.legal_moves()[0];
///     game.play(m).unwrap();
/// }
/// let replay = Game::replay(game.rules().clone().into(), Seating::new(4), 42, game.log()).unwrap();
/// assert_eq!(replay.scores(), game.scores());
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    /// The rules in force: `base`, or while conditional rules hold, their
    /// compiled combination.
    rules: Arc<Rules>,
    /// The rules the game was created with.
    base: Arc<Rules>,
    /// State of the rarely used rules (conditions, end rules, per-deal tile
    /// values, shown tiles, the lenient referee); `None` for classic games.
    ext: Option<Box<Ext>>,
    table: Table,
    seating: Seating,
    seed: u64,
    // Match state.
    hand_no: u32,
    scores: [i32; MAX_SEATS],
    /// Each seat's share of its side's score: what the points it earned
    /// (its plays, the hands it won, its own pips under penalty scoring,
    /// minus its referee penalties) add up to. The sides' scores are the
    /// sums of their seats', so a partnership's members can be told apart.
    seat_scores: [i32; MAX_SEATS],
    multiplier: i32,
    results: Vec<HandResult>,
    log: Vec<Move>,
    outcome: Option<Outcome>,
    // Hand state.
    hands: [TileSet; MAX_SEATS],
    drawn_by: [TileSet; MAX_SEATS],
    stock: ArrayVec<Tile, MAX_TILES>,
    out_of_play: TileSet,
    board: Board,
    to_move: Seat,
    leader: Seat,
    lead_req: LeadRequirement,
    drawn_this_turn: u8,
    last_player: Option<Seat>,
    play_points: [i32; MAX_SEATS],
    history: Vec<Record>,
    hot: Hot,
    /// Every tile in some hand: with the board's open-end mask it answers
    /// "can anybody still play?" in one AND after each move.
    in_hands: TileSet,
    /// The direction of play is reversed (turn order "reverse on pass").
    reversed: bool,
    /// Turns taken this hand (moves other than draws).
    turns: u32,
    /// Keep each hand's final position ([`Game::keep_hand_ends`]).
    keep_hand_end: bool,
    /// The final position of the hand the last move ended, until taken.
    hand_end: Option<Box<Game>>,
}

/// Rule choices read on every move, copied out of the rules once so the hot
/// path neither follows the `Arc` nor matches rule enums each time.
#[derive(Clone, Copy, Debug)]
struct Hot {
    /// 64-bit words of a tile set this catalog uses: the bitset loops are
    /// compiled once per word count and dispatched on this.
    words: u8,
    /// The catalog fits 32 bits: moves are generated by the packed
    /// generator (`movegen::push_plays_narrow`).
    narrow: bool,
    /// A narrow catalog whose ends are open to every seat (no longana arms
    /// or private trains): plays and passes are checked by the packed
    /// tables alone while no double or toe waits to be covered.
    narrow_free: bool,
    last_seat: u8,
    clockwise: bool,
    /// Longana arms are closed to all but their owner until opened.
    restricted: bool,
    /// The seat that lays a double on a train covers it first
    /// ([`DoubleCover::Player`]).
    cover_own_double: bool,
    /// Seats may draw at all (a stock and a drawing policy).
    draws: bool,
    keep: u8,
    /// Most tiles drawn in one turn; 0 for "until playable".
    draw_limit: u8,
    must_play_drawn: bool,
    /// A seat that can play may also have a draw or a pass among its
    /// moves (`may_pass`, or draws without `must_play_drawn`): when not,
    /// move generation skips both questions.
    extra_moves: bool,
    play_scoring: bool,
    order: TurnOrder,
    may_pass: bool,
    /// The turn cap, `u32::MAX` for none (so one comparison tests it).
    max_turns: u32,
    /// `following[s]`: the seat after `s` in the variant's direction of
    /// play (the fixed turn order's next seat, looked up).
    following: [Seat; MAX_SEATS],
    /// Some rule must look at each move (conditional rules, end rules).
    watch: bool,
    /// The variant has conditional rules.
    conditional: bool,
    /// Hands are counted the classic way (fixed tile values, no penalty).
    plain_count: bool,
    /// A ranking rule other than the standard one decides blocked hands.
    ranked: bool,
}

impl Hot {
    fn new(rules: &Rules, seats: u8) -> Hot {
        let v = rules.variant();
        Hot {
            watch: !v.when.is_empty() || !v.end.is_empty(),
            conditional: !v.when.is_empty(),
            plain_count: !v.tiles.value.is_random() && v.ranking.never_played == 1,
            ranked: v.ranking.by != RankBy::Standard,
            words: rules.catalog().words() as u8,
            narrow: rules.catalog().len() <= 32,
            narrow_free: rules.catalog().len() <= 32 && !rules.restricted_arms(),
            last_seat: seats - 1,
            clockwise: v.turn.direction == Direction::Clockwise,
            restricted: rules.restricted_arms(),
            cover_own_double: matches!(
                v.board,
                BoardLayout::Trains(TrainsSpec { satisfy_doubles: true, cover: DoubleCover::Player, .. })
            ),
            draws: rules.draws(),
            keep: v.stuck.keep.for_seats(seats),
            draw_limit: match v.stuck.when_unable {
                WhenUnable::DrawUpTo(k) => k,
                WhenUnable::Pass | WhenUnable::DrawUntilPlayable => 0,
            },
            must_play_drawn: v.stuck.must_play_drawn,
            extra_moves: v.stuck.may_pass || (rules.draws() && !v.stuck.must_play_drawn),
            play_scoring: v.scoring.during_play != PlayScoring::None,
            order: v.turn.order,
            may_pass: v.stuck.may_pass,
            max_turns: if v.turn.max_turns == 0 { u32::MAX } else { v.turn.max_turns },
            following: std::array::from_fn(|s| {
                let (s, last) = (s as u8, seats - 1);
                match v.turn.direction {
                    Direction::Clockwise => Seat(if s >= last { 0 } else { s + 1 }),
                    Direction::CounterClockwise => Seat(if s == 0 || s > last { last } else { s - 1 }),
                }
            }),
        }
    }
}

impl Game {
    /// Deals the first hand of a match.
    pub fn new(rules: Arc<Rules>, seating: Seating, seed: u64) -> Result<Game, SeatingError> {
        let mut g = Game::empty(rules, seating, seed)?;
        g.start_hand();
        Ok(g)
    }

    fn empty(rules: Arc<Rules>, seating: Seating, seed: u64) -> Result<Game, SeatingError> {
        let v = rules.variant();
        let n = seating.seats;
        if !rules.seat_range().contains(&n) {
            return Err(SeatingError::SeatCount { seats: n, min: v.players.min, max: v.players.max });
        }
        let table = Table::resolve(&seating, &v.players.teams)?;
        let board = Board::new(v.board);
        let ext = Ext::needed(&rules).then(|| Box::new(Ext::new(&rules)));
        Ok(Game {
            base: rules.clone(),
            ext,
            table,
            seating,
            seed,
            hand_no: 0,
            scores: [0; MAX_SEATS],
            seat_scores: [0; MAX_SEATS],
            multiplier: 1,
            results: Vec::new(),
            log: Vec::with_capacity(64),
            outcome: None,
            hands: [TileSet::EMPTY; MAX_SEATS],
            drawn_by: [TileSet::EMPTY; MAX_SEATS],
            stock: ArrayVec::new(),
            out_of_play: TileSet::EMPTY,
            board,
            to_move: Seat(0),
            leader: Seat(0),
            lead_req: LeadRequirement::Any,
            drawn_this_turn: 0,
            last_player: None,
            play_points: [0; MAX_SEATS],
            history: Vec::with_capacity(48),
            hot: Hot::new(&rules, n),
            in_hands: TileSet::EMPTY,
            reversed: false,
            turns: 0,
            keep_hand_end: false,
            hand_end: None,
            rules,
        })
    }

    /// Starts a new match at this table with another seed, reusing the
    /// game's memory: what arenas and benchmarks call between games.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating};
    /// let rules = std::sync::Arc::new(Rules::preset("latin").unwrap());
    /// let mut g = Game::new(rules.clone(), Seating::new(4), 1).unwrap();
    /// g.play(g.legal_moves()[0]).unwrap();
    /// g.restart(2);
    /// let fresh = Game::new(rules, Seating::new(4), 2).unwrap();
    /// assert_eq!(g.hand(capicua_engine::Seat(0)), fresh.hand(capicua_engine::Seat(0)));
    /// assert!(g.log().is_empty());
    /// ```
    pub fn restart(&mut self, seed: u64) {
        self.seed = seed;
        self.hand_no = 0;
        self.scores = [0; MAX_SEATS];
        self.seat_scores = [0; MAX_SEATS];
        self.multiplier = 1;
        self.results.clear();
        self.log.clear();
        self.outcome = None;
        self.hand_end = None;
        self.leader = Seat(0);
        if let Some(ext) = &mut self.ext {
            ext.lenient.clear();
        }
        self.start_hand();
    }

    /// Keeps the final position of every hand (the board with its last
    /// tile, every seat's remaining tiles, the hand's result) for
    /// [`Game::take_hand_end`]: the next hand is dealt in the same move that
    /// ends one, so this is the only way to see how a hand ended. Off by
    /// default: it clones the game at each hand's end.
    pub fn keep_hand_ends(&mut self, keep: bool) {
        self.keep_hand_end = keep;
        if !keep {
            self.hand_end = None;
        }
    }

    /// The final position of the hand the last move ended (its result
    /// recorded, the next hand not dealt), once; `None` if the last move
    /// ended no hand or [`Game::keep_hand_ends`] is off. Its
    /// [`Game::revealed_snapshot`]s are what the table sees.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating};
    /// let mut g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 42).unwrap();
    /// g.keep_hand_ends(true);
    /// let end = loop {
    ///     g.play(g.legal_moves()[0]).unwrap();
    ///     if let Some(end) = g.take_hand_end() { break end; }
    /// };
    /// assert_eq!(end.hand_number(), 0);
    /// assert_eq!(end.hand_results().len(), 1);
    /// assert_eq!(end.revealed_snapshot(None).to_move, None);
    /// assert_eq!(g.hand_number(), 1);
    /// assert!(g.history().is_empty() || g.history().len() < end.history().len());
    /// ```
    pub fn take_hand_end(&mut self) -> Option<Box<Game>> {
        self.hand_end.take()
    }

    /// Records the final position of the hand just ended, when asked to.
    pub(crate) fn keep_final_position(&mut self) {
        if self.keep_hand_end {
            self.hand_end = None;
            let mut end = Box::new(self.clone());
            end.keep_hand_end = false;
            self.hand_end = Some(end);
        }
    }

    /// Replays a match from its seed and move log.
    pub fn replay(rules: Arc<Rules>, seating: Seating, seed: u64, moves: &[Move]) -> Result<Game, ReplayError> {
        let mut g =
            Game::new(rules, seating, seed).map_err(|_| ReplayError { index: 0, error: IllegalMove::MatchOver })?;
        let lenient = matches!(g.base.variant().referee, Referee::Lenient(_));
        for (index, &m) in moves.iter().enumerate() {
            // A lenient referee's coin is seeded by the move's position, so
            // an accepted illegal play is accepted again.
            let played = if lenient { g.referee_play(m).map(|_| ()) } else { g.play(m).map(|_| ()) };
            played.map_err(|error| ReplayError { index, error })?;
        }
        Ok(g)
    }

    // ----- accessors -----

    /// The rules the game was created with.
    // The field `rules` holds the rules in force now ([`Game::rules_now`]).
    #[allow(clippy::misnamed_getters)]
    pub fn rules(&self) -> &Rules {
        &self.base
    }
    /// The shared rules (cheap to clone into another game).
    pub fn rules_arc(&self) -> &Arc<Rules> {
        &self.base
    }
    /// The rules in force now: [`Game::rules`] unless conditional rules
    /// (`when`) hold, then their combination (public: it follows from the
    /// public state).
    pub fn rules_now(&self) -> &Rules {
        &self.rules
    }
    /// The seating the game was created with.
    pub fn seating(&self) -> &Seating {
        &self.seating
    }
    /// Seats, teams and sides.
    pub fn table(&self) -> &Table {
        &self.table
    }
    /// The match seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The seat to move, or `None` once the match is over.
    pub fn to_move(&self) -> Option<Seat> {
        self.outcome.is_none().then_some(self.to_move)
    }
    /// The current hand number, from 0.
    pub fn hand_number(&self) -> u32 {
        self.hand_no
    }
    /// The seat that led the current hand.
    pub fn leader(&self) -> Seat {
        self.leader
    }
    /// What the leader must lead while the table is empty.
    pub fn lead_requirement_now(&self) -> LeadRequirement {
        self.lead_req
    }
    /// Match scores by side.
    pub fn scores(&self) -> &[i32] {
        &self.scores[..self.table.sides() as usize]
    }
    /// Match scores by seat: each seat's share of its side's score (see
    /// the field); a side's seats sum to its [`Game::scores`] entry, except
    /// for scores a game set up from a position started with (they belong
    /// to no seat).
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating};
    /// let rules = std::sync::Arc::new(Rules::preset("latin").unwrap());
    /// let mut g = Game::new(rules, Seating::new(4), 7).unwrap();
    /// while g.outcome().is_none() {
    ///     g.play(g.legal_moves()[0]).unwrap();
    /// }
    /// let seats = g.seat_scores();
    /// assert_eq!(seats[0] + seats[2], g.scores()[0]);
    /// assert_eq!(seats[1] + seats[3], g.scores()[1]);
    /// ```
    pub fn seat_scores(&self) -> &[i32] {
        &self.seat_scores[..self.table.seats() as usize]
    }
    /// The multiplier the current hand's points will get (a tied hand under
    /// "next hand double" raises it).
    pub fn multiplier(&self) -> i32 {
        self.multiplier
    }
    /// Points scored during play in the current hand, by side.
    pub fn play_points(&self) -> &[i32] {
        &self.play_points[..self.table.sides() as usize]
    }
    /// The finished hands.
    pub fn hand_results(&self) -> &[HandResult] {
        &self.results
    }
    /// Every move of the match, in order: with the seed, a full replay.
    pub fn log(&self) -> &[Move] {
        &self.log
    }
    /// The result of the match, once it is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }
    /// The layout.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The public history of the current hand.
    pub fn history(&self) -> &[Record] {
        &self.history
    }
    /// Tiles left in the stock.
    pub fn stock_len(&self) -> usize {
        self.stock.len()
    }
    /// Number of tiles in a seat's hand.
    pub fn hand_len(&self, seat: Seat) -> usize {
        self.hands[seat.index()].len()
    }

    /// A seat's hand. This is the referee's knowledge: anything sent to a
    /// player must go through [`Game::view`] instead.
    pub fn hand(&self, seat: Seat) -> TileSet {
        self.hands[seat.index()]
    }
    /// The tiles a seat drew this hand (referee knowledge, like [`Game::hand`]).
    pub fn drawn_by(&self, seat: Seat) -> TileSet {
        self.drawn_by[seat.index()]
    }
    /// The stock, next tile drawn first (referee knowledge).
    pub fn stock(&self) -> impl Iterator<Item = Tile> + '_ {
        self.stock.iter().rev().copied()
    }
    /// The tiles out of play this hand (referee knowledge).
    pub fn out_of_play(&self) -> TileSet {
        self.out_of_play
    }

    // ----- playing -----

    /// The seat after `s` in turn order.
    #[inline]
    pub fn next_seat(&self, s: Seat) -> Seat {
        let last = self.hot.last_seat;
        if self.hot.clockwise != self.reversed {
            Seat(if s.0 == last { 0 } else { s.0 + 1 })
        } else {
            Seat(if s.0 == 0 { last } else { s.0 - 1 })
        }
    }

    /// Plays `m` for the seat to move. An illegal move is refused with the
    /// game untouched.
    ///
    /// ```
    /// use capicua_engine::{Game, IllegalMove, Move, Rules, Seating};
    /// let mut g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 7).unwrap();
    /// let before = g.log().len();
    /// assert_eq!(g.play(Move::Pass), Err(IllegalMove::NotLegal(Move::Pass)));
    /// assert_eq!(g.log().len(), before);
    /// ```
    // Always inlined: a hot loop in another crate (the arena, a search)
    // that drops the events then never copies them out, and the move's
    // checks fold into the loop's own.
    #[inline(always)]
    pub fn play(&mut self, m: Move) -> Result<Events, IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::MatchOver);
        }
        if !self.is_legal_now(m) {
            return Err(IllegalMove::NotLegal(m));
        }
        let mut ev = Events::new();
        self.apply(m, &mut ev);
        Ok(ev)
    }

    /// Plays `m` without checking it, for a caller that took it from
    /// [`Game::legal_moves`] of this very position (search, perft-style
    /// counts, random playouts). It is the caller's responsibility that the
    /// move is legal: an illegal one may leave the game inconsistent (never
    /// memory-unsafe). Checked in debug builds. Anything that referees
    /// other parties' moves uses [`Game::play`].
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating};
    /// let mut g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 5).unwrap();
    /// let m = g.legal_moves()[0];
    /// let events = g.play_unchecked(m);
    /// assert!(!events.is_empty());
    /// ```
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Events {
        // The lenient referee plays illegal moves through here on purpose.
        debug_assert!(
            self.is_legal(m) || self.ext.as_ref().is_some_and(|e| e.overruling),
            "play_unchecked with an illegal move: {m}"
        );
        let mut ev = Events::new();
        self.apply(m, &mut ev);
        ev
    }

    /// Applies a legal move (or one the lenient referee accepts), appending
    /// what happened to `ev`: the body of [`Game::play`] and
    /// [`Game::play_unchecked`], inlined into both so the checked path pays
    /// no second call.
    #[inline(always)]
    fn apply(&mut self, m: Move, ev: &mut Events) {
        let seat = self.to_move;
        // Whether the move ends a hand, for the rules that watch moves.
        let results = if self.hot.watch { self.results.len() } else { 0 };
        self.log.push(m);
        match m {
            Move::Play { tile, end, face } => {
                // Recorded first, next to the log entry, rather than between
                // the layout's change and the checks that read it back: the
                // same instructions, and the checked latin loop 1-6% faster.
                self.history.push(Record { seat, action: Action::Play { tile, end, face } });
                let hand = &mut self.hands[seat.index()];
                let out = if self.hot.narrow {
                    // Every tile of a narrow catalog lives in the first word.
                    let bit = 1u64 << (tile.0 & 63);
                    hand.0[0] &= !bit;
                    self.in_hands.0[0] &= !bit;
                    hand.0[0] == 0
                } else {
                    hand.remove(tile);
                    self.in_hands.remove(tile);
                    hand.is_empty()
                };
                let capicua = out && !tile.is_double() && self.fits_two_ends(seat, tile);
                if self.board.is_empty() {
                    self.board.lead(tile, self.table.seats());
                } else {
                    self.board.place(end, tile, face, seat);
                }
                ev.push(Event::Played { seat, tile, end, face });
                self.last_player = Some(seat);
                if self.score_play(seat, ev) {
                    return;
                }
                if out {
                    append(ev, &self.end_hand_events(HandEnd::Out { seat, capicua }));
                } else if self.hot.cover_own_double && self.laid_a_double_to_cover(tile, end) {
                    self.keep_turn_to_cover();
                } else {
                    self.advance(false, ev);
                }
            }
            Move::Draw => {
                let t = self.stock.pop().expect("a legal draw has a stock");
                self.hands[seat.index()].insert(t);
                self.in_hands.insert(t);
                self.drawn_by[seat.index()].insert(t);
                self.drawn_this_turn += 1;
                self.history.push(Record { seat, action: Action::Draw });
                ev.push(Event::Drew { seat });
            }
            Move::Pass => {
                // A pending double or toe is all a seat may play on, so it
                // is all a pass says the seat lacks.
                let open_pips = if self.board.must_cover() != 0 {
                    self.board.usable_pips(seat, false)
                } else {
                    self.board.open_pips()
                };
                self.history.push(Record { seat, action: Action::Pass { open_pips } });
                self.board.open_arms_of(seat);
                ev.push(Event::Passed { seat });
                self.advance(true, ev);
            }
        }
        if self.hot.watch {
            let ended = self.results.len() != results;
            append(ev, &self.after_move(seat, m, ended));
        }
    }

    /// Whether `tile`, just placed on `end` (not led), is a double now
    /// waiting to be covered.
    fn laid_a_double_to_cover(&self, tile: Tile, end: EndId) -> bool {
        tile.is_double() && end != EndId::LEAD && self.board.must_cover() >> end.0 & 1 == 1
    }

    /// The seat that laid a double keeps the turn to cover it: it may only
    /// play on the double(s) waiting, and it may draw afresh if it cannot
    /// (a turn of its own for the second tile); if it still cannot, it
    /// passes, its train is marked, and the next seats must cover it.
    #[inline(never)]
    fn keep_turn_to_cover(&mut self) {
        self.drawn_this_turn = 0;
        self.turns += 1;
    }

    fn fits_two_ends(&self, seat: Seat, t: Tile) -> bool {
        let r = &*self.rules;
        let ends = self.board.ends().iter().enumerate();
        ends.filter(|&(i, e)| self.may_use(seat, i) && r.playable_on(e.pip).contains(t)).nth(1).is_some()
    }

    /// Passes the turn on; ends the hand if nobody can move any more (or
    /// the turn cap is reached). `passed`: the seat passed rather than played.
    #[inline(always)]
    fn advance(&mut self, passed: bool, ev: &mut Events) {
        self.drawn_this_turn = 0;
        self.turns += 1;
        let seat = self.to_move;
        // The common order first, as a test rather than a jump table.
        self.to_move = if self.hot.order == TurnOrder::Fixed {
            self.hot.following[seat.index()]
        } else {
            self.next_turn(seat, passed)
        };
        let capped = self.turns >= self.hot.max_turns;
        if !capped && self.anyone_can_move() {
            return;
        }
        append(ev, &self.stuck(capped));
    }

    /// Nobody can move (or the turn cap is reached): the hand is blocked,
    /// unless a conditional rule ("nobody can play") gives the seats a move.
    /// Its events come back by value (see [`Game::score_ends`]).
    #[inline(never)]
    fn stuck(&mut self, capped: bool) -> Events {
        let mut ev = Events::new();
        if !capped && self.hot.conditional && self.rescued_by_conditions() {
            return ev;
        }
        let blocker = self.last_player.unwrap_or(self.leader);
        self.end_hand(HandEnd::Blocked { blocker }, &mut ev);
        ev
    }

    /// The seat to move after `seat` under the turn orders other than
    /// [`TurnOrder::Fixed`].
    fn next_turn(&mut self, seat: Seat, passed: bool) -> Seat {
        match self.hot.order {
            TurnOrder::Fixed => self.next_seat(seat),
            TurnOrder::ReverseOnPass => {
                self.reversed ^= passed;
                self.next_seat(seat)
            }
            TurnOrder::RepeatWhileAble if !passed && self.has_play(seat) => seat,
            TurnOrder::RepeatWhileAble => self.next_seat(seat),
            TurnOrder::RandomSeat => {
                // SplitMix64 of (seed, hand, turn): seeded and replayable
                // without carrying a generator in the game state.
                let mut x = self.seed ^ ((self.hand_no as u64) << 40) ^ self.turns as u64;
                let r = crate::rng::splitmix64(&mut x);
                Seat((((r >> 32) * self.table.seats() as u64) >> 32) as u8)
            }
        }
    }
}
