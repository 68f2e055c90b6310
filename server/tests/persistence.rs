//! The persistence layer, one suite run against both backends: a SQLite
//! file and a real PostgreSQL server (Debian's packages, started by
//! `capicua-pgtest` on 127.0.0.1 with a throwaway data directory).
//!
//! Each test is written once, over a `--database` value, and the
//! `on_both!` macro below runs it on each backend: storing and reading back
//! games, the replay list, players and tokens, ratings and the leaderboard,
//! the schema guards, and a whole tournament on a real server (its tables,
//! standings view, replays and a restart). Without PostgreSQL installed the
//! PostgreSQL half is skipped with a message, unless
//! `CAPICUA_REQUIRE_POSTGRES=1` (CI), where that fails.

mod common;

use std::path::PathBuf;

use capicua_engine::poly::{PolyEvent, PolyGame, PolyMoveList, PolyRules};
use capicua_engine::{Game, Rules, Seating};
use capicua_protocol::OccupantKind;
use capicua_server::db::{Backend, DbError, GameRecord, HandResults, Play, SeatRecord};
use capicua_server::{Config, Db};
use common::{TestServer, WAIT, on_both, wait_for};
use serde_json::{Value, json};

on_both!(
    games_are_stored_and_read_back_as_played,
    players_ratings_and_the_leaderboard_agree_with_the_stored_games,
    the_schema_guards_refuse_what_is_not_a_capicua_database,
    a_tournament_on_a_server_stores_its_tables_standings_and_replays,
    two_writers_on_one_database_number_and_rate_games_as_one,
    names_registered_before_keys_keep_working_and_their_keys_are_taken,
);

/// A two-faced match played to the end by first legal moves.
fn tiles_record(preset: &str, seed: u64, players: &[Option<i64>], room: i64, rated: bool) -> GameRecord {
    let seats = players.len() as u8;
    let mut game = Game::new(Rules::preset(preset).unwrap().into(), Seating::new(seats), seed).unwrap();
    while game.to_move().is_some() {
        let m = game.legal_moves()[0];
        game.play(m).unwrap();
    }
    let winner = game.outcome().and_then(|o| o.winner).map(|s| s.0);
    GameRecord {
        room_id: Some(room),
        play: Play::Tiles {
            variant: capicua_engine::preset(preset).unwrap(),
            seating: Seating::new(seats),
            moves: game.log().to_vec(),
        },
        seed,
        scores: game.scores().to_vec(),
        seat_scores: game.seat_scores().to_vec(),
        hands: HandResults::Tiles(game.hand_results().to_vec()),
        winner,
        forfeit: None,
        seats: seat_records(players),
        rated,
        timeouts: vec![0; seats as usize],
        tournament: None,
    }
}

fn seat_records(players: &[Option<i64>]) -> Vec<SeatRecord> {
    players
        .iter()
        .enumerate()
        .map(|(i, p)| SeatRecord {
            seat: i as u8,
            side: i as u8,
            player_id: *p,
            name: format!("seat{i}"),
            kind: if p.is_some() { OccupantKind::HostedBot.into() } else { OccupantKind::Guest.into() },
        })
        .collect()
}

/// A triominoes match played to the end by first legal moves.
fn poly_record(seed: u64, room: i64) -> GameRecord {
    let rules = PolyRules::preset("triominoes").unwrap();
    let variant = rules.variant().clone();
    let mut game = PolyGame::new(rules, 2, seed).unwrap();
    let (mut log, mut ended, mut legal) = (Vec::new(), Vec::new(), PolyMoveList::with_capacity(64));
    while game.to_move().is_some() {
        game.legal_moves(&mut legal);
        let m = legal[0];
        log.push(m);
        ended.extend(game.play(m).unwrap().into_iter().filter(|e| matches!(e, PolyEvent::HandEnded { .. })));
    }
    let winner = game.outcome().and_then(|o| o.winner);
    GameRecord {
        room_id: Some(room),
        play: Play::Poly { variant, seats: 2, moves: log },
        seed,
        scores: game.scores().to_vec(),
        seat_scores: game.scores().to_vec(),
        hands: HandResults::Poly(ended),
        winner,
        forfeit: None,
        seats: seat_records(&[None, None]),
        rated: false,
        timeouts: vec![0; 2],
        tournament: None,
    }
}

