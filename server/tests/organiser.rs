//! What an organiser reads of a running tournament on a real server
//! (port 0, real WebSockets): who is here, each round's pairings, the
//! corrected result on the game itself, a withdrawn entrant shown as
//! withdrawn, and the CSV exports, over HTTP and the CLI; every test runs
//! on a SQLite file and on a PostgreSQL database.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use capicua_server::Config;
use common::{Client, TestServer, WAIT, on_both, play_round, register, wait_for};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

on_both!(a_round_robin_shows_who_is_here_its_pairings_its_correction_and_its_withdrawal,);

const ADMIN: &str = "s3cret";

/// A hosted bot whose name needs quoting in CSV: a comma and quotes.
const ODD: &str = "bot:random#the \"odd\", one";

async fn control(server: &TestServer, id: i64, name: &str, body: Value) -> (u16, Value) {
    server.post_json(&format!("/api/tournaments/{id}/{name}"), Some(ADMIN), &body.to_string()).await
}

/// Connects `name` as itself, awaiting assignments.
async fn connect(server: &TestServer, token: &str) -> Client {
    let mut c = server.client().await;
    c.hello(Some(token)).await;
    let r = c.request(json!({"type": "await-assignments"})).await;
    assert_eq!(r["type"], "awaiting", "{r}");
    c
}

/// The presence row of entrant `name`.
fn presence<'a>(detail: &'a Value, name: &str) -> &'a Value {
    detail["presence"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{detail}"))
}

/// The standing of entrant `name`.
fn standing<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings.as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("{standings}"))
}

/// `GET path`: (status, content type, body).
async fn get_with_type(server: &TestServer, path: &str) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let kind = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_string))
        .unwrap_or_default();
    assert!(!head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "{head}");
    (status, kind, body.to_string())
}

/// Parses RFC 4180 CSV: rows of fields (quoted fields may hold commas,
/// doubled quotes and line breaks).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(field.is_empty() && row.is_empty(), "the CSV ends with a line break: {text:?}");
    rows
}

/// The rows of `csv` as maps from its header's names.
fn records(csv: &str) -> Vec<HashMap<String, String>> {
    let rows = parse_csv(csv);
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| {
            assert_eq!(r.len(), header.len(), "{r:?} against {header:?}");
            header.iter().cloned().zip(r.iter().cloned()).collect()
        })
        .collect()
}

async fn cli(args: Vec<String>) -> (bool, String, String) {
    tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_capicua-server"))
            .args(&args)
            .env_remove("CAPICUA_ADMIN_TOKEN")
            .env_remove("CAPICUA_SERVER")
            .env("RUST_LOG", "warn")
            .output()
            .expect("run capicua-server");
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
    })
    .await
    .unwrap()
}

/// `capicua-server tournament WHAT ID --server URL EXTRA...`: its stdout.
async fn tournament_cli(server: &TestServer, what: &str, id: i64, extra: &[&str]) -> String {
    let mut args: Vec<String> = ["tournament", what, &id.to_string(), "--server", &format!("http://{}", server.addr)]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let (ok, out, err) = cli(args).await;
    assert!(ok, "tournament {what}: {err}");
    out
}

/// Waits until every table of round `r` has a room; returns the detail.
async fn round_open(server: &TestServer, id: i64, r: usize) -> Value {
    wait_for(&format!("round {r}'s tables to open"), WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        let tables = d["rounds"][r]["tables"].as_array().cloned().unwrap_or_default();
        if !tables.is_empty() && tables.iter().all(|t| t["room"].is_u64()) { Ok(d) } else { Err(d) }
    })
    .await
}

