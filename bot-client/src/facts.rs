//! What the public history of a hand reveals about each seat.

use capicua_engine::{
    Action, ArmAccess, BoardLayout, EndId, LonganaSpec, MAX_SEATS, Record, Rules, Seat, SpinnerDoubles, SpinnerOpening,
    TileSet,
};

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
    /// [`PublicFacts::voids`] under the variant's matching rule (for equal
    /// faces, the tiles showing the pip).
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
/// lacks: not under a longana whose arms are closed to other seats (there
/// a pass only says the seat cannot use *its* arms and the opened ones).
pub fn passes_reveal_pips(rules: &Rules) -> bool {
    !arms_restricted(rules)
}

fn arms_restricted(rules: &Rules) -> bool {
    matches!(rules.variant().board, BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened }))
}

/// The open ends, replayed from the public history the way the engine's
/// board moves them (the engine keeps its board private to the game).
struct Shadow {
    ends: Vec<ShadowEnd>,
    /// Long sides still to cover, per spinner.
    pending: Vec<u8>,
    layout: BoardLayout,
    restricted: bool,
    seats: u8,
}

#[derive(Clone, Copy)]
struct ShadowEnd {
    pip: u8,
    owner: Option<Seat>,
    opened: bool,
    spinner: Option<usize>,
}

impl Shadow {
    fn new(rules: &Rules, seats: u8) -> Shadow {
        Shadow {
            ends: Vec::new(),
            pending: Vec::new(),
            layout: rules.variant().board,
            restricted: arms_restricted(rules),
            seats,
        }
    }

    fn usable(&self, seat: Seat) -> u32 {
        self.ends
            .iter()
            .filter(|e| !self.restricted || e.owner == Some(seat) || e.opened)
            .fold(0, |m, e| m | (1 << e.pip))
    }

    fn end(pip: u8, spinner: Option<usize>) -> ShadowEnd {
        ShadowEnd { pip, owner: None, opened: false, spinner }
    }

    fn spins(&self, double: bool) -> Option<SpinnerOpening> {
        match self.layout {
            BoardLayout::Spinner(s) if double && (s.doubles == SpinnerDoubles::Every || self.pending.is_empty()) => {
                Some(s.opens)
            }
            _ => None,
        }
    }

    fn apply(&mut self, r: &Record) {
        match r.action {
            Action::Play { tile, end, face } => {
                let (lo, hi) = tile.faces();
                if end == EndId::LEAD {
                    match (self.layout, self.spins(lo == hi)) {
                        (BoardLayout::Longana(_), _) => {
                            self.ends = (0..self.seats)
                                .map(|s| ShadowEnd { owner: Some(Seat(s)), ..Shadow::end(lo, None) })
                                .collect();
                        }
                        (_, Some(SpinnerOpening::AtOnce)) => {
                            self.pending.push(0);
                            self.ends = vec![Shadow::end(lo, None); 4];
                        }
                        (_, Some(SpinnerOpening::AfterBothSides)) => {
                            self.pending.push(2);
                            let id = Some(self.pending.len() - 1);
                            self.ends = vec![Shadow::end(lo, id), Shadow::end(hi, id)];
                        }
                        _ => self.ends = vec![Shadow::end(lo, None), Shadow::end(hi, None)],
                    }
                    return;
                }
                let i = end.0 as usize;
                let Some(&old) = self.ends.get(i) else { return };
                if let Some(id) = old.spinner {
                    self.pending[id] -= 1;
                    if self.pending[id] == 0 {
                        self.ends.extend([Shadow::end(old.pip, None); 2]);
                    }
                }
                let far = if face == 0 { hi } else { lo };
                let mut spinner = None;
                match self.spins(lo == hi) {
                    Some(SpinnerOpening::AtOnce) => {
                        self.pending.push(0);
                        self.ends.extend([Shadow::end(far, None); 2]);
                    }
                    Some(SpinnerOpening::AfterBothSides) => {
                        self.pending.push(1);
                        spinner = Some(self.pending.len() - 1);
                    }
                    None => {}
                }
                self.ends[i] =
                    ShadowEnd { pip: far, owner: old.owner, opened: old.opened && old.owner != Some(r.seat), spinner };
            }
            Action::Pass { .. } => {
                for e in &mut self.ends {
                    if e.owner == Some(r.seat) {
                        e.opened = true;
                    }
                }
            }
            Action::Draw => {}
        }
    }
}

impl PublicFacts {
    /// Reads the facts from a seat's view.
    pub fn of(view: &dyn SeatView) -> PublicFacts {
        let rules = view.rules();
        let restricted = arms_restricted(rules);
        let must_play_drawn = rules.variant().stuck.must_play_drawn;
        let mut shadow = Shadow::new(rules, view.seats());
        let mut f = PublicFacts::default();
        let history = view.history();
        for (i, r) in history.iter().enumerate() {
            let s = r.seat.index();
            let usable = match r.action {
                Action::Pass { open_pips } if !restricted => Some(open_pips),
                _ => Some(shadow.usable(r.seat)),
            };
            f.usable_before.push(usable);
            match r.action {
                Action::Play { tile, .. } => f.played_by[s].insert(tile),
                Action::Draw => {
                    f.draws[s] += 1;
                    let first_of_run = i == 0 || history[i - 1].seat != r.seat || history[i - 1].action != Action::Draw;
                    if first_of_run {
                        f.voids[s] = usable.unwrap_or(0);
                    } else if !must_play_drawn {
                        // The tile drawn before may have fitted: nothing is known.
                        f.voids[s] = 0;
                    }
                }
                Action::Pass { .. } => {
                    f.passes[s] += 1;
                    f.voids[s] |= usable.unwrap_or(0);
                }
            }
            shadow.apply(r);
        }
        // A seat still drawing may just have drawn a tile that fits.
        if let Some(last) = history.last().filter(|r| r.action == Action::Draw) {
            f.voids[last.seat.index()] = 0;
        }
        for s in 0..view.seats() as usize {
            let mut bits = f.voids[s];
            while bits != 0 {
                f.excluded[s] = f.excluded[s].or(rules.playable_on(bits.trailing_zeros() as u8));
                bits &= bits - 1;
            }
        }
        f
    }

    /// Whether `s` has shown it cannot follow an end showing pip `p`.
    pub fn lacks(&self, s: Seat, p: u8) -> bool {
        self.voids[s.index()] & (1 << p) != 0
    }
}
