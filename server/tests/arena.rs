//! Arenas on a real server (port 0): hosted bots paired as their games end
//! until the deadline; afterwards the standings (HTTP and the SQL view) are
//! what the stored games make them, every stored game belongs to a table,
//! and nobody was in two games at once. A server killed midway (`kill -9`,
//! on the real binary) resumes the arena until its stored deadline.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use capicua_server::Config;
use capicua_tournament::Table;
use common::{TestServer, temp_db, wait_for};
use serde_json::{Value, json};
use sqlx::{Row, SqlitePool};

const ADMIN: &str = "s3cret";

fn config() -> Config {
    Config { admin_token: Some(ADMIN.into()), ..common::config() }
}

/// 16 hosted bots, half `random`, half `bota-gorda` (the greedy one: its heaviest tile first), 2/1/0 points with the streak bonus.
fn spec(secs: u32) -> Value {
    let entrants: Vec<String> =
        (0..8).flat_map(|i| [format!("bot:random#{i}"), format!("bot:bota-gorda#{i}")]).collect();
    json!({
        "name": "arena", "seed": 9, "table": "duel", "variants": ["block", "draw"],
        "entrants": entrants,
        "stages": [{"format": "arena", "duration-secs": secs, "streak-bonus": true}],
        "scoring": {"points": {"per-result": {"win": 2, "draw": 1, "loss": 0}}}
    })
}

async fn create(server: &TestServer, spec: &Value) -> i64 {
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_i64().unwrap()
}

async fn finished(server: &TestServer, id: i64, within: Duration) -> Value {
    wait_for("the arena to finish", within, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(d) } else { Err(d["status"].clone()) }
    })
    .await
}

/// Per entrant name: (points, wins, draws, losses, games).
type Tally = HashMap<String, (i64, i64, i64, i64, i64)>;

