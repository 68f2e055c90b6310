//! kill -9 in the middle of a tournament, on the real `capicua-server`
//! binary: a restart resumes it, no finished match is lost, none is played
//! twice, interrupted tables are replayed from their start, and it finishes.
//! The same drill runs on a SQLite file and on a real PostgreSQL database.
//! On PostgreSQL a second drill runs three servers on one database, with
//! the tables spread over them and remote bots (half the entrants) waiting
//! on all three, and kills a standby and then the scheduler: the tables of
//! the dead are played again on the living, another server takes the
//! tournament over, and the bots fail over to the servers left.
//!
//! On PostgreSQL a node counts dead the moment its session with the
//! database ends: each kill's tables open on a living node within 2 s
//! (printed as `failover: ...`), no table is placed on the dead, and the
//! tournament's audit trail records the crash, the lost placements, the
//! replayed tables and the scheduler's failover.
//!
//! `CAPICUA_RESTART_ENTRANTS` (default 8) and `CAPICUA_FAILOVER_ENTRANTS`
//! (default 10) scale them.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use capicua_tournament::{Tournament, TournamentSpec};
use common::{wait_for, wait_until};
use sqlx::{AnyPool, Row};

const BIN: &str = env!("CARGO_BIN_EXE_capicua-server");

/// A server process, killed (SIGKILL) when dropped, so a failing test leaves none behind.
struct Server(Child);

