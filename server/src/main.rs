//! `capicua-server`: serve, print the protocol schema, print standings,
//! probe a serving server's health.

use anyhow::Context;
use capicua_server::tournament::store::{self, SpecFormat};
use clap::{Parser, Subcommand};
use tokio::net::TcpListener;

#[derive(Parser)]
#[command(name = "capicua-server", version, about = "Dominoes lobby server and referee for humans and bots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Let `serve`, `register` and `tournament create` use a database that
    /// also holds tables that are not capicua's (a file shared with another
    /// program) instead of refusing it. Commands that only read never alter
    /// the file and ignore this.
    #[arg(long, env = "CAPICUA_ALLOW_FOREIGN_TABLES", global = true)]
    allow_foreign_tables: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Serves HTTP and WebSocket (`/ws`) on one port until SIGINT/SIGTERM.
    Serve {
        /// Address to listen on: HOST:PORT, or unix:PATH for a Unix domain socket.
        #[arg(long, env = "CAPICUA_LISTEN", default_value = "127.0.0.1:8080")]
        listen: String,
        /// Database: a SQLite file (a path or a `sqlite://` URL) or a
        /// PostgreSQL URL (`postgres://user:password@host:port/name`, an
        /// existing database); created if missing and migrated on start,
        /// after the listener is bound. A database holding tables that are
        /// not capicua's is refused, untouched. One server per SQLite file;
        /// several on one PostgreSQL database, each serving its own rooms,
        /// one of them (elected by the database) running the tournaments.
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
        /// The base URL clients reach this server at (`http://10.0.0.2:8080`,
        /// `https://play.example` behind a proxy). Recorded in the database,
        /// where the other servers on it read it: they list this server's
        /// rooms in their lobbies and send its rooms' players here (the
        /// `wrong-node` error). Default: `http://` and the listening address.
        #[arg(long, env = "CAPICUA_PUBLIC_URL", value_parser = public_url)]
        public_url: Option<String>,
        /// Token that grants admin actions: closing rooms (`close-room`),
        /// creating tournaments (`POST /api/tournaments`) and creating rated
        /// rooms without a player's token.
        #[arg(long, env = "CAPICUA_ADMIN_TOKEN")]
        admin_token: Option<String>,
        /// A web origin (`https://club.example`) whose pages may call the
        /// HTTP API (`/api/...`) from a browser; repeat for more, `*` for
        /// any. Without it browsers allow same-origin calls only.
        #[arg(long = "cors-origin", env = "CAPICUA_CORS_ORIGINS", value_delimiter = ',')]
        cors_origins: Vec<String>,
        /// Most simultaneous WebSocket connections.
        #[arg(long, env = "CAPICUA_MAX_CONNECTIONS", default_value_t = 20_000)]
        max_connections: usize,
        /// Messages per second one connection may send.
        #[arg(long, env = "CAPICUA_RATE", default_value_t = 1000)]
        rate: u32,
        /// Seconds a disconnected player's seat is kept.
        #[arg(long, default_value_t = 60)]
        reconnect_grace: u64,
        /// Longest wait, in milliseconds, of an event to a connection that
        /// asked for batched events (they also leave with its next prompt or
        /// reply).
        #[arg(long, env = "CAPICUA_BATCH_MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(2..=60_000))]
        batch_ms: u64,
        /// Milliseconds a database write waits for a lock another process
        /// holds (SQLite's busy timeout; on PostgreSQL, how long a query
        /// waits for a pooled connection) before it fails.
        #[arg(long, env = "CAPICUA_DB_BUSY_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
        db_busy_ms: u64,
        /// Milliseconds a finished match whose storing failed for a reason
        /// that can pass (a lock, a full disk, an I/O error) is retried
        /// before its players hear it was not stored (`game: null`); 0 does
        /// not retry.
        #[arg(long, env = "CAPICUA_STORE_RETRY_MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
        store_retry_ms: u64,
        #[command(flatten)]
        bots: BotLimits,
        #[command(flatten)]
        limits: ClientLimits,
        #[command(flatten)]
        memory: MemoryLimits,
        #[command(flatten)]
        cpu: CpuLimits,
    },
    /// Prints the JSON Schema of every protocol message.
    Schema,
    /// Prints the leaderboard of every rated variant (or one), or a tournament's standings.
    Standings {
        /// Database (a SQLite path or a PostgreSQL URL), opened read-only (it must exist).
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
        /// A tournament's standings instead of the ratings.
        #[arg(long)]
        tournament: Option<i64>,
        /// Print JSON (with `--tournament`).
        #[arg(long)]
        json: bool,
        /// Only this variant.
        #[arg(long)]
        variant: Option<String>,
        /// Lines per variant.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Prints a preset's ladder: its ratings board with wins, draws and losses.
    Ladder {
        /// Database (a SQLite path or a PostgreSQL URL), opened read-only (it must exist).
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
        /// The preset whose ladder to print.
        #[arg(long, default_value = "latin")]
        variant: String,
        /// Lines to print.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Creates or lists tournaments (in the database; a serving server runs
    /// them), or takes an organiser's control (through the serving server's
    /// HTTP API, with its admin token).
    Tournament {
        #[command(subcommand)]
        command: TournamentCommand,
        /// Database, a SQLite path or a PostgreSQL URL (`list` opens it read-only; it must exist).
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db", global = true)]
        database: String,
    },
    /// Registers a player name and prints its secret token.
    Register {
        /// The name.
        name: String,
        /// Database, a SQLite path or a PostgreSQL URL.
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
    },
    /// Exits with success when a serving server answers `GET URL` with a 2xx
    /// status: a probe for container health checks (no curl needed).
    Health {
        /// The URL to ask (plain `http://HOST[:PORT]/PATH`).
        #[arg(long, env = "CAPICUA_HEALTH_URL", default_value = "http://127.0.0.1:8080/healthz")]
        url: String,
        /// Milliseconds to wait for the whole answer.
        #[arg(long, default_value_t = 3000)]
        timeout_ms: u64,
    },
}

/// What a hosted bot may spend on a move. Clients name the strategies of
/// the bots they seat (`fill-bots`, a room's timeout policy, tournament
/// entrants): a search asking for more than these is refused.
#[derive(clap::Args)]
struct BotLimits {
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
            time: std::time::Duration::from_millis(self.bot_think_ms.into()),
            ..Default::default()
        }
    }
}