/// Checks the stored arena against its standings, all read in one
/// transaction (one commit's state), the results of `corrected` tables
/// (by number) having the winner given there; with `finished`, also that
/// every table has its result and that the HTTP standings agree. Returns
/// the number of games.
async fn check_consistent(
    finished: Option<&TestServer>,
    pool: &SqlitePool,
    id: i64,
    corrected: &HashMap<i64, Option<i64>>,
) -> usize {
    let mut tx = pool.begin().await.unwrap();
    // Every stored game is a recorded match of this arena, with the match's winner.
    let games: HashMap<i64, Option<i64>> = sqlx::query("SELECT id, winner FROM games")
        .fetch_all(&mut *tx)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let matches: Vec<(i64, i64, i64, Option<i64>)> =
        sqlx::query("SELECT seq, round, game_id, winner FROM tournament_matches WHERE tournament_id = ? ORDER BY seq")
            .bind(id)
            .fetch_all(&mut *tx)
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect();
    assert_eq!(games.len(), matches.len(), "every stored game is a recorded match");
    // Tables by number (creation order), with the last result recorded when each was paired.
    let tables: HashMap<i64, (Table, Option<i64>)> =
        sqlx::query("SELECT round, table_json, after_seq FROM tournament_tables WHERE tournament_id = ?")
            .bind(id)
            .fetch_all(&mut *tx)
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), (serde_json::from_str(r.get::<&str, _>(1)).unwrap(), r.get(2))))
            .collect();
    if finished.is_some() {
        assert_eq!(tables.len(), matches.len(), "every table paired has its result");
    }
    let mut tally: Tally = HashMap::new();
    let mut wins_in_row: HashMap<String, u32> = HashMap::new();
    let mut seq_of_table: HashMap<i64, i64> = HashMap::new();
    for &(seq, round, game, winner) in &matches {
        assert_eq!(games.get(&game), Some(&winner), "game {game}: stored winner and recorded result differ");
        let (table, _) = tables.get(&round).unwrap_or_else(|| panic!("game {game} has no table"));
        let names: Vec<String> = sqlx::query("SELECT name FROM game_seats WHERE game_id = ? ORDER BY seat")
            .bind(game)
            .fetch_all(&mut *tx)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let seated: Vec<String> = table.seats.iter().map(|s| s.player.clone()).collect();
        assert_eq!(names, seated, "game {game} was played by its table's seats");
        seq_of_table.insert(round, seq);
        // The standings count a corrected result as corrected, in its place.
        let winner = corrected.get(&round).copied().unwrap_or(winner);
        for seat in &table.seats {
            let won = winner == Some(i64::from(seat.side));
            let row = tally.entry(seat.player.clone()).or_default();
            let run = wins_in_row.entry(seat.player.clone()).or_default();
            row.4 += 1;
            if winner.is_none() {
                row.0 += 1;
                row.2 += 1;
            } else if won {
                // Two wins in a row before this one: it counts double.
                row.0 += if *run >= 2 { 4 } else { 2 };
                row.1 += 1;
            } else {
                row.3 += 1;
            }
            *run = if won { *run + 1 } else { 0 };
        }
    }
    // Nobody in two games at once: each entrant's next table was paired
    // after its previous game's result was recorded.
    let mut by_entrant: HashMap<String, Vec<i64>> = HashMap::new();
    let mut numbers: Vec<&i64> = tables.keys().collect();
    numbers.sort();
    for n in numbers {
        for s in &tables[n].0.seats {
            by_entrant.entry(s.player.clone()).or_default().push(*n);
        }
    }
    for (name, list) in &by_entrant {
        for w in list.windows(2) {
            let after = tables[&w[1]].1.expect("an arena table stores after-seq");
            let seq = seq_of_table.get(&w[0]).expect("an entrant's earlier table has its result");
            assert!(
                *seq <= after,
                "{name} was paired at table {} before its game at table {} was recorded",
                w[1],
                w[0]
            );
        }
    }
    // The standings in the SQL view are the recomputed ones, at this commit.
    let view: Tally = sqlx::query(
        "SELECT entrant, points, wins, draws, losses, games FROM tournament_standings WHERE tournament_id = ?",
    )
    .bind(id)
    .fetch_all(&mut *tx)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
    .collect();
    let entrants: i64 = sqlx::query("SELECT COUNT(*) FROM tournament_entrants WHERE tournament_id = ?")
        .bind(id)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
        .get(0);
    tx.commit().await.unwrap();
    assert_eq!(view.len() as i64, entrants, "one row per entrant");
    for (name, row) in &view {
        assert_eq!(tally.get(name).copied().unwrap_or_default(), *row, "{name}: standings against the stored games");
    }
    if let Some(server) = finished {
        let http = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
        let http: Tally = http
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let n = |k: &str| s[k].as_i64().unwrap();
                (s["name"].as_str().unwrap().to_string(), (n("points"), n("wins"), n("draws"), n("losses"), n("games")))
            })
            .collect();
        assert_eq!(view, http, "the SQL view and the HTTP standings");
    }
    matches.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_of_hosted_bots_runs_to_its_deadline_and_its_standings_match_the_stored_games() {
    let db = temp_db();
    let server = TestServer::start_with(db.clone(), config()).await;
    let mut bad = spec(60);
    bad["stages"][0]["duration-secs"] = json!(0);
    let (status, e) = server.post_json("/api/tournaments", Some(ADMIN), &bad.to_string()).await;
    assert_eq!((status, e["field"].as_str()), (400, Some("stages[0].duration-secs")), "{e}");
    let id = create(&server, &spec(60)).await;
    let pool = SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    // While it runs, the standings rows are exact at every commit.
    for at_least in [20, 100, 300] {
        wait_for("more arena games", Duration::from_secs(60), async || {
            let n: i64 = sqlx::query("SELECT COUNT(*) FROM tournament_matches").fetch_one(&pool).await.unwrap().get(0);
            if n >= at_least { Ok(()) } else { Err(n) }
        })
        .await;
        check_consistent(None, &pool, id, &HashMap::new()).await;
    }
    let detail = finished(&server, id, Duration::from_secs(120)).await;
    let ends_at = detail["ends-at-ms"].as_i64().expect("an arena shows its deadline");
    let finished_at = detail["finished-at"].as_i64().unwrap();
    assert!(finished_at * 1000 >= ends_at - 1000, "finished at {finished_at}, before the deadline {ends_at}");
    assert!(detail["rounds"].as_array().unwrap().iter().all(|r| r["in-progress"] == false), "{}", detail["rounds"]);
    assert!(!detail["winners"].as_array().unwrap().is_empty());
    let games = check_consistent(Some(&server), &pool, id, &HashMap::new()).await;
    // Paired again as games ended: many more games than one round's eight tables.
    assert!(games > 32, "{games} games in a minute");
    eprintln!("arena of 16 hosted bots: {games} games in 60 s");
    let max_table: i64 = sqlx::query("SELECT MAX(round) FROM tournament_tables").fetch_one(&pool).await.unwrap().get(0);
    assert_eq!(max_table + 1, games as i64, "tables are numbered in creation order");
}

