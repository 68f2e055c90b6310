//! The poly `pimc` ([`PolyPimc`]) for tiles with 3, 4 or 6 faces.
//!
//! For each sample, the tiles the seat has not seen are dealt at random into
//! the other hands and the stock at their public sizes
//! ([`PolyView::imagine`]), keeping out of each hand the tiles its seat is
//! known not to hold (what the public record proves); every legal move is
//! then played out in that now open deal to the end of the hand
//! ([`PolyRollout`]; by default every seat places its heaviest tile; with
//! `rollout=block` the other seats place their heaviest tile, the first such
//! move listed, while the seat places first the tile that fits in the fewest
//! ways and, once the next seat holds three tiles or fewer, the tile and
//! place that leave that seat the fewest placements), every seat drawing or
//! passing as the rules make it. A move's value is the points the seat gained
//! over the hand minus the mean of what the other seats gained (placement
//! points and the going-out bonus alike). Every deal is as likely: the
//! opponent model shapes the deal instead of weighing it.

use capicua_engine::poly::{PolyGame, PolyMove, PolyMoveList, PolyTileId, PolyView};

use super::PolyStrategy;
use super::record::Record;
use crate::pimc::{Budget, Playout, Tally, Ties, Value, search};
use crate::rng::BotRng;

/// When to stop sampling (the budget of both families' `pimc`).
pub type PolyBudget = Budget;

/// How the other seats are assumed to choose their tiles, to deal them
/// hands that fit what they did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolyModel {
    /// Nothing is assumed: only what the record proves (draws and passes)
    /// shapes the deal.
    Uniform,
    /// A seat places its heaviest playable tile: tiles heavier than the one
    /// it placed, that fitted the board it faced, are dealt to it only when
    /// too few others are left.
    #[default]
    Heavy,
}

/// How the seats play in a playout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolyRollout {
    /// Every seat places its heaviest tile, at random among equal moves.
    #[default]
    Heavy,
    /// Every seat places its heaviest tile, the first such move the engine
    /// lists (as `greedy`): a playout is a function of its deal.
    First,
    /// The other seats play as in `First`; the seat itself places first the
    /// tile that fits in the fewest ways (the heaviest among equals), keeping
    /// tiles that fit easily for the end of the hand.
    Tight,
    /// As `Tight`, except that once the next seat holds at most three
    /// tiles the seat places the tile, and where, that leaves the next seat
    /// the fewest moves (a seat that must draw or pass has none). Not the
    /// default: it costs 3 times the time of `Heavy` a move on triominoes
    /// and 30 times on quadominoes, for a gain not shown significant.
    Block,
}

/// The knobs of [`PolyPimc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyPimcConfig {
    /// The budget per move.
    pub budget: PolyBudget,
    /// How other seats are assumed to play.
    pub model: PolyModel,
    /// How playouts are played.
    pub rollout: PolyRollout,
}

impl Default for PolyPimcConfig {
    fn default() -> PolyPimcConfig {
        PolyPimcConfig {
            budget: PolyBudget { samples: 40, time: None },
            model: PolyModel::Heavy,
            rollout: PolyRollout::default(),
        }
    }
}

/// The poly perfect-information Monte Carlo player.
#[derive(Clone, Debug)]
pub struct PolyPimc {
    config: PolyPimcConfig,
    rng: BotRng,
    legal: PolyMoveList,
    buffers: Buffers,
    record: Record,
}

/// Memory the playouts reuse from move to move.
#[derive(Clone, Debug, Default)]
struct Buffers {
    unseen: Vec<PolyTileId>,
    moves: PolyMoveList,
    reply: PolyMoveList,
}

/// One legal move as [`PolyPimc`] sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyMoveEstimate {
    /// The move.
    pub mv: PolyMove,
    /// The mean, over the samples, of the points the seat gains by the end
    /// of the hand minus the mean the other seats gain.
    pub lead: f64,
}

/// What [`PolyPimc`] thinks of every legal move at one decision.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyAnalysis {
    /// Every legal move, in the order the view lists them.
    pub moves: Vec<PolyMoveEstimate>,
    /// The move played: the best mean lead (the first listed among equals).
    pub best: PolyMove,
    /// Deals sampled (0 when there was only one legal move).
    pub samples: u32,
}

