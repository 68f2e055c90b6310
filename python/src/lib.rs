#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`model`]: a match of either tile family and what it hands out, as
//!   JSON values (no Python needed: the Rust tests check it);
//! - [`convert`]: JSON values to Python objects and back;
//! - [`game`]: `capicua.Game` and `capicua.View`;
//! - [`seat`]: Python functions as strategies (arena seats, remote bots);
//! - [`bots`]: `capicua.Strategy`, `capicua.arena` and
//!   `capicua.random_hands`;
//! - [`remote`]: `capicua.play`, the bot client's remote loop.

pub mod bots;
pub mod convert;
pub mod game;
pub mod model;
pub mod remote;
pub mod seat;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(capicua, VariantError, PyValueError, "A preset name or variant file the engine refused.");
create_exception!(capicua, IllegalMoveError, PyValueError, "A move that is not one of the legal moves.");
create_exception!(capicua, StrategyError, PyValueError, "A strategy spec that names no strategy, or a bad arena.");
create_exception!(
    capicua,
    RemoteError,
    pyo3::exceptions::PyRuntimeError,
    "Remote play stopped on an error retrying cannot fix."
);

/// The extension module, `capicua._capicua`; `capicua/__init__.py`
/// re-exports it.
#[pymodule]
#[pyo3(name = "_capicua")]
fn capicua_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("VariantError", py.get_type::<VariantError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("StrategyError", py.get_type::<StrategyError>())?;
    m.add("RemoteError", py.get_type::<RemoteError>())?;
    m.add("MAX_ENDS", capicua_engine::MAX_ENDS)?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyView>()?;
    m.add_class::<bots::PyStrategy>()?;
    m.add_function(wrap_pyfunction!(game::presets, m)?)?;
    m.add_function(wrap_pyfunction!(bots::strategies, m)?)?;
    m.add_function(wrap_pyfunction!(bots::arena, m)?)?;
    m.add_function(wrap_pyfunction!(bots::random_hands, m)?)?;
    m.add_function(wrap_pyfunction!(remote::play, m)?)?;
    Ok(())
}
