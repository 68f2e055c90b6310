//! The layout on the table, kept as its open ends.
//!
//! The engine only needs the open ends to generate moves and score; the full
//! picture (which tile lies where) is the hand's public history of plays,
//! each naming the end it went on, from which a client draws the layout.

use serde::{Deserialize, Serialize};

use crate::history::{Action, Record};
use crate::moves::EndId;
use crate::seating::Seat;
use crate::tile::Tile;
use crate::variant::{
    ArmAccess, ArmDoubles, BoardLayout, ChickenFootSpec, LonganaSpec, SpinnerDoubles, SpinnerOpening, TrainsSpec,
};

/// The most open ends any layout can have (double-18, every double a spinner).
pub const MAX_ENDS: usize = 40;

const NO_SPINNER: u8 = u8::MAX;

/// One open end of the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct OpenEnd {
    /// The pip value a tile must join.
    pub pip: u8,
    /// The tile that exposes this end.
    pub tile: Tile,
    /// That tile is a double lying across the end: it counts both halves.
    pub double: bool,
    /// The end counts in end-sum scoring (a spinner's short sides count only
    /// once played on).
    pub scored: bool,
    /// The seat owning this arm (longana), if any.
    pub owner: Option<Seat>,
    /// A longana arm opened to every seat because its owner passed.
    pub opened: bool,
    /// The seat that last played here (`None` for the lead).
    pub last: Option<Seat>,
}

/// The open ends of the layout.
#[derive(Clone, Debug)]
pub struct Board {
    ends: [OpenEnd; MAX_ENDS],
    /// For each end, the spinner whose long side it is while that spinner's
    /// short sides are still closed (`NO_SPINNER` otherwise).
    end_spinner: [u8; MAX_ENDS],
    len: u8,
    /// For each spinner, how many long sides are still uncovered.
    spinners_pending: [u8; MAX_ENDS],
    spinners: u8,
    layout: BoardLayout,
    /// The layout has spinners (checked on every placement).
    spinning: bool,
    /// Doubles open ends that must be covered first (train games, chicken
    /// foot): placements go through `place_constrained`.
    constrained: bool,
    /// A longana whose closed arms still take doubles from any seat.
    doubles_anywhere: bool,
    /// Ends that must be covered before any other (bit `i` for end `i`):
    /// an unsatisfied double, the centre of a chicken foot or its toes.
    must_cover: u64,
}

