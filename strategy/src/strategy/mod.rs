//! Strategies: how a seat picks a move from what it knows.
//!
//! A [`Strategy`] sees a `&dyn` [`SeatView`] (never the game) and returns one
//! of the seat's legal moves. [`Strategy::propose`] lists moves in preference
//! order for referees that fall back to the next proposal when one is
//! refused (see [`crate::referee`]); only the cheater proposes an illegal
//! move first. Strategies are built by name from a spec string with
//! [`crate::spec::build`].

mod bota_gorda;
mod carrier;
mod cheater;
mod conditional;
mod disabler;
mod features;
mod heuristic;
mod ismcts;
mod oracle;
mod pimc;
pub(crate) mod playout;
mod random;
mod rules_cache;
mod smart;
mod support;

pub use crate::pimc::Budget;
pub use bota_gorda::BotaGorda;
pub use carrier::Carrier;
pub use cheater::Cheater;
pub use conditional::{Condition, Conditional, Measure, Op};
pub use disabler::Disabler;
pub use features::{Context, PlayFeatures, Scored, Scorer, pick_best, play_features};
pub use heuristic::Heuristic;
pub use ismcts::Ismcts;
pub use oracle::{Oracle, OracleConfig};
pub use pimc::{Analysis, MoveEstimate, Pimc, PimcConfig, analyse};
pub use playout::Rollout;
pub use random::Random;
pub use smart::Smart;
pub use support::Support;

use capicua_engine::{Move, MoveList};

use crate::seat_view::{SeatView, TableSeat};
use crate::stop::StopFlag;

/// A way of playing dominoes.
pub trait Strategy: Send {
    /// The strategy as a spec string (what [`crate::spec::build`] parses).
    fn name(&self) -> String;

    /// Picks one of the viewer's legal moves. Called only when the viewer is
    /// to move (it then has at least one legal move).
    fn choose(&mut self, view: &dyn SeatView) -> Move;

    /// [`Strategy::choose`] at an in-process table: the same move from the
    /// same state, for hot loops (the arena). `legal` is scratch space the
    /// caller keeps between calls. A strategy that only needs the legal
    /// moves overrides it to read them from the concrete [`TableSeat`]
    /// (inlined, no dynamic call per question); the rest keep this default.
    fn choose_at_table(&mut self, seat: &TableSeat<'_>, legal: &mut MoveList) -> Move {
        let _ = legal;
        self.choose(seat)
    }

    /// Moves in preference order, best first: a referee plays the first it
    /// accepts. Honest strategies propose only their choice.
    fn propose(&mut self, view: &dyn SeatView, out: &mut Vec<Move>) {
        out.push(self.choose(view));
    }

    /// Whether [`Strategy::propose`] may list anything but the move of
    /// [`Strategy::choose`]; when not, referees just ask `choose`.
    fn proposes_alternatives(&self) -> bool {
        false
    }

    /// Whether a move costs one pass over the legal moves, microseconds:
    /// cheap enough for a caller to ask inline (the server asks such hosted
    /// bots on its room task). Searches that think for milliseconds
    /// (`pimc`, `ismcts`) are not quick; a composite is quick only when
    /// every strategy it may ask is.
    fn is_quick(&self) -> bool {
        false
    }

    /// Whether the strategy reads every seat's hand ([`SeatView::hand_of`]
    /// of the other seats): the `oracle`, a reference for measuring how far
    /// the others are from perfect play. The arena then shows it the table
    /// open ([`crate::TableSeat::open`]); a server never does, and refuses
    /// to host it ([`crate::Policy::sees_hands`]). Composites see every hand
    /// when any strategy they may ask does.
    fn sees_all_hands(&self) -> bool {
        false
    }

    /// Makes the strategy's searches stop early once `stop` is raised
    /// (they then return the best move found so far). Strategies that do
    /// not search ignore it; composites pass it on.
    fn watch(&mut self, stop: &StopFlag) {
        let _ = stop;
    }

    /// Restarts the strategy's random stream (the arena calls this before
    /// every game so results do not depend on how games meet threads).
    fn reseed(&mut self, seed: u64);
}

#[cfg(test)]
mod tests {
    use crate::spec::build;

    fn quick(spec: &str) -> bool {
        build(spec, 1).unwrap_or_else(|e| panic!("{spec}: {e}")).is_quick()
    }

    #[test]
    fn single_pass_strategies_are_quick_and_searches_are_not() {
        assert!(quick("random"));
        assert!(!quick("pimc"));
        assert!(!quick("ismcts"));
    }

    #[test]
    fn a_cheater_is_as_quick_as_its_inner_strategy() {
        assert!(quick("cheater"), "its default inner strategy is heuristic");
        assert!(quick("cheater:inner=bota-gorda"));
        assert!(!quick("cheater:inner=pimc"));
    }

    #[test]
    fn a_conditional_is_quick_only_when_every_branch_is() {
        assert!(quick("bota-gorda while hand-pips > 25 else random"));
        assert!(!quick("pimc while stock > 3 else random"));
        assert!(!quick("random while stock > 3 else pimc"));
        assert!(!quick("random while stock > 3 else heuristic while hand-tiles > 4 else ismcts"));
    }
}
