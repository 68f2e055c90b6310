//! # capicua-hostile
//!
//! Hostile-client attacks on a running capicua server, and what they cost
//! it. `capicua-hostile KIND --server http://HOST:PORT --pid PID [sizes]`
//! runs one attack and watches the server while it runs:
//!
//! - the server process (`--pid`), every second from `/proc`: CPU (user +
//!   system, percent of one core), resident memory, threads, open
//!   descriptors; peak and final values;
//! - a probe: one normal table of four remote `random` bots playing latin
//!   matches over and over, whose move latency (move sent to `accepted`)
//!   is recorded: p50, p99 and max before the attack (the baseline) and
//!   during it; a move the server never answers counts with its wait;
//! - `GET /healthz` every second: latency, failures and timeouts;
//! - after the attack stops (its connections closed), the recovery check:
//!   the time until CPU and the probe's p99 are back near the baseline,
//!   or "not recovered".
//!
//! The attacks, one module each under `attack/`: `fill-bots` (a stranger
//! fills other people's rooms), `bot-rooms` (names open rooms of searching
//! hosted bots and leave), `replay` (replays of a long game never read),
//! `review` (reviews of a long game hung up, then hints), `idle` (thousands
//! of connections that do nothing: silent, slowloris, WebSockets without
//! `hello`), `slow-spectators` (spectators that never read and ask for
//! `resync`), `ladder-flood` (a ladder's pool filled by names that never
//! play) and `chat` (a room's spectators all chatting at the allowed
//! rate). Each is sized by flags whose defaults are the sizes of the
//! original audit. A server that refuses an attack is a result, reported
//! as such. `examples/hostile.sh` runs every attack against a server
//! binary and prints a table.

mod attack;
mod client;
mod http;
mod monitor;
mod procfs;
mod stats;
mod sys;
mod table;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};

use attack::Ctx;
use monitor::Monitor;

/// Runs one hostile-client attack against a running capicua server and
/// measures what it costs the server.
#[derive(Parser, Debug)]
#[command(name = "capicua-hostile", version)]
struct Cli {
    #[command(subcommand)]
    attack: Attack,
    #[command(flatten)]
    common: Common,
}

/// What every attack takes.
#[derive(clap::Args, Debug)]
struct Common {
    /// The server's base URL.
    #[arg(long, global = true, default_value = "http://127.0.0.1:8080")]
    server: String,
    /// The server's process id (read from /proc).
    #[arg(long, global = true)]
    pid: Option<u32>,
    /// Seconds of baseline before the attack.
    #[arg(long, global = true, default_value_t = 10)]
    baseline: u64,
    /// Seconds the recovery check waits at most.
    #[arg(long, global = true, default_value_t = 30)]
    recovery: u64,
    /// The probe's bots think this long before each move, milliseconds.
    #[arg(long, global = true, default_value_t = 20)]
    probe_think_ms: u64,
    /// A /healthz request slower than this counts as timed out,
    /// milliseconds.
    #[arg(long, global = true, default_value_t = 2000)]
    healthz_timeout_ms: u64,
    /// Append the run's row of the summary table (tab-separated) to this
    /// file.
    #[arg(long, global = true)]
    row: Option<PathBuf>,
    /// The local address the probe table, /healthz, the admin read and the
    /// victims connect from: not the attacks' (the server caps connections
    /// per address). Any 127.x.y.z is loopback on Linux, for a server on
    /// loopback.
    #[arg(long, global = true, default_value = "127.0.0.2")]
    probe_addr: std::net::IpAddr,
    /// The server's admin token: the monitor times an admin read a second,
    /// and the attacks that need the admin use it.
    #[arg(long, global = true, env = "CAPICUA_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<Token>,
}

/// The admin token: the run prints its command line, never the token.
#[derive(Clone)]
struct Token(String);

impl std::str::FromStr for Token {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Token, Self::Err> {
        Ok(Token(s.to_string()))
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<hidden>")
    }
}

#[derive(Subcommand, Debug)]
enum Attack {
    /// A stranger sends `fill-bots` to rooms it does not sit in.
    FillBots(attack::fill_bots::Args),
    /// Names open rooms of `pimc` bots and leave.
    BotRooms(attack::bot_rooms::Args),
    /// Parallel replays of a long game, never read.
    Replay(attack::replay::Args),
    /// Reviews of a long game hung up, then hints.
    Review(attack::review::Args),
    /// Thousands of idle connections.
    Idle(attack::idle::Args),
    /// Spectators that never read and ask for `resync`.
    SlowSpectators(attack::slow_spectators::Args),
    /// A ladder's pool filled by names that never play.
    LadderFlood(attack::ladder_flood::Args),
    /// Spectators of one room all chatting.
    Chat(attack::chat::Args),
    /// WebSockets opened in batches, each saying `hello` and pinging.
    WsFlood(attack::ws_flood::Args),
    /// WebSockets each sending a text message that never ends.
    Fragments(attack::fragments::Args),
    /// Hints asked at every prompt of the long game, and a victim's table.
    HintStarve(attack::hint_starve::Args),
    /// Names open rooms of `pimc` bots, sit, say ready and leave.
    AbandonedRooms(attack::abandoned_rooms::Args),
    /// Rooms of the long game between quick bots: stored games by the
    /// minute.
    StoreFlood(attack::store_flood::Args),
    /// Every free seat of every waiting public room taken, and a victim.
    Squat(attack::squat::Args),
    /// Rated rooms filled with hosted bots of a new spec each time.
    BotRows(attack::bot_rows::Args),
    /// `hello` with wrong tokens as fast as possible.
    AdminGuess(attack::admin_guess::Args),
    /// `subscribe-tournament` in a tight loop.
    SubscribeFlood(attack::subscribe_flood::Args),
    /// WebSocket pings as fast as the socket takes them.
    Pings(attack::pings::Args),
    /// Pages of a long game's replay as fast as they come.
    ReplayBurst(attack::replay_burst::Args),
}

