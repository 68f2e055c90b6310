// Only what the binary, tests and tools use is `pub`: the lint keeps it so.
#![warn(unreachable_pub)]
#![doc = include_str!("../README.md")]
//!
//! ## Where to start
//!
//! - [`run`] serves on a [`Listener`] with a [`Config`] and a [`Db`].
//! - [`db`]: opening, checking and migrating the database ([`Db::open`],
//!   [`Db::open_read_only`]), and every query.
//! - [`tournament`]: hosted tournaments, driven by real rooms.
//! - [`ladder`]: the always-on ladder for bots.
//! - [`record`]: what a finished match leaves behind.

// The library's API is what the `capicua-server` binary, its tests and
// tools use: `run` with its `Config` and `Listener`, the persistence layer
// (`db`), and tournament specs (`tournament::store`). Everything else is
// the server's own.
pub(crate) mod accept;
pub(crate) mod accounts;
pub(crate) mod api;
pub(crate) mod bots;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod conn;
pub(crate) mod cpu;
pub mod db;
pub(crate) mod docs;
pub(crate) mod guests;
pub(crate) mod hints;
pub(crate) mod http;
pub mod ladder;
pub(crate) mod limits;
pub(crate) mod lobby;
pub(crate) mod matchmaking;
pub(crate) mod metrics;
pub(crate) mod nodes;
pub(crate) mod outbox;
pub(crate) mod passwords;
pub(crate) mod play_now;
pub(crate) mod ratings;
pub mod record;
pub(crate) mod replays;
pub(crate) mod replicas;
pub(crate) mod room;
pub(crate) mod room_cmd;
pub(crate) mod secret;
pub(crate) mod serve;
pub(crate) mod state;
pub(crate) mod table;
pub mod tournament;
pub(crate) mod web;

pub use config::{BadOrigin, Config, CorsOrigins};
pub use db::Db;
pub use serve::{Listener, ServerError, run};
// Public only because public signatures name them
// (`tournament::spawn_scheduler`, a `Client` in the registries): the server
// is their only user.
pub use client::{Client, ConnId, Identity};
pub use lobby::RoomHandle;
pub use state::AppState;

pub(crate) use outbox::{Flusher, Outbox, encode};
pub(crate) use state::shutdown_signalled;
