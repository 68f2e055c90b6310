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
//! assert_eq!(json, r#"{"id":1,"type":"hello","version":1}"#);
//! let back: ClientFrame = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, hello);
//! ```

use capicua_engine::poly::{PolyEvent, PolyMove, PolyVariant, PolyViewSnapshot};
use capicua_engine::{Event, HandResult, Move, Variant, ViewSnapshot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 1;

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

/// A room's id.
pub type RoomId = u64;
/// A prompt's id: unique per room, it names one turn of one seat.
pub type PromptId = u64;
/// A stored game's id.
pub type GameId = i64;
/// A tournament's id.
pub type TournamentId = i64;

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
        /// A player's secret token, or the admin token.
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
    },
    /// Registers a new player name; the reply carries its secret token, shown
    /// once. The connection then acts for that player.
    Register {
        /// 1 to 32 ASCII letters, digits, `-`, `_` or `.`; not `admin`, not
        /// starting with `guest-` (both case-sensitive); unique as written.
        name: String,
    },
    /// Lists the rooms.
    ListRooms,
    /// Creates a room.
    CreateRoom(Box<RoomSpec>),
    /// Takes a seat (and so a side): the given one, or the first empty one.
    Join {
        /// The room, by number. A private room refuses this
        /// ([`ErrorCode::InviteOnly`]): give `invite` instead.
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
        /// ([`ErrorCode::InviteOnly`]): give `invite` instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
        /// A private room's invite id, instead of `room`: whoever may sit
        /// in a private room may also watch it, and no one else.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    /// Fills every empty seat with a server-hosted bot.
    FillBots {
        /// The room.
        room: RoomId,
        /// The strategy's name (`GET /api/variants` lists them under `strategies`).
        strategy: String,
    },
    /// Says the seat is ready; a match starts when every seat is filled and
    /// ready. Send it again after a match for the next one.
    Ready {
        /// The room.
        room: RoomId,
    },
    /// Plays a move in answer to a prompt.
    Move {
        /// The room.
        room: RoomId,
        /// The prompt being answered.
        prompt: PromptId,
        /// One of the prompt's legal moves.
        #[schemars(with = "MoveShape")]
        r#move: Move,
    },
    /// Plays a move in answer to a `poly-prompt` (a room of tiles with 3,
    /// 4 or 6 faces).
    PolyMove {
        /// The room.
        room: RoomId,
        /// The prompt being answered.
        prompt: PromptId,
        /// One of the prompt's legal moves.
        r#move: PolyMove,
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
    /// [`MAX_CHAT_CHARS`] characters, not blank; at most [`CHAT_PER_SEC`] a
    /// second per connection after a burst of [`CHAT_BURST`].
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
}

impl ClientMsg {
    /// A `join` of a room by number: the seat given, or any empty one.
    pub fn join(room: RoomId, seat: Option<u8>) -> ClientMsg {
        ClientMsg::Join { room: Some(room), seat, invite: None }
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

/// A tournament table due for a player (the `assignment` message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Assignment {
    /// The tournament.
    pub tournament: TournamentId,
    /// The round (from 0).
    pub round: u32,
    /// The table in its round.
    pub table: u32,
    /// The room to join.
    pub room: RoomId,
    /// The seat reserved for the receiver.
    pub seat: u8,
    /// The variant played.
    pub variant: String,
    /// The base URL of the server that hosts the room, when that is not
    /// the server sending the assignment (several servers on one
    /// database): connect there, say `hello` with the same token, and join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
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
    /// A match started. `view` is the receiver's view (a spectator's for
    /// spectators).
    GameStarted {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The receiver's seat, `None` for a spectator.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        /// The receiver's view.
        view: Box<ViewSnapshot>,
        /// The full rules of the match (public): a bot rebuilds the rules
        /// from them, also for a custom variant that is no preset.
        variant: Box<Variant>,
    },
    /// Your turn: answer with a `move` carrying `prompt` and one of `legal-moves`.
    Prompt {
        /// The room.
        room: RoomId,
        /// Echo it in the move.
        prompt: PromptId,
        /// Your seat.
        seat: u8,
        /// Your view of the game; absent for a connection that asked for
        /// lean prompts in `hello`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<ViewSnapshot>>,
        /// The legal moves.
        #[schemars(with = "Vec<MoveShape>")]
        legal_moves: Vec<Move>,
        /// Milliseconds left for this move, bank included.
        deadline_ms: u64,
    },
    /// A match of tiles with 3, 4 or 6 faces started (the `game-started`
    /// of a poly room). `view` is the receiver's view (a spectator's has no
    /// `seat` and an empty `hand`).
    PolyGameStarted {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The receiver's seat, `None` for a spectator.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        /// The receiver's view.
        view: Box<PolyViewSnapshot>,
        /// The full rules of the match (public).
        variant: Box<PolyVariant>,
    },
    /// Your turn in a poly room: answer with a `poly-move` carrying
    /// `prompt` and one of `legal-moves`.
    PolyPrompt {
        /// The room.
        room: RoomId,
        /// Echo it in the move.
        prompt: PromptId,
        /// Your seat.
        seat: u8,
        /// Your view of the game; absent for a connection that asked for
        /// lean prompts in `hello`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<PolyViewSnapshot>>,
        /// The legal moves (turns of a symmetric tile that give the same
        /// position are listed once).
        legal_moves: Vec<PolyMove>,
        /// Milliseconds left for this move, bank included.
        deadline_ms: u64,
    },
    /// What happened at a poly table after one move, in order. A `drew`
    /// names its tile to the seat that drew it only. `view` is the
    /// receiver's new view when its tiles changed (it drew, or a new hand
    /// was dealt).
    PolyEvents {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The events.
        events: Vec<PolyEvent>,
        /// The receiver's new view, when its tiles changed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<PolyViewSnapshot>>,
        /// When the events end a hand (`hand-ended`): the table as the
        /// hand ended, every hand turned face up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_end: Option<Box<PolyHandEnd>>,
    },
    /// A move was accepted (answer to `move` and `poly-move`).
    Accepted {
        /// The room.
        room: RoomId,
        /// The prompt it answered.
        prompt: PromptId,
    },
    /// What happened at the table after one move, in order. `view` is the
    /// receiver's new view when the events changed what it holds (a new hand
    /// was dealt, or a seat it sees drew).
    Events {
        /// The room.
        room: RoomId,
        /// Per-room sequence number.
        seq: u64,
        /// The events (engine format; a draw never names the tile).
        events: Vec<Event>,
        /// The receiver's new view, when its tiles changed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<ViewSnapshot>>,
        /// When the events end a hand (`hand-over`): the table as the hand
        /// ended, every hand turned face up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_end: Option<Box<HandEndView>>,
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
        /// The receiver's view of the match in play, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<ViewSnapshot>>,
        /// The room's full rules, as in `game-started`: a client that
        /// comes back mid-match (a reload) draws the tiles and the layout,
        /// and shows the target, without having seen `game-started`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<Box<Variant>>,
        /// In a poly room, the receiver's view of the match in play, if any
        /// (instead of `view`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        poly_view: Option<Box<PolyViewSnapshot>>,
        /// In a poly room, its full rules (instead of `variant`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        poly_variant: Option<Box<PolyVariant>>,
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
    /// ([`close::REPLACED`]).
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
}

/// The end of a hand of dominoes, as the table saw it when the last tile
/// was laid (the `hand-end` of an `events` frame). The engine deals the
/// next hand in the same move, so the frame's `view` (if any) is already
/// the next deal: this is the only place the final position is sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct HandEndView {
    /// The hand's number, from 0.
    pub hand: u32,
    /// How the hand ended: the winner, the points, each seat's pips and
    /// the points scored during play.
    pub result: HandResult,
    /// The receiver's view of the final position (the board with the
    /// hand's last tile on it), except that every seat's remaining tiles
    /// are public now: `hands` holds every seat's hand, to spectators
    /// too. Nobody is to move in it (`to-move` is `null`, no legal moves).
    pub view: Box<ViewSnapshot>,
}

/// The end of a hand of tiles with 3, 4 or 6 faces (the `hand-end` of a
/// `poly-events` frame): the final position, every hand turned face up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct PolyHandEnd {
    /// The hand's number, from 0.
    pub hand: u32,
    /// How the hand ended.
    pub result: PolyHandResult,
    /// The receiver's view of the final position (the board with the
    /// hand's last tile on it), with `hands` holding every seat's
    /// remaining tiles. Nobody is to move in it (`to-move` is `null`).
    pub view: Box<PolyViewSnapshot>,
}

/// How a hand of tiles with 3, 4 or 6 faces ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct PolyHandResult {
    /// The hand's number, from 0.
    pub hand: u32,
    /// The seat that went out, or the lightest hand when blocked; `None`
    /// for a blocked tie.
    pub winner: Option<u8>,
    /// Whether nobody could move.
    pub blocked: bool,
    /// Points scored as the hand ended, by seat (play points came with
    /// each `played`).
    pub points: Vec<i32>,
    /// Pips left in each seat's hand, by seat.
    pub pips: Vec<i32>,
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

/// What happened in a tournament (`tournament-progress`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Progress {
    /// Answer to `subscribe-tournament`: where it stands.
    Subscribed {
        /// `pending`, `running`, `finished` or `failed`.
        status: TournamentStatus,
        /// Results recorded so far.
        results: u32,
    },
    /// A round's tables were opened.
    RoundStarted {
        /// The round (from 0).
        round: u32,
        /// Its stage (from 0).
        stage: u32,
        /// The variant played.
        variant: String,
        /// Tables in play.
        tables: u32,
    },
    /// A table's match is over, stored and recorded.
    TableFinished {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The stored game (`GET /api/games/{id}`).
        game: GameId,
        /// The winning side of the table (index into its sides), `None` for a draw.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<u32>,
    },
    /// The tournament is over.
    Finished {
        /// The winners' names.
        winners: Vec<String>,
    },
    /// The organiser paused it: no new table opens; tables in play finish.
    Paused {
        /// Who paused it (the audit trail's `by`).
        by: String,
    },
    /// The organiser resumed it (from `paused` or `failed`): tables open again.
    Resumed {
        /// Who resumed it.
        by: String,
    },
    /// The organiser cancelled it: its open tables are closed, its played
    /// games stay; no table opens again.
    Cancelled {
        /// Who cancelled it.
        by: String,
    },
    /// The organiser deleted it before it started: it is gone.
    Deleted {
        /// Who deleted it.
        by: String,
    },
    /// The organiser withdrew an entrant: no round planned from now on seats it.
    Withdrawn {
        /// The entrant's id (index in the tournament's entrants).
        entrant: u32,
        /// Its name.
        name: String,
        /// Who withdrew it.
        by: String,
    },
    /// The organiser corrected a recorded result; the standings are recomputed.
    Corrected {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The winning side as corrected, `None` for a draw.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<u32>,
        /// Who corrected it.
        by: String,
    },
    /// The organiser entered a late entrant (a Swiss pairs it from the next
    /// round planned, an arena at its next pairing).
    Entered {
        /// The new entrant's id (index in the tournament's entrants).
        entrant: u32,
        /// Its name.
        name: String,
        /// Who entered it.
        by: String,
    },
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TournamentStatus {
    /// Created; a serving server starts it.
    Pending,
    /// A server is playing its rounds.
    Running,
    /// Over: it has its winners.
    Finished,
    /// Stopped by an error (its summary says which); the organiser may
    /// resume it once the cause is fixed.
    Failed,
    /// Paused by the organiser: no new table opens until it is resumed.
    Paused,
    /// Cancelled by the organiser: over, without winners.
    Cancelled,
}

impl TournamentStatus {
    /// Its name on the wire (and in the database).
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Pending => "pending",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Failed => "failed",
            TournamentStatus::Paused => "paused",
            TournamentStatus::Cancelled => "cancelled",
        }
    }

    /// Whether it has stopped (finished, failed or cancelled; a failed one
    /// may still be resumed by the organiser).
    pub fn is_over(self) -> bool {
        matches!(self, TournamentStatus::Finished | TournamentStatus::Failed | TournamentStatus::Cancelled)
    }
}

