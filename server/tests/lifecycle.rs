//! Reconnects, timeouts (paused time), ratings, restarts and shutdown.

mod common;

use std::time::Duration;

use capicua_server::Config;
use common::*;
use serde_json::{Value, json};

/// Reads frames until a prompt for `room`.
async fn next_prompt(c: &mut Client) -> Value {
    c.recv_type("prompt").await
}

/// Waits until the server has noticed that the connection holding `seat` of
/// `room` ended: the seat is still occupied, and shown disconnected.
async fn seat_disconnected(server: &TestServer, room: u64, seat: usize) {
    let what = format!("seat {seat} of room {room} to show its occupant disconnected");
    wait_until(&what, WAIT, async || server.room_info(room).await["seats"][seat]["occupant"]["connected"] == false)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_player_gets_its_seat_and_prompt_back() {
    let server = TestServer::start().await;
    let (mut p, token) = server.player("alice").await;
    let room = p.create_room(json!({"preset": "block", "seats": 2})).await;
    p.join(room, Some(0)).await;
    assert_eq!(p.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
    p.ready(room).await;
    let prompt = next_prompt(&mut p).await;
    let last_seq = p.frames.iter().filter_map(|f| f["seq"].as_u64()).max().unwrap();
    drop(p);
    // The seat is held for the player, shown disconnected.
    seat_disconnected(&server, room, 0).await;

    let mut p = server.client().await;
    let welcome = p.hello(Some(&token)).await;
    assert_eq!(welcome["player"]["name"], "alice");
    assert_eq!(welcome["seats"], json!([{"room": room, "seat": 0}]));
    let sync = p.recv_type("sync").await;
    assert!(sync["seq"].as_u64().unwrap() >= last_seq);
    assert_eq!(sync["view"]["seat"], 0);
    let again = next_prompt(&mut p).await;
    assert_eq!(again["prompt"], prompt["prompt"], "the pending prompt is sent again");
    let m = pick(&again["legal-moves"], 0);
    let r =
        p.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": again["prompt"], "move": m})).await;
    assert_eq!(r["type"], "accepted", "{r}");
    let (_, over) = play_until_over(p, room, 3).await;
    assert!(over["game"].as_i64().is_some());
}

/// A guest's `welcome` carries its session: a reload (a new connection
/// with it) is the same guest, seat, prompt and all; without it, or with
/// one the server does not know, a new guest with no seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_who_reloads_keeps_the_seat_and_the_prompt() {
    let server = TestServer::start().await;
    let mut g = server.client().await;
    let welcome = g.hello(None).await;
    let name = welcome["player"]["name"].clone();
    let session = welcome["guest-session"].as_str().expect("a guest's welcome has its session").to_string();
    assert!(session.starts_with("guest:") && session.len() == 6 + 64, "{session}");
    let room = g.create_room(json!({"preset": "block", "seats": 2})).await;
    g.join(room, Some(0)).await;
    assert_eq!(g.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
    g.ready(room).await;
    let prompt = next_prompt(&mut g).await;
    drop(g);
    seat_disconnected(&server, room, 0).await;

    // Another guest, and a guest with a made-up session: strangers.
    let mut other = server.client().await;
    let w = other.hello(Some(&format!("guest:{}", "0".repeat(64)))).await;
    assert_ne!(w["player"]["name"], name);
    assert_eq!((w["player"]["guest"].as_bool(), w["seats"].clone()), (Some(true), json!([])));

    let mut g = server.client().await;
    let w = g.hello(Some(&session)).await;
    assert_eq!(w["player"]["name"], name, "the same guest");
    assert_eq!(w["seats"], json!([{"room": room, "seat": 0}]));
    assert!(w.get("guest-session").is_none(), "the session is said once, when it opens");
    let again = next_prompt(&mut g).await;
    assert_eq!(again["prompt"], prompt["prompt"], "the pending prompt is sent again");
    let m = pick(&again["legal-moves"], 0);
    let r =
        g.request(json!({"type": "move", "family": "tiles", "room": room, "prompt": again["prompt"], "move": m})).await;
    assert_eq!(r["type"], "accepted", "{r}");
    let info = server.room_info(room).await;
    assert_eq!(info["seats"][0]["occupant"]["connected"], true, "{info}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_left_past_the_grace_period_is_freed() {
    let grace = Duration::from_millis(200);
    let config = Config { reconnect_grace: grace, ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let mut g = server.guest().await;
    let room = g.create_room(json!({"preset": "block", "seats": 2})).await;
    g.join(room, None).await;
    // Room info is published by the room after it seats the guest: wait for
    // it, or a stale copy without the occupant would pass for a freed seat.
    wait_until("the guest to be shown seated", WAIT, async || {
        server.room_info(room).await["seats"][0].get("occupant").is_some()
    })
    .await;
    let left = std::time::Instant::now();
    drop(g);
    wait_until("the seat left by the guest to be freed", WAIT, async || {
        server.room_info(room).await["seats"][0].get("occupant").is_none()
    })
    .await;
    assert!(left.elapsed() >= grace, "the seat was freed {:?} after the guest left", left.elapsed());
}

/// Sets up a 2-seat block room with move-ms 1000 and the given policy, seat
/// 0 a guest and seat 1 a hosted bot, and returns the guest at its first prompt.
/// A room seeded with `seed`: each run replays the same deals and the same
/// bot choices, so what a test expects of a match happens every time.
/// The timed rooms' seed: its first match forces seat 0 to pass.
const SEED: u64 = 1;

async fn timed_room(server: &TestServer, policy: Value, bank_ms: u64, seed: u64) -> (Client, u64, Value) {
    let mut c = server.guest().await;
    let room = c
        .create_room(json!({
            "preset": "block", "seats": 2, "time": {"move-ms": 1000, "bank-ms": bank_ms},
            "on-timeout": policy, "seed": seed,
        }))
        .await;
    c.join(room, Some(0)).await;
    assert_eq!(c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
    c.ready(room).await;
    let p = next_prompt(&mut c).await;
    (c, room, p)
}

/// Waits (in paused time) for the events of seat 0's timed-out move.
async fn timed_out_move(c: &mut Client) -> Value {
    loop {
        let f = c.recv_untimed().await;
        if f["type"] == "events" && f["events"][0]["seat"] == 0 {
            return f["events"][0].clone();
        }
        assert_ne!(f["type"], "game-over", "{f}");
    }
}

#[tokio::test]
async fn timeouts_apply_the_strategy_policy_after_move_time_and_bank() {
    let server = TestServer::start().await;
    let (mut c, _room, prompt) =
        timed_room(&server, json!({"kind": "strategy", "name": "bota-gorda"}), 2000, SEED).await;
    assert_eq!(prompt["deadline-ms"].as_u64().map(|d| d > 2900), Some(true), "{prompt}");
    tokio::time::pause();
    let t0 = tokio::time::Instant::now();
    let ev = timed_out_move(&mut c).await;
    let waited = t0.elapsed();
    assert!(waited >= Duration::from_millis(2900) && waited < Duration::from_millis(3500), "{waited:?}");
    // `bota-gorda` plays the heaviest legal tile (block: pip sum); a seat
    // the deal leaves without a play can only pass.
    let pips = |t: &Value| t[0].as_u64().unwrap() + t[1].as_u64().unwrap();
    let legal = prompt["legal-moves"].as_array().unwrap();
    match legal.iter().filter(|m| m["kind"] == "play").map(|m| pips(&m["tile"])).max() {
        Some(heaviest) => {
            assert_eq!(ev["event"], "played", "{ev} {prompt}");
            assert_eq!(pips(&ev["tile"]), heaviest, "{ev} {prompt}");
        }
        None => assert_eq!(ev["event"], "passed", "{ev} {prompt}"),
    }
    // The bank is spent: the next prompt allows the bare move time.
    let next = loop {
        let f = c.recv_untimed().await;
        if f["type"] == "prompt" || f["type"] == "game-over" {
            break f;
        }
    };
    if next["type"] == "prompt" {
        assert!(next["deadline-ms"].as_u64().unwrap() <= 1000, "{next}");
    }
    tokio::time::resume();
}

#[tokio::test]
async fn timeouts_pass_where_passing_is_legal() {
    let server = TestServer::start().await;
    let (mut c, _room, mut prompt) = timed_room(&server, json!({"kind": "pass"}), 0, SEED).await;
    tokio::time::pause();
    // Let every prompt time out; whenever passing was legal the move is a pass,
    // otherwise a legal play.
    let mut passes = 0;
    loop {
        let can_pass = prompt["legal-moves"].as_array().unwrap().contains(&json!({"kind": "pass"}));
        let ev = timed_out_move(&mut c).await;
        if can_pass {
            assert_eq!(ev["event"], "passed", "{ev}");
            passes += 1;
        } else {
            assert_eq!(ev["event"], "played", "{ev}");
        }
        prompt = loop {
            let f = c.recv_untimed().await;
            if f["type"] == "prompt" || f["type"] == "game-over" {
                break f;
            }
        };
        if prompt["type"] == "game-over" {
            break;
        }
    }
    tokio::time::resume();
    assert!(passes > 0, "a whole match without a forced pass");
}

#[tokio::test]
async fn timeouts_forfeit_the_match_under_the_forfeit_policy() {
    let server = TestServer::start().await;
    let (mut c, _room, _prompt) = timed_room(&server, json!({"kind": "forfeit"}), 0, SEED).await;
    tokio::time::pause();
    let over = loop {
        let f = c.recv_untimed().await;
        if f["type"] == "game-over" {
            break f;
        }
    };
    tokio::time::resume();
    assert_eq!(over["result"]["forfeit"], 0, "{over}");
    assert_eq!(over["result"]["winner"], 1, "{over}");
    let game = over["game"].as_i64().expect("a forfeited match is stored");
    let replay = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(replay["forfeit"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_matches_update_the_leaderboard() {
    let server = TestServer::start().await;
    let (mut a, _) = server.player("ann").await;
    let (mut b, _) = server.player("bob").await;
    let (mut g, _) = (server.guest().await, ());
    let room = a.create_room(json!({"preset": "block", "seats": 2, "rated": true})).await;
    let r = g.request(json!({"type": "join", "room": room})).await;
    assert_eq!(r["code"], "unauthorized", "guests stay out of rated rooms");
    a.join(room, Some(0)).await;
    b.join(room, Some(1)).await;
    a.ready(room).await;
    b.ready(room).await;
    let (_, _game) = play_out(vec![a, b], room).await;
    let board = server.get_json("/api/leaderboard?variant=block").await;
    let rows = board.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{board}");
    assert_eq!(rows[0]["games"], 1);
    assert_eq!(rows[0]["wins"].as_i64().unwrap() + rows[1]["wins"].as_i64().unwrap(), 1);
    assert!(rows[0]["ordinal"].as_f64().unwrap() > rows[1]["ordinal"].as_f64().unwrap());
    assert_eq!(rows[0]["wins"], 1, "the winner ranks first");
    let (status, _) = server.get("/api/leaderboard").await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_every_stored_game_and_player() {
    let db = temp_db();
    let mut server = TestServer::start_with(db.clone(), common::config()).await;
    let (_, token) = server.player("carol").await;
    let mut ids = vec![];
    for preset in ["block", "draw", "cuban"] {
        let mut w = server.guest().await;
        let room = w.create_room(json!({"preset": preset})).await;
        w.request(json!({"type": "spectate", "room": room})).await;
        w.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
        let over = w.recv_type("game-over").await;
        ids.push((over["game"].as_i64().unwrap(), server.get_json(&format!("/api/games/{}", over["game"])).await));
    }
    server.stop().await;
    let server = TestServer::start_with(db, common::config()).await;
    for (id, before) in ids {
        assert_eq!(server.get_json(&format!("/api/games/{id}")).await, before);
    }
    let mut c = server.client().await;
    assert_eq!(c.hello(Some(&token)).await["player"]["name"], "carol");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_tells_rooms_in_play_and_closes_with_going_away() {
    let mut server = TestServer::start().await;
    let mut p = server.guest().await;
    let room = p.create_room(json!({"preset": "latin"})).await;
    p.join(room, None).await;
    p.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    p.ready(room).await;
    next_prompt(&mut p).await;
    server.stop().await;
    let code = p.closed_with().await;
    assert_eq!(code, capicua_protocol::close::GOING_AWAY);
    assert!(capicua_protocol::close::may_reconnect(code));
    let types: Vec<&str> = p.frames.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert!(types.contains(&"closing"), "{types:?}");
    assert!(types.contains(&"room-closed"), "{types:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_who_registers_while_seated_keeps_the_seat() {
    let server = TestServer::start().await;
    let mut g = server.guest().await;
    let room = g.create_room(json!({"preset": "block", "seats": 2})).await;
    g.join(room, Some(0)).await;
    let r = g.request(json!({"type": "register", "name": "dora"})).await;
    assert_eq!(r["type"], "registered", "{r}");
    let token = r["token"].as_str().unwrap().to_string();
    // The seat follows the registration: ready and moves are accepted.
    assert_eq!(g.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
    g.ready(room).await;
    let rooms = server.get_json("/api/rooms").await;
    let occupant = &rooms[0]["seats"][0]["occupant"];
    assert_eq!(occupant["name"], "dora", "{rooms}");
    assert_eq!(occupant["kind"], "player", "{rooms}");
    let prompt = next_prompt(&mut g).await;
    let m = pick(&prompt["legal-moves"], 0);
    let r = g
        .request(json!({"type": "move", "family": "tiles", "room": room, "prompt": prompt["prompt"], "move": m}))
        .await;
    assert_eq!(r["type"], "accepted", "{r}");
    // And it is the player's now: a reconnect with the token gets it back.
    drop(g);
    seat_disconnected(&server, room, 0).await;
    let mut p = server.client().await;
    let welcome = p.hello(Some(&token)).await;
    assert_eq!(welcome["seats"], json!([{"room": room, "seat": 0}]), "{welcome}");
    let (_, over) = play_until_over(p, room, 5).await;
    let game = over["game"].as_i64().unwrap();
    let replay = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(replay["seats"][0]["kind"], "player", "{replay}");
    assert_eq!(replay["seats"][0]["name"], "dora", "{replay}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_room_deals_what_its_seed_says_and_a_rated_room_refuses_a_seed() {
    let server = TestServer::start().await;
    let mut hands = vec![];
    for _ in 0..2 {
        let mut c = server.guest().await;
        let r = c.request(json!({"type": "create-room", "preset": "block", "seats": 2, "seed": 99})).await;
        assert_eq!(r["room"]["seeded"], true, "{r}");
        let room = r["room"]["id"].as_u64().unwrap();
        c.join(room, Some(0)).await;
        assert_eq!(c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await["type"], "ok");
        c.ready(room).await;
        let started = c.recv_type("game-started").await;
        hands.push(started["view"]["hand"].clone());
        let (_, over) = play_until_over(c, room, 5).await;
        let game = over["game"].as_i64().unwrap();
        let replay = server.get_json(&format!("/api/games/{game}")).await;
        // The whole match replays: same deal, same bot choices, same result.
        hands.push(replay["steps"].clone());
    }
    assert_eq!(hands[0], hands[2], "the same seed deals the same first hand");
    assert_eq!(hands[1], hands[3], "and the same match follows");
    let rooms = server.get_json("/api/rooms").await;
    assert!(rooms.as_array().unwrap().iter().all(|r| r["seeded"] == true), "{rooms}");
    // Whoever knows a seed knows every hand: rated rooms refuse one.
    let mut c = server.guest().await;
    assert_eq!(c.request(json!({"type": "register", "name": "eve"})).await["type"], "registered");
    let r = c.request(json!({"type": "create-room", "preset": "block", "seats": 2, "seed": 1, "rated": true})).await;
    assert_eq!(r["code"], "bad-request", "{r}");
}
