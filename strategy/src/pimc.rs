//! `pimc`: perfect-information Monte Carlo, one search for both tile
//! families.
//!
//! For each sample, deal the hidden tiles consistently with everything the
//! seat may know, then play every legal move out to the end of the hand in
//! that now open deal with a fast rollout policy (or, when the deal is
//! small, solve it exactly). Each move's value is averaged over the
//! samples, weighted by how well each deal explains what the other seats
//! did, and the move with the best mean is played. Every move meets the
//! same samples. The budget is a number of samples, optionally capped by a
//! time per move: a time cap makes play depend on the machine; a sample
//! budget is reproducible from the seed.
//!
//! The loop is written once, over any [`Family`] of game; what differs per
//! family is a playout: how a deal is sampled (and weighed), how it is
//! played out, whether it can be solved exactly, and what the end reached
//! is worth. The two-faced player is [`crate::strategy::Pimc`], the player
//! of tiles with 3, 4 or 6 faces [`crate::poly::PolyPimc`]; both keep their
//! own configuration and analysis (the two-faced one estimates the chance
//! of winning the hand, which the server's hints show).

use std::time::{Duration, Instant};

use capicua_engine::Family;

use crate::rng::BotRng;
use crate::stop::{StopFlag, raised};

/// When to stop sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Samples per move.
    pub samples: u32,
    /// A wall-clock cap per move, if any (at least one sample is drawn
    /// unless the search is stopped).
    pub time: Option<Duration>,
}

/// What a move is worth at the end of one playout.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Value {
    /// What the search maximises.
    pub(crate) value: f64,
    /// 1 if the seat's side won the hand, else 0 (a family that does not
    /// estimate wins leaves it 0).
    pub(crate) win: f64,
}

/// What one family's search decides for itself: one instance serves one
/// decision, borrowing the seat's view.
pub(crate) trait Playout {
    /// The game a deal is played out in.
    type Game: Family;

    /// One deal consistent with the view (every hidden tile placed) and its
    /// log weight (0 when every consistent deal is as likely); `None` when
    /// no consistent deal was found this time.
    fn draw(&mut self, rng: &mut BotRng) -> Option<(Self::Game, f64)>;

    /// The exact value of every move of `legal` in `deal`, when the deal is
    /// small enough to solve; `None` to roll it out.
    fn solve(&mut self, deal: &Self::Game, legal: &[Move<Self>]) -> Option<Vec<Value>> {
        let _ = (deal, legal);
        None
    }

    /// Plays `game` (`deal` after a candidate move) to the end of the hand.
    fn roll_out(&mut self, deal: &Self::Game, game: &mut Self::Game, rng: &mut BotRng);

    /// What the end reached in `end` is worth, from `deal`.
    fn value(&self, deal: &Self::Game, end: &Self::Game) -> Value;
}

/// A move of a playout's game.
pub(crate) type Move<P> = <<P as Playout>::Game as Family>::Move;

/// Which of several moves of equal mean is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ties {
    /// The first listed: the engine lists a tile's placements in a fixed
    /// order, so equal placements resolve the same way every time.
    First,
    /// The last listed.
    Last,
}

/// Each move's values summed over the samples, weighted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tally {
    /// By move: the weighted sum of its values.
    totals: Vec<f64>,
    /// By move: the weighted sum of its wins.
    wins: Vec<f64>,
    /// What a mean divides by: the samples' total weight times the
    /// playouts per sample.
    per: f64,
    /// Deals sampled.
    pub(crate) samples: u32,
}

impl Tally {
    /// No sample yet, for `moves` moves.
    pub(crate) fn empty(moves: usize) -> Tally {
        Tally { totals: vec![0.0; moves], wins: vec![0.0; moves], per: 1.0, samples: 0 }
    }

    /// The mean value of move `i` (0 with no sample).
    pub(crate) fn value(&self, i: usize) -> f64 {
        self.totals[i] / self.per
    }

    /// The estimated chance that move `i` wins the hand (0..=1).
    pub(crate) fn win(&self, i: usize) -> f64 {
        (self.wins[i] / self.per).clamp(0.0, 1.0)
    }

    /// The index of the move with the best mean, `None` with no move.
    pub(crate) fn best(&self, ties: Ties) -> Option<usize> {
        let n = self.totals.len();
        match ties {
            Ties::Last => (0..n).max_by(|&a, &b| self.totals[a].total_cmp(&self.totals[b])),
            Ties::First => {
                (n > 0).then(|| (1..n).fold(0, |best, i| if self.totals[i] > self.totals[best] { i } else { best }))
            }
        }
    }
}

