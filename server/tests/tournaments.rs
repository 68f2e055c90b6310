//! Tournaments on a real server (port 0, real WebSockets): the HTTP API and
//! its errors, no-shows and clock forfeits. (Remote bot clients playing a
//! tournament are tested with the bot client, in `bot-client/tests`.)

mod common;

use std::net::SocketAddr;

use capicua_server::Config;
use common::{TestServer, WAIT, temp_db, wait_for};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ADMIN: &str = "s3cret";

/// A minimal HTTP/1.1 POST: (status, body).
async fn http_post(addr: SocketAddr, path: &str, token: Option<&str>, content_type: &str, body: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: {content_type}\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// Waits for tournament `id` to finish (it must not fail) and returns its detail.
async fn finished(server: &TestServer, id: i64, what: &str) -> Value {
    wait_for(what, WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(d) } else { Err(d) }
    })
    .await
}

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

#[tokio::test]
async fn tournament_http_and_websocket_errors_are_machine_readable() {
    let mut server = admin_server().await;
    let (_ana, _) = server.player("ana").await;
    let good = "name = \"t\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"ana\", \"bot:random\"]\n[[stages]]\nformat = \"knockout\"\n";
    let (s, e) = http_post(server.addr, "/api/tournaments", None, "text/plain", good).await;
    assert_eq!((s, e["code"].as_str()), (401, Some("unauthorized")), "{e}");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some("wrong"), "text/plain", good).await;
    assert_eq!((s, e["code"].as_str()), (401, Some("bad-token")), "{e}");

    let bad_field = good.replace("knockout", "swiss");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "text/plain", &bad_field).await;
    assert_eq!(
        (s, e["code"].as_str(), e["field"].as_str()),
        (400, Some("bad-tournament"), Some("stages[0].rounds")),
        "{e}"
    );
    let unknown = good.replace("\"ana\"", "\"zoe\"");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "text/plain", &unknown).await;
    assert_eq!((s, e["field"].as_str()), (400, Some("entrants[0]")), "{e}");
    let no_strategy = good.replace("bot:random", "bot:nope");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "text/plain", &no_strategy).await;
    assert_eq!((s, e["field"].as_str()), (400, Some("entrants[1]")), "{e}");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "text/plain", "name = ").await;
    assert_eq!((s, e["code"].as_str()), (400, Some("bad-tournament")), "{e}");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", "{\"name\": 3}").await;
    assert_eq!((s, e["code"].as_str()), (400, Some("bad-tournament")), "{e}");

    for path in ["/api/tournaments/77", "/api/tournaments/77/standings"] {
        let (s, body) = server.get(path).await;
        let e: Value = serde_json::from_str(&body).unwrap();
        assert_eq!((s, e["code"].as_str()), (404, Some("no-such-tournament")), "{path}: {body}");
    }
    // Malformed paths and queries get the API's JSON errors too.
    for path in ["/api/tournaments/x", "/api/tournaments/1?from-round=-1", "/api/tournaments/1?round=2", "/api/games/x"]
    {
        let (s, body) = server.get(path).await;
        let e: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{path}: not JSON: {body}"));
        assert_eq!((s, e["code"].as_str()), (400, Some("bad-request")), "{path}: {body}");
    }
    assert_eq!(server.get_json("/api/tournaments").await, json!([]));

    let mut guest = server.guest().await;
    let r = guest.request(json!({"type": "await-assignments"})).await;
    assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("unauthorized")), "{r}");
    let r = guest.request(json!({"type": "subscribe-tournament", "tournament": 77})).await;
    assert_eq!(r["code"], "no-such-tournament", "{r}");

    // A good spec is created and (hosted bot against a player who never
    // comes) waits at its table; the reserved seat refuses other players.
    let (s, created) = http_post(server.addr, "/api/tournaments", Some(ADMIN), "text/plain", good).await;
    assert_eq!(s, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (mut ben, _) = server.player("ben").await;
    let room = wait_for("the tournament's table to get a room", WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        d["rounds"][0]["tables"][0]["room"].as_u64().ok_or(d)
    })
    .await;
    let r = ben.request(json!({"type": "join", "room": room})).await;
    assert_eq!(r["code"], "unauthorized", "{r}");
    let r = ben.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "error", "{r}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrant_who_never_comes_forfeits_after_the_no_show_time() {
    let server = admin_server().await;
    // Registered, but never connects.
    let (c, _token) = server.player("zoe").await;
    drop(c);
    let spec = json!({
        "name": "no-show", "seed": 1, "table": "duel", "variants": ["block"],
        "entrants": ["zoe", "bot:random"],
        "stages": [{"format": "round-robin"}],
        "clock": {"move-ms": 2000, "no-show-secs": 1}
    });
    let (status, created) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let detail = finished(&server, id, "zoe's table to be forfeited and the tournament to finish").await;
    assert_eq!(detail["winners"], json!(["bot:random"]), "{detail}");
    let table = &detail["rounds"][0]["tables"][0];
    let game = table["game"].as_i64().expect("the forfeit is a stored game");
    let replay = server.get_json(&format!("/api/games/{game}")).await;
    let zoe = replay["seats"].as_array().unwrap().iter().position(|s| s["kind"] == "empty").expect("zoe's seat");
    assert_eq!(replay["forfeit"], zoe, "{replay}");
    // A clock out of range is refused with the field named.
    let bad = json!({
        "name": "bad clock", "table": "duel", "variants": ["block"], "entrants": ["zoe", "bot:random"],
        "stages": [{"format": "round-robin"}], "clock": {"no-show-secs": 0}
    });
    let (status, e) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &bad.to_string()).await;
    assert_eq!((status, e["field"].as_str()), (400, Some("clock.no-show-secs")), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_clock_can_forfeit_a_seat_that_runs_out_of_time() {
    let server = admin_server().await;
    let (mut tim, _token) = server.player("tim").await;
    let spec = json!({
        "name": "blitz", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": ["tim", "bot:random"],
        "stages": [{"format": "round-robin"}],
        "clock": {"move-ms": 300, "on-timeout": {"kind": "forfeit"}}
    });
    let (status, created) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    // Tim sits down and says ready, then never answers a prompt.
    assert_eq!(tim.request(json!({"type": "await-assignments"})).await["type"], "awaiting");
    let a = tim.recv_type("assignment").await;
    let (room, seat) = (a["room"].as_u64().unwrap(), a["seat"].as_u64().unwrap());
    tim.join(room, Some(seat as u8)).await;
    tim.ready(room).await;
    let over = tim.recv_type("game-over").await;
    assert_eq!(over["result"]["forfeit"], seat, "{over}");
    let detail = finished(&server, id, "the tournament to finish after tim's forfeit").await;
    assert_eq!(detail["winners"], json!(["bot:random"]), "{detail}");
    // An unknown timeout strategy is refused when the tournament is created.
    let mut bad = spec.clone();
    bad["clock"]["on-timeout"] = json!({"kind": "strategy", "name": "nope"});
    let (status, e) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &bad.to_string()).await;
    assert_eq!((status, e["field"].as_str()), (400, Some("clock.on-timeout")), "{e}");
}
