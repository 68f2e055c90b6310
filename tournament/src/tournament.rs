//! The tournament as a state machine driven by results.

pub(crate) mod arena;

use serde::Serialize;
use thiserror::Error;

use crate::config::{Config, EntrantSpec, FormatKind};
use crate::format::{Ctx, Group};
use crate::rng::{Purpose, TourRng};
use crate::round::{Entrant, EntrantId, MatchResult, Round, Seat, Table};
use crate::scoring::Outcome;
use crate::standings::{GameLog, Meetings, Ranker, Standing, Stats};
use crate::stop::StopReason;
use crate::table::TableKind;

mod control;

pub use control::{Control, ControlError, Entry, LogError};

/// A stored arena table that does not fit the arena.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ArenaError {
    /// The tournament is not an arena.
    #[error("the tournament is not an arena")]
    NotAnArena,
    /// Tables come in creation order, without gaps.
    #[error("arena table {got} given where table {expected} comes next")]
    OutOfOrder {
        /// The next table's number.
        expected: u32,
        /// The number given.
        got: u32,
    },
    /// The table is not one table of two entrants of this arena.
    #[error("arena table {number}: {message}")]
    BadTable {
        /// The table's number.
        number: u32,
        /// What is wrong.
        message: String,
    },
    /// A stored result does not fit.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// A result the tournament cannot accept; the tournament is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
    /// The tournament is over.
    #[error("the tournament is finished")]
    Finished,
    /// The result is for another round than the one in progress.
    #[error("round {got} is not the round in progress ({expected})")]
    WrongRound {
        /// The round in progress.
        expected: u32,
        /// The round named by the result.
        got: u32,
    },
    /// No such table in the round.
    #[error("round {round} has no table {table}")]
    NoSuchTable {
        /// The round.
        round: u32,
        /// The table named.
        table: u32,
    },
    /// The table already has a result.
    #[error("table {table} of round {round} already has a result")]
    AlreadyRecorded {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// The result does not give one entry per seat.
    #[error("table {table} has {expected} seats, the result gives {got}")]
    SeatCount {
        /// The table.
        table: u32,
        /// Seats at the table.
        expected: usize,
        /// Seats in the result.
        got: usize,
    },
    /// The winner is not a side of the table.
    #[error("table {table} has {sides} sides, the winner is side {winner}")]
    NoSuchSide {
        /// The table.
        table: u32,
        /// Sides at the table.
        sides: usize,
        /// The winner named.
        winner: u32,
    },
}

/// The round in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct Current {
    round: Round,
    /// (group, index in the group's plan) of every table.
    origin: Vec<(usize, usize)>,
    recorded: Vec<bool>,
}

/// A running tournament: rounds out, results in.
///
/// Everything is decided by the [`Config`] (including its seed) and the
/// results recorded, in order: [`Tournament::replay`] of the stored results
/// rebuilds exactly the live state, so a server commits each result and
/// resumes after a restart.
///
/// ```
/// use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};
/// let spec: TournamentSpec = serde_json::from_str(r#"{
///     "name": "cup", "table": "duel", "variants": ["block"],
///     "entrants": ["ana", "ben", "eva", "leo"], "stages": [{ "format": "knockout" }]
/// }"#).unwrap();
/// let mut t = Tournament::new(spec.validate().unwrap());
/// while let Some(round) = t.next_round() {
///     for table in &round.tables {
///         // Play the table; here the first side always wins 100 to 0.
///         let seats = table.seats.iter().map(|s| SeatResult { score: if s.side == 0 { 100 } else { 0 }, ..SeatResult::default() }).collect();
///         t.record(MatchResult { round: round.number, table: table.id, seats, winner: Some(0) }).unwrap();
///     }
/// }
/// assert!(t.is_finished());
/// assert_eq!(t.winners().len(), 1);
/// assert_eq!(Tournament::replay(t.config().clone(), t.results()).unwrap(), t);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    config: Config,
    entrants: Vec<Entrant>,
    seeds: Vec<u32>,
    lots: Vec<u32>,
    stats: Vec<Stats>,
    games: Vec<GameLog>,
    by_entrant: Vec<Vec<usize>>,
    meetings: Meetings,
    disqualified: Vec<bool>,
    /// Withdrawn by the organiser: never paired again.
    withdrawn: Vec<bool>,
    eliminated: Vec<bool>,
    stage_reached: Vec<u32>,
    knocked_out_at: Vec<Option<u32>>,
    stage: usize,
    groups: Vec<Group>,
    stage_rounds: u32,
    current: Option<Current>,
    rounds: Vec<Round>,
    results: Vec<MatchResult>,
    finished: Option<StopReason>,
    decided: Option<Vec<EntrantId>>,
    /// An arena's state (tables as they were paired); `None` for formats
    /// planned round by round.
    arena: Option<arena::Arena>,
}

