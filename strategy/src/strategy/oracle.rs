//! `oracle`: perfect play with every hand face up, a ceiling to measure
//! the honest strategies against.
//!
//! The oracle reads every seat's hand ([`Strategy::sees_all_hands`]); only
//! the operator's own arena shows them ([`crate::TableSeat::open`]), and no
//! server hosts it ([`crate::Policy::sees_hands`]). What stays hidden even
//! from the oracle is the order of the stock: in a draw game it samples
//! stock orders consistent with the draws seen (the same sampler as `pimc`,
//! [`crate::determinize`], which then has nothing else to sample) and plays
//! the move with the best mean over them. Without a stock (latin, block for
//! four) nothing is sampled: one search decides.
//!
//! For each deal the oracle searches the rest of the hand exactly
//! (alpha-beta on win / tie / loss, both sides playing perfectly on open
//! cards, the search `pimc` runs near the end of a hand) within a budget of
//! positions. When the budget runs out (early in a hand, or many passes and
//! draws to come) that deal is played out instead: every move by
//! `rollouts` heavy rollouts of the open deal. Moves the exact search
//! values alike (all won, or all lost against perfect defence) are told
//! apart by the same rollouts: against players who are not perfect, a
//! lost hand may still be won.
//!
//! Given a view that hides hands (a seat in play, where no one shows it
//! the table) it samples the hidden hands like `pimc` would: it is then a
//! PIMC with few samples, not an oracle.

use std::time::{Duration, Instant};

use capicua_engine::{Move, MoveList, Seat};

use super::playout::{hand_value, roll_out, solve};
use super::rules_cache::RulesCache;
use super::{Heuristic, Rollout, Scored, Strategy};
use crate::determinize;
use crate::facts::PublicFacts;
use crate::rng::BotRng;
use crate::seat_view::SeatView;
use crate::stop::{StopFlag, raised};

/// The weight of an exact result against a rollout mean (about -1..1):
/// a move the exact search proves better always comes first.
const SOLVED: f64 = 10.0;

/// The knobs of [`Oracle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OracleConfig {
    /// Positions the exact search may visit per deal and decision.
    pub nodes: u32,
    /// Stock orders (or, with hands hidden, deals) sampled per decision;
    /// one when nothing is hidden.
    pub samples: u32,
    /// Heavy rollouts per move of a deal the exact search could not finish.
    pub rollouts: u32,
    /// A wall-clock cap per decision, if any (checked between deals).
    pub time: Option<Duration>,
}

impl Default for OracleConfig {
    fn default() -> OracleConfig {
        OracleConfig { nodes: 200_000, samples: 8, rollouts: 32, time: None }
    }
}

/// The perfect-information reference player.
pub struct Oracle {
    config: OracleConfig,
    rng: BotRng,
    rules: RulesCache,
    fallback: Scored<Heuristic>,
    stop: Option<StopFlag>,
}

impl Oracle {
    /// An oracle.
    pub fn new(config: OracleConfig, seed: u64) -> Oracle {
        Oracle {
            config,
            rng: BotRng::new(seed),
            rules: RulesCache::default(),
            fallback: Scored::new(Heuristic, seed),
            stop: None,
        }
    }

    /// Each legal move's mean value over the deals searched (+1 won, 0
    /// tied, -1 lost where solved exactly; the rollouts' mean otherwise),
    /// and how many deals; `None` when no deal could be sampled.
    fn values(&mut self, view: &dyn SeatView, legal: &MoveList) -> Option<(Vec<f64>, u32)> {
        let started = Instant::now();
        let rules = self.rules.of(view);
        let facts = PublicFacts::of(view);
        let side = view.side_of(view.seat());
        let all_seen = (0..view.seats()).map(Seat).all(|s| s == view.seat() || view.hand_of(s).is_some());
        let deals = if all_seen && view.stock_len() == 0 { 1 } else { self.config.samples.max(1) };
        let mut totals = vec![0.0f64; legal.len()];
        let mut scratch = MoveList::new();
        let mut searched = 0u32;
        for _ in 0..deals {
            if searched > 0 && (self.config.time.is_some_and(|t| started.elapsed() >= t) || raised(&self.stop)) {
                break;
            }
            let Some(deal) = determinize::sample(view, &rules, &facts, &mut self.rng) else { continue };
            let before = deal.game.hand_results().len();
            let mut nodes = self.config.nodes;
            let exact: Option<Vec<f64>> = legal
                .iter()
                .map(|&m| {
                    let mut g = deal.game.clone();
                    g.play(m).expect("a legal move stays legal in a consistent deal");
                    solve(&g, before, side, f64::NEG_INFINITY, f64::INFINITY, &mut nodes).map(|v| v.0)
                })
                .collect();
            // Moves the exact search cannot tell apart (all won, or all
            // lost against perfect defence) are told apart by rollouts:
            // how often a heavy-shedding table lets the hand be won.
            let exact_top = exact.as_ref().map(|v| v.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            let n = self.config.rollouts.max(1);
            for (i, &m) in legal.iter().enumerate() {
                let value = exact.as_ref().map(|v| v[i]);
                if let (Some(v), Some(top)) = (value, exact_top) {
                    totals[i] += SOLVED * v;
                    if v < top {
                        continue;
                    }
                }
                let mut sum = 0.0;
                for _ in 0..n {
                    let mut g = deal.game.clone();
                    g.play(m).expect("a legal move stays legal in a consistent deal");
                    roll_out(&mut g, before, Rollout::Heavy, side, &mut self.rng, &mut scratch);
                    sum += hand_value(&g, before, side);
                }
                totals[i] += sum / n as f64;
            }
            searched += 1;
        }
        (searched > 0).then(|| (totals.into_iter().map(|t| t / searched as f64).collect(), searched))
    }
}

impl Strategy for Oracle {
    fn name(&self) -> String {
        let c = &self.config;
        let d = OracleConfig::default();
        let mut s = "oracle".to_string();
        if c.nodes != d.nodes {
            s += &format!(":nodes={}", c.nodes);
        }
        if c.samples != d.samples {
            s += &format!(":samples={}", c.samples);
        }
        if c.rollouts != d.rollouts {
            s += &format!(":rollouts={}", c.rollouts);
        }
        if let Some(t) = c.time {
            s += &format!(":ms={}", t.as_millis());
        }
        s
    }

    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let mut legal = MoveList::new();
        view.legal_moves(&mut legal);
        if legal.len() <= 1 {
            return legal.first().copied().unwrap_or(Move::Pass);
        }
        match self.values(view, &legal) {
            Some((values, _)) => {
                let best = (0..legal.len()).max_by(|&a, &b| values[a].total_cmp(&values[b])).expect("two moves");
                legal[best]
            }
            None => self.fallback.choose(view),
        }
    }

