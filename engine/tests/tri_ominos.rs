//! Tri-Ominos and Quad-Ominos as sold: numbers at the corners, every
//! shared corner agreeing, and the published bonuses and penalties.

use std::sync::Arc;

use capicua_engine::SeededRng;
use capicua_engine::poly::{
    BoardKind, PolyEvent, PolyGame, PolyMove, PolyMoveList, PolyRules, PolySpot, PolyTile, PolyTileId,
};

fn rules(name: &str) -> Arc<PolyRules> {
    Arc::new(PolyRules::preset(name).unwrap())
}

fn id(r: &PolyRules, pips: [u8; 3]) -> PolyTileId {
    r.set().id_of(PolyTile::new(&pips).unwrap()).unwrap_or_else(|| panic!("{pips:?} is not in the set"))
}

/// A deal: the given hands, every other tile in the stock (`top` last).
fn deal(r: &Arc<PolyRules>, hands: &[&[[u8; 3]]], top: &[[u8; 3]]) -> PolyGame {
    let hands: Vec<Vec<PolyTileId>> = hands.iter().map(|h| h.iter().map(|&p| id(r, p)).collect()).collect();
    let top: Vec<PolyTileId> = top.iter().map(|&p| id(r, p)).collect();
    let mut stock: Vec<PolyTileId> = (0..r.set().len() as u16)
        .map(PolyTileId)
        .filter(|t| !hands.iter().flatten().any(|h| h == t) && !top.contains(t))
        .collect();
    stock.extend(top);
    PolyGame::from_deal(r.clone(), 1, hands, stock, 0).unwrap()
}

/// The one legal placement of `pips` in cell `(x, y)`.
fn place(g: &mut PolyGame, pips: [u8; 3], x: i16, y: i16) -> i32 {
    let tile = id(g.rules(), pips);
    let mut moves = PolyMoveList::default();
    g.legal_moves(&mut moves);
    let at = PolySpot::Cell { x, y };
    let found: Vec<PolyMove> = moves
        .iter()
        .copied()
        .filter(|m| matches!(m, PolyMove::Play { tile: t, at: a, .. } if *t == tile && *a == at))
        .collect();
    assert_eq!(found.len(), 1, "{pips:?} at ({x}, {y}): {found:?}");
    let seat = g.to_move().unwrap() as usize;
    let before = g.scores()[seat];
    let events = g.play(found[0]).unwrap();
    let PolyEvent::Played { points, .. } = events[0] else { panic!("{events:?}") };
    assert_eq!(g.scores()[seat] - before - hand_end_points(&events, seat), points);
    points
}

fn hand_end_points(events: &[PolyEvent], seat: usize) -> i32 {
    events
        .iter()
        .find_map(|e| if let PolyEvent::HandEnded { points, .. } = e { Some(points[seat]) } else { None })
        .unwrap_or(0)
}

#[test]
fn the_set_is_56_triangles_in_one_orientation_and_quads_are_126() {
    let r = rules("tri-ominos");
    assert_eq!(r.set().len(), 56);
    assert!(r.set().id_of(PolyTile::new(&[0, 1, 2]).unwrap()).is_some());
    assert!(r.set().id_of(PolyTile::new(&[0, 2, 1]).unwrap()).is_none(), "0-2-1 is not in the set as sold");
    assert_eq!(rules("quad-ominos").set().len(), 126);
    assert_eq!(PolyGame::new(r.clone(), 2, 3).unwrap().hand(0).len(), 9);
    assert_eq!(PolyGame::new(r, 3, 3).unwrap().hand(2).len(), 7);
}

