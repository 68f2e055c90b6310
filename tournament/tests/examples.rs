//! Every `examples/*.toml` parses, validates and plays to the end; the book's
//! Formats and examples page shows one of them.

mod common;

use capicua_tournament::{Tournament, TournamentSpec};
use common::{play, random_result};

#[test]
fn example_files_parse_validate_and_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let spec: TournamentSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let config = spec.clone().validate().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut t = Tournament::new(config.clone());
        play(&mut t, |r, tb| random_result(5, r, tb, true));
        assert!(!t.winners().is_empty(), "{}", path.display());
        if config.is_arena() {
            let mut back = Tournament::replay_with_tables(config, t.arena_tables(), t.results()).unwrap();
            back.start_arena(t.arena_ends_at().unwrap());
            back.arena_tick(t.arena_ends_at().unwrap());
            assert_eq!(back, t);
        } else {
            assert_eq!(Tournament::replay(config, t.results()).unwrap(), t);
        }
        // The TOML form round-trips.
        let back: TournamentSpec = toml::from_str(&toml::to_string(&spec).unwrap()).unwrap();
        assert_eq!(back, spec);
        count += 1;
    }
    assert!(count >= 3);
}

#[test]
fn book_example_is_an_example_file() {
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/src/organising/index.md");
    let page = std::fs::read_to_string(page).unwrap();
    let example = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/club-night.toml")).unwrap();
    assert!(
        page.contains(example.trim()),
        "the book's Formats and examples page shows tournament/examples/club-night.toml"
    );
}
