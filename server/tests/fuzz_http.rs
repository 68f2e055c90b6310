//! Fuzzing the HTTP API of a real server on the stable toolchain: hostile
//! paths, query values and bodies (edited room specs, arbitrary bytes) get
//! a 4xx with a JSON error, never a 5xx, and the server keeps serving.
//! `CAPICUA_FUZZ_CASES` sets the number of requests (see `capicua-fuzzkit`).

mod common;

use capicua_fuzzkit::{apply_with, bytes, config, edits, hostile};
use common::{TestServer, http_get, http_request};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

/// A value as one percent-encoded path segment or query value.
fn segment(v: &Value) -> String {
    let raw = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    raw.bytes()
        .take(3000)
        .map(|b| if b.is_ascii_alphanumeric() || b == b'-' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// One request: a GET of a path template filled with hostile values, or a
/// POST of an edited room spec or of arbitrary bytes.
#[derive(Debug, Clone)]
enum Request {
    Get { path: u8, a: u64, b: u64 },
    Post { body: Result<Vec<capicua_fuzzkit::Edit>, Vec<u8>> },
}

fn requests() -> impl Strategy<Value = Request> {
    prop_oneof![
        (0u8..7, any::<u64>(), any::<u64>()).prop_map(|(path, a, b)| Request::Get { path, a, b }),
        edits().prop_map(|e| Request::Post { body: Ok(e) }),
        bytes().prop_map(|b| Request::Post { body: Err(b) }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_a_json_4xx_and_never_a_5xx() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let base = json!({"preset": "block", "seats": 2, "time": {"move-ms": 1000, "bank-ms": 0},
                      "on-timeout": {"kind": "strategy", "name": "random"}, "private": false});
    let words = ["latin", "block", "random", "pimc", "strategy", "pass"];
    let rt = tokio::runtime::Handle::current();
    let config = proptest::test_runner::Config { source_file: Some(file!()), ..config() };
    let result = tokio::task::spawn_blocking(move || {
        let mut runner = TestRunner::new(config);
        runner.run(&requests(), |req| {
            let (method, path, body) = match req {
                Request::Get { path, a, b } => {
                    let (x, y) = (segment(&hostile(a)), segment(&hostile(b)));
                    let path = match path {
                        0 => format!("/api/games/{x}?seat={y}"),
                        1 => format!("/api/leaderboard?variant={x}&limit={y}"),
                        2 => format!("/api/tournaments/{x}"),
                        3 => format!("/api/tournaments/{x}/standings"),
                        4 => format!("/api/{x}"),
                        5 => format!("/{x}"),
                        _ => format!("/api/rooms?{x}={y}"),
                    };
                    ("GET", path, None)
                }
                Request::Post { body: Ok(e) } => {
                    let mut doc = base.clone();
                    apply_with(&mut doc, &e, &words);
                    ("POST", "/api/rooms".to_string(), Some(doc.to_string()))
                }
                Request::Post { body: Err(b) } => {
                    ("POST", "/api/rooms".to_string(), Some(String::from_utf8_lossy(&b).into_owned()))
                }
            };
            let (status, text) = rt.block_on(http_request(addr, method, &path, None, body.as_deref()));
            prop_assert!(status < 500, "{method} {path} -> {status}: {text}");
            if path.starts_with("/api/") && status >= 400 {
                let v: Value = serde_json::from_str(&text)
                    .map_err(|e| TestCaseError::fail(format!("{method} {path} -> {status}, not JSON ({e}): {text}")))?;
                prop_assert!(v["code"].is_string(), "{method} {path} -> {status}: {text}");
            }
            Ok(())
        })
    })
    .await
    .unwrap();
    if let Err(e) = result {
        panic!("{e}");
    }
    assert_eq!(http_get(addr, "/healthz").await.0, 200, "the server still serves");
}