impl Attack {
    fn name(&self) -> &'static str {
        match self {
            Attack::FillBots(_) => "fill-bots",
            Attack::BotRooms(_) => "bot-rooms",
            Attack::Replay(_) => "replay",
            Attack::Review(_) => "review",
            Attack::Idle(_) => "idle",
            Attack::SlowSpectators(_) => "slow-spectators",
            Attack::LadderFlood(_) => "ladder-flood",
            Attack::Chat(_) => "chat",
            Attack::WsFlood(_) => "ws-flood",
            Attack::Fragments(_) => "fragments",
            Attack::HintStarve(_) => "hint-starve",
            Attack::AbandonedRooms(_) => "abandoned-rooms",
            Attack::StoreFlood(_) => "store-flood",
            Attack::Squat(_) => "squat",
            Attack::BotRows(_) => "bot-rows",
            Attack::AdminGuess(_) => "admin-guess",
            Attack::SubscribeFlood(_) => "subscribe-flood",
            Attack::Pings(_) => "pings",
            Attack::ReplayBurst(_) => "replay-burst",
        }
    }

    async fn run(&self, ctx: &Ctx) -> anyhow::Result<()> {
        match self {
            Attack::FillBots(a) => attack::fill_bots::run(ctx, a).await,
            Attack::BotRooms(a) => attack::bot_rooms::run(ctx, a).await,
            Attack::Replay(a) => attack::replay::run(ctx, a).await,
            Attack::Review(a) => attack::review::run(ctx, a).await,
            Attack::Idle(a) => attack::idle::run(ctx, a).await,
            Attack::SlowSpectators(a) => attack::slow_spectators::run(ctx, a).await,
            Attack::LadderFlood(a) => attack::ladder_flood::run(ctx, a).await,
            Attack::Chat(a) => attack::chat::run(ctx, a).await,
            Attack::WsFlood(a) => attack::ws_flood::run(ctx, a).await,
            Attack::Fragments(a) => attack::fragments::run(ctx, a).await,
            Attack::HintStarve(a) => attack::hint_starve::run(ctx, a).await,
            Attack::AbandonedRooms(a) => attack::abandoned_rooms::run(ctx, a).await,
            Attack::StoreFlood(a) => attack::store_flood::run(ctx, a).await,
            Attack::Squat(a) => attack::squat::run(ctx, a).await,
            Attack::BotRows(a) => attack::bot_rows::run(ctx, a).await,
            Attack::AdminGuess(a) => attack::admin_guess::run(ctx, a).await,
            Attack::SubscribeFlood(a) => attack::subscribe_flood::run(ctx, a).await,
            Attack::Pings(a) => attack::pings::run(ctx, a).await,
            Attack::ReplayBurst(a) => attack::replay_burst::run(ctx, a).await,
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let c = &cli.common;
    let (before, fd_limit) = sys::raise_nofile().context("raising the descriptor limit")?;
    let server = http::Server::parse(&c.server)?;
    let pid = match c.pid {
        Some(pid) => pid,
        None => {
            anyhow::bail!("--pid: give the server's process id (its CPU, memory and descriptors are read from /proc)")
        }
    };
    anyhow::ensure!(procfs::read(pid).is_some(), "no process {pid} to watch");
    let name = cli.attack.name();
    println!("capicua-hostile {name} against {} (pid {pid}); descriptor limit {before} -> {fd_limit}", c.server);
    println!("{cli:?}");
    let probe = server.bound_to(c.probe_addr);
    let admin_token = c.admin_token.clone().map(|t| t.0);
    let monitor = Monitor::start(
        probe.clone(),
        pid,
        Duration::from_millis(c.healthz_timeout_ms),
        Duration::from_millis(c.probe_think_ms),
        admin_token.clone(),
    );
    let ctx = Ctx {
        server,
        probe,
        admin_token,
        monitor: monitor.clone(),
        baseline: Duration::from_secs(c.baseline),
        fd_limit,
    };
    // The attack's own failure (a server that refuses a step) is a
    // result: noted, and the run goes on to the recovery check.
    if let Err(e) = cli.attack.run(&ctx).await {
        monitor.note(format!("the attack stopped: {e:#}"));
    }
    let within = Duration::from_secs(c.recovery);
    let recovered = if monitor.server_gone() { None } else { monitor.recovery(within).await };
    let figures = monitor.figures(recovered);
    print!("{}", monitor.summary(name, &figures, within));
    if let Some(path) = &c.row {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        writeln!(file, "{}", monitor::table_row(name, &figures))?;
    }
    std::io::stdout().flush()?;
    // Background tasks (the probe, the sampler) end with the process.
    std::process::exit(0);
}
