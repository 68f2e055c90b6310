//! The `capicua-server` command line, run as a process against a temp database.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::temp_db;

fn capicua_server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capicua-server"))
}

/// Runs `args` with stdout a pipe that is closed after `keep` bytes
/// (`| head -c keep`): (exit success, stderr).
fn with_stdout_closed_after(args: &[&str], keep: usize) -> (bool, String) {
    let mut child = capicua_server()
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0; keep];
    stdout.read_exact(&mut head).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn output_to_a_closed_pipe_ends_quietly() {
    // The schema is larger than a pipe's buffer, so writing it must meet the
    // closed pipe.
    let (ok, stderr) = with_stdout_closed_after(&["schema"], 16);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(ok, "{stderr}");
    // `standings` reads an existing database only.
    let db = temp_db();
    capicua_server::Db::open(db.to_str().unwrap()).await.unwrap().close().await;
    let (ok, stderr) = with_stdout_closed_after(&["standings", "--database", db.to_str().unwrap()], 1);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(ok, "{stderr}");
}

/// Runs `args` to the end: (exit success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let out = capicua_server().args(args).env("RUST_LOG", "warn").output().expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_variant_without_rated_games_is_an_error_said_once() {
    let db = temp_db();
    let db = db.to_str().unwrap();
    let store = capicua_server::Db::open(db).await.unwrap();
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--variant", "typo"]);
    assert!(!ok, "{stdout}");
    assert_eq!(stderr.trim(), "error: no rated games in variant \"typo\": there are no rated games yet");
    // With rated games, the message names their variants.
    let (pat, _) = store.register("pat").await.unwrap();
    for variant in ["block", "draw"] {
        sqlx::query("INSERT INTO ratings VALUES (?, ?, 25.0, 8.3, 0.0, 1, 1, 0)")
            .bind(variant)
            .bind(pat.id)
            .execute(store.pool())
            .await
            .unwrap();
    }
    store.close().await;
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--variant", "typo"]);
    assert!(!ok, "{stdout}");
    assert_eq!(stderr.trim(), "error: no rated games in variant \"typo\"; variants with rated games: block, draw");
    let (ok, stdout, stderr) = run(&["standings", "--database", db, "--variant", "draw"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("pat"), "{stdout}");
    // A cause is printed once, on the same line.
    let (ok, _, stderr) = run(&["tournament", "create", "--database", db, "--file", "/nonexistent/t.toml"]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: reading /nonexistent/t.toml: "), "{stderr}");
    assert!(!stderr.contains("Caused by"), "{stderr}");
}

#[test]
fn the_tournament_list_has_a_header() {
    let db = temp_db();
    let dir = std::env::temp_dir().join(format!("capicua-cli-{}.toml", std::process::id()));
    std::fs::write(
        &dir,
        "name = \"cup\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"bot:random\", \"bot:heuristic\"]\n[[stages]]\nformat = \"knockout\"\n",
    )
    .unwrap();
    let db = db.to_str().unwrap();
    let (ok, _, stderr) = run(&["tournament", "create", "--database", db, "--file", dir.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let (ok, stdout, stderr) = run(&["tournament", "list", "--database", db]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["id", "name", "status", "entrants", "results"]);
    assert!(lines[1].contains("cup"), "{stdout}");
    let _ = std::fs::remove_file(dir);
}

/// `register` on the command line applies the protocol's name rules: a
/// name the wire refuses is refused here too, and nothing is registered.
#[tokio::test]
async fn register_applies_the_name_rules() {
    let db = temp_db();
    let db = db.to_str().unwrap();
    for bad in ["admin", "Admin", "guest-7", "two  spaces", "", "a:b", &"x".repeat(33)] {
        let (ok, stdout, stderr) = run(&["register", bad, "--database", db]);
        assert!(!ok, "{bad:?} was accepted: {stdout}");
        assert!(stderr.contains("names are 1 to 32"), "{bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let (ok, stdout, stderr) = run(&["register", "ana.b-1_", "--database", db]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("registered ana.b-1_"), "{stdout}");
    let store = capicua_server::Db::open(db).await.unwrap();
    assert!(store.player_id("admin").await.unwrap().is_none());
    store.close().await;
}

/// A rated block game between `a` and `b` stored in `db`: `winner` is the
/// winning seat, `None` a draw.
async fn store_block_game(db: &capicua_server::Db, room: i64, a: i64, b: i64, winner: Option<u8>) {
    use capicua_server::db::{GameRecord, SeatKind, SeatRecord};
    let seat = |i: u8, p: i64| SeatRecord {
        seat: i,
        side: i,
        player_id: Some(p),
        name: format!("p{p}"),
        kind: SeatKind::Player,
    };
    let scores = match winner {
        Some(0) => vec![50, 0],
        Some(_) => vec![0, 50],
        None => vec![20, 20],
    };
    let record = GameRecord {
        room_id: Some(room),
        play: capicua_server::db::Play::Tiles {
            variant: capicua_engine::preset("block").unwrap(),
            seating: capicua_engine::Seating::new(2),
            moves: Vec::new(),
        },
        seed: 1,
        timeouts: vec![0; 2],
        seat_scores: scores.clone(),
        seats: vec![seat(0, a), seat(1, b)],
        scores,
        hands: capicua_server::db::HandResults::Tiles(Vec::new()),
        winner,
        forfeit: None,
        rated: true,
        tournament: None,
    };
    db.store_game(record).await.unwrap();
}

#[tokio::test]
async fn standings_and_the_ladder_show_wins_draws_and_losses() {
    let path = temp_db();
    let db = capicua_server::Db::open(path.to_str().unwrap()).await.unwrap();
    let room = db.create_room(&capicua_engine::preset("block").unwrap(), 2, true).await.unwrap();
    let ana = db.register("ana").await.unwrap().0.id;
    let ben = db.register("ben").await.unwrap().0.id;
    store_block_game(&db, room, ana, ben, Some(0)).await;
    store_block_game(&db, room, ana, ben, None).await;
    store_block_game(&db, room, ben, ana, Some(0)).await;
    store_block_game(&db, room, ben, ana, None).await;
    store_block_game(&db, room, ana, ben, Some(0)).await;
    db.close().await;
    let path = path.to_str().unwrap();
    for args in [vec!["standings", "--database", path], vec!["ladder", "--variant", "block", "--database", path]] {
        let (ok, out, err) = run(&args);
        assert!(ok, "{args:?}: {err}");
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split_whitespace().collect()).collect();
        let header = lines.iter().position(|l| l.first() == Some(&"rank")).expect("a header");
        assert_eq!(&lines[header][5..], ["games", "wins", "draws", "losses"], "{out}");
        let row = |name: &str| -> Vec<&str> {
            let l = lines.iter().find(|l| l.get(1) == Some(&name)).unwrap_or_else(|| panic!("{name}: {out}"));
            l[5..].to_vec()
        };
        // ana: won 2, drew 2, lost 1; ben the other way round.
        assert_eq!(row("ana"), ["5", "2", "2", "1"], "{out}");
        assert_eq!(row("ben"), ["5", "1", "2", "2"], "{out}");
    }
    let (ok, _, err) = run(&["ladder", "--variant", "../x", "--database", path]);
    assert!(!ok && err.contains("unknown preset"), "{err}");
}

/// `serve --port N`, the flag many servers have, says which flag it is
/// here instead of starting (or failing on an unknown argument).
#[test]
fn serve_with_a_port_flag_names_listen() {
    let (ok, _, stderr) = run(&["serve", "--port", "9000", "--database", "/nonexistent/never-created.db"]);
    assert!(!ok, "{stderr}");
    assert!(stderr.contains("--listen 127.0.0.1:9000"), "{stderr}");
    assert!(!std::path::Path::new("/nonexistent/never-created.db").exists());
}

/// `serve` refuses an admin token a guesser could find: short, or one
/// character repeated; it starts nothing for it.
#[test]
fn serve_refuses_a_weak_admin_token() {
    for (token, says) in
        [("s3cret", "at least 16"), ("aaaaaaaaaaaaaaaaaaaa", "repeated"), ("has spaces in the token", "spaces")]
    {
        let (ok, _, stderr) =
            run(&["serve", "--admin-token", token, "--listen", "127.0.0.1:0", "--database", "/nonexistent/never.db"]);
        assert!(!ok, "{token:?} was taken");
        assert!(stderr.contains("--admin-token") && stderr.contains(says), "{token:?}: {stderr}");
    }
    assert!(!std::path::Path::new("/nonexistent/never.db").exists());
}
