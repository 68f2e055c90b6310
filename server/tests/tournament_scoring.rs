//! What a played tournament stores about its games: each seat's own score
//! and the whole match's pips in every result, table rows pointing at the
//! rooms that decided them, and hosted entrants rated as players of their own.

mod common;

use capicua_server::Config;
use common::{TestServer, WAIT, temp_db, wait_for};
use serde_json::{Value, json};
use sqlx::{Row, SqlitePool};

const ADMIN: &str = "s3cret";

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// Creates a tournament from `spec` as the admin and waits for it to finish.
async fn run(server: &TestServer, spec: Value) -> i64 {
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    wait_for("the tournament to finish", WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(()) } else { Err(d) }
    })
    .await;
    id
}

async fn pool(server: &TestServer) -> SqlitePool {
    SqlitePool::connect(&format!("sqlite://{}", server.db_path.display())).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partners_keep_their_own_scores_and_opponents_pips_count_the_whole_match() {
    let server = admin_server().await;
    let team = |name: &str, strategy: &str| json!({"name": name, "members": [format!("bot:{strategy}#{name}1"), format!("bot:{strategy}#{name}2")]});
    let spec = json!({
        "name": "pairs", "seed": 5, "table": "fixed-pairs", "variants": ["latin"],
        "entrants": [team("a", "random"), team("b", "heuristic"), team("c", "random"), team("d", "heuristic")],
        "stages": [{"format": "round-robin"}],
        "scoring": {"team-score": "opponents-pips", "winner": "best-player"}
    });
    let id = run(&server, spec).await;
    let pool = pool(&server).await;
    let rows = sqlx::query("SELECT game_id, result_json FROM tournament_matches WHERE tournament_id = ? ORDER BY seq")
        .bind(id)
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(rows.len(), 6, "four teams, a single round robin");
    let mut second_seats = 0;
    for row in rows {
        let game: i64 = row.get(0);
        let result: capicua_tournament::MatchResult = serde_json::from_str(row.get::<&str, _>(1)).unwrap();
        let scores: Vec<i64> = serde_json::from_str(
            sqlx::query("SELECT scores_json FROM games WHERE id = ?")
                .bind(game)
                .fetch_one(&pool)
                .await
                .unwrap()
                .get::<&str, _>(0),
        )
        .unwrap();
        // Partners sit opposite: seats 0 and 2 are side 0, 1 and 3 side 1.
        for (side, &score) in scores.iter().enumerate() {
            let own: i64 = result.seats.iter().skip(side).step_by(2).map(|s| s.score).sum();
            assert_eq!(own, score, "game {game}: the seats' own scores sum to the side's: {result:?}");
        }
        second_seats += result.seats[2].score + result.seats[3].score;
        let hands = sqlx::query("SELECT result_json FROM hands WHERE game_id = ? ORDER BY hand")
            .bind(game)
            .fetch_all(&pool)
            .await
            .unwrap();
        assert!(!hands.is_empty());
        let mut pips = [0u32; 4];
        for h in &hands {
            let h: Value = serde_json::from_str(h.get::<&str, _>(0)).unwrap();
            for (seat, p) in pips.iter_mut().enumerate() {
                *p += h["pips"][seat].as_i64().unwrap().max(0) as u32;
            }
        }
        let got: Vec<u32> = result.seats.iter().map(|s| s.pips).collect();
        assert_eq!(got, pips.to_vec(), "game {game}: pips of every hand of the match, {} hands", hands.len());
    }
    // Over six latin matches the second members win hands too: their scores
    // are no longer folded into their partners'.
    assert!(second_seats > 0, "every second member scored 0");
    // Every stored game's table row names the room that played it.
    let unlinked: i64 = sqlx::query(
        "SELECT COUNT(*) FROM tournament_matches m
         JOIN tournament_tables t ON t.tournament_id = m.tournament_id AND t.round = m.round AND t.table_no = m.table_no
         JOIN games g ON g.id = m.game_id
         WHERE m.tournament_id = ? AND (t.room_id IS NOT g.room_id OR t.attempts < 1)",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap()
    .get(0);
    assert_eq!(unlinked, 0);
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entrants_of_one_hosted_strategy_are_rated_apart() {
    let server = admin_server().await;
    let spec = json!({
        "name": "mirror", "seed": 2, "table": "duel", "variants": ["block"],
        "entrants": ["bot:random#a", "bot:random#b", "bot:random#c"],
        "stages": [{"format": "round-robin"}]
    });
    let id = run(&server, spec).await;
    let pool = pool(&server).await;
    let decided: i64 =
        sqlx::query("SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ? AND winner IS NOT NULL")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
            .get(0);
    pool.close().await;
    let board = server.get_json("/api/leaderboard?variant=block").await;
    let rows = board.as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["bot:random#a", "bot:random#b", "bot:random#c"], "{board}");
    for r in rows {
        assert_eq!(r["games"], 2, "each entrant played two rated games: {board}");
        assert!(r["wins"].as_i64().unwrap() <= 2, "{board}");
    }
    let wins: i64 = rows.iter().map(|r| r["wins"].as_i64().unwrap()).sum();
    assert_eq!(wins, decided, "one win per decided game: {board}");
}

#[tokio::test]
async fn the_standings_view_is_written_with_each_match() {
    use capicua_server::db::tournaments::{EntrantKind, NewEntrant, SpecFormat};
    use capicua_server::db::{GameRecord, SeatKind, SeatRecord, TableLink};
    use capicua_tournament::{MatchResult, SeatResult, Tournament};

    // No server runs: only the database writer stores the match, as when a
    // server is killed right after the commit, before its runner reads it.
    let path = temp_db();
    let db = capicua_server::Db::open(path.to_str().unwrap()).await.unwrap();
    // The room the match was played in (games name their room).
    let pool = SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query(
        "INSERT INTO rooms (id, variant, variant_json, seats, rated, created_at) VALUES (7, 'block', '{}', 2, 0, 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    let spec = json!({
        "name": "solo", "table": "duel", "variants": ["block"],
        "entrants": ["bot:random#a", "bot:random#b", "bot:random#c"], "stages": [{"format": "round-robin"}]
    })
    .to_string();
    let entrants: Vec<NewEntrant> = ["bot:random#a", "bot:random#b", "bot:random#c"]
        .iter()
        .map(|n| NewEntrant { name: n.to_string(), members: vec![n.to_string()], kind: EntrantKind::HostedBot })
        .collect();
    let id = db.create_tournament("solo", SpecFormat::Json, &spec, "{}", &entrants, None).await.unwrap();
    let config = capicua_server::tournament::store::parse_spec(&spec, SpecFormat::Json).unwrap();
    let mut t = Tournament::new(config.clone());
    let round = t.next_round().unwrap();
    db.save_tournament_round(id, &round).await.unwrap();
    let table = &round.tables[0];
    let result = MatchResult {
        round: round.number,
        table: table.id,
        seats: vec![SeatResult { score: 10, ..SeatResult::default() }, SeatResult::default()],
        winner: Some(0),
    };
    let seat = |i: u8| SeatRecord {
        seat: i,
        side: i,
        player_id: None,
        name: table.seats[i as usize].player.clone(),
        kind: SeatKind::HostedBot,
    };
    let record = GameRecord {
        room_id: Some(7),
        play: capicua_server::db::Play::Tiles {
            variant: capicua_engine::preset("block").unwrap(),
            seating: capicua_engine::Seating::new(2),
            moves: Vec::new(),
        },
        seed: 1,
        scores: vec![10, 0],
        seat_scores: vec![10, 0],
        hands: capicua_server::db::HandResults::Tiles(Vec::new()),
        winner: Some(0),
        forfeit: None,
        seats: vec![seat(0), seat(1)],
        rated: false,
        timeouts: vec![0, 0],
        tournament: Some(TableLink { tournament: id, result: result.clone() }),
    };
    db.store_game(record).await.unwrap();
    t.record(result).unwrap();
    let view = db.tournament_standings(id).await.unwrap();
    assert_eq!(view, t.standings(), "the view holds the committed match");
    assert_eq!(view.iter().map(|s| s.games).sum::<u32>(), 2);
    // The table row names the room whose game decided it.
    let stored = db.tournament_tables(id).await.unwrap();
    let row = stored.iter().find(|s| s.round == round.number && s.table.id == table.id).unwrap();
    assert_eq!((row.room, row.attempts), (Some(7), 1));
}

/// A tournament keeps the defaults it was created under: one stored before
/// Dutch pairing became the default for Swiss stages replays the neighbours
/// pairing it played, and a new one pairs by the Dutch system.
#[tokio::test]
async fn a_stored_swiss_keeps_the_pairing_it_was_created_with() {
    use capicua_server::db::tournaments::{EntrantKind, NewEntrant, SpecFormat};
    use capicua_server::tournament::store;
    use capicua_tournament::{SwissPairing, Tournament};

    let path = temp_db();
    let db = capicua_server::Db::open(path.to_str().unwrap()).await.unwrap();
    let names: Vec<String> = (1..=6).map(|i| format!("bot:random#{i}")).collect();
    let spec = json!({
        "name": "swiss", "table": "duel", "variants": ["block"],
        "entrants": names, "stages": [{"format": "swiss", "rounds": 3}]
    })
    .to_string();
    let entrants: Vec<NewEntrant> = names
        .iter()
        .map(|n| NewEntrant { name: n.clone(), members: vec![n.clone()], kind: EntrantKind::HostedBot })
        .collect();
    let id = db.create_tournament("swiss", SpecFormat::Json, &spec, "{}", &entrants, None).await.unwrap();
    // The first round's pairs, as seeds (0-based).
    let first_round = |t: &Tournament| -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = t
            .next_round()
            .unwrap()
            .tables
            .iter()
            .map(|tb| {
                let (a, b) = (tb.sides[0][0].0, tb.sides[1][0].0);
                (a.min(b), a.max(b))
            })
            .collect();
        pairs.sort();
        pairs
    };
    let now = store::load(&db, id).await.unwrap().unwrap().config;
    assert_eq!(now.spec().stages[0].pairing, Some(SwissPairing::Dutch));
    assert_eq!(first_round(&Tournament::new(now)), vec![(0, 3), (1, 4), (2, 5)]);

    // The same row as a database from before the Dutch default holds it.
    let pool = SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query("UPDATE tournaments SET spec_defaults = 0 WHERE id = ?").bind(id).execute(&pool).await.unwrap();
    pool.close().await;
    let before = store::load(&db, id).await.unwrap().unwrap().config;
    assert_eq!(before.spec().stages[0].pairing, None);
    assert_eq!(first_round(&Tournament::new(before)), vec![(0, 1), (2, 3), (4, 5)]);
}
