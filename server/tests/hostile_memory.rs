//! What a client can make the server hold in memory: a replay is answered
//! a bounded page at a time, one address has a bounded number of replay
//! answers in flight, and a connection's queue of unsent frames is bounded
//! in bytes, a `resync` replacing the same room's `sync` still queued.

mod common;

use std::net::SocketAddr;

use capicua_engine::{Game, Rules, Seat, Seating};
use capicua_protocol::OccupantKind;
use capicua_server::db::{GameRecord, HandResults, Play, SeatRecord};
use capicua_server::{Config, Db};
use common::{Client, TestServer, WAIT, config, temp_db, wait_for};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// Double-eighteen, 47 tiles to each of four seats: a view of this game
/// runs to kilobytes, and a hand to about 180 moves.
fn big_set(hands: u32) -> String {
    format!(
        "base = \"latin\"\nname = \"big\"\ntiles = {{ max-pip = 18 }}\n\
         deal = {{ hand-size = 47, rest = \"out-of-play\" }}\ntarget = {{ hands = {hands} }}\n"
    )
}

/// Stores a match of `big_set(hands)` played out by middle legal moves in
/// a fresh database: its path, the game's id and the game as played.
async fn stored_long_game(hands: u32) -> (std::path::PathBuf, i64, Game) {
    let path = temp_db();
    let db = Db::open(path.to_str().unwrap()).await.unwrap();
    let variant = capicua_engine::Variant::from_file_text("big.toml", &big_set(hands)).unwrap();
    let rules = Rules::new(variant.clone()).unwrap();
    let mut game = Game::new(rules.into(), Seating::new(4), 11).unwrap();
    while game.to_move().is_some() {
        let legal = game.legal_moves();
        game.play(legal[legal.len() / 2]).unwrap();
    }
    let room = db.create_room(&variant, 4, false).await.unwrap();
    let record = GameRecord {
        room_id: Some(room),
        play: Play::Tiles { variant, seating: Seating::new(4), moves: game.log().to_vec() },
        seed: 11,
        scores: game.scores().to_vec(),
        seat_scores: game.seat_scores().to_vec(),
        hands: HandResults::Tiles(game.hand_results().to_vec()),
        winner: game.outcome().and_then(|o| o.winner).map(|s| s.0),
        forfeit: None,
        seats: (0..4)
            .map(|i| SeatRecord {
                seat: i,
                side: i,
                player_id: None,
                name: format!("seat{i}"),
                kind: OccupantKind::Guest.into(),
            })
            .collect(),
        rated: false,
        timeouts: vec![0; 4],
        tournament: None,
    };
    let id = db.store_game(record).await.unwrap();
    db.close().await;
    (path, id, game)
}

/// Seat `seat`'s view after each move of `game`, replayed from its start.
fn views_of(game: &Game, seat: u8) -> Vec<Value> {
    let mut replay = Game::new(game.rules_arc().clone(), Seating::new(4), 11).unwrap();
    let mut views = vec![serde_json::to_value(replay.view(Seat(seat)).snapshot()).unwrap()];
    for &m in game.log() {
        replay.play(m).unwrap();
        views.push(serde_json::to_value(replay.view(Seat(seat)).snapshot()).unwrap());
    }
    views
}

/// A TCP connection that takes little before the server must wait for it
/// to read: a small receive window.
async fn small_window(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(addr).await.unwrap()
}

/// `GET path`: (status, `Retry-After`, body bytes).
async fn get_raw(addr: SocketAddr, path: &str) -> (u16, Option<String>, Vec<u8>) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let split = buf.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    };
    let mut body = buf[split + 4..].to_vec();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body);
    }
    (status, header("retry-after"), body)
}

