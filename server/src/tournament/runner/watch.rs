//! The runner's look at the placements of the round in progress
//! (PostgreSQL), and the incidents it records in the tournament's audit
//! trail: a node seen dead with tables of it, each placement lost, each
//! table played again and why.
//!
//! [`verdict`] decides what a placement means for its table; [`Why`] says
//! why a table is played again, in the log and the audit trail alike.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use capicua_protocol::TournamentId;
use capicua_tournament::Tournament;

use super::{Book, Placed};
use crate::AppState;
use crate::db::placements::{CLAIM_WITHIN, Lost, PlacementState, Watched};
use crate::db::tournaments::log::{Incident, TableAt};
use crate::db::{Topology, now_ms};
use crate::tournament::TournamentError;

/// Why a table is played again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// Its room ended without a stored match (a no-show, a room that failed).
    Ended,
    /// Its node died (its node lock is gone), before or after opening it.
    NodeDied {
        /// The node.
        node: i64,
        /// Whether its room was open.
        lost: Lost,
    },
    /// Its node, alive, did not open it within [`CLAIM_WITHIN`].
    Unclaimed {
        /// The node.
        node: i64,
    },
    /// The runner found it without a result and with no room or placement
    /// playing it: the server that ran the tournament before stopped or
    /// died with the table in play.
    Resumed,
}

impl Why {
    /// What happened, for the log and the audit trail.
    pub(super) fn message(self) -> String {
        match self {
            Why::Ended => "its room ended without a stored match; replaying it".into(),
            Why::NodeDied { node, lost: Lost::Unopened } => {
                format!("placement on node {node} lost before its room opened (the node died); placing it again")
            }
            Why::NodeDied { node, lost: Lost::InPlay } => {
                format!("node {node} died with the table in play; replaying it")
            }
            Why::Unclaimed { node } => {
                format!("node {node} did not open the table within {} s; placing it elsewhere", CLAIM_WITHIN.as_secs())
            }
            Why::Resumed => {
                "the server running the tournament before ended with the table in play; replaying it".into()
            }
        }
    }
}

/// What a watched placement means for its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Its match is stored: the result is in the log.
    Settle,
    /// Its room ended without a stored match: the table is played again.
    Replay,
    /// Its node is dead or not taking tables: the placement is to be lost
    /// (and the table played again, if this runner placed it).
    Lose,
    /// A previous scheduler placed it on a live node: this runner watches
    /// it as its own.
    Adopt,
    /// Nothing to do.
    Keep,
}

/// What the placement `w` means, given where the runner's book has its
/// table (`ours`) and whether the table still awaits its result.
pub(super) fn verdict(w: &Watched, ours: Option<Placed>, pending: bool) -> Verdict {
    use PlacementState::{Done, Ended, Open, Placed as Waiting};
    let waiting = matches!(w.state, Waiting | Open);
    let taking = w.node_live && !w.overdue;
    match ours {
        Some(Placed::Placement(p)) if p == w.id => match w.state {
            Done => Verdict::Settle,
            Ended => Verdict::Replay,
            _ if waiting && !taking => Verdict::Lose,
            _ => Verdict::Keep,
        },
        None if waiting && taking && pending => Verdict::Adopt,
        None if waiting && !taking => Verdict::Lose,
        _ => Verdict::Keep,
    }
}

/// Looks at the placements of the round in progress: a done one settles
/// (its result is in the log), an ended one or one whose node died frees
/// its table to be placed again, and one a previous scheduler placed on a
/// live node is adopted. Losses are recorded in the audit trail. Returns
/// whether the log is to be read (a freed table is placed again only if its
/// result is not in the log).
pub(super) async fn watch(
    state: &Arc<AppState>,
    id: TournamentId,
    round: u32,
    t: &Tournament,
    book: &mut Book,
) -> Result<bool, TournamentError> {
    let pending = t.pending_tables();
    let mut fresh = false;
    let mut losses = Vec::new();
    for w in state.db.watch_placements(id, round).await? {
        let ours = book.open.get(&w.table).copied();
        match verdict(&w, ours, pending.contains(&w.table)) {
            Verdict::Settle => {
                book.open.insert(w.table, Placed::Settled);
                fresh = true;
            }
            Verdict::Replay => {
                tracing::warn!(tournament = id, round, table = w.table, "table interrupted; replaying it");
                book.free(w.table, Why::Ended);
                fresh = true;
            }
            Verdict::Lose => {
                let Some(lost) = state.db.lose_placement(w.id).await? else { continue };
                let why =
                    if w.node_live { Why::Unclaimed { node: w.node } } else { Why::NodeDied { node: w.node, lost } };
                tracing::warn!(tournament = id, round, table = w.table, node = w.node, "{}", why.message());
                if ours.is_some() {
                    fresh = true;
                }
                book.free(w.table, why);
                losses.push((w, lost, why));
            }
            Verdict::Adopt => {
                book.open.insert(w.table, Placed::Placement(w.id));
            }
            Verdict::Keep => {}
        }
    }
    let stored = record_losses(state, id, round, losses).await?;
    Ok(fresh || stored)
}

