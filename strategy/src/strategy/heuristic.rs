//! `heuristic`: doubles early, then the most accompanied tile.

use super::{Context, PlayFeatures, Scorer};

/// The classic table heuristic: get rid of doubles while the hand is young
/// (they fit only one pip and get stuck), otherwise play the tile whose
/// pips the hand holds most of, so the seat can follow on the end it
/// leaves; heavier tiles break ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heuristic;

impl Scorer for Heuristic {
    fn name(&self) -> &'static str {
        "heuristic"
    }
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64 {
        let (lo, hi) = play.tile.faces();
        // Tiles besides this one that share a pip with it.
        let accompanied = if play.double {
            ctx.holding[lo as usize] as f64 - 1.0
        } else {
            (ctx.holding[lo as usize] + ctx.holding[hi as usize]) as f64 - 2.0
        };
        let double_bonus = if play.double { if ctx.early() { 10.0 } else { 2.0 } } else { 0.0 };
        double_bonus + accompanied + 0.5 * ctx.value_norm(play.tile)
    }
}
