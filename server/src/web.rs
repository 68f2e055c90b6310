//! The browser client: the files of the repository's `web/` folder, served
//! at `/` (the page speaks the public WebSocket protocol like any client).
//!
//! Release builds embed the files in the binary (`rust-embed`); debug builds
//! read them from `web/` at each request, so editing the page needs no
//! rebuild. The page's own routes are hash routes (`/#/room/3`), so the
//! server only ever serves files: any other path under `/` gets the 404
//! page, except under `/api/` and `/ws`, which keep the API's plain 404.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

/// The files of `web/`.
#[derive(RustEmbed)]
#[folder = "../web/"]
struct Assets;

/// Served to every page: the page loads nothing from other origins, and
/// keeps its scripts and styles in files (no inline code to inject into).
const CSP: &str = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; \
                   script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// The web client as a fallback router: it answers what no other route
/// does, so it never shadows the API, the WebSocket or the probes.
pub(crate) fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().fallback(serve)
}

/// A content type by file extension; the page uses only these kinds.
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn serve(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    if path == "/ws" || path == "/api" || path.starts_with("/api/") {
        // An API client reads errors as JSON, a wrong path included.
        return crate::api::ApiError::new(
            StatusCode::NOT_FOUND,
            capicua_protocol::ErrorCode::NotFound,
            format!("no API endpoint {path} (see /docs/bots/protocol-http.html, the book's HTTP API page)"),
        )
        .into_response();
    }
    let name = match path.strip_prefix('/').unwrap_or(path) {
        "" => "index.html",
        p => p,
    };
    // `..`, backslashes and empty segments never name a file of the folder
    // (debug builds read the disk).
    let clean = !name.split('/').any(|seg| seg.is_empty() || seg == ".." || seg == ".") && !name.contains('\\');
    let file = if clean { Assets::get(name) } else { None };
    let Some(file) = file else { return not_found() };
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")]).into_response();
    }
    // The files keep their names from one version to the next, so a browser
    // revalidates each time; an unchanged file costs a 304 without a body.
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()));
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = file.data.into_owned().into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(name)));
        r
    };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if name.ends_with(".html") {
        h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    }
    response
}

/// The 404 page (a page of its own: a mistyped address shows where to go).
fn not_found() -> Response {
    let body = Assets::get("404.html").map(|f| f.data.into_owned()).unwrap_or_else(|| b"not found".to_vec());
    html_not_found(body, CSP)
}

/// A 404 whose body is an HTML page, never cached, under `csp`.
pub(crate) fn html_not_found(body: Vec<u8>, csp: &'static str) -> Response {
    (
        StatusCode::NOT_FOUND,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(csp)),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_page_has_a_known_content_type() {
        let mut n = 0;
        for name in Assets::iter() {
            n += 1;
            assert_ne!(content_type(&name), "application/octet-stream", "{name} would be served as bytes");
        }
        assert!(n >= 5, "the page's files are embedded ({n})");
        assert!(Assets::get("index.html").is_some() && Assets::get("404.html").is_some());
    }
}
