//! CORS: `--cors-origin` lets the pages of the named origins call the HTTP
//! API from a browser; without it the server sends no CORS header at all.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use capicua_server::{Config, CorsOrigins};
use common::{TestServer, temp_db, wait_for};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

const CLUB: &str = "https://club.example";

/// Sends a raw request with `headers` and reads the whole answer: (status,
/// lower-cased head).
async fn exchange(
    mut s: impl AsyncRead + AsyncWrite + Unpin,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    let head = text.split_once("\r\n\r\n").map_or(text.as_str(), |(h, _)| h).to_ascii_lowercase();
    (status, head)
}

async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    exchange(TcpStream::connect(addr).await.unwrap(), method, path, headers).await
}

/// A browser's preflight for a POST with a token and a JSON body.
async fn preflight(addr: SocketAddr, path: &str, origin: &str) -> (u16, String) {
    let headers = [
        ("Origin", origin),
        ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", "authorization, content-type"),
    ];
    request(addr, "OPTIONS", path, &headers).await
}

/// The value of header `name` in a lower-cased head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(':')).map(str::trim))
}

async fn server(cors: CorsOrigins) -> TestServer {
    TestServer::start_with(temp_db(), Config { cors, ..common::config() }).await
}

#[tokio::test]
async fn listed_origins_are_allowed_on_the_api_only() {
    let s = server(CorsOrigins::parse(&[CLUB, "http://localhost:5173"]).unwrap()).await;
    for path in ["/api/rooms", "/api/tournaments", "/api/leaderboard"] {
        let (status, head) = preflight(s.addr, path, CLUB).await;
        assert!((200..300).contains(&status), "{path}: {status} {head}");
        assert_eq!(header(&head, "access-control-allow-origin"), Some(CLUB), "{path}: {head}");
        let methods = header(&head, "access-control-allow-methods").unwrap_or_default();
        for m in ["get", "post", "delete"] {
            assert!(methods.contains(m), "{path}: {methods}");
        }
        let allowed = header(&head, "access-control-allow-headers").unwrap_or_default();
        assert!(allowed.contains("authorization") && allowed.contains("content-type"), "{allowed}");
    }
    // The second origin too; an actual GET carries the header as well.
    let (_, head) = preflight(s.addr, "/api/rooms", "http://localhost:5173").await;
    assert_eq!(header(&head, "access-control-allow-origin"), Some("http://localhost:5173"), "{head}");
    let (status, head) = request(s.addr, "GET", "/api/rooms", &[("Origin", CLUB)]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "access-control-allow-origin"), Some(CLUB), "{head}");
    // Another origin gets no permission.
    let (_, head) = preflight(s.addr, "/api/rooms", "https://evil.example").await;
    assert_eq!(header(&head, "access-control-allow-origin"), None, "{head}");
    let (_, head) = request(s.addr, "GET", "/api/rooms", &[("Origin", "https://evil.example")]).await;
    assert_eq!(header(&head, "access-control-allow-origin"), None, "{head}");
    // Outside the API: no CORS headers, even for a listed origin.
    for path in ["/metrics", "/healthz"] {
        let (status, head) = request(s.addr, "GET", path, &[("Origin", CLUB)]).await;
        assert_eq!(status, 200);
        assert_eq!(header(&head, "access-control-allow-origin"), None, "{path}: {head}");
    }
}

#[tokio::test]
async fn no_flag_means_no_cors_headers() {
    let s = server(CorsOrigins::None).await;
    let (_, head) = preflight(s.addr, "/api/rooms", CLUB).await;
    assert_eq!(header(&head, "access-control-allow-origin"), None, "{head}");
    assert_eq!(header(&head, "access-control-allow-methods"), None, "{head}");
    let (status, head) = request(s.addr, "GET", "/api/rooms", &[("Origin", CLUB)]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "access-control-allow-origin"), None, "{head}");
}

#[tokio::test]
async fn a_star_allows_any_origin() {
    let s = server(CorsOrigins::parse(&["*"]).unwrap()).await;
    let (_, head) = preflight(s.addr, "/api/rooms", "https://anyone.example").await;
    assert_eq!(header(&head, "access-control-allow-origin"), Some("*"), "{head}");
}

#[test]
fn origins_are_checked() {
    assert_eq!(CorsOrigins::parse::<&str>(&[]), Ok(CorsOrigins::None));
    assert_eq!(CorsOrigins::parse(&[" "]), Ok(CorsOrigins::None));
    assert_eq!(CorsOrigins::parse(&[CLUB, "*"]), Ok(CorsOrigins::Any));
    assert_eq!(
        CorsOrigins::parse(&[" https://a.example:8443 "]),
        Ok(CorsOrigins::List(vec!["https://a.example:8443".into()]))
    );
    for bad in ["https://club.example/", "club.example", "https://", "https://a b", "ftp://x.example"] {
        let e = CorsOrigins::parse(&[bad]).unwrap_err();
        assert_eq!(e.origin, bad.trim());
    }
}

/// The flag and `CAPICUA_CORS_ORIGINS` (comma-separated) reach the server:
/// a real `serve` process on a Unix socket.
#[tokio::test]
async fn the_command_line_and_environment_set_the_origins() {
    let dir = std::env::temp_dir();
    let id = std::process::id();
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .args(["serve", "--listen", "127.0.0.1:0", "--cors-origin", "https://club.example/"])
        .args(["--database", temp_db().to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("--cors-origin: bad CORS origin \"https://club.example/\""), "{stderr}");
    for (n, (flags, env)) in [
        (vec!["--cors-origin", CLUB, "--cors-origin", "https://b.example"], None),
        (vec![], Some(format!("{CLUB}, https://b.example"))),
    ]
    .into_iter()
    .enumerate()
    {
        let socket = dir.join(format!("capicua-cors-{id}-{n}.sock"));
        let db = temp_db();
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_capicua-server"));
        cmd.args(["serve", "--listen", &format!("unix:{}", socket.display()), "--database", db.to_str().unwrap()])
            .args(&flags)
            .env("RUST_LOG", "warn")
            .env_remove("CAPICUA_CORS_ORIGINS")
            .kill_on_drop(true);
        if let Some(v) = &env {
            cmd.env("CAPICUA_CORS_ORIGINS", v);
        }
        let mut child = cmd.spawn().unwrap();
        let stream = wait_for("the server's socket", Duration::from_secs(20), async || {
            tokio::net::UnixStream::connect(&socket).await.map_err(|e| e.to_string())
        })
        .await;
        let headers = [("Origin", "https://b.example"), ("Access-Control-Request-Method", "GET")];
        let (_, head) = exchange(stream, "OPTIONS", "/api/rooms", &headers).await;
        assert_eq!(
            header(&head, "access-control-allow-origin"),
            Some("https://b.example"),
            "{flags:?} {env:?}: {head}"
        );
        let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
        let headers = [("Origin", "https://c.example"), ("Access-Control-Request-Method", "GET")];
        let (_, head) = exchange(stream, "OPTIONS", "/api/rooms", &headers).await;
        assert_eq!(header(&head, "access-control-allow-origin"), None, "{head}");
        child.kill().await.unwrap();
        let _ = std::fs::remove_file(&socket);
        let _ = std::fs::remove_file(&db);
    }
}
