//! The server's search slots over a real socket: reviews whose clients hang
//! up stop and give their slots back, hints go on being answered; one
//! review at a time per address, another is refused `busy` with when to
//! retry; a finished review is stored and another server on the database
//! serves it without computing it again; with `--max-searches 1` no two
//! hosted searches ever run at once, and every bot room still plays.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use capicua_server::Config;
use common::{TestServer, temp_db, wait_for, wait_until};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A gauge or counter of the server at `addr` (0 if not exported).
async fn metric(addr: SocketAddr, name: &str) -> i64 {
    let (_, text) = common::http_get(addr, "/metrics").await;
    let prefix = format!("capicua_{name} ");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).map_or(0, |v| v.trim().parse().unwrap())
}

/// A stored match of ten hands of 47 tiles each from a double-18 set, seat
/// 0 played by a guest at random against three hosted `random` bots: its
/// review has hundreds of decisions per seat, each a long analysis (big
/// hands), far longer than the waits of these tests.
async fn long_game(server: &TestServer) -> i64 {
    let mut c = server.guest().await;
    let variant = "base = \"latin\"\ntiles = { max-pip = 18 }\n\
                   deal = { hand-size = 47, rest = \"out-of-play\" }\ntarget = { hands = 10 }\n";
    let room = c.create_room(json!({"variant-file": variant, "seats": 4})).await;
    assert_eq!(c.join(room, Some(0)).await, 0);
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    c.ready(room).await;
    let (_, over) = common::play_until_over(c, room, 5).await;
    over["game"].as_i64().expect("stored")
}

/// A connection from the loopback address `from` (Linux answers the whole
/// 127.0.0.0/8 on the loopback interface): a client address of its own.
async fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    socket.connect(to).await.unwrap()
}

/// Sends `GET path` on `tcp` without reading the answer.
async fn send_get(tcp: &mut TcpStream, path: &str) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.unwrap();
}