/// The server's CPU-bound work: hosted-bot searches, hints and reviews.
#[derive(clap::Args)]
struct CpuLimits {
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
}

/// What one client may take from the server: rooms, and HTTP API requests
/// per address (an address is the TCP peer's, or behind a trusted proxy
/// the client's it forwards; on a Unix socket none applies).
#[derive(clap::Args)]
struct ClientLimits {
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
}

/// What one client may make the server hold in memory.
#[derive(clap::Args)]
struct MemoryLimits {
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
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Validates a tournament file (TOML, or JSON by extension) and stores it
    /// as pending; a serving server on the same database starts it within a second.
    /// Variant files it names are read from the current directory, validated
    /// and stored with it: a later change to a file changes no event.
    Create {
        /// The tournament file.
        #[arg(long)]
        file: std::path::PathBuf,
        /// When it may start: an RFC 3339 time (`2026-01-01T18:00:00Z`) or
        /// unix seconds; default at once.
        #[arg(long)]
        starts_at: Option<String>,
    },
    /// Lists the tournaments, newest first.
    List,
    /// Pauses a tournament on the serving server: no new table opens,
    /// tables in play finish.
    Pause {
        #[command(flatten)]
        to: Organiser,
    },
    /// Resumes a paused tournament, or a failed one once its cause is fixed.
    Resume {
        #[command(flatten)]
        to: Organiser,
    },
    /// Cancels a tournament: its open tables close, its played games stay.
    Cancel {
        #[command(flatten)]
        to: Organiser,
    },
    /// Withdraws an entrant: no round planned from now on seats it.
    Withdraw {
        #[command(flatten)]
        to: Organiser,
        /// The entrant's name (or its id, a number).
        #[arg(long)]
        entrant: String,
    },
    /// Enters a late entrant into a running Swiss or arena.
    Enter {
        #[command(flatten)]
        to: Organiser,
        /// A registered player's name or a hosted bot (`bot:STRATEGY`), as in a spec's `entrants`.
        name: String,
    },
    /// Deletes a tournament that has not started, with everything stored of it.
    Delete {
        #[command(flatten)]
        to: Organiser,
    },
    /// Corrects a recorded result; the standings are recomputed.
    Correct {
        #[command(flatten)]
        to: Organiser,
        /// The round (from 0).
        #[arg(long)]
        round: u32,
        /// The table (from 0).
        #[arg(long)]
        table: u32,
        /// The winning side (from 0), or `draw`.
        #[arg(long)]
        winner: String,
        /// Each seat's score, in seat order, comma-separated (default: as recorded).
        #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
        scores: Option<Vec<i64>>,
    },
}

