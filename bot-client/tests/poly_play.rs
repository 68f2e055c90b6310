//! `capicua-bot play` in rooms of tiles with 3, 4 or 6 faces, against a
//! live server: the remote bot plays every poly preset to the end, and the
//! matches are stored and replayed per seat.

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use capicua_engine::poly::POLY_PRESETS;
use common::*;
use serde_json::{Value, json};

/// Runs `capicua-bot play --poly-strategy POLY` in `room` (else in the room its bots find or
/// create) until each of its `count` bots has
/// played one match; returns the stored game ids it printed. Fails on any
/// line saying the bot fell back to the first legal move (it could not
/// rebuild the position, or its strategy's choice was not offered).
async fn play_one_match(url: String, room: Option<u64>, preset: String, count: usize, poly: &str) -> Vec<i64> {
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_capicua-bot"))
        .args(["play", "--server", &url, "--preset", &preset, "--poly-strategy", poly])
        .args(room.map(|r| ["--room".to_string(), r.to_string()]).into_iter().flatten())
        .args(["--count", &count.to_string(), "--matches", "1"])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), child).await.expect("the bots finish").unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{preset}: capicua-bot play failed: {stderr}");
    assert!(!stderr.contains("first legal move") && !stderr.contains("playing"), "{preset}: {stderr}");
    // The bots' one match counts once, however many of them sat at it.
    assert!(
        stderr.contains("matches 1, errors 0, reconnects 0"),
        "{preset}: the match ended, counted once, without errors: {stderr}"
    );
    // `game 3 stored: http://...`, once per match.
    let ids: Vec<i64> =
        stdout.lines().filter_map(|l| l.strip_prefix("game ")?.split_once(" stored")?.0.parse().ok()).collect();
    assert_eq!(ids.len(), 1, "{preset}: one match, told once: {stdout}");
    ids
}

/// Every seat's replay of a stored poly game: a poly replay of `preset`,
/// whose last view's scores are the stored final scores.
async fn check_stored(server: &TestServer, id: i64, preset: &str, seats: usize) {
    for seat in 0..seats {
        let replay: Value = server.get_json(&format!("/api/games/{id}?seat={seat}")).await;
        assert_eq!(replay["poly"], true, "{preset}: {replay}");
        assert_eq!(replay["variant"]["name"], preset, "{preset}");
        assert_eq!(replay["seat"], seat, "{preset}");
        let steps = replay["steps"].as_array().unwrap();
        assert!(steps.len() > 5, "{preset}: a whole match is more than a few moves");
        // A long match comes a page at a time: its last step is on the last page.
        let total = replay["total-steps"].as_u64().unwrap();
        let end: Value = server.get_json(&format!("/api/games/{id}?seat={seat}&from={}&limit=1", total - 1)).await;
        let last = &end["steps"].as_array().unwrap().last().unwrap()["view"];
        assert_eq!(last["scores"], replay["scores"], "{preset} game {id} seat {seat}");
        assert_eq!(last["seat"], seat, "{preset}: the replay is the seat's own view");
        assert!(last.get("to-move").is_none_or(Value::is_null), "{preset}: the match is over: {last}");
    }
}

/// Who sat where in a stored game, by seat: `guest` for a remote bot,
/// `hosted-bot` for the server's.
fn seat_kinds(replay: &Value) -> Vec<&str> {
    replay["seats"].as_array().unwrap().iter().map(|s| s["kind"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_bot_plays_every_poly_preset_to_the_end_and_the_games_are_stored() {
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    for (k, preset) in POLY_PRESETS.iter().enumerate() {
        let room = host.create_room(json!({"preset": preset, "seats": 2, "seed": 900 + k})).await;
        let bots = tokio::spawn(play_one_match(server.url(), Some(room), preset.to_string(), 1, "greedy"));
        // The remote bot sits.
        server.wait_seated(room, 1).await;
        let r = host.request(json!({"type": "fill-bots", "room": room, "strategy": "greedy"})).await;
        assert_eq!(r["type"], "ok", "{preset}: {r}");
        let ids = bots.await.unwrap();
        check_stored(&server, ids[0], preset, 2).await;
        let replay = server.get_json(&format!("/api/games/{}", ids[0])).await;
        assert_eq!(seat_kinds(&replay), ["guest", "hosted-bot"], "{preset}: {replay}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_remote_pimc_bots_of_one_process_play_a_triominoes_room() {
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    let room = host.create_room(json!({"preset": "triominoes", "seats": 2, "seed": 31})).await;
    let ids = play_one_match(server.url(), Some(room), "triominoes".into(), 2, "pimc:samples=4").await;
    check_stored(&server, ids[0], "triominoes", 2).await;
    let replay = server.get_json(&format!("/api/games/{}", ids[0])).await;
    assert_eq!(seat_kinds(&replay), ["guest", "guest"], "two remote bots: {replay}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_asked_for_a_poly_preset_create_and_fill_a_poly_room() {
    let server = TestServer::start().await;
    // A two-faced room waiting with free seats: no place for them.
    let mut host = server.guest().await;
    let latin = host.create_room(json!({"preset": "latin"})).await;
    host.join(latin, None).await;
    let ids = play_one_match(server.url(), None, "quadominoes".into(), 4, "random").await;
    check_stored(&server, ids[0], "quadominoes", 4).await;
    let replay = server.get_json(&format!("/api/games/{}", ids[0])).await;
    assert_eq!(seat_kinds(&replay), ["guest"; 4], "{replay}");
    assert_ne!(replay["room"], json!(latin));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_bots_given_a_poly_variant_file_play_its_rooms_and_a_bad_file_fails_before_connecting() {
    let server = TestServer::start().await;
    let dir = std::env::temp_dir().join(format!("capicua-poly-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("quick-hex.toml");
    std::fs::write(&file, "base = \"hexominoes\"\nname = \"quick-hex\"\ntarget = { points = { points = 60 } }\n")
        .unwrap();
    let run = |path: std::path::PathBuf| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_capicua-bot"))
            .args(["play", "--server", &server.url(), "--variant", path.to_str().unwrap()])
            .args(["--count", "4", "--matches", "1"])
            .kill_on_drop(true)
            .output()
    };
    let out = tokio::time::timeout(Duration::from_secs(120), run(file)).await.expect("the bots finish").unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // Each match counts once in the tally, as many as were stored, however
    // many of the four bots sat at it.
    let stored = stdout.lines().filter(|l| l.starts_with("game ") && l.contains(" stored")).count();
    assert!((1..=4).contains(&stored), "{stdout}");
    assert!(out.status.success() && stderr.contains(&format!("matches {stored}, errors 0")), "{stderr}");
    let id: i64 = stdout.lines().find_map(|l| l.strip_prefix("game ")?.split_once(" stored")?.0.parse().ok()).unwrap();
    let replay = server.get_json(&format!("/api/games/{id}?seat=0")).await;
    assert_eq!((replay["poly"].as_bool(), replay["variant"]["name"].as_str()), (Some(true), Some("quick-hex")));
    assert_eq!(replay["variant"]["target"], json!({"points": {"points": 60}}), "the file's rules were played");
    // A poly file's mistake is told with its file, line and field.
    let bad = dir.join("bad-hex.toml");
    std::fs::write(&bad, "base = \"hexominoes\"\nname = \"bad-hex\"\nfaces = 5\n").unwrap();
    let out = run(bad).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("bad-hex.toml:3") && stderr.contains("faces"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
