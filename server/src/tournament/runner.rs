//! One task per running tournament.
//!
//! ```text
//! replay stored results ─▶ round in progress ─▶ a room per pending table (hosted seats filled,
//!        ▲                                      player seats reserved, assignments sent)
//!        │                                                 │ match over
//!        └── record new results in commit order ◀── game + result committed in one transaction
//! ```
//!
//! The runner never records a result the database does not hold: when a
//! room reports its match stored, or the organiser takes a control, the
//! runner reads every log entry committed since the last one it applied
//! (results and controls, in log order) and feeds them to
//! [`Tournament::record`] and [`Tournament::control`]; so the live state is
//! always `Tournament::replay_log(spec, stored log)`. The next round is
//! planned only from applied (hence committed) entries.
//!
//! The organiser's status controls reach it as [`Wake::Control`]: paused, it
//! opens no table and ends once none is in play (resume makes the
//! tournament runnable again, and the scheduler starts a new runner);
//! cancelled, it closes the rooms of its tables in play and ends.

mod arena;
mod watch;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use capicua_protocol::{Progress, TournamentId, TournamentStatus};
use capicua_tournament::{Config, Round, RoundVariant, Tournament, Transition};
use tokio::sync::mpsc;

use super::{TournamentError, placement, store};
use crate::AppState;
use crate::db::Topology;
use crate::db::tournaments::Logged;
use crate::db::tournaments::log::Incident;
use crate::state::tournaments::Wake;

/// Attempts of one table (rooms opened here, or placements on a node,
/// whether or not its room opened) before the tournament is marked failed
/// (the organiser may resume it once the cause is fixed: the count starts again).
const MAX_ATTEMPTS: u32 = 5;

/// Where a table of the round in progress plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placed {
    /// A room this server opened itself (SQLite, where one server holds the file).
    Room(u64),
    /// A placement on a node by load (PostgreSQL).
    Placement(i64),
    /// Its placement is done: its result is in the log.
    Settled,
}

/// Runs a tournament until it finishes, fails, is paused with no table in
/// play, is cancelled or the server shuts down.
pub(crate) async fn run(state: Arc<AppState>, id: TournamentId) {
    let (tx, rx) = mpsc::unbounded_channel::<Wake>();
    state.tournaments.lock().runners.insert(id, tx.clone());
    match drive(&state, id, tx, rx).await {
        Ok(()) => {}
        Err(e) if state.is_shutting_down() => tracing::info!(tournament = id, error = %e, "stopped by shutdown"),
        Err(e) => {
            tracing::error!(tournament = id, error = %e, "tournament failed");
            // Only a tournament still playing fails: a pause or cancel stands.
            let _ = state.db.transition_tournament(id, Transition::Fail, Some(&e.to_string())).await;
        }
    }
    state.tournaments.unassign_tournament(id);
    let mut inner = state.tournaments.lock();
    inner.running.remove(&id);
    inner.runners.remove(&id);
}

/// Closes a table's room (a cancelled tournament): the server closes it.
pub(super) fn close_room(state: &AppState, room: u64) {
    if let Some(handle) = state.room(room) {
        let _ = handle.tx.send(crate::room::RoomCmd::Close { from: crate::room::From::System, id: None });
    }
}

async fn drive(
    state: &Arc<AppState>,
    id: TournamentId,
    tx: mpsc::UnboundedSender<Wake>,
    mut rx: mpsc::UnboundedReceiver<Wake>,
) -> Result<(), TournamentError> {
    let Some(stored) = store::load(&state.db, id).await? else { return Ok(()) };
    if stored.config.is_arena() {
        return arena::drive(state, id, stored, tx, rx).await;
    }
    let Some(mut runner) = Runner::start(state, id, stored, tx).await? else { return Ok(()) };
    runner.run(&mut rx).await
}

