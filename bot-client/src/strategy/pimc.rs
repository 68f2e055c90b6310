//! `pimc`: perfect-information Monte Carlo.
//!
//! For each sample, deal the hidden tiles consistently with everything
//! public ([`crate::determinize`]), then play every candidate move out to
//! the end of the hand in that now fully visible deal with a fast rollout
//! policy. The move with the best mean result over all samples is played.
//! The budget is a number of samples, optionally capped by a time per move
//! (a time cap makes play depend on the machine: the arena's
//! reproducibility holds for sample budgets only).

use std::sync::Arc;
use std::time::{Duration, Instant};

use capicua_engine::{Game, Move, MoveList, Rules, Side};

use super::{Heuristic, Scored, Strategy};
use crate::determinize;
use crate::facts::PublicFacts;
use crate::rng::BotRng;
use crate::seat_view::SeatView;

/// How a determinized deal is played out after a candidate move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Every seat plays uniformly at random.
    Random,
    /// Every seat plays its heaviest playable tile (random among equals).
    Heavy,
}

/// When to stop sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Samples per move.
    pub samples: u32,
    /// A wall-clock cap per move, if any.
    pub time: Option<Duration>,
}

/// The knobs of [`Pimc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PimcConfig {
    /// The budget per move.
    pub budget: Budget,
    /// The rollout policy.
    pub rollout: Rollout,
    /// Rollouts per sample and candidate move.
    pub rollouts: u32,
}

impl Default for PimcConfig {
    fn default() -> PimcConfig {
        PimcConfig { budget: Budget { samples: 200, time: None }, rollout: Rollout::Heavy, rollouts: 1 }
    }
}

/// The perfect-information Monte Carlo player.
pub struct Pimc {
    config: PimcConfig,
    rng: BotRng,
    rules: Option<Arc<Rules>>,
    fallback: Scored<Heuristic>,
}

impl Pimc {
    /// A PIMC player.
    pub fn new(config: PimcConfig, seed: u64) -> Pimc {
        Pimc { config, rng: BotRng::new(seed), rules: None, fallback: Scored::new(Heuristic, seed) }
    }

    /// Shared rules for determinized games (rebuilt only when the variant changes).
    fn rules_for(&mut self, view: &dyn SeatView) -> Arc<Rules> {
        match &self.rules {
            Some(r) if r.variant() == view.rules().variant() => r.clone(),
            _ => {
                let r = Arc::new(view.rules().clone());
                self.rules = Some(r.clone());
                r
            }
        }
    }
}

/// The value of the finished hand (or match) for `side`: +1 won, -1 lost,
/// 0 nobody won, plus a little for the points so that among equally likely
/// wins the bigger one is preferred.
fn hand_value(game: &Game, hands_before: usize, side: Side) -> f64 {
    let Some(r) = game.hand_results().get(hands_before) else { return 0.0 };
    let points = 0.001 * r.points.min(200) as f64;
    match r.winner {
        Some(w) if w == side => 1.0 + points,
        Some(_) => -1.0 - points,
        None => 0.0,
    }
}

/// Plays `game` to the end of the current hand with `policy`.
fn roll_out(game: &mut Game, hands_before: usize, policy: Rollout, rng: &mut BotRng, moves: &mut MoveList) {
    let rules = game.rules_arc().clone();
    let cat = rules.catalog();
    while game.hand_results().len() == hands_before && game.to_move().is_some() {
        game.fill_legal_moves(moves);
        let m = match policy {
            Rollout::Random => moves[rng.below(moves.len())],
            Rollout::Heavy => {
                let mut best = moves[0];
                let mut best_value = i32::MIN;
                let mut ties = 0;
                for &m in moves.iter() {
                    let v = match m {
                        Move::Play { tile, .. } => cat.value(tile),
                        _ => -1,
                    };
                    if v > best_value {
                        best_value = v;
                        best = m;
                        ties = 1;
                    } else if v == best_value {
                        ties += 1;
                        if rng.below(ties) == 0 {
                            best = m;
                        }
                    }
                }
                best
            }
        };
        game.play(m).expect("rollouts play legal moves");
    }
}

impl Strategy for Pimc {
    fn name(&self) -> String {
        let c = &self.config;
        let d = PimcConfig::default();
        let mut s = "pimc".to_string();
        if c.budget.samples != d.budget.samples {
            s += &format!(":samples={}", c.budget.samples);
        }
        if let Some(t) = c.budget.time {
            s += &format!(":ms={}", t.as_millis());
        }
        if c.rollout == Rollout::Random {
            s += ":rollout=random";
        }
        if c.rollouts != 1 {
            s += &format!(":rollouts={}", c.rollouts);
        }
        s
    }

    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let started = Instant::now();
        let mut legal = MoveList::new();
        view.legal_moves(&mut legal);
        if legal.len() <= 1 {
            return legal.first().copied().unwrap_or(Move::Pass);
        }
        let rules = self.rules_for(view);
        let facts = PublicFacts::of(view);
        let side = view.side_of(view.seat());
        let hands_before = view.hand_number() as usize;
        let mut totals = vec![0.0f64; legal.len()];
        let mut sampled = 0u32;
        let mut scratch = MoveList::new();
        for _ in 0..self.config.budget.samples {
            if self.config.budget.time.is_some_and(|t| sampled > 0 && started.elapsed() >= t) {
                break;
            }
            let Some(deal) = determinize::sample(view, &rules, &facts, &mut self.rng) else { continue };
            // Hand results index from the first hand of the match; a
            // determinized game starts at this hand with none recorded.
            let before = deal.game.hand_results().len();
            debug_assert!(before == 0 || before == hands_before);
            for (i, &m) in legal.iter().enumerate() {
                for _ in 0..self.config.rollouts {
                    let mut g = deal.game.clone();
                    g.play(m).expect("a legal move stays legal in a consistent deal");
                    roll_out(&mut g, before, self.config.rollout, &mut self.rng, &mut scratch);
                    totals[i] += hand_value(&g, before, side);
                }
            }
            sampled += 1;
        }
        if sampled == 0 {
            return self.fallback.choose(view);
        }
        let best = (0..legal.len()).max_by(|&a, &b| totals[a].total_cmp(&totals[b])).expect("two moves at least");
        legal[best]
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
        self.fallback.reseed(seed);
    }
}
