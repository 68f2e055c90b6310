//! Play now (`seek`, `cancel-seek`, `paired`, `GET /api/seeks`) against a
//! real server: people who seek the same table meet at one room with their
//! seats reserved; the queue is bounded per connection and per owner, and
//! a seeker who leaves (cancels, or hangs up) is out of it at once.

mod common;

use std::time::Duration;

use common::{Client, TestServer, config, play_out, wait_until};
use serde_json::{Value, json};

async fn seek(c: &mut Client, spec: Value) -> Value {
    let mut m = spec;
    m["type"] = json!("seek");
    c.request(m).await
}

/// How many seek each kind of table, as `GET /api/seeks` says.
async fn queue(server: &TestServer) -> Vec<Value> {
    server.get_json("/api/seeks").await["seeks"].as_array().unwrap().clone()
}

/// Waits for the `paired` of a seeker: (room, seat).
async fn paired(c: &mut Client) -> (u64, u8) {
    let p = c.recv_type("paired").await;
    (p["room"].as_u64().unwrap(), p["seat"].as_u64().unwrap() as u8)
}

#[tokio::test]
async fn two_guests_who_seek_the_same_table_meet_and_play_it_out() {
    let server = TestServer::start().await;
    let mut a = server.guest().await;
    let mut b = server.guest().await;
    let r = seek(&mut a, json!({"preset": "draw"})).await;
    assert_eq!(r["type"], "seeking", "{r}");
    assert_eq!((r["preset"].as_str(), r["seats"].as_u64(), r["waiting"].as_u64()), (Some("draw"), Some(2), Some(1)));
    let q = queue(&server).await;
    assert_eq!(q, [json!({"preset": "draw", "seats": 2, "rated": false, "waiting": 1})]);
    seek(&mut b, json!({"preset": "draw", "seats": 2})).await;
    let (room_a, seat_a) = paired(&mut a).await;
    let (room_b, seat_b) = paired(&mut b).await;
    assert_eq!(room_a, room_b, "one table");
    assert_ne!(seat_a, seat_b);
    assert!(queue(&server).await.is_empty(), "the paired are out of the queue");
    // A stranger cannot take a reserved seat.
    let mut c = server.guest().await;
    let r = c.request(json!({"type": "join", "room": room_a})).await;
    assert_eq!(r["code"], "unauthorized", "{r}");
    // Whatever seat they ask for, each gets its own.
    assert_eq!(a.join(room_a, None).await, seat_a);
    assert_eq!(b.join(room_b, None).await, seat_b);
    a.ready(room_a).await;
    b.ready(room_b).await;
    let mut players = vec![a, b];
    if seat_a == 1 {
        players.reverse();
    }
    let (mut players, game) = play_out(players, room_a).await;
    assert!(game > 0, "the match was stored");
    // The room stays for a rematch, which needs both: one ready waits.
    wait_until("the room waiting again", Duration::from_secs(10), async || {
        server.room_info(room_a).await["status"] == "waiting"
    })
    .await;
    players[0].ready(room_a).await;
    assert_eq!(server.room_info(room_a).await["status"], "waiting", "a rematch needs both players");
    players[1].ready(room_a).await;
    let again = players[0].recv_type("game-started").await;
    assert_eq!(again["room"], room_a, "{again}");
    let (players, second) = play_out(players, room_a).await;
    assert!(second > game, "the rematch was stored too");
    // Once both have left, the room closes.
    for mut p in players {
        p.request(json!({"type": "leave", "room": room_a})).await;
    }
    wait_until("the room closed", Duration::from_secs(10), async || {
        !server.get_json("/api/rooms").await.as_array().unwrap().iter().any(|r| r["id"] == json!(room_a))
    })
    .await;
}

