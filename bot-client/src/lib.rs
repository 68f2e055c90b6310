#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`remote`]: bots that find or join rooms, or await tournament
//!   assignments, and answer every prompt (`capicua-bot play`);
//! - [`load`]: many scripted tables at once, measuring throughput and
//!   latency (`capicua-bot load`);
//! - [`transport`]: server addresses, and the byte stream under the
//!   WebSocket (TCP or a Unix socket);
//! - [`backoff`]: when and how loudly remote bots retry;
//! - [`token_file`]: where a bot registered by name keeps its token;
//! - [`progress`]: the arena's progress bar (on a terminal only).

pub mod backoff;
pub mod load;
pub mod progress;
pub mod remote;
pub mod token_file;
pub mod transport;

pub use remote::RemoteError;
