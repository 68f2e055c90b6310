//! The arena (as lichess arenas): for a fixed duration, an entrant whose
//! game ends is paired again at once with a free entrant near it in the
//! standings; it ends at its deadline, and the games in play then still count.
//!
//! Pairings depend on when games end, which results alone do not tell: each
//! table is a round of one table, numbered in creation order, which the
//! server stores when it creates it. The state is rebuilt from the stored
//! tables and the stored results ([`Tournament::replay_with_tables`]).
//! There is no clock here: the caller passes the time (`now`, in
//! milliseconds on any clock it keeps to, as the deadline is).
//!
//! The organiser's controls ([`Control`](crate::Control)) are entries of
//! its log as for other formats ([`Tournament::replay_arena_log`]):
//! - a withdrawn entrant is paired no more; its game in play finishes and
//!   counts;
//! - a correction replaces a recorded result, and the arena's standings are
//!   recomputed from the corrected sequence of results, in record order:
//!   points, streak bonuses, disqualifications and the lenient referee's
//!   halvings are those of an arena that had recorded the corrected result
//!   in the first place (a win corrected into a loss ends the streak it was
//!   part of, and the later wins of that streak lose their bonus). Pairings
//!   already made stand.

use super::{ArenaError, ControlError, Entry, LogError, RecordError, Tournament};
use crate::config::Config;
use crate::rng::{Purpose, TourRng};
use crate::round::{EntrantId, MatchResult, Round, Table};
use crate::scoring::Outcome;
use crate::stop::StopReason;

/// How long two entrants whose last games were against each other wait for
/// another free entrant before they are paired together again, in
/// milliseconds: without a wait, the two players of a table that ends when
/// no other has would meet again and again.
pub const REMATCH_WAIT_MS: u64 = 2_000;

/// What [`Tournament::arena_pair`] decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArenaPairing {
    /// New tables, each a round of one table, in creation order.
    pub tables: Vec<Round>,
    /// When to pair again if no game ends before (a held-back rematch
    /// becomes allowed, or the deadline); `None` once the arena pairs no more.
    pub wake_at: Option<u64>,
}

/// An arena's state beside the tournament's statistics.
#[derive(Clone, Debug)]
pub(crate) struct Arena {
    duration_ms: u64,
    streak_bonus: bool,
    /// Tables created at most (`max-games`).
    max_tables: u64,
    /// The deadline, once the arena started.
    ends_at: Option<u64>,
    /// No more tables (the deadline passed, or the table limit was reached).
    closed: bool,
    /// Every table, by number.
    tables: Vec<Round>,
    recorded: Vec<bool>,
    /// Tables without a result, per entrant (one at most while live; a
    /// replay adds every table before the results).
    in_play: Vec<u32>,
    /// Since when each free entrant waits for a table (the live server's
    /// timing: not replayed).
    waiting_since: Vec<Option<u64>>,
    /// Each entrant's opponent in its last finished game.
    last_opponent: Vec<Option<EntrantId>>,
    /// Each entrant's current run of wins.
    wins_in_row: Vec<u32>,
}

/// Equal when everything a replay rebuilds is: when free entrants started
/// waiting is live timing only.
impl PartialEq for Arena {
    fn eq(&self, o: &Arena) -> bool {
        (self.duration_ms, self.streak_bonus, self.max_tables, self.ends_at, self.closed)
            == (o.duration_ms, o.streak_bonus, o.max_tables, o.ends_at, o.closed)
            && self.tables == o.tables
            && self.recorded == o.recorded
            && self.in_play == o.in_play
            && self.last_opponent == o.last_opponent
            && self.wins_in_row == o.wins_in_row
    }
}

