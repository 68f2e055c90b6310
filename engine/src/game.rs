//! A match in progress: the referee.
//!
//! A [`Game`] is a whole match: hands are dealt from the seed one after the
//! other until the target is reached. Its state changes only through
//! [`Game::play`], which either applies a legal move or returns an
//! [`IllegalMove`] and leaves everything as it was. The seed and the move
//! log replay the match exactly ([`Game::replay`]).

use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::error::{IllegalMove, SeatingError, SetupError};
use crate::history::{Action, Record};
use crate::moves::{EndId, Move, MoveList};
use crate::rng::{GameRng, Purpose};
use crate::rules::Rules;
use crate::seating::{MAX_SEATS, Seat, Seating, Side, Table};
use crate::tile::{MAX_TILES, Tile, TileSet};
use crate::variant::*;

mod conditions;
mod dealt;
mod ranking;
mod referee;

use conditions::Ext;
pub use referee::Ruling;

/// Every tile id in order: the deck before a shuffle.
const IDENTITY_DECK: [Tile; MAX_TILES] = {
    let mut d = [Tile(0); MAX_TILES];
    let mut i = 0;
    while i < MAX_TILES {
        d[i] = Tile(i as u8);
        i += 1;
    }
    d
};

/// Redeals allowed before a hand is led by the designated seat with any tile.
const MAX_REDEALS: u32 = 1000;

/// A safety net for targets that may never be reached (an exact target
/// always overshot, scores that stay tied): after this many hands the match
/// ends and the highest score wins (a shared top score is a draw).
pub const MAX_HANDS_PER_MATCH: u32 = 500;

/// What happened as the result of one move, in order. Never allocates.
pub type Events = ArrayVec<Event, 8>;

/// Something that happened at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum Event {
    /// A seat played a tile.
    Played {
        /// Who.
        seat: Seat,
        /// What.
        tile: Tile,
        /// Where ([`EndId::LEAD`] for the lead).
        end: EndId,
        /// Which face joined.
        face: u8,
    },
    /// A seat drew a tile (which one is known only to those who see its hand).
    Drew {
        /// Who.
        seat: Seat,
    },
    /// A seat passed.
    Passed {
        /// Who.
        seat: Seat,
    },
    /// A side scored.
    Scored {
        /// Who.
        side: Side,
        /// How much (already net of an exact-target overshoot).
        points: i32,
    },
    /// A hand ended; its [`HandResult`] is the last of [`Game::hand_results`].
    HandOver {
        /// Hand number, from 0.
        hand: u32,
        /// The winning side, if any.
        winner: Option<Side>,
    },
    /// A new hand was dealt.
    HandStarted {
        /// Hand number, from 0.
        hand: u32,
        /// The seat that leads it.
        leader: Seat,
    },
    /// The match is over.
    MatchOver {
        /// The winning side (`None`: a drawn match).
        winner: Option<Side>,
    },
    /// The lenient referee accepted an illegal play (the `Played` event
    /// before it) and the seat's side paid a penalty.
    Overruled {
        /// Who played it.
        seat: Seat,
        /// Points its side lost.
        penalty: i32,
    },
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum HandEnd {
    /// A seat played its last tile.
    Out {
        /// Who went out.
        seat: Seat,
        /// With a capicúa (a non-double fitting two open ends).
        capicua: bool,
    },
    /// Nobody could move.
    Blocked {
        /// The seat that made the last play.
        blocker: Seat,
    },
    /// A side reached the target during play and the match ended at once.
    Target,
    /// Most seats had passed the variant's number of times (end rule
    /// `most-passed`); decided as a blocked hand.
    Passes {
        /// The seat that made the last play.
        blocker: Seat,
    },
    /// A side's play points this hand reached the variant's `hand-score`.
    HandScore {
        /// The seat whose play reached it.
        seat: Seat,
    },
}

/// The record of a finished hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct HandResult {
    /// Hand number, from 0.
    pub hand: u32,
    /// The seat that led.
    pub leader: Seat,
    /// How it ended.
    pub end: HandEnd,
    /// The winning side, if any.
    pub winner: Option<Side>,
    /// The winning seat, if any (for "the winner leads next").
    pub winner_seat: Option<Seat>,
    /// Points the winning side scored at the end of the hand.
    pub points: i32,
    /// Pips left in each seat's hand, by seat.
    pub pips: ArrayVec<i32, MAX_SEATS>,
    /// Points each side scored during play, by side.
    pub play_points: ArrayVec<i32, MAX_SEATS>,
    /// Every seat, best first, by the variant's ranking rule (`ranking.by`).
    #[serde(default)]
    pub ranking: ArrayVec<Seat, MAX_SEATS>,
}

/// How the match ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Outcome {
    /// The winning side (`None`: drawn).
    pub winner: Option<Side>,
    /// Every side, best first: by match score, highest first (a side that
    /// shares a score ranks after those with a lower side number).
    #[serde(default)]
    pub ranking: ArrayVec<Side, MAX_SEATS>,
}

/// What the leader must lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeadRequirement {
    /// Any tile.
    Any,
    /// Any double.
    AnyDouble,
    /// This tile.
    Tile(Tile),
}

