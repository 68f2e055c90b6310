//! The extension module `capicua._capicua`.

use pyo3::prelude::*;

use crate::errors::{IllegalMoveError, RemoteError, StrategyError, VariantError};
use crate::{bots, game, remote};

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
