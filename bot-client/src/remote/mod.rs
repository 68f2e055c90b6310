//! Remote bots: play on a capicua server over its WebSocket protocol.
//!
//! `capicua-bot play` runs [`play_as`]: each bot connects, says hello (with a
//! token, or as a guest; asking for batched events, since it decides from
//! each prompt's view), takes the seat it is given back (reconnect), asked
//! for (`--room`) or finds (the fullest waiting room of its variant and
//! kind, casual or rated, with an empty seat, else a new room), says ready,
//! answers every prompt with its strategy, says ready again after each
//! match, and prints each stored match's address once per process.
//!
//! Errors are transient or permanent ([`RemoteError::is_transient`]): a bot
//! retries the transient ones (an unreachable or restarting server, a
//! dropped connection) with the backoff of [`crate::backoff`], saying so
//! once per outage and cause, and stops on a permanent one (a bad address,
//! an HTTP answer that is not a WebSocket upgrade, a refused token, a
//! request the server calls bad), since retrying cannot fix it. A bot
//! following a tournament that does not exist yet waits for it.
//!
//! Bots named by `--register` get their tokens first ([`tokens_for`]): from
//! their token files ([`crate::token_file`]), or by registering.
//!
//! Modules: `connection` (the WebSocket speaking the protocol), `error`
//! (what goes wrong, and what retrying may fix), `family` and `decider`
//! (prompts to moves, for both tile families), `rooms` (finding a seat in
//! the lobby), `play` (lobby bots), `seated` (tournament and ladder bots),
//! `register` (tokens of named bots) and `tally` (what the bots of a
//! process count together).

mod connection;
mod decider;
mod error;
mod family;
mod options;
mod play;
mod register;
mod rooms;
mod seated;
mod tally;

use std::time::Duration;

/// How long connecting and the WebSocket handshake may take before the
/// attempt counts as failed (and is retried): a server that accepts and
/// then says nothing must not hold a bot forever.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub use connection::{Connection, Greeting};
pub use error::RemoteError;
pub(crate) use error::{code_name, unexpected};
pub use play::{PlayConfig, PlayOptions, PlayVariant, Strategies, play, play_as};
pub use register::{Registration, tokens_for};
pub use seated::{AwaitConfig, LadderConfig, await_assignments, await_assignments_with, ladder};
pub use tally::Tally;
