//! `capicua.Game` (a match of any variant, of either tile family) and
//! `capicua.View` (a seat's view handed to a Python strategy, read like
//! the dict `Game.view` returns).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use capicua_engine::Move;
use capicua_engine::poly::{POLY_PRESETS, PolyMove};
use capicua_protocol::AnyMove;
use capicua_strategy::seat_view::SeatView;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use serde_json::Value;

use crate::convert::{from_py, py_of, to_py};
use crate::errors::{IllegalMoveError, VariantError};
use crate::lent::{Lent, Slot};
use crate::model::{AnyGame, AnyRules, BareMove, LoadError, MoveError, tiles_field};

/// A [`LoadError`] as Python's `capicua.VariantError`.
pub(crate) fn variant_error(e: LoadError) -> PyErr {
    VariantError::new_err(e.to_string())
}

/// A [`MoveError`] as Python's `capicua.IllegalMoveError`.
pub(crate) fn move_error(e: MoveError) -> PyErr {
    IllegalMoveError::new_err(e.to_string())
}

/// The rules a Python argument names: a preset's name, the TOML or JSON
/// text of a variant file, or a variant as a dict (JSON's shape).
pub(crate) fn rules_of(variant: &Bound<'_, PyAny>) -> PyResult<AnyRules> {
    if let Ok(s) = variant.cast::<PyString>() {
        return AnyRules::load(&s.to_cow()?).map_err(variant_error);
    }
    if let Ok(game) = variant.cast::<PyGame>() {
        return Ok(game.borrow().rules.clone());
    }
    if variant.is_instance_of::<PyDict>() {
        let text = from_py(variant)?.to_string();
        return AnyRules::load(&text).map_err(variant_error);
    }
    Err(PyTypeError::new_err("variant: a preset name, a variant file's text, or a variant dict"))
}

/// Every preset, by family: `{"tiles": [...], "poly": [...]}`.
#[pyfunction]
pub fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &serde_json::json!({ "tiles": capicua_engine::PRESETS, "poly": POLY_PRESETS }))
}

/// A match of any variant: two-faced dominoes or tiles with 3, 4 or 6
/// faces, dealt from a seed.
#[pyclass(name = "Game", module = "capicua")]
#[derive(Clone)]
pub struct PyGame {
    pub(crate) rules: AnyRules,
    pub(crate) game: AnyGame,
}

