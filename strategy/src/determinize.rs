//! Sampling the hidden tiles consistently with everything public.
//!
//! A determinization is a full game — every hand, the stock, the tiles out
//! of play — that the viewer cannot tell from the real one: it starts from
//! a [`Setup`] at the beginning of the hand and replays the hand's public
//! history move by move. The engine refuses any move that the sampled deal
//! makes illegal (a pass while holding a playable tile, a play of a tile
//! the seat never held, a draw from an empty stock, a drawn tile that had to
//! be played), so every deal [`sample`] returns is consistent by
//! construction; the constraints below only make the sampler find one
//! quickly:
//!
//! - a seat holds no tile that joins an end it has passed on since its
//!   last draw ([`PublicFacts::excluded`]);
//! - each seat holds exactly its public number of tiles, the stock its
//!   public size;
//! - a seat's hand at the start of the hand is what it played plus what it
//!   holds, minus what it drew; the tile played right after a run of draws
//!   was the last one drawn (when drawn tiles that fit must be played);
//! - the viewer's own hand and draws are its real ones.

use std::sync::Arc;

use capicua_engine::{
    Action, FirstLeader, Game, LaterLeader, MAX_SEATS, Move, MoveList, Referee, Rules, Seat, Seating, Setup, Tile,
    TileSet,
};

use crate::facts::PublicFacts;
use crate::rng::{BotRng, derive_seed};
use crate::seat_view::SeatView;

/// How many times [`sample`] tries before giving up.
pub const MAX_ATTEMPTS: usize = 256;

/// A sampled deal: the current hand of every seat and the game replayed to
/// the viewer's position.
pub struct Deal {
    /// Each seat's hand now, as sampled (the viewer's is its real hand).
    pub hands: [TileSet; MAX_SEATS],
    /// The determinized game, at the same public position as the real one.
    pub game: Game,
    /// The log-likelihood of the opponents' plays in this deal under the
    /// [`PlayModel`] (0 under the uniform model).
    pub log_weight: f64,
}

/// How the opponents are assumed to choose among their legal plays, to
/// weigh sampled deals by how well they explain the plays seen. (Partners
/// are not modelled: they are usually the same strategy as the viewer.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlayModel {
    /// Every legal move equally likely: every consistent deal weighs the same.
    Uniform,
    /// Heavier tiles more likely: a play's probability is proportional to
    /// `exp(beta * value)` over the legal plays (players shed weight).
    Heavy {
        /// How strongly weight is preferred (per point of tile value).
        beta: f64,
    },
}

/// Samples a deal consistent with `view`, or `None` if [`MAX_ATTEMPTS`]
/// tries all failed (a position whose constraints the greedy sampler keeps
/// missing; callers fall back to a rule of thumb).
pub fn sample(view: &dyn SeatView, rules: &Arc<Rules>, facts: &PublicFacts, rng: &mut BotRng) -> Option<Deal> {
    sample_weighted(view, rules, facts, PlayModel::Uniform, rng)
}

/// As [`sample`], also weighing the deal under `model`.
pub fn sample_weighted(
    view: &dyn SeatView,
    rules: &Arc<Rules>,
    facts: &PublicFacts,
    model: PlayModel,
    rng: &mut BotRng,
) -> Option<Deal> {
    let plan = Plan::new(view, facts);
    (0..MAX_ATTEMPTS).find_map(|_| plan.attempt(view, rules, facts, model, rng))
}

/// The log-probability of `m` among the legal moves of `game` under `model`.
fn log_likelihood(game: &Game, m: Move, model: PlayModel, moves: &mut MoveList) -> f64 {
    let PlayModel::Heavy { beta } = model else { return 0.0 };
    let Move::Play { tile, .. } = m else { return 0.0 };
    game.fill_legal_moves(moves);
    // The deal's values: the sampled game carries the real per-deal ones.
    let value = |m: &Move| match *m {
        Move::Play { tile, .. } => game.tile_value(tile) as f64,
        _ => 0.0,
    };
    let top = moves.iter().map(value).fold(f64::NEG_INFINITY, f64::max);
    let norm: f64 = moves.iter().map(|m| (beta * (value(m) - top)).exp()).sum();
    beta * (game.tile_value(tile) as f64 - top) - norm.ln()
}

