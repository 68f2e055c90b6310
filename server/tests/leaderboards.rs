//! A client names its variant, so ratings are keyed by the rules: a custom
//! variant named like a preset cannot feed the preset's leaderboard.

mod common;

use common::{TestServer, play_out, seat_all};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_rules_get_a_board_of_their_own_and_never_the_presets() {
    let server = TestServer::start().await;
    let mut clients = vec![];
    for i in 0..4 {
        clients.push(server.player(&format!("rater-{i}")).await.0);
    }
    // Latin rules but one hand a match: not latin.
    let mut short = serde_json::to_value(capicua_engine::preset("latin").unwrap()).unwrap();
    short["target"] = json!({"hands": 1});
    let r = clients[0].request(json!({"type": "create-room", "variant": short, "rated": true})).await;
    assert_eq!(r["code"], "bad-variant", "{r}");
    assert!(r["message"].as_str().unwrap().contains("exact rules"), "{r}");

    short["name"] = json!("latin-short");
    let room = seat_all(&mut clients, json!({"variant": short, "rated": true})).await;
    play_out(clients, room).await;

    let boards = server.get_json("/api/leaderboards").await;
    let boards: Vec<&str> = boards.as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert_eq!(boards.len(), 1, "{boards:?}");
    let (name, print) = boards[0].split_once('#').expect("a custom board carries its fingerprint");
    assert_eq!(name, "latin-short");
    assert_eq!(print.len(), 12);
    assert!(print.chars().all(|c| c.is_ascii_hexdigit()));
    let custom = server.get_json(&format!("/api/leaderboard?variant={}", boards[0].replace('#', "%23"))).await;
    assert_eq!(custom.as_array().unwrap().len(), 4, "{custom}");
    for row in custom.as_array().unwrap() {
        let n = |k: &str| row[k].as_i64().unwrap_or_else(|| panic!("{k} in {row}"));
        assert_eq!(n("games"), 1, "{row}");
        assert_eq!(n("wins") + n("draws") + n("losses"), n("games"), "{row}");
    }
    assert_eq!(server.get_json("/api/leaderboard?variant=latin").await, Value::Array(vec![]));
}
