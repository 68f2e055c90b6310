//! `store-flood`: as `abandoned-rooms`, but the rooms play the long
//! double-18 game between quick hosted `random` bots, and new names keep
//! coming as fast as the server registers them, each opening rooms in
//! turn: every match is a big stored game. Reports the games stored a
//! minute and, given the database's path, how fast its files grow.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::abandoned_rooms::{self, Abandon, Opened};
use super::long_game::LongShape;
use super::{Ctx, Tally};
use crate::client::{self, Conn};
use crate::http::{self, Server};

/// `capicua-hostile store-flood`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Who opens the rooms.
    #[command(flatten)]
    pub owners: super::Owners,
    /// The game the rooms play.
    #[command(flatten)]
    pub shape: LongShape,
    /// The hosted strategy filling them.
    #[arg(long, default_value = "random")]
    pub strategy: String,
    /// Seconds between attempts to register one more name.
    #[arg(long, default_value_t = 6)]
    pub register_secs: u64,
    /// Keep each name's connection open after leaving its rooms.
    #[arg(long)]
    pub stay_connected: bool,
    /// The server's SQLite database: its growth (and its `-wal`'s) is
    /// reported.
    #[arg(long)]
    pub database: Option<PathBuf>,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 75)]
    pub seconds: u64,
}

/// Where the count of stored games started.
struct Start {
    at: Instant,
    /// The newest stored game then.
    newest: i64,
    /// `capicua_games_finished_total` then.
    finished: Option<f64>,
    /// The database's bytes then.
    bytes: Option<u64>,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let start = Start {
        at: Instant::now(),
        newest: newest_game(&ctx.server).await.unwrap_or(0),
        finished: finished_total(&ctx.server).await,
        bytes: args.database.as_deref().map(db_bytes),
    };
    let how = Abandon { rooms: args.owners.rooms, spec: args.shape.room_spec(), strategy: args.strategy.clone() };
    let (mut opened, mut held) =
        abandoned_rooms::open_names(&ctx.server, args.owners.names, "store", &how, args.stay_connected).await;
    ctx.note(format!(
        "{} names x {} rooms: {} rooms left to their bots; {}",
        args.owners.names,
        args.owners.rooms,
        opened.rooms.len(),
        opened.tally
    ));
    let mut register = tokio::time::interval(Duration::from_secs(args.register_secs.max(1)));
    register.tick().await;
    let mut report = tokio::time::interval(Duration::from_secs(15));
    report.tick().await;
    let mut names = Tally::default();
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        tokio::select! {
            _ = tokio::time::sleep_until(deadline.into()) => {}
            _ = register.tick() => {
                let conn = one_more_name(&ctx.server, &how, &mut opened, &mut names).await;
                held.extend(conn.filter(|_| args.stay_connected));
            }
            _ = report.tick() => ctx.note(stored(ctx, args, &start, &opened, &names).await),
        }
    }
    ctx.note(format!("at the end: {}", stored(ctx, args, &start, &opened, &names).await));
    ctx.note(format!("rooms: {}", opened.tally));
    for conn in held {
        conn.close().await;
    }
    Ok(())
}

/// One more registered name, if the server takes it, opening its rooms.
async fn one_more_name(server: &Server, how: &Abandon, opened: &mut Opened, names: &mut Tally) -> Option<Conn> {
    match client::register(server, "store").await {
        Ok((mut conn, _)) => {
            names.add("registered");
            abandoned_rooms::abandon_rooms(&mut conn, how, opened).await;
            Some(conn)
        }
        Err(e) => {
            names.add(format!("refused: {}", client::why(&e)));
            None
        }
    }
}

/// The games stored since the start, a minute, and the database's growth.
async fn stored(ctx: &Ctx, args: &Args, start: &Start, opened: &Opened, names: &Tally) -> String {
    let minutes = start.at.elapsed().as_secs_f64() / 60.0;
    let ours = match games_since(&ctx.server, start.newest).await {
        Ok(t) => {
            let n = t.get("hostile-long");
            format!("{n} of ours ({:.1}/min) among {} stored ({t})", n as f64 / minutes, t.total())
        }
        Err(e) => format!("GET /api/games: {e:#}"),
    };
    let finished = match (start.finished, finished_total(&ctx.server).await) {
        (Some(a), Some(b)) => format!("capicua_games_finished_total +{} ({:.1}/min)", b - a, (b - a) / minutes),
        _ => "capicua_games_finished_total -".into(),
    };
    let growth = match (args.database.as_deref(), start.bytes) {
        (Some(path), Some(before)) => {
            let grown = db_bytes(path) as f64 - before as f64;
            format!("; database and -wal +{:.1} MiB ({:.1} MiB/min)", grown / 1048576.0, grown / 1048576.0 / minutes)
        }
        _ => String::new(),
    };
    format!(
        "{:.0} s: games {ours}; {finished}{growth}; {} rooms opened; more names: {names}",
        start.at.elapsed().as_secs_f64(),
        opened.rooms.len()
    )
}

/// The id of the newest stored game.
async fn newest_game(server: &Server) -> anyhow::Result<i64> {
    let (_, page) = http::get_json(server, "/api/games?limit=1", Duration::from_secs(10)).await?;
    Ok(page[0]["id"].as_i64().unwrap_or(0))
}

/// The games stored after game `after`, by variant (paging the list
/// newest first).
async fn games_since(server: &Server, after: i64) -> anyhow::Result<Tally> {
    let mut by_variant = Tally::default();
    let mut before: Option<i64> = None;
    loop {
        let path = match before {
            Some(b) => format!("/api/games?limit=100&before={b}"),
            None => "/api/games?limit=100".into(),
        };
        let (status, page) = http::get_json(server, &path, Duration::from_secs(10)).await?;
        anyhow::ensure!(status == 200, "HTTP {status}");
        let games = page.as_array().cloned().unwrap_or_default();
        for g in &games {
            if g["id"].as_i64().is_some_and(|id| id > after) {
                by_variant.add(g["variant"].as_str().unwrap_or("?"));
            }
        }
        let last = games.last().and_then(|g| g["id"].as_i64());
        match last {
            Some(id) if id > after + 1 && games.len() == 100 => before = Some(id),
            _ => return Ok(by_variant),
        }
    }
}

/// `capicua_games_finished_total` now.
async fn finished_total(server: &Server) -> Option<f64> {
    let text = http::metrics(server, Duration::from_secs(10)).await.ok()?;
    http::metric(&text, "capicua_games_finished_total")
}

/// The bytes of the database and its write-ahead log.
fn db_bytes(path: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    size(path) + size(Path::new(&wal))
}