/// Reads an HTTP answer to its end: (status, head, body).
async fn read_answer(mut tcp: TcpStream) -> (u16, String, String) {
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// A guest seated at seat 0 of an unrated latin room against hosted
/// `random` bots, ready: its first prompt is pending.
async fn hinter(server: &TestServer) -> (common::Client, u64, Value) {
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin", "seats": 4})).await;
    assert_eq!(c.join(room, Some(0)).await, 0);
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    c.ready(room).await;
    let prompt = c.recv_type("prompt").await;
    (c, room, prompt)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_whose_clients_hang_up_stop_and_hints_are_answered() {
    let config = Config { max_searches: 2, ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let game = long_game(&server).await;
    // Two reviews from two addresses: every slot of the server busy.
    let mut reviews = Vec::new();
    for (i, from) in [[127, 0, 0, 2], [127, 0, 0, 3]].into_iter().enumerate() {
        let mut tcp = connect_from(from, server.addr).await;
        send_get(&mut tcp, &format!("/api/games/{game}/review?seat={i}")).await;
        reviews.push(tcp);
    }
    wait_until("both reviews analyse", Duration::from_secs(30), async || {
        metric(server.addr, "cpu_slots_busy").await == 2
    })
    .await;
    assert_eq!(metric(server.addr, "reviews_running").await, 2);
    // Their clients hang up: the reviews stop at once (finished, they would
    // take the whole `--review-secs`).
    drop(reviews);
    wait_for("the reviews stop", Duration::from_secs(5), async || match metric(server.addr, "reviews_running").await {
        0 => Ok(()),
        running => Err(running),
    })
    .await;
    wait_until("the slots are free", Duration::from_secs(5), async || metric(server.addr, "cpu_slots_busy").await == 0)
        .await;
    // A player's hint is answered, not `busy`.
    let (mut c, room, _) = hinter(&server).await;
    let h = tokio::time::timeout(Duration::from_secs(10), c.request(json!({"type": "hint", "room": room})))
        .await
        .expect("a hint is answered");
    assert_eq!(h["type"], "hint", "{h}");
    assert_eq!(metric(server.addr, "reviews_computed_total").await, 0, "no abandoned review was finished");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_review_from_one_address_is_refused_busy_with_a_retry_time() {
    let config = Config { review_time: Duration::from_secs(20), ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let game = long_game(&server).await;
    let from = [127, 0, 0, 4];
    let mut first = connect_from(from, server.addr).await;
    send_get(&mut first, &format!("/api/games/{game}/review?seat=0")).await;
    wait_until("the first review analyses", Duration::from_secs(30), async || {
        metric(server.addr, "cpu_slots_busy").await >= 1
    })
    .await;
    let mut second = connect_from(from, server.addr).await;
    send_get(&mut second, &format!("/api/games/{game}/review?seat=1")).await;
    let (status, head, body) =
        tokio::time::timeout(Duration::from_secs(5), read_answer(second)).await.expect("answered at once");
    assert_eq!(status, 503, "{head}\n{body}");
    assert!(head.to_ascii_lowercase().contains("retry-after: 20"), "{head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((&v["code"], &v["retry-after"]), (&json!("busy"), &json!(20)), "{v}");
    // Another address is not refused for it: its review starts.
    let mut other = connect_from([127, 0, 0, 5], server.addr).await;
    send_get(&mut other, &format!("/api/games/{game}/review?seat=1")).await;
    wait_until("the other address's review analyses", Duration::from_secs(30), async || {
        metric(server.addr, "cpu_slots_waiting").await + metric(server.addr, "cpu_slots_busy").await >= 2
    })
    .await;
    drop((first, other));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_computed_once_and_served_stored_by_another_server() {
    let db = temp_db();
    let mut first = TestServer::start_with(db.clone(), common::config()).await;
    let mut ana = first.guest().await;
    let room = ana.create_room(json!({"preset": "block", "seats": 2})).await;
    assert_eq!(ana.join(room, Some(0)).await, 0);
    let r = ana.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    ana.ready(room).await;
    let (_, over) = common::play_until_over(ana, room, 3).await;
    let game = over["game"].as_i64().expect("stored");
    let path = format!("/api/games/{game}/review?seat=0");
    let (status, review) = first.get(&path).await;
    assert_eq!(status, 200, "{review}");
    assert_eq!(metric(first.addr, "reviews_computed_total").await, 1);
    first.stop().await;

    let mut second = TestServer::start_with(db, common::config()).await;
    let (status, again) = second.get(&path).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, review, "the stored review, byte for byte");
    assert_eq!(metric(second.addr, "reviews_computed_total").await, 0, "served without analysing");
    second.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_search_slot_runs_one_search_at_a_time_and_every_bot_room_plays() {
    let config = Config { max_searches: 1, ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    // Rooms of four hosted searches each, watched.
    let mut watchers = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let mut c = server.guest().await;
        let room = c.create_room(json!({"preset": "latin"})).await;
        let r = c.request(json!({"type": "spectate", "room": room})).await;
        assert_eq!(r["type"], "spectating", "{r}");
        let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:ms=50"})).await;
        assert_eq!(r["type"], "ok", "{r}");
        // Each room has played a dozen moves (an `events` frame each) once
        // its watcher returns.
        watchers.spawn(async move {
            let mut seen = 0;
            while seen < 12 {
                let v = c.recv().await;
                if v["type"] == "events" {
                    seen += 1;
                }
            }
            c
        });
    }
    let mut most = (0, 0);
    let sampled = tokio::time::timeout(Duration::from_secs(120), async {
        while !watchers.is_empty() {
            let searches = metric(server.addr, "searches").await;
            let busy = metric(server.addr, "cpu_slots_busy").await;
            most = (most.0.max(searches), most.1.max(busy));
            assert!(searches <= 1 && busy <= 1, "{searches} searches, {busy} slots busy at once");
            while let Some(done) = watchers.try_join_next() {
                done.expect("a watcher");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    assert!(sampled.is_ok(), "every room plays a dozen moves within 120 s; {} left", watchers.len());
    assert_eq!(most, (1, 1), "a search was seen running");
}