/// A Python move: an index into the legal moves, or a move's dict.
pub(crate) fn move_arg(game: &AnyGame, mv: &Bound<'_, PyAny>) -> PyResult<AnyMove> {
    if mv.is_instance_of::<PyInt>() {
        let index: usize = mv.extract()?;
        let legal = game.legal_moves();
        return legal.get(index).copied().ok_or_else(|| move_error(MoveError::Index { index, count: legal.len() }));
    }
    game.move_of(from_py(mv)?).map_err(move_error)
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (variant, seed = 0, seats = None, teams = None))]
    fn new(variant: &Bound<'_, PyAny>, seed: u64, seats: Option<u8>, teams: Option<Vec<Vec<u8>>>) -> PyResult<PyGame> {
        let rules = rules_of(variant)?;
        let game = AnyGame::deal(&rules, seats, teams, seed).map_err(variant_error)?;
        Ok(PyGame { rules, game })
    }

    /// `"tiles"` (two faces) or `"poly"` (3, 4 or 6 faces).
    #[getter]
    fn family(&self) -> &'static str {
        self.game.family()
    }

    /// The variant's name.
    #[getter]
    fn name(&self) -> String {
        self.rules.name().to_string()
    }

    /// The full variant, as a server sends it in `game-started`.
    #[getter]
    fn variant<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.rules.variant_json())
    }

    /// Every tile of the set, by id: two-faced tiles as `(low, high)`,
    /// poly tiles as their pips in order round the tile. An id indexes
    /// this list (`TileSet` order for two-faced tiles).
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.rules {
            AnyRules::Tiles(r) => {
                let tiles: Vec<capicua_engine::Tile> = r.catalog().all().iter().collect();
                py_of(py, &tiles)
            }
            AnyRules::Poly(r) => {
                let tiles: Vec<Vec<u8>> = r.set().tiles().iter().map(|t| t.pips().to_vec()).collect();
                py_of(py, &tiles)
            }
        }
    }

    /// Seats at the table.
    #[getter]
    fn seats(&self) -> u8 {
        self.game.seats()
    }

    /// The side each seat scores for.
    #[getter]
    fn sides(&self) -> Vec<u8> {
        self.game.sides()
    }

    /// The seat to move; `None` once the match is over.
    #[getter]
    fn to_move(&self) -> Option<u8> {
        self.game.to_move()
    }

    /// Whether the match is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.to_move().is_none()
    }

    /// The hand being played, from 0.
    #[getter]
    fn hand_number(&self) -> u32 {
        self.game.hand_number()
    }

    /// Moves played in the match.
    #[getter]
    fn plies(&self) -> usize {
        self.game.plies()
    }

    /// The legal moves of the seat to move, as dicts (`{"kind": "play",
    /// ...}`, `{"kind": "draw"}`, `{"kind": "pass"}`); empty once over.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let legal = self.game.legal_moves();
        let moves: Vec<BareMove<'_>> = legal.iter().map(BareMove).collect();
        py_of(py, &moves)
    }

    /// Plays a move of the seat to move: one of `legal_moves()` (a dict),
    /// or its index. Returns the events, as every seat sees them. An
    /// illegal move raises `IllegalMoveError` and changes nothing.
    fn play<'py>(&mut self, py: Python<'py>, mv: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let m = move_arg(&self.game, mv)?;
        let events = self.game.play_events(m).map_err(move_error)?;
        py_of(py, &events)
    }

    /// What `seat` may know (`None`: a spectator), as the protocol's JSON
    /// view: its own hand, never another seat's hidden tile.
    #[pyo3(signature = (seat = None))]
    fn view<'py>(&self, py: Python<'py>, seat: Option<u8>) -> PyResult<Bound<'py, PyAny>> {
        self.check_seat(seat)?;
        self.game.snap(seat).to_py(py)
    }

    /// How the match stands: `over`, `scores` (by side), `seat-scores`,
    /// `winner` (a side, `None` while on or drawn), `hands` (each finished
    /// hand's result, two-faced variants) and `outcome`.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.game.result())
    }

    /// Starts a new match at the same table from `seed`.
    fn restart(&mut self, seed: u64) {
        self.game.restart(seed);
    }

    /// An independent copy of the match (for search from Python).
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<capicua.Game {} ({}), {} seats, hand {}, {} moves played{}>",
            self.rules.name(),
            self.game.family(),
            self.game.seats(),
            self.game.hand_number(),
            self.game.plies(),
            if self.game.to_move().is_none() { ", over" } else { "" }
        )
    }
}

impl PyGame {
    fn check_seat(&self, seat: Option<u8>) -> PyResult<()> {
        match seat {
            Some(s) if s >= self.game.seats() => {
                Err(pyo3::exceptions::PyValueError::new_err(format!("seat {s} of a table of {}", self.game.seats())))
            }
            _ => Ok(()),
        }
    }
}

pub use crate::model::Snap;

impl Snap {
    /// The view as Python objects: the keys of the protocol's JSON.
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Snap::Tiles(s) => py_of(py, &**s),
            Snap::Poly(s, legal) => {
                let view = py_of(py, &**s)?;
                let moves: Vec<PolyMove> =
                    legal.iter().filter_map(|m| if let AnyMove::Poly(m) = m { Some(*m) } else { None }).collect();
                view.set_item("legal-moves", py_of(py, &moves)?)?;
                Ok(view)
            }
        }
    }

    /// One key of the view, built alone: a strategy that reads its hand
    /// and legal moves pays for those only. `None` for a key built with
    /// the whole view (the rarer ones, and those absent when empty).
    fn field<'py>(&self, py: Python<'py>, key: &str) -> Option<PyResult<Bound<'py, PyAny>>> {
        Some(match self {
            Snap::Tiles(s) => match key {
                "legal-moves" => py_of(py, &s.legal_moves),
                "hand" => py_of(py, &s.hand),
                "seat" => py_of(py, &s.seat),
                "to-move" => py_of(py, &s.to_move),
                "ends" => py_of(py, &s.ends),
                "hand-sizes" => py_of(py, &s.hand_sizes),
                "history" => py_of(py, &s.history),
                "scores" => py_of(py, &s.scores),
                "stock" => py_of(py, &s.stock),
                "hand-number" => py_of(py, &s.hand_number),
                "leader" => py_of(py, &s.leader),
                "play-points" => py_of(py, &s.play_points),
                _ => return None,
            },
            Snap::Poly(s, _) => match key {
                "legal-moves" => {
                    let moves: Vec<PolyMove> = self
                        .legal()
                        .iter()
                        .filter_map(|m| if let AnyMove::Poly(m) = m { Some(*m) } else { None })
                        .collect();
                    py_of(py, &moves)
                }
                "hand" => py_of(py, &s.hand),
                "seat" => py_of(py, &s.seat),
                "to-move" => py_of(py, &s.to_move),
                "board" => py_of(py, &s.board),
                "hand-sizes" => py_of(py, &s.hand_sizes),
                "scores" => py_of(py, &s.scores),
                "stock" => py_of(py, &s.stock),
                _ => return None,
            },
        })
    }

    /// The viewer's legal moves.
    pub fn legal(&self) -> Vec<AnyMove> {
        match self {
            Snap::Tiles(s) => s.legal_moves.iter().map(|&m| AnyMove::Tiles(m)).collect(),
            Snap::Poly(_, legal) => legal.clone(),
        }
    }

    /// The `i`th legal move.
    pub fn legal_at(&self, i: usize) -> Option<AnyMove> {
        match self {
            Snap::Tiles(s) => s.legal_moves.get(i).map(|&m| AnyMove::Tiles(m)),
            Snap::Poly(_, legal) => legal.get(i).copied(),
        }
    }

    /// How many legal moves.
    pub fn legal_count(&self) -> usize {
        match self {
            Snap::Tiles(s) => s.legal_moves.len(),
            Snap::Poly(_, legal) => legal.len(),
        }
    }
}

