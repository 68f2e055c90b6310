//! The arena: many independent games between strategies, in process.
//!
//! Game `i` deals from `derive_seed(seed, i / seats)` and seats the
//! strategies rotated by `i % seats`: every deal is played once from each
//! rotation, so every strategy gets every seat, every hand and every lead
//! equally often (duplicate play). A game depends only on the seed and its
//! index, and the tallies are integer sums, so results are the same for any
//! number of threads.
//!
//! A strategy that reads every hand (`oracle`,
//! [`crate::Strategy::sees_all_hands`]) is shown the table open
//! ([`TableSeat::open`]); every other seat sees only its own view.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use capicua_engine::{
    Game, HandEnd, MAX_SEATS, MatchTarget, Move, MoveList, Rules, Seat, Seating, Side, Table, Variant,
};
use serde::Serialize;

use crate::error::{ArenaError, BotError, SpecError};
use crate::referee::play_turn_seeing;
use crate::rng::derive_seed;
use crate::seat_view::TableSeat;
use crate::spec::build;
use crate::stats::{Sprt, SprtDecision, elo_of_score, wilson95};
use crate::strategy::{Random, Strategy};

/// What one game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// One hand, dealt fresh as the first hand of a match.
    Hands,
    /// A whole match to the variant's target.
    Matches,
}

/// An arena to run.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// The variant.
    pub variant: Variant,
    /// One strategy spec per seat, in seat order for the first game.
    pub seats: Vec<String>,
    /// Games to play (with an SPRT: at most this many).
    pub games: u64,
    /// Worker threads.
    pub threads: usize,
    /// The master seed.
    pub seed: u64,
    /// Hands or matches.
    pub mode: Mode,
    /// An SPRT between the first strategy and the first one seated against it.
    pub sprt: Option<Sprt>,
    /// Measure the time each strategy takes per move.
    pub time_moves: bool,
}

/// The tallies of one seat's strategy, or one team.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Entry {
    /// The strategy spec (a team's specs joined by `+`).
    pub strategy: String,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Games nobody won.
    pub ties: u64,
    /// `wins / games`.
    pub win_rate: f64,
    /// Lower end of the 95% Wilson interval of the win rate.
    pub ci95_low: f64,
    /// Upper end of the 95% Wilson interval of the win rate.
    pub ci95_high: f64,
    /// Mean points of its side at the end of a game.
    pub mean_score: f64,
    /// Mean milliseconds per decision (with `time_moves`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms_per_move: Option<f64>,
    /// Proposals the referee refused (a cheater's illegal tries).
    pub refused: u64,
}

/// The result of an SPRT run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    /// The test.
    #[serde(flatten)]
    pub test: Sprt,
    /// The first strategy.
    pub first: String,
    /// The strategy it was measured against.
    pub second: String,
    /// First strategy's wins, ties and losses.
    pub wins: u64,
    /// Ties.
    pub ties: u64,
    /// Losses.
    pub losses: u64,
    /// The final log-likelihood ratio.
    pub llr: f64,
    /// The LLR bounds.
    pub lower: f64,
    /// The LLR bounds.
    pub upper: f64,
    /// Estimated Elo difference from the mean score.
    pub elo: f64,
    /// The decision.
    pub decision: SprtDecision,
}

/// Everything an arena run measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaReport {
    /// The variant's name.
    pub variant: String,
    /// Hands or matches.
    pub mode: Mode,
    /// The master seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Games played.
    pub games: u64,
    /// Hands played (equal to games in hands mode).
    pub hands: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Games per second.
    pub games_per_sec: f64,
    /// Fraction of hands that ended blocked.
    pub blocked_rate: f64,
    /// Fraction of games nobody won: the best score is shared at the end
    /// (of the match, or of the hand in hands mode), however the hand ended.
    /// Not the blocked hands with equal counts, which are
    /// [`blocked_tie_rate`](Self::blocked_tie_rate); in fives games most
    /// shared scores come from hands that went out.
    pub tie_rate: f64,
    /// Fraction of hands that ended blocked and that nobody won: the lowest
    /// counts were equal under the variant's ranking rule.
    pub blocked_tie_rate: f64,
    /// Mean tiles played per hand.
    pub tiles_per_hand: f64,
    /// Mean passes per hand.
    pub passes_per_hand: f64,
    /// Mean draws per hand.
    pub draws_per_hand: f64,
    /// Per seat of the first game's seating (strategies move with rotation).
    pub seats: Vec<Entry>,
    /// Per team, when the variant plays in teams.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<Entry>>,
    /// The SPRT, if one ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtReport>,
}

