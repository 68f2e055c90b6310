//! Games of 3-, 4- and 6-faced tiles: hand-built positions with
//! hand-counted moves, rejected moves leaving the game untouched, seeded
//! deals, and random matches of every preset and poly variant file keeping
//! the invariants (scale with `CAPICUA_POLY_GAMES`, default 200 matches per
//! preset and file).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use capicua_engine::poly::*;

fn rules(name: &str) -> Arc<PolyRules> {
    Arc::new(PolyRules::preset(name).unwrap())
}

/// The id of the tile showing `shown` clockwise in some rotation, and the
/// rotation that shows it so.
fn tile(r: &PolyRules, shown: &[u8]) -> (PolyTileId, u8) {
    let t = PolyTile::new(shown).unwrap();
    let id = r.set().id_of(t).unwrap_or_else(|| panic!("{t} is not in the set"));
    let rot = (0..t.faces()).find(|&k| r.set().get(id).unwrap().rotated(k) == t).unwrap();
    (id, rot as u8)
}

fn id(r: &PolyRules, shown: &[u8]) -> PolyTileId {
    tile(r, shown).0
}

/// A game whose hands are given by pips; every other tile is in the stock.
fn deal(r: &Arc<PolyRules>, hands: &[&[&[u8]]], leader: u8) -> PolyGame {
    let hands: Vec<Vec<PolyTileId>> = hands.iter().map(|h| h.iter().map(|p| id(r, p)).collect()).collect();
    let stock: Vec<PolyTileId> =
        (0..r.set().len() as u16).map(PolyTileId).filter(|t| !hands.iter().flatten().any(|h| h == t)).collect();
    PolyGame::from_deal(r.clone(), 1, hands, stock, leader).unwrap()
}

fn place(r: &PolyRules, shown: &[u8], x: i16, y: i16) -> PolyMove {
    let (tile, rotation) = tile(r, shown);
    PolyMove::Play { tile, at: PolySpot::Cell { x, y }, rotation }
}

fn legal(g: &PolyGame) -> Vec<PolyMove> {
    let mut out = PolyMoveList::default();
    g.legal_moves(&mut out);
    out.to_vec()
}

fn count_for(g: &PolyGame, t: PolyTileId) -> usize {
    legal(g).iter().filter(|m| matches!(m, PolyMove::Play { tile, .. } if *tile == t)).count()
}

/// Plays `m` and checks that the game did not change when it is refused.
fn refused(g: &mut PolyGame, m: PolyMove) {
    let before = g.clone();
    assert!(g.play(m).is_err(), "{m} must be refused");
    assert_eq!(*g, before, "a refused move leaves the game untouched");
}

#[test]
fn a_square_must_match_every_neighbour_it_touches() {
    let r = rules("quadominoes");
    // A at (0,0) = top 0, right 1, bottom 2, left 3; B = <1|1|1|1> right of
    // it; C below B showing top 1, right 0, bottom 0, left 0. Cell (0,1)
    // then touches A's bottom (2) on its top and C's left (0) on its right.
    let mut g =
        deal(&r, &[&[&[0, 1, 2, 3], &[1, 0, 0, 0], &[3, 3, 3, 3]], &[&[1, 1, 1, 1], &[2, 0, 3, 3], &[2, 1, 0, 0]]], 0);
    g.play(place(&r, &[0, 1, 2, 3], 0, 0)).unwrap();
    g.play(place(&r, &[1, 1, 1, 1], 1, 0)).unwrap();
    g.play(place(&r, &[1, 0, 0, 0], 1, 1)).unwrap();
    assert_eq!(g.to_move(), Some(1));
    // E shown [2,1,0,0] matches A above but not C on the right; no turn of
    // it fits both.
    refused(&mut g, place(&r, &[2, 1, 0, 0], 0, 1));
    for k in 0..4u8 {
        let (tile, _) = tile(&r, &[2, 1, 0, 0]);
        refused(&mut g, PolyMove::Play { tile, at: PolySpot::Cell { x: 0, y: 1 }, rotation: k });
    }
    // Perft by hand. Frontier: (0,-1) bottom 0; (-1,0) right 3; (0,1) top
    // 2 and right 0; (1,-1) bottom 1; (2,0) left 1; (2,1) left 0; (1,2)
    // top 0. A single demand of p fits once per face showing p; (0,1) needs
    // 2 followed clockwise by 0.
    // D = 2,0,3,3: 1 + 2 + 1 + 0 + 0 + 1 + 1 = 6.
    // E = 2,1,0,0: 2 + 0 + 0 + 1 + 1 + 2 + 2 = 8.
    assert_eq!(count_for(&g, id(&r, &[2, 0, 3, 3])), 6);
    assert_eq!(count_for(&g, id(&r, &[2, 1, 0, 0])), 8);
    assert_eq!(legal(&g).len(), 14);
    let mut frontier: Vec<(i16, i16)> = g.board().frontier().collect();
    frontier.sort();
    assert_eq!(frontier, vec![(-1, 0), (0, -1), (0, 1), (1, -1), (1, 2), (2, 0), (2, 1)]);
    // D fits both.
    g.play(place(&r, &[2, 0, 3, 3], 0, 1)).unwrap();
    let d = g.board().at_cell(0, 1).unwrap();
    assert_eq!((d.side_pips(0), d.side_pips(1)), (2, 0));
}