/// An explicit position at the start of a hand: for tests, puzzles and
/// search bots that sample the hidden tiles. Checked by [`Game::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The match seed (later hands are dealt from it).
    pub seed: u64,
    /// The hand number, from 0.
    pub hand: u32,
    /// Match scores by side before this hand (empty: all zero).
    #[serde(default)]
    pub scores: Vec<i32>,
    /// Each seat's hand.
    pub hands: Vec<TileSet>,
    /// The stock, the next tile drawn first.
    pub stock: Vec<Tile>,
    /// The seat that leads.
    pub leader: Seat,
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
}

/// Rule choices read on every move, copied out of the rules once so the hot
/// path neither follows the `Arc` nor matches rule enums each time.
#[derive(Clone, Copy, Debug)]
struct Hot {
    /// 64-bit words of a tile set this catalog uses: the bitset loops are
    /// compiled once per word count and dispatched on this.
    words: u8,
    /// The catalog fits 32 bits: moves are generated by
    /// [`push_plays_narrow`].
    narrow: bool,
    last_seat: u8,
    clockwise: bool,
    /// Longana arms are closed to all but their owner until opened.
    restricted: bool,
    /// Seats may draw at all (a stock and a drawing policy).
    draws: bool,
    keep: u8,
    /// Most tiles drawn in one turn; 0 for "until playable".
    draw_limit: u8,
    must_play_drawn: bool,
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
            last_seat: seats - 1,
            clockwise: v.turn.direction == Direction::Clockwise,
            restricted: rules.restricted_arms(),
            draws: rules.draws(),
            keep: v.stuck.keep,
            draw_limit: match v.stuck.when_unable {
                WhenUnable::DrawUpTo(k) => k,
                WhenUnable::Pass | WhenUnable::DrawUntilPlayable => 0,
            },
            must_play_drawn: v.stuck.must_play_drawn,
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

/// Calls `$f::<W>($args)` with `W` the game's word count, so loops over the
/// words of a [`TileSet`] are unrolled for 1, 2, 3 or 4 words.
macro_rules! by_words {
    ($words:expr, $f:ident($($arg:expr),*)) => {
        match $words {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            _ => $f::<4>($($arg),*),
        }
    };
}

#[inline(always)]
fn push_plays_w<const W: usize>(
    hand: &TileSet,
    board: &Board,
    rules: &Rules,
    seat: Seat,
    restricted: bool,
    list: &mut MoveList,
) {
    let ends = board.ends();
    // One test per position, not per end, for the layouts where every open
    // end is everybody's.
    let gated = restricted || board.must_cover() != 0;
    for (i, e) in ends.iter().enumerate() {
        if gated && !board.may_use(seat, i, restricted) {
            continue;
        }
        let end = EndId(i as u8);
        // Tiles are bits: for each word, the hand's tiles joining by face 0,
        // then by face 1 (see `Rules::joining_by_face`).
        for face in 0..2u8 {
            let joining = rules.joining_by_face(e.pip, face as usize);
            for w in 0..W {
                let mut bits = hand.0[w] & joining.0[w];
                while bits != 0 {
                    let tile = Tile((w * 64) as u8 + bits.trailing_zeros() as u8);
                    bits &= bits - 1;
                    // Validation bounds the moves of any position by the
                    // capacity; `try_push` spares the panic path of `push`.
                    let pushed = list.try_push(Move::Play { tile, end, face });
                    debug_assert!(pushed.is_ok(), "move list overflow");
                }
            }
        }
    }
}

/// [`push_plays_w`] for a catalog of at most 32 tiles (double-six and
/// smaller): the hand's tiles joining an end by face 0 and by face 1 are
/// packed into one 64-bit word (face 1 in the high half), two ends into one
/// 128-bit word, and one loop pushes them in the general generator's order
/// (end, face, tile). A loop's exit depends on the hand, which the branch
/// predictor cannot foresee: a line layout pays one such exit per position
/// instead of four.
#[inline(always)]
fn push_plays_narrow(hand: u64, board: &Board, rules: &Rules, seat: Seat, restricted: bool, list: &mut MoveList) {
    let gated = restricted || board.must_cover() != 0;
    let joining = |i: usize, e: &crate::board::OpenEnd| -> u64 {
        if gated && !board.may_use(seat, i, restricted) {
            return 0;
        }
        let by_face0 = rules.joining_by_face(e.pip, 0).0[0];
        let by_face1 = rules.joining_by_face(e.pip, 1).0[0];
        (hand & by_face0) | (hand & by_face1) << 32
    };
    let ends = board.ends();
    for (pair, two) in ends.chunks(2).enumerate() {
        let first = 2 * pair;
        let mut bits = joining(first, &two[0]) as u128;
        if let Some(e) = two.get(1) {
            bits |= (joining(first + 1, e) as u128) << 64;
        }
        while bits != 0 {
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            let tile = Tile((b & 31) as u8);
            let face = ((b >> 5) & 1) as u8;
            let end = EndId((first as u32 + (b >> 6)) as u8);
            // Validation bounds the moves of any position by the capacity.
            let pushed = list.try_push(Move::Play { tile, end, face });
            debug_assert!(pushed.is_ok(), "move list overflow");
        }
    }
}

/// Whether some tile of `tiles` joins some open end (arm access ignored).
#[inline(always)]
fn any_joins_w<const W: usize>(tiles: &TileSet, board: &Board, rules: &Rules) -> bool {
    // Every end is looked at, without stopping at the first that fits:
    // a plain loop of ANDs and ORs, with no exit that depends on the tiles.
    let must = board.must_cover();
    let mut joining = 0;
    for (i, e) in board.ends().iter().enumerate() {
        if must != 0 && must >> i & 1 == 0 {
            continue;
        }
        let p = rules.playable_on(e.pip);
        for w in 0..W {
            joining |= tiles.0[w] & p.0[w];
        }
    }
    joining != 0
}

#[inline(always)]
fn has_play_w<const W: usize>(hand: &TileSet, board: &Board, rules: &Rules, seat: Seat, restricted: bool) -> bool {
    let gated = restricted || board.must_cover() != 0;
    if !gated {
        // Every end, without stopping at the first that fits: whether the
        // seat can play is what a pass decides, and the predictor cannot
        // foresee it.
        let mut joining = 0;
        for e in board.ends() {
            let p = rules.playable_on(e.pip);
            for w in 0..W {
                joining |= hand.0[w] & p.0[w];
            }
        }
        return joining != 0;
    }
    board.ends().iter().enumerate().any(|(i, e)| {
        board.may_use(seat, i, restricted) && {
            let p = rules.playable_on(e.pip);
            (0..W).any(|w| hand.0[w] & p.0[w] != 0)
        }
    })
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
        self.multiplier = 1;
        self.results.clear();
        self.log.clear();
        self.outcome = None;
        self.leader = Seat(0);
        if let Some(ext) = &mut self.ext {
            ext.lenient.clear();
        }
        self.start_hand();
    }

