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
//! `CAPICUA_RESTART_ENTRANTS` (default 8) and `CAPICUA_FAILOVER_ENTRANTS`
//! (default 10) scale them.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use capicua_tournament::{Tournament, TournamentSpec};
use common::wait_for;
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
    nodes[standby].take().unwrap().kill9();
    // The scheduler dies with a table of its own in play (a duel of bots
    // takes milliseconds: if the table ended between the look and the
    // kill, the next scheduler is killed the same way, while two servers
    // are left).
    let mut kills = 0;
    let mut at_least = done + 2;
    let before = loop {
        let s = scheduler(&nodes).await;
        results_and_play(at_least, s).await;
        nodes[s].take().unwrap().kill9();
        kills += 1;
        if tables_open_on(&pool, node_of(&logs[s])).await > 0 || nodes.iter().flatten().count() == 1 {
            break matches(&pool).await;
        }
        at_least = matches(&pool).await.len() as i64 + 1;
    };
    assert!(before.len() < expected, "killed mid-run");
    // The last server standing takes over and finishes it.
    let last = scheduler(&nodes).await;
    assert!(nodes[last].is_some());
    wait_finished(&pool).await;
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
        "killed a standby and {kills} scheduler(s); {} of {expected} matches were stored before; {lost} placement(s) lost with their node",
        before.len()
    );
    check_finished(&pool, &spec, expected, &before).await;
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
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
    let mut misses = 0;
    let before = loop {
        let s = wait_for("one server to run the tournaments", Duration::from_secs(30), async || {
            let running: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].is_some() && schedules(&logs[i])).collect();
            if running.len() == 1 { Ok(running[0]) } else { Err(running) }
        })
        .await;
        let node = node_of(&logs[s]);
        wait_for("a result stored and a table in play on the scheduler", Duration::from_secs(60), async || {
            let (st, count) = status(&pool).await;
            assert_ne!(st, "finished", "the tournament finished before the kill: make it bigger");
            let in_play = tables_open_on(&pool, node).await;
            if count >= 1 && in_play > 0 { Ok(()) } else { Err((count, in_play)) }
        })
        .await;
        nodes[s].take().unwrap().kill9();
        if tables_open_on(&pool, node).await > 0 {
            break matches(&pool).await;
        }
        // The table ended between the look and the kill (a duel of bots is
        // quick on a busy machine): kill the next scheduler, with a fresh
        // server in the dead one's place so that the cluster stays three.
        misses += 1;
        assert!(misses < 6, "no kill of the scheduler caught a table in play in {misses} tries");
        let log = dir.join(format!("node{}.log", logs.len()));
        nodes.push(Some(serve(&db, &log)));
        logs.push(log);
    };
    wait_finished(&pool).await;
    for node in nodes.iter_mut().flatten() {
        node.kill9();
    }
    check_finished(&pool, &spec, expected, &before).await;
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
