//! `capicua-server serve`: its options, and serving until a signal.

use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

/// The options of `serve`.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on: HOST:PORT, or unix:PATH for a Unix domain socket.
    #[arg(long, env = "CAPICUA_LISTEN", default_value = "127.0.0.1:8080")]
    pub(crate) listen: String,
    /// Database: a SQLite file (a path or a `sqlite://` URL) or a
    /// PostgreSQL URL (`postgres://user:password@host:port/name`, an
    /// existing database); created if missing and migrated on start,
    /// after the listener is bound. A database holding tables that are
    /// not capicua's is refused, untouched. One server per SQLite file;
    /// several on one PostgreSQL database, each serving its own rooms,
    /// one of them (elected by the database) running the tournaments.
    #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
    pub(crate) database: String,
    /// The base URL clients reach this server at (`http://10.0.0.2:8080`,
    /// `https://play.example` behind a proxy). Recorded in the database,
    /// where the other servers on it read it: they list this server's
    /// rooms in their lobbies and send its rooms' players here (the
    /// `wrong-node` error). Default: `http://` and the listening address.
    #[arg(long, env = "CAPICUA_PUBLIC_URL", value_parser = public_url)]
    pub(crate) public_url: Option<String>,
    /// Token that grants admin actions: closing rooms (`close-room`),
    /// creating tournaments (`POST /api/tournaments`) and creating rated
    /// rooms without a player's token. At least 16 characters, not all
    /// the same (`od -An -N16 -tx1 /dev/urandom | tr -d ' \n'` makes one).
    #[arg(long, env = "CAPICUA_ADMIN_TOKEN", value_parser = admin_token)]
    pub(crate) admin_token: Option<String>,
    /// A web origin (`https://club.example`) whose pages may call the
    /// HTTP API (`/api/...`) from a browser; repeat for more, `*` for
    /// any. Without it browsers allow same-origin calls only.
    #[arg(long = "cors-origin", env = "CAPICUA_CORS_ORIGINS", value_delimiter = ',')]
    pub(crate) cors_origins: Vec<String>,
    /// Most simultaneous WebSocket connections.
    #[arg(long, env = "CAPICUA_MAX_CONNECTIONS", default_value_t = 20_000)]
    pub(crate) max_connections: usize,
    /// Messages per second one connection may send.
    #[arg(long, env = "CAPICUA_RATE", default_value_t = 1000)]
    pub(crate) rate: u32,
    /// Seconds a disconnected player's seat is kept.
    #[arg(long, default_value_t = 60)]
    pub(crate) reconnect_grace: u64,
    /// Longest wait, in milliseconds, of an event to a connection that
    /// asked for batched events (they also leave with its next prompt or
    /// reply).
    #[arg(long, env = "CAPICUA_BATCH_MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(2..=60_000))]
    pub(crate) batch_ms: u64,
    /// Milliseconds a database write waits for a lock another process
    /// holds (SQLite's busy timeout; on PostgreSQL, how long a query
    /// waits for a pooled connection) before it fails.
    #[arg(long, env = "CAPICUA_DB_BUSY_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub(crate) db_busy_ms: u64,
    /// Milliseconds a finished match whose storing failed for a reason
    /// that can pass (a lock, a full disk, an I/O error) is retried
    /// before its players hear it was not stored (`game: null`); 0 does
    /// not retry.
    #[arg(long, env = "CAPICUA_STORE_RETRY_MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub(crate) store_retry_ms: u64,
    #[command(flatten)]
    pub(crate) bots: BotLimits,
    #[command(flatten)]
    pub(crate) limits: ClientLimits,
    #[command(flatten)]
    pub(crate) memory: MemoryLimits,
    #[command(flatten)]
    pub(crate) cpu: CpuLimits,
    /// Not a flag: taken only to say that `--listen` sets the port.
    #[arg(long, hide = true)]
    pub(crate) port: Option<String>,
}

