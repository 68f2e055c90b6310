//! `capicua.Game` (a match of any variant, of either tile family) and
//! `capicua.View` (a seat's view handed to a Python strategy, read like
//! the dict `Game.view` returns).

use std::sync::OnceLock;

use capicua_engine::poly::{POLY_PRESETS, PolyMove};
use capicua_protocol::AnyMove;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use serde_json::Value;

use crate::convert::{from_py, py_of, to_py};
use crate::errors::{IllegalMoveError, VariantError};
use crate::model::{AnyGame, AnyRules, BareMove, LoadError, MoveError};

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
#[pyclass(name = "View", module = "capicua", frozen, mapping)]
pub struct PyView {
    pub(crate) snap: Snap,
    dict: OnceLock<Py<PyDict>>,
}

impl PyView {
    /// The view as the protocol's JSON.
    pub fn json(&self) -> Value {
        self.snap.json()
    }

    /// The view of a snapshot.
    pub fn new(snap: Snap) -> PyView {
        PyView { snap, dict: OnceLock::new() }
    }

    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if let Some(d) = self.dict.get() {
            return Ok(d.bind(py).clone());
        }
        let d = self.snap.to_py(py)?.cast_into::<PyDict>()?;
        let _ = self.dict.set(d.clone().unbind());
        Ok(self.dict.get().map(|d| d.bind(py).clone()).unwrap_or(d))
    }
}

#[pymethods]
impl PyView {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        if let Some(d) = self.dict.get() {
            return d.bind(py).get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()));
        }
        if let Some(value) = self.snap.field(py, key) {
            return value;
        }
        self.dict(py)?.get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))
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
    fn legal_count(&self) -> usize {
        self.snap.legal_count()
    }

    /// The legal moves (`view["legal-moves"]`).
    #[getter]
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(py, "legal-moves")
    }

    /// `"tiles"` or `"poly"`.
    #[getter]
    fn family(&self) -> &'static str {
        match self.snap {
            Snap::Tiles(_) => "tiles",
            Snap::Poly(..) => "poly",
        }
    }

    /// The viewer's seat.
    #[getter]
    fn seat(&self) -> Option<u8> {
        match &self.snap {
            Snap::Tiles(s) => s.seat.map(|s| s.0),
            Snap::Poly(s, _) => s.seat,
        }
    }

    fn __repr__(&self) -> String {
        format!("<capicua.View {} seat {:?}, {} legal moves>", self.family(), self.seat(), self.legal_count())
    }
}