/// What stays the same across attempts.
struct Plan {
    me: Seat,
    seats: usize,
    hand_size: usize,
    /// The unknown tiles: hidden hands, stock, out of play.
    unknown: Vec<Tile>,
    /// Seats whose current hand must be sampled, with how many tiles.
    hidden: Vec<(Seat, usize)>,
    /// Tiles each hidden seat may hold (its voids removed).
    allowed: [TileSet; MAX_SEATS],
    /// Known current hands (the viewer's, and any it sees).
    known: [Option<TileSet>; MAX_SEATS],
    /// Tiles of hidden hands shown to everyone: placed in their holder's
    /// hand, never elsewhere.
    shown: [TileSet; MAX_SEATS],
    /// Draw runs of each seat, in order: (first history index, draws, tile
    /// played right after when it must have been the last drawn).
    runs: [Vec<DrawRun>; MAX_SEATS],
    /// When each seat played each of its tiles (history index).
    play_index: Vec<(Seat, Tile, usize)>,
    stock_len: usize,
    /// The real table's seating (its explicit teams, if any).
    seating: Seating,
    /// Whether the referee is lenient (plays may have been overruled).
    lenient: bool,
}

#[derive(Clone, Copy)]
struct DrawRun {
    start: usize,
    len: usize,
    then_played: Option<Tile>,
}

impl Plan {
    fn new(view: &dyn SeatView, facts: &PublicFacts) -> Plan {
        let me = view.seat();
        let seats = view.seats() as usize;
        let rules = view.rules();
        let unknown: Vec<Tile> = view.unseen().iter().collect();
        let mut known = [None; MAX_SEATS];
        let mut hidden = Vec::new();
        let mut allowed = [TileSet::EMPTY; MAX_SEATS];
        let mut shown = [TileSet::EMPTY; MAX_SEATS];
        let forbidden_at_start = forbidden_at_start(view);
        for s in (0..seats as u8).map(Seat) {
            match if s == me { Some(view.hand()) } else { view.hand_of(s) } {
                Some(h) => known[s.index()] = Some(h),
                None => {
                    // `unseen` leaves the shown tiles out: only the rest
                    // of the hand is sampled.
                    shown[s.index()] = view.known_of(s);
                    hidden.push((s, view.hand_len(s).saturating_sub(shown[s.index()].len())));
                    let mut a = TileSet::EMPTY;
                    for &t in &unknown {
                        let void = facts.excluded[s.index()].contains(t);
                        let excluded = facts.draws[s.index()] == 0 && forbidden_at_start.contains(t);
                        if !void && !excluded {
                            a.insert(t);
                        }
                    }
                    allowed[s.index()] = a;
                }
            }
        }
        let must_play_drawn = rules.variant().stuck.must_play_drawn;
        let history = view.history();
        let mut runs: [Vec<DrawRun>; MAX_SEATS] = Default::default();
        let mut play_index = Vec::new();
        let mut i = 0;
        while i < history.len() {
            let r = history[i];
            match r.action {
                Action::Draw => {
                    let start = i;
                    while i < history.len() && history[i].seat == r.seat && history[i].action == Action::Draw {
                        i += 1;
                    }
                    let then_played = match history.get(i) {
                        Some(next) if next.seat == r.seat && must_play_drawn => match next.action {
                            Action::Play { tile, .. } => Some(tile),
                            _ => None,
                        },
                        _ => None,
                    };
                    runs[r.seat.index()].push(DrawRun { start, len: i - start, then_played });
                    continue;
                }
                Action::Play { tile, .. } => play_index.push((r.seat, tile, i)),
                Action::Pass { .. } => {}
            }
            i += 1;
        }
        Plan {
            me,
            seats,
            hand_size: rules.hand_size(view.seats()) as usize,
            unknown,
            hidden,
            allowed,
            known,
            shown,
            runs,
            play_index,
            stock_len: view.stock_len(),
            seating: {
                let teams = view.teams();
                let seating = Seating::new(seats as u8);
                if teams.is_empty() { seating } else { seating.with_teams(teams) }
            },
            lenient: matches!(rules.variant().referee, Referee::Lenient(_)),
        }
    }

