//! `support`: plays for its partners.

use super::{Context, PlayFeatures, Scorer};

/// A partner-aware player: covers pips its partners have passed on, avoids
/// leaving pips they lack (so they can follow), and avoids covering the
/// ends its partners played; half a bota-gorda breaks near-ties. Without
/// partners it plays as half a bota-gorda.
#[derive(Clone, Copy, Debug, Default)]
pub struct Support;

impl Scorer for Support {
    fn name(&self) -> &'static str {
        "support"
    }
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64 {
        let mut s = 0.0;
        for &q in &ctx.partners {
            let void = ctx.facts.voids[q.index()];
            if play.covered.is_some_and(|p| void & (1 << p) != 0) {
                s += 2.0;
            }
            if play.exposed & void != 0 {
                s -= 2.0;
            }
            if play.covers_play_of == Some(q) {
                s -= 1.0;
            }
        }
        s + 0.5 * ctx.value_norm(play.tile)
    }
}
