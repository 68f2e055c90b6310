//! Wire strictness over a real socket: only string tags decode, an oversize
//! frame gets its error and close code, the handshake answers as the
//! protocol says, and one token acts through one connection at a time.

mod common;

use capicua_protocol::close;
use common::*;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// A number where a tag's string belongs is a bad message naming the field,
/// never the variant of that index (`{"kind":1}` was a draw, a `type`
/// number some message).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_tags_are_bad_messages() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    for n in 0..40 {
        let r = c.request(json!({"type": n, "room": 1, "version": 1})).await;
        assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("bad-message")), "type {n}: {r}");
        assert!(r["message"].as_str().unwrap().contains("`type`"), "{r}");
    }
    let mut pair = vec![server.guest().await, server.guest().await];
    let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2, "seed": 1})).await;
    let mut prompted = None;
    for c in &mut pair {
        let started = c.recv_type("game-started").await;
        if prompted.is_none() {
            prompted = Some(started["view"]["to-move"].as_u64().unwrap() as usize);
        }
    }
    let mover = &mut pair[prompted.unwrap()];
    let p = mover.recv_type("prompt").await;
    for kind in [json!(0), json!(1), json!(2), json!(null)] {
        let r = mover
            .request(
                json!({"type": "move", "family": "tiles", "room": room, "prompt": p["prompt"], "move": {"kind": kind}}),
            )
            .await;
        assert_eq!(r["code"], "bad-message", "kind {kind}: {r}");
        assert!(r["message"].as_str().unwrap().contains("`move.kind`"), "{r}");
    }
    // Nothing was played: the pending prompt is still the same one.
    let s = mover.request(json!({"type": "resync", "room": room})).await;
    assert_eq!(s["view"]["history"].as_array().map(Vec::len), Some(0), "{s}");
    assert_eq!(mover.recv_type("prompt").await["prompt"], p["prompt"]);
    // The same check guards the HTTP room creation.
    let (status, body) = server.post_json("/api/rooms", None, r#"{"preset":"block","on-timeout":{"kind":1}}"#).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("bad-message")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("`on-timeout.kind`"), "{body}");
}

/// A frame far above the limit (and above the WebSocket layer's own cap)
/// still gets `frame-too-large` and close 1009, not a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2_mib_frame_gets_its_error_and_close_1009() {
    let server = TestServer::start().await;
    for size in [2 << 20, (1 << 20) + 1] {
        let mut c = server.guest().await;
        c.send_raw(Message::Text("x".repeat(size).into())).await;
        let r = c.recv().await;
        assert_eq!(r["code"], "frame-too-large", "{size} bytes: {r}");
        assert_eq!(c.closed_with().await, close::TOO_BIG, "{size} bytes");
    }
    // The server still serves.
    let mut c = server.guest().await;
    assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
}

/// Before `hello` only `ping` is answered (the book's Protocol reference, Conventions: Handshake): every
/// other message gets `hello-required`, and the connection stays open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_hello_only_ping_is_answered() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
    for m in [
        json!({"type": "list-rooms"}),
        json!({"type": "register", "name": "ana"}),
        json!({"type": "resync", "room": 1}),
    ] {
        let r = c.request(m.clone()).await;
        assert_eq!(r["code"], "hello-required", "{m}: {r}");
    }
    let welcome = c.hello(None).await;
    assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
    // The welcome says where people open the server: its listening address
    // here, `--public-url` when given.
    assert_eq!(welcome["site"], format!("http://{}", server.addr), "{welcome}");
    let public = TestServer::start_with(
        common::temp_db(),
        capicua_server::Config { public_url: Some("https://dominoes.example.org".into()), ..common::config() },
    )
    .await;
    assert_eq!(public.client().await.hello(None).await["site"], "https://dominoes.example.org");
}

/// A second connection with a player's token takes the player over: the
/// first is told and closed with 4005 and acts no more; the second plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_with_one_token_replaces_the_first() {
    let server = TestServer::start().await;
    let (mut first, token) = server.player("ana").await;
    let mut other = server.guest().await;
    let room = first.create_room(json!({"preset": "block", "seats": 2})).await;
    assert_eq!(first.join(room, Some(0)).await, 0);
    assert_eq!(other.join(room, Some(1)).await, 1);
    first.ready(room).await;
    other.ready(room).await;
    first.recv_type("game-started").await;

    let mut second = server.client().await;
    let welcome = second.hello(Some(&token)).await;
    assert_eq!(welcome["seats"], json!([{"room": room, "seat": 0}]), "{welcome}");
    let closing = first.recv_type("closing").await;
    assert_eq!(closing["reconnect"], false, "{closing}");
    assert_eq!(first.closed_with().await, close::REPLACED);
    assert!(!close::may_reconnect(close::REPLACED));

    // The second connection plays the match to its end.
    let (_, game) = play_out(vec![second, other], room).await;
    assert!(game > 0);
}