impl Server {
    /// kill -9 and reap.
    fn kill9(&mut self) {
        self.0.kill().expect("kill -9");
        self.0.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(db: &str, log: &Path) -> Server {
    let log = std::fs::File::create(log).unwrap();
    Server(
        Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--database"])
            .arg(db)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn the server"),
    )
}

/// An empty directory for a drill's logs and spec, by the drill's name.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("capicua-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether the server logging to `log` says it runs the tournaments.
fn schedules(log: &Path) -> bool {
    std::fs::read_to_string(log).unwrap_or_default().contains("this server runs the tournaments")
}

/// The node id the server logging to `log` recorded itself under.
fn node_of(log: &Path) -> i64 {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let line = text.lines().find(|l| l.contains("serving as a node of the database")).expect("the server is a node");
    let id = line.split("node=").nth(1).and_then(|rest| rest.split_whitespace().next()).expect("node=ID");
    id.parse().unwrap()
}

/// The wall clock in unix ms, as the servers stamp placements.
fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// How soon after a kill its tables must be open on a living node.
const FAILOVER_WITHIN: Duration = Duration::from_secs(2);

/// What a kill left: the node, when (unix ms), and its placements placed
/// or open at that moment without a stored match (the living may have
/// marked them lost since): (placement, round, table, whether its room
/// was open).
struct Killed {
    node: i64,
    at: i64,
    tables: Vec<(i64, i64, i64, bool)>,
}

impl Killed {
    /// Whether a table was in play on the node when it died.
    fn in_play(&self) -> bool {
        self.tables.iter().any(|t| t.3)
    }
}

/// kill -9 the server running node `node`, noting its tables.
async fn kill_node(pool: &AnyPool, server: &mut Server, node: i64) -> Killed {
    let at = now_ms();
    server.kill9();
    let tables = sqlx::query(
        "SELECT p.id, p.round, p.table_no, p.opened_at IS NOT NULL FROM table_placements p
         WHERE p.node_id = $1 AND (p.state IN ('placed', 'open') OR (p.state = 'lost' AND p.ended_at >= $2))
           AND NOT EXISTS (SELECT 1 FROM tournament_matches m WHERE m.tournament_id = p.tournament_id
                           AND m.round = p.round AND m.table_no = p.table_no)",
    )
    .bind(node)
    .bind(at)
    .fetch_all(pool)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
    .collect();
    Killed { node, at, tables }
}

/// Waits until every table the kill took is open again on another node
/// (or had its match stored just before the kill); prints and checks how
/// long after the kill the last one opened, and that nothing was placed
/// on the dead node after it died. `what` names the kill.
async fn check_failover(pool: &AnyPool, k: &Killed, what: &str) {
    let tables = k.tables.clone();
    let reopened = wait_for(&format!("the tables of dead node {} open elsewhere", k.node), Duration::from_secs(30), async || {
        let mut last = None;
        for &(placement, round, table, _) in &tables {
            let r = sqlx::query(
                "SELECT (SELECT MIN(opened_at) FROM table_placements WHERE tournament_id = 1 AND round = $1
                         AND table_no = $2 AND id > $3 AND opened_at IS NOT NULL),
                        (SELECT COUNT(*) FROM table_placements WHERE tournament_id = 1 AND round = $1
                         AND table_no = $2 AND id > $3),
                        (SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = 1 AND round = $1 AND table_no = $2)",
            )
            .bind(round)
            .bind(table)
            .bind(placement)
            .fetch_one(pool)
            .await
            .unwrap();
            let (opened, later, stored): (Option<i64>, i64, i64) = (r.get(0), r.get(1), r.get(2));
            match opened {
                Some(at) => last = last.max(Some(at)),
                // Its match was stored as the node died: nothing to play again.
                None if later == 0 && stored == 1 => {}
                None => return Err(format!("round {round} table {table} not open again")),
            }
        }
        Ok(last)
    })
    .await;
    if let Some(at) = reopened {
        let after = Duration::from_millis((at - k.at).max(0) as u64);
        eprintln!(
            "failover: {what} (node {}) killed with {} table(s) on it; they opened elsewhere {:.2} s after the kill",
            k.node,
            k.tables.len(),
            after.as_secs_f64()
        );
        assert!(after < FAILOVER_WITHIN, "{what}: its tables opened elsewhere {after:?} after the kill");
    }
    // A node is dead once its session ended (the process dies within
    // milliseconds of the kill): nothing is placed on it after.
    let placed: i64 = sqlx::query("SELECT COUNT(*) FROM table_placements WHERE node_id = $1 AND placed_at > $2")
        .bind(k.node)
        .bind(k.at + 500)
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(placed, 0, "tables placed on dead node {}", k.node);
}

/// The tournament's audit trail, as a node serves it.
async fn audit(pool: &AnyPool, node: i64) -> serde_json::Value {
    let url: String =
        sqlx::query_scalar("SELECT url FROM nodes WHERE id = $1").bind(node).fetch_one(pool).await.unwrap();
    let addr = url.strip_prefix("http://").unwrap().parse().unwrap();
    let (status, body) = common::http_get(addr, "/api/tournaments/1/audit").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The audit entries of one incident.
fn incidents<'a>(audit: &'a serde_json::Value, action: &str) -> Vec<&'a serde_json::Value> {
    audit.as_array().unwrap().iter().filter(|e| e["action"] == action).collect()
}

