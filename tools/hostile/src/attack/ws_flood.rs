//! `ws-flood`: WebSockets from one address, opened a batch at a time
//! until a count or the time is up, each saying `hello` as a guest and
//! then a `ping` every so often, as a client keeping its connection alive
//! does: a cheap client holds a server connection each. Reports the
//! upgrades accepted, the HTTP refusals by status and the server's closes
//! by code.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use capicua_protocol::ClientMsg;

use super::{Ctx, Tally, fd_budget, hold_noting};
use crate::client::{self, Conn};
use crate::http::Server;

/// `capicua-hostile ws-flood`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// WebSockets to open (fewer if this process's descriptor limit, less
    /// `--margin`, is lower).
    #[arg(long, default_value_t = 20_000)]
    pub sockets: usize,
    /// Opened at once, a batch at a time.
    #[arg(long, default_value_t = 50)]
    pub batch: usize,
    /// Seconds between a socket's `ping`s.
    #[arg(long, default_value_t = 20)]
    pub ping_secs: u64,
    /// Descriptors kept free for the probe, /healthz and checks.
    #[arg(long, default_value_t = 300)]
    pub margin: u64,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// What the held sockets met.
#[derive(Default)]
struct Held {
    open: AtomicU64,
    pings: AtomicU64,
    /// The server's error frames and closes, by code.
    ended: Mutex<Tally>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let n = fd_budget(ctx, args.sockets, args.margin);
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let held = Arc::new(Held::default());
    let every = Duration::from_secs(args.ping_secs.max(1));
    let (mut tries, mut welcomed, mut upgraded) = (Tally::default(), 0usize, 0u64);
    let mut sockets = tokio::task::JoinSet::new();
    let mut next_note = t0 + Duration::from_secs(10);
    while welcomed < n && Instant::now() < deadline && !ctx.monitor.server_gone() {
        let batch = args.batch.clamp(1, n - welcomed);
        let opened = futures_util::future::join_all((0..batch).map(|_| open(&ctx.server))).await;
        let mut got = 0;
        for (upgrade, result) in opened {
            upgraded += u64::from(upgrade);
            match result {
                Ok(conn) => {
                    got += 1;
                    sockets.spawn(keep(conn, every, deadline, held.clone()));
                }
                Err(why) => tries.add(why),
            }
        }
        welcomed += got;
        if Instant::now() >= next_note {
            next_note += Duration::from_secs(10);
            ctx.note(progress(t0, welcomed, upgraded, &tries, &held));
        }
        // A batch refused whole: try again shortly rather than spin.
        if got == 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    ctx.note(format!("opening stopped: {}", progress(t0, welcomed, upgraded, &tries, &held)));
    hold_noting(ctx, deadline, Duration::from_secs(10), || progress(t0, welcomed, upgraded, &tries, &held)).await;
    sockets.abort_all();
    Ok(())
}

/// One socket: the upgrade, then `hello`. Whether the upgrade was
/// accepted, and the connection welcomed or what refused it.
async fn open(server: &Server) -> (bool, Result<Conn, String>) {
    let mut conn = match Conn::open(server).await {
        Ok(c) => c,
        Err(e) => return (false, Err(format!("upgrade {}", client::why(&e)))),
    };
    let hello = client::hello(None);
    match client::request(&mut conn, hello).await {
        Ok(r) if r["type"].as_str() == Some("welcome") => (true, Ok(conn)),
        Ok(r) => (true, Err(format!("hello {}", client::outcome(&r)))),
        Err(e) => (true, Err(format!("hello {}", client::why(&e)))),
    }
}

/// Holds a welcomed socket to `deadline`, a `ping` every `every`, reading
/// what the server sends (its errors and its close are counted).
async fn keep(mut conn: Conn, every: Duration, deadline: Instant, held: Arc<Held>) {
    held.open.fetch_add(1, Ordering::Relaxed);
    let mut next = Instant::now() + every;
    let end = loop {
        tokio::select! {
            text = conn.recv_text() => match text {
                Ok(t) if t.contains(r#""type":"error""#) => {
                    let v: serde_json::Value = serde_json::from_str(&t).unwrap_or_default();
                    held.ended.lock().expect("held lock").add(client::outcome(&v));
                }
                Ok(_) => {}
                Err(e) => break Some(client::why(&e)),
            },
            _ = tokio::time::sleep_until(next.min(deadline).into()) => {
                if Instant::now() >= deadline {
                    break None;
                }
                next += every;
                if let Err(e) = conn.send(ClientMsg::Ping).await {
                    break Some(client::why(&e));
                }
                held.pings.fetch_add(1, Ordering::Relaxed);
            }
        }
    };
    held.open.fetch_sub(1, Ordering::Relaxed);
    if let Some(end) = end {
        held.ended.lock().expect("held lock").add(end);
    }
}

/// Where the flood stands, for a note.
fn progress(t0: Instant, welcomed: usize, upgraded: u64, tries: &Tally, held: &Held) -> String {
    format!(
        "{:.0} s: upgrades accepted {upgraded}, welcomed {welcomed}, open now {}, pings sent {}; refused: {tries}; \
         server errors and closes of welcomed sockets: {}",
        t0.elapsed().as_secs_f64(),
        held.open.load(Ordering::Relaxed),
        held.pings.load(Ordering::Relaxed),
        held.ended.lock().expect("held lock"),
    )
}
