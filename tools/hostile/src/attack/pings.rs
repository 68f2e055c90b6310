//! `pings`: connections that say `hello`, then send WebSocket ping
//! control frames as fast as the socket takes them. A ping is no protocol
//! frame: does the server's frame rate limit count it, and what does each
//! pong it owes cost it?

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use super::{Ctx, Tally, hold_noting};
use crate::client;
use crate::http::Server;
use crate::stats::Summary;

/// `capicua-hostile pings`.
pub type Args = super::Swarm;

/// What the connections did.
#[derive(Default)]
struct Pinged {
    sent: AtomicU64,
    pongs: AtomicU64,
    texts: AtomicU64,
    /// How each connection ended, and how long the closed ones lived.
    ends: Mutex<(Tally, Vec<Duration>)>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let pinged = Arc::new(Pinged::default());
    let mut pingers = tokio::task::JoinSet::new();
    for _ in 0..args.connections {
        let (server, pinged) = (ctx.server.clone(), pinged.clone());
        pingers.spawn(async move { ping(&server, deadline, &pinged).await });
    }
    let say = || {
        let secs = t0.elapsed().as_secs_f64();
        let sent = pinged.sent.load(Ordering::Relaxed);
        format!(
            "{secs:.0} s: {sent} pings sent ({:.0}/s), {} pongs and {} text frames received; ended: {}",
            sent as f64 / secs,
            pinged.pongs.load(Ordering::Relaxed),
            pinged.texts.load(Ordering::Relaxed),
            pinged.ends.lock().expect("ends lock").0
        )
    };
    hold_noting(ctx, deadline, Duration::from_secs(10), say).await;
    // Each ends at the deadline; a send blocked for good is cut here.
    if tokio::time::timeout(Duration::from_secs(5), async { while pingers.join_next().await.is_some() {} })
        .await
        .is_err()
    {
        pingers.abort_all();
    }
    ctx.note(format!("in all: {}", say()));
    let lived = pinged.ends.lock().expect("ends lock").1.clone();
    ctx.note(format!("connections the server closed lived {}", Summary::of(lived)));
    Ok(())
}

/// One connection: `hello`, then pings until `deadline` or the server's
/// close, reading whatever comes back.
async fn ping(server: &Server, deadline: Instant, pinged: &Pinged) {
    let conn = match client::connect(server, None).await {
        Ok(conn) => conn,
        Err(e) => {
            pinged.ends.lock().expect("ends lock").0.add(format!("refused: {}", client::why(&e)));
            return;
        }
    };
    let t0 = Instant::now();
    let (mut tx, mut rx) = conn.into_ws().split();
    let writer = async {
        let mut n = 0u64;
        loop {
            n += 1;
            if tx.send(Message::Ping(n.to_be_bytes().to_vec().into())).await.is_err() {
                // The reader sees why.
                std::future::pending::<()>().await;
            }
            pinged.sent.fetch_add(1, Ordering::Relaxed);
        }
    };
    let reader = async {
        loop {
            match rx.next().await {
                Some(Ok(Message::Pong(_))) => pinged.pongs.fetch_add(1, Ordering::Relaxed),
                Some(Ok(Message::Text(_))) => pinged.texts.fetch_add(1, Ordering::Relaxed),
                Some(Ok(Message::Close(c))) => break format!("closed {}", c.map_or(0, |c| u16::from(c.code))),
                Some(Ok(_)) => continue,
                Some(Err(e)) => break client::why(&client::ended(e)),
                None => break "cut without a close frame".into(),
            };
        }
    };
    let end = tokio::select! {
        _ = tokio::time::sleep_until(deadline.into()) => None,
        _ = writer => None,
        why = reader => Some(why),
    };
    let mut ends = pinged.ends.lock().expect("ends lock");
    match end {
        Some(why) => {
            ends.0.add(why);
            ends.1.push(t0.elapsed());
        }
        None => ends.0.add("held to the end"),
    }
}
