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
//!
//! **Nodes**: the same round robin, back to back, on one SQLite server, one
//! PostgreSQL node and three PostgreSQL nodes on this machine: 24 entrants
//! (12 `capicua-bot play --tournament` processes, each waiting on one node
//! with the others as fallbacks, and 12 hosted `bot:random#N`), two legs of
//! duels, 552 tables. Each table is a one-hand block match, so the time a
//! table costs around its game (placing it, opening its room, seating its
//! players, storing its result, starting the next round) dominates, not the
//! game. Prints tables a minute from the tournament's start to its end (its
//! status polled every 5 ms), the ratios pg1/sqlite and pg3/pg1 and, on
//! PostgreSQL, where a round's time goes (read from `table_placements`).
//! Uses the binaries beside the example (`target/<profile>/`); PostgreSQL
//! is a throwaway server of `capicua-pgtest` (no fsync), or a new database
//! on `CAPICUA_PG_URL`'s server. `CAPICUA_PERF_ENTRANTS`, `_LEGS`, `_HANDS`
//! and `_NODES` change the sizes.
//!
//! `cargo build -p capicua-server -p capicua-bot && cargo run -p capicua-server --example tournament_perf -- nodes`

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
        Some("nodes") => nodes_mode().await,
        _ => bail!("usage: tournament_perf live MATCHES | scale N1,N2,... | nodes"),
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

/// Sizes of the `nodes` comparison, from the environment.
struct NodesRun {
    /// Entrants, half of them remote bot processes (`CAPICUA_PERF_ENTRANTS`, default 24).
    entrants: usize,
    /// Round-robin legs (`CAPICUA_PERF_LEGS`, default 2: 552 tables for 24).
    legs: u32,
    /// Hands a table's block duel lasts (`CAPICUA_PERF_HANDS`, default 1).
    hands: u32,
    /// Nodes of the cluster run (`CAPICUA_PERF_NODES`, default 3).
    nodes: usize,
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T> {
    match std::env::var(name) {
        Ok(v) => v.parse().map_err(|_| anyhow::anyhow!("{name}={v:?}: not a number")),
        Err(_) => Ok(default),
    }
}

impl NodesRun {
    fn from_env() -> anyhow::Result<NodesRun> {
        let run = NodesRun {
            entrants: env_or("CAPICUA_PERF_ENTRANTS", 24)?,
            legs: env_or("CAPICUA_PERF_LEGS", 2)?,
            hands: env_or("CAPICUA_PERF_HANDS", 1)?,
            nodes: env_or("CAPICUA_PERF_NODES", 3)?,
        };
        anyhow::ensure!(
            run.entrants >= 2 && run.legs >= 1 && run.hands >= 1 && run.nodes >= 1,
            "sizes must be positive"
        );
        Ok(run)
    }

    fn remote(&self) -> usize {
        self.entrants / 2
    }

    fn tables(&self) -> usize {
        self.entrants * (self.entrants - 1) / 2 * self.legs as usize
    }

    /// The spec: remote players `p0..`, hosted `bot:random#..`, a duel round
    /// robin of the block variant file `variant`.
    fn spec(&self, variant: &Path) -> String {
        let mut names: Vec<String> = (0..self.remote()).map(|i| format!("\"p{i}\"")).collect();
        names.extend((self.remote()..self.entrants).map(|i| format!("\"bot:random#{i}\"")));
        format!(
            "name = \"nodes perf\"\nseed = 7\ntable = \"duel\"\nvariants = [{:?}]\nentrants = [{}]\n\n\
             [[stages]]\nformat = \"round-robin\"\nlegs = {}\n",
            variant.display().to_string(),
            names.join(", "),
            self.legs
        )
    }
}

/// The binaries beside this example's (`target/<profile>/`), so a release
/// run uses release binaries and a dev run dev ones.
fn sibling_bin(name: &str) -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().and_then(Path::parent).context("example outside target/<profile>/examples")?;
    let p = dir.join(name);
    if !p.exists() {
        bail!("{} missing: cargo build [--release] -p capicua-server -p capicua-bot", p.display());
    }
    Ok(p)
}

