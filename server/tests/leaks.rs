//! The leak test: every frame sent to every seat (and to a spectator) over
//! many games of several presets is checked against the referee's record of
//! who held which tile; no frame may name a tile held by a seat whose hand
//! the receiver may not see.

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
    let table = Game::new(rules, seating, stored.seed).unwrap();
    for (i, p) in players.iter().enumerate() {
        let view = table.view(Seat(i as u8));
        let found = leaks(&p.frames, Some(i as u8), &|o| view.sees(Seat(o)), &held);
        assert!(found.is_empty(), "{spec}: seat {i} was shown hidden tiles: {found:?}");
        // One prompt per move the seat made (a match can end before a seat's
        // first turn: a longana hand blocked after its lead).
        let prompts = p.frames.iter().filter(|f| f["type"] == "prompt").count();
        assert_eq!(prompts, moved[i], "{spec} (game {game_id}): seat {i}'s prompts against its moves");
    }
    let found = leaks(&spectator.frames, None, &|_| false, &held);
    assert!(found.is_empty(), "{spec}: the spectator was shown hidden tiles: {found:?}");
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
