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
mod pimc;
mod random;
mod smart;
mod support;

pub use bota_gorda::BotaGorda;
pub use carrier::Carrier;
pub use cheater::Cheater;
pub use conditional::{Condition, Conditional, Measure, Op};
pub use disabler::Disabler;
pub use features::{Context, PlayFeatures, Scored, Scorer, pick_best, play_features};
pub use heuristic::Heuristic;
pub use ismcts::Ismcts;
pub use pimc::{Budget, Pimc, PimcConfig, Rollout};
pub use random::Random;
pub use smart::Smart;
pub use support::Support;

use capicua_engine::Move;

use crate::seat_view::SeatView;

/// A way of playing dominoes.
pub trait Strategy: Send {
    /// The strategy as a spec string (what [`crate::spec::build`] parses).
    fn name(&self) -> String;

    /// Picks one of the viewer's legal moves. Called only when the viewer is
    /// to move (it then has at least one legal move).
    fn choose(&mut self, view: &dyn SeatView) -> Move;

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

    /// Restarts the strategy's random stream (the arena calls this before
    /// every game so results do not depend on how games meet threads).
    fn reseed(&mut self, seed: u64);
}