impl Arena {
    /// The arena of `config`, if it is one.
    pub(super) fn of(config: &Config) -> Option<Arena> {
        let spec = config.spec();
        let stage = spec.stages.first().filter(|_| config.is_arena())?;
        let n = spec.entrants.len();
        Some(Arena {
            duration_ms: u64::from(stage.duration_secs.unwrap_or(0)) * 1000,
            streak_bonus: stage.streak_bonus.unwrap_or(false),
            max_tables: spec.max_games.unwrap_or(crate::config::DEFAULT_MAX_GAMES),
            ends_at: None,
            closed: false,
            tables: Vec::new(),
            recorded: Vec::new(),
            in_play: vec![0; n],
            waiting_since: vec![None; n],
            last_opponent: vec![None; n],
            wins_in_row: vec![0; n],
        })
    }

    /// Makes room for a late entrant: free, and paired at the next pairing.
    pub(super) fn grow(&mut self) {
        self.in_play.push(0);
        self.waiting_since.push(None);
        self.last_opponent.push(None);
        self.wins_in_row.push(0);
    }

    /// Whether `a` and `b` both last played each other.
    fn just_met(&self, a: EntrantId, b: EntrantId) -> bool {
        self.last_opponent[a.index()] == Some(b) && self.last_opponent[b.index()] == Some(a)
    }
}

impl Tournament {
    /// Rebuilds a tournament from its stored tables (an arena's, in creation
    /// order; ignored for other formats, whose tables follow from the
    /// results) and its results in record order.
    ///
    /// ```
    /// use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "arena", "table": "duel", "variants": ["block"],
    ///     "entrants": ["ana", "ben", "eva", "leo"],
    ///     "stages": [{ "format": "arena", "duration-secs": 60, "streak-bonus": true }]
    /// }"#).unwrap();
    /// let config = spec.validate().unwrap();
    /// let mut t = Tournament::new(config.clone());
    /// t.start_arena(60_000);
    /// let pairing = t.arena_pair(0);
    /// assert_eq!(pairing.tables.len(), 2);
    /// let first = &pairing.tables[0];
    /// let seats = vec![SeatResult::default(); 2];
    /// t.record(MatchResult { round: first.number, table: 0, seats, winner: Some(0) }).unwrap();
    /// let back = Tournament::replay_with_tables(config, t.arena_tables(), t.results()).unwrap();
    /// assert_eq!(back.standings(), t.standings());
    /// assert_eq!(back.rounds_in_play(), t.rounds_in_play());
    /// ```
    pub fn replay_with_tables(
        config: Config,
        tables: &[Round],
        results: &[MatchResult],
    ) -> Result<Tournament, ArenaError> {
        let mut t = Tournament::new(config);
        if t.arena.is_some() {
            for table in tables {
                t.add_arena_table(table.clone())?;
            }
        }
        for r in results {
            t.record(r.clone())?;
        }
        Ok(t)
    }

    /// Rebuilds an arena from its stored tables (in creation order) and its
    /// log (results and controls, in log order); equal to the live arena
    /// that took them. Each table comes as soon as its entrants have
    /// entered (see [`Tournament::extend_arena_log`]): a stored table changes
    /// no standing, and no control depends on a table paired after it. For
    /// other formats the tables are ignored, as [`Tournament::replay_log`].
    ///
    /// ```
    /// use capicua_tournament::{Control, EntrantId, Entry, MatchResult, SeatResult, Tournament, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "arena", "table": "duel", "variants": ["block"],
    ///     "entrants": ["ana", "ben", "eva", "leo"], "stages": [{ "format": "arena", "duration-secs": 60 }]
    /// }"#).unwrap();
    /// let config = spec.validate().unwrap();
    /// let mut t = Tournament::new(config.clone());
    /// t.start_arena(60_000);
    /// let first = t.arena_pair(0).tables.remove(0);
    /// let won = MatchResult { round: first.number, table: 0, seats: vec![SeatResult::default(); 2], winner: Some(0) };
    /// t.record(won.clone()).unwrap();
    /// // The organiser corrects it into a draw, and withdraws leo.
    /// let log = vec![
    ///     Entry::Result(won.clone()),
    ///     Entry::Control(Control::Correct { result: MatchResult { winner: None, ..won } }),
    ///     Entry::Control(Control::Withdraw { entrant: EntrantId(3), before_start: false }),
    /// ];
    /// for entry in &log[1..] {
    ///     if let Entry::Control(c) = entry { t.control(c.clone()).unwrap(); }
    /// }
    /// let mut back = Tournament::replay_arena_log(config, t.arena_tables(), &log).unwrap();
    /// back.start_arena(60_000);
    /// assert_eq!(back, t);
    /// ```
    pub fn replay_arena_log(config: Config, tables: &[Round], log: &[Entry]) -> Result<Tournament, LogError> {
        let mut t = Tournament::new(config);
        if t.arena.is_some() {
            t.extend_arena_log(tables, log)?;
        } else {
            for entry in log {
                t.apply_entry(entry)?;
            }
        }
        Ok(t)
    }

