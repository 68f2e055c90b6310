//! The two-faced `pimc` ([`Pimc`]): deals sampled consistently with
//! everything public ([`crate::determinize`]), weighted by an opponent
//! model, played out with a rollout policy ([`Rollout`]) or solved exactly
//! near the end of a hand; a move's value is the hand won or lost (or,
//! under penalty scoring, the pips kept), and [`analyse`] also estimates
//! the chance each move wins the hand.

use std::sync::Arc;

use capicua_engine::{Game, Move, MoveList, Rules, Side};

use super::playout::{Rollout, hand_value, hand_won, roll_out, solve, tiles_in_hands};
use super::rules_cache::RulesCache;
use super::{Heuristic, Scored, Strategy};
use crate::determinize::{self, PlayModel};
use crate::facts::PublicFacts;
use crate::pimc::{Budget, Playout, Ties, Value, search};
use crate::rng::BotRng;
use crate::seat_view::SeatView;
use crate::stop::StopFlag;

/// The knobs of [`Pimc`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PimcConfig {
    /// The budget per move.
    pub budget: Budget,
    /// The rollout policy.
    pub rollout: Rollout,
    /// Rollouts per sample and candidate move.
    pub rollouts: u32,
    /// How other seats are assumed to play, to weigh the samples.
    pub model: PlayModel,
    /// Solve a sample exactly (alpha-beta on win / tie / loss) instead of
    /// rolling it out once at most this many tiles remain in all hands.
    pub solve_below: u32,
    /// Deals drawn per sample, of which one is played out, picked in
    /// proportion to its weight under `model`: more of the work goes to
    /// the deals that explain the opponents' plays (1: every deal drawn
    /// is played out).
    pub pool: u32,
}

impl Default for PimcConfig {
    /// The strongest configuration measured within 20 ms a move on one core
    /// (the book, "The arena and the ladder"): 2000 samples weighted by a heavy-shedding
    /// opponent model (`beta` 3), rolled out with the deciding side
    /// blocking, solved exactly from 10 tiles in hand.
    fn default() -> PimcConfig {
        PimcConfig {
            budget: Budget { samples: 2000, time: None },
            rollout: Rollout::OwnBlock,
            rollouts: 1,
            solve_below: 10,
            model: PlayModel::Heavy { beta: 3.0 },
            pool: 1,
        }
    }
}

/// The perfect-information Monte Carlo player.
pub struct Pimc {
    config: PimcConfig,
    rng: BotRng,
    rules: RulesCache,
    fallback: Scored<Heuristic>,
    stop: Option<StopFlag>,
}

impl Pimc {
    /// A PIMC player.
    pub fn new(config: PimcConfig, seed: u64) -> Pimc {
        Pimc {
            config,
            rng: BotRng::new(seed),
            rules: RulesCache::default(),
            fallback: Scored::new(Heuristic, seed),
            stop: None,
        }
    }
}

/// One legal move as [`Pimc`] sees it from the viewer's seat.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveEstimate {
    /// The move.
    pub mv: Move,
    /// The estimated chance (0..=1) that the viewer's side wins the hand
    /// after this move: the weighted share of the sampled deals' playouts
    /// in which the engine names the viewer's side the hand's winner (under
    /// penalty scoring too, where pimc itself plays on pips instead).
    pub win: f64,
    /// Pimc's mean value of the move (about -1..1, see the module docs):
    /// what [`Pimc`] maximises.
    pub value: f64,
}

/// What [`Pimc`] thinks of every legal move at one decision: the answer to
/// "what would the strongest bot play here, and how likely is the hand won".
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Every legal move, in the order [`SeatView::legal_moves`] gives them.
    pub moves: Vec<MoveEstimate>,
    /// The move [`Pimc`] plays with the same budget and seed. With no
    /// sample drawn (stopped at once, or no consistent deal found) it is
    /// the fallback heuristic's move and every estimate is 0.
    pub best: Move,
    /// Deals sampled (at most the budget's `samples`).
    pub samples: u32,
}

impl Analysis {
    /// The estimate of `mv`, if it is legal.
    pub fn of(&self, mv: Move) -> Option<&MoveEstimate> {
        self.moves.iter().find(|e| e.mv == mv)
    }
}

/// Analyses the decision of `view`'s seat with a fresh [`Pimc`] of
/// `config` seeded with `seed`: for each legal move the chance that the
/// viewer's side wins the hand and pimc's value, and the move pimc would
/// play. It reads only the seat's view (the hidden tiles are sampled, never
/// looked at), and for a given seed and sample budget (no time cap hit) the
/// answer is always the same.
///
/// ```
/// use capicua_engine::{Game, Rules, Seat, Seating};
/// use capicua_strategy::TableSeat;
/// use capicua_strategy::strategy::{Budget, PimcConfig, analyse};
///
/// let game = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 3).unwrap();
/// let seat = game.to_move().unwrap();
/// let config = PimcConfig { budget: Budget { samples: 20, time: None }, ..PimcConfig::default() };
/// let a = analyse(&TableSeat::new(&game, seat), config, 9);
/// assert_eq!(a.samples, 20);
/// assert!(a.moves.iter().all(|e| (0.0..=1.0).contains(&e.win)));
/// assert!(a.of(a.best).is_some());
/// assert_eq!(a, analyse(&TableSeat::new(&game, seat), config, 9));
/// ```
pub fn analyse(view: &dyn SeatView, config: PimcConfig, seed: u64) -> Analysis {
    Pimc::new(config, seed).analyse(view)
}

