//! The built-in strategies from Python (`capicua.Strategy`,
//! `capicua.strategy`), and the strategy crate's arena with Python
//! functions as seats (`capicua.arena`, `capicua.random_hands`).

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use capicua_engine::poly::{PolyGame, PolyRules, PolyViewSnapshot};
use capicua_engine::{Rules, Seat, ViewSnapshot};
use capicua_protocol::AnyMove;
use capicua_strategy::arena::{Arena, ArenaConfig, Builder, Mode};
use capicua_strategy::poly::{POLY_STRATEGIES, PolyStrategy, build_poly, run_poly_arena};
use capicua_strategy::rng::derive_seed;
use capicua_strategy::spec::{STRATEGIES, build};
use capicua_strategy::{ArenaError, SnapshotSeat, Strategy, TableSeat};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{from_py, py_of, to_py};
use crate::errors::StrategyError;
use crate::game::{PyGame, PyView, rules_of};
use crate::model::{AnyGame, AnyRules, BareMove, to_json};
use crate::seat::{ErrorSlot, PyChooser};

/// Every strategy name with a one-line description, by family.
#[pyfunction]
pub fn strategies(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &serde_json::json!({ "tiles": STRATEGIES, "poly": POLY_STRATEGIES }))
}

/// A built-in strategy, by spec (`"random"`, `"pimc:samples=200"`,
/// `"bota-gorda while hand-pips > 25 else smart"`): for two-faced variants
/// the strategy crate's spec language, for tiles with 3, 4 or 6 faces its
/// poly strategies (`random`, `greedy`, `pimc`). Built for a family the
/// first time it is asked to move in one.
#[pyclass(name = "Strategy", module = "capicua")]
pub struct PyStrategy {
    spec: String,
    seed: u64,
    tiles: Mutex<Option<Box<dyn Strategy>>>,
    poly: Mutex<Option<Box<dyn PolyStrategy>>>,
}

fn spec_error(e: impl std::fmt::Display) -> PyErr {
    StrategyError::new_err(e.to_string())
}

impl PyStrategy {
    /// The spec, as the arena reads it.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    fn with_tiles<T>(&self, f: impl FnOnce(&mut dyn Strategy) -> T) -> PyResult<T> {
        let mut slot = self.tiles.lock().map_err(|_| spec_error("a strategy call panicked"))?;
        if slot.is_none() {
            *slot = Some(build(&self.spec, self.seed).map_err(spec_error)?);
        }
        Ok(f(slot.as_deref_mut().expect("built above")))
    }

    fn with_poly<T>(&self, f: impl FnOnce(&mut dyn PolyStrategy) -> T) -> PyResult<T> {
        let mut slot = self.poly.lock().map_err(|_| spec_error("a strategy call panicked"))?;
        if slot.is_none() {
            *slot = Some(build_poly(&self.spec, self.seed).map_err(spec_error)?);
        }
        Ok(f(slot.as_deref_mut().expect("built above")))
    }

    fn choose_in_game(&self, py: Python<'_>, game: &AnyGame) -> PyResult<AnyMove> {
        let Some(seat) = game.to_move() else { return Err(PyValueError::new_err("the match is over")) };
        // Searches think for milliseconds or more: other Python threads run meanwhile.
        py.detach(|| match game {
            AnyGame::Tiles(g) => self.with_tiles(|s| AnyMove::Tiles(s.choose(&TableSeat::new(g, Seat(seat))))),
            AnyGame::Poly(g) => self.with_poly(|s| AnyMove::Poly(s.choose(&g.view(seat)))),
        })
    }

    fn choose_in_view(&self, py: Python<'_>, rules: &AnyRules, view: &serde_json::Value) -> PyResult<AnyMove> {
        let bad_view =
            |e: &dyn std::fmt::Display| PyValueError::new_err(format!("not a view of {}: {e}", rules.name()));
        match rules {
            AnyRules::Tiles(r) => {
                let snap: ViewSnapshot = serde_json::from_value(view.clone()).map_err(|e| bad_view(&e))?;
                let at = SnapshotSeat::new(r, &snap).map_err(|e| bad_view(&e))?;
                if snap.to_move != snap.seat {
                    return Err(PyValueError::new_err("the view's seat is not to move"));
                }
                py.detach(|| self.with_tiles(|s| AnyMove::Tiles(s.choose(&at))))
            }
            AnyRules::Poly(r) => {
                let snap: PolyViewSnapshot = serde_json::from_value(view.clone()).map_err(|e| bad_view(&e))?;
                let game = PolyGame::from_snapshot(r.clone(), &snap).map_err(|e| bad_view(&e))?;
                let seat = snap.seat.filter(|&s| game.to_move() == Some(s));
                let seat = seat.ok_or_else(|| PyValueError::new_err("the view's seat is not to move"))?;
                py.detach(|| self.with_poly(|s| AnyMove::Poly(s.choose(&game.view(seat)))))
            }
        }
    }
}

