//! `capicua.play`: a Python bot on a capicua server, through the bot
//! client's own remote loop (`capicua-bot play`): it connects, says hello
//! with a token (or registers a name, or plays as a guest), finds, joins or
//! creates a room, and answers every prompt with the Python function,
//! reconnecting with the bot client's backoff after a dropped connection.
//!
//! The loop runs on the calling thread without the GIL; the function is
//! called with it, one prompt at a time. Every tenth of a second the loop
//! looks for a pending signal (Ctrl-C raises `KeyboardInterrupt` as usual)
//! and for the function's first failure, which stops it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use capicua_bot::remote::{PlayConfig, PlayOptions, PlayVariant, Registration, Strategies, Tally, play_as, tokens_for};
use capicua_protocol::RoomId;
use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::bots::PyStrategy;
use crate::convert::to_py;
use crate::errors::RemoteError;
use crate::game::variant_error;
use crate::model::AnyRules;
use crate::seat::{ErrorSlot, PyChooser};

/// How often the loop looks for a signal or a failed function.
const WATCH: Duration = Duration::from_millis(100);

/// Plays on a capicua server: `choose(view) -> move` (a function, or a
/// `capicua.Strategy`) answers every prompt. `server` is `ws://HOST:PORT/ws`.
/// Who plays: `token` (a registered player), or `name` (registered on
/// first use, its token kept in `token_file`, `NAME.token` by default), or
/// a guest. Where: `room`, or the fullest waiting room of `variant` (a
/// preset's name or a variant file's text; rated rooms with `rated`), else
/// a new one. Stops after `matches` finished matches per bot (`None`:
/// until interrupted). Returns the counts: games, moves, errors,
/// reconnects.
#[pyfunction]
#[pyo3(signature = (choose, server, *, token = None, name = None, token_file = None, variant = "block", room = None, matches = Some(1), rated = false, count = 1))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub fn play<'py>(
    py: Python<'py>,
    choose: &Bound<'py, PyAny>,
    server: String,
    token: Option<String>,
    name: Option<String>,
    token_file: Option<PathBuf>,
    variant: &str,
    room: Option<RoomId>,
    matches: Option<u64>,
    rated: bool,
    count: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let error = ErrorSlot::default();
    let mut cfg = PlayConfig {
        server,
        token,
        strategy: "random".into(),
        poly_strategy: "random".into(),
        room,
        preset: "block".into(),
        count: count.max(1),
        matches,
    };
    let mut opts = PlayOptions { rated, ..PlayOptions::default() };
    match variant_of(variant)? {
        Wanted::Preset(name) => cfg.preset = name,
        Wanted::File(v) => opts.variant = Some(v),
    }
    if let Ok(s) = choose.cast::<PyStrategy>() {
        let spec = s.borrow().spec().to_string();
        cfg.strategy = spec.clone();
        cfg.poly_strategy = spec;
    } else if choose.is_callable() {
        opts.strategies = Some(python_strategies(choose, error.clone()));
    } else {
        return Err(PyTypeError::new_err("choose: a function choose(view) -> move, or a capicua.Strategy"));
    }
    let players: Vec<Registration> = name
        .into_iter()
        .map(|name| {
            let token_file = token_file.clone().unwrap_or_else(|| PathBuf::from(format!("{name}.token")));
            Registration { name, token_file }
        })
        .collect();
    let tally = Arc::new(Tally::default());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RemoteError::new_err(e.to_string()))?;
    let outcome = py.detach(|| {
        runtime.block_on(async {
            let session = async {
                opts.tokens = tokens_for(&cfg.server, &players, &tally).await?;
                play_as(cfg, opts, tally.clone()).await
            };
            tokio::select! {
                done = session => done.map_err(|e| RemoteError::new_err(e.to_string())),
                stop = watch(&error) => Err(stop),
            }
        })
    });
    // The function's own failure first: it is why the loop stopped.
    if let Some(e) = error.take() {
        return Err(e);
    }
    outcome?;
    let count = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    to_py(
        py,
        &serde_json::json!({
            "games": count(&tally.games),
            "moves": count(&tally.moves),
            "errors": count(&tally.errors),
            "reconnects": count(&tally.reconnects),
        }),
    )
}

/// The rooms a bot looks for: a preset's (by name), or a variant file's.
enum Wanted {
    Preset(String),
    File(PlayVariant),
}

fn variant_of(variant: &str) -> PyResult<Wanted> {
    let name = variant.trim();
    if capicua_engine::preset(name).is_some() || capicua_engine::poly::poly_preset(name).is_some() {
        return Ok(Wanted::Preset(name.to_string()));
    }
    Ok(Wanted::File(match AnyRules::load(variant).map_err(variant_error)? {
        AnyRules::Tiles(r) => PlayVariant::Tiles(Box::new(r.variant().clone())),
        AnyRules::Poly(r) => PlayVariant::Poly { name: r.variant().name.clone(), file: variant.to_string() },
    }))
}

/// The Python function as each bot's strategy, in both families.
fn python_strategies(choose: &Bound<'_, PyAny>, error: ErrorSlot) -> Strategies {
    let name = choose
        .getattr("__name__")
        .ok()
        .and_then(|n| n.cast_into::<PyString>().ok())
        .and_then(|n| n.to_cow().ok().map(|n| format!("python:{n}")))
        .unwrap_or_else(|| "python".into());
    let func = choose.clone().unbind();
    Strategies(Arc::new(move |_seed| {
        let (tiles, poly) = Python::attach(|py| (func.clone_ref(py), func.clone_ref(py)));
        let tiles: Box<dyn Strategy> = Box::new(PyChooser::new(tiles, name.clone(), error.clone()));
        let poly: Box<dyn PolyStrategy> = Box::new(PyChooser::new(poly, name.clone(), error.clone()));
        (tiles, poly)
    }))
}

/// Resolves with the error that stops the loop: a pending signal
/// (`KeyboardInterrupt`) or the function's failure (raised by the caller).
async fn watch(error: &ErrorSlot) -> PyErr {
    loop {
        tokio::time::sleep(WATCH).await;
        if let Err(e) = Python::attach(|py| py.check_signals()) {
            return e;
        }
        if error.failed() {
            return RemoteError::new_err("the function failed");
        }
    }
}
