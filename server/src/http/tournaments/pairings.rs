//! `GET /api/tournaments/{id}/pairings` and `/results`: each round's
//! tables with their seats, state and result (as corrected, with who
//! corrected it), and the byes by name; what the exports and the CLI's
//! `tournament pairings` print.
//!
//! The shapes are built here from what was read ([`Loaded`]) and what the
//! rooms of this server say ([`Live`]), without IO, so the rules of a
//! table's state are tested alone.

use std::collections::HashMap;

use capicua_tournament::{Control, MatchResult, Round, Table, Tournament};
use serde::Serialize;

use crate::AppState;
use crate::api::ApiError;
use crate::db::tournaments::StoredTable;

/// A correction of a table, as the audit trail keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Corrected {
    /// Who took the last correction of the table.
    pub by: String,
    /// When (unix seconds).
    pub at: i64,
    /// The result as played (what the first correction replaced).
    pub played: MatchResult,
}

/// What the pages of a tournament's tables read: the tournament replayed,
/// the stored tables and games, the corrections.
pub(super) struct Loaded {
    /// The tournament as its log leaves it (results as corrected).
    pub t: Tournament,
    /// The stored game of each recorded table, by (round, table).
    pub games: HashMap<(u32, u32), i64>,
    /// The stored tables (rooms), by (round, table).
    pub rooms: HashMap<(u32, u32), StoredTable>,
    /// The corrected tables, by (round, table).
    pub corrections: HashMap<(u32, u32), Corrected>,
}

impl Loaded {
    /// Reads tournament `id` (`None`: no such tournament).
    pub(super) async fn read(state: &AppState, id: i64) -> Result<Option<Loaded>, ApiError> {
        let replayed = state.tournaments.replays.current(&state.db, id).await?;
        let Some(Some(r)) = replayed.as_deref() else { return Ok(None) };
        let games = r.results.iter().map(|s| ((s.result.round, s.result.table), s.game)).collect();
        let rooms = state.db.tournament_tables(id).await?.into_iter().map(|s| ((s.round, s.table.id), s)).collect();
        let mut corrections: HashMap<(u32, u32), Corrected> = HashMap::new();
        for entry in state.db.tournament_audit(id).await? {
            let (Some(Control::Correct { result }), Some(old)) = (entry.control, entry.old) else { continue };
            let at = (result.round, result.table);
            // The first correction replaced the result as played; the last one counts.
            let played = corrections.remove(&at).map_or(old, |c| c.played);
            corrections.insert(at, Corrected { by: entry.by, at: entry.at, played });
        }
        Ok(Some(Loaded { t: r.tournament.clone(), games, rooms, corrections }))
    }

    /// Every round planned: played, then in play (an arena's open tables
    /// are rounds of one table).
    pub(super) fn rounds(&self) -> Vec<(Round, bool)> {
        let mut out: Vec<(Round, bool)> = self.t.rounds().iter().map(|r| (r.clone(), false)).collect();
        out.extend(self.t.rounds_in_play().into_iter().map(|r| (r, true)));
        out
    }

    /// The entrant's name.
    pub(super) fn name(&self, e: capicua_tournament::EntrantId) -> String {
        self.t.entrants().get(e.index()).map_or_else(|| format!("entrant {}", e.0), |x| x.name.clone())
    }
}

/// What this server's room of an open table says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Live {
    /// Its match has not started: the players of its seats not yet taken
    /// and ready.
    Waiting(Vec<String>),
    /// Its match is under way.
    Playing,
    /// Not a room of this server (another node's, or gone).
    Unknown,
}

/// What this server knows of room `room`, seated as `table`.
pub(super) fn live(state: &AppState, room: i64, table: &Table) -> Live {
    let Some(handle) = state.room(room as u64) else { return Live::Unknown };
    let info = handle.info.lock().expect("room info lock");
    if info.status != capicua_protocol::RoomStatus::Waiting {
        return Live::Playing;
    }
    Live::Waiting(
        table
            .seats
            .iter()
            .zip(&info.seats)
            .filter(|(_, s)| !s.occupant.as_ref().is_some_and(|o| o.ready))
            .map(|(t, _)| t.player.clone())
            .collect(),
    )
}

/// Where a table stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum TableState {
    /// Its result is recorded.
    Finished,
    /// Its room's match is under way (or its room is open on another node).
    InPlay,
    /// Its room waits for players (`waiting-for`).
    Waiting,
    /// Planned, no room open yet.
    NotOpen,
    /// Planned in a round that closed without its result (a cancelled
    /// tournament's open table).
    Unplayed,
}

/// An entrant, by id and name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Named {
    pub entrant: u32,
    pub name: String,
}

/// One seat of a paired table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PairedSeat {
    /// The seat (from 0, the engine's seat order).
    pub seat: u32,
    /// The side it plays for (index into the table's sides).
    pub side: u32,
    /// The player sitting there.
    pub player: String,
    /// The entrant it plays for.
    pub entrant: u32,
    /// That entrant's name.
    pub entrant_name: String,
}

