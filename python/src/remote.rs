//! `capicua.play`: a Python bot on a capicua server, through the bot
//! client's own remote loop (`capicua-bot play`): it connects, says hello
//! with a token (or registers a name, or plays as a guest), finds, joins or
//! creates a room (or joins a preset's ladder, or awaits a tournament's
//! assignments: `capicua-bot play --ladder` and `--tournament ID`), and
//! answers every prompt with the Python function, reconnecting with the bot
//! client's backoff after a dropped connection.
//!
//! The loop runs on the calling thread without the GIL; the function is
//! called with it, one prompt at a time. Every tenth of a second the loop
//! looks for a pending signal (Ctrl-C raises `KeyboardInterrupt` as usual)
//! and for the function's first failure, which stops it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use capicua_bot::remote::{
    AwaitConfig, LadderConfig, PlayConfig, PlayOptions, PlayVariant, Registration, Strategies, Tally,
    await_assignments_with, play_as, tokens_for,
};
use capicua_protocol::RoomId;
use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;
use pyo3::exceptions::{PyTypeError, PyValueError};
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
/// a new one; or, for one registered player, the ladder of the preset
/// `variant` (`ladder=True`), or the tables of tournament `tournament`
/// (waited for if not created yet; play ends when it does). Stops after
/// `matches` finished matches per bot (`None`: until interrupted; a
/// tournament ends by itself). Returns the counts: games, moves, errors,
/// reconnects.
#[pyfunction]
#[pyo3(signature = (choose, server, *, token = None, name = None, token_file = None, variant = "block", room = None, matches = Some(1), rated = false, count = 1, ladder = false, tournament = None))]
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
    ladder: bool,
    tournament: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let error = ErrorSlot::default();
    let (spec, strategies) = if let Ok(s) = choose.cast::<PyStrategy>() {
        (s.borrow().spec().to_string(), None)
    } else if choose.is_callable() {
        ("random".to_string(), Some(python_strategies(choose, error.clone())))
    } else {
        return Err(PyTypeError::new_err("choose: a function choose(view) -> move, or a capicua.Strategy"));
    };
    let players: Vec<Registration> = name
        .into_iter()
        .map(|name| {
            let token_file = token_file.clone().unwrap_or_else(|| PathBuf::from(format!("{name}.token")));
            Registration { name, token_file }
        })
        .collect();
    check_seated(ladder, tournament, room, rated, count, token.is_some() || !players.is_empty())?;
    let wanted = match variant_of(variant)? {
        Wanted::File(_) if ladder => {
            return Err(PyValueError::new_err("the ladder of a preset: variant= names one (capicua.presets())"));
        }
        wanted => wanted,
    };
    let mode = if ladder {
        let Wanted::Preset(preset) = wanted else { unreachable!("refused above") };
        Mode::Ladder { preset, matches }
    } else if let Some(t) = tournament {
        Mode::Tournament(t)
    } else {
        let mut cfg = PlayConfig {
            server: server.clone(),
            token: token.clone(),
            strategy: spec.clone(),
            poly_strategy: spec.clone(),
            room,
            preset: "block".into(),
            count: count.max(1),
            matches,
        };
        let mut opts = PlayOptions { rated, strategies: strategies.clone(), ..PlayOptions::default() };
        match wanted {
            Wanted::Preset(name) => cfg.preset = name,
            Wanted::File(v) => opts.variant = Some(v),
        }
        Mode::Rooms(Box::new((cfg, opts)))
    };
    let tally = Arc::new(Tally::default());
    let outcome = run(py, Session { server, token, players, spec, strategies, mode }, &tally, &error);
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

/// Ladder and tournament play: one registered player at the tables the
/// server gives it.
fn check_seated(
    ladder: bool,
    tournament: Option<i64>,
    room: Option<RoomId>,
    rated: bool,
    count: usize,
    registered: bool,
) -> PyResult<()> {
    if !ladder && tournament.is_none() {
        return Ok(());
    }
    if ladder && tournament.is_some() {
        return Err(PyValueError::new_err("ladder=True or tournament=ID: one at a time"));
    }
    if room.is_some() || rated || count > 1 {
        return Err(PyValueError::new_err(
            "ladder and tournament play one player at the tables the server gives it: no room, rated or count",
        ));
    }
    if !registered {
        return Err(PyValueError::new_err("ladder and tournament play a registered player: give name= (or token=)"));
    }
    Ok(())
}

/// What [`play`] runs, its arguments checked.
struct Session {
    server: String,
    token: Option<String>,
    players: Vec<Registration>,
    spec: String,
    strategies: Option<Strategies>,
    mode: Mode,
}

/// Runs a session on a runtime of its own, the GIL released, until it ends
/// or the Python function fails.
fn run(py: Python<'_>, session: Session, tally: &Arc<Tally>, error: &ErrorSlot) -> PyResult<()> {
    let Session { server, token, players, spec, strategies, mode } = session;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RemoteError::new_err(e.to_string()))?;
    py.detach(|| {
        runtime.block_on(async {
            let session = async {
                let tokens = tokens_for(&server, &players, tally).await?;
                // A seated player: its registered token, or the one given.
                let player = || tokens.first().cloned().or_else(|| token.clone()).unwrap_or_default();
                match mode {
                    Mode::Rooms(rooms) => {
                        let (cfg, opts) = *rooms;
                        play_as(cfg, PlayOptions { tokens, ..opts }, tally.clone()).await
                    }
                    Mode::Ladder { preset, matches } => {
                        let cfg = LadderConfig {
                            server: server.clone(),
                            token: player(),
                            strategy: spec,
                            preset,
                            index: 0,
                            matches,
                            strategies,
                        };
                        capicua_bot::remote::ladder(cfg, tally.clone()).await
                    }
                    Mode::Tournament(t) => {
                        let cfg = AwaitConfig {
                            server: server.clone(),
                            token: player(),
                            strategy: spec,
                            tournament: Some(t),
                            fallbacks: Vec::new(),
                        };
                        await_assignments_with(cfg, strategies, tally.clone()).await
                    }
                }
            };
            tokio::select! {
                done = session => done.map_err(|e| RemoteError::new_err(e.to_string())),
                stop = watch(error) => Err(stop),
            }
        })
    })
}

/// Where `play` plays.
enum Mode {
    /// Rooms found, joined or created (`capicua-bot play`).
    Rooms(Box<(PlayConfig, PlayOptions)>),
    /// A preset's ladder (`capicua-bot play --ladder`).
    Ladder { preset: String, matches: Option<u64> },
    /// A tournament's tables (`capicua-bot play --tournament ID`).
    Tournament(i64),
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
