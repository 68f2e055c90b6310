//! The referee over the wire: illegal, stale, duplicated and foreign-seat
//! moves are rejected and change nothing; bad input gets error codes and
//! close codes, never a panic.

mod common;

use std::time::Duration;

use capicua_server::Config;
use common::*;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// Two guests seated in a 2-seat block room, the match started; returns
/// (the seat to move's client, the other, the room, the first prompt).
async fn two_seat_game(server: &TestServer) -> (Client, Client, u64, Value) {
    let mut pair = vec![server.guest().await, server.guest().await];
    // Seeded: the first hand's deal lets both seats play after the lead,
    // so the hand is still on after one move.
    let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2, "seed": 1})).await;
    let (mut a, mut b) = {
        let mut it = pair.into_iter();
        (it.next().unwrap(), it.next().unwrap())
    };
    let sa = a.recv_type("game-started").await;
    b.recv_type("game-started").await;
    let first = sa["view"]["to-move"].as_u64().unwrap();
    if first == 0 {
        let p = a.recv_type("prompt").await;
        (a, b, room, p)
    } else {
        let p = b.recv_type("prompt").await;
        (b, a, room, p)
    }
}

async fn view_of(c: &mut Client, room: u64) -> Value {
    let s = c.request(json!({"type": "resync", "room": room})).await;
    assert_eq!(s["type"], "sync", "{s}");
    s["view"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn illegal_stale_duplicate_and_foreign_moves_change_nothing() {
    let server = TestServer::start().await;
    let (mut mover, mut other, room, prompt) = two_seat_game(&server).await;
    let pid = prompt["prompt"].as_u64().unwrap();
    let legal = prompt["legal-moves"][0].clone();
    let before = view_of(&mut mover, room).await;
    let seq_before = mover.request(json!({"type": "resync", "room": room})).await["seq"].clone();

    // The other seat answers the mover's prompt.
    let r = other.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": legal})).await;
    assert_eq!(r["code"], "not-your-turn", "{r}");
    // A prompt id that is not the pending one.
    let r =
        mover.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid + 1, "move": legal})).await;
    assert_eq!(r["code"], "stale-prompt", "{r}");
    // An illegal move: a pass while holding a lead, a tile not held.
    let r = mover
        .request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": {"kind": "pass"}}))
        .await;
    assert_eq!(r["code"], "illegal-move", "{r}");
    let hand: Vec<Value> = prompt["view"]["hand"].as_array().unwrap().clone();
    let not_held = (0..=6u8).flat_map(|a| (a..=6u8).map(move |b| json!([a, b]))).find(|t| !hand.contains(t)).unwrap();
    let r = mover
        .request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": {"kind": "play", "tile": not_held, "end": 255, "face": 0}}))
        .await;
    assert_eq!(r["code"], "illegal-move", "{r}");
    // A malformed move is a bad message.
    let r = mover
        .request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": {"kind": "teleport"}}))
        .await;
    assert_eq!(r["code"], "bad-message", "{r}");
    // Nothing changed: same view, same sequence number.
    assert_eq!(view_of(&mut mover, room).await, before);
    assert_eq!(mover.request(json!({"type": "resync", "room": room})).await["seq"], seq_before);
    // The resync sent the pending prompt again, with the same id.
    let again = mover.recv_type("prompt").await;
    assert_eq!(again["prompt"].as_u64(), Some(pid));

    // The legal answer is accepted once; the duplicate is rejected.
    let r = mover.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": legal})).await;
    assert_eq!(r["type"], "accepted", "{r}");
    let r = mover.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": pid, "move": legal})).await;
    assert!(r["code"] == "not-your-turn" || r["code"] == "stale-prompt", "{r}");
    let after = view_of(&mut mover, room).await;
    assert_eq!(after["history"].as_array().unwrap().len(), 1, "exactly one move applied: {after}");
}

