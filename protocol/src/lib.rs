//! # capicua-protocol
//!
//! The wire protocol between the capicua server and its clients (humans,
//! remote bots, spectators): JSON text frames over a WebSocket, one message
//! per frame, tagged by `type`. Both sides use these serde types, so the
//! server and the Rust bot client cannot drift apart; other languages use the
//! JSON Schema printed by `capicua-server schema` and `PROTOCOL.md`.
//!
//! Rules of the road:
//! - The first client message is [`ClientMsg::Hello`] with
//!   [`PROTOCOL_VERSION`]; a mismatch is answered with
//!   [`ErrorCode::VersionMismatch`] and the connection is closed.
//! - Every client frame may carry an `id`; the server echoes it in the reply
//!   (a [`ServerFrame`] with the same `id`).
//! - Every error carries a machine-readable [`ErrorCode`] and a human message.
//! - A room plays one of two tile families: two-faced dominoes
//!   ([`tiles`]) or tiles with 3, 4 or 6 faces ([`poly`]). The game
//!   messages are the same for both; their game payload is a [`Family`],
//!   tagged on the wire by `"family": "tiles"` or `"family": "poly"`.
//! - A [`ServerMsg::Prompt`] carries the seat's view, its legal moves and a
//!   prompt id; a [`ClientMsg::Move`] must echo that id, so a stale or
//!   duplicated move is rejected instead of being applied to another turn.
//! - Game messages of a room carry a per-room sequence number `seq` that
//!   grows by one per broadcast; a gap means missed events, and
//!   [`ClientMsg::Resync`] asks for the current state.
//! - Every key and every enumerated value on the wire is kebab-case, in
//!   these messages and in the engine's payloads inside them.
//!
//! ```
//! use capicua_protocol::{ClientFrame, ClientMsg, PROTOCOL_VERSION};
//! let hello = ClientFrame::new(
//!     Some(1),
//!     ClientMsg::Hello { version: PROTOCOL_VERSION, token: None, lean_prompts: false, batch_events: false },
//! );
//! let json = serde_json::to_string(&hello).unwrap();
//! assert_eq!(json, r#"{"id":1,"type":"hello","version":2}"#);
//! let back: ClientFrame = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, hello);
//! ```
//!
//! A bot answers a prompt of either family the same way:
//!
//! ```
//! use capicua_protocol::{ClientMsg, Family, ServerMsg};
//! fn answer(msg: &ServerMsg) -> Option<ClientMsg> {
//!     let ServerMsg::Prompt { room, prompt, turn, .. } = msg else { return None };
//!     Some(match turn {
//!         Family::Tiles(t) => ClientMsg::play(*room, *prompt, t.legal_moves[0]),
//!         Family::Poly(p) => ClientMsg::play(*room, *prompt, p.legal_moves[0]),
//!     })
//! }
//! let prompt = r#"{"type":"prompt","room":1,"prompt":3,"seat":0,"deadline-ms":900,
//!     "family":"tiles","legal-moves":[{"kind":"draw"}]}"#;
//! let reply = answer(&serde_json::from_str(prompt).unwrap()).unwrap();
//! assert_eq!(
//!     serde_json::to_string(&reply).unwrap(),
//!     r#"{"type":"move","room":1,"prompt":3,"family":"tiles","move":{"kind":"draw"}}"#
//! );
//! ```

mod client;
mod decode;
mod errors;
mod family;
mod ids;
pub mod poly;
mod room;
mod server;
pub mod tiles;
mod tournament;

pub use client::{ClientFrame, ClientMsg, RoomSpec};
pub use decode::{DecodeError, TAG_KEYS, decode_client, decode_strict, non_string_tag};
pub use errors::{ErrorCode, close};
pub use family::{AnyMove, Family};
pub use ids::{GameId, PromptId, RoomId, TournamentId};
pub use room::{Occupant, OccupantKind, RoomInfo, RoomStatus, SeatInfo, TimeControl, TimeoutPolicy};
pub use server::{GameResult, HintMove, PlayerInfo, SeatRef, ServerFrame, ServerMsg};
pub use tournament::{Assignment, Progress, TournamentStatus};

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 2;

/// The largest text frame the server accepts, in bytes.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// The longest `chat` text, in characters (Unicode scalar values).
pub const MAX_CHAT_CHARS: usize = 200;

/// `chat` messages a connection may send a second, on average...
pub const CHAT_PER_SEC: u32 = 1;

/// ...and in a burst after a quiet spell.
pub const CHAT_BURST: u32 = 5;
/// Chat lines a second in one room, all its members together: each line
/// goes to every member, so a crowd of talkers would cost the server the
/// square of its size.
pub const ROOM_CHAT_PER_SEC: u32 = 5;
/// A room's burst of chat lines.
pub const ROOM_CHAT_BURST: u32 = 10;

/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 32;

/// Checks a name a player asks to register, by the rules every way of
/// registering applies (`register` over the wire and the command line):
/// 1 to [`MAX_NAME_CHARS`] ASCII letters, digits, `-`, `_` or `.`; not
/// `admin` and not starting with `guest-`, the names the server gives to
/// the admin and to guests. The error says the rules, for people.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    let ok_chars = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if name.is_empty() || name.len() > MAX_NAME_CHARS || !ok_chars || name.starts_with("guest-") || name == "admin" {
        return Err("names are 1 to 32 letters, digits, '-', '_' or '.', not 'admin' nor 'guest-*'");
    }
    Ok(())
}

/// The JSON Schemas of every client and server frame, as one JSON document
/// `{"protocol-version": 2, "client": ..., "server": ...}`.
pub fn json_schema() -> serde_json::Value {
    serde_json::json!({
        "protocol-version": PROTOCOL_VERSION,
        "client": schemars::schema_for!(ClientFrame),
        // What the server sends is described as it serializes (defaults
        // and aliases only matter to a reader).
        "server": schemars::generate::SchemaSettings::default()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<ServerFrame>(),
    })
}