impl PolyPimc {
    /// A poly PIMC player.
    pub fn new(config: PolyPimcConfig, seed: u64) -> PolyPimc {
        PolyPimc {
            config,
            rng: BotRng::new(seed),
            legal: PolyMoveList::default(),
            buffers: Buffers::default(),
            record: Record::default(),
        }
    }

    /// Analyses the decision of `view`'s seat, drawing from this player's
    /// random stream. It reads only the view: for a given seed and sample
    /// budget (no time cap hit) the answer depends on nothing hidden.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyRules};
    /// use capicua_strategy::poly::{PolyBudget, PolyPimc, PolyPimcConfig};
    ///
    /// let game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 3).unwrap();
    /// let config = PolyPimcConfig { budget: PolyBudget { samples: 8, time: None }, ..PolyPimcConfig::default() };
    /// let a = PolyPimc::new(config, 9).analyse(&game.view(0));
    /// assert_eq!(a.samples, 8);
    /// assert!(a.moves.iter().any(|e| e.mv == a.best));
    /// assert_eq!(a, PolyPimc::new(config, 9).analyse(&game.view(0)));
    /// ```
    pub fn analyse(&mut self, view: &PolyView<'_>) -> PolyAnalysis {
        let mut legal = std::mem::take(&mut self.legal);
        view.legal_moves(&mut legal);
        // A forced move is played without sampling.
        let tally = if legal.len() > 1 {
            let mut playout = PolyPlayout {
                view,
                record: &self.record,
                config: self.config,
                sizes: view.hand_sizes().collect(),
                buffers: &mut self.buffers,
            };
            search(&mut playout, &legal, self.config.budget, 1, &None, &mut self.rng)
        } else {
            Tally::empty(legal.len())
        };
        let moves = legal.iter().enumerate().map(|(i, &mv)| PolyMoveEstimate { mv, lead: tally.value(i) }).collect();
        let best = tally.best(Ties::First).and_then(|i| legal.get(i).copied()).unwrap_or(PolyMove::Pass);
        self.legal = legal;
        PolyAnalysis { moves, best, samples: tally.samples }
    }
}

/// The poly half of the search for one decision.
struct PolyPlayout<'a, 'v> {
    view: &'a PolyView<'v>,
    record: &'a Record,
    config: PolyPimcConfig,
    /// Every seat's hand size.
    sizes: Vec<usize>,
    buffers: &'a mut Buffers,
}

impl Playout for PolyPlayout<'_, '_> {
    type Game = PolyGame;

    /// The unseen tiles shuffled into the other hands, each hand taking
    /// tiles its seat may hold first (tiles it is known to lack only when
    /// too few are left, the record being then out of step), the rest (in
    /// shuffled order) the stock.
    fn draw(&mut self, rng: &mut BotRng) -> Option<(PolyGame, f64)> {
        let (view, record) = (self.view, self.record);
        let unseen = &mut self.buffers.unseen;
        view.unseen(unseen);
        rng.shuffle(unseen);
        let mut taken = vec![false; unseen.len()];
        let mut hands = Vec::with_capacity(self.sizes.len());
        let heavy = self.config.model == PolyModel::Heavy;
        let marked = |marks: &Vec<Vec<bool>>, s: usize, t: PolyTileId| {
            marks.get(s).and_then(|l| l.get(t.0 as usize)).copied().unwrap_or(false)
        };
        // 0: free, 1: doubted, 2: known lacking.
        let rank = |s: usize, t: PolyTileId| {
            if marked(&record.lacks, s, t) { 2 } else { (heavy && marked(&record.doubts, s, t)) as u8 }
        };
        for (s, &n) in self.sizes.iter().enumerate() {
            if s == view.seat() as usize {
                hands.push(view.hand().to_vec());
                continue;
            }
            let mut hand = Vec::with_capacity(n);
            for pass in 0..3 {
                for (i, &t) in unseen.iter().enumerate() {
                    if hand.len() == n {
                        break;
                    }
                    if !taken[i] && rank(s, t) == pass {
                        taken[i] = true;
                        hand.push(t);
                    }
                }
            }
            hands.push(hand);
        }
        let stock: Vec<PolyTileId> = unseen.iter().zip(&taken).filter(|(_, k)| !**k).map(|(&t, _)| t).collect();
        view.imagine(hands, stock, rng.next_u64()).ok().map(|deal| (deal, 0.0))
    }

