//! `GET /api/games`: the stored games, newest first, a page at a time.

mod common;

use common::*;
use serde_json::{Value, json};

/// The ids of a listing, in its order.
fn ids(list: &Value) -> Vec<i64> {
    list.as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_games_are_listed_newest_first_by_page_and_by_player() {
    let server = TestServer::start().await;
    assert_eq!(server.get_json("/api/games").await, json!([]), "nothing stored yet");
    // Three duels: ana plays the first and the third.
    let (ana, token) = server.player("ana").await;
    drop(ana);
    let mut stored = vec![];
    for k in 0..3 {
        let first = if k == 1 {
            server.guest().await
        } else {
            let mut c = server.client().await;
            c.hello(Some(&token)).await;
            c
        };
        let mut pair = vec![first, server.guest().await];
        let room = seat_all(&mut pair, json!({"preset": "block", "seats": 2, "seed": k})).await;
        stored.push(play_out(pair, room).await.1);
    }

    let all = server.get_json("/api/games").await;
    assert_eq!(ids(&all), stored.iter().rev().copied().collect::<Vec<_>>(), "{all}");
    let newest = &all[0];
    assert_eq!(newest["variant"], "block", "{newest}");
    assert_eq!(newest["seats"].as_array().unwrap().len(), 2, "{newest}");
    assert_eq!(newest["seats"][0]["name"], "ana", "{newest}");
    assert_eq!(newest["scores"].as_array().unwrap().len(), 2, "{newest}");
    assert!(newest["finished-at"].as_i64().unwrap() > 1_600_000_000, "{newest}");
    assert!(newest.get("seed").is_none() && newest.get("moves").is_none(), "a listing shows no seed: {newest}");

    // Pages: the newest two, then what comes before the second.
    let page = server.get_json("/api/games?limit=2").await;
    assert_eq!(ids(&page), [stored[2], stored[1]]);
    let next = server.get_json(&format!("/api/games?limit=2&before={}", stored[1])).await;
    assert_eq!(ids(&next), [stored[0]]);
    // One player's games.
    let ana_games = server.get_json("/api/games?player=ana").await;
    assert_eq!(ids(&ana_games), [stored[2], stored[0]], "{ana_games}");
    assert_eq!(server.get_json("/api/games?player=nobody").await, json!([]));
    // A guest's name is no identity: it finds nothing.
    let guest = newest["seats"][1]["name"].as_str().unwrap();
    assert!(guest.starts_with("guest-"), "{newest}");
    assert_eq!(server.get_json(&format!("/api/games?player={guest}")).await, json!([]));

    // Hostile values: a 400 with a JSON error naming the field, never a listing.
    for (query, field) in [
        ("limit=0", Some("limit")),
        ("limit=101", Some("limit")),
        ("limit=-1", None),
        ("limit=99999999999999999999", None),
        ("limit=ten", None),
        ("before=0", Some("before")),
        ("before=-5", Some("before")),
        ("before=x", None),
        ("player=", Some("player")),
        ("colour=red", None),
    ] {
        let (status, body) = server.get(&format!("/api/games?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let err: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{query}: {e}: {body}"));
        assert_eq!(err["code"], "bad-request", "{query}: {err}");
        if let Some(field) = field {
            assert_eq!(err["field"], field, "{query}: {err}");
        }
    }
    let long = "a".repeat(65);
    let (status, _) = server.get(&format!("/api/games?player={long}")).await;
    assert_eq!(status, 400);
}
