#![doc = include_str!("../README.md")]
//!
//! ## Beyond the classic choices
//!
//! A variant may also set end rules (`end`), a
//! ranking rule (`ranking`), a lenient referee ([`Game::referee_play`]),
//! partial visibility, per-deal random tile values and conditional rules
//! (`when`: "when CONDITION, use RULE", every combination compiled at
//! validation; a variant without them pays one predictable branch per move).
//!
//! Tiles with 3, 4 or 6 faces are a second family ([`poly`]); both games
//! implement [`Family`], so code that only runs a match (deal, legal moves,
//! play, scores, views) is written once for either.
//!
//! ## Design notes
//!
//! - Moves are small and `Copy`; [`Game::legal_moves`] returns a
//!   fixed-capacity [`MoveList`] that never allocates.
//! - Hands are 256-bit [`TileSet`]s; every matching rule compiles at
//!   validation into a table, so move generation is a few ANDs per open end.
//! - Randomness is ChaCha8 keyed from the seed by SplitMix64, with bounded
//!   integers computed here: a stored seed deals the same forever.

mod board;
mod catalog;
mod error;
mod family;
mod file;
mod game;
mod history;
mod moves;
pub mod poly;
mod presets;
mod rng;
mod rules;
mod seating;
mod sources;
mod tile;
mod variant;
mod view;

pub use board::{Board, MAX_ENDS, OpenEnd};
pub use catalog::{Param, ParamKind, RuleOption, catalog};
pub use error::{IllegalMove, SeatingError, SetupError, VariantError};
pub use family::Family;
pub use file::{FileFormat, VariantFileError};
pub use game::deal::Setup;
pub use game::events::{Event, Events, HandEnd, HandResult, Outcome};
pub use game::referee::Ruling;
pub use game::{Game, LeadRequirement, MAX_HANDS_PER_MATCH, MAX_MOVES_PER_MATCH, ReplayError};
pub use history::{Action, Record};
pub use moves::{EndId, MAX_MOVES, Move, MoveList};
pub use presets::{PRESETS, preset};
pub use rng::SeededRng;
pub use rules::{MAX_POINTS, MAX_WHEN, Rules};
pub use seating::{MAX_SEATS, Seat, Seating, Side, Table};
pub use sources::preset_sources;
pub use tile::{MAX_PIP, MAX_TILES, PIP_VALUES, Tile, TileCatalog, TileSet, TileSetIter};
// Every rule choice of a variant, by name: the types of `Variant`'s fields
// and of their options.
pub use variant::{
    ArmAccess, ArmDoubles, BlockedCompare, BlockedSpec, BlockedTie, BoardLayout, Capicua, ChickenFootSpec, Condition,
    DealMethod, DealSpec, Direction, DoubleCover, EndRule, FirstLeader, Fraction, HandPoints, HandSize, HandVisibility,
    Keep, LaterLeader, LeadSpec, LeadTile, LenientSpec, LonganaSpec, MatchRule, MatchTarget, PlayScoring, PlayersSpec,
    RankBy, RankingSpec, Referee, Rest, RuleOverride, ScoringSpec, SpinnerDoubles, SpinnerOpening, SpinnerSpec,
    StuckSpec, Teams, TileSpec, TileValue, TrainsSpec, TurnOrder, TurnSpec, Variant, Visibility, WhenRule, WhenUnable,
    WildTiles,
};
pub use view::{View, ViewSnapshot};
