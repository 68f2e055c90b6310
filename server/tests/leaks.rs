//! The leak test: every frame sent to every seat (and to a spectator) over
//! many games of several presets is checked against the referee's record of
//! who held which tile; no frame may name a tile held by a seat whose hand
//! the receiver may not see. The hands are public once a hand is over: the
//! frame that ends each hand (and only that one) shows its final position
//! with every hand face up, checked against the referee's.

mod common;

use std::sync::Arc;

use capicua_engine::{Game, Rules, Seat, TileSet, ViewSnapshot};
use common::*;
use serde_json::{Value, json};

/// `held[h][o]`: every tile seat `o` held at any point of hand `h`, less
/// the tiles of its hand shown to everyone (visibility `shown`) in that hand.
fn tiles_held(
    rules: Arc<Rules>,
    seating: capicua_engine::Seating,
    seed: u64,
    moves: &[capicua_engine::Move],
) -> Vec<Vec<TileSet>> {
    let mut game = Game::new(rules, seating, seed).unwrap();
    let n = game.table().seats() as usize;
    let mut held: Vec<Vec<TileSet>> = vec![];
    let mut shown: Vec<Vec<TileSet>> = vec![];
    let note = |g: &Game, held: &mut Vec<Vec<TileSet>>, shown: &mut Vec<Vec<TileSet>>| {
        let h = g.hand_number() as usize;
        while held.len() <= h {
            held.push(vec![TileSet::EMPTY; n]);
            shown.push(vec![TileSet::EMPTY; n]);
        }
        for (o, tiles) in held[h].iter_mut().enumerate() {
            *tiles = tiles.or(g.hand(Seat(o as u8)));
        }
        for (o, tiles) in shown[h].iter_mut().enumerate() {
            *tiles = tiles.or(g.shown(Seat(o as u8)));
        }
    };
    note(&game, &mut held, &mut shown);
    for m in moves {
        game.play(*m).unwrap();
        note(&game, &mut held, &mut shown);
    }
    held.iter().zip(&shown).map(|(h, s)| h.iter().zip(s).map(|(h, s)| h.minus(*s)).collect()).collect()
}

/// The final position of every hand of a stored match, by the referee.
fn hand_ends(
    rules: Arc<Rules>,
    seating: capicua_engine::Seating,
    seed: u64,
    moves: &[capicua_engine::Move],
) -> Vec<Box<Game>> {
    let mut game = Game::new(rules, seating, seed).unwrap();
    game.keep_hand_ends(true);
    let mut ends = vec![];
    for m in moves {
        game.play(*m).unwrap();
        ends.extend(game.take_hand_end());
    }
    ends
}

/// What is wrong with the ends of hands in one receiver's frames (or a
/// replay's steps): every frame whose events end a hand carries `hand-end`,
/// no other frame does, and it shows the referee's final position (the
/// hand's last play on the board, every seat's remaining tiles) to this
/// viewer, with the hand's result.
fn hand_end_faults(frames: &[Value], viewer: Option<u8>, ends: &[Box<Game>]) -> Vec<String> {
    let mut faults = vec![];
    let mut seen = 0;
    for f in frames {
        let ended = f["events"].as_array().into_iter().flatten().find(|e| e["event"] == "hand-over");
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
        if end["hand"] != json!(hand) {
            faults.push(format!("hand-end of hand {} in the frame ending hand {hand}", end["hand"]));
            continue;
        }
        seen += 1;
        let Some(referee) = ends.get(hand) else {
            faults.push(format!("hand {hand} ended, the referee has {} hands", ends.len()));
            continue;
        };
        let view: ViewSnapshot = serde_json::from_value(end["view"].clone()).unwrap();
        let n = referee.table().seats();
        let hands: Vec<Option<TileSet>> = (0..n).map(|s| Some(referee.hand(Seat(s)))).collect();
        if view.hands != hands {
            faults.push(format!("hand {hand}: hands {:?}, the referee's {hands:?}", view.hands));
        }
        if view.seat.map(|s| s.0) != viewer || view.hand_number as usize != hand || view.to_move.is_some() {
            faults.push(format!("hand {hand}: not the viewer's final view: {}", end["view"]));
        }
        if view.history != referee.history() || view.ends != referee.board().ends() {
            faults.push(format!("hand {hand}: the board is not the referee's final board"));
        }
        // The hand's last play is on that board.
        let last = f["events"].as_array().unwrap().iter().rev().find(|e| e["event"] == "played");
        if let Some(played) = last {
            let record = serde_json::to_value(view.history.last()).unwrap();
            if record["action"]["tile"] != played["tile"] || record["seat"] != played["seat"] {
                faults.push(format!("hand {hand}: the last play {played} is not the board's last {record}"));
            }
        }
        let result = serde_json::to_value(referee.hand_results().last()).unwrap();
        if end["result"] != result {
            faults.push(format!("hand {hand}: result {}, the referee's {result}", end["result"]));
        }
    }
    if seen != ends.len() {
        faults.push(format!("{seen} hands' ends shown, {} hands played", ends.len()));
    }
    faults
}

