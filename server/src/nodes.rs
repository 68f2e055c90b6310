//! This server as one node among the servers of a database: its beat
//! (load and listed rooms, every [`BEAT`]), the lobby of every live node,
//! and where a room of another node lives. On SQLite one server has the
//! file, so the lobby is its own and its beat carries no rooms.

use std::sync::Arc;

use capicua_protocol::RoomInfo;

use crate::AppState;
use crate::db::nodes::{BEAT, Beat, Held, NodeLock};
use crate::db::{DbError, Topology};

/// The lobby: this server's listed rooms, then those of every other live
/// node on the database as of its last beat, each with `node` set to the
/// URL to join it at. Another node's lobby that cannot be read is left
/// out: a lobby never fails for a peer's sake.
pub(crate) async fn lobby(state: &AppState) -> Vec<RoomInfo> {
    let mut list = state.lobby.listed();
    if state.db.topology() != Topology::Cluster {
        return list;
    }
    match state.db.other_lobbies().await {
        Ok(others) => {
            for (url, json) in others {
                match serde_json::from_str::<Vec<RoomInfo>>(&json) {
                    Ok(rooms) => list.extend(rooms.into_iter().map(|r| RoomInfo { node: Some(url.clone()), ..r })),
                    Err(e) => tracing::warn!(node = %url, error = %e, "another node's lobby does not parse"),
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "reading the other nodes' lobbies"),
    }
    list
}

/// Records this server as a node reached at `url`, takes its node lock
/// (PostgreSQL: the other nodes count it live while the database shows the
/// lock held) and beats until the server shuts down, checking the lock at
/// each beat and taking it again if its connection was lost.
pub(crate) async fn join(state: &Arc<AppState>, url: &str) -> Result<(), DbError> {
    let id = state.db.register_node(url).await?;
    let mut lock = state.db.lock_node().await?;
    tracing::info!(node = id, url, "serving as a node of the database");
    let state = state.clone();
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        let mut every = tokio::time::interval(BEAT);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut held = true;
        loop {
            tokio::select! {
                _ = every.tick() => {}
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
            if let Some(lock) = &mut lock {
                held = keep_lock(lock, id, held).await;
            }
            let rooms = state.lobby.room_count() as i64;
            let connections = state.lobby.connections() as i64;
            // Only another node reads the lobby: on SQLite there is none.
            let (rooms_json, players_json) = if state.db.topology() == Topology::Cluster {
                (
                    serde_json::to_string(&state.lobby.listed()).unwrap_or_else(|_| "[]".into()),
                    serde_json::to_string(&state.lobby.acting_players()).unwrap_or_else(|_| "[]".into()),
                )
            } else {
                ("[]".into(), "[]".into())
            };
            let scheduler = state.scheduler.load(std::sync::atomic::Ordering::Relaxed);
            let beat = Beat { rooms, connections, rooms_json: &rooms_json, players_json: &players_json, scheduler };
            if let Err(e) = state.db.beat(&beat).await {
                tracing::warn!(error = %e, "the node's beat failed");
            }
        }
    });
    Ok(())
}

/// Checks the node lock, saying when it is lost and when it is held again
/// (`held`: as the last check found it); returns whether it is held.
/// Without it the other nodes count this one dead, its tables are played
/// elsewhere and it takes no new ones (see `Db::placed_here`).
async fn keep_lock(lock: &mut NodeLock, node: i64, held: bool) -> bool {
    match lock.keep().await {
        Held::Still => true,
        Held::Again => {
            tracing::info!(node, "this node holds its lock on the database again: it takes tables");
            true
        }
        Held::Lost => {
            if held {
                tracing::warn!(
                    node,
                    "this node lost its lock on the database: the other nodes count it dead and it takes no tables"
                );
            }
            false
        }
    }
}