    fn attempt(
        &self,
        view: &dyn SeatView,
        rules: &Arc<Rules>,
        facts: &PublicFacts,
        model: PlayModel,
        rng: &mut BotRng,
    ) -> Option<Deal> {
        let current = self.sample_current(rng)?;
        let (hands, stock) = self.start_of_hand(view, facts, &current.0, &current.1, rng)?;
        let scores: Vec<i32> = view.scores().iter().zip(view.play_points()).map(|(s, p)| s - p).collect();
        let setup = Setup {
            seed: derive_seed(rng.next_u64(), view.hand_number() as u64),
            hand: view.hand_number(),
            scores,
            hands: hands[..self.seats].to_vec(),
            stock,
            leader: view.leader(),
        };
        let mut game = Game::from_setup(rules.clone(), self.seating.clone(), setup).ok()?;
        if let Some(values) = view.tile_values() {
            // The sampled game's seed would draw other values.
            game.set_tile_values(values).ok()?;
        }
        let mut log_weight = 0.0;
        let mut moves = MoveList::new();
        for r in view.history() {
            let m = match r.action {
                Action::Play { tile, end, face } => Move::Play { tile, end, face },
                Action::Draw => Move::Draw,
                Action::Pass { .. } => Move::Pass,
            };
            if !view.partners(r.seat, self.me) {
                log_weight += log_likelihood(&game, m, model, &mut moves);
            }
            if self.lenient && matches!(m, Move::Play { .. }) {
                // A play the real referee let stand although illegal is
                // replayed as such (the sampled game's coin would differ).
                game.replay_overruled(m).ok()?;
            } else {
                game.play(m).ok()?;
            }
        }
        // The deal must leave the hand going, with the viewer to move.
        if game.to_move() != Some(self.me) || game.history().len() != view.history().len() {
            return None;
        }
        Some(Deal { hands: current.0, game, log_weight })
    }

    /// Samples every seat's current hand and the current stock.
    fn sample_current(&self, rng: &mut BotRng) -> Option<([TileSet; MAX_SEATS], Vec<Tile>)> {
        let mut hands = [TileSet::EMPTY; MAX_SEATS];
        for (s, h) in self.known.iter().enumerate() {
            hands[s] = h.unwrap_or(self.shown[s]);
        }
        let mut room = [0usize; MAX_SEATS];
        for &(s, n) in &self.hidden {
            room[s.index()] = n;
        }
        let hidden_total: usize = self.hidden.iter().map(|h| h.1).sum();
        let mut stock_room = self.stock_len;
        let mut out_room = self.unknown.len().checked_sub(hidden_total + self.stock_len)?;
        // Most constrained tiles first, random order among equals.
        let mut order: Vec<(usize, u64, Tile)> = self
            .unknown
            .iter()
            .map(|&t| {
                let options = self.hidden.iter().filter(|(s, _)| self.allowed[s.index()].contains(t)).count();
                (options, rng.next_u64(), t)
            })
            .collect();
        order.sort_unstable();
        let mut stock = Vec::with_capacity(self.stock_len);
        for (_, _, t) in order {
            let mut total = stock_room + out_room;
            for &(s, _) in &self.hidden {
                if self.allowed[s.index()].contains(t) {
                    total += room[s.index()];
                }
            }
            if total == 0 {
                return None;
            }
            let mut pick = rng.below(total);
            let mut placed = false;
            for &(s, _) in &self.hidden {
                if self.allowed[s.index()].contains(t) {
                    if pick < room[s.index()] {
                        hands[s.index()].insert(t);
                        room[s.index()] -= 1;
                        placed = true;
                        break;
                    }
                    pick -= room[s.index()];
                }
            }
            if !placed {
                if pick < stock_room {
                    stock.push(t);
                    stock_room -= 1;
                } else {
                    out_room -= 1;
                }
            }
        }
        Some((hands, stock))
    }

