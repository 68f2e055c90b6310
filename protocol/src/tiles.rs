//! The game payloads of two-faced dominoes: what `game-started`,
//! `prompt`, `events` and `sync` carry beside `"family": "tiles"`.

use capicua_engine::{Event, HandResult, Move, Variant, ViewSnapshot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A match started (`game-started`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "TilesGameStarted")]
pub struct GameStarted {
    /// The receiver's view (a spectator's for spectators).
    pub view: Box<ViewSnapshot>,
    /// The full rules of the match (public): a bot rebuilds the rules
    /// from them, also for a custom variant that is no preset.
    pub variant: Box<Variant>,
}

/// The receiver's turn (`prompt`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "TilesPrompt")]
pub struct Prompt {
    /// The receiver's view of the game; absent for a connection that
    /// asked for lean prompts in `hello`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<ViewSnapshot>>,
    /// The legal moves, one per result: placements of a tile that leave
    /// the same open ends, up to the sides of the board, are listed once
    /// (the others are legal too).
    #[schemars(with = "Vec<MoveShape>")]
    pub legal_moves: Vec<Move>,
}

/// What happened at the table after one move (`events`). `view` is the
/// receiver's new view when the events changed what it holds (a new hand
/// was dealt, or a seat it sees drew).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "TilesEvents")]
pub struct Events {
    /// The events, in order (engine format; a draw never names the tile).
    pub events: Vec<Event>,
    /// The receiver's new view, when its tiles changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<ViewSnapshot>>,
    /// When the events end a hand (`hand-over`): the table as the hand
    /// ended, every hand turned face up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_end: Option<Box<HandEnd>>,
}

/// A room's game state (`sync`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "TilesSync")]
pub struct Sync {
    /// The receiver's view of the match in play, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<ViewSnapshot>>,
    /// The room's full rules, as in `game-started`: a client that comes
    /// back mid-match (a reload) draws the tiles and the layout, and shows
    /// the target, without having seen `game-started`.
    pub variant: Box<Variant>,
}

/// The end of a hand of dominoes, as the table saw it when the last tile
/// was laid (the `hand-end` of a tiles `events` frame). The engine deals the
/// next hand in the same move, so the frame's `view` (if any) is already
/// the next deal: this is the only place the final position is sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "TilesHandEnd")]
pub struct HandEnd {
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

/// A [`Move`]'s JSON shape, for the schema only (the engine's type is used on the wire).
#[derive(JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[allow(dead_code)]
pub(crate) enum MoveShape {
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