/// The rules a view names: the `variant` argument, else the preset the
/// view's `variant` key names.
fn view_rules(view: &serde_json::Value, variant: Option<&Bound<'_, PyAny>>) -> PyResult<AnyRules> {
    if let Some(v) = variant {
        return rules_of(v);
    }
    let name = view.get("variant").and_then(|n| n.as_str()).unwrap_or_default();
    AnyRules::load(name).map_err(|_| {
        PyValueError::new_err(format!(
            "the view's variant {name:?} is no preset: pass its rules as variant= (a name, a variant file's text, or a Game)"
        ))
    })
}

#[pymethods]
impl PyStrategy {
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<PyStrategy> {
        let tiles = build(spec, seed);
        let poly = build_poly(spec, seed);
        if let (Err(e), Err(_)) = (&tiles, &poly) {
            return Err(spec_error(e));
        }
        Ok(PyStrategy {
            spec: spec.trim().to_string(),
            seed,
            tiles: Mutex::new(tiles.ok()),
            poly: Mutex::new(poly.ok()),
        })
    }

    /// The spec it was built from.
    #[getter]
    fn name(&self) -> String {
        self.spec.clone()
    }

    /// The move of the seat to move: in a `Game` (seeing only that seat's
    /// view), or in a view (a `View` or the dict `Game.view(seat)`
    /// returns), whose rules are `variant` (a name, a variant file's text
    /// or a `Game`) or else the preset the view names. Returns the move's
    /// dict.
    #[pyo3(signature = (position, variant = None))]
    fn choose<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        variant: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = if let Ok(game) = position.cast::<PyGame>() {
            let game = game.borrow();
            self.choose_in_game(py, &game.game)?
        } else {
            let view = view_value(position)?;
            let rules = view_rules(&view, variant)?;
            self.choose_in_view(py, &rules, &view)?
        };
        py_of(py, &BareMove(&m))
    }

    /// `strategy(view)`: the same as `choose`, so a strategy is an arena
    /// seat or a `play` callback as it is.
    #[pyo3(signature = (position, variant = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        variant: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.choose(py, position, variant)
    }

    fn __repr__(&self) -> String {
        format!("capicua.Strategy({:?}, seed={})", self.spec, self.seed)
    }
}

/// A view as a JSON value: a `View` (its dict) or a dict.
fn view_value(position: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(v) = position.cast::<PyView>() {
        return v.get().json();
    }
    if position.is_instance_of::<PyDict>() {
        return from_py(position);
    }
    Err(PyTypeError::new_err("position: a Game, a View, or a view's dict"))
}

/// The seats of an arena: each a spec, with Python functions under names
/// of their own.
struct Seats {
    specs: Vec<String>,
    functions: HashMap<String, Py<PyAny>>,
}

fn seats_of(py: Python<'_>, seats: &Bound<'_, PyAny>) -> PyResult<Seats> {
    let mut specs = Vec::new();
    let mut functions: HashMap<String, Py<PyAny>> = HashMap::new();
    for seat in seats.try_iter()? {
        let seat = seat?;
        if let Ok(s) = seat.cast::<PyString>() {
            specs.push(s.to_cow()?.into_owned());
        } else if let Ok(s) = seat.cast::<PyStrategy>() {
            specs.push(s.borrow().spec.clone());
        } else if seat.is_callable() {
            // The same function in several seats is one name.
            let existing = functions.iter().find(|(_, f)| f.bind(py).is(&seat)).map(|(n, _)| n.clone());
            let name = match existing {
                Some(n) => n,
                None => {
                    let base = seat
                        .getattr("__name__")
                        .and_then(|n| n.extract::<String>())
                        .unwrap_or_else(|_| "function".into());
                    let mut name = format!("python:{base}");
                    let mut k = 2;
                    while functions.contains_key(&name) {
                        name = format!("python:{base}#{k}");
                        k += 1;
                    }
                    functions.insert(name.clone(), seat.clone().unbind());
                    name
                }
            };
            specs.push(name);
        } else {
            return Err(PyTypeError::new_err(
                "each seat: a strategy spec, a capicua.Strategy, or a function choose(view)",
            ));
        }
    }
    Ok(Seats { specs, functions })
}

