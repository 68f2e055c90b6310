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

/// Rooms opened for one table before the tournament is marked failed
/// (the organiser may resume it once the cause is fixed: the count starts again).
const MAX_ATTEMPTS: u32 = 5;

/// What wakes a runner.
#[derive(Debug)]
pub(crate) enum Wake {
    /// A table's room ended: its stored game, or `None` when it ended without one.
    Table {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The stored game.
        game: Option<i64>,
    },
    /// The organiser took a control: read the status and the log again.
    Control,
    /// A table placed on this node ended: look at the placements now.
    Placements,
}

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
    let db = &state.db;
    let Some(stored) = store::load(db, id).await? else { return Ok(()) };
    if stored.config.is_arena() {
        return arena::drive(state, id, stored, tx, rx).await;
    }
    let entries: Vec<_> = stored.log.in_order().into_iter().map(Logged::entry).collect();
    let mut cursor = stored.log.cursor(0, 0);
    let mut t = Tournament::replay_log(stored.config, &entries)?;
    let secret = db.tournament_deal_secret(id).await?;
    // The organiser may have paused or cancelled it since the scheduler looked.
    if !db.transition_tournament(id, Transition::Start, None).await? {
        return Ok(());
    }
    // A withdrawal taken before that plans round 0 again: read it before planning.
    catch_up(state, id, &mut t, &mut cursor, |_| {}).await?;
    tracing::info!(tournament = id, entries = entries.len(), "running tournament");
    db.save_tournament_standings(id, &t.standings()).await?;
    let mut shutdown = state.shutdown();
    // On PostgreSQL the tables are spread over the nodes by load and
    // watched through their placements.
    let spread = db.topology() == Topology::Cluster;
    let mut look = tokio::time::interval(placement::LOOK);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Tables of the current round in play (by table: where), and rooms
    // opened per table.
    let mut open: HashMap<u32, Placed> = HashMap::new();
    let mut attempts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut current: Option<u32> = None;
    let mut paused = false;
    while let Some(round) = t.next_round() {
        let in_play = t.pending_tables().iter().filter(|tb| open.contains_key(tb)).count();
        if paused && in_play == 0 {
            // Nothing left in play: stop here; `resume` makes it runnable again.
            tracing::info!(tournament = id, "paused");
            return Ok(());
        }
        if !paused {
            if current != Some(round.number) {
                current = Some(round.number);
                open.clear();
                db.save_tournament_round(id, &round).await?;
                state.tournaments.publish(id, round_started(&round));
                // The tables a previous scheduler placed on live nodes play
                // on there: adopt them rather than open them twice.
                if spread && watch(state, id, round.number, &t, &mut open).await? {
                    catch_up(state, id, &mut t, &mut cursor, |_| {}).await?;
                    continue;
                }
            }
            for table_no in t.pending_tables() {
                if open.contains_key(&table_no) {
                    continue;
                }
                let n = attempts.entry((round.number, table_no)).or_default();
                *n += 1;
                if *n > MAX_ATTEMPTS {
                    return Err(TournamentError::Room(format!(
                        "round {} table {table_no}: {MAX_ATTEMPTS} rooms ended without a stored match",
                        round.number
                    )));
                }
                let clock = t.config().spec().clock.clone();
                let v = variant(t.config(), &round.variant)?;
                let table = &round.tables[table_no as usize];
                let plan = placement::plan_table(state, &round, table, v, clock, secret.as_ref()).await?;
                let placed = if spread {
                    Placed::Placement(placement::place(state, id, round.number, table_no, &plan).await?)
                } else {
                    Placed::Room(open_table(state, id, round.number, table_no, &plan, tx.clone()).await?)
                };
                open.insert(table_no, placed);
            }
        }
        let event = tokio::select! {
            e = rx.recv() => e,
            _ = look.tick(), if spread => Some(Wake::Placements),
            _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
        };
        let Some(event) = event else { return Ok(()) };
        let fresh = match event {
            Wake::Control => {
                let status = db.tournament_summary(id).await?.map(|s| s.status);
                match status {
                    Some(TournamentStatus::Cancelled) | None => {
                        // Its open tables close; games already stored stay.
                        for (&table, &placed) in &open {
                            if let Placed::Room(room) = placed
                                && t.pending_tables().contains(&table)
                            {
                                close_room(state, room);
                            }
                        }
                        if spread {
                            db.cancel_placements(id).await?;
                        }
                        tracing::info!(tournament = id, "cancelled");
                        return Ok(());
                    }
                    Some(TournamentStatus::Paused) => paused = true,
                    Some(_) => paused = false,
                }
                true
            }
            Wake::Placements if spread => watch(state, id, round.number, &t, &mut open).await?,
            Wake::Placements => continue,
            Wake::Table { round: round_no, table: table_no, game } => {
                if round_no != round.number {
                    continue;
                }
                match game {
                    Some(game) => {
                        // The standings rows were written with the match (see the database writer).
                        tracing::debug!(tournament = id, round = round_no, table = table_no, game, "table finished");
                        true
                    }
                    None => {
                        if state.is_shutting_down() {
                            return Ok(());
                        }
                        // The room ended without a stored match: play it again from the start.
                        tracing::warn!(
                            tournament = id,
                            round = round_no,
                            table = table_no,
                            "table interrupted; replaying it"
                        );
                        state.tournaments.unassign(id, round_no, table_no);
                        open.remove(&table_no);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        false
                    }
                }
            }
        };
        if fresh {
            // Record everything committed since, results and controls, in log order.
            catch_up(state, id, &mut t, &mut cursor, |_| {}).await?;
        }
    }
    if db.transition_tournament(id, Transition::Finish, None).await? {
        let names: Vec<String> = t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect();
        tracing::info!(tournament = id, winners = ?names, "tournament finished");
        state.tournaments.publish(id, Progress::Finished { winners: names });
    }
    Ok(())
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

/// Looks at the placements of the round in progress (PostgreSQL): a done
/// one settles (its result is in the log), an ended one or one whose node
/// died frees its table to be placed again, and one a previous scheduler
/// placed on a live node is adopted. Returns whether the log is to be read
/// (a freed table is placed again only if its result is not in the log).
async fn watch(
    state: &Arc<AppState>,
    id: TournamentId,
    round: u32,
    t: &Tournament,
    open: &mut HashMap<u32, Placed>,
) -> Result<bool, TournamentError> {
    use crate::db::placements::PlacementState::{Done, Ended, Lost, Open, Placed as Waiting};
    let pending = t.pending_tables();
    let mut fresh = false;
    for w in state.db.watch_placements(id, round).await? {
        let waiting = matches!(w.state, Waiting | Open);
        match open.get(&w.table) {
            Some(&Placed::Placement(p)) if p == w.id => {
                let freed = match w.state {
                    Done => {
                        open.insert(w.table, Placed::Settled);
                        fresh = true;
                        false
                    }
                    Ended => true,
                    _ if !w.live => state.db.move_placement(w.id, &[Waiting, Open], Lost).await?,
                    _ => false,
                };
                if freed {
                    tracing::warn!(tournament = id, round, table = w.table, "table interrupted; replaying it");
                    open.remove(&w.table);
                    fresh = true;
                }
            }
            None if waiting && w.live && pending.contains(&w.table) => {
                open.insert(w.table, Placed::Placement(w.id));
            }
            None if waiting && !w.live => {
                state.db.move_placement(w.id, &[Waiting, Open], Lost).await?;
            }
            _ => {}
        }
    }
    Ok(fresh)
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