#[test]
fn triangles_alternate_and_turn() {
    let r = rules("triominoes");
    // <0|1|2> at (0,0) points up: right 0, bottom 1, left 2. Below it,
    // (0,1) points down and needs 1 on its top.
    let mut g = deal(&r, &[&[&[0, 1, 2], &[5, 5, 5]], &[&[0, 0, 0], &[1, 1, 2], &[0, 2, 5], &[4, 4, 4]]], 0);
    g.play(place(&r, &[0, 1, 2], 0, 0)).unwrap();
    assert!(Lattice::Triangle.points_up(0, 0) && !Lattice::Triangle.points_up(0, 1));
    // <0|0|0> (one distinct turn): only (1,0), which needs 0 on its left.
    assert_eq!(count_for(&g, id(&r, &[0, 0, 0])), 1);
    // <1|1|2>: (0,1) turned 0 or 2 (a 1 on top), (-1,0) turned 2 (2 on its right).
    let (t112, rot) = tile(&r, &[1, 1, 2]);
    assert_eq!(rot, 0);
    assert_eq!(count_for(&g, t112), 3);
    let at = PolySpot::Cell { x: 0, y: 1 };
    refused(&mut g, PolyMove::Play { tile: t112, at, rotation: 1 });
    refused(&mut g, PolyMove::Play { tile: t112, at, rotation: 3 });
    // <0|2|5>: (1,0) turned 2, (-1,0) turned 0.
    assert_eq!(count_for(&g, id(&r, &[0, 2, 5])), 2);
    assert_eq!(legal(&g).len(), 6);
    g.play(PolyMove::Play { tile: t112, at, rotation: 2 }).unwrap();
    let placed = g.board().at_cell(0, 1).unwrap();
    assert_eq!((placed.side_pips(0), placed.side_pips(1), placed.side_pips(2)), (1, 2, 1));
}

