//! The package's exceptions.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;

create_exception!(capicua, VariantError, PyValueError, "A preset name or variant file the engine refused.");
create_exception!(capicua, IllegalMoveError, PyValueError, "A move that is not one of the legal moves.");
create_exception!(capicua, StrategyError, PyValueError, "A strategy spec that names no strategy, or a bad arena.");
create_exception!(
    capicua,
    RemoteError,
    pyo3::exceptions::PyRuntimeError,
    "Remote play stopped on an error retrying cannot fix."
);
