//! Errors of the bot library, one enum per failure domain.

use capicua_engine::poly::PolyIllegal;
use capicua_engine::{IllegalMove, Move, SeatingError, VariantError};
use thiserror::Error;

/// Why a bot could not be built or could not play.
#[derive(Debug, Error)]
pub enum BotError {
    /// A snapshot taken for a spectator has no seat to play for.
    #[error("a spectator's snapshot has no seat to play")]
    Spectator,
    /// A snapshot that does not fit its rules.
    #[error("snapshot does not fit the rules: {0}")]
    Snapshot(String),
    /// Every move a strategy proposed was refused.
    #[error("strategy {strategy} proposed no legal move (last refused: {last:?}: {error})")]
    NoLegalProposal {
        /// The strategy's name.
        strategy: String,
        /// The last move refused.
        last: Option<Move>,
        /// Why it was refused.
        error: IllegalMove,
    },
    /// A poly strategy chose a move the game refused.
    #[error("strategy {strategy}: {error}")]
    PolyIllegal {
        /// The strategy's name.
        strategy: String,
        /// Why the move was refused (it names the move).
        error: PolyIllegal,
    },
}

/// A strategy spec that cannot be parsed or built.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    /// No strategy has this name.
    #[error("unknown strategy {0:?} (see `capicua-bot strategies`)")]
    UnknownStrategy(String),
    /// A parameter the strategy does not take, or a bad value.
    #[error("strategy {strategy}: bad parameter {param:?}: {reason}")]
    BadParameter {
        /// The strategy.
        strategy: String,
        /// The parameter as written.
        param: String,
        /// What is wrong.
        reason: String,
    },
    /// A condition that cannot be parsed.
    #[error("bad condition {0:?}: expected `<measure> <op> <number>`, e.g. `hand-pips > 25`")]
    BadCondition(String),
    /// An empty spec.
    #[error("empty strategy spec")]
    Empty,
    /// A spec naming a file where files are not allowed (a spec that came
    /// over the network).
    #[error("strategy specs from the network cannot name files")]
    FileNotAllowed,
    /// A strategy that reads every seat's hand, where the spec came from
    /// the network: no server hosts it (rated or casual rooms, tournaments).
    #[error("strategy {0} sees every hand: it plays only in the operator's own arena, never on a server")]
    SeesHands(String),
    /// A spec longer than allowed where it came from.
    #[error("strategy spec too long ({len} characters, at most {max})")]
    TooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A spec file that cannot be read.
    #[error("cannot read strategy file {path}: {reason}")]
    File {
        /// The path.
        path: String,
        /// The IO error.
        reason: String,
    },
}

/// An arena that cannot be set up.
#[derive(Debug, Error)]
pub enum ArenaError {
    /// A seat's strategy spec is bad.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The variant is unplayable.
    #[error("variant: {0}")]
    Variant(#[from] VariantError),
    /// The seats do not fit the variant.
    #[error("seating: {0}")]
    Seating(#[from] SeatingError),
    /// A strategy failed during play.
    #[error(transparent)]
    Bot(#[from] BotError),
    /// A bad SPRT request.
    #[error("sprt: {0}")]
    Sprt(String),
}