/// The runner's book of the round in progress. It only decides; the
/// runner does what it says.
#[derive(Default)]
struct Book {
    /// Tables of the current round in play, by table: where.
    open: HashMap<u32, Placed>,
    /// Attempts per (round, table).
    attempts: HashMap<(u32, u32), u32>,
    /// Why each table of the current round freed since is played again.
    why: HashMap<u32, watch::Why>,
    /// The round whose tables `open` holds.
    current: Option<u32>,
    /// The organiser paused the tournament.
    paused: bool,
}

/// What the runner does with the next round before it waits.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Paused with nothing in play: the runner ends.
    Stop,
    /// Paused with tables in play: it only waits for them.
    Wait,
    /// The round is new: it is stored and announced, then its tables open.
    Begin,
    /// Its pending tables not in play open.
    Open,
}

impl Book {
    /// The step for `round`, whose tables without a result are `pending`;
    /// a new round starts with no table in play.
    fn step(&mut self, round: u32, pending: &[u32]) -> Step {
        let in_play = pending.iter().filter(|tb| self.open.contains_key(tb)).count();
        if self.paused {
            return if pause_ends(true, in_play) { Step::Stop } else { Step::Wait };
        }
        if self.current == Some(round) {
            return Step::Open;
        }
        self.current = Some(round);
        self.open.clear();
        self.why.clear();
        Step::Begin
    }

    /// A table no longer in play, to be played again for `why`.
    fn free(&mut self, table: u32, why: watch::Why) {
        self.open.remove(&table);
        self.why.insert(table, why);
    }

    /// The `pending` tables not in play.
    fn unplaced(&self, pending: &[u32]) -> Vec<u32> {
        pending.iter().copied().filter(|tb| !self.open.contains_key(tb)).collect()
    }

    /// Counts one more room for a table, or fails the tournament once the
    /// table has had [`MAX_ATTEMPTS`].
    fn attempt(&mut self, round: u32, table: u32) -> Result<(), TournamentError> {
        if count_attempt(&mut self.attempts, (round, table)) {
            return Ok(());
        }
        Err(TournamentError::Room(format!(
            "round {round} table {table}: {MAX_ATTEMPTS} attempts ended without a stored match"
        )))
    }

    /// The rooms this server opened for the `pending` tables (those a
    /// cancel closes: games already stored stay).
    fn rooms_of(&self, pending: &[u32]) -> Vec<u64> {
        let room = |(table, placed): (&u32, &Placed)| match placed {
            Placed::Room(room) if pending.contains(table) => Some(*room),
            _ => None,
        };
        self.open.iter().filter_map(room).collect()
    }
}

/// Counts one more room for `key`: false once it is past [`MAX_ATTEMPTS`].
fn count_attempt<K: std::hash::Hash + Eq>(attempts: &mut HashMap<K, u32>, key: K) -> bool {
    let n = attempts.entry(key).or_default();
    *n += 1;
    *n <= MAX_ATTEMPTS
}

/// Whether a runner ends: paused, it waits only for the tables `in_play`.
fn pause_ends(paused: bool, in_play: usize) -> bool {
    paused && in_play == 0
}

/// What the organiser's stored status asks of a runner: `None` to stop
/// (cancelled, or the tournament is gone), else whether it is paused.
fn status_pause(status: Option<TournamentStatus>) -> Option<bool> {
    match status {
        Some(TournamentStatus::Cancelled) | None => None,
        Some(status) => Some(status == TournamentStatus::Paused),
    }
}

/// The names of a finished tournament's winners.
fn winner_names(t: &Tournament) -> Vec<String> {
    t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect()
}

/// A running tournament of rounds (an arena has its own, [`arena::drive`]).
struct Runner<'a> {
    state: &'a Arc<AppState>,
    id: TournamentId,
    t: Tournament,
    /// Past the last log entry applied (see [`catch_up`]).
    cursor: (i64, i64),
    secret: Option<[u8; 32]>,
    /// On PostgreSQL the tables are spread over the nodes by load and
    /// watched through their placements.
    spread: bool,
    book: Book,
    tx: mpsc::UnboundedSender<Wake>,
}