    /// A game from an explicit position at the start of a hand.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating, Setup, Tile, TileSet};
    /// let rules = Rules::preset("block").unwrap();
    /// let all: Vec<Tile> = rules.catalog().all().iter().collect();
    /// let setup = Setup {
    ///     seed: 1, hand: 0, scores: vec![],
    ///     hands: vec![all[..7].iter().copied().collect(), all[7..14].iter().copied().collect()],
    ///     stock: vec![], leader: Seat(1),
    /// };
    /// let game = Game::from_setup(rules.into(), Seating::new(2), setup).unwrap();
    /// assert_eq!(game.to_move(), Some(Seat(1)));
    /// ```
    pub fn from_setup(rules: Arc<Rules>, seating: Seating, setup: Setup) -> Result<Game, SetupError> {
        let mut g = Game::empty(rules, seating, setup.seed)?;
        let n = g.table.seats() as usize;
        let all = g.rules.catalog().all();
        if setup.hands.len() != n {
            return Err(SetupError::Tiles(format!("{} hands for {n} seats", setup.hands.len())));
        }
        let mut seen = TileSet::EMPTY;
        for t in setup.hands.iter().flat_map(|h| h.iter()).chain(setup.stock.iter().copied()) {
            if !all.contains(t) {
                return Err(SetupError::Tiles(format!("{t} is not in the set")));
            }
            if seen.contains(t) {
                return Err(SetupError::Tiles(format!("{t} appears twice")));
            }
            seen.insert(t);
        }
        if setup.leader.index() >= n {
            return Err(SetupError::Leader(setup.leader.0));
        }
        if !setup.stock.is_empty() && g.rules.variant().deal.rest == Rest::OutOfPlay {
            return Err(SetupError::Tiles("the variant has no stock".into()));
        }
        g.hand_no = setup.hand;
        for (i, s) in setup.scores.iter().enumerate().take(g.table.sides() as usize) {
            g.scores[i] = *s;
        }
        g.hands[..n].copy_from_slice(&setup.hands);
        g.in_hands = setup.hands.iter().fold(TileSet::EMPTY, |a, h| a.or(*h));
        // The stock is drawn from the back.
        g.stock.extend(setup.stock.iter().rev().copied());
        g.out_of_play = all.minus(seen);
        g.leader = setup.leader;
        g.to_move = setup.leader;
        g.lead_req = g.lead_requirement(setup.leader, g.lead_tile_rule());
        if g.ext.is_some() {
            g.hand_extras();
        }
        Ok(g)
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

    // ----- turn order and hands -----

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

    fn deal(&mut self, attempt: u32) {
        let n = self.table.seats() as usize;
        let h = self.rules.hand_size(self.table.seats()) as usize;
        let len = self.rules.catalog().len();
        let mut deck = IDENTITY_DECK;
        let deck = &mut deck[..len];
        let mut rng = GameRng::for_purpose(self.seed, Purpose::Deal { hand: self.hand_no, attempt });
        rng.shuffle(deck);
        if self.rules.variant().deal.method == DealMethod::SameSuit {
            self.gather_suits(deck, n, h, &mut rng);
        }
        let mut dealt = TileSet::EMPTY;
        for s in 0..n {
            let cards = &deck[s * h..(s + 1) * h];
            self.hands[s] = if self.hot.narrow {
                // Every tile of a narrow catalog lives in the first word.
                TileSet([cards.iter().fold(0, |w, t| w | 1 << (t.0 & 63)), 0, 0, 0])
            } else {
                cards.iter().copied().collect()
            };
            dealt = dealt.or(self.hands[s]);
        }
        self.in_hands = dealt;
        self.stock.clear();
        self.out_of_play = TileSet::EMPTY;
        let rest = &deck[n * h..];
        match self.rules.variant().deal.rest {
            // The stock is drawn from the back: reverse so the first tile
            // after the hands is drawn first.
            Rest::Stock => self.stock.extend(rest.iter().rev().copied()),
            Rest::OutOfPlay => self.out_of_play = rest.iter().copied().collect(),
        }
    }

    /// Reorders the shuffled `deck` so that seat `s`'s slice
    /// `s * h .. (s + 1) * h` starts with as many tiles of one pip as it can
    /// hold, the pip drawn among those with the most tiles left.
    fn gather_suits(&self, deck: &mut [Tile], n: usize, h: usize, rng: &mut GameRng) {
        let max_pip = self.rules.catalog().max_pip();
        for s in 0..n {
            let start = s * h;
            let left = &deck[start..];
            let count = |p: u8| left.iter().filter(|t| t.faces().0 == p || t.faces().1 == p).count();
            let best = (0..=max_pip).map(count).max().unwrap_or(0);
            let candidates: ArrayVec<u8, { crate::tile::PIP_VALUES }> =
                (0..=max_pip).filter(|&p| count(p) == best).collect();
            let pip = candidates[rng.below(candidates.len() as u32) as usize];
            // Stable partition of the remainder: the pip's tiles first.
            let mut next = start;
            for i in start..deck.len() {
                let (lo, hi) = deck[i].faces();
                if (lo == pip || hi == pip) && next < start + h {
                    deck[next..=i].rotate_right(1);
                    next += 1;
                }
            }
        }
    }

    fn holder_of(&self, t: Tile) -> Option<Seat> {
        (0..self.table.seats()).map(Seat).find(|s| self.hands[s.index()].contains(t))
    }

    fn highest_double_in(&self, set: TileSet) -> Option<Tile> {
        let d = set.and(self.rules.catalog().doubles());
        d.iter().last()
    }

    /// The first-hand rule applies to hand 0 and under `later = "as-first"`.
    fn first_rule_applies(&self) -> bool {
        self.hand_no == 0 || self.rules.variant().lead.later == LaterLeader::AsFirst
    }

    fn lead_tile_rule(&self) -> LeadTileRule {
        let lead = &self.rules.variant().lead;
        match (self.first_rule_applies(), lead.first) {
            (true, FirstLeader::HolderOf(t)) => LeadTileRule::Tile(t),
            (true, FirstLeader::HighestDouble) => LeadTileRule::HighestDouble,
            (true, FirstLeader::RoundDouble) => LeadTileRule::Tile(self.round_double()),
            _ => LeadTileRule::Seat(lead.tile),
        }
    }

    /// What `leader` must lead under `rule`.
    fn lead_requirement(&self, leader: Seat, rule: LeadTileRule) -> LeadRequirement {
        let hand = self.hands[leader.index()];
        match rule {
            LeadTileRule::Tile(t) if hand.contains(t) => LeadRequirement::Tile(t),
            LeadTileRule::Tile(_) | LeadTileRule::HighestDouble | LeadTileRule::Seat(LeadTile::HighestDouble) => {
                match self.highest_double_in(hand) {
                    Some(d) => LeadRequirement::Tile(d),
                    None => LeadRequirement::Any,
                }
            }
            LeadTileRule::Seat(LeadTile::AnyDouble) if !hand.and(self.rules.catalog().doubles()).is_empty() => {
                LeadRequirement::AnyDouble
            }
            LeadTileRule::Seat(_) => LeadRequirement::Any,
        }
    }

    /// Chooses the leader of the freshly dealt hand, or `None` to redeal.
    fn pick_leader(&self) -> Option<(Seat, LeadRequirement)> {
        let v = self.rules.variant();
        let n = self.table.seats();
        let doubles = self.rules.catalog().doubles();
        let rule = self.lead_tile_rule();
        let needs_double = |s: Seat| -> Option<(Seat, LeadRequirement)> {
            // A leader that needs a double yields to the next seat holding one.
            let mut seat = s;
            for _ in 0..n {
                if !self.hands[seat.index()].and(doubles).is_empty() {
                    return Some((seat, self.lead_requirement(seat, rule)));
                }
                seat = self.next_seat(seat);
            }
            None
        };
        let by_tile = |t: Option<Tile>| -> Option<(Seat, LeadRequirement)> {
            let t = t?;
            let s = self.holder_of(t)?;
            Some((s, LeadRequirement::Tile(t)))
        };
        let highest_double = || {
            let dealt = (0..n).fold(TileSet::EMPTY, |a, s| a.or(self.hands[s as usize]));
            by_tile(self.highest_double_in(dealt))
        };
        let designated = if self.first_rule_applies() {
            match v.lead.first {
                FirstLeader::HolderOf(t) => {
                    if let Some(found) = by_tile(Some(t)) {
                        return Some(found);
                    }
                    return highest_double().or_else(|| self.no_double_fallback(Seat(0)));
                }
                FirstLeader::HighestDouble => return highest_double().or_else(|| self.no_double_fallback(Seat(0))),
                // Not dealt: deal again (the round's double must start it).
                FirstLeader::RoundDouble => return by_tile(Some(self.round_double())),
                FirstLeader::Seat(s) => Seat(s),
                FirstLeader::Lot => {
                    Seat(GameRng::for_purpose(self.seed, Purpose::Lot { hand: self.hand_no }).below(n as u32) as u8)
                }
            }
        } else {
            let prev = self.results.last();
            match v.lead.later {
                LaterLeader::Winner => prev.and_then(|r| r.winner_seat).unwrap_or(self.leader),
                LaterLeader::Next => self.next_seat(self.leader),
                LaterLeader::AsFirst => unreachable!("as-first uses the first-hand rule"),
            }
        };
        match v.lead.tile {
            LeadTile::Any => Some((designated, LeadRequirement::Any)),
            LeadTile::AnyDouble | LeadTile::HighestDouble => {
                needs_double(designated).or_else(|| self.no_double_fallback(designated))
            }
        }
    }

    /// The double that leads this hand under [`FirstLeader::RoundDouble`]:
    /// `[N|N]` first, one pip lower each hand, `[N|N]` again after `[0|0]`.
    fn round_double(&self) -> Tile {
        let max = self.rules.catalog().max_pip();
        let p = max - (self.hand_no % (max as u32 + 1)) as u8;
        Tile::domino(p, p)
    }

    /// Nobody holds the double the lead needs: redeal, or let `seat` (the
    /// holder of the heaviest tile, for double-based rules) lead any tile.
    fn no_double_fallback(&self, seat: Seat) -> Option<(Seat, LeadRequirement)> {
        if self.rules.variant().lead.redeal_without_double {
            return None;
        }
        let n = self.table.seats();
        let cat = self.rules.catalog();
        let heaviest = (0..n)
            .flat_map(|s| self.hands[s as usize].iter().map(move |t| (s, t)))
            .max_by_key(|&(_, t)| (cat.value(t), t));
        match (self.first_rule_applies(), self.rules.variant().lead.first, heaviest) {
            (true, FirstLeader::HolderOf(_) | FirstLeader::HighestDouble, Some((s, t))) => {
                Some((Seat(s), LeadRequirement::Tile(t)))
            }
            _ => Some((seat, LeadRequirement::Any)),
        }
    }

    fn start_hand(&mut self) {
        if self.ext.is_some() {
            self.reset_rules();
        }
        let mut chosen = None;
        for attempt in 0..MAX_REDEALS {
            self.deal(attempt);
            if let Some(c) = self.pick_leader() {
                chosen = Some(c);
                break;
            }
        }
        let (leader, req) = chosen.unwrap_or((self.leader, LeadRequirement::Any));
        self.leader = leader;
        self.to_move = leader;
        self.lead_req = req;
        self.board.clear();
        self.reversed = false;
        self.turns = 0;
        // Seats beyond the table's never draw: their sets stay empty.
        let n = self.table.seats() as usize;
        self.drawn_by[..n].fill(TileSet::EMPTY);
        self.drawn_this_turn = 0;
        self.last_player = None;
        self.play_points = [0; MAX_SEATS];
        self.history.clear();
        if self.ext.is_some() {
            self.hand_extras();
        }
    }

    // ----- move generation -----

    /// Whether arms of a longana are closed to seats other than their owner.
    #[inline]
    fn arms_restricted(&self) -> bool {
        self.hot.restricted
    }

    #[inline]
    fn may_use(&self, seat: Seat, i: usize) -> bool {
        self.board.may_use(seat, i, self.arms_restricted())
    }

    /// The plays of `seat` for a catalog wider than 32 tiles (the narrow
    /// ones are generated inline by `fill_legal_moves`).
    #[inline(never)]
    fn push_plays(&self, seat: Seat, list: &mut MoveList) {
        let hand = &self.hands[seat.index()];
        let (board, rules, restricted) = (&self.board, &*self.rules, self.arms_restricted());
        by_words!(self.hot.words, push_plays_w(hand, board, rules, seat, restricted, list))
    }

    /// The leads of `seat` on the empty table.
    #[inline(never)]
    fn push_leads(&self, seat: Seat, list: &mut MoveList) {
        let lead = |tile| Move::Play { tile, end: EndId::LEAD, face: 0 };
        match self.lead_req {
            LeadRequirement::Tile(t) => list.push(lead(t)),
            LeadRequirement::AnyDouble => {
                let ds = self.hands[seat.index()].and(self.rules.catalog().doubles());
                list.extend(ds.iter().map(lead));
            }
            LeadRequirement::Any => list.extend(self.hands[seat.index()].iter().map(lead)),
        }
    }

    /// Whether `seat` has a tile it may play now.
    #[inline]
    fn has_play(&self, seat: Seat) -> bool {
        if self.hot.words != 1 {
            return self.has_play_wide(seat);
        }
        let hand = &self.hands[seat.index()];
        has_play_w::<1>(hand, &self.board, &self.rules, seat, self.arms_restricted())
    }

    /// [`Game::has_play`] for catalogs of more than 64 tiles.
    #[inline(never)]
    fn has_play_wide(&self, seat: Seat) -> bool {
        let hand = &self.hands[seat.index()];
        let (board, rules, restricted) = (&self.board, &*self.rules, self.arms_restricted());
        by_words!(self.hot.words, has_play_w(hand, board, rules, seat, restricted))
    }

    #[inline]
    fn stock_drawable(&self) -> bool {
        self.hot.draws && self.stock.len() > self.hot.keep as usize
    }

    #[inline]
    fn may_draw(&self) -> bool {
        self.stock_drawable() && (self.hot.draw_limit == 0 || self.drawn_this_turn < self.hot.draw_limit)
    }

    /// The legal moves of the seat to move (empty once the match is over).
    ///
    /// A tile that fits two ends is two moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        // Returning the list by value costs a copy of its inline storage;
        // hot loops reuse one list with `fill_legal_moves` instead.
        let mut list = MoveList::new();
        self.fill_legal_moves(&mut list);
        list
    }

