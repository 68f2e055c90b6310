//! The operator's endpoints: `GET /healthz` and `GET /metrics`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;

/// `GET /healthz`: `200 ok` while finished matches are being stored;
/// `503` with the reason while the latest attempt to store one failed (a
/// full disk, a read-only file system, a lock held by another process), so
/// a health check sees a server that plays on but loses every result.
pub(super) async fn healthz(State(state): State<Arc<AppState>>) -> Response {
    match state.db.store_failure() {
        None => "ok".into_response(),
        Some(f) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({
                "status": "degraded",
                "database": format!("storing finished matches failed: {}", f.error),
                "since": f.since,
            })),
        )
            .into_response(),
    }
}

pub(super) async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    let mut text = state.metrics.render();
    state.cpu.render(&mut text);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