/// The sampling loop: up to `budget` deals from `playout`, every move of
/// `legal` played out `rollouts` times in each (or solved once, counting as
/// `rollouts` playouts), the values weighted by each deal's likelihood.
/// Stops early when the time cap is reached or `stop` is raised once a
/// sample is in (a raised flag stops it before the first, too).
pub(crate) fn search<P: Playout>(
    playout: &mut P,
    legal: &[Move<P>],
    budget: Budget,
    rollouts: u32,
    stop: &Option<StopFlag>,
    rng: &mut BotRng,
) -> Tally {
    let started = Instant::now();
    // Per sample: its log weight, then each move's summed values and wins.
    let mut values: Vec<(f64, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut sampled = 0u32;
    for _ in 0..budget.samples {
        if sampled > 0 && (budget.time.is_some_and(|t| started.elapsed() >= t) || raised(stop)) {
            break;
        }
        if raised(stop) || legal.is_empty() {
            break;
        }
        let Some((deal, log_weight)) = playout.draw(rng) else { continue };
        let mut totals = vec![0.0f64; legal.len()];
        let mut wins = vec![0.0f64; legal.len()];
        let solved = playout.solve(&deal, legal);
        for (i, &m) in legal.iter().enumerate() {
            if let Some(exact) = &solved {
                totals[i] += exact[i].value * rollouts as f64;
                wins[i] += exact[i].win * rollouts as f64;
                continue;
            }
            for _ in 0..rollouts {
                let mut g = deal.clone();
                g.play(m).expect("a legal move stays legal in a consistent deal");
                playout.roll_out(&deal, &mut g, rng);
                let v = playout.value(&deal, &g);
                totals[i] += v.value;
                wins[i] += v.win;
            }
        }
        values.push((log_weight, totals, wins));
        sampled += 1;
    }
    let mut tally = Tally::empty(legal.len());
    if sampled == 0 {
        return tally;
    }
    // Weigh each sample by its likelihood (all equal under a uniform model).
    let top = values.iter().map(|v| v.0).fold(f64::NEG_INFINITY, f64::max);
    let mut weight = 0.0;
    for (log_weight, v, won) in &values {
        let w = (log_weight - top).exp();
        weight += w;
        for (t, x) in tally.totals.iter_mut().zip(v) {
            *t += w * x;
        }
        for (t, x) in tally.wins.iter_mut().zip(won) {
            *t += w * x;
        }
    }
    tally.per = weight * rollouts.max(1) as f64;
    tally.samples = sampled;
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{Game, Rules, Seating};
    use std::cell::Cell;

    /// A scripted search over one real position: deal `k` has weight
    /// `weights[k]`, and every move `i` played out in it is worth
    /// `values[k][i]` (a win when positive).
    struct Scripted {
        game: Game,
        weights: Vec<f64>,
        values: Vec<Vec<f64>>,
        drawn: usize,
        playouts: Cell<usize>,
    }

    impl Playout for Scripted {
        type Game = Game;

        fn draw(&mut self, _: &mut BotRng) -> Option<(Game, f64)> {
            self.drawn += 1;
            self.weights.get(self.drawn - 1).map(|w| (self.game.clone(), w.ln()))
        }

        fn roll_out(&mut self, _: &Game, _: &mut Game, _: &mut BotRng) {}

        fn value(&self, _: &Game, _: &Game) -> Value {
            let n = self.playouts.replace(self.playouts.get() + 1);
            let v = self.values[n / self.values[0].len()][n % self.values[0].len()];
            Value { value: v, win: (v > 0.0) as u8 as f64 }
        }
    }

    fn scripted(weights: &[f64], values: &[&[f64]]) -> (Scripted, Vec<capicua_engine::Move>) {
        let game = Game::new(Rules::preset("block").unwrap().into(), Seating::new(2), 1).unwrap();
        // The same move listed as many times as there are values: the
        // search tells moves apart by their place in the list.
        let legal = vec![game.legal_moves()[0]; values[0].len()];
        let values = values.iter().map(|v| v.to_vec()).collect();
        (Scripted { game, weights: weights.to_vec(), values, drawn: 0, playouts: Cell::new(0) }, legal)
    }

    const BUDGET: Budget = Budget { samples: 5, time: None };

    /// Each deal counts by its weight; a deal not found spends the budget
    /// without counting.
    #[test]
    fn values_are_averaged_by_the_weight_of_each_deal() {
        let (mut p, legal) = scripted(&[1.0, 3.0], &[&[1.0, 0.0, 1.0], &[0.0, 0.0, 1.0 / 3.0]]);
        let tally = search(&mut p, &legal, BUDGET, 1, &None, &mut BotRng::new(1));
        assert_eq!((tally.samples, p.drawn), (2, 5));
        let means: Vec<f64> = (0..3).map(|i| tally.value(i)).collect();
        assert!(means.iter().zip([0.25, 0.0, 0.5]).all(|(m, e)| (m - e).abs() < 1e-12), "{means:?}");
        assert_eq!((tally.win(0), tally.win(1), tally.win(2)), (0.25, 0.0, 1.0));
        assert_eq!(tally.best(Ties::First), Some(2));
    }

    /// Equal means go to the first or the last move listed, as asked.
    #[test]
    fn ties_go_to_the_first_or_the_last_move() {
        let (mut p, legal) = scripted(&[1.0], &[&[1.0, 1.0, 0.0]]);
        let tally = search(&mut p, &legal, BUDGET, 1, &None, &mut BotRng::new(1));
        assert_eq!((tally.best(Ties::First), tally.best(Ties::Last)), (Some(0), Some(1)));
        assert_eq!(Tally::empty(0).best(Ties::First), None);
    }

    /// A raised flag stops the search before the first deal.
    #[test]
    fn a_raised_flag_draws_nothing() {
        let (mut p, legal) = scripted(&[1.0], &[&[1.0, 0.0]]);
        let stop = StopFlag::new();
        stop.stop();
        let tally = search(&mut p, &legal, BUDGET, 1, &Some(stop), &mut BotRng::new(1));
        assert_eq!((tally.samples, p.drawn), (0, 0));
        assert_eq!(tally.value(0), 0.0);
    }
}
