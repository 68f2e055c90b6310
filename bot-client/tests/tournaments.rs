//! Remote bots in a tournament on a real server (port 0, real WebSockets):
//! bot clients awaiting assignments play their tables next to hosted bots,
//! and the stored standings (the SQL view) match `Tournament::standings()`.

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use capicua_bot::remote::{AwaitConfig, Tally, await_assignments};
use capicua_server::Config;
use capicua_tournament::{Tournament, TournamentSpec};
use common::{TestServer, temp_db};
use serde_json::json;
use sqlx::Row;

const ADMIN: &str = "s3cret";

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// The stored standings (the SQL view) must be what the tournament crate
/// computes from the stored results, replayed in their stored order.
async fn check_view_against_replay(db_path: &std::path::Path, id: i64) -> Vec<(i64, String, i64)> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&format!("sqlite://{}", db_path.display())).await.unwrap();
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
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
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
                fallbacks: Vec::new(),
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
    // Each table with a remote bot counts once, whichever of them sat there.
    let remote_tables = detail["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["tables"].as_array().unwrap())
        .filter(|t| t["seats"].as_array().unwrap().iter().any(|s| !s["player"].as_str().unwrap().starts_with("bot:")))
        .count() as u64;
    assert_eq!(tally.games.load(std::sync::atomic::Ordering::Relaxed), remote_tables);

    // Tournament games are rated: the remote players have ratings now.
    let board = server.get_json("/api/leaderboard?variant=block").await;
    assert!(board.as_array().unwrap().iter().any(|s| s["name"] == "ana"), "{board}");
    let list = server.get_json("/api/tournaments").await;
    assert_eq!(list[0]["id"], id);
    server.stop().await;
}
