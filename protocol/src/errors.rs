//! Error codes and WebSocket close codes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// The frame exceeds [`MAX_FRAME_BYTES`](crate::MAX_FRAME_BYTES).
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
    /// The games of the room's creator (or of its address) filled their
    /// storage budget for now: no match starts until it refills (the
    /// message says when).
    StorageBudget,
    /// The address holds as many seats in rooms that have not started as
    /// the server allows: leave one first.
    TooManySeats,
    /// The page asking for the WebSocket is on another site, one this
    /// server does not serve (the `Origin` header).
    BadOrigin,
    /// The organiser's control does not fit where the tournament stands
    /// (pausing a finished one, deleting a started one, withdrawing an
    /// entrant twice): HTTP 409.
    TournamentState,
    /// No player of this name (HTTP only: `GET /api/players/{name}`).
    NoSuchPlayer,
    /// Signing in failed: the name or the password is wrong (never which;
    /// HTTP only: `POST /api/session`, 401).
    BadSignIn,
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
