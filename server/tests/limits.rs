//! What one client may take from a public server: rooms that nobody sits in
//! close, a creator holds a bounded number of open rooms, and the HTTP API
//! answers `429` to an address over its rate.

mod common;

use std::time::Duration;

use capicua_server::Config;
use common::{TestServer, temp_db, wait_until};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ADMIN: &str = "admin-secret";
const WAIT: Duration = Duration::from_secs(10);

async fn server(config: Config) -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..config }).await
}

/// Whether `GET /api/rooms` lists room `id`.
async fn listed(s: &TestServer, id: u64) -> bool {
    s.get_json("/api/rooms").await.as_array().unwrap().iter().any(|r| r["id"] == json!(id))
}

#[tokio::test]
async fn a_room_nobody_sits_in_closes_and_its_watchers_hear_it() {
    let s = server(Config { room_idle: Some(Duration::from_millis(300)), ..Config::default() }).await;
    let mut creator = s.guest().await;
    let room = creator.create_room(json!({"preset": "latin"})).await;
    let mut watcher = s.guest().await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    assert!(listed(&s, room).await);

    let closed = watcher.recv_type("room-closed").await;
    assert_eq!(closed["room"], json!(room));
    assert!(closed["reason"].as_str().unwrap().contains("nobody was seated"), "{closed}");
    wait_until("the lobby to drop the idle room", WAIT, async || !listed(&s, room).await).await;

    // A seated, connected player keeps its room open past the idle time:
    // the lobby still lists it after a room created later closed for idleness.
    let mut player = s.guest().await;
    let kept = player.create_room(json!({"preset": "latin"})).await;
    player.join(kept, None).await;
    let later = creator.create_room(json!({"preset": "latin"})).await;
    wait_until("the later, empty room to close", WAIT, async || !listed(&s, later).await).await;
    assert!(listed(&s, kept).await, "a room with a connected player stays open");
}

#[tokio::test]
async fn a_creator_holds_at_most_its_limit_of_open_rooms_on_both_paths() {
    let s = server(Config { max_rooms_per_owner: 2, ..Config::default() }).await;
    // Guests count by address: two connections from one address share it.
    let mut a = s.guest().await;
    let mut b = s.guest().await;
    let first = a.create_room(json!({"preset": "latin"})).await;
    b.create_room(json!({"preset": "latin"})).await;
    let r = a.request(json!({"type": "create-room", "preset": "latin"})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "too-many-rooms", "{r}");
    let (status, body) = s.post_json("/api/rooms", None, r#"{"preset": "latin"}"#).await;
    assert_eq!((status, &body["code"]), (429, &json!("too-many-rooms")), "{body}");

    // A registered player has slots of its own, over both paths.
    let (mut ana, token) = s.player("ana").await;
    ana.create_room(json!({"preset": "latin"})).await;
    let (status, body) = s.post_json("/api/rooms", Some(&token), r#"{"preset": "latin"}"#).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = s.post_json("/api/rooms", Some(&token), r#"{"preset": "latin"}"#).await;
    assert_eq!((status, &body["code"]), (429, &json!("too-many-rooms")), "{body}");
    let r = ana.request(json!({"type": "create-room", "preset": "latin"})).await;
    assert_eq!(r["code"], "too-many-rooms", "{r}");

    // The admin has no limit.
    for _ in 0..3 {
        let (status, body) = s.post_json("/api/rooms", Some(ADMIN), r#"{"preset": "latin"}"#).await;
        assert_eq!(status, 201, "{body}");
    }

    // Closing a room frees its slot.
    let mut admin = s.client().await;
    admin.hello(Some(ADMIN)).await;
    let r = admin.request(json!({"type": "close-room", "room": first})).await;
    assert_eq!(r["type"], "ok", "{r}");
    wait_until("the guests' address to get a slot back", WAIT, async || {
        s.post_json("/api/rooms", None, r#"{"preset": "latin"}"#).await.0 == 201
    })
    .await;
}

/// A raw HTTP/1.1 request: (status, lower-cased head, body).
async fn request(s: &TestServer, method: &str, path: &str, body: &str) -> (u16, String, String) {
    request_with(s, "", method, path, body).await
}

/// A raw HTTP/1.1 request with extra header lines (each ending in CRLF).
async fn request_with(s: &TestServer, headers: &str, method: &str, path: &str, body: &str) -> (u16, String, String) {
    let mut tcp = TcpStream::connect(s.addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tcp.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[tokio::test]
async fn the_http_api_answers_429_with_retry_after_to_an_address_over_its_rate() {
    let s = server(Config { http_writes_per_min: 3, http_reads_per_min: 5, ..Config::default() }).await;
    // Writes: bad requests count too (they cost the server all the same).
    for _ in 0..3 {
        let (status, _, body) = request(&s, "POST", "/api/rooms", "{").await;
        assert_eq!(status, 400, "{body}");
    }
    let (status, head, body) = request(&s, "POST", "/api/rooms", r#"{"preset": "latin"}"#).await;
    assert_eq!(status, 429, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "rate-limited", "{body}");
    let retry: u64 = head
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .unwrap_or_else(|| panic!("no Retry-After: {head}"))
        .trim()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&retry), "a write is back within 60/3 s: {retry}");
    // No room was created by the refused request.
    assert_eq!(s.get_json("/api/rooms").await, json!([]));

    // Reads have a bucket of their own (one read spent just above).
    for _ in 0..4 {
        let (status, _, body) = request(&s, "GET", "/api/variants", "").await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, head, _) = request(&s, "GET", "/api/leaderboard?variant=latin", "").await;
    assert_eq!(status, 429);
    assert!(head.contains("retry-after: "), "{head}");

    // The browser client's files, the health check and the WebSocket are
    // not API requests.
    for path in ["/", "/healthz"] {
        let (status, _, _) = request(&s, "GET", path, "").await;
        assert_eq!(status, 200, "{path}");
    }
    let mut guest = s.guest().await;
    let r = guest.request(json!({"type": "list-rooms"})).await;
    assert_eq!(r["type"], "rooms", "{r}");
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_rate() {
    let limited = Config { http_reads_per_min: 2, ..Config::default() };
    let from = |ip: &str| format!("X-Forwarded-For: {ip}\r\n");
    // The tests connect from 127.0.0.1: here that is the trusted proxy.
    let s = server(Config { trusted_proxies: vec!["127.0.0.1".parse().unwrap()], ..limited.clone() }).await;
    for _ in 0..2 {
        assert_eq!(request_with(&s, &from("203.0.113.5"), "GET", "/api/variants", "").await.0, 200);
    }
    assert_eq!(request_with(&s, &from("203.0.113.5"), "GET", "/api/variants", "").await.0, 429);
    // Another client through the same proxy, and one forging a header in
    // front of what the proxy appended, are counted apart.
    assert_eq!(request_with(&s, &from("203.0.113.6"), "GET", "/api/variants", "").await.0, 200);
    assert_eq!(request_with(&s, &from("203.0.113.5, 203.0.113.7"), "GET", "/api/variants", "").await.0, 200);

    // Untrusted, the header is the client's word and counts for nothing:
    // every request is the peer's.
    let s = server(limited).await;
    for _ in 0..2 {
        assert_eq!(request_with(&s, &from("203.0.113.5"), "GET", "/api/variants", "").await.0, 200);
    }
    let (status, _, body) = request_with(&s, &from("203.0.113.6"), "GET", "/api/variants", "").await;
    assert_eq!(status, 429, "{body}");
}
