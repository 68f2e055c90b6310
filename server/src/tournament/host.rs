//! Each node's host task (PostgreSQL only): opens the tournament tables
//! the scheduler placed on this node (see [`super::placement`]), closes
//! those of cancelled tournaments, sends the players connected here their
//! tables open on other nodes, and relays to the followers here the
//! progress of tournaments run elsewhere ([`super::relay`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::TournamentError;
use super::placement::{LOOK, TablePlan, assignments, host_table};
use crate::AppState;
use crate::db::placements::{News, PlacementState};

/// How long the host waits before listening again after its listener failed
/// (it looks every [`LOOK`] meanwhile).
const LISTEN_AGAIN: Duration = Duration::from_secs(5);

/// Starts this node's host task (PostgreSQL only): every [`LOOK`], and at
/// once when a table is placed here or a placement moves (the placements
/// channel's [`News`]), it opens the tables placed on this node, closes
/// those of cancelled tournaments, sends the players connected here their
/// tables open on other nodes, and relays the progress of tournaments run
/// elsewhere to the followers here. News of a placement's move also wakes
/// its tournament's runner, if it runs here.
pub(crate) fn spawn(state: Arc<AppState>) {
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        let mut every = tokio::time::interval(LOOK);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // Placements of tables open elsewhere whose assignments were sent
        // here, with their rooms; cancelled placements whose rooms were closed.
        let mut delivered: HashMap<i64, u64> = HashMap::new();
        let mut closed: HashSet<i64> = HashSet::new();
        // What this node's followers were told of tournaments run elsewhere.
        let mut relayed = HashMap::new();
        let mut news = listen(state.clone());
        loop {
            tokio::select! {
                _ = every.tick() => {}
                _ = state.tournaments.host.notified() => {}
                Some(heard) = news.recv() => {
                    // One look for a burst of news.
                    for heard in std::iter::once(heard).chain(std::iter::from_fn(|| news.try_recv().ok())) {
                        if let News::Moved { tournament } = heard {
                            state.tournaments.nudge(tournament);
                        }
                    }
                }
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
            if let Err(e) = look(&state, &mut delivered, &mut closed).await {
                tracing::warn!(error = %e, "looking at the table placements");
            }
            if let Err(e) = super::relay::look(&state, &mut relayed).await {
                tracing::warn!(error = %e, "relaying tournament progress");
            }
            if let Err(e) = super::relay::look_controls(&state).await {
                tracing::warn!(error = %e, "relaying the organiser's controls");
            }
        }
    });
}

/// Listens to the placements channel in a task of its own (a
/// notification half read must never be dropped by a `select!`), passing
/// on the news heard. While it cannot listen (the database unreachable) it
/// tries again every [`LISTEN_AGAIN`], and the host only looks every
/// [`LOOK`]. It ends with the server, or on SQLite at once.
fn listen(state: Arc<AppState>) -> mpsc::UnboundedReceiver<News> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        loop {
            let heard = tokio::select! {
                heard = pass_on(&state, &tx) => heard,
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            };
            match heard {
                Ok(false) => return,
                Ok(true) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "listening for table placements; looking every {LOOK:?} meanwhile")
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(LISTEN_AGAIN) => {}
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
        }
    });
    rx
}

/// Passes on the news heard until listening fails; `Ok(false)` when there
/// is nothing to listen to (SQLite) or nobody to tell.
async fn pass_on(state: &AppState, tx: &mpsc::UnboundedSender<News>) -> Result<bool, TournamentError> {
    let Some(mut listener) = state.db.listen_placements().await? else { return Ok(false) };
    loop {
        let heard = listener.recv().await?;
        if let Some(news) = News::parse(heard.payload())
            && tx.send(news).is_err()
        {
            return Ok(false);
        }
    }
}

async fn look(
    state: &Arc<AppState>,
    delivered: &mut HashMap<i64, u64>,
    closed: &mut HashSet<i64>,
) -> Result<(), TournamentError> {
    let db = &state.db;
    for p in db.placed_here().await? {
        if state.is_shutting_down() {
            return Ok(());
        }
        // Claimed before it is opened: a placement is opened once.
        if !db.move_placement(p.id, &[PlacementState::Placed], PlacementState::Open).await? {
            continue;
        }
        let opened = match serde_json::from_str::<TablePlan>(&p.table_json) {
            Ok(plan) => host_table(state, p.tournament, p.round, p.table, &plan).await,
            Err(e) => Err(TournamentError::Room(format!("placement {}: {e}", p.id))),
        };
        match opened {
            Ok((room, done)) => {
                db.set_placement_room(p.id, room).await?;
                tracing::info!(
                    tournament = p.tournament,
                    round = p.round,
                    table = p.table,
                    room,
                    "opened a placed table"
                );
                let state = state.clone();
                tokio::spawn(async move {
                    let game = done.await.ok().flatten();
                    state.tournaments.unassign_room(room);
                    let end = if game.is_some() { PlacementState::Done } else { PlacementState::Ended };
                    if let Err(e) = state.db.move_placement(p.id, &[PlacementState::Open], end).await {
                        tracing::warn!(placement = p.id, error = %e, "recording a placed table's end");
                    }
                    state.tournaments.nudge(p.tournament);
                });
            }
            Err(e) => {
                tracing::warn!(tournament = p.tournament, round = p.round, table = p.table, error = %e, "a placed table did not open");
                db.move_placement(p.id, &[PlacementState::Open], PlacementState::Ended).await?;
                state.tournaments.nudge(p.tournament);
            }
        }
    }
    for (placement, room) in db.cancelled_here().await? {
        if closed.insert(placement) {
            super::runner::close_room(state, room as u64);
        }
    }
    let open = db.open_elsewhere().await?;
    let mut seen = HashSet::with_capacity(open.len());
    for o in open {
        seen.insert(o.placed.id);
        if delivered.contains_key(&o.placed.id) {
            continue;
        }
        delivered.insert(o.placed.id, o.room as u64);
        match serde_json::from_str::<TablePlan>(&o.placed.table_json) {
            Ok(plan) => {
                for (player, a) in
                    assignments(o.placed.tournament, o.placed.round, o.placed.table, o.room as u64, &plan, Some(&o.url))
                {
                    state.tournaments.assign(player, a);
                }
            }
            Err(e) => tracing::warn!(placement = o.placed.id, error = %e, "a placement's table does not parse"),
        }
    }
    delivered.retain(|placement, room| {
        let keep = seen.contains(placement);
        if !keep {
            state.tournaments.unassign_room(*room);
        }
        keep
    });
    Ok(())
}
