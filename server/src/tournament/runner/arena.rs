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

use super::{
    MAX_ATTEMPTS, Wake, close_room, count_attempt, open_table, pause_ends, status_pause, variant, winner_names,
};
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
    let Some(mut arena) = Arena::start(state, id, stored, tx).await? else { return Ok(()) };
    let mut shutdown = state.shutdown();
    let mut paused = false;
    loop {
        if pause_ends(paused, arena.open.len()) {
            // Nothing left in play: stop here; `resume` makes it runnable again.
            tracing::info!(tournament = id, "arena paused");
            return Ok(());
        }
        // Paused, it pairs nobody new and opens no room: it waits for its games in play.
        let wait = if paused {
            None
        } else {
            arena.reopen_tables().await?;
            let wake_at = arena.pair().await?;
            if arena.t.is_finished() {
                break;
            }
            // The deadline and held-back rematches are on the wall clock (the
            // stored deadline is); the wait itself is tokio's.
            wake_at.map(|w| Duration::from_millis(w.saturating_sub(now_ms())))
        };
        let event = tokio::select! {
            e = rx.recv() => e,
            _ = tokio::time::sleep(wait.unwrap_or(Duration::ZERO)), if wait.is_some() => {
                paused = current_pause(&state.db, id).await?;
                continue;
            }
            _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
        };
        let Some(event) = event else { return Ok(()) };
        match arena.on_wake(event).await? {
            Some(p) => paused = p,
            None => return Ok(()),
        }
    }
    arena.finish().await
}

/// A running arena: its state and what it needs to open rooms.
struct Arena<'a> {
    state: &'a Arc<AppState>,
    id: TournamentId,
    t: Tournament,
    /// Past the last log entry applied (see [`super::catch_up`]).
    cursor: (i64, i64),
    secret: Option<[u8; 32]>,
    /// Tables with a room open, by table: its room.
    open: HashMap<u32, u64>,
    /// Rooms opened per table.
    attempts: HashMap<u32, u32>,
    tx: mpsc::UnboundedSender<Wake>,
}

impl<'a> Arena<'a> {
    /// Replays the stored tables and log, marks the arena running and
    /// stores its deadline at the first start; `None` when the organiser
    /// paused or cancelled it since the scheduler looked.
    async fn start(
        state: &'a Arc<AppState>,
        id: TournamentId,
        stored: store::Stored,
        tx: mpsc::UnboundedSender<Wake>,
    ) -> Result<Option<Arena<'a>>, TournamentError> {
        let db = &state.db;
        let mut cursor = stored.log.cursor(0, 0);
        let mut t = stored.replay()?;
        if !db.transition_tournament(id, Transition::Start, None).await? {
            return Ok(None);
        }
        super::take_over(state, id).await?;
        catch_up(state, id, &mut t, &mut HashMap::new(), &mut cursor).await?;
        tracing::info!(
            tournament = id,
            results = stored.log.results.len(),
            tables = stored.tables.len(),
            "running arena"
        );
        db.save_tournament_standings(id, &t.standings()).await?;
        if t.arena_ends_at().is_none() {
            let duration = t.arena_duration_ms().unwrap_or(0);
            let ends_at = db.set_arena_ends_at(id, now_ms().saturating_add(duration)).await?;
            t.start_arena(ends_at);
        }
        let secret = db.tournament_deal_secret(id).await?;
        Ok(Some(Arena { state, id, t, cursor, secret, open: HashMap::new(), attempts: HashMap::new(), tx }))
    }

    /// A room for every table in play without one: resumed after a
    /// restart, or whose room ended without a stored match.
    async fn reopen_tables(&mut self) -> Result<(), TournamentError> {
        for round in self.t.rounds_in_play() {
            if self.open.contains_key(&round.number) {
                continue;
            }
            if !count_attempt(&mut self.attempts, round.number) {
                return Err(TournamentError::Room(format!(
                    "arena table {}: {MAX_ATTEMPTS} rooms ended without a stored match",
                    round.number
                )));
            }
            let room = self.open_round(&round).await?;
            self.open.insert(round.number, room);
        }
        Ok(())
    }

    /// Pairs the free entrants now and opens their tables' rooms. Returns
    /// when to pair again (a held-back rematch, or the deadline).
    async fn pair(&mut self) -> Result<Option<u64>, TournamentError> {
        let pairing = self.t.arena_pair(now_ms());
        // Every table stored before any room opens (the game's transaction
        // finds its table, and a pause taken meanwhile sees them all in play).
        for round in &pairing.tables {
            self.state.db.save_arena_table(self.id, round, self.cursor.0).await?;
            self.state.tournaments.publish(self.id, super::round_started(round));
        }
        for round in &pairing.tables {
            self.attempts.insert(round.number, 1);
            let room = self.open_round(round).await?;
            self.open.insert(round.number, room);
        }
        Ok(pairing.wake_at)
    }

    /// Handles what woke the arena: a stored game or a control (the log
    /// committed since is applied), or a room ended without a game (its
    /// table is played again). Returns whether the arena is paused, or
    /// `None` when the runner stops (cancelled, or the server shuts down).
    async fn on_wake(&mut self, event: Wake) -> Result<Option<bool>, TournamentError> {
        let (state, id) = (self.state, self.id);
        let db = &state.db;
        match event {
            Wake::Control => {
                let Some(paused) = status_pause(db.tournament_summary(id).await?.map(|s| s.status)) else {
                    // Its games in play close; games already stored stay.
                    for &room in self.open.values() {
                        close_room(state, room);
                    }
                    tracing::info!(tournament = id, "arena cancelled");
                    return Ok(None);
                };
                self.catch_up().await?;
                Ok(Some(paused))
            }
            Wake::Table { round: number, game: Some(game), .. } => {
                // Committed with its result: apply everything committed since.
                self.catch_up().await?;
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
                self.open.remove(&number);
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(Some(current_pause(db, id).await?))
            }
        }
    }

    /// Applies the log committed since the last entry applied.
    async fn catch_up(&mut self) -> Result<(), TournamentError> {
        catch_up(self.state, self.id, &mut self.t, &mut self.open, &mut self.cursor).await
    }

    /// Opens the room of an arena table (a round of one table).
    async fn open_round(&self, round: &Round) -> Result<u64, TournamentError> {
        let v = variant(self.t.config(), &round.variant)?;
        let clock = self.t.config().spec().clock.clone();
        let table = &round.tables[0];
        let plan = super::placement::plan_table(self.state, round, table, v, clock, self.secret.as_ref()).await?;
        open_table(self.state, self.id, round.number, table.id, &plan, self.tx.clone()).await
    }

    /// Marks the arena finished (unless a control came first) and announces
    /// its winners.
    async fn finish(&self) -> Result<(), TournamentError> {
        if !self.state.db.transition_tournament(self.id, Transition::Finish, None).await? {
            return Ok(());
        }
        let names = winner_names(&self.t);
        tracing::info!(tournament = self.id, winners = ?names, games = self.t.results().len(), "arena finished");
        self.state.tournaments.publish(self.id, Progress::Finished { winners: names });
        Ok(())
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