async fn a_round_robin_shows_who_is_here_its_pairings_its_correction_and_its_withdrawal(database: String) {
    let server = TestServer::start_with(
        PathBuf::from(&database),
        Config { admin_token: Some(ADMIN.into()), ..common::config() },
    )
    .await;
    let tokens = register(&server, &["ana", "ben", "cy"]).await;
    let mut clients = HashMap::new();
    for name in ["ana", "ben"] {
        clients.insert(name.to_string(), connect(&server, &tokens[name]).await);
    }
    let spec = json!({
        "name": "club night", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": ["ana", "ben", "cy", ODD],
        "stages": [{"format": "round-robin"}],
        "clock": {"move-ms": 30000, "no-show-secs": 600}
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let url = format!("http://{}", server.addr);

    // Round 0 waits: ana and ben are here, cy (never connected) is missing,
    // and each open table names the node it plays on: this server.
    let detail = wait_for("cy to read as missing", WAIT, async || {
        let d = round_open(&server, id, 0).await;
        if presence(&d, "cy")["state"] == "missing" { Ok(d) } else { Err(d["presence"].clone()) }
    })
    .await;
    for name in ["ana", "ben"] {
        let p = presence(&detail, name);
        assert_eq!(p["state"], "waiting", "{p}");
        assert_eq!(p["players"], json!([{"name": name, "connected": true}]), "{p}");
        assert_eq!(p["table"]["round"], 0, "{p}");
    }
    assert_eq!(presence(&detail, "cy")["players"], json!([{"name": "cy", "connected": false}]));
    for t in detail["rounds"][0]["tables"].as_array().unwrap() {
        assert_eq!(t["node"]["url"], json!(url), "{t}");
        assert!(t["node"]["id"].as_i64().unwrap() > 0, "{t}");
    }
    let shown = tournament_cli(&server, "show", id, &[]).await;
    assert!(shown.contains("who is here:"), "{shown}");
    assert!(
        shown.lines().any(|l| l.trim_start().starts_with("cy: missing") && l.ends_with("not connected: cy")),
        "{shown}"
    );
    assert!(shown.contains("table 1: node ") && shown.contains(&url), "{shown}");

    // The pairings of the waiting round: each table waits for its players.
    let pairings = server.get_json(&format!("/api/tournaments/{id}/pairings?round=0")).await;
    assert_eq!(pairings["rounds"].as_array().unwrap().len(), 1, "{pairings}");
    let cy_table = pairings["rounds"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seats"].as_array().unwrap().iter().any(|s| s["player"] == "cy"))
        .unwrap()
        .clone();
    assert_eq!(cy_table["state"], "waiting", "{cy_table}");
    assert!(cy_table["waiting-for"].as_array().unwrap().contains(&json!("cy")), "{cy_table}");
    let text = tournament_cli(&server, "pairings", id, &["--round", "1"]).await;
    assert!(text.starts_with("round 1 (stage 1, block), in progress\n"), "{text}");
    assert!(text.contains("waiting for") && text.contains("    seat 1: "), "{text}");

    // The odd bot is withdrawn; cy comes; round 0 is played out.
    assert_eq!(control(&server, id, "withdraw", json!({"entrant": ODD})).await.0, 200);
    clients.insert("cy".into(), connect(&server, &tokens["cy"]).await);
    play_round(&mut clients, &detail["rounds"][0]).await;
    wait_for("round 0's results", WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        if d["results"] == 2 { Ok(()) } else { Err(d["results"].clone()) }
    })
    .await;

    // Table 0 is corrected: its winner swapped.
    let played =
        server.get_json(&format!("/api/tournaments/{id}/pairings?round=0")).await["rounds"][0]["tables"][0].clone();
    let game = played["game"].as_i64().expect("a finished table's game");
    let old_winner = played["result"]["winner"].clone();
    let new_winner = match old_winner.as_u64() {
        Some(w) => json!(1 - w),
        None => json!(0),
    };
    let (s, e) =
        control(&server, id, "correct", json!({"round": 0, "table": 0, "winner": new_winner, "by": "referee"})).await;
    assert_eq!(s, 200, "{e}");

    // The game itself tells the result that counts, and the one played.
    let g = server.get_json(&format!("/api/games/{game}?limit=1")).await;
    assert_eq!(g["winner"], new_winner, "{g}");
    assert_eq!(g["played-winner"], old_winner, "{g}");
    let c = &g["correction"];
    assert_eq!(
        (&c["by"], &c["tournament"], &c["round"], &c["table"]),
        (&json!("referee"), &json!(id), &json!(0), &json!(0))
    );
    assert_eq!(c["result"]["winner"], new_winner, "{c}");
    assert!(c["at"].as_i64().unwrap() > 1_000_000_000_000, "unix ms: {c}");
    let other = played_game(&server, id, 1).await;
    let g1 = server.get_json(&format!("/api/games/{other}?limit=1")).await;
    assert!(g1.get("correction").is_none() && g1.get("played-winner").is_none(), "{g1}");
    let listed = server.get_json("/api/games?limit=100").await;
    let row = listed.as_array().unwrap().iter().find(|r| r["id"] == game).unwrap();
    assert_eq!((&row["winner"], &row["correction"]["by"]), (&new_winner, &json!("referee")), "{row}");

    // The pairings say who corrected it and what was played.
    let p = server.get_json(&format!("/api/tournaments/{id}/pairings")).await;
    let t0 = &p["rounds"][0]["tables"][0];
    assert_eq!((&t0["state"], &t0["corrected-by"], &t0["game"]), (&json!("finished"), &json!("referee"), &json!(game)));
    assert_eq!((&t0["result"]["winner"], &t0["played"]["winner"]), (&new_winner, &old_winner), "{t0}");
    let text = tournament_cli(&server, "pairings", id, &[]).await;
    assert!(text.contains(&format!("game {game}; corrected by referee (as played: ")), "{text}");
    let results = server.get_json(&format!("/api/tournaments/{id}/results")).await;
    assert_eq!(results.as_array().unwrap().len(), 2, "{results}");

    // Withdrawn is withdrawn: in the detail, the view, the CLI, the presence.
    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(standing(&detail["standings"], ODD)["withdrawn"], true);
    assert_eq!(standing(&detail["standings"], "ana")["withdrawn"], false);
    let view = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    assert_eq!(standing(&view, ODD)["withdrawn"], true, "{view}");
    assert_eq!(presence(&detail, ODD)["state"], "withdrawn");
    let (ok, table, err) =
        cli(vec!["standings".into(), "--database".into(), database.clone(), "--tournament".into(), id.to_string()])
            .await;
    assert!(ok, "{err}");
    let odd_line = table.lines().find(|l| l.contains("odd")).unwrap_or_else(|| panic!("{table}"));
    assert!(odd_line.ends_with("(withdrawn)"), "{table}");

    // The exports: CSV with a header and quoted names, and the same in JSON.
    let (s, kind, csv) = get_with_type(&server, &format!("/api/tournaments/{id}/standings.csv")).await;
    assert_eq!((s, kind.as_str()), (200, "text/csv; charset=utf-8"), "{csv}");
    let rows = records(&csv);
    assert_eq!(rows.len(), 4, "{csv}");
    let odd = rows.iter().find(|r| r["name"] == ODD).unwrap_or_else(|| panic!("{csv}"));
    assert_eq!(odd["withdrawn"], "true");
    let header = &parse_csv(&csv)[0];
    let tie_breaks: Vec<String> = detail["spec"]["scoring"]["tie-breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("tie-break-{}", t.as_str().unwrap()))
        .collect();
    assert!(!tie_breaks.is_empty() && header.ends_with(&tie_breaks), "{header:?} {tie_breaks:?}");
    let unique: std::collections::HashSet<&String> = header.iter().collect();
    assert_eq!(unique.len(), header.len(), "column names are unique: {header:?}");
    let (_, _, csv) = get_with_type(&server, &format!("/api/tournaments/{id}/pairings.csv")).await;
    let rows = records(&csv);
    let round0: Vec<_> = rows.iter().filter(|r| r["round"] == "0").collect();
    assert_eq!(round0.len(), 4, "two tables of two seats: {csv}");
    assert!(round0.iter().any(|r| r["entrant-name"] == ODD), "{csv}");
    assert!(round0.iter().any(|r| r["table"] == "0" && r["corrected-by"] == "referee"), "{csv}");
    let (_, _, csv) = get_with_type(&server, &format!("/api/tournaments/{id}/results.csv")).await;
    let rows = records(&csv);
    assert_eq!(rows.len(), 2, "{csv}");
    let r0 = rows.iter().find(|r| r["table"] == "0").unwrap();
    assert_eq!((r0["game"].as_str(), r0["corrected-by"].as_str()), (game.to_string().as_str(), "referee"), "{csv}");
    assert_eq!(r0["winner-side"], new_winner.to_string(), "{csv}");
    let exported = tournament_cli(&server, "export", id, &["--what", "standings"]).await;
    assert_eq!(exported, get_with_type(&server, &format!("/api/tournaments/{id}/standings.csv")).await.2);
    let json_export = tournament_cli(&server, "export", id, &["--what", "results", "--format", "json"]).await;
    let parsed: Value = serde_json::from_str(&json_export).expect("JSON");
    assert_eq!(parsed.as_array().unwrap().len(), 2, "{parsed}");

    // A round that does not exist pairs nothing; a bad query is a 400.
    let none = server.get_json(&format!("/api/tournaments/{id}/pairings?round=99")).await;
    assert_eq!(none["rounds"], json!([]));
    let (s, body) = server.get(&format!("/api/tournaments/{id}/pairings?round=first")).await;
    assert_eq!(s, 400, "{body}");
    let (s, _) = server.get("/api/tournaments/999/pairings.csv").await;
    assert_eq!(s, 404);
    drop(clients);
}

/// The stored game of round 0's table `table`.
async fn played_game(server: &TestServer, id: i64, table: usize) -> i64 {
    let p = server.get_json(&format!("/api/tournaments/{id}/pairings?round=0")).await;
    p["rounds"][0]["tables"][table]["game"].as_i64().unwrap_or_else(|| panic!("{p}"))
}

/// Two servers on one PostgreSQL database: a player connected to either is
/// here, whichever node the organiser asks; one connected to neither is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_connected_to_another_node_is_here() {
    let Some(pg) = capicua_pgtest::require("a_player_connected_to_another_node_is_here") else {
        return;
    };
    let database = pg.fresh_database();
    let config = || Config { admin_token: Some(ADMIN.into()), ..common::config() };
    let a = TestServer::start_with(PathBuf::from(&database), config()).await;
    let b = TestServer::start_with(PathBuf::from(&database), config()).await;
    let tokens = register(&a, &["ana", "ben", "cy"]).await;
    let _ana = connect(&a, &tokens["ana"]).await;
    let _ben = connect(&b, &tokens["ben"]).await;
    let spec = json!({
        "name": "two halls", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": ["ana", "ben", "cy", "bot:random"],
        "stages": [{"format": "round-robin"}],
        "clock": {"move-ms": 30000, "no-show-secs": 600}
    });
    let (status, created) = a.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    for server in [&a, &b] {
        // Each node learns the other's players at its next beat.
        wait_for("ana and ben here, cy not, on either node", WAIT, async || {
            let d = server.get_json(&format!("/api/tournaments/{id}")).await;
            let connected = |name: &str| presence(&d, name)["players"][0]["connected"].clone();
            let seen = [connected("ana"), connected("ben"), connected("cy")];
            if seen == [json!(true), json!(true), json!(false)] { Ok(()) } else { Err(d["presence"].clone()) }
        })
        .await;
    }
}
