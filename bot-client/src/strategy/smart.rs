//! `smart`: the rules of thumb blended by the situation.

use capicua_engine::Move;

use super::{BotaGorda, Carrier, Context, Disabler, Heuristic, Scorer, Strategy, Support, pick_best};
use crate::rng::BotRng;
use crate::seat_view::SeatView;

/// Blends heuristic, carrier, support, disabler and bota-gorda. Each
/// scorer's scores are rescaled to `0..=1` over the legal plays, then
/// weighted by the situation: early on it shapes its hand (heuristic,
/// carrier); when an opponent is about to go out it sheds points and
/// blocks (bota-gorda, disabler); when a partner is about to go out, or its
/// side leads the match, it supports.
pub struct Smart {
    rng: BotRng,
}

impl Smart {
    /// A smart player.
    pub fn new(seed: u64) -> Smart {
        Smart { rng: BotRng::new(seed) }
    }

    /// The weight of each scorer in this situation.
    fn weights(ctx: &Context<'_>) -> [f64; 5] {
        let opp_short = ctx.fewest_tiles(&ctx.opponents);
        let partner_short = ctx.fewest_tiles(&ctx.partners);
        let mine = ctx.hand.len();
        let scores = ctx.view.scores();
        let my_side = ctx.view.side_of(ctx.me).index();
        let leading = scores.iter().enumerate().all(|(i, &s)| i == my_side || s <= scores[my_side]);
        let (mut heuristic, mut carrier, mut support, mut disabler, mut bota) = (1.0, 1.0, 1.0, 1.0, 0.5);
        if ctx.early() {
            heuristic += 1.5;
            carrier += 0.5;
        }
        if opp_short <= 2 {
            bota += 2.0;
            disabler += 2.0;
        } else if opp_short <= 3 {
            disabler += 1.0;
        }
        if partner_short <= 2 || partner_short < mine {
            support += 2.0;
        }
        if leading {
            support += 0.5;
        }
        if mine <= 2 {
            carrier += 1.0;
        }
        [heuristic, carrier, support, disabler, bota]
    }
}

impl Strategy for Smart {
    fn name(&self) -> String {
        "smart".into()
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let ctx = Context::new(view);
        let scorers: [&dyn Scorer; 5] = [&Heuristic, &Carrier, &Support, &Disabler, &BotaGorda];
        let weights = Smart::weights(&ctx);
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
    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}
