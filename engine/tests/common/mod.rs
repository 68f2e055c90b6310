//! Invariant checks shared by the engine's integration tests (and reusable by
//! the variant tests of later issues).
#![allow(dead_code, missing_docs)]

use capicua_engine::{Action, EndId, Game, HandVisibility, Move, Seat, Tile, TileSet, ViewSnapshot};

/// Every tile is in exactly one place: a hand, the stock, out of play, or
/// on the table.
pub fn assert_tiles_conserved(g: &Game) {
    let all = g.rules().catalog().all();
    let mut seen = TileSet::EMPTY;
    let mut count = 0;
    let mut add = |s: TileSet, what: &str| {
        assert!(!seen.intersects(&s), "{what} overlaps: {:?}", seen.and(s));
        seen = seen.or(s);
        count += s.len();
    };
    for s in 0..g.table().seats() {
        add(g.hand(Seat(s)), "hand");
    }
    add(g.stock().collect(), "stock");
    add(g.out_of_play(), "out of play");
    let played: TileSet = g
        .history()
        .iter()
        .filter_map(|r| match r.action {
            Action::Play { tile, .. } => Some(tile),
            _ => None,
        })
        .collect();
    add(played, "table");
    assert_eq!(seen, all, "tiles lost or invented");
    assert_eq!(count, all.len());
}

/// The snapshot a seat receives holds no tile of a hand it may not see.
pub fn assert_no_leak(g: &Game) {
    let seats = g.table().seats();
    for viewer in (0..seats).map(Seat).map(Some).chain([None]) {
        let view = match viewer {
            Some(s) => g.view(s),
            None => g.spectator_view(),
        };
        let snap: ViewSnapshot = view.snapshot();
        let json = serde_json::to_string(&snap).unwrap();
        let back: ViewSnapshot = serde_json::from_str(&json).unwrap();
        assert_eq!(back, snap, "snapshot round-trips");
        if let Err(e) = snapshot_leak(g, viewer, &snap) {
            panic!("{e}");
        }
    }
}

/// Why `snap`, sent to `viewer` (`None`: a spectator), reveals a tile the
/// viewer may not know, judged from the rules and the referee's knowledge.
pub fn snapshot_leak(g: &Game, viewer: Option<Seat>, snap: &ViewSnapshot) -> Result<(), String> {
    let seats = g.table().seats();
    let view = match viewer {
        Some(s) => g.view(s),
        None => g.spectator_view(),
    };
    let held = snap.held_tiles();
    for other in (0..seats).map(Seat) {
        if view.sees(other) {
            continue;
        }
        // Partial visibility: the shown tiles are public, but never more
        // than the rule's count, never a drawn tile, and only while held.
        let shown = g.shown(other);
        match g.rules().variant().visibility.hands {
            HandVisibility::Shown { tiles } if shown.len() > tiles as usize => return Err("too many shown".into()),
            HandVisibility::Shown { .. } => {}
            _ if !shown.is_empty() => return Err("tiles shown without the rule".into()),
            _ => {}
        }
        if shown.intersects(&g.drawn_by(other)) {
            return Err("a drawn tile is shown".into());
        }
        if shown.minus(g.hand(other)) != TileSet::EMPTY {
            return Err("shown tiles are not held".into());
        }
        let hidden = g.hand(other).or(g.drawn_by(other)).minus(shown);
        if held.intersects(&hidden) {
            return Err(format!("viewer {viewer:?} holds tiles of hidden {other}: {:?}", held.and(hidden)));
        }
    }
    if viewer.is_none() {
        let shown = (0..seats).fold(TileSet::EMPTY, |a, s| a.or(g.shown(Seat(s))));
        if held != shown {
            return Err("a spectator sees no hand, only shown tiles".into());
        }
    }
    // Nothing in the snapshot names a stock or out-of-play tile either:
    // the only tiles it may name are held ones it sees, and played ones.
    let allowed = held.or(view.played());
    let hidden_elsewhere = g.stock().collect::<TileSet>().or(g.out_of_play());
    if allowed.intersects(&hidden_elsewhere) {
        return Err("a stock or out-of-play tile is named".into());
    }
    Ok(())
}

