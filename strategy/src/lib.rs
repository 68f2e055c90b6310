#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`seat_view`]: the [`SeatView`] trait and its three implementations
//!   (engine view, in-process fast path, remote snapshot);
//! - [`strategy`]: the [`Strategy`] trait and every strategy;
//! - [`spec`]: strategies by name and the spec-string language;
//! - [`facts`]: what the public record proves about the hidden hands;
//! - [`determinize`]: sampling hidden tiles consistently (for `pimc` and
//!   `ismcts`);
//! - [`pimc`]: perfect-information Monte Carlo, one search for both tile
//!   families;
//! - [`poly`]: strategies for tiles with 3, 4 or 6 faces (their own
//!   trait and names);
//! - [`referee`]: asking a strategy and playing its move;
//! - [`arena`]: many games in process, with statistics ([`stats`]) and an
//!   SPRT;
//! - [`rng`]: the seeded random stream every strategy draws from;
//! - [`stop`]: stopping a search early from another thread.

pub mod arena;
pub mod determinize;
pub mod error;
pub mod facts;
pub mod pimc;
pub mod poly;
pub mod referee;
pub mod rng;
pub mod seat_view;
pub mod spec;
pub mod stats;
pub mod stop;
pub mod strategy;

pub use error::{ArenaError, BotError, SpecError};
pub use rng::BotRng;
pub use seat_view::{SeatView, SnapshotSeat, TableSeat};
pub use spec::{Policy, SearchCaps, build, build_with};
pub use stop::StopFlag;
pub use strategy::Strategy;