async fn games_are_stored_and_read_back_as_played(database: String) {
    let db = Db::open(&database).await.unwrap();
    assert_eq!(db.backend(), Backend::of(&database));
    let variant = capicua_engine::preset("draw").unwrap();
    let room = db.create_room(&variant, 3, false).await.unwrap();
    let other = db.create_room(&variant, 3, false).await.unwrap();
    assert!(other > room, "rooms are numbered in order");
    let bot = db.hosted_bot("random").await.unwrap().id;

    let mut stored = Vec::new();
    for seed in 1..=5 {
        let record = tiles_record("draw", seed, &[Some(bot), None, None], room, false);
        let id = db.store_game(record.clone()).await.unwrap();
        stored.push((id, record));
    }
    let poly_room = db.create_room(PolyRules::preset("triominoes").unwrap().variant(), 2, false).await.unwrap();
    let poly = poly_record(7, poly_room);
    let poly_id = db.store_game(poly.clone()).await.unwrap();
    stored.push((poly_id, poly));
    assert_eq!(db.game_count().await.unwrap(), 6);

    for (id, record) in &stored {
        let g = db.game(*id).await.unwrap().expect("stored");
        assert_eq!(g.play, record.play, "game {id}: the rules, seats and every move");
        assert_eq!(
            (g.seed, &g.scores, g.winner, g.forfeit, g.rated),
            (record.seed, &record.scores, record.winner, None, false)
        );
        assert_eq!(g.room_id, record.room_id);
        let seats: Vec<_> = g.seats.iter().map(|s| (s.seat, s.side, s.player_id, s.name.clone(), s.kind)).collect();
        let want: Vec<_> = record.seats.iter().map(|s| (s.seat, s.side, s.player_id, s.name.clone(), s.kind)).collect();
        assert_eq!(seats, want);
    }
    assert!(db.game(poly_id + 100).await.unwrap().is_none());

    // The replay list: newest first, paged by id, filtered by player.
    let page = db.recent_games(4, None, None, false).await.unwrap();
    let ids: Vec<i64> = page.iter().map(|g| g.id).collect();
    let mut all: Vec<i64> = stored.iter().map(|(id, _)| *id).collect();
    all.sort_by(|a, b| b.cmp(a));
    assert_eq!(ids, all[..4]);
    assert_eq!(page[0].variant, "triominoes");
    assert_eq!(page[1].seats.len(), 3);
    assert_eq!(page[1].hands, stored[4].1.hands.len() as i64);
    let next = db.recent_games(4, Some(ids[3]), None, false).await.unwrap();
    assert_eq!(next.iter().map(|g| g.id).collect::<Vec<_>>(), all[4..]);
    let by_bot = db.recent_games(10, None, Some("bot:random"), false).await.unwrap();
    assert_eq!(by_bot.len(), 5, "the bot sat in the five games of dominoes");
    assert!(db.recent_games(10, None, Some("nobody"), false).await.unwrap().is_empty());
    db.close().await;

    // Reopened, the writer numbers after what is stored.
    let db = Db::open(&database).await.unwrap();
    let id = db.store_game(tiles_record("draw", 9, &[Some(bot), None, None], room, false)).await.unwrap();
    assert_eq!(id, poly_id + 1);
    db.close().await;
}

