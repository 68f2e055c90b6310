//! Poly `pimc`: perfect-information Monte Carlo for tiles with 3, 4 or 6
//! faces.
//!
//! For each sample, the tiles the seat has not seen are dealt at random into
//! the other hands and the stock at their public sizes
//! ([`PolyView::imagine`]), keeping out of each hand the tiles its seat is
//! known not to hold; every legal move is then played out in that
//! now open deal to the end of the hand ([`PolyRollout`]; by default every
//! seat places its heaviest tile; with `rollout=block` the other seats place
//! their heaviest tile, the first such move listed, while the seat places
//! first the tile that fits in the fewest ways and, once the next seat
//! holds three tiles or fewer, the tile and place that leave that seat the
//! fewest placements), every seat drawing or passing as the rules make it.
//! A move's value is the points the seat gained over the hand minus the
//! mean of what the other seats gained (placement points and the going-out
//! bonus alike), and the move with the best mean over the samples is
//! played. Every move meets the same samples. The budget is a number of
//! samples, optionally capped by a time per move (a time cap makes play
//! depend on the machine; sample budgets are reproducible).
//!
//! What a seat is known not to hold comes from the public record, which
//! [`PolyPimc::choose`] reads off the view between its turns (hand sizes,
//! stock size, the tiles placed since): a seat that drew held, once it had
//! drawn, no tile fitting the board it faced (it plays as soon as one
//! fits), and a seat that passed without drawing held none either; a seat
//! that only placed a tile took nothing new. Where the record does not say
//! which of several seats drew or placed, those seats are assumed nothing.

use std::time::{Duration, Instant};

use capicua_engine::poly::{PolyGame, PolyMove, PolyMoveList, PolyTileId, PolyView};

use super::PolyStrategy;
use crate::rng::BotRng;

/// When to stop sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyBudget {
    /// Samples per move.
    pub samples: u32,
    /// A wall-clock cap per move, if any (at least one sample is always
    /// drawn).
    pub time: Option<Duration>,
}

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
    unseen: Vec<PolyTileId>,
    legal: PolyMoveList,
    scratch: PolyMoveList,
    reply: PolyMoveList,
    record: Record,
}

/// The public record as the seat last left it, and what it proves.
#[derive(Clone, Debug, Default)]
struct Record {
    /// The table after the seat's last move, if it is still this hand's.
    after: Option<After>,
    /// By seat, by tile id: tiles the seat is known not to hold.
    lacks: Vec<Vec<bool>>,
    /// By seat, by tile id: tiles it would have placed instead of a lighter
    /// one, had it held them ([`PolyModel::Heavy`]).
    doubts: Vec<Vec<bool>>,
}

/// The public state right after the seat's own last move.
#[derive(Clone, Debug)]
struct After {
    hand: u32,
    board: usize,
    sizes: Vec<usize>,
    /// The move was a draw: the seat moves again, nobody else did.
    drew: bool,
}

impl Record {
    /// Reads what the other seats did since the seat's last move.
    fn observe(&mut self, view: &PolyView<'_>) {
        let seats = view.hand_sizes().count();
        let tiles = view.rules().set().len();
        let sizes: Vec<usize> = view.hand_sizes().collect();
        let board = view.board();
        let fresh = match &self.after {
            Some(a) => a.hand != view.hand_number() || a.sizes.len() != seats || a.board > board.placed().len(),
            None => true,
        };
        if fresh || self.lacks.len() != seats || self.lacks.iter().any(|l| l.len() != tiles) {
            self.lacks = vec![vec![false; tiles]; seats];
            self.doubts = self.lacks.clone();
        }
        let Some(a) = self.after.take().filter(|a| !fresh && !a.drew) else { return };
        let me = view.seat() as usize;
        let order: Vec<usize> = (1..seats).map(|k| (me + k) % seats).collect();
        let placed = board.placed().len() - a.board;
        // Who placed: a smaller hand placed; the rest are settled by the count.
        let delta = |s: usize| sizes[s] as i64 - a.sizes[s] as i64;
        let sure = order.iter().filter(|&&s| delta(s) < 0).count();
        let open: Vec<usize> = order.iter().copied().filter(|&s| delta(s) >= 0).collect();
        let rest_placed = match placed.checked_sub(sure) {
            Some(0) => Some(false),
            Some(n) if n == open.len() => Some(true),
            _ => None,
        };
        let mut at = a.board;
        // Once one seat's turn is unknown, so is the board every later seat faced.
        let mut lost = false;
        for &s in &order {
            let (placed, drew) = if lost {
                (false, false)
            } else if delta(s) < 0 {
                (true, false)
            } else if let Some(p) = rest_placed {
                (p, delta(s) + p as i64 > 0)
            } else {
                lost = true;
                (false, false)
            };
            if lost {
                // Unknown: forget what was known (it may have drawn).
                self.lacks[s].iter_mut().for_each(|b| *b = false);
                self.doubts[s].iter_mut().for_each(|b| *b = false);
                continue;
            };
            let faced = board.prefix(at);
            let set = view.rules().set();
            let (lacks, doubts) = (&mut self.lacks[s], &mut self.doubts[s]);
            if drew || !placed {
                for (i, &tile) in set.tiles().iter().enumerate() {
                    let fits = faced.fits(tile);
                    // A draw brought tiles known of before into the hand.
                    lacks[i] = if drew { fits } else { lacks[i] || fits };
                    if drew {
                        doubts[i] = false;
                    }
                }
            } else if let Some(p) = board.placed().get(at) {
                let value = p.pips.value();
                for (i, &tile) in set.tiles().iter().enumerate() {
                    if tile.value() > value && !doubts[i] && faced.fits(tile) {
                        doubts[i] = true;
                    }
                }
            }
            at += placed as usize;
        }
    }

