//! The game payloads of tiles with 3, 4 or 6 faces: what `game-started`,
//! `prompt`, `events` and `sync` carry beside `"family": "poly"`.

use capicua_engine::poly::{PolyEvent, PolyMove, PolyVariant, PolyViewSnapshot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A match started (`game-started`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolyGameStarted")]
pub struct GameStarted {
    /// The receiver's view (a spectator's has no `seat` and an empty
    /// `hand`).
    pub view: Box<PolyViewSnapshot>,
    /// The full rules of the match (public).
    pub variant: Box<PolyVariant>,
}

/// The receiver's turn (`prompt`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolyPrompt")]
pub struct Prompt {
    /// The receiver's view of the game; absent for a connection that
    /// asked for lean prompts in `hello`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<PolyViewSnapshot>>,
    /// The legal moves (turns of a symmetric tile that give the same
    /// position are listed once).
    pub legal_moves: Vec<PolyMove>,
}

/// What happened at the table after one move (`events`). A `drew` names
/// its tile to the seat that drew it only. `view` is the receiver's new
/// view when its tiles changed (it drew, or a new hand was dealt).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolyEvents")]
pub struct Events {
    /// The events, in order.
    pub events: Vec<PolyEvent>,
    /// The receiver's new view, when its tiles changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<PolyViewSnapshot>>,
    /// When the events end a hand (`hand-ended`): the table as the hand
    /// ended, every hand turned face up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_end: Option<Box<HandEnd>>,
}

/// A room's game state (`sync`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolySync")]
pub struct Sync {
    /// The receiver's view of the match in play, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<PolyViewSnapshot>>,
    /// The room's full rules, as in `game-started`.
    pub variant: Box<PolyVariant>,
}

/// The end of a hand of tiles with 3, 4 or 6 faces (the `hand-end` of a
/// poly `events` frame): the final position, every hand turned face up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolyHandEnd")]
pub struct HandEnd {
    /// The hand's number, from 0.
    pub hand: u32,
    /// How the hand ended.
    pub result: HandResult,
    /// The receiver's view of the final position (the board with the
    /// hand's last tile on it), with `hands` holding every seat's
    /// remaining tiles. Nobody is to move in it (`to-move` is `null`).
    pub view: Box<PolyViewSnapshot>,
}

/// How a hand of tiles with 3, 4 or 6 faces ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "PolyHandResult")]
pub struct HandResult {
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