    /// Plays to the end of the deal's hand (or of the match) as
    /// [`PolyRollout`] says.
    fn roll_out(&mut self, deal: &PolyGame, game: &mut PolyGame, rng: &mut BotRng) {
        let (hand, me) = (deal.hand_number(), self.view.seat());
        let rollout = self.config.rollout;
        let Buffers { moves, reply, .. } = &mut *self.buffers;
        while let Some(seat) = game.to_move().filter(|_| game.hand_number() == hand) {
            game.legal_moves(moves);
            let set = game.rules().set();
            let value = |t: PolyTileId| set.get(t).map_or(0, |t| t.value());
            let m = if seat == me && matches!(rollout, PolyRollout::Tight | PolyRollout::Block) {
                let next = (seat + 1) % game.seats();
                if rollout == PolyRollout::Block
                    && game.hand(next).len() <= 3
                    && matches!(moves[0], PolyMove::Play { .. })
                {
                    blocking(game, moves, reply)
                } else {
                    tightest(moves, value)
                }
            } else {
                heaviest(moves, value, (rollout == PolyRollout::Heavy).then_some(&mut *rng))
            };
            game.play(m).expect("rollouts play legal moves");
        }
    }

    /// The points the seat gained over the hand minus the mean of what the
    /// other seats gained.
    fn value(&self, deal: &PolyGame, end: &PolyGame) -> Value {
        let me = self.view.seat() as usize;
        let seats = self.sizes.len();
        let gains: Vec<f64> = end.scores().iter().zip(deal.scores()).map(|(a, b)| (a - b) as f64).collect();
        let others = (gains.iter().sum::<f64>() - gains[me]) / (seats - 1).max(1) as f64;
        Value { value: gains[me] - others, win: 0.0 }
    }
}

/// The move of `moves` placing the heaviest tile (a draw or pass ranks
/// below any); among equals the first listed, or with `rng` one at random.
fn heaviest(moves: &PolyMoveList, value: impl Fn(PolyTileId) -> i32, mut rng: Option<&mut BotRng>) -> PolyMove {
    let mut best = moves[0];
    let mut best_value = i32::MIN;
    let mut ties = 0;
    for &m in moves.iter() {
        let v = match m {
            PolyMove::Play { tile, .. } => value(tile),
            _ => -1,
        };
        if v > best_value {
            (best, best_value, ties) = (m, v, 1);
        } else if v == best_value
            && let Some(rng) = rng.as_deref_mut()
        {
            ties += 1;
            if rng.below(ties) == 0 {
                best = m;
            }
        }
    }
    best
}

/// The move of `moves` leaving the next seat the fewest placements, the
/// heaviest tile among equals.
fn blocking(game: &PolyGame, moves: &PolyMoveList, reply: &mut PolyMoveList) -> PolyMove {
    let set = game.rules().set();
    let mut best = moves[0];
    let mut best_key = (usize::MAX, i32::MIN);
    for &m in moves.iter() {
        let PolyMove::Play { tile, .. } = m else { continue };
        let mut g = game.clone();
        g.play(m).expect("rollouts play legal moves");
        g.legal_moves(reply);
        let n = reply.iter().filter(|r| matches!(r, PolyMove::Play { .. })).count();
        let v = set.get(tile).map_or(0, |t| t.value());
        if n < best_key.0 || (n == best_key.0 && v > best_key.1) {
            (best, best_key) = (m, (n, v));
        }
    }
    best
}