    /// Appends the legal moves of the seat to move to `list` (after clearing it).
    #[inline]
    pub fn fill_legal_moves(&self, list: &mut MoveList) {
        list.clear();
        if self.outcome.is_some() {
            return;
        }
        let seat = self.to_move;
        if self.board.is_empty() {
            return self.push_leads(seat, list);
        }
        if self.hot.narrow {
            let hand = self.hands[seat.index()].0[0];
            push_plays_narrow(hand, &self.board, &self.rules, seat, self.hot.restricted, list);
        } else {
            self.push_plays(seat, list);
        }
        if list.is_empty() {
            list.push(if self.may_draw() { Move::Draw } else { Move::Pass });
        } else {
            if !self.hot.must_play_drawn && self.drawn_this_turn > 0 && self.may_draw() {
                list.push(Move::Draw);
            }
            if self.hot.may_pass {
                list.push(Move::Pass);
            }
        }
    }

    /// Whether `m` is legal for the seat to move, without building the list.
    pub fn is_legal(&self, m: Move) -> bool {
        self.outcome.is_none() && self.is_legal_now(m)
    }

    /// [`Game::is_legal`] while the match is on: inlined into [`Game::play`].
    #[inline(always)]
    fn is_legal_now(&self, m: Move) -> bool {
        let seat = self.to_move;
        match m {
            Move::Play { tile, end, face } => {
                if !self.hands[seat.index()].contains(tile) {
                    return false;
                }
                if self.board.is_empty() {
                    return end == EndId::LEAD
                        && face == 0
                        && match self.lead_req {
                            LeadRequirement::Any => true,
                            LeadRequirement::AnyDouble => tile.is_double(),
                            LeadRequirement::Tile(t) => t == tile,
                        };
                }
                let Some(e) = self.board.end(end) else { return false };
                self.may_use(seat, end.0 as usize) && self.rules.joins_by_face(e.pip, tile, face)
            }
            Move::Draw => {
                self.may_draw()
                    && !self.board.is_empty()
                    && (!self.has_play(seat) || (!self.hot.must_play_drawn && self.drawn_this_turn > 0))
            }
            Move::Pass => {
                !self.board.is_empty() && {
                    let able = self.has_play(seat);
                    (self.hot.may_pass && able) || (!able && !self.may_draw())
                }
            }
        }
    }

