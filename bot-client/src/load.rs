//! `capicua-bot load`: fills N rooms with 4 remote bots each (guests,
//! uniform random legal moves from the prompt), plays as fast as the server
//! allows for S seconds, and reports moves/s, finished games/s and the
//! prompt-received to accepted-received latency.
//!
//! The bots ask for lean prompts (no view: they choose from the legal moves
//! alone) and read each frame into a small struct that skips everything but
//! the fields they use, so the load client spends little of the machine's
//! CPU on decoding.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::borrow::Cow;

use capicua_engine::Move;
use capicua_protocol::{ClientFrame, ClientMsg, ErrorCode, RoomId, RoomSpec, ServerMsg, TimeControl};
use serde::{Deserialize, Serialize};

use crate::remote::{Connection, RemoteError, code_name, unexpected};

/// What to load.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// Rooms to fill.
    pub tables: usize,
    /// Seconds of measured play.
    pub seconds: u64,
    /// The preset played (4 seats).
    pub preset: String,
    /// Ask for batched events (`hello`'s `batch-events`).
    pub batch_events: bool,
}

/// The figures of a run.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// Rooms.
    pub tables: usize,
    /// Connections opened.
    pub connections: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// Moves accepted.
    pub moves: u64,
    /// Moves accepted per second.
    pub moves_per_sec: f64,
    /// Matches finished (and stored: the server announces only after the commit).
    pub finished_games: u64,
    /// Matches finished per second.
    pub finished_games_per_sec: f64,
    /// Prompt received to accepted received, median, milliseconds.
    pub latency_p50_ms: f64,
    /// Same, 99th percentile.
    pub latency_p99_ms: f64,
    /// Error frames, failed connections and dropped connections.
    pub errors: u64,
}

#[derive(Default)]
struct Counters {
    moves: AtomicU64,
    games: AtomicU64,
    errors: AtomicU64,
}