impl<'a> Runner<'a> {
    /// Replays the stored log and marks the tournament running; `None` when
    /// the organiser paused or cancelled it since the scheduler looked.
    async fn start(
        state: &'a Arc<AppState>,
        id: TournamentId,
        stored: store::Stored,
        tx: mpsc::UnboundedSender<Wake>,
    ) -> Result<Option<Runner<'a>>, TournamentError> {
        let db = &state.db;
        let entries: Vec<_> = stored.log.in_order().into_iter().map(Logged::entry).collect();
        let cursor = stored.log.cursor(0, 0);
        let t = Tournament::replay_log(stored.config, &entries)?;
        let secret = db.tournament_deal_secret(id).await?;
        if !db.transition_tournament(id, Transition::Start, None).await? {
            return Ok(None);
        }
        take_over(state, id).await?;
        let spread = db.topology() == Topology::Cluster;
        let mut runner = Runner { state, id, t, cursor, secret, spread, book: Book::default(), tx };
        // A withdrawal taken before that plans round 0 again: read it before planning.
        runner.catch_up().await?;
        tracing::info!(tournament = id, entries = entries.len(), "running tournament");
        db.save_tournament_standings(id, &runner.t.standings()).await?;
        Ok(Some(runner))
    }

    /// Plays round after round until the last, waking on `rx`, on the
    /// placements' look (PostgreSQL) and at shutdown.
    async fn run(&mut self, rx: &mut mpsc::UnboundedReceiver<Wake>) -> Result<(), TournamentError> {
        let mut shutdown = self.state.shutdown();
        let mut look = tokio::time::interval(placement::LOOK);
        look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while let Some(round) = self.t.next_round() {
            match self.book.step(round.number, &self.t.pending_tables()) {
                Step::Stop => {
                    // Nothing left in play: stop here; `resume` makes it runnable again.
                    tracing::info!(tournament = self.id, "paused");
                    return Ok(());
                }
                Step::Wait => {}
                Step::Begin if self.begin(&round).await? => continue,
                Step::Begin | Step::Open => self.open_tables(&round).await?,
            }
            let event = tokio::select! {
                e = rx.recv() => e,
                _ = look.tick(), if self.spread => Some(Wake::Placements),
                _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
            };
            let Some(event) = event else { return Ok(()) };
            match self.on_wake(event, round.number).await? {
                None => return Ok(()),
                // Record everything committed since, results and controls, in log order.
                Some(true) => self.catch_up().await?,
                Some(false) => {}
            }
        }
        self.finish().await
    }

    /// Stores and announces a new round. On PostgreSQL the tables a
    /// previous scheduler placed on live nodes play on there: they are
    /// adopted rather than opened twice. Returns whether the log was read
    /// again (the round is then looked at afresh).
    async fn begin(&mut self, round: &Round) -> Result<bool, TournamentError> {
        self.state.db.save_tournament_round(self.id, round).await?;
        self.state.tournaments.publish(self.id, round_started(round));
        if self.spread && watch::watch(self.state, self.id, round.number, &self.t, &mut self.book).await? {
            self.catch_up().await?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Plans every pending table of `round` not in play, and places it on a
    /// node by load (PostgreSQL) or opens its room here.
    async fn open_tables(&mut self, round: &Round) -> Result<(), TournamentError> {
        let (state, id) = (self.state, self.id);
        let unplaced = self.book.unplaced(&self.t.pending_tables());
        watch::record_replays(state, id, round.number, &unplaced, &mut self.book.why).await?;
        for table_no in unplaced {
            self.book.attempt(round.number, table_no)?;
            let clock = self.t.config().spec().clock.clone();
            let v = variant(self.t.config(), &round.variant)?;
            let table = &round.tables[table_no as usize];
            let plan = placement::plan_table(state, round, table, v, clock, self.secret.as_ref()).await?;
            let placed = if self.spread {
                Placed::Placement(placement::place(state, id, round.number, table_no, &plan).await?)
            } else {
                Placed::Room(open_table(state, id, round.number, table_no, &plan, self.tx.clone()).await?)
            };
            self.book.open.insert(table_no, placed);
        }
        Ok(())
    }

    /// Handles what woke the runner during `round`. Returns whether the
    /// log is to be read, or `None` when the runner stops (cancelled, or
    /// the server shuts down).
    async fn on_wake(&mut self, event: Wake, round: u32) -> Result<Option<bool>, TournamentError> {
        match event {
            Wake::Control => {
                let status = self.state.db.tournament_summary(self.id).await?.map(|s| s.status);
                let Some(paused) = status_pause(status) else {
                    self.cancel().await?;
                    return Ok(None);
                };
                self.book.paused = paused;
                Ok(Some(true))
            }
            Wake::Placements if self.spread => {
                Ok(Some(watch::watch(self.state, self.id, round, &self.t, &mut self.book).await?))
            }
            Wake::Placements => Ok(Some(false)),
            // A table of a round already over.
            Wake::Table { round: other, .. } if other != round => Ok(Some(false)),
            Wake::Table { table, game: Some(game), .. } => {
                // The standings rows were written with the match (see the database writer).
                tracing::debug!(tournament = self.id, round, table, game, "table finished");
                Ok(Some(true))
            }
            Wake::Table { table, game: None, .. } => {
                if self.state.is_shutting_down() {
                    return Ok(None);
                }
                // The room ended without a stored match: play it again from the start.
                tracing::warn!(tournament = self.id, round, table, "table interrupted; replaying it");
                self.state.tournaments.unassign(self.id, round, table);
                self.book.free(table, watch::Why::Ended);
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(Some(false))
            }
        }
    }

    /// Cancelled: its open tables close; games already stored stay.
    async fn cancel(&self) -> Result<(), TournamentError> {
        for room in self.book.rooms_of(&self.t.pending_tables()) {
            close_room(self.state, room);
        }
        if self.spread {
            self.state.db.cancel_placements(self.id).await?;
        }
        tracing::info!(tournament = self.id, "cancelled");
        Ok(())
    }

    /// Applies the log committed since the last entry applied.
    async fn catch_up(&mut self) -> Result<(), TournamentError> {
        catch_up(self.state, self.id, &mut self.t, &mut self.cursor, |_| {}).await
    }

    /// Marks the tournament finished (unless a control came first) and
    /// announces its winners.
    async fn finish(&self) -> Result<(), TournamentError> {
        if self.state.db.transition_tournament(self.id, Transition::Finish, None).await? {
            let names = winner_names(&self.t);
            tracing::info!(tournament = self.id, winners = ?names, "tournament finished");
            self.state.tournaments.publish(self.id, Progress::Finished { winners: names });
        }
        Ok(())
    }
}

/// The variant of a round: a preset, a poly preset, or a variant file's
/// variant as stored with the tournament when it was created (never the
/// file as it is now).
fn variant(config: &Config, name: &str) -> Result<RoundVariant, TournamentError> {
    config
        .round_variant(name)
        .ok_or_else(|| TournamentError::Variant { name: name.into(), message: "not stored with the tournament".into() })
}

/// Opens the room of a planned table here (see [`placement::host_table`]);
/// the runner hears of its end as a [`Wake::Table`].
async fn open_table(
    state: &Arc<AppState>,
    id: TournamentId,
    round: u32,
    table: u32,
    plan: &placement::TablePlan,
    tx: mpsc::UnboundedSender<Wake>,
) -> Result<u64, TournamentError> {
    let (room, done) = placement::host_table(state, id, round, table, plan).await?;
    let (rn, tn) = (round, table);
    tokio::spawn(async move {
        let game = done.await.ok().flatten();
        let _ = tx.send(Wake::Table { round: rn, table: tn, game });
    });
    Ok(room)
}

/// Notes this node as the one running the tournament (PostgreSQL); when
/// another ran it before and died (no clean stop: a restart or a handover
/// is no incident), the failover joins the audit trail. On SQLite the one
/// server restarting is no failover.
async fn take_over(state: &AppState, id: TournamentId) -> Result<(), TournamentError> {
    if state.db.topology() != Topology::Cluster {
        return Ok(());
    }
    let Some(node) = state.db.node_id() else { return Ok(()) };
    if let Some((from, false)) = state.db.take_over_tournament(id, node).await? {
        tracing::info!(tournament = id, node, from, "took the tournament over from a node that died");
        let incident = Incident::SchedulerFailover { node, from, at: crate::db::now_ms() };
        state.db.record_incident(id, node, &incident).await?;
    }
    Ok(())
}

/// Applies the log entries (results and controls) committed after
/// `cursor` (the last result's `seq`, the last control's id), in log order,
/// and moves the cursor past them. Each result's table is let go and
/// announced as finished, and `finished(round)` is told of it.
async fn catch_up(
    state: &Arc<AppState>,
    id: TournamentId,
    t: &mut Tournament,
    cursor: &mut (i64, i64),
    mut finished: impl FnMut(u32),
) -> Result<(), TournamentError> {
    let tail = state.db.tournament_log_after(id, cursor.0, cursor.1).await?;
    for entry in tail.in_order() {
        match entry {
            Logged::Result(r) => {
                let (rn, tn, winner) = (r.result.round, r.result.table, r.result.winner);
                t.record(r.result.clone())?;
                finished(rn);
                state.tournaments.unassign(id, rn, tn);
                state.tournaments.publish(id, Progress::TableFinished { round: rn, table: tn, game: r.game, winner });
            }
            Logged::Control(c) => {
                t.control(c.control.clone())?;
            }
        }
    }
    *cursor = tail.cursor(cursor.0, cursor.1);
    Ok(())
}

/// The event that announces a round (an arena's table is a round of one).
pub(super) fn round_started(round: &Round) -> Progress {
    Progress::RoundStarted {
        round: round.number,
        stage: round.stage,
        variant: round.variant.clone(),
        tables: round.tables.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_round_clears_its_tables_and_a_pause_waits_for_those_in_play() {
        let mut book = Book::default();
        assert_eq!(book.step(0, &[0, 1]), Step::Begin);
        book.open.insert(0, Placed::Room(7));
        assert_eq!(book.step(0, &[0, 1]), Step::Open);
        assert_eq!(book.unplaced(&[0, 1]), vec![1]);
        book.paused = true;
        assert_eq!(book.step(0, &[0, 1]), Step::Wait);
        assert_eq!(book.step(0, &[1]), Step::Stop, "table 0 has its result: nothing in play");
        book.paused = false;
        assert_eq!(book.step(1, &[0]), Step::Begin);
        assert!(book.open.is_empty());
    }

    #[test]
    fn a_table_fails_the_tournament_after_its_last_room() {
        let mut book = Book::default();
        for _ in 0..MAX_ATTEMPTS {
            book.attempt(2, 3).expect("within the attempts");
        }
        assert!(book.attempt(2, 3).is_err());
        assert!(book.attempt(2, 4).is_ok(), "counted per table");
    }

    #[test]
    fn a_cancel_closes_this_servers_rooms_of_pending_tables_only() {
        let mut book = Book::default();
        book.open.insert(0, Placed::Room(10));
        book.open.insert(1, Placed::Room(11));
        book.open.insert(2, Placed::Placement(5));
        assert_eq!(book.rooms_of(&[1, 2]), vec![11]);
    }

    #[test]
    fn the_stored_status_stops_pauses_or_resumes_a_runner() {
        assert_eq!(status_pause(None), None);
        assert_eq!(status_pause(Some(TournamentStatus::Cancelled)), None);
        assert_eq!(status_pause(Some(TournamentStatus::Paused)), Some(true));
        assert_eq!(status_pause(Some(TournamentStatus::Running)), Some(false));
    }
}
