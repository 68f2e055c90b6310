//! # capicua-engine
//!
//! The rules of dominoes as data, and a referee that plays them.
//!
//! A [`Variant`] is plain, serializable data: one field per rule choice
//! (tile set, deal, lead, layout, matching, turn order, stuck policy, blocked
//! hands, scoring, target, visibility). [`Variant::validate`] turns it into
//! [`Rules`], the only thing a [`Game`] accepts. Classic games are named
//! [`preset`]s of that data.
//!
//! The engine is pure: no IO, no clock, no global state. A game is fully
//! determined by its rules, seating and seed; its move log replays it.
//!
//! ```
//! use capicua_engine::{Game, Rules, Seat, Seating};
//!
//! let rules = Rules::preset("latin").unwrap();
//! let mut game = Game::new(rules.into(), Seating::new(4), 2026).unwrap();
//! while let Some(seat) = game.to_move() {
//!     // A seat decides from its view only.
//!     let view = game.view(seat);
//!     let moves = view.legal_moves();
//!     let m = moves[moves.len() / 2];
//!     game.play(m).expect("a legal move is accepted");
//! }
//! let winner = game.outcome().unwrap().winner;
//! assert!(game.scores().iter().any(|&s| s >= 100));
//! # let _ = winner;
//! ```
//!
//! Beyond the classic choices a variant may set end rules (`end`), a
//! ranking rule (`ranking`), a lenient referee ([`Game::referee_play`]),
//! partial visibility, per-deal random tile values and conditional rules
//! (`when`: "when CONDITION, use RULE", every combination compiled at
//! validation; a variant without them pays one predictable branch per move).
//!
//! Tiles with 3, 4 or 6 faces are a second family ([`poly`]); both games
//! implement [`Family`], so code that only runs a match (deal, legal moves,
//! play, scores, views) is written once for either.
//!
//! Design notes:
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
