//! One task per running arena.
//!
//! ```text
//! replay stored tables + results ─▶ deadline (stored at the first start, kept on resume)
//!        │
//!        ▼
//!   pair the free entrants ─▶ store each table ─▶ open its room (as a round's table)
//!        ▲                                               │ match over
//!        └── record new results in commit order ◀── game + result committed in one transaction
//! ```
//!
//! The pairing is the tournament crate's ([`Tournament::arena_pair`]); this
//! task only gives it the time, stores the tables it creates before their
//! rooms open (the database writer's replica learns them from the store),
//! and wakes when a game is stored, when a held-back rematch may go ahead
//! or at the deadline. At the deadline no table is created; the games in
//! play finish and count, then the arena is finished. After a restart the
//! stored tables and results are replayed, the tables without a result are
//! played again from their start, and the arena goes on until its stored
//! deadline.
//!
//! The organiser's status controls reach it as [`Wake::Control`]: paused,
//! it pairs nobody new and opens no room, and ends once no game is in play
//! (resume makes it runnable again: a new runner pairs until the stored
//! deadline, which a pause does not move); cancelled, it closes the rooms
//! of its games in play and ends. Withdrawals and corrections are entries
//! of its log like results: it applies every entry committed since the last
//! one it applied, in log order, before it pairs again (a withdrawn entrant
//! is paired no more; a table paired in the instant before the withdrawal
//! was read plays and counts, as the game in play does).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use capicua_protocol::{Progress, TournamentId, TournamentStatus};
use capicua_tournament::{Round, Tournament, Transition};
use tokio::sync::mpsc;

use super::{MAX_ATTEMPTS, Wake, close_room, open_table, variant};
use crate::AppState;
use crate::db::now_ms;
use crate::tournament::{TournamentError, store};

/// Runs an arena until it finishes, is paused with no game in play, is
/// cancelled or the server shuts down.
pub(super) async fn drive(
    state: &Arc<AppState>,
    id: TournamentId,
    stored: store::Stored,
    tx: mpsc::UnboundedSender<Wake>,
    mut rx: mpsc::UnboundedReceiver<Wake>,
) -> Result<(), TournamentError> {
    let db = &state.db;
    let mut cursor = stored.log.cursor(0, 0);
    let mut t = stored.replay()?;
    // The organiser may have paused or cancelled it since the scheduler looked.
    if !db.transition_tournament(id, Transition::Start, None).await? {
        return Ok(());
    }
    catch_up(state, id, &mut t, &mut HashMap::new(), &mut cursor).await?;
    tracing::info!(tournament = id, results = stored.log.results.len(), tables = stored.tables.len(), "running arena");
    db.save_tournament_standings(id, &t.standings()).await?;
    if t.arena_ends_at().is_none() {
        let duration = t.arena_duration_ms().unwrap_or(0);
        let ends_at = db.set_arena_ends_at(id, now_ms().saturating_add(duration)).await?;
        t.start_arena(ends_at);
    }
    let secret = db.tournament_deal_secret(id).await?;
    let mut shutdown = state.shutdown();
    // Tables with a room open (by table: its room), and rooms opened per table.
    let mut open: HashMap<u32, u64> = HashMap::new();
    let mut attempts: HashMap<u32, u32> = HashMap::new();
    let mut paused = false;
    loop {
        if paused {
            if open.is_empty() {
                // Nothing left in play: stop here; `resume` makes it runnable again.
                tracing::info!(tournament = id, "arena paused");
                return Ok(());
            }
            let event = tokio::select! {
                e = rx.recv() => e,
                _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
            };
            let Some(event) = event else { return Ok(()) };
            match on_wake(state, id, &mut t, &mut open, &mut cursor, event).await? {
                Some(p) => paused = p,
                None => return Ok(()),
            }
            continue;
        }
        // A room for every table in play without one: resumed after a
        // restart, or whose room ended without a stored match.
        for round in t.rounds_in_play() {
            if open.contains_key(&round.number) {
                continue;
            }
            let n = attempts.entry(round.number).or_default();
            *n += 1;
            if *n > MAX_ATTEMPTS {
                return Err(TournamentError::Room(format!(
                    "arena table {}: {MAX_ATTEMPTS} rooms ended without a stored match",
                    round.number
                )));
            }
            let room = open_round(state, id, &t, &round, secret.as_ref(), &tx).await?;
            open.insert(round.number, room);
        }
        let pairing = t.arena_pair(now_ms());
        // Every table stored before any room opens (the game's transaction
        // finds its table, and a pause taken meanwhile sees them all in play).
        for round in &pairing.tables {
            db.save_arena_table(id, round, cursor.0).await?;
            state.tournaments.publish(id, super::round_started(round));
        }
        for round in &pairing.tables {
            attempts.insert(round.number, 1);
            let room = open_round(state, id, &t, round, secret.as_ref(), &tx).await?;
            open.insert(round.number, room);
        }
        if t.is_finished() {
            break;
        }
        // The deadline and held-back rematches are on the wall clock (the
        // stored deadline is); the wait itself is tokio's.
        let wait = pairing.wake_at.map(|w| Duration::from_millis(w.saturating_sub(now_ms())));
        let event = tokio::select! {
            e = rx.recv() => e,
            _ = tokio::time::sleep(wait.unwrap_or(Duration::ZERO)), if wait.is_some() => {
                paused = current_pause(db, id).await?;
                continue;
            }
            _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
        };
        let Some(event) = event else { return Ok(()) };
        match on_wake(state, id, &mut t, &mut open, &mut cursor, event).await? {
            Some(p) => paused = p,
            None => return Ok(()),
        }
    }
    finish(state, id, &t).await
}

