//! `replay`: parallel `GET /api/games/{id}` of a long game whose answers
//! are never read. Each request is sent on its own socket with a small
//! receive window, then the socket is only held: whatever the server
//! builds for the answer waits in its memory for a reader that never
//! comes.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use super::long_game::{self, LongGameArgs};
use super::{Ctx, Tally, hold_until};

/// `capicua-hostile replay`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The game attacked.
    #[command(flatten)]
    pub game: LongGameArgs,
    /// Requests held open at once.
    #[arg(long, default_value_t = 4)]
    pub requests: usize,
    /// How long they are held.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let id = long_game::game(ctx, &args.game).await?;
    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let path = format!("/api/games/{id}");
    let mut held = Vec::new();
    let mut tally = Tally::default();
    for _ in 0..args.requests {
        match ctx.server.tcp_small_window(4096).await {
            Ok(mut tcp) => match tcp.write_all(ctx.server.get_request(&path).as_bytes()).await {
                Ok(()) => {
                    tally.add("sent");
                    held.push(tcp);
                }
                Err(e) => tally.add(format!("send failed: {e}")),
            },
            Err(e) => tally.add(format!("connect failed: {e}")),
        }
    }
    ctx.note(format!("GET {path} x{}: {tally}; now holding them unread for {} s", args.requests, args.seconds));
    hold_until(ctx, deadline).await;
    // What each socket shows now without reading the answer: bytes
    // waiting (the server is still sending), end of stream or a reset (it
    // gave up on a reader this slow), or nothing yet.
    let mut state = Tally::default();
    for tcp in &held {
        let mut buf = [0u8; 1];
        state.add(match tcp.try_read(&mut buf) {
            Ok(0) => "closed by the server".to_string(),
            Ok(_) => "answer waiting unread".to_string(),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => "nothing received".to_string(),
            Err(e) => format!("error {}", e.kind()),
        });
    }
    ctx.note(format!("after {} s the held requests show: {state}", args.seconds));
    Ok(())
}