/// What a hosted bot may spend on a move. Clients name the strategies of
/// the bots they seat (`fill-bots`, a room's timeout policy, tournament
/// entrants): a search asking for more than these is refused.
#[derive(clap::Args)]
pub(crate) struct BotLimits {
    /// Longest a hosted search (`pimc`, `ismcts`) thinks per move, in
    /// milliseconds; a spec may ask for less with `ms=`.
    #[arg(long, env = "CAPICUA_BOT_THINK_MS", default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=60_000))]
    bot_think_ms: u32,
    /// Most `pimc` samples per move a spec may ask for.
    #[arg(long, env = "CAPICUA_BOT_MAX_SAMPLES", default_value_t = 2000)]
    bot_max_samples: u32,
    /// Most `pimc` rollouts per sample a spec may ask for.
    #[arg(long, env = "CAPICUA_BOT_MAX_ROLLOUTS", default_value_t = 16)]
    bot_max_rollouts: u32,
    /// Most `ismcts` iterations per move a spec may ask for.
    #[arg(long, env = "CAPICUA_BOT_MAX_ITERATIONS", default_value_t = 20_000)]
    bot_max_iterations: u32,
}

impl BotLimits {
    fn caps(&self) -> capicua_strategy::SearchCaps {
        capicua_strategy::SearchCaps {
            samples: self.bot_max_samples,
            rollouts: self.bot_max_rollouts,
            iterations: self.bot_max_iterations,
            time: Duration::from_millis(self.bot_think_ms.into()),
            ..Default::default()
        }
    }
}

/// The server's CPU-bound work: hosted-bot searches, hints and reviews.
#[derive(clap::Args)]
pub(crate) struct CpuLimits {
    /// Hosted-bot searches, hints and review decisions running at once,
    /// server-wide; more wait in a queue (hints first, then searches and
    /// review decisions in turn), so the threads searching stay this many
    /// however many rooms ask. Default: the number of cores.
    #[arg(long, env = "CAPICUA_MAX_SEARCHES", value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_searches: Option<u64>,
    /// Seconds a review (`GET /api/games/{id}/review`) may take in all,
    /// waiting for search slots included; a longer one is refused `busy`
    /// and its requester told to retry later.
    #[arg(long, env = "CAPICUA_REVIEW_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    review_secs: u64,
    /// Hints one client address may have computed or waiting at once (a
    /// connection and a registered player have one each); over it, `busy`.
    /// 0 is no limit.
    #[arg(long, env = "CAPICUA_HINTS_PER_ADDR", default_value_t = 1)]
    hints_per_addr: usize,
}

