//! The tournaments the writer of finished games keeps in memory, as their
//! committed logs leave them, so that each stored result's standings are
//! written in the result's own transaction without replaying the whole log
//! every time. Pure bookkeeping: which replica is stale, what a result does
//! to it, which standings to write; the writer reads and writes the rows.

use std::collections::HashMap;

use capicua_tournament::{MatchResult, Round, Standing, Tournament};

/// Replicas of running tournaments by id, each with the id of the last
/// control of the log it holds (0 when none).
#[derive(Default)]
pub(crate) struct Replicas {
    held: HashMap<i64, (Tournament, i64)>,
}

impl Replicas {
    /// Forgets every replica (another server stored games: they may be behind).
    pub(crate) fn clear(&mut self) {
        self.held.clear();
    }

    /// Whether the replica of `id` must be read (again) before a result is
    /// recorded, given the id of its tournament's last control as
    /// committed: none is held, or the organiser committed a control (on
    /// another connection) since it was read. A stale one is dropped.
    pub(crate) fn needs_reading(&mut self, id: i64, last_control: i64) -> bool {
        if self.held.get(&id).is_some_and(|(_, c)| *c != last_control) {
            self.held.remove(&id);
        }
        !self.held.contains_key(&id)
    }

    /// Holds `t`, read with its log up to control `last_control`.
    pub(crate) fn hold(&mut self, id: i64, t: Tournament, last_control: i64) {
        self.held.insert(id, (t, last_control));
    }

    /// How many arena tables the replica of `id` knows, when it is an
    /// arena's: the writer's replica learns of the runner's new tables only
    /// from the stored rows, read from that number on.
    pub(crate) fn arena_tables_known(&self, id: i64) -> Option<usize> {
        let (t, _) = self.held.get(&id)?;
        t.config().is_arena().then(|| t.arena_tables().len())
    }

    /// Adds an arena's tables stored since its replica was read; stops at
    /// one that does not fit (the runner fails such an arena).
    pub(crate) fn add_arena_tables(&mut self, id: i64, rounds: Vec<Round>) {
        let Some((t, _)) = self.held.get_mut(&id) else { return };
        for round in rounds {
            if let Err(e) = t.add_arena_table(round) {
                tracing::warn!(tournament = id, error = %e, "a stored arena table does not fit the arena");
                break;
            }
        }
    }

    /// Records a stored result on the replica of `id`; returns whether its
    /// standings moved. A result that does not fit drops the replica: the
    /// runner fails the tournament on it, and the view keeps its rows.
    pub(crate) fn record(&mut self, id: i64, result: MatchResult) -> bool {
        let Some((t, _)) = self.held.get_mut(&id) else { return false };
        match t.record(result) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(tournament = id, error = %e, "a stored result does not fit the tournament");
                self.held.remove(&id);
                false
            }
        }
    }

    /// The standings to write for `id` after its results of a batch, at
    /// `now_ms`; a replica whose tournament is then finished (an arena
    /// finishes by the clock: past its deadline, with its last game
    /// recorded) is dropped.
    pub(crate) fn settle(&mut self, id: i64, now_ms: u64) -> Option<Vec<Standing>> {
        let (t, _) = self.held.get_mut(&id)?;
        let standings = t.standings();
        t.arena_tick(now_ms);
        if t.is_finished() {
            self.held.remove(&id);
        }
        Some(standings)
    }
}

#[cfg(test)]
mod tests {
    use capicua_tournament::{SeatResult, TournamentSpec};

    use super::*;

    fn league() -> Tournament {
        let spec: TournamentSpec = serde_json::from_str(
            r#"{
            "name": "league", "seed": 1, "table": "duel", "variants": ["block"],
            "entrants": ["ana", "ben", "eva"],
            "stages": [{ "format": "round-robin" }],
            "scoring": { "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } } }
        }"#,
        )
        .unwrap();
        Tournament::new(spec.validate().unwrap())
    }

    fn first_result(t: &mut Tournament) -> MatchResult {
        let round = t.next_round().expect("a first round");
        let table = &round.tables[0];
        MatchResult {
            round: round.number,
            table: table.id,
            seats: vec![SeatResult::default(); table.seats.len()],
            winner: Some(0),
        }
    }

    #[test]
    fn a_replica_is_read_again_once_a_newer_control_is_committed() {
        let mut r = Replicas::default();
        assert!(r.needs_reading(1, 0));
        r.hold(1, league(), 0);
        assert!(!r.needs_reading(1, 0));
        assert!(r.needs_reading(1, 3), "a control since: stale");
        assert!(r.needs_reading(1, 3), "the stale replica was dropped");
    }

    #[test]
    fn a_result_that_fits_moves_the_standings_and_one_that_does_not_drops_the_replica() {
        let mut r = Replicas::default();
        let mut t = league();
        let result = first_result(&mut t);
        r.hold(1, t, 0);
        assert!(r.record(1, result.clone()));
        assert!(r.settle(1, 0).expect("held").iter().any(|s| s.wins == 1));
        assert!(!r.record(1, result), "recorded twice");
        assert!(r.needs_reading(1, 0));
        assert!(r.settle(1, 0).is_none());
        assert!(!r.record(2, first_result(&mut league())), "no replica, nothing recorded");
    }

    #[test]
    fn only_an_arena_counts_its_tables() {
        let mut r = Replicas::default();
        r.hold(1, league(), 0);
        assert_eq!(r.arena_tables_known(1), None);
        assert_eq!(r.arena_tables_known(2), None);
    }
}
