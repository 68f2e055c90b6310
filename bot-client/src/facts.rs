//! What the public history of a hand reveals about each seat.

use capicua_engine::{Action, ArmAccess, BoardLayout, LonganaSpec, MAX_SEATS, Rules, Seat, TileSet};

use crate::seat_view::SeatView;

/// Public facts about every seat, derived from a hand's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublicFacts {
    /// Tiles each seat played this hand.
    pub played_by: [TileSet; MAX_SEATS],
    /// Pips each seat has shown it lacks *now* (bit `p` for pip `p`): the
    /// open pips of its passes since its last draw. A seat that passes held
    /// no tile joining an open end it could use, and without drawing it
    /// has gained nothing since.
    pub voids: [u32; MAX_SEATS],
    /// Passes by seat.
    pub passes: [u32; MAX_SEATS],
    /// Draws by seat.
    pub draws: [u32; MAX_SEATS],
}

/// Whether passes reveal missing pips: under a longana whose arms are
/// closed to other seats, a pass only says the seat cannot use *its* arms,
/// and the history does not record which ends those were.
pub fn passes_reveal_pips(rules: &Rules) -> bool {
    !matches!(rules.variant().board, BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened }))
}

impl PublicFacts {
    /// Reads the facts from a seat's view.
    pub fn of(view: &dyn SeatView) -> PublicFacts {
        let mut f = PublicFacts::default();
        let reveal = passes_reveal_pips(view.rules());
        for r in view.history() {
            let s = r.seat.index();
            match r.action {
                Action::Play { tile, .. } => f.played_by[s].insert(tile),
                Action::Draw => {
                    f.draws[s] += 1;
                    f.voids[s] = 0;
                }
                Action::Pass { open_pips } => {
                    f.passes[s] += 1;
                    if reveal {
                        f.voids[s] |= open_pips;
                    }
                }
            }
        }
        f
    }

    /// Whether `s` has shown it lacks pip `p`.
    pub fn lacks(&self, s: Seat, p: u8) -> bool {
        self.voids[s.index()] & (1 << p) != 0
    }
}