/// What one client may take from the server: rooms, and HTTP API requests
/// per address (an address is the TCP peer's, or behind a trusted proxy
/// the client's it forwards; on a Unix socket none applies).
#[derive(clap::Args)]
pub(crate) struct ClientLimits {
    /// Seconds a room stays open with no player connected in a seat and no
    /// match in play (hosted bots and spectators do not count); 0 keeps
    /// such rooms open. Tournament tables are exempt.
    #[arg(long, env = "CAPICUA_ROOM_IDLE_SECS", default_value_t = 600)]
    room_idle_secs: u64,
    /// Most open rooms one registered player, or one guest address, may
    /// have created (`too-many-rooms` after that); 0 is no limit. The
    /// admin has none.
    #[arg(long, env = "CAPICUA_MAX_ROOMS_PER_PLAYER", default_value_t = 4)]
    max_rooms_per_player: usize,
    /// HTTP API writes (`POST`, `DELETE` under `/api`) per minute per
    /// address, in bursts of up to that many; 0 is no limit.
    #[arg(long, env = "CAPICUA_HTTP_WRITES_PER_MIN", default_value_t = 60)]
    http_writes_per_min: u32,
    /// HTTP API reads (`GET` under `/api`) per minute per address, in
    /// bursts of up to that many; 0 is no limit.
    #[arg(long, env = "CAPICUA_HTTP_READS_PER_MIN", default_value_t = 1200)]
    http_reads_per_min: u32,
    /// A reverse proxy's address (repeat it, or separate by commas): a
    /// request from it counts against the client address it appends to
    /// `X-Forwarded-For`, not against the proxy's. Trust only your own proxy:
    /// anyone else could name any address.
    #[arg(long = "trusted-proxy", env = "CAPICUA_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Seconds a room whose seats are all hosted bots stays open with no
    /// one watching it (its match stands still meanwhile); 0 lets such
    /// rooms play on unwatched. Tournament tables and the admin's rooms
    /// are exempt.
    #[arg(long, env = "CAPICUA_UNWATCHED_ROOM_SECS", default_value_t = 60)]
    unwatched_room_secs: u64,
    /// New names registered (`register`) per minute per address, in
    /// bursts of up to that many (`rate-limited` after that); 0 is no limit.
    #[arg(long, env = "CAPICUA_REGISTRATIONS_PER_MIN", default_value_t = 10)]
    registrations_per_min: u32,
    /// Seconds a new connection has to send its request's headers, and an
    /// idle HTTP connection to start its next request, before it is closed.
    #[arg(long, env = "CAPICUA_HEADER_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_secs: u64,
    /// Seconds a WebSocket has to send `hello` before it is closed (code
    /// 4006).
    #[arg(long, env = "CAPICUA_HELLO_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    hello_timeout_secs: u64,
    /// Seconds a WebSocket may stay silent before it is closed (code 4006).
    /// The server pings every third of this; clients answer pings on their
    /// own, so only a dead or stuck client is closed.
    #[arg(long, env = "CAPICUA_IDLE_TIMEOUT_SECS", default_value_t = 90, value_parser = clap::value_parser!(u64).range(3..))]
    idle_timeout_secs: u64,
    /// Most open connections (HTTP or WebSocket) from one address; 0 is no
    /// limit. A trusted proxy's connections are not counted: its clients
    /// are, by their forwarded address, on the WebSocket.
    #[arg(long, env = "CAPICUA_MAX_CONNECTIONS_PER_ADDR", default_value_t = 64)]
    max_connections_per_addr: usize,
    /// Most spectators one room takes at once (`seat-taken` after that); 0
    /// is no limit.
    #[arg(long, env = "CAPICUA_MAX_SPECTATORS", default_value_t = 200)]
    max_spectators: usize,
    /// Leading bits of an IPv6 address that the per-address limits count
    /// as one address: 64 (a /64, what one subscriber is usually given) by
    /// default, 128 to count every address apart.
    #[arg(long, env = "CAPICUA_IPV6_PREFIX", default_value_t = 64, value_parser = clap::value_parser!(u8).range(1..=128))]
    ipv6_prefix: u8,
    /// Most open rooms created from one address, by its guests and all the
    /// names registered there together (`too-many-rooms` after that); 0 is
    /// no limit. The admin has none.
    #[arg(long, env = "CAPICUA_MAX_ROOMS_PER_ADDR", default_value_t = 8)]
    max_rooms_per_addr: usize,
    /// Most seats one address may hold in rooms whose match has not
    /// started (`too-many-seats` after that), so that nobody can squat
    /// every waiting room; 0 is no limit.
    #[arg(long, env = "CAPICUA_MAX_SEATS_PER_ADDR", default_value_t = 8)]
    max_seats_per_addr: usize,
    /// KiB of finished matches the rooms of one owner (a registered player,
    /// or a guest's address), and of one address, may store an hour, in
    /// bursts of up to that many: once spent, their rooms start no match
    /// (`storage-budget`) until it refills. 0 is no limit; the admin's
    /// rooms and tournament tables are exempt.
    #[arg(long, env = "CAPICUA_STORED_KIB_PER_HOUR", default_value_t = 16384)]
    stored_kib_per_hour: u32,
    /// Wrong tokens (the admin's or a player's) one address may send in
    /// `hello` a minute; past it, `hello` with a token is refused
    /// `rate-limited` and the connection closed. 0 is no limit.
    #[arg(long, env = "CAPICUA_TOKEN_GUESSES_PER_MIN", default_value_t = 10)]
    token_guesses_per_min: u32,
}

