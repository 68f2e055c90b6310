//! Everything a spec gets wrong is refused when it is validated (or parsed),
//! naming the field, rather than misbehaving once games are played.

mod common;

use std::collections::BTreeMap;

use capicua_tournament::{DEFAULT_MAX_GAMES, Tournament, TournamentSpec};
use common::{play, random_result, spec};

/// The field `validate` blames for the spec `base` with JSON `patch` merged in.
fn refused(base: &TournamentSpec, patch: &str) -> String {
    let mut v = serde_json::to_value(base).unwrap();
    let patch: serde_json::Value = serde_json::from_str(patch).unwrap();
    for (k, x) in patch.as_object().unwrap() {
        v[k] = x.clone();
    }
    let spec: TournamentSpec = serde_json::from_value(v).unwrap();
    spec.validate().unwrap_err().field
}

fn four_duel() -> TournamentSpec {
    spec("duel", 4, r#"[{ "format": "round-robin" }]"#, "")
}

#[test]
fn stop_rules_that_cannot_work_with_these_entrants_are_refused() {
    let s = four_duel();
    assert_eq!(refused(&s, r#"{ "stop": { "winners": 5 } }"#), "stop.winners");
    assert_eq!(refused(&s, r#"{ "stop": { "winners": 5, "points": 10 } }"#), "stop.winners");
    // Alone, as many winners as entrants ends the tournament after its first round.
    assert_eq!(refused(&s, r#"{ "stop": { "winners": 4 } }"#), "stop.winners");
    assert_eq!(refused(&s, r#"{ "stop": { "points": 0 } }"#), "stop.points");
    assert_eq!(refused(&s, r#"{ "stop": { "points": -5, "winners": 2 } }"#), "stop.points");
    for ok in [r#"{ "winners": 3 }"#, r#"{ "winners": 4, "points": 9 }"#, r#"{ "points": 1 }"#] {
        let mut v = serde_json::to_value(&s).unwrap();
        v["stop"] = serde_json::from_str(ok).unwrap();
        let spec: TournamentSpec = serde_json::from_value(v).unwrap();
        assert!(spec.validate().is_ok(), "{ok}");
    }
}

#[test]
fn negative_or_huge_points_per_result_are_refused() {
    let s = four_duel();
    // Huge points would overflow the sums of points over a long event.
    for (points, field) in [
        (r#"{ "win": 9223372036854775807, "draw": 1, "loss": 0 }"#, "scoring.points.per-result.win"),
        (r#"{ "win": 3, "draw": 1000001, "loss": 0 }"#, "scoring.points.per-result.draw"),
        (r#"{ "win": -3, "draw": 1, "loss": 0 }"#, "scoring.points.per-result.win"),
        (r#"{ "win": 3, "draw": -1, "loss": 0 }"#, "scoring.points.per-result.draw"),
        (r#"{ "win": 3, "draw": 1, "loss": -1 }"#, "scoring.points.per-result.loss"),
    ] {
        let patch = format!(r#"{{ "scoring": {{ "points": {{ "per-result": {points} }} }} }}"#);
        assert_eq!(refused(&s, &patch), field, "{points}");
    }
    let patch = r#"{ "scoring": { "points": { "per-result": { "win": 2, "draw": 1, "loss": 0 } } } }"#;
    let mut v = serde_json::to_value(&s).unwrap();
    v["scoring"] = serde_json::from_str::<serde_json::Value>(patch).unwrap()["scoring"].clone();
    assert!(serde_json::from_value::<TournamentSpec>(v).unwrap().validate().is_ok());
}

#[test]
fn a_schedule_over_the_game_limit_needs_max_games() {
    let big = spec("duel", 512, r#"[{ "format": "round-robin", "legs": 4 }]"#, "");
    assert_eq!(big.game_bound(), 523_264);
    let e = big.clone().validate().unwrap_err();
    assert_eq!(e.field, "max-games");
    assert!(e.message.contains("523264") && e.message.contains("100000"), "{e}");
    let meant = spec("duel", 512, r#"[{ "format": "round-robin", "legs": 4 }]"#, r#", "max-games": 600000"#);
    assert!(meant.validate().is_ok());
    let short = spec("duel", 512, r#"[{ "format": "round-robin", "legs": 4 }]"#, r#", "max-games": 500000"#);
    assert_eq!(short.validate().unwrap_err().field, "max-games");
    // max-games also caps smaller events, and has a floor and a ceiling.
    let small = spec("duel", 10, r#"[{ "format": "round-robin" }]"#, r#", "max-games": 44"#);
    assert_eq!(small.validate().unwrap_err().field, "max-games");
    for m in [0, 10_000_001] {
        let s = spec("duel", 10, r#"[{ "format": "round-robin" }]"#, &format!(r#", "max-games": {m}"#));
        assert_eq!(s.validate().unwrap_err().field, "max-games", "{m}");
    }
    // A stop rule bounds the schedule too.
    let stopped = spec("duel", 512, r#"[{ "format": "round-robin", "legs": 4 }]"#, r#", "stop": { "rounds": 10 }"#);
    assert_eq!(stopped.game_bound(), 2560);
    assert!(stopped.validate().is_ok());
    let stopped = spec("duel", 512, r#"[{ "format": "round-robin", "legs": 4 }]"#, r#", "stop": { "games": 1000 }"#);
    assert_eq!(stopped.game_bound(), 1255);
    // Just under the limit passes.
    let at = spec("duel", 447, r#"[{ "format": "round-robin" }]"#, "");
    assert!(at.game_bound() <= DEFAULT_MAX_GAMES);
    assert!(at.validate().is_ok());
}

/// The bound is never below the games actually played, whatever the results,
/// and exact for a two-entrant round robin.
#[test]
fn game_bound_holds_for_every_format() {
    let cases = [
        ("duel", 7, r#"[{ "format": "round-robin", "legs": 2 }]"#),
        ("duel", 9, r#"[{ "format": "swiss", "rounds": 5 }]"#),
        ("duel", 11, r#"[{ "format": "knockout" }]"#),
        ("duel", 13, r#"[{ "format": "double-knockout" }]"#),
        ("duel", 12, r#"[{ "format": "round-robin", "groups": 3, "advance": 2 }, { "format": "double-knockout" }]"#),
        ("fixed-pairs", 6, r#"[{ "format": "round-robin", "legs": 3 }]"#),
        ("free-for-all", 9, r#"[{ "format": "round-robin", "legs": 2 }]"#),
        ("free-for-all", 10, r#"[{ "format": "swiss", "rounds": 4 }]"#),
        ("rotating-partners", 10, r#"[{ "format": "round-robin" }]"#),
        ("rotating-partners", 9, r#"[{ "format": "swiss", "rounds": 6 }]"#),
    ];
    for (table, n, stages) in cases {
        let s = spec(table, n, stages, "");
        let bound = s.game_bound();
        for seed in 0..8u64 {
            let mut t = Tournament::new(s.clone().validate().unwrap());
            let rounds = play(&mut t, |round, tb| random_result(seed, round, tb, true));
            let games: u64 = rounds.iter().map(|r| r.tables.len() as u64).sum();
            assert!(games <= bound, "{table} {n} {stages}: {games} games, bound {bound}");
            if table == "duel" && stages.contains("round-robin") && !stages.contains("groups") {
                assert_eq!(games, bound, "{stages}");
            }
        }
    }
}

const TOML_BASE: &str = "name = \"x\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"a\", \"b\", \"c\"]\n";

#[test]
fn toml_parse_errors_name_the_path() {
    let cases = [
        ("[[stages]]\nformat = \"round-robin\"\nlegs = \"two\"\n", "stages[0].legs", 7),
        ("[[stages]]\nformat = \"round-robin\"\nlegs = -1\n", "stages[0].legs", 7),
        ("[[stages]]\nformat = \"round-robin\"\nlegs = 5000000000\n", "stages[0].legs", 7),
        ("[[stages]]\nformat = \"round-robin\"\nleg = 2\n", "stages[0].leg", 7),
        ("[[stages]]\nformat = \"round-robin\"\n[[stages]]\nformat = \"swis\"\n", "stages[1].format", 8),
        ("[[stages]]\nformat = \"round-robin\"\n[stop]\nwinners = 2.5\n", "stop.winners", 8),
        (
            "[[stages]]\nformat = \"round-robin\"\n[scoring.points.per-result]\nwin = 3\ndraw = 1\n",
            "scoring.points.per-result.loss",
            7,
        ),
        (
            "[[stages]]\nformat = \"round-robin\"\n[scoring.points.per-result]\nwin = 3\ndraw = 1\nloss = 0\nbonus = 2\n",
            "scoring.points.per-result.bonus",
            11,
        ),
        ("[[stages]]\nformat = \"round-robin\"\n[clock]\nmove-ms = 1e3\n", "clock.move-ms", 8),
        ("max-game = 5\n[[stages]]\nformat = \"round-robin\"\n", "max-game", 5),
    ];
    for (tail, field, line) in cases {
        let text = format!("{TOML_BASE}{tail}");
        let e = TournamentSpec::from_toml(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{tail}: {e}");
        assert_eq!(e.line, Some(line), "{tail}: {e}");
        assert!(e.to_string().starts_with(&format!("{field}: line {line}: ")), "{e}");
    }
    let missing = "name = \"x\"\ntable = \"duel\"\nentrants = [\"a\"]\n";
    assert_eq!(TournamentSpec::from_toml(missing).unwrap_err().field.as_deref(), Some("variants"));
    let syntax = TournamentSpec::from_toml("name = \"x\"\nstages = = 1\n").unwrap_err();
    assert_eq!((syntax.field, syntax.line), (None, Some(2)));
    let ok = TournamentSpec::from_toml(&format!("{TOML_BASE}[[stages]]\nformat = \"round-robin\"\n")).unwrap();
    assert!(ok.validate().is_ok());
}

#[test]
fn json_parse_errors_name_the_path() {
    let base = r#""name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b", "c"]"#;
    let cases = [
        (r#""stages": [{ "format": "round-robin", "legs": "two" }]"#, "stages[0].legs"),
        (r#""stages": [{ "format": "round-robin", "legs": -1 }]"#, "stages[0].legs"),
        (r#""stages": [{ "format": "round-robin", "legs": 5000000000 }]"#, "stages[0].legs"),
        (r#""stages": [{ "format": "round-robin", "leg": 2 }]"#, "stages[0].leg"),
        (r#""stages": [{ "format": "round-robin" }, { "format": "swis" }]"#, "stages[1].format"),
        (r#""stages": [{ "format": "round-robin" }], "stop": { "winners": 2.5 }"#, "stop.winners"),
        (r#""stages": [{ "format": "round-robin" }], "max-game": 5"#, "max-game"),
        (
            r#""stages": [{ "format": "round-robin" }], "scoring": { "points": { "per-result": { "win": 3, "draw": 1 } } }"#,
            "scoring.points.per-result.loss",
        ),
    ];
    for (tail, field) in cases {
        let text = format!("{{ {base}, {tail} }}");
        let e = TournamentSpec::from_json(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{tail}: {e}");
        assert_eq!(e.line, Some(1), "{tail}: {e}");
        assert!(!e.message.contains(" at line "), "{e}");
    }
    let syntax = TournamentSpec::from_json("{ \"name\": \n ").unwrap_err();
    assert_eq!((syntax.field, syntax.line), (None, Some(2)));
    let trailing = TournamentSpec::from_json(&format!("{{ {base}, \"stages\": [] }} x")).unwrap_err();
    assert_eq!(trailing.field, None);
}

#[test]
fn variant_files_are_attached_checked_and_kept() {
    let mut s = spec("duel", 4, r#"[{ "format": "round-robin", "variants": ["final.json"] }]"#, "");
    s.variants = vec!["block".into(), "house.toml".into()];
    let config = s.clone().validate().unwrap();
    let block = capicua_engine::preset("block").unwrap();
    let both = |house: capicua_engine::Variant| {
        BTreeMap::from([("house.toml".to_string(), house), ("final.json".to_string(), block.clone())])
    };
    // Every file is needed.
    let only_one = BTreeMap::from([("house.toml".to_string(), block.clone())]);
    assert_eq!(config.clone().with_variant_files(only_one).unwrap_err().field, "stages[0].variants[0]");
    // It must seat the tables: latin is four seats in pairs.
    let latin = capicua_engine::preset("latin").unwrap();
    let e = config.clone().with_variant_files(both(latin)).unwrap_err();
    assert_eq!(e.field, "variants[1]");
    assert!(e.message.contains("house.toml"), "{e}");
    // It must validate.
    let mut broken = block.clone();
    broken.players.min = 0;
    assert_eq!(config.clone().with_variant_files(both(broken)).unwrap_err().field, "variants[1]");
    // Under a preset's name it must play the preset's rules (tables are rated rooms).
    let mut posing = block.clone();
    posing.deal.hand_size = capicua_engine::HandSize::Fixed(5);
    let e = config.clone().with_variant_files(both(posing.clone())).unwrap_err();
    assert_eq!(e.field, "variants[1]");
    assert!(e.message.contains("name of its own"), "{e}");
    posing.name = "block-5".into();
    assert!(config.clone().with_variant_files(both(posing)).is_ok());
    // A file the spec does not name is refused.
    let mut extra = both(block.clone());
    extra.insert("other.toml".into(), block.clone());
    assert_eq!(config.clone().with_variant_files(extra).unwrap_err().field, "variants");
    // Attached, the rounds play the stored variants.
    let mut house = block.clone();
    house.name = "house".into();
    let config = config.with_variant_files(both(house.clone())).unwrap();
    assert_eq!(config.variant("house.toml"), Some(house));
    assert_eq!(config.variant("block"), Some(block));
    assert_eq!(config.variant("elsewhere.toml"), None);
    let t = Tournament::new(config);
    let first = t.next_round().unwrap();
    assert!(t.config().variant(&first.variant).is_some());
}

#[test]
fn poly_presets_play_at_tables_where_every_seat_is_for_itself() {
    use capicua_tournament::{Family, RoundVariant};
    let base = r#""name": "x", "table": "duel", "variants": ["triominoes"], "entrants": ["a", "b", "c", "d"], "stages": [{ "format": "round-robin" }]"#;
    let with = |patch: &str| -> TournamentSpec {
        let mut v: serde_json::Value = serde_json::from_str(&format!("{{ {base} }}")).unwrap();
        for (k, x) in serde_json::from_str::<serde_json::Value>(patch).unwrap().as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    };
    // Two seats or four, each for itself: every poly preset fits.
    for name in capicua_engine::poly::POLY_PRESETS {
        for table in ["duel", "free-for-all"] {
            let spec = with(&format!(r#"{{ "table": "{table}", "variants": ["{name}"] }}"#));
            let config = spec.validate().unwrap_or_else(|e| panic!("{name} at a {table} table: {e}"));
            // A preset, not a file: nothing to attach.
            assert!(config.spec().variant_files().is_empty(), "{name}");
            let config = config.with_variant_files(BTreeMap::new()).unwrap();
            assert_eq!(config.families(), [Family::Poly]);
            let t = Tournament::new(config);
            let round = t.next_round().unwrap();
            assert_eq!(round.variant, *name);
            match t.config().round_variant(&round.variant) {
                Some(RoundVariant::Poly(v)) => assert_eq!(v.name, *name),
                other => panic!("{name}: {other:?}"),
            }
            assert_eq!(t.config().variant(&round.variant), None, "not a two-faced variant");
        }
    }
    // Tables played in pairs cannot play them (poly games have no teams),
    // in the tournament's variants or a stage's.
    let teams = r#"[{ "name": "t", "members": ["a", "b"] }, { "name": "u", "members": ["c", "d"] }]"#;
    let e = with(&format!(r#"{{ "table": "fixed-pairs", "entrants": {teams} }}"#)).validate().unwrap_err();
    assert_eq!(e.field, "variants[0]");
    assert!(e.message.contains("without teams"), "{e}");
    let e = with(
        r#"{ "table": "rotating-partners", "variants": ["latin"], "stages": [{ "format": "round-robin", "variants": ["latin", "hexominoes"] }] }"#,
    )
    .validate()
    .unwrap_err();
    assert_eq!(e.field, "stages[0].variants[1]");
    assert!(e.message.contains("hexominoes") && e.message.contains("RotatingPartners"), "{e}");
    // An unknown name lists the poly presets too.
    let e = with(r#"{ "variants": ["pentominoes"] }"#).validate().unwrap_err();
    assert_eq!(e.field, "variants[0]");
    assert!(e.message.contains("graph-triominoes"), "{e}");
    // Mixed with dominoes: both families, only the file is a file.
    let mixed = with(
        r#"{ "variants": ["block", "house.toml"], "stages": [{ "format": "swiss", "rounds": 2, "advance": 2 }, { "format": "knockout", "variants": ["quadominoes"] }] }"#,
    );
    assert_eq!(mixed.variant_files(), [("variants[1]".to_string(), "house.toml".to_string())]);
    assert_eq!(mixed.validate().unwrap().families(), [Family::Tiles, Family::Poly]);
    // The tournament's variants count only when a stage plays them.
    let own = with(r#"{ "variants": ["block"], "stages": [{ "format": "round-robin", "variants": ["triominoes"] }] }"#);
    assert_eq!(own.families(), [Family::Poly]);
}
