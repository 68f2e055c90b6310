//! What one address, however many names and connections it uses, must not
//! make the server spend: rooms of bots its players left, games stored
//! without end, seats squatted in every waiting room, rows minted by
//! strategy specs, guessed tokens, tournament subscriptions, web pages of
//! other sites, private games. Each test attacks one bound at a small scale
//! (the figures at full scale: `examples/hostile.sh`).

mod common;

use std::time::Duration;

use capicua_server::Config;
use common::{TestServer, temp_db, wait_for, wait_until};
use serde_json::{Value, json};

const ADMIN: &str = "admin-secret-0123456789";
const WAIT: Duration = Duration::from_secs(20);

async fn server(config: Config) -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..config }).await
}

/// Whether `GET /api/rooms` lists room `id`.
async fn listed(s: &TestServer, id: u64) -> bool {
    s.get_json("/api/rooms").await.as_array().unwrap().iter().any(|r| r["id"] == json!(id))
}

/// The games `GET /api/games` lists (with `token`, if given).
async fn games(s: &TestServer, token: Option<&str>) -> Vec<Value> {
    let (status, body) = common::http_request(s.addr, "GET", "/api/games?limit=100", token, None).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body).unwrap().as_array().unwrap().clone()
}

#[tokio::test]
async fn a_room_of_bots_its_player_left_stands_still_and_closes() {
    let grace = Duration::from_millis(1500);
    let s = server(Config { unwatched_room: Some(grace), ..common::config() }).await;
    let mut player = s.guest().await;
    let room = player.create_room(json!({"preset": "latin"})).await;
    player.join(room, Some(0)).await;
    let r = player.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:samples=4:ms=40"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    player.ready(room).await;
    player.recv_type("game-started").await;
    // The player leaves its seat: the bots would play the match (and the
    // next, and the next) for nobody.
    let r = player.request(json!({"type": "leave", "room": room})).await;
    assert_eq!(r["type"], "left", "{r}");
    let left = tokio::time::Instant::now();
    wait_until("the room its player left to close", WAIT, async || !listed(&s, room).await).await;
    assert!(left.elapsed() >= grace - Duration::from_millis(100), "after its grace: {:?}", left.elapsed());
    assert!(games(&s, None).await.is_empty(), "no match was played out for nobody");
}

#[tokio::test]
async fn a_player_who_comes_back_wakes_the_room_it_stood_still_for() {
    let s = server(Config { unwatched_room: Some(Duration::from_secs(30)), ..common::config() }).await;
    let (mut ana, token) = s.player("ana").await;
    let room = ana.create_room(json!({"preset": "block", "seats": 2, "target": 1})).await;
    ana.join(room, Some(0)).await;
    let r = ana.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:samples=4:ms=40"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    ana.ready(room).await;
    ana.recv_type("game-started").await;
    // Her connection drops (a reload): nobody is connected to the room.
    drop(ana);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // She comes back within the grace: the match goes on, to its end.
    let mut back = s.client().await;
    back.hello(Some(&token)).await;
    let (_back, over) = common::play_until_over(back, room, 1).await;
    assert_eq!(over["type"], "game-over", "{over}");
}

/// Opens a room of `random` bots watched by `c` (a room of bots plays one
/// match); the room.
async fn watched_bots(c: &mut common::Client) -> u64 {
    let room = c.create_room(json!({"preset": "block", "seats": 2, "target": 50})).await;
    let r = c.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    room
}

#[tokio::test]
async fn a_creator_whose_games_filled_their_budget_starts_no_match() {
    // 1 KiB an hour: the first stored match spends it all.
    let s = server(Config { stored_kib_per_hour: 1, ..common::config() }).await;
    let mut creator = s.guest().await;
    watched_bots(&mut creator).await;
    let over = creator.recv_type("game-over").await;
    assert!(over["game"].is_i64(), "{over}");
    // The next room of the same creator starts no match.
    watched_bots(&mut creator).await;
    let refused = creator.recv_type("error").await;
    assert_eq!(refused["code"], "storage-budget", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("min"), "it says when: {refused}");
    assert_eq!(games(&s, None).await.len(), 1);
    // Another address has a budget of its own.
    let other: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let mut neighbour = common::Client::connect_from(other, s.addr).await.unwrap();
    neighbour.hello(None).await;
    watched_bots(&mut neighbour).await;
    let over = neighbour.recv_type("game-over").await;
    assert!(over["game"].is_i64(), "{over}");
    assert_eq!(games(&s, None).await.len(), 2);
}

#[tokio::test]
async fn the_names_of_one_address_share_its_rooms() {
    let s = server(Config { max_rooms_per_owner: 2, max_rooms_per_addr: 3, ..common::config() }).await;
    let (mut ana, _) = s.player("ana").await;
    let (mut ben, _) = s.player("ben").await;
    ana.create_room(json!({"preset": "latin"})).await;
    ana.create_room(json!({"preset": "latin"})).await;
    ben.create_room(json!({"preset": "latin"})).await;
    let r = ben.request(json!({"type": "create-room", "preset": "latin"})).await;
    assert_eq!(r["code"], "too-many-rooms", "ben's own limit is 2, the address's 3: {r}");
    assert!(r["message"].as_str().unwrap().contains("address"), "{r}");
}

