//! The organiser's controls that change pairings or standings: withdrawing
//! an entrant, correcting a recorded result and entering a late entrant.
//!
//! A control is an entry of the tournament's log, in order with the
//! results ([`Entry`]): [`Tournament::replay_log`] of the stored log rebuilds
//! exactly the live state, as [`Tournament::replay`] does for results alone.
//!
//! - A withdrawn entrant is never seated in a round planned after its
//!   withdrawal; its played games stay. The round in progress keeps its
//!   tables (it was planned, and its tables may be in play): the withdrawn
//!   entrant's match there is decided as any absent player's is, by the
//!   tournament's clock (the no-show deadline forfeits a seat never taken,
//!   `on-timeout` rules a seat left). A withdrawn entrant is never named a
//!   winner and does not advance to a later stage. A withdrawal taken
//!   before the tournament started (`before_start`, set by the server while
//!   no table has opened) plans round 0 again without the entrant: it then
//!   has no table at all (in a round robin its scheduled opponents sit out).
//! - A correction replaces a recorded result: its old counts are taken back
//!   from the standings and the new ones added. Decisions already taken on
//!   the old result stand (pairings of later rounds, disqualifications and
//!   stop conditions judged when its round closed, the losing streak), and
//!   in a knockout stage a correction may not change who went through.
//!   An arena recomputes its standings from the corrected results instead
//!   (its streak bonus depends on the order of results; see `arena.rs`).
//! - A late entrant ([`Control::Enter`], a Swiss or an arena only) becomes
//!   the next entrant id with no points: a Swiss pairs it from the next
//!   round planned and gives it nothing for the rounds it missed; an arena
//!   pairs it at its next pairing.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{RecordError, Tournament};
use crate::config::{Config, EntrantSpec, FormatKind};
use crate::error::ConfigError;
use crate::round::{Entrant, EntrantId, MatchResult, Table};
use crate::standings::Stats;

/// An organiser's change to a running tournament, recorded in its log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "control", rename_all = "kebab-case", rename_all_fields = "kebab-case", deny_unknown_fields)]
pub enum Control {
    /// The entrant plays no round planned from now on.
    Withdraw {
        /// The entrant.
        entrant: EntrantId,
        /// Taken before the tournament started (no table opened yet): the
        /// round planned at creation is planned again without the entrant.
        /// Refused once a result is recorded.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        before_start: bool,
    },
    /// The recorded result of `result.round`, `result.table` becomes `result`.
    Correct {
        /// The result as it should have been recorded.
        result: MatchResult,
    },
    /// A late entrant joins a running Swiss or arena: the next entrant id,
    /// at the end of the configuration's entrant list (a log with it is
    /// replayed from the configuration as created).
    Enter {
        /// The entrant, written as in a spec's `entrants`.
        entrant: EntrantSpec,
    },
}

/// One entry of a tournament's log: what [`Tournament::replay_log`] replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// A table's result ([`Tournament::record`]).
    Result(MatchResult),
    /// An organiser's control ([`Tournament::control`]).
    Control(Control),
}

