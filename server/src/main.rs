//! `capicua-server`: serve, print the protocol schema, print standings,
//! probe a serving server's health.

mod cli;

use clap::{Parser, Subcommand};
use cli::serve::ServeArgs;
use cli::tournament::TournamentCommand;

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
    Serve(Box<ServeArgs>),
    /// Prints the JSON Schema of every protocol message.
    Schema,
    /// Prints this command line's reference as Markdown (the book's
    /// options page is this output).
    #[command(hide = true)]
    MarkdownHelp,
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

/// `C`'s reference as a page of the book titled `title`.
fn markdown_help<C: clap::CommandFactory>(title: &str) -> String {
    let options = clap_markdown::MarkdownOptions::new().title(title.to_string()).show_footer(false);
    clap_markdown::help_markdown_custom::<C>(&options)
}

/// Runs one command.
async fn run(cli: Cli) -> anyhow::Result<()> {
    let allow_foreign_tables = cli.allow_foreign_tables;
    match cli.command {
        Command::Serve(args) => cli::serve::run(*args, allow_foreign_tables).await,
        Command::Schema => cli::schema::run(),
        Command::MarkdownHelp => {
            print!("{}", markdown_help::<Cli>("capicua-server options"));
            Ok(())
        }
        Command::Standings { database, tournament: Some(id), json, .. } => {
            cli::standings::tournament(&database, id, json).await
        }
        Command::Standings { database, variant, limit, .. } => cli::standings::ratings(&database, variant, limit).await,
        Command::Ladder { database, variant, limit } => cli::ladder::run(&database, &variant, limit).await,
        Command::Tournament { command, database } => {
            cli::tournament::run(command, &database, allow_foreign_tables).await
        }
        Command::Register { name, database } => cli::register::run(&name, &database, allow_foreign_tables).await,
        Command::Health { url, timeout_ms } => cli::health::run(&url, timeout_ms).await,
    }
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
