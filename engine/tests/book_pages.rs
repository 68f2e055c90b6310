//! The book's pages of presets and rule options are generated from the
//! engine's own data: `book/src/playing/presets.md` from every preset of
//! both families, `book/src/playing/options.md` from [`catalog`]. This test
//! renders both and compares them with the files; `CAPICUA_BLESS=1` writes
//! them instead.
//!
//! Every preset's variant file on the page is checked to read back as that
//! preset, so what a reader copies from the book is a working variant file.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use capicua_engine::poly::{POLY_PRESETS, PolyBonuses, PolyOpening, PolyPlayPoints, PolyVariant, poly_preset};
use capicua_engine::*;
use serde::Serialize;
use serde_json::Value;

/// The book's `playing/` folder.
fn playing_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/playing")
}

/// mdBook's heading slug: lowercase, spaces become `-`, every character
/// other than a letter, digit, `-` or `_` is dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The options page's anchor of a field's section.
fn field_anchor(field: &str) -> String {
    format!("options.md#{}", slug(field))
}

/// The options page's anchor of one option.
fn option_anchor(id: &str) -> String {
    format!("options.md#{}", slug(id))
}

fn describe_kind(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Integer { min, max } => format!("integer, {min} to {max}"),
        ParamKind::Bool => "true or false".into(),
        ParamKind::Tile => "a tile, `[a, b]`".into(),
        ParamKind::Tiles => "a list of tiles".into(),
        ParamKind::Rules => "a nested rule or list (see the default)".into(),
        ParamKind::Fraction => "a number from 0 to 1".into(),
        ParamKind::Choice { options } => {
            let names: Vec<String> = options.iter().map(|o| format!("`{o}`")).collect();
            format!("one of {}", names.join(", "))
        }
    }
}

/// Fields in catalog order, each once.
fn fields(catalog: &[RuleOption]) -> Vec<&'static str> {
    let mut seen = BTreeSet::new();
    catalog.iter().map(|o| o.field).filter(|f| seen.insert(*f)).collect()
}

fn render_options() -> String {
    let catalog = catalog();
    let mut out = String::new();
    out.push_str("# Rule options\n\n");
    out.push_str(
        "<!-- Generated from capicua_engine::catalog() by engine/tests/book_pages.rs: \
         edit the engine, then run CAPICUA_BLESS=1 cargo test -p capicua-engine --test book_pages. -->\n\n",
    );
    out.push_str(
        "Every rule of a variant is a field, and a variant file sets one option per field \
         (see [Variants as data](variants.md)). This page lists every option of every field, \
         as the engine's rule catalog describes it; the server serves the same catalog as JSON \
         to build its rules menus.\n\n\
         A dotted field is a key inside a table: `tiles.value` is `value` in the `[tiles]` table. \
         An option without parameters is written as its name (`matching = \"equal\"`); an option \
         with one parameter as a one-key table of that value (`matching = { sum-to = 7 }`); \
         an option with several parameters as a one-key table of named parameters. \
         `end` is a list of end rules, and `when.if` is the condition of a `[[when]]` entry. \
         The fields `poly.*` belong to games of tiles with 3, 4 or 6 faces \
         (see [Tiles with 3, 4 or 6 faces](poly.md)); their variant files write them without \
         the `poly.` prefix.\n\n\
         The presets and the options they use are on [Presets and their rules](presets.md).\n\n",
    );
    let fields = fields(&catalog);
    out.push_str("Fields:\n\n");
    for field in &fields {
        let options: Vec<String> = catalog
            .iter()
            .filter(|o| o.field == *field)
            .map(|o| format!("[`{}`]({})", o.option, option_anchor(o.id).trim_start_matches("options.md")))
            .collect();
        writeln!(out, "- [`{field}`](#{}): {}", slug(field), options.join(", ")).unwrap();
    }
    out.push('\n');
    for field in &fields {
        writeln!(out, "## {field}\n").unwrap();
        for o in catalog.iter().filter(|o| o.field == *field) {
            writeln!(out, "### {}\n", o.id).unwrap();
            writeln!(out, "**{}** (`{}`). {}\n", o.name, o.option, o.description).unwrap();
            if !o.params.is_empty() {
                out.push_str("| parameter | kind | default |\n|---|---|---|\n");
                for p in &o.params {
                    writeln!(out, "| `{}` | {} | `{}` |", p.name, describe_kind(&p.kind), p.default).unwrap();
                }
                out.push('\n');
            }
        }
    }
    out
}

