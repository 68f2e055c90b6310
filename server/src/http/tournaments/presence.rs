//! Who is here: the `presence` rows of a tournament's detail, one per
//! entrant, from its open table, its players' connections and what the
//! tournament still needs of it.
//!
//! "Connected": a live WebSocket acting for the player on this node or,
//! on PostgreSQL, on another live node as of that node's last beat (every
//! node writes its players' ids at each beat), or a hosted bot, which the
//! server hosts itself. The state is decided by [`state_of`], without IO.

use std::collections::HashSet;

use capicua_tournament::EntrantId;
use serde::Serialize;

use super::pairings::{PairedRound, TableState};
use crate::AppState;
use crate::api::ApiError;
use crate::tournament::Member;

/// Where an entrant stands now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum PresenceState {
    /// Seated at an open table whose match is under way.
    Playing,
    /// Connected, and waiting: at an open table not started yet, or
    /// awaiting assignments with no table now.
    Waiting,
    /// A table waits for it and a player of it is not connected, or the
    /// next round needs it and it is not connected.
    Missing,
    /// Not needed now: its table is over, a bye, or the tournament is.
    Idle,
    /// Withdrawn by the organiser.
    Withdrawn,
    /// Eliminated or disqualified.
    Out,
}

/// One player of an entrant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PlayerPresence {
    pub name: String,
    pub connected: bool,
}

/// A table, by round and table (from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct TableRef {
    pub round: u32,
    pub table: u32,
}

/// One `presence` row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PresenceRow {
    pub entrant: u32,
    pub name: String,
    pub state: PresenceState,
    pub players: Vec<PlayerPresence>,
    /// Its open table (not yet finished), if it has one.
    pub table: Option<TableRef>,
}

/// What [`state_of`] reads of an entrant.
#[derive(Clone, Debug, Default)]
pub(super) struct Facts {
    pub withdrawn: bool,
    /// Eliminated or disqualified.
    pub out: bool,
    /// The tournament still plays (pending, running or paused, not finished).
    pub live: bool,
    /// A round has tables to play.
    pub round_in_play: bool,
    /// Its players, connected or not.
    pub players: Vec<PlayerPresence>,
    /// Its players awaiting assignments (hosted bots always are).
    pub awaiting: bool,
    /// Its open table: its state, and the players it waits for.
    pub table: Option<(TableState, Vec<String>)>,
}

/// The entrant's state.
pub(super) fn state_of(f: &Facts) -> PresenceState {
    // Only its own players: a table waiting for the opponent is no fault of this entrant.
    let absent_awaited = |who: &[String]| f.players.iter().any(|p| !p.connected && who.contains(&p.name));
    let all_connected = f.players.iter().all(|p| p.connected);
    if f.withdrawn {
        return PresenceState::Withdrawn;
    }
    if f.out {
        return PresenceState::Out;
    }
    if !f.live {
        return PresenceState::Idle;
    }
    match &f.table {
        Some((TableState::InPlay, _)) => PresenceState::Playing,
        Some((TableState::Waiting, who)) if absent_awaited(who) => PresenceState::Missing,
        Some((TableState::NotOpen, _)) if !all_connected => PresenceState::Missing,
        Some((TableState::Waiting | TableState::NotOpen, _)) => PresenceState::Waiting,
        // Finished or unplayed: no table now.
        Some(_) | None if f.awaiting && all_connected => PresenceState::Waiting,
        // Between rounds the next one needs every entrant still in.
        Some(_) | None if !f.round_in_play && !all_connected => PresenceState::Missing,
        Some(_) | None => PresenceState::Idle,
    }
}

/// The presence rows of every entrant of `rounds`' tournament, as this
/// server knows its players.
pub(super) async fn rows(
    state: &AppState,
    t: &capicua_tournament::Tournament,
    live: bool,
    rounds: &[PairedRound],
) -> Result<Vec<PresenceRow>, ApiError> {
    let standings = t.standings();
    let withdrawn = t.withdrawn();
    let round_in_play = rounds.iter().any(|r| r.in_progress);
    let elsewhere = match state.db.topology() {
        crate::db::Topology::Cluster => state.db.players_elsewhere().await?,
        crate::db::Topology::Single => HashSet::new(),
    };
    let mut out = Vec::new();
    for e in t.entrants() {
        let (players, awaiting) = players_of(state, &e.members, &elsewhere).await?;
        let open = open_table(rounds, e.id);
        let s = standings.iter().find(|s| s.entrant == e.id);
        let facts = Facts {
            withdrawn: withdrawn.contains(&e.id),
            out: s.is_some_and(|s| s.eliminated || s.disqualified),
            live,
            round_in_play,
            players,
            awaiting,
            table: open.as_ref().map(|(_, st, who)| (*st, who.clone())),
        };
        out.push(PresenceRow {
            entrant: e.id.0,
            name: e.name.clone(),
            state: state_of(&facts),
            players: facts.players,
            table: open.map(|(at, ..)| at),
        });
    }
    Ok(out)
}

