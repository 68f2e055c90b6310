//! Full matches over real WebSockets: remote players against hosted bots,
//! stored and replayable.

mod common;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_players_and_hosted_bots_finish_a_stored_match() {
    let server = TestServer::start().await;
    let mut a = server.guest().await;
    let mut b = server.guest().await;
    let room = a.create_room(json!({"preset": "latin"})).await;
    assert_eq!(a.join(room, Some(0)).await, 0);
    assert_eq!(b.join(room, None).await, 1);
    let r = a.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    a.ready(room).await;
    b.ready(room).await;
    let (clients, game) = play_out(vec![a, b], room).await;
    // Every event frame carries the room's sequence number, without gaps.
    for c in &clients {
        let seqs: Vec<u64> = c
            .frames
            .iter()
            .filter(|f| ["game-started", "events", "game-over"].contains(&f["type"].as_str().unwrap()))
            .map(|f| f["seq"].as_u64().unwrap())
            .collect();
        assert!(seqs.len() > 10);
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    }
    let replay = server.get_json(&format!("/api/games/{game}?seat=0")).await;
    assert_eq!(replay["variant"]["name"], "latin");
    assert!(replay["steps"].as_array().unwrap().len() > 10);
    assert_eq!(replay["seats"][2]["kind"], "hosted-bot");
    let spectator = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(spectator["start"]["hand"], json!(null));
    let (status, _) = server.get(&format!("/api/games/{game}?seat=9")).await;
    assert_eq!(status, 400);
    let (status, _) = server.get("/api/games/999999").await;
    assert_eq!(status, 404);
    let metrics = server.get("/metrics").await.1;
    assert!(metrics.contains("capicua_games_finished_total 1"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosted_bots_alone_play_one_match_a_spectator_watches_and_rest_endpoints_answer() {
    let server = TestServer::start().await;
    let mut watcher = server.guest().await;
    let room = watcher.create_room(json!({"preset": "all-fives", "seats": 3})).await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating");
    let rooms = server.get_json("/api/rooms").await;
    assert_eq!(rooms[0]["id"], json!(room));
    assert_eq!(rooms[0]["seats"].as_array().unwrap().len(), 3);
    let r = watcher.request(json!({"type": "fill-bots", "room": room, "strategy": "bota-gorda"})).await;
    assert_eq!(r["type"], "ok");
    let over = watcher.recv_type("game-over").await;
    let game = over["game"].as_i64().unwrap();
    assert!(over["result"]["scores"].as_array().unwrap().iter().any(|s| s.as_i64().unwrap() >= 150));
    watcher.recv_type("room-closed").await;
    let replay = server.get_json(&format!("/api/games/{game}?seat=1")).await;
    assert_eq!(replay["variant"]["name"], "all-fives");
    assert_eq!(server.get("/healthz").await, (200, "ok".into()));
    let variants = server.get_json("/api/variants").await;
    let catalog = variants["catalog"].as_array().expect("the rule catalog is served");
    assert!(catalog.iter().any(|o| o["id"] == "matching.sum-to" && o["params"][0]["name"] == "k"));
    assert_eq!(variants["presets"].as_array().unwrap().len(), capicua_engine::PRESETS.len());
    assert!(variants["strategies"].as_array().unwrap().contains(&json!("random")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn room_creation_errors_are_clear() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    let r = c.request(json!({"type": "create-room", "preset": "nope"})).await;
    assert_eq!(r["code"], "bad-variant");
    assert!(r["message"].as_str().unwrap().contains("latin"), "{r}");
    let r = c.request(json!({"type": "create-room", "preset": "latin", "seats": 3})).await;
    assert_eq!(r["code"], "bad-variant");
    assert!(r["message"].as_str().unwrap().contains("seats"), "{r}");
    let mut v = serde_json::to_value(capicua_engine::preset("block").unwrap()).unwrap();
    v["deal"]["hand-size"] = json!(20);
    let r = c.request(json!({"type": "create-room", "variant": v})).await;
    assert_eq!(r["code"], "bad-variant");
    assert!(r["message"].as_str().unwrap().contains("deal.hand-size"), "{r}");
    let r = c
        .request(json!({"type": "create-room", "preset": "block", "on-timeout": {"kind": "strategy", "name": "zzz"}}))
        .await;
    assert_eq!(r["code"], "unknown-strategy");
    let r = c.request(json!({"type": "create-room", "preset": "block", "rated": true})).await;
    assert_eq!(r["code"], "unauthorized");
    let r = c.request(json!({"type": "join", "room": 12345})).await;
    assert_eq!(r["code"], "no-such-room");
}
