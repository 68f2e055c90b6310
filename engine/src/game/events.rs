//! What happens at the table: the events of a move, and the records of
//! finished hands and matches.

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::moves::EndId;
use crate::seating::{MAX_SEATS, Seat, Side};
use crate::tile::Tile;

/// What happened as the result of one move, in order. Never allocates.
pub type Events = ArrayVec<Event, 8>;

/// Something that happened at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "event")]
pub enum Event {
    /// A seat played a tile.
    Played {
        /// Who.
        seat: Seat,
        /// What.
        tile: Tile,
        /// Where ([`EndId::LEAD`] for the lead).
        end: EndId,
        /// Which face joined.
        face: u8,
    },
    /// A seat drew a tile (which one is known only to those who see its hand).
    Drew {
        /// Who.
        seat: Seat,
    },
    /// A seat passed.
    Passed {
        /// Who.
        seat: Seat,
    },
    /// A side scored.
    Scored {
        /// Who.
        side: Side,
        /// How much (already net of an exact-target overshoot).
        points: i32,
    },
    /// A hand ended; its [`HandResult`] is the last of [`Game::hand_results`](crate::Game::hand_results).
    HandOver {
        /// Hand number, from 0.
        hand: u32,
        /// The winning side, if any.
        winner: Option<Side>,
    },
    /// A new hand was dealt.
    HandStarted {
        /// Hand number, from 0.
        hand: u32,
        /// The seat that leads it.
        leader: Seat,
    },
    /// The match is over.
    MatchOver {
        /// The winning side (`None`: a drawn match).
        winner: Option<Side>,
    },
    /// The lenient referee accepted an illegal play (the `Played` event
    /// before it) and the seat's side paid a penalty.
    Overruled {
        /// Who played it.
        seat: Seat,
        /// Points its side lost.
        penalty: i32,
    },
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "kind")]
pub enum HandEnd {
    /// A seat played its last tile.
    Out {
        /// Who went out.
        seat: Seat,
        /// With a capicúa (a non-double fitting two open ends).
        capicua: bool,
    },
    /// Nobody could move.
    Blocked {
        /// The seat that made the last play.
        blocker: Seat,
    },
    /// A side reached the target during play and the match ended at once.
    Target,
    /// Most seats had passed the variant's number of times (end rule
    /// `most-passed`); decided as a blocked hand.
    Passes {
        /// The seat that made the last play.
        blocker: Seat,
    },
    /// A side's play points this hand reached the variant's `hand-score`.
    HandScore {
        /// The seat whose play reached it.
        seat: Seat,
    },
}

/// The record of a finished hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct HandResult {
    /// Hand number, from 0.
    pub hand: u32,
    /// The seat that led.
    pub leader: Seat,
    /// How it ended.
    pub end: HandEnd,
    /// The winning side, if any.
    pub winner: Option<Side>,
    /// The winning seat, if any (for "the winner leads next").
    pub winner_seat: Option<Seat>,
    /// Points the winning side scored at the end of the hand.
    pub points: i32,
    /// Pips left in each seat's hand, by seat.
    pub pips: ArrayVec<i32, MAX_SEATS>,
    /// Points each side scored during play, by side.
    pub play_points: ArrayVec<i32, MAX_SEATS>,
    /// Every seat, best first, by the variant's ranking rule (`ranking.by`).
    #[serde(default)]
    pub ranking: ArrayVec<Seat, MAX_SEATS>,
}

/// How the match ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct Outcome {
    /// The winning side (`None`: drawn).
    pub winner: Option<Side>,
    /// Every side, best first: by match score, highest first (a side that
    /// shares a score ranks after those with a lower side number).
    #[serde(default)]
    pub ranking: ArrayVec<Side, MAX_SEATS>,
}
