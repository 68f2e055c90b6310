//! HTTP error statuses and codes that every route family shares.

mod common;

use capicua_server::Config;
use common::{TestServer, temp_db};
use serde_json::Value;

#[tokio::test]
async fn a_game_that_is_not_stored_is_404_no_such_game() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/api/games/999999").await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, body["code"].as_str()), (404, Some("no-such-game")), "{body}");
}

/// One credential rule on rooms and tournaments: 401 `unauthorized` without
/// a credential, 401 `bad-token` for an unknown token, 403 `unauthorized`
/// for a valid credential that does not allow the action.
#[tokio::test]
async fn rooms_and_tournaments_answer_credentials_alike() {
    let admin = "s3cret";
    let server =
        TestServer::start_with(temp_db(), Config { admin_token: Some(admin.into()), ..common::config() }).await;
    let (_c, player) = server.player("pat").await;
    let room = r#"{"preset": "block", "seats": 2, "rated": true}"#;
    let tournament = r#"{"name": "t", "table": "duel", "variants": ["block"], "entrants": ["pat", "bot:random"], "stages": [{"format": "knockout"}]}"#;
    let cases: [(&str, &str, Option<&str>, u16, &str); 5] = [
        ("/api/rooms", room, None, 401, "unauthorized"),
        ("/api/tournaments", tournament, None, 401, "unauthorized"),
        ("/api/rooms", room, Some("wrong"), 401, "bad-token"),
        ("/api/tournaments", tournament, Some("wrong"), 401, "bad-token"),
        ("/api/tournaments", tournament, Some(&player), 403, "unauthorized"),
    ];
    for (path, body, token, status, code) in cases {
        let (s, e) = server.post_json(path, token, body).await;
        assert_eq!((s, e["code"].as_str()), (status, Some(code)), "{path} with {token:?}: {e}");
    }
    // The credentials that allow the action do.
    assert_eq!(server.post_json("/api/rooms", Some(&player), room).await.0, 201);
    let (s, e) = server.post_json("/api/tournaments", Some(admin), tournament).await;
    assert_eq!(s, 201, "{e}");
}