fn dechunk(mut s: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let at = s.windows(2).position(|w| w == b"\r\n").expect("a chunk size");
        let n = usize::from_str_radix(std::str::from_utf8(&s[..at]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&s[at + 2..at + 2 + n]);
        s = &s[at + 2 + n + 2..];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_replay_comes_in_pages_bounded_in_bytes_that_join_to_the_whole_game() {
    let (path, id, game) = stored_long_game(3).await;
    let moves = game.log().len();
    assert!(moves > 400, "{moves} moves");
    let server = TestServer::start_with(path, config()).await;
    let want = views_of(&game, 0);
    let page_bytes = Config::default().replay_page_bytes;

    // Followed from `next`, the pages are each within the bound and join to
    // the whole match, view for view.
    let mut from = Some(0);
    let (mut steps, mut pages) = (Vec::new(), 0);
    let mut first: Option<Value> = None;
    while let Some(k) = from {
        let (status, _, body) = get_raw(server.addr, &format!("/api/games/{id}?seat=0&from={k}")).await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let page: Value = serde_json::from_slice(&body).unwrap();
        let these = page["steps"].as_array().unwrap();
        let bytes = serde_json::to_string(&page["steps"]).unwrap().len();
        assert!(bytes <= page_bytes, "page from {k}: {bytes} bytes of steps");
        assert!(body.len() <= page_bytes + 64 * 1024, "page from {k}: a body of {} bytes", body.len());
        assert!(!these.is_empty(), "page from {k} is empty");
        assert_eq!((page["from"].as_u64(), page["total-steps"].as_u64()), (Some(k), Some(moves as u64)));
        let mut head = page.clone();
        head.as_object_mut().unwrap().retain(|key, _| !["steps", "from", "next"].contains(&key.as_str()));
        match &first {
            None => first = Some(head),
            Some(f) => assert_eq!(&head, f, "every page has the same head"),
        }
        steps.extend(these.iter().cloned());
        pages += 1;
        from = page["next"].as_u64();
        if let Some(n) = from {
            assert_eq!(n as usize, k as usize + these.len(), "the next page starts after this one");
        }
    }
    assert!(pages >= 2, "{moves} moves of double-eighteen in {pages} page(s)");
    assert_eq!(steps.len(), moves);
    assert_eq!(first.unwrap()["start"], want[0]);
    for (k, step) in steps.iter().enumerate() {
        assert_eq!(step["view"], want[k + 1], "the view after move {}", k + 1);
    }

    // Smaller pages by `limit`, ending where the game does.
    let page = server.get_json(&format!("/api/games/{id}?seat=0&from={}&limit=7", moves - 3)).await;
    assert_eq!(page["steps"].as_array().unwrap().len(), 3);
    assert_eq!(page["next"], Value::Null);
    assert_eq!(page["steps"][2]["view"], want[moves]);
    let page = server.get_json(&format!("/api/games/{id}?seat=0&from=5&limit=7")).await;
    assert_eq!(page["steps"].as_array().unwrap().len(), 7);
    assert_eq!((page["next"].as_u64(), &page["steps"][0]["view"]), (Some(12), &want[6]));
    let end = server.get_json(&format!("/api/games/{id}?from={moves}")).await;
    assert_eq!((end["steps"].as_array().unwrap().len(), &end["next"]), (0, &Value::Null));

    // Out of range: the field at fault, as JSON.
    for (query, field) in
        [(format!("from={}", moves + 1), "from"), ("limit=0".into(), "limit"), ("limit=1001".into(), "limit")]
    {
        let (status, _, body) = get_raw(server.addr, &format!("/api/games/{id}?{query}")).await;
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, body["code"].as_str(), body["field"].as_str()),
            (400, Some("bad-request"), Some(field)),
            "{query}: {body}"
        );
    }
    let (status, _, body) = get_raw(server.addr, "/api/games/999999").await;
    assert_eq!((status, serde_json::from_slice::<Value>(&body).unwrap()["code"].clone()), (404, json!("no-such-game")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_gets_only_so_many_replays_at_once_and_the_next_is_refused() {
    // About 1,000 moves: a page of 1,000 steps of double-eighteen views is
    // megabytes, more than a socket that is not read takes in.
    let (path, id, _) = stored_long_game(6).await;
    let cfg = Config { replays_per_addr: 2, replay_page_bytes: 256 << 20, http_reads_per_min: 0, ..config() };
    let server = TestServer::start_with(path, cfg).await;
    let (_, _, page) = get_raw(server.addr, &format!("/api/games/{id}?seat=0")).await;
    assert!(page.len() > 6 << 20, "a page of {} bytes: a socket left unread could take it all in", page.len());
    // Each reader pipelines several requests: the kernel buffers a
    // socket's send side up to `tcp_wmem`'s maximum (4 MiB on a stock
    // Linux, more on tuned hosts), so one page could fit and free its slot; eight in a row
    // on a connection that is never read cannot.
    let request = format!("GET /api/games/{id}?seat=0 HTTP/1.1\r\nHost: test\r\n\r\n").repeat(8);
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut tcp = small_window(server.addr).await;
        tcp.write_all(request.as_bytes()).await.unwrap();
        // The answer has begun: this reader holds its slot, and does
        // before any probe below could take one and leave this reader's
        // pipelined requests all refused (a reader that holds nothing).
        let mut status = [0u8; 12];
        tokio::time::timeout(WAIT, tcp.read_exact(&mut status)).await.expect("a replay's answer begins").unwrap();
        assert_eq!(&status, b"HTTP/1.1 200", "{}", String::from_utf8_lossy(&status));
        held.push(tcp);
    }
    // A third, however small, is refused while those two are unread.
    let probe = format!("/api/games/{id}?limit=1");
    let (retry, body) = wait_for("a replay refused", WAIT, async || match get_raw(server.addr, &probe).await {
        (429, retry, body) => Ok((retry, body)),
        (status, _, _) => Err(status),
    })
    .await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["code"], "rate-limited", "{body}");
    assert!(body["message"].as_str().unwrap().contains("at most 2 replay requests"), "{body}");
    assert_eq!(retry.as_deref(), Some("1"));
    // A reader that leaves frees its slot.
    drop(held.pop());
    wait_for("a replay answered again", WAIT, async || match get_raw(server.addr, &probe).await {
        (200, _, body) => Ok(body),
        (status, _, _) => Err(status),
    })
    .await;
}

/// A WebSocket client on a small receive window, greeted as a guest.
async fn slow_reader(server: &TestServer) -> Client {
    let tcp = small_window(server.addr).await;
    let (ws, _) = tokio_tungstenite::client_async(server.url(), tokio_tungstenite::MaybeTlsStream::Plain(tcp))
        .await
        .expect("handshake");
    let mut c = Client::from_ws(ws);
    c.hello(None).await;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resync_spam_holds_one_sync_and_a_queue_over_its_bytes_is_closed_as_slow() {
    // Only the byte bound can close a connection here, and the rate limit
    // lets the spam through.
    let cfg = Config {
        outbound_buffer: 1_000_000,
        outbound_bytes: 256 * 1024,
        rate_per_sec: 1_000_000,
        rate_burst: 1_000_000,
        ..config()
    };
    let server = TestServer::start_with(temp_db(), cfg).await;
    let mut seat = slow_reader(&server).await;
    let spec = json!({"variant-file": big_set(2), "seats": 4, "time": {"move-ms": 600_000, "bank-ms": 0}});
    let room = seat.create_room(spec).await;
    seat.join(room, Some(0)).await;
    let r = seat.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    seat.ready(room).await;
    // The bots play up to seat 0's turn; then nothing moves.
    seat.recv_type("prompt").await;
    let mut watcher = slow_reader(&server).await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating", "{r}");

    // A spectator asks for the room's state again and again, reading none
    // of it: each `sync` replaces the one still queued, so it is never
    // over its bound and, once it reads, it gets what the socket took and
    // the latest `sync`.
    const SPAM: u64 = 20_000;
    let last = 1000 + SPAM - 1;
    for i in 0..SPAM {
        watcher
            .send_raw(Message::Text(json!({"type": "resync", "room": room, "id": 1000 + i}).to_string().into()))
            .await;
    }
    let (mut syncs, mut bytes) = (0u64, 0);
    loop {
        let f = watcher.recv().await;
        if f["type"] == "sync" {
            syncs += 1;
            bytes += f.to_string().len();
            if f["id"] == json!(last) {
                break;
            }
        }
    }
    assert!(syncs < SPAM / 2, "{syncs} syncs of {SPAM} ({bytes} bytes) were kept for a client that did not read");
    assert!(watcher.closed.is_none());

    // The seat asks too: its syncs replace each other, but each brings the
    // pending prompt again, and those pile up past the byte bound (long
    // before the bound in frames): it is closed as a slow consumer.
    for i in 0..SPAM {
        seat.send_raw(Message::Text(json!({"type": "resync", "room": room, "id": 1000 + i}).to_string().into())).await;
    }
    while seat.next_frame().await.is_some() {}
    assert_eq!(seat.closed, Some(capicua_protocol::close::SLOW_CONSUMER));
}
