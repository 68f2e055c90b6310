//! A tournament table from plan to room, on whichever node plays it.
//!
//! ```text
//! runner (scheduler's node)            database                     the chosen node's host
//! plan the table ──▶ least loaded ──▶ table_placements: placed ──▶ claim: open, open the room,
//!                    live node                                      assign its players here
//!       ▲                                                                 │ match over
//!       └── watch: done ─▶ read the log; ended / lost ─▶ place again ◀── done or ended
//! ```
//!
//! On SQLite one server holds the file: the runner opens its tables itself
//! ([`host_table`] directly). On PostgreSQL several servers may serve the
//! database, and the scheduler spreads tables over them by load: it writes
//! a placement, the chosen node's host task (`super::host`) opens the room, and
//! the runner watches the placement (every [`LOOK`]) instead of a local
//! room. A placement whose node dies is `lost`, and the table is played
//! again elsewhere from its start; the result's uniqueness per table in the
//! database keeps a table from ever counting twice.
//!
//! A player connected to one node may be seated at a table on another:
//! every node reads the tables open elsewhere and sends its own players
//! their `assignment` with the hosting node's `url`.

use std::sync::Arc;
use std::time::Duration;

use capicua_protocol::{Assignment, RoomSpec, TimeControl, TimeoutPolicy, TournamentId};
use capicua_tournament::{ClockSpec, Round, RoundVariant, Table, TimeoutRule};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::{Member, TournamentError, table_link};
use crate::AppState;
use crate::room::{HostedSeat, TableOptions};

/// How often a node looks for placements to open or cancel and for tables
/// open elsewhere, and a runner looks at its placements.
pub(crate) const LOOK: Duration = Duration::from_millis(250);

/// Everything a node needs to open a table's room: stored as the
/// placement's `table_json`, so any node can open it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct TablePlan {
    /// The room.
    pub spec: RoomSpec,
    /// The player each seat is reserved for.
    pub reserved: Vec<Option<i64>>,
    /// The hosted bots, by seat.
    pub hosted: Vec<Option<PlannedBot>>,
    /// Seconds the seats have to be filled and ready.
    pub no_show_secs: u64,
    /// The round's variant, as assignments name it.
    pub variant: String,
    /// Seeds the room (see [`super::table_entropy`]); `None`: the OS's.
    #[serde(default)]
    pub entropy: Option<u64>,
}

/// A hosted bot's seat.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct PlannedBot {
    /// The entrant's name (`bot:STRATEGY#tag`).
    pub name: String,
    /// The strategy spec.
    pub strategy: String,
    /// Its player row (ratings).
    pub player_id: i64,
}

/// Plans the room of one table: hosted seats filled, the others reserved
/// for their players.
pub(crate) async fn plan_table(
    state: &AppState,
    round: &Round,
    table: &Table,
    v: RoundVariant,
    clock: ClockSpec,
    secret: Option<&[u8; 32]>,
) -> Result<TablePlan, TournamentError> {
    let mut hosted = Vec::with_capacity(table.seats.len());
    let mut reserved = Vec::with_capacity(table.seats.len());
    for seat in &table.seats {
        match Member::of(&seat.player) {
            Member::Hosted { strategy } => {
                // Each hosted entrant is a player of its own (`bot:random#a`
                // and `bot:random#b` are two): their games against each other
                // are rated like any other, and each keeps its own rating.
                let p = state.db.hosted_bot(seat.player.strip_prefix("bot:").unwrap_or(&seat.player)).await?;
                hosted.push(Some(PlannedBot { name: seat.player.clone(), strategy, player_id: p.id }));
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
    let (preset, variant, teams) = match v {
        RoundVariant::Tiles(v) => (None, Some(v), Some(teams)),
        // A poly room seats every seat as its own side, and its winner is a
        // seat: the tables that play poly presets (duel, free-for-all) have
        // side `i` at seat `i`, so the seat is the table's side.
        RoundVariant::Poly(v) => {
            if table.seats.iter().enumerate().any(|(i, s)| s.side != i as u32) {
                return Err(TournamentError::Room(format!(
                    "round {} table {}: {} is played every seat for itself, this table has partners",
                    round.number, table.id, v.name
                )));
            }
            (Some(v.name), None, None)
        }
    };
    let spec = RoomSpec {
        preset,
        variant,
        variant_file: None,
        seats: Some(table.seats.len() as u8),
        teams,
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
    Ok(TablePlan {
        spec,
        reserved,
        hosted,
        no_show_secs: u64::from(clock.no_show_secs),
        variant: round.variant.clone(),
        entropy: secret.map(|s| super::table_entropy(s, round.number, table.id)),
    })
}

/// Opens a planned table's room here: records it as the table's latest
/// room and sends its players connected here their assignment. The
/// receiver hears the stored game's id (or `None`) when the room ends.
pub(crate) async fn host_table(
    state: &Arc<AppState>,
    id: TournamentId,
    round: u32,
    table: u32,
    plan: &TablePlan,
) -> Result<(u64, oneshot::Receiver<Option<i64>>), TournamentError> {
    let (done_tx, done_rx) = oneshot::channel();
    let hosted = plan
        .hosted
        .iter()
        .map(|h| {
            h.as_ref().map(|b| HostedSeat {
                name: b.name.clone(),
                strategy: b.strategy.clone(),
                player_id: Some(b.player_id),
            })
        })
        .collect();
    let options = TableOptions {
        reserved: plan.reserved.iter().map(|p| p.map(crate::client::Owner::Player)).collect(),
        hosted,
        one_match: true,
        no_show: Some(Duration::from_secs(plan.no_show_secs)),
        link: Some(table_link(id, round, table)),
        entropy: plan.entropy,
    };
    let info = crate::room::create_table(state, plan.spec.clone(), options, done_tx)
        .await
        .map_err(|e| TournamentError::Room(e.to_string()))?;
    state.db.set_tournament_table_room(id, round, table, info.id).await?;
    for a in assignments(id, round, table, info.id, plan, None) {
        state.tournaments.assign(a.0, a.1);
    }
    Ok((info.id, done_rx))
}

/// The assignment of each player seated at a table, by player id.
pub(super) fn assignments(
    id: TournamentId,
    round: u32,
    table: u32,
    room: u64,
    plan: &TablePlan,
    url: Option<&str>,
) -> Vec<(i64, Assignment)> {
    plan.reserved
        .iter()
        .enumerate()
        .filter_map(|(seat, p)| {
            p.map(|p| {
                let a = Assignment {
                    tournament: id,
                    round,
                    table,
                    room,
                    seat: seat as u8,
                    variant: plan.variant.clone(),
                    url: url.map(str::to_string),
                };
                (p, a)
            })
        })
        .collect()
}

/// Places a planned table on the least loaded live node (this one if none
/// is found); returns the placement's id.
pub(crate) async fn place(
    state: &AppState,
    id: TournamentId,
    round: u32,
    table: u32,
    plan: &TablePlan,
) -> Result<i64, TournamentError> {
    let json = serde_json::to_string(plan).map_err(|e| TournamentError::Room(e.to_string()))?;
    let own = state.db.node_id().ok_or_else(|| TournamentError::Room("this server is not a node yet".into()))?;
    let node = state.db.least_loaded_node().await?.unwrap_or(own);
    let placement = state.db.place_table(id, round, table, node, &json).await?;
    tracing::debug!(tournament = id, round, table, node, placement, "table placed");
    if node == own {
        state.tournaments.host.notify_one();
    }
    Ok(placement)
}
