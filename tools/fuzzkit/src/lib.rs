#![doc = include_str!("../README.md")]

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

/// Cases per fuzz test: `CAPICUA_FUZZ_CASES`, or 256.
pub fn cases() -> u32 {
    std::env::var("CAPICUA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// The proptest configuration of a fuzz test: [`cases`] cases, and no
/// shrinking beyond a bound (a hostile document shrinks quickly).
pub fn config() -> Config {
    Config { cases: cases(), max_shrink_iters: 2048, ..Config::default() }
}

/// One edit of a JSON document: walk down `path` (each step picks a child
/// by index, modulo the number of children), then do `what` there.
#[derive(Clone, Debug)]
pub struct Edit {
    /// Child picks, outermost first; the walk stops early at a leaf.
    pub path: Vec<u32>,
    /// 0-7: replace with a value of the same kind (a nearby or extreme
    /// number, a word of the format's vocabulary, the other bool); 8-9:
    /// replace with a hostile value; 10: remove; 11: add a key or item.
    pub what: u8,
    /// Which hostile value (or key).
    pub pick: u64,
}

/// A few edits.
pub fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        (prop::collection::vec(any::<u32>(), 1..6), 0u8..12, any::<u64>()).prop_map(|(path, what, pick)| Edit {
            path,
            what,
            pick,
        }),
        1..3,
    )
}

/// Keys a document may be given: real field names of the workspace's
/// formats and odd ones.
const KEYS: &[&str] = &[
    "type",
    "kind",
    "id",
    "room",
    "seat",
    "name",
    "variant",
    "preset",
    "rated",
    "seed",
    "time",
    "move-ms",
    "bank-ms",
    "base",
    "points",
    "hands",
    "tiles",
    "max-pip",
    "players",
    "min",
    "max",
    "when",
    "if",
    "use",
    "",
    "__proto__",
    "\u{0}",
    "é",
    "stages",
    "entrants",
    "legs",
];

/// A hostile value: extremes, wrong types, long and odd strings, deep or
/// wide nesting.
pub fn hostile(pick: u64) -> Value {
    let n = pick >> 8;
    match pick % 24 {
        0 => json!(i64::MAX),
        1 => json!(i64::MIN),
        2 => json!(u64::MAX),
        3 => json!(-1),
        4 => json!(0),
        5 => json!(1e308),
        6 => json!(-0.5),
        7 => json!(null),
        8 => json!(true),
        9 => json!(""),
        10 => json!("x".repeat(10_000)),
        11 => json!("../../etc/passwd"),
        12 => json!("@/dev/zero"),
        13 => json!("\u{0}\u{202e}\u{fffd}"),
        14 => json!([]),
        15 => json!({}),
        16 => {
            let mut v = json!(1);
            for _ in 0..(n % 200) {
                v = json!([v]);
            }
            v
        }
        17 => Value::Array((0..(n % 5000)).map(|i| json!(i)).collect()),
        18 => json!(n % 300),
        19 => json!((n % 300) as i64 - 150),
        20 => json!(KEYS[(n as usize) % KEYS.len()]),
        21 => json!({ KEYS[(n as usize) % KEYS.len()]: n % 10 }),
        22 => json!(format!("{}", n)),
        _ => json!([n % 7, n % 11]),
    }
}

/// Applies `edits` to `doc` in order.
pub fn apply(doc: &mut Value, edits: &[Edit]) {
    apply_with(doc, edits, &[]);
}

/// Applies `edits` to `doc` in order, same-kind replacements of strings
/// drawing from `words` (a format's option names, say), so that many edited
/// documents are still valid and reach the code behind the parser.
pub fn apply_with(doc: &mut Value, edits: &[Edit], words: &[&str]) {
    for e in edits {
        edit(doc, &e.path, e.what, e.pick, words);
    }
}

/// A value of the same kind as `old`.
fn same_kind(old: &Value, pick: u64, words: &[&str]) -> Value {
    let n = pick >> 8;
    match old {
        Value::Bool(b) => json!(!b),
        Value::Number(_) => match pick % 8 {
            0 => json!(255),
            1 => json!(256),
            2 => json!(-1),
            3 => json!(100_001),
            _ => json!(n % 21),
        },
        Value::String(_) if !words.is_empty() => json!(words[(n as usize) % words.len()]),
        _ => hostile(pick),
    }
}

fn edit(at: &mut Value, path: &[u32], what: u8, pick: u64, words: &[&str]) {
    let children = match at {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    };
    if let (Some(&step), true) = (path.first(), children > 0) {
        let i = step as usize % children;
        // Go deeper, or act on this child when the path ends here.
        if path.len() > 1 {
            let child = match at {
                Value::Object(m) => m.values_mut().nth(i),
                Value::Array(a) => a.get_mut(i),
                _ => None,
            };
            if let Some(c) = child {
                return edit(c, &path[1..], what, pick, words);
            }
            return;
        }
        match (what, &mut *at) {
            (10, Value::Object(m)) => {
                let key = m.keys().nth(i).cloned();
                if let Some(k) = key {
                    m.remove(&k);
                }
            }
            (10, Value::Array(a)) => {
                a.remove(i);
            }
            (11, _) => add(at, pick),
            (_, Value::Object(m)) => {
                if let Some(v) = m.values_mut().nth(i) {
                    *v = if what < 8 { same_kind(v, pick, words) } else { hostile(pick) };
                }
            }
            (_, Value::Array(a)) => a[i] = if what < 8 { same_kind(&a[i], pick, words) } else { hostile(pick) },
            _ => {}
        }
        return;
    }
    match what {
        11 => add(at, pick),
        10 => *at = Value::Null,
        0..8 => *at = same_kind(at, pick, words),
        _ => *at = hostile(pick),
    }
}

fn add(at: &mut Value, pick: u64) {
    match at {
        Value::Object(m) => {
            m.insert(KEYS[(pick as usize) % KEYS.len()].to_string(), hostile(pick >> 5));
        }
        Value::Array(a) => a.push(hostile(pick)),
        other => *other = hostile(pick),
    }
}

/// Arbitrary bytes, mostly short, sometimes long.
pub fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..64),
        1 => prop::collection::vec(any::<u8>(), 0..20_000),
    ]
}
