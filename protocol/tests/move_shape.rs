//! The schema's hand-written move shape (`MoveShape`) against the engine's
//! `Move` serialization, both ways: every move the engine writes fits the
//! shape (no key the shape does not declare, every required key, the right
//! types and `kind`), and everything the shape declares is written by some
//! move. A field added to `Move` without the shape fails here.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use capicua_engine::{EndId, Game, MAX_ENDS, MAX_PIP, Move, PRESETS, Rules, Seating, Tile};
use capicua_protocol::json_schema;
use common::Checker;
use serde_json::Value;

/// The `kind` a move is written with. The match has no catch-all arm: a
/// new kind of move does not compile until it is named here, and then the
/// shape must declare it for `every_kind_of_move_is_declared` to pass.
fn kind(m: &Move) -> &'static str {
    match m {
        Move::Play { .. } => "play",
        Move::Draw => "draw",
        Move::Pass => "pass",
    }
}

/// Moves of every kind, with the extremes of each field: the lead (end
/// 255), the first and last possible ends, both faces, the smallest and
/// largest tiles, a double.
fn chosen_moves() -> Vec<Move> {
    let mut moves = vec![Move::Draw, Move::Pass];
    for tile in [Tile::domino(0, 0), Tile::domino(3, 5), Tile::domino(0, MAX_PIP), Tile::domino(MAX_PIP, MAX_PIP)] {
        moves.push(Move::Play { tile, end: EndId::LEAD, face: 0 });
        for end in [0, 1, 2, 3, (MAX_ENDS - 1) as u8] {
            for face in 0..2 {
                moves.push(Move::Play { tile, end: EndId(end), face });
            }
        }
    }
    moves
}

/// Moves the engine produces: every legal move and every move played in
/// whole matches of every preset at its largest table (lines, spinners,
/// longana arms, trains, chicken feet; draws and passes).
fn played_moves() -> Vec<Move> {
    let mut moves = BTreeMap::new();
    for &preset in PRESETS {
        let rules = Rules::preset(preset).unwrap();
        let seats = rules.variant().players.max;
        for seed in 0..2 {
            let mut game = Game::new(rules.clone().into(), Seating::new(seats), seed).unwrap();
            let mut ply = 0;
            while game.to_move().is_some() {
                let legal = game.legal_moves();
                for m in &legal {
                    moves.insert(serde_json::to_string(m).unwrap(), *m);
                }
                game.play(legal[(ply * 7 + 3) % legal.len()]).unwrap();
                ply += 1;
            }
        }
    }
    moves.into_values().collect()
}

fn all_moves() -> Vec<Move> {
    let mut moves = chosen_moves();
    moves.extend(played_moves());
    moves
}

fn move_shape(schema: &Value) -> &Value {
    schema.pointer("/client/$defs/MoveShape").expect("the client schema defines MoveShape")
}

#[test]
fn every_engine_move_fits_the_move_shape() {
    let schema = json_schema();
    let checker = Checker::new(&schema["client"]);
    let shape = move_shape(&schema);
    let moves = all_moves();
    let kinds: BTreeSet<&str> = moves.iter().map(kind).collect();
    assert_eq!(kinds, BTreeSet::from(["draw", "pass", "play"]), "the samples cover every kind");
    for m in moves {
        let json = serde_json::to_value(m).unwrap();
        assert_eq!(json["kind"], kind(&m), "{m}");
        if let Err(e) = checker.check(&json, shape, "$") {
            panic!("{m} is written as {json}, which MoveShape does not describe: {e}");
        }
        assert_eq!(serde_json::from_value::<Move>(json).unwrap(), m, "a move reads back as written");
    }
}

#[test]
fn every_kind_of_move_is_declared() {
    let schema = json_schema();
    let checker = Checker::new(&schema["client"]);
    let shapes = checker.shapes(move_shape(&schema)).unwrap().all;
    // What the moves write: for each kind, every key seen.
    let mut written: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in all_moves() {
        let Value::Object(o) = serde_json::to_value(m).unwrap() else { panic!("{m} is not an object") };
        written.entry(kind(&m).to_string()).or_default().extend(o.keys().cloned());
    }
    let mut declared = BTreeSet::new();
    for shape in &shapes {
        let tag = shape.tag("kind").and_then(Value::as_str).expect("each alternative of MoveShape pins its kind");
        declared.insert(tag.to_string());
        let keys = written.get(tag).unwrap_or_else(|| panic!("MoveShape declares kind {tag:?}, no move writes it"));
        for property in shape.properties.keys() {
            assert!(keys.contains(property), "MoveShape declares `{property}` for {tag:?}, no such move writes it");
        }
    }
    let produced: BTreeSet<String> = written.into_keys().collect();
    assert_eq!(declared, produced, "the kinds MoveShape declares are the kinds moves write");
    // Both documents describe moves the same way.
    assert_eq!(schema.pointer("/server/$defs/MoveShape"), Some(move_shape(&schema)));
}

/// The check above can fail: a key the shape does not declare, a missing
/// key, a wrong type and an unknown kind are refused.
#[test]
fn the_checker_refuses_moves_that_do_not_fit() {
    let schema = json_schema();
    let checker = Checker::new(&schema["client"]);
    let shape = move_shape(&schema);
    let good = serde_json::json!({"kind": "play", "tile": [3, 5], "end": 1, "face": 0});
    assert_eq!(checker.check(&good, shape, "$"), Ok(()));
    for bad in [
        serde_json::json!({"kind": "play", "tile": [3, 5], "end": 1, "face": 0, "seat": 2}),
        serde_json::json!({"kind": "play", "tile": [3, 5], "end": 1}),
        serde_json::json!({"kind": "play", "tile": [3, 5, 6], "end": 1, "face": 0}),
        serde_json::json!({"kind": "play", "tile": [3, 5], "end": "left", "face": 0}),
        serde_json::json!({"kind": "play", "tile": [3, 5], "end": 256, "face": 0}),
        serde_json::json!({"kind": "draw", "tile": [3, 5]}),
        serde_json::json!({"kind": "knock"}),
        serde_json::json!("pass"),
    ] {
        assert!(checker.check(&bad, shape, "$").is_err(), "{bad} passed");
    }
}
