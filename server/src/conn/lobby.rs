//! The families of messages that name no room: the lobby (`list-rooms`,
//! `create-room`), tournaments (`await-assignments`,
//! `subscribe-tournament`) and the ladder (`join-ladder`, `leave-ladder`).

use capicua_protocol::{ClientMsg, ErrorCode, ServerMsg};

use super::Conn;
use crate::Client;
use crate::limits::RoomOwner;
use crate::room;

impl Conn {
    /// `list-rooms` and `create-room`.
    pub(super) async fn on_lobby(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
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
                    (false, None) => room::Creator::Owner(room::Owner::Guest(self.id)),
                };
                match room::create(&self.state, *spec, owner, creator).await {
                    Ok(info) => {
                        self.out.send(id, ServerMsg::Room { room: info });
                    }
                    Err(e) => self.error(id, e.code(), e.to_string()),
                }
            }
            _ => unreachable!("routed to the lobby: {msg:?}"),
        }
    }

    /// `await-assignments` and `subscribe-tournament`.
    pub(super) async fn on_tournament(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
        match msg {
            ClientMsg::AwaitAssignments => crate::tournament::await_assignments(&self.state, client, id),
            ClientMsg::SubscribeTournament { tournament } => {
                crate::tournament::subscribe(&self.state, client, tournament, id).await
            }
            _ => unreachable!("routed to tournaments: {msg:?}"),
        }
    }

    /// `join-ladder` and `leave-ladder`.
    pub(super) async fn on_ladder(&mut self, id: Option<u64>, client: &Client, msg: ClientMsg) {
        match msg {
            ClientMsg::JoinLadder { variant } => crate::matchmaking::join(&self.state, client, variant, id).await,
            ClientMsg::LeaveLadder => crate::matchmaking::leave(&self.state, client, id),
            _ => unreachable!("routed to the ladder: {msg:?}"),
        }
    }
}