/// A seat's view, handed to a Python strategy: a read-only mapping with
/// the keys of `Game.view(seat)`.
///
/// A strategy's view is lent the seat itself for the length of the call
/// ([`PyView::lend`]): each key is read from the seat when asked for, and
/// nothing else is built. When the call returns, a view that the function
/// kept (or that another object still refers to) is given the seat's whole
/// snapshot, so it reads the same afterwards; one that nothing refers to
/// is lent the next seat.
#[pyclass(name = "View", module = "capicua", frozen, mapping)]
pub struct PyView {
    /// The seat lent for the call, if any.
    seat: Slot,
    /// Whether `state` holds anything (read without its lock).
    built: AtomicBool,
    // Held only while plain Rust runs (never while Python objects are
    // made, which may run any Python code): nothing waits on it while
    // holding the interpreter.
    state: Mutex<ViewState>,
}

#[derive(Default)]
struct ViewState {
    /// The whole view, once taken (always, outside a lending).
    snap: Option<Arc<Snap>>,
    /// The whole view as a dict, once built.
    dict: Option<Py<PyDict>>,
}

fn not_lent() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(
        "this view is its seat's only while its strategy chooses, and on that thread",
    )
}

impl PyView {
    /// The view of a snapshot.
    pub fn new(snap: Snap) -> PyView {
        PyView {
            seat: Slot::default(),
            built: AtomicBool::new(true),
            state: Mutex::new(ViewState { snap: Some(Arc::new(snap)), dict: None }),
        }
    }