/// Records the placements just lost: a `node-crashed` incident per dead
/// node, with its tables, then a `placement-lost` per placement whose match
/// is not stored. Returns whether one was: the log is to be read.
async fn record_losses(
    state: &AppState,
    id: TournamentId,
    round: u32,
    losses: Vec<(Watched, Lost, Why)>,
) -> Result<bool, TournamentError> {
    if losses.is_empty() {
        return Ok(false);
    }
    let by = state.db.node_id().unwrap_or(0);
    let at = now_ms();
    let mut dead: BTreeMap<i64, Vec<TableAt>> = BTreeMap::new();
    for (w, _, why) in &losses {
        if matches!(why, Why::NodeDied { .. }) {
            dead.entry(w.node).or_default().push(TableAt { round, table: w.table });
        }
    }
    for (node, tables) in dead {
        state.db.record_incident(id, by, &Incident::NodeCrashed { node, tables, seen_at: at }).await?;
    }
    // A node stores a table's match before it marks the placement done: one
    // killed between the two left a result, not a table to play again.
    let stored = state.db.tables_with_results(id, round).await?;
    let mut any_stored = false;
    for (w, lost, why) in losses {
        if stored.contains(&w.table) {
            tracing::info!(
                tournament = id,
                round,
                table = w.table,
                node = w.node,
                "its match was stored as the node died"
            );
            any_stored = true;
            continue;
        }
        let incident = Incident::PlacementLost {
            node: w.node,
            placement: w.id,
            round,
            table: w.table,
            in_play: lost == Lost::InPlay,
            why: why.message(),
            at,
        };
        state.db.record_incident(id, by, &incident).await?;
    }
    Ok(any_stored)
}

/// Records a `table-replayed` incident for each of `tables` (of `round`,
/// about to be placed) that had an attempt before: why (as the book has
/// it, else [`Why::Resumed`]) and which attempt this one is. Only on
/// PostgreSQL: the incidents are those of servers sharing a database (on
/// SQLite the audit trail stays the organiser's controls).
pub(super) async fn record_replays(
    state: &AppState,
    id: TournamentId,
    round: u32,
    tables: &[u32],
    why: &mut HashMap<u32, Why>,
) -> Result<(), TournamentError> {
    if tables.is_empty() || state.db.topology() != Topology::Cluster {
        why.clear();
        return Ok(());
    }
    let attempts: HashMap<u32, i64> = state.db.table_attempts(id, round).await?.into_iter().collect();
    let by = state.db.node_id().unwrap_or(0);
    for &table in tables {
        let before = attempts.get(&table).copied().unwrap_or(0);
        let reason = why.remove(&table).unwrap_or(Why::Resumed);
        if before == 0 {
            continue;
        }
        let incident =
            Incident::TableReplayed { round, table, why: reason.message(), attempt: before + 1, at: now_ms() };
        state.db.record_incident(id, by, &incident).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched(state: PlacementState, node_live: bool, overdue: bool) -> Watched {
        Watched { id: 7, table: 2, state, node: 3, node_live, overdue }
    }

    #[test]
    fn a_placement_of_a_dead_node_is_lost_whoever_placed_it() {
        let mine = Some(Placed::Placement(7));
        for state in [PlacementState::Placed, PlacementState::Open] {
            assert_eq!(verdict(&watched(state, false, false), mine, true), Verdict::Lose);
            assert_eq!(verdict(&watched(state, false, false), None, true), Verdict::Lose, "a previous scheduler's");
            assert_eq!(verdict(&watched(state, true, false), mine, true), Verdict::Keep, "its node lives");
        }
        assert_eq!(verdict(&watched(PlacementState::Placed, true, true), mine, true), Verdict::Lose, "unclaimed");
    }

    #[test]
    fn a_live_nodes_placement_is_adopted_settled_or_replayed() {
        let mine = Some(Placed::Placement(7));
        assert_eq!(verdict(&watched(PlacementState::Open, true, false), None, true), Verdict::Adopt);
        assert_eq!(verdict(&watched(PlacementState::Open, true, false), None, false), Verdict::Keep, "result stored");
        assert_eq!(verdict(&watched(PlacementState::Done, true, false), mine, true), Verdict::Settle);
        assert_eq!(verdict(&watched(PlacementState::Ended, true, false), mine, true), Verdict::Replay);
        assert_eq!(verdict(&watched(PlacementState::Done, false, false), mine, true), Verdict::Settle, "stored first");
        let other = Some(Placed::Placement(6));
        assert_eq!(verdict(&watched(PlacementState::Ended, true, false), other, true), Verdict::Keep, "an old one");
    }

    #[test]
    fn a_table_that_never_opened_is_not_called_interrupted() {
        let unopened = Why::NodeDied { node: 4, lost: Lost::Unopened }.message();
        assert!(unopened.contains("node 4 lost before its room opened"), "{unopened}");
        assert!(!unopened.contains("interrupted"), "{unopened}");
        let in_play = Why::NodeDied { node: 4, lost: Lost::InPlay }.message();
        assert!(in_play.contains("node 4 died with the table in play"), "{in_play}");
        assert!(Why::Unclaimed { node: 5 }.message().contains("node 5 did not open the table within 3 s"));
        assert!(Why::Ended.message().contains("ended without a stored match"));
    }
}
