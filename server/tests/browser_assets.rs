//! The browser client's files over plain HTTP: content types, caching,
//! the 404 page, and the API, WebSocket and probes left as they were.

mod common;

use common::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw HTTP/1.1 request: (status, lower-cased head, body).
async fn raw(server: &TestServer, method: &str, path: &str, extra: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let req =
        format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

#[tokio::test]
async fn the_page_and_its_files_are_served_with_their_types_and_revalidated() {
    let server = TestServer::start().await;
    for (path, kind) in [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/js/app.js", "text/javascript; charset=utf-8"),
        ("/js/board.js", "text/javascript; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let (status, head, body) = raw(&server, "GET", path, "").await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&head, "content-type"), Some(kind), "{path}");
        assert_eq!(header(&head, "cache-control"), Some("no-cache"), "{path}");
        assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"), "{path}");
        assert!(!body.is_empty(), "{path}");
        // An unchanged file costs a 304 without a body.
        let etag = header(&head, "etag").unwrap_or_else(|| panic!("{path} has an etag")).to_string();
        let (status, head2, body2) = raw(&server, "GET", path, &format!("If-None-Match: {etag}\r\n")).await;
        assert_eq!(status, 304, "{path}");
        assert!(body2.is_empty(), "{path}");
        assert_eq!(header(&head2, "etag"), Some(etag.as_str()));
        let (status, ..) = raw(&server, "GET", path, "If-None-Match: \"other\"\r\n").await;
        assert_eq!(status, 200, "{path}: another version is sent whole");
    }
    let (_, head, body) = raw(&server, "GET", "/", "").await;
    assert!(header(&head, "content-security-policy").is_some_and(|c| c.contains("default-src 'self'")));
    assert!(body.contains(r#"<script type="module" src="/js/app.js">"#));
    let (status, head, _) = raw(&server, "HEAD", "/style.css", "").await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-type"), Some("text/css; charset=utf-8"));
    let (status, head, _) = raw(&server, "POST", "/", "").await;
    assert_eq!(status, 405);
    assert_eq!(header(&head, "allow"), Some("get, head"));
}

#[tokio::test]
async fn unknown_paths_get_the_404_page_and_the_api_is_untouched() {
    let server = TestServer::start().await;
    for path in
        ["/nope", "/js/nope.js", "/room/3", "/../Cargo.toml", "/js/../index.html", "//index.html", "/web/index.html"]
    {
        let (status, head, body) = raw(&server, "GET", path, "").await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(header(&head, "content-type"), Some("text/html; charset=utf-8"), "{path}");
        assert!(body.contains("No such page"), "{path}: {body}");
    }
    // The API keeps its own answers: JSON where it has a route, a bare 404 elsewhere.
    let (status, head, body) = raw(&server, "GET", "/api/nope", "").await;
    assert_eq!(status, 404);
    assert!(
        !body.contains("No such page") && header(&head, "content-type").is_none_or(|t| !t.contains("html")),
        "{body}"
    );
    let (status, head, body) = raw(&server, "GET", "/api/rooms", "").await;
    assert_eq!((status, header(&head, "content-type")), (200, Some("application/json")));
    assert_eq!(body.trim(), "[]");
    let (status, _, body) = raw(&server, "GET", "/healthz", "").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let (status, _, body) = raw(&server, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    assert!(body.contains("# TYPE"), "{body}");
    // The WebSocket still answers its upgrade (and refuses a plain GET as before).
    let (status, ..) = raw(&server, "GET", "/ws", "").await;
    assert_ne!(status, 404);
    let mut c = server.guest().await;
    let r = c.request(serde_json::json!({"type": "list-rooms"})).await;
    assert_eq!(r["type"], "rooms");
}

/// What the page needs after a reload: `sync` carries the room's rules
/// (tile set, layout, target), which only `game-started` had before.
#[tokio::test]
async fn a_resync_mid_match_carries_the_rooms_rules() {
    let server = TestServer::start().await;
    let mut c = server.guest().await;
    let room = c.create_room(serde_json::json!({"preset": "mexican-train", "seats": 2})).await;
    c.join(room, Some(0)).await;
    let r = c.request(serde_json::json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    c.ready(room).await;
    let started = c.recv_type("game-started").await;
    let sync = c.request(serde_json::json!({"type": "resync", "room": room})).await;
    assert_eq!(sync["type"], "sync", "{sync}");
    assert_eq!(sync["variant"], started["variant"], "the same rules as game-started");
    assert_eq!(sync["variant"]["tiles"]["max-pip"], 12);
    assert!(sync["view"].is_object());
}

/// The keys of a catalog file (`web/js/i18n/xx.js`): one `'key': ...` a line.
fn catalog_keys(lang: &str) -> std::collections::BTreeSet<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../web/js/i18n/{lang}.js"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('\''))
        .filter_map(|l| l.split_once("':").map(|(k, _)| k.to_string()))
        .collect()
}

/// The keys a text asks for: `t('key'` calls (not `x.t(` or `sort(`), or
/// `tr('key'` or `say('key'` where a module names the table `t`, and the
/// shell's `data-i18n="key"` / `data-i18n-label="key"`.
fn used_keys(text: &str) -> Vec<String> {
    let mut keys = vec![];
    for call in ["t('", "tr('", "say('"] {
        for (i, _) in text.match_indices(call) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$') {
                continue;
            }
            let rest = &text[i + call.len()..];
            if let Some(end) = rest.find('\'') {
                keys.push(rest[..end].to_string());
            }
        }
    }
    for attr in ["data-i18n=\"", "data-i18n-label=\""] {
        for (i, _) in text.match_indices(attr) {
            let rest = &text[i + attr.len()..];
            if let Some(end) = rest.find('"') {
                keys.push(rest[..end].to_string());
            }
        }
    }
    keys
}

/// Every word the page says comes from its catalogs: each key a script or
/// the shell uses is in the English and the Spanish catalog, the two hold
/// the same keys, and every error code of the protocol is worded in both.
#[test]
fn every_key_the_page_uses_is_in_every_catalog() {
    let en = catalog_keys("en");
    let es = catalog_keys("es");
    assert!(en.len() > 100, "{} keys read from en.js", en.len());
    let only_en: Vec<_> = en.difference(&es).collect();
    let only_es: Vec<_> = es.difference(&en).collect();
    assert!(only_en.is_empty() && only_es.is_empty(), "only in en: {only_en:?}; only in es: {only_es:?}");
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web");
    let mut files: Vec<_> = std::fs::read_dir(web.join("js")).unwrap().map(|e| e.unwrap().path()).collect();
    files.push(web.join("index.html"));
    let mut missing = vec![];
    let mut used = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|x| x == "js" || x == "html")) {
        let text = std::fs::read_to_string(f).unwrap();
        for key in used_keys(&text) {
            used += 1;
            if !en.contains(&key) {
                missing.push(format!("{}: {key}", f.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(used > 100, "{used} keys used");
    assert!(missing.is_empty(), "keys used but in no catalog: {missing:#?}");
    // Keys built from the server's codes: every error code of the protocol
    // (its enum, read from the source, kebab-cased as on the wire).
    let src =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol/src/errors.rs"))
            .unwrap();
    let body = src.split("pub enum ErrorCode {").nth(1).expect("the ErrorCode enum").split('}').next().unwrap();
    let codes: Vec<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with('#') && l.ends_with(','))
        .map(|l| {
            let name = l.trim_end_matches(',');
            let mut kebab = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    kebab.push('-');
                }
                kebab.push(c.to_ascii_lowercase());
            }
            kebab
        })
        .collect();
    for code in ["bad-variant", "no-such-room", "seat-taken", "not-your-turn"] {
        assert!(codes.iter().any(|c| c == code), "the enum lists {code}: {codes:?}");
    }
    let unworded: Vec<_> = codes.iter().filter(|c| !en.contains(&format!("error.{c}"))).collect();
    assert!(unworded.is_empty(), "error codes without words: {unworded:?}");
}