/// A control the tournament cannot accept; the tournament is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ControlError {
    /// The tournament is over: nobody can withdraw from it.
    #[error("the tournament is finished")]
    Finished,
    /// No such entrant.
    #[error("there is no entrant {0}")]
    NoSuchEntrant(u32),
    /// The entrant has already withdrawn.
    #[error("entrant {0} has already withdrawn")]
    AlreadyWithdrawn(u32),
    /// Only a Swiss or an arena stage takes a late entrant.
    #[error("a {0} stage takes no late entrant (only a Swiss or an arena does)")]
    NoLateEntry(&'static str),
    /// The name is entered already.
    #[error("{0:?} is entered already")]
    AlreadyEntered(String),
    /// The tournament with the entrant added does not validate.
    #[error("{0}")]
    BadEntrant(ConfigError),
    /// A withdrawal before the start, once a result is recorded.
    #[error("the tournament has started: its first round cannot be planned again")]
    Started,
    /// No result is recorded for that table.
    #[error("round {round} table {table} has no recorded result")]
    NoSuchResult {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// The corrected result does not fit its table.
    #[error(transparent)]
    Shape(RecordError),
    /// In a knockout stage the bracket has moved on: the side that went
    /// through cannot change.
    #[error("round {round} table {table} is a knockout table: the correction would change who went through")]
    BracketDecided {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
}

/// A stored log that does not fit the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LogError {
    /// A result that does not fit.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A control that does not fit.
    #[error(transparent)]
    Control(#[from] ControlError),
    /// A stored arena table that does not fit.
    #[error(transparent)]
    Arena(#[from] super::ArenaError),
}

impl Tournament {
    /// Rebuilds a tournament from its configuration and its whole log
    /// (results and controls) in order; equal to the live tournament that
    /// took them.
    ///
    /// ```
    /// use capicua_tournament::{Control, EntrantId, Entry, MatchResult, SeatResult, Tournament, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "rr", "table": "duel", "variants": ["block"],
    ///     "entrants": ["ana", "ben", "eva", "leo"], "stages": [{ "format": "round-robin" }]
    /// }"#).unwrap();
    /// let mut t = Tournament::new(spec.validate().unwrap());
    /// // leo withdraws while round 0 (planned with him) is in play.
    /// let leo = Control::Withdraw { entrant: EntrantId(3), before_start: false };
    /// t.control(leo.clone()).unwrap();
    /// let mut log = vec![Entry::Control(leo)];
    /// let round = t.next_round().unwrap();
    /// for table in &round.tables {
    ///     let seats = vec![SeatResult { score: 10, ..SeatResult::default() }, SeatResult::default()];
    ///     let r = MatchResult { round: round.number, table: table.id, seats, winner: Some(0) };
    ///     t.record(r.clone()).unwrap();
    ///     log.push(Entry::Result(r));
    /// }
    /// // He sits at no table of the rounds planned since.
    /// assert!(t.next_round().unwrap().tables.iter().all(|tb| !tb.sides.concat().contains(&EntrantId(3))));
    /// assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
    /// ```
    pub fn replay_log(config: Config, log: &[Entry]) -> Result<Tournament, LogError> {
        let mut t = Tournament::new(config);
        for entry in log {
            t.apply_entry(entry)?;
        }
        Ok(t)
    }

    /// Applies one entry of the log.
    pub(super) fn apply_entry(&mut self, entry: &Entry) -> Result<(), LogError> {
        match entry {
            Entry::Result(r) => self.record(r.clone())?,
            Entry::Control(c) => {
                self.control(c.clone())?;
            }
        }
        Ok(())
    }

    /// Applies an organiser's control. For a correction, returns the result
    /// it replaced.
    pub fn control(&mut self, control: Control) -> Result<Option<MatchResult>, ControlError> {
        match control {
            Control::Withdraw { entrant, before_start } => {
                if self.is_finished() {
                    return Err(ControlError::Finished);
                }
                let i = entrant.index();
                match self.withdrawn.get(i) {
                    None => Err(ControlError::NoSuchEntrant(entrant.0)),
                    Some(true) => Err(ControlError::AlreadyWithdrawn(entrant.0)),
                    Some(false) if before_start && !self.results.is_empty() => Err(ControlError::Started),
                    Some(false) if before_start && self.arena.is_none() => {
                        // Nothing was played: round 0 is planned again, as
                        // at creation, without the entrant.
                        let mut withdrawn = self.withdrawn.clone();
                        withdrawn[i] = true;
                        *self = Tournament::planned(self.config.clone(), withdrawn);
                        Ok(None)
                    }
                    Some(false) => {
                        self.withdrawn[i] = true;
                        Ok(None)
                    }
                }
            }
            Control::Correct { result } => self.correct(result).map(Some),
            Control::Enter { entrant } => self.enter(entrant).map(|()| None),
        }
    }

    /// Adds a late entrant (see [`Control::Enter`]): with no points and no
    /// game, the lowest seed and the last lot, a member of the current
    /// stage's smallest group; a Swiss pairs it from the next round (it gets
    /// nothing for the rounds it missed), an arena at its next pairing.
    fn enter(&mut self, entrant: EntrantSpec) -> Result<(), ControlError> {
        if self.is_finished() {
            return Err(ControlError::Finished);
        }
        match self.config.spec().stages[self.stage].format {
            FormatKind::Swiss | FormatKind::Arena => {}
            FormatKind::RoundRobin => return Err(ControlError::NoLateEntry("round-robin")),
            FormatKind::Knockout => return Err(ControlError::NoLateEntry("knockout")),
            FormatKind::DoubleKnockout => return Err(ControlError::NoLateEntry("double-knockout")),
        }
        let (name, members) = match &entrant {
            EntrantSpec::Player(p) => (p.clone(), vec![p.clone()]),
            EntrantSpec::Team(t) => (t.name.clone(), t.members.clone()),
        };
        if self.entrants.iter().any(|e| e.name == name) {
            return Err(ControlError::AlreadyEntered(name));
        }
        let config = self.config.with_entrant(entrant).map_err(ControlError::BadEntrant)?;
        let n = self.entrants.len();
        let id = EntrantId(n as u32);
        let team = config.spec().table.team_entrants();
        self.entrants.push(Entrant { id, name, members, seed: n as u32 });
        self.seeds.push(n as u32);
        self.lots.push(n as u32);
        self.stats.push(Stats { member_scores: vec![0; if team { 2 } else { 1 }], ..Stats::default() });
        self.by_entrant.push(Vec::new());
        self.meetings.grow();
        self.disqualified.push(false);
        self.withdrawn.push(false);
        self.eliminated.push(false);
        self.stage_reached.push(self.stage as u32);
        self.knocked_out_at.push(None);
        let smallest = (0..self.groups.len()).min_by_key(|&g| (self.groups[g].members.len(), g));
        for (g, group) in self.groups.iter_mut().enumerate() {
            group.grow(id, Some(g) == smallest);
        }
        if let Some(a) = &mut self.arena {
            a.grow();
        }
        self.config = config;
        Ok(())
    }

    /// Entrants withdrawn by the organiser, by id.
    pub fn withdrawn(&self) -> Vec<EntrantId> {
        self.entrants.iter().map(|e| e.id).filter(|e| self.withdrawn[e.index()]).collect()
    }

    /// The recorded result of a table (as corrected), if it has one.
    pub fn result_of(&self, round: u32, table: u32) -> Option<&MatchResult> {
        self.results.iter().find(|r| r.round == round && r.table == table)
    }

    /// The table `table` of round `round`, played or in progress.
    fn table_of(&self, round: u32, table: u32) -> Option<&Table> {
        let r = match self.rounds.get(round as usize) {
            Some(r) => r,
            None => &self.current.as_ref().filter(|c| c.round.number == round)?.round,
        };
        r.tables.get(table as usize)
    }

    fn correct(&mut self, result: MatchResult) -> Result<MatchResult, ControlError> {
        let (round, table_no) = (result.round, result.table);
        let missing = ControlError::NoSuchResult { round, table: table_no };
        let at = self.results.iter().position(|r| r.round == round && r.table == table_no).ok_or(missing.clone())?;
        let table = match self.arena {
            Some(_) => self.arena_table(round, table_no),
            None => self.table_of(round, table_no),
        }
        .ok_or(missing)?
        .clone();
        if result.seats.len() != table.seats.len() {
            return Err(ControlError::Shape(RecordError::SeatCount {
                table: table_no,
                expected: table.seats.len(),
                got: result.seats.len(),
            }));
        }
        if let Some(w) = result.winner
            && w as usize >= table.sides.len()
        {
            return Err(ControlError::Shape(RecordError::NoSuchSide {
                table: table_no,
                sides: table.sides.len(),
                winner: w,
            }));
        }
        if self.arena.is_some() {
            return self.correct_arena(at, result);
        }
        let old = self.results[at].clone();
        let stage = self.round_stage(round);
        let knockout =
            matches!(self.config.spec().stages[stage].format, FormatKind::Knockout | FormatKind::DoubleKnockout);
        if knockout {
            let scores = |r: &MatchResult| {
                let seats: Vec<(usize, i64, u32)> =
                    table.seats.iter().zip(&r.seats).map(|(s, r)| (s.side as usize, r.score, r.pips)).collect();
                (0..table.sides.len()).map(|s| self.config.spec().scoring.side_score(s, &seats)).collect::<Vec<_>>()
            };
            if self.through(&table, old.winner, &scores(&old)) != self.through(&table, result.winner, &scores(&result))
            {
                return Err(ControlError::BracketDecided { round, table: table_no });
            }
        }
        self.tally(&table, &old, -1);
        self.tally(&table, &result, 1);
        // One game per result, in the same order.
        self.games[at].winner = result.winner.map(|w| w as usize);
        self.results[at] = result;
        Ok(old)
    }

    /// The stage of a round played or in progress.
    fn round_stage(&self, round: u32) -> usize {
        match self.rounds.get(round as usize) {
            Some(r) => r.stage as usize,
            None => self.stage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TournamentSpec;
    use crate::round::SeatResult;

    fn tournament(format: &str, entrants: u32, extra: &str) -> Tournament {
        let names: Vec<String> = (0..entrants).map(|i| format!("\"p{i}\"")).collect();
        let spec: TournamentSpec = serde_json::from_str(&format!(
            r#"{{ "name": "t", "table": "duel", "variants": ["block"], "entrants": [{}],
                 "stages": [{{ "format": "{format}" {extra} }}] }}"#,
            names.join(", ")
        ))
        .unwrap();
        Tournament::new(spec.validate().unwrap())
    }

    /// Plays the round in progress, side 0 winning 10 to 0; returns the results.
    fn play_round(t: &mut Tournament, log: &mut Vec<Entry>) {
        let round = t.next_round().expect("a round in progress");
        for table in &round.tables {
            let seats = table
                .seats
                .iter()
                .map(|s| SeatResult { score: if s.side == 0 { 10 } else { 0 }, ..SeatResult::default() })
                .collect();
            let r = MatchResult { round: round.number, table: table.id, seats, winner: Some(0) };
            t.record(r.clone()).unwrap();
            log.push(Entry::Result(r));
        }
    }

    fn control(t: &mut Tournament, log: &mut Vec<Entry>, c: Control) -> Option<MatchResult> {
        let old = t.control(c.clone()).unwrap();
        log.push(Entry::Control(c));
        old
    }

    fn seated(t: &Tournament) -> Vec<EntrantId> {
        t.next_round().map(|r| r.tables.iter().flat_map(|tb| tb.sides.concat()).collect()).unwrap_or_default()
    }

    #[test]
    fn a_withdrawn_entrant_is_paired_in_no_later_swiss_round_and_keeps_its_games() {
        let mut t = tournament("swiss", 6, r#", "rounds": 4"#);
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        let gone = t.next_round().unwrap().tables[0].sides[0][0];
        let before = t.standings().into_iter().find(|s| s.entrant == gone).unwrap();
        // The round in progress keeps it (it was planned); it goes from the next.
        control(&mut t, &mut log, Control::Withdraw { entrant: gone, before_start: false });
        assert!(seated(&t).contains(&gone));
        play_round(&mut t, &mut log);
        for _ in 0..2 {
            assert!(!seated(&t).contains(&gone), "{:?}", t.next_round());
            play_round(&mut t, &mut log);
        }
        assert!(t.is_finished());
        let after = t.standings().into_iter().find(|s| s.entrant == gone).unwrap();
        assert_eq!(after.games, before.games + 1, "its played games stay");
        assert_eq!(t.withdrawn(), [gone]);
        assert!(!t.winners().contains(&gone));
        assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
    }

    #[test]
    fn a_withdrawal_before_the_start_plans_round_0_again_without_the_entrant() {
        for (format, extra) in [("swiss", r#", "rounds": 3"#), ("round-robin", ""), ("knockout", "")] {
            let mut t = tournament(format, 6, extra);
            let gone = seated(&t)[0];
            let mut log = Vec::new();
            control(&mut t, &mut log, Control::Withdraw { entrant: gone, before_start: true });
            assert!(!seated(&t).contains(&gone), "{format}: {:?}", t.next_round());
            assert_eq!(t.next_round().unwrap().number, 0);
            while !t.is_finished() {
                assert!(!seated(&t).contains(&gone));
                play_round(&mut t, &mut log);
            }
            assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
        }
        // Once a result is recorded, the first round stands.
        let mut t = tournament("round-robin", 4, "");
        play_round(&mut t, &mut Vec::new());
        let late = Control::Withdraw { entrant: EntrantId(0), before_start: true };
        assert_eq!(t.control(late), Err(ControlError::Started));
    }

    #[test]
    fn a_late_entrant_joins_a_swiss_from_the_next_round_planned_with_no_points() {
        let mut t = tournament("swiss", 5, r#", "rounds": 4"#);
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        // Round 1 is planned already: the newcomer plays from round 2.
        control(&mut t, &mut log, Control::Enter { entrant: EntrantSpec::Player("late".into()) });
        let late = EntrantId(5);
        assert_eq!(t.entrants()[5].name, "late");
        assert_eq!(t.config().entrant_count(), 6);
        assert!(!seated(&t).contains(&late));
        play_round(&mut t, &mut log);
        let row = t.standings().into_iter().find(|s| s.entrant == late).unwrap();
        assert_eq!((row.points, row.games, row.byes), (0, 0, 0), "nothing for the rounds it missed");
        assert!(seated(&t).contains(&late), "{:?}", t.next_round());
        while !t.is_finished() {
            play_round(&mut t, &mut log);
        }
        assert_eq!(t.standings().into_iter().find(|s| s.entrant == late).unwrap().games, 2);
        // Replayed from the configuration as created (the log adds the entrant).
        let created = tournament("swiss", 5, r#", "rounds": 4"#).config().clone();
        assert_eq!(Tournament::replay_log(created, &log).unwrap(), t);
    }

    #[test]
    fn a_late_entry_is_refused_where_it_does_not_fit() {
        let enter = |name: &str| Control::Enter { entrant: EntrantSpec::Player(name.into()) };
        for format in ["round-robin", "knockout", "double-knockout"] {
            let mut t = tournament(format, 4, "");
            assert_eq!(t.control(enter("late")), Err(ControlError::NoLateEntry(format)));
        }
        let mut t = tournament("swiss", 4, r#", "rounds": 1"#);
        assert_eq!(t.control(enter("p2")), Err(ControlError::AlreadyEntered("p2".into())));
        let team = Control::Enter {
            entrant: EntrantSpec::Team(crate::config::TeamSpec { name: "t".into(), members: vec!["a".into()] }),
        };
        assert!(matches!(t.control(team), Err(ControlError::BadEntrant(_))));
        play_round(&mut t, &mut Vec::new());
        assert!(t.is_finished());
        assert_eq!(t.control(enter("late")), Err(ControlError::Finished));
    }

    #[test]
    fn a_withdrawn_entrant_leaves_a_round_robin_and_its_opponents_sit_out() {
        let mut t = tournament("round-robin", 4, "");
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        control(&mut t, &mut log, Control::Withdraw { entrant: EntrantId(1), before_start: false });
        play_round(&mut t, &mut log);
        while !t.is_finished() {
            assert!(!seated(&t).contains(&EntrantId(1)));
            play_round(&mut t, &mut log);
        }
        assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
    }

    #[test]
    fn withdrawing_twice_an_unknown_entrant_or_after_the_end_is_refused() {
        let mut t = tournament("round-robin", 4, "");
        t.control(Control::Withdraw { entrant: EntrantId(0), before_start: false }).unwrap();
        assert_eq!(
            t.control(Control::Withdraw { entrant: EntrantId(0), before_start: false }),
            Err(ControlError::AlreadyWithdrawn(0))
        );
        assert_eq!(
            t.control(Control::Withdraw { entrant: EntrantId(9), before_start: false }),
            Err(ControlError::NoSuchEntrant(9))
        );
        let mut log = Vec::new();
        while !t.is_finished() {
            play_round(&mut t, &mut log);
        }
        assert_eq!(
            t.control(Control::Withdraw { entrant: EntrantId(1), before_start: false }),
            Err(ControlError::Finished)
        );
    }

    #[test]
    fn a_correction_recomputes_the_standings_as_if_the_result_had_been_recorded_so() {
        let mut t = tournament("round-robin", 4, "");
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        let first = t.results()[0].clone();
        let fixed = MatchResult {
            winner: Some(1),
            seats: vec![
                SeatResult { score: 3, ..SeatResult::default() },
                SeatResult { score: 7, ..Default::default() },
            ],
            ..first.clone()
        };
        // The same round recorded with the right result from the start.
        let mut straight = tournament("round-robin", 4, "");
        for r in t.results() {
            straight.record(if *r == first { fixed.clone() } else { r.clone() }).unwrap();
        }
        let old = control(&mut t, &mut log, Control::Correct { result: fixed.clone() });
        assert_eq!(old, Some(first));
        assert_eq!(t.result_of(0, fixed.table), Some(&fixed));
        assert_eq!(t.standings(), straight.standings());
        assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
    }

    #[test]
    fn a_correction_of_a_missing_or_misshapen_result_is_refused() {
        let mut t = tournament("round-robin", 4, "");
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        let r = t.results()[0].clone();
        let missing = MatchResult { round: 5, ..r.clone() };
        assert_eq!(
            t.control(Control::Correct { result: missing }),
            Err(ControlError::NoSuchResult { round: 5, table: r.table })
        );
        let short = MatchResult { seats: vec![SeatResult::default()], ..r.clone() };
        assert!(matches!(t.control(Control::Correct { result: short }), Err(ControlError::Shape(_))));
        let side = MatchResult { winner: Some(2), ..r };
        assert!(matches!(t.control(Control::Correct { result: side }), Err(ControlError::Shape(_))));
    }

    #[test]
    fn a_knockout_correction_may_change_scores_but_not_who_went_through() {
        let mut t = tournament("knockout", 4, "");
        let mut log = Vec::new();
        play_round(&mut t, &mut log);
        let r = t.results()[0].clone();
        let flipped = MatchResult { winner: Some(1), ..r.clone() };
        assert_eq!(
            t.control(Control::Correct { result: flipped }),
            Err(ControlError::BracketDecided { round: 0, table: r.table })
        );
        let closer =
            MatchResult { seats: vec![SeatResult { score: 6, ..Default::default() }, SeatResult::default()], ..r };
        control(&mut t, &mut log, Control::Correct { result: closer });
        assert_eq!(Tournament::replay_log(t.config().clone(), &log).unwrap(), t);
    }
}
