//! Fuzzing tournament specs on the stable toolchain: the example specs with
//! hostile edits, and arbitrary bytes, are refused with an error naming the
//! field or validate and then run to the end. `CAPICUA_FUZZ_CASES` sets the
//! cases per test (see `capicua-fuzzkit`).

mod common;

use capicua_fuzzkit::{apply_with, bytes, config, edits};
use capicua_tournament::{Tournament, TournamentSpec};
use common::{play, random_result};
use proptest::prelude::*;
use serde_json::Value;

fn examples() -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.display().to_string(), serde_json::to_value(toml::from_str::<toml::Value>(&text).unwrap()).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().map(|(_, v)| v).collect()
}

/// Words of the spec format.
const WORDS: &[&str] = &[
    "round-robin",
    "swiss",
    "knockout",
    "arena",
    "single",
    "double",
    "individual",
    "fixed-pairs",
    "rotating-partners",
    "latin",
    "block",
    "draw",
    "points",
    "wins",
    "buchholz",
    "sonneborn-berger",
    "head-to-head",
    "pairing",
    "dutch",
    "neighbours",
    "median-buchholz",
    "buchholz-cut-1",
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn edited_specs_are_refused_or_run_to_the_end(which in 0..3usize, e in edits(), seed in any::<u64>()) {
        let mut doc = examples()[which % examples().len()].clone();
        apply_with(&mut doc, &e, WORDS);
        let Ok(spec) = serde_json::from_value::<TournamentSpec>(doc) else { return Ok(()) };
        let Ok(config) = spec.validate() else { return Ok(()) };
        // Big schedules are the size limit's business, not a fuzz case's.
        if config.entrant_count() <= 64 {
            let mut t = Tournament::new(config);
            play(&mut t, |r, tb| random_result(seed, r, tb, true));
            prop_assert!(t.is_finished());
        }
    }

    #[test]
    fn arbitrary_bytes_are_refused_as_specs(b in bytes()) {
        let text = String::from_utf8_lossy(&b);
        if let Ok(spec) = toml::from_str::<TournamentSpec>(&text) {
            let _ = spec.validate();
        }
        if let Ok(spec) = serde_json::from_str::<TournamentSpec>(&text) {
            let _ = spec.validate();
        }
    }
}