/// A server process, killed (SIGKILL) when dropped, so a failing test leaves none behind.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(db: &Path) -> Process {
    Process(
        Command::new(env!("CARGO_BIN_EXE_capicua-server"))
            .args(["serve", "--listen", "127.0.0.1:0", "--database"])
            .arg(db)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the server"),
    )
}

/// (seq, round, game) of every recorded match.
async fn matches(pool: &SqlitePool) -> Vec<(i64, i64, i64)> {
    sqlx::query("SELECT seq, round, game_id FROM tournament_matches ORDER BY seq")
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

async fn summary(pool: &SqlitePool) -> (String, Option<i64>, Option<i64>) {
    let r = sqlx::query("SELECT status, ends_at_ms, finished_at FROM tournaments WHERE id = 1")
        .fetch_one(pool)
        .await
        .unwrap();
    (r.get(0), r.get(1), r.get(2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_resumes_the_arena_until_its_stored_deadline() {
    let dir = std::env::temp_dir().join(format!("capicua-arena-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("a.db");
    let file = dir.join("arena.json");
    std::fs::write(&file, spec(10).to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .args(["tournament", "create", "--database"])
        .arg(&db)
        .arg("--file")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pool = SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();

    let mut first = serve(&db);
    wait_for("some arena games stored", Duration::from_secs(30), async || {
        let n = matches(&pool).await.len();
        if n >= 8 { Ok(()) } else { Err(n) }
    })
    .await;
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let before = matches(&pool).await;
    let (status, ends_at, _) = summary(&pool).await;
    assert_eq!(status, "running");
    let ends_at = ends_at.expect("the deadline is stored when the arena starts");

    let second = serve(&db);
    let (_, _, finished_at) = wait_for("the resumed arena to finish", Duration::from_secs(60), async || {
        let s = summary(&pool).await;
        assert_ne!(s.0, "failed");
        if s.0 == "finished" { Ok(s) } else { Err(s) }
    })
    .await;
    drop(second);
    assert_eq!(summary(&pool).await.1, Some(ends_at), "the deadline is kept, not recomputed");
    let finished_at = finished_at.unwrap();
    assert!(finished_at * 1000 >= ends_at - 1000, "finished at {finished_at}, before the deadline {ends_at}");
    let after = matches(&pool).await;
    assert_eq!(&after[..before.len()], &before[..], "no finished game lost");
    assert!(after.len() > before.len(), "the resumed arena played on");
    // Read back by a server of its own (the arena is finished: it does not run again).
    let server = TestServer::start_with(db.clone(), config()).await;
    check_consistent(Some(&server), &pool, 1, &HashMap::new()).await;
    pool.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tables stored for the arena so far.
async fn tables(pool: &SqlitePool) -> i64 {
    sqlx::query("SELECT COUNT(*) FROM tournament_tables").fetch_one(pool).await.unwrap().get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_arena_pairs_nobody_new_until_resumed() {
    let db = temp_db();
    let server = TestServer::start_with(db.clone(), config()).await;
    let id = create(&server, &spec(120)).await;
    let pool = SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    // The first pairing (eight tables, stored one by one as their rooms
    // open) is stored whole: a table already paired plays even if a pause
    // comes before it is stored, and the check below would count it.
    wait_for("a few arena games", Duration::from_secs(60), async || {
        let n: i64 = sqlx::query("SELECT COUNT(*) FROM tournament_matches").fetch_one(&pool).await.unwrap().get(0);
        let t = tables(&pool).await;
        if n >= 4 && t >= 8 { Ok(()) } else { Err((n, t)) }
    })
    .await;
    let post = async |name: &str, body: Value| {
        server.post_json(&format!("/api/tournaments/{id}/{name}"), Some(ADMIN), &body.to_string()).await
    };
    let (status, paused) = post("pause", json!({"by": "referee"})).await;
    assert_eq!((status, paused["status"].as_str()), (200, Some("paused")), "{paused}");
    // The games in play finish...
    wait_for("the games in play to finish", Duration::from_secs(60), async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        let playing = d["rounds"].as_array().unwrap().iter().filter(|r| r["in-progress"] == true).count();
        if playing == 0 { Ok(()) } else { Err(playing) }
    })
    .await;
    // ...and nobody is paired anew: unpaused, the free bots would have new
    // tables within milliseconds, so a second's polling sees none.
    let held = tables(&pool).await;
    let window = tokio::time::Instant::now() + Duration::from_secs(1);
    while tokio::time::Instant::now() < window {
        assert_eq!(tables(&pool).await, held, "a paused arena paired someone");
        tokio::time::sleep(Duration::from_millis(20)).await; // between polls
    }
    let d = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(d["status"], "paused", "{d}");
    // Resumed, it pairs again before its deadline; cancelled, it ends.
    let (status, resumed) = post("resume", json!({})).await;
    assert_eq!((status, resumed["status"].as_str()), (200, Some("running")), "{resumed}");
    wait_for("new arena tables", Duration::from_secs(30), async || {
        let n = tables(&pool).await;
        if n > held { Ok(()) } else { Err(n) }
    })
    .await;
    let (status, cancelled) = post("cancel", json!({})).await;
    assert_eq!((status, cancelled["status"].as_str()), (200, Some("cancelled")), "{cancelled}");
    let audit = server.get_json(&format!("/api/tournaments/{id}/audit")).await;
    let actions: Vec<&str> = audit.as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["pause", "resume", "cancel"], "{audit}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_takes_corrections_withdrawals_and_late_entries_and_its_standings_stay_exact_across_a_restart() {
    let db = temp_db();
    let mut server = TestServer::start_with(db.clone(), config()).await;
    let id = create(&server, &spec(15)).await;
    let pool = SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    let (round, winner): (i64, Option<i64>) = wait_for("a first arena game", Duration::from_secs(30), async || {
        match sqlx::query("SELECT round, winner FROM tournament_matches ORDER BY seq LIMIT 1")
            .fetch_optional(&pool)
            .await
        {
            Ok(Some(r)) => Ok((r.get(0), r.get(1))),
            other => Err(other.map(|r| r.is_some()).map_err(|e| e.to_string())),
        }
    })
    .await;
    let post = async |name: &str, body: Value| {
        server.post_json(&format!("/api/tournaments/{id}/{name}"), Some(ADMIN), &body.to_string()).await
    };
    // Paused, the arena pairs nobody while the controls are given, so no
    // table can be paired between a result and the runner reading the
    // withdrawal (such a table would still seat the withdrawn entrant).
    let (status, e) = post("pause", json!({})).await;
    assert_eq!(status, 200, "{e}");
    // The first game's result becomes the other one: the standings are
    // recomputed from the corrected results, streaks included, at the commit.
    let fixed = if winner.is_none() { Some(0) } else { None };
    let (status, e) = post("correct", json!({"round": round, "table": 0, "winner": fixed})).await;
    assert_eq!(status, 200, "{e}");
    let corrected = HashMap::from([(round, fixed)]);
    check_consistent(None, &pool, id, &corrected).await;
    // A withdrawn entrant is paired no more once the withdrawal is applied:
    // no table paired after a later result was recorded seats it.
    let (status, e) = post("withdraw", json!({"entrant": "bot:random#0"})).await;
    assert_eq!(status, 200, "{e}");
    let after_seq: i64 = sqlx::query("SELECT after_seq FROM tournament_controls WHERE action = 'withdraw'")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    // A late entrant is paired at the arena's next pairing.
    let (status, e) = post("enter", json!({"entrant": "bot:random#99"})).await;
    assert_eq!(status, 200, "{e}");
    let (status, e) = post("resume", json!({})).await;
    assert_eq!(status, 200, "{e}");
    let done = finished(&server, id, Duration::from_secs(60)).await;
    let late = done["standings"].as_array().unwrap().iter().find(|s| s["name"] == "bot:random#99").unwrap();
    assert!(late["games"].as_i64().unwrap() > 0, "{late}");
    let later: Vec<String> = sqlx::query("SELECT table_json FROM tournament_tables WHERE after_seq > ?")
        .bind(after_seq)
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(!later.is_empty(), "the arena paired on after the withdrawal");
    assert!(later.iter().all(|t| !t.contains("\"bot:random#0\"")), "{later:?}");
    check_consistent(Some(&server), &pool, id, &corrected).await;
    assert_eq!(done["withdrawn"], json!([0]));
    assert!(!done["winners"].as_array().unwrap().contains(&json!("bot:random#0")));
    let view = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    assert_eq!(view, done["standings"], "the SQL view and the replay");
    // A new server replays the stored tables, results and controls to the same state.
    server.stop().await;
    let server = TestServer::start_with(db, config()).await;
    let again = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(again["standings"], done["standings"]);
    assert_eq!(again["withdrawn"], json!([0]));
    let table = again["rounds"].as_array().unwrap().iter().find(|r| r["number"] == round).unwrap();
    assert_eq!(table["tables"][0]["result"]["winner"], json!(fixed));
    let audit = server.get_json(&format!("/api/tournaments/{id}/audit")).await;
    let actions: Vec<&str> = audit.as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["pause", "correct", "withdraw", "enter", "resume"], "{audit}");
}