impl Board {
    /// An empty layout of this shape. Games build their own; a client or a
    /// bot that keeps the layout from the public history builds one and
    /// [`Board::apply`]s each record to it.
    pub fn new(layout: BoardLayout) -> Board {
        let blank =
            OpenEnd { pip: 0, tile: Tile(0), double: false, scored: false, owner: None, opened: false, last: None };
        Board {
            ends: [blank; MAX_ENDS],
            end_spinner: [NO_SPINNER; MAX_ENDS],
            len: 0,
            spinners_pending: [0; MAX_ENDS],
            spinners: 0,
            spinning: matches!(layout, BoardLayout::Spinner(_)),
            constrained: matches!(
                layout,
                BoardLayout::Trains(TrainsSpec { satisfy_doubles: true, .. }) | BoardLayout::ChickenFoot(_)
            ),
            doubles_anywhere: matches!(
                layout,
                BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened, doubles: ArmDoubles::AnyArm })
            ),
            must_cover: 0,
            layout,
        }
    }

    /// Empties the layout for a new hand. Only the counters are reset: ends
    /// beyond `len` are never read.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.spinners = 0;
        self.must_cover = 0;
    }

    /// The ends that must be covered before any other, as a bitmask (bit
    /// `i` for [`EndId`] `i`); 0 when play is free. Set by an unsatisfied
    /// double in a train game, and by the centre and the toes of a chicken
    /// foot: while it is not 0, those ends are the only ones anybody may
    /// play on, whoever owns them.
    #[inline]
    pub fn must_cover(&self) -> u64 {
        self.must_cover
    }

    /// Whether `seat` may play on end `i` now: a pending double or toe
    /// restricts play to those ends; otherwise, under `restricted` access,
    /// a private arm or train is closed to others until its owner passes.
    #[inline]
    pub fn may_use(&self, seat: Seat, i: usize, restricted: bool) -> bool {
        if self.must_cover != 0 {
            return self.must_cover >> i & 1 == 1;
        }
        let e = &self.ends[i];
        !restricted || e.owner == Some(seat) || e.opened
    }

    /// Whether a double may go on an end that [`Board::may_use`] closes to
    /// the seat: a longana's closed arms take doubles from anyone
    /// ([`ArmDoubles::AnyArm`]).
    #[inline]
    pub fn doubles_on_closed_arms(&self) -> bool {
        self.doubles_anywhere && self.must_cover == 0
    }

    /// Whether `seat` may lay `tile` on end `i` now (whether it joins
    /// aside): [`Board::may_use`], or a double on a closed longana arm.
    #[inline]
    pub fn may_lay(&self, seat: Seat, i: usize, tile: Tile, restricted: bool) -> bool {
        self.may_use(seat, i, restricted) || (tile.is_double() && self.doubles_on_closed_arms())
    }

    /// The pips of the ends `seat` may play on now (bit `p` for pip `p`).
    pub fn usable_pips(&self, seat: Seat, restricted: bool) -> u32 {
        let usable = self.ends().iter().enumerate().filter(|&(i, _)| self.may_use(seat, i, restricted));
        usable.fold(0, |m, (_, e)| m | 1 << e.pip)
    }

    /// The open ends, indexed by [`EndId`].
    #[inline]
    pub fn ends(&self) -> &[OpenEnd] {
        &self.ends[..self.len as usize]
    }

    /// Whether nothing has been played yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The end with this id.
    #[inline]
    pub fn end(&self, id: EndId) -> Option<&OpenEnd> {
        self.ends().get(id.0 as usize)
    }

    /// A bitmask of the pips showing on open ends (bit `p` for pip `p`).
    #[inline]
    pub fn open_pips(&self) -> u32 {
        self.ends().iter().fold(0, |m, e| m | 1 << e.pip)
    }

    fn push(&mut self, e: OpenEnd, spinner: u8) {
        self.ends[self.len as usize] = e;
        self.end_spinner[self.len as usize] = spinner;
        self.len += 1;
    }

    fn spins(&self, t: Tile) -> bool {
        t.is_double()
            && match self.layout {
                BoardLayout::Spinner(s) => s.doubles == SpinnerDoubles::Every || self.spinners == 0,
                _ => false,
            }
    }

    fn opening(&self) -> SpinnerOpening {
        match self.layout {
            BoardLayout::Spinner(s) => s.opens,
            _ => SpinnerOpening::AfterBothSides,
        }
    }

    fn new_spinner(&mut self, pending: u8) -> u8 {
        let id = self.spinners;
        self.spinners_pending[id as usize] = pending;
        self.spinners += 1;
        id
    }

    fn open_short_sides(&mut self, t: Tile, pip: u8) {
        for _ in 0..2 {
            let end = OpenEnd { pip, tile: t, double: true, scored: false, owner: None, opened: false, last: None };
            self.push(end, NO_SPINNER);
        }
    }

    /// Places the first tile of the hand.
    pub(crate) fn lead(&mut self, t: Tile, seats: u8) {
        let (lo, hi) = t.faces();
        let end =
            |pip| OpenEnd { pip, tile: t, double: lo == hi, scored: true, owner: None, opened: false, last: None };
        match self.layout {
            BoardLayout::Longana(_) => {
                for s in 0..seats {
                    self.push(OpenEnd { owner: Some(Seat(s)), ..end(lo) }, NO_SPINNER);
                }
            }
            BoardLayout::Trains(TrainsSpec { public, .. }) => {
                for s in 0..seats {
                    self.push(OpenEnd { owner: Some(Seat(s)), ..end(lo) }, NO_SPINNER);
                }
                if public {
                    // Owned by nobody and open: every seat may extend it.
                    self.push(OpenEnd { opened: true, ..end(lo) }, NO_SPINNER);
                }
            }
            BoardLayout::ChickenFoot(ChickenFootSpec { centre, .. }) => {
                for _ in 0..centre {
                    self.must_cover |= 1 << self.len;
                    self.push(end(lo), NO_SPINNER);
                }
            }
            _ if self.spins(t) => {
                let at_once = self.opening() == SpinnerOpening::AtOnce;
                let id = self.new_spinner(if at_once { 0 } else { 2 });
                let spinner = if at_once { NO_SPINNER } else { id };
                self.push(end(lo), spinner);
                self.push(end(hi), spinner);
                if at_once {
                    self.open_short_sides(t, lo);
                }
            }
            _ => {
                self.push(end(lo), NO_SPINNER);
                self.push(end(hi), NO_SPINNER);
            }
        }
    }

    /// Whether joining `t` (played by `seat`) to end `a.0` by face `a.1` and
    /// to end `b.0` by face `b.1` leave layouts equal up to the sides: the
    /// same open ends, in any order, with the same pips, counting, owners,
    /// covering duties and spinners to open, and the same doubles where
    /// `counted` (the ends' sum scores: a double counts both halves).
    /// Nothing a rule reads tells the two apart, so a player has nothing to
    /// choose.
    pub fn same_placement(&self, t: Tile, a: (EndId, u8), b: (EndId, u8), seat: Seat, counted: bool) -> bool {
        if a == b {
            return true;
        }
        let mut x = self.clone();
        x.place(a.0, t, a.1, seat);
        let mut y = self.clone();
        y.place(b.0, t, b.1, seat);
        x.len == y.len && x.spinners == y.spinners && x.shape(counted) == y.shape(counted)
    }

    /// The open ends as an order-free key: what rules read of each end
    /// (not the tile that shows it, nor who played there last).
    fn shape(&self, counted: bool) -> [(u8, bool, bool, u8, bool, bool, u8); MAX_ENDS] {
        let mut key = [(0, false, false, 0, false, false, 0); MAX_ENDS];
        for (i, e) in self.ends().iter().enumerate() {
            let spinner = self.end_spinner[i];
            let pending = if spinner == NO_SPINNER { u8::MAX } else { self.spinners_pending[spinner as usize] };
            key[i] = (
                e.pip,
                e.double && counted,
                e.scored,
                e.owner.map_or(u8::MAX, |s| s.0),
                e.opened,
                self.must_cover & (1u64 << i) != 0,
                pending,
            );
        }
        key[..self.len as usize].sort_unstable();
        key
    }

    /// Joins `t` to end `id` by face `face`; the other face becomes the end.
    #[inline]
    pub(crate) fn place(&mut self, id: EndId, t: Tile, face: u8, seat: Seat) {
        let (lo, hi) = t.faces();
        let i = id.0 as usize;
        // One test on the common path (a plain line or longana) for all
        // the layouts that grow ends or constrain play.
        if self.spinning | self.constrained {
            self.place_rare(i, t, if face == 0 { hi } else { lo }, seat);
        }
        // Only what changes is written: owner and scored stay (an end that
        // is played on always counts).
        let e = &mut self.ends[i];
        e.pip = if face == 0 { hi } else { lo };
        e.tile = t;
        e.double = lo == hi;
        e.scored = true;
        e.opened &= e.owner != Some(seat);
        e.last = Some(seat);
    }

    #[inline(never)]
    fn place_rare(&mut self, i: usize, t: Tile, out: u8, seat: Seat) {
        if self.spinning {
            self.place_spinning(i, t, out);
        }
        if self.constrained {
            self.place_constrained(i, t, out, seat);
        }
    }

    /// The spinner bookkeeping of a placement on end `i`: covering a long
    /// side, and a double that becomes a spinner.
    fn place_spinning(&mut self, i: usize, t: Tile, out: u8) {
        let old_spinner = self.end_spinner[i];
        if old_spinner != NO_SPINNER {
            let pending = &mut self.spinners_pending[old_spinner as usize];
            *pending -= 1;
            if *pending == 0 {
                let old = self.ends[i];
                self.open_short_sides(old.tile, old.pip);
            }
        }
        let mut spinner = NO_SPINNER;
        if self.spins(t) {
            if self.opening() == SpinnerOpening::AtOnce {
                self.new_spinner(0);
                self.open_short_sides(t, out);
            } else {
                spinner = self.new_spinner(1);
            }
        }
        self.end_spinner[i] = spinner;
    }

    /// Covering a pending end, and a double that must now be satisfied (a
    /// train game) or grows its toes (a chicken foot).
    fn place_constrained(&mut self, i: usize, t: Tile, out: u8, seat: Seat) {
        self.must_cover &= !(1u64 << i);
        if !t.is_double() {
            return;
        }
        match self.layout {
            BoardLayout::Trains(TrainsSpec { satisfy_doubles: true, .. }) => self.must_cover |= 1 << i,
            BoardLayout::ChickenFoot(ChickenFootSpec { toes, .. }) => {
                self.must_cover |= 1 << i;
                // The double's far side becomes `toes` ends: this one and
                // `toes - 1` new ones beside it (validation bounds their number).
                for _ in 1..toes {
                    self.must_cover |= 1 << self.len;
                    let toe = OpenEnd {
                        pip: out,
                        tile: t,
                        double: true,
                        scored: true,
                        owner: None,
                        opened: false,
                        last: Some(seat),
                    };
                    self.push(toe, NO_SPINNER);
                }
            }
            _ => {}
        }
    }

    /// Replays one public record of a hand at a table of `seats` seats,
    /// exactly as the game moved its board: so the layout of any view can
    /// be rebuilt from its history (the engine's own rules, not a copy).
    ///
    /// ```
    /// use capicua_engine::{Board, Game, Rules, Seating};
    /// let mut g = Game::new(Rules::preset("all-fives").unwrap().into(), Seating::new(2), 3).unwrap();
    /// for _ in 0..6 {
    ///     let m = g.legal_moves()[0];
    ///     g.play(m).unwrap();
    /// }
    /// let mut b = Board::new(g.rules().variant().board);
    /// for r in g.history() {
    ///     b.apply(r, 2);
    /// }
    /// assert_eq!(b.ends(), g.board().ends());
    /// ```
    pub fn apply(&mut self, r: &Record, seats: u8) {
        match r.action {
            Action::Play { tile, end, .. } if end == EndId::LEAD => {
                if self.is_empty() {
                    self.lead(tile, seats);
                }
            }
            Action::Play { tile, end, face } => {
                if (end.0 as usize) < self.len as usize {
                    self.place(end, tile, face, r.seat);
                }
            }
            Action::Pass { .. } => self.open_arms_of(r.seat),
            Action::Draw => {}
        }
    }

    /// Opens every arm owned by `seat` (it passed).
    #[inline]
    pub(crate) fn open_arms_of(&mut self, seat: Seat) {
        // Only longana arms and trains have owners.
        if matches!(self.layout, BoardLayout::Longana(_) | BoardLayout::Trains(_)) {
            self.open_owned_arms(seat);
        }
    }

    #[inline(never)]
    fn open_owned_arms(&mut self, seat: Seat) {
        let len = self.len as usize;
        for e in &mut self.ends[..len] {
            if e.owner == Some(seat) {
                e.opened = true;
            }
        }
    }

    /// The sum of the scored open ends: a double across an end counts both
    /// halves, once per tile however many of its sides are open.
    pub fn end_sum(&self) -> u32 {
        let ends = self.ends();
        let mut sum = 0u32;
        for (i, e) in ends.iter().enumerate() {
            if !e.scored {
                continue;
            }
            if e.double {
                if ends[..i].iter().any(|p| p.scored && p.double && p.tile == e.tile) {
                    continue;
                }
                sum += 2 * e.pip as u32;
            } else {
                sum += e.pip as u32;
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{LonganaSpec, SpinnerSpec};

    fn d(a: u8, b: u8) -> Tile {
        Tile::domino(a, b)
    }

    #[test]
    fn line_ends_follow_the_played_faces() {
        let mut b = Board::new(BoardLayout::Line);
        b.lead(d(3, 5), 4);
        assert_eq!(b.ends().iter().map(|e| e.pip).collect::<Vec<_>>(), vec![3, 5]);
        b.place(EndId(1), d(5, 2), 1, Seat(1)); // [2|5]: face 1 (the 5) joins
        assert_eq!(b.ends()[1].pip, 2);
        assert_eq!(b.end_sum(), 5);
        b.place(EndId(0), d(3, 3), 0, Seat(2));
        assert_eq!(b.end_sum(), 6 + 2);
    }

    #[test]
    fn lead_double_counts_once() {
        let mut b = Board::new(BoardLayout::Line);
        b.lead(d(5, 5), 2);
        assert_eq!(b.end_sum(), 10);
    }

    #[test]
    fn first_double_spinner_opens_after_both_sides() {
        let mut b = Board::new(BoardLayout::Spinner(SpinnerSpec::default()));
        b.lead(d(5, 5), 2);
        assert_eq!(b.ends().len(), 2);
        assert_eq!(b.end_sum(), 10);
        b.place(EndId(0), d(5, 3), 1, Seat(1)); // [3|5], 5 joins, 3 out
        assert_eq!(b.end_sum(), 3 + 10);
        assert_eq!(b.ends().len(), 2);
        b.place(EndId(1), d(5, 1), 1, Seat(0));
        assert_eq!(b.ends().len(), 4, "short sides open");
        assert_eq!(b.end_sum(), 3 + 1, "short sides count only once played on");
        b.place(EndId(2), d(5, 6), 0, Seat(1));
        assert_eq!(b.end_sum(), 3 + 1 + 6);
        // A second double is not a spinner under "first".
        b.place(EndId(3), d(5, 5), 0, Seat(0));
        assert_eq!(b.ends().len(), 4);
        assert_eq!(b.end_sum(), 3 + 1 + 6 + 10);
    }

    #[test]
    fn mid_line_spinner_needs_its_far_side_covered() {
        let mut b =
            Board::new(BoardLayout::Spinner(SpinnerSpec { doubles: SpinnerDoubles::Every, ..Default::default() }));
        b.lead(d(2, 4), 2);
        b.place(EndId(1), d(4, 4), 0, Seat(1));
        assert_eq!(b.ends().len(), 2);
        assert_eq!(b.end_sum(), 2 + 8);
        b.place(EndId(1), d(4, 1), 1, Seat(0));
        assert_eq!(b.ends().len(), 4);
        assert_eq!(b.ends()[2].pip, 4);
    }

    #[test]
    fn trains_have_a_private_train_per_seat_and_a_public_one() {
        let mut b = Board::new(BoardLayout::Trains(TrainsSpec::default()));
        b.lead(d(12, 12), 3);
        assert_eq!(b.ends().len(), 4);
        assert_eq!(b.ends()[3].owner, None, "the public train");
        // Seat 1 may use its own train and the public one only.
        let usable: Vec<usize> = (0..4).filter(|&i| b.may_use(Seat(1), i, true)).collect();
        assert_eq!(usable, vec![1, 3]);
        // A pass marks seat 0's train: open to everyone until seat 0 plays on it.
        b.open_arms_of(Seat(0));
        assert!(b.may_use(Seat(1), 0, true));
        b.place(EndId(0), d(12, 3), 1, Seat(0));
        assert!(!b.may_use(Seat(1), 0, true), "the owner lifts its marker by playing on its train");
        assert_eq!(b.must_cover(), 0);
    }

    #[test]
    fn a_train_double_must_be_satisfied_before_anything_else() {
        let mut b = Board::new(BoardLayout::Trains(TrainsSpec::default()));
        b.lead(d(12, 12), 2);
        b.place(EndId(2), d(12, 5), 1, Seat(0)); // public train now shows 5
        b.place(EndId(2), d(5, 5), 0, Seat(1));
        assert_eq!(b.must_cover(), 1 << 2);
        // Everybody, even on a private train elsewhere, must cover end 2 first.
        assert!(!b.may_use(Seat(0), 0, true));
        assert!(b.may_use(Seat(0), 2, true));
        assert!(b.may_use(Seat(1), 2, false));
        assert_eq!(b.usable_pips(Seat(0), true), 1 << 5);
        b.place(EndId(2), d(5, 1), 0, Seat(0));
        assert_eq!(b.must_cover(), 0, "satisfied");
        assert!(b.may_use(Seat(0), 0, true));
        // Without the rule a double is just a tile.
        let mut free = Board::new(BoardLayout::Trains(TrainsSpec {
            public: false,
            satisfy_doubles: false,
            ..TrainsSpec::default()
        }));
        free.lead(d(12, 12), 2);
        assert_eq!(free.ends().len(), 2);
        free.place(EndId(0), d(12, 12), 0, Seat(0));
        assert_eq!(free.must_cover(), 0);
    }

    #[test]
    fn chicken_foot_covers_the_centre_then_three_toes() {
        let mut b = Board::new(BoardLayout::ChickenFoot(ChickenFootSpec::default()));
        b.lead(d(9, 9), 4);
        assert_eq!(b.ends().len(), 4);
        assert_eq!(b.must_cover(), 0b1111, "all four sides first");
        for (i, t) in [d(9, 1), d(9, 2), d(9, 3)].into_iter().enumerate() {
            b.place(EndId(i as u8), t, 1, Seat(0));
            assert_ne!(b.must_cover(), 0);
        }
        b.place(EndId(3), d(9, 4), 1, Seat(0));
        assert_eq!(b.must_cover(), 0, "the centre is covered");
        // A double on end 0 (showing 1) grows two more toes, all three pending.
        b.place(EndId(0), d(1, 1), 0, Seat(1));
        assert_eq!(b.ends().len(), 6);
        assert_eq!(b.must_cover(), 1 | 1 << 4 | 1 << 5);
        assert!(b.ends()[4..].iter().all(|e| e.pip == 1 && e.double));
        assert!(!b.may_use(Seat(2), 1, false), "play elsewhere waits for the toes");
        for i in [4u8, 0, 5] {
            b.place(EndId(i), d(1, 6), 0, Seat(2));
        }
        assert_eq!(b.must_cover(), 0);
        assert!(b.may_use(Seat(2), 1, false));
    }

    #[test]
    fn apply_rebuilds_the_layout_from_records() {
        let mut b = Board::new(BoardLayout::ChickenFoot(ChickenFootSpec::default()));
        let play =
            |seat, tile, end, face| Record { seat: Seat(seat), action: Action::Play { tile, end: EndId(end), face } };
        b.apply(&play(0, d(6, 6), EndId::LEAD.0, 0), 2);
        b.apply(&play(1, d(6, 2), 0, 1), 2);
        assert_eq!(b.ends().len(), 4);
        assert_eq!(b.ends()[0].pip, 2);
        assert_eq!(b.must_cover(), 0b1110);
        // A record naming an end that does not exist is ignored, not a panic.
        b.apply(&play(1, d(5, 2), 30, 1), 2);
        assert_eq!(b.ends().len(), 4);
    }

    #[test]
    fn longana_has_an_arm_per_seat() {
        let mut b = Board::new(BoardLayout::Longana(LonganaSpec::default()));
        b.lead(d(9, 9), 3);
        assert_eq!(b.ends().len(), 3);
        assert_eq!(b.ends()[2].owner, Some(Seat(2)));
        b.open_arms_of(Seat(1));
        assert!(b.ends()[1].opened);
        b.place(EndId(1), d(9, 0), 1, Seat(1));
        assert!(!b.ends()[1].opened, "the owner closes its arm by playing on it");
    }
}