/// A digest of everything observable, to check a refused move changed nothing.
pub fn state_digest(g: &Game) -> String {
    let mut s = format!("{:?}|{:?}|{:?}|", g.log(), g.scores(), g.to_move());
    for seat in 0..g.table().seats() {
        s += &format!("{:?}|", g.view(Seat(seat)).snapshot());
    }
    s += &format!("{:?}|{:?}", g.stock().collect::<Vec<_>>(), g.out_of_play());
    s
}

/// Plays `m` and checks the result is `Ok`, with all invariants after.
pub fn play_checked(g: &mut Game, m: Move) {
    g.play(m).unwrap_or_else(|e| panic!("{m} refused: {e}"));
    assert_tiles_conserved(g);
}

/// The tile `[a|b]`.
pub fn d(a: u8, b: u8) -> Tile {
    Tile::domino(a, b)
}

/// A set of tiles from `(a, b)` pairs.
pub fn set(tiles: &[(u8, u8)]) -> TileSet {
    tiles.iter().map(|&(a, b)| d(a, b)).collect()
}

/// Leading `[a|b]`.
pub fn lead(a: u8, b: u8) -> Move {
    Move::Play { tile: d(a, b), end: EndId::LEAD, face: 0 }
}

/// The tiles of the legal plays of the seat to move, in list order (a tile
/// that fits two ends appears twice).
pub fn played_tiles(g: &Game) -> Vec<Tile> {
    g.legal_moves()
        .iter()
        .filter_map(|m| match m {
            Move::Play { tile, .. } => Some(*tile),
            _ => None,
        })
        .collect()
}

/// A latin hand that blocks with both ends on 0 and all seven 0s played:
/// hands of 34, 39, 29, 24 pips (the teams 63 each), seats 0 and 3 holding
/// 4 tiles, seats 1 and 2 five. Seats move 0, 3, 2, 1 (counter-clockwise).
/// Played as hand 1 (the later-hand rule: any tile leads, so seat 0 leads
/// [0|0]) of `v`, which must keep latin's seats, layout and matching.
pub fn blocked_latin(v: capicua_engine::Variant) -> Game {
    use capicua_engine::{Seating, Setup};
    let hands = vec![
        set(&[(0, 0), (0, 3), (5, 6), (6, 6), (5, 5), (4, 6), (1, 1)]),
        set(&[(0, 2), (0, 5), (2, 6), (3, 3), (3, 5), (4, 4), (4, 5)]),
        set(&[(1, 2), (0, 4), (1, 5), (1, 4), (2, 2), (2, 3), (3, 6)]),
        set(&[(0, 1), (3, 4), (0, 6), (1, 3), (1, 6), (2, 4), (2, 5)]),
    ];
    let setup = Setup { seed: 9, hand: 1, scores: vec![], hands, stock: vec![], leader: Seat(0) };
    let mut g = Game::from_setup(std::sync::Arc::new(v.validate().unwrap()), Seating::new(4), setup).unwrap();
    play_checked(&mut g, lead(0, 0));
    let script = [(3, (0, 1), 0), (2, (1, 2), 0), (1, (0, 2), 0), (0, (0, 3), 1), (3, (3, 4), 1), (2, (0, 4), 1)];
    let on = |g: &Game, a: u8, b: u8, end: u8| {
        let pip = g.board().ends()[end as usize].pip;
        let face = if d(a, b).faces().0 == pip { 0 } else { 1 };
        Move::Play { tile: d(a, b), end: EndId(end), face }
    };
    for (seat, (a, b), end) in script {
        assert_eq!(g.to_move(), Some(Seat(seat)));
        let m = on(&g, a, b, end);
        play_checked(&mut g, m);
    }
    for (seat, (a, b), end) in [(1, (0, 5), 0), (0, (5, 6), 0), (3, (0, 6), 0)] {
        assert_eq!(g.to_move(), Some(Seat(seat)));
        assert!(g.hand_results().is_empty(), "not blocked before the last zero");
        let m = on(&g, a, b, end);
        play_checked(&mut g, m);
    }
    g
}