#[test]
fn the_graph_board_opens_every_other_face() {
    let r = rules("graph-triominoes");
    let mut g = deal(&r, &[&[&[0, 1, 2], &[5, 5, 5]], &[&[0, 0, 0], &[1, 1, 2], &[0, 2, 5], &[4, 4, 4]]], 0);
    g.play(PolyMove::Play { tile: id(&r, &[0, 1, 2]), at: PolySpot::Root, rotation: 0 }).unwrap();
    // Open: 0, 1, 2. <0|0|0>: 1; <1|1|2>: faces 0, 1 on the 1 and face 2 on
    // the 2: 3; <0|2|5>: 2; <4|4|4>: 0.
    assert_eq!(legal(&g).len(), 6);
    let t112 = id(&r, &[1, 1, 2]);
    refused(&mut g, PolyMove::Play { tile: t112, at: PolySpot::Face { node: 0, face: 2 }, rotation: 0 });
    refused(&mut g, PolyMove::Play { tile: t112, at: PolySpot::Root, rotation: 0 });
    g.play(PolyMove::Play { tile: t112, at: PolySpot::Face { node: 0, face: 2 }, rotation: 2 }).unwrap();
    let mut open: Vec<(u16, u8, u8)> = g.board().open_faces().collect();
    open.sort();
    assert_eq!(open, vec![(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 1)]);
    let node = g.board().placed()[1];
    assert_eq!((node.at, node.rotation, node.open), (PolySpot::Face { node: 0, face: 2 }, 2, 0b011));
    refused(&mut g, PolyMove::Play { tile: id(&r, &[5, 5, 5]), at: PolySpot::Face { node: 0, face: 2 }, rotation: 0 });
    // Seat 0 holds <5|5|5> only: it cannot play, so it draws.
    let mut moves = PolyMoveList::default();
    g.legal_moves(&mut moves);
    assert_eq!(moves.as_slice(), &[PolyMove::Draw]);
    refused(&mut g, PolyMove::Pass);
}

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let r = rules("triominoes");
    let mut g = PolyGame::new(r.clone(), 2, 9).unwrap();
    let mine = g.hand(0)[0];
    let theirs = g.hand(1)[0];
    refused(&mut g, PolyMove::Play { tile: theirs, at: PolySpot::Cell { x: 0, y: 0 }, rotation: 0 });
    refused(&mut g, PolyMove::Play { tile: mine, at: PolySpot::Cell { x: 1, y: 0 }, rotation: 0 });
    refused(&mut g, PolyMove::Play { tile: mine, at: PolySpot::Root, rotation: 0 });
    refused(&mut g, PolyMove::Play { tile: mine, at: PolySpot::Cell { x: 0, y: 0 }, rotation: 7 });
    refused(&mut g, PolyMove::Play { tile: PolyTileId(999), at: PolySpot::Cell { x: 0, y: 0 }, rotation: 0 });
    refused(&mut g, PolyMove::Draw);
    refused(&mut g, PolyMove::Pass);
    g.play(PolyMove::Play { tile: mine, at: PolySpot::Cell { x: 0, y: 0 }, rotation: 0 }).unwrap();
    let next = g.hand(1)[0];
    refused(&mut g, PolyMove::Play { tile: next, at: PolySpot::Cell { x: 0, y: 0 }, rotation: 0 });
    // A finished match refuses everything.
    let mut moves = PolyMoveList::default();
    while g.to_move().is_some() {
        g.legal_moves(&mut moves);
        g.play(moves[moves.len() - 1]).unwrap();
    }
    let before = g.clone();
    assert_eq!(g.play(PolyMove::Pass), Err(PolyIllegal::MatchOver));
    assert_eq!(g, before);
}

#[test]
fn a_seed_deals_the_same_hands_forever() {
    let r = rules("triominoes");
    let g = PolyGame::new(r.clone(), 2, 42).unwrap();
    let shown = |s: u8| g.hand(s).iter().map(|&t| r.set().get(t).unwrap().to_string()).collect::<Vec<_>>().join(" ");
    // Pinned: ChaCha8 stream 8<<60 keyed by SplitMix64(42), Fisher-Yates.
    assert_eq!(shown(0), SEAT0_42);
    assert_eq!(shown(1), SEAT1_42);
    assert_eq!(g.stock().len(), 56 - 18);
    let again = PolyGame::new(r.clone(), 2, 42).unwrap();
    assert_eq!(again, g);
    assert_ne!(PolyGame::new(r, 2, 43).unwrap().hand(0), g.hand(0));
}

const SEAT0_42: &str = "<0|2|2> <1|2|4> <1|3|5> <3|3|3> <2|4|5> <0|3|5> <1|3|3> <0|0|5> <2|3|4>";
const SEAT1_42: &str = "<5|5|5> <1|1|2> <2|2|3> <0|4|4> <4|4|5> <2|4|4> <0|0|4> <1|3|4> <0|3|3>";

