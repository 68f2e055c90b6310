//! Variant files: TOML (or JSON) text that starts from a preset and
//! overrides fields.
//!
//! ```toml
//! base = "latin"          # any preset name; omit to write every field
//! name = "latin-200"
//! target = { points = { points = 200 } }
//!
//! [scoring]
//! capicua = { bonus = 25 }
//! ```
//!
//! Tables merge into the base field by field; any other value replaces it.
//! Errors name the file, the line, the field, the bad value and the allowed
//! ones: `latin.toml:4: matching: unknown option "equl"; expected one of:
//! equal, greater, ...`. Parsing is pure: the caller reads the file and passes its text.

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::VariantError;
use crate::presets::{PRESETS, preset};
use crate::rules::Rules;
use crate::variant::Variant;

/// A variant file that cannot be used, with where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VariantFileError {
    /// The file name (or whatever the caller calls the text).
    pub origin: String,
    /// The 1-based line of the offending text, when it can be found.
    pub line: Option<usize>,
    /// The dotted field (`scoring.capicua`), empty for a syntax error.
    pub field: String,
    /// What is wrong, with the allowed values where there is a list.
    pub message: String,
}

impl fmt::Display for VariantFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The text format of a variant file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// TOML (the default).
    Toml,
    /// JSON.
    Json,
}

impl FileFormat {
    /// By file extension: `.json` is JSON, anything else TOML.
    pub fn from_origin(origin: &str) -> FileFormat {
        if origin.to_ascii_lowercase().ends_with(".json") { FileFormat::Json } else { FileFormat::Toml }
    }
}

impl Variant {
    /// Parses a variant file (format chosen by `origin`'s extension) into an
    /// unchecked variant. Use [`Rules::from_file_text`] to also validate.
    ///
    /// ```
    /// use capicua_engine::Variant;
    /// let v = Variant::from_file_text("latin-200.toml", r#"
    /// base = "latin"
    /// name = "latin-200"
    /// target = { points = { points = 200 } }
    /// "#).unwrap();
    /// assert_eq!(v.players.min, 4);
    /// let err = Variant::from_file_text("bad.toml", "base = \"latin\"\nmatching = \"equl\"\n").unwrap_err();
    /// assert!(err.to_string().starts_with("bad.toml:2: matching: unknown option \"equl\"; expected one of: equal, greater,"));
    /// ```
    pub fn from_file_text(origin: &str, text: &str) -> Result<Variant, VariantFileError> {
        parse_file(origin, text, PRESETS, preset)
    }
}

/// Parses a variant file of any variant type `T`: TOML or JSON text (by
/// `origin`'s extension), optionally starting from `base = "<preset>"`
/// (one of `presets`, looked up by `base_of`) merged with the file's fields.
/// Errors name the file, line and dotted field.
pub(crate) fn parse_file<T: Serialize + DeserializeOwned>(
    origin: &str,
    text: &str,
    presets: &[&str],
    base_of: impl Fn(&str) -> Option<T>,
) -> Result<T, VariantFileError> {
    let format = FileFormat::from_origin(origin);
    let fail = |line, field: &str, message: String| VariantFileError {
        origin: origin.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let doc: Value = match format {
        FileFormat::Toml => {
            let table: toml::Table = toml::from_str(text).map_err(|e| {
                let line = e.span().map(|s| line_of_offset(text, s.start));
                fail(line, "", e.message().trim().to_string())
            })?;
            serde_json::to_value(table).map_err(|e| fail(None, "", e.to_string()))?
        }
        FileFormat::Json => serde_json::from_str(text).map_err(|e| fail(Some(e.line()), "", e.to_string()))?,
    };
    let Value::Object(mut doc) = doc else {
        return Err(fail(Some(1), "", "a variant file is a table of fields".into()));
    };
    let merged = match doc.remove("base") {
        None => Value::Object(doc),
        Some(Value::String(name)) => {
            let Some(base) = base_of(&name) else {
                let line = find_key(text, format, &["base"]);
                return Err(fail(line, "base", unknown(&name, presets.iter().copied())));
            };
            let mut base = serde_json::to_value(base).expect("presets serialize");
            merge(&mut base, Value::Object(doc));
            base
        }
        Some(other) => {
            let line = find_key(text, format, &["base"]);
            return Err(fail(line, "base", format!("expected a preset name, found {other}")));
        }
    };
    let merged = merged.to_string();
    let de = &mut serde_json::Deserializer::from_str(&merged);
    serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
        let path: Vec<String> = e
            .path()
            .iter()
            .filter_map(|seg| match seg {
                serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                _ => None,
            })
            .collect();
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        let message = friendly(&e.inner().to_string());
        let line = find_key(text, format, &keys);
        fail(line, &keys.join("."), message)
    })
}

/// A validation error of the variant in a file, reported against the file at
/// the field's line.
pub(crate) fn file_error(origin: &str, text: &str, e: VariantError) -> VariantFileError {
    let keys: Vec<&str> = e.field.split('.').collect();
    VariantFileError {
        origin: origin.to_string(),
        line: find_key(text, FileFormat::from_origin(origin), &keys),
        field: e.field,
        message: e.message,
    }
}

impl Rules {
    /// Parses and validates a variant file in one step; a validation error
    /// is reported against the file, at the field's line.
    ///
    /// ```
    /// use capicua_engine::Rules;
    /// let e = Rules::from_file_text("big.toml", "base = \"latin\"\n\n[deal]\nhand-size = 8\n").unwrap_err();
    /// assert_eq!(e.line, Some(4));
    /// assert_eq!(e.field, "deal.hand-size");
    /// ```
    pub fn from_file_text(origin: &str, text: &str) -> Result<Rules, VariantFileError> {
        let v = Variant::from_file_text(origin, text)?;
        v.validate().map_err(|e| file_error(origin, text, e))
    }
}