/// How many moves each seat made in a stored match.
fn moves_by_seat(
    rules: Arc<Rules>,
    seating: capicua_engine::Seating,
    seed: u64,
    moves: &[capicua_engine::Move],
) -> Vec<usize> {
    let mut game = Game::new(rules, seating, seed).unwrap();
    let mut count = vec![0; game.table().seats() as usize];
    for m in moves {
        count[game.to_move().expect("a stored move has a seat to make it").index()] += 1;
        game.play(*m).unwrap();
    }
    count
}

/// Every view snapshot a frame carries.
fn snapshots(frame: &Value) -> Vec<ViewSnapshot> {
    ["view"]
        .iter()
        .filter_map(|k| frame.get(*k))
        .filter(|v| !v.is_null())
        .map(|v| serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("bad view {e}: {frame}")))
        .collect()
}

/// The leaks in one receiver's frames: (frame index, other seat, tiles).
fn leaks(
    frames: &[Value],
    viewer: Option<u8>,
    sees: &dyn Fn(u8) -> bool,
    held: &[Vec<TileSet>],
) -> Vec<(usize, u8, TileSet)> {
    let mut out = vec![];
    for (i, f) in frames.iter().enumerate() {
        for snap in snapshots(f) {
            assert_eq!(snap.seat.map(|s| s.0), viewer, "a frame carried another viewer's snapshot: {f}");
            let shown = snap.held_tiles();
            let Some(hand) = held.get(snap.hand_number as usize) else { continue };
            for (o, tiles) in hand.iter().enumerate() {
                if sees(o as u8) {
                    continue;
                }
                let leaked = shown.and(*tiles);
                if !leaked.is_empty() {
                    out.push((i, o as u8, leaked));
                }
            }
        }
    }
    out
}

#[test]
fn the_checker_catches_a_leak() {
    let rules: Arc<Rules> = Rules::preset("latin").unwrap().into();
    let game = Game::new(rules.clone(), capicua_engine::Seating::new(4), 5).unwrap();
    let held = tiles_held(rules, capicua_engine::Seating::new(4), 5, &[]);
    // Seat 2's own snapshot relabelled as seat 1's: it shows seat 2's hand.
    let mut snap = game.view(Seat(2)).snapshot();
    snap.seat = Some(Seat(1));
    let frames = vec![json!({"type": "prompt", "view": snap})];
    let view = game.view(Seat(1));
    let found = leaks(&frames, Some(1), &|o| view.sees(Seat(o)), &held);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, 2);
    // The honest snapshot passes.
    let frames = vec![json!({"type": "prompt", "view": game.view(Seat(1)).snapshot()})];
    assert!(leaks(&frames, Some(1), &|o| view.sees(Seat(o)), &held).is_empty());
}

/// Plays one match of `spec` at `seats` test clients (odd seats batched)
/// with a spectator watching, and checks every frame each of them got.
async fn scan_one(server: Arc<TestServer>, db: capicua_server::Db, spec: Value, seats: usize, batched_spectator: bool) {
    // Odd seats, and every other spectator, take their events batched:
    // the frames differ in timing only, and are checked alike.
    let mut players = vec![];
    for i in 0..seats {
        players.push(if i % 2 == 1 { server.batched_guest().await } else { server.guest().await });
    }
    let room = players[0].create_room(spec.clone()).await;
    let mut spectator = if batched_spectator { server.batched_guest().await } else { server.guest().await };
    assert_eq!(spectator.request(json!({"type": "spectate", "room": room})).await["type"], "spectating");
    for (i, p) in players.iter_mut().enumerate() {
        assert_eq!(p.join(room, Some(i as u8)).await, i as u8);
    }
    for p in players.iter_mut() {
        p.ready(room).await;
    }
    let (players, spectator, game_id) = play_out_watched(players, room, spectator).await;
    let stored = db.game(game_id).await.unwrap().expect("stored");
    let capicua_server::db::Play::Tiles { variant, seating, moves } = stored.play else { panic!("a two-faced game") };
    let rules: Arc<Rules> = Rules::new(variant).unwrap().into();
    let held = tiles_held(rules.clone(), seating.clone(), stored.seed, &moves);
    let moved = moves_by_seat(rules.clone(), seating.clone(), stored.seed, &moves);
    let ends = hand_ends(rules.clone(), seating.clone(), stored.seed, &moves);
    let table = Game::new(rules, seating, stored.seed).unwrap();
    for (i, p) in players.iter().enumerate() {
        let view = table.view(Seat(i as u8));
        let found = leaks(&p.frames, Some(i as u8), &|o| view.sees(Seat(o)), &held);
        assert!(found.is_empty(), "{spec}: seat {i} was shown hidden tiles: {found:?}");
        let faults = hand_end_faults(&p.frames, Some(i as u8), &ends);
        assert!(faults.is_empty(), "{spec} (game {game_id}): seat {i}'s hands' ends: {faults:?}");
        // One prompt per move the seat made (a match can end before a seat's
        // first turn: a longana hand blocked after its lead).
        let prompts = p.frames.iter().filter(|f| f["type"] == "prompt").count();
        assert_eq!(prompts, moved[i], "{spec} (game {game_id}): seat {i}'s prompts against its moves");
    }
    let found = leaks(&spectator.frames, None, &|_| false, &held);
    assert!(found.is_empty(), "{spec}: the spectator was shown hidden tiles: {found:?}");
    let faults = hand_end_faults(&spectator.frames, None, &ends);
    assert!(faults.is_empty(), "{spec} (game {game_id}): the spectator's hands' ends: {faults:?}");
    // The stored replay shows the same ends, from a seat and as a spectator.
    for (viewer, path) in [(Some(1), "seat=1"), (None, "")] {
        let replay = server.replay(game_id, path).await;
        let steps = replay["steps"].as_array().unwrap();
        assert_eq!(steps.len(), moves.len());
        let faults = hand_end_faults(steps, viewer, &ends);
        assert!(faults.is_empty(), "{spec} (game {game_id}): the replay {path}: {faults:?}");
        let found = leaks(steps, viewer, &|o| viewer.is_some_and(|v| table.view(Seat(v)).sees(Seat(o))), &held);
        assert!(found.is_empty(), "{spec}: the replay {path} shows hidden tiles: {found:?}");
    }
}

