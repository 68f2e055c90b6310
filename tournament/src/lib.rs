#![doc = include_str!("../README.md")]
//!
//! ## Files
//!
//! | file | concept |
//! |---|---|
//! | `config.rs` | [`TournamentSpec`], [`StageSpec`], [`FormatKind`], [`ClockSpec`] and validation into [`Config`] |
//! | `table.rs` | [`TableKind`]: seats, entrants and sides of a table |
//! | `error.rs` | [`ConfigError`], reported by every part of the description; [`ParseError`], a spec text that does not parse |
//! | `format/` | round robin, Swiss, knockouts (an arena's group plans no rounds); pairing without repeats |
//! | `format/dutch.rs` | Dutch-system Swiss pairing ([`SwissPairing::Dutch`]): a maximum-weight matching of the whole field, side (colour) allocation |
//! | `scoring.rs` | [`ScoringSpec`]: points per game, team score, winner rule, byes |
//! | `tiebreak.rs` | [`TieBreak`]: direct encounter, wins, Buchholz (cut-1, median, FIDE's), Sonneborn-Berger, ... |
//! | `stop.rs` | [`StopSpec`] |
//! | `disqualify.rs` | [`DisqualifySpec`], [`LenientJudgeSpec`] |
//! | `standings.rs` | [`Standing`] and the ranking order |
//! | `status.rs` | a hosted tournament's life: [`ControlAction`]s and runner [`Transition`]s allowed from each status |
//! | `round.rs` | [`Round`], [`Table`], [`Seat`], [`MatchResult`] |
//! | `tournament.rs` | [`Tournament`]: the state machine, [`Tournament::replay`] |
//! | `tournament/arena.rs` | the arena: [`Tournament::arena_pair`] pairs entrants as they come free until a deadline; [`Tournament::replay_with_tables`] |

mod config;
mod disqualify;
mod error;
mod format;
mod rng;
mod round;
mod scoring;
mod standings;
mod status;
mod stop;
mod table;
mod tiebreak;
mod tournament;

pub use config::{
    ClockSpec, Config, DEFAULT_MAX_GAMES, EntrantSpec, Family, FormatKind, MAX_ARENA_SECS, MAX_CLOCK_MS, MAX_ENTRANTS,
    MAX_GAMES_CEILING, MAX_RESULT_POINTS, RoundVariant, StageSpec, SwissPairing, TeamSpec, TimeoutRule, TournamentSpec,
};
pub use disqualify::{DisqualifySpec, LenientJudgeSpec, Violation};
pub use error::{ConfigError, ParseError};
pub use round::{Entrant, EntrantId, MatchResult, Round, Seat, SeatResult, Table};
pub use scoring::{ByeRule, Outcome, PointsRule, ScoringSpec, TeamScore, WinnerRule};
pub use standings::Standing;
pub use status::{ControlAction, ControlDecision, Transition, WrongStatus, deletable};
pub use stop::{StopReason, StopSpec};
pub use table::TableKind;
pub use tiebreak::TieBreak;
pub use tournament::arena::{ArenaPairing, REMATCH_WAIT_MS};
pub use tournament::{ArenaError, Control, ControlError, Entry, LogError, RecordError, Tournament};