/// Integer tallies: merging them is order-independent.
#[derive(Clone, Debug, Default)]
struct Tally {
    games: u64,
    hands: u64,
    blocked: u64,
    blocked_ties: u64,
    no_winner: u64,
    plays: u64,
    passes: u64,
    draws: u64,
    /// Per slot: wins, losses, ties, score, decision nanos, decisions, refused.
    slots: Vec<[i64; 7]>,
    /// Per team: wins, losses, ties, score.
    teams: Vec<[i64; 4]>,
    /// SPRT: first strategy's wins, ties, losses.
    sprt: [u64; 3],
}

impl Tally {
    fn new(slots: usize, teams: usize) -> Tally {
        Tally { slots: vec![[0; 7]; slots], teams: vec![[0; 4]; teams], ..Tally::default() }
    }

    fn merge(&mut self, o: &Tally) {
        self.games += o.games;
        self.hands += o.hands;
        self.blocked += o.blocked;
        self.blocked_ties += o.blocked_ties;
        self.no_winner += o.no_winner;
        self.plays += o.plays;
        self.passes += o.passes;
        self.draws += o.draws;
        for (a, b) in self.slots.iter_mut().zip(&o.slots) {
            for k in 0..7 {
                a[k] += b[k];
            }
        }
        for (a, b) in self.teams.iter_mut().zip(&o.teams) {
            for k in 0..4 {
                a[k] += b[k];
            }
        }
        for k in 0..3 {
            self.sprt[k] += o.sprt[k];
        }
    }
}

/// A seat's strategy in the arena. `random`, the strategy of speed runs, is
/// held as itself so that the quick loop calls it directly and its choice
/// (one pass over the legal moves) is inlined there; the others are called
/// through `dyn`.
enum Player {
    /// The `random` spec.
    Random(Random),
    /// Any other spec.
    Other(Box<dyn Strategy>),
}

impl Player {
    /// The strategy of `spec` (seeded again before every game).
    fn build(spec: &str, builder: &Builder) -> Result<Player, ArenaError> {
        let built = builder(spec, 0)?;
        Ok(if built.name() == "random" { Player::Random(Random::new(0)) } else { Player::Other(built) })
    }

    fn as_dyn(&mut self) -> &mut dyn Strategy {
        match self {
            Player::Random(r) => r,
            Player::Other(s) => s.as_mut(),
        }
    }

    #[inline(always)]
    fn choose_at_table(&mut self, seat: &TableSeat<'_>, legal: &mut MoveList) -> Move {
        match self {
            Player::Random(r) => r.choose_at_table(seat, legal),
            Player::Other(s) => s.choose_at_table(seat, legal),
        }
    }
}

/// Plays `game` to its end with strategies that only choose (no timing,
/// no alternatives to refuse): each seat's strategy chooses at the table
/// and the game referees the move. Returns the plays, passes and draws.
///
/// A function of its own, small enough for `Game::play` and the legal-move
/// generator to be inlined into it: the counts stay in registers and the
/// move's events, which the arena does not read, are never copied out.
#[inline(never)]
fn play_quick(
    game: &mut Game,
    players: &mut [Player],
    rotation: usize,
    legal: &mut MoveList,
    open: &[bool],
) -> Result<(u64, u64, u64), ArenaError> {
    let n = players.len();
    // Slot j sits at seat (j + rotation) % n: looked up, not divided, per move.
    let slot_at: [usize; MAX_SEATS] = std::array::from_fn(|seat| (seat + n - rotation) % n);
    let (mut plays, mut passes, mut draws) = (0u64, 0u64, 0u64);
    while let Some(seat) = game.to_move() {
        let slot = slot_at[seat.index()];
        let player = &mut players[slot];
        // Only a strategy that reads every hand (the `oracle`) is shown them.
        let table = if open[slot] { TableSeat::open(game, seat) } else { TableSeat::new(game, seat) };
        let m = player.choose_at_table(&table, legal);
        if let Err(error) = game.play(m) {
            let strategy = player.as_dyn().name();
            return Err(BotError::NoLegalProposal { strategy, last: Some(m), error }.into());
        }
        match m {
            Move::Play { .. } => plays += 1,
            Move::Pass => passes += 1,
            Move::Draw => draws += 1,
        }
    }
    Ok((plays, passes, draws))
}

/// What turns a seat's spec into its strategy: [`build`] by default; a
/// caller with strategies of its own (the Python package's functions)
/// names them by specs of its own ([`Arena::with_builder`]).
pub type Builder = dyn Fn(&str, u64) -> Result<Box<dyn Strategy>, SpecError> + Send + Sync;

