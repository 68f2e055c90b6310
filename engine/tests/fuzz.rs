//! Fuzzing the variant formats on the stable toolchain: every preset's
//! variant file (JSON and TOML) with hostile edits, and arbitrary bytes, go
//! through parsing and validation without a panic; whatever validates deals
//! and plays its first hands to their end with legal moves only.
//! `CAPICUA_FUZZ_CASES` sets the cases per test (see `capicua-fuzzkit`).

use capicua_engine::poly::{POLY_PRESETS, PolyGame, PolyMoveList, PolyRules, poly_preset};
use capicua_engine::{Game, MoveList, PRESETS, Rules, Seating, preset};
use capicua_fuzzkit::{apply_with, bytes, config, edits};
use proptest::prelude::*;
use serde_json::Value;

/// Plays the first hands of a variant that validated; each hand must end.
fn play(rules: Rules, seed: u64) -> Result<(), TestCaseError> {
    let seats = rules.variant().players.min;
    let per_hand = 2 * (rules.catalog().len() + 2) * (seats as usize + 1) + 2 * rules.variant().turn.max_turns as usize;
    let Ok(mut g) = Game::new(rules.into(), Seating::new(seats), seed) else { return Ok(()) };
    let mut legal = MoveList::new();
    let mut steps = 0;
    while g.to_move().is_some() && g.hand_number() < 3 {
        steps += 1;
        prop_assert!(steps < 3 * per_hand, "three hands did not end within {} moves", 3 * per_hand);
        g.fill_legal_moves(&mut legal);
        prop_assert!(!legal.is_empty(), "the seat to move has a legal move");
        let m = legal[(seed as usize + steps) % legal.len()];
        prop_assert!(g.play(m).is_ok(), "a listed legal move is accepted");
    }
    Ok(())
}

fn play_poly(rules: PolyRules, seed: u64) -> Result<(), TestCaseError> {
    let seats = rules.variant().seats.min;
    let Ok(mut g) = PolyGame::new(rules, seats, seed) else { return Ok(()) };
    let mut legal = PolyMoveList::with_capacity(64);
    let mut steps = 0usize;
    while g.to_move().is_some() && g.hand_number() < 2 {
        steps += 1;
        prop_assert!(steps < 200_000, "two poly hands did not end");
        g.legal_moves(&mut legal);
        prop_assert!(!legal.is_empty(), "the seat to move has a legal move");
        let m = legal.as_slice()[(seed as usize + steps) % legal.len()];
        prop_assert!(g.play(m).is_ok(), "a listed legal move is accepted");
    }
    Ok(())
}

/// Every option name of the catalog: edits swap them for one another.
fn words() -> Vec<&'static str> {
    capicua_engine::catalog().iter().map(|o| o.option).collect()
}

/// A document as a file of the format `ext`, if it can be written so.
fn file_text(doc: &Value, ext: &str) -> Option<String> {
    match ext {
        "json" => Some(doc.to_string()),
        _ => toml::to_string(doc).ok(),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn edited_variant_files_validate_or_are_refused(
        which in 0..PRESETS.len(), toml in any::<bool>(), e in edits(), seed in any::<u64>()
    ) {
        let mut doc = serde_json::to_value(preset(PRESETS[which]).unwrap()).unwrap();
        apply_with(&mut doc, &e, &words());
        let ext = if toml { "toml" } else { "json" };
        if let Some(text) = file_text(&doc, ext)
            && let Ok(rules) = Rules::from_file_text(&format!("fuzz.{ext}"), &text) {
                play(rules, seed)?;
            }
    }

    #[test]
    fn edited_poly_variant_files_validate_or_are_refused(
        which in 0..POLY_PRESETS.len(), e in edits(), seed in any::<u64>()
    ) {
        let mut doc = serde_json::to_value(poly_preset(POLY_PRESETS[which]).unwrap()).unwrap();
        apply_with(&mut doc, &e, &words());
        if let Ok(rules) = PolyRules::from_file_text("fuzz.json", &doc.to_string()) {
            play_poly(rules, seed)?;
        }
    }

    #[test]
    fn arbitrary_bytes_are_refused_as_variant_files(b in bytes()) {
        let text = String::from_utf8_lossy(&b);
        for origin in ["fuzz.toml", "fuzz.json"] {
            if let Ok(rules) = Rules::from_file_text(origin, &text) {
                play(rules, 1)?;
            }
            let _ = PolyRules::from_file_text(origin, &text);
        }
    }
}
