//! `capicua-server`: serve, print the protocol schema, print standings.

use anyhow::Context;
use clap::{Parser, Subcommand};
use tokio::net::TcpListener;

#[derive(Parser)]
#[command(name = "capicua-server", version, about = "Dominoes lobby server and referee for humans and bots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serves HTTP and WebSocket (`/ws`) on one port until SIGINT/SIGTERM.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "CAPICUA_LISTEN", default_value = "127.0.0.1:8080")]
        listen: String,
        /// SQLite database (a path or a `sqlite://` URL); created and migrated on start.
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
        /// Token that grants admin actions (closing rooms).
        #[arg(long, env = "CAPICUA_ADMIN_TOKEN")]
        admin_token: Option<String>,
        /// Most simultaneous WebSocket connections.
        #[arg(long, env = "CAPICUA_MAX_CONNECTIONS", default_value_t = 20_000)]
        max_connections: usize,
        /// Messages per second one connection may send.
        #[arg(long, env = "CAPICUA_RATE", default_value_t = 1000)]
        rate: u32,
        /// Seconds a disconnected player's seat is kept.
        #[arg(long, default_value_t = 60)]
        reconnect_grace: u64,
    },
    /// Prints the JSON Schema of every protocol message.
    Schema,
    /// Prints the leaderboard of every rated variant (or one).
    Standings {
        /// SQLite database.
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
        /// Only this variant.
        #[arg(long)]
        variant: Option<String>,
        /// Lines per variant.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Registers a player name and prints its secret token.
    Register {
        /// The name.
        name: String,
        /// SQLite database.
        #[arg(long, env = "CAPICUA_DATABASE", default_value = "capicua.db")]
        database: String,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt().with_target(false).init();
    match Cli::parse().command {
        Command::Serve { listen, database, admin_token, max_connections, rate, reconnect_grace } => {
            let db = capicua_server::Db::open(&database).await.with_context(|| format!("opening {database}"))?;
            let listener = TcpListener::bind(&listen).await.with_context(|| format!("listening on {listen}"))?;
            tracing::info!(
                "capicua-server listening on http://{} (WebSocket at /ws), database {database}",
                listener.local_addr()?
            );
            let config = capicua_server::Config {
                admin_token,
                max_connections,
                rate_per_sec: rate,
                rate_burst: rate.saturating_mul(2),
                reconnect_grace: std::time::Duration::from_secs(reconnect_grace),
                ..Default::default()
            };
            capicua_server::run(listener, db, config, shutdown_signal()).await?;
        }
        Command::Schema => {
            println!("{}", serde_json::to_string_pretty(&capicua_protocol::json_schema())?);
        }
        Command::Standings { database, variant, limit } => {
            let db = capicua_server::Db::open(&database).await.with_context(|| format!("opening {database}"))?;
            let variants = match variant {
                Some(v) => vec![v],
                None => db.rated_variants().await?,
            };
            if variants.is_empty() {
                println!("no rated games yet");
            }
            for v in variants {
                println!("{v}");
                println!(
                    "{:>4}  {:<24} {:>8} {:>8} {:>7} {:>6} {:>6}",
                    "rank", "name", "ordinal", "mu", "sigma", "games", "wins"
                );
                for s in db.leaderboard(&v, limit).await? {
                    println!(
                        "{:>4}  {:<24} {:>8.2} {:>8.2} {:>7.2} {:>6} {:>6}",
                        s.rank, s.name, s.ordinal, s.mu, s.sigma, s.games, s.wins
                    );
                }
            }
            db.close().await;
        }
        Command::Register { name, database } => {
            let db = capicua_server::Db::open(&database).await.with_context(|| format!("opening {database}"))?;
            let (player, token) = db.register(&name).await?;
            println!("registered {} (id {}); token (shown once): {token}", player.name, player.id);
            db.close().await;
        }
    }
    Ok(())
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