/// Names people have register as written; one name in another case or
/// with look-alike letters, and the server's own names, do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_register_their_own_names_and_nobody_takes_a_look_alike() {
    let server = TestServer::start().await;
    let register = async |name: &str| {
        let mut c = server.client().await;
        c.hello(None).await;
        c.request(json!({"type": "register", "name": name})).await
    };
    for name in ["José Pérez", "María José", "ana"] {
        let r = register(name).await;
        assert_eq!((r["type"].as_str(), r["name"].as_str()), (Some("registered"), Some(name)), "{r}");
    }
    // Written decomposed, stored composed: the same name, so taken.
    let r = register("Jose\u{301} Pe\u{301}rez").await;
    assert_eq!(r["code"], "name-taken", "{r}");
    for taken in ["ANA", "Ana", "\u{430}na", "josé pérez"] {
        let r = register(taken).await;
        assert_eq!(r["code"], "name-taken", "{taken}: {r}");
    }
    for reserved in ["Admin", "admin", "guest-1", "Guest-1", "\u{430}dmin"] {
        let r = register(reserved).await;
        assert_eq!(r["code"], "bad-name", "{reserved}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_error_codes_and_close_codes() {
    let server = TestServer::start().await;

    // Before hello.
    let mut c = server.client().await;
    c.send(json!({"type": "list-rooms", "id": 3})).await;
    let r = c.recv().await;
    assert_eq!((r["code"].as_str(), r["id"].as_u64()), (Some("hello-required"), Some(3)));
    // Malformed JSON and unknown types keep the connection open.
    c.send_raw(Message::Text("{not json".into())).await;
    assert_eq!(c.recv().await["code"], "bad-json");
    c.send(json!({"type": "teleport", "id": 9})).await;
    let r = c.recv().await;
    assert_eq!((r["code"].as_str(), r["id"].as_u64()), (Some("bad-message"), Some(9)));
    c.hello(None).await;
    let r = c.request(json!({"type": "hello", "version": 2})).await;
    assert_eq!(r["code"], "already-greeted");
    let r = c.request(json!({"type": "close-room", "room": 1})).await;
    assert_eq!(r["code"], "unauthorized");
    let r = c.request(json!({"type": "register", "name": "two  spaces"})).await;
    assert_eq!(r["code"], "bad-name");
    // Oversize frame: error, then close 1009.
    c.send_raw(Message::Text("x".repeat(capicua_protocol::MAX_FRAME_BYTES + 1).into())).await;
    assert_eq!(c.recv().await["code"], "frame-too-large");
    assert_eq!(c.closed_with().await, capicua_protocol::close::TOO_BIG);

    // Version mismatch: close 4002.
    let mut c = server.client().await;
    c.send(json!({"type": "hello", "version": 999})).await;
    assert_eq!(c.recv().await["code"], "version-mismatch");
    assert_eq!(c.closed_with().await, capicua_protocol::close::VERSION_MISMATCH);
    // A version 1 client (before the family tag) is told which version to speak.
    let mut c = server.client().await;
    c.send(json!({"type": "hello", "version": 1})).await;
    let r = c.recv().await;
    assert_eq!(r["code"], "version-mismatch");
    assert!(r["message"].as_str().unwrap().contains("version 2"), "{r}");
    assert_eq!(c.closed_with().await, capicua_protocol::close::VERSION_MISMATCH);
    // Wrong token: close 4001, not to be retried.
    let mut c = server.client().await;
    c.send(json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION, "token": "wrong"})).await;
    assert_eq!(c.recv().await["code"], "bad-token");
    assert_eq!(c.closed_with().await, capicua_protocol::close::BAD_TOKEN);
    assert!(!capicua_protocol::close::may_reconnect(capicua_protocol::close::BAD_TOKEN));
    // Binary frames: close 1008.
    let mut c = server.guest().await;
    c.send_raw(Message::Binary(vec![1, 2, 3].into())).await;
    assert_eq!(c.recv().await["code"], "binary-frame");
    assert_eq!(c.closed_with().await, capicua_protocol::close::POLICY);
    // The server still serves.
    let mut c = server.guest().await;
    assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_are_limited_then_closed_and_the_connection_cap_holds() {
    let config = Config { rate_per_sec: 5, rate_burst: 5, flood_limit: 20, max_connections: 3, ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let mut c = server.guest().await;
    for _ in 0..40 {
        c.send(json!({"type": "ping"})).await;
    }
    let mut limited = 0;
    while c.closed.is_none() {
        match tokio::time::timeout(Duration::from_secs(5), c.recv()).await {
            Ok(r) if r["code"] == "rate-limited" => limited += 1,
            Ok(_) => {}
            Err(_) => break,
        }
        if limited > 20 {
            break;
        }
    }
    assert!(limited >= 20, "{limited}");
    assert_eq!(c.closed_with().await, capicua_protocol::close::FLOOD);
    // Cap of 3: the fourth connection is refused with 1013 (try later).
    let _a = server.guest().await;
    let _b = server.guest().await;
    let _c = server.guest().await;
    let mut d = server.client().await;
    assert_eq!(d.recv().await["code"], "too-many-connections");
    assert_eq!(d.closed_with().await, capicua_protocol::close::TRY_AGAIN_LATER);
    assert!(capicua_protocol::close::may_reconnect(capicua_protocol::close::TRY_AGAIN_LATER));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lenient_variant_lets_an_illegal_play_stand_with_a_penalty() {
    let server = TestServer::start().await;
    let mut variant = serde_json::to_value(capicua_engine::preset("block").unwrap()).unwrap();
    variant["name"] = json!("lenient-block");
    variant["referee"] = json!({"lenient": {"accept": 1.0, "points": 2}});
    let mut a = server.guest().await;
    let mut b = server.guest().await;
    // Seeded: the second seat holds a tile that does not fit the lead.
    let room = a.create_room(json!({"variant": variant, "seats": 2, "seed": 1})).await;
    a.join(room, Some(0)).await;
    b.join(room, Some(1)).await;
    a.ready(room).await;
    b.ready(room).await;
    let first = a.recv_type("game-started").await["view"]["to-move"].as_u64().unwrap();
    b.recv_type("game-started").await;
    let (mut mover, mut other) = if first == 0 { (a, b) } else { (b, a) };
    // The lead is always strict; then the other seat plays a held tile that
    // does not fit end 0, and the referee lets it stand.
    let p = mover.recv_type("prompt").await;
    let lead = p["legal-moves"][0].clone();
    let r = mover
        .request(json!({"type": "move", "family": "tiles", "room": room, "prompt": p["prompt"], "move": lead}))
        .await;
    assert_eq!(r["type"], "accepted", "{r}");
    let p = other.recv_type("prompt").await;
    let pip = p["view"]["ends"][0]["pip"].as_u64().unwrap();
    let hand = p["view"]["hand"].as_array().unwrap();
    let tile = hand.iter().find(|t| t[0].as_u64() != Some(pip) && t[1].as_u64() != Some(pip)).expect("the seed's deal");
    let m = json!({"kind": "play", "tile": tile, "end": 0, "face": 0});
    let r =
        other.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": p["prompt"], "move": m})).await;
    assert_eq!(r["type"], "accepted", "{r}");
    let ev = other.recv_type("events").await;
    let kinds: Vec<&str> = ev["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(&kinds[..2], ["played", "overruled"], "{ev}");
    assert_eq!(ev["events"][1]["penalty"], 2, "no score yet: the fixed 2 points");
}