impl Tournament {
    /// Starts a tournament: draws the seeding if asked and plans round 0.
    pub fn new(config: Config) -> Tournament {
        let n = config.entrant_count();
        Tournament::planned(config, vec![false; n])
    }

    /// [`Tournament::new`] with the entrants of `withdrawn` (by index)
    /// withdrawn before round 0 is planned.
    fn planned(config: Config, withdrawn: Vec<bool>) -> Tournament {
        let spec = config.spec();
        let n = spec.entrants.len();
        let entrants: Vec<Entrant> = spec
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let (name, members) = match e {
                    EntrantSpec::Player(p) => (p.clone(), vec![p.clone()]),
                    EntrantSpec::Team(t) => (t.name.clone(), t.members.clone()),
                };
                Entrant { id: EntrantId(i as u32), name, members, seed: i as u32 }
            })
            .collect();
        let mut order: Vec<EntrantId> = (0..n as u32).map(EntrantId).collect();
        if spec.draw {
            TourRng::new(spec.seed, Purpose::Draw).shuffle(&mut order);
        }
        let mut seeds = vec![0; n];
        for (pos, e) in order.iter().enumerate() {
            seeds[e.index()] = pos as u32;
        }
        let mut lot_order: Vec<u32> = (0..n as u32).collect();
        TourRng::new(spec.seed, Purpose::Lot).shuffle(&mut lot_order);
        let mut lots = vec![0; n];
        for (pos, &e) in lot_order.iter().enumerate() {
            lots[e as usize] = pos as u32;
        }
        let mut t = Tournament {
            entrants: entrants.into_iter().map(|e| Entrant { seed: seeds[e.id.index()], ..e }).collect(),
            stats: (0..n)
                .map(|_| Stats {
                    member_scores: vec![0; if spec.table.team_entrants() { 2 } else { 1 }],
                    ..Stats::default()
                })
                .collect(),
            seeds,
            lots,
            games: Vec::new(),
            by_entrant: vec![Vec::new(); n],
            meetings: Meetings::new(n),
            disqualified: vec![false; n],
            withdrawn,
            eliminated: vec![false; n],
            stage_reached: vec![0; n],
            knocked_out_at: vec![None; n],
            stage: 0,
            groups: Vec::new(),
            stage_rounds: 0,
            current: None,
            rounds: Vec::new(),
            results: Vec::new(),
            finished: None,
            decided: None,
            arena: arena::Arena::of(&config),
            config,
        };
        t.start_stage(0, order);
        if t.arena.is_none() {
            t.prepare_next();
        }
        t
    }

    /// Rebuilds a tournament from its configuration and every result
    /// recorded so far, in order; equal to the live tournament that recorded them.
    pub fn replay(config: Config, results: &[MatchResult]) -> Result<Tournament, RecordError> {
        let mut t = Tournament::new(config);
        for r in results {
            t.record(r.clone())?;
        }
        Ok(t)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The entrants, by id.
    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    /// The round to play now: the round in progress (the same one until all
    /// its tables have results), or `None` once the tournament is finished.
    pub fn next_round(&self) -> Option<Round> {
        self.current.as_ref().map(|c| c.round.clone())
    }

    /// Tables of the round in progress that still lack a result.
    pub fn pending_tables(&self) -> Vec<u32> {
        self.current
            .as_ref()
            .map(|c| c.round.tables.iter().filter(|t| !c.recorded[t.id as usize]).map(|t| t.id).collect())
            .unwrap_or_default()
    }

    /// Completed rounds, in order.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// Every result recorded, in order, as corrected by
    /// [`Control::Correct`](crate::Control::Correct) since.
    pub fn results(&self) -> &[MatchResult] {
        &self.results
    }

    /// Whether the tournament is over.
    pub fn is_finished(&self) -> bool {
        self.finished.is_some()
    }

    /// Why it ended, once it has.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.finished
    }

    /// The winners once finished (empty before): the first `stop.winners`
    /// (default 1) in standings order of the entrants that reached
    /// `stop.points`, or the contenders left by `stop.winners`, or else the
    /// first `stop.winners` entrants of the standings.
    pub fn winners(&self) -> Vec<EntrantId> {
        if self.finished.is_none() {
            return Vec::new();
        }
        if let Some(decided) = &self.decided {
            return decided.clone();
        }
        let count = self.config.spec().stop.winners.unwrap_or(1) as usize;
        self.standings()
            .into_iter()
            .filter(|s| !s.disqualified && !self.withdrawn[s.entrant.index()])
            .take(count)
            .map(|s| s.entrant)
            .collect()
    }

    /// The standings, leader first. The order: not disqualified, furthest
    /// stage reached, in a knockout stage the later exit, the winner rule,
    /// the tie-breaks, the seed.
    pub fn standings(&self) -> Vec<Standing> {
        let ids: Vec<EntrantId> = self.entrants.iter().map(|e| e.id).collect();
        let ranker = self.ranker();
        let ranked = ranker.rank(&ids, |e| {
            let i = e.index();
            (!self.disqualified[i], self.stage_reached[i], self.knockout_depth(e), ranker.primary(e))
        });
        ranked
            .into_iter()
            .enumerate()
            .map(|(pos, (e, tie_breaks))| {
                let s = &self.stats[e.index()];
                Standing {
                    rank: pos as u32 + 1,
                    entrant: e,
                    name: self.entrants[e.index()].name.clone(),
                    points: s.points,
                    wins: s.wins,
                    draws: s.draws,
                    losses: s.losses,
                    games: s.games,
                    byes: s.byes,
                    timeouts: s.timeouts,
                    score: s.score,
                    tie_breaks,
                    stage: self.stage_reached[e.index()],
                    eliminated: self.eliminated[e.index()],
                    disqualified: self.disqualified[e.index()],
                    withdrawn: self.withdrawn[e.index()],
                    reprieves: s.reprieves,
                }
            })
            .collect()
    }

    /// Records the result of one table of the round in progress. When it is
    /// the round's last result, the round closes: byes are scored,
    /// disqualifications judged, stop conditions checked and the next round
    /// planned. An arena takes the result of any table it paired that has
    /// none yet (see [`Tournament::arena_pair`]).
    pub fn record(&mut self, result: MatchResult) -> Result<(), RecordError> {
        if self.arena.is_some() {
            return self.record_arena(result);
        }
        if self.finished.is_some() {
            return Err(RecordError::Finished);
        }
        let current = self.current.as_ref().expect("a round is in progress until the tournament finishes");
        let round = current.round.number;
        if result.round != round {
            return Err(RecordError::WrongRound { expected: round, got: result.round });
        }
        let Some(table) = current.round.tables.get(result.table as usize) else {
            return Err(RecordError::NoSuchTable { round, table: result.table });
        };
        if current.recorded[result.table as usize] {
            return Err(RecordError::AlreadyRecorded { round, table: result.table });
        }
        if result.seats.len() != table.seats.len() {
            return Err(RecordError::SeatCount {
                table: table.id,
                expected: table.seats.len(),
                got: result.seats.len(),
            });
        }
        if let Some(w) = result.winner
            && w as usize >= table.sides.len()
        {
            return Err(RecordError::NoSuchSide { table: table.id, sides: table.sides.len(), winner: w });
        }
        let table = table.clone();
        let origin = current.origin[result.table as usize];
        self.apply(&table, &result, origin);
        let current = self.current.as_mut().expect("checked above");
        current.recorded[result.table as usize] = true;
        self.results.push(result);
        if current.recorded.iter().all(|&r| r) {
            let done = self.current.take().expect("checked above").round;
            self.complete_round(done);
            self.prepare_next();
        }
        Ok(())
    }

    fn apply(&mut self, table: &Table, result: &MatchResult, (group, local): (usize, usize)) {
        let side_scores = self.tally(table, result, 1);
        for e in table.sides.iter().flatten() {
            self.by_entrant[e.index()].push(self.games.len());
        }
        self.meetings.record(&table.sides);
        self.games.push(GameLog { sides: table.sides.clone(), winner: result.winner.map(|w| w as usize) });
        if self.groups[group].is_knockout() {
            let through = self.through(table, result.winner, &side_scores);
            let (winner, loser) = (table.sides[through][0], table.sides[1 - through][0]);
            if let Some(out) = self.groups[group].report(local, winner, loser) {
                self.eliminated[out.index()] = true;
                self.knocked_out_at[out.index()] = Some(self.rounds.len() as u32);
            }
        }
    }

    /// The side of a knockout table that goes through: the winner, or on a
    /// draw the higher score, then the better seed.
    fn through(&self, table: &Table, winner: Option<u32>, side_scores: &[i64]) -> usize {
        match winner {
            Some(w) => w as usize,
            None => {
                let seed = |s: usize| self.seeds[table.sides[s][0].index()];
                if side_scores[0] != side_scores[1] {
                    usize::from(side_scores[1] > side_scores[0])
                } else {
                    usize::from(seed(1) < seed(0))
                }
            }
        }
    }

    /// Adds (`sign` 1) or takes back (`sign` -1) a result's counts to the
    /// entrants of its table; returns each side's score. The losing streak
    /// only grows and resets going forward: a correction leaves it as the
    /// results first played left it.
    fn tally(&mut self, table: &Table, result: &MatchResult, sign: i64) -> Vec<i64> {
        let scoring = &self.config.spec().scoring;
        let seats: Vec<(usize, i64, u32)> =
            table.seats.iter().zip(&result.seats).map(|(s, r)| (s.side as usize, r.score, r.pips)).collect();
        let side_scores: Vec<i64> = (0..table.sides.len()).map(|s| scoring.side_score(s, &seats)).collect();
        let step = |n: &mut u32, by: u32| {
            *n = if sign > 0 { n.saturating_add(by) } else { n.saturating_sub(by) };
        };
        for (s, side) in table.sides.iter().enumerate() {
            let outcome = match result.winner {
                None => Outcome::Draw,
                Some(w) if w as usize == s => Outcome::Win,
                Some(_) => Outcome::Loss,
            };
            let best_other =
                side_scores.iter().enumerate().filter(|&(j, _)| j != s).map(|(_, &v)| v).max().unwrap_or(0);
            for &e in side {
                let members = &self.entrants[e.index()].members;
                let st = &mut self.stats[e.index()];
                step(&mut st.games, 1);
                match outcome {
                    Outcome::Win => step(&mut st.wins, 1),
                    Outcome::Draw => step(&mut st.draws, 1),
                    Outcome::Loss => step(&mut st.losses, 1),
                }
                if sign > 0 {
                    st.streak = if outcome == Outcome::Loss { st.streak + 1 } else { 0 };
                }
                st.points += sign * scoring.game_points(outcome, side_scores[s]);
                st.score += sign * side_scores[s];
                st.margin += sign * (side_scores[s] - best_other);
                for (seat, r) in table.seats.iter().zip(&result.seats) {
                    if seat.entrant == e {
                        step(&mut st.timeouts, r.timeouts);
                        if let Some(m) = members.iter().position(|p| *p == seat.player) {
                            st.member_scores[m] += sign * r.score;
                        }
                    }
                }
            }
        }
        side_scores
    }

    fn ranker(&self) -> Ranker<'_> {
        let scoring = &self.config.spec().scoring;
        Ranker {
            stats: &self.stats,
            games: &self.games,
            tie_breaks: &scoring.tie_breaks,
            winner: scoring.winner,
            seeds: &self.seeds,
            lots: &self.lots,
            by_entrant: &self.by_entrant,
            meetings: &self.meetings,
        }
    }

    /// In a knockout stage, later exits rank higher (survivors highest); 0 elsewhere.
    fn knockout_depth(&self, e: EntrantId) -> u32 {
        let stage = &self.config.spec().stages[self.stage_reached[e.index()] as usize];
        match stage.format {
            FormatKind::Knockout | FormatKind::DoubleKnockout => {
                self.knocked_out_at[e.index()].map_or(u32::MAX, |r| r + 1)
            }
            _ => 0,
        }
    }

    /// Active members of a group, best first.
    fn group_ranking(&self, group: &Group) -> Vec<EntrantId> {
        let ids: Vec<EntrantId> = group.members.iter().copied().filter(|e| self.can_play(e.index())).collect();
        let ranker = self.ranker();
        ranker.order(&ids, |e| (self.knockout_depth(e), ranker.primary(e)))
    }

    /// Whether the entrant (by index) may be seated in a new round: not
    /// disqualified, eliminated or withdrawn.
    fn can_play(&self, i: usize) -> bool {
        !self.disqualified[i] && !self.eliminated[i] && !self.withdrawn[i]
    }

    fn start_stage(&mut self, stage: usize, order: Vec<EntrantId>) {
        let spec = self.config.spec();
        let s = &spec.stages[stage];
        let count = s.groups.unwrap_or(1).max(1) as usize;
        let mut members = vec![Vec::new(); count];
        for (i, &e) in order.iter().enumerate() {
            let (row, col) = (i / count, i % count);
            members[if row % 2 == 0 { col } else { count - 1 - col }].push(e);
            self.stage_reached[e.index()] = stage as u32;
        }
        let n = self.entrants.len();
        self.groups = members.into_iter().map(|m| Group::new(s, spec.table, m, n)).collect();
        self.stage = stage;
        self.stage_rounds = 0;
    }

    /// Plans the next round with at least one table, moving through stages
    /// as they end, or finishes the tournament.
    fn prepare_next(&mut self) {
        while self.finished.is_none() {
            let number = self.rounds.len() as u32;
            let mut rng = TourRng::new(self.config.spec().seed, Purpose::Schedule { round: number });
            let active: Vec<bool> = (0..self.entrants.len()).map(|i| self.can_play(i)).collect();
            let mut plans = Vec::new();
            for g in 0..self.groups.len() {
                let ranked =
                    if self.groups[g].needs_ranking() { self.group_ranking(&self.groups[g]) } else { Vec::new() };
                let scores: Vec<i64> = if ranked.is_empty() {
                    Vec::new()
                } else {
                    let ranker = self.ranker();
                    (0..self.entrants.len() as u32).map(|i| ranker.primary(EntrantId(i))[0]).collect()
                };
                let ctx = Ctx { active: &active, ranked: &ranked, scores: &scores };
                if let Some(plan) = self.groups[g].next(&ctx, &mut rng) {
                    plans.push((g, plan));
                }
            }
            if plans.is_empty() {
                self.end_stage();
                continue;
            }
            let round = self.build_round(number, plans);
            if round.0.tables.is_empty() {
                self.complete_round(round.0);
                continue;
            }
            let recorded = vec![false; round.0.tables.len()];
            self.current = Some(Current { round: round.0, origin: round.1, recorded });
            return;
        }
    }

    fn build_round(&self, number: u32, plans: Vec<(usize, crate::format::Plan)>) -> (Round, Vec<(usize, usize)>) {
        let spec = self.config.spec();
        let variant = match &spec.stages[self.stage].variants {
            Some(v) => v[self.stage_rounds as usize % v.len()].clone(),
            None => spec.variants[number as usize % spec.variants.len()].clone(),
        };
        let mut round = Round { number, stage: self.stage as u32, variant, tables: Vec::new(), byes: Vec::new() };
        let mut origin = Vec::new();
        for (g, plan) in plans {
            for (local, sides) in plan.tables.into_iter().enumerate() {
                let seats = self.seats(spec.table, &sides);
                round.tables.push(Table { id: round.tables.len() as u32, sides, seats });
                origin.push((g, local));
            }
            round.byes.extend(plan.byes);
        }
        (round, origin)
    }

    /// Seats in engine order: one side per seat, or two sides alternating
    /// (partners opposite).
    fn seats(&self, kind: TableKind, sides: &[Vec<EntrantId>]) -> Vec<Seat> {
        let players = |s: usize| -> Vec<(String, EntrantId)> {
            sides[s]
                .iter()
                .flat_map(|&e| self.entrants[e.index()].members.iter().map(move |p| (p.clone(), e)))
                .collect()
        };
        (0..kind.seats())
            .map(|k| {
                let (side, idx) = if sides.len() == kind.seats() { (k, 0) } else { (k % 2, k / 2) };
                let (player, entrant) = players(side)[idx].clone();
                Seat { player, entrant, side: side as u32 }
            })
            .collect()
    }

    fn complete_round(&mut self, round: Round) {
        let spec = self.config.spec();
        let bye_points = spec.scoring.bye_points();
        for &b in &round.byes {
            self.stats[b.index()].byes += 1;
            self.stats[b.index()].points += bye_points;
        }
        let mut played: Vec<EntrantId> = round.tables.iter().flat_map(|t| t.sides.iter().flatten().copied()).collect();
        played.sort();
        for e in played {
            let i = e.index();
            if self.disqualified[i] {
                continue;
            }
            let s = &self.stats[i];
            if spec.disqualify.violation(s.games, s.losses, s.streak, s.timeouts).is_none() {
                continue;
            }
            let reprieve = spec.lenient_judge.as_ref().is_some_and(|j| {
                TourRng::new(spec.seed, Purpose::Judge { round: round.number, entrant: e.0 }).chance(j.per_million())
            });
            if reprieve {
                let s = &mut self.stats[i];
                s.points /= 2;
                s.reprieves += 1;
            } else {
                self.disqualified[i] = true;
            }
        }
        self.rounds.push(round);
        self.stage_rounds += 1;
        let stop = &spec.stop;
        let contenders: Vec<EntrantId> = if stop.points.is_some() || stop.winners.is_some() {
            self.standings()
                .into_iter()
                .filter(|s| !s.disqualified && !s.eliminated && !self.withdrawn[s.entrant.index()])
                .map(|s| s.entrant)
                .collect()
        } else {
            Vec::new()
        };
        let points: Vec<i64> = contenders.iter().map(|e| self.stats[e.index()].points).collect();
        let reason = spec.stop.reached(self.rounds.len() as u32, self.games.len() as u32, &points);
        match reason {
            Some(StopReason::Points) => {
                // Exactly the configured number: when more reach the target
                // in the same round, the standings order (winner rule, then
                // tie-breaks, then seed) decides who is named.
                let target = spec.stop.points.expect("points reached");
                let count = spec.stop.winners.unwrap_or(1) as usize;
                self.decided = Some(
                    contenders.into_iter().filter(|e| self.stats[e.index()].points >= target).take(count).collect(),
                );
            }
            Some(StopReason::Winners) => self.decided = Some(contenders),
            _ => {}
        }
        if reason.is_some() {
            self.finished = reason;
            self.current = None;
        }
    }

    /// Closes the current stage: the best `advance` of each group go on,
    /// interleaved by place (all group winners, then all runners-up...).
    fn end_stage(&mut self) {
        let spec = self.config.spec();
        let Some(k) = spec.stages[self.stage].advance else {
            self.finished = Some(StopReason::Completed);
            return;
        };
        // Everyone of the stage still qualified, knockout losers included (ranked by how far they went).
        let rankings: Vec<Vec<EntrantId>> = self
            .groups
            .iter()
            .map(|g| {
                let ids: Vec<EntrantId> = g
                    .members
                    .iter()
                    .copied()
                    .filter(|e| !self.disqualified[e.index()] && !self.withdrawn[e.index()])
                    .collect();
                let ranker = self.ranker();
                ranker.order(&ids, |e| (self.knockout_depth(e), ranker.primary(e)))
            })
            .collect();
        let mut next = Vec::new();
        for place in 0..k as usize {
            for r in &rankings {
                if let Some(&e) = r.get(place) {
                    next.push(e);
                }
            }
        }
        for g in &self.groups {
            for e in &g.members {
                self.eliminated[e.index()] = !next.contains(e);
            }
        }
        self.start_stage(self.stage + 1, next);
    }
}