    /// A stored tournament of any format as its log (and an arena's stored
    /// tables) leave it, [`Tournament::replay_arena_log`]; an arena whose
    /// deadline (`ends_at`, unix milliseconds) is stored knows it, to know
    /// when it has finished.
    pub fn replay_stored(
        config: Config,
        tables: &[Round],
        log: &[Entry],
        ends_at: Option<u64>,
    ) -> Result<Tournament, LogError> {
        let mut t = Tournament::replay_arena_log(config, tables, log)?;
        if let Some(ends_at) = ends_at {
            t.start_arena(ends_at);
        }
        Ok(t)
    }

    /// Goes on with an arena's stored tables paired since its last table
    /// (in creation order) and its log entries since its last entry (in log
    /// order), as [`Tournament::replay_arena_log`] does from the start: each
    /// table is added as soon as its entrants have entered (a late
    /// entrant's tables come after its entry), and every table before a
    /// result. Tables left over that seat an entrant not entered yet (read
    /// ahead of the entry) are not added: hand them over again with the
    /// entry.
    pub fn extend_arena_log(&mut self, tables: &[Round], log: &[Entry]) -> Result<(), LogError> {
        let mut tables = tables.iter().peekable();
        for entry in log {
            self.add_seated_tables(&mut tables)?;
            self.apply_entry(entry)?;
        }
        // A table whose entrant has not entered yet was read ahead of its
        // entry (the log and the tables are read one after the other while
        // the arena goes on): it and the tables after it wait for the next
        // reading, which starts from the tables held.
        self.add_seated_tables(&mut tables)
    }

