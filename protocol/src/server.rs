//! What the server sends: its frames and their payloads common to both
//! tile families.

use capicua_engine::Move;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::family::Family;
use crate::room::RoomInfo;
use crate::tiles::MoveShape;
use crate::tournament::{Assignment, Progress};
use crate::{ErrorCode, GameId, PromptId, RoomId, TournamentId, poly, tiles};

/// A frame sent by the server: the echoed request id, if it answers one,
/// and a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerFrame {
    /// The `id` of the client frame this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The message.
    #[serde(flatten)]
    pub msg: ServerMsg,
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum ServerMsg {
    /// Answer to `hello`.
    Welcome {
        /// The server's protocol version.
        version: u32,
        /// Who this connection acts for.
        player: PlayerInfo,
        /// Rooms where this player holds a seat (after a reconnect: seats
        /// given back, prompts follow).
        #[serde(default)]
        seats: Vec<SeatRef>,
        /// Where people open this server's pages (its `--public-url`, or
        /// `http://` and the address it listens on): a bot prints its game
        /// links from it, not from the address it connected to (a container's
        /// host name, say).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        site: Option<String>,
        /// To a guest: its session, secret. A later `hello` with it as the
        /// `token` (within the server's reconnect grace of the last
        /// connection closing) is the same guest, by name and seats: a
        /// reloaded page keeps its seat. A session the server no longer
        /// knows gives a new guest, not an error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        guest_session: Option<String>,
    },
    /// Answer to `register`: keep the token secret, it is shown only once.
    Registered {
        /// The registered name.
        name: String,
        /// The secret token for `hello`.
        token: String,
    },
    /// Answer to `list-rooms`.
    Rooms {
        /// Every open room.
        rooms: Vec<RoomInfo>,
    },
    /// A room's state: the answer to `create-room`, and pushed to its
    /// members when its seating or status changes.
    Room {
        /// The room.
        room: RoomInfo,
    },
    /// Answer to `join`: the seat taken.
    Seated {
        /// The room.
        room: RoomId,
        /// The seat.
        seat: u8,
    },
    /// Answer to `leave`.
    Left {
        /// The room.
        room: RoomId,
    },
    /// Unsolicited, to the player the room's creator (or the admin)
    /// removed from a seat with `unseat` before the match: the player is
    /// no longer in the room.
    Unseated {
        /// The room.
        room: RoomId,
        /// The seat it held.
        seat: u8,
    },
    /// Answer to `spectate`.
    Spectating {
        /// The room.
        room: RoomId,
    },
    /// Answer to `ready`, `fill-bots` and `close-room`.
    Ok {
        /// The room.
        room: RoomId,
    },
    /// A match started: the receiver's view (a spectator's for
    /// spectators) and the match's full rules, of the room's family.
    GameStarted {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The receiver's seat, `None` for a spectator.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        /// The view and the rules, tagged by `family`.
        #[serde(flatten)]
        game: Family<tiles::GameStarted, poly::GameStarted>,
    },
    /// Your turn: answer with a `move` of the same `family` carrying
    /// `prompt` and one of `legal-moves`.
    Prompt {
        /// The room.
        room: RoomId,
        /// Echo it in the move.
        prompt: PromptId,
        /// Your seat.
        seat: u8,
        /// Milliseconds left for this move, bank included.
        deadline_ms: u64,
        /// The legal moves and the view, tagged by `family`.
        #[serde(flatten)]
        turn: Family<tiles::Prompt, poly::Prompt>,
    },
    /// A move was accepted (answer to `move`).
    Accepted {
        /// The room.
        room: RoomId,
        /// The prompt it answered.
        prompt: PromptId,
    },
    /// What happened at the table after one move, in order, with the
    /// receiver's new view when its tiles changed and the final position
    /// when a hand ended.
    Events {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The events, tagged by `family`.
        #[serde(flatten)]
        happened: Family<tiles::Events, poly::Events>,
    },
    /// The match is over and stored.
    GameOver {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The stored game (`GET /api/games/{id}`), `None` if it could not be stored.
        game: Option<GameId>,
        /// The result.
        result: GameResult,
    },
    /// Answer to `resync`: the current state and sequence number.
    Sync {
        /// The room.
        room: RoomId,
        /// The room's latest sequence number.
        seq: u64,
        /// The room.
        info: RoomInfo,
        /// The room's rules and the receiver's view of the match in play,
        /// tagged by `family`.
        #[serde(flatten)]
        state: Family<tiles::Sync, poly::Sync>,
    },
    /// The room was closed.
    RoomClosed {
        /// The room.
        room: RoomId,
        /// Why.
        reason: String,
    },
    /// Answer to `ping`.
    Pong,
    /// Someone in the room said something (sent to every member, the
    /// sender included).
    Chat {
        /// The room.
        room: RoomId,
        /// The sender's seat, when it sits at the table.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        /// The sender's name (a spectator's too).
        name: String,
        /// What was said.
        text: String,
    },
    /// Something went wrong; nothing changed.
    Error {
        /// What, for programs.
        code: ErrorCode,
        /// What, for people.
        message: String,
        /// With `wrong-node`: the base URL of the server that hosts the
        /// room (`http://host:port`; its WebSocket is at `/ws`). Connect
        /// there and send the message again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// The server closes this connection next: it is shutting down, or a
    /// newer connection with the same token took over the player
    /// ([`close::REPLACED`](crate::close::REPLACED)).
    Closing {
        /// Why.
        reason: String,
        /// Whether reconnecting later makes sense.
        reconnect: bool,
    },
    /// Answer to `await-assignments`: how many tables await this player now
    /// (their `assignment` frames follow).
    Awaiting {
        /// Tables due now.
        pending: u32,
    },
    /// A tournament table is due: `join` the room at this seat, then `ready`.
    /// The room plays one match and closes.
    Assignment(Assignment),
    /// Answer to `hint`: every legal move of the pending prompt with its
    /// estimated chance to win the hand, and the move the strongest hosted
    /// bot would play. Computed from the seat's view only.
    Hint {
        /// The room.
        room: RoomId,
        /// The prompt analysed.
        prompt: PromptId,
        /// The asker's seat.
        seat: u8,
        /// What `pimc` would play (one of `moves`).
        #[schemars(with = "MoveShape")]
        best: Move,
        /// Every legal move, in the prompt's order.
        moves: Vec<HintMove>,
        /// Deals sampled for the estimates.
        samples: u32,
    },
    /// News of a followed tournament.
    TournamentProgress {
        /// The tournament.
        tournament: TournamentId,
        /// What happened.
        progress: Progress,
    },
    /// Answer to `join-ladder` and `leave-ladder`: the ladder this player
    /// is on now, and how many players wait on it.
    Ladder {
        /// The preset's ladder, `null` when off the ladder.
        variant: Option<String>,
        /// Players waiting to be paired on it now (this one included).
        waiting: u32,
    },
    /// A ladder pairing: a rated room was opened with a seat reserved for
    /// the receiver: `join` it at this seat, then `ready`. The room plays
    /// one match and closes; a seat not taken and ready within 30 seconds
    /// forfeits. Once the match is stored the player waits in the pool
    /// again while this connection lasts.
    LadderMatch {
        /// The room to join.
        room: RoomId,
        /// The seat reserved for the receiver.
        seat: u8,
        /// The preset played.
        variant: String,
    },
    /// Answer to `seek` and `cancel-seek` (and sent when a seek ends
    /// otherwise): what this player seeks now, and how many seek the same.
    Seeking {
        /// The preset sought, `null` when not seeking.
        preset: Option<String>,
        /// The table size sought (0 when not seeking).
        seats: u8,
        /// Rated play sought.
        rated: bool,
        /// Seekers of the same preset, size and rating now (this one
        /// included).
        waiting: u32,
    },
    /// A Play now pairing: a one-match room was opened with a seat reserved
    /// for the receiver: `join` it at this seat, then `ready`. A seat not
    /// taken and ready within 60 seconds forfeits.
    Paired {
        /// The room to join.
        room: RoomId,
        /// The seat reserved for the receiver.
        seat: u8,
        /// The preset played.
        preset: String,
        /// Ratings count.
        rated: bool,
    },
}

/// One legal move in a `hint`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct HintMove {
    /// The move.
    #[schemars(with = "MoveShape")]
    pub r#move: Move,
    /// The estimated chance (0 to 1, three decimals) that the asker's side
    /// wins the hand after this move: the share of the sampled deals, each
    /// played out, that its side won.
    pub win: f64,
    /// The strategy's own score of the move (about -1 to 1; higher is
    /// better). Under penalty scoring it weighs pips kept rather than wins,
    /// so it may rank moves differently from `win`.
    pub value: f64,
}

/// Who a connection acts for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct PlayerInfo {
    /// The player's name (guests get `guest-N`).
    pub name: String,
    /// A guest: may join casual rooms only.
    pub guest: bool,
    /// Holds the admin token.
    pub admin: bool,
}

/// A seat held in a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatRef {
    /// The room.
    pub room: RoomId,
    /// The seat.
    pub seat: u8,
}

/// How a match ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct GameResult {
    /// The winning side, `None` for a drawn match.
    pub winner: Option<u8>,
    /// Match scores by side.
    pub scores: Vec<i32>,
    /// Hands played.
    pub hands: u32,
    /// The seat whose side forfeited (on time), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<u8>,
}
