//! Hosted bots are named by clients: their specs never read the server's
//! disk, their searches stay within the operator's caps, and a search stops
//! when its room goes.

mod common;

use std::time::Duration;

use capicua_server::Config;
use capicua_strategy::SearchCaps;
use common::{TestServer, http_get, temp_db, wait_until};
use serde_json::json;

/// A spec file an attacker hopes the server reads: it holds a valid spec,
/// so a server that reads it would accept the bots.
fn spec_file() -> String {
    let path = std::env::temp_dir().join(format!("capicua-hosted-{}.spec", std::process::id()));
    std::fs::write(&path, "random\n").unwrap();
    format!("@{}", path.display())
}

#[tokio::test]
async fn specs_from_the_network_never_name_files() {
    let server = TestServer::start().await;
    let at = spec_file();
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin"})).await;
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": at})).await;
    assert_eq!(r["code"], "unknown-strategy", "{r}");
    assert!(r["message"].as_str().unwrap().contains("cannot name files"), "{r}");
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "@/dev/zero"})).await;
    assert_eq!(r["code"], "unknown-strategy", "{r}");

    let spec = json!({"type": "create-room", "preset": "latin", "on-timeout": {"kind": "strategy", "name": at}});
    let r = c.request(spec).await;
    assert_eq!(r["code"], "unknown-strategy", "{r}");

    let body = json!({"preset": "latin", "on-timeout": {"kind": "strategy", "name": at}}).to_string();
    let (status, r) = server.post_json("/api/rooms", None, &body).await;
    assert_eq!(status, 400, "{r}");
    assert_eq!(r["field"], "on-timeout", "{r}");
    assert!(r["message"].as_str().unwrap().contains("cannot name files"), "{r}");
}

#[tokio::test]
async fn searches_above_the_caps_are_refused_with_the_cap() {
    let caps = SearchCaps { samples: 300, iterations: 900, ..Default::default() };
    let server = TestServer::start_with(temp_db(), Config { bot_caps: caps, ..common::config() }).await;
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin"})).await;
    for spec in
        ["pimc:samples=301", "ismcts:iterations=901", "pimc:ms=2001", "random while stock > 1 else pimc:samples=400"]
    {
        let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": spec})).await;
        assert_eq!(r["code"], "unknown-strategy", "{spec}: {r}");
        assert!(r["message"].as_str().unwrap().contains("at most"), "{spec}: {r}");
    }
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "pimc:samples=300"})).await;
    assert_eq!(r["type"], "ok", "{r}");
}

/// The `oracle` reads every hand: no room (casual or rated) seats it, no
/// clock plays for it, no tournament enters it.
#[tokio::test]
async fn a_strategy_that_sees_every_hand_is_never_hosted() {
    let server =
        TestServer::start_with(temp_db(), Config { admin_token: Some("s3cret".into()), ..common::config() }).await;
    let refused = |r: &serde_json::Value| {
        assert_eq!(r["code"], "unknown-strategy", "{r}");
        assert!(r["message"].as_str().unwrap().contains("sees every hand"), "{r}");
    };
    let (mut ana, _) = server.player("ana").await;
    for rated in [false, true] {
        let room = ana.create_room(json!({"preset": "latin", "rated": rated})).await;
        for spec in ["oracle", "oracle:nodes=10", "random while stock > 1 else oracle", "cheater:inner=oracle"] {
            refused(&ana.request(json!({"type": "fill-bots", "room": room, "strategy": spec})).await);
        }
    }
    let r = ana.request(
        json!({"type": "create-room", "preset": "latin", "on-timeout": {"kind": "strategy", "name": "oracle"}}),
    );
    refused(&r.await);

    let tournament = json!({"name": "t", "table": "duel", "variants": ["block"],
        "entrants": ["bot:random", "bot:oracle"], "stages": [{"format": "round-robin"}]});
    let (status, r) = server.post_json("/api/tournaments", Some("s3cret"), &tournament.to_string()).await;
    assert_eq!((status, r["field"].as_str()), (400, Some("entrants[1]")), "{r}");
    assert!(r["message"].as_str().unwrap().contains("sees every hand"), "{r}");
}

/// The `capicua_searches` gauge of the server at `addr`.
async fn searches(addr: std::net::SocketAddr) -> i64 {
    let (_, text) = http_get(addr, "/metrics").await;
    text.lines().find_map(|l| l.strip_prefix("capicua_searches ")).expect("searches gauge").trim().parse().unwrap()
}

/// Four bots that would each think for an hour a move: closing the room
/// frees their thread at once, and so does shutting the server down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_room_stops_its_searches() {
    let caps = SearchCaps { samples: u32::MAX, time: Duration::from_secs(3600), ..Default::default() };
    let config = Config { bot_caps: caps, admin_token: Some("admin-secret".into()), ..common::config() };
    let mut server = TestServer::start_with(temp_db(), config).await;
    let endless = "pimc:samples=4000000000";
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin"})).await;
    c.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!(c.request(json!({"type": "fill-bots", "room": room, "strategy": endless})).await["type"], "ok");
    wait_until("a hosted search runs", Duration::from_secs(60), async || searches(server.addr).await >= 1).await;

    let mut admin = server.client().await;
    admin.hello(Some("admin-secret")).await;
    assert_eq!(admin.request(json!({"type": "close-room", "room": room})).await["type"], "ok");
    wait_until("the search stopped", Duration::from_secs(60), async || searches(server.addr).await == 0).await;

    server.stop().await;
}

/// SIGTERM while a hosted bot is deep in a search that would last an hour:
/// the process exits (a runtime waits for its blocking threads on the way
/// out, so a search that never stops keeps the process alive).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_server_during_an_endless_search() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    let db = temp_db();
    let mut child = Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .args(["serve", "--listen", "127.0.0.1:0", "--database", db.to_str().unwrap()])
        .args(["--bot-think-ms", "60000", "--bot-max-samples", "4000000000"])
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let addr = loop {
        let line = rx.recv_timeout(Duration::from_secs(60)).expect("the server says where it listens");
        if let Some(rest) = line.split("listening on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().parse::<std::net::SocketAddr>().unwrap();
        }
    };
    let mut c = common::Client::connect(&format!("ws://{addr}/ws")).await;
    c.hello(None).await;
    let room = c.create_room(json!({"preset": "latin"})).await;
    let endless = "pimc:samples=4000000000:ms=60000";
    assert_eq!(c.request(json!({"type": "fill-bots", "room": room, "strategy": endless})).await["type"], "ok");
    // A room of bots alone plays while someone watches it.
    assert_eq!(c.request(json!({"type": "spectate", "room": room})).await["type"], "spectating");
    wait_until("a hosted search runs", Duration::from_secs(60), async || searches(addr).await >= 1).await;

    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    if status.is_none() {
        let _ = child.kill();
    }
    let status = status.expect("the server exited within 30 s of SIGTERM");
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_file(db);
}