/// Checks that each kill is in the audit trail: the dead node's crash with
/// its tables, each placement lost, each table played again (why, which
/// attempt); and, for a scheduler's kill, the failover to the next one.
fn check_audit(audit: &serde_json::Value, kills: &[&Killed], schedulers: &[(i64, i64)]) {
    for k in kills.iter().filter(|k| !k.tables.is_empty()) {
        let crashed = incidents(audit, "node-crashed");
        assert!(crashed.iter().any(|e| e["detail"]["node"] == k.node), "node {} crashed: {audit}", k.node);
        for &(placement, round, table, in_play) in &k.tables {
            let lost = incidents(audit, "placement-lost");
            let entry = lost.iter().find(|e| e["detail"]["placement"] == placement);
            // Stored as the node died: not lost.
            let Some(entry) = entry else { continue };
            assert_eq!(entry["detail"]["node"], k.node, "{entry}");
            assert_eq!(entry["detail"]["in-play"], in_play, "{entry}");
            assert!(entry["detail"]["at"].as_i64().unwrap() >= k.at, "{entry}");
            // Its replay is the table's next one after the loss.
            let replayed = incidents(audit, "table-replayed");
            let after = |e: &&&serde_json::Value| {
                e["detail"]["round"] == round
                    && e["detail"]["table"] == table
                    && e["id"].as_i64() > entry["id"].as_i64()
            };
            let again = replayed.iter().find(after);
            let again = again.unwrap_or_else(|| panic!("round {round} table {table} replayed: {audit}"));
            assert!(again["detail"]["attempt"].as_i64().unwrap() >= 2, "{again}");
            assert!(again["detail"]["why"].as_str().unwrap().contains(&format!("node {}", k.node)), "{again}");
        }
    }
    for &(from, to) in schedulers {
        let failovers = incidents(audit, "scheduler-failover");
        assert!(
            failovers
                .iter()
                .any(|e| e["detail"]["from"] == from && e["detail"]["node"] == to && e["by"] == format!("node {to}")),
            "node {to} took over from node {from}: {audit}"
        );
    }
}

/// No log of a node reads as trouble where there is none: a standby
/// waiting for the scheduler lock is no slow statement.
fn check_logs(logs: &[std::path::PathBuf]) {
    for log in logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        assert!(!text.contains("slow statement"), "{}: {text}", log.display());
    }
}

/// The node id of the server logging to `log`, once it has recorded itself.
async fn node_when_up(log: &Path) -> i64 {
    wait_for(&format!("{} to be a node", log.display()), Duration::from_secs(30), async || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains("serving as a node of the database") { Ok(node_of(log)) } else { Err(()) }
    })
    .await
}

/// Tables whose room is open on `node` (by their placement).
async fn tables_open_on(pool: &AnyPool, node: i64) -> i64 {
    sqlx::query("SELECT COUNT(*) FROM table_placements WHERE node_id = $1 AND state = 'open' AND room_id IS NOT NULL")
        .bind(node)
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0)
}

async fn pool(db: &str) -> AnyPool {
    sqlx::any::install_default_drivers();
    AnyPool::connect(&capicua_server::db::database_url(db)).await.unwrap()
}

async fn status(pool: &AnyPool) -> (String, i64) {
    let r = sqlx::query("SELECT status, (SELECT COUNT(*) FROM tournament_matches) FROM tournaments WHERE id = 1")
        .fetch_one(pool)
        .await
        .unwrap();
    (r.get(0), r.get(1))
}