/// One table of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PairedTable {
    /// The table (from 0).
    pub table: u32,
    pub seats: Vec<PairedSeat>,
    pub state: TableState,
    /// The room of its latest attempt.
    pub room: Option<i64>,
    /// The stored game of its recorded result.
    pub game: Option<i64>,
    /// The players its room waits for (state `waiting`).
    pub waiting_for: Vec<String>,
    /// The result that counts (as corrected, if it was).
    pub result: Option<MatchResult>,
    /// The result as played, when a correction replaced it.
    pub played: Option<MatchResult>,
    /// Who corrected the result (the last correction's taker).
    pub corrected_by: Option<String>,
    /// When (unix seconds).
    pub corrected_at: Option<i64>,
}

/// One round's pairings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PairedRound {
    /// The round (from 0, as the API numbers rounds).
    pub round: u32,
    /// Its stage (from 0).
    pub stage: u32,
    pub variant: String,
    /// Whether it still has tables to play.
    pub in_progress: bool,
    pub tables: Vec<PairedTable>,
    /// The entrants without a table this round.
    pub byes: Vec<Named>,
}

/// `GET /api/tournaments/{id}/pairings`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Pairings {
    pub tournament: i64,
    pub rounds: Vec<PairedRound>,
}

/// Round `r` paired, its open tables' state from `live`.
pub(super) fn pair_round(l: &Loaded, r: &Round, in_progress: bool, live: &dyn Fn(i64, &Table) -> Live) -> PairedRound {
    let tables = r
        .tables
        .iter()
        .map(|tb| {
            let key = (r.number, tb.id);
            let room = l.rooms.get(&key).and_then(|s| s.room);
            let result = l.t.result_of(r.number, tb.id).cloned();
            let corrected = l.corrections.get(&key);
            let (state, waiting_for) = match (&result, room) {
                (Some(_), _) => (TableState::Finished, Vec::new()),
                (None, _) if !in_progress => (TableState::Unplayed, Vec::new()),
                (None, None) => (TableState::NotOpen, Vec::new()),
                (None, Some(room)) => match live(room, tb) {
                    Live::Waiting(who) => (TableState::Waiting, who),
                    Live::Playing | Live::Unknown => (TableState::InPlay, Vec::new()),
                },
            };
            PairedTable {
                table: tb.id,
                seats: tb
                    .seats
                    .iter()
                    .enumerate()
                    .map(|(i, s)| PairedSeat {
                        seat: i as u32,
                        side: s.side,
                        player: s.player.clone(),
                        entrant: s.entrant.0,
                        entrant_name: l.name(s.entrant),
                    })
                    .collect(),
                state,
                room,
                game: l.games.get(&key).copied(),
                waiting_for,
                result,
                played: corrected.map(|c| c.played.clone()),
                corrected_by: corrected.map(|c| c.by.clone()),
                corrected_at: corrected.map(|c| c.at),
            }
        })
        .collect();
    PairedRound {
        round: r.number,
        stage: r.stage,
        variant: r.variant.clone(),
        in_progress,
        tables,
        byes: r.byes.iter().map(|&e| Named { entrant: e.0, name: l.name(e) }).collect(),
    }
}

/// Every round of `l` (or only round `only`), paired.
pub(super) fn pairings(id: i64, l: &Loaded, only: Option<u32>, live: &dyn Fn(i64, &Table) -> Live) -> Pairings {
    let rounds = l
        .rounds()
        .iter()
        .filter(|(r, _)| only.is_none_or(|n| r.number == n))
        .map(|(r, in_progress)| pair_round(l, r, *in_progress, live))
        .collect();
    Pairings { tournament: id, rounds }
}

/// One recorded result, for `GET /api/tournaments/{id}/results`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ResultRow {
    pub round: u32,
    pub stage: u32,
    pub variant: String,
    pub table: u32,
    pub game: Option<i64>,
    /// The table's seats.
    pub seats: Vec<PairedSeat>,
    /// The result that counts.
    pub result: MatchResult,
    /// The winning side's entrants by name (empty for a draw).
    pub winners: Vec<String>,
    pub played: Option<MatchResult>,
    pub corrected_by: Option<String>,
    pub corrected_at: Option<i64>,
}

/// Every recorded result, by round and table.
pub(super) fn results(p: &Pairings) -> Vec<ResultRow> {
    let mut out = Vec::new();
    for r in &p.rounds {
        for t in &r.tables {
            let Some(result) = &t.result else { continue };
            let winners = match result.winner {
                Some(w) => side_names(&t.seats, w),
                None => Vec::new(),
            };
            out.push(ResultRow {
                round: r.round,
                stage: r.stage,
                variant: r.variant.clone(),
                table: t.table,
                game: t.game,
                seats: t.seats.clone(),
                result: result.clone(),
                winners,
                played: t.played.clone(),
                corrected_by: t.corrected_by.clone(),
                corrected_at: t.corrected_at,
            });
        }
    }
    out
}

/// The entrants of side `side` by name, each once, in seat order.
pub(super) fn side_names(seats: &[PairedSeat], side: u32) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for s in seats.iter().filter(|s| s.side == side) {
        if !names.contains(&s.entrant_name) {
            names.push(s.entrant_name.clone());
        }
    }
    names
}