impl Pimc {
    /// Analyses the decision of `view`'s seat (see [`analyse`]), drawing
    /// from this player's random stream: [`Strategy::choose`] plays the
    /// `best` of this analysis.
    pub fn analyse(&mut self, view: &dyn SeatView) -> Analysis {
        let mut legal = MoveList::new();
        view.legal_moves(&mut legal);
        let mut playout = TilesPlayout {
            view,
            rules: self.rules.of(view),
            facts: PublicFacts::of(view),
            config: self.config,
            side: view.side_of(view.seat()),
            hands_before: view.hand_number() as usize,
            scratch: MoveList::new(),
        };
        let c = self.config;
        let tally = search(&mut playout, &legal, c.budget, c.rollouts, &self.stop, &mut self.rng);
        if tally.samples == 0 {
            let best = if legal.len() == 1 { legal[0] } else { self.fallback.choose(view) };
            let moves = legal.iter().map(|&mv| MoveEstimate { mv, win: 0.0, value: 0.0 }).collect();
            return Analysis { moves, best, samples: 0 };
        }
        let best = tally.best(Ties::Last).expect("one move at least");
        let moves = legal
            .iter()
            .enumerate()
            .map(|(i, &mv)| MoveEstimate { mv, win: tally.win(i), value: tally.value(i) })
            .collect();
        Analysis { moves, best: legal[best], samples: tally.samples }
    }
}

/// The two-faced half of the search for one decision.
struct TilesPlayout<'a> {
    view: &'a dyn SeatView,
    rules: Arc<Rules>,
    facts: PublicFacts,
    config: PimcConfig,
    /// The deciding seat's side.
    side: Side,
    /// Hands finished before this one in the real match.
    hands_before: usize,
    scratch: MoveList,
}

impl Playout for TilesPlayout<'_> {
    type Game = Game;

    /// Of [`PimcConfig::pool`] deals drawn, one picked in proportion to its
    /// weight under the opponent model, weighing the mean of the pool's
    /// weights (sampling importance resampling; one deal drawn is just
    /// that deal).
    fn draw(&mut self, rng: &mut BotRng) -> Option<(Game, f64)> {
        let mut pool: Vec<determinize::Deal> = (0..self.config.pool.max(1))
            .filter_map(|_| determinize::sample_weighted(self.view, &self.rules, &self.facts, self.config.model, rng))
            .collect();
        if pool.len() <= 1 {
            return pool.pop().map(|d| self.checked(d.game, d.log_weight));
        }
        let top = pool.iter().map(|d| d.log_weight).fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = pool.iter().map(|d| (d.log_weight - top).exp()).collect();
        let sum: f64 = weights.iter().sum();
        let mut pick = rng.unit() * sum;
        let mut at = pool.len() - 1;
        for (i, w) in weights.iter().enumerate() {
            if pick < *w {
                at = i;
                break;
            }
            pick -= w;
        }
        let log_weight = top + (sum / pool.len() as f64).ln();
        Some(self.checked(pool.swap_remove(at).game, log_weight))
    }

    /// Alpha-beta on win / tie / loss once at most
    /// [`PimcConfig::solve_below`] tiles remain in all hands, every move
    /// sharing one bound on the work.
    fn solve(&mut self, deal: &Game, legal: &[Move]) -> Option<Vec<Value>> {
        if tiles_in_hands(deal) > self.config.solve_below {
            return None;
        }
        let before = deal.hand_results().len();
        let mut nodes = SOLVE_NODES;
        legal
            .iter()
            .map(|&m| {
                let mut g = deal.clone();
                g.play(m).expect("a legal move stays legal in a consistent deal");
                let (value, win) = solve(&g, before, self.side, f64::NEG_INFINITY, f64::INFINITY, &mut nodes)?;
                Some(Value { value, win })
            })
            .collect()
    }

    fn roll_out(&mut self, deal: &Game, game: &mut Game, rng: &mut BotRng) {
        let before = deal.hand_results().len();
        roll_out(game, before, self.config.rollout, self.side, rng, &mut self.scratch);
    }

    fn value(&self, deal: &Game, end: &Game) -> Value {
        let before = deal.hand_results().len();
        Value { value: hand_value(end, before, self.side), win: hand_won(end, before, self.side) }
    }
}

impl TilesPlayout<'_> {
    /// A drawn deal, as the search sees it. Hand results index from the
    /// first hand of the match; a determinized game starts at this hand
    /// with none recorded.
    fn checked(&self, deal: Game, log_weight: f64) -> (Game, f64) {
        let before = deal.hand_results().len();
        debug_assert!(before == 0 || before == self.hands_before);
        (deal, log_weight)
    }
}