impl std::fmt::Display for TournamentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

fn is_false(b: &bool) -> bool {
    !*b
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

/// A room as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct RoomInfo {
    /// The id.
    pub id: RoomId,
    /// The variant's name.
    pub variant: String,
    /// The room plays tiles with 3, 4 or 6 faces: its matches speak
    /// `poly-game-started`, `poly-prompt`, `poly-events` and `poly-move`.
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

/// Machine-readable error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The frame is not valid JSON.
    BadJson,
    /// The JSON is valid but not a known message (unknown `type` or bad fields).
    BadMessage,
    /// A binary frame: the protocol is text only.
    BinaryFrame,
    /// The frame exceeds [`MAX_FRAME_BYTES`].
    FrameTooLarge,
    /// `hello` carried another protocol version.
    VersionMismatch,
    /// The first message must be `hello`.
    HelloRequired,
    /// `hello` was already received.
    AlreadyGreeted,
    /// The token is unknown.
    BadToken,
    /// The action needs the admin token or a registered player.
    Unauthorized,
    /// The name is taken.
    NameTaken,
    /// The name is not acceptable.
    BadName,
    /// No such room.
    NoSuchRoom,
    /// The room is hosted by another server on the same database: the
    /// error's `url` names it.
    WrongNode,
    /// The room has no empty seat (or the seat asked for is taken).
    SeatTaken,
    /// The room is private: join it with its `invite`, not its number.
    InviteOnly,
    /// No such seat at this table.
    NoSuchSeat,
    /// The connection holds no seat in this room.
    NotSeated,
    /// The connection already holds a seat in this room.
    AlreadySeated,
    /// The room spec or variant is invalid.
    BadVariant,
    /// The request is malformed or impossible in the room's state.
    BadRequest,
    /// A match is in play: the seating cannot change.
    GameInProgress,
    /// No such hosted strategy.
    UnknownStrategy,
    /// It is not this seat's turn (or no match is in play).
    NotYourTurn,
    /// The move answers a prompt that is not the pending one.
    StalePrompt,
    /// The move is not legal; nothing changed.
    IllegalMove,
    /// Too many messages: slow down.
    RateLimited,
    /// The server is at its connection cap.
    TooManyConnections,
    /// The creator already holds as many open rooms as the server allows
    /// (per registered player, or per address for guests); closing one
    /// frees a slot.
    TooManyRooms,
    /// The server is shutting down.
    ShuttingDown,
    /// The client is too slow reading its frames. Not sent: such a
    /// connection is closed with [`close::SLOW_CONSUMER`] instead.
    SlowConsumer,
    /// A server fault (logged).
    Internal,
    /// No such tournament.
    NoSuchTournament,
    /// The tournament spec is invalid (the message names the field).
    BadTournament,
    /// No such stored game.
    NoSuchGame,
    /// No HTTP API endpoint has this path.
    NotFound,
    /// Hints and reviews are not offered here: a rated room, a
    /// tournament's table, or a game of a tournament still being played.
    HintUnavailable,
    /// The server is at its capacity for this request (a hint is already
    /// being computed for this connection, or every analysis slot is
    /// busy): ask again shortly.
    Busy,
    /// The organiser's control does not fit where the tournament stands
    /// (pausing a finished one, deleting a started one, withdrawing an
    /// entrant twice): HTTP 409.
    TournamentState,
}

