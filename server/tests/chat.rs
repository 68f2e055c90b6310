//! Table chat: delivered to everyone in the room (spectators too), capped
//! in length, and rate-limited per connection.

mod common;

use capicua_protocol::{CHAT_BURST, MAX_CHAT_CHARS};
use common::TestServer;
use serde_json::json;

#[tokio::test]
async fn chat_reaches_seats_and_spectators_and_is_capped_and_rate_limited() {
    let server = TestServer::start().await;
    let mut ana = server.guest().await;
    let room = ana.create_room(json!({"preset": "block", "seats": 2})).await;
    assert_eq!(ana.join(room, None).await, 0);
    let mut ben = server.guest().await;
    assert_eq!(ben.join(room, None).await, 1);
    let mut watcher = server.guest().await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let mut outsider = server.guest().await;

    // One line from a seat reaches both seats and the spectator.
    let r = ana.request(json!({"type": "chat", "room": room, "text": "hola"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    for c in [&mut ana, &mut ben, &mut watcher] {
        let m = c.recv_type("chat").await;
        assert_eq!(
            (m["room"].as_u64(), m["seat"].as_u64(), m["text"].as_str()),
            (Some(room), Some(0), Some("hola")),
            "{m}"
        );
        assert!(m["name"].as_str().unwrap().starts_with("guest"), "{m}");
    }
    // A spectator speaks without a seat.
    let r = watcher.request(json!({"type": "chat", "room": room, "text": "nice"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let m = ben.recv_type("chat").await;
    assert!(m.get("seat").is_none() && m["text"] == "nice", "{m}");
    // Someone outside the room cannot.
    let r = outsider.request(json!({"type": "chat", "room": room, "text": "hi"})).await;
    assert_eq!(r["code"], "not-seated", "{r}");

    // The cap counts characters: exactly the cap passes, one more does not; blank never.
    let at_cap = "ñ".repeat(MAX_CHAT_CHARS);
    let r = ben.request(json!({"type": "chat", "room": room, "text": at_cap})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let over = "a".repeat(MAX_CHAT_CHARS + 1);
    let r = ben.request(json!({"type": "chat", "room": room, "text": over})).await;
    assert_eq!(r["code"], "bad-request", "{r}");
    let r = ben.request(json!({"type": "chat", "room": room, "text": "   "})).await;
    assert_eq!(r["code"], "bad-request", "{r}");

    // The burst passes, then lines are refused until the bucket refills
    // (one a second: the whole run below takes far less than that per
    // line, so at least one is refused); other connections are not slowed.
    let mut refused = 0;
    let mut passed = 0;
    for i in 0..CHAT_BURST + 3 {
        let r = chat_line(&mut ana, room, i).await;
        if r["type"] == "ok" {
            passed += 1;
        } else {
            assert_eq!(r["code"], "rate-limited", "{r}");
            refused += 1;
        }
    }
    // ana spent one line above: the burst allows CHAT_BURST - 1 more at once.
    assert!(passed >= CHAT_BURST - 1 && refused >= 1, "passed {passed}, refused {refused}");
    let r = watcher.request(json!({"type": "chat", "room": room, "text": "still here"})).await;
    assert_eq!(r["type"], "ok", "another connection has its own allowance: {r}");
}

async fn chat_line(c: &mut common::Client, room: u64, i: u32) -> serde_json::Value {
    c.request(json!({"type": "chat", "room": room, "text": format!("line {i}")})).await
}