/// The first move of the tile with the fewest moves in `moves` (listed
/// tile by tile), the heaviest among equals; a draw or pass when no tile fits.
fn tightest(moves: &PolyMoveList, value: impl Fn(PolyTileId) -> i32) -> PolyMove {
    let mut best = moves[0];
    let mut best_key = (usize::MAX, i32::MIN);
    let mut i = 0;
    while i < moves.len() {
        let PolyMove::Play { tile, .. } = moves[i] else { return moves[i] };
        let mut n = 1;
        while i + n < moves.len() && matches!(moves[i + n], PolyMove::Play { tile: t, .. } if t == tile) {
            n += 1;
        }
        let v = value(tile);
        if n < best_key.0 || (n == best_key.0 && v > best_key.1) {
            (best, best_key) = (moves[i], (n, v));
        }
        i += n;
    }
    best
}

impl PolyStrategy for PolyPimc {
    fn name(&self) -> String {
        let c = &self.config;
        let mut s = "pimc".to_string();
        if c.budget.samples != PolyPimcConfig::default().budget.samples {
            s += &format!(":samples={}", c.budget.samples);
        }
        if let Some(t) = c.budget.time {
            s += &format!(":ms={}", t.as_millis());
        }
        if c.model == PolyModel::Uniform {
            s += ":model=uniform";
        }
        if c.rollout != PolyRollout::default() {
            s += match c.rollout {
                PolyRollout::Heavy => ":rollout=heavy",
                PolyRollout::First => ":rollout=first",
                PolyRollout::Tight => ":rollout=tight",
                PolyRollout::Block => ":rollout=block",
            };
        }
        s
    }

