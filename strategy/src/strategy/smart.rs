//! `smart`: the rules of thumb blended by the situation.

use capicua_engine::Move;

use super::{BotaGorda, Carrier, Context, Disabler, Heuristic, Scorer, Strategy, Support, pick_best};
use crate::rng::BotRng;
use crate::seat_view::SeatView;

/// Blends heuristic, carrier, support, disabler and bota-gorda. Each
/// scorer's scores are rescaled to `0..=1` over the legal plays, then
/// weighted by the situation: mostly heuristic, more so early on; when an
/// opponent is about to go out it sheds points and blocks (bota-gorda,
/// disabler); when a partner is about to go out it supports.
pub struct Smart {
    rng: BotRng,
    base: [f64; 5],
}

impl Smart {
    /// The default base weights of heuristic, carrier, support, disabler
    /// and bota-gorda, before the situation adjusts them.
    pub const BASE: [f64; 5] = [3.0, 0.5, 0.5, 1.5, 0.5];

    /// A smart player with the default weights.
    pub fn new(seed: u64) -> Smart {
        Smart::with_weights(Smart::BASE, seed)
    }

    /// A smart player with other base weights.
    pub fn with_weights(base: [f64; 5], seed: u64) -> Smart {
        Smart { rng: BotRng::new(seed), base }
    }

    /// The weight of each scorer in this situation.
    fn weights(&self, ctx: &Context<'_>) -> [f64; 5] {
        let opp_short = ctx.fewest_tiles(&ctx.opponents);
        let partner_short = ctx.fewest_tiles(&ctx.partners);
        let [mut heuristic, carrier, mut support, mut disabler, mut bota] = self.base;
        if ctx.early() {
            heuristic += 1.0;
        }
        if opp_short <= 2 {
            bota += 1.5;
            disabler += 1.0;
        }
        if partner_short <= 2 {
            support += 1.0;
        }
        [heuristic, carrier, support, disabler, bota]
    }
}

impl Strategy for Smart {
    fn name(&self) -> String {
        if self.base == Smart::BASE {
            return "smart".into();
        }
        let w: Vec<String> = self.base.iter().map(|w| w.to_string()).collect();
        format!("smart:weights={}", w.join("/"))
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let ctx = Context::new(view);
        let scorers: [&dyn Scorer; 5] = [&Heuristic, &Carrier, &Support, &Disabler, &BotaGorda];
        let weights = self.weights(&ctx);
        pick_best(view, &mut self.rng, |plays| {
            let mut total = vec![0.0; plays.len()];
            for (scorer, w) in scorers.iter().zip(weights) {
                let raw: Vec<f64> = plays.iter().map(|p| scorer.score(&ctx, p)).collect();
                let lo = raw.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if hi - lo > 1e-9 {
                    for (t, r) in total.iter_mut().zip(&raw) {
                        *t += w * (r - lo) / (hi - lo);
                    }
                }
            }
            total
        })
    }
    fn is_quick(&self) -> bool {
        true
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}
