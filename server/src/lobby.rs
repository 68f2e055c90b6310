//! The lobby: the open rooms, the rooms where each registered player holds
//! a seat, the connection acting for each registered player, and the cap
//! on open WebSocket connections.
//!
//! Each map sits behind a std `Mutex` held only to read or change it, never
//! across an `.await`, so it never blocks a worker for long; no method holds
//! two of them at once.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use capicua_protocol::{RoomId, RoomInfo};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};

use crate::ConnId;
use crate::client::Owner;
use crate::room_cmd::RoomCmd;

/// A running room, as the lobby holds it.
#[derive(Clone)]
pub struct RoomHandle {
    /// Commands to the room task.
    pub tx: mpsc::UnboundedSender<RoomCmd>,
    /// The room's lobby entry, updated by the room task.
    pub info: Arc<Mutex<RoomInfo>>,
    /// A private room's invite id: the only way to join it.
    pub invite: Option<String>,
}

/// The connection acting for a registered player, with the signal that
/// tells it a newer connection with the same token replaced it.
pub(crate) struct Acting {
    pub(crate) conn: ConnId,
    pub(crate) replaced: Arc<Notify>,
}

/// Open rooms, seats by player, the acting connection of each player, and
/// the permits of open connections.
pub(crate) struct Lobby {
    rooms: Mutex<HashMap<RoomId, RoomHandle>>,
    /// Rooms where each registered player holds a seat (for reconnects).
    seats: Mutex<HashMap<Owner, HashSet<RoomId>>>,
    acting: Mutex<HashMap<i64, Acting>>,
    /// One permit per open WebSocket connection.
    permits: Arc<Semaphore>,
    max_connections: usize,
}