    fn sees_all_hands(&self) -> bool {
        true
    }

    fn watch(&mut self, stop: &StopFlag) {
        self.stop = Some(stop.clone());
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
        self.fallback.reseed(seed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seat_view::TableSeat;
    use capicua_engine::{Game, Rules, Seating};
    use std::sync::Arc;

    /// Latin positions near the end of a hand, with a choice to make: the
    /// real game and the seat to move.
    fn endgames() -> impl Iterator<Item = (Game, Seat)> {
        let rules: Arc<Rules> = Rules::preset("latin").unwrap().into();
        (0..60u64).filter_map(move |seed| {
            let mut g = Game::new(rules.clone(), Seating::new(4), seed).unwrap();
            let mut rng = BotRng::new(seed);
            let mut moves = MoveList::new();
            // Random play down to at most 12 tiles in hand, then the first
            // decision between two moves or more.
            while let Some(seat) = g.to_move() {
                g.fill_legal_moves(&mut moves);
                if super::super::playout::tiles_in_hands(&g) <= 12 && moves.len() > 1 {
                    return Some((g, seat));
                }
                let m = moves[rng.below(moves.len())];
                g.play(m).unwrap();
            }
            None
        })
    }

    /// The exact value of each legal move on the real deal.
    fn exact(g: &Game, seat: Seat) -> Vec<(Move, f64)> {
        let mut moves = MoveList::new();
        g.fill_legal_moves(&mut moves);
        let side = g.table().side_of(seat);
        moves
            .iter()
            .map(|&m| {
                let mut after = g.clone();
                after.play(m).unwrap();
                let v = solve(&after, 0, side, f64::NEG_INFINITY, f64::INFINITY, &mut u32::MAX.to_owned()).unwrap();
                (m, v.0)
            })
            .collect()
    }

    /// Shown the table, the oracle always plays a move of the best exact
    /// value; shown only its seat's view, the same search guesses the
    /// hidden hands and sometimes misses: it reads the hands it is shown.
    #[test]
    fn the_oracle_plays_perfectly_on_the_open_table_and_not_blind() {
        let mut positions = 0;
        let mut blind_misses = 0;
        for (g, seat) in endgames() {
            let values = exact(&g, seat);
            let best = values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
            if values.iter().all(|v| v.1 == best) {
                continue;
            }
            positions += 1;
            let value_of = |m: Move| values.iter().find(|v| v.0 == m).unwrap().1;
            let mut open = Oracle::new(OracleConfig::default(), 1);
            assert_eq!(value_of(open.choose(&TableSeat::open(&g, seat))), best, "{:?}", g.history());
            let mut blind = Oracle::new(OracleConfig { samples: 1, ..OracleConfig::default() }, 1);
            if value_of(blind.choose(&TableSeat::new(&g, seat))) < best {
                blind_misses += 1;
            }
        }
        assert!(positions >= 10, "only {positions} positions with a wrong move");
        assert!(blind_misses > 0, "the blind oracle never missed in {positions} positions");
    }

    #[test]
    fn the_oracle_names_only_its_changed_parameters() {
        assert_eq!(Oracle::new(OracleConfig::default(), 1).name(), "oracle");
        let c = OracleConfig { nodes: 5, time: Some(Duration::from_millis(20)), ..OracleConfig::default() };
        assert_eq!(Oracle::new(c, 1).name(), "oracle:nodes=5:ms=20");
    }
}
