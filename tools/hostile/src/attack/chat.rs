//! `chat`: many spectators of one room, each saying a chat line a second
//! (the documented allowance): every line goes to everyone in the room.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use capicua_protocol::ClientMsg;
use futures_util::StreamExt;

use super::{Ctx, hold_until};
use crate::client;
use crate::table::{self, TableConfig, TableStats};

/// `capicua-hostile chat`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Spectators.
    #[arg(long, default_value_t = 200)]
    pub spectators: usize,
    /// Lines each says a second.
    #[arg(long, default_value_t = 1.0)]
    pub lines_per_sec: f64,
    /// Think time of the room's four bots, milliseconds.
    #[arg(long, default_value_t = 50)]
    pub room_think_ms: u64,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// What the spectators counted.
#[derive(Default)]
struct Counts {
    said: AtomicU64,
    refused: AtomicU64,
    heard: AtomicU64,
    cut_off: AtomicU64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let busy = Arc::new(TableStats::default());
    let cfg = TableConfig {
        server: ctx.server.clone(),
        name: "chatroom".into(),
        think: Duration::from_millis(args.room_think_ms),
        record: false,
    };
    let table = tokio::spawn(table::run(cfg, busy.clone()));
    let room = table::wait_for_room(&busy, Duration::from_secs(15)).await?;
    ctx.note(format!("room {room}: four bots thinking {} ms a move", args.room_think_ms));

    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let t0 = Instant::now();
    let watching: Vec<anyhow::Result<client::Conn>> = futures_util::stream::iter(0..args.spectators)
        .map(|_| {
            let server = ctx.server.clone();
            async move {
                // People watching a table take every frame as it comes.
                let mut conn = client::connect_with(&server, None, false).await?;
                let reply = client::request(&mut conn, ClientMsg::Spectate { room: Some(room), invite: None }).await?;
                client::expect(reply, "spectating")?;
                Ok(conn)
            }
        })
        .buffer_unordered(50)
        .collect()
        .await;
    let counts = Arc::new(Counts::default());
    let mut spectators = tokio::task::JoinSet::new();
    let mut failed = 0;
    let every = Duration::from_secs_f64(1.0 / args.lines_per_sec.max(0.001));
    for (i, conn) in watching.into_iter().enumerate() {
        match conn {
            Ok(conn) => {
                spectators.spawn(talk(conn, room, i, every, counts.clone()));
            }
            Err(_) => failed += 1,
        }
    }
    ctx.note(format!(
        "{} spectators watching after {:.1} s ({failed} failed)",
        spectators.len(),
        t0.elapsed().as_secs_f64()
    ));
    let mut last = (0, Instant::now());
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        hold_until(ctx, (Instant::now() + Duration::from_secs(10)).min(deadline)).await;
        let heard = counts.heard.load(Ordering::Relaxed);
        ctx.note(format!(
            "lines said {}, refused {}, chat frames received {} ({:.0}/s), spectators cut off {}; room: {} matches",
            counts.said.load(Ordering::Relaxed),
            counts.refused.load(Ordering::Relaxed),
            heard,
            (heard - last.0) as f64 / last.1.elapsed().as_secs_f64(),
            counts.cut_off.load(Ordering::Relaxed),
            busy.games.load(Ordering::Relaxed),
        ));
        last = (heard, Instant::now());
    }
    spectators.abort_all();
    table.abort();
    Ok(())
}

/// One spectator: reads everything (counting chat lines), says a line
/// every `every`.
async fn talk(mut conn: client::Conn, room: u64, i: usize, every: Duration, counts: Arc<Counts>) {
    let mut tick = tokio::time::interval(every);
    let mut n = 0u64;
    loop {
        tokio::select! {
            text = conn.recv_text() => match text {
                Ok(t) if t.starts_with(r#"{"type":"chat""#) => {
                    counts.heard.fetch_add(1, Ordering::Relaxed);
                }
                Ok(t) if t.contains(r#""type":"error""#) => {
                    counts.refused.fetch_add(1, Ordering::Relaxed);
                }
                Ok(_) => {}
                Err(_) => {
                    counts.cut_off.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            },
            _ = tick.tick() => {
                n += 1;
                let text = format!("spectator {i} says line {n}");
                if conn.send(ClientMsg::Chat { room, text }).await.is_err() {
                    counts.cut_off.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                counts.said.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}