/// The open (not finished) table seating `e`, with its state and whom it waits for.
fn open_table(rounds: &[PairedRound], e: EntrantId) -> Option<(TableRef, TableState, Vec<String>)> {
    rounds.iter().filter(|r| r.in_progress).find_map(|r| {
        r.tables
            .iter()
            .filter(|t| matches!(t.state, TableState::InPlay | TableState::Waiting | TableState::NotOpen))
            .find(|t| t.seats.iter().any(|s| s.entrant == e.0))
            .map(|t| (TableRef { round: r.round, table: t.table }, t.state, t.waiting_for.clone()))
    })
}

/// Each member's connection (here, or to another node: `elsewhere`), and
/// whether all of them await assignments here.
async fn players_of(
    state: &AppState,
    members: &[String],
    elsewhere: &HashSet<i64>,
) -> Result<(Vec<PlayerPresence>, bool), ApiError> {
    let mut players = Vec::new();
    let mut awaiting = true;
    for name in members {
        let (connected, waits) = match Member::of(name) {
            Member::Hosted { .. } => (true, true),
            Member::Player(_) => match state.db.player_id(name).await? {
                Some(pid) => {
                    let waits = state.tournaments.inner.lock().expect("registry lock").waiting.contains_key(&pid);
                    (state.lobby.is_acting(pid) || waits || elsewhere.contains(&pid), waits)
                }
                None => (false, false),
            },
        };
        awaiting &= waits;
        players.push(PlayerPresence { name: name.clone(), connected });
    }
    Ok((players, awaiting))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(connected: &[bool], table: Option<(TableState, &[&str])>) -> Facts {
        Facts {
            live: true,
            round_in_play: true,
            players: connected
                .iter()
                .enumerate()
                .map(|(i, &c)| PlayerPresence { name: format!("p{i}"), connected: c })
                .collect(),
            awaiting: connected.iter().all(|&c| c),
            table: table.map(|(s, who)| (s, who.iter().map(|w| w.to_string()).collect())),
            ..Facts::default()
        }
    }

    #[test]
    fn withdrawn_and_out_come_before_any_table() {
        let mut f = facts(&[true], Some((TableState::InPlay, &[])));
        f.out = true;
        assert_eq!(state_of(&f), PresenceState::Out);
        f.withdrawn = true;
        assert_eq!(state_of(&f), PresenceState::Withdrawn);
    }

    #[test]
    fn a_table_under_way_is_playing_and_one_that_waits_for_an_absent_player_is_missing() {
        assert_eq!(state_of(&facts(&[false], Some((TableState::InPlay, &[])))), PresenceState::Playing);
        assert_eq!(state_of(&facts(&[false], Some((TableState::Waiting, &["p0"])))), PresenceState::Missing);
        assert_eq!(state_of(&facts(&[true], Some((TableState::Waiting, &["p0"])))), PresenceState::Waiting);
        // The table waits for its opponent, not for it.
        assert_eq!(state_of(&facts(&[true], Some((TableState::Waiting, &["p0", "other"])))), PresenceState::Waiting);
        assert_eq!(state_of(&facts(&[true, false], Some((TableState::NotOpen, &[])))), PresenceState::Missing);
        assert_eq!(state_of(&facts(&[true, true], Some((TableState::NotOpen, &[])))), PresenceState::Waiting);
    }

    #[test]
    fn without_a_table_it_waits_if_connected_else_is_idle_in_a_round_and_missing_between_rounds() {
        assert_eq!(state_of(&facts(&[true], None)), PresenceState::Waiting);
        assert_eq!(state_of(&facts(&[false], None)), PresenceState::Idle);
        let mut f = facts(&[false], Some((TableState::Finished, &[])));
        assert_eq!(state_of(&f), PresenceState::Idle);
        f.round_in_play = false;
        assert_eq!(state_of(&f), PresenceState::Missing);
        f.live = false;
        assert_eq!(state_of(&f), PresenceState::Idle);
    }
}
