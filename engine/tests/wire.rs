//! The engine's JSON, as the server sends it: every object key is
//! kebab-case, and (with the `schema` feature) every value matches the JSON
//! Schema its type declares.
//!
//! The samples: every preset and every file in `variants/`, played by seeded
//! random moves, give variants, views (the mover's, every seat's at the end
//! and a spectator's), moves and events; the poly presets and files give the
//! same for games of 3-, 4- and 6-faced tiles; a lenient referee overruling
//! a play gives the one event random play never does.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use capicua_engine::poly::{POLY_PRESETS, PolyGame, PolyMoveList, PolyRules, PolyStuck, PolyVariant, poly_preset};
use capicua_engine::*;
use serde::Serialize;
use serde_json::Value;

/// The types whose JSON is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Variant,
    ViewSnapshot,
    Move,
    Event,
    PolyVariant,
    PolyViewSnapshot,
    PolyMove,
    PolyEvent,
    PolyOutcome,
}

/// A serialized value: its type, where it came from, its JSON.
struct Sample {
    kind: Kind,
    origin: String,
    json: Value,
}

#[derive(Default)]
struct Samples(Vec<Sample>);

impl Samples {
    fn add<T: Serialize>(&mut self, kind: Kind, origin: &str, value: &T) {
        let json = serde_json::to_value(value).unwrap_or_else(|e| panic!("{origin}: {kind:?}: {e}"));
        self.0.push(Sample { kind, origin: origin.to_string(), json });
    }
}

/// A small seeded generator for picking moves.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize % n
    }
}

/// The variant files of `variants/`, split into domino and poly files by
/// which loader takes them.
fn variant_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("toml" | "json")))
        .collect();
    files.sort();
    files
}

fn file_text(path: &Path) -> (String, String) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read_to_string(path).unwrap())
}

/// Plays one seeded match of `v`, sampling as it goes.
fn play_domino(s: &mut Samples, origin: &str, v: &Variant, seed: u64) {
    let rules = Arc::new(v.validate().unwrap_or_else(|e| panic!("{origin}: {e}")));
    let seats = *rules.seat_range().end();
    let mut g = Game::new(rules, Seating::new(seats), seed).unwrap();
    let mut pick = Pick(seed);
    let mut turn = 0;
    while let Some(seat) = g.to_move() {
        if turn % 5 == 0 {
            s.add(Kind::ViewSnapshot, origin, &g.view(seat).snapshot());
        }
        let legal = g.legal_moves();
        let m = legal[pick.below(legal.len())];
        s.add(Kind::Move, origin, &m);
        for e in g.play(m).unwrap() {
            s.add(Kind::Event, origin, &e);
        }
        turn += 1;
        if turn == 3000 {
            break;
        }
    }
    for seat in 0..seats {
        s.add(Kind::ViewSnapshot, origin, &g.view(Seat(seat)).snapshot());
    }
    s.add(Kind::ViewSnapshot, origin, &g.spectator_view().snapshot());
}

/// A lenient referee lets an illegal play stand: the `overruled` event.
fn overrule(s: &mut Samples) {
    let mut v = preset("block").unwrap();
    v.referee = Referee::Lenient(LenientSpec { accept: Fraction(1.0), penalty: Fraction(0.5), points: 3 });
    let rules: Arc<Rules> = v.validate().unwrap().into();
    let mut g = Game::new(rules.clone(), Seating::new(2), 1).unwrap();
    g.play(g.legal_moves()[0]).unwrap();
    let seat = g.to_move().unwrap();
    let end = g.board().ends()[0];
    let tile = g.hand(seat).iter().find(|t| !rules.playable_on(end.pip).contains(*t)).unwrap();
    let ruling = g.referee_play(Move::Play { tile, end: EndId(0), face: 0 }).unwrap();
    for e in ruling.events() {
        s.add(Kind::Event, "overruled block", e);
    }
    s.add(Kind::ViewSnapshot, "overruled block", &g.view(g.to_move().unwrap()).snapshot());
}