async fn players_ratings_and_the_leaderboard_agree_with_the_stored_games(database: String) {
    let db = Db::open(&database).await.unwrap();
    let (ana, token) = db.register("ana").await.unwrap();
    assert!(matches!(db.register("ana").await, Err(DbError::NameTaken(n)) if n == "ana"));
    assert!(matches!(db.register("ANA").await, Err(DbError::NameTaken(_))), "one name in another case");
    assert!(matches!(db.register("\u{430}na").await, Err(DbError::NameTaken(_))), "a Cyrillic look-alike");
    assert_eq!(db.player_by_token(&token).await.unwrap(), Some(ana.clone()));
    assert_eq!(db.player_by_token("wrong").await.unwrap(), None);
    assert_eq!(db.player_id("ana").await.unwrap(), Some(ana.id));
    let a = db.hosted_bot("smart").await.unwrap();
    assert_eq!(db.hosted_bot("smart").await.unwrap(), a, "a hosted bot's row is made once");
    assert_eq!(db.player_id("bot:smart").await.unwrap(), None, "a hosted bot holds no token");
    let b = db.hosted_bot("random").await.unwrap();

    let variant = capicua_engine::preset("block").unwrap();
    let room = db.create_room(&variant, 2, true).await.unwrap();
    let players = [[Some(ana.id), Some(a.id)], [Some(a.id), Some(b.id)], [Some(b.id), Some(ana.id)]];
    for seed in 0..12u64 {
        let seats = players[seed as usize % 3];
        db.store_game(tiles_record("block", seed, &seats, room, true)).await.unwrap();
    }
    // A guest's game is stored and rates nobody.
    db.store_game(tiles_record("block", 99, &[Some(ana.id), None], room, true)).await.unwrap();

    let board = db.leaderboard("block", 10).await.unwrap();
    assert_eq!(board.len(), 3);
    assert!(board.windows(2).all(|w| w[0].ordinal >= w[1].ordinal), "best first");
    assert_eq!(board.iter().map(|s| s.rank).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(board.iter().all(|s| s.games == 8 && s.wins + s.draws + s.losses == 8), "{board:?}");
    assert_eq!(board.iter().map(|s| s.wins).sum::<i64>() + board.iter().map(|s| s.draws).sum::<i64>() / 2, 12);
    assert_eq!(db.rated_variants().await.unwrap(), ["block"]);
    let (mu, _) = db.rating("block", ana.id).await.unwrap().expect("ana is rated");
    assert_eq!(Some(mu), board.iter().find(|s| s.name == "ana").map(|s| s.mu));
    // The ratings table is exactly what replaying the stored games gives.
    let stored = db.stored_ratings().await.unwrap();
    assert_eq!(stored.len(), 3);
    assert_eq!(stored, db.replay_ratings().await.unwrap());
    db.close().await;
}

/// Two servers on one database (the nodes of a PostgreSQL deployment; two
/// `Db`s on one SQLite file behave alike) store rated games of the same
/// players at the same time: no game id is handed out twice, and each
/// rating update starts from the other writer's last one, so the ratings
/// table is still exactly a replay of the stored games in id order.
async fn two_writers_on_one_database_number_and_rate_games_as_one(database: String) {
    let one = Db::open(&database).await.unwrap();
    let two = Db::open(&database).await.unwrap();
    let (ana, _) = one.register("ana").await.unwrap();
    let (bea, _) = two.register("bea").await.unwrap();
    let cid = one.hosted_bot("smart").await.unwrap();
    let variant = capicua_engine::preset("block").unwrap();
    let room = one.create_room(&variant, 2, true).await.unwrap();
    let pairs = [[Some(ana.id), Some(bea.id)], [Some(bea.id), Some(cid.id)], [Some(cid.id), Some(ana.id)]];
    let store = |db: Db, seeds: std::ops::Range<u64>| {
        tokio::spawn(async move {
            let mut ids = Vec::new();
            for seed in seeds {
                ids.push(
                    db.store_game(tiles_record("block", seed, &pairs[seed as usize % 3], room, true)).await.unwrap(),
                );
            }
            ids
        })
    };
    let (a, b) = tokio::join!(store(one.clone(), 0..30), store(two.clone(), 30..60));
    let mut ids: Vec<i64> = a.unwrap().into_iter().chain(b.unwrap()).collect();
    ids.sort();
    assert_eq!(ids, (1..=60).collect::<Vec<i64>>(), "each game its own id, none skipped");
    let board = one.leaderboard("block", 10).await.unwrap();
    assert!(board.iter().all(|s| s.games == 40), "every rated game counted once: {board:?}");
    let stored = two.stored_ratings().await.unwrap();
    assert_eq!(stored.len(), 3);
    assert_eq!(stored, one.replay_ratings().await.unwrap(), "no writer rated from a stale rating");
    one.close().await;
    two.close().await;
}

async fn the_schema_guards_refuse_what_is_not_a_capicua_database(database: String) {
    // Nothing migrated yet: a reader refuses it (SQLite: no file at all).
    match Db::open_read_only(&database).await {
        Err(DbError::Missing { .. } | DbError::NotCapicua) => {}
        other => panic!("a reader opened an empty database: {:?}", other.map(|_| ())),
    }
    let db = Db::open(&database).await.unwrap();
    let room = db.create_room(&capicua_engine::preset("block").unwrap(), 2, false).await.unwrap();
    db.store_game(tiles_record("block", 1, &[None, None], room, false)).await.unwrap();
    db.close().await;
    let reader = Db::open_read_only(&database).await.unwrap();
    assert_eq!(reader.game_count().await.unwrap(), 1);
    let refused = reader.store_game(tiles_record("block", 2, &[None, None], room, false)).await;
    assert!(matches!(refused, Err(DbError::ReadOnly)), "{refused:?}");
    reader.close().await;

    // Another program's table beside ours: refused, untouched, unless allowed.
    {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let url = capicua_server::db::database_url(&database);
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query("CREATE TABLE invoices (id BIGINT)").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    }
    match Db::open(&database).await {
        Err(DbError::ForeignTables { tables, more: 0 }) => assert_eq!(tables, ["invoices"]),
        other => panic!("a database with a foreign table opened: {:?}", other.map(|_| ())),
    }
    let options = capicua_server::db::OpenOptions { allow_foreign_tables: true, ..Default::default() };
    let db = Db::open_with(&database, options).await.unwrap();
    assert_eq!(db.game_count().await.unwrap(), 1);
    db.close().await;
}

/// Rows made before names had keys (here: written without one) get their
/// key when the server opens the database; of two old names with one key
/// the first holds it, and both still sign in.
async fn names_registered_before_keys_keep_working_and_their_keys_are_taken(database: String) {
    let db = Db::open(&database).await.unwrap();
    let (bea, token) = db.register("bea").await.unwrap();
    db.close().await;
    {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let url = capicua_server::db::database_url(&database);
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query("UPDATE players SET name_key = NULL").execute(&mut conn).await.unwrap();
        for name in ["Bea", "Luz"] {
            sqlx::query("INSERT INTO players (name, kind, created_at) VALUES ($1, 'player', 0)")
                .bind(name)
                .execute(&mut conn)
                .await
                .unwrap();
        }
        conn.close().await.unwrap();
    }
    let db = Db::open(&database).await.unwrap();
    assert_eq!(db.player_by_token(&token).await.unwrap(), Some(bea));
    for taken in ["BEA", "luz", "LUZ"] {
        assert!(matches!(db.register(taken).await, Err(DbError::NameTaken(_))), "{taken}");
    }
    assert!(db.register("Lía").await.is_ok());
    db.close().await;
}

const ADMIN: &str = "s3cret";

async fn a_tournament_on_a_server_stores_its_tables_standings_and_replays(database: String) {
    let config = || Config { admin_token: Some(ADMIN.into()), ..common::config() };
    let mut server = TestServer::start_with(PathBuf::from(&database), config()).await;
    let spec = json!({
        "name": "both backends", "seed": 11, "table": "duel", "variants": ["block", "draw"],
        "entrants": ["bot:random", "bot:heuristic", "bot:random#2", "bot:smart", "bot:heuristic#2"],
        "stages": [{"format": "round-robin"}]
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let detail = wait_for("the tournament to finish", WAIT * 3, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(d) } else { Err(d["status"].clone()) }
    })
    .await;

    // Every table names its stored game; the standings view counts exactly
    // what the replays of those games say.
    let mut tally: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
    let mut games = 0;
    for round in detail["rounds"].as_array().unwrap() {
        for table in round["tables"].as_array().unwrap() {
            if table["bye"] == true || table["seats"].as_array().is_none_or(|s| s.len() < 2) {
                continue;
            }
            let game = table["game"].as_i64().unwrap_or_else(|| panic!("a table without its game: {table}"));
            games += 1;
            let replay = server.get_json(&format!("/api/games/{game}")).await;
            assert_eq!(replay["variant"]["name"], round["variant"], "{table}");
            assert!(replay["steps"].as_array().is_some_and(|s| !s.is_empty()), "game {game}");
            let winner = replay["winner"].as_i64();
            for (i, seat) in table["seats"].as_array().unwrap().iter().enumerate() {
                let name = seat["player"].as_str().unwrap().to_string();
                assert_eq!(replay["seats"][i]["name"], name.as_str(), "{table}");
                let row = tally.entry(name).or_default();
                row.0 += 1;
                if winner == Some(i as i64) {
                    row.1 += 1;
                }
            }
        }
    }
    assert_eq!(games, 10, "five entrants meet once each");
    let standings = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    let from_view: std::collections::BTreeMap<String, (i64, i64)> = standings
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), (s["games"].as_i64().unwrap(), s["wins"].as_i64().unwrap())))
        .collect();
    assert_eq!(from_view, tally, "{standings}");

    // A restarted server on the same database replays the stored log to the
    // same tournament.
    server.stop().await;
    let server = TestServer::start_with(PathBuf::from(&database), config()).await;
    let again = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(again["status"], "finished");
    assert_eq!(again["standings"], detail["standings"]);
    let listed: Value = server.get_json("/api/tournaments").await;
    assert!(listed.as_array().unwrap().iter().any(|t| t["id"] == id && t["results"] == json!(10)), "{listed}");
}
