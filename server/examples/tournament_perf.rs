//! Tournament performance, printed (not a timed test).
//!
//! **Live run** (release binaries first: `cargo build --release -p capicua-server -p capicua-bot`):
//! a `capicua-server serve` process and 8 `capicua-bot play --tournament`
//! processes play a rotating-partners round robin of `latin` matches until
//! `stop.games = MATCHES`; prints wall time, games persisted per second and
//! the standings query times (HTTP and the SQL view) at the end.
//!
//! `cargo run --release -p capicua-server --example tournament_perf -- live 10000`
//!
//! **Scaling**: stores N synthetic tournament results (games rows and
//! tournament matches, made by the pure crate) for each N and times the
//! standings queries: the SQL view, `GET /api/tournaments/{id}/standings`,
//! `GET /api/tournaments/{id}` (which replays every result) and
//! `Tournament::replay` alone (the restart cost).
//!
//! `cargo run --release -p capicua-server --example tournament_perf -- scale 1000,10000,100000`

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use capicua_server::tournament::store::{self, SpecFormat};
use capicua_server::{Config, Db};
use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};
use sqlx::Row;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("live") => live(args.next().map(|s| s.parse()).transpose()?.unwrap_or(1000)).await,
        Some("scale") => {
            let sizes = args.next().unwrap_or_else(|| "1000,10000,100000".into());
            let sizes: Vec<usize> = sizes.split(',').map(|s| s.parse()).collect::<Result<_, _>>()?;
            scale(&sizes).await
        }
        _ => bail!("usage: tournament_perf live MATCHES | scale N1,N2,..."),
    }
}

fn release_bin(name: &str) -> anyhow::Result<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release").join(name);
    if !p.exists() {
        bail!("{} missing: cargo build --release -p capicua-server -p capicua-bot", p.display());
    }
    Ok(p)
}

/// A round robin of `legs` legs; more than 4 legs (the crate's limit per
/// stage) become a chain of 4-leg round-robin stages that all advance.
fn spec_text(entrants: &[String], legs: u32, games: Option<u32>) -> String {
    let list: Vec<String> = entrants.iter().map(|e| format!("{e:?}")).collect();
    let mut s = format!(
        "name = \"perf\"\nseed = 1\ntable = \"rotating-partners\"\nvariants = [\"latin\"]\nentrants = [{}]\n",
        list.join(", ")
    );
    let stages = legs.div_ceil(4).max(1);
    for i in 0..stages {
        let l = if i + 1 == stages { legs - 4 * i } else { 4 };
        s.push_str(&format!("\n[[stages]]\nformat = \"round-robin\"\nlegs = {l}\n"));
        if i + 1 < stages {
            s.push_str(&format!("advance = {}\n", entrants.len()));
        }
    }
    if let Some(g) = games {
        s.push_str(&format!("\n[stop]\ngames = {g}\n"));
    }
    s
}

/// Stores a round robin of `names` that stops after `matches` matches (as
/// many legs as that takes), as an operator would create it.
async fn create_round_robin(
    db: &Db,
    names: &[String],
    matches: usize,
) -> anyhow::Result<(i64, capicua_tournament::Config)> {
    let legs = matches.div_ceil(tables_per_leg(names)?) as u32;
    let text = spec_text(names, legs, Some(matches as u32));
    let created = store::create(
        db,
        &text,
        SpecFormat::Toml,
        capicua_strategy::SearchCaps::default(),
        store::Origin::Operator,
        None,
    )
    .await?;
    Ok(created)
}

/// Tables one leg of the round robin has.
fn tables_per_leg(entrants: &[String]) -> anyhow::Result<usize> {
    let spec: TournamentSpec = toml::from_str(&spec_text(entrants, 1, None))?;
    let mut t = Tournament::new(spec.validate()?);
    let mut n = 0;
    while let Some(r) = t.next_round() {
        for tb in &r.tables {
            t.record(fake(r.number, tb.id, tb.seats.len(), n))?;
            n += 1;
        }
    }
    Ok(n)
}

fn fake(round: u32, table: u32, seats: usize, i: usize) -> MatchResult {
    let winner = (i % 2) as u32;
    let seats = (0..seats)
        .map(|s| SeatResult { score: if s as u32 % 2 == winner { 100 } else { (i % 90) as i64 }, ..Default::default() })
        .collect();
    MatchResult { round, table, seats, winner: Some(winner) }
}

