//! Every file in the top-level `variants/` folder loads, validates and plays
//! seeded random games keeping the engine's invariants; every bad file in
//! `tests/bad_variants/` fails with the pinned message in its `.err` file
//! (`CAPICUA_BLESS=1` writes missing ones).
//!
//! Files of games with 3-, 4- or 6-faced tiles are played by `tests/poly.rs`.
//!
//! Scale with `CAPICUA_FILE_GAMES` (complete matches per file, default 50).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use capicua_engine::*;
use common::*;

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("toml" | "json")))
        .collect();
    v.sort();
    v
}

/// Whether a file describes a game of 3-, 4- or 6-faced tiles (played by
/// `tests/poly.rs`): its base is a poly preset, or it sets `faces`.
fn is_poly_file(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    let doc: serde_json::Value = if FileFormat::from_origin(&path.to_string_lossy()) == FileFormat::Json {
        serde_json::from_str(&text).unwrap_or_default()
    } else {
        toml::from_str::<toml::Table>(&text).ok().and_then(|t| serde_json::to_value(t).ok()).unwrap_or_default()
    };
    doc.get("faces").is_some()
        || doc.get("base").and_then(|b| b.as_str()).is_some_and(|b| poly::poly_preset(b).is_some())
}

fn load(path: &Path) -> Result<Rules, VariantFileError> {
    let name = path.file_name().unwrap().to_str().unwrap();
    Rules::from_file_text(name, &std::fs::read_to_string(path).unwrap())
}

#[test]
fn every_variant_file_plays() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    let files: Vec<PathBuf> = files_in(&dir).into_iter().filter(|p| !is_poly_file(p)).collect();
    assert!(files.len() >= PRESETS.len(), "a file per preset at least");
    let games: u64 = std::env::var("CAPICUA_FILE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let mut finished = 0u64;
    let count = files.len() as u64;
    for path in files {
        let rules = Arc::new(load(&path).unwrap_or_else(|e| panic!("{e}")));
        let seats = *rules.seat_range().end();
        let mut g = Game::new(rules.clone(), Seating::new(seats), 0).unwrap();
        let mut moves = 0u64;
        for seed in 0..games {
            g.restart(seed);
            let mut x = seed | 1;
            // To the end of the match: every hand, every deal, the match's
            // own end (target, hands, or the safety cap).
            while g.to_move().is_some() {
                let legal = g.legal_moves();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                g.play(legal[(x % legal.len() as u64) as usize]).unwrap();
                moves += 1;
                if moves.is_multiple_of(7) {
                    assert_tiles_conserved(&g);
                    assert_no_leak(&g);
                }
            }
            assert!(g.outcome().is_some(), "{} seed {seed}: the match ended", path.display());
        }
        assert!(moves > games, "{}: games were played", path.display());
        finished += games;
    }
    assert_eq!(finished, games * count);
    eprintln!("{finished} complete matches over {count} variant files");
}

#[test]
fn preset_files_equal_their_presets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    for name in PRESETS {
        let path = dir.join(format!("{name}.toml"));
        let rules = load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rules.variant(), &preset(name).unwrap(), "{name}");
    }
}

#[test]
fn bad_files_fail_with_pinned_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_variants");
    let files = files_in(&dir);
    assert!(files.len() >= 5);
    for path in files {
        let err = load(&path).expect_err("a bad file must not load").to_string();
        let pinned = path.with_extension("err");
        match std::fs::read_to_string(&pinned) {
            Ok(expected) => assert_eq!(err, expected.trim_end(), "{}", path.display()),
            Err(_) if std::env::var_os("CAPICUA_BLESS").is_some() => std::fs::write(&pinned, err + "\n").unwrap(),
            Err(_) => panic!("{}: no pinned message; got {err:?} (CAPICUA_BLESS=1 writes it)", path.display()),
        }
    }
}