/// Deep merge: tables merge key by key, anything else replaces.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    // An option table replaces the option (a different
                    // option's parameters must not mix with the old ones).
                    Some(slot @ Value::Object(_)) if !is_option_table(&v, slot) => merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

/// Whether `over` selects an option (a one-key table naming a different
/// enum variant than `base` holds) rather than overriding struct fields.
fn is_option_table(over: &Value, base: &Value) -> bool {
    match (over, base) {
        (Value::Object(o), Value::Object(b)) if o.len() == 1 => {
            let key = o.keys().next().expect("one key");
            b.len() == 1 && !b.contains_key(key)
        }
        _ => false,
    }
}

/// "unknown variant `equl`, expected one of `equal`, `greater`" ->
/// "unknown option \"equl\"; expected one of: equal, greater".
fn friendly(message: &str) -> String {
    let m = message.split(" at line ").next().unwrap_or(message);
    for (what, word) in [("unknown variant `", "option"), ("unknown field `", "field")] {
        if let Some(rest) = m.strip_prefix(what)
            && let Some((name, tail)) = rest.split_once('`')
        {
            let expected: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
            return if expected.is_empty() {
                format!("unknown {word} \"{name}\"")
            } else {
                format!("unknown {word} \"{name}\"; expected one of: {}", expected.join(", "))
            };
        }
    }
    m.to_string()
}

fn unknown<'a>(name: &str, allowed: impl Iterator<Item = &'a str>) -> String {
    format!("unknown preset \"{name}\"; expected one of: {}", allowed.collect::<Vec<_>>().join(", "))
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// The line where the deepest locatable key of `path` is written: a TOML
/// `key =` line (or a `[table]` header) inside the right table, or a JSON
/// `"key":`. A best effort: `None` when the field is not in the text (it
/// came from the base preset).
fn find_key(text: &str, format: FileFormat, path: &[&str]) -> Option<usize> {
    for depth in (1..=path.len()).rev() {
        let keys = &path[..depth];
        let found = match format {
            FileFormat::Toml => find_toml_key(text, keys),
            FileFormat::Json => {
                let last = keys[keys.len() - 1];
                text.lines().position(|l| l.contains(&format!("\"{last}\""))).map(|i| i + 1)
            }
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn find_toml_key(text: &str, keys: &[&str]) -> Option<usize> {
    let mut table: Vec<String> = Vec::new();
    // Entries of arrays of tables (`[[when]]`) seen so far, by array name.
    let mut entries: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = header.trim_matches(|c| c == '[' || c == ']');
            table = name.split('.').map(|s| s.trim().to_string()).collect();
            if header.starts_with('[') {
                // `[[when]]`: the n-th entry is `when.n` (the spelling of
                // serde's paths and of validation errors).
                let n = entries.entry(name.to_string()).or_insert(0);
                if table.iter().map(String::as_str).eq(keys.iter().copied()) {
                    return Some(i + 1);
                }
                table.push(n.to_string());
                *n += 1;
            }
            if table.iter().map(String::as_str).eq(keys.iter().copied()) {
                return Some(i + 1);
            }
            continue;
        }
        let Some((lhs, rhs)) = line.split_once('=') else { continue };
        let mut full: Vec<String> = table.clone();
        full.extend(lhs.trim().split('.').map(|s| s.trim().trim_matches('"').to_string()));
        // The key itself, or a parent written inline (`target = { ... }`)
        // whose text mentions the rest of the path.
        if full.len() <= keys.len()
            && full.iter().map(String::as_str).eq(keys[..full.len()].iter().copied())
            && keys[full.len()..].iter().all(|k| rhs.contains(k))
        {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_merge_into_the_base() {
        let v = Variant::from_file_text("x.toml", "base = \"latin\"\n[scoring]\nround-to = 5\n").unwrap();
        assert_eq!(v.scoring.round_to, 5);
        assert_eq!(v.scoring.out, crate::variant::HandPoints::Opponents, "other scoring fields stay");
        assert_eq!(v.players.min, 4);
    }

    #[test]
    fn an_option_table_replaces_the_option() {
        let text = "base = \"all-fives\"\nboard = \"line\"\n";
        assert_eq!(Variant::from_file_text("x.toml", text).unwrap().board, crate::variant::BoardLayout::Line);
        let text = "base = \"latin\"\ncapicua = 1\n";
        let e = Variant::from_file_text("x.toml", text).unwrap_err();
        assert!(e.message.contains("unknown field \"capicua\""), "{e}");
    }

    #[test]
    fn json_files_work_too() {
        let v = Variant::from_file_text("x.json", r#"{"base": "block", "target": {"hands": 3}}"#).unwrap();
        assert_eq!(v.target, crate::variant::MatchTarget::Hands(3));
    }

    #[test]
    fn errors_point_at_the_line() {
        let text = "base = \"latin\"\n\n[scoring]\nout = \"oponents\"\n";
        let e = Variant::from_file_text("v.toml", text).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert_eq!(e.field, "scoring.out");
        assert!(e.message.starts_with("unknown option \"oponents\"; expected one of: opponents, all-others"), "{e}");
        let e = Variant::from_file_text("v.toml", "base = \"latn\"").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("v.toml:1: base: unknown preset \"latn\"; expected one of: {}", PRESETS.join(", "))
        );
        let e = Variant::from_file_text("v.toml", "base = \"latin\"\nname = \n").unwrap_err();
        assert_eq!(e.line, Some(2), "syntax errors have a line: {e}");
    }
}