impl Lobby {
    /// An empty lobby admitting up to `max_connections` connections at once.
    pub(crate) fn new(max_connections: usize) -> Lobby {
        Lobby {
            rooms: Mutex::default(),
            seats: Mutex::default(),
            acting: Mutex::default(),
            permits: Arc::new(Semaphore::new(max_connections)),
            max_connections,
        }
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<RoomId, RoomHandle>> {
        self.rooms.lock().expect("rooms lock")
    }

    /// The handle of a room.
    pub(crate) fn room(&self, id: RoomId) -> Option<RoomHandle> {
        self.rooms().get(&id).cloned()
    }

    /// Lists a room that just opened.
    pub(crate) fn insert_room(&self, id: RoomId, handle: RoomHandle) {
        self.rooms().insert(id, handle);
    }

    /// Drops a room that closed.
    pub(crate) fn remove_room(&self, id: RoomId) {
        self.rooms().remove(&id);
    }

    /// How many rooms are open.
    pub(crate) fn room_count(&self) -> usize {
        self.rooms().len()
    }

    /// Every open room's handle (to tell them all something).
    pub(crate) fn handles(&self) -> Vec<RoomHandle> {
        self.rooms().values().cloned().collect()
    }

    /// Whether room `id` is open and private (reached by invite only).
    pub(crate) fn is_private(&self, id: RoomId) -> bool {
        self.rooms().get(&id).is_some_and(|h| h.invite.is_some())
    }

    /// The open room with this invite.
    pub(crate) fn by_invite(&self, invite: &str) -> Option<RoomId> {
        self.rooms().iter().find(|(_, h)| h.invite.as_deref() == Some(invite)).map(|(id, _)| *id)
    }

    /// The listed rooms (private ones are reached by invite), by id.
    pub(crate) fn listed(&self) -> Vec<RoomInfo> {
        // The room infos are read after the lobby's lock is released: a
        // room task may hold its own while it waits for nothing else.
        let infos: Vec<_> = self.rooms().values().filter(|h| h.invite.is_none()).map(|h| h.info.clone()).collect();
        let mut list: Vec<_> = infos.iter().map(|i| i.lock().expect("room info lock").clone()).collect();
        list.sort_by_key(|r| r.id);
        list
    }

    /// Records that `player` (or a guest) holds a seat in `room`.
    pub(crate) fn seat(&self, player: Owner, room: RoomId) {
        self.seats.lock().expect("seats lock").entry(player).or_default().insert(room);
    }

    /// Records that `player` no longer holds a seat in `room`.
    pub(crate) fn unseat(&self, player: Owner, room: RoomId) {
        let mut by_player = self.seats.lock().expect("seats lock");
        if let Some(set) = by_player.get_mut(&player) {
            set.remove(&room);
            if set.is_empty() {
                by_player.remove(&player);
            }
        }
    }

    /// The rooms where `player` holds a seat.
    pub(crate) fn seats_of(&self, player: Owner) -> Vec<RoomId> {
        self.seats.lock().expect("seats lock").get(&player).map(|s| s.iter().copied().collect()).unwrap_or_default()
    }

    /// Makes `now` the connection acting for `player`; the one it replaces,
    /// if another, is returned (to be told to close).
    pub(crate) fn take_over(&self, player: i64, now: Acting) -> Option<Acting> {
        let conn = now.conn;
        self.acting.lock().expect("acting lock").insert(player, now).filter(|old| old.conn != conn)
    }

    /// Whether a connection of this server acts for `player` (a live
    /// WebSocket that said hello with the player's token).
    pub(crate) fn is_acting(&self, player: i64) -> bool {
        self.acting.lock().expect("acting lock").contains_key(&player)
    }

    /// The players a connection of this server acts for.
    pub(crate) fn acting_players(&self) -> Vec<i64> {
        self.acting.lock().expect("acting lock").keys().copied().collect()
    }

    /// Forgets `conn` as the connection acting for `player`, unless a newer
    /// one took over.
    pub(crate) fn release(&self, player: i64, conn: ConnId) {
        let mut acting = self.acting.lock().expect("acting lock");
        if acting.get(&player).is_some_and(|a| a.conn == conn) {
            acting.remove(&player);
        }
    }

    /// A permit for one more open connection, `None` at the cap; the
    /// connection counts until the permit is dropped.
    pub(crate) fn admit(&self) -> Option<OwnedSemaphorePermit> {
        self.permits.clone().try_acquire_owned().ok()
    }

    /// How many connections are open (hold a permit).
    pub(crate) fn connections(&self) -> usize {
        self.max_connections - self.permits.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_kept_per_player_until_the_last_one_goes() {
        let lobby = Lobby::new(1);
        lobby.seat(Owner::Player(7), 1);
        lobby.seat(Owner::Player(7), 2);
        lobby.unseat(Owner::Player(7), 1);
        assert_eq!(lobby.seats_of(Owner::Player(7)), [2]);
        lobby.unseat(Owner::Player(7), 2);
        assert!(lobby.seats_of(Owner::Player(7)).is_empty());
        assert!(lobby.seats.lock().unwrap().is_empty(), "no empty set is left behind");
    }

    #[test]
    fn a_newer_connection_takes_over_and_the_older_one_cannot_release_it() {
        let lobby = Lobby::new(1);
        let acting = |conn| Acting { conn, replaced: Arc::new(Notify::new()) };
        assert!(lobby.take_over(5, acting(1)).is_none());
        assert!(lobby.take_over(5, acting(1)).is_none(), "the same connection again replaces no one");
        assert_eq!(lobby.take_over(5, acting(2)).map(|a| a.conn), Some(1));
        lobby.release(5, 1);
        assert_eq!(lobby.acting.lock().unwrap()[&5].conn, 2);
        lobby.release(5, 2);
        assert!(lobby.acting.lock().unwrap().is_empty());
    }

    #[test]
    fn connections_count_the_permits_held() {
        let lobby = Lobby::new(2);
        let a = lobby.admit().expect("first");
        let _b = lobby.admit().expect("second");
        assert!(lobby.admit().is_none(), "at the cap");
        assert_eq!(lobby.connections(), 2);
        drop(a);
        assert_eq!(lobby.connections(), 1);
    }
}
