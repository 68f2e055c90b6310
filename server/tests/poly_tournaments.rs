//! Tournaments of tiles with 3, 4 or 6 faces on a real server: a round
//! robin of `triominoes` with hosted bots and a registered player who
//! answers poly `prompt`s plays to the end, every stored game is a poly
//! game whose scores and winners the standings count, the standings
//! survive a restart; entrants that cannot play poly presets are refused
//! when the tournament is created, and hosted bots play tournaments that
//! mix both families, and poly presets at free-for-all tables.

mod common;

use std::collections::BTreeMap;

use capicua_server::Config;
use common::{Client, TestServer, WAIT, pick, temp_db, wait_for};
use serde_json::{Value, json};

const ADMIN: &str = "s3cret";

fn admin_config() -> Config {
    Config { admin_token: Some(ADMIN.into()), ..common::config() }
}

async fn create(server: &TestServer, spec: &Value) -> (u16, Value) {
    server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await
}

/// Answers `room`'s poly `prompt`s with legal poly `move`s until its
/// `game-over` (frames of other rooms, such as an earlier table's
/// `room-closed`, are let by); returns the stored game's id.
async fn play_table(c: &mut Client, room: u64, mut salt: u64) -> i64 {
    loop {
        let v = c.recv().await;
        let here = v["room"] == json!(room);
        match v["type"].as_str().unwrap() {
            "prompt" if here && v["family"] == "poly" => {
                salt = salt.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let m = pick(&v["legal-moves"], salt >> 33);
                c.send(json!({"type": "move", "family": "poly", "room": room, "prompt": v["prompt"], "move": m})).await;
            }
            "prompt" => panic!("a two-faced prompt at a triominoes table: {v}"),
            "game-over" if here => return v["game"].as_i64().expect("the match is stored"),
            "error" => panic!("unexpected: {v}"),
            _ => {}
        }
    }
}

/// (points, wins, draws, losses, games) by entrant.
type Tally = BTreeMap<String, (i64, i64, i64, i64, i64)>;