    // ----- playing -----

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
    #[inline]
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
        self.log.push(m);
        match m {
            Move::Play { tile, end, face } => {
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
                self.history.push(Record { seat, action: Action::Play { tile, end, face } });
                ev.push(Event::Played { seat, tile, end, face });
                self.last_player = Some(seat);
                if self.score_play(seat, ev) {
                    return;
                }
                if out {
                    self.end_hand(HandEnd::Out { seat, capicua }, ev);
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
            self.after_move(seat, m, ev);
        }
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
        self.stuck(capped, ev);
    }

    /// Nobody can move (or the turn cap is reached): the hand is blocked,
    /// unless a conditional rule ("nobody can play") gives the seats a move.
    #[inline(never)]
    fn stuck(&mut self, capped: bool, ev: &mut Events) {
        if !capped && self.hot.conditional && self.rescued_by_conditions() {
            return;
        }
        let blocker = self.last_player.unwrap_or(self.leader);
        self.end_hand(HandEnd::Blocked { blocker }, ev);
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

    /// Whether some seat could still play or draw. Arm access is ignored:
    /// a seat stuck on a closed arm opens it by passing.
    #[inline(always)]
    fn anyone_can_move(&self) -> bool {
        if self.stock_drawable() {
            return true;
        }
        let (tiles, board, rules) = (&self.in_hands, &self.board, &*self.rules);
        by_words!(self.hot.words, any_joins_w(tiles, board, rules))
    }

    /// Adds `points` to `side`, honouring an exact target. Returns the points
    /// actually scored.
    fn add_score(&mut self, side: Side, points: i32) -> i32 {
        if let MatchTarget::Points { points: target, exact: true, .. } = self.rules.variant().target {
            if self.scores[side.index()] + points > target as i32 {
                return 0;
            }
        }
        self.scores[side.index()] += points;
        points
    }

    fn target_reached(&self, side: Side) -> bool {
        match self.rules.variant().target {
            MatchTarget::Points { points, .. } => self.scores[side.index()] >= points as i32,
            MatchTarget::Hands(_) => false,
        }
    }

    /// Scores the ends after a play. Returns true when this ended the match.
    #[inline(always)]
    fn score_play(&mut self, seat: Seat, ev: &mut Events) -> bool {
        self.hot.play_scoring && self.score_ends(seat, ev)
    }

    /// [`Game::score_play`] for a variant that scores during play.
    #[inline(never)]
    fn score_ends(&mut self, seat: Seat, ev: &mut Events) -> bool {
        let rule = self.rules.variant().scoring.during_play;
        let sum = if matches!(rule, PlayScoring::Headers) { 0 } else { self.board.end_sum() as i32 };
        let points = match rule {
            PlayScoring::None => 0,
            PlayScoring::EndsMultipleOf(k) => {
                if sum > 0 && sum % k as i32 == 0 {
                    sum
                } else {
                    0
                }
            }
            PlayScoring::FivesAndThrees => {
                let mut p = 0;
                if sum > 0 && sum % 5 == 0 {
                    p += sum / 5;
                }
                if sum > 0 && sum % 3 == 0 {
                    p += sum / 3;
                }
                p
            }
            PlayScoring::Headers => match self.board.ends() {
                [a, b] if a.pip == b.pip && a.tile == b.tile => 2,
                [a, b] if a.pip == b.pip && (a.double || b.double) => 3,
                [a, b] if a.pip == b.pip => 2,
                _ => 0,
            },
        };
        if points == 0 {
            return false;
        }
        let side = self.table.side_of(seat);
        let scored = self.add_score(side, points);
        if scored == 0 {
            return false;
        }
        self.play_points[side.index()] += scored;
        ev.push(Event::Scored { side, points: scored });
        if let MatchTarget::Points { immediate: true, .. } = self.rules.variant().target {
            if self.target_reached(side) {
                let pips = self.pips();
                self.record_hand(HandEnd::Target, Some(side), Some(seat), 0, &pips, ev);
                self.finish(Some(side), ev);
                return true;
            }
        }
        false
    }

    fn pips(&self) -> [i32; MAX_SEATS] {
        if !self.hot.plain_count {
            return self.counted_pips();
        }
        let cat = self.rules.catalog();
        let mut pips = [0; MAX_SEATS];
        for (p, hand) in pips.iter_mut().zip(&self.hands).take(self.table.seats() as usize) {
            *p = cat.value_of(*hand);
        }
        pips
    }

    /// Decides a blocked hand: the winning side and seat, or `None`.
    fn blocked_winner(&mut self, pips: &[i32; MAX_SEATS], blocker: Seat) -> Option<(Side, Seat)> {
        let spec = self.rules.variant().blocked;
        let n = self.table.seats();
        let seats = || (0..n).map(Seat);
        let best_seat_of =
            |side: Side| self.table.members(side).min_by_key(|s| pips[s.index()]).expect("sides have members");
        let decided = match spec.compare {
            _ if self.hot.ranked => self.ranked_winner(pips),
            BlockedCompare::Seat => {
                let low = seats().map(|s| pips[s.index()]).min().unwrap_or(0);
                let mut lowest = seats().filter(|s| pips[s.index()] == low);
                let first = lowest.next().expect("at least one seat");
                let side = self.table.side_of(first);
                lowest.all(|s| self.table.side_of(s) == side).then_some((side, first))
            }
            BlockedCompare::Team => {
                let mut totals = [0i32; MAX_SEATS];
                for s in seats() {
                    totals[self.table.side_of(s).index()] += pips[s.index()];
                }
                let sides = self.table.sides() as usize;
                let low = totals[..sides].iter().copied().min().unwrap_or(0);
                let mut lowest = (0..sides).filter(|&i| totals[i] == low);
                let first = lowest.next().expect("at least one side");
                (lowest.next().is_none()).then(|| (Side(first as u8), best_seat_of(Side(first as u8))))
            }
        };
        decided.or_else(|| match spec.tie {
            BlockedTie::NoScore => None,
            BlockedTie::LeaderWins => Some((self.table.side_of(self.leader), self.leader)),
            BlockedTie::BlockerWins => Some((self.table.side_of(blocker), blocker)),
            BlockedTie::NextHandDouble => {
                self.multiplier *= 2;
                None
            }
        })
    }

    fn end_hand(&mut self, end: HandEnd, ev: &mut Events) {
        let pips = self.pips();
        let n = self.table.seats() as usize;
        let scoring = self.rules.variant().scoring;
        let carried = self.multiplier;
        let winner = match end {
            HandEnd::Out { seat, .. } => Some((self.table.side_of(seat), seat)),
            HandEnd::Blocked { blocker } | HandEnd::Passes { blocker } => self.blocked_winner(&pips, blocker),
            HandEnd::HandScore { seat } => Some((self.table.side_of(seat), seat)),
            HandEnd::Target => unreachable!("target ends are recorded by score_play"),
        };
        let mut points = 0;
        if self.rules.penalty_scoring() {
            // Every side takes its own pips (doubled by a carried tie).
            let mut totals = [0i32; MAX_SEATS];
            for (s, &p) in pips.iter().enumerate().take(n) {
                totals[self.table.side_of(Seat(s as u8)).index()] += p;
            }
            for (i, &t) in totals[..self.table.sides() as usize].iter().enumerate() {
                self.add_score(Side(i as u8), t * carried);
            }
            if winner.is_some() {
                self.multiplier = 1;
            }
        } else if let Some((side, seat)) = winner {
            let rule = if matches!(end, HandEnd::Out { .. } | HandEnd::HandScore { .. }) {
                scoring.out
            } else {
                scoring.blocked
            };
            let (mut own, mut opp, mut others) = (0, 0, 0);
            for (s, &p) in pips.iter().enumerate().take(n) {
                if self.table.side_of(Seat(s as u8)) == side {
                    own += p;
                } else {
                    opp += p;
                }
                if s != seat.index() {
                    others += p;
                }
            }
            let mut p = match rule {
                HandPoints::Opponents => opp,
                HandPoints::AllOthers => others,
                HandPoints::All => own + opp,
                HandPoints::Difference => opp - own,
                HandPoints::Nothing | HandPoints::OwnPips => 0,
            };
            if scoring.round_to > 1 {
                let r = scoring.round_to as i32;
                p = (p + r / 2).div_euclid(r) * r;
            }
            p *= carried;
            if let HandEnd::Out { capicua: true, .. } = end {
                match scoring.capicua {
                    Capicua::None => {}
                    Capicua::Double => p *= 2,
                    Capicua::Bonus(b) => p += b,
                }
            }
            p += scoring.win_bonus;
            points = if p != 0 { self.add_score(side, p) } else { 0 };
            // The tie multiplier is spent by a hand that someone won.
            self.multiplier = 1;
        }
        self.record_hand(end, winner.map(|w| w.0), winner.map(|w| w.1), points, &pips, ev);
        if points != 0 {
            let side = winner.expect("points go to a winner").0;
            ev.push(Event::Scored { side, points });
        }
        self.after_hand(ev);
    }

    #[allow(clippy::too_many_arguments)]
    fn record_hand(
        &mut self,
        end: HandEnd,
        winner: Option<Side>,
        seat: Option<Seat>,
        points: i32,
        pips: &[i32; MAX_SEATS],
        ev: &mut Events,
    ) {
        let n = self.table.seats() as usize;
        let sides = self.table.sides() as usize;
        self.results.push(HandResult {
            hand: self.hand_no,
            leader: self.leader,
            end,
            winner,
            winner_seat: seat,
            points,
            pips: ArrayVec::try_from(&pips[..n]).expect("seats fit"),
            play_points: ArrayVec::try_from(&self.play_points[..sides]).expect("sides fit"),
            ranking: self.hand_ranking(pips, seat),
        });
        ev.push(Event::HandOver { hand: self.hand_no, winner });
    }

    fn after_hand(&mut self, ev: &mut Events) {
        let sides = self.table.sides() as usize;
        let scores = &self.scores[..sides];
        // Under penalty scoring the lowest total leads.
        let low = self.rules.penalty_scoring();
        let best = if low { scores.iter().min() } else { scores.iter().max() };
        let best = *best.expect("two sides at least");
        let leaders: ArrayVec<usize, MAX_SEATS> = (0..sides).filter(|&i| self.scores[i] == best).collect();
        let over = match self.rules.variant().target {
            // Penalty points: someone reaching the target ends the match,
            // the lowest total wins (play on while that is shared).
            MatchTarget::Points { .. } if low => ((0..sides).any(|i| self.target_reached(Side(i as u8)))
                && leaders.len() == 1)
                .then(|| Some(Side(leaders[0] as u8))),
            MatchTarget::Points { .. } => {
                // Play on while the top score is shared, even past the target.
                (self.target_reached(Side(leaders[0] as u8)) && leaders.len() == 1)
                    .then(|| Some(Side(leaders[0] as u8)))
            }
            MatchTarget::Hands(h) => {
                (self.hand_no + 1 >= h).then(|| (leaders.len() == 1).then(|| Side(leaders[0] as u8)))
            }
        };
        // The safety net: a match that never settles ends here, the leader
        // winning (a shared lead is a draw).
        let over = over.or_else(|| {
            (self.hand_no + 1 >= MAX_HANDS_PER_MATCH).then(|| (leaders.len() == 1).then(|| Side(leaders[0] as u8)))
        });
        match over {
            Some(winner) => self.finish(winner, ev),
            None => {
                self.hand_no += 1;
                self.start_hand();
                ev.push(Event::HandStarted { hand: self.hand_no, leader: self.leader });
            }
        }
    }

    fn finish(&mut self, winner: Option<Side>, ev: &mut Events) {
        self.outcome = Some(Outcome { winner, ranking: self.match_ranking(winner) });
        ev.push(Event::MatchOver { winner });
    }
}

/// Which rule picks the lead tile in the current hand.
#[derive(Clone, Copy)]
enum LeadTileRule {
    Tile(Tile),
    HighestDouble,
    Seat(LeadTile),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::{PRESETS, preset};

    /// The packed generator of narrow catalogs gives the general
    /// generator's moves in the same order, on every preset that uses it
    /// (line, spinner, longana and train layouts alike).
    #[test]
    fn narrow_generator_matches_the_general_one() {
        let mut checked = 0;
        for name in PRESETS {
            let rules = Arc::new(preset(name).unwrap().validate().unwrap());
            if rules.catalog().len() > 32 {
                continue;
            }
            let seats = *rules.seat_range().end();
            for seed in 0..20u64 {
                let mut g = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
                let mut pick = seed;
                while g.to_move().is_some() && g.hand_number() < 2 {
                    if !g.board().is_empty() {
                        let seat = g.to_move;
                        let (mut packed, mut general) = (MoveList::new(), MoveList::new());
                        let hand = g.hands[seat.index()];
                        push_plays_narrow(hand.0[0], &g.board, &g.rules, seat, g.hot.restricted, &mut packed);
                        push_plays_w::<1>(&hand, &g.board, &g.rules, seat, g.hot.restricted, &mut general);
                        assert_eq!(packed, general, "{name}, seed {seed}");
                        checked += packed.len();
                    }
                    let legal = g.legal_moves();
                    pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    g.play(legal[(pick >> 33) as usize % legal.len()]).unwrap();
                }
            }
        }
        assert!(checked > 1000, "only {checked} moves compared");
    }
}
