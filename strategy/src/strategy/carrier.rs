//! `carrier`: keeps the widest variety of pips in hand.

use super::{Context, PlayFeatures, Scorer};

/// A selfish player that keeps as many different pips in hand as it can,
/// so it is rarely forced to pass, and prefers leaving an end it can
/// follow; half a bota-gorda breaks near-ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Carrier;

impl Scorer for Carrier {
    fn name(&self) -> &'static str {
        "carrier"
    }
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64 {
        let (lo, hi) = play.tile.faces();
        let mut holding = ctx.holding;
        holding[lo as usize] -= 1;
        if hi != lo {
            holding[hi as usize] -= 1;
        }
        let variety = holding.iter().filter(|&&n| n > 0).count() as f64;
        let can_follow = (0..holding.len()).filter(|&p| play.exposed & (1 << p) != 0 && holding[p] > 0).count() as f64;
        variety + 0.5 * can_follow + 0.5 * ctx.value_norm(play.tile)
    }
}
