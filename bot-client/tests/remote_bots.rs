//! Remote bots against a live server: `capicua-bot play` (the library behind
//! it) and the Python example bot.

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use capicua_bot::RemoteError;
use capicua_bot::remote::{PlayConfig, Tally, play};
use capicua_protocol::ErrorCode;
use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_fill_a_room_with_hosted_bots_and_finish_matches() {
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    let room = host.create_room(json!({"preset": "latin"})).await;
    let cfg = PlayConfig {
        server: server.url(),
        token: None,
        strategy: "heuristic".into(),
        poly_strategy: "greedy".into(),
        room: Some(room),
        preset: "latin".into(),
        count: 2,
        matches: Some(2),
    };
    let tally = Arc::new(Tally::default());
    let bots = tokio::spawn(play(cfg, tally.clone()));
    // Wait until both remote bots sit, then fill the rest with hosted bots.
    server.wait_seated(room, 2).await;
    let r = host.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    tokio::time::timeout(Duration::from_secs(60), bots).await.expect("bots finish").unwrap().unwrap();
    assert_eq!(tally.games.load(Ordering::Relaxed), 2, "two bots at one table: two matches, each counted once");
    assert!(tally.moves.load(Ordering::Relaxed) > 20);
    assert_eq!(tally.errors.load(Ordering::Relaxed), 0);
}

/// Four guest bots playing `random` that find or create a block room and
/// stop after one match.
fn four_random_block_bots(server: String) -> PlayConfig {
    PlayConfig {
        server,
        token: None,
        strategy: "random".into(),
        poly_strategy: "greedy".into(),
        room: None,
        preset: "block".into(),
        count: 4,
        matches: Some(1),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_find_or_create_rooms_and_a_bad_token_is_final() {
    let server = TestServer::start().await;
    let cfg = four_random_block_bots(server.url());
    let tally = Arc::new(Tally::default());
    tokio::time::timeout(Duration::from_secs(60), play(cfg.clone(), tally.clone())).await.expect("in time").unwrap();
    // One match each, at one table or several: the tally counts the matches stored.
    let stored = server.get_json("/api/games").await.as_array().unwrap().len() as u64;
    assert!((1..=4).contains(&stored), "{stored}");
    assert_eq!(tally.games.load(Ordering::Relaxed), stored);
    let bad = PlayConfig { token: Some("nope".into()), ..cfg };
    let err = tokio::time::timeout(Duration::from_secs(20), play(bad, Arc::new(Tally::default())))
        .await
        .expect("a refused token is not retried forever")
        .unwrap_err();
    assert!(matches!(err, RemoteError::Server { code: ErrorCode::BadToken, .. }), "{err:?}");
    assert!(err.to_string().contains("bad-token"), "the message names the code as the wire does: {err}");
}

// Needs python3 with the `websockets` package: without them the test is
// reported ignored (bot-client/build.rs probes the machine), so `cargo test`
// passes on a machine with Rust alone and says what it left out; CI sets
// CAPICUA_REQUIRE_PYTHON=1, which makes a missing package a failure.
#[cfg_attr(not(python_websockets), ignore = "python3 lacks the websockets package: pip install websockets")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_example_bot_completes_a_match() {
    let python = "python3";
    let server = TestServer::start().await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-bot/bot.py");
    let child = tokio::process::Command::new(python)
        .args([script, "--server", &server.url(), "--preset", "block", "--fill-bots", "random", "--matches", "1"])
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), child).await.expect("the bot finishes").unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "python bot failed (is `websockets` installed? pip install websockets): {stderr}");
    assert!(stderr.contains("over: winner side"), "{stderr}");
    let count = capicua_server::Db::open(server.db_path.to_str().unwrap()).await.unwrap().game_count().await.unwrap();
    assert_eq!(count, 1);

    // A room of three-faced tiles: the bot answers poly prompts.
    let child = tokio::process::Command::new(python)
        .args([script, "--server", &server.url(), "--preset", "triominoes", "--fill-bots", "random", "--matches", "1"])
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), child).await.expect("the bot finishes").unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "python bot failed in a triominoes room: {stderr}");
    assert!(stderr.contains("game 2 over"), "{stderr}");
    let replay = server.get_json("/api/games/2").await;
    assert_eq!(replay["poly"], true, "{replay}");
    assert_eq!(replay["variant"]["name"], "triominoes", "{replay}");
    assert!(replay["steps"].as_array().unwrap().len() > 5, "{replay}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_play_over_a_unix_socket() {
    let db_path = temp_db();
    let socket = db_path.with_extension("sock");
    let _ = std::fs::remove_file(&socket);
    let db = capicua_server::Db::open(db_path.to_str().unwrap()).await.unwrap();
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(capicua_server::run(listener, db, common::config(), async move {
        let _ = stopped.await;
    }));
    let cfg = four_random_block_bots(format!("unix:{}", socket.display()));
    let tally = Arc::new(Tally::default());
    tokio::time::timeout(Duration::from_secs(60), play(cfg, tally.clone())).await.expect("in time").unwrap();
    let matches = tally.games.load(Ordering::Relaxed);
    assert!((1..=4).contains(&matches), "four bots, one match each, counted once per table: {matches}");
    assert!(tally.moves.load(Ordering::Relaxed) > 5);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(30), server).await.expect("stops").unwrap().unwrap();
    let db = capicua_server::Db::open(db_path.to_str().unwrap()).await.unwrap();
    assert!(db.game(1).await.unwrap().is_some(), "the match is stored");
    let _ = std::fs::remove_file(&socket);
}

/// Without the `websockets` package (Python started without its site
/// packages) the example bot says what to install in one line, not a
/// traceback.
#[cfg_attr(not(python3), ignore = "python3 is not installed")]
#[test]
fn the_python_example_bot_without_websockets_says_what_to_install() {
    let python = "python3";
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/python-bot/bot.py");
    let out = std::process::Command::new(python).args(["-I", "-S", script, "--help"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim(), "bot.py needs the websockets package: pip install websockets");
}
