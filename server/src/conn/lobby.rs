//! The families of messages that name no room: the lobby (`list-rooms`,
//! `create-room`), tournaments (`await-assignments`,
//! `subscribe-tournament`) and the ladder (`join-ladder`, `leave-ladder`).

use capicua_protocol::{ClientMsg, ErrorCode, ServerMsg};

use super::Conn;

/// Requests a second that read the database or the whole lobby, after a
/// burst of [`SLOW_BURST`]: far fewer than moves, which cost a room a few
/// microseconds.
pub(super) const SLOW_PER_SEC: u32 = 10;
/// The burst of those requests.
pub(super) const SLOW_BURST: u32 = 20;
use crate::Client;
use crate::limits::RoomOwner;
use crate::room;

impl Conn {
    /// `list-rooms` and `create-room`.
    pub(super) async fn on_lobby(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
        if matches!(msg, ClientMsg::ListRooms) && !self.spend_slow(id) {
            return;
        }
        match msg {
            ClientMsg::ListRooms => {
                let list = crate::nodes::lobby(&self.state).await;
                self.out.send(id, ServerMsg::Rooms { rooms: list });
            }
            ClientMsg::CreateRoom(spec) => {
                if spec.rated && client.ident.player_id.is_none() && !client.ident.admin {
                    return self.error(id, ErrorCode::Unauthorized, "only registered players create rated rooms");
                }
                let owner = RoomOwner::of(client.ident.player_id, client.ident.admin, self.peer);
                let creator = match (client.ident.admin, client.ident.player_id) {
                    (true, _) => room::Creator::Admin,
                    (false, Some(p)) => room::Creator::Owner(room::Owner::Player(p)),
                    (false, None) => room::Creator::Owner(client.ident.owner(self.id)),
                };
                match room::create(&self.state, *spec, owner, self.peer, creator).await {
                    Ok(info) => {
                        self.out.send(id, ServerMsg::Room { room: info });
                    }
                    Err(e) => self.error(id, e.code(), e.to_string()),
                }
            }
            _ => unreachable!("routed to the lobby: {msg:?}"),
        }
    }

    /// Takes a token of the slower bucket of requests that read the
    /// database or the whole lobby (`subscribe-tournament`, `list-rooms`):
    /// false, with `rate-limited` sent, over it.
    fn spend_slow(&mut self, id: Option<u64>) -> bool {
        if self.slow.take() {
            return true;
        }
        let message = format!(
            "at most {SLOW_PER_SEC} list-rooms and subscribe-tournament a second after {SLOW_BURST} in a row; wait a moment"
        );
        self.error(id, ErrorCode::RateLimited, message);
        false
    }

    /// `await-assignments` and `subscribe-tournament`.
    pub(super) async fn on_tournament(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
        match msg {
            ClientMsg::AwaitAssignments => crate::tournament::await_assignments(&self.state, client, id),
            ClientMsg::SubscribeTournament { tournament } => {
                if self.spend_slow(id) {
                    crate::tournament::subscribe(&self.state, client, tournament, id).await
                }
            }
            _ => unreachable!("routed to tournaments: {msg:?}"),
        }
    }

    /// `join-ladder` and `leave-ladder`; `seek` and `cancel-seek` (Play now).
    pub(super) async fn on_ladder(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
        match msg {
            ClientMsg::JoinLadder { variant } => crate::matchmaking::join(&self.state, client, variant, id).await,
            ClientMsg::LeaveLadder => crate::matchmaking::leave(&self.state, client, id),
            ClientMsg::Seek { preset, seats, rated } => {
                crate::play_now::seek(&self.state, client, preset, seats, rated, id).await
            }
            ClientMsg::CancelSeek => crate::play_now::cancel(&self.state, client, id),
            _ => unreachable!("routed to the ladder: {msg:?}"),
        }
    }
}
