//! Routes answered without a running server: the router as a service,
//! one request at a time (`ServiceExt::oneshot`).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use tower::ServiceExt;

use crate::{AppState, Config, Db};

/// Fresh state on a database file of its own (`name` keeps test files
/// apart), with the sender that would shut it down.
async fn state(name: &str) -> (Arc<AppState>, tokio::sync::watch::Sender<bool>) {
    let path = std::env::temp_dir().join(format!("capicua-http-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let db = Db::open(path.to_str().expect("a UTF-8 temp path")).await.expect("the database opens");
    let (state, shutdown, _done) = AppState::new(db, Config::default());
    (state, shutdown)
}

/// The status, content type and body of `method path` on a fresh router.
async fn answer(name: &str, method: Method, path: &str) -> (StatusCode, String, serde_json::Value) {
    let (state, _shutdown) = state(name).await;
    let app = super::router(state);
    let request = Request::builder().method(method).uri(path).body(Body::empty()).expect("a request");
    let response = app.oneshot(request).await.expect("the router answers");
    let status = response.status();
    let kind = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24).await.expect("a body");
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, kind, json)
}

#[tokio::test]
async fn variants_list_presets_with_descriptions_and_the_strategies() {
    let (status, kind, body) = answer("variants", Method::GET, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    assert!(kind.starts_with("application/json"), "{kind}");
    let presets = body["presets"].as_array().expect("presets");
    assert!(!presets.is_empty());
    assert!(presets.iter().all(|p| p["name"].is_string() && p["description"].is_string()), "{presets:?}");
    assert!(body["strategies"].as_array().is_some_and(|s| !s.is_empty()));
    assert!(body["poly-presets"].is_array() && !body["catalog"].is_null(), "{body}");
    // Each preset names the sources its rules follow, for its rules page.
    let poly = body["poly-presets"].as_array().unwrap();
    for p in presets.iter().chain(poly) {
        assert!(p["sources"].as_str().is_some_and(|s| s.len() > 40), "{} names no sources: {p}", p["name"]);
    }
    let longana = presets.iter().find(|p| p["name"] == "longana").expect("longana");
    assert!(longana["sources"].as_str().unwrap().contains("pagat.com"), "{longana}");
}

#[tokio::test]
async fn healthz_is_ok_while_games_are_stored() {
    let (status, _, body) = answer("healthz", Method::GET, "/healthz").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, "ok");
}

#[tokio::test]
async fn an_unknown_api_path_is_a_json_404() {
    let (status, kind, body) = answer("notfound", Method::GET, "/api/nothing-here").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(kind.starts_with("application/json"), "{kind}");
    assert_eq!(body["code"], "not-found");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("/api/nothing-here")), "{body}");
}

#[tokio::test]
async fn a_method_a_route_lacks_is_a_json_405() {
    let (status, _, body) = answer("method", Method::DELETE, "/api/variants").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(body["code"], "bad-request");
    assert_eq!(body["message"], "/api/variants does not take DELETE");
}

#[tokio::test]
async fn the_lobby_of_a_fresh_server_is_empty() {
    let (status, _, body) = answer("rooms", Method::GET, "/api/rooms").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, serde_json::json!([]));
}