fn standings_tally(standings: &Value) -> Tally {
    standings
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| {
            let n = |k: &str| s[k].as_i64().unwrap();
            (s["name"].as_str().unwrap().to_string(), (n("points"), n("wins"), n("draws"), n("losses"), n("games")))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_triominoes_round_robin_of_hosted_bots_and_a_player_plays_to_the_end() {
    let db = temp_db();
    let mut server = TestServer::start_with(db.clone(), admin_config()).await;
    let (mut pia, _token) = server.player("pia").await;
    assert_eq!(pia.request(json!({"type": "await-assignments"})).await["type"], "awaiting");
    let spec = json!({
        "name": "triominoes night", "seed": 5, "table": "duel", "variants": ["triominoes"],
        "entrants": ["pia", "bot:random", "bot:greedy", "bot:random#2"],
        "stages": [{"format": "round-robin"}]
    });
    let (status, created) = create(&server, &spec).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();

    // Pia plays her three tables: assignment, join, ready, poly prompts.
    let mut rooms = vec![];
    for n in 0..3u64 {
        let a = pia.recv_type("assignment").await;
        assert_eq!(a["variant"], "triominoes", "{a}");
        let (room, seat) = (a["room"].as_u64().unwrap(), a["seat"].as_u64().unwrap() as u8);
        assert_eq!(server.room_info(room).await["poly"], true);
        assert_eq!(pia.join(room, Some(seat)).await, seat);
        pia.ready(room).await;
        play_table(&mut pia, room, 17 + n).await;
        rooms.push(room);
    }

    let detail = wait_for("the triominoes tournament to finish", WAIT, async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        assert_ne!(d["status"], "failed", "{d}");
        if d["status"] == "finished" { Ok(d) } else { Err(d) }
    })
    .await;
    assert_eq!(detail["winners"].as_array().map(Vec::len), Some(1), "{detail}");

    // Every stored game is a triominoes game; the standings count its
    // scores by seat (match-score points) and its winning seat.
    let mut tally = Tally::new();
    let mut games = 0;
    let mut played_by_pia = vec![];
    for round in detail["rounds"].as_array().unwrap() {
        assert_eq!(round["variant"], "triominoes", "{round}");
        for table in round["tables"].as_array().unwrap() {
            let game = table["game"].as_i64().expect("every table has its stored game");
            games += 1;
            let replay = server.get_json(&format!("/api/games/{game}")).await;
            assert_eq!(replay["poly"], true, "game {game}");
            assert_eq!(replay["variant"]["name"], "triominoes", "game {game}");
            assert!(replay["steps"].as_array().is_some_and(|s| !s.is_empty()), "game {game}: a whole match");
            // The winning seat, or none for a tie on the target.
            let winner = replay["winner"].as_i64();
            let result = &table["result"];
            assert_eq!(result["winner"].as_i64(), winner, "{table}");
            for (i, seat) in table["seats"].as_array().unwrap().iter().enumerate() {
                let name = seat["player"].as_str().unwrap().to_string();
                assert_eq!(replay["seats"][i]["name"], name.as_str(), "the table's seats, in order");
                let score = replay["scores"][i].as_i64().unwrap();
                assert_eq!(result["seats"][i]["score"].as_i64(), Some(score), "{table}");
                assert_eq!(result["seats"][i]["pips"].as_i64(), Some(0), "{table}");
                let row = tally.entry(name.clone()).or_default();
                row.0 += score;
                match winner {
                    None => row.2 += 1,
                    Some(w) if w == i as i64 => row.1 += 1,
                    Some(_) => row.3 += 1,
                }
                row.4 += 1;
                if name == "pia" {
                    played_by_pia.push(table["room"].as_u64().unwrap());
                }
            }
        }
    }
    assert_eq!(games, 6, "four entrants meet once each");
    played_by_pia.sort();
    rooms.sort();
    assert_eq!(played_by_pia, rooms, "pia's games are the ones she played");
    let standings = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    assert_eq!(standings_tally(&standings), tally, "{standings}");
    assert_eq!(standings_tally(&detail["standings"]), tally, "{detail}");

    // A restarted server replays the stored log to the same standings.
    server.stop().await;
    let server = TestServer::start_with(db, admin_config()).await;
    let again = server.get_json(&format!("/api/tournaments/{id}")).await;
    assert_eq!(again["status"], "finished", "{again}");
    assert_eq!(again["standings"], detail["standings"]);
    assert_eq!(again["winners"], detail["winners"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_cannot_play_a_poly_preset_is_refused_and_hosted_bots_play_both_families() {
    let server = TestServer::start_with(temp_db(), admin_config()).await;
    let base = json!({
        "name": "t", "table": "duel", "variants": ["triominoes"],
        "entrants": ["bot:random", "bot:greedy"], "stages": [{"format": "round-robin"}]
    });
    let refused = async |patch: Value| -> Value {
        let mut spec = base.clone();
        for (k, v) in patch.as_object().unwrap() {
            spec[k] = v.clone();
        }
        let (status, e) = create(&server, &spec).await;
        assert_eq!((status, e["code"].as_str()), (400, Some("bad-tournament")), "{spec}: {e}");
        e
    };
    // A two-faced strategy is no triominoes player; the message lists the poly ones.
    let e = refused(json!({"entrants": ["bot:random", "bot:smart"]})).await;
    assert_eq!(e["field"], "entrants[1]", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("random, greedy, pimc") && message.contains("\"smart\""), "{e}");
    // With both families, each hosted entrant must play both.
    let e = refused(json!({"variants": ["block", "triominoes"]})).await;
    assert_eq!(e["field"], "entrants[1]", "greedy plays no dominoes: {e}");
    // So must the clock's timeout strategy.
    let e = refused(json!({"clock": {"on-timeout": {"kind": "strategy", "name": "smart"}}})).await;
    assert_eq!(e["field"], "clock.on-timeout", "{e}");
    // A table played in pairs cannot play a poly preset.
    let teams = json!([{"name": "a", "members": ["bot:random#1", "bot:random#2"]},
                       {"name": "b", "members": ["bot:random#3", "bot:random#4"]}]);
    let e = refused(json!({"table": "fixed-pairs", "entrants": teams})).await;
    assert_eq!(e["field"], "variants[0]", "{e}");
    // random plays both families, in a tournament of both: rounds
    // alternate, and each table's room plays its round's family.
    let mut both = base.clone();
    both["variants"] = json!(["block", "quadominoes"]);
    both["entrants"] = json!(["bot:random", "bot:random#2"]);
    both["stages"] = json!([{"format": "round-robin", "legs": 2}]);
    // Four seats, each for itself: hexominoes at a free-for-all table.
    let mut four = base.clone();
    four["table"] = json!("free-for-all");
    four["variants"] = json!(["hexominoes"]);
    four["entrants"] = json!(["bot:random", "bot:greedy", "bot:random#2", "bot:greedy#2"]);
    for (spec, families) in [(both, vec![false, true]), (four, vec![true])] {
        let (status, created) = create(&server, &spec).await;
        assert_eq!(status, 201, "{created}");
        let id = created["id"].as_i64().unwrap();
        let detail = wait_for("a hosted tournament to finish", WAIT, async || {
            let d = server.get_json(&format!("/api/tournaments/{id}")).await;
            assert_ne!(d["status"], "failed", "{d}");
            if d["status"] == "finished" { Ok(d) } else { Err(d) }
        })
        .await;
        let mut poly = vec![];
        for round in detail["rounds"].as_array().unwrap() {
            for table in round["tables"].as_array().unwrap() {
                let game = table["game"].as_i64().expect("a stored game");
                let replay = server.get_json(&format!("/api/games/{game}")).await;
                let is_poly = replay["poly"] == true;
                assert_eq!(is_poly, round["variant"] != "block", "game {game} of {round}");
                assert_eq!(replay["seats"].as_array().unwrap().len(), table["seats"].as_array().unwrap().len());
                poly.push(is_poly);
            }
        }
        assert!(poly.len() >= families.len(), "{detail}");
        assert_eq!(poly[..families.len()], families, "{detail}");
        assert!(detail["winners"].as_array().is_some_and(|w| !w.is_empty()), "{detail}");
        // A late entrant is checked for the tournament's families too
        // (before the tournament's state is: this one is over).
        let enter = format!("/api/tournaments/{id}/enter");
        let (status, e) = server.post_json(&enter, Some(ADMIN), &json!({"entrant": "bot:smart"}).to_string()).await;
        assert_eq!((status, e["code"].as_str()), (400, Some("bad-request")), "{e}");
        assert!(e["message"].as_str().unwrap().contains("poly strategies: random, greedy, pimc"), "{e}");
        let (status, e) = server.post_json(&enter, Some(ADMIN), &json!({"entrant": "bot:random#9"}).to_string()).await;
        assert_eq!((status, e["code"].as_str()), (409, Some("tournament-state")), "{e}");
    }
}