#[test]
fn setups_must_be_consistent() {
    let r = rules("triominoes");
    let all: Vec<PolyTileId> = (0..56).map(PolyTileId).collect();
    let ok = PolyGame::from_deal(r.clone(), 0, vec![all[..5].to_vec(), all[5..10].to_vec()], all[10..].to_vec(), 1);
    assert_eq!(ok.unwrap().to_move(), Some(1));
    let twice = PolyGame::from_deal(r.clone(), 0, vec![all[..5].to_vec(), all[4..10].to_vec()], all[10..].to_vec(), 0);
    assert!(twice.is_err());
    let missing =
        PolyGame::from_deal(r.clone(), 0, vec![all[..5].to_vec(), all[5..10].to_vec()], all[11..].to_vec(), 0);
    assert!(missing.is_err());
    let leader = PolyGame::from_deal(r.clone(), 0, vec![all[..5].to_vec(), all[5..10].to_vec()], all[10..].to_vec(), 2);
    assert!(leader.is_err());
    assert!(PolyGame::new(r, 5, 0).is_err(), "triominoes seats 2 to 4");
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Every tile is in exactly one place.
fn assert_tiles_conserved(g: &PolyGame) {
    let n = g.rules().set().len();
    let mut seen = vec![0u8; n];
    let on_board = g.board().placed().iter().map(|p| p.tile);
    for t in (0..g.seats()).flat_map(|s| g.hand(s).iter().copied()).chain(g.stock().iter().copied()).chain(on_board) {
        seen[t.0 as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c == 1), "tiles lost or duplicated: {seen:?}");
}

/// A seat's snapshot holds its own hand, the board and counts: no tile of
/// another hand or of the stock.
fn assert_no_leak(g: &PolyGame) {
    for seat in 0..g.seats() {
        let snap = g.view(seat).snapshot();
        let back: PolyViewSnapshot = serde_json::from_str(&serde_json::to_string(&snap).unwrap()).unwrap();
        assert_eq!(back, snap, "snapshot round-trips");
        let own: Vec<PolyTileId> = snap.hand.iter().map(|h| h.0).collect();
        assert_eq!(own, g.hand(seat), "its own hand, all of it");
        let board: Vec<PolyTileId> = snap.board.iter().map(|p| p.tile).collect();
        let placed: Vec<PolyTileId> = g.board().placed().iter().map(|p| p.tile).collect();
        assert_eq!(board, placed);
        for hidden in (0..g.seats()).filter(|&s| s != seat).flat_map(|s| g.hand(s)).chain(g.stock()) {
            assert!(!own.contains(hidden) && !board.contains(hidden), "seat {seat} sees #{}", hidden.0);
        }
        let sizes: Vec<u16> = (0..g.seats()).map(|s| g.hand(s).len() as u16).collect();
        assert_eq!((snap.hand_sizes, snap.stock as usize), (sizes, g.stock().len()));
    }
}

/// Plays `games` seeded random matches to the end, checking the invariants
/// along the way; returns the moves played.
fn play_random(rules: Arc<PolyRules>, games: u64, label: &str) -> u64 {
    let seats = *rules.seat_range().end();
    let mut moves = PolyMoveList::with_capacity(256);
    let mut g = PolyGame::new(rules.clone(), seats, 0).unwrap();
    let mut played = 0u64;
    for seed in 0..games {
        // Every seat count the rules allow, in turn.
        let range = rules.seat_range();
        let seats = range.start() + (seed % (range.end() - range.start() + 1) as u64) as u8;
        if seats != g.seats() {
            g = PolyGame::new(rules.clone(), seats, seed).unwrap();
        } else {
            g.restart(seed);
        }
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut turns = 0u64;
        while g.to_move().is_some() {
            g.legal_moves(&mut moves);
            assert!(!moves.is_empty(), "{label} seed {seed}: a seat to move has a move");
            if turns.is_multiple_of(5) {
                assert_tiles_conserved(&g);
                assert_no_leak(&g);
                // Every generated move is accepted, and the validator agrees
                // with the generator on moves made up at random.
                for (i, &m) in moves.iter().enumerate() {
                    assert!(g.is_legal(m), "{label} seed {seed}: {m} generated but refused");
                    // Playing each on a copy: a spread of them (copies cost).
                    if i % (moves.len() / 4 + 1) == 0 {
                        g.clone().play(m).unwrap_or_else(|e| panic!("{label} seed {seed}: {e}"));
                    }
                }
                let seat = g.to_move().unwrap();
                if let Some(&tile) = g.hand(seat).first() {
                    for k in 0..8 {
                        let at = match g.board().placed().get(k) {
                            Some(p) => match p.at {
                                PolySpot::Cell { x: cx, y: cy } => {
                                    PolySpot::Cell { x: cx + (k as i16 % 3) - 1, y: cy + (k as i16 % 2) }
                                }
                                _ => PolySpot::Face { node: p.node, face: (k % 3) as u8 },
                            },
                            None => PolySpot::Root,
                        };
                        let m = PolyMove::Play { tile, at, rotation: (k % 4) as u8 };
                        assert_eq!(g.is_legal(m), moves.contains(&m), "{label} seed {seed}: {m}");
                    }
                }
            }
            let m = moves[(xorshift(&mut x) % moves.len() as u64) as usize];
            g.play(m).unwrap();
            played += 1;
            turns += 1;
        }
        let outcome = g.outcome().expect("the match ended");
        assert!(outcome.hands >= 1 && outcome.hands <= MAX_POLY_HANDS);
        assert_tiles_conserved(&g);
    }
    played
}

fn games() -> u64 {
    std::env::var("CAPICUA_POLY_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

#[test]
fn every_preset_plays_random_matches_to_the_end() {
    for name in POLY_PRESETS {
        let t = std::time::Instant::now();
        let moves = play_random(rules(name), games(), name);
        assert!(moves > games(), "{name}: moves were played");
        eprintln!("{name}: {} matches, {moves} moves in {:?}", games(), t.elapsed());
    }
}

fn poly_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            matches!(p.extension().and_then(|e| e.to_str()), Some("toml" | "json"))
                && POLY_PRESETS.iter().any(|name| text.contains(&format!("base = \"{name}\"")))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_poly_variant_file_plays() {
    let files = poly_files();
    assert!(files.len() >= POLY_PRESETS.len(), "a file per preset at least: {files:?}");
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let rules =
            PolyRules::from_file_text(name, &std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        let moves = play_random(Arc::new(rules), games() / 4 + 1, name);
        assert!(moves > 0);
    }
}

#[test]
fn preset_files_equal_their_presets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    for name in POLY_PRESETS {
        let file = format!("{name}.toml");
        let rules = PolyRules::from_file_text(&file, &std::fs::read_to_string(dir.join(&file)).unwrap()).unwrap();
        assert_eq!(rules.variant(), &poly_preset(name).unwrap());
    }
}

#[test]
fn bad_files_fail_with_pinned_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_poly_variants");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml" || e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let err = PolyRules::from_file_text(name, &std::fs::read_to_string(&path).unwrap())
            .expect_err("a bad file must not load")
            .to_string();
        let pinned = path.with_extension("err");
        match std::fs::read_to_string(&pinned) {
            Ok(expected) => assert_eq!(err, expected.trim_end(), "{}", path.display()),
            Err(_) if std::env::var_os("CAPICUA_BLESS").is_some() => std::fs::write(&pinned, err + "\n").unwrap(),
            Err(_) => panic!("{}: no pinned message; got {err:?} (CAPICUA_BLESS=1 writes it)", path.display()),
        }
    }
}