/// Where an organiser's control goes: the serving server, over its HTTP
/// API, so that the server (the tournament's only runner) decides it.
#[derive(clap::Args)]
struct Organiser {
    /// The tournament's id.
    id: i64,
    /// The serving server's base URL (plain `http://HOST[:PORT]`).
    #[arg(long, env = "CAPICUA_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
    /// The server's admin token.
    #[arg(long, env = "CAPICUA_ADMIN_TOKEN")]
    admin_token: String,
    /// Who takes the control, for the audit trail (default: `admin`).
    #[arg(long)]
    by: Option<String>,
}

/// `println!` for command output: a reader that closes the pipe early
/// (`capicua-server standings | head`) ends the command quietly, with
/// success, instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        emit(format_args!($($arg)*))?
    };
}

/// Writes one line of command output to stdout; see [`outln!`].
fn emit(line: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        // The reader has all it wanted: nothing is left to do.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.context("writing to stdout"),
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    init_logging();
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, joined by `: `; a cause whose text
/// the line already holds (an error that prints its source) is left out.
fn error_chain(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Runs one command.
async fn run(cli: Cli) -> anyhow::Result<()> {
    let allow_foreign_tables = cli.allow_foreign_tables;
    match cli.command {
        Command::Serve {
            listen,
            database,
            public_url,
            admin_token,
            cors_origins,
            max_connections,
            rate,
            reconnect_grace,
            batch_ms,
            db_busy_ms,
            store_retry_ms,
            bots,
            limits,
            memory,
            cpu,
        } => {
            let cors = capicua_server::CorsOrigins::parse(&cors_origins).context("--cors-origin")?;
            // The listener first: a server that cannot take connections
            // (the port is taken) must not create or migrate a database.
            let (listener, socket_file) = bind(&listen).await?;
            // Held until the process ends (the OS drops the lock with it).
            let _serving = match lock_for_serving(&database).await {
                Ok(lock) => lock,
                Err(e) => {
                    if let Some(path) = socket_file {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(e);
                }
            };
            let options = capicua_server::db::OpenOptions {
                allow_foreign_tables,
                busy_timeout: std::time::Duration::from_millis(db_busy_ms),
                store_retry: std::time::Duration::from_millis(store_retry_ms),
            };
            let db = match open_with(&database, options).await {
                Ok(db) => db,
                Err(e) => {
                    if let Some(path) = socket_file {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(e);
                }
            };
            tracing::info!("database {database}");
            let config = capicua_server::Config {
                admin_token,
                cors,
                max_connections,
                rate_per_sec: rate,
                rate_burst: rate.saturating_mul(2),
                reconnect_grace: std::time::Duration::from_secs(reconnect_grace),
                batch_every: std::time::Duration::from_millis(batch_ms),
                bot_caps: bots.caps(),
                room_idle: (limits.room_idle_secs > 0).then(|| std::time::Duration::from_secs(limits.room_idle_secs)),
                max_rooms_per_owner: limits.max_rooms_per_player,
                http_writes_per_min: limits.http_writes_per_min,
                http_reads_per_min: limits.http_reads_per_min,
                trusted_proxies: limits.trusted_proxies,
                public_url,
                unwatched_room: (limits.unwatched_room_secs > 0)
                    .then(|| std::time::Duration::from_secs(limits.unwatched_room_secs)),
                registrations_per_min: limits.registrations_per_min,
                header_timeout: std::time::Duration::from_secs(limits.header_timeout_secs),
                hello_timeout: std::time::Duration::from_secs(limits.hello_timeout_secs),
                idle_timeout: std::time::Duration::from_secs(limits.idle_timeout_secs),
                max_connections_per_addr: limits.max_connections_per_addr,
                max_spectators: limits.max_spectators,
                outbound_bytes: memory.outbound_bytes as usize,
                replay_page_bytes: memory.replay_page_bytes as usize,
                replays_per_addr: memory.replays_per_addr,
                review_time: std::time::Duration::from_secs(cpu.review_secs),
                ..Default::default()
            };
            let config = match cpu.max_searches {
                Some(n) => capicua_server::Config { max_searches: n as usize, ..config },
                None => config,
            };
            capicua_server::run(listener, db, config, shutdown_signal()).await?;
        }
        Command::Schema => {
            outln!("{}", serde_json::to_string_pretty(&capicua_protocol::json_schema())?);
        }
        Command::Standings { database, tournament: Some(id), json, .. } => {
            let db = open_read_only(&database).await?;
            let Some(summary) = db.tournament_summary(id).await? else {
                anyhow::bail!("no tournament {id}");
            };
            let rows = db.tournament_standings(id).await?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                // The spec says how the rows were ordered; a stored spec
                // that no longer parses (a newer format) still prints, with
                // the tie-breaks unnamed.
                let scoring = match db.tournament_spec(id).await? {
                    Some(spec) => spec.parse::<capicua_server::tournament::TournamentError>().ok(),
                    None => None,
                };
                outln!("{} (tournament {id}, {}, {} results)", summary.name, summary.status, summary.results);
                let tie_breaks = rows.first().map_or(0, |r| r.tie_breaks.len());
                let order = RankOrder::of(scoring.as_ref(), tie_breaks);
                outln!("ranked by: {}", order.explain());
                let mut header = format!(
                    "{:>4}  {:<24} {:>5} {:>6} {:>5} {:>5} {:>6} {:>4} {:>5} {:>7}",
                    "rank", "entrant", "stage", "points", "wins", "draws", "losses", "byes", "games", "score"
                );
                for label in &order.tie_break_labels {
                    header.push_str(&format!(" {label:>w$}", w = label.len().max(5)));
                }
                outln!("{header}");
                for r in rows {
                    let mut line = format!(
                        "{:>4}  {:<24} {:>5} {:>6} {:>5} {:>5} {:>6} {:>4} {:>5} {:>7}",
                        r.rank, r.name, r.stage, r.points, r.wins, r.draws, r.losses, r.byes, r.games, r.score
                    );
                    for (label, value) in order.tie_break_labels.iter().zip(&r.tie_breaks) {
                        line.push_str(&format!(" {value:>w$}", w = label.len().max(5)));
                    }
                    if r.disqualified {
                        line.push_str("  (disqualified)");
                    } else if r.eliminated {
                        line.push_str("  (eliminated)");
                    }
                    outln!("{line}");
                }
            }
            db.close().await;
        }
        Command::Standings { database, variant, limit, .. } => {
            let db = open_read_only(&database).await?;
            let rated = db.rated_variants().await?;
            let variants = match variant {
                Some(v) if rated.contains(&v) => vec![v],
                Some(v) => {
                    db.close().await;
                    if rated.is_empty() {
                        anyhow::bail!("no rated games in variant {v:?}: there are no rated games yet");
                    }
                    anyhow::bail!("no rated games in variant {v:?}; variants with rated games: {}", rated.join(", "));
                }
                None => rated,
            };
            if variants.is_empty() {
                outln!("no rated games yet");
            }
            for v in variants {
                outln!("{v}");
                print_board(&db.leaderboard(&v, limit).await?)?;
            }
            db.close().await;
        }
        Command::Ladder { database, variant, limit } => {
            if capicua_engine::preset(&variant).is_none() {
                anyhow::bail!(
                    "unknown preset {variant:?}; ladders are the presets: {}",
                    capicua_engine::PRESETS.join(", ")
                );
            }
            let db = open_read_only(&database).await?;
            let rows = db.leaderboard(&variant, limit).await?;
            outln!("{variant} ladder");
            if rows.is_empty() {
                outln!("no rated games yet");
            } else {
                print_board(&rows)?;
            }
            db.close().await;
        }
        Command::Tournament { command: TournamentCommand::Create { file, starts_at }, database } => {
            let starts_at = starts_at.as_deref().map(store::parse_starts_at).transpose()?;
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
            let format =
                if file.extension().is_some_and(|e| e == "json") { SpecFormat::Json } else { SpecFormat::Toml };
            let db = open_for_writing(&database, allow_foreign_tables).await?;
            let created = store::create(
                &db,
                &text,
                format,
                capicua_strategy::SearchCaps::default(),
                store::Origin::Operator,
                starts_at,
            )
            .await;
            db.close().await;
            let (id, config) = created.with_context(|| format!("{}", file.display()))?;
            outln!(
                "created tournament {id} ({:?}, {} entrants), pending: a server serving {database} starts it",
                config.spec().name,
                config.entrant_count()
            );
        }
        Command::Tournament { command: TournamentCommand::List, database } => {
            let db = open_read_only(&database).await?;
            let list = db.tournaments().await?;
            db.close().await;
            if list.is_empty() {
                outln!("no tournaments");
            } else {
                outln!("{:>4}  {:<28} {:<9} {:>8} {:>7}", "id", "name", "status", "entrants", "results");
            }
            for t in list {
                outln!(
                    "{:>4}  {:<28} {:<9} {:>8} {:>7}{}",
                    t.id,
                    t.name,
                    t.status,
                    t.entrants,
                    t.results,
                    t.error.map(|e| format!("  ({e})")).unwrap_or_default()
                );
            }
        }
        Command::Tournament { command, .. } => {
            let (to, control, mut body) = match command {
                TournamentCommand::Pause { to } => (to, "pause", serde_json::json!({})),
                TournamentCommand::Resume { to } => (to, "resume", serde_json::json!({})),
                TournamentCommand::Cancel { to } => (to, "cancel", serde_json::json!({})),
                TournamentCommand::Delete { to } => (to, "delete", serde_json::json!({})),
                TournamentCommand::Withdraw { to, entrant } => {
                    let entrant = match entrant.parse::<u32>() {
                        Ok(id) => serde_json::json!(id),
                        Err(_) => serde_json::json!(entrant),
                    };
                    (to, "withdraw", serde_json::json!({ "entrant": entrant }))
                }
                TournamentCommand::Enter { to, name } => (to, "enter", serde_json::json!({ "entrant": name })),
                TournamentCommand::Correct { to, round, table, winner, scores } => {
                    let winner = match winner.as_str() {
                        "draw" => serde_json::Value::Null,
                        w => serde_json::json!(
                            w.parse::<u32>().map_err(|_| anyhow::anyhow!("--winner: a side number or `draw`"))?
                        ),
                    };
                    let mut body = serde_json::json!({ "round": round, "table": table, "winner": winner });
                    if let Some(scores) = scores {
                        body["scores"] = serde_json::json!(scores);
                    }
                    (to, "correct", body)
                }
                TournamentCommand::Create { .. } | TournamentCommand::List => unreachable!("matched above"),
            };
            if let Some(by) = &to.by {
                body["by"] = serde_json::json!(by);
            }
            let base = format!("{}/api/tournaments/{}", to.server.trim_end_matches('/'), to.id);
            let (method, url) =
                if control == "delete" { ("DELETE", base) } else { ("POST", format!("{base}/{control}")) };
            let body = body.to_string();
            let call = http_request(method, &url, Some(&to.admin_token), Some(&body));
            let (status, answer) = tokio::time::timeout(std::time::Duration::from_secs(30), call)
                .await
                .map_err(|_| anyhow::anyhow!("{url}: no answer within 30 s"))??;
            let json: Option<serde_json::Value> = serde_json::from_str(&answer).ok();
            if !(200..300).contains(&status) {
                let reason = json
                    .as_ref()
                    .and_then(|j| Some(format!("{}: {}", j.get("code")?.as_str()?, j.get("message")?.as_str()?)))
                    .unwrap_or_else(|| answer.split_whitespace().collect::<Vec<_>>().join(" "));
                anyhow::bail!("tournament {} {control}: HTTP status {status}: {reason}", to.id);
            }
            match json.as_ref().and_then(|j| j.get("status")?.as_str().map(String::from)) {
                Some(state) => outln!("tournament {} {control}: done (status {state})", to.id),
                None => outln!("tournament {} {control}: done", to.id),
            }
        }
        Command::Register { name, database } => {
            // Checked before the database is opened: a refused name leaves
            // no file behind.
            capicua_protocol::check_name(&name).map_err(|rules| anyhow::anyhow!("{name:?}: {rules}"))?;
            let db = open_for_writing(&database, allow_foreign_tables).await?;
            let (player, token) = db.register(&name).await?;
            outln!("registered {} (id {}); token (shown once): {token}", player.name, player.id);
            db.close().await;
        }
        Command::Health { url, timeout_ms } => {
            let timeout = std::time::Duration::from_millis(timeout_ms);
            let (status, body) = tokio::time::timeout(timeout, http_status(&url))
                .await
                .map_err(|_| anyhow::anyhow!("{url}: no answer within {timeout_ms} ms"))??;
            if !(200..300).contains(&status) {
                // The server's reason (`/healthz` names what fails) goes
                // with the status, on the same line.
                let reason = body.split_whitespace().collect::<Vec<_>>().join(" ");
                if reason.is_empty() {
                    anyhow::bail!("{url}: HTTP status {status}");
                }
                anyhow::bail!("{url}: HTTP status {status}: {reason}");
            }
            outln!("{url}: HTTP status {status}");
        }
    }
    Ok(())
}

/// A ratings board: rank, name, rating, games and their wins, draws and losses.
fn print_board(rows: &[capicua_server::db::Standing]) -> anyhow::Result<()> {
    outln!(
        "{:>4}  {:<24} {:>8} {:>8} {:>7} {:>6} {:>6} {:>6} {:>6}",
        "rank",
        "name",
        "ordinal",
        "mu",
        "sigma",
        "games",
        "wins",
        "draws",
        "losses"
    );
    for s in rows {
        outln!(
            "{:>4}  {:<24} {:>8.2} {:>8.2} {:>7.2} {:>6} {:>6} {:>6} {:>6}",
            s.rank,
            s.name,
            s.ordinal,
            s.mu,
            s.sigma,
            s.games,
            s.wins,
            s.draws,
            s.losses
        );
    }
    Ok(())
}

/// How a tournament's standings are ordered, for the table's header: the
/// keys of `Tournament::standings`, named from the tournament's spec.
struct RankOrder {
    /// The keys before the tie-breaks, in order.
    keys: Vec<&'static str>,
    /// One label per tie-break column (the spec's names).
    tie_break_labels: Vec<String>,
}

impl RankOrder {
    /// The order of a tournament with `config` (`None`: its spec could not
    /// be read, and its `tie_breaks` columns are only numbered).
    fn of(config: Option<&capicua_tournament::Config>, tie_breaks: usize) -> RankOrder {
        use capicua_tournament::{FormatKind, WinnerRule};
        let Some(config) = config else {
            return RankOrder {
                keys: vec!["not disqualified", "furthest stage", "later knockout exit", "the winner rule"],
                tie_break_labels: (1..=tie_breaks).map(|i| format!("tb{i}")).collect(),
            };
        };
        let spec = config.spec();
        let mut keys = vec!["not disqualified", "furthest stage"];
        if spec.stages.iter().any(|s| matches!(s.format, FormatKind::Knockout | FormatKind::DoubleKnockout)) {
            keys.push("later knockout exit");
        }
        keys.push(match spec.scoring.winner {
            WinnerRule::MostPoints => "most points",
            WinnerRule::MostWins => "most wins, then points",
            WinnerRule::BestPlayer => "best player's score, then points",
        });
        let tie_break_labels = spec
            .scoring
            .tie_breaks
            .iter()
            .map(|tb| serde_json::to_value(tb).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default())
            .collect();
        RankOrder { keys, tie_break_labels }
    }

    /// One line: the keys, the tie-breaks, the seed.
    fn explain(&self) -> String {
        let mut text = self.keys.join(", ");
        if !self.tie_break_labels.is_empty() {
            text.push_str(&format!("; then tie-breaks {}", self.tie_break_labels.join(", ")));
        }
        text.push_str("; then seed");
        text
    }
}

/// Binds `--listen`: the listener, and the socket file of a `unix:` one
/// (to remove if the server gives up before serving).
async fn bind(listen: &str) -> anyhow::Result<(capicua_server::Listener, Option<&str>)> {
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
            tracing::info!("capicua-server listening on {listen} (WebSocket at /ws)");
            Ok((l.into(), Some(path)))
        }
        None => {
            let l = TcpListener::bind(listen).await.map_err(in_use)?;
            tracing::info!("capicua-server listening on http://{} (WebSocket at /ws)", l.local_addr()?);
            Ok((l.into(), None))
        }
    }
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

/// A held serving lock: a file lock beside a SQLite file.
struct Serving(#[allow(dead_code, reason = "held, never read")] std::fs::File);

/// Takes the serving lock of a SQLite `database`, so a second server on
/// the same file refuses to start instead of fighting the first over the
/// file's single writer and tournament tables: an exclusive lock on the
/// file `<database>.lock` beside it (the file stays), which dies with the
/// process, however it ends. Commands that only read, and `register`, do
/// not take it. `None` for an in-memory database, which no other process
/// can share, and for PostgreSQL, where several servers may serve one
/// database and elect the one that runs the tournaments
/// ([`capicua_server::db::SchedulerLock`]).
async fn lock_for_serving(database: &str) -> anyhow::Result<Option<Serving>> {
    use std::str::FromStr;
    if capicua_server::db::Backend::of(database) == capicua_server::db::Backend::Postgres {
        return Ok(None);
    }
    let url = capicua_server::db::database_url(database);
    let opts = sqlx::sqlite::SqliteConnectOptions::from_str(&url).with_context(|| format!("opening {database}"))?;
    let file = opts.get_filename();
    if url.contains(":memory:") || file.as_os_str().is_empty() || file == std::path::Path::new(":memory:") {
        return Ok(None);
    }
    let mut lock_path = file.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock_path = std::path::PathBuf::from(lock_path);
    let lock = match std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path) {
        Ok(lock) => lock,
        // Serving stores every finished match: on a file system it cannot
        // write, every result would be lost while the server looked
        // healthy. Refused before anything else, in one line.
        Err(e) if e.kind() == std::io::ErrorKind::ReadOnlyFilesystem => anyhow::bail!(
            "the database {database} is on a read-only file system: serve needs to write it (it stores every \
             finished match), so it does not start; `standings` and `tournament list` read such a database"
        ),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("opening the lock file {}", lock_path.display()))),
    };
    match try_lock(&lock) {
        Ok(true) => Ok(Some(Serving(lock))),
        Ok(false) => anyhow::bail!(
            "the database {database} is in use by another capicua-server (it holds {}): \
             stop that server or give another --database",
            lock_path.display()
        ),
        Err(e) => Err(anyhow::Error::new(e).context(format!("locking {}", lock_path.display()))),
    }
}

