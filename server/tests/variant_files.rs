//! Rooms from the text of a variant file (`variant-file` in `create-room`
//! and `POST /api/rooms`), parsed by the engine as `capicua-bot arena
//! --variant FILE` parses one.

mod common;

use common::*;
use serde_json::{Value, json};

/// Latin to 200 points, under its own name.
const LATIN_200: &str = r#"# a house rule
base = "latin"
name = "latin-200"
target = { points = { points = 200 } }
"#;

/// The variant `LATIN_200` stands for, as the engine writes it.
fn latin_200() -> Value {
    serde_json::to_value(capicua_engine::Variant::from_file_text("x.toml", LATIN_200).unwrap()).unwrap()
}

/// Sits in seat 0 of `room`, fills the rest with bots and starts a match:
/// the variant `game-started` announces.
async fn variant_played(c: &mut Client, room: u64) -> Value {
    c.join(room, Some(0)).await;
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    c.ready(room).await;
    c.recv_type("game-started").await["variant"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_file_makes_a_room_over_the_websocket() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    let r = c.request(json!({"type": "create-room", "variant-file": LATIN_200, "seats": 4})).await;
    assert_eq!(r["type"], "room", "{r}");
    assert_eq!(r["room"]["variant"], "latin-200");
    let room = r["room"]["id"].as_u64().unwrap();
    assert_eq!(server.room_info(room).await["variant"], "latin-200");
    let played = variant_played(&mut c, room).await;
    assert_eq!(played["target"]["points"]["points"], 200, "{played}");
    assert_eq!(played, latin_200());
    // JSON when the text starts with `{`.
    let text = r#"  {"base": "block", "name": "block-3", "target": {"hands": 3}}"#;
    let r = c.request(json!({"type": "create-room", "variant-file": text, "seats": 2})).await;
    assert_eq!(r["type"], "room", "{r}");
    assert_eq!(r["room"]["variant"], "block-3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_file_makes_a_room_over_http() {
    let server = TestServer::start().await;
    let body = json!({"variant-file": LATIN_200}).to_string();
    let (status, room) = server.post_json("/api/rooms", None, &body).await;
    assert_eq!(status, 201, "{room}");
    assert_eq!(room["variant"], "latin-200");
    let id = room["id"].as_u64().unwrap();
    let mut c = server.guest().await;
    let played = variant_played(&mut c, id).await;
    assert_eq!(played, latin_200());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_variant_files_are_refused_with_line_and_field() {
    let server = TestServer::start().await;
    let mut ws = server.guest().await;
    let typo = "base = \"latin\"\n\nmatching = \"equl\"\n";
    let wsr = ws.request(json!({"type": "create-room", "variant-file": typo})).await;
    assert_eq!(wsr["code"], "bad-request", "{wsr}");
    let message = wsr["message"].as_str().unwrap();
    assert!(message.starts_with("variant-file: variant-file.toml:3: matching: unknown option \"equl\""), "{message}");
    let (status, http) = server.post_json("/api/rooms", None, &json!({"variant-file": typo}).to_string()).await;
    assert_eq!(status, 400);
    assert_eq!(http["code"], "bad-request");
    assert_eq!(http["field"], "variant-file");
    assert_eq!(http["message"], wsr["message"]);
    // A rule the engine refuses, at the line that sets it.
    let big = "base = \"latin\"\n[deal]\nhand-size = 8\n";
    let (_, http) = server.post_json("/api/rooms", None, &json!({"variant-file": big}).to_string()).await;
    let message = http["message"].as_str().unwrap();
    assert!(message.starts_with("variant-file: variant-file.toml:3: deal.hand-size: "), "{http}");
    // A syntax error, in JSON.
    let (_, http) = server.post_json("/api/rooms", None, &json!({"variant-file": "{\n\"base\": }"}).to_string()).await;
    assert!(http["message"].as_str().unwrap().starts_with("variant-file: variant-file.json:2: "), "{http}");
    // `base` names presets only: never a file on the server's disk.
    let (_, http) =
        server.post_json("/api/rooms", None, &json!({"variant-file": "base = \"/etc/passwd\""}).to_string()).await;
    assert_eq!(http["code"], "bad-request");
    assert!(http["message"].as_str().unwrap().contains("unknown preset \"/etc/passwd\""), "{http}");
    // Over 64 KiB.
    let huge = format!("base = \"latin\"\n{}", "# padding\n".repeat(7000));
    let (status, http) = server.post_json("/api/rooms", None, &json!({"variant-file": huge}).to_string()).await;
    assert_eq!(
        (status, http["code"].as_str(), http["field"].as_str()),
        (400, Some("bad-request"), Some("variant-file"))
    );
    assert!(http["message"].as_str().unwrap().contains("over the limit of 65536"), "{http}");
    // Exactly 64 KiB is fine.
    let mut exact = String::from(LATIN_200);
    exact.push_str(&"#".repeat(64 * 1024 - exact.len()));
    let (status, http) = server.post_json("/api/rooms", None, &json!({"variant-file": exact}).to_string()).await;
    assert_eq!(status, 201, "{http}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_one_of_preset_variant_and_variant_file() {
    let server = TestServer::start().await;
    let mut ws = server.guest().await;
    let block = serde_json::to_value(capicua_engine::preset("block").unwrap()).unwrap();
    for spec in [
        json!({"preset": "latin", "variant-file": LATIN_200}),
        json!({"variant": block, "variant-file": LATIN_200}),
        json!({"preset": "latin", "variant": block, "variant-file": LATIN_200}),
        json!({"seats": 2}),
    ] {
        let mut msg = spec.clone();
        msg["type"] = json!("create-room");
        let wsr = ws.request(msg).await;
        assert_eq!(wsr["code"], "bad-variant", "{spec}: {wsr}");
        assert_eq!(wsr["message"], "give exactly one of `preset`, `variant` and `variant-file`");
        let (status, http) = server.post_json("/api/rooms", None, &spec.to_string()).await;
        assert_eq!(status, 400);
        assert_eq!(http["message"], wsr["message"], "{spec}");
    }
}
