//! # capicua-tournament
//!
//! Tournaments of dominoes (and of tiles with 3, 4 or 6 faces) as pure data and logic: scheduling, standings,
//! stop and disqualification rules. No IO, no clock, no async; every random
//! choice comes from the tournament seed (ChaCha8), so a configuration and
//! the list of recorded results determine the whole state.
//!
//! A [`TournamentSpec`] (TOML/JSON, see `tournament/examples/`) is validated
//! into a [`Config`]; a [`Tournament`] hands out [`Round`]s of [`Table`]s and
//! takes [`MatchResult`]s until it is finished.
//!
//! ```
//! use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};
//!
//! let spec: TournamentSpec = serde_json::from_str(r#"{
//!     "name": "league", "seed": 1, "table": "duel", "variants": ["block", "draw"],
//!     "entrants": ["ana", "ben", "eva", "leo", "mia"],
//!     "stages": [{ "format": "round-robin" }],
//!     "scoring": { "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } } }
//! }"#).unwrap();
//! let mut t = Tournament::new(spec.validate().unwrap());
//! while let Some(round) = t.next_round() {
//!     for table in &round.tables {
//!         // The server plays `round.variant` with these seats; here the lower id wins.
//!         let a = table.sides[0][0];
//!         let b = table.sides[1][0];
//!         let seats = vec![SeatResult::default(); table.seats.len()];
//!         t.record(MatchResult { round: round.number, table: table.id, seats, winner: Some(u32::from(b < a)) }).unwrap();
//!     }
//! }
//! let table = t.standings();
//! assert_eq!(table[0].name, "ana");
//! assert_eq!(table[0].points, 12);
//! assert_eq!(t.rounds().len(), 5);
//! ```
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