/// Seat 0 opens with 5-5-5 at (0, 0); the next five tiles close the
/// hexagon round the vertex below-right of it (seat 1's 4-5-5 completes
/// it), an arm runs right along the top, and seat 0's last tile, 2-3-3 at
/// (3, 1), touches the board along one side and at its opposite corner: a
/// bridge. It goes out with it.
#[test]
fn a_scripted_hand_scores_the_opening_a_hexagon_a_bridge_and_going_out() {
    let r = rules("tri-ominos");
    let seat0: &[[u8; 3]] = &[[5, 5, 5], [1, 2, 5], [3, 4, 5], [1, 2, 2], [2, 3, 4], [0, 4, 4], [2, 3, 3]];
    let seat1: &[[u8; 3]] =
        &[[1, 5, 5], [2, 3, 5], [4, 5, 5], [2, 2, 4], [3, 4, 4], [0, 3, 4], [0, 1, 1], [0, 1, 2], [0, 1, 3]];
    let mut g = deal(&r, &[seat0, seat1], &[]);
    let script: [([u8; 3], i16, i16, i32); 13] = [
        ([5, 5, 5], 0, 0, 15 + 10), // the highest triple opens: +10
        ([1, 5, 5], 1, 0, 11),
        ([1, 2, 5], 2, 0, 8),
        ([2, 3, 5], 2, 1, 10),
        ([3, 4, 5], 1, 1, 12),
        ([4, 5, 5], 0, 1, 14 + 50), // six triangles round vertex (2, 1): a hexagon
        ([1, 2, 2], 3, 0, 5),
        ([2, 2, 4], 4, 0, 8),
        ([2, 3, 4], 5, 0, 9),
        ([3, 4, 4], 6, 0, 11),
        ([0, 4, 4], 6, 1, 8),
        ([0, 3, 4], 5, 1, 7),
        ([2, 3, 3], 3, 1, 8 + 40), // one side on (2, 1), the opposite corner on (5, 1): a bridge
    ];
    for (i, &(pips, x, y, points)) in script.iter().enumerate() {
        assert_eq!(g.to_move(), Some((i % 2) as u8));
        if i == 12 {
            g.keep_hand_ends(true);
        }
        assert_eq!(place(&mut g, pips, x, y), points, "move {i}: {pips:?}");
    }
    // Seat 0 went out: +25 and seat 1's 2 + 3 + 4 pips left.
    let end = g.take_hand_end().expect("seat 0 went out");
    assert!(end.hand(0).is_empty());
    let played0 = 25 + 8 + 12 + 5 + 9 + 8 + 48;
    let played1 = 11 + 10 + 64 + 8 + 11 + 7;
    assert_eq!(g.scores(), &[played0 + 25 + 9, played1]);
    assert_eq!(g.hand_number(), 1, "the match goes on to 400");
}

#[test]
fn a_corner_mismatch_or_a_corner_only_touch_is_refused_and_changes_nothing() {
    let r = rules("tri-ominos");
    let mut g = deal(&r, &[&[[5, 5, 5], [0, 1, 2]], &[[1, 5, 5], [2, 5, 5]]], &[]);
    let mut moves = PolyMoveList::default();
    g.legal_moves(&mut moves);
    assert_eq!(moves.len(), 1, "the highest triple must open: {:?}", moves.as_slice());
    let wrong_opener = PolyMove::Play { tile: id(&r, [0, 1, 2]), at: PolySpot::Cell { x: 0, y: 0 }, rotation: 0 };
    assert!(g.play(wrong_opener).is_err());
    g.play(moves[0]).unwrap();
    // 1-5-5 fits at (1, 0) only with both 5s on the side it shares.
    let tile = id(&r, [1, 5, 5]);
    let fits = |rotation| g.is_legal(PolyMove::Play { tile, at: PolySpot::Cell { x: 1, y: 0 }, rotation });
    assert_eq!((0..3).filter(|&rot| fits(rot)).count(), 1);
    let before = g.clone();
    for rotation in 0..3 {
        let m = PolyMove::Play { tile, at: PolySpot::Cell { x: 1, y: 0 }, rotation };
        if !g.is_legal(m) {
            assert!(g.play(m).is_err(), "a corner mismatch is refused");
        }
        // (2, 0) shares only a corner with (0, 0): no whole side.
        let m = PolyMove::Play { tile, at: PolySpot::Cell { x: 2, y: 0 }, rotation };
        assert!(!g.is_legal(m) && g.play(m).is_err(), "a corner-only touch is refused");
    }
    assert_eq!(g, before, "refused moves leave the game untouched");
}

#[test]
fn drawing_costs_5_a_tile_and_passing_10() {
    let r = rules("tri-ominos");
    // After 5-5-5 opens, every cell wants two 5s on a side: seat 1 holds
    // none, nor do the three tiles on top of the stock.
    let seat1: &[[u8; 3]] = &[[0, 0, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 2], [0, 2, 2], [2, 2, 2]];
    let mut g = deal(
        &r,
        &[&[[5, 5, 5], [0, 4, 5], [1, 4, 5], [2, 4, 5], [3, 4, 5], [0, 3, 5], [1, 3, 5]], seat1],
        &[[0, 1, 3], [0, 1, 4], [1, 2, 3]],
    );
    let mut moves = PolyMoveList::default();
    g.legal_moves(&mut moves);
    g.play(moves[0]).unwrap();
    assert_eq!(g.scores(), &[25, 0]);
    for drawn in 1..=3 {
        g.legal_moves(&mut moves);
        assert_eq!(moves.as_slice(), &[PolyMove::Draw]);
        g.play(PolyMove::Draw).unwrap();
        assert_eq!(g.scores()[1], -5 * drawn);
    }
    g.legal_moves(&mut moves);
    assert_eq!(moves.as_slice(), &[PolyMove::Pass], "three draws at most");
    g.play(PolyMove::Pass).unwrap();
    assert_eq!(g.scores()[1], -25);
    assert_eq!(g.to_move(), Some(0));
}