#[tokio::test]
async fn an_address_holds_only_so_many_waiting_seats_and_a_creator_frees_a_squatted_one() {
    let s = server(Config { max_seats_per_addr: 2, ..common::config() }).await;
    let other: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let mut host = common::Client::connect_from(other, s.addr).await.unwrap();
    host.hello(None).await;
    let rooms: Vec<u64> = {
        let mut v = vec![];
        for _ in 0..3 {
            v.push(host.create_room(json!({"preset": "latin"})).await);
        }
        v
    };
    // A squatter takes a seat in every waiting room it finds.
    let mut squatter = s.guest().await;
    squatter.join(rooms[0], Some(1)).await;
    squatter.join(rooms[1], Some(1)).await;
    let r = squatter.request(json!({"type": "join", "room": rooms[2], "seat": 1})).await;
    assert_eq!(r["code"], "too-many-seats", "{r}");
    // The creator frees the seat; the squatter hears it.
    let r = host.request(json!({"type": "unseat", "room": rooms[0], "seat": 1})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let told = squatter.recv_type("unseated").await;
    assert_eq!((told["room"].as_u64(), told["seat"].as_u64()), (Some(rooms[0]), Some(1)), "{told}");
    // A friend takes it; the squatter's address has a place again.
    let mut friend = common::Client::connect_from(other, s.addr).await.unwrap();
    friend.hello(None).await;
    friend.join(rooms[0], Some(1)).await;
    squatter.join(rooms[2], Some(1)).await;
    // Only the creator may free a seat, and only before the match.
    let r = squatter.request(json!({"type": "unseat", "room": rooms[0], "seat": 1})).await;
    assert_eq!(r["code"], "unauthorized", "{r}");
    let r = host.request(json!({"type": "unseat", "room": rooms[0], "seat": 3})).await;
    assert_eq!(r["code"], "bad-request", "an empty seat: {r}");
}

#[tokio::test]
async fn a_rated_room_mints_no_bot_row_without_an_empty_seat_and_new_specs_count_as_names() {
    let s = server(Config { registrations_per_min: 2, ..common::config() }).await;
    let other: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let mut c = common::Client::connect_from(other, s.addr).await.unwrap();
    c.hello(None).await;
    let r = c.request(json!({"type": "register", "name": "ana"})).await;
    assert_eq!(r["type"], "registered", "{r}");
    let room = c.create_room(json!({"preset": "block", "seats": 2, "rated": true})).await;
    c.join(room, Some(0)).await;
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:samples=11"})).await;
    assert_eq!(r["type"], "ok", "one new name left: {r}");
    // Full now: no row for any other spec.
    for n in 2..6 {
        let r =
            c.request(json!({"type": "fill-bots", "room": room, "strategy": format!("pimc:samples={}", 10 + n)})).await;
        assert_eq!(r["code"], "seat-taken", "{r}");
    }
    // A second rated room: a new spec is a new name, over the address's rate.
    let second = c.create_room(json!({"preset": "block", "seats": 2, "rated": true})).await;
    c.join(second, Some(0)).await;
    let r = c.request(json!({"type": "fill-bots", "room": second, "strategy": "pimc:samples=99"})).await;
    assert_eq!(r["code"], "rate-limited", "{r}");
    // A spec that has its row already costs none.
    let r = c.request(json!({"type": "fill-bots", "room": second, "strategy": "pimc:samples=11"})).await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test]
async fn wrong_tokens_are_throttled_per_address_and_then_the_right_one_waits_too() {
    let s = server(Config { token_guesses_per_min: 3, ..common::config() }).await;
    for _ in 0..4 {
        let mut c = s.client().await;
        let r = c.request(json!({"type": "hello", "version": 2, "token": "guess"})).await;
        assert_eq!(r["code"], "bad-token", "{r}");
    }
    let mut c = s.client().await;
    let r = c.request(json!({"type": "hello", "version": 2, "token": ADMIN})).await;
    assert_eq!(r["code"], "rate-limited", "past its guesses the address tries no token: {r}");
    let (status, _) = common::http_request(s.addr, "GET", "/api/games", Some(ADMIN), None).await;
    assert_eq!(status, 429, "nor over HTTP");
    // Another address is not affected; the admin is no guest.
    let other: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let mut admin = common::Client::connect_from(other, s.addr).await.unwrap();
    let welcome = admin.hello(Some(ADMIN)).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert_eq!((welcome["player"]["admin"].as_bool(), welcome["player"]["guest"].as_bool()), (Some(true), Some(false)));
}

#[tokio::test]
async fn a_connection_follows_a_tournament_once_however_often_it_subscribes() {
    let s = server(common::config()).await;
    let spec = json!({
        "name": "quick", "seed": 1, "table": "duel", "variants": ["block"],
        "entrants": ["bot:random", "bot:random#2"], "stages": [{"format": "round-robin"}]
    });
    let path = "/api/tournaments?starts-at=2099-01-01T00:00:00Z";
    let (status, created) = s.post_json(path, Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let mut follower = s.guest().await;
    for _ in 0..5 {
        let r = follower.request(json!({"type": "subscribe-tournament", "tournament": id})).await;
        assert_eq!(r["type"], "tournament-progress", "{r}");
    }
    // One control: one event for the follower, not one per subscription.
    let (status, body) = s.post_json(&format!("/api/tournaments/{id}/pause"), Some(ADMIN), "{}").await;
    assert_eq!(status, 200, "{body}");
    let first = follower.recv_type("tournament-progress").await;
    assert_ne!(first["progress"]["kind"], "subscribed", "{first}");
    let more = tokio::time::timeout(Duration::from_millis(500), follower.recv_type("tournament-progress")).await;
    assert!(more.is_err(), "a second copy of the event: {more:?}");
    // A flood of subscriptions is slowed: the bucket of requests that read
    // the database.
    let mut refused = 0;
    for _ in 0..40 {
        let r = follower.request(json!({"type": "subscribe-tournament", "tournament": id})).await;
        if r["code"] == "rate-limited" {
            refused += 1;
        }
    }
    assert!(refused > 0, "40 subscriptions at once were all read from the database");
}

#[tokio::test]
async fn a_page_of_another_site_cannot_open_the_websocket() {
    let s = server(Config {
        cors: capicua_server::CorsOrigins::parse(&["https://club.example"]).unwrap(),
        ..common::config()
    })
    .await;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let with_origin = |origin: &str| {
        let mut req = s.url().into_client_request().unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        req
    };
    let refused = tokio_tungstenite::connect_async(with_origin("https://evil.example")).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("another site's page opened the socket: {other:?}"),
    }
    // The server's own pages, the configured origin, and bots (no origin).
    let own = format!("http://{}", s.addr);
    assert!(tokio_tungstenite::connect_async(with_origin(&own)).await.is_ok(), "its own page");
    assert!(tokio_tungstenite::connect_async(with_origin("https://club.example")).await.is_ok(), "--cors-origin");
    assert!(tokio_tungstenite::connect_async(s.url()).await.is_ok(), "a bot");
}

#[tokio::test]
async fn the_addresses_of_one_ipv6_subscriber_are_one_address() {
    let s = server(Config {
        max_rooms_per_owner: 2,
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..common::config()
    })
    .await;
    let create = async |from: &str| {
        let mut tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
        let body = r#"{"preset":"block","seats":2}"#;
        let req = format!(
            "POST /api/rooms HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {from}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        tcp.read_to_string(&mut out).await.unwrap();
        out[9..12].parse::<u16>().unwrap()
    };
    assert_eq!(create("2001:db8:1:2::1").await, 201);
    assert_eq!(create("2001:db8:1:2::2").await, 201);
    assert_eq!(create("2001:db8:1:2:ffff::3").await, 429, "a third address of the same /64");
    assert_eq!(create("2001:db8:1:3::1").await, 201, "another /64");
}

#[tokio::test]
async fn a_private_rooms_games_are_listed_to_nobody_and_replayed_with_its_invite() {
    let s = server(common::config()).await;
    let mut host = s.guest().await;
    let r =
        host.request(json!({"type": "create-room", "preset": "block", "seats": 2, "target": 1, "private": true})).await;
    let (room, invite) = (r["room"]["id"].as_u64().unwrap(), r["room"]["invite"].as_str().unwrap().to_string());
    let r = host.request(json!({"type": "spectate", "invite": invite})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    let r = host.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let over = host.recv_type("game-over").await;
    let game = over["game"].as_i64().expect("stored");
    assert!(games(&s, None).await.is_empty(), "listed to a stranger");
    assert_eq!(games(&s, Some(ADMIN)).await.len(), 1, "the admin sees it");
    let (status, body) = s.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 404, "a stranger's replay: {body}");
    let (status, _) = s.get(&format!("/api/games/{game}/review?seat=0")).await;
    assert_eq!(status, 404, "a stranger's review");
    let (status, body) = s.get(&format!("/api/games/{game}?key={invite}")).await;
    assert_eq!(status, 200, "with the invite: {body}");
    let (status, _) = s.get(&format!("/api/games/{game}?key=00000000-0000-4000-8000-000000000000")).await;
    assert_eq!(status, 404, "with another key");
    let replay = wait_for("the admin's replay", WAIT, async || {
        let (status, body) =
            common::http_request(s.addr, "GET", &format!("/api/games/{game}"), Some(ADMIN), None).await;
        if status == 200 { Ok(body) } else { Err(status) }
    })
    .await;
    assert!(replay.contains("\"steps\""), "{replay}");
}