/// A serialized field written inline in TOML (`key = value`).
fn inline(key: &str, value: &impl Serialize) -> String {
    let v = toml::Value::try_from(value).expect("a field serializes to TOML");
    format!("{key} = {v}")
}

/// The full variant file of a preset: every field, including those a
/// variant file may omit because they hold their default (inserted before
/// the first table, so they stay top-level keys).
fn full_file(variant: &impl Serialize, defaults: &[(&str, String)]) -> String {
    let text = toml::to_string(variant).expect("a preset serializes to TOML");
    let top: toml::Table = toml::from_str(&text).unwrap();
    let missing: Vec<&str> =
        defaults.iter().filter(|(key, _)| !top.contains_key(*key)).map(|(_, line)| line.as_str()).collect();
    let mut out = String::new();
    let mut inserted = missing.is_empty();
    for line in text.lines() {
        if !inserted && line.starts_with('[') {
            while out.ends_with("\n\n") {
                out.pop();
            }
            for m in &missing {
                writeln!(out, "{m}").unwrap();
            }
            out.push('\n');
            inserted = true;
        }
        writeln!(out, "{line}").unwrap();
    }
    if !inserted {
        for m in &missing {
            writeln!(out, "{m}").unwrap();
        }
    }
    // One blank line between tables at most, none at the end.
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out.trim_end().to_string() + "\n"
}

/// The options a variant (as JSON, defaults included) uses, as
/// `(field, option)` in catalog order. `prefix` is `""` for two-faced
/// variants and `"poly."` for poly ones, whose keys omit it.
fn options_used(variant: &Value, prefix: &str, catalog: &[RuleOption]) -> Vec<(&'static str, &'static str)> {
    let mut used = Vec::new();
    for field in fields(catalog) {
        let path = if prefix.is_empty() {
            if field.starts_with("poly.") {
                continue;
            }
            field
        } else {
            match field.strip_prefix(prefix) {
                Some(p) => p,
                None => continue,
            }
        };
        let mut at = vec![variant];
        for key in path.split('.') {
            at = at
                .into_iter()
                .flat_map(|v| match v {
                    Value::Array(items) => items.iter().filter_map(|i| i.get(key)).collect(),
                    _ => v.get(key).into_iter().collect::<Vec<_>>(),
                })
                .collect();
        }
        let mut names = Vec::new();
        let mut stack = at;
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => names.push(s.clone()),
                Value::Object(map) => names.extend(map.keys().cloned()),
                Value::Array(items) => stack.extend(items.iter()),
                _ => {}
            }
        }
        for name in names {
            let option = catalog
                .iter()
                .find(|o| o.field == field && o.option == name)
                .unwrap_or_else(|| panic!("{field}: {name} is no option of the catalog"));
            if !used.contains(&(option.field, option.option)) {
                used.push((option.field, option.option));
            }
        }
    }
    used
}

/// "7 (2 seats), 5 (3-4 seats)" from a hand size per seat count.
fn hand_sizes(seats: std::ops::RangeInclusive<u8>, size: impl Fn(u8) -> u8) -> String {
    let mut runs: Vec<(u8, u8, u8)> = Vec::new();
    for s in seats {
        let n = size(s);
        match runs.last_mut() {
            Some((_, hi, m)) if *m == n && *hi + 1 == s => *hi = s,
            _ => runs.push((s, s, n)),
        }
    }
    if runs.len() == 1 {
        return format!("{} each", runs[0].2);
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|(lo, hi, n)| if lo == hi { format!("{n} ({lo} seats)") } else { format!("{n} ({lo}-{hi} seats)") })
        .collect();
    parts.join(", ")
}

