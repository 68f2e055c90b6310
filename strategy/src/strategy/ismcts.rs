//! `ismcts`: single-observer information-set Monte Carlo tree search.
//!
//! One tree for the viewer's information set: each iteration samples a deal
//! consistent with everything public ([`crate::determinize`]), walks the
//! tree choosing only moves legal in that deal (UCB1 with availability
//! counts, so a move is judged only against the deals where it existed),
//! adds one node, rolls out to the end of the hand and backs the result up,
//! each node scored for the side that made its move. Unlike PIMC, the
//! decisions below the root are shared across deals, so the search does not
//! assume that later choices can depend on hidden tiles.

use std::time::{Duration, Instant};

use capicua_engine::{Move, MoveList, Side};

use super::playout::{hand_value, roll_out};
use super::rules_cache::RulesCache;
use super::{Heuristic, Rollout, Scored, Strategy};
use crate::determinize;
use crate::facts::PublicFacts;
use crate::rng::BotRng;
use crate::seat_view::SeatView;
use crate::stop::{StopFlag, raised};

/// The exploration constant of UCB1.
const EXPLORATION: f64 = 0.7;

struct Node {
    mv: Move,
    /// The side that made `mv`.
    side: Side,
    children: Vec<usize>,
    visits: u32,
    /// Times this node's move was legal when its parent was selected from.
    available: u32,
    total: f64,
}

/// The ISMCTS player.
pub struct Ismcts {
    iterations: u32,
    time: Option<Duration>,
    stop: Option<StopFlag>,
    rng: BotRng,
    rules: RulesCache,
    fallback: Scored<Heuristic>,
}

impl Ismcts {
    /// An ISMCTS player running `iterations` iterations per move.
    pub fn new(iterations: u32, seed: u64) -> Ismcts {
        Ismcts {
            iterations,
            time: None,
            stop: None,
            rng: BotRng::new(seed),
            rules: RulesCache::default(),
            fallback: Scored::new(Heuristic, seed),
        }
    }

    /// Caps the time per move: the search stops after `time` even with
    /// iterations left (play then depends on the machine's speed).
    pub fn with_time(mut self, time: Duration) -> Ismcts {
        self.time = Some(time);
        self
    }
}

impl Strategy for Ismcts {
    fn name(&self) -> String {
        let mut s = "ismcts".to_string();
        if self.iterations != 2000 {
            s += &format!(":iterations={}", self.iterations);
        }
        if let Some(t) = self.time {
            s += &format!(":ms={}", t.as_millis());
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
        let rules = self.rules.of(view);
        let facts = PublicFacts::of(view);
        let me = view.side_of(view.seat());
        let mut tree =
            vec![Node { mv: Move::Pass, side: me, children: Vec::new(), visits: 0, available: 0, total: 0.0 }];
        let mut moves = MoveList::new();
        let mut path = Vec::new();
        for i in 0..self.iterations {
            if i > 0 && (raised(&self.stop) || self.time.is_some_and(|t| started.elapsed() >= t)) {
                break;
            }
            let Some(deal) = determinize::sample(view, &rules, &facts, &mut self.rng) else { continue };
            let mut game = deal.game;
            let before = game.hand_results().len();
            let mut node = 0;
            path.clear();
            path.push(0);
            // Selection and expansion.
            while game.hand_results().len() == before {
                let Some(seat) = game.to_move() else { break };
                game.fill_legal_moves(&mut moves);
                let untried: Vec<Move> =
                    moves.iter().copied().filter(|m| !tree[node].children.iter().any(|&c| tree[c].mv == *m)).collect();
                for i in 0..tree[node].children.len() {
                    let c = tree[node].children[i];
                    if moves.contains(&tree[c].mv) {
                        tree[c].available += 1;
                    }
                }
                if !untried.is_empty() {
                    let mv = untried[self.rng.below(untried.len())];
                    let side = game.table().side_of(seat);
                    tree.push(Node { mv, side, children: Vec::new(), visits: 0, available: 1, total: 0.0 });
                    let child = tree.len() - 1;
                    tree[node].children.push(child);
                    game.play(mv).expect("a legal move is accepted");
                    path.push(child);
                    break;
                }
                let child = tree[node]
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| moves.contains(&tree[c].mv))
                    .max_by(|&a, &b| ucb(&tree[a]).total_cmp(&ucb(&tree[b])))
                    .expect("every legal move has a child");
                game.play(tree[child].mv).expect("a legal move is accepted");
                node = child;
                path.push(child);
            }
            roll_out(&mut game, before, Rollout::Heavy, me, &mut self.rng, &mut moves);
            for &n in &path {
                let value = hand_value(&game, before, tree[n].side);
                tree[n].visits += 1;
                tree[n].total += value;
            }
        }
        let best =
            tree[0].children.iter().copied().filter(|&c| legal.contains(&tree[c].mv)).max_by_key(|&c| tree[c].visits);
        match best {
            Some(c) => tree[c].mv,
            None => self.fallback.choose(view),
        }
    }

    fn watch(&mut self, stop: &StopFlag) {
        self.stop = Some(stop.clone());
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
        self.fallback.reseed(seed);
    }
}

fn ucb(n: &Node) -> f64 {
    let visits = n.visits.max(1) as f64;
    n.total / visits + EXPLORATION * ((n.available.max(1) as f64).ln() / visits).sqrt()
}
