//! `disabler`: blocks the opponents.

use super::{Context, PlayFeatures, Scorer};

/// Plays to make the opponents pass: leaves pips they have passed on
/// (above all the next seat's), avoids covering them, covers the ends they
/// played, leaves pips nobody else can hold any more, and best of all
/// leaves a table an opponent cannot follow at all; half a bota-gorda
/// breaks near-ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Disabler;

impl Scorer for Disabler {
    fn name(&self) -> &'static str {
        "disabler"
    }
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64 {
        let mut s = 0.0;
        for &o in &ctx.opponents {
            let void = ctx.facts.voids[o.index()];
            let weight = if o == ctx.next { 2.0 } else { 1.0 };
            if play.exposed & void != 0 {
                s += 2.0 * weight;
            }
            if play.covered.is_some_and(|p| void & (1 << p) != 0) {
                s -= 2.0 * weight;
            }
            if play.open_after & !void == 0 {
                s += 3.0 * weight;
            }
            if play.covers_play_of == Some(o) {
                s += 1.0;
            }
        }
        // Pips no other seat can hold: only the viewer can follow them.
        let mut exposed = play.exposed;
        while exposed != 0 {
            let p = exposed.trailing_zeros() as usize;
            exposed &= exposed - 1;
            if ctx.outside[p] == 0 {
                s += 1.5;
            }
        }
        s + 0.5 * ctx.value_norm(play.tile)
    }
}
