//! The replayed state of tournaments, kept between detail requests.
//!
//! `GET /api/tournaments/{id}` shows the rounds and pairings, which only a
//! replay of the recorded results gives. Replaying from scratch on every
//! request cost seconds at 100,000 results; the cache keeps each replayed
//! [`Tournament`](capicua_tournament::Tournament) and applies only the log entries (results, organiser's
//! controls) stored since its last read.

use super::TournamentError;
use super::store;
use crate::db::Db;
use crate::db::tournaments::Logged;
use crate::state::tournaments::{ReplayCache, Replayed};

/// Tournaments kept: beyond this many, the cache starts over (each entry
/// holds its results, so the bound is on memory).
const MAX_CACHED: usize = 16;

impl ReplayCache {
    /// The tournament's replayed state brought up to date with the store,
    /// or `None` when there is no such tournament.
    pub(crate) async fn current(
        &self,
        db: &Db,
        id: i64,
    ) -> Result<Option<tokio::sync::OwnedMutexGuard<Option<Replayed>>>, TournamentError> {
        let entry = {
            let mut entries = self.entries.lock().expect("replay cache lock");
            if entries.len() >= MAX_CACHED && !entries.contains_key(&id) {
                entries.clear();
            }
            entries.entry(id).or_default().clone()
        };
        let mut slot = entry.lock_owned().await;
        match slot.as_mut() {
            None => {
                let Some(stored) = store::load(db, id).await? else { return Ok(None) };
                let tournament = stored.replay()?;
                let (_, last_control) = stored.log.cursor(0, 0);
                *slot = Some(Replayed { tournament, results: stored.log.results, last_control });
            }
            Some(replayed) => {
                let last = replayed.results.last().map_or(0, |r| r.seq);
                let update = async {
                    let tail = db.tournament_log_after(id, last, replayed.last_control).await?;
                    let t = &mut replayed.tournament;
                    if t.config().is_arena() {
                        // Read after the results: every result's table is stored before its game.
                        let tables = db.arena_rounds_from(id, t.arena_tables().len()).await?;
                        let entries: Vec<_> = tail.in_order().into_iter().map(Logged::entry).collect();
                        t.extend_arena_log(&tables, &entries)?;
                        replayed.results.extend(tail.results.iter().cloned());
                        (_, replayed.last_control) = tail.cursor(0, replayed.last_control);
                        return Ok::<_, TournamentError>(());
                    }
                    for entry in tail.in_order() {
                        match entry {
                            Logged::Result(r) => {
                                t.record(r.result.clone())?;
                                replayed.results.push(r.clone());
                            }
                            Logged::Control(c) => {
                                t.control(c.control.clone())?;
                                replayed.last_control = c.id;
                            }
                        }
                    }
                    Ok::<_, TournamentError>(())
                };
                if let Err(e) = update.await {
                    // Half-applied: the next request replays from scratch.
                    *slot = None;
                    return Err(e);
                }
            }
        }
        // An arena ends by the clock: it is told the time and its stored deadline.
        if let Some(Replayed { tournament: t, .. }) = slot.as_mut()
            && t.config().is_arena()
        {
            if t.arena_ends_at().is_none()
                && let Some(ends_at) = db.tournament_summary(id).await?.and_then(|s| s.ends_at_ms)
            {
                t.start_arena(ends_at as u64);
            }
            t.arena_tick(crate::db::now_ms());
        }
        Ok(Some(slot))
    }
}