fn seats_text(min: u8, max: u8) -> String {
    if min == max { format!("{min}") } else { format!("{min} to {max}") }
}

struct PresetPage {
    name: String,
    description: String,
    table: String,
    file: String,
    used: Vec<(&'static str, &'static str)>,
}

fn two_faced(name: &str, catalog: &[RuleOption]) -> PresetPage {
    let v = preset(name).unwrap();
    let rules = v.validate().unwrap();
    let defaults = vec![
        ("wild", inline("wild", &WildTiles::default())),
        ("ranking", inline("ranking", &RankingSpec::default())),
        ("referee", inline("referee", &Referee::default())),
    ];
    let file = full_file(&v, &defaults);
    let back = Variant::from_file_text("preset.toml", &file).unwrap_or_else(|e| panic!("{name}: {e}\n{file}"));
    assert_eq!(back, v, "{name}: the page's variant file reads back as the preset");
    let mut json = serde_json::to_value(&v).unwrap();
    let map = json.as_object_mut().unwrap();
    map.entry("wild").or_insert(serde_json::to_value(WildTiles::default()).unwrap());
    map.entry("ranking").or_insert(serde_json::to_value(RankingSpec::default()).unwrap());
    map.entry("referee").or_insert(serde_json::to_value(Referee::default()).unwrap());
    let (min, max) = (v.players.min, v.players.max);
    let table = format!(
        "Dominoes, double-{} ({} tiles). Seats: {}. Tiles dealt: {}.",
        v.tiles.max_pip,
        rules.catalog().len(),
        seats_text(min, max),
        hand_sizes(min..=max, |s| rules.hand_size(s)),
    );
    PresetPage {
        name: name.to_string(),
        description: v.description.clone(),
        table,
        file,
        used: options_used(&json, "", catalog),
    }
}

fn poly(name: &str, catalog: &[RuleOption]) -> PresetPage {
    let v = poly_preset(name).unwrap();
    let rules = v.validate().unwrap();
    let defaults = vec![
        ("play-points", inline("play-points", &PolyPlayPoints::default())),
        ("matching", inline("matching", &poly::PolyMatching::default())),
        ("opening", inline("opening", &PolyOpening::default())),
        ("bonuses", inline("bonuses", &PolyBonuses::default())),
    ];
    let file = full_file(&v, &defaults);
    let back = PolyVariant::from_file_text("preset.toml", &file).unwrap_or_else(|e| panic!("{name}: {e}\n{file}"));
    assert_eq!(back, v, "{name}: the page's variant file reads back as the preset");
    let mut json = serde_json::to_value(&v).unwrap();
    let map = json.as_object_mut().unwrap();
    map.entry("play-points").or_insert(serde_json::to_value(PolyPlayPoints::default()).unwrap());
    map.entry("matching").or_insert(serde_json::to_value(poly::PolyMatching::default()).unwrap());
    map.entry("opening").or_insert(serde_json::to_value(PolyOpening::default()).unwrap());
    let shape = match v.faces {
        3 => "triangles",
        4 => "squares",
        _ => "hexagons",
    };
    let (min, max) = (v.seats.min, v.seats.max);
    let table = format!(
        "Tiles with {} faces: {} {shape}, pips 0 to {}. Seats: {}. Tiles dealt: {}.",
        v.faces,
        rules.set().len(),
        v.max_pip,
        seats_text(min, max),
        hand_sizes(rules.seat_range(), |s| rules.hand_size(s).unwrap()),
    );
    PresetPage {
        name: name.to_string(),
        description: v.description.clone(),
        table,
        file,
        used: options_used(&json, "poly.", catalog),
    }
}

