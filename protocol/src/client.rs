//! What a client sends: its frames and the rooms it asks for.

use capicua_engine::Variant;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::family::AnyMove;
use crate::room::{TimeControl, TimeoutPolicy};
use crate::{PromptId, RoomId, TournamentId};

/// The protocol version this crate speaks: what a client's `hello` says.
pub const PROTOCOL_VERSION: u32 = 2;

/// A frame sent by a client: an optional request id and a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientFrame {
    /// Echoed by the server in its reply, if present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The message.
    #[serde(flatten)]
    pub msg: ClientMsg,
}

impl ClientFrame {
    /// A frame with an optional request id.
    pub fn new(id: Option<u64>, msg: ClientMsg) -> ClientFrame {
        ClientFrame { id, msg }
    }
}

/// What a client may ask.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum ClientMsg {
    /// The first message of a connection. With a token the connection acts
    /// for that registered player (or as admin with the admin token); without
    /// one it is a guest.
    Hello {
        /// Must equal [`PROTOCOL_VERSION`].
        version: u32,
        /// A player's secret token, the admin token, or a guest's session
        /// (`guest:` and 64 hex digits, from an earlier `welcome`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Lean prompts: `prompt` frames to this connection carry no `view`
        /// (only the prompt id, seat, legal moves and deadline). For clients
        /// that choose from the legal moves alone, or keep their own view
        /// from `game-started`, `events` and `sync`.
        #[serde(default, skip_serializing_if = "is_false")]
        lean_prompts: bool,
        /// Batched events: `events` and lobby `room` frames to this
        /// connection may wait, to leave together with the next frame that
        /// answers it or asks it something (a reply, a `prompt`,
        /// `game-over`), and at most the server's batch interval (1 s by
        /// default). Nothing is dropped or reordered, and a prompt always
        /// comes after every event before it. For bots, which need the events
        /// only when they must move: the server writes to the socket about
        /// half as often.
        #[serde(default, skip_serializing_if = "is_false")]
        batch_events: bool,
        /// No `accepted` for a legal move sent without an `id`: the client
        /// learns that its move was played from the events (its own move
        /// comes back as an event) or from its next prompt. An illegal,
        /// late or misaddressed move still gets its `error` at once, and a
        /// move sent with an `id` still gets its reply. For bots that play
        /// the moves they are offered: the server writes one frame per move
        /// instead of two.
        #[serde(default, skip_serializing_if = "is_false")]
        skip_accepted: bool,
    },
    /// Registers a new player name; the reply carries its secret token, shown
    /// once. The connection then acts for that player.
    Register {
        /// Letters of any script, digits, `-`, `_`, `.` or `'`, words parted
        /// by single spaces (see [`crate::check_name`]); unique whatever the
        /// case and accents.
        name: String,
    },
    /// Lists the rooms.
    ListRooms,
    /// Creates a room.
    CreateRoom(Box<RoomSpec>),
    /// Takes a seat (and so a side): the given one, or the first empty one.
    Join {
        /// The room, by number. A private room refuses this
        /// ([`ErrorCode::InviteOnly`](crate::ErrorCode::InviteOnly)): give `invite` instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
        /// The seat wanted, or any empty one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        /// A private room's invite id (its `room` info's `invite`, given to
        /// its creator), instead of `room`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    /// Leaves a room (seat or spectator place). Leaving a seat during a
    /// match hands the seat's turns to the timeout policy.
    Leave {
        /// The room.
        room: RoomId,
    },
    /// Watches a room with the spectator's view.
    Spectate {
        /// The room, by number. A private room refuses this
        /// ([`ErrorCode::InviteOnly`](crate::ErrorCode::InviteOnly)): give `invite` instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
        /// A private room's invite id, instead of `room`: whoever may sit
        /// in a private room may also watch it, and no one else.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    /// Frees a seat before the room's match starts: its player (or hosted
    /// bot) is out of the room. Only the room's creator or the admin may;
    /// the player removed hears `unseated`.
    Unseat {
        /// The room.
        room: RoomId,
        /// The seat, from 0.
        seat: u8,
    },
    /// Fills every empty seat with a server-hosted bot.
    FillBots {
        /// The room.
        room: RoomId,
        /// The strategy's name (`GET /api/variants` lists them under `strategies`).
        strategy: String,
    },
    /// Says the seat is ready; a match starts when every seat is filled and
    /// ready. Send it again after a match for the next one. During a match
    /// it says the seat has read the hand's end (see `read-hand-ends`).
    Ready {
        /// The room.
        room: RoomId,
        /// The seat is a person who reads each hand's end: after a hand,
        /// the next hand's first move waits until every such seat says
        /// `ready` again (or a short grace passes, or it drops), and no
        /// clock runs meanwhile. Set with the `ready` that starts a match.
        #[serde(default, skip_serializing_if = "is_false")]
        read_hand_ends: bool,
    },
    /// Plays a move in answer to a prompt: `family` and `move`, one of the
    /// prompt's legal moves.
    Move {
        /// The room.
        room: RoomId,
        /// The prompt being answered.
        prompt: PromptId,
        /// The move, tagged by `family`.
        #[serde(flatten)]
        r#move: AnyMove,
    },
    /// Asks for the current state of a room: a `sync` message, then the
    /// pending prompt again if it is this seat's turn.
    Resync {
        /// The room.
        room: RoomId,
    },
    /// Admin only: closes a room, abandoning any match in play.
    CloseRoom {
        /// The room.
        room: RoomId,
    },
    /// Keep-alive; answered with `pong`.
    Ping,
    /// Says something at a room's table: everyone in the room (seats and
    /// spectators) receives it as a `chat` message. At most
    /// [`MAX_CHAT_CHARS`](crate::MAX_CHAT_CHARS) characters, not blank; at most [`CHAT_PER_SEC`](crate::CHAT_PER_SEC) a
    /// second per connection after a burst of [`CHAT_BURST`](crate::CHAT_BURST).
    Chat {
        /// The room.
        room: RoomId,
        /// What is said.
        text: String,
    },
    /// A registered player (a remote bot or a human) waits for tournament
    /// tables: answered with `awaiting`, then an `assignment` for every table
    /// due now and every table that becomes due while the connection lasts.
    AwaitAssignments,
    /// Follows a tournament: answered with a `tournament-progress` whose
    /// progress is `subscribed`, then one per round started, table finished
    /// and at the end.
    SubscribeTournament {
        /// The tournament's id.
        tournament: TournamentId,
    },
    /// Asks what the strongest hosted bot (`pimc`) would play at the
    /// asker's pending prompt, from its seat's view only: answered with
    /// `hint`. Offered in unrated rooms that are not a tournament's table
    /// (`hint-unavailable`), to a seat to move (`not-seated`,
    /// `not-your-turn`), one at a time per connection and while the
    /// server has analysis capacity (`busy`).
    Hint {
        /// The room.
        room: RoomId,
    },
    /// A registered player (a remote bot) joins the always-on ladder of a
    /// published preset: the server pairs it with waiting players of
    /// similar rating in rated rooms and sends a `ladder-match` for each.
    /// Answered with `ladder`. A player waits on one ladder at a time
    /// (joining another moves it there); it leaves the pool when this
    /// connection ends.
    JoinLadder {
        /// A published preset (`GET /api/variants`).
        variant: String,
    },
    /// Leaves the ladder's pool (a ladder match in play goes on): answered
    /// with `ladder`.
    LeaveLadder,
    /// Play now: waits for people (registered or guests) who seek the same
    /// preset, table size and rated or casual play. The server pairs
    /// seekers of similar rating, the accepted gap widening with the wait,
    /// opens a one-match room with a seat reserved for each and sends each
    /// a `paired`. Answered with `seeking`. One seek per player and per
    /// connection: a second replaces the first. Rated seeks are for
    /// registered players (`unauthorized`); a seek ends with its
    /// connection.
    Seek {
        /// A published preset (`GET /api/variants`).
        preset: String,
        /// Seats at the table, within the preset's range; its fewest when
        /// absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<u8>,
        /// Ratings count (registered players only).
        #[serde(default)]
        rated: bool,
    },
    /// Leaves the Play now queue: answered with `seeking` (`preset` null).
    CancelSeek,
}

impl ClientMsg {
    /// A `hello` of this protocol version with the token given (or as a
    /// guest) and every option off: full prompts, live events, an
    /// `accepted` for every move.
    pub fn hello(token: Option<String>) -> ClientMsg {
        ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            token,
            lean_prompts: false,
            batch_events: false,
            skip_accepted: false,
        }
    }

    /// A `join` of a room by number: the seat given, or any empty one.
    pub fn join(room: RoomId, seat: Option<u8>) -> ClientMsg {
        ClientMsg::Join { room: Some(room), seat, invite: None }
    }

    /// A `move` answering `prompt`, of the move's family.
    pub fn play(room: RoomId, prompt: PromptId, m: impl Into<AnyMove>) -> ClientMsg {
        ClientMsg::Move { room, prompt, r#move: m.into() }
    }
}

/// How to create a room.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct RoomSpec {
    /// A preset name (`GET /api/variants`): a two-faced preset, or a poly
    /// one (`triominoes`, `quadominoes`, `hexominoes`, `graph-triominoes`)
    /// for a room of tiles with 3, 4 or 6 faces. Exactly one of `preset`,
    /// `variant` and `variant-file` must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// A full variant (the engine's variant format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// The text of a variant file, as `capicua-bot arena --variant FILE`
    /// reads one: TOML (JSON when its first non-blank character is `{`), usually
    /// `base = "PRESET"` plus the fields it overrides. `base` names a
    /// preset, never a file; a poly preset as `base` makes a poly room.
    /// At most 64 KiB (65,536 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_file: Option<String>,
    /// Seats at the table (default: the variant's maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<u8>,
    /// Explicit teams as lists of seats (default: the variant's team rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<Vec<u8>>>,
    /// Rated rooms update ratings and admit registered players only.
    #[serde(default)]
    pub rated: bool,
    /// Time control (default: 30 s per move, no bank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeControl>,
    /// What happens when a seat runs out of time (default: a random legal move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<TimeoutPolicy>,
    /// Makes the room reproducible: the first match deals from this seed (the
    /// k-th from `seed + k`), and server-hosted bots draw their choices from
    /// seeds derived from it. Default: fresh seeds from the OS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A private room is not listed (`list-rooms`, `GET /api/rooms`) and is
    /// joined only by the invite id its creator receives, not by number.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}