/// What one client may make the server hold in memory.
#[derive(clap::Args)]
pub(crate) struct MemoryLimits {
    /// Bytes of frames queued for one connection before it is closed as a
    /// slow consumer (close 4004); one frame alone may be larger.
    #[arg(long, env = "CAPICUA_OUTBOUND_BYTES", default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(65_536..=1 << 30))]
    outbound_bytes: u64,
    /// Most bytes of steps in one page of a replay (`GET /api/games/{id}`);
    /// a page holds at least one step.
    #[arg(long, env = "CAPICUA_REPLAY_PAGE_BYTES", default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(65_536..=1 << 28))]
    replay_page_bytes: u64,
    /// Replay requests (`GET /api/games/{id}`) of one address answered at
    /// once, an answer counting until it is sent; over it, `429`
    /// `rate-limited`. 0 is no limit.
    #[arg(long, env = "CAPICUA_REPLAYS_PER_ADDR", default_value_t = 4)]
    replays_per_addr: usize,
    /// Replay pages (`GET /api/games/{id}`) one address is answered a
    /// minute, in bursts of up to that many (`429` `rate-limited` after
    /// that): each page is up to `--replay-page-bytes` to build and send.
    /// 0 is no limit.
    #[arg(long, env = "CAPICUA_REPLAY_PAGES_PER_MIN", default_value_t = 120)]
    replay_pages_per_min: u32,
}

