//! The always-on ladder on a real server (port 0, real WebSockets): remote
//! bots join the pool, the server keeps pairing them in rated rooms, and
//! what `/api/ladder` shows is what the stored games say.

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use capicua_bot::remote::{LadderConfig, Tally, ladder};
use capicua_server::Config;
use capicua_server::db::Db;
use common::{TestServer, temp_db, wait_for, wait_until};
use serde_json::{Value, json};
use sqlx::Row;

/// How long the bots play: `CAPICUA_LADDER_SECS` (default 60).
fn play_for() -> Duration {
    let secs = std::env::var("CAPICUA_LADDER_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    Duration::from_secs(secs)
}

/// A server whose ladder pairs every 100 ms, with a short clock and
/// no-show time, so a test sees many matches and a missing player's seat
/// forfeits quickly.
async fn ladder_server() -> TestServer {
    let ladder = capicua_server::ladder::LadderConfig {
        every: Duration::from_millis(100),
        move_ms: 1_000,
        no_show: Duration::from_secs(2),
        ..Default::default()
    };
    TestServer::start_with(temp_db(), Config { ladder, ..common::config() }).await
}

/// Per player name: (games, wins, draws) from the stored rated games.
async fn stored_counts(pool: &sqlx::SqlitePool) -> HashMap<String, (i64, i64, i64)> {
    let rows = sqlx::query(
        "SELECT p.name, COUNT(*), SUM(g.winner IS NOT NULL AND g.winner = s.side), SUM(g.winner IS NULL)
         FROM game_seats s JOIN games g ON g.id = s.game_id JOIN players p ON p.id = s.player_id
         WHERE g.rated AND g.variant = 'block' GROUP BY p.name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    rows.iter().map(|r| (r.get::<String, _>(0), (r.get(1), r.get(2), r.get(3)))).collect()
}

/// `/api/ladder`'s rows by name: (games, wins, draws, losses, mu, sigma, in-pool).
type Rows = HashMap<String, (i64, i64, i64, i64, f64, f64, bool)>;

fn rows(board: &Value) -> Rows {
    board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_i64().unwrap();
            let f = |k: &str| r[k].as_f64().unwrap();
            let name = r["name"].as_str().unwrap().to_string();
            (name, (n("games"), n("wins"), n("draws"), n("losses"), f("mu"), f("sigma"), r["in-pool"] == json!(true)))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_remote_bots_play_rated_ladder_games_that_the_ladder_and_the_ratings_agree_with() {
    let server = ladder_server().await;
    let names: Vec<String> = (0..8).map(|i| format!("ladder-{i}")).collect();
    let tally = Arc::new(Tally::default());
    let mut bots = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (_c, token) = server.player(name).await;
        let cfg = LadderConfig {
            server: server.url(),
            token,
            strategy: "heuristic".into(),
            preset: "block".into(),
            index: i as u64,
            matches: None,
            strategies: None,
        };
        bots.push(tokio::spawn(ladder(cfg, tally.clone())));
    }
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", server.db_path.display())).await.unwrap();
    let games = async || -> i64 { sqlx::query_scalar("SELECT COUNT(*) FROM games").fetch_one(&pool).await.unwrap() };
    // The bots play for the whole run; the run must store games throughout.
    let started = Instant::now();
    let half = play_for() / 2;
    wait_until("ladder games in the first half of the run", half + Duration::from_secs(30), async || {
        games().await >= 4 && started.elapsed() >= half
    })
    .await;
    let at_half = games().await;
    wait_until("more ladder games in the second half", half + Duration::from_secs(30), async || {
        games().await > at_half && started.elapsed() >= play_for()
    })
    .await;
    for (i, b) in bots.iter().enumerate() {
        assert!(!b.is_finished(), "bot {i} stopped: {:?}", tally.errors);
    }

    // Every stored game is a rated two-player block game between two
    // different ladder players.
    let seats: Vec<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
        "SELECT g.id, g.rated, COUNT(s.seat), COUNT(DISTINCT s.player_id) FROM games g
         JOIN game_seats s ON s.game_id = g.id GROUP BY g.id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(seats.len() >= 8, "{} games in {:?}", seats.len(), play_for());
    for (id, rated, n, distinct) in &seats {
        assert_eq!((*rated, *n, *distinct), (1, 2, Some(2)), "game {id}");
    }

    // A bot that disconnects leaves the pool, and no later room seats it.
    let gone = &names[0];
    bots[0].abort();
    wait_for("the stopped bot off the ladder", Duration::from_secs(10), async || {
        let board = rows(&server.get_json("/api/ladder?variant=block").await);
        match board.get(gone) {
            Some(r) if r.6 => Err(*r),
            _ => Ok(()),
        }
    })
    .await;
    let mark: i64 = sqlx::query_scalar("SELECT MAX(id) FROM rooms").fetch_one(&pool).await.unwrap();
    let later = async || -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM games WHERE room_id > ?").bind(mark).fetch_one(&pool).await.unwrap()
    };
    // Long enough for a seat it was given to forfeit (no-show: 2 s).
    let since = Instant::now();
    wait_until("games of the others after the disconnect", Duration::from_secs(60), async || {
        later().await >= 4 && since.elapsed() > Duration::from_secs(3)
    })
    .await;
    let seated: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM games g JOIN game_seats s ON s.game_id = g.id JOIN players p ON p.id = s.player_id
         WHERE g.room_id > ? AND p.name = ?",
    )
    .bind(mark)
    .bind(gone)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(seated, 0, "a room opened after {gone} left seated it");
    let opened_after: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM rooms WHERE id > ?").bind(mark).fetch_all(&pool).await.unwrap();
    assert!(!opened_after.is_empty());

    for b in &bots {
        b.abort();
    }
    // The ladder's counts against the stored games, read between two equal
    // reads of the ladder (matches in play may still be stored meanwhile).
    let (board, counts) = wait_for("a quiet read of the ladder", Duration::from_secs(60), async || {
        let before = rows(&server.get_json("/api/ladder?variant=block").await);
        let counts = stored_counts(&pool).await;
        let after = rows(&server.get_json("/api/ladder?variant=block").await);
        if before == after { Ok((after, counts)) } else { Err(()) }
    })
    .await;
    assert_eq!(board.len(), 8, "{board:?}");
    for (name, &(games, wins, draws, losses, ..)) in &board {
        assert_eq!(wins + draws + losses, games, "{name}");
        assert_eq!(counts.get(name), Some(&(games, wins, draws)), "{name}");
        assert!(games > 0, "{name} never played");
    }
    // The ratings are a replay of the stored games, and the ladder shows them.
    let db = Db::open_read_only(server.db_path.to_str().unwrap()).await.unwrap();
    let stored = db.stored_ratings().await.unwrap();
    assert_eq!(db.replay_ratings().await.unwrap(), stored);
    let ladder_after = rows(&server.get_json("/api/ladder?variant=block").await);
    let ids: HashMap<i64, String> = sqlx::query_as("SELECT id, name FROM players")
        .fetch_all(&pool)
        .await
        .unwrap()
        .into_iter()
        .collect::<Vec<(i64, String)>>()
        .into_iter()
        .collect();
    for r in stored.iter().filter(|r| r.variant == "block") {
        let name = &ids[&r.player_id];
        let shown = ladder_after[name];
        assert_eq!((shown.0, shown.2), (r.games, r.draws), "{name}");
        // JSON's decimal text reads back within a unit in the last place.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(shown.4, r.mu) && close(shown.5, r.sigma), "{name}: {shown:?} vs {r:?}");
    }
    db.close().await;
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ladder_refuses_guests_unknown_presets_and_bad_queries() {
    let server = ladder_server().await;
    let mut guest = server.guest().await;
    let r = guest.request(json!({"type": "join-ladder", "variant": "block"})).await;
    assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("unauthorized")), "{r}");
    let (mut player, _) = server.player("ana").await;
    let r = player.request(json!({"type": "join-ladder", "variant": "../etc/passwd"})).await;
    assert_eq!(r["code"], "bad-variant", "{r}");
    let r = player.request(json!({"type": "join-ladder", "variant": "block"})).await;
    assert_eq!(r, json!({"id": r["id"], "type": "ladder", "variant": "block", "waiting": 1}));
    // Joining again keeps one place in the pool.
    let r = player.request(json!({"type": "join-ladder", "variant": "block"})).await;
    assert_eq!(r["waiting"], 1, "{r}");
    let board = server.get_json("/api/ladder?variant=block").await;
    assert_eq!(board["waiting"], 1, "{board}");
    let r = player.request(json!({"type": "leave-ladder"})).await;
    assert_eq!(r, json!({"id": r["id"], "type": "ladder", "variant": null, "waiting": 0}));
    assert_eq!(server.get_json("/api/ladder?variant=block").await["waiting"], 0);
    for (path, code) in [
        ("/api/ladder", "bad-request"),
        ("/api/ladder?variant=nope", "bad-variant"),
        ("/api/ladder?variant=block&limit=-1", "bad-request"),
    ] {
        let (status, body) = server.get(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["code"], code, "{path}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poly_preset_has_a_ladder_of_rated_poly_matches() {
    let server = ladder_server().await;
    let mut players = Vec::new();
    for name in ["tri-a", "tri-b"] {
        let (mut c, _) = server.player(name).await;
        let r = c.request(json!({"type": "join-ladder", "variant": "triominoes"})).await;
        assert_eq!(r["type"], "ladder", "{r}");
        players.push(c);
    }
    // Each is paired at a rated triominoes table of two, joins and plays it.
    let mut games = Vec::new();
    let mut playing = tokio::task::JoinSet::new();
    for mut c in players {
        playing.spawn(async move {
            let m = c.recv_type("ladder-match").await;
            assert_eq!(m["variant"], "triominoes", "{m}");
            let room = m["room"].as_u64().unwrap();
            let seat = m["seat"].as_u64().unwrap() as u8;
            assert_eq!(c.join(room, Some(seat)).await, seat);
            c.ready(room).await;
            let (c, over) = common::play_until_over(c, room, u64::from(seat) + 3).await;
            assert!(c.frames.iter().any(|f| f["type"] == "prompt" && f["family"] == "poly"), "a poly match");
            over["game"].as_i64().expect("stored")
        });
    }
    while let Some(g) = playing.join_next().await {
        games.push(g.unwrap());
    }
    assert_eq!(games[0], games[1], "one table");
    let replay = server.get_json(&format!("/api/games/{}", games[0])).await;
    assert_eq!((replay["poly"].as_bool(), replay["variant"]["name"].as_str()), (Some(true), Some("triominoes")));
    let board = wait_for("the ladder's board to count the game", Duration::from_secs(10), async || {
        let board = server.get_json("/api/ladder?variant=triominoes").await;
        let counted = rows(&board).values().filter(|r| r.0 == 1).count();
        if counted == 2 { Ok(board) } else { Err(board) }
    })
    .await;
    assert_eq!(board["variant"], "triominoes", "{board}");
}

/// A name that is given a ladder seat and never takes it leaves the ladder
/// and sits out before it may join again; the player who came stays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_never_takes_its_ladder_seat_sits_out() {
    let server = ladder_server().await;
    let (mut ana, _) = server.player("ana").await;
    let (mut ghost, _) = server.player("ghost").await;
    for c in [&mut ana, &mut ghost] {
        let r = c.request(json!({"type": "join-ladder", "variant": "block"})).await;
        assert_eq!(r["type"], "ladder", "{r}");
    }
    let m = ana.recv_type("ladder-match").await;
    let room = m["room"].as_u64().unwrap();
    ana.join(room, Some(m["seat"].as_u64().unwrap() as u8)).await;
    ana.ready(room).await;
    // The ghost hears its match and ignores it; at the no-show time the
    // match is forfeit and the ghost is told it is off the ladder.
    ghost.recv_type("ladder-match").await;
    let benched = ghost.recv_type("error").await;
    assert_eq!(benched["code"], "rate-limited", "{benched}");
    let off = ghost.recv_type("ladder").await;
    assert_eq!(off["variant"], Value::Null, "{off}");
    let r = ghost.request(json!({"type": "join-ladder", "variant": "block"})).await;
    assert_eq!(r["code"], "rate-limited", "{r}");
    assert!(r["message"].as_str().unwrap().contains("join again in"), "{r}");
    // Ana is back in the pool once the forfeit is stored; the ghost is not.
    wait_until("ana to wait on the ladder again", Duration::from_secs(20), async || {
        let board = server.get_json("/api/ladder?variant=block").await;
        board["waiting"] == 1 && rows(&board).get("ghost").is_none_or(|r| !r.6)
    })
    .await;
}
