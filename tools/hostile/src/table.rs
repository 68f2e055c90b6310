//! A table of four remote bots playing latin matches over and over, each
//! seat on its own connection, answering every prompt with a random legal
//! move after a think time. As the probe it records each move's latency
//! (move sent to `accepted`); as a busy room it gives attacks a room in
//! play to watch. A table that loses a connection starts again in a new
//! room.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use capicua_protocol::ClientMsg;
use serde_json::Value;
use tokio::task::JoinSet;

use crate::client::{self, Conn, EVENTS_PREFIX, Rng};
use crate::http::Server;

/// What a table has done.
#[derive(Debug, Default)]
pub struct TableStats {
    /// Each answered move: when it was sent and how long `accepted` took.
    pub samples: Mutex<Vec<(Instant, Duration)>>,
    /// The move each seat is waiting on, sent then.
    pub pending: Mutex<[Option<Instant>; 4]>,
    /// Matches over.
    pub games: AtomicU64,
    /// Error frames.
    pub errors: AtomicU64,
    /// Times the table started again after losing a connection.
    pub restarts: AtomicU64,
    /// The room in play (0 before the first).
    pub room: AtomicU64,
    /// The last failure, for people.
    pub last_failure: Mutex<Option<String>>,
}

impl TableStats {
    /// Moves sent in `[from, to)`: the answered ones' latencies, and for
    /// each move still waiting, the time it has waited so far (a move the
    /// server never answers counts, with the wait it has caused).
    pub fn latencies(&self, from: Instant, to: Instant) -> Vec<Duration> {
        let now = Instant::now();
        let mut out: Vec<Duration> = self
            .samples
            .lock()
            .expect("samples lock")
            .iter()
            .filter(|(at, _)| *at >= from && *at < to)
            .map(|&(_, d)| d)
            .collect();
        let pending = *self.pending.lock().expect("pending lock");
        out.extend(pending.iter().flatten().filter(|&&at| at >= from && at < to).map(|&at| now - at));
        out
    }

    /// The longest wait of a move still unanswered.
    pub fn oldest_pending(&self) -> Option<Duration> {
        let pending = *self.pending.lock().expect("pending lock");
        pending.iter().flatten().map(|at| at.elapsed()).max()
    }
}

/// How a table plays.
#[derive(Clone, Debug)]
pub struct TableConfig {
    /// The server, and the address the table connects from.
    pub server: Server,
    /// The prefix of the name its creator registers (so its room counts
    /// against that player's room limit, not the attacking address's; a
    /// guest creates it if the server registers no more names).
    pub name: String,
    /// Think time before each move.
    pub think: Duration,
    /// Record move latencies.
    pub record: bool,
}

/// Plays until aborted, starting again after any failure.
pub async fn run(cfg: TableConfig, stats: std::sync::Arc<TableStats>) {
    let mut first = true;
    loop {
        if !first {
            stats.restarts.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        first = false;
        if let Err(e) = play(&cfg, &stats).await {
            *stats.last_failure.lock().expect("failure lock") = Some(format!("{e:#}"));
        }
        *stats.pending.lock().expect("pending lock") = [None; 4];
    }
}

/// One room: set up, play until a seat fails.
async fn play(cfg: &TableConfig, stats: &std::sync::Arc<TableStats>) -> anyhow::Result<()> {
    let mut creator = client::register_or_guest(&cfg.server, &cfg.name).await.context("table: connect")?;
    let room = client::create_room(&mut creator, client::four_seats("latin")).await.context("table: create")?;
    let room = room["id"].as_u64().context("table: room without id")?;
    let mut conns = vec![creator];
    for _ in 1..4 {
        conns.push(client::connect(&cfg.server, None).await.context("table: connect")?);
    }
    for (seat, conn) in conns.iter_mut().enumerate() {
        client::join(conn, room, seat as u8).await.context("table: join")?;
    }
    stats.room.store(room, Ordering::Relaxed);
    let mut seats = JoinSet::new();
    for (seat, conn) in conns.into_iter().enumerate() {
        seats.spawn(play_seat(conn, room, seat, cfg.clone(), stats.clone()));
    }
    // The first seat to end ends the table (dropping the set aborts the rest).
    let ended = seats.join_next().await.context("no seats")?;
    ended.context("seat task")?.context("seat")
}

async fn play_seat(
    mut conn: Conn,
    room: u64,
    seat: usize,
    cfg: TableConfig,
    stats: std::sync::Arc<TableStats>,
) -> anyhow::Result<()> {
    let mut rng = Rng::new(room.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seat as u64);
    let mut sent: Option<Instant> = None;
    let mut last_move: Option<String> = None;
    conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
    loop {
        let text = conn.recv_text().await?;
        if text.starts_with(EVENTS_PREFIX) {
            continue;
        }
        let v: Value = serde_json::from_str(&text)?;
        match v["type"].as_str().unwrap_or("") {
            "prompt" if v["room"].as_u64() == Some(room) => {
                let (Some(prompt), Some(moves)) = (v["prompt"].as_u64(), v["legal-moves"].as_array()) else {
                    continue;
                };
                if moves.is_empty() {
                    continue;
                }
                if !cfg.think.is_zero() {
                    tokio::time::sleep(cfg.think).await;
                }
                let frame = client::move_frame(room, prompt, &moves[rng.below(moves.len())]);
                let now = Instant::now();
                sent = Some(now);
                if cfg.record {
                    stats.pending.lock().expect("pending lock")[seat] = Some(now);
                }
                last_move = Some(frame.clone());
                conn.send_text(frame).await?;
            }
            "accepted" => {
                if let Some(at) = sent.take()
                    && cfg.record
                {
                    stats.pending.lock().expect("pending lock")[seat] = None;
                    stats.samples.lock().expect("samples lock").push((at, at.elapsed()));
                }
            }
            "game-over" => {
                if seat == 0 {
                    stats.games.fetch_add(1, Ordering::Relaxed);
                }
                conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
            }
            "room-closed" => anyhow::bail!("room {room} closed: {}", v["reason"].as_str().unwrap_or("")),
            "error" => {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                if v["code"].as_str() == Some("rate-limited") {
                    // Dropped unread: the prompt stands, send the move again.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if let Some(m) = last_move.clone() {
                        conn.send_text(m).await?;
                    }
                } else if sent.take().is_some() {
                    // The move was refused (stale after a resync, say): the
                    // next prompt asks again.
                    stats.pending.lock().expect("pending lock")[seat] = None;
                }
            }
            _ => {}
        }
    }
}

/// Waits until the table has a room in play, at most `within`.
pub async fn wait_for_room(stats: &TableStats, within: Duration) -> anyhow::Result<u64> {
    let deadline = Instant::now() + within;
    loop {
        let room = stats.room.load(Ordering::Relaxed);
        if room != 0 {
            return Ok(room);
        }
        if Instant::now() > deadline {
            let why = stats.last_failure.lock().expect("failure lock").clone().unwrap_or_default();
            anyhow::bail!("the table found no room within {} s: {why}", within.as_secs());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
