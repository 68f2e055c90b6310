//! Hidden information: every view the package hands to Python (what
//! `Game.view(seat)` and a Python strategy's `View` are built from) names
//! no tile another seat holds out of the viewer's sight, in every preset
//! of both families, at every position of seeded random matches.

use std::collections::HashSet;

use capicua::model::{AnyGame, AnyRules, TILES_FIELDS, TilesField, move_json, move_keys, tiles_field, to_json};
use capicua_engine::poly::{POLY_PRESETS, PolyViewSnapshot};
use capicua_engine::{Game, MoveList, PRESETS, Seat, TileSet, ViewSnapshot};
use capicua_protocol::AnyMove;
use capicua_strategy::{SeatView, TableSeat};

/// A small deterministic stream for picking moves.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

/// The tiles of other seats a two-faced view shows that the viewer may not
/// see: `(seat, tiles)` for each seat with a leak.
fn tiles_leaks(game: &Game, seat: Seat, view: &ViewSnapshot) -> Vec<(u8, TileSet)> {
    let sees = game.view(seat);
    let shown = view.held_tiles();
    (0..game.table().seats())
        .map(Seat)
        .filter(|&o| !sees.sees(o))
        .map(|o| (o.0, shown.and(game.hand(o).minus(game.shown(o)))))
        .filter(|(_, leaked)| !leaked.is_empty())
        .collect()
}

/// Plays `matches` seeded random matches of every preset, checking every
/// seat's view (and a spectator's) at every position with `check`.
fn every_position(mut check: impl FnMut(&str, &AnyGame)) {
    for name in PRESETS.iter().chain(POLY_PRESETS.iter()) {
        let rules = AnyRules::load(name).unwrap();
        for seed in 0..3u64 {
            let mut game = AnyGame::deal(&rules, None, None, seed).unwrap();
            let mut state = seed;
            // A few hundred moves per match is plenty to cross hands and draws.
            for _ in 0..400 {
                check(name, &game);
                let legal = game.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[(next(&mut state) as usize) % legal.len()];
                game.play(m).unwrap();
            }
        }
    }
}

#[test]
fn no_view_handed_to_python_names_another_seats_hidden_tile() {
    let mut views = 0;
    every_position(|name, game| {
        for seat in (0..game.seats()).map(Some).chain([None]) {
            let json = game.view(seat);
            views += 1;
            match game {
                AnyGame::Tiles(g) => {
                    let view: ViewSnapshot = serde_json::from_value(json).unwrap();
                    assert_eq!(view.seat.map(|s| s.0), seat, "{name}: another viewer's view");
                    let viewer = seat.map(Seat);
                    let leaks = match viewer {
                        Some(s) => tiles_leaks(g, s, &view),
                        // A spectator sees no hand.
                        None => (0..g.table().seats())
                            .map(|o| (o, view.held_tiles().and(g.hand(Seat(o)).minus(g.shown(Seat(o))))))
                            .filter(|(_, t)| !t.is_empty())
                            .collect(),
                    };
                    assert!(leaks.is_empty(), "{name}: seat {seat:?} sees {leaks:?}");
                    // The view a Python strategy is handed in the arena is the same.
                    if let Some(s) = viewer {
                        let handed = TableSeat::open(g, s).snapshot().unwrap();
                        assert_eq!(handed, g.view(s).snapshot(), "{name}: a Python seat's view differs");
                    }
                }
                AnyGame::Poly(g) => {
                    let view: PolyViewSnapshot = serde_json::from_value(json).unwrap();
                    assert_eq!(view.seat, seat, "{name}: another viewer's view");
                    assert!(view.hands.is_empty(), "{name}: every hand shown during play");
                    let own: HashSet<u16> = match seat {
                        Some(s) => g.hand(s).iter().map(|t| t.0).collect(),
                        None => HashSet::new(),
                    };
                    let shown: HashSet<u16> = view.hand.iter().map(|(id, _)| id.0).collect();
                    assert_eq!(shown, own, "{name}: seat {seat:?} is shown other tiles than its own");
                }
            }
        }
    });
    assert!(views > 10_000, "only {views} views checked");
}