/// Plays one seeded match of `v` (3-, 4- or 6-faced tiles) at `seats`
/// seats, sampling as it goes.
fn play_poly(s: &mut Samples, origin: &str, v: &PolyVariant, seats: u8, seed: u64) {
    let rules: Arc<PolyRules> = v.validate().unwrap_or_else(|e| panic!("{origin}: {e}")).into();
    let mut g = PolyGame::new(rules, seats, seed).unwrap();
    let mut pick = Pick(seed);
    let mut legal = PolyMoveList::default();
    let mut turn = 0;
    while let Some(seat) = g.to_move() {
        if turn % 5 == 0 {
            s.add(Kind::PolyViewSnapshot, origin, &g.view(seat).snapshot());
        }
        g.legal_moves(&mut legal);
        let m = legal[pick.below(legal.len())];
        s.add(Kind::PolyMove, origin, &m);
        for e in g.play(m).unwrap() {
            s.add(Kind::PolyEvent, origin, &e);
        }
        turn += 1;
        if turn == 3000 {
            break;
        }
    }
    for seat in 0..seats {
        s.add(Kind::PolyViewSnapshot, origin, &g.view(seat).snapshot());
    }
    if let Some(outcome) = g.outcome() {
        s.add(Kind::PolyOutcome, origin, outcome);
    }
}

/// The samples, made once for every test of this file.
fn samples() -> &'static Samples {
    static SAMPLES: OnceLock<Samples> = OnceLock::new();
    SAMPLES.get_or_init(make_samples)
}

fn make_samples() -> Samples {
    let mut s = Samples::default();
    let mut domino: Vec<(String, Variant)> = PRESETS.iter().map(|n| (n.to_string(), preset(n).unwrap())).collect();
    let mut poly: Vec<(String, PolyVariant)> =
        POLY_PRESETS.iter().map(|n| (n.to_string(), poly_preset(n).unwrap())).collect();
    // No poly preset passes instead of drawing.
    let mut passing = poly_preset("triominoes").unwrap();
    passing.stuck = PolyStuck::Pass;
    poly.push(("triominoes, passing".into(), passing));
    for path in variant_files() {
        let (name, text) = file_text(&path);
        match Variant::from_file_text(&name, &text) {
            Ok(v) => domino.push((name, v)),
            Err(_) => poly.push((name.clone(), PolyVariant::from_file_text(&name, &text).unwrap())),
        }
    }
    for (origin, v) in &domino {
        s.add(Kind::Variant, origin, v);
        play_domino(&mut s, origin, v, 7);
    }
    overrule(&mut s);
    for (origin, v) in &poly {
        s.add(Kind::PolyVariant, origin, v);
        // The fewest seats hold the most tiles each: they draw and pass.
        play_poly(&mut s, origin, v, v.seats.min, 7);
        play_poly(&mut s, origin, v, v.seats.max, 8);
    }
    s
}

