//! Invariant checks shared by the engine's integration tests (and reusable by
//! the variant tests of later issues).
#![allow(dead_code, missing_docs)]

use capicua_engine::{Action, Game, Move, Seat, TileSet, ViewSnapshot};

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
        let held = snap.held_tiles();
        let json = serde_json::to_string(&snap).unwrap();
        let back: ViewSnapshot = serde_json::from_str(&json).unwrap();
        assert_eq!(back, snap, "snapshot round-trips");
        for other in (0..seats).map(Seat) {
            if view.sees(other) {
                continue;
            }
            let hidden = g.hand(other).or(g.drawn_by(other));
            assert!(
                !held.intersects(&hidden),
                "viewer {viewer:?} holds tiles of hidden {other}: {:?}",
                held.and(hidden)
            );
        }
        if viewer.is_none() {
            assert!(held.is_empty(), "a spectator sees no hand");
        }
        // Nothing in the snapshot names a stock or out-of-play tile either:
        // the only tiles it may name are held ones it sees, and played ones.
        let allowed = held.or(view.played());
        let hidden_elsewhere = g.stock().collect::<TileSet>().or(g.out_of_play());
        assert!(!allowed.intersects(&hidden_elsewhere));
    }
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
