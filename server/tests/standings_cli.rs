//! `capicua-server standings --tournament N`: the table shows the columns
//! that explain its order, under a header that names that order.

mod common;

use std::process::Command;

use common::temp_db;
use serde_json::json;

/// Runs `args` to the end: (exit success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-server"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Stores a tournament from `spec` with the command line; its id.
fn create(db: &str, spec: &str) -> i64 {
    // Named after the database: tests running at once each write their own.
    let file = std::path::PathBuf::from(format!("{db}.spec.toml"));
    std::fs::write(&file, spec).unwrap();
    let (ok, stdout, stderr) = run(&["tournament", "create", "--database", db, "--file", file.to_str().unwrap()]);
    let _ = std::fs::remove_file(file);
    assert!(ok, "{stderr}");
    stdout.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// One standings row as the runner writes it.
struct Row {
    rank: i64,
    name: &'static str,
    points: i64,
    byes: i64,
    stage: i64,
    eliminated: bool,
    disqualified: bool,
    tie_breaks: &'static str,
}

async fn save(db: &str, tournament: i64, rows: &[Row]) {
    let store = capicua_server::Db::open(db).await.unwrap();
    for (i, r) in rows.iter().enumerate() {
        sqlx::query(
            "INSERT INTO tournament_standing_rows (tournament_id, rank, entrant_id, entrant, points, wins, draws,
             losses, games, byes, timeouts, score, stage, eliminated, disqualified, reprieves, tie_breaks)
             VALUES (?, ?, ?, ?, ?, 1, 0, 1, 2, ?, 0, 150, ?, ?, ?, 0, ?)",
        )
        .bind(tournament)
        .bind(r.rank)
        .bind(i as i64)
        .bind(r.name)
        .bind(r.points)
        .bind(r.byes)
        .bind(r.stage)
        .bind(r.eliminated)
        .bind(r.disqualified)
        .bind(r.tie_breaks)
        .execute(store.pool())
        .await
        .unwrap();
    }
    store.close().await;
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

const SWISS: &str = r#"name = "club night"
table = "duel"
variants = ["block"]
entrants = ["bot:random", "bot:heuristic", "bot:random#2"]
[[stages]]
format = "swiss"
rounds = 2
[scoring]
tie-breaks = ["buchholz", "lot"]
"#;

const CUP: &str = r#"name = "cup"
table = "duel"
variants = ["block"]
entrants = ["bot:random", "bot:heuristic"]
[[stages]]
format = "knockout"
[scoring]
winner = "most-wins"
"#;

#[tokio::test]
async fn the_table_shows_what_ranks_it() {
    let path = temp_db();
    let db = path.to_str().unwrap();
    let swiss = create(db, SWISS);
    let rows = [
        Row {
            rank: 1,
            name: "bot:heuristic",
            points: 6,
            byes: 1,
            stage: 0,
            eliminated: false,
            disqualified: false,
            tie_breaks: "[9, -2]",
        },
        Row {
            rank: 2,
            name: "bot:random",
            points: 6,
            byes: 0,
            stage: 0,
            eliminated: false,
            disqualified: false,
            tie_breaks: "[7, -1]",
        },
        Row {
            rank: 3,
            name: "bot:random#2",
            points: 9,
            byes: 0,
            stage: 0,
            eliminated: false,
            disqualified: true,
            tie_breaks: "[3, -3]",
        },
    ];
    save(db, swiss, &rows).await;
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--tournament", &swiss.to_string()]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert!(lines[0].starts_with("club night (tournament"), "{stdout}");
    assert_eq!(
        lines[1],
        "ranked by: not disqualified, furthest stage, most points; then tie-breaks buchholz, lot; then seed"
    );
    assert_eq!(
        words(lines[2]),
        ["rank", "entrant", "stage", "points", "wins", "draws", "losses", "byes", "games", "score", "buchholz", "lot"]
    );
    assert_eq!(words(lines[3]), ["1", "bot:heuristic", "0", "6", "1", "0", "1", "1", "2", "150", "9", "-2"]);
    assert_eq!(words(lines[4]), ["2", "bot:random", "0", "6", "1", "0", "1", "0", "2", "150", "7", "-1"]);
    assert_eq!(
        words(lines[5]),
        ["3", "bot:random#2", "0", "9", "1", "0", "1", "0", "2", "150", "3", "-3", "(disqualified)"]
    );
    // Columns are right-aligned under their headers: rows end where the
    // header ends (before a flag).
    assert_eq!(lines[3].len(), lines[2].len(), "{stdout}");
    assert_eq!(lines[4].len(), lines[2].len(), "{stdout}");
    assert_eq!(lines[5].find("  (disqualified)"), Some(lines[2].len()), "{stdout}");

    // A knockout under another winner rule says so.
    let cup = create(db, CUP);
    let rows = [
        Row {
            rank: 1,
            name: "bot:heuristic",
            points: 3,
            byes: 0,
            stage: 0,
            eliminated: false,
            disqualified: false,
            tie_breaks: "[0, 1, 15, 0]",
        },
        Row {
            rank: 2,
            name: "bot:random",
            points: 0,
            byes: 0,
            stage: 0,
            eliminated: true,
            disqualified: false,
            tie_breaks: "[0, 0, -15, 3]",
        },
    ];
    save(db, cup, &rows).await;
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--tournament", &cup.to_string()]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[1],
        "ranked by: not disqualified, furthest stage, later knockout exit, most wins, then points; \
         then tie-breaks head-to-head, wins, score-difference, buchholz; then seed"
    );
    assert_eq!(&words(lines[2])[10..], ["head-to-head", "wins", "score-difference", "buchholz"]);
    assert_eq!(words(lines[4]).last(), Some(&"(eliminated)"));

    // A stored spec this binary cannot read still prints, tie-breaks numbered.
    let store = capicua_server::Db::open(db).await.unwrap();
    sqlx::query("UPDATE tournaments SET spec = 'not a spec' WHERE id = ?")
        .bind(cup)
        .execute(store.pool())
        .await
        .unwrap();
    store.close().await;
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--tournament", &cup.to_string()]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(&words(lines[2])[10..], ["tb1", "tb2", "tb3", "tb4"], "{stdout}");
    assert_eq!(words(lines[3]), ["1", "bot:heuristic", "0", "3", "1", "0", "1", "0", "2", "150", "0", "1", "15", "0"]);
}

/// An entrant the organiser withdrew may also be out of a knockout: the
/// table says why it left, `(withdrawn)`, not `(eliminated)`.
#[tokio::test]
async fn a_withdrawn_entrant_reads_withdrawn_not_eliminated() {
    let path = temp_db();
    let db = path.to_str().unwrap();
    let cup = create(db, CUP);
    let store = capicua_server::Db::open(db).await.unwrap();
    for (rank, name, withdrawn) in [(1, "bot:heuristic", false), (2, "bot:random", true)] {
        sqlx::query(
            "INSERT INTO tournament_standing_rows (tournament_id, rank, entrant_id, entrant, points, wins, draws,
             losses, games, byes, timeouts, score, stage, eliminated, disqualified, reprieves, tie_breaks, withdrawn)
             VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, ?, 0, 0, '[0, 0, 0, 0]', ?)",
        )
        .bind(cup)
        .bind(rank)
        .bind(rank - 1)
        .bind(name)
        .bind(withdrawn)
        .bind(withdrawn)
        .execute(store.pool())
        .await
        .unwrap();
    }
    store.close().await;
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--tournament", &cup.to_string()]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(words(lines[3]).last(), Some(&"0"), "{stdout}");
    assert_eq!(words(lines[4]).last(), Some(&"(withdrawn)"), "{stdout}");
    let (ok, json, stderr) = run(&["standings", "--database", db, "--tournament", &cup.to_string(), "--json"]);
    assert!(ok, "{stderr}");
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((&rows[0]["withdrawn"], &rows[1]["withdrawn"]), (&json!(false), &json!(true)), "{rows}");
}