/// WebSocket close codes the server uses, and whether a client should reconnect.
pub mod close {
    /// Server shutting down or restarting: reconnect later.
    pub const GOING_AWAY: u16 = 1001;
    /// A text frame that is not UTF-8: do not resend it.
    pub const INVALID_DATA: u16 = 1007;
    /// Protocol violation (a binary frame): do not reconnect as is.
    pub const POLICY: u16 = 1008;
    /// A frame above the size limit: do not resend it.
    pub const TOO_BIG: u16 = 1009;
    /// Connection cap reached: reconnect later.
    pub const TRY_AGAIN_LATER: u16 = 1013;
    /// Wrong token: do not reconnect with it.
    pub const BAD_TOKEN: u16 = 4001;
    /// Protocol version mismatch: upgrade the client.
    pub const VERSION_MISMATCH: u16 = 4002;
    /// Flooding: reconnect after a pause.
    pub const FLOOD: u16 = 4003;
    /// The client did not read its frames fast enough: reconnect.
    pub const SLOW_CONSUMER: u16 = 4004;
    /// A newer connection with the same token took over this player (another
    /// tab, another bot process): do not reconnect, or the two fight for it.
    pub const REPLACED: u16 = 4005;
    /// No `hello` in time after connecting, or silent too long (no frame
    /// and no pong to the server's pings): reconnect, and say `hello` at once.
    pub const TIMED_OUT: u16 = 4006;

