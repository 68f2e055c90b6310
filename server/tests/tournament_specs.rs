//! A tournament spec is checked when the tournament is created, over HTTP
//! (a 400 JSON error naming the field) and by `capicua-server tournament
//! create` (an error naming the field), never midway; a spec sent over
//! HTTP never names a file on the server's disk, and the operator's variant
//! files are stored with the tournament.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use capicua_server::Config;
use common::{TestServer, WAIT, temp_db, wait_for};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ADMIN: &str = "s3cret";

/// A minimal HTTP/1.1 POST of raw bytes: (status, body as JSON, or `Null`
/// when it is not JSON).
async fn post(addr: SocketAddr, content_type: &str, body: &[u8]) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/tournaments HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: {content_type}\r\n\
         Authorization: Bearer {ADMIN}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    // The server may answer (and close) before it reads a body it refuses.
    let _ = s.write_all(body).await;
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn admin_server(db: PathBuf) -> TestServer {
    TestServer::start_with(db, Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// A duel knockout of hosted bots, with `extra` TOML appended.
fn toml_spec(extra: &str) -> String {
    format!(
        "name = \"t\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"bot:random\", \"bot:random#2\", \"bot:random#3\"]\n\
         [[stages]]\nformat = \"round-robin\"\n{extra}"
    )
}

/// `(status, code, field)` of an answer.
fn parts(r: &(u16, Value)) -> (u16, Option<&str>, Option<&str>) {
    (r.0, r.1["code"].as_str(), r.1["field"].as_str())
}

#[tokio::test]
async fn bad_specs_are_refused_at_creation_naming_the_field() {
    let mut server = admin_server(temp_db()).await;
    let bad = |field: &'static str| (400, Some("bad-tournament"), Some(field));
    let cases = [
        (toml_spec("[stop]\nwinners = 4\n"), "stop.winners"),
        (toml_spec("[stop]\npoints = 0\n"), "stop.points"),
        (toml_spec("[scoring.points.per-result]\nwin = 3\ndraw = 1\nloss = -1\n"), "scoring.points.per-result.loss"),
        // Parse errors name their path.
        (toml_spec("legs = \"two\"\n"), "stages[0].legs"),
        (toml_spec("legs = 99999999999\n"), "stages[0].legs"),
        (toml_spec("leg = 2\n"), "stages[0].leg"),
        (toml_spec("[clock]\nmove-ms = -5\n"), "clock.move-ms"),
    ];
    for (spec, field) in &cases {
        let r = post(server.addr, "text/plain", spec.as_bytes()).await;
        assert_eq!(parts(&r), bad(field), "{spec}\n{}", r.1);
    }
    let json = r#"{"name": "t", "table": "duel", "variants": ["block"], "entrants": ["bot:random", "bot:random#2"],
        "stages": [{"format": "round-robin", "legs": "two"}]}"#;
    let r = post(server.addr, "application/json", json.as_bytes()).await;
    assert_eq!(parts(&r), bad("stages[0].legs"), "{}", r.1);
    let r = post(server.addr, "application/json", json.replace("\"legs\"", "\"leg\"").as_bytes()).await;
    assert_eq!(parts(&r), bad("stages[0].leg"), "{}", r.1);
    let r = post(server.addr, "application/json", json.replace("\"two\"", "1, \"groups\": -1").as_bytes()).await;
    assert_eq!(parts(&r), bad("stages[0].groups"), "{}", r.1);

    // 512 entrants, a 4-leg round robin: 523,264 games, unless meant.
    let entrants: Vec<String> = (0..512).map(|i| format!("\"bot:random#{i}\"")).collect();
    let huge = format!(
        "name = \"huge\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [{}]\n[[stages]]\nformat = \"round-robin\"\nlegs = 4\n",
        entrants.join(", ")
    );
    let r = post(server.addr, "text/plain", huge.as_bytes()).await;
    assert_eq!(parts(&r), bad("max-games"), "{}", r.1);
    assert!(r.1["message"].as_str().unwrap().contains("523264"), "{}", r.1);

    // A body too large or not UTF-8 gets a JSON error like any other.
    let r = post(server.addr, "text/plain", &vec![b'#'; 256 * 1024 + 1]).await;
    assert_eq!(parts(&r), (413, Some("bad-tournament"), None), "{}", r.1);
    let mut latin1 = toml_spec("").into_bytes();
    latin1[8] = 0xe9;
    let r = post(server.addr, "text/plain", &latin1).await;
    assert_eq!(parts(&r), (400, Some("bad-tournament"), None), "{}", r.1);

    // `max-games` is the organiser's limit either way: three games need 3.
    let capped = |m: u32| toml_spec("").replace("name = \"t\"\n", &format!("name = \"t\"\nmax-games = {m}\n"));
    let r = post(server.addr, "text/plain", capped(2).as_bytes()).await;
    assert_eq!(parts(&r), bad("max-games"), "{}", r.1);
    // Nothing was stored; a spec within its limit is.
    assert_eq!(server.get_json("/api/tournaments").await, serde_json::json!([]));
    let r = post(server.addr, "text/plain", capped(3).as_bytes()).await;
    assert_eq!(r.0, 201, "{}", r.1);
    server.stop().await;
}

/// A valid variant file in a fresh directory: block, under its own name
/// (a rated room playing other rules than a preset's needs its own name).
fn variant_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capicua-specs-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("house.toml"), "base = \"block\"\nname = \"house-block\"\n").unwrap();
    dir
}

