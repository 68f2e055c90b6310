//! What the public history of a hand reveals about each seat.

use capicua_engine::{Action, Board, Condition, MAX_SEATS, Rules, Seat, TileSet};

use crate::seat_view::SeatView;

/// Public facts about every seat, derived from a hand's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublicFacts {
    /// Tiles each seat played this hand.
    pub played_by: [TileSet; MAX_SEATS],
    /// Pips of open ends each seat has shown it cannot follow *now* (bit `p`
    /// for pip `p`). A seat that passes, or starts drawing, holds no tile
    /// joining an open end it may use; since then it has gained only tiles it drew while
    /// unable to play (when drawn tiles that fit must be played), so its
    /// hand still lacks those pips. (Not for a seat in the middle of
    /// drawing: its last drawn tile may fit.)
    pub voids: [u32; MAX_SEATS],
    /// Tiles each seat cannot hold now: those joining a pip of
    /// [`PublicFacts::voids`] under the matching rule in force when it
    /// passed or drew (for equal faces, the tiles showing the pip). Where
    /// conditional rules (`when`) may have been in force, only the tiles
    /// that join under every rule set that may have held are excluded, and
    /// nothing where one of them let a seat pass at will (`may-pass`).
    pub excluded: [TileSet; MAX_SEATS],
    /// Passes by seat.
    pub passes: [u32; MAX_SEATS],
    /// Draws by seat.
    pub draws: [u32; MAX_SEATS],
    /// For each history record, the open pips the acting seat could use
    /// just before it acted, where the history determines them.
    pub usable_before: Vec<Option<u32>>,
}

/// Whether a pass record's `open_pips` are exactly the pips the passer
/// lacks: not where arms are closed to other seats (a longana's, a train
/// game's private trains: there a pass only says the seat cannot use *its*
/// arms and the opened ones).
pub fn passes_reveal_pips(rules: &Rules) -> bool {
    !rules.restricted_arms()
}

impl PublicFacts {
    /// Reads the facts from a seat's view.
    pub fn of(view: &dyn SeatView) -> PublicFacts {
        let rules = view.rules();
        let restricted = rules.restricted_arms();
        let must_play_drawn = rules.variant().stuck.must_play_drawn;
        // The layout replayed from the public history by the engine's own
        // board (the game keeps its board private to the referee).
        let mut board = Board::new(rules.variant().board);
        let mut f = PublicFacts::default();
        let mut conditions = Conditions::new(view);
        let history = view.history();
        for (i, r) in history.iter().enumerate() {
            let s = r.seat.index();
            let usable = match r.action {
                Action::Pass { open_pips } if !restricted => Some(open_pips),
                _ => Some(board.usable_pips(r.seat, restricted)),
            };
            f.usable_before.push(usable);
            // What a pass or the start of a run of draws excludes under
            // every rule set that may be in force now.
            let reveals = |pips: u32| {
                let (pips, mut tiles) = conditions.excluded_by(rules, r.seat, pips);
                // Where doubles go on any longana arm, the seat also holds
                // no double joining any open end.
                if board.doubles_on_closed_arms() {
                    let (_, anywhere) = conditions.excluded_by(rules, r.seat, board.open_pips());
                    tiles = tiles.or(anywhere.and(rules.catalog().doubles()));
                }
                (pips, tiles)
            };
            match r.action {
                Action::Play { tile, .. } => f.played_by[s].insert(tile),
                Action::Draw => {
                    f.draws[s] += 1;
                    let first_of_run = i == 0 || history[i - 1].seat != r.seat || history[i - 1].action != Action::Draw;
                    if first_of_run {
                        let (pips, tiles) = reveals(usable.unwrap_or(0));
                        f.voids[s] = pips;
                        f.excluded[s] = tiles;
                    } else if !must_play_drawn {
                        // The tile drawn before may have fitted: nothing is known.
                        f.voids[s] = 0;
                        f.excluded[s] = TileSet::EMPTY;
                    }
                }
                Action::Pass { .. } => {
                    f.passes[s] += 1;
                    let (pips, tiles) = reveals(usable.unwrap_or(0));
                    f.voids[s] |= pips;
                    f.excluded[s] = f.excluded[s].or(tiles);
                }
            }
            conditions.after(r.seat, r.action);
            board.apply(r, view.seats());
        }
        // A seat still drawing may just have drawn a tile that fits.
        if let Some(last) = history.last().filter(|r| r.action == Action::Draw) {
            f.voids[last.seat.index()] = 0;
            f.excluded[last.seat.index()] = TileSet::EMPTY;
        }
        f
    }