/// A Python strategy's view reads each key from the seat it is lent
/// while it chooses: every key read so is the snapshot's (which the test
/// above checks for leaks), at every position of every two-faced preset.
#[test]
fn a_lent_seats_keys_are_its_snapshots() {
    let mut keys = 0;
    every_position(|name, game| {
        let AnyGame::Tiles(g) = game else { return };
        let Some(to_move) = g.to_move() else { return };
        let seat = TableSeat::new(g, to_move);
        let mut legal = MoveList::new();
        seat.legal_moves(&mut legal);
        let snap = to_json(&seat.snapshot().unwrap());
        // A Python strategy's answer is matched by its keys' count too.
        for m in &legal {
            let keys = move_json(&AnyMove::Tiles(*m)).as_object().map(|o| o.len());
            assert_eq!(keys, Some(move_keys(m)), "{name}: {m}");
        }
        for key in TILES_FIELDS {
            let field = tiles_field(&seat, &legal, key).unwrap_or_else(|| panic!("{name}: {key} not read in place"));
            assert_eq!(Some(&to_json(&field)), snap.get(key), "{name}: {key}");
            keys += 1;
        }
        // The rest of the view is the snapshot's.
        for key in ["hands", "drawn", "results", "outcome", "teams", "values", "no-such-key"] {
            assert_eq!(tiles_field(&seat, &legal, key), None, "{name}: {key}");
        }
    });
    assert!(keys > 10_000, "only {keys} keys checked");
    // The check sees a wrong value.
    let rules = AnyRules::load("block").unwrap();
    let AnyGame::Tiles(g) = AnyGame::deal(&rules, Some(2), None, 1).unwrap() else { unreachable!() };
    let other = TableSeat::new(&g, Seat(1));
    let snap = to_json(&TableSeat::new(&g, Seat(0)).snapshot().unwrap());
    let hand = tiles_field(&other, &[], "hand").unwrap();
    assert!(matches!(hand, TilesField::Hand(Some(_))));
    assert_ne!(Some(&to_json(&hand)), snap.get("hand"));
}

#[test]
fn the_check_catches_a_view_that_shows_another_hand() {
    let rules = AnyRules::load("block").unwrap();
    let AnyGame::Tiles(g) = AnyGame::deal(&rules, Some(2), None, 1).unwrap() else { unreachable!() };
    // Seat 1's own view relabelled as seat 0's shows seat 1's hand.
    let mut view = g.view(Seat(1)).snapshot();
    view.seat = Some(Seat(0));
    let leaks = tiles_leaks(&g, Seat(0), &view);
    assert_eq!(leaks.len(), 1);
    assert_eq!(leaks[0].0, 1);
    assert!(tiles_leaks(&g, Seat(0), &g.view(Seat(0)).snapshot()).is_empty());
}

#[test]
fn a_variant_file_error_is_the_engines_own() {
    let e = AnyRules::load("base = \"latin\"\nmatching = \"equl\"\n").unwrap_err();
    assert!(
        e.to_string().starts_with("variant.toml:2: matching: unknown option \"equl\"; expected one of: equal,"),
        "{e}"
    );
    let e = AnyRules::load("blok").unwrap_err();
    assert!(e.to_string().starts_with("unknown preset \"blok\"; expected one of: block,"), "{e}");
    assert!(matches!(AnyRules::load("{\"base\": \"hexominoes\", \"name\": \"h\"}"), Ok(AnyRules::Poly(_))));
}

#[test]
fn an_illegal_move_changes_nothing() {
    let rules = AnyRules::load("block").unwrap();
    let mut game = AnyGame::deal(&rules, Some(2), None, 3).unwrap();
    let before = game.view(None);
    let draw = game.move_of(serde_json::json!({"kind": "draw"})).unwrap();
    assert!(game.play(draw).is_err());
    assert!(game.play_index(99).is_err());
    assert!(game.move_of(serde_json::json!({"kind": "fly"})).is_err());
    assert_eq!(game.view(None), before);
}