    /// Whether a client closed with `code` may reconnect (with backoff).
    pub fn may_reconnect(code: u16) -> bool {
        matches!(code, GOING_AWAY | TRY_AGAIN_LATER | FLOOD | SLOW_CONSUMER | TIMED_OUT | 1006 | 1011)
    }
}

/// A [`Move`]'s JSON shape, for the schema only (the engine's type is used on the wire).
#[derive(JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[allow(dead_code)]
enum MoveShape {
    /// Join `tile` (its two faces) to open end `end` (255 for the lead) by face `face` (0 or 1).
    Play {
        /// The tile, as its two faces in either order (the server writes
        /// the low face first).
        tile: [u8; 2],
        /// The open end: its index in the view's `ends` (255: the lead).
        end: u8,
        /// Which face joins: 0 the low face (the high face becomes the
        /// end's pip), 1 the high face; always 0 for a double and a lead.
        face: u8,
    },
    /// Draw from the stock.
    Draw,
    /// Pass.
    Pass,
}

/// Errors decoding a client frame.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON.
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    /// JSON, but not a known message.
    #[error("not a known message: {0}")]
    Message(serde_json::Error),
    /// A tag ([`TAG_KEYS`]) that is not a string.
    #[error("not a known message: `{path}` must be a string naming the kind of value")]
    Tag {
        /// Where the tag is, as a dotted path from the frame (`move.kind`).
        path: String,
    },
}