#[tokio::test]
async fn a_spec_sent_over_http_never_names_a_file_on_the_server() {
    let server = admin_server(temp_db()).await;
    let dir = variant_dir("http");
    // The file exists and is a good variant: it is refused all the same, unread.
    let path = dir.join("house.toml");
    let spec = toml_spec("").replace("[\"block\"]", &format!("[\"block\", {:?}]", path.to_str().unwrap()));
    let r = post(server.addr, "text/plain", spec.as_bytes()).await;
    assert_eq!(parts(&r), (400, Some("bad-tournament"), Some("variants[1]")), "{}", r.1);
    assert!(r.1["message"].as_str().unwrap().contains("presets only"), "{}", r.1);
    let spec = toml_spec("variants = [\"/etc/passwd.toml\"]\n");
    let r = post(server.addr, "text/plain", spec.as_bytes()).await;
    assert_eq!(parts(&r), (400, Some("bad-tournament"), Some("stages[0].variants[0]")), "{}", r.1);
    assert_eq!(server.get_json("/api/tournaments").await, serde_json::json!([]));
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `capicua-server tournament create` in `dir`: (success, stderr).
fn cli_create(dir: &Path, db: &Path, spec: &str) -> (bool, String) {
    std::fs::write(dir.join("t.toml"), spec).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .args(["tournament", "create", "--database", db.to_str().unwrap(), "--file", "t.toml"])
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn the_cli_checks_variant_files_and_stores_them_with_the_tournament() {
    let dir = variant_dir("cli");
    let db = temp_db();
    let with = |variants: &str| toml_spec("").replace("[\"block\"]", variants);

    let (ok, stderr) = cli_create(&dir, &db, &with("[\"block\", \"missing.toml\"]"));
    assert!(!ok);
    assert!(stderr.contains("variants[1]: variant file \"missing.toml\""), "{stderr}");
    std::fs::write(dir.join("bad.toml"), "base = \"block\"\n\n[deal]\nhand-size = 99\n").unwrap();
    let (ok, stderr) = cli_create(&dir, &db, &with("[\"bad.toml\"]"));
    assert!(!ok);
    assert!(stderr.contains("variants[0]: bad.toml:4: deal.hand-size"), "{stderr}");
    // latin seats four in pairs: not a duel's variant.
    std::fs::write(dir.join("four.toml"), "base = \"latin\"\nname = \"house-latin\"\n").unwrap();
    let (ok, stderr) = cli_create(&dir, &db, &with("[\"four.toml\"]"));
    assert!(!ok);
    assert!(stderr.contains("variants[0]: variant file \"four.toml\" seats 4 to 4 players"), "{stderr}");
    // Other checks name their field on the command line as well.
    let (ok, stderr) = cli_create(&dir, &db, &toml_spec("[stop]\nwinners = 9\n"));
    assert!(!ok);
    assert!(stderr.contains("stop.winners: 9 winners of 3 entrants"), "{stderr}");
    let (ok, stderr) = cli_create(&dir, &db, &toml_spec("legs = 1.5\n"));
    assert!(!ok);
    assert!(stderr.contains("stages[0].legs: line 7: "), "{stderr}");

    let (ok, stderr) = cli_create(&dir, &db, &with("[\"house.toml\"]"));
    assert!(ok, "{stderr}");
    // The file changes (here: is broken) after the tournament is created: the
    // event plays the variant as it was.
    std::fs::write(dir.join("house.toml"), "this is not a variant").unwrap();
    let mut server = admin_server(db).await;
    let detail = wait_for("the tournament to finish", WAIT, async || {
        let d = server.get_json("/api/tournaments/1").await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(d) } else { Err(d) }
    })
    .await;
    assert_eq!(detail["variant-files"]["house.toml"]["name"], "house-block", "{detail}");
    let game = detail["rounds"][0]["tables"][0]["game"].as_i64().unwrap();
    let stored = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(stored["variant"]["name"], "house-block", "{stored}");
    server.stop().await;
    let _ = std::fs::remove_dir_all(dir);
}
