// Only what the binary, tests and tools use is `pub`: the lint keeps it so.
#![warn(unreachable_pub)]
//! # capicua-server
//!
//! The lobby, referee and persistence of capicua: HTTP and WebSocket on one
//! port (axum), one task per room owning its match (a two-faced
//! [`Game`](capicua_engine::Game) or a game of tiles with 3, 4 or 6 faces,
//! behind [`table`]'s one interface), one receive task and one send task per
//! connection, and sqlx's `Any` driver over SQLite (one server, the
//! default) or PostgreSQL (several servers on one database).
//!
//! ```text
//! client ──ws──▶ conn task ──RoomCmd──▶ room task (owns the match) ──▶ Outbox of each member ──▶ send task ──ws──▶ client
//!                                           │ finished game
//!                                           ▼
//!                                   db writer task (batched transactions, ratings) ──▶ SQLite (WAL) or PostgreSQL
//! ```
//!
//! [`run`] serves until its shutdown future resolves, then tells every
//! connection and every room, waits for them, and lets the database writer
//! commit what is queued.

// The library's API is what the `capicua-server` binary, its tests and
// tools use: `run` with its `Config` and `Listener`, the persistence layer
// (`db`), and tournament specs (`tournament::store`). Everything else is
// the server's own.
pub(crate) mod accept;
pub(crate) mod api;
pub(crate) mod bots;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod conn;
pub(crate) mod cpu;
pub mod db;
pub(crate) mod docs;
pub(crate) mod hints;
pub(crate) mod http;
pub mod ladder;
pub(crate) mod limits;
pub(crate) mod lobby;
pub(crate) mod matchmaking;
pub(crate) mod metrics;
pub(crate) mod nodes;
pub(crate) mod outbox;
pub(crate) mod ratings;
pub mod record;
pub(crate) mod replays;
pub(crate) mod replicas;
pub(crate) mod room;
pub(crate) mod room_cmd;
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
