//! `slow-spectators`: spectators of a busy room that never read their
//! socket (a tiny receive buffer, the stream never polled) and ask for
//! `resync` (the room's whole state) many times a second: everything the
//! server sends them piles up on its side.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

use super::{Ctx, Tally, hold_until};
use crate::stats::Summary;
use crate::table::{self, TableConfig, TableStats};

/// `capicua-hostile slow-spectators`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Spectators.
    #[arg(long, default_value_t = 50)]
    pub spectators: usize,
    /// `resync`s each sends a second.
    #[arg(long, default_value_t = 10.0)]
    pub resync_per_sec: f64,
    /// Each spectator's socket receive buffer, bytes.
    #[arg(long, default_value_t = 2048)]
    pub recv_buffer: u32,
    /// Think time of the busy room's four bots, milliseconds.
    #[arg(long, default_value_t = 10)]
    pub room_think_ms: u64,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let busy = Arc::new(TableStats::default());
    let cfg = TableConfig {
        server: ctx.server.clone(),
        name: "busy".into(),
        think: Duration::from_millis(args.room_think_ms),
        record: false,
    };
    let table = tokio::spawn(table::run(cfg, busy.clone()));
    let room = table::wait_for_room(&busy, Duration::from_secs(15)).await?;
    ctx.note(format!("busy room {room}: four bots thinking {} ms a move", args.room_think_ms));

    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let alive = Arc::new(AtomicU64::new(0));
    let sent = Arc::new(AtomicU64::new(0));
    let every = Duration::from_secs_f64(1.0 / args.resync_per_sec.max(0.001));
    let mut spectators = tokio::task::JoinSet::new();
    for _ in 0..args.spectators {
        let (server, alive, sent) = (ctx.server.clone(), alive.clone(), sent.clone());
        let buffer = args.recv_buffer;
        spectators.spawn(async move {
            let t0 = Instant::now();
            let end = spectate(&server, room, buffer, every, deadline, &alive, &sent).await;
            (end, t0.elapsed())
        });
    }
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        hold_until(ctx, (Instant::now() + Duration::from_secs(10)).min(deadline)).await;
        ctx.note(format!(
            "spectators still sending: {} of {}; resyncs sent {}; busy room: {} matches, {} restarts",
            alive.load(Ordering::Relaxed),
            args.spectators,
            sent.load(Ordering::Relaxed),
            busy.games.load(Ordering::Relaxed),
            busy.restarts.load(Ordering::Relaxed),
        ));
    }
    let mut ends = Tally::default();
    let mut lifetimes = Vec::new();
    while let Some(done) = spectators.join_next().await {
        let Ok((end, lived)) = done else { continue };
        if !end.starts_with("held to the end") {
            lifetimes.push(lived);
        }
        ends.add(end);
    }
    ctx.note(format!("spectators: {ends}"));
    ctx.note(format!("spectators cut off lived {}", Summary::of(lifetimes)));
    table.abort();
    Ok(())
}

/// One spectator: connect with a small window, say hello, spectate, then
/// only send `resync`; returns how it ended.
async fn spectate(
    server: &crate::http::Server,
    room: u64,
    buffer: u32,
    every: Duration,
    deadline: Instant,
    alive: &AtomicU64,
    sent: &AtomicU64,
) -> String {
    let tcp = match server.tcp_small_window(buffer).await {
        Ok(t) => t,
        Err(e) => return format!("connect failed: {}", e.kind()),
    };
    let mut ws = match tokio_tungstenite::client_async(server.ws.as_str(), tcp).await {
        Ok((ws, _)) => ws,
        Err(e) => return format!("handshake failed: {e}"),
    };
    let hello = serde_json::json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION}).to_string();
    let watch = serde_json::json!({"type": "spectate", "room": room}).to_string();
    let resync = serde_json::json!({"type": "resync", "room": room}).to_string();
    for text in [hello, watch] {
        if let Err(e) = ws.send(Message::Text(text.into())).await {
            return format!("cut off before watching: {e}");
        }
    }
    alive.fetch_add(1, Ordering::Relaxed);
    let mut tick = tokio::time::interval(every);
    let end = loop {
        tick.tick().await;
        if Instant::now() >= deadline {
            break "held to the end".to_string();
        }
        // A server that stops reading our frames blocks the send: the
        // deadline still ends it.
        match tokio::time::timeout_at(deadline.into(), ws.send(Message::Text(resync.clone().into()))).await {
            Ok(Ok(())) => {
                sent.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(e)) => break format!("cut off ({e})"),
            Err(_) => break "held to the end (sends blocked)".to_string(),
        }
    };
    alive.fetch_sub(1, Ordering::Relaxed);
    end
}
