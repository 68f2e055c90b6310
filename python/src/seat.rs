//! A Python function as a strategy of either family: the arena's seats and
//! remote bots call it with the seat's view (a `capicua.View`) and play
//! the move it returns.
//!
//! The strategy traits return a move, never an error: what the function
//! raises (or a move it returns that is not legal) is kept in a slot the
//! caller shares, the first legal move is played in its place, and the
//! caller raises it once the loop is back in Python. After a failure the
//! function is not called again.

use std::sync::{Arc, Mutex};

use capicua_engine::poly::{PolyMoveList, PolyView};
use capicua_engine::{Move, MoveList};
use capicua_protocol::AnyMove;
use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;
use capicua_strategy::seat_view::SeatView;
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::convert::from_py;
use crate::errors::IllegalMoveError;
use crate::game::{PyView, Snap};
use crate::model::move_json;

/// Where a Python strategy's first failure waits to be raised.
pub type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// A Python function `choose(view) -> move` (a move's dict, or its index
/// among the view's legal moves).
pub struct PyChooser {
    func: Py<PyAny>,
    name: String,
    error: ErrorSlot,
}

impl PyChooser {
    /// The strategy of `func`, named `name` in reports; failures go to `error`.
    pub fn new(func: Py<PyAny>, name: String, error: ErrorSlot) -> PyChooser {
        PyChooser { func, name, error }
    }

    fn failed(&self) -> bool {
        self.error.lock().map(|e| e.is_some()).unwrap_or(true)
    }

    fn fail(&self, e: PyErr) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
    }

    /// The function's choice for the view, or `None` after a failure.
    pub fn ask(&self, snap: Snap) -> Option<AnyMove> {
        if self.failed() {
            return None;
        }
        Python::attach(|py| {
            let view = match Py::new(py, PyView::new(snap)) {
                Ok(v) => v,
                Err(e) => {
                    self.fail(e);
                    return None;
                }
            };
            let answer = match self.func.call1(py, (view.clone_ref(py),)) {
                Ok(a) => a.into_bound(py),
                Err(e) => {
                    self.fail(e);
                    return None;
                }
            };
            // The view is frozen: its legal moves are read in place.
            match chosen(&answer, &view.get().snap) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.fail(e);
                    None
                }
            }
        })
    }
}

/// The legal move a function's answer names: an index, or a move's dict
/// equal to one of them.
fn chosen(answer: &Bound<'_, PyAny>, snap: &Snap) -> PyResult<AnyMove> {
    if answer.is_instance_of::<PyInt>() {
        let i: i64 = answer.extract()?;
        return usize::try_from(i).ok().and_then(|i| snap.legal_at(i)).ok_or_else(|| {
            IllegalMoveError::new_err(format!(
                "choose returned index {i}, not below the {} legal moves",
                snap.legal_count()
            ))
        });
    }
    let legal = snap.legal();
    let value = from_py(answer)?;
    legal.iter().find(|m| move_json(m) == value).copied().ok_or_else(|| {
        IllegalMoveError::new_err(format!("choose returned {value}, not one of the {} legal moves", legal.len()))
    })
}

impl Strategy for PyChooser {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let Some(snap) = view.snapshot() else {
            self.fail(pyo3::exceptions::PyRuntimeError::new_err("this seat's view cannot be taken as data"));
            let mut legal = MoveList::new();
            view.legal_moves(&mut legal);
            return legal.first().copied().unwrap_or(Move::Pass);
        };
        let first = snap.legal_moves.first().copied().unwrap_or(Move::Pass);
        match self.ask(Snap::Tiles(Box::new(snap))) {
            Some(AnyMove::Tiles(m)) => m,
            _ => first,
        }
    }

    fn reseed(&mut self, _seed: u64) {}
}

impl PolyStrategy for PyChooser {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, view: &PolyView<'_>) -> capicua_engine::poly::PolyMove {
        let mut list = PolyMoveList::default();
        view.legal_moves(&mut list);
        let legal: Vec<AnyMove> = list.iter().map(|&m| AnyMove::Poly(m)).collect();
        let first = list.first().copied().unwrap_or(capicua_engine::poly::PolyMove::Pass);
        match self.ask(Snap::Poly(Box::new(view.snapshot()), legal)) {
            Some(AnyMove::Poly(m)) => m,
            _ => first,
        }
    }

    fn reseed(&mut self, _seed: u64) {}
}