/// A fresh PostgreSQL database: on `CAPICUA_PG_URL`'s server if set (a URL
/// whose role may create databases), else on a throwaway server started
/// by `capicua-pgtest`.
async fn fresh_pg(n: usize) -> anyhow::Result<String> {
    use sqlx::Connection;
    if let Ok(url) = std::env::var("CAPICUA_PG_URL") {
        let name = format!("capicua_perf_{}_{n}", std::process::id());
        let mut conn = sqlx::PgConnection::connect(&url).await?;
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut conn).await?;
        conn.close().await?;
        let base = url.rsplit_once('/').map(|(b, _)| b).context("CAPICUA_PG_URL has no /database")?;
        return Ok(format!("{base}/{name}"));
    }
    let pg = capicua_pgtest::server().context("no PostgreSQL installed (or set CAPICUA_PG_URL)")?;
    Ok(tokio::task::spawn_blocking(|| pg.fresh_database()).await?)
}

/// Free 127.0.0.1 addresses, one per node.
async fn free_addrs(n: usize) -> anyhow::Result<Vec<SocketAddr>> {
    let mut held = vec![];
    for _ in 0..n {
        held.push(TcpListener::bind("127.0.0.1:0").await?);
    }
    held.iter().map(|l| Ok(l.local_addr()?)).collect()
}

/// Started processes, killed when dropped.
struct Procs(Vec<std::process::Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One timed tournament: its tables a minute and the gaps read from its
/// placements (PostgreSQL only).
struct Measured {
    secs: f64,
    tables: i64,
    rounds: i64,
    gaps: Option<Gaps>,
}

/// Prepares `database`: the remote players registered, the tournament
/// created to start `lead` from now. Returns its id and the tokens.
async fn prepare(database: &str, run: &NodesRun, variant: &Path, lead: Duration) -> anyhow::Result<(i64, Vec<String>)> {
    let db = Db::open(database).await?;
    let mut tokens = vec![];
    for i in 0..run.remote() {
        tokens.push(db.register(&format!("p{i}")).await?.1);
    }
    let starts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)? + lead;
    let (id, _) = store::create(
        &db,
        &run.spec(variant),
        SpecFormat::Toml,
        capicua_strategy::SearchCaps::default(),
        store::Origin::Operator,
        Some(starts.as_secs() as i64 + 1),
    )
    .await?;
    db.close().await;
    Ok((id, tokens))
}

