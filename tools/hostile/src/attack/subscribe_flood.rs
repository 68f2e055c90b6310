//! `subscribe-flood`: one connection sends `subscribe-tournament` for the
//! same tournament in a tight loop (a new connection when the server
//! closes one): does each subscription cost the server a subscriber, a
//! database read, a reply? Replies counted by type and code.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use super::{Ctx, Tally, hold_noting};
use crate::client;
use crate::http::{self, Server};

/// `capicua-hostile subscribe-flood`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The tournament subscribed to; without it, one is created with the
    /// admin token (pending a day, so it plays nothing), or else 1.
    #[arg(long)]
    pub tournament: Option<i64>,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// What the flood did.
#[derive(Default)]
struct Flood {
    sent: AtomicU64,
    connections: AtomicU64,
    replies: Mutex<Tally>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let id = match (args.tournament, &ctx.admin_token) {
        (Some(id), _) => id,
        (None, Some(token)) => create_tournament(&ctx.server, token).await?,
        (None, None) => 1,
    };
    ctx.note(format!("subscribing to tournament {id}"));
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let flood = Arc::new(Flood::default());
    let flooding = tokio::spawn({
        let (server, flood) = (ctx.server.clone(), flood.clone());
        async move {
            while Instant::now() < deadline {
                subscribe_until_closed(&server, id, deadline, &flood).await;
            }
        }
    });
    let say = || {
        let secs = t0.elapsed().as_secs_f64();
        let sent = flood.sent.load(Ordering::Relaxed);
        format!(
            "{secs:.0} s: {sent} subscribe-tournament sent ({:.0}/s) over {} connections; replies: {}",
            sent as f64 / secs,
            flood.connections.load(Ordering::Relaxed),
            flood.replies.lock().expect("replies lock")
        )
    };
    hold_noting(ctx, deadline, Duration::from_secs(10), say).await;
    flooding.abort();
    ctx.note(format!("in all: {}", say()));
    Ok(())
}

/// A tournament of two hosted bots, created with the admin token, that
/// starts in a day: its id.
async fn create_tournament(server: &Server, token: &str) -> anyhow::Result<i64> {
    let spec = serde_json::json!({
        "name": "hostile subscribe-flood",
        "seed": 1,
        "table": "duel",
        "variants": ["block"],
        "entrants": ["bot:random#1", "bot:random#2"],
        "stages": [{"format": "round-robin"}],
    });
    let starts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs() + 86_400;
    let path = format!("/api/tournaments?starts-at={starts}");
    let (status, body) =
        http::post_json(server, &path, Some(token), &spec.to_string(), Duration::from_secs(10)).await?;
    anyhow::ensure!(status == 201, "POST /api/tournaments: HTTP {status} {body}");
    body["id"].as_i64().ok_or_else(|| anyhow::anyhow!("POST /api/tournaments: no id in {body}"))
}

/// One connection: `hello`, then `subscribe-tournament` as fast as the
/// socket takes it, its replies read and counted, until the server closes
/// it or `deadline`.
async fn subscribe_until_closed(server: &Server, id: i64, deadline: Instant, flood: &Flood) {
    let conn = match client::connect(server, None).await {
        Ok(conn) => conn,
        Err(e) => {
            flood.replies.lock().expect("replies lock").add(format!("connect {}", client::why(&e)));
            tokio::time::sleep(Duration::from_millis(100)).await;
            return;
        }
    };
    flood.connections.fetch_add(1, Ordering::Relaxed);
    let (mut tx, mut rx) = conn.into_ws().split();
    let frame = serde_json::json!({"type": "subscribe-tournament", "tournament": id}).to_string();
    let writer = async {
        loop {
            if tx.send(Message::Text(frame.clone().into())).await.is_err() {
                // The reader sees why.
                std::future::pending::<()>().await;
            }
            flood.sent.fetch_add(1, Ordering::Relaxed);
        }
    };
    let reader = async {
        loop {
            let what = match rx.next().await {
                Some(Ok(Message::Text(t))) => {
                    let v: serde_json::Value = serde_json::from_str(&t).unwrap_or_default();
                    match v["progress"]["event"].as_str() {
                        Some(event) => format!("{} {event}", client::outcome(&v)),
                        None => client::outcome(&v),
                    }
                }
                Some(Ok(Message::Close(c))) => break format!("closed {}", c.map_or(0, |c| u16::from(c.code))),
                Some(Ok(_)) => continue,
                Some(Err(e)) => break client::why(&client::ended(e)),
                None => break "cut without a close frame".into(),
            };
            flood.replies.lock().expect("replies lock").add(what);
        }
    };
    let ended = tokio::select! {
        _ = tokio::time::sleep_until(deadline.into()) => None,
        _ = writer => None,
        why = reader => Some(why),
    };
    if let Some(why) = ended {
        flood.replies.lock().expect("replies lock").add(format!("connection {why}"));
    }
}