    /// Adds the next of `tables` (in creation order) as long as every
    /// entrant they seat has entered.
    fn add_seated_tables<'a>(
        &mut self,
        tables: &mut std::iter::Peekable<impl Iterator<Item = &'a Round>>,
    ) -> Result<(), LogError> {
        while let Some(table) = tables.next_if(|r| self.seats_known(r)) {
            self.add_arena_table(table.clone())?;
        }
        Ok(())
    }

    /// Whether every entrant a stored table names has entered.
    fn seats_known(&self, round: &Round) -> bool {
        round.tables.iter().flat_map(|t| t.sides.iter().flatten()).all(|e| e.index() < self.entrants.len())
    }

    /// Replaces the arena result at index `at` of the results by `result`
    /// (already checked against its table) and recomputes the standings
    /// from the corrected results in record order (see the module's
    /// documentation); returns the result replaced.
    pub(super) fn correct_arena(&mut self, at: usize, result: MatchResult) -> Result<MatchResult, ControlError> {
        let a = self.arena.as_ref().expect("an arena");
        let mut results = self.results.clone();
        let old = std::mem::replace(&mut results[at], result);
        let mut fresh = Tournament::new(self.config.clone());
        for table in &a.tables {
            fresh.add_arena_table(table.clone()).expect("the arena's own tables fit it");
        }
        for r in results {
            fresh.record(r).map_err(ControlError::Shape)?;
        }
        // What results do not decide: the entrants, seeds and lots (a late
        // entrant's are its own), the organiser's withdrawals, the deadline
        // and whether the arena pairs no more, live waiting times.
        fresh.entrants.clone_from(&self.entrants);
        fresh.seeds.clone_from(&self.seeds);
        fresh.lots.clone_from(&self.lots);
        fresh.withdrawn.clone_from(&self.withdrawn);
        let f = fresh.arena.as_mut().expect("an arena");
        f.ends_at = a.ends_at;
        f.closed = a.closed;
        f.waiting_since.clone_from(&a.waiting_since);
        fresh.finish_arena_if_done();
        *self = fresh;
        Ok(old)
    }

    /// An arena's table `round` (a round of one table), paired earlier.
    pub(super) fn arena_table(&self, round: u32, table: u32) -> Option<&Table> {
        self.arena.as_ref()?.tables.get(round as usize)?.tables.get(table as usize)
    }

    /// An arena's deadline, once set by [`Tournament::start_arena`].
    pub fn arena_ends_at(&self) -> Option<u64> {
        self.arena.as_ref()?.ends_at
    }

    /// An arena's duration in milliseconds (`None` for other formats): the
    /// deadline is the start plus this.
    pub fn arena_duration_ms(&self) -> Option<u64> {
        Some(self.arena.as_ref()?.duration_ms)
    }

    /// Sets an arena's deadline (its start plus [`Tournament::arena_duration_ms`],
    /// stored by the caller so that a resumed arena keeps it). The first
    /// deadline set stays; nothing for other formats.
    pub fn start_arena(&mut self, ends_at: u64) {
        if let Some(a) = &mut self.arena {
            a.ends_at.get_or_insert(ends_at);
        }
    }

    /// Tells an arena the time: at its deadline it pairs no more, and it
    /// finishes once the games in play then have their results.
    pub fn arena_tick(&mut self, now: u64) {
        if let Some(a) = &mut self.arena
            && a.ends_at.is_some_and(|end| now >= end)
        {
            a.closed = true;
        }
        self.finish_arena_if_done();
    }

    /// Every table of an arena, in creation order (what a server stores);
    /// empty for other formats.
    pub fn arena_tables(&self) -> &[Round] {
        self.arena.as_ref().map_or(&[], |a| &a.tables)
    }

    /// Rounds with tables still to play: the round in progress, or for an
    /// arena every table without a result (each a round of one table).
    pub fn rounds_in_play(&self) -> Vec<Round> {
        match &self.arena {
            None => self.next_round().into_iter().collect(),
            Some(a) => a.tables.iter().zip(&a.recorded).filter(|(_, r)| !**r).map(|(t, _)| t.clone()).collect(),
        }
    }

    /// Pairs an arena's free entrants at time `now` (after
    /// [`Tournament::start_arena`]; nothing before, nor for other formats).
    ///
    /// Free entrants (neither disqualified nor withdrawn) are taken best
    /// first in the standings; each is paired
    /// with the free entrant nearest below it, skipping the one whose last
    /// game was against it while its last game was against that one too (an
    /// immediate rematch); those two meet again only when nobody else is
    /// free and both have waited [`REMATCH_WAIT_MS`]. No table is created at
    /// or after the deadline, nor beyond `max-games` tables. Each table is a
    /// round of one table, numbered in creation order, playing the variants
    /// in turn.
    ///
    /// ```
    /// use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "arena", "table": "duel", "variants": ["block"], "entrants": ["ana", "ben"],
    ///     "stages": [{ "format": "arena", "duration-secs": 10 }]
    /// }"#).unwrap();
    /// let mut t = Tournament::new(spec.validate().unwrap());
    /// t.start_arena(10_000);
    /// let table = t.arena_pair(0).tables.remove(0);
    /// assert_eq!(t.arena_pair(50).tables, vec![]); // both are playing
    /// t.record(MatchResult { round: table.number, table: 0, seats: vec![SeatResult::default(); 2], winner: None }).unwrap();
    /// // Only the two of them: the rematch waits for someone else, then goes ahead.
    /// let held = t.arena_pair(100);
    /// assert_eq!((held.tables.len(), held.wake_at), (0, Some(2_100)));
    /// assert_eq!(t.arena_pair(2_100).tables.len(), 1);
    /// ```
    pub fn arena_pair(&mut self, now: u64) -> ArenaPairing {
        self.arena_tick(now);
        let Some(a) = &self.arena else { return ArenaPairing::default() };
        let Some(ends_at) = a.ends_at.filter(|_| !a.closed && self.finished.is_none()) else {
            return ArenaPairing::default();
        };
        let free: Vec<EntrantId> = self
            .entrants
            .iter()
            .map(|e| e.id)
            .filter(|e| a.in_play[e.index()] == 0 && !self.disqualified[e.index()] && !self.withdrawn[e.index()])
            .collect();
        let ranker = self.ranker();
        let mut left = ranker.order(&free, |e| ranker.primary(e));
        let a = self.arena.as_mut().expect("an arena");
        for e in &left {
            a.waiting_since[e.index()].get_or_insert(now);
        }
        let mut wake = ends_at;
        let mut pairs = Vec::new();
        while left.len() >= 2 {
            let first = left[0];
            let pick = left[1..].iter().position(|&b| !a.just_met(first, b)).map(|i| i + 1).or_else(|| {
                // Only its last opponent is free: pair them once both have waited.
                let since = a.waiting_since[first.index()].max(a.waiting_since[left[1].index()]).unwrap_or(now);
                let allowed = since.saturating_add(REMATCH_WAIT_MS);
                if now >= allowed {
                    Some(1)
                } else {
                    wake = wake.min(allowed);
                    None
                }
            });
            let second = pick.map(|i| left.remove(i));
            left.remove(0);
            if let Some(second) = second {
                pairs.push((first, second));
            }
        }
        let mut tables = Vec::new();
        for (x, y) in pairs {
            if self.arena_tables().len() as u64 >= self.arena.as_ref().expect("an arena").max_tables {
                self.arena.as_mut().expect("an arena").closed = true;
                break;
            }
            let round = self.arena_round(x, y);
            let a = self.arena.as_mut().expect("an arena");
            for e in [x, y] {
                a.in_play[e.index()] += 1;
                a.waiting_since[e.index()] = None;
            }
            a.tables.push(round.clone());
            a.recorded.push(false);
            tables.push(round);
        }
        let closed = self.arena.as_ref().is_none_or(|a| a.closed);
        ArenaPairing { tables, wake_at: (!closed).then_some(wake) }
    }

    /// The next arena table: `x` on side 0, `y` on side 1.
    fn arena_round(&self, x: EntrantId, y: EntrantId) -> Round {
        let spec = self.config.spec();
        let number = self.arena_tables().len() as u32;
        let variants = spec.stages[0].variants.as_ref().unwrap_or(&spec.variants);
        let sides = vec![vec![x], vec![y]];
        let seats = self.seats(spec.table, &sides);
        Round {
            number,
            stage: 0,
            variant: variants[number as usize % variants.len()].clone(),
            tables: vec![Table { id: 0, sides, seats }],
            byes: Vec::new(),
        }
    }

    /// Adds a stored arena table (replay): the next number, one table of two
    /// of this arena's entrants. Its entrants count as playing until its result.
    pub fn add_arena_table(&mut self, round: Round) -> Result<(), ArenaError> {
        let n = self.entrants.len();
        let kind = self.config.spec().table;
        let Some(a) = &mut self.arena else { return Err(ArenaError::NotAnArena) };
        let expected = a.tables.len() as u32;
        if round.number != expected {
            return Err(ArenaError::OutOfOrder { expected, got: round.number });
        }
        let bad = |message: &str| ArenaError::BadTable { number: round.number, message: message.into() };
        let [table] = round.tables.as_slice() else { return Err(bad("an arena round has one table")) };
        if table.id != 0 || table.sides.len() != 2 || table.sides.iter().any(|s| s.len() != 1) {
            return Err(bad("an arena table is table 0 with two sides of one entrant"));
        }
        if table.seats.len() != kind.seats() || table.sides.iter().flatten().any(|e| e.index() >= n) {
            return Err(bad("its seats or entrants are not this arena's"));
        }
        for e in table.sides.iter().flatten() {
            a.in_play[e.index()] += 1;
        }
        a.tables.push(round);
        a.recorded.push(false);
        Ok(())
    }

    /// Records an arena table's result: the points of the scoring rule,
    /// doubled for a win after two wins in a row under `streak-bonus`, then
    /// the disqualification rules for the table's entrants.
    pub(super) fn record_arena(&mut self, result: MatchResult) -> Result<(), RecordError> {
        if self.finished.is_some() {
            return Err(RecordError::Finished);
        }
        let a = self.arena.as_ref().expect("an arena");
        let number = result.round;
        let (round, table) = match a.tables.get(number as usize) {
            Some(r) if result.table == 0 => (r.clone(), r.tables[0].clone()),
            _ => return Err(RecordError::NoSuchTable { round: number, table: result.table }),
        };
        if a.recorded[number as usize] {
            return Err(RecordError::AlreadyRecorded { round: number, table: 0 });
        }
        if result.seats.len() != table.seats.len() {
            return Err(RecordError::SeatCount { table: 0, expected: table.seats.len(), got: result.seats.len() });
        }
        if let Some(w) = result.winner
            && w as usize >= table.sides.len()
        {
            return Err(RecordError::NoSuchSide { table: 0, sides: table.sides.len(), winner: w });
        }
        let scoring = self.config.spec().scoring.clone();
        let seats: Vec<(usize, i64, u32)> =
            table.seats.iter().zip(&result.seats).map(|(s, r)| (s.side as usize, r.score, r.pips)).collect();
        self.apply(&table, &result, (0, 0));
        let a = self.arena.as_mut().expect("an arena");
        for (s, side) in table.sides.iter().enumerate() {
            let won = result.winner == Some(s as u32);
            let opponent = table.sides[1 - s][0];
            for &e in side {
                let i = e.index();
                if won && a.streak_bonus && a.wins_in_row[i] >= 2 {
                    self.stats[i].points += scoring.game_points(Outcome::Win, scoring.side_score(s, &seats));
                }
                a.wins_in_row[i] = if won { a.wins_in_row[i] + 1 } else { 0 };
                a.last_opponent[i] = Some(opponent);
                a.in_play[i] = a.in_play[i].saturating_sub(1);
            }
        }
        a.recorded[number as usize] = true;
        self.results.push(result);
        self.rounds.push(round);
        self.judge_arena_table(number, &table);
        self.finish_arena_if_done();
        Ok(())
    }

    /// The disqualification rules, after each of an entrant's games.
    fn judge_arena_table(&mut self, number: u32, table: &Table) {
        let spec = self.config.spec();
        for &e in table.sides.iter().flatten() {
            let i = e.index();
            let s = &self.stats[i];
            if self.disqualified[i] || spec.disqualify.violation(s.games, s.losses, s.streak, s.timeouts).is_none() {
                continue;
            }
            let reprieve = spec.lenient_judge.as_ref().is_some_and(|j| {
                TourRng::new(spec.seed, Purpose::Judge { round: number, entrant: e.0 }).chance(j.per_million())
            });
            if reprieve {
                self.stats[i].points /= 2;
                self.stats[i].reprieves += 1;
            } else {
                self.disqualified[i] = true;
            }
        }
    }

    /// A closed arena finishes when no game is in play.
    fn finish_arena_if_done(&mut self) {
        if let Some(a) = &self.arena
            && a.closed
            && self.finished.is_none()
            && a.in_play.iter().all(|&n| n == 0)
        {
            self.finished = Some(StopReason::Completed);
        }
    }
}