#[test]
fn with_the_pool_empty_a_pass_costs_10() {
    let r = rules("tri-ominos");
    let double_fives: Vec<[u8; 3]> = (0..=5).map(|p| [p, 5, 5]).collect();
    let rest: Vec<[u8; 3]> = r
        .set()
        .tiles()
        .iter()
        .map(|t| [t.face(0), t.face(1), t.face(2)])
        .filter(|p| !double_fives.contains(p))
        .collect();
    let mut g = deal(&r, &[&double_fives, &rest], &[]);
    assert!(g.stock().is_empty());
    let mut moves = PolyMoveList::default();
    g.legal_moves(&mut moves);
    g.play(moves[0]).unwrap();
    g.legal_moves(&mut moves);
    assert_eq!(moves.as_slice(), &[PolyMove::Pass]);
    g.play(PolyMove::Pass).unwrap();
    assert_eq!(g.scores()[1], -10);
}

/// Every placed tile agrees with every vertex it shares and, after the
/// first, shares a whole side with an earlier tile.
fn check_corners(g: &PolyGame, name: &str) {
    let BoardKind::Lattice(lattice) = g.board().kind() else { panic!("{name}: a lattice") };
    let mut seen = std::collections::HashMap::new();
    let mut cells = std::collections::HashSet::new();
    for (i, p) in g.board().placed().iter().enumerate() {
        let PolySpot::Cell { x, y } = p.at else { panic!("{name}: a cell") };
        let n = lattice.faces();
        if i > 0 {
            assert!(
                (0..n).any(|s| {
                    let (nx, ny, _) = lattice.neighbour(x, y, s);
                    cells.contains(&(nx, ny))
                }),
                "{name}: tile {i} shares no side"
            );
        }
        let shown = p.pips.rotated(p.rotation as usize);
        for c in 0..n {
            let v = lattice.corner(x, y, c);
            let pip = *seen.entry(v).or_insert(shown.face(c));
            assert_eq!(pip, shown.face(c), "{name}: tile {i} corner {c} at {v:?}");
            assert_eq!(g.board().at_vertex(v.0, v.1), Some(pip), "{name}");
        }
        cells.insert((x, y));
    }
}

#[test]
fn seeded_random_playouts_of_both_presets_finish_keeping_the_corners() {
    for name in ["tri-ominos", "quad-ominos"] {
        let r = rules(name);
        for seed in 0..4 {
            let seats = 2 + (seed % 3) as u8;
            let mut g = PolyGame::new(r.clone(), seats, seed).unwrap();
            g.keep_hand_ends(true);
            let mut rng = SeededRng::new(seed, 1);
            let mut moves = PolyMoveList::default();
            let total = r.set().len();
            while g.to_move().is_some() {
                g.legal_moves(&mut moves);
                assert!(moves.iter().all(|&m| g.is_legal(m)), "{name}");
                let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                g.play(m).unwrap();
                let held: usize = (0..seats).map(|s| g.hand(s).len()).sum();
                assert_eq!(held + g.stock().len() + g.board().placed().len(), total, "{name}: tiles are kept");
                if let Some(end) = g.take_hand_end() {
                    check_corners(&end, name);
                } else if g.to_move().is_some() {
                    check_corners(&g, name);
                }
            }
            let out = g.outcome().unwrap();
            assert!(out.scores.iter().any(|&s| s >= if name == "tri-ominos" { 400 } else { 800 }) || out.hands >= 500);
        }
    }
}

#[test]
fn the_variant_files_name_the_presets() {
    for name in ["tri-ominos", "quad-ominos"] {
        let path = format!("{}/../variants/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let rules = PolyRules::from_file_text(&path, &text).unwrap();
        assert_eq!(rules.variant(), PolyRules::preset(name).unwrap().variant());
    }
}

/// The edge-matching presets are named for what they are; their former
/// names still read, as the same rules under the name they were stored with.
#[test]
fn the_edge_presets_are_named_for_what_they_are_and_their_former_names_still_read() {
    use capicua_engine::poly::{POLY_PRESET_ALIASES, POLY_PRESETS, poly_preset};
    for name in ["tri-ominos", "quad-ominos", "edge-triominoes", "edge-quadominoes"] {
        assert!(POLY_PRESETS.contains(&name), "{name} is listed");
    }
    for (former, preset) in POLY_PRESET_ALIASES {
        assert!(!POLY_PRESETS.contains(former), "{former} is not listed");
        let (old, new) = (poly_preset(former).unwrap(), poly_preset(preset).unwrap());
        assert_eq!(old.name, *former);
        assert_eq!(poly_preset(preset).unwrap().matching, old.matching);
        let mut renamed = old.clone();
        renamed.name = new.name.clone();
        assert_eq!(renamed, new, "{former} reads as {preset}");
    }
}
