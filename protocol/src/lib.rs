#![doc = include_str!("../README.md")]
//!
//! ## Where to start
//!
//! - [`ClientMsg::Hello`] opens a connection, with [`PROTOCOL_VERSION`];
//!   [`ErrorCode::VersionMismatch`] answers another version.
//! - [`ServerMsg::Prompt`] asks a seat to move; [`ClientMsg::Move`] answers
//!   it (built by [`ClientMsg::play`]), and [`ClientMsg::Resync`] asks for
//!   the current state after a gap in `seq`.
//! - [`Family`] tags every game payload: [`tiles`] or [`poly`].
//! - [`json_schema`] describes every frame for clients in other languages.

mod client;
mod decode;
mod errors;
mod family;
mod ids;
mod names;
pub mod poly;
mod room;
mod server;
pub mod tiles;
mod tournament;

pub use client::{ClientFrame, ClientMsg, PROTOCOL_VERSION, RoomSpec};
pub use decode::{DecodeError, TAG_KEYS, decode_client, decode_strict, non_string_tag};
pub use errors::{ErrorCode, close};
pub use family::{AnyMove, Family};
pub use ids::{GameId, PromptId, RoomId, TournamentId};
pub use names::{MAX_NAME_CHARS, check_name, name_key};
pub use room::{Occupant, OccupantKind, RoomInfo, RoomStatus, SeatInfo, TimeControl, TimeoutPolicy};
pub use server::{GameResult, HintMove, PlayerInfo, SeatRef, ServerFrame, ServerMsg};
pub use tournament::{Assignment, Progress, TournamentStatus};

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
