//! What a room is asked to do, and by whom: one command type, from the
//! connection (or the server) to the room's core.
//!
//! It stands beside `room` rather than in it: the lobby holds each room's
//! channel of commands, and a room reads the lobby.

use capicua_protocol::PromptId;
use tokio::sync::oneshot;

use crate::table::AnyMove;
use crate::{Client, ConnId};

/// Who sent a command that either a member or the server may send.
pub enum From {
    /// A connection, acting for its identity (checked by the connection).
    Member(Client),
    /// The server itself: a tournament closing its table, shutdown.
    System,
}

/// A command for a room. Commands only a member may send carry the member's
/// [`Client`]; the core keeps who it is, the room task its outbox.
pub enum RoomCmd {
    /// Take a seat.
    Join {
        /// Who.
        client: Client,
        /// Which seat, or any.
        seat: Option<u8>,
        /// Request id to echo.
        id: Option<u64>,
    },
    /// Leave the seat or the spectators.
    Leave {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Watch.
    Spectate {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Free a seat before the match (the creator or the admin).
    Unseat {
        /// Who asks.
        client: Client,
        /// The seat.
        seat: u8,
        /// Request id.
        id: Option<u64>,
    },
    /// Fill empty seats with hosted bots.
    FillBots {
        /// Who asks.
        client: Client,
        /// Strategy name.
        strategy: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Say something to everyone in the room (checked for length and
    /// rate by the connection).
    Chat {
        /// Who.
        client: Client,
        /// What.
        text: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Ready for the next match, or (during one) done reading a hand's end.
    Ready {
        /// Who.
        client: Client,
        /// The seat reads each hand's end (set when a match starts).
        reads: bool,
        /// Request id.
        id: Option<u64>,
    },
    /// A move answering a prompt.
    Move {
        /// Who.
        client: Client,
        /// The prompt answered.
        prompt: PromptId,
        /// The move, of the room's family.
        mv: AnyMove,
        /// Request id.
        id: Option<u64>,
    },
    /// What the strongest bot would play at the pending prompt.
    Hint {
        /// Who asks.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Send the current state (and the pending prompt) again.
    Resync {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Close the room: an admin (checked by the connection) or the server.
    Close {
        /// Who closes it.
        from: From,
        /// Request id.
        id: Option<u64>,
    },
    /// A player reconnected: give its seats back to this connection.
    Reattach {
        /// The new connection.
        client: Client,
        /// The seats given back.
        reply: oneshot::Sender<Vec<u8>>,
    },
    /// A guest connection registered: the seats it holds as a guest now
    /// belong to the player it acts for.
    Promote {
        /// The connection, with its new identity.
        client: Client,
    },
    /// A connection ended.
    Disconnected {
        /// Which.
        conn: ConnId,
    },
    /// The server is shutting down.
    Shutdown,
}

impl RoomCmd {
    /// The connection that sent the command, if a member did.
    pub(crate) fn client(&self) -> Option<&Client> {
        match self {
            RoomCmd::Join { client, .. }
            | RoomCmd::Leave { client, .. }
            | RoomCmd::Spectate { client, .. }
            | RoomCmd::FillBots { client, .. }
            | RoomCmd::Unseat { client, .. }
            | RoomCmd::Chat { client, .. }
            | RoomCmd::Ready { client, .. }
            | RoomCmd::Move { client, .. }
            | RoomCmd::Hint { client, .. }
            | RoomCmd::Resync { client, .. }
            | RoomCmd::Close { from: From::Member(client), .. }
            | RoomCmd::Reattach { client, .. }
            | RoomCmd::Promote { client } => Some(client),
            RoomCmd::Close { from: From::System, .. } | RoomCmd::Disconnected { .. } | RoomCmd::Shutdown => None,
        }
    }
}