#[test]
fn the_move_buffer_is_reused() {
    let r = rules("hexominoes");
    let mut g = PolyGame::new(r, 2, 5).unwrap();
    let mut moves = PolyMoveList::with_capacity(4096);
    let ptr = moves.as_slice().as_ptr();
    let mut x = 77u64;
    while g.to_move().is_some() {
        g.legal_moves(&mut moves);
        assert!(moves.len() <= 4096);
        assert_eq!(moves.as_slice().as_ptr(), ptr, "the buffer never moved: no allocation");
        g.play(moves[(xorshift(&mut x) % moves.len() as u64) as usize]).unwrap();
    }
}

fn with(name: &str, f: impl FnOnce(&mut PolyVariant)) -> Arc<PolyRules> {
    let mut v = poly_preset(name).unwrap();
    f(&mut v);
    Arc::new(v.validate().unwrap())
}

#[test]
fn a_blocked_hand_goes_to_the_lightest_hand() {
    for (scoring, expected) in [(PolyScoring::Opponents, [0, 15]), (PolyScoring::OwnPips, [15, 9])] {
        let r = with("triominoes", |v| {
            v.stuck = PolyStuck::Pass;
            v.scoring = scoring;
            v.play_points = PolyPlayPoints::None;
            v.target = PolyMatchTarget::Hands(2);
        });
        let mut g = deal(&r, &[&[&[0, 0, 0], &[5, 5, 5]], &[&[1, 1, 1], &[2, 2, 2]]], 0);
        g.play(place(&r, &[0, 0, 0], 0, 0)).unwrap();
        // Nothing of seat 1 touches a 0, and the stock is closed: pass.
        assert_eq!(legal(&g), vec![PolyMove::Pass]);
        g.play(PolyMove::Pass).unwrap();
        assert_eq!(legal(&g), vec![PolyMove::Pass]);
        let events = g.play(PolyMove::Pass).unwrap();
        let mut points = [0; MAX_POLY_SEATS as usize];
        points[..2].copy_from_slice(&expected);
        assert_eq!(
            events.last(),
            Some(&PolyEvent::HandEnded { hand: 0, winner: Some(1), blocked: true, points }),
            "{scoring:?}: seat 0 holds 15 pips, seat 1 holds 9"
        );
        assert_eq!(g.scores(), &expected);
        assert_eq!((g.hand_number(), g.to_move()), (1, Some(1)), "hand 1 is dealt and led by seat 1");
        assert!(g.board().is_empty());
        assert_tiles_conserved(&g);
    }
}

