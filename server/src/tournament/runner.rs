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
//! room reports its match stored, the runner reads every result committed
//! since the last one it recorded, in `seq` order, and feeds them to
//! [`Tournament::record`]; so the live state is always
//! `Tournament::replay(spec, stored results)`. The next round is planned only
//! from recorded (hence committed) results.

mod arena;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use capicua_engine::Variant;
use capicua_protocol::{Progress, RoomSpec, TimeControl, TimeoutPolicy, TournamentId, TournamentStatus};
use capicua_tournament::{ClockSpec, Config, MatchResult, Round, Table, TimeoutRule, Tournament};
use tokio::sync::{mpsc, oneshot};

use super::{Assignment, Member, TournamentError, store, table_link};
use crate::AppState;
use crate::db::tournaments;
use crate::room::{HostedSeat, TableOptions};

/// Rooms opened for one table before the tournament is marked failed.
const MAX_ATTEMPTS: u32 = 5;

/// Runs a tournament until it finishes, fails or the server shuts down
/// (an arena by [`arena`]).
pub(crate) async fn run(state: Arc<AppState>, id: TournamentId) {
    match drive(&state, id).await {
        Ok(()) => {}
        Err(e) if state.is_shutting_down() => tracing::info!(tournament = id, error = %e, "stopped by shutdown"),
        Err(e) => {
            tracing::error!(tournament = id, error = %e, "tournament failed");
            let _ = tournaments::set_status(&state.db, id, TournamentStatus::Failed, Some(&e.to_string())).await;
        }
    }
    state.tournaments.unassign_tournament(id);
    state.tournaments.lock().running.remove(&id);
}