/// Takes an exclusive `flock` on `file` without waiting: false when another
/// process holds it.
#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Elsewhere the serving lock is not taken.
#[cfg(not(unix))]
fn try_lock(_: &std::fs::File) -> std::io::Result<bool> {
    Ok(true)
}

/// Opens the database of a command that writes (`serve`, `register`,
/// `tournament create`): created and migrated if needed, refused untouched
/// if it holds foreign tables (unless allowed).
async fn open_for_writing(database: &str, allow_foreign_tables: bool) -> anyhow::Result<capicua_server::Db> {
    open_with(database, capicua_server::db::OpenOptions { allow_foreign_tables, ..Default::default() }).await
}

/// [`open_for_writing`] with every option given.
async fn open_with(database: &str, options: capicua_server::db::OpenOptions) -> anyhow::Result<capicua_server::Db> {
    capicua_server::Db::open_with(database, options).await.with_context(|| format!("opening {database}"))
}

/// Opens the database of a command that only reads: never created,
/// migrated or altered. The guards' errors name the file themselves.
async fn open_read_only(database: &str) -> anyhow::Result<capicua_server::Db> {
    use capicua_server::db::DbError;
    match capicua_server::Db::open_read_only(database).await {
        Ok(db) => Ok(db),
        Err(e @ DbError::Missing { .. }) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context(format!("opening {database}"))),
    }
}