    /// Notes the seat's own move, made from `view`.
    fn moved(&mut self, view: &PolyView<'_>, m: PolyMove) {
        let me = view.seat() as usize;
        let mut sizes: Vec<usize> = view.hand_sizes().collect();
        let mut board = view.board().placed().len();
        match m {
            PolyMove::Play { .. } => {
                sizes[me] = sizes[me].saturating_sub(1);
                board += 1;
            }
            PolyMove::Draw => {
                sizes[me] += 1;
            }
            PolyMove::Pass => {}
        }
        self.after = Some(After { hand: view.hand_number(), board, sizes, drew: m == PolyMove::Draw });
    }
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
            unseen: Vec::new(),
            legal: PolyMoveList::default(),
            scratch: PolyMoveList::default(),
            reply: PolyMoveList::default(),
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
        let started = Instant::now();
        let mut legal = std::mem::take(&mut self.legal);
        view.legal_moves(&mut legal);
        let mut totals = vec![0.0f64; legal.len()];
        let mut samples = 0u32;
        if legal.len() > 1 {
            let me = view.seat() as usize;
            let sizes: Vec<usize> = view.hand_sizes().collect();
            let seats = sizes.len();
            while samples < self.config.budget.samples {
                if samples > 0 && self.config.budget.time.is_some_and(|t| started.elapsed() >= t) {
                    break;
                }
                let Some(deal) = self.sample(view, &sizes) else { break };
                let before = deal.scores().to_vec();
                let hand = deal.hand_number();
                for (i, &m) in legal.iter().enumerate() {
                    let mut g = deal.clone();
                    g.play(m).expect("a legal move stays legal in a consistent deal");
                    self.roll_out(&mut g, hand, me as u8);
                    let gains: Vec<f64> = g.scores().iter().zip(&before).map(|(a, b)| (a - b) as f64).collect();
                    let others = (gains.iter().sum::<f64>() - gains[me]) / (seats - 1).max(1) as f64;
                    totals[i] += gains[me] - others;
                }
                samples += 1;
            }
        }
        let per = samples.max(1) as f64;
        let mut best = 0;
        for i in 1..legal.len() {
            if totals[i] > totals[best] {
                best = i;
            }
        }
        let moves = legal.iter().zip(&totals).map(|(&mv, &t)| PolyMoveEstimate { mv, lead: t / per }).collect();
        let best = legal.get(best).copied().unwrap_or(PolyMove::Pass);
        self.legal = legal;
        PolyAnalysis { moves, best, samples }
    }

    /// A deal consistent with the view: the unseen tiles shuffled into the
    /// other hands, each hand taking tiles its seat may hold first (tiles it
    /// is known to lack only when too few are left, the record being then
    /// out of step), the rest (in shuffled order) the stock.
    fn sample(&mut self, view: &PolyView<'_>, sizes: &[usize]) -> Option<PolyGame> {
        view.unseen(&mut self.unseen);
        self.rng.shuffle(&mut self.unseen);
        let mut taken = vec![false; self.unseen.len()];
        let mut hands = Vec::with_capacity(sizes.len());
        let heavy = self.config.model == PolyModel::Heavy;
        let marked = |marks: &Vec<Vec<bool>>, s: usize, t: PolyTileId| {
            marks.get(s).and_then(|l| l.get(t.0 as usize)).copied().unwrap_or(false)
        };
        // 0: free, 1: doubted, 2: known lacking.
        let rank = |s: usize, t: PolyTileId| {
            if marked(&self.record.lacks, s, t) { 2 } else { (heavy && marked(&self.record.doubts, s, t)) as u8 }
        };
        for (s, &n) in sizes.iter().enumerate() {
            if s == view.seat() as usize {
                hands.push(view.hand().to_vec());
                continue;
            }
            let mut hand = Vec::with_capacity(n);
            for pass in 0..3 {
                for (i, &t) in self.unseen.iter().enumerate() {
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
        let stock: Vec<PolyTileId> = self.unseen.iter().zip(&taken).filter(|(_, k)| !**k).map(|(&t, _)| t).collect();
        view.imagine(hands, stock, self.rng.next_u64()).ok()
    }

    /// Plays `game` to the end of hand `hand` (or of the match): every seat
    /// places its heaviest tile, random among equals.
    fn roll_out(&mut self, game: &mut PolyGame, hand: u32, me: u8) {
        while let Some(seat) = game.to_move().filter(|_| game.hand_number() == hand) {
            game.legal_moves(&mut self.scratch);
            let set = game.rules().set();
            let rollout = self.config.rollout;
            if seat == me && matches!(rollout, PolyRollout::Tight | PolyRollout::Block) {
                let seats = game.seats();
                let next = (seat + 1) % seats;
                let m = if rollout == PolyRollout::Block
                    && game.hand(next).len() <= 3
                    && matches!(self.scratch[0], PolyMove::Play { .. })
                {
                    self.blocking(game)
                } else {
                    tightest(&self.scratch, |t| set.get(t).map_or(0, |t| t.value()))
                };
                game.play(m).expect("rollouts play legal moves");
                continue;
            }
            let mut best = self.scratch[0];
            let mut best_value = i32::MIN;
            let mut ties = 0;
            for &m in self.scratch.iter() {
                let v = match m {
                    PolyMove::Play { tile, .. } => set.get(tile).map_or(0, |t| t.value()),
                    _ => -1,
                };
                if v > best_value {
                    (best, best_value, ties) = (m, v, 1);
                } else if v == best_value && self.config.rollout == PolyRollout::Heavy {
                    ties += 1;
                    if self.rng.below(ties) == 0 {
                        best = m;
                    }
                }
            }
            game.play(best).expect("rollouts play legal moves");
        }
    }
}

impl PolyPimc {
    /// The move in `self.scratch` leaving the next seat the fewest
    /// placements, the heaviest tile among equals.
    fn blocking(&mut self, game: &PolyGame) -> PolyMove {
        let set = game.rules().set();
        let mut best = self.scratch[0];
        let mut best_key = (usize::MAX, i32::MIN);
        let mut reply = std::mem::take(&mut self.reply);
        for &m in self.scratch.iter() {
            let PolyMove::Play { tile, .. } = m else { continue };
            let mut g = game.clone();
            g.play(m).expect("rollouts play legal moves");
            g.legal_moves(&mut reply);
            let n = reply.iter().filter(|r| matches!(r, PolyMove::Play { .. })).count();
            let v = set.get(tile).map_or(0, |t| t.value());
            if n < best_key.0 || (n == best_key.0 && v > best_key.1) {
                (best, best_key) = (m, (n, v));
            }
        }
        self.reply = reply;
        best
    }
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
        let mut greedy = super::super::PolyGreedy::new();
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

    /// What the record proves is true: no seat ever holds a tile it is
    /// said to lack, at every turn of whole matches, two to four seats, on
    /// tables where seats get stuck (pips up to 9, small hands) and draw
    /// one, several or none.
    #[test]
    fn the_record_never_rules_out_a_held_tile() {
        use capicua_engine::HandSize;
        use capicua_engine::poly::{PolyMatchTarget, SeatRange};
        let mut lacked = 0;
        for (stuck, seats) in [
            (PolyStuck::DrawOne, 2),
            (PolyStuck::DrawUpTo(3), 3),
            (PolyStuck::Pass, 2),
            (PolyStuck::DrawUntilPlayable, 4),
        ] {
            let mut v = capicua_engine::poly::poly_preset("triominoes").unwrap();
            (v.max_pip, v.stuck, v.hand_size) = (9, stuck, HandSize::Fixed(4));
            v.seats = SeatRange { min: 2, max: 4 };
            v.target = PolyMatchTarget::Hands(6);
            let rules = Arc::new(v.validate().unwrap());
            let mut game = PolyGame::new(rules, seats, 8).unwrap();
            let mut records: Vec<Record> = vec![Record::default(); seats as usize];
            let mut random = super::super::PolyRandom::new(3);
            while let Some(seat) = game.to_move() {
                let view = game.view(seat);
                let record = &mut records[seat as usize];
                record.observe(&view);
                for s in 0..seats {
                    for &t in game.hand(s) {
                        assert!(!record.lacks[s as usize][t.0 as usize], "{stuck:?}: seat {s} holds #{}", t.0);
                    }
                }
                lacked += record.lacks.iter().flatten().filter(|&&b| b).count();
                let m = random.choose(&view);
                record.moved(&view, m);
                game.play(m).unwrap();
            }
        }
        assert!(lacked > 0, "the record never proved anything");
    }

    /// Near the end of a hand the seat's playouts block: wherever in
    /// whole matches some placement leaves the next seat (holding at most
    /// three tiles) with no placement while the heaviest tile would not, the
    /// blocking playout move is one that leaves it none, and it is always
    /// legal; the tightest tile is the one with the fewest placements.
    #[test]
    fn playouts_block_the_next_seat_near_the_end_of_a_hand() {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let config = PolyPimcConfig { rollout: PolyRollout::Block, ..PolyPimcConfig::default() };
        let mut pimc = PolyPimc::new(config, 1);
        let (mut moves, mut reply) = (PolyMoveList::default(), PolyMoveList::default());
        let mut greedy = super::super::PolyGreedy::new();
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
                    pimc.scratch = moves.clone();
                    let chosen = pimc.blocking(&game);
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