/// Every object key under `v`, with its JSON path.
fn keys(v: &Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                out.push((path.to_string(), k.clone()));
                keys(v, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                keys(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn kebab(k: &str) -> bool {
    !k.is_empty()
        && k.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

#[test]
fn every_key_on_the_wire_is_kebab_case() {
    let s = samples();
    let mut seen = BTreeSet::new();
    let mut bad = BTreeSet::new();
    for sample in &s.0 {
        seen.insert(sample.kind);
        let mut found = Vec::new();
        keys(&sample.json, "", &mut found);
        for (path, k) in found {
            if !kebab(&k) {
                bad.insert(format!("{:?} ({}): {path}.{k}", sample.kind, sample.origin));
            }
        }
    }
    assert!(bad.is_empty(), "keys not in kebab-case:\n{}", bad.into_iter().collect::<Vec<_>>().join("\n"));
    assert_eq!(seen.len(), 9, "every sampled type: {seen:?}");
}

#[test]
fn the_samples_cover_every_event_and_action() {
    let s = samples();
    let tags = |kind: Kind, tag: &str| -> BTreeSet<String> {
        s.0.iter().filter(|x| x.kind == kind).filter_map(|x| Some(x.json.get(tag)?.as_str()?.to_string())).collect()
    };
    let events = tags(Kind::Event, "event");
    let all = ["played", "drew", "passed", "scored", "hand-over", "hand-started", "match-over", "overruled"];
    assert_eq!(events, all.iter().map(|e| e.to_string()).collect(), "domino events");
    let poly = tags(Kind::PolyEvent, "event");
    assert_eq!(poly, ["played", "drew", "passed", "hand-ended", "match-ended"].iter().map(|e| e.to_string()).collect());
    // A pass in a view's history, with the pips it proves the passer lacks.
    let pass =
        s.0.iter()
            .filter(|x| x.kind == Kind::ViewSnapshot)
            .flat_map(|x| x.json["history"].as_array().unwrap().iter())
            .find(|r| r["action"]["kind"] == "pass")
            .expect("some view shows a pass");
    assert!(pass["action"]["open-pips"].is_u64(), "{pass}");
}

#[test]
fn a_pass_record_names_its_open_pips_in_kebab_case() {
    let r = Record { seat: Seat(2), action: Action::Pass { open_pips: 0b101 } };
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(text, r#"{"seat":2,"action":{"kind":"pass","open-pips":5}}"#);
    assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), r);
}

/// Every sample matches the JSON Schema of its type, as schemars derives it
/// for serialization.
#[cfg(feature = "schema")]
mod schema {
    use std::collections::BTreeMap;

    use capicua_engine::poly::{PolyEvent, PolyMove, PolyOutcome, PolyVariant, PolyViewSnapshot};
    use capicua_engine::{Event, Move, Variant, ViewSnapshot};
    use schemars::JsonSchema;
    use schemars::generate::SchemaSettings;
    use serde_json::{Value, json};

    use super::{Kind, samples};

    fn schema_of<T: JsonSchema>() -> Value {
        let generator = SchemaSettings::default().for_serialize().into_generator();
        generator.into_root_schema_for::<T>().to_value()
    }

    fn schemas() -> BTreeMap<Kind, Value> {
        BTreeMap::from([
            (Kind::Variant, schema_of::<Variant>()),
            (Kind::ViewSnapshot, schema_of::<ViewSnapshot>()),
            (Kind::Move, schema_of::<Move>()),
            (Kind::Event, schema_of::<Event>()),
            (Kind::PolyVariant, schema_of::<PolyVariant>()),
            (Kind::PolyViewSnapshot, schema_of::<PolyViewSnapshot>()),
            (Kind::PolyMove, schema_of::<PolyMove>()),
            (Kind::PolyEvent, schema_of::<PolyEvent>()),
            (Kind::PolyOutcome, schema_of::<PolyOutcome>()),
        ])
    }

    /// Keywords that only annotate.
    const ANNOTATIONS: [&str; 6] = ["$schema", "$defs", "title", "description", "default", "format"];

    /// Why `v` does not match `schema` (a subset of JSON Schema 2020-12: the
    /// keywords schemars writes for these types; any other keyword fails, so
    /// a schema this check does not understand cannot pass unchecked).
    fn mismatch(v: &Value, schema: &Value, root: &Value, path: &str) -> Option<String> {
        let map = match schema {
            Value::Bool(true) => return None,
            Value::Bool(false) => return Some(format!("{path}: nothing is allowed here")),
            Value::Object(map) => map,
            _ => return Some(format!("{path}: bad schema {schema}")),
        };
        for (k, s) in map {
            let bad = match k.as_str() {
                k if ANNOTATIONS.contains(&k) => None,
                "$ref" => {
                    let name = s.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                    match name.and_then(|n| root["$defs"].get(n)) {
                        Some(target) => mismatch(v, target, root, path),
                        None => Some(format!("{path}: unresolved {s}")),
                    }
                }
                "type" => {
                    let types: Vec<&str> = match s {
                        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                        _ => s.as_str().into_iter().collect(),
                    };
                    let fits = |t: &str| match t {
                        "null" => v.is_null(),
                        "boolean" => v.is_boolean(),
                        "integer" => v.is_i64() || v.is_u64(),
                        "number" => v.is_number(),
                        "string" => v.is_string(),
                        "array" => v.is_array(),
                        "object" => v.is_object(),
                        _ => false,
                    };
                    (!types.iter().any(|t| fits(t))).then(|| format!("{path}: {v} is not {s}"))
                }
                "const" => (v != s).then(|| format!("{path}: {v} is not {s}")),
                "enum" => (!s.as_array().is_some_and(|a| a.contains(v))).then(|| format!("{path}: {v} not in {s}")),
                "minimum" => v.as_f64().filter(|&x| x < s.as_f64().unwrap()).map(|x| format!("{path}: {x} < {s}")),
                "maximum" => v.as_f64().filter(|&x| x > s.as_f64().unwrap()).map(|x| format!("{path}: {x} > {s}")),
                "minItems" => v
                    .as_array()
                    .filter(|a| (a.len() as u64) < s.as_u64().unwrap())
                    .map(|_| format!("{path}: too short")),
                "maxItems" => {
                    v.as_array().filter(|a| (a.len() as u64) > s.as_u64().unwrap()).map(|_| format!("{path}: too long"))
                }
                "uniqueItems" => v.as_array().and_then(|a| {
                    let dup = (1..a.len()).any(|i| a[..i].contains(&a[i]));
                    (s == true && dup).then(|| format!("{path}: repeated items"))
                }),
                "items" | "prefixItems" => v.as_array().and_then(|a| {
                    let prefix = map.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                    a.iter().enumerate().find_map(|(i, item)| {
                        let sub = if k == "prefixItems" {
                            s.get(i)?
                        } else if i >= prefix {
                            s
                        } else {
                            return None;
                        };
                        mismatch(item, sub, root, &format!("{path}[{i}]"))
                    })
                }),
                "required" => v.as_object().and_then(|o| {
                    let missing = s.as_array().unwrap().iter().find(|r| !o.contains_key(r.as_str().unwrap()))?;
                    Some(format!("{path}: {missing} missing"))
                }),
                "properties" => v.as_object().and_then(|o| {
                    o.iter().find_map(|(key, item)| mismatch(item, s.get(key)?, root, &format!("{path}.{key}")))
                }),
                // The structural check: every key of an object is a declared
                // property, unless extra keys have a schema of their own.
                "additionalProperties" | "unevaluatedProperties" => None,
                "allOf" => s.as_array().unwrap().iter().find_map(|sub| mismatch(v, sub, root, path)),
                "anyOf" => {
                    let subs = s.as_array().unwrap();
                    subs.iter()
                        .all(|sub| mismatch(v, sub, root, path).is_some())
                        .then(|| format!("{path}: {v} fits no anyOf"))
                }
                "oneOf" => {
                    let fits =
                        s.as_array().unwrap().iter().filter(|sub| mismatch(v, sub, root, path).is_none()).count();
                    (fits != 1).then(|| format!("{path}: {v} fits {fits} of oneOf"))
                }
                other => Some(format!("{path}: unsupported keyword {other}")),
            };
            if bad.is_some() {
                return bad;
            }
        }
        if let Some(o) = v.as_object()
            && (map.contains_key("properties") || map.contains_key("additionalProperties"))
        {
            let declared = map.get("properties").and_then(Value::as_object);
            let extra = map.get("additionalProperties").or(map.get("unevaluatedProperties"));
            for (key, item) in o {
                if declared.is_some_and(|d| d.contains_key(key)) {
                    continue;
                }
                match extra {
                    Some(Value::Object(_)) => {
                        if let Some(bad) = mismatch(item, extra.unwrap(), root, &format!("{path}.{key}")) {
                            return Some(bad);
                        }
                    }
                    _ => return Some(format!("{path}: key {key} is not in the schema")),
                }
            }
        }
        None
    }

    #[test]
    fn every_sample_matches_its_schema() {
        let schemas = schemas();
        let mut checked = BTreeMap::<Kind, usize>::new();
        for sample in &samples().0 {
            let schema = &schemas[&sample.kind];
            if let Some(why) = mismatch(&sample.json, schema, schema, "") {
                panic!("{:?} from {}: {why}\n{}", sample.kind, sample.origin, sample.json);
            }
            *checked.entry(sample.kind).or_default() += 1;
        }
        assert_eq!(checked.len(), schemas.len(), "{checked:?}");
    }

    #[test]
    fn the_check_catches_a_renamed_or_extra_key() {
        let schema = schema_of::<ViewSnapshot>();
        let view = samples().0.iter().find(|s| s.kind == Kind::ViewSnapshot).unwrap().json.clone();
        assert_eq!(mismatch(&view, &schema, &schema, ""), None);
        let mut extra = view.clone();
        extra["hand_number"] = json!(0);
        assert!(mismatch(&extra, &schema, &schema, "").unwrap().contains("hand_number"));
        let mut pass = view.clone();
        pass["history"] = json!([{ "seat": 0, "action": { "kind": "pass", "open_pips": 3 } }]);
        assert!(mismatch(&pass, &schema, &schema, "").is_some(), "a snake_case pass");
        let mut tile = view;
        tile["ends"] = json!([{ "pip": 3, "tile": [3], "double": false, "scored": true, "opened": false }]);
        assert!(mismatch(&tile, &schema, &schema, "").is_some(), "a tile of one face");
    }
}