#[test]
fn going_out_scores_the_others_pips_and_a_hands_target_ends_the_match() {
    let r = with("graph-triominoes", |v| v.target = PolyMatchTarget::Hands(1));
    let mut g = deal(&r, &[&[&[0, 0, 0]], &[&[1, 2, 3], &[4, 4, 5]]], 0);
    let events = g.play(PolyMove::Play { tile: id(&r, &[0, 0, 0]), at: PolySpot::Root, rotation: 0 }).unwrap();
    let mut points = [0; MAX_POLY_SEATS as usize];
    points[0] = 6 + 13;
    assert_eq!(events[1], PolyEvent::HandEnded { hand: 0, winner: Some(0), blocked: false, points });
    assert_eq!(events[2], PolyEvent::MatchEnded { winner: Some(0) });
    assert_eq!(g.outcome(), Some(&PolyOutcome { winner: Some(0), scores: vec![19, 0], hands: 1 }));
    assert_eq!(g.to_move(), None);
}

#[test]
fn each_stuck_rule_draws_as_far_as_it_says() {
    // Seat 1 holds only <5|5|5> against a lone <0|0|0>. The stock's top
    // three tiles hold no 0; the fourth, <0|1|1>, fits.
    for (stuck, draws, then_plays) in [
        (PolyStuck::Pass, 0, false),
        (PolyStuck::DrawOne, 1, false),
        (PolyStuck::DrawUpTo(3), 3, false),
        (PolyStuck::DrawUntilPlayable, 4, true),
    ] {
        let r = with("triominoes", |v| v.stuck = stuck);
        let hands: Vec<Vec<PolyTileId>> = vec![vec![id(&r, &[0, 0, 0]), id(&r, &[1, 1, 1])], vec![id(&r, &[5, 5, 5])]];
        let top = [&[0, 1, 1][..], &[1, 2, 3], &[2, 3, 4], &[3, 4, 5]];
        let mut stock: Vec<PolyTileId> = (0..56)
            .map(PolyTileId)
            .filter(|t| !hands.iter().flatten().any(|h| h == t) && !top.iter().any(|p| id(&r, p) == *t))
            .collect();
        stock.extend(top.iter().map(|p| id(&r, p)));
        let mut g = PolyGame::from_deal(r.clone(), 3, hands, stock, 0).unwrap();
        g.play(place(&r, &[0, 0, 0], 0, 0)).unwrap();
        for drawn in 0..draws {
            assert_eq!(legal(&g), vec![PolyMove::Draw], "{stuck:?}: draw {drawn}");
            refused(&mut g, PolyMove::Pass);
            assert!(matches!(g.play(PolyMove::Draw).unwrap()[0], PolyEvent::Drew { seat: 1, .. }));
            assert_eq!(g.to_move(), Some(1), "a draw does not end the turn");
        }
        assert_eq!(g.drawn_this_turn(), draws);
        assert_eq!(g.hand(1).len(), 1 + draws as usize);
        if then_plays {
            let moves = legal(&g);
            assert!(!moves.is_empty() && moves.iter().all(|m| matches!(m, PolyMove::Play { .. })), "{stuck:?}");
            refused(&mut g, PolyMove::Draw);
        } else {
            assert_eq!(legal(&g), vec![PolyMove::Pass], "{stuck:?}");
            refused(&mut g, PolyMove::Draw);
            g.play(PolyMove::Pass).unwrap();
            assert_eq!(g.to_move(), Some(0));
        }
    }
}