/// Starts `n` servers on `database`, waits until they are all listed as
/// live, then one remote bot process per token (bot `i` waits on node
/// `i % n`, the others as fallbacks).
async fn start_cluster(database: &str, n: usize, id: i64, tokens: &[String]) -> anyhow::Result<Procs> {
    let (server_bin, bot_bin) = (sibling_bin("capicua-server")?, sibling_bin("capicua-bot")?);
    let addrs = free_addrs(n).await?;
    let mut procs = Procs(vec![]);
    for a in &addrs {
        procs.0.push(
            Command::new(&server_bin)
                .args(["serve", "--listen", &a.to_string(), "--public-url", &format!("http://{a}"), "--database"])
                .arg(database)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        );
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok((200, body)) = http_get(addrs[0], "/api/nodes").await
            && serde_json::from_str::<Vec<serde_json::Value>>(&body).map(|v| v.len()).unwrap_or(0) >= n
        {
            break;
        }
        anyhow::ensure!(Instant::now() < deadline, "{n} nodes not live within 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ws: Vec<String> = addrs.iter().map(|a| format!("ws://{a}/ws")).collect();
    for (i, t) in tokens.iter().enumerate() {
        let mut c = Command::new(&bot_bin);
        c.args(["play", "--strategy", "heuristic", "--token", t, "--server", &ws[i % n], "--tournament"]);
        c.arg(id.to_string());
        for k in 1..n {
            c.args(["--fallback", &ws[(i + k) % n]]);
        }
        procs.0.push(c.stdout(Stdio::null()).stderr(Stdio::null()).spawn()?);
    }
    Ok(procs)
}

/// Times tournament `id` from its start to its end, as seen by polling its
/// status every 5 ms.
async fn time_tournament(pool: &sqlx::AnyPool, id: i64, limit: Duration) -> anyhow::Result<f64> {
    let status = async || -> anyhow::Result<String> {
        Ok(sqlx::query("SELECT status FROM tournaments WHERE id = $1").bind(id).fetch_one(pool).await?.get(0))
    };
    let deadline = Instant::now() + limit;
    while status().await? == "pending" {
        anyhow::ensure!(Instant::now() < deadline, "tournament {id} did not start");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let t0 = Instant::now();
    loop {
        let s = status().await?;
        if s == "finished" {
            return Ok(t0.elapsed().as_secs_f64());
        }
        anyhow::ensure!(s == "running", "tournament {id} is {s}");
        anyhow::ensure!(Instant::now() < deadline, "tournament {id} did not finish in {limit:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Plays the round robin on `n` servers of `database` and times it.
async fn measure(database: &str, n: usize, run: &NodesRun, variant: &Path) -> anyhow::Result<Measured> {
    let lead = Duration::from_secs(3 + n as u64);
    let (id, tokens) = prepare(database, run, variant, lead).await?;
    let procs = start_cluster(database, n, id, &tokens).await?;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&capicua_server::db::database_url(database)).await?;
    let secs = time_tournament(&pool, id, Duration::from_secs(1800)).await?;
    let tables: i64 = sqlx::query("SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await?
        .get(0);
    let rounds: i64 = sqlx::query("SELECT COUNT(DISTINCT round) FROM tournament_matches WHERE tournament_id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await?
        .get(0);
    let gaps = Gaps::read(&pool, id).await?;
    drop(procs);
    pool.close().await;
    Ok(Measured { secs, tables, rounds, gaps })
}

/// Per-round timings from `table_placements` (written on PostgreSQL only):
/// means over the rounds and tables, in ms.
struct Gaps {
    /// A round's first table placed → its last table ended.
    round: Option<f64>,
    /// A round's last table ended → the next round's first table placed.
    end_to_placed: Option<f64>,
    /// A round's first table placed → its last table placed, and its first
    /// room opened → its last opened.
    spread: (Option<f64>, Option<f64>),
    /// A table placed → its room opened, on the scheduler's node and on others.
    placed_to_open: (Option<f64>, Option<f64>),
    /// A table's room opened → its match stored, hosted bots only and with
    /// a remote bot.
    open_to_end: (Option<f64>, Option<f64>),
}

/// One done placement: round, placed, opened, ended (unix ms), whether on
/// the scheduler's node, whether a remote player sits at it.
type PlacementRow = (i64, i64, i64, i64, bool, bool);

impl Gaps {
    async fn read(pool: &sqlx::AnyPool, id: i64) -> anyhow::Result<Option<Gaps>> {
        let rows = sqlx::query(
            "SELECT p.round, p.placed_at, p.opened_at, p.ended_at, n.scheduler, p.table_json
             FROM table_placements p JOIN nodes n ON n.id = p.node_id
             WHERE p.tournament_id = $1 AND p.state = 'done' AND p.opened_at IS NOT NULL AND p.ended_at IS NOT NULL",
        )
        .bind(id)
        .fetch_all(pool)
        .await?;
        if rows.is_empty() {
            return Ok(None);
        }
        let mut done: Vec<PlacementRow> = vec![];
        for r in &rows {
            let plan: serde_json::Value = serde_json::from_str(r.get::<&str, _>(5))?;
            let remote = plan["reserved"].as_array().is_some_and(|seats| seats.iter().any(|s| !s.is_null()));
            done.push((r.get(0), r.get(1), r.get(2), r.get(3), r.get::<i64, _>(4) != 0, remote));
        }
        // Per round: first and last placed, first and last opened, last ended.
        let mut rounds: std::collections::BTreeMap<i64, [i64; 5]> = Default::default();
        for &(round, placed, opened, ended, _, _) in &done {
            let e = rounds.entry(round).or_insert([placed, placed, opened, opened, ended]);
            *e = [e[0].min(placed), e[1].max(placed), e[2].min(opened), e[3].max(opened), e[4].max(ended)];
        }
        let placing: Vec<f64> = rounds.values().map(|e| (e[1] - e[0]) as f64).collect();
        let opening_all: Vec<f64> = rounds.values().map(|e| (e[3] - e[2]) as f64).collect();
        let spans: Vec<(i64, i64)> = rounds.into_values().map(|e| (e[0], e[4])).collect();
        let between: Vec<f64> = spans.windows(2).map(|w| (w[1].0 - w[0].1) as f64).collect();
        let span: Vec<f64> = spans.iter().map(|(a, b)| (b - a) as f64).collect();
        let pick = |f: &dyn Fn(&PlacementRow) -> bool, g: &dyn Fn(&PlacementRow) -> i64| {
            mean(&done.iter().filter(|r| f(r)).map(|r| g(r) as f64).collect::<Vec<_>>())
        };
        let opening = |r: &PlacementRow| r.2 - r.1;
        let playing = |r: &PlacementRow| r.3 - r.2;
        Ok(Some(Gaps {
            round: mean(&span),
            end_to_placed: mean(&between),
            spread: (mean(&placing), mean(&opening_all)),
            placed_to_open: (pick(&|r| r.4, &opening), pick(&|r| !r.4, &opening)),
            open_to_end: (pick(&|r| !r.5, &playing), pick(&|r| r.5, &playing)),
        }))
    }
}

/// The mean, `None` for no values.
fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `mean` with one decimal, `-` for none.
fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1}"))
}

fn report(label: &str, m: &Measured) -> f64 {
    let per_min = m.tables as f64 * 60.0 / m.secs;
    print!(
        "{label:<18} {:>4} tables in {:>6.2} s: {per_min:>6.0} tables a minute, {:>5.1} ms a round",
        m.tables,
        m.secs,
        m.secs * 1000.0 / m.rounds as f64
    );
    if let Some(g) = &m.gaps {
        print!(
            "\n    mean ms: a round placed -> ended {}, ended -> next round placed {}; its tables placed within {}, \
             opened within {}; a table placed -> open {} on the scheduler's node, {} on others; \
             open -> stored {} hosted bots only, {} with a remote bot",
            ms(g.round),
            ms(g.end_to_placed),
            ms(g.spread.0),
            ms(g.spread.1),
            ms(g.placed_to_open.0),
            ms(g.placed_to_open.1),
            ms(g.open_to_end.0),
            ms(g.open_to_end.1)
        );
    }
    println!();
    per_min
}

async fn nodes_mode() -> anyhow::Result<()> {
    let run = NodesRun::from_env()?;
    let dir = std::env::temp_dir().join(format!("capicua-nodes-perf-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let variant = dir.join("block-duel.toml");
    std::fs::write(
        &variant,
        format!("name = \"block-perf\"\nbase = \"block\"\ntarget = {{ hands = {} }}\n", run.hands),
    )?;
    let profile = if cfg!(debug_assertions) { "dev profile (opt-level 1)" } else { "release" };
    println!(
        "{} tables: a duel round robin ({} legs) of {} entrants, {} remote `capicua-bot play --strategy heuristic` \
         processes and {} hosted bot:random; each table a {}-hand block match; {profile} binaries; PostgreSQL: {}",
        run.tables(),
        run.legs,
        run.entrants,
        run.remote(),
        run.entrants - run.remote(),
        run.hands,
        if std::env::var("CAPICUA_PG_URL").is_ok() { "CAPICUA_PG_URL" } else { "capicua-pgtest (fsync off)" }
    );
    let sqlite = dir.join("perf.db");
    let s = report("sqlite, 1 server", &measure(sqlite.to_str().context("path")?, 1, &run, &variant).await?);
    let p1 = report("postgres, 1 node", &measure(&fresh_pg(1).await?, 1, &run, &variant).await?);
    let label = format!("postgres, {} nodes", run.nodes);
    let pn = report(&label, &measure(&fresh_pg(2).await?, run.nodes, &run, &variant).await?);
    println!("pg1/sqlite {:.2}, pg{}/pg1 {:.2}", p1 / s, run.nodes, pn / p1);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