/// The hand-end check fails a frame that shows the end of a hand it does
/// not end, or that hides a seat's tiles at the end.
#[test]
fn the_checker_catches_a_wrong_hand_end() {
    let rules: Arc<Rules> = Rules::preset("block").unwrap().into();
    let seating = capicua_engine::Seating::new(2);
    let mut game = Game::new(rules.clone(), seating.clone(), 5).unwrap();
    game.keep_hand_ends(true);
    let mut moves = vec![];
    let (end, events) = loop {
        let m = game.legal_moves()[0];
        let events = game.play(m).unwrap().to_vec();
        moves.push(m);
        if let Some(end) = game.take_hand_end() {
            break (end, events);
        }
    };
    let ends = hand_ends(rules, seating, 5, &moves);
    let hand_end = |view: ViewSnapshot| json!({"hand": 0, "result": end.hand_results().last().unwrap(), "view": view});
    let honest =
        json!({"type": "events", "events": events, "hand-end": hand_end(end.revealed_snapshot(Some(Seat(1))))});
    assert!(hand_end_faults(std::slice::from_ref(&honest), Some(1), &ends).is_empty());
    // The ending frame without its hand-end, and a hand-end in another frame.
    let bare = json!({"type": "events", "events": events});
    assert_eq!(hand_end_faults(&[bare], Some(1), &ends).len(), 2);
    let early = json!({"type": "events", "events": [], "hand-end": hand_end(end.revealed_snapshot(Some(Seat(1))))});
    assert!(!hand_end_faults(&[early, honest.clone()], Some(1), &ends).is_empty());
    // The view as it was before the hands were turned up.
    let mut hidden = end.view(Seat(1)).snapshot();
    hidden.to_move = None;
    let faulty = json!({"type": "events", "events": events, "hand-end": hand_end(hidden)});
    assert_eq!(hand_end_faults(&[faulty], Some(1), &ends).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_frame_holds_a_hidden_tile() {
    // Matches per spec; the scan at scale sets it (20 specs: 5,000 each is
    // 100,000 matches), and how many play at once.
    let env = |name: &str, default: usize| std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    let per_preset = env("CAPICUA_LEAK_GAMES", 1);
    let at_once = env("CAPICUA_LEAK_AT_ONCE", 4).max(1);
    let started = std::time::Instant::now();
    let server = Arc::new(TestServer::start().await);
    let db = capicua_server::Db::open(server.db_path.to_str().unwrap()).await.unwrap();
    // Every two-faced preset at its largest table, then latin under every
    // other visibility option.
    let mut specs: Vec<(Value, usize)> = capicua_engine::PRESETS
        .iter()
        .map(|p| (json!({"preset": p}), capicua_engine::preset(p).unwrap().players.max as usize))
        .collect();
    for (name, hands) in [
        ("partners", json!("partners")),
        ("shown", json!({"shown": {"tiles": 2}})),
        ("counts-only", json!("counts-only")),
        ("open", json!("open")),
    ] {
        let mut v = serde_json::to_value(capicua_engine::preset("latin").unwrap()).unwrap();
        v["name"] = json!(format!("latin-{name}"));
        v["visibility"] = json!({ "hands": hands });
        specs.push((json!({ "variant": v }), 4));
    }
    let kinds = specs.len();
    let mut games = 0;
    for (spec, seats) in specs {
        let mut playing = tokio::task::JoinSet::new();
        for _ in 0..per_preset {
            if playing.len() >= at_once {
                playing.join_next().await.unwrap().unwrap();
            }
            playing.spawn(scan_one(server.clone(), db.clone(), spec.clone(), seats, games % 2 == 1));
            games += 1;
        }
        while let Some(done) = playing.join_next().await {
            done.unwrap();
        }
    }
    assert_eq!(games, kinds * per_preset);
    eprintln!(
        "{games} matches over {kinds} specs scanned in {:.0} s, every frame to every seat and a spectator",
        started.elapsed().as_secs_f64()
    );
}