#[test]
fn json_poly_files_work_too() {
    let r = PolyRules::from_file_text(
        "h.json",
        r#"{"base": "hexominoes", "stuck": {"draw-up-to": 2}, "seats": {"min": 2, "max": 3}}"#,
    )
    .unwrap();
    assert_eq!(r.variant().stuck, PolyStuck::DrawUpTo(2));
    assert_eq!(r.seat_range(), 2..=3);
    let e = PolyRules::from_file_text("h.json", "{\"base\": \"hexominoes\",\n\"faces\": 4}").unwrap_err();
    // The offending field came from the base preset: no line to point at.
    assert_eq!(e.to_string(), "h.json: board: a hex lattice holds 6-faced tiles, not 4");
}

#[test]
fn hexagons_count_distinct_turns_only() {
    let r = rules("hexominoes");
    let six = |p: u8| [p; 6];
    let mut g = deal(
        &r,
        &[
            &[&[0, 0, 0, 0, 0, 1], &six(0), &six(2)],
            &[&[0, 1, 2, 0, 1, 2], &[0, 0, 1, 1, 2, 2], &[2, 2, 2, 2, 2, 1], &six(1)],
        ],
        0,
    );
    g.play(place(&r, &[0, 0, 0, 0, 0, 1], 0, 0)).unwrap();
    // Six cells around (0,0): five need a 0, the one across side 5 (0,-1)
    // needs a 1. <0|1|2|0|1|2> has 3 distinct turns, one showing each pip
    // on a given side: 6. <0|0|1|1|2|2> (6 turns): 2 per cell: 12.
    // <2|2|2|2|2|1>: only the 1-cell, by its one 1: 1. <1|1|1|1|1|1>: 1.
    assert_eq!(count_for(&g, id(&r, &[0, 1, 2, 0, 1, 2])), 6);
    assert_eq!(count_for(&g, id(&r, &[0, 0, 1, 1, 2, 2])), 12);
    assert_eq!(count_for(&g, id(&r, &[2, 2, 2, 2, 2, 1])), 1);
    assert_eq!(count_for(&g, id(&r, &six(1))), 1);
    assert_eq!(legal(&g).len(), 20);
    g.play(place(&r, &six(1), 0, -1)).unwrap();
    // (1,-1) and (-1,0) now touch a 0 of (0,0) and a 1 of (0,-1): the
    // blank hexagon fits only (1,0), (0,1) and (-1,1).
    refused(&mut g, place(&r, &six(0), 1, -1));
    refused(&mut g, place(&r, &six(0), -1, 0));
    let mut cells: Vec<PolySpot> = legal(&g)
        .iter()
        .map(|m| match m {
            PolyMove::Play { at, .. } => *at,
            _ => panic!("{m}"),
        })
        .collect();
    cells.sort_by_key(|c| match c {
        PolySpot::Cell { x, y } => (*x, *y),
        _ => (0, 0),
    });
    let cell = |x, y| PolySpot::Cell { x, y };
    assert_eq!(cells, vec![cell(-1, 1), cell(0, 1), cell(1, 0)]);
}

#[test]
fn tile_pips_score_for_the_placer_during_play() {
    let r = rules("triominoes");
    let mut g = deal(&r, &[&[&[0, 1, 2], &[5, 5, 5]], &[&[1, 1, 2], &[4, 4, 4]]], 0);
    let events = g.play(place(&r, &[0, 1, 2], 0, 0)).unwrap();
    assert!(matches!(events[0], PolyEvent::Played { seat: 0, points: 3, .. }));
    let (t112, _) = tile(&r, &[1, 1, 2]);
    let events = g.play(PolyMove::Play { tile: t112, at: PolySpot::Cell { x: 0, y: 1 }, rotation: 0 }).unwrap();
    assert!(matches!(events[0], PolyEvent::Played { seat: 1, points: 4, .. }));
    assert_eq!(g.scores(), &[3, 4]);
    let none = with("triominoes", |v| v.play_points = PolyPlayPoints::None);
    let mut g = deal(&none, &[&[&[0, 1, 2], &[5, 5, 5]], &[&[1, 1, 2], &[4, 4, 4]]], 0);
    g.play(place(&none, &[0, 1, 2], 0, 0)).unwrap();
    assert_eq!(g.scores(), &[0, 0]);
}
