//! What an anonymous, hostile client must not do to a public server: fill
//! someone else's seats, burn the CPU on rooms of bots nobody watches, mint
//! names without end, or hold descriptors with connections that never
//! speak. Each test attacks one bound at a small scale and checks that it
//! holds (the figures at full scale: `examples/hostile.sh`).

mod common;

use std::time::Duration;

use capicua_server::Config;
use common::{TestServer, temp_db, wait_until};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ADMIN: &str = "admin-secret";
const WAIT: Duration = Duration::from_secs(20);

async fn server(config: Config) -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..config }).await
}

fn seats_taken(info: &Value) -> usize {
    info["seats"].as_array().unwrap().iter().filter(|s| !s["occupant"].is_null()).count()
}

#[tokio::test]
async fn only_the_creator_a_seated_player_or_the_admin_fills_seats() {
    let s = server(common::config()).await;
    // A player waits in a public room it created and sits in.
    let mut owner = s.guest().await;
    let open = owner.create_room(json!({"preset": "latin"})).await;
    owner.join(open, Some(0)).await;
    // A stranger, seated nowhere, tries to fill it by its number.
    let mut stranger = s.guest().await;
    let r = stranger.request(json!({"type": "fill-bots", "room": open, "strategy": "pimc"})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "not-seated", "{r}");
    assert_eq!(seats_taken(&s.room_info(open).await), 1, "the stranger seated no bot");

    // A private room: the stranger cannot even reach it by its number.
    let private = owner.create_room(json!({"preset": "latin", "private": true})).await;
    let r = stranger.request(json!({"type": "fill-bots", "room": private, "strategy": "random"})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "invite-only", "a stranger learns nothing of a private room: {r}");

    // A player who joined (as anyone may, in a public room) may fill the rest.
    let mut friend = s.guest().await;
    let created_by_friend = friend.create_room(json!({"preset": "latin"})).await;
    let mut joiner = s.guest().await;
    joiner.join(created_by_friend, None).await;
    let r = joiner.request(json!({"type": "fill-bots", "room": created_by_friend, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "a seated player fills: {r}");

    // The creator may fill its own room without sitting in it (to watch
    // bots play), and so may the admin any room.
    let watched = owner.create_room(json!({"preset": "latin"})).await;
    let r = owner.request(json!({"type": "fill-bots", "room": watched, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "the creator fills: {r}");
    let mut admin = s.client().await;
    admin.hello(Some(ADMIN)).await;
    let r = admin.request(json!({"type": "fill-bots", "room": open, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "the admin fills: {r}");
}

#[tokio::test]
async fn a_registered_creator_keeps_the_right_and_a_rated_room_is_not_started_by_a_stranger() {
    let s = server(common::config()).await;
    let (mut ana, _) = s.player("ana").await;
    let rated = ana.create_room(json!({"preset": "latin", "rated": true})).await;
    ana.join(rated, Some(0)).await;
    let (mut eve, _) = s.player("eve").await;
    let r = eve.request(json!({"type": "fill-bots", "room": rated, "strategy": "pimc"})).await;
    assert_eq!(r["code"], "not-seated", "{r}");
    let info = s.room_info(rated).await;
    assert_eq!(info["status"], "waiting", "no match started against ana's will: {info}");
    assert_eq!(seats_taken(&info), 1);
}

#[tokio::test]
async fn a_room_of_bots_alone_plays_only_while_someone_watches_and_then_closes() {
    let grace = Duration::from_millis(1500);
    let s = server(Config { unwatched_room: Some(grace), ..common::config() }).await;
    let mut creator = s.guest().await;
    // A search slow enough that a match lasts while we look at it.
    let room = creator.create_room(json!({"preset": "latin"})).await;
    let r = creator.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:samples=4:ms=40"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    // Seats all bots, nobody watching: the match does not start.
    let info = s.room_info(room).await;
    assert_eq!(info["status"], "waiting", "an unwatched room of bots stands still: {info}");

    // A spectator arrives: the match starts and moves are played.
    let mut watcher = s.guest().await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let started = watcher.recv_type("game-started").await;
    assert_eq!(started["room"], json!(room));
    watcher.recv_type("events").await;

    // The watcher leaves: the room closes once the grace has passed.
    let r = watcher.request(json!({"type": "leave", "room": room})).await;
    assert_eq!(r["type"], "left", "{r}");
    let left = tokio::time::Instant::now();
    wait_until("the unwatched room of bots to close", WAIT, async || {
        !s.get_json("/api/rooms").await.as_array().unwrap().iter().any(|r| r["id"] == json!(room))
    })
    .await;
    assert!(left.elapsed() >= grace - Duration::from_millis(100), "closed only after its grace: {:?}", left.elapsed());
}

#[tokio::test]
async fn the_admins_room_of_bots_plays_with_nobody_watching() {
    let s = server(Config { unwatched_room: Some(Duration::from_secs(30)), ..common::config() }).await;
    let mut admin = s.client().await;
    admin.hello(Some(ADMIN)).await;
    let room = admin.create_room(json!({"preset": "latin", "target": 20})).await;
    let r = admin.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    wait_until("the admin's unwatched match to be stored", WAIT, async || {
        s.get_json("/api/games").await.as_array().is_some_and(|g| !g.is_empty())
    })
    .await;
}

#[tokio::test]
async fn an_address_registers_a_bounded_number_of_names_a_minute() {
    let s = server(Config { registrations_per_min: 3, ..common::config() }).await;
    let mut c = s.guest().await;
    for i in 0..3 {
        let mut c = s.guest().await;
        let r = c.request(json!({"type": "register", "name": format!("name{i}")})).await;
        assert_eq!(r["type"], "registered", "{r}");
    }
    let r = c.request(json!({"type": "register", "name": "onemore"})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "rate-limited", "{r}");
    assert!(r["message"].as_str().unwrap().contains("retry in"), "{r}");
}

/// Reads until the server closes the socket; how long that took.
async fn closed_within(mut tcp: TcpStream, limit: Duration) -> Duration {
    let start = tokio::time::Instant::now();
    let mut buf = [0u8; 1024];
    let r = tokio::time::timeout(limit, async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(r.is_ok(), "the server kept the connection open past {limit:?}");
    start.elapsed()
}

#[tokio::test]
async fn silent_and_slowloris_connections_are_closed_at_the_header_timeout() {
    let s = server(Config { header_timeout: Duration::from_secs(1), ..common::config() }).await;
    // A TCP connection that never sends a byte.
    let silent = TcpStream::connect(s.addr).await.unwrap();
    let took = closed_within(silent, WAIT).await;
    assert!(took >= Duration::from_millis(900), "not before the timeout: {took:?}");

    // Headers a byte every 200 ms: each byte arrives in time, the whole
    // never does.
    let mut slow = TcpStream::connect(s.addr).await.unwrap();
    slow.write_all(b"GET /api/rooms HTTP/1.1\r\n").await.unwrap();
    let drip = tokio::spawn(async move {
        for _ in 0..100 {
            if slow.write_all(b"X").await.is_err() {
                return slow;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        slow
    });
    let slow = drip.await.unwrap();
    closed_within(slow, Duration::from_secs(1)).await;

    // A keep-alive connection that goes idle after a request is closed too.
    let mut idle = TcpStream::connect(s.addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 512];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    closed_within(idle, WAIT).await;
}

#[tokio::test]
async fn a_websocket_that_never_says_hello_or_goes_silent_is_closed_with_its_code() {
    let s = server(Config {
        hello_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(2),
        ..common::config()
    })
    .await;
    let mut mute = s.client().await;
    let err = mute.recv().await;
    assert_eq!(err["code"], "hello-required", "{err}");
    assert_eq!(mute.closed_with().await, capicua_protocol::close::TIMED_OUT);

    // A client that reads (and so answers the server's pings) stays past
    // twice the idle timeout without sending a frame of its own.
    let mut live = s.guest().await;
    let quiet = tokio::time::timeout(Duration::from_secs(5), live.recv_untimed()).await;
    assert!(quiet.is_err(), "nothing was sent to an idle client: {quiet:?}");
    let r = live.request(json!({"type": "ping"})).await;
    assert_eq!(r["type"], "pong", "{r}");

    // A client that stops reading stops answering pings: closed.
    let mut dead = s.guest().await;
    let hung = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    // What it finds when it reads again: an error, then the close.
    let err = dead.recv().await;
    assert_eq!(err["type"], "error", "{err}");
    assert_eq!(dead.closed_with().await, capicua_protocol::close::TIMED_OUT);
    assert!(hung.elapsed() < WAIT);
}

/// Sends one HTTP/1.1 request on a fresh connection; the status and body.
async fn one_request(addr: std::net::SocketAddr, path: &str, token: Option<&str>) -> (u16, String) {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(WAIT, tcp.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

#[tokio::test]
async fn an_address_holds_a_bounded_number_of_connections_and_the_probes_still_answer() {
    let s = server(Config { max_connections_per_addr: 5, header_timeout: Duration::from_secs(60), ..common::config() })
        .await;
    let (status, _) = one_request(s.addr, "/api/rooms", None).await;
    assert_eq!(status, 200);
    // Five silent connections hold the address's share.
    let mut held = vec![];
    for _ in 0..5 {
        held.push(TcpStream::connect(s.addr).await.unwrap());
    }
    // Wait until the server has taken all five (the accept loop runs apart).
    wait_until("the next request to be refused", WAIT, async || one_request(s.addr, "/api/rooms", None).await.0 == 503)
        .await;
    let (status, body) = one_request(s.addr, "/api/rooms", None).await;
    assert_eq!(status, 503, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "too-many-connections", "{body}");
    // The reserve still answers the health probe and the admin.
    let (status, body) = one_request(s.addr, "/healthz", None).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = one_request(s.addr, "/api/rooms", Some(ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    // A WebSocket over the cap is refused as well.
    assert!(tokio_tungstenite::connect_async(format!("ws://{}/ws", s.addr)).await.is_err());

    drop(held);
    wait_until("the address to be served again", WAIT, async || one_request(s.addr, "/api/rooms", None).await.0 == 200)
        .await;
}

#[tokio::test]
async fn wrong_methods_large_bodies_and_bad_utf8_get_the_documented_errors() {
    let s = server(common::config()).await;
    // A method the path does not take: 405 with the error shape.
    let (status, body) = common::http_request(s.addr, "DELETE", "/api/rooms", None, None).await;
    assert_eq!(status, 405, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert_eq!(v["code"], "bad-request", "{v}");
    assert!(v["message"].as_str().unwrap().contains("DELETE"), "{v}");
    // A room spec far over the body limit: 413 with the error shape.
    let big = format!("{{\"preset\": \"latin\", \"pad\": \"{}\"}}", "x".repeat(300 * 1024));
    let (status, body) = common::http_request(s.addr, "POST", "/api/rooms", None, Some(&big)).await;
    assert_eq!(status, 413, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert_eq!(v["code"], "bad-request", "{v}");

    // A text frame that is not UTF-8: an error, then close 1007.
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let mut c = s.guest().await;
    c.send_raw(Message::Frame(Frame::message(vec![0xff, 0xfe, 0x7b], OpCode::Data(Data::Text), true))).await;
    let err = c.recv().await;
    assert_eq!(err["code"], "bad-json", "{err}");
    assert_eq!(c.closed_with().await, capicua_protocol::close::INVALID_DATA);
}

#[tokio::test]
async fn a_crowd_is_bounded_and_so_is_what_its_chat_costs() {
    let s = server(Config { max_spectators: 3, ..common::config() }).await;
    let mut host = s.guest().await;
    let room = host.create_room(json!({"preset": "latin"})).await;
    host.join(room, Some(0)).await;
    let mut crowd = vec![];
    for _ in 0..3 {
        let mut c = s.guest().await;
        let r = c.request(json!({"type": "spectate", "room": room})).await;
        assert_eq!(r["type"], "spectating", "{r}");
        crowd.push(c);
    }
    let mut late = s.guest().await;
    let r = late.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["code"], "seat-taken", "the room holds its most spectators: {r}");

    // Each spectator sends its own burst of lines: the room lets through
    // its burst for all of them together, not each one's.
    let (mut sent, mut refused) = (0, 0);
    for c in &mut crowd {
        for i in 0..capicua_protocol::CHAT_BURST {
            let r = c.request(json!({"type": "chat", "room": room, "text": format!("line {i}")})).await;
            match r["type"].as_str() {
                Some("ok") => sent += 1,
                _ => {
                    assert_eq!(r["code"], "rate-limited", "{r}");
                    refused += 1;
                }
            }
        }
    }
    let burst = capicua_protocol::ROOM_CHAT_BURST as usize;
    assert!(sent >= burst && sent <= burst + 2, "{sent} lines went out (room burst {burst})");
    assert!(refused > 0);
}

#[tokio::test]
async fn a_websocket_counts_against_its_address_until_it_closes() {
    let s = server(Config { max_connections_per_addr: 4, ..common::config() }).await;
    // Four greeted sockets hold the address's share, though their HTTP
    // connections were handed over to the WebSocket long ago.
    let mut open = vec![];
    for _ in 0..4 {
        open.push(s.guest().await);
    }
    for _ in 0..3 {
        assert!(tokio_tungstenite::connect_async(s.url()).await.is_err(), "a fifth WebSocket from the address");
    }
    let (status, body) = one_request(s.addr, "/api/rooms", None).await;
    assert_eq!(status, 503, "and a fifth HTTP connection: {body}");
    // The reserve still answers the probe; another address is served.
    assert_eq!(one_request(s.addr, "/healthz", None).await.0, 200);
    let other: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let mut neighbour = common::Client::connect_from(other, s.addr).await.expect("another address connects");
    assert_eq!(neighbour.hello(None).await["type"], "welcome");
    // A socket that closes gives its place back.
    drop(open.pop());
    wait_until("the address's freed place to be taken", WAIT, async || {
        tokio_tungstenite::connect_async(s.url()).await.is_ok()
    })
    .await;
}

#[tokio::test]
async fn a_message_in_fragments_is_refused_as_it_grows_past_the_frame_limit() {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let s = server(common::config()).await;
    let mut c = s.guest().await;
    // A text message that never ends: 16 KiB fragments, none final, a
    // ping between them (a ping is traffic, so the idle timeout would
    // never close it).
    let chunk = vec![b'x'; 16 * 1024];
    c.send_raw(Message::Frame(Frame::message(chunk.clone(), OpCode::Data(Data::Text), false))).await;
    for _ in 0..8 {
        c.send_raw(Message::Ping(vec![1].into())).await;
        c.send_raw(Message::Frame(Frame::message(chunk.clone(), OpCode::Data(Data::Continue), false))).await;
    }
    let err = c.recv().await;
    assert_eq!(err["code"], "frame-too-large", "refused before 128 KiB arrived: {err}");
    assert_eq!(c.closed_with().await, capicua_protocol::close::TOO_BIG);
}

#[tokio::test]
async fn pings_count_against_the_rate_and_a_flood_of_them_is_closed() {
    use tokio_tungstenite::tungstenite::Message;
    let s = server(Config { rate_per_sec: 50, rate_burst: 100, flood_limit: 200, ..common::config() }).await;
    let mut c = s.guest().await;
    // Each ping costs the server a pong: 2,000 at once are a flood.
    for i in 0..2000u32 {
        c.send_raw(Message::Ping(i.to_be_bytes().to_vec().into())).await;
    }
    let err = c.recv().await;
    assert_eq!(err["code"], "rate-limited", "{err}");
    assert_eq!(c.closed_with().await, capicua_protocol::close::FLOOD);
}