/// Runs the load and returns its figures.
pub async fn run(cfg: LoadConfig) -> Result<LoadReport, RemoteError> {
    let counters = Arc::new(Counters::default());
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    // Set up every table first (connect, create, join), then start the clock.
    let mut tables = Vec::with_capacity(cfg.tables);
    for _ in 0..cfg.tables {
        tables.push(tokio::spawn(setup_table(cfg.server.clone(), cfg.preset.clone(), cfg.batch_events)));
    }
    let mut seated = Vec::new();
    for t in tables {
        match t.await {
            Ok(Ok(conns)) => seated.push(conns),
            Ok(Err(e)) => {
                eprintln!("table setup failed: {e}");
                counters.errors.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                counters.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    let connections = seated.iter().map(|(_, c)| c.len()).sum();
    let mut players = Vec::new();
    for (room, conns) in seated {
        for (i, conn) in conns.into_iter().enumerate() {
            let (c, m, s) = (counters.clone(), measuring.clone(), stop.clone());
            players.push(tokio::spawn(player(conn, room, i == 0, c, m, s)));
        }
    }
    // A short warm-up, then the measured window.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let m0 = counters.moves.load(Ordering::Relaxed);
    let g0 = counters.games.load(Ordering::Relaxed);
    measuring.store(true, Ordering::Relaxed);
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(cfg.seconds)).await;
    let elapsed = t0.elapsed().as_secs_f64();
    measuring.store(false, Ordering::Relaxed);
    let moves = counters.moves.load(Ordering::Relaxed) - m0;
    let games = counters.games.load(Ordering::Relaxed) - g0;
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<u32> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    for p in players {
        let abort = p.abort_handle();
        match tokio::time::timeout_at(deadline, p).await {
            Ok(Ok(Ok(l))) => latencies.extend(l),
            Ok(_) => {}
            Err(_) => abort.abort(),
        }
    }
    latencies.sort_unstable();
    let pct = |q: f64| -> f64 {
        if latencies.is_empty() {
            return 0.0;
        }
        let i = ((latencies.len() as f64 * q) as usize).min(latencies.len() - 1);
        latencies[i] as f64 / 1000.0
    };
    Ok(LoadReport {
        tables: cfg.tables,
        connections,
        seconds: elapsed,
        moves,
        moves_per_sec: moves as f64 / elapsed,
        finished_games: games,
        finished_games_per_sec: games as f64 / elapsed,
        latency_p50_ms: pct(0.50),
        latency_p99_ms: pct(0.99),
        errors: counters.errors.load(Ordering::Relaxed),
    })
}

async fn setup_table(
    server: String,
    preset: String,
    batch_events: bool,
) -> Result<(RoomId, Vec<Connection>), RemoteError> {
    let mut conns = Vec::with_capacity(4);
    for _ in 0..4 {
        let mut c = Connection::connect(&server).await?;
        c.hello_with(None, true, batch_events).await?;
        conns.push(c);
    }
    let spec = RoomSpec {
        preset: Some(preset),
        seats: Some(4),
        time: Some(TimeControl { move_ms: 60_000, bank_ms: 0 }),
        ..Default::default()
    };
    let room = match conns[0].request(ClientMsg::CreateRoom(Box::new(spec)), |_| {}).await? {
        ServerMsg::Room { room } => room.id,
        other => return Err(unexpected("create-room", other)),
    };
    for (i, c) in conns.iter_mut().enumerate() {
        match c.request(ClientMsg::join(room, Some(i as u8)), |_| {}).await? {
            ServerMsg::Seated { .. } => {}
            other => return Err(unexpected("join", other)),
        }
    }
    Ok((room, conns))
}

/// How an `events` frame from capicua-server starts.
const EVENTS_PREFIX: &str = r#"{"type":"events","#;

/// The fields of a server frame a load bot reads; the rest (views, events)
/// is skipped unparsed.
#[derive(Deserialize)]
struct LeanFrame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    prompt: Option<u64>,
    #[serde(default, rename = "legal-moves")]
    legal_moves: Option<Vec<Move>>,
    #[serde(default)]
    code: Option<ErrorCode>,
    #[serde(default)]
    message: Option<String>,
}

/// One seat: ready, answer prompts at once, ready again after each match.
async fn player(
    mut conn: Connection,
    room: RoomId,
    counts_games: bool,
    counters: Arc<Counters>,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) -> Result<Vec<u32>, RemoteError> {
    let mut latencies = Vec::with_capacity(4096);
    let mut prompted: Option<Instant> = None;
    let mut last_move: Option<String> = None;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ room;
    conn.send(ClientMsg::Ready { room }).await?;
    while !stop.load(Ordering::Relaxed) {
        // No timeout around each read (a timer armed and cancelled per
        // frame): tables play without pause, so the stop flag is seen at the
        // next frame; `run` stops waiting for a silent table at a deadline.
        let text = match conn.recv_text().await {
            Ok(t) => t,
            Err(e) => {
                counters.errors.fetch_add(1, Ordering::Relaxed);
                return Err(e);
            }
        };
        // Most frames are events, which these bots ignore: the server writes
        // `type` first in a frame without an `id`, so a prefix tells them
        // apart without parsing the events (anything else is parsed).
        if text.starts_with(EVENTS_PREFIX) {
            continue;
        }
        let frame: LeanFrame = serde_json::from_str(&text)?;
        match (frame.kind.as_ref(), frame.prompt, frame.legal_moves) {
            ("prompt", Some(prompt), Some(legal_moves)) if !legal_moves.is_empty() => {
                prompted = Some(Instant::now());
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let m = legal_moves[(rng % legal_moves.len() as u64) as usize];
                let text = serde_json::to_string(&ClientFrame::new(None, ClientMsg::Move { room, prompt, r#move: m }))?;
                last_move = Some(text.clone());
                conn.send_text(text).await?;
            }
            ("accepted", ..) => {
                if let Some(t) = prompted.take() {
                    if measuring.load(Ordering::Relaxed) {
                        latencies.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                        counters.moves.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            ("game-over", ..) => {
                if counts_games && measuring.load(Ordering::Relaxed) {
                    counters.games.fetch_add(1, Ordering::Relaxed);
                }
                conn.send(ClientMsg::Ready { room }).await?;
            }
            ("error", ..) if frame.code == Some(ErrorCode::RateLimited) => {
                // The move was dropped unread: the prompt stands, send it again.
                counters.errors.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                if let Some(m) = last_move.clone() {
                    conn.send_text(m).await?;
                }
            }
            ("error", ..) => {
                let n = counters.errors.fetch_add(1, Ordering::Relaxed);
                if n < 10 {
                    let code = frame.code.as_ref().map(code_name).unwrap_or_default();
                    eprintln!("room {room}: server error {code}: {}", frame.message.unwrap_or_default());
                }
            }
            _ => {}
        }
    }
    conn.close().await;
    Ok(latencies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_protocol::ServerFrame;

    #[test]
    fn events_frames_start_with_the_skipped_prefix_and_prompts_do_not() {
        let events = ServerFrame { id: None, msg: ServerMsg::Events { room: 3, seq: 9, events: vec![], view: None } };
        assert!(serde_json::to_string(&events).unwrap().starts_with(EVENTS_PREFIX));
        let prompt = ServerFrame {
            id: None,
            msg: ServerMsg::Prompt { room: 3, prompt: 1, seat: 0, view: None, legal_moves: vec![], deadline_ms: 10 },
        };
        assert!(!serde_json::to_string(&prompt).unwrap().starts_with(EVENTS_PREFIX));
    }
}