#[tokio::test]
async fn four_seekers_form_a_partnership_table_and_another_seek_waits_apart() {
    let server = TestServer::start().await;
    let mut lone = server.guest().await;
    let r = seek(&mut lone, json!({"preset": "draw", "seats": 4})).await;
    assert_eq!(r["type"], "seeking", "{r}");
    let mut four = Vec::new();
    for _ in 0..4 {
        let mut c = server.guest().await;
        seek(&mut c, json!({"preset": "latin", "seats": 4})).await;
        four.push(c);
    }
    let mut rooms = Vec::new();
    let mut seats = Vec::new();
    for c in &mut four {
        let (room, seat) = paired(c).await;
        rooms.push(room);
        seats.push(seat);
    }
    rooms.dedup();
    assert_eq!(rooms.len(), 1, "one table of four");
    seats.sort();
    assert_eq!(seats, [0, 1, 2, 3]);
    let info = server.room_info(rooms[0]).await;
    assert_eq!(info["seats"].as_array().unwrap().len(), 4, "{info}");
    // The one who sought another table still waits, alone.
    assert_eq!(queue(&server).await, [json!({"preset": "draw", "seats": 4, "rated": false, "waiting": 1})]);
}

#[tokio::test]
async fn a_seek_is_one_per_connection_and_ends_when_cancelled_or_the_connection_closes() {
    let server = TestServer::start().await;
    let mut a = server.guest().await;
    // A flood of seeks from one connection holds one place in the queue.
    for i in 0..200 {
        let preset = if i % 2 == 0 { "draw" } else { "block" };
        a.send(json!({"type": "seek", "preset": preset})).await;
    }
    let r = seek(&mut a, json!({"preset": "all-fives"})).await;
    assert_eq!(r["waiting"], 1, "{r}");
    assert_eq!(queue(&server).await, [json!({"preset": "all-fives", "seats": 2, "rated": false, "waiting": 1})]);
    let r = a.request(json!({"type": "cancel-seek"})).await;
    assert_eq!((r["type"].as_str(), &r["preset"]), (Some("seeking"), &Value::Null), "{r}");
    assert!(queue(&server).await.is_empty());
    // A seeker who hangs up leaves the queue at once: nobody is paired
    // with it.
    seek(&mut a, json!({"preset": "draw"})).await;
    drop(a);
    wait_until("the closed connection's seek to end", Duration::from_secs(5), async || queue(&server).await.is_empty())
        .await;
}

#[tokio::test]
async fn bad_seeks_are_refused_with_a_code_and_rated_play_is_for_registered_players() {
    let server = TestServer::start().await;
    let mut g = server.guest().await;
    for (spec, code) in [
        (json!({"preset": "no-such"}), "bad-variant"),
        (json!({"preset": "draw", "seats": 9}), "bad-variant"),
        (json!({"preset": "draw", "seats": 1}), "bad-variant"),
        (json!({"preset": "draw", "rated": true}), "unauthorized"),
    ] {
        let r = seek(&mut g, spec.clone()).await;
        assert_eq!(r["code"], code, "{spec}: {r}");
    }
    assert!(queue(&server).await.is_empty(), "nothing refused waits");
    // Two registered players meet in a rated room.
    let (mut a, _) = server.player("Seeker Ana").await;
    let (mut b, _) = server.player("Seeker José").await;
    seek(&mut a, json!({"preset": "draw", "rated": true})).await;
    seek(&mut b, json!({"preset": "draw", "rated": true})).await;
    let (room, _) = paired(&mut a).await;
    assert_eq!(paired(&mut b).await.0, room);
    let info = server.room_info(room).await;
    assert_eq!(info["rated"], true, "{info}");
}

#[tokio::test]
async fn a_seeker_who_never_takes_its_seat_may_not_seek_again_for_a_while() {
    let mut cfg = config();
    cfg.seeks.no_show = Duration::from_millis(300);
    let server = TestServer::start_with(common::temp_db(), cfg).await;
    let mut a = server.guest().await;
    let mut b = server.guest().await;
    seek(&mut a, json!({"preset": "draw"})).await;
    seek(&mut b, json!({"preset": "draw"})).await;
    let (room, _) = paired(&mut a).await;
    paired(&mut b).await;
    // Only `a` takes its seat; `b` never does, and its side forfeits.
    a.join(room, None).await;
    a.ready(room).await;
    wait_until("the no-show to be benched", Duration::from_secs(10), async || {
        let r = seek(&mut b, json!({"preset": "draw"})).await;
        if r["type"] == "seeking" {
            b.request(json!({"type": "cancel-seek"})).await;
            return false;
        }
        assert_eq!(r["code"], "rate-limited", "{r}");
        true
    })
    .await;
    // The one who came seeks again at once.
    let r = seek(&mut a, json!({"preset": "draw"})).await;
    assert_eq!(r["type"], "seeking", "{r}");
}
