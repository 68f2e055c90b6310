//! Rooms as the lobby and their members see them: seats, occupants, clock
//! and timeout policy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::RoomId;

/// A room's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct TimeControl {
    /// Milliseconds per move before the bank is used.
    pub move_ms: u64,
    /// A per-seat bank of extra milliseconds for the whole match (0: none).
    #[serde(default)]
    pub bank_ms: u64,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl { move_ms: 30_000, bank_ms: 0 }
    }
}

/// What the referee does for a seat whose time ran out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TimeoutPolicy {
    /// Plays a legal move chosen by a named strategy.
    Strategy {
        /// The strategy's name.
        name: String,
    },
    /// Passes where passing is legal; otherwise plays as the `random` strategy.
    Pass,
    /// The seat's side forfeits the match.
    Forfeit,
}

impl Default for TimeoutPolicy {
    fn default() -> Self {
        TimeoutPolicy::Strategy { name: "random".into() }
    }
}

/// A room as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct RoomInfo {
    /// The id.
    pub id: RoomId,
    /// The variant's name.
    pub variant: String,
    /// The room plays tiles with 3, 4 or 6 faces: its game messages carry
    /// `"family": "poly"` (otherwise `"family": "tiles"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub poly: bool,
    /// Every seat, in order.
    pub seats: Vec<SeatInfo>,
    /// Waiting, playing or closed.
    pub status: RoomStatus,
    /// Whether the room is rated.
    pub rated: bool,
    /// Spectators watching.
    pub spectators: u32,
    /// The clock.
    pub time: TimeControl,
    /// The timeout policy.
    pub on_timeout: TimeoutPolicy,
    /// Matches finished in this room.
    pub games_played: u32,
    /// The room deals from a seed its creator chose: whoever knows the seed
    /// knows every hand, so such a room is for practice and bot testing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seeded: bool,
    /// The room is private: unlisted, joined by invite only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
    /// A private room's invite id (a random UUID v4): only in the reply to
    /// `create-room` (and `POST /api/rooms`), for its creator to pass on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
    /// The base URL of the server that hosts the room, when that is not the
    /// server answering (several servers on one database): join it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// A room's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RoomStatus {
    /// Seats being filled or readied.
    Waiting,
    /// A match is in play.
    Playing,
    /// Closed; it will disappear.
    Closed,
}

/// One seat of a room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct SeatInfo {
    /// The seat number.
    pub seat: u8,
    /// The side (team) it scores for.
    pub side: u8,
    /// Who sits there, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupant: Option<Occupant>,
}

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Occupant {
    /// The player's name (or the hosted strategy's).
    pub name: String,
    /// Player, guest or hosted bot.
    pub kind: OccupantKind,
    /// Ready for the next match.
    pub ready: bool,
    /// Currently connected (hosted bots always are).
    pub connected: bool,
}

/// The kind of a seat's occupant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OccupantKind {
    /// A registered player (human or remote bot).
    Player,
    /// An unregistered guest.
    Guest,
    /// A bot hosted by the server.
    HostedBot,
}

impl OccupantKind {
    /// Its name on the wire (and in the database).
    pub fn as_str(self) -> &'static str {
        match self {
            OccupantKind::Player => "player",
            OccupantKind::Guest => "guest",
            OccupantKind::HostedBot => "hosted-bot",
        }
    }
}

impl std::fmt::Display for OccupantKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}