    /// Rebuilds the hands at the start of the hand and the stock order from
    /// the sampled current hands and stock.
    fn start_of_hand(
        &self,
        view: &dyn SeatView,
        facts: &PublicFacts,
        current: &[TileSet; MAX_SEATS],
        rest_of_stock: &[Tile],
        rng: &mut BotRng,
    ) -> Option<([TileSet; MAX_SEATS], Vec<Tile>)> {
        let mut hands = [TileSet::EMPTY; MAX_SEATS];
        // drawn[s][k]: the tile seat s drew at its k-th draw.
        let mut drawn: [Vec<Tile>; MAX_SEATS] = Default::default();
        for s in 0..self.seats {
            let seat = Seat(s as u8);
            let held = current[s].or(facts.played_by[s]);
            let total: usize = self.runs[s].iter().map(|r| r.len).sum();
            let mut slots: Vec<Option<Tile>> = vec![None; total];
            let mut taken = TileSet::EMPTY;
            let mut k = 0;
            for run in &self.runs[s] {
                if let Some(t) = run.then_played {
                    slots[k + run.len - 1] = Some(t);
                    taken.insert(t);
                }
                k += run.len;
            }
            // The viewer knows what it drew; others' draws come from what
            // they hold or played later.
            let pool = if seat == self.me { view.own_draws() } else { held };
            // The draw at history index `at` may be any tile not played by
            // then: the later the draw, the fewer the candidates, each
            // slot's a subset of every earlier one's. Filling the latest
            // first therefore never strands a slot a matching could fill
            // (filling in order could hand an early slot the only tile a
            // later one may take).
            let mut free = Vec::new();
            let mut k = 0;
            for run in &self.runs[s] {
                for j in 0..run.len {
                    if slots[k + j].is_none() {
                        free.push((k + j, run.start + j));
                    }
                }
                k += run.len;
            }
            for &(slot, at) in free.iter().rev() {
                let candidates: Vec<Tile> =
                    pool.minus(taken).iter().filter(|&t| self.played_at(seat, t).is_none_or(|i| i > at)).collect();
                if candidates.is_empty() {
                    return None;
                }
                let t = candidates[rng.below(candidates.len())];
                slots[slot] = Some(t);
                taken.insert(t);
            }
            hands[s] = held.minus(taken);
            if hands[s].len() != self.hand_size {
                return None;
            }
            drawn[s] = slots.into_iter().map(|t| t.expect("every slot is filled")).collect();
        }
        let mut next = [0usize; MAX_SEATS];
        let mut stock = Vec::new();
        for r in view.history() {
            if r.action == Action::Draw {
                let s = r.seat.index();
                stock.push(drawn[s][next[s]]);
                next[s] += 1;
            }
        }
        let mut rest = rest_of_stock.to_vec();
        rng.shuffle(&mut rest);
        stock.extend(rest);
        Some((hands, stock))
    }

    fn played_at(&self, seat: Seat, t: Tile) -> Option<usize> {
        self.play_index.iter().find(|&&(s, tile, _)| s == seat && tile == t).map(|p| p.2)
    }
}

/// Tiles no seat can have been dealt, given how the hand was led: when the
/// highest double dealt leads, no seat was dealt a higher double.
fn forbidden_at_start(view: &dyn SeatView) -> TileSet {
    let rules = view.rules();
    let lead = &rules.variant().lead;
    let first_rule = view.hand_number() == 0 || lead.later == LaterLeader::AsFirst;
    let Some(first) = view.history().first() else { return TileSet::EMPTY };
    let Action::Play { tile: led, .. } = first.action else { return TileSet::EMPTY };
    let by_highest_double = match lead.first {
        FirstLeader::HighestDouble => true,
        FirstLeader::HolderOf(t) => t != led,
        _ => false,
    };
    if !first_rule || !by_highest_double || !led.is_double() {
        return TileSet::EMPTY;
    }
    rules.catalog().doubles().iter().filter(|d| d.faces().0 > led.faces().0).collect()
}