impl DecodeError {
    /// The error code to answer with.
    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::Json(_) => ErrorCode::BadJson,
            DecodeError::Message(_) | DecodeError::Tag { .. } => ErrorCode::BadMessage,
        }
    }
}

/// The keys that tag the kind of a JSON object in what clients send
/// (`type` of a message, `kind` of a move, a spot or a timeout policy,
/// `event` of an event). Their values are strings on the wire; serde would
/// also take a number there as the variant's index (`{"kind":1}` read as a
/// draw), so [`decode_strict`] refuses any other value before decoding.
pub const TAG_KEYS: [&str; 3] = ["type", "kind", "event"];

/// The path of the first tag in `value` (at any depth) whose value is not a
/// string, if any.
pub fn non_string_tag(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if TAG_KEYS.contains(&k.as_str()) && !v.is_string() {
                return Some(k.clone());
            }
            non_string_tag(v).map(|inner| format!("{k}.{inner}"))
        }),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, v)| non_string_tag(v).map(|inner| format!("{i}.{inner}")))
        }
        _ => None,
    }
}

/// Decodes JSON a client sent into `T`, accepting only string tags
/// ([`TAG_KEYS`]). Every decoder of client input goes through here.
pub fn decode_strict<T: serde::de::DeserializeOwned>(text: &[u8]) -> Result<T, DecodeError> {
    let value: serde_json::Value = serde_json::from_slice(text).map_err(DecodeError::Json)?;
    if let Some(path) = non_string_tag(&value) {
        return Err(DecodeError::Tag { path });
    }
    T::deserialize(&value).map_err(DecodeError::Message)
}

/// Decodes a client frame, telling malformed JSON from unknown messages,
/// and recovering the request id of a bad message when it can.
pub fn decode_client(text: &str) -> Result<ClientFrame, (Option<u64>, DecodeError)> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| (None, DecodeError::Json(e)))?;
    let id = || value.get("id").and_then(serde_json::Value::as_u64);
    if let Some(path) = non_string_tag(&value) {
        return Err((id(), DecodeError::Tag { path }));
    }
    ClientFrame::deserialize(&value).map_err(|e| (id(), DecodeError::Message(e)))
}

