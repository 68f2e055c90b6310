//! kill -9 under load, on the real `capicua-server` binary: tables of four
//! registered bots play rated matches (`capicua-bot load`) until the server
//! is killed mid-stream, then it restarts on the same file. Every match a
//! client was told is stored (`game-over` naming its game) is in the
//! database, whole; no match is half-stored; the ratings are exactly the
//! replay of the stored games; and the restarted server plays and stores
//! new matches.
//!
//! `CAPICUA_CRASH_TABLES` (default 40) sets the number of tables; the drill
//! figure is 2,000 in a release build:
//! `CAPICUA_CRASH_TABLES=2000 cargo test --release -p capicua-server --test crash_under_load -- --nocapture`.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use capicua_bot::load::{LoadConfig, LoadReport};
use capicua_server::Db;
use common::wait_for;
use sqlx::{AnyPool, Row};

const BIN: &str = env!("CARGO_BIN_EXE_capicua-server");

/// A server process, killed (SIGKILL) when dropped, so a failing test leaves none behind.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts the binary on `db`, its log in `log`, and waits until it listens.
    fn start(db: &Path, log: &Path) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--database"])
            .arg(db)
            // The load generator's players all come from 127.0.0.1.
            .env("CAPICUA_REGISTRATIONS_PER_MIN", "0")
            .env("CAPICUA_MAX_CONNECTIONS_PER_ADDR", "0")
            .env("CAPICUA_MAX_ROOMS_PER_ADDR", "0")
            .env("CAPICUA_MAX_SEATS_PER_ADDR", "0")
            .env("CAPICUA_STORED_KIB_PER_HOUR", "0")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        // The log is copied to a file by a thread of its own, so a chatty
        // server never blocks on a full pipe; the address is sent on.
        let stderr = child.stderr.take().unwrap();
        let mut file = std::fs::File::create(log).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or_default().to_string());
                }
                let _ = writeln!(file, "{line}");
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server says where it listens (log: {})", log.display()));
        Server { child, addr: addr.parse().expect("a socket address") }
    }

    /// Waits until it answers HTTP: the database is open and migrated (the
    /// listener is bound, and logged, before that).
    async fn serving(&self) {
        let addr = self.addr;
        common::wait_until("the server serves", Duration::from_secs(60), async || {
            tokio::time::timeout(Duration::from_secs(5), common::http_get(addr, "/healthz"))
                .await
                .is_ok_and(|(status, _)| status == 200)
        })
        .await;
    }

    fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// kill -9 and reap.
    fn kill9(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Rated tables of four registered load bots, answering at once.
fn load(server: &Server, tables: usize, seconds: u64, games: Option<u64>, players: Vec<String>) -> LoadConfig {
    LoadConfig {
        server: server.url(),
        tables,
        seconds,
        preset: "latin".into(),
        batch_events: true,
        skip_accepted: true,
        think: None,
        churn: 0.0,
        server_pid: Some(server.child.id()),
        rated: true,
        games,
        players,
        report_every: None,
    }
}

/// The id of the newest stored game (0 for none): the writer numbers games
/// in order, and this reads one index entry, cheap enough to poll under load.
async fn last_game(pool: &AnyPool) -> i64 {
    sqlx::query("SELECT COALESCE(MAX(id), 0) FROM games").fetch_one(pool).await.unwrap().get(0)
}

async fn count(pool: &AnyPool, sql: &str) -> i64 {
    sqlx::query(sql).fetch_one(pool).await.unwrap_or_else(|e| panic!("{sql}: {e}")).get(0)
}

/// What the database holds, checked whole.
struct Checked {
    games: usize,
    rated_games: i64,
    ratings: usize,
}

/// Every check of a database after a crash: the games `reported` as stored
/// (room, game) are there, each the match of its room, with their seats and
/// hands; no game is half-stored; and the ratings are the replay of the
/// stored games.
async fn check(db: &Db, reported: &[(u64, i64)]) -> Checked {
    let pool = db.pool();
    let integrity: String = sqlx::query("PRAGMA integrity_check").fetch_one(pool).await.unwrap().get(0);
    assert_eq!(integrity, "ok");
    let dangling = sqlx::query("PRAGMA foreign_key_check").fetch_all(pool).await.unwrap();
    assert!(dangling.is_empty(), "{} rows point at nothing", dangling.len());

    let stored: HashMap<i64, Option<i64>> = sqlx::query("SELECT id, room_id FROM games")
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let missing: Vec<i64> = reported.iter().map(|r| r.1).filter(|id| !stored.contains_key(id)).collect();
    assert!(
        missing.is_empty(),
        "{} games reported stored are not in the database: {:?}",
        missing.len(),
        &missing[..missing.len().min(20)]
    );

    let elsewhere: Vec<_> =
        reported.iter().filter(|(room, game)| stored[game] != Some(*room as i64)).take(20).collect();
    assert!(elsewhere.is_empty(), "games reported to one room, stored as another room's: {elsewhere:?}");

    // A game without all its seats, or without all its hands, or child rows without their game.
    let half = [
        (
            "games without every seat of their room",
            "SELECT COUNT(*) FROM games g JOIN rooms r ON r.id = g.room_id \
          WHERE (SELECT COUNT(*) FROM game_seats s WHERE s.game_id = g.id) != r.seats",
        ),
        (
            "games without seats",
            "SELECT COUNT(*) FROM games g WHERE NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id)",
        ),
        (
            "games without every hand they count",
            "SELECT COUNT(*) FROM games g WHERE g.hands < 1 OR g.hands != (SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id)",
        ),
        (
            "seats without their game",
            "SELECT COUNT(*) FROM game_seats s WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = s.game_id)",
        ),
        (
            "hands without their game",
            "SELECT COUNT(*) FROM hands h WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = h.game_id)",
        ),
    ];
    for (what, sql) in half {
        assert_eq!(count(pool, sql).await, 0, "{what}");
    }

    let replayed = db.replay_ratings().await.unwrap();
    let in_table = db.stored_ratings().await.unwrap();
    assert!(!in_table.is_empty(), "rated games moved ratings");
    if replayed != in_table {
        let first = replayed.iter().zip(&in_table).find(|(a, b)| a != b);
        panic!(
            "the ratings table ({} rows) is not the replay of the stored games ({} rows); first difference: {first:?}",
            in_table.len(),
            replayed.len()
        );
    }
    Checked {
        games: stored.len(),
        rated_games: count(pool, "SELECT COUNT(*) FROM games WHERE rated").await,
        ratings: in_table.len(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_under_load_keeps_every_reported_match_and_consistent_ratings() {
    let tables: usize = std::env::var("CAPICUA_CRASH_TABLES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let dir = std::env::temp_dir().join(format!("capicua-crash-{}-{tables}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db_path = dir.join("crash.db");

    // Load until the writer has committed three matches per table on
    // average (by then the tables, which all started together, finish their
    // matches at staggered moments), then kill -9 with every table still
    // playing, and matches finishing and being stored all the time.
    let mut server = Server::start(&db_path, &dir.join("first.log"));
    server.serving().await;
    let running = tokio::spawn(capicua_bot::load::run(load(&server, tables, 3600, None, Vec::new())));
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(&format!("sqlite://{}", db_path.display())).await.unwrap();
    let enough = 3 * tables.max(20) as i64;
    let setup = Duration::from_secs(120) + Duration::from_millis(100) * tables as u32;
    let stored_before_kill = wait_for("three matches per table stored", setup, async || {
        assert!(!running.is_finished(), "the load ended before the kill");
        let n = last_game(&pool).await;
        if n >= enough { Ok(n) } else { Err(n) }
    })
    .await;
    server.kill9();
    pool.close().await;
    // With the server gone every seat's connection ends, and the load with them.
    let first: LoadReport = tokio::time::timeout(Duration::from_secs(120), running)
        .await
        .expect("the load ends once the server is gone")
        .unwrap()
        .expect("the load ran");
    assert_eq!(first.games_not_stored, 0, "every match over under load was stored");
    assert!(first.games_stored > 0);

    // Restart on the same file: it opens (recovering the WAL) and serves.
    let mut server = Server::start(&db_path, &dir.join("restarted.log"));
    server.serving().await;
    let db = Db::open(db_path.to_str().unwrap()).await.unwrap();
    let after_kill = check(&db, &first.stored).await;
    let last_before_restart = last_game(db.pool()).await;

    // The restarted server plays and stores new rated matches, between
    // players of before the kill: their ratings go on from the stored ones.
    let new_tables = tables.clamp(1, 8);
    let players: Vec<String> = first.tokens.iter().take(new_tables * 4).cloned().collect();
    let second = tokio::time::timeout(
        Duration::from_secs(300),
        capicua_bot::load::run(load(&server, new_tables, 240, Some(new_tables as u64 * 2), players)),
    )
    .await
    .expect("the restarted server finishes matches")
    .expect("the load ran");
    assert_eq!(second.games_not_stored, 0);
    assert!(second.games_stored >= new_tables as u64 * 2, "{} new matches stored", second.games_stored);
    assert!(second.stored.iter().all(|&(_, id)| id > last_before_restart), "new games get new ids");
    // Killed again: the check reads a file no process writes to.
    server.kill9();
    let after_restart = check(&db, &second.stored).await;
    assert!(after_restart.games > after_kill.games);
    assert_eq!(after_restart.ratings, after_kill.ratings, "the same players played on: no new rating rows");
    db.close().await;

    println!(
        "crash drill: {tables} tables ({} connections); {} moves/s, {:.1} matches/s before the kill; \
         kill -9 once {stored_before_kill} matches were stored",
        first.connections, first.moves_per_sec as u64, first.finished_games_per_sec
    );
    println!(
        "after restart: {} games in the database ({} rated), {} reported stored to clients, all present \
         ({} committed but not announced before the kill); {} ratings equal to the replay of the stored games; \
         no half-stored match",
        after_kill.games,
        after_kill.rated_games,
        first.games_stored,
        after_kill.games - first.stored.len(),
        after_kill.ratings
    );
    println!(
        "restarted server: {} new matches between players of before the kill, stored and reported; \
         then {} games, {} ratings, checks passed",
        second.games_stored, after_restart.games, after_restart.ratings
    );
    let _ = std::fs::remove_dir_all(&dir);
}