/// Serves until SIGINT or SIGTERM.
pub(crate) async fn run(args: ServeArgs, allow_foreign_tables: bool) -> anyhow::Result<()> {
    if let Some(port) = &args.port {
        anyhow::bail!("there is no --port: the port is part of --listen (--listen 127.0.0.1:{port}, or HOST:{port})");
    }
    let cors = capicua_server::CorsOrigins::parse(&args.cors_origins).context("--cors-origin")?;
    // The serving lock first (a database another server serves, or one in
    // a folder that does not exist, is refused before anything else), then
    // the listener: a server that cannot take connections (the port is
    // taken) must not create or migrate a database. "listening" is said
    // once both the port and the database are the server's.
    let serving = super::serving_lock::lock_for_serving(&args.database).await?;
    let (listener, socket_file, listening) = bind(&args.listen).await?;
    let opened = open(&args, allow_foreign_tables).await;
    let db = match opened {
        Ok(db) => db,
        Err(e) => {
            if let Some(path) = socket_file {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
    };
    let _serving = serving;
    tracing::info!("{listening}");
    tracing::info!("database {}", args.database);
    capicua_server::run(listener, db, config(args, cors), shutdown_signal()).await?;
    Ok(())
}

/// Opens the database (the serving lock is held: the OS drops it with the
/// process).
async fn open(args: &ServeArgs, allow_foreign_tables: bool) -> anyhow::Result<capicua_server::Db> {
    let options = capicua_server::db::OpenOptions {
        allow_foreign_tables,
        busy_timeout: Duration::from_millis(args.db_busy_ms),
        store_retry: Duration::from_millis(args.store_retry_ms),
    };
    super::open_with(&args.database, options).await
}

/// The server's configuration from the options.
fn config(args: ServeArgs, cors: capicua_server::CorsOrigins) -> capicua_server::Config {
    let ServeArgs { admin_token, public_url, max_connections, rate, bots, limits, memory, cpu, .. } = args;
    let config = capicua_server::Config {
        admin_token,
        cors,
        max_connections,
        rate_per_sec: rate,
        rate_burst: rate.saturating_mul(2),
        reconnect_grace: Duration::from_secs(args.reconnect_grace),
        batch_every: Duration::from_millis(args.batch_ms),
        bot_caps: bots.caps(),
        room_idle: (limits.room_idle_secs > 0).then(|| Duration::from_secs(limits.room_idle_secs)),
        max_rooms_per_owner: limits.max_rooms_per_player,
        http_writes_per_min: limits.http_writes_per_min,
        http_reads_per_min: limits.http_reads_per_min,
        trusted_proxies: limits.trusted_proxies,
        public_url,
        unwatched_room: (limits.unwatched_room_secs > 0).then(|| Duration::from_secs(limits.unwatched_room_secs)),
        registrations_per_min: limits.registrations_per_min,
        header_timeout: Duration::from_secs(limits.header_timeout_secs),
        hello_timeout: Duration::from_secs(limits.hello_timeout_secs),
        idle_timeout: Duration::from_secs(limits.idle_timeout_secs),
        max_connections_per_addr: limits.max_connections_per_addr,
        max_spectators: limits.max_spectators,
        outbound_bytes: memory.outbound_bytes as usize,
        replay_page_bytes: memory.replay_page_bytes as usize,
        replays_per_addr: memory.replays_per_addr,
        replay_pages_per_min: memory.replay_pages_per_min,
        ipv6_prefix: limits.ipv6_prefix,
        max_rooms_per_addr: limits.max_rooms_per_addr,
        max_seats_per_addr: limits.max_seats_per_addr,
        stored_kib_per_hour: limits.stored_kib_per_hour,
        token_guesses_per_min: limits.token_guesses_per_min,
        review_time: Duration::from_secs(cpu.review_secs),
        hints_per_addr: cpu.hints_per_addr,
        ..Default::default()
    };
    match cpu.max_searches {
        Some(n) => capicua_server::Config { max_searches: n as usize, ..config },
        None => config,
    }
}

/// Binds `--listen`: the listener, and the socket file of a `unix:` one
/// (to remove if the server gives up before serving) and the line that
/// says where it listens.
async fn bind(listen: &str) -> anyhow::Result<(capicua_server::Listener, Option<&str>, String)> {
    let in_use = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!("listening on {listen}: address in use (is another server running there?)")
        } else {
            anyhow::Error::new(e).context(format!("listening on {listen}"))
        }
    };
    match listen.strip_prefix("unix:") {
        Some(path) => {
            // A socket file left by an earlier run would fail the bind.
            if std::fs::metadata(path).is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type())) {
                std::fs::remove_file(path).with_context(|| format!("removing the old socket {path}"))?;
            }
            let l = tokio::net::UnixListener::bind(path).map_err(in_use)?;
            Ok((l.into(), Some(path), format!("capicua-server listening on {listen} (WebSocket at /ws)")))
        }
        None => {
            let l = TcpListener::bind(listen).await.map_err(in_use)?;
            let line = format!("capicua-server listening on http://{} (WebSocket at /ws)", l.local_addr()?);
            Ok((l.into(), None, line))
        }
    }
}

/// The fewest characters an admin token has: guesses are throttled per
/// address, but a short token falls to guesses from many addresses.
const ADMIN_TOKEN_MIN: usize = 16;

/// Checks `--admin-token`: long enough, and not one character repeated.
fn admin_token(s: &str) -> Result<String, String> {
    let n = s.chars().count();
    if n < ADMIN_TOKEN_MIN {
        return Err(format!("{n} characters: an admin token has at least {ADMIN_TOKEN_MIN}"));
    }
    let first = s.chars().next();
    if s.chars().all(|c| Some(c) == first) {
        return Err("one character repeated is no secret".into());
    }
    if s.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("an admin token has no spaces or control characters".into());
    }
    Ok(s.to_string())
}

/// Checks `--public-url`: an `http://` or `https://` URL with a host, kept
/// without a trailing slash.
fn public_url(s: &str) -> Result<String, String> {
    let rest = s.strip_prefix("http://").or_else(|| s.strip_prefix("https://"));
    match rest {
        Some(r) if !r.is_empty() && !r.starts_with('/') && !r.chars().any(char::is_whitespace) => {
            Ok(s.trim_end_matches('/').to_string())
        }
        _ => Err(format!("{s:?} is not an http:// or https:// URL with a host")),
    }
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
