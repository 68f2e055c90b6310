//! `idle`: many connections that never do anything useful, from this one
//! process: silent TCP sockets, slowloris requests (HTTP headers that
//! never end, a byte every few seconds) and WebSockets that never say
//! `hello`. Reports how many the server keeps open over time, and whether
//! a new normal client still gets in.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Ctx, Tally, hold_until};
use crate::http::{self, Server};
use crate::stats::Summary;
use crate::{client, procfs};

/// A kind of idle connection.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Connects and sends nothing.
    Silent,
    /// Sends half an HTTP request, then a byte of it every `--drip-secs`.
    Slowloris,
    /// Completes the WebSocket handshake, never says `hello`.
    Ws,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Silent => "silent",
            Kind::Slowloris => "slowloris",
            Kind::Ws => "ws",
        }
    }
}

/// `capicua-hostile idle`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Connections to open (fewer if this process's descriptor limit,
    /// less `--margin`, is lower).
    #[arg(long, default_value_t = 20_000)]
    pub connections: usize,
    /// Descriptors kept free for the probe, /healthz and checks.
    #[arg(long, default_value_t = 300)]
    pub margin: u64,
    /// The kinds, taken in turn.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "silent,slowloris,ws")]
    pub kinds: Vec<Kind>,
    /// Seconds between a slowloris connection's bytes.
    #[arg(long, default_value_t = 10)]
    pub drip_secs: u64,
    /// Connections being opened at once.
    #[arg(long, default_value_t = 256)]
    pub concurrency: usize,
    /// How long they are held (from when all are open).
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Seconds between checks of which are still open.
    #[arg(long, default_value_t = 5)]
    pub check_secs: u64,
}

/// One idle connection.
struct Idle {
    kind: Kind,
    tcp: TcpStream,
    opened: Instant,
    dripped: Instant,
    /// The server sent something (an error answer, a close frame).
    answered: bool,
    /// The server closed it, this long after it was opened.
    closed: Option<Duration>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    anyhow::ensure!(!args.kinds.is_empty(), "--kinds names no kind");
    let budget = ctx.fd_limit.saturating_sub(procfs::own_fds() + args.margin) as usize;
    let n = args.connections.min(budget);
    if n < args.connections {
        ctx.note(format!(
            "opening {n} connections, not {}: this process may hold {} descriptors",
            args.connections, ctx.fd_limit
        ));
    }
    ctx.begin().await;
    let t0 = Instant::now();
    let server = ctx.server.clone();
    let opening = futures_util::stream::iter(0..n)
        .map(|i| {
            let kind = args.kinds[i % args.kinds.len()];
            let server = server.clone();
            async move {
                let opened = tokio::time::timeout(Duration::from_secs(10), open(&server, kind)).await;
                (kind, opened.unwrap_or_else(|_| Err("timed out".into())))
            }
        })
        .buffer_unordered(args.concurrency.max(1));
    let mut idle: Vec<Idle> = Vec::with_capacity(n);
    let mut failures = Tally::default();
    let results: Vec<_> = opening.collect().await;
    for (kind, r) in results {
        match r {
            Ok(tcp) => {
                let now = Instant::now();
                idle.push(Idle { kind, tcp, opened: now, dripped: now, answered: false, closed: None });
            }
            Err(why) => failures.add(format!("{} {why}", kind.name())),
        }
    }
    ctx.note(format!(
        "opened {} of {n} in {:.1} s ({}); failed: {failures}",
        idle.len(),
        t0.elapsed().as_secs_f64(),
        counts(&idle, |_| true)
    ));
    ctx.note(format!(
        "a new normal client now: {}; /healthz: {}",
        normal_client(&ctx.server).await,
        healthz(&ctx.server).await
    ));
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let drip = Duration::from_secs(args.drip_secs);
    loop {
        hold_until(ctx, (Instant::now() + Duration::from_secs(args.check_secs)).min(deadline)).await;
        for c in idle.iter_mut().filter(|c| c.closed.is_none()) {
            check(c, drip);
        }
        ctx.note(format!(
            "{:.0} s: open {}; server answered {}; server closed {}",
            t0.elapsed().as_secs_f64(),
            counts(&idle, |c| c.closed.is_none()),
            counts(&idle, |c| c.answered),
            counts(&idle, |c| c.closed.is_some()),
        ));
        if Instant::now() >= deadline || ctx.monitor.server_gone() {
            break;
        }
    }
    let lifetimes = Summary::of(idle.iter().filter_map(|c| c.closed));
    ctx.note(format!("connections the server closed lived {lifetimes}"));
    ctx.note(format!(
        "a new normal client at the end: {}; /healthz: {}",
        normal_client(&ctx.server).await,
        healthz(&ctx.server).await
    ));
    Ok(())
}

