//! Tournaments on a real server (port 0, real WebSockets): remote bot
//! clients awaiting assignments plus hosted bots, the HTTP API and its
//! errors, and the SQL view against `Tournament::standings()`.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use capicua_bot::remote::{AwaitConfig, Tally, await_assignments};
use capicua_server::Config;
use capicua_tournament::{Tournament, TournamentSpec};
use common::{TestServer, temp_db};
use serde_json::{Value, json};
use sqlx::Row;
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

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..Default::default() }).await
}

/// The stored standings (the SQL view) must be what the tournament crate
/// computes from the stored results, replayed in their stored order.
async fn check_view_against_replay(db_path: &std::path::Path, id: i64) -> Vec<(i64, String, i64)> {
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db_path.display())).await.unwrap();
    let row =
        sqlx::query("SELECT spec, spec_format FROM tournaments WHERE id = ?").bind(id).fetch_one(&pool).await.unwrap();
    let (text, format): (String, String) = (row.get(0), row.get(1));
    let spec: TournamentSpec =
        if format == "json" { serde_json::from_str(&text).unwrap() } else { toml::from_str(&text).unwrap() };
    let results = common::stored_results(&pool, id).await;
    let t = Tournament::replay(spec.validate().unwrap(), &results).unwrap();
    let view = sqlx::query(
        "SELECT rank, entrant, points, wins, draws, losses, games, score FROM tournament_standings WHERE tournament_id = ?",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap();
    let standings = t.standings();
    assert_eq!(view.len(), standings.len());
    for (v, s) in view.iter().zip(&standings) {
        let got: (i64, String, i64, i64, i64, i64, i64, i64) =
            (v.get(0), v.get(1), v.get(2), v.get(3), v.get(4), v.get(5), v.get(6), v.get(7));
        let want = (
            s.rank as i64,
            s.name.clone(),
            s.points,
            s.wins as i64,
            s.draws as i64,
            s.losses as i64,
            s.games as i64,
            s.score,
        );
        assert_eq!(got, want);
    }
    // Every recorded result links to a stored game, each once.
    let linked: i64 = sqlx::query(
        "SELECT COUNT(DISTINCT g.id) FROM tournament_matches m JOIN games g ON g.id = m.game_id WHERE m.tournament_id = ?",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap()
    .get(0);
    assert_eq!(linked as usize, results.len());
    pool.close().await;
    standings.iter().map(|s| (s.rank as i64, s.name.clone(), s.points)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_and_hosted_bots_play_a_tournament_over_websocket() {
    let mut server = admin_server().await;
    let names = ["ana", "ben", "eva"];
    let mut tokens = vec![];
    for n in names {
        let (_c, token) = server.player(n).await;
        tokens.push(token);
    }
    let spec = json!({
        "name": "mixed league", "seed": 11, "table": "duel", "variants": ["block", "draw"],
        "entrants": ["ana", "bot:heuristic", "ben", "bot:random", "eva"],
        "stages": [{"format": "round-robin"}],
        "scoring": {"points": {"per-result": {"win": 3, "draw": 1, "loss": 0}}}
    });
    let (status, created) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();

    // A spectator follows the tournament over the WebSocket.
    let mut watcher = server.guest().await;
    let r = watcher.request(json!({"type": "subscribe-tournament", "tournament": id})).await;
    assert_eq!(r["type"], "tournament-progress", "{r}");
    assert_eq!(r["progress"]["event"], "subscribed");

    let tally = Arc::new(Tally::default());
    let bots: Vec<_> = tokens
        .iter()
        .map(|t| {
            let cfg = AwaitConfig {
                server: server.url(),
                token: t.clone(),
                strategy: "heuristic".into(),
                tournament: Some(id),
            };
            tokio::spawn(await_assignments(cfg, tally.clone()))
        })
        .collect();
    for b in bots {
        tokio::time::timeout(Duration::from_secs(60), b).await.expect("bots finish in time").unwrap().unwrap();
    }
    // Five entrants, single round robin: 10 matches; the three remote bots
    // play 4 each (12 seats, one match is ana v ben etc.).
    let mut finished_tables = 0;
    let winners = loop {
        let v = watcher.recv_type("tournament-progress").await;
        match v["progress"]["event"].as_str().unwrap() {
            "table-finished" => {
                finished_tables += 1;
                assert!(v["progress"]["game"].as_i64().is_some());
            }
            "finished" => break v["progress"]["winners"].clone(),
            _ => {}
        }
    };
    assert_eq!(finished_tables, 10);
    assert_eq!(winners.as_array().unwrap().len(), 1);

    // A range of rounds: only those are detailed, the rest is the same.
    let some = server.get_json(&format!("/api/tournaments/{id}?from-round=1&to-round=2")).await;
    let numbers: Vec<u64> = some["rounds"].as_array().unwrap().iter().map(|r| r["number"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2], "{some}");
    let last = server.get_json(&format!("/api/tournaments/{id}?from-round=4")).await;
    assert_eq!(last["rounds"].as_array().unwrap().len(), 1, "{last}");
    assert_eq!(some["standings"], last["standings"]);

    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(detail["status"], "finished");
    assert_eq!(detail["results"], 10);
    let rounds = detail["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5, "5 entrants: 5 rounds of 2 tables and a bye");
    for r in rounds {
        assert_eq!(r["byes"].as_array().unwrap().len(), 1);
        for t in r["tables"].as_array().unwrap() {
            let game = t["game"].as_i64().expect("every table has a stored game");
            let replay = server.get_json(&format!("/api/games/{game}?seat=0")).await;
            assert_eq!(replay["variant"]["name"], r["variant"]);
            assert!(t["room"].as_i64().is_some());
        }
    }
    assert_eq!(detail["winners"], winners);

    let standings = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    let from_view = check_view_against_replay(&server.db_path, id).await;
    let http: Vec<(i64, String, i64)> = standings
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["rank"].as_i64().unwrap(), s["name"].as_str().unwrap().to_string(), s["points"].as_i64().unwrap()))
        .collect();
    assert_eq!(http, from_view);
    // The stored rows read back as the live standings the detail computes.
    assert_eq!(standings, detail["standings"]);
    assert_eq!(json!(from_view[0].1), winners[0]);
    // 4 matches per entrant, 3 points a win: the points add up to the results.
    let games: i64 = standings.as_array().unwrap().iter().map(|s| s["games"].as_i64().unwrap()).sum();
    assert_eq!(games, 20);
    assert_eq!(tally.games.load(std::sync::atomic::Ordering::Relaxed), 12);

    // Tournament games are rated: the remote players have ratings now.
    let board = server.get_json("/api/leaderboard?variant=block").await;
    assert!(board.as_array().unwrap().iter().any(|s| s["name"] == "ana"), "{board}");
    let list = server.get_json("/api/tournaments").await;
    assert_eq!(list[0]["id"], id);
    server.stop().await;
}

#[tokio::test]
async fn tournament_http_and_websocket_errors_are_machine_readable() {
    let mut server = admin_server().await;
    let (_ana, _) = server.player("ana").await;
    let good = "name = \"t\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"ana\", \"bot:random\"]\n[[stages]]\nformat = \"knockout\"\n";
    let (s, e) = http_post(server.addr, "/api/tournaments", None, "text/plain", good).await;
    assert_eq!((s, e["code"].as_str()), (401, Some("unauthorized")), "{e}");
    let (s, e) = http_post(server.addr, "/api/tournaments", Some("wrong"), "text/plain", good).await;
    assert_eq!((s, e["code"].as_str()), (403, Some("bad-token")), "{e}");

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
    let room = loop {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        if let Some(room) = d["rounds"][0]["tables"][0]["room"].as_u64() {
            break room;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
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
    let waited = std::time::Instant::now();
    let detail = loop {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        if d["status"] == "finished" {
            break d;
        }
        assert_ne!(d["status"], "failed", "{d}");
        assert!(waited.elapsed() < Duration::from_secs(20), "the table still waits for zoe: {d}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
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
    let waited = std::time::Instant::now();
    let detail = loop {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        if d["status"] == "finished" {
            break d;
        }
        assert!(waited.elapsed() < Duration::from_secs(20), "{d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(detail["winners"], json!(["bot:random"]), "{detail}");
    // An unknown timeout strategy is refused when the tournament is created.
    let mut bad = spec.clone();
    bad["clock"]["on-timeout"] = json!({"kind": "strategy", "name": "nope"});
    let (status, e) =
        http_post(server.addr, "/api/tournaments", Some(ADMIN), "application/json", &bad.to_string()).await;
    assert_eq!((status, e["field"].as_str()), (400, Some("clock.on-timeout")), "{e}");
}
