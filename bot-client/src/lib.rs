//! # capicua-bot
//!
//! Remote domino bots: play on a capicua server over its WebSocket
//! protocol, and generate load against it.
//!
//! The strategies themselves, the spec language naming them and the arena
//! live in [`capicua_strategy`]; this crate connects them to a server. A
//! remote bot receives each prompt's view as a snapshot and decides from a
//! [`capicua_strategy::SnapshotSeat`], the same way a hosted bot decides.
//!
//! Modules:
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
