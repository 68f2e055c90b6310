//! Full matches over real WebSockets: remote players against hosted bots,
//! stored and replayable.

mod common;

use common::*;
use serde_json::{Value, json};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_are_created_over_http_with_the_websocket_errors() {
    let server = TestServer::start().await;
    // A preset, as a guest: the room is listed and playable over WebSocket.
    let (status, room) = server.post_json("/api/rooms", None, r#"{"preset": "block", "seats": 2}"#).await;
    assert_eq!(status, 201, "{room}");
    assert_eq!(room["variant"], "block");
    assert_eq!(room["seats"].as_array().unwrap().len(), 2);
    let id = room["id"].as_u64().unwrap();
    assert_eq!(server.get_json("/api/rooms").await[0]["id"], id);
    let mut c = server.guest().await;
    c.join(id, Some(0)).await;
    assert_eq!(c.request(json!({"type": "fill-bots", "room": id, "strategy": "random"})).await["type"], "ok");
    c.ready(id).await;
    let (_, over) = play_until_over(c, id, 1).await;
    assert!(over["game"].as_i64().is_some());
    // A full variant.
    let v = serde_json::to_value(capicua_engine::preset("draw").unwrap()).unwrap();
    let (status, room) = server.post_json("/api/rooms", None, &json!({"variant": v, "seats": 3}).to_string()).await;
    assert_eq!(status, 201, "{room}");
    assert_eq!(room["seats"].as_array().unwrap().len(), 3);
    // The same errors (code and message) as `create-room`.
    let mut ws = server.guest().await;
    let mut bad_variant = v.clone();
    bad_variant["deal"]["hand-size"] = json!(20);
    for spec in [
        json!({"preset": "nope"}),
        json!({"preset": "latin", "seats": 3}),
        json!({"variant": bad_variant}),
        json!({"preset": "block", "on-timeout": {"kind": "strategy", "name": "zzz"}}),
        json!({"preset": "block", "time": {"move-ms": 0}}),
        json!({"preset": "block", "variant": v}),
        json!({"preset": "block", "rated": true}),
    ] {
        let (status, http) = server.post_json("/api/rooms", None, &spec.to_string()).await;
        let mut msg = spec.clone();
        msg["type"] = json!("create-room");
        let wsr = ws.request(msg).await;
        assert_eq!(http["code"], wsr["code"], "{spec}: {http} vs {wsr}");
        assert_eq!(http["message"], wsr["message"], "{spec}");
        // A guest sent no credential: 401, as on every route.
        let want = if wsr["code"] == "unauthorized" { 401 } else { 400 };
        assert_eq!(status, want, "{spec}: {http}");
    }
    // Bad bodies and tokens get machine-readable errors too.
    let (status, r) = server.post_json("/api/rooms", None, "{oops").await;
    assert_eq!((status, r["code"].as_str()), (400, Some("bad-json")), "{r}");
    let (status, r) = server.post_json("/api/rooms", None, r#"{"preset": 5}"#).await;
    assert_eq!((status, r["code"].as_str()), (400, Some("bad-message")), "{r}");
    let (status, r) = server.post_json("/api/rooms", Some("wrong"), r#"{"preset": "block"}"#).await;
    assert_eq!((status, r["code"].as_str()), (401, Some("bad-token")), "{r}");
    // A registered player's token creates rated rooms.
    let (_, token) = server.player("erin").await;
    let (status, room) = server.post_json("/api/rooms", Some(&token), r#"{"preset": "block", "rated": true}"#).await;
    assert_eq!(status, 201, "{room}");
    assert_eq!(room["rated"], true);
}

/// One runtime thread: a hosted strategy thinking on it would stall every
/// other room. Room A's hosted bots think ~200 ms a move (`pimc` with a time
/// cap); room B's guest, prompted before room A starts, must still get each
/// next prompt quickly while room A plays.
#[tokio::test(flavor = "current_thread")]
async fn a_slow_hosted_bot_does_not_stall_another_room() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "block", "seats": 2})).await;
    c.join(room, Some(0)).await;
    assert_eq!(c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
    c.ready(room).await;
    let mut prompt = c.recv_type("prompt").await;
    let mut watcher = server.guest().await;
    let slow = watcher.create_room(json!({"preset": "latin"})).await;
    watcher.request(json!({"type": "spectate", "room": slow})).await;
    let r = watcher.request(json!({"type": "fill-bots", "room": slow, "strategy": "pimc:samples=2000:ms=200"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let mut worst = std::time::Duration::ZERO;
    for moves in 0..12 {
        let m = pick(&prompt["legal-moves"], moves);
        let t0 = std::time::Instant::now();
        c.send(json!({"type": "move", "family": "tiles", "room": room, "prompt": prompt["prompt"], "move": m})).await;
        let next = loop {
            let f = c.recv().await;
            if f["type"] == "prompt" || f["type"] == "game-over" {
                break f;
            }
        };
        worst = worst.max(t0.elapsed());
        if next["type"] == "game-over" {
            c.ready(room).await;
            prompt = c.recv_type("prompt").await;
        } else {
            prompt = next;
        }
    }
    assert!(worst < std::time::Duration::from_millis(100), "room B waited {worst:?} for a prompt");
    // Room A plays meanwhile (off the runtime thread).
    let ev = watcher.recv_type("events").await;
    assert_eq!(ev["room"], json!(slow));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lean_prompts_carry_the_legal_moves_without_the_view() {
    let server = TestServer::start().await;
    let mut lean = server.client().await;
    let r = lean.request(json!({"type": "hello", "version": 2, "lean-prompts": true})).await;
    assert_eq!(r["type"], "welcome", "{r}");
    let mut pair = vec![lean, server.guest().await];
    let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2})).await;
    let (clients, game) = play_out(pair, room).await;
    let prompts = |c: &Client| -> Vec<Value> { c.frames.iter().filter(|f| f["type"] == "prompt").cloned().collect() };
    let (lean_prompts, full_prompts) = (prompts(&clients[0]), prompts(&clients[1]));
    assert!(!lean_prompts.is_empty() && !full_prompts.is_empty());
    for p in &lean_prompts {
        assert!(p.get("view").is_none(), "{p}");
        assert!(!p["legal-moves"].as_array().unwrap().is_empty(), "{p}");
    }
    for p in &full_prompts {
        assert_eq!(p["view"]["legal-moves"], p["legal-moves"], "{p}");
    }
    // Both still get the game's start view and the events.
    assert!(clients[0].frames.iter().any(|f| f["type"] == "game-started" && f["view"]["seat"] == 0));
    assert!(server.get_json(&format!("/api/games/{game}")).await["steps"].as_array().unwrap().len() > 2);
}

/// Events with their sequence numbers, in the order a client read them.
fn event_log(c: &Client) -> Vec<(u64, Value)> {
    c.frames
        .iter()
        .filter(|f| f["type"] == "events")
        .map(|f| (f["seq"].as_u64().unwrap(), f["events"].clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_events_arrive_complete_in_order_and_before_each_prompt() {
    let server = TestServer::start().await;
    let mut pair = vec![server.guest().await, server.batched_guest().await];
    let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2, "seed": 5})).await;
    let (clients, _) = play_out(pair, room).await;
    let (live_log, batched_log) = (event_log(&clients[0]), event_log(&clients[1]));
    assert!(live_log.len() > 10, "{live_log:?}");
    assert_eq!(batched_log, live_log, "the same events, same order, same sequence numbers");
    // Every prompt comes after every event before it: the plays and passes
    // the batched seat has read in this hand are the prompt's history.
    let mut moves_seen = 0;
    let mut prompts = 0;
    for f in &clients[1].frames {
        match f["type"].as_str().unwrap() {
            "game-started" => moves_seen = 0,
            "events" => {
                for e in f["events"].as_array().unwrap() {
                    match e["event"].as_str().unwrap() {
                        "hand-started" => moves_seen = 0,
                        "played" | "passed" => moves_seen += 1,
                        _ => {}
                    }
                }
            }
            "prompt" => {
                assert_eq!(f["view"]["history"].as_array().unwrap().len(), moves_seen, "{f}");
                prompts += 1;
            }
            _ => {}
        }
    }
    assert!(prompts > 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_skips_accepted_hears_its_moves_as_events_and_nothing_else_changes() {
    let server = TestServer::start().await;
    let mut skipping = server.client().await;
    skipping.hello_options(json!({"batch-events": true, "skip-accepted": true})).await;
    let mut pair = vec![server.batched_guest().await, skipping];
    let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2, "seed": 5})).await;
    let (clients, _) = play_out(pair, room).await;
    let count = |c: &common::Client, kind: &str| c.frames.iter().filter(|f| f["type"] == kind).count();
    assert!(count(&clients[0], "accepted") > 3, "the other seat's moves are accepted as ever");
    assert_eq!(count(&clients[1], "accepted"), 0, "no accepted for legal moves without an id");
    assert_eq!(event_log(&clients[1]), event_log(&clients[0]), "the same events, in the same order");
    // Its own moves come back to it as events: as many as it was prompted.
    let own = event_log(&clients[1])
        .iter()
        .flat_map(|(_, events)| events.as_array().unwrap().clone())
        .filter(|e| e["seat"] == json!(1) && matches!(e["event"].as_str(), Some("played" | "passed" | "drew")))
        .count();
    assert_eq!(own, count(&clients[1], "prompt"));
}

/// Every preset, two-faced and poly, is served with a one-line description
/// beside its name, from the same catalog the bots read.
#[tokio::test]
async fn every_preset_is_served_with_a_one_line_description() {
    let server = TestServer::start().await;
    let variants = server.get_json("/api/variants").await;
    for key in ["presets", "poly-presets"] {
        let presets = variants[key].as_array().unwrap();
        assert!(!presets.is_empty());
        for p in presets {
            let d = p["description"].as_str().unwrap_or_else(|| panic!("{key}: no description: {p:.200}"));
            assert!(!d.trim().is_empty() && !d.contains('\n') && d.len() <= 160, "{key} {}: {d:?}", p["name"]);
            assert_eq!(p["variant"]["description"], p["description"], "one catalog");
            assert!(!d.contains("..="), "{}: speaks as a program, not a player: {d}", p["name"]);
        }
    }
}

/// A room whose full rules are a preset's (keys in any order, under any
/// name) is that preset's room: titled and stored under its name, so a
/// rated one counts on the preset's leaderboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_equal_to_a_preset_open_that_preset() {
    let server = TestServer::start().await;
    // Every preset's rules, renamed and with the keys of every object in
    // reverse order, open a room of that preset.
    for name in capicua_engine::PRESETS {
        let mut v = serde_json::to_value(capicua_engine::preset(name).unwrap()).unwrap();
        v["name"] = json!(format!("{name}-custom"));
        v["description"] = json!("my table");
        // The spec's text with the variant's keys reversed, built by hand:
        // serde_json would sort them again.
        let body = format!("{{\"variant\":{}}}", nested_text(&v));
        let (status, room) = server.post_json("/api/rooms", None, &body).await;
        assert_eq!((status, room["variant"].as_str()), (201, Some(*name)), "{room}");
    }
    // Changed rules keep their own name.
    let mut v = serde_json::to_value(capicua_engine::preset("block").unwrap()).unwrap();
    v["name"] = json!("block-custom");
    v["target"] = json!({"points": {"points": 50}});
    let (status, room) = server.post_json("/api/rooms", None, &json!({"variant": v}).to_string()).await;
    assert_eq!((status, room["variant"].as_str()), (201, Some("block-custom")), "{room}");

    // A rated room of block's rules under another name plays for block's
    // leaderboard.
    let (mut ana, _) = server.player("ana").await;
    let (mut ben, _) = server.player("ben").await;
    let mut v = serde_json::to_value(capicua_engine::preset("block").unwrap()).unwrap();
    v["name"] = json!("block-custom");
    let room = ana.create_room(json!({"variant": v, "seats": 2, "rated": true})).await;
    assert_eq!(server.room_info(room).await["variant"], "block");
    for (i, c) in [&mut ana, &mut ben].into_iter().enumerate() {
        assert_eq!(c.join(room, Some(i as u8)).await, i as u8);
    }
    ana.ready(room).await;
    ben.ready(room).await;
    let (_, game) = play_out(vec![ana, ben], room).await;
    assert_eq!(server.get_json(&format!("/api/games/{game}")).await["variant"]["name"], "block");
    let board = server.get_json("/api/leaderboard?variant=block").await;
    let mut names: Vec<&str> = board.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["ana", "ben"], "{board}");
}

/// JSON text of `v` with every object's keys in reverse order.
fn nested_text(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let fields: Vec<String> = m
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), nested_text(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(nested_text).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// A seat the table does not have is named in players' words, with its
/// machine-readable code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_seat_is_told_in_players_words_with_its_code() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin"})).await;
    let r = c.request(json!({"type": "join", "room": room, "seat": 4})).await;
    assert_eq!(r["code"], "no-such-seat", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("4 seats, numbered 0 to 3") && !message.contains(".."), "{message}");
    // A table of the wrong size, and teams that leave a seat out.
    let r = c.request(json!({"type": "create-room", "preset": "latin", "seats": 2})).await;
    assert_eq!(r["code"], "bad-variant", "{r}");
    assert!(r["message"].as_str().unwrap().contains("seats 4 players, not 2"), "{r}");
    let r = c.request(json!({"type": "create-room", "preset": "block", "seats": 3, "teams": [[0], [1]]})).await;
    assert_eq!(r["code"], "bad-variant", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("seats 0 to 2") && !message.contains(".."), "{message}");
}