/// The status code and body of `GET url` (HTTP/1.1 over plain TCP). A
/// hand-written request keeps the probe free of an HTTP client dependency:
/// it needs the status line, and the body only to print a failure's reason.
async fn http_status(url: &str) -> anyhow::Result<(u16, String)> {
    let (status, body) = http_request("GET", url, None, None).await?;
    Ok((status, body.chars().take(300).collect()))
}

/// Sends one HTTP/1.1 request (`Authorization: Bearer TOKEN` with a token,
/// a JSON body with a body) and returns the status and at most a few KiB
/// of the answer's body.
async fn http_request(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> anyhow::Result<(u16, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").with_context(|| format!("{url}: only http:// URLs can be probed"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    anyhow::ensure!(!authority.is_empty(), "{url}: no host");
    // A bare host means port 80, as in any HTTP client.
    let address = if authority.rsplit_once(':').is_some_and(|(_, port)| port.parse::<u16>().is_ok()) {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let mut stream = tokio::net::TcpStream::connect(&address).await.with_context(|| format!("{url}: connecting"))?;
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    request.push_str(body.unwrap_or_default());
    stream.write_all(request.as_bytes()).await.with_context(|| format!("{url}: sending"))?;
    // Read until the status line has come, then on until the body is
    // whole (by its `Content-Length`) or the server closes; never more than
    // a few KiB, so a large or endless body is not read at all.
    const MOST: usize = 16 * 1024;
    let mut answer = Vec::new();
    let mut buf = [0u8; 512];
    while answer.len() < MOST && !answer_complete(&answer) {
        let n = match stream.read(&mut buf).await {
            Ok(n) => n,
            // A reset after the status line: what came is the answer.
            Err(_) if answer.contains(&b'\n') => break,
            Err(e) => return Err(anyhow::Error::new(e).context(format!("{url}: reading"))),
        };
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    let line = text.lines().next().unwrap_or_default();
    let status = line
        .strip_prefix("HTTP/1.")
        .and_then(|l| l.get(2..5))
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("{url}: not an HTTP answer: {line:?}"))?;
    let body = text.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
    Ok((status, body.to_string()))
}

/// Whether `answer` holds a whole HTTP response: its head, and as many
/// body bytes as its `Content-Length` says (a head without one waits for
/// the server to close).
fn answer_complete(answer: &[u8]) -> bool {
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&answer[..end]);
    let length = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        if name.trim().eq_ignore_ascii_case("content-length") { value.trim().parse::<usize>().ok() } else { None }
    });
    length.is_some_and(|n| answer.len() >= end + 4 + n)
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

/// Logs go to stderr (stdout is for command output), coloured only on a
/// terminal, filtered by `RUST_LOG` (default: `info`), e.g.
/// `RUST_LOG=capicua_server=debug` or `RUST_LOG=warn`.
fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
}
