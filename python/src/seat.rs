//! A Python function as a strategy of either family: the arena's seats and
//! remote bots call it with the seat's view (a `capicua.View`) and play
//! the move it returns.
//!
//! The strategy traits return a move, never an error: what the function
//! raises (or a move it returns that is not legal) is kept in a slot the
//! caller shares, the first legal move is played in its place, and the
//! caller raises it once the loop is back in Python. After a failure the
//! function is not called again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use capicua_engine::poly::{PolyMoveList, PolyView};
use capicua_engine::{Move, MoveList};
use capicua_protocol::AnyMove;
use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;
use capicua_strategy::seat_view::SeatView;
use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};

use crate::convert::from_py;
use crate::errors::IllegalMoveError;
use crate::game::{PyView, Snap};
use crate::model::{move_json, move_keys};

/// Where a Python strategy's first failure waits to be raised, shared by
/// the strategies of one loop: after it, none calls its function again.
#[derive(Clone, Default)]
pub struct ErrorSlot(Arc<Failure>);

#[derive(Default)]
struct Failure {
    /// Whether `error` holds one (read every move, without the lock).
    failed: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl ErrorSlot {
    /// Whether a failure is kept (or was, and has been taken).
    pub fn failed(&self) -> bool {
        self.0.failed.load(Ordering::Acquire)
    }

    /// Keeps `e`, unless a failure came first.
    pub fn fail(&self, e: PyErr) {
        let mut slot = self.0.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(e);
        self.0.failed.store(true, Ordering::Release);
    }

    /// The failure kept, to be raised.
    pub fn take(&self) -> Option<PyErr> {
        self.0.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A view to lend seats to, and the arguments of a call with it,
/// `(view,)`, made once (a tuple is a call's largest cost after the
/// function's own).
struct LentView {
    view: Py<PyView>,
    args: Py<PyTuple>,
}

impl LentView {
    fn new(py: Python<'_>) -> PyResult<LentView> {
        let view = Py::new(py, PyView::blank())?;
        let args = PyTuple::new(py, [view.clone_ref(py)])?.unbind();
        Ok(LentView { view, args })
    }
}

/// A Python function `choose(view) -> move` (a move's dict, or its index
/// among the view's legal moves).
pub struct PyChooser {
    func: Py<PyAny>,
    name: String,
    error: ErrorSlot,
    /// The two-faced view of the last call, which nothing else refers to:
    /// the next call's, lent the next seat.
    view: Option<LentView>,
    /// The legal moves of the seat choosing.
    legal: MoveList,
}

impl PyChooser {
    /// The strategy of `func`, named `name` in reports; failures go to `error`.
    pub fn new(func: Py<PyAny>, name: String, error: ErrorSlot) -> PyChooser {
        PyChooser { func, name, error, view: None, legal: MoveList::new() }
    }

    fn failed(&self) -> bool {
        self.error.failed()
    }

    fn fail(&self, e: PyErr) {
        self.error.fail(e);
    }

    /// The function's choice for the view, or `None` after a failure.
    pub fn ask(&self, snap: Snap) -> Option<AnyMove> {
        if self.failed() {
            return None;
        }
        Python::attach(|py| match Py::new(py, PyView::new(snap)) {
            Ok(view) => self.call(view.bind(py)),
            Err(e) => {
                self.fail(e);
                None
            }
        })
    }

    /// Calls the function with `view`: the legal move it names.
    fn call(&self, view: &Bound<'_, PyView>) -> Option<AnyMove> {
        self.call_with(view, (view,))
    }

    /// [`PyChooser::call`] with the call's arguments, `(view,)`.
    fn call_with<'py>(&self, view: &Bound<'py, PyView>, args: impl PyCallArgs<'py>) -> Option<AnyMove> {
        let picked = self.func.bind(view.py()).call1(args).and_then(|answer| chosen(&answer, view.get()));
        picked.map_err(|e| self.fail(e)).ok()
    }

    /// The function's choice for the seat to move, which the view handed
    /// to it reads in place; `None` after a failure.
    fn ask_seat(&mut self, seat: &dyn SeatView) -> Option<Move> {
        if self.failed() {
            return None;
        }
        let cached = self.view.take();
        let (picked, reuse) = Python::attach(|py| {
            let lent = match cached {
                // Only this chooser refers to them: no one can see them change.
                Some(c) if c.view.get_refcnt(py) == 2 && c.args.get_refcnt(py) == 1 => c,
                _ => match LentView::new(py) {
                    Ok(c) => c,
                    Err(e) => {
                        self.fail(e);
                        return (None, None);
                    }
                },
            };
            let (v, args) = (lent.view.bind(py), lent.args.bind(py));
            let mut reuse = true;
            let picked = v.get().lend(
                seat,
                &self.legal,
                || self.call_with(v, args),
                || {
                    // Anything besides this chooser's references (the function
                    // kept the view or its arguments, or an object it made
                    // refers to them) keeps the view.
                    reuse = v.get_refcnt() == 2 && args.get_refcnt() == 1;
                    !reuse
                },
            );
            (picked, reuse.then_some(lent))
        });
        self.view = reuse;
        match picked {
            Some(AnyMove::Tiles(m)) => Some(m),
            _ => None,
        }
    }
}

/// The legal move a function's answer names: an index, or a move's dict
/// equal to one of them.
fn chosen(answer: &Bound<'_, PyAny>, view: &PyView) -> PyResult<AnyMove> {
    if answer.is_instance_of::<PyInt>() {
        let i: i64 = answer.extract()?;
        return usize::try_from(i).ok().and_then(|i| view.legal_at(i)).ok_or_else(|| {
            IllegalMoveError::new_err(format!(
                "choose returned index {i}, not below the {} legal moves",
                view.legal_count()
            ))
        });
    }
    let legal = view.legal()?;
    // A legal move's dict read straight into a move, its keys counted: what
    // the scan below finds, without a JSON value per legal move.
    if let Ok(d) = answer.cast::<PyDict>()
        && let Ok(m) = pythonize::depythonize::<Move>(answer)
        && d.len() == move_keys(&m)
        && let Some(found) = legal.iter().find(|l| **l == AnyMove::Tiles(m))
    {
        return Ok(*found);
    }
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
        self.legal.clear();
        view.legal_moves(&mut self.legal);
        let first = self.legal.first().copied().unwrap_or(Move::Pass);
        self.ask_seat(view).unwrap_or(first)
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
