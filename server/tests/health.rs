//! `capicua-server health`, the container health probe, run as a process:
//! success only when a server answers 2xx, a clear error otherwise.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

use common::TestServer;

/// Runs `capicua-server health ARGS`: (exit success, stdout, stderr).
fn health(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .arg("health")
        .args(args)
        .env_remove("CAPICUA_HEALTH_URL")
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A one-shot HTTP server that reads a request and answers `reply` (None: it
/// accepts and then says nothing); returns its URL.
fn canned(reply: Option<&'static str>) -> String {
    canned_holding(reply, false)
}

/// [`canned`], keeping the connection open after the reply when `hold`
/// (as a server that ignores `Connection: close` would).
fn canned_holding(reply: Option<&'static str>, hold: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/healthz", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = s.read(&mut buf);
        match reply {
            Some(r) => {
                let _ = s.write_all(r.as_bytes());
                if hold {
                    let _ = s.read(&mut buf);
                }
            }
            // Hold the connection open, silent, until the probe gives up.
            None => {
                let _ = s.read(&mut buf);
            }
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn a_serving_server_is_healthy() {
    let mut server = TestServer::start().await;
    let url = format!("http://{}/healthz", server.addr);
    let (ok, stdout, stderr) = tokio::task::spawn_blocking(move || health(&["--url", &url])).await.unwrap();
    assert!(ok, "{stderr}");
    assert!(stdout.contains("HTTP status 200"), "{stdout}");
    server.stop().await;
}

#[test]
fn an_error_status_is_unhealthy_and_named() {
    let url = canned(Some("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"));
    let (ok, _, stderr) = health(&["--url", &url]);
    assert!(!ok);
    assert_eq!(stderr.trim(), format!("error: {url}: HTTP status 503"));
}

#[test]
fn an_error_status_is_printed_with_the_servers_reason() {
    // What `/healthz` answers while finished matches cannot be stored; the
    // server keeps the connection open: the body's length ends the read.
    let body = r#"{"status":"degraded","database":"storing finished matches failed: database or disk is full","since":1795000000}"#;
    let reply: &'static str = Box::leak(
        format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let url = canned_holding(Some(reply), true);
    let (ok, _, stderr) = health(&["--url", &url, "--timeout-ms", "10000"]);
    assert!(!ok);
    assert_eq!(stderr.trim(), format!("error: {url}: HTTP status 503: {body}"));
}

#[test]
fn no_listener_is_unhealthy() {
    // Bound then dropped: nothing listens on that port any more.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/healthz");
    let (ok, _, stderr) = health(&["--url", &url]);
    assert!(!ok);
    assert!(stderr.starts_with(&format!("error: {url}: connecting: ")), "{stderr}");
}

#[test]
fn a_silent_server_is_unhealthy_after_the_timeout() {
    let url = canned(None);
    let (ok, _, stderr) = health(&["--url", &url, "--timeout-ms", "200"]);
    assert!(!ok);
    assert_eq!(stderr.trim(), format!("error: {url}: no answer within 200 ms"));
}

#[test]
fn an_answer_that_is_not_http_is_named() {
    let url = canned(Some("SSH-2.0-OpenSSH\r\n"));
    let (ok, _, stderr) = health(&["--url", &url]);
    assert!(!ok);
    assert_eq!(stderr.trim(), format!("error: {url}: not an HTTP answer: \"SSH-2.0-OpenSSH\""));
}

#[test]
fn only_plain_http_urls_are_probed() {
    let (ok, _, stderr) = health(&["--url", "https://127.0.0.1:8443/healthz"]);
    assert!(!ok);
    assert_eq!(stderr.trim(), "error: https://127.0.0.1:8443/healthz: only http:// URLs can be probed");
}
