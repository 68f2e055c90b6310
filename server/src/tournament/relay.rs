//! Tournament progress for followers on a node that does not run the
//! tournament (PostgreSQL, several servers on one database).
//!
//! The scheduler's node publishes progress to its own followers as its
//! runner records it. A `subscribe-tournament` taken on another node is
//! served here instead: every look of the node's host task replays the
//! tournament's new log entries ([`super::replays::ReplayCache`]) and
//! publishes what they show: rounds started, tables finished, the end.
//!
//! The organiser's controls may be taken on any node. The node taking one
//! tells its own followers at once; every node reads the controls taken
//! since it last looked ([`look_controls`]) and tells its followers those
//! taken elsewhere, and wakes the tournament's runner if it runs here.

use std::collections::HashMap;

use capicua_protocol::{Progress, TournamentId, TournamentStatus};

use super::TournamentError;
use super::announce::control_progress;
use super::runner::round_started;
use crate::AppState;

/// What was published of one tournament.
#[derive(Default)]
pub(crate) struct Relayed {
    /// Results announced.
    results: usize,
    /// The round last announced.
    round: Option<u32>,
    /// Whether its end was announced.
    finished: bool,
}

/// Publishes what is new of every tournament followed here and run
/// elsewhere. A tournament first seen is announced from where it stands
/// (its `subscribed` answer told the count of results).
pub(crate) async fn look(
    state: &AppState,
    relayed: &mut HashMap<TournamentId, Relayed>,
) -> Result<(), TournamentError> {
    let followed = state.tournaments.followed_elsewhere();
    relayed.retain(|id, _| followed.contains(id));
    for id in followed {
        let Some(status) = state.db.tournament_summary(id).await?.map(|s| s.status) else { continue };
        let Some(guard) = state.tournaments.replays.current(&state.db, id).await? else { continue };
        let Some(replayed) = guard.as_ref() else { continue };
        let t = &replayed.tournament;
        let first = !relayed.contains_key(&id);
        let r = relayed.entry(id).or_default();
        if first {
            r.results = replayed.results.len();
            r.round = t.next_round().map(|round| round.number);
        }
        for s in &replayed.results[r.results.min(replayed.results.len())..] {
            let (round, table, winner) = (s.result.round, s.result.table, s.result.winner);
            state.tournaments.publish(id, Progress::TableFinished { round, table, game: s.game, winner });
        }
        r.results = replayed.results.len();
        if let Some(round) = t.next_round()
            && r.round != Some(round.number)
        {
            r.round = Some(round.number);
            state.tournaments.publish(id, round_started(&round));
        }
        if status == TournamentStatus::Finished && !r.finished {
            r.finished = true;
            let winners = t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect();
            state.tournaments.publish(id, Progress::Finished { winners });
        }
    }
    Ok(())
}

/// Tells this node's followers of every tournament followed here (run here
/// or elsewhere) the controls taken on other nodes since the last control
/// they were told of (see `subscribe`).
pub(crate) async fn look_controls(state: &AppState) -> Result<(), TournamentError> {
    let followed = state.tournaments.followed();
    {
        let mut inner = state.tournaments.lock();
        inner.controls_told.retain(|id, _| followed.contains(id));
        inner.told_here.retain(|(id, _)| followed.contains(id));
    }
    for id in followed {
        let cursor = state.tournaments.lock().controls_told.get(&id).copied();
        let trail = match cursor {
            Some(after) => state.db.tournament_audit_after(id, after).await?,
            // Followed before the subscription set its cursor: from now on.
            None => {
                let last = state.db.last_tournament_audit(id).await?;
                state.tournaments.lock().controls_told.entry(id).or_insert(last);
                continue;
            }
        };
        let elsewhere: Vec<_> = {
            let mut inner = state.tournaments.lock();
            let inner = &mut *inner;
            if let (Some(told), Some(last)) = (inner.controls_told.get_mut(&id), trail.last()) {
                *told = last.id.max(*told);
            }
            trail.into_iter().filter(|a| !inner.told_here.remove(&(id, a.id))).collect()
        };
        if elsewhere.is_empty() {
            continue;
        }
        // A runner here reads the status and the log again.
        state.tournaments.poke(id);
        let Some(guard) = state.tournaments.replays.current(&state.db, id).await? else { continue };
        let Some(replayed) = guard.as_ref() else { continue };
        for a in elsewhere {
            if let Some(p) = control_progress(&a.action, a.control.as_ref(), a.by, &replayed.tournament) {
                state.tournaments.publish(id, p);
            }
        }
    }
    Ok(())
}