/// The JSON Schemas of every client and server frame, as one JSON document
/// `{"protocol-version": 1, "client": ..., "server": ...}`.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// serde reads a number in an internally tagged enum's tag as the
    /// variant's index; only the documented string tags may decode.
    #[test]
    fn numeric_tags_are_bad_messages_naming_the_field() {
        let refused = |text: &str, path: &str| {
            let (id, e) = decode_client(text).expect_err(text);
            assert_eq!(e.code(), ErrorCode::BadMessage, "{text}");
            assert!(matches!(&e, DecodeError::Tag { path: p } if p == path), "{text}: {e:?}");
            assert!(e.to_string().contains(&format!("`{path}`")), "{e}");
            id
        };
        // `{"kind":1}` and `{"kind":2}` would be a draw and a pass.
        for kind in ["1", "2", "0", "1.0", "null", "true", "[\"draw\"]", "{}"] {
            let text = format!(r#"{{"id":4,"type":"move","room":1,"prompt":1,"move":{{"kind":{kind}}}}}"#);
            assert_eq!(refused(&text, "move.kind"), Some(4));
        }
        // The message's own tag: index 0 would be `hello`.
        assert_eq!(refused(r#"{"id":5,"type":0,"version":1}"#, "type"), Some(5));
        assert_eq!(refused(r#"{"type":17}"#, "type"), None);
        // A nested tag: the create-room timeout policy.
        refused(r#"{"type":"create-room","preset":"block","on-timeout":{"kind":1}}"#, "on-timeout.kind");
        // The string tags still decode.
        let ok = decode_client(r#"{"type":"move","room":1,"prompt":2,"move":{"kind":"draw"}}"#).unwrap();
        assert_eq!(ok.msg, ClientMsg::Move { room: 1, prompt: 2, r#move: Move::Draw });
        assert!(matches!(decode_client(r#"{"type":"ping"}"#), Ok(ClientFrame { msg: ClientMsg::Ping, .. })));
        // Bad JSON stays bad JSON.
        assert_eq!(decode_client("{\"type\":").unwrap_err().1.code(), ErrorCode::BadJson);
    }

    /// The same check serves every decoder of client input, the engine's
    /// polyomino moves and spots included.
    #[test]
    fn decode_strict_refuses_numeric_tags_at_any_depth() {
        use capicua_engine::poly::PolyMove;
        let e = decode_strict::<PolyMove>(br#"{"kind":"play","tile":3,"at":{"kind":1,"x":0,"y":0},"rotation":0}"#)
            .unwrap_err();
        assert!(matches!(&e, DecodeError::Tag { path } if path == "at.kind"), "{e:?}");
        assert!(matches!(decode_strict::<PolyMove>(br#"{"kind":2}"#), Err(DecodeError::Tag { .. })));
        assert_eq!(decode_strict::<PolyMove>(br#"{"kind":"pass"}"#).unwrap(), PolyMove::Pass);
        let e = decode_strict::<Vec<Move>>(br#"[{"kind":"pass"},{"kind":1}]"#).unwrap_err();
        assert!(matches!(&e, DecodeError::Tag { path } if path == "1.kind"), "{e:?}");
        // Without the check serde takes the index inside a message (buffered
        // for its own tag): what the check is for.
        let unchecked: ClientFrame =
            serde_json::from_str(r#"{"type":"move","room":1,"prompt":2,"move":{"kind":1}}"#).unwrap();
        assert_eq!(unchecked.msg, ClientMsg::Move { room: 1, prompt: 2, r#move: Move::Draw });
    }

    /// `as_str` is what the server stores and prints: it must be the serde name.
    #[test]
    fn status_and_kind_names_are_their_wire_names() {
        let statuses = [
            TournamentStatus::Pending,
            TournamentStatus::Running,
            TournamentStatus::Finished,
            TournamentStatus::Failed,
            TournamentStatus::Paused,
            TournamentStatus::Cancelled,
        ];
        for s in statuses {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(serde_json::from_value::<TournamentStatus>(s.as_str().into()).unwrap(), s);
            assert_eq!(format!("{s:<9}|"), format!("{:<9}|", s.as_str()));
        }
        for k in [OccupantKind::Player, OccupantKind::Guest, OccupantKind::HostedBot] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
            assert_eq!(serde_json::from_value::<OccupantKind>(k.as_str().into()).unwrap(), k);
        }
        assert_eq!(
            statuses.iter().filter(|s| s.is_over()).collect::<Vec<_>>(),
            [&TournamentStatus::Finished, &TournamentStatus::Failed, &TournamentStatus::Cancelled]
        );
    }
}