fn render_presets() -> String {
    let catalog = catalog();
    let two: Vec<PresetPage> = PRESETS.iter().map(|n| two_faced(n, &catalog)).collect();
    let many: Vec<PresetPage> = POLY_PRESETS.iter().map(|n| poly(n, &catalog)).collect();
    let mut out = String::new();
    out.push_str("# Presets and their rules\n\n");
    out.push_str(
        "<!-- Generated from the engine's presets by engine/tests/book_pages.rs: \
         edit the engine, then run CAPICUA_BLESS=1 cargo test -p capicua-engine --test book_pages. -->\n\n",
    );
    out.push_str(
        "A preset is a named variant: a complete set of rules, written as data. \
         A room, a bot or a tournament names a preset to play it, and a variant file \
         starts from one with `base = \"NAME\"` and changes only what it sets \
         (see [Variants as data](variants.md)).\n\n\
         Each section below gives the preset's description, the sources it follows \
         and its choices where sources disagree, the table sizes it allows, the options \
         it uses (each linked to [Rule options](options.md)) and its full variant file: \
         every field, including those a variant file may leave out because they hold \
         their default. The file is a working variant file: it reads back as the preset.\n\n",
    );
    let list = |pages: &[PresetPage]| -> String {
        pages.iter().map(|p| format!("[{}](#{})", p.name, slug(&p.name))).collect::<Vec<_>>().join(", ")
    };
    writeln!(out, "Dominoes: {}.\n", list(&two)).unwrap();
    writeln!(out, "Tiles with 3, 4 or 6 faces (see [Tiles with 3, 4 or 6 faces](poly.md)): {}.\n", list(&many))
        .unwrap();
    for p in two.iter().chain(&many) {
        writeln!(out, "## {}\n", p.name).unwrap();
        if !p.description.is_empty() {
            writeln!(out, "{}\n", p.description).unwrap();
        }
        let sources = preset_sources(&p.name).unwrap_or_else(|| panic!("{}: no sources", p.name));
        writeln!(out, "Follows: {sources}\n").unwrap();
        writeln!(out, "{}\n", p.table).unwrap();
        out.push_str("| field | option |\n|---|---|\n");
        for (field, option) in &p.used {
            writeln!(
                out,
                "| [`{field}`]({}) | [`{option}`]({}) |",
                field_anchor(field),
                option_anchor(&format!("{field}.{option}"))
            )
            .unwrap();
        }
        out.push('\n');
        writeln!(out, "```toml\n{}```\n", p.file).unwrap();
    }
    out.trim_end().to_string() + "\n"
}

/// Compares a generated page with its file, or writes it under
/// `CAPICUA_BLESS=1`.
fn check(file: &str, rendered: &str) {
    let path = playing_dir().join(file);
    if std::env::var("CAPICUA_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, rendered).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == rendered,
        "book/src/playing/{file} is generated from the engine: run CAPICUA_BLESS=1 cargo test -p capicua-engine --test book_pages"
    );
}

#[test]
fn the_presets_page_is_generated_from_the_presets() {
    check("presets.md", &render_presets());
}

#[test]
fn the_options_page_is_generated_from_the_catalog() {
    check("options.md", &render_options());
}

#[test]
fn every_link_of_the_presets_page_reaches_an_option() {
    let options = render_options();
    let anchors: BTreeSet<String> =
        options.lines().filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### "))).map(slug).collect();
    let presets = render_presets();
    for part in presets.split("](options.md#").skip(1) {
        let anchor = part.split(')').next().unwrap();
        assert!(anchors.contains(anchor), "options.md has no #{anchor}");
    }
    // Every heading of each page is unique, so mdBook adds no suffix to its slug.
    for page in [&options, &presets] {
        let mut seen = BTreeSet::new();
        for h in page.lines().filter(|l| l.starts_with('#')) {
            assert!(seen.insert(slug(h.trim_start_matches('#').trim())), "duplicate heading {h}");
        }
    }
}
