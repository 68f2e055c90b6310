//! Three servers on one PostgreSQL database run a tournament of remote
//! bots: the scheduler places each table on the least loaded node, each
//! bot waits for its assignments on one node and plays the tables placed
//! on the others there (the assignment's `url`), and every node's
//! followers hear the tournament end.
//!
//! `CAPICUA_NODES_ENTRANTS` (default 21: a round robin of 210 tables)
//! scales it.

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use capicua_server::Config;
use capicua_tournament::{Tournament, TournamentSpec};
use common::TestServer;
use serde_json::json;
use sqlx::Row;

const ADMIN: &str = "s3cret";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_play_a_tournament_spread_over_three_nodes() {
    let Some(pg) = capicua_pgtest::require("remote_bots_play_a_tournament_spread_over_three_nodes") else {
        return;
    };
    let database = pg.fresh_database();
    let n: usize = std::env::var("CAPICUA_NODES_ENTRANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(21);
    let config = || Config { admin_token: Some(ADMIN.into()), ..common::config() };
    let mut nodes = Vec::new();
    for _ in 0..3 {
        nodes.push(TestServer::start_with(PathBuf::from(&database), config()).await);
    }
    common::wait_for("three live nodes", Duration::from_secs(10), async || {
        let listed = nodes[0].get_json("/api/nodes").await;
        let count = listed.as_array().unwrap().len();
        if count == 3 { Ok(()) } else { Err(listed) }
    })
    .await;

    // Each player registers on a node of its own and waits for its tables there.
    let names: Vec<String> = (0..n).map(|i| format!("bot-{i}")).collect();
    let mut tokens = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (_c, token) = nodes[i % 3].player(name).await;
        tokens.push(token);
    }
    let spec = json!({
        "name": "spread", "seed": 3, "table": "duel", "variants": ["block", "draw"],
        "entrants": names,
        "stages": [{"format": "round-robin"}],
    });
    let (status, created) = nodes[1].post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let config = serde_json::from_value::<TournamentSpec>(spec.clone()).unwrap().validate().unwrap();
    let expected = {
        let t = Tournament::new(config.clone());
        t.next_round().unwrap().tables.len() * (n - 1 + n % 2)
    };

    let started = Instant::now();
    let urls: Vec<String> = nodes.iter().map(TestServer::url).collect();
    let bots = common::await_spread(&urls, &tokens, id);
    // Each bot returns once its node tells it the tournament finished
    // (relayed on the nodes that do not run it).
    for b in bots {
        tokio::time::timeout(Duration::from_secs(600), b).await.expect("bots finish in time").unwrap().unwrap();
    }
    let elapsed = started.elapsed();

    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&capicua_server::db::database_url(&database)).await.unwrap();
    let st: String =
        sqlx::query("SELECT status FROM tournaments WHERE id = $1").bind(id).fetch_one(&pool).await.unwrap().get(0);
    assert_eq!(st, "finished");
    // Every table played once, with its own stored game.
    let results = common::stored_results(&pool, id).await;
    assert_eq!(results.len(), expected);
    let games: i64 = sqlx::query("SELECT COUNT(*) FROM games").fetch_one(&pool).await.unwrap().get(0);
    assert_eq!(games as usize, expected);
    // The standings view is the replay of the stored results.
    common::check_standings_replay(&pool, id, config).await;
    // The tables were spread: every node opened some, each table's room was
    // opened once (no table was interrupted), and each stored game was
    // played in the room its placement opened.
    let spread: Vec<(i64, i64)> = sqlx::query(
        "SELECT node_id, COUNT(*) FROM table_placements WHERE state = 'done' GROUP BY node_id ORDER BY node_id",
    )
    .fetch_all(&pool)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect();
    assert_eq!(spread.len(), 3, "every node hosted tables: {spread:?}");
    assert_eq!(spread.iter().map(|s| s.1).sum::<i64>() as usize, expected, "{spread:?}");
    let misplaced: i64 = sqlx::query(
        "SELECT COUNT(*) FROM tournament_matches m JOIN games g ON g.id = m.game_id
         JOIN table_placements p ON p.tournament_id = m.tournament_id AND p.round = m.round
             AND p.table_no = m.table_no AND p.state = 'done'
         WHERE g.room_id <> p.room_id",
    )
    .fetch_one(&pool)
    .await
    .unwrap()
    .get(0);
    assert_eq!(misplaced, 0);
    eprintln!(
        "{expected} tables of {n} remote bots on three nodes in {:.1} s; tables by node: {:?}",
        elapsed.as_secs_f64(),
        spread.iter().map(|s| s.1).collect::<Vec<_>>()
    );
    pool.close().await;
    for node in &mut nodes {
        node.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_sent_to_a_room_on_another_node_play_it_there() {
    let Some(pg) = capicua_pgtest::require("bots_sent_to_a_room_on_another_node_play_it_there") else {
        return;
    };
    let database = pg.fresh_database();
    let mut a = TestServer::start_with(PathBuf::from(&database), common::config()).await;
    let mut b = TestServer::start_with(PathBuf::from(&database), common::config()).await;
    let mut host = a.guest().await;
    let room = host.create_room(json!({"preset": "latin"})).await;
    // Two bots are told the room and the wrong server: B answers
    // `wrong-node` with A's URL, and they sit and play on A.
    let cfg = capicua_bot::remote::PlayConfig {
        server: b.url(),
        token: None,
        strategy: "heuristic".into(),
        poly_strategy: "greedy".into(),
        room: Some(room),
        preset: "latin".into(),
        count: 2,
        matches: Some(1),
    };
    let tally = std::sync::Arc::new(capicua_bot::remote::Tally::default());
    let bots = tokio::spawn(capicua_bot::remote::play(cfg, tally.clone()));
    // Both bots sit on A.
    a.wait_seated(room, 2).await;
    let r = host.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    tokio::time::timeout(Duration::from_secs(60), bots).await.expect("bots finish").unwrap().unwrap();
    // Both bots played the one match, which counts once.
    assert_eq!(tally.games.load(std::sync::atomic::Ordering::Relaxed), 1, "the match both bots played");
    a.stop().await;
    b.stop().await;
}