/// Positions one exact solve may visit before it gives up: few tiles in
/// hand do not make a small tree when a stock is left to draw from or many
/// seats pass around (a ten-seat train game), so the solver is bounded by
/// work, not by tiles, and the caller falls back to rollouts.
const SOLVE_NODES: u32 = 20_000;

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
        if c.rollout != d.rollout {
            s += match c.rollout {
                Rollout::Heavy => ":rollout=heavy",
                Rollout::Random => ":rollout=random",
                Rollout::Block => ":rollout=block",
                Rollout::OwnBlock => ":rollout=own-block",
            };
        }
        if c.solve_below != d.solve_below {
            s += &format!(":solve={}", c.solve_below);
        }
        if c.model != d.model {
            match c.model {
                PlayModel::Uniform => s += ":model=uniform",
                PlayModel::Heavy { beta } => s += &format!(":model=heavy:beta={beta}"),
            }
        }
        if c.rollouts != 1 {
            s += &format!(":rollouts={}", c.rollouts);
        }
        if c.pool != d.pool {
            s += &format!(":pool={}", c.pool);
        }
        s
    }

    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let mut legal = MoveList::new();
        view.legal_moves(&mut legal);
        if legal.len() <= 1 {
            return legal.first().copied().unwrap_or(Move::Pass);
        }
        self.analyse(view).best
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
    use capicua_engine::{Seat, Seating};

    /// The analysis reads the seat's view only: two games whose viewer's
    /// hand and public history are the same but whose hidden hands differ
    /// get the same analysis, and its best move is the one pimc plays.
    #[test]
    fn analysis_reads_only_the_seats_view() {
        use capicua_engine::{Action, Setup, TileSet};
        let rules: Arc<Rules> = Rules::preset("block").unwrap().into();
        // A deal whose first round (heaviest tile first) has no pass, which
        // would make the other deal's history illegal.
        let round = |seed: u64| {
            let dealt = Game::new(rules.clone(), Seating::new(4), seed).unwrap();
            let me = dealt.to_move().unwrap();
            let hands: Vec<TileSet> = (0..4).map(|s| dealt.hand(Seat(s))).collect();
            let setup = Setup { seed, hand: 0, scores: vec![], hands: hands.clone(), stock: vec![], leader: me };
            let mut a = Game::from_setup(rules.clone(), Seating::new(4), setup).unwrap();
            let mut moves = MoveList::new();
            for _ in 0..4 {
                a.fill_legal_moves(&mut moves);
                let m = moves.iter().copied().max_by_key(|m| match m {
                    Move::Play { tile, .. } => a.tile_value(*tile),
                    _ => -1,
                });
                a.play(m.unwrap()).unwrap();
            }
            let played: TileSet = a
                .history()
                .iter()
                .filter_map(|r| match r.action {
                    Action::Play { tile, .. } => Some(tile),
                    _ => None,
                })
                .collect();
            (played.len() == 4).then_some((seed, me, hands, a, played))
        };
        let (seed, me, hands, a, played) = (0..100).find_map(round).expect("a round without a pass");
        assert_eq!(a.to_move(), Some(me));
        // Game b: the viewer's hand and every played tile where they were,
        // the other seats' unplayed tiles dealt among them the other way round.
        let others: Vec<usize> = (0..4).filter(|&s| s != me.index()).collect();
        let mut unplayed: Vec<_> =
            others.iter().flat_map(|&s| hands[s].minus(played).iter().collect::<Vec<_>>()).collect();
        unplayed.reverse();
        let mut other = hands.clone();
        for &s in &others {
            let keep = hands[s].and(played);
            let take = hands[s].len() - keep.len();
            other[s] = keep.or(unplayed.drain(..take).collect());
        }
        assert_ne!(other, hands);
        let setup = Setup { seed, hand: 0, scores: vec![], hands: other, stock: vec![], leader: me };
        let mut b = Game::from_setup(rules.clone(), Seating::new(4), setup).unwrap();
        for r in a.history().to_vec() {
            let Action::Play { tile, end, face } = r.action else { unreachable!() };
            b.play(Move::Play { tile, end, face }).unwrap();
        }
        assert_eq!(a.hand(me), b.hand(me));
        assert_ne!(
            (0..4).map(|s| a.hand(Seat(s))).collect::<Vec<_>>(),
            (0..4).map(|s| b.hand(Seat(s))).collect::<Vec<_>>()
        );
        let config = PimcConfig { budget: Budget { samples: 40, time: None }, ..PimcConfig::default() };
        let of_a = analyse(&TableSeat::new(&a, me), config, 11);
        let of_b = analyse(&TableSeat::new(&b, me), config, 11);
        assert_eq!(of_a, of_b);
        assert_eq!(of_a.samples, 40);
        assert!(of_a.moves.len() > 1);
        assert!(of_a.moves.iter().any(|e| e.win > 0.0 && e.win < 1.0), "{of_a:?}");
        assert_eq!(of_a.best, Pimc::new(config, 11).choose(&TableSeat::new(&a, me)));
    }
}