    /// A view with nothing to read but what it is [lent](PyView::lend).
    pub fn blank() -> PyView {
        PyView { seat: Slot::default(), built: AtomicBool::new(false), state: Mutex::new(ViewState::default()) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ViewState> {
        // A panic under the lock leaves plain data behind: keep reading it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores in the state under its lock.
    fn build<T>(&self, f: impl FnOnce(&mut ViewState) -> T) -> T {
        let mut st = self.state();
        self.built.store(true, Ordering::Release);
        f(&mut st)
    }

    /// Runs `f` with the view lent `seat`, the seat to move, whose legal
    /// moves are `legal`: it reads the seat in place. Then, if `kept()`
    /// says that something besides its owner refers to the view, it takes
    /// the seat's whole snapshot; else it forgets everything of it (and
    /// may be lent again). A view lent must be [blank](PyView::blank) or
    /// forgotten.
    pub fn lend<R>(
        &self,
        seat: &dyn SeatView,
        legal: &[Move],
        f: impl FnOnce() -> R,
        kept: impl FnOnce() -> bool,
    ) -> R {
        self.seat.lend(&Lent { seat, legal }, || {
            let r = f();
            if kept() {
                // A snapshot taken during the call is the same.
                if self.state().snap.is_none() {
                    let snap = seat.snapshot().map(|s| Arc::new(Snap::Tiles(Box::new(s))));
                    self.build(|st| st.snap = snap);
                }
            } else if self.built.swap(false, Ordering::AcqRel) {
                let dict = {
                    let mut st = self.state();
                    st.snap = None;
                    st.dict.take()
                };
                // Python objects are dropped outside the lock.
                drop(dict);
            }
            r
        })
    }

    /// The whole snapshot, once taken.
    fn taken(&self) -> Option<Arc<Snap>> {
        if !self.built.load(Ordering::Acquire) {
            return None;
        }
        self.state().snap.clone()
    }

    /// The whole snapshot: its own, or the lent seat's, which it keeps.
    fn snap(&self) -> PyResult<Arc<Snap>> {
        if let Some(s) = self.taken() {
            return Ok(s);
        }
        let snap = self.seat.with(|lent| match lent {
            Some(lent) => lent
                .seat
                .snapshot()
                .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("this seat's view cannot be taken as data")),
            None => Err(not_lent()),
        })?;
        let snap = Arc::new(Snap::Tiles(Box::new(snap)));
        Ok(self.build(|st| st.snap.get_or_insert(snap).clone()))
    }

    /// The view as the protocol's JSON.
    pub fn json(&self) -> PyResult<Value> {
        Ok(self.snap()?.json())
    }

    /// The viewer's legal moves.
    pub fn legal(&self) -> PyResult<Vec<AnyMove>> {
        if let Some(legal) = self.seat.with(|l| l.map(|l| l.legal.iter().map(|&m| AnyMove::Tiles(m)).collect())) {
            return Ok(legal);
        }
        Ok(self.snap()?.legal())
    }

    /// The `i`th legal move.
    pub fn legal_at(&self, i: usize) -> Option<AnyMove> {
        match self.seat.with(|l| l.map(|l| l.legal.get(i).map(|&m| AnyMove::Tiles(m)))) {
            Some(m) => m,
            None => self.taken()?.legal_at(i),
        }
    }

    /// How many legal moves.
    pub fn legal_count(&self) -> usize {
        match self.seat.with(|l| l.map(|l| l.legal.len())) {
            Some(n) => n,
            None => self.taken().map_or(0, |s| s.legal_count()),
        }
    }

    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.built.load(Ordering::Acquire)
            && let Some(d) = &self.state().dict
        {
            return Ok(d.bind(py).clone());
        }
        let d = self.snap()?.to_py(py)?.cast_into::<PyDict>()?;
        // Another thread may have built it meanwhile: one dict per view.
        Ok(self.build(|st| st.dict.get_or_insert_with(|| d.unbind()).bind(py).clone()))
    }
}

#[pymethods]
impl PyView {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        let missing = || PyKeyError::new_err(key.to_string());
        if self.built.load(Ordering::Acquire) {
            let (dict, snap) = {
                let st = self.state();
                (st.dict.as_ref().map(|d| d.clone_ref(py)), st.snap.clone())
            };
            if let Some(d) = dict {
                return d.bind(py).get_item(key)?.ok_or_else(missing);
            }
            if let Some(value) = snap.and_then(|s| s.field(py, key)) {
                return value;
            }
        } else {
            match self.seat.with(|lent| lent.map(|l| tiles_field(l.seat, l.legal, key))) {
                Some(Some(field)) => return py_of(py, &field),
                Some(None) => {}
                None => return Err(not_lent()),
            }
        }
        // A key read from the whole view.
        self.dict(py)?.get_item(key)?.ok_or_else(missing)
    }

    fn __contains__(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        self.dict(py)?.contains(key)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.dict(py)?.len())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.keys().into_any().try_iter()?.into_any())
    }

    /// The value of `key`, or `default`.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.get_item(key)?.or(default).unwrap_or_else(|| py.None().into_bound(py)))
    }

    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.keys().into_any())
    }

    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.values().into_any())
    }

    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.items().into_any())
    }

    /// The view as a plain dict (a copy), as `Game.view(seat)` returns it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)?.copy()
    }

    /// The number of legal moves, without building the view's objects: a
    /// strategy may answer with an index below it.
    #[getter]
    fn get_legal_count(&self) -> usize {
        self.legal_count()
    }

    /// The legal moves (`view["legal-moves"]`).
    #[getter]
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(py, "legal-moves")
    }

    /// `"tiles"` or `"poly"`.
    #[getter]
    fn family(&self) -> &'static str {
        match self.taken().as_deref() {
            Some(Snap::Poly(..)) => "poly",
            _ => "tiles",
        }
    }

    /// The viewer's seat.
    #[getter]
    fn seat(&self) -> Option<u8> {
        if let Some(seat) = self.seat.with(|l| l.map(|l| l.seat.seat().0)) {
            return Some(seat);
        }
        match self.taken().as_deref() {
            Some(Snap::Tiles(s)) => s.seat.map(|s| s.0),
            Some(Snap::Poly(s, _)) => s.seat,
            None => None,
        }
    }

    fn __repr__(&self) -> String {
        format!("<capicua.View {} seat {:?}, {} legal moves>", self.family(), self.seat(), self.legal_count())
    }
}