/// A configured arena.
pub struct Arena {
    config: ArenaConfig,
    builder: Arc<Builder>,
    rules: Arc<Rules>,
    table: Table,
    /// Team index of each slot (by the first game's seating), if teams.
    team_of_slot: Option<Vec<usize>>,
    /// The slot the SPRT measures against slot 0.
    sprt_rival: Option<usize>,
    /// Whether moves go through the referee's full turn (timing, or a
    /// strategy that may propose a refused move) rather than the fast path.
    time_moves_or_alternatives: bool,
    /// Per slot: whether its strategy is shown every hand (the `oracle`).
    open: Vec<bool>,
}

impl Arena {
    /// Checks the configuration: the variant, the seating and every spec.
    pub fn new(config: ArenaConfig) -> Result<Arena, ArenaError> {
        Arena::with_builder(config, Arc::new(|spec: &str, seed: u64| build(spec, seed)))
    }

    /// [`Arena::new`], the seats' strategies built by `builder` (called
    /// once per seat and worker thread; the arena reseeds them before every
    /// game).
    pub fn with_builder(config: ArenaConfig, builder: Arc<Builder>) -> Result<Arena, ArenaError> {
        let mut variant = config.variant.clone();
        if config.mode == Mode::Hands {
            variant.target = MatchTarget::Hands(1);
        }
        let rules = Arc::new(variant.validate()?);
        let n = config.seats.len() as u8;
        let probe = Game::new(rules.clone(), Seating::new(n), 0)?;
        let table = *probe.table();
        let mut alternatives = false;
        let mut open = Vec::with_capacity(config.seats.len());
        for (i, s) in config.seats.iter().enumerate() {
            let strategy = builder(s, i as u64)?;
            alternatives |= strategy.proposes_alternatives();
            open.push(strategy.sees_all_hands());
        }
        let time_moves_or_alternatives = config.time_moves || alternatives;
        let team_of_slot = table.has_teams().then(|| (0..n).map(|s| table.side_of(Seat(s)).index()).collect());
        let sprt_rival = match config.sprt {
            None => None,
            Some(_) => Some(
                (1..n)
                    .find(|&s| !table.same_side(Seat(0), Seat(s)) && config.seats[s as usize] != config.seats[0])
                    .ok_or_else(|| ArenaError::Sprt("needs two different strategies on opposing sides".into()))?
                    as usize,
            ),
        };
        Ok(Arena { config, builder, rules, table, team_of_slot, sprt_rival, time_moves_or_alternatives, open })
    }

    /// Plays the games; `progress` counts finished games as they finish.
    pub fn run(&self, progress: &AtomicU64) -> Result<ArenaReport, ArenaError> {
        let started = Instant::now();
        let n = self.config.seats.len();
        let teams = self.team_of_slot.as_ref().map_or(0, |t| t.iter().max().map_or(0, |m| m + 1));
        let mut total = Tally::new(n, teams);
        let mut decision = SprtDecision::Undecided;
        // Under an SPRT, games run in fixed batches and the test is checked
        // between them, so where it stops does not depend on threads.
        let batch = match self.config.sprt {
            Some(_) => (n as u64) * 64,
            None => self.config.games.max(1),
        };
        let mut next = 0u64;
        while next < self.config.games && decision == SprtDecision::Undecided {
            let end = (next + batch).min(self.config.games);
            total.merge(&self.run_range(next, end, progress)?);
            next = end;
            if let Some(t) = &self.config.sprt {
                let [w, d, l] = total.sprt;
                decision = t.decide(w, d, l);
            }
        }
        Ok(self.report(&total, started.elapsed().as_secs_f64()))
    }