/// Plays `games` games between `seats` (strategy specs, `capicua.Strategy`
/// objects or Python functions `choose(view) -> move`), the strategy
/// crate's arena: duplicate deals with the seats rotated, and the same
/// statistics as `capicua-bot arena` (wins with 95% Wilson intervals, mean
/// scores, blocked and tie rates, per team too). `mode` is `"hands"` (one
/// hand a game) or `"matches"`. Tiles with 3, 4 or 6 faces play in the
/// poly arena: each game dealt from its own seed with the seats rotated one
/// a game, the same per-seat statistics, on one thread. Returns the report
/// as a dict.
#[pyfunction]
#[pyo3(signature = (variant, seats, games = 1000, seed = 1, mode = "hands", threads = 1, time_moves = false))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub fn arena<'py>(
    py: Python<'py>,
    variant: &Bound<'py, PyAny>,
    seats: &Bound<'py, PyAny>,
    games: u64,
    seed: u64,
    mode: &str,
    threads: usize,
    time_moves: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let rules = rules_of(variant)?;
    let seats = seats_of(py, seats)?;
    let mode = match mode {
        "hands" => Mode::Hands,
        "matches" => Mode::Matches,
        other => return Err(PyValueError::new_err(format!("mode {other:?}: \"hands\" or \"matches\""))),
    };
    let report = match &rules {
        AnyRules::Tiles(r) => run_arena(py, r, seats, games, seed, mode, threads, time_moves)?,
        AnyRules::Poly(r) => run_poly(py, r, seats, games, seed, mode)?,
    };
    to_py(py, &report)
}

/// The poly arena (tiles with 3, 4 or 6 faces), on this thread: its report.
fn run_poly(
    py: Python<'_>,
    rules: &Arc<PolyRules>,
    seats: Seats,
    games: u64,
    seed: u64,
    mode: Mode,
) -> PyResult<serde_json::Value> {
    let error = ErrorSlot::default();
    let python = !seats.functions.is_empty();
    let mut strategies = Vec::with_capacity(seats.specs.len());
    for (e, spec) in seats.specs.iter().enumerate() {
        strategies.push(match seats.functions.get(spec) {
            Some(f) => Box::new(PyChooser::new(f.clone_ref(py), spec.clone(), error.clone())) as Box<dyn PolyStrategy>,
            None => build_poly(spec, derive_seed(seed, e as u64)).map_err(spec_error)?,
        });
    }
    let mut play = || run_poly_arena(rules.clone(), &mut strategies, games, seed, mode);
    // As in the two-faced arena: Python seats are called on this thread.
    let report = if python { play() } else { py.detach(play) };
    finish(&error, report)
}

/// An arena's report, or the first error: a Python seat's (which stopped
/// it) before the arena's own.
fn finish<R: serde::Serialize>(error: &ErrorSlot, report: Result<R, ArenaError>) -> PyResult<serde_json::Value> {
    if let Some(e) = error.take() {
        return Err(e);
    }
    Ok(to_json(&report.map_err(spec_error)?))
}

#[allow(clippy::too_many_arguments, reason = "the arena's settings")]
fn run_arena(
    py: Python<'_>,
    rules: &Rules,
    seats: Seats,
    games: u64,
    seed: u64,
    mode: Mode,
    threads: usize,
    time_moves: bool,
) -> PyResult<serde_json::Value> {
    let error = ErrorSlot::default();
    let python = !seats.functions.is_empty();
    let functions = Arc::new(seats.functions);
    let builder: Arc<Builder> = {
        let (functions, error) = (functions.clone(), error.clone());
        Arc::new(move |spec: &str, seed: u64| match functions.get(spec) {
            Some(f) => {
                let f = Python::attach(|py| f.clone_ref(py));
                Ok(Box::new(PyChooser::new(f, spec.to_string(), error.clone())) as Box<dyn Strategy>)
            }
            None => build(spec, seed),
        })
    };
    let config = ArenaConfig {
        variant: rules.variant().clone(),
        seats: seats.specs,
        games,
        // Python functions take the GIL in turn: more threads only wait.
        threads: if python { 1 } else { threads.max(1) },
        seed,
        mode,
        sprt: None,
        time_moves,
    };
    let arena = Arena::with_builder(config, builder).map_err(spec_error)?;
    let progress = AtomicU64::new(0);
    // With Python seats the arena runs on this thread, which keeps the
    // interpreter: each call into Python is then a plain call, where a
    // thread of its own would set up and tear down an interpreter state
    // per call. Without them, other Python threads run meanwhile.
    let report = if python { arena.run(&progress) } else { py.detach(|| arena.run(&progress)) };
    finish(&error, report)
}

/// Plays `hands` hands of `variant` between `random` seats in Rust (the
/// arena's own loop), for measuring: returns the arena's report (its
/// `games-per-sec` is hands a second).
#[pyfunction]
#[pyo3(signature = (variant, hands, seed = 1, seats = None, threads = 1))]
pub fn random_hands<'py>(
    py: Python<'py>,
    variant: &Bound<'py, PyAny>,
    hands: u64,
    seed: u64,
    seats: Option<u8>,
    threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let rules = rules_of(variant)?;
    let n = seats.unwrap_or_else(|| rules.default_seats());
    let seats = Seats { specs: vec!["random".to_string(); n as usize], functions: HashMap::new() };
    let report = match &rules {
        AnyRules::Tiles(r) => run_arena(py, r, seats, hands, seed, Mode::Hands, threads, false)?,
        AnyRules::Poly(r) => run_poly(py, r, seats, hands, seed, Mode::Hands)?,
    };
    to_py(py, &report)
}