async fn http_get(addr: SocketAddr, path: &str) -> anyhow::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr).await?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes()).await?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await?;
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text.split(' ').nth(1).context("status")?.parse()?;
    Ok((status, text.split_once("\r\n\r\n").map(|x| x.1.to_string()).unwrap_or_default()))
}

/// Mean milliseconds of `reps` runs of `f`.
async fn time_ms<F, Fut>(reps: u32, mut f: F) -> anyhow::Result<f64>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    f().await?;
    let t0 = Instant::now();
    for _ in 0..reps {
        f().await?;
    }
    Ok(t0.elapsed().as_secs_f64() * 1000.0 / reps as f64)
}

/// One remote bot process (heuristic) per token plays tournament `id` on
/// the server at `addr`, until the tournament ends.
fn play_bots(bot_bin: &Path, addr: SocketAddr, id: i64, tokens: &[String]) -> anyhow::Result<()> {
    let mut bots = vec![];
    for t in tokens {
        bots.push(
            Command::new(bot_bin)
                .args(["play", "--server", &format!("ws://{addr}/ws"), "--strategy", "heuristic", "--tournament"])
                .arg(id.to_string())
                .args(["--token", t])
                .stderr(Stdio::null())
                .spawn()?,
        );
    }
    for mut b in bots {
        b.wait()?;
    }
    Ok(())
}

async fn live(matches: usize) -> anyhow::Result<()> {
    let server_bin = release_bin("capicua-server")?;
    let bot_bin = release_bin("capicua-bot")?;
    let dir = std::env::temp_dir().join(format!("capicua-tournament-perf-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db_path = dir.join("perf.db");
    let db = Db::open(db_path.to_str().context("path")?).await?;
    let names: Vec<String> = (0..8).map(|i| format!("bot{i}")).collect();
    let mut tokens = vec![];
    for n in &names {
        tokens.push(db.register(n).await?.1);
    }
    let per_leg = tables_per_leg(&names)?;
    let legs = matches.div_ceil(per_leg) as u32;
    let (id, _) = create_round_robin(&db, &names, matches).await?;
    db.close().await;
    let port = TcpListener::bind("127.0.0.1:0").await?.local_addr()?.port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse()?;
    let mut server = Command::new(&server_bin)
        .args(["serve", "--listen", &addr.to_string(), "--database"])
        .arg(&db_path)
        .stdout(Stdio::null())
        .spawn()?;
    while TcpStream::connect(addr).await.is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "{matches} latin matches: 8 remote bot processes (heuristic), rotating-partners round robin, {per_leg} tables a leg, {legs} legs ({} stages of up to 4)",
        legs.div_ceil(4)
    );
    let t0 = Instant::now();
    play_bots(&bot_bin, addr, id, &tokens)?;
    let secs = t0.elapsed().as_secs_f64();
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db_path.display())).await?;
    let stored: i64 = sqlx::query("SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ?")
        .bind(id)
        .fetch_one(&pool)
        .await?
        .get(0);
    let status: String =
        sqlx::query("SELECT status FROM tournaments WHERE id = ?").bind(id).fetch_one(&pool).await?.get(0);
    println!(
        "tournament {status}: {stored} matches stored in {secs:.1} s wall: {:.1} games persisted/s",
        stored as f64 / secs
    );
    let http = time_ms(200, || async {
        let (s, _) = http_get(addr, &format!("/api/tournaments/{id}/standings")).await?;
        anyhow::ensure!(s == 200);
        Ok(())
    })
    .await?;
    let view = time_ms(200, || async {
        sqlx::query("SELECT * FROM tournament_standings WHERE tournament_id = ?").bind(id).fetch_all(&pool).await?;
        Ok(())
    })
    .await?;
    println!("standings over {stored} results: HTTP {http:.3} ms, SQL view {view:.3} ms (mean of 200)");
    let _ = server.kill();
    let _ = server.wait();
    pool.close().await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// A finished tournament of `n` random results stored in `db` (games,
