#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`model`]: a match of either tile family and what it hands out, as
//!   JSON values (no Python needed: the Rust tests check it);
//! - [`lent`]: a seat lent to a strategy's view for one call (the crate's
//!   only unsafe code, behind a safe interface);
//!
//! and, with the feature `python` (which the wheel's build turns on):
//!
//! - `convert`: JSON values to Python objects and back;
//! - `game`: `capicua.Game` and `capicua.View`;
//! - `seat`: Python functions as strategies (arena seats, remote bots);
//! - `bots`: `capicua.Strategy`, `capicua.arena` and
//!   `capicua.random_hands`;
//! - `remote`: `capicua.play`, the bot client's remote loop.

// Everything but `model` needs CPython (feature `python`, which maturin
// turns on): without it the workspace builds and tests with Rust alone.
#[cfg(feature = "python")]
pub mod bots;
#[cfg(feature = "python")]
pub mod convert;
#[cfg(feature = "python")]
pub mod game;
pub mod lent;
pub mod model;
#[cfg(feature = "python")]
pub mod remote;
#[cfg(feature = "python")]
pub mod seat;

#[cfg(feature = "python")]
mod errors;
#[cfg(feature = "python")]
mod module;
#[cfg(feature = "python")]
pub use errors::{IllegalMoveError, RemoteError, StrategyError, VariantError};
