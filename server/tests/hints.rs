//! Hints and reviews over a real socket: an unrated room's seat to move
//! gets the strongest bot's move among its legal ones with each move's
//! chance to win the hand; rated rooms refuse; after the match the review
//! lists the seat's decisions, except for a game of a tournament still
//! being played.

mod common;

use common::TestServer;
use serde_json::{Value, json};
use sqlx::SqlitePool;

#[tokio::test]
async fn a_hint_is_a_legal_move_with_chances_and_a_review_follows_the_match() {
    let server = TestServer::start().await;
    let mut ana = server.guest().await;
    let room = ana.create_room(json!({"preset": "block", "seats": 2})).await;
    assert_eq!(ana.join(room, Some(0)).await, 0);
    // No match yet: nothing to hint; someone without a seat never gets one.
    let r = ana.request(json!({"type": "hint", "room": room})).await;
    assert_eq!(r["code"], "not-your-turn", "{r}");
    let mut outsider = server.guest().await;
    let r = outsider.request(json!({"type": "hint", "room": room})).await;
    assert_eq!(r["code"], "not-seated", "{r}");
    let r = ana.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    ana.ready(room).await;

    // Every prompt: a hint whose moves are exactly the legal ones, its best
    // among them, asked twice with the same answer; the hint's move is played.
    let mut hints = 0;
    let over = loop {
        let v = ana.recv().await;
        match v["type"].as_str().unwrap() {
            "prompt" => {
                let legal = v["legal-moves"].as_array().unwrap().clone();
                let h = ana.request(json!({"type": "hint", "room": room})).await;
                assert_eq!(h["type"], "hint", "{h}");
                assert_eq!((&h["room"], &h["prompt"], &h["seat"]), (&json!(room), &v["prompt"], &json!(0)), "{h}");
                let moves: Vec<Value> = h["moves"].as_array().unwrap().iter().map(|m| m["move"].clone()).collect();
                assert_eq!(sorted(&moves), sorted(&legal), "{h}");
                assert!(legal.contains(&h["best"]), "best {} is not legal: {legal:?}", h["best"]);
                for m in h["moves"].as_array().unwrap() {
                    let win = m["win"].as_f64().unwrap();
                    assert!((0.0..=1.0).contains(&win), "{m}");
                }
                assert!(h["samples"].as_u64().unwrap() > 0, "{h}");
                let again = ana.request(json!({"type": "hint", "room": room})).await;
                assert_eq!(strip_id(again), strip_id(h.clone()), "a second ask gets the cached answer");
                hints += 1;
                ana.send(
                    json!({"type": "move", "family": "tiles", "room": room, "prompt": v["prompt"], "move": h["best"]}),
                )
                .await;
            }
            "game-over" => break v,
            "error" => panic!("unexpected: {v}"),
            _ => {}
        }
    };
    assert!(hints > 0);
    let game = over["game"].as_i64().expect("stored");

    // The review: each of seat 0's decisions, the move played among the
    // legal ones; a second request is the cached same answer.
    let (status, body) = server.get(&format!("/api/games/{game}/review?seat=0")).await;
    assert_eq!(status, 200, "{body}");
    let review: Value = serde_json::from_str(&body).unwrap();
    let (_, replay) = server.get(&format!("/api/games/{game}?seat=0")).await;
    let replay: Value = serde_json::from_str(&replay).unwrap();
    let steps = replay["steps"].as_array().unwrap().len();
    let decisions = review["decisions"].as_array().unwrap();
    assert!(!decisions.is_empty(), "{review}");
    for d in decisions {
        let step = d["step"].as_u64().unwrap() as usize;
        assert!(step < steps, "{d}");
        let moves: Vec<&Value> = d["moves"].as_array().unwrap().iter().map(|m| &m["move"]).collect();
        assert!(moves.len() > 1, "a forced move is not a decision: {d}");
        assert!(moves.contains(&&d["played"]) && moves.contains(&&d["best"]), "{d}");
        // The hint's move was played each time (same budget or not, the
        // move is legal and has a chance).
        assert!(d["played-win"].as_f64().is_some_and(|w| (0.0..=1.0).contains(&w)), "{d}");
    }
    let (_, again) = server.get(&format!("/api/games/{game}/review?seat=0")).await;
    assert_eq!(again, body);
    let (status, body) = server.get(&format!("/api/games/{game}/review?seat=5")).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("no-such-seat"), "{body}");
    let (status, body) = server.get("/api/games/999/review?seat=0").await;
    assert_eq!(status, 404, "{body}");

    // Recorded as a table of a tournament still running: no review (of
    // seat 1, not cached yet); once it is finished, the review is served.
    let pool = SqlitePool::connect(&format!("sqlite://{}", server.db_path.display())).await.unwrap();
    sqlx::query("INSERT INTO tournaments (id, name, spec_format, spec, status, created_at) VALUES (77, 'cup', 'json', '{}', 'running', 0)")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO tournament_matches (tournament_id, round, table_no, game_id, result_json) VALUES (77, 0, 0, ?, '{}')")
        .bind(game)
        .execute(&pool)
        .await
        .unwrap();
    let (status, body) = server.get(&format!("/api/games/{game}/review?seat=1")).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("hint-unavailable"), "{body}");
    sqlx::query("UPDATE tournaments SET status = 'finished' WHERE id = 77").execute(&pool).await.unwrap();
    let (status, body) = server.get(&format!("/api/games/{game}/review?seat=1")).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn rated_rooms_refuse_hints() {
    let server = TestServer::start().await;
    let (mut ana, _) = server.player("ana").await;
    let room = ana.create_room(json!({"preset": "block", "seats": 2, "rated": true})).await;
    assert_eq!(ana.join(room, Some(0)).await, 0);
    let r = ana.request(json!({"type": "hint", "room": room})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "hint-unavailable", "{r}");
}

fn sorted(v: &[Value]) -> Vec<String> {
    let mut s: Vec<String> = v.iter().map(|m| m.to_string()).collect();
    s.sort();
    s
}

fn strip_id(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("id");
    v
}
