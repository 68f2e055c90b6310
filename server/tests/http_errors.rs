//! HTTP error statuses and codes that every route family shares.

mod common;

use common::TestServer;
use serde_json::Value;

#[tokio::test]
async fn a_game_that_is_not_stored_is_404_no_such_game() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/api/games/999999").await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, body["code"].as_str()), (404, Some("no-such-game")), "{body}");
}
