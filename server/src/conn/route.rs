//! Which family of handlers a client message goes to: a pure function of
//! the message, so that adding a message to the protocol means choosing
//! its family here (the match names every message).

use capicua_protocol::ClientMsg;

/// A family of client messages, each with its handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// `hello`, `ping`, `register`: who the connection is (`session.rs`).
    Session,
    /// `list-rooms`, `create-room`: the lobby (`lobby.rs`).
    Lobby,
    /// A command to one room, forwarded to its task (hints included: the
    /// room knows the prompt a hint is for).
    Room,
    /// `await-assignments`, `subscribe-tournament` (`lobby.rs`).
    Tournament,
    /// `join-ladder`, `leave-ladder`, `seek`, `cancel-seek` (`lobby.rs`).
    Ladder,
}

/// The family of `msg`.
pub(super) fn route(msg: &ClientMsg) -> Route {
    match msg {
        ClientMsg::Hello { .. } | ClientMsg::Ping | ClientMsg::Register { .. } => Route::Session,
        ClientMsg::ListRooms | ClientMsg::CreateRoom(_) => Route::Lobby,
        ClientMsg::Chat { .. }
        | ClientMsg::Join { .. }
        | ClientMsg::Leave { .. }
        | ClientMsg::Spectate { .. }
        | ClientMsg::FillBots { .. }
        | ClientMsg::Unseat { .. }
        | ClientMsg::Ready { .. }
        | ClientMsg::Move { .. }
        | ClientMsg::Resync { .. }
        | ClientMsg::Hint { .. }
        | ClientMsg::CloseRoom { .. } => Route::Room,
        ClientMsg::AwaitAssignments | ClientMsg::SubscribeTournament { .. } => Route::Tournament,
        ClientMsg::JoinLadder { .. } | ClientMsg::LeaveLadder | ClientMsg::Seek { .. } | ClientMsg::CancelSeek => {
            Route::Ladder
        }
    }
}

#[cfg(test)]
mod tests {
    use capicua_protocol::decode_client;

    use super::*;

    fn of(frame: &str) -> Route {
        route(&decode_client(frame).expect("a valid frame").msg)
    }

    #[test]
    fn each_family_has_its_messages() {
        assert_eq!(of(r#"{"type":"hello","version":2}"#), Route::Session);
        assert_eq!(of(r#"{"type":"ping"}"#), Route::Session);
        assert_eq!(of(r#"{"type":"register","name":"ana"}"#), Route::Session);
        assert_eq!(of(r#"{"type":"list-rooms"}"#), Route::Lobby);
        assert_eq!(of(r#"{"type":"join","room":3}"#), Route::Room);
        assert_eq!(of(r#"{"type":"hint","room":3}"#), Route::Room);
        assert_eq!(of(r#"{"type":"unseat","room":3,"seat":1}"#), Route::Room);
        assert_eq!(of(r#"{"type":"chat","room":3,"text":"hi"}"#), Route::Room);
        assert_eq!(of(r#"{"type":"await-assignments"}"#), Route::Tournament);
        assert_eq!(of(r#"{"type":"leave-ladder"}"#), Route::Ladder);
    }
}