/// Opens one idle connection of `kind`.
async fn open(server: &Server, kind: Kind) -> Result<TcpStream, String> {
    let mut tcp = server.tcp().await.map_err(|e| format!("connect: {}", e.kind()))?;
    match kind {
        Kind::Silent => {}
        Kind::Slowloris => {
            let half = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\nX-Slow: ", server.authority);
            tcp.write_all(half.as_bytes()).await.map_err(|e| format!("send: {}", e.kind()))?;
        }
        Kind::Ws => {
            let upgrade = format!(
                "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                server.authority
            );
            tcp.write_all(upgrade.as_bytes()).await.map_err(|e| format!("send: {}", e.kind()))?;
            let mut head = Vec::with_capacity(512);
            let mut buf = [0u8; 512];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = tcp.read(&mut buf).await.map_err(|e| format!("handshake: {}", e.kind()))?;
                if n == 0 || head.len() > 8192 {
                    return Err("handshake: closed".into());
                }
                head.extend_from_slice(&buf[..n]);
            }
            let status = String::from_utf8_lossy(&head).lines().next().and_then(http::status_code);
            if status != Some(101) {
                return Err(format!("handshake: HTTP {}", status.map_or("?".into(), |s| s.to_string())));
            }
        }
    }
    Ok(tcp)
}

/// Reads whatever the server sent without waiting (noting an answer or
/// the end of the stream), and drips a slowloris byte when one is due.
fn check(c: &mut Idle, drip: Duration) {
    let mut buf = [0u8; 4096];
    loop {
        match c.tcp.try_read(&mut buf) {
            Ok(0) => {
                c.closed = Some(c.opened.elapsed());
                return;
            }
            Ok(_) => c.answered = true,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(_) => {
                c.closed = Some(c.opened.elapsed());
                return;
            }
        }
    }
    if c.kind == Kind::Slowloris && c.dripped.elapsed() >= drip {
        c.dripped = Instant::now();
        match c.tcp.try_write(b"x") {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => c.closed = Some(c.opened.elapsed()),
        }
    }
}

/// `silent a, slowloris b, ws c` of the connections `which` picks.
fn counts(idle: &[Idle], which: impl Fn(&Idle) -> bool) -> String {
    let mut by = [0usize; 3];
    for c in idle.iter().filter(|c| which(c)) {
        by[c.kind as usize] += 1;
    }
    format!("silent {}, slowloris {}, ws {}", by[0], by[1], by[2])
}

/// Whether a new client connects and is welcomed, within 10 s.
async fn normal_client(server: &Server) -> String {
    let t0 = Instant::now();
    match tokio::time::timeout(Duration::from_secs(10), client::connect(server, None)).await {
        Ok(Ok(conn)) => {
            conn.close().await;
            format!("welcomed in {:.0} ms", t0.elapsed().as_secs_f64() * 1000.0)
        }
        Ok(Err(e)) => format!("REFUSED ({e:#})"),
        Err(_) => "no welcome within 10 s".into(),
    }
}

/// How `/healthz` answers now, within 10 s.
async fn healthz(server: &Server) -> String {
    match http::get(server, "/healthz", Duration::from_secs(10)).await {
        Ok(r) => format!("HTTP {} in {:.0} ms", r.status, r.elapsed.as_secs_f64() * 1000.0),
        Err(e) => format!("FAILED ({e:#})"),
    }
}