/// results and standings rows, in one transaction): its id, config, state
/// and the number of results.
async fn fill(db: &Db, n: usize) -> anyhow::Result<(i64, capicua_tournament::Config, Tournament, usize)> {
    let names: Vec<String> = (0..8).map(|i| format!("bot:random#{i}")).collect();
    let (id, config) = create_round_robin(db, &names, n).await?;
    // Mark it finished first so a server does not try to run it.
    db.set_tournament_status(
        id,
        capicua_protocol::TournamentStatus::Finished,
        None,
        &[capicua_protocol::TournamentStatus::Pending],
    )
    .await?;
    let mut t = Tournament::new(config.clone());
    let mut tx = db.pool().begin().await?;
    let mut i = 0;
    while let Some(r) = t.next_round() {
        for tb in &r.tables {
            let res = fake(r.number, tb.id, tb.seats.len(), i);
            let g: i64 = sqlx::query_scalar(
                "INSERT INTO games (room_id, variant, variant_json, seed, seating_json, moves_json, scores_json,
                 winner, forfeit, hands, rated, finished_at) VALUES (NULL, 'latin', '{}', ?, '{}', '[]', '[100,0]', ?, NULL, 1, 1, 0)
                 RETURNING id",
            )
            .bind(i as i64)
            .bind(res.winner.map(i64::from))
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO tournament_matches (tournament_id, round, table_no, game_id, winner, result_json) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(id)
            .bind(r.number as i64)
            .bind(tb.id as i64)
            .bind(g)
            .bind(res.winner.map(i64::from))
            .bind(serde_json::to_string(&res)?)
            .execute(&mut *tx)
            .await?;
            t.record(res)?;
            i += 1;
        }
    }
    tx.commit().await?;
    db.save_tournament_standings(id, &t.standings()).await?;
    Ok((id, config, t, i))
}

async fn scale(sizes: &[usize]) -> anyhow::Result<()> {
    println!(
        "{:>8} {:>10} {:>12} {:>14} {:>13} {:>13} {:>15} {:>10} {:>14}",
        "results",
        "store (s)",
        "SQL view ms",
        "HTTP stand. ms",
        "detail 1st ms",
        "detail ms",
        "last round ms",
        "replay ms",
        "standings() ms"
    );
    for &n in sizes {
        let dir = std::env::temp_dir().join(format!("capicua-tournament-scale-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let db_path = dir.join("scale.db");
        let db = Db::open(db_path.to_str().context("path")?).await?;
        let t0 = Instant::now();
        let (id, config, t, i) = fill(&db, n).await?;
        let stored_secs = t0.elapsed().as_secs_f64();
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let server_db = db.clone();
        // Stopped by abort: a graceful stop would close the pool shared with `db`.
        let server = tokio::spawn(async move {
            capicua_server::run(listener, server_db, Config::default(), std::future::pending::<()>()).await
        });
        let view = time_ms(100, || async {
            sqlx::query("SELECT * FROM tournament_standings WHERE tournament_id = ?")
                .bind(id)
                .fetch_all(db.pool())
                .await?;
            Ok(())
        })
        .await?;
        let http = time_ms(100, || async {
            anyhow::ensure!(http_get(addr, &format!("/api/tournaments/{id}/standings")).await?.0 == 200);
            Ok(())
        })
        .await?;
        let reps = if n >= 100_000 { 3 } else { 10 };
        // The first detail replays every result; later ones reuse the
        // server's replay and only serialize.
        let t1 = Instant::now();
        anyhow::ensure!(http_get(addr, &format!("/api/tournaments/{id}")).await?.0 == 200);
        let first = t1.elapsed().as_secs_f64() * 1000.0;
        let detail = time_ms(reps, || async {
            anyhow::ensure!(http_get(addr, &format!("/api/tournaments/{id}")).await?.0 == 200);
            Ok(())
        })
        .await?;
        let last_round = t.rounds().len().saturating_sub(1);
        let last = time_ms(100, || async {
            let path = format!("/api/tournaments/{id}?from-round={last_round}");
            anyhow::ensure!(http_get(addr, &path).await?.0 == 200);
            Ok(())
        })
        .await?;
        let results: Vec<MatchResult> =
            db.tournament_results_after(id, 0).await?.into_iter().map(|r| r.result).collect();
        let replay = time_ms(reps, || async {
            Tournament::replay(config.clone(), &results)?;
            Ok(())
        })
        .await?;
        let standings = time_ms(10, || async {
            std::hint::black_box(t.standings());
            Ok(())
        })
        .await?;
        println!(
            "{i:>8} {stored_secs:>10.2} {view:>12.3} {http:>14.3} {first:>13.1} {detail:>13.1} {last:>15.2} {replay:>10.1} {standings:>14.2}"
        );
        server.abort();
        db.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
