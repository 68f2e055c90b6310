//! Rooms of tiles with 3, 4 or 6 faces over the real socket: seeded rooms
//! of every poly preset play to the end (four clients at a triominoes
//! table; one client and hosted bots at each other preset), every frame
//! every seat and a spectator received is scanned for hidden tiles, the
//! stored matches replay from every viewpoint, the frame that ends each
//! hand (and the replay's step) shows its final position with every hand
//! face up, and a rated poly room counts on its preset's leaderboard.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use capicua_engine::poly::{PolyGame, PolyMove, PolyRules};
use capicua_server::db::Play;
use common::*;
use serde_json::{Value, json};

/// `held[h][s]`: every tile seat `s` held at any point of hand `h`.
fn held_by_hand(rules: Arc<PolyRules>, seats: u8, seed: u64, moves: &[PolyMove]) -> Vec<Vec<HashSet<u16>>> {
    let mut game = PolyGame::new(rules, seats, seed).unwrap();
    let mut held: Vec<Vec<HashSet<u16>>> = vec![];
    let note = |g: &PolyGame, held: &mut Vec<Vec<HashSet<u16>>>| {
        let h = g.hand_number() as usize;
        while held.len() <= h {
            held.push(vec![HashSet::new(); seats as usize]);
        }
        for s in 0..seats {
            held[h][s as usize].extend(g.hand(s).iter().map(|t| t.0));
        }
    };
    note(&game, &mut held);
    for &m in moves {
        // The hand that ends with this move: what was held before the deal.
        game.play(m).unwrap();
        note(&game, &mut held);
    }
    held
}

/// The final position of every hand, by the referee.
fn hand_ends(rules: Arc<PolyRules>, seats: u8, seed: u64, moves: &[PolyMove]) -> Vec<PolyGame> {
    let mut game = PolyGame::new(rules, seats, seed).unwrap();
    game.keep_hand_ends(true);
    let mut ends = vec![];
    for &m in moves {
        game.play(m).unwrap();
        ends.extend(game.take_hand_end().map(|end| *end));
    }
    ends
}