/// (seq, round, table, game) of every recorded match.
async fn matches(pool: &AnyPool) -> Vec<(i64, i64, i64, i64)> {
    sqlx::query("SELECT seq, round, table_no, game_id FROM tournament_matches ORDER BY seq")
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

/// Tables opened (a room holds them) whose match is not recorded.
async fn tables_in_play(pool: &AnyPool) -> i64 {
    sqlx::query(
        "SELECT COUNT(*) FROM tournament_tables t WHERE attempts >= 1 AND NOT EXISTS \
         (SELECT 1 FROM tournament_matches m WHERE m.tournament_id = t.tournament_id \
          AND m.round = t.round AND m.table_no = t.table_no)",
    )
    .fetch_one(pool)
    .await
    .unwrap()
    .get(0)
}

#[tokio::test]
async fn a_killed_server_resumes_its_tournament_without_losing_or_repeating_matches() {
    let dir = fresh_dir("restart-sqlite");
    let db = dir.join("t.db");
    drill(db.to_str().unwrap(), &dir).await;
}

#[tokio::test]
async fn a_killed_server_on_postgres_resumes_its_tournament_without_losing_or_repeating_matches() {
    let Some(pg) = capicua_pgtest::require("a_killed_server_on_postgres_resumes_its_tournament") else {
        return;
    };
    let dir = fresh_dir("restart-postgres");
    drill(&pg.fresh_database(), &dir).await;
}

/// `n` hosted bots' entrant names.
fn hosted(n: usize) -> Vec<String> {
    let strategies = ["smart", "heuristic", "pimc:samples=2", "random"];
    (0..n).map(|i| format!("bot:{}#{i}", strategies[i % strategies.len()])).collect()
}

/// Creates a round robin of `entrants` in `db` with the CLI; returns its
/// spec and how many tables it plays.
fn create_round_robin(db: &str, dir: &Path, entrants: &[String]) -> (String, usize) {
    let n = entrants.len();
    let entrants: Vec<String> = entrants.iter().map(|e| format!("{e:?}")).collect();
    let spec = format!(
        "name = \"restart\"\nseed = 5\ntable = \"duel\"\nvariants = [\"draw\", \"block\"]\nentrants = [{}]\n\n[[stages]]\nformat = \"round-robin\"\n",
        entrants.join(", ")
    );
    let file = dir.join("t.toml");
    std::fs::write(&file, &spec).unwrap();
    let out = Command::new(BIN)
        .args(["tournament", "create", "--database"])
        .arg(db)
        .arg("--file")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected = {
        // Every table of every round, from the pure crate (the results do not
        // change how many tables a round robin has).
        let config = toml::from_str::<TournamentSpec>(&spec).unwrap().validate().unwrap();
        let t = Tournament::new(config);
        let per_round = t.next_round().unwrap().tables.len();
        per_round * (n - 1 + n % 2)
    };
    (spec, expected)
}

/// Checks the end of a drill: the tournament finished; `before` (the
/// matches stored at the last kill) are still there, first; every table was
/// played exactly once with its own game; a table in play at a kill was
/// replayed; and the standings view is the replay of the stored results.
async fn check_finished(pool: &AnyPool, spec: &str, expected: usize, before: &[(i64, i64, i64, i64)]) {
    let after = matches(pool).await;
    // No finished match lost: everything stored before the kill is still there, first.
    assert_eq!(&after[..before.len()], before);
    // Every table played exactly once, each with its own stored game.
    assert_eq!(after.len(), expected);
    let tables: std::collections::HashSet<(i64, i64)> = after.iter().map(|m| (m.1, m.2)).collect();
    assert_eq!(tables.len(), expected);
    let games: i64 = sqlx::query("SELECT COUNT(*) FROM games").fetch_one(pool).await.unwrap().get(0);
    assert_eq!(games as usize, expected, "an interrupted match is never stored: games = recorded matches");
    // Some table was interrupted by the kill and replayed in a new room.
    let replayed: i64 =
        sqlx::query("SELECT COUNT(*) FROM tournament_tables WHERE attempts > 1").fetch_one(pool).await.unwrap().get(0);
    assert!(replayed >= 1, "the kill interrupted a table");
    // The stored standings are the replay of the stored results.
    common::check_standings_replay(pool, 1, toml::from_str::<TournamentSpec>(spec).unwrap().validate().unwrap()).await;
}

/// Waits for the tournament to finish (never failing).
async fn wait_finished(pool: &AnyPool) {
    wait_for("the tournament to finish", Duration::from_secs(180), async || {
        let (st, count) = status(pool).await;
        assert_ne!(st, "failed");
        if st == "finished" { Ok(()) } else { Err((st, count)) }
    })
    .await;
}

/// The drill on the database `db`, with its logs and spec in `dir`.
async fn drill(db: &str, dir: &Path) {
    let n: usize = std::env::var("CAPICUA_RESTART_ENTRANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(8);
    let (spec, expected) = create_round_robin(db, dir, &hosted(n));
    let pool = pool(db).await;
    // Kill once some results are stored and a table is in play. A duel of
    // bots takes milliseconds, so the table may finish between the check
    // and the kill: then start again and kill again (a few tries).
    let mut tries: i64 = 0;
    let before = loop {
        tries += 1;
        let mut server = serve(db, &dir.join(format!("run{tries}.log")));
        let what = format!("{} stored results and a table in play", 3 * tries);
        wait_for(&what, Duration::from_secs(60), async || {
            let (st, count) = status(&pool).await;
            assert_ne!(st, "finished", "the tournament finished before it could be killed: make it bigger");
            let in_play = tables_in_play(&pool).await;
            if count >= 3 * tries && in_play > 0 { Ok(()) } else { Err((count, in_play)) }
        })
        .await;
        server.kill9();
        if tables_in_play(&pool).await > 0 || tries == 5 {
            break matches(&pool).await;
        }
    };
    let (st, _) = status(&pool).await;
    assert_eq!(st, "running");
    assert!(before.len() < expected, "killed mid-run");

    let mut server = serve(db, &dir.join("resumed.log"));
    wait_finished(&pool).await;
    server.kill9();
    check_finished(&pool, &spec, expected, &before).await;
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn three_servers_on_postgres_finish_a_tournament_whichever_is_killed() {
    let Some(pg) = capicua_pgtest::require("three_servers_on_postgres_finish_a_tournament") else {
        return;
    };
    let dir = fresh_dir("failover");
    let db = pg.fresh_database();
    let n: usize = std::env::var("CAPICUA_FAILOVER_ENTRANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    let pool = pool(&db).await;

    let logs: Vec<_> = (0..3).map(|i| dir.join(format!("node{i}.log"))).collect();
    let mut nodes: Vec<Option<Server>> = logs.iter().map(|log| Some(serve(&db, log))).collect();
    // The nodes' WebSocket addresses, as they recorded themselves.
    let urls: Vec<String> = wait_for("three live nodes", Duration::from_secs(30), async || {
        let urls: Vec<String> = sqlx::query_scalar("SELECT url FROM nodes WHERE stopped_at IS NULL ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap_or_default();
        if urls.len() == 3 { Ok(urls) } else { Err(urls) }
    })
    .await
    .iter()
    .map(|u| capicua_bot::transport::ServerAddr::of_node(u).unwrap().as_server())
    .collect();
    // Half the entrants are remote bots, each registered on a node and
    // waiting there, with the two others to fail over to.
    let players: Vec<String> = (0..n / 2).map(|i| format!("remote-{i}")).collect();
    let mut tokens = Vec::new();
    for (i, name) in players.iter().enumerate() {
        let mut c = common::Client::connect(&urls[i % 3]).await;
        c.hello(None).await;
        let r = c.request(serde_json::json!({"type": "register", "name": name})).await;
        tokens.push(r["token"].as_str().expect("registered").to_string());
    }
    let entrants: Vec<String> = hosted(n - players.len()).into_iter().chain(players.iter().cloned()).collect();
    let (spec, expected) = create_round_robin(&db, &dir, &entrants);
    let bots = common::await_spread(&urls, &tokens, 1);
    let scheduler = async |nodes: &[Option<Server>]| {
        wait_for("one server to run the tournaments", Duration::from_secs(30), async || {
            let running: Vec<usize> = (0..3).filter(|&i| nodes[i].is_some() && schedules(&logs[i])).collect();
            if running.len() == 1 { Ok(running[0]) } else { Err(running) }
        })
        .await
    };
    // Waits for `at_least` stored results and a table in play on node `i`.
    let results_and_play = async |at_least: i64, i: usize| {
        let node = node_of(&logs[i]);
        wait_for(
            &format!("{at_least} stored results and a table in play on node {node}"),
            Duration::from_secs(60),
            async || {
                let (st, count) = status(&pool).await;
                assert_ne!(st, "finished", "the tournament finished before the kills: make it bigger");
                let in_play = tables_open_on(&pool, node).await;
                if count >= at_least && in_play > 0 { Ok(count) } else { Err((count, in_play)) }
            },
        )
        .await
    };

    // A standby dies with a table in play: its tables are played again on
    // the others, and the bots waiting on it fail over.
    let first = scheduler(&nodes).await;
    let standby = (0..3).find(|&i| i != first).unwrap();
    let done = results_and_play(2, standby).await;
    let standby_kill = kill_node(&pool, &mut nodes[standby].take().unwrap(), node_of(&logs[standby])).await;
    check_failover(&pool, &standby_kill, "a standby").await;
    // The scheduler dies with a table of its own in play (a duel of bots
    // takes milliseconds: if the table ended between the look and the
    // kill, the next scheduler is killed the same way, while two servers
    // are left).
    let mut kills = Vec::new();
    let mut schedulers = Vec::new();
    let mut at_least = done + 2;
    let before = loop {
        let s = scheduler(&nodes).await;
        schedulers.push(node_of(&logs[s]));
        results_and_play(at_least, s).await;
        let k = kill_node(&pool, &mut nodes[s].take().unwrap(), node_of(&logs[s])).await;
        let caught = k.in_play();
        kills.push(k);
        if caught || nodes.iter().flatten().count() == 1 {
            break matches(&pool).await;
        }
        at_least = matches(&pool).await.len() as i64 + 1;
    };
    assert!(before.len() < expected, "killed mid-run");
    // The last server standing takes over and finishes it.
    let last = scheduler(&nodes).await;
    assert!(nodes[last].is_some());
    schedulers.push(node_of(&logs[last]));
    for k in &kills {
        check_failover(&pool, k, "the scheduler").await;
    }
    wait_finished(&pool).await;
    let trail = audit(&pool, node_of(&logs[last])).await;
    let all: Vec<&Killed> = std::iter::once(&standby_kill).chain(&kills).collect();
    let handovers: Vec<(i64, i64)> = schedulers.windows(2).map(|w| (w[0], w[1])).collect();
    check_audit(&trail, &all, &handovers);
    check_logs(&logs);
    // Every remote bot hears the end from the server it waits on.
    for b in bots {
        tokio::time::timeout(Duration::from_secs(60), b).await.expect("the bots hear the end").unwrap().unwrap();
    }
    for node in nodes.iter_mut().flatten() {
        node.kill9();
    }
    let lost: i64 = sqlx::query("SELECT COUNT(*) FROM table_placements WHERE state = 'lost'")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    eprintln!(
        "killed a standby and {} scheduler(s); {} of {expected} matches were stored before; {lost} placement(s) lost with their node",
        kills.len(),
        before.len()
    );
    check_finished(&pool, &spec, expected, &before).await;
    check_attempts(&pool).await;
    // How soon a node opens a table placed on it (a figure, not a bound:
    // the nodes hear of placements at once, and look every 250 ms anyway).
    let r = sqlx::query(
        "SELECT CAST(AVG(opened_at - placed_at) AS BIGINT), MAX(opened_at - placed_at), COUNT(*)
         FROM table_placements WHERE opened_at IS NOT NULL",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let (mean, max, n): (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
    eprintln!("placements: {n} opened, {mean} ms after placing on average, {max} ms at most");
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

/// Every placement that opened a room, or was lost before its room opened,
/// counts as an attempt of its table.
async fn check_attempts(pool: &AnyPool) {
    let short: Vec<(i64, i64, i64)> = sqlx::query(
        "SELECT t.round, t.table_no, t.attempts FROM tournament_tables t WHERE t.attempts <
           (SELECT COUNT(*) FROM table_placements p WHERE p.tournament_id = t.tournament_id AND p.round = t.round
            AND p.table_no = t.table_no AND (p.room_id IS NOT NULL OR (p.state = 'lost' AND p.opened_at IS NULL)))",
    )
    .fetch_all(pool)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect();
    assert!(short.is_empty(), "tables counting fewer attempts than their placements: {short:?}");
}

/// The standings view: (rank, entrant, points, wins, draws, losses, score).
async fn standings_view(pool: &AnyPool) -> Vec<(i64, String, i64, i64, i64, i64, i64)> {
    sqlx::query("SELECT rank, entrant, points, wins, draws, losses, score FROM tournament_standings ORDER BY rank")
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6)))
        .collect()
}

/// The stored results by table: (round, table) -> (winner, the seats'
/// scores and pips).
async fn results_by_table(pool: &AnyPool) -> std::collections::BTreeMap<(u32, u32), String> {
    common::stored_results(pool, 1)
        .await
        .into_iter()
        .map(|r| {
            let seats: Vec<(i64, u32)> = r.seats.iter().map(|s| (s.score, s.pips)).collect();
            ((r.round, r.table), format!("winner {:?}, seats {seats:?}", r.winner))
        })
        .collect()
}

#[tokio::test]
async fn a_tournament_spread_over_servers_and_killed_scores_as_one_server_does() {
    let Some(pg) = capicua_pgtest::require("a_tournament_spread_over_servers_and_killed_scores_as_one_server_does")
    else {
        return;
    };
    let dir = fresh_dir("same-seeds");
    let n: usize = std::env::var("CAPICUA_RESTART_ENTRANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(8);
    let entrants = hosted(n);

    // Three servers on PostgreSQL; the scheduler is killed with a table of
    // its own in play, and another finishes the tournament.
    let db = pg.fresh_database();
    let (spec, expected) = create_round_robin(&db, &dir, &entrants);
    let pool = pool(&db).await;
    let secret: String =
        sqlx::query("SELECT deal_secret FROM tournaments WHERE id = 1").fetch_one(&pool).await.unwrap().get(0);
    let mut logs: Vec<_> = (0..3).map(|i| dir.join(format!("node{i}.log"))).collect();
    let mut nodes: Vec<Option<Server>> = logs.iter().map(|log| Some(serve(&db, log))).collect();
    // A standby dies with a table in play, then the scheduler does. A duel
    // of bots is quick on a busy machine: if the table ended between the
    // look and the kill, the next one is killed the same way, with a fresh
    // server in the dead one's place so that the cluster stays three.
    let mut kills = Vec::new();
    for scheduler in [false, true] {
        let what = if scheduler { "the scheduler" } else { "a standby" };
        let mut misses = 0;
        let k = loop {
            let s = wait_for("one server to run the tournaments", Duration::from_secs(30), async || {
                let running: Vec<usize> =
                    (0..nodes.len()).filter(|&i| nodes[i].is_some() && schedules(&logs[i])).collect();
                if running.len() == 1 { Ok(running[0]) } else { Err(running) }
            })
            .await;
            let victim = if scheduler { s } else { (0..nodes.len()).find(|&i| i != s && nodes[i].is_some()).unwrap() };
            let node = node_when_up(&logs[victim]).await;
            wait_for(&format!("a result stored and a table in play on {what}"), Duration::from_secs(60), async || {
                let (st, count) = status(&pool).await;
                assert_ne!(st, "finished", "the tournament finished before the kill: make it bigger");
                let in_play = tables_open_on(&pool, node).await;
                if count >= 1 && in_play > 0 { Ok(()) } else { Err((count, in_play)) }
            })
            .await;
            let k = kill_node(&pool, &mut nodes[victim].take().unwrap(), node).await;
            let log = dir.join(format!("node{}.log", logs.len()));
            nodes.push(Some(serve(&db, &log)));
            logs.push(log);
            if k.in_play() {
                break k;
            }
            misses += 1;
            assert!(misses < 6, "no kill of {what} caught a table in play in {misses} tries");
        };
        check_failover(&pool, &k, what).await;
        kills.push(k);
    }
    let before = matches(&pool).await;
    wait_finished(&pool).await;
    for node in nodes.iter_mut().flatten() {
        node.kill9();
    }
    check_finished(&pool, &spec, expected, &before).await;
    check_attempts(&pool).await;
    check_logs(&logs);
    let spread = results_by_table(&pool).await;
    let spread_view = standings_view(&pool).await;
    pool.close().await;

    // The same tournament, with the same deal secret, on one SQLite server
    // that nobody kills.
    let file = dir.join("one.db");
    let one = file.to_str().unwrap();
    let (same_spec, _) = create_round_robin(one, &dir, &entrants);
    assert_eq!(same_spec, spec);
    let pool = self::pool(one).await;
    sqlx::query("UPDATE tournaments SET deal_secret = $1 WHERE id = 1").bind(&secret).execute(&pool).await.unwrap();
    let mut server = serve(one, &dir.join("one.log"));
    wait_finished(&pool).await;
    server.kill9();
    let single = results_by_table(&pool).await;
    assert_eq!(single.len(), expected);
    // Table by table, the same results; so the same standings.
    for (table, result) in &single {
        assert_eq!(spread.get(table), Some(result), "round {} table {}", table.0, table.1);
    }
    assert_eq!(standings_view(&pool).await, spread_view);
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_node_that_opens_no_table_loses_its_placements_and_each_counts_as_an_attempt() {
    let Some(pg) = capicua_pgtest::require("a_node_that_opens_no_table_loses_its_placements") else {
        return;
    };
    let dir = fresh_dir("frozen");
    let db = pg.fresh_database();
    let pool = pool(&db).await;
    let logs = [dir.join("a.log"), dir.join("b.log")];
    // A runs the tournaments; B is a node that freezes: its sessions with
    // the database stay open (it is live to the others), but it opens nothing.
    let mut a = serve(&db, &logs[0]);
    wait_until("A to run the tournaments", Duration::from_secs(30), async || schedules(&logs[0])).await;
    let mut b = serve(&db, &logs[1]);
    let frozen = node_when_up(&logs[1]).await;
    let stop = Command::new("kill").args(["-STOP", &b.0.id().to_string()]).status().unwrap();
    assert!(stop.success());
    let (spec, expected) = create_round_robin(&db, &dir, &hosted(6));
    // Some table is placed on B, waits there in vain, and is lost.
    let (placement, round, table): (i64, i64, i64) =
        wait_for("a placement on the frozen node lost", Duration::from_secs(30), async || {
            let row =
                sqlx::query("SELECT id, round, table_no FROM table_placements WHERE node_id = $1 AND state = 'lost'")
                    .bind(frozen)
                    .fetch_optional(&pool)
                    .await
                    .unwrap();
            row.map(|r| (r.get(0), r.get(1), r.get(2))).ok_or(())
        })
        .await;
    b.kill9();
    wait_finished(&pool).await;
    let trail = audit(&pool, node_of(&logs[0])).await;
    a.kill9();
    let lost = incidents(&trail, "placement-lost");
    let entry = lost.iter().find(|e| e["detail"]["placement"] == placement).expect("the placement lost");
    assert_eq!(entry["detail"]["in-play"], false, "{entry}");
    assert_eq!(entry["detail"]["node"], frozen, "{entry}");
    let why = entry["detail"]["why"].as_str().unwrap();
    assert!(why.contains(&format!("node {frozen} did not open the table within 3 s")), "{why}");
    let replayed = incidents(&trail, "table-replayed");
    let again = replayed.iter().find(|e| e["detail"]["round"] == round && e["detail"]["table"] == table);
    let again = again.unwrap_or_else(|| panic!("round {round} table {table} replayed: {trail}"));
    assert_eq!(again["detail"]["attempt"], 2, "{again}");
    // The lost placement is the table's first attempt; its room elsewhere the second.
    let attempts: i64 = sqlx::query("SELECT attempts FROM tournament_tables WHERE round = $1 AND table_no = $2")
        .bind(round)
        .bind(table)
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(attempts, 2);
    check_attempts(&pool).await;
    check_finished(&pool, &spec, expected, &[]).await;
    check_logs(&logs);
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