    /// Whether `s` has shown it cannot follow an end showing pip `p`.
    pub fn lacks(&self, s: Seat, p: u8) -> bool {
        self.voids[s.index()] & (1 << p) != 0
    }
}

/// The tiles joining any of `pips` under `rules`.
fn joining(rules: &Rules, mut pips: u32) -> TileSet {
    let mut tiles = TileSet::EMPTY;
    while pips != 0 {
        tiles = tiles.or(rules.playable_on(pips.trailing_zeros() as u8));
        pips &= pips - 1;
    }
    tiles
}

/// How far from its threshold a turn count must be for [`Conditions`] to
/// trust its own count of the engine's turns.
const TURN_MARGIN: u32 = 2;

/// The public state the variant's conditional rules (`when`) read, replayed
/// along the history: which rule sets may be in force at each record.
struct Conditions {
    /// Whether the variant has conditional rules at all.
    any: bool,
    passes: [u8; MAX_SEATS],
    /// Bit `s`: seat `s`'s last turn was a pass.
    passed_last: u16,
    turns: u32,
    hand: u32,
    sides: [u8; MAX_SEATS],
    seats: usize,
}

impl Conditions {
    fn new(view: &dyn SeatView) -> Conditions {
        let mut sides = [0u8; MAX_SEATS];
        for s in 0..view.seats() {
            sides[s as usize] = view.side_of(Seat(s)).0;
        }
        Conditions {
            any: !view.rules().variant().when.is_empty(),
            passes: [0; MAX_SEATS],
            passed_last: 0,
            turns: 0,
            hand: view.hand_number(),
            sides,
            seats: view.seats() as usize,
        }
    }

    /// Whether `c` holds for `mover` now: `None` where the public history
    /// does not tell (conditions on hidden hands, turn counts near their
    /// threshold).
    fn holds(&self, c: Condition, mover: Seat) -> Option<bool> {
        let passes = &self.passes[..self.seats];
        Some(match c {
            Condition::SeatPasses(n) => passes[mover.index()] >= n,
            Condition::AnySeatPasses(n) => passes.iter().any(|&p| p >= n),
            Condition::TeamPasses(n) => {
                let side = self.sides[mover.index()];
                let team: u32 = (0..self.seats).filter(|&s| self.sides[s] == side).map(|s| passes[s] as u32).sum();
                team >= n as u32
            }
            Condition::PassedLastTurn => self.passed_last & (1 << mover.0) != 0,
            Condition::HandsAbove(x) => self.hand > x,
            Condition::TurnsAbove(x) if self.turns > x + TURN_MARGIN => true,
            Condition::TurnsAbove(x) if self.turns + TURN_MARGIN < x => false,
            Condition::TurnsAbove(_) | Condition::NobodyCanPlay | Condition::PipsAbove(_) => return None,
        })
    }

    /// The open pips a seat that passes (or starts drawing) on `pips` has
    /// shown it lacks, and the tiles it therefore cannot hold, under every
    /// rule set that may be in force.
    fn excluded_by(&self, base: &Rules, mover: Seat, pips: u32) -> (u32, TileSet) {
        let reveal = |r: &Rules| if r.variant().stuck.may_pass { None } else { Some(joining(r, pips)) };
        if !self.any {
            return reveal(base).map_or((0, TileSet::EMPTY), |t| (pips, t));
        }
        let when = &base.variant().when;
        let (mut known, mut unknown) = (0u32, 0u32);
        for (i, w) in when.iter().enumerate() {
            match self.holds(w.condition, mover) {
                Some(true) => known |= 1 << i,
                Some(false) => {}
                None => unknown |= 1 << i,
            }
        }
        // Every mask that agrees with the known conditions.
        let mut tiles = base.catalog().all();
        let mut sub = unknown;
        loop {
            let mask = known | sub;
            let rules = base.when_rules(mask).map_or(base, |r| &**r);
            match reveal(rules) {
                Some(t) => tiles = tiles.and(t),
                None => return (0, TileSet::EMPTY),
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & unknown;
        }
        (pips, tiles)
    }

    /// Counts a record.
    fn after(&mut self, seat: Seat, action: Action) {
        let bit = 1u16 << seat.0;
        match action {
            Action::Play { .. } => {
                self.passed_last &= !bit;
                self.turns += 1;
            }
            Action::Pass { .. } => {
                self.passes[seat.index()] = self.passes[seat.index()].saturating_add(1);
                self.passed_last |= bit;
                self.turns += 1;
            }
            Action::Draw => {}
        }
    }
}