/// What is wrong with the ends of hands in one receiver's frames (or a
/// replay's steps): every frame whose events end a hand carries `hand-end`,
/// no other does, and it shows the referee's final position to this viewer
/// (the board with the hand's last tile, every seat's remaining tiles).
fn hand_end_faults(frames: &[Value], viewer: Option<u8>, ends: &[PolyGame]) -> Vec<String> {
    let mut faults = vec![];
    let mut seen = 0;
    for f in frames {
        let ended = f["events"].as_array().into_iter().flatten().find(|e| e["event"] == "hand-ended");
        let end = f.get("hand-end").filter(|v| !v.is_null());
        let (ended, end) = match (ended, end) {
            (None, None) => continue,
            (Some(_), None) => {
                faults.push(format!("a hand ended without its hand-end: {f}"));
                continue;
            }
            (None, Some(_)) => {
                faults.push(format!("a hand-end in a frame that ends no hand: {f}"));
                continue;
            }
            (Some(e), Some(end)) => (e, end),
        };
        let hand = ended["hand"].as_u64().unwrap() as usize;
        seen += 1;
        let Some(referee) = ends.get(hand) else {
            faults.push(format!("hand {hand} ended, the referee has {} hands", ends.len()));
            continue;
        };
        let view = &end["view"];
        let hands: Vec<Vec<u64>> = view["hands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_array().unwrap().iter().map(|t| t[0].as_u64().unwrap()).collect())
            .collect();
        let want: Vec<Vec<u64>> =
            (0..referee.seats()).map(|s| referee.hand(s).iter().map(|t| u64::from(t.0)).collect()).collect();
        if hands != want {
            faults.push(format!("hand {hand}: hands {hands:?}, the referee's {want:?}"));
        }
        if view.get("seat").and_then(Value::as_u64).map(|s| s as u8) != viewer || view["to-move"] != Value::Null {
            faults.push(format!("hand {hand}: not the viewer's final view: {view}"));
        }
        if view["board"] != serde_json::to_value(referee.board().placed()).unwrap() {
            faults.push(format!("hand {hand}: the board is not the referee's final board"));
        }
        if let Some(played) = f["events"].as_array().unwrap().iter().find(|e| e["event"] == "played") {
            let last = view["board"].as_array().unwrap().last().cloned().unwrap_or_default();
            if last["tile"] != played["tile"] {
                faults.push(format!("hand {hand}: the last play {played} is not the board's last {last}"));
            }
        }
        let pips: Vec<i32> = (0..referee.seats()).map(|s| referee.pips_in_hand(s)).collect();
        if end["hand"] != json!(hand) || end["result"]["hand"] != json!(hand) || end["result"]["pips"] != json!(pips) {
            faults.push(format!("hand {hand}: result {}, pips by the referee {pips:?}", end["result"]));
        }
    }
    if seen != ends.len() {
        faults.push(format!("{seen} hands' ends shown, {} hands played", ends.len()));
    }
    faults
}

/// How many moves each seat made.
fn moves_by_seat(rules: Arc<PolyRules>, seats: u8, seed: u64, moves: &[PolyMove]) -> Vec<usize> {
    let mut game = PolyGame::new(rules, seats, seed).unwrap();
    let mut count = vec![0; seats as usize];
    for &m in moves {
        count[game.to_move().expect("a stored move has a seat to make it") as usize] += 1;
        game.play(m).unwrap();
    }
    count
}

/// Every tile a frame shows as held (hand entries of its view, a drawn
/// tile) that `viewer` (a seat, `None` for a spectator) may not see.
fn leaks(frames: &[Value], viewer: Option<u8>, held: &[Vec<HashSet<u16>>]) -> Vec<String> {
    let mut found = vec![];
    for f in frames {
        if let Some(view) = f.get("view").filter(|v| v.is_object()) {
            let h = view["hand-number"].as_u64().expect("a poly view has its hand number") as usize;
            for entry in view["hand"].as_array().expect("a poly view's hand") {
                let id = entry[0].as_u64().unwrap() as u16;
                let own = viewer.is_some_and(|s| held[h][s as usize].contains(&id));
                if !own {
                    found.push(format!("#{id} in the hand of a {} frame (hand {h})", f["type"]));
                }
            }
        }
        for e in f["events"].as_array().into_iter().flatten() {
            if e["event"] == "drew" && e.get("tile").is_some() {
                let seat = e["seat"].as_u64().unwrap() as u8;
                if viewer != Some(seat) {
                    found.push(format!("seat {seat}'s drawn tile in a {} frame: {e}", f["type"]));
                }
            }
        }
    }
    found
}

/// A triominoes variant whose seats are often stuck and draw: pips 0..=9
/// (220 tiles), two tiles a hand.
const SPARSE: &str = "base = \"triominoes\"\nname = \"triominoes-sparse\"\nmax-pip = 9\nhand-size = 2\n\
                      target = { points = { points = 150 } }\n";

/// Plays one seeded room (`spec` without its seed, of the variant named
/// `preset`) with `people` clients (the other seats hosted `greedy` bots)
/// and a spectator; scans every frame and every replay. Returns the stored
/// game's id and the draws the seats were told of: (their own, others').
async fn scan(
    server: Arc<TestServer>,
    db: capicua_server::Db,
    (preset, mut spec): (&str, Value),
    seed: u64,
    people: usize,
) -> (i64, [usize; 2]) {
    let mut players = vec![];
    for _ in 0..people {
        players.push(server.guest().await);
    }
    spec["seed"] = json!(seed);
    let room = players[0].create_room(spec).await;
    let info = server.room_info(room).await;
    assert_eq!(info["poly"], true, "{info}");
    let seats = info["seats"].as_array().unwrap().len();
    assert_eq!(seats, 4, "a poly preset seats four by default");
    let mut spectator = server.guest().await;
    assert_eq!(spectator.request(json!({"type": "spectate", "room": room})).await["type"], "spectating");
    for (i, p) in players.iter_mut().enumerate() {
        assert_eq!(p.join(room, Some(i as u8)).await, i as u8);
    }
    if people < seats {
        let r = players[0].request(json!({"type": "fill-bots", "room": room, "strategy": "greedy"})).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    for p in players.iter_mut() {
        p.ready(room).await;
    }
    let (players, spectator, game_id) = play_out_watched(players, room, spectator).await;

    let stored = db.game(game_id).await.unwrap().expect("stored");
    let Play::Poly { variant, seats: n, moves } = stored.play else { panic!("{preset}: a poly record") };
    assert_eq!((variant.name.as_str(), n as usize, stored.seed), (preset, seats, seed));
    let rules: Arc<PolyRules> = variant.validate().unwrap().into();
    let held = held_by_hand(rules.clone(), n, stored.seed, &moves);
    let moved = moves_by_seat(rules.clone(), n, stored.seed, &moves);
    let ends = hand_ends(rules.clone(), n, stored.seed, &moves);
    assert!(!ends.is_empty());
    let mut shown = 0;
    let mut draws = [0; 2];
    for (i, p) in players.iter().enumerate() {
        for f in p.frames.iter().filter(|f| f["type"] == "events") {
            assert_eq!(f["family"], "poly", "{preset}: {f}");
            for e in f["events"].as_array().unwrap().iter().filter(|e| e["event"] == "drew") {
                draws[usize::from(e["seat"] != json!(i))] += 1;
            }
        }
        let found = leaks(&p.frames, Some(i as u8), &held);
        assert!(found.is_empty(), "{preset}: seat {i} was shown hidden tiles: {found:?}");
        let faults = hand_end_faults(&p.frames, Some(i as u8), &ends);
        assert!(faults.is_empty(), "{preset}: seat {i}'s hands' ends: {faults:?}");
        let prompts = p.frames.iter().filter(|f| f["type"] == "prompt").count();
        assert_eq!(prompts, moved[i], "{preset}: seat {i}'s prompts against its moves");
        let two_faced = |f: &&Value| f.get("family").is_some_and(|family| family != "poly");
        assert!(!p.frames.iter().any(|f| two_faced(&f)), "two-faced frames");
        shown += p.frames.iter().filter(|f| f["view"]["hand"].as_array().is_some_and(|h| !h.is_empty())).count();
    }
    assert!(shown > 0, "{preset}: the scan saw the seats' own hands");
    assert!(
        spectator.frames.iter().any(|f| f["type"] == "events" && f["family"] == "poly"),
        "{preset}: the spectator watched"
    );
    let found = leaks(&spectator.frames, None, &held);
    assert!(found.is_empty(), "{preset}: the spectator was shown hidden tiles: {found:?}");
    let faults = hand_end_faults(&spectator.frames, None, &ends);
    assert!(faults.is_empty(), "{preset}: the spectator's hands' ends: {faults:?}");

    // The stored match replays from every viewpoint to its stored scores,
    // showing no viewpoint more than it saw.
    for viewer in (0..n).map(Some).chain([None]) {
        let path = match viewer {
            Some(s) => format!("/api/games/{game_id}?seat={s}"),
            None => format!("/api/games/{game_id}"),
        };
        let replay = server.get_json(&path).await;
        assert_eq!(replay["poly"], true, "{replay:.300}");
        let steps = replay["steps"].as_array().unwrap();
        assert_eq!(steps.len(), moves.len());
        let last = &steps.last().unwrap()["view"];
        assert_eq!(last["scores"], json!(stored.scores), "{preset}: {path}");
        let frames: Vec<Value> = std::iter::once(json!({"type": "start", "view": replay["start"]}))
            .chain(steps.iter().map(|s| json!({"type": "step", "view": s["view"], "events": s["events"]})))
            .collect();
        let found = leaks(&frames, viewer, &held);
        assert!(found.is_empty(), "{preset}: the replay {path} shows hidden tiles: {found:?}");
        let faults = hand_end_faults(steps, viewer, &ends);
        assert!(faults.is_empty(), "{preset}: the replay {path}: {faults:?}");
    }
    (game_id, draws)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poly_rooms_play_over_the_socket_replay_and_never_show_a_hidden_tile() {
    let server = Arc::new(TestServer::start().await);
    let db = capicua_server::Db::open(server.db_path.to_str().unwrap()).await.unwrap();
    let preset = |name: &'static str| (name, json!({"preset": name}));
    let mut rooms = tokio::task::JoinSet::new();
    rooms.spawn(scan(server.clone(), db.clone(), preset("triominoes"), 7, 4));
    for (name, seed) in [("quadominoes", 8), ("hexominoes", 9), ("graph-triominoes", 10)] {
        rooms.spawn(scan(server.clone(), db.clone(), preset(name), seed, 1));
    }
    // The presets rarely leave a seat stuck: a room whose seats draw often
    // shows that a draw names its tile to the drawer only.
    let sparse = ("triominoes-sparse", json!({"variant-file": SPARSE}));
    rooms.spawn(scan(server.clone(), db.clone(), sparse, 3, 4));
    let mut games = HashSet::new();
    let mut draws = [0; 2];
    while let Some(scanned) = rooms.join_next().await {
        let (id, told) = scanned.expect("a room's scan");
        games.insert(id);
        draws = [draws[0] + told[0], draws[1] + told[1]];
    }
    assert_eq!(games.len(), 5);
    assert!(draws[0] > 0 && draws[1] > 0, "draws told to the drawer and to the others: {draws:?}");
    // The list of replays names them by their variants.
    let list = server.get_json("/api/games?limit=10").await;
    let mut variants: Vec<&str> = list.as_array().unwrap().iter().map(|g| g["variant"].as_str().unwrap()).collect();
    variants.sort();
    assert_eq!(variants, ["graph-triominoes", "hexominoes", "quadominoes", "triominoes", "triominoes-sparse"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_poly_room_counts_on_its_presets_leaderboard() {
    let server = TestServer::start().await;
    let (mut ana, _) = server.player("ana").await;
    let (mut ben, _) = server.player("ben").await;
    let room = ana.create_room(json!({"preset": "quadominoes", "seats": 2, "rated": true})).await;
    for (i, c) in [&mut ana, &mut ben].into_iter().enumerate() {
        assert_eq!(c.join(room, Some(i as u8)).await, i as u8);
    }
    ana.ready(room).await;
    ben.ready(room).await;
    let (_, game) = play_out(vec![ana, ben], room).await;
    assert!(game > 0);
    let board = server.get_json("/api/leaderboard?variant=quadominoes").await;
    let names: HashSet<&str> = board.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, HashSet::from(["ana", "ben"]), "{board}");
    let boards = server.get_json("/api/leaderboards").await;
    assert!(boards.as_array().unwrap().contains(&json!("quadominoes")), "{boards}");
    // A rated room must play the preset's exact rules under its name.
    let mut carl = server.player("carl").await.0;
    let file = "base = \"quadominoes\"\ntarget = { points = { points = 50 } }\n";
    let r = carl.request(json!({"type": "create-room", "variant-file": file, "rated": true})).await;
    assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("bad-variant")), "{r}");
}

#[tokio::test]
async fn the_variants_endpoint_lists_the_poly_presets_and_strategies_and_they_open_rooms() {
    let server = TestServer::start().await;
    let v = server.get_json("/api/variants").await;
    let presets: Vec<&str> =
        v["poly-presets"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(presets, capicua_engine::poly::POLY_PRESETS);
    for p in v["poly-presets"].as_array().unwrap() {
        assert_eq!(p["variant"]["name"], p["name"], "each preset with its full rules");
    }
    assert_eq!(v["poly-strategies"], json!(["random", "greedy", "pimc"]));
    // Each opens a poly room over HTTP.
    for name in presets {
        let (status, room) = server.post_json("/api/rooms", None, &json!({"preset": name}).to_string()).await;
        assert_eq!((status, room["poly"].as_bool(), room["variant"].as_str()), (201, Some(true), Some(name)), "{room}");
    }
    let (status, e) = server.post_json("/api/rooms", None, r#"{"preset": "pentominoes"}"#).await;
    assert_eq!((status, e["code"].as_str()), (400, Some("bad-variant")), "{e}");
    assert!(e["message"].as_str().unwrap().contains("triominoes"), "the error lists the poly presets: {e}");
}