    /// Reads the record since its last move, then plays the best move of
    /// [`PolyPimc::analyse`].
    fn choose(&mut self, view: &PolyView<'_>) -> PolyMove {
        self.record.observe(view);
        let best = self.analyse(view).best;
        self.record.moved(view, best);
        best
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
        self.record = Record::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::PolyStrategy;
    use capicua_engine::poly::{PolyRules, PolyStuck};
    use std::sync::Arc;

    /// The analysis reads the seat's view only: two games whose viewer's
    /// hand, board, hand sizes, stock size and scores are the same, but
    /// whose other hand, stock and seed differ, get the same analysis.
    #[test]
    fn analysis_reads_only_the_seats_view() {
        // Draws would take different tiles from different stocks: pass instead.
        let mut v = capicua_engine::poly::poly_preset("triominoes").unwrap();
        v.stuck = PolyStuck::Pass;
        let rules = Arc::new(v.validate().unwrap());
        let dealt = PolyGame::new(rules.clone(), 2, 5).unwrap();
        let me = dealt.to_move().unwrap();
        let (mine, theirs) = (dealt.hand(me).to_vec(), dealt.hand(1 - me).to_vec());
        let stock = dealt.stock().to_vec();
        let deal = |theirs: Vec<PolyTileId>, stock: Vec<PolyTileId>, seed: u64| {
            let mut hands = vec![Vec::new(), Vec::new()];
            hands[me as usize] = mine.clone();
            hands[1 - me as usize] = theirs;
            PolyGame::from_deal(rules.clone(), seed, hands, stock, me).unwrap()
        };
        let mut a = deal(theirs.clone(), stock.clone(), 5);
        // Four placements (greedy), recorded to replay on the other deal.
        let mut greedy = crate::poly::PolyGreedy::new();
        let mut played = Vec::new();
        for _ in 0..4 {
            let seat = a.to_move().unwrap();
            let m = greedy.choose(&a.view(seat));
            assert!(matches!(m, PolyMove::Play { .. }), "this deal has no early pass");
            a.play(m).unwrap();
            played.push(m);
        }
        assert_eq!(a.to_move(), Some(me));
        // Game b: the other seat keeps the tiles it played; its unplayed
        // tiles are swapped with the stock's.
        let placed: Vec<PolyTileId> = played
            .iter()
            .filter_map(|m| if let PolyMove::Play { tile, .. } = m { Some(*tile) } else { None })
            .collect();
        let kept: Vec<PolyTileId> = theirs.iter().copied().filter(|t| placed.contains(t)).collect();
        let unplayed: Vec<PolyTileId> = theirs.iter().copied().filter(|t| !placed.contains(t)).collect();
        let n = unplayed.len();
        let mut other_hand = kept;
        other_hand.extend_from_slice(&stock[..n]);
        let mut other_stock = stock[n..].to_vec();
        other_stock.extend(unplayed);
        let mut b = deal(other_hand, other_stock, 6);
        for &m in &played {
            b.play(m).unwrap();
        }
        assert_eq!(a.board(), b.board());
        assert_eq!(a.hand(me), b.hand(me));
        assert_ne!(a.hand(1 - me), b.hand(1 - me));
        assert_ne!(a.stock(), b.stock());
        let config = PolyPimcConfig { budget: PolyBudget { samples: 12, time: None }, ..PolyPimcConfig::default() };
        let of_a = PolyPimc::new(config, 11).analyse(&a.view(me));
        let of_b = PolyPimc::new(config, 11).analyse(&b.view(me));
        assert_eq!(of_a, of_b);
        assert_eq!(of_a.samples, 12);
        assert!(of_a.moves.len() > 1);
        assert!(of_a.moves.iter().any(|e| e.lead != of_a.moves[0].lead), "{of_a:?}");
        assert_eq!(of_a.best, PolyPimc::new(config, 11).choose(&a.view(me)));
    }

    /// Near the end of a hand the seat's playouts block: wherever in
    /// whole matches some placement leaves the next seat (holding at most
    /// three tiles) with no placement while the heaviest tile would not, the
    /// blocking playout move is one that leaves it none, and it is always
    /// legal; the tightest tile is the one with the fewest placements.
    #[test]
    fn playouts_block_the_next_seat_near_the_end_of_a_hand() {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let (mut moves, mut reply) = (PolyMoveList::default(), PolyMoveList::default());
        let mut greedy = crate::poly::PolyGreedy::new();
        let placements = |g: &PolyGame, m: PolyMove, reply: &mut PolyMoveList| {
            let mut g = g.clone();
            g.play(m).unwrap();
            g.legal_moves(reply);
            reply.iter().filter(|r| matches!(r, PolyMove::Play { .. })).count()
        };
        let mut blocked = 0;
        for seed in 0..40 {
            let mut game = PolyGame::new(rules.clone(), 2, seed).unwrap();
            let hand = game.hand_number();
            while let Some(seat) = game.to_move().filter(|_| game.hand_number() == hand) {
                game.legal_moves(&mut moves);
                let plays = matches!(moves[0], PolyMove::Play { .. });
                if plays && game.hand(1 - seat).len() <= 3 && game.hand(seat).len() > 1 {
                    let chosen = blocking(&game, &moves, &mut reply);
                    assert!(game.is_legal(chosen));
                    let heavy = greedy.choose(&game.view(seat));
                    let fewest = moves.iter().map(|&m| placements(&game, m, &mut reply)).min().unwrap();
                    assert_eq!(placements(&game, chosen, &mut reply), fewest, "seed {seed}");
                    if fewest == 0 && placements(&game, heavy, &mut reply) > 0 {
                        blocked += 1;
                    }
                }
                let t = tightest(&moves, |t| rules.set().get(t).map_or(0, |t| t.value()));
                if let PolyMove::Play { tile, .. } = t {
                    let count =
                        |id| moves.iter().filter(|m| matches!(m, PolyMove::Play { tile, .. } if *tile == id)).count();
                    assert!(
                        moves.iter().all(|m| !matches!(m, PolyMove::Play { tile: o, .. } if count(*o) < count(tile)))
                    );
                }
                let m = greedy.choose(&game.view(seat));
                game.play(m).unwrap();
            }
        }
        assert!(blocked > 0, "no hand where blocking differed from the heaviest tile");
    }

    /// Only one legal move: it is played without sampling.
    #[test]
    fn a_forced_move_is_not_searched() {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let mut game = PolyGame::new(rules, 2, 1).unwrap();
        let mut moves = PolyMoveList::default();
        let mut pimc = PolyPimc::new(PolyPimcConfig::default(), 1);
        while let Some(seat) = game.to_move() {
            game.legal_moves(&mut moves);
            if moves.len() == 1 {
                let a = pimc.analyse(&game.view(seat));
                assert_eq!((a.best, a.samples), (moves[0], 0));
                return;
            }
            game.play(moves[0]).unwrap();
        }
        panic!("no forced move in a whole match");
    }
}