    fn run_range(&self, start: u64, end: u64, progress: &AtomicU64) -> Result<Tally, ArenaError> {
        let n = self.config.seats.len();
        let teams = self.team_of_slot.as_ref().map_or(0, |t| t.iter().max().map_or(0, |m| m + 1));
        let cursor = AtomicU64::new(start);
        let merged = Mutex::new(Tally::new(n, teams));
        let failure: Mutex<Option<ArenaError>> = Mutex::new(None);
        let threads = self.config.threads.max(1);
        if threads == 1 {
            // On the caller's own thread: a caller whose strategies need
            // that thread (Python functions, called with the interpreter
            // state of the thread that holds it) runs them there.
            return self.worker(&cursor, end, progress);
        }
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let result = self.worker(&cursor, end, progress);
                    match result {
                        Ok(t) => merged.lock().expect("tally lock").merge(&t),
                        Err(e) => {
                            failure.lock().expect("failure lock").get_or_insert(e);
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().expect("failure lock") {
            return Err(e);
        }
        Ok(merged.into_inner().expect("tally lock"))
    }

    fn worker(&self, cursor: &AtomicU64, end: u64, progress: &AtomicU64) -> Result<Tally, ArenaError> {
        const CHUNK: u64 = 16;
        let n = self.config.seats.len();
        let teams = self.team_of_slot.as_ref().map_or(0, |t| t.iter().max().map_or(0, |m| m + 1));
        let mut tally = Tally::new(n, teams);
        let mut players: Vec<Player> =
            self.config.seats.iter().map(|s| Player::build(s, self.builder.as_ref())).collect::<Result<_, _>>()?;
        let mut game = Game::new(self.rules.clone(), Seating::new(n as u8), 0)?;
        let mut proposals = Vec::with_capacity(4);
        let mut legal = MoveList::new();
        loop {
            let first = cursor.fetch_add(CHUNK, Ordering::Relaxed);
            if first >= end {
                break;
            }
            for i in first..(first + CHUNK).min(end) {
                self.play_game(i, &mut game, &mut players, &mut proposals, &mut legal, &mut tally)?;
                progress.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(tally)
    }

    /// Plays game `index` from its deal and seating to its end and adds
    /// what happened to `tally`.
    fn play_game(
        &self,
        index: u64,
        game: &mut Game,
        players: &mut [Player],
        proposals: &mut Vec<Move>,
        legal: &mut MoveList,
        tally: &mut Tally,
    ) -> Result<(), ArenaError> {
        let rotation = (index % players.len() as u64) as usize;
        self.deal(index, game, players);
        let (plays, passes, draws) = if self.time_moves_or_alternatives {
            self.play_refereed(game, players, rotation, proposals, tally)?
        } else {
            play_quick(game, players, rotation, legal, &self.open)?
        };
        tally.plays += plays;
        tally.passes += passes;
        tally.draws += draws;
        self.record_outcome(game, rotation, tally);
        Ok(())
    }

    /// Deals game `index` and reseeds every strategy for it. The deal
    /// depends on `index / seats` only, so each rotation of the seating
    /// plays the same hands; the strategies' seeds depend on the game.
    fn deal(&self, index: u64, game: &mut Game, players: &mut [Player]) {
        let n = players.len();
        game.restart(derive_seed(self.config.seed, index / n as u64));
        let game_seed = derive_seed(self.config.seed ^ 0xA5A5_A5A5, index);
        for (slot, p) in players.iter_mut().enumerate() {
            p.as_dyn().reseed(derive_seed(game_seed, slot as u64));
        }
    }

    /// Plays `game` to its end through the referee's full turn, which times
    /// each decision (with `time_moves`) and counts refused proposals into
    /// the slot's tallies. Returns the plays, passes and draws.
    fn play_refereed(
        &self,
        game: &mut Game,
        players: &mut [Player],
        rotation: usize,
        proposals: &mut Vec<Move>,
        tally: &mut Tally,
    ) -> Result<(u64, u64, u64), ArenaError> {
        let n = players.len();
        let (mut plays, mut passes, mut draws) = (0u64, 0u64, 0u64);
        while let Some(seat) = game.to_move() {
            // Slot j sits at seat (j + rotation) % n.
            let slot = (seat.index() + n - rotation) % n;
            let timer = self.config.time_moves.then(Instant::now);
            let played = play_turn_seeing(game, players[slot].as_dyn(), proposals, self.open[slot])?;
            let s = &mut tally.slots[slot];
            if let Some(t) = timer {
                s[4] += t.elapsed().as_nanos() as i64;
            }
            s[5] += 1;
            s[6] += played.refused as i64;
            match played.chosen {
                Move::Play { .. } => plays += 1,
                Move::Pass => passes += 1,
                Move::Draw => draws += 1,
            }
        }
        Ok((plays, passes, draws))
    }

    /// Adds the finished `game`'s hands, winner and scores to `tally`: per
    /// slot, per team (once per team, by its first slot) and for the SPRT.
    fn record_outcome(&self, game: &Game, rotation: usize, tally: &mut Tally) {
        let n = tally.slots.len();
        let results = game.hand_results();
        tally.games += 1;
        tally.hands += results.len() as u64;
        let blocked = || results.iter().filter(|r| matches!(r.end, HandEnd::Blocked { .. }));
        tally.blocked += blocked().count() as u64;
        tally.blocked_ties += blocked().filter(|r| r.winner.is_none()).count() as u64;
        let winner = game.outcome().and_then(|o| o.winner);
        if winner.is_none() {
            tally.no_winner += 1;
        }
        let side_of_slot = |slot: usize| self.table.side_of(Seat(((slot + rotation) % n) as u8));
        let outcome_of = |side: Side| match winner {
            Some(w) if w == side => 0,
            Some(_) => 1,
            None => 2,
        };
        for slot in 0..n {
            let side = side_of_slot(slot);
            let s = &mut tally.slots[slot];
            s[outcome_of(side)] += 1;
            s[3] += game.scores()[side.index()] as i64;
        }
        if let Some(team_of_slot) = &self.team_of_slot {
            let mut done = [false; MAX_SEATS];
            for (slot, &team) in team_of_slot.iter().enumerate() {
                if !std::mem::replace(&mut done[team], true) {
                    let side = side_of_slot(slot);
                    let t = &mut tally.teams[team];
                    t[outcome_of(side)] += 1;
                    t[3] += game.scores()[side.index()] as i64;
                }
            }
        }
        if let Some(rival) = self.sprt_rival {
            let (mine, theirs) = (side_of_slot(0), side_of_slot(rival));
            match winner {
                Some(w) if w == mine => tally.sprt[0] += 1,
                Some(w) if w == theirs => tally.sprt[2] += 1,
                _ => tally.sprt[1] += 1,
            }
        }
    }

    fn report(&self, t: &Tally, seconds: f64) -> ArenaReport {
        let games = t.games;
        let per = |x: u64, of: u64| if of == 0 { 0.0 } else { x as f64 / of as f64 };
        let entry = |strategy: String, w: i64, l: i64, d: i64, score: i64| {
            let (lo, hi) = wilson95(w as u64, games);
            Entry {
                strategy,
                wins: w as u64,
                losses: l as u64,
                ties: d as u64,
                win_rate: per(w as u64, games),
                ci95_low: lo,
                ci95_high: hi,
                mean_score: if games == 0 { 0.0 } else { score as f64 / games as f64 },
                ms_per_move: None,
                refused: 0,
            }
        };
        let seats = t
            .slots
            .iter()
            .enumerate()
            .map(|(slot, s)| Entry {
                ms_per_move: self.config.time_moves.then(|| s[4] as f64 / 1e6 / (s[5].max(1) as f64)),
                refused: s[6] as u64,
                ..entry(self.config.seats[slot].clone(), s[0], s[1], s[2], s[3])
            })
            .collect();
        let teams = self.team_of_slot.as_ref().map(|team_of_slot| {
            t.teams
                .iter()
                .enumerate()
                .map(|(team, s)| {
                    let members: Vec<&str> = (0..team_of_slot.len())
                        .filter(|&slot| team_of_slot[slot] == team)
                        .map(|slot| self.config.seats[slot].as_str())
                        .collect();
                    entry(members.join("+"), s[0], s[1], s[2], s[3])
                })
                .collect()
        });
        let sprt = self.config.sprt.map(|test| {
            let [w, d, l] = t.sprt;
            let (lower, upper) = test.bounds();
            let n = (w + d + l).max(1) as f64;
            ArenaReport::sprt_report(
                test,
                self.config.seats[0].clone(),
                self.config.seats[self.sprt_rival.unwrap_or(1)].clone(),
                [w, d, l],
                (lower, upper),
                elo_of_score((w as f64 + 0.5 * d as f64) / n),
            )
        });
        ArenaReport {
            variant: self.rules.variant().name.clone(),
            mode: self.config.mode,
            seed: self.config.seed,
            threads: self.config.threads.max(1),
            games,
            hands: t.hands,
            seconds,
            games_per_sec: if seconds > 0.0 { games as f64 / seconds } else { 0.0 },
            blocked_rate: per(t.blocked, t.hands),
            tie_rate: per(t.no_winner, games),
            blocked_tie_rate: per(t.blocked_ties, t.hands),
            tiles_per_hand: per(t.plays, t.hands),
            passes_per_hand: per(t.passes, t.hands),
            draws_per_hand: per(t.draws, t.hands),
            seats,
            teams,
            sprt,
        }
    }
}

impl ArenaReport {
    fn sprt_report(
        test: Sprt,
        first: String,
        second: String,
        [wins, ties, losses]: [u64; 3],
        (lower, upper): (f64, f64),
        elo: f64,
    ) -> SprtReport {
        SprtReport {
            test,
            first,
            second,
            wins,
            ties,
            losses,
            llr: test.llr(wins, ties, losses),
            lower,
            upper,
            elo,
            decision: test.decide(wins, ties, losses),
        }
    }
}