/// Handles what woke the arena: a stored game or a control (the log
/// committed since is applied), or a room ended without a game (its table
/// is played again). Returns whether the arena is paused, or `None` when
/// the runner stops (cancelled, or the server shuts down).
async fn on_wake(
    state: &Arc<AppState>,
    id: TournamentId,
    t: &mut Tournament,
    open: &mut HashMap<u32, u64>,
    cursor: &mut (i64, i64),
    event: Wake,
) -> Result<Option<bool>, TournamentError> {
    let db = &state.db;
    match event {
        Wake::Control => match db.tournament_summary(id).await?.map(|s| s.status) {
            Some(TournamentStatus::Cancelled) | None => {
                // Its games in play close; games already stored stay.
                for &room in open.values() {
                    close_room(state, room);
                }
                tracing::info!(tournament = id, "arena cancelled");
                Ok(None)
            }
            Some(status) => {
                catch_up(state, id, t, open, cursor).await?;
                Ok(Some(status == TournamentStatus::Paused))
            }
        },
        Wake::Table { round: number, game: Some(game), .. } => {
            // Committed with its result: apply everything committed since.
            catch_up(state, id, t, open, cursor).await?;
            tracing::debug!(tournament = id, table = number, game, "arena table finished");
            Ok(Some(current_pause(db, id).await?))
        }
        // An arena's tables open on the scheduler's node: there are no placements.
        Wake::Placements => Ok(Some(current_pause(db, id).await?)),
        Wake::Table { round: number, game: None, .. } => {
            if state.is_shutting_down() {
                return Ok(None);
            }
            tracing::warn!(tournament = id, table = number, "arena table interrupted; replaying it");
            state.tournaments.unassign(id, number, 0);
            open.remove(&number);
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(Some(current_pause(db, id).await?))
        }
    }
}

/// Applies the log committed after `cursor` (see [`super::catch_up`]); a
/// finished table's room is no longer open.
async fn catch_up(
    state: &Arc<AppState>,
    id: TournamentId,
    t: &mut Tournament,
    open: &mut HashMap<u32, u64>,
    cursor: &mut (i64, i64),
) -> Result<(), TournamentError> {
    super::catch_up(state, id, t, cursor, |round| {
        open.remove(&round);
    })
    .await
}

/// Whether the stored status is `paused` (a control's wake may still be queued).
async fn current_pause(db: &crate::db::Db, id: TournamentId) -> Result<bool, TournamentError> {
    Ok(db.tournament_summary(id).await?.is_some_and(|s| s.status == TournamentStatus::Paused))
}

/// Opens the room of an arena table (a round of one table).
async fn open_round(
    state: &Arc<AppState>,
    id: TournamentId,
    t: &Tournament,
    round: &Round,
    secret: Option<&[u8; 32]>,
    tx: &mpsc::UnboundedSender<Wake>,
) -> Result<u64, TournamentError> {
    let v = variant(t.config(), &round.variant)?;
    let clock = t.config().spec().clock.clone();
    let table = &round.tables[0];
    let plan = super::placement::plan_table(state, round, table, v, clock, secret).await?;
    open_table(state, id, round.number, table.id, &plan, tx.clone()).await
}

async fn finish(state: &Arc<AppState>, id: TournamentId, t: &Tournament) -> Result<(), TournamentError> {
    if !state.db.transition_tournament(id, Transition::Finish, None).await? {
        return Ok(());
    }
    let names: Vec<String> = t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect();
    tracing::info!(tournament = id, winners = ?names, games = t.results().len(), "arena finished");
    state.tournaments.publish(id, Progress::Finished { winners: names });
    Ok(())
}