async fn drive(state: &Arc<AppState>, id: TournamentId) -> Result<(), TournamentError> {
    let db = &state.db;
    let Some(stored) = store::load(db, id).await? else { return Ok(()) };
    if stored.config.is_arena() {
        return arena::drive(state, id, stored).await;
    }
    let results: Vec<MatchResult> = stored.results.iter().map(|r| r.result.clone()).collect();
    let mut last_seq = stored.results.last().map_or(0, |r| r.seq);
    let mut t = Tournament::replay(stored.config, &results)?;
    tracing::info!(tournament = id, results = results.len(), "running tournament");
    tournaments::set_status(db, id, TournamentStatus::Running, None).await?;
    tournaments::save_standings(db, id, &t.standings()).await?;
    let (tx, mut rx) = mpsc::unbounded_channel::<(u32, u32, Option<i64>)>();
    let mut shutdown = state.shutdown();
    // Tables of the current round with a room open, and rooms opened per table.
    let mut open: HashSet<u32> = HashSet::new();
    let mut attempts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut current: Option<u32> = None;
    while let Some(round) = t.next_round() {
        if current != Some(round.number) {
            current = Some(round.number);
            open.clear();
            tournaments::save_round(db, id, &round).await?;
            state.tournaments.publish(
                id,
                Progress::RoundStarted {
                    round: round.number,
                    stage: round.stage,
                    variant: round.variant.clone(),
                    tables: round.tables.len() as u32,
                },
            );
        }
        for table_no in t.pending_tables() {
            if open.contains(&table_no) {
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
            open_table(state, id, &round, &round.tables[table_no as usize], v, clock, tx.clone()).await?;
            open.insert(table_no);
        }
        let event = tokio::select! {
            e = rx.recv() => e,
            _ = crate::shutdown_signalled(&mut shutdown) => return Ok(()),
        };
        let Some((round_no, table_no, game)) = event else { return Ok(()) };
        if round_no != round.number {
            continue;
        }
        match game {
            Some(game) => {
                // Committed with its result: record everything committed since.
                for r in tournaments::results_after(db, id, last_seq).await? {
                    let (rn, tn, winner) = (r.result.round, r.result.table, r.result.winner);
                    t.record(r.result)?;
                    last_seq = r.seq;
                    state.tournaments.unassign(id, rn, tn);
                    state
                        .tournaments
                        .publish(id, Progress::TableFinished { round: rn, table: tn, game: r.game, winner });
                }
                // The standings rows were written with the match (see the database writer).
                tracing::debug!(tournament = id, round = round_no, table = table_no, game, "table finished");
            }
            None => {
                if state.is_shutting_down() {
                    return Ok(());
                }
                // The room ended without a stored match: play it again from the start.
                tracing::warn!(tournament = id, round = round_no, table = table_no, "table interrupted; replaying it");
                state.tournaments.unassign(id, round_no, table_no);
                open.remove(&table_no);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    tournaments::set_status(db, id, TournamentStatus::Finished, None).await?;
    let names: Vec<String> = t.winners().iter().map(|w| t.entrants()[w.index()].name.clone()).collect();
    tracing::info!(tournament = id, winners = ?names, "tournament finished");
    state.tournaments.publish(id, Progress::Finished { winners: names });
    Ok(())
}

/// The variant of a round: a preset, or a variant file's variant as stored
/// with the tournament when it was created (never the file as it is now).
fn variant(config: &Config, name: &str) -> Result<Variant, TournamentError> {
    config
        .variant(name)
        .ok_or_else(|| TournamentError::Variant { name: name.into(), message: "not stored with the tournament".into() })
}

/// Opens the room of one table: hosted seats filled, the others reserved
/// for their players, who get an assignment.
async fn open_table(
    state: &Arc<AppState>,
    id: TournamentId,
    round: &Round,
    table: &Table,
    v: Variant,
    clock: ClockSpec,
    tx: mpsc::UnboundedSender<(u32, u32, Option<i64>)>,
) -> Result<(), TournamentError> {
    let mut hosted = Vec::with_capacity(table.seats.len());
    let mut reserved = Vec::with_capacity(table.seats.len());
    for seat in &table.seats {
        match Member::of(&seat.player) {
            Member::Hosted { strategy } => {
                // Each hosted entrant is a player of its own (`bot:random#a`
                // and `bot:random#b` are two): their games against each other
                // are rated like any other, and each keeps its own rating.
                let p = state.db.hosted_bot(seat.player.strip_prefix("bot:").unwrap_or(&seat.player)).await?;
                hosted.push(Some(HostedSeat { name: seat.player.clone(), strategy, player_id: Some(p.id) }));
                reserved.push(None);
            }
            Member::Player(name) => {
                let p = state.db.player_id(&name).await?.ok_or_else(|| TournamentError::Entrant {
                    field: "entrants".into(),
                    message: format!("no registered player {name:?}"),
                })?;
                hosted.push(None);
                reserved.push(Some(p));
            }
        }
    }
    let sides = table.sides.len();
    let teams: Vec<Vec<u8>> = (0..sides as u32)
        .map(|side| table.seats.iter().enumerate().filter(|(_, s)| s.side == side).map(|(i, _)| i as u8).collect())
        .collect();
    let spec = RoomSpec {
        preset: None,
        variant: Some(v),
        variant_file: None,
        seats: Some(table.seats.len() as u8),
        teams: Some(teams),
        // Tournament games update ratings like any rated game.
        rated: true,
        time: Some(TimeControl { move_ms: clock.move_ms, bank_ms: clock.bank_ms }),
        on_timeout: Some(match &clock.on_timeout {
            TimeoutRule::Strategy { name } => TimeoutPolicy::Strategy { name: name.clone() },
            TimeoutRule::Pass => TimeoutPolicy::Pass,
            TimeoutRule::Forfeit => TimeoutPolicy::Forfeit,
        }),
        // Never seeded: the tournament's seed is public in its
        // configuration, and a known seed would reveal every hand.
        seed: None,
        // Listed, so that anyone may watch a tournament table.
        private: false,
    };
    let (done_tx, done_rx) = oneshot::channel();
    let options = TableOptions {
        reserved: reserved.clone(),
        hosted,
        one_match: true,
        no_show: Some(Duration::from_secs(u64::from(clock.no_show_secs))),
        link: Some(table_link(id, round.number, table.id)),
    };
    let info = crate::room::create_table(state, spec, options, done_tx)
        .await
        .map_err(|e| TournamentError::Room(e.to_string()))?;
    tournaments::set_table_room(&state.db, id, round.number, table.id, info.id).await?;
    for (seat, p) in reserved.iter().enumerate() {
        if let Some(p) = p {
            state.tournaments.assign(
                *p,
                Assignment {
                    tournament: id,
                    round: round.number,
                    table: table.id,
                    room: info.id,
                    seat: seat as u8,
                    variant: round.variant.clone(),
                },
            );
        }
    }
    let (rn, tn) = (round.number, table.id);
    tokio::spawn(async move {
        let game = done_rx.await.ok().flatten();
        let _ = tx.send((rn, tn, game));
    });
    Ok(())
}
