//! The error of a tournament description that cannot be used.
//!
//! Its own file because every part of the description (stop, disqualification,
//! scoring rules) checks its own fields and reports them with it, while
//! [`TournamentSpec::validate`](crate::TournamentSpec::validate) gathers those checks.

use thiserror::Error;

/// A field of a [`TournamentSpec`](crate::TournamentSpec) that cannot be used, named in the file's spelling.
///
/// ```
/// use capicua_tournament::TournamentSpec;
/// let spec: TournamentSpec = serde_json::from_str(r#"{
///     "name": "x", "table": "duel", "variants": ["block"],
///     "entrants": ["ana", "ben"], "stages": [{ "format": "swiss" }]
/// }"#).unwrap();
/// assert_eq!(spec.validate().unwrap_err().field, "stages[0].rounds");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{field}: {message}")]
pub struct ConfigError {
    /// Dotted path of the bad field (`stages[1].advance`).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { field: field.into(), message: message.into() }
    }
}

/// A spec text that does not parse into a [`TournamentSpec`](crate::TournamentSpec):
/// a syntax error, an unknown key, a wrong type or an out-of-range number.
///
/// ```
/// use capicua_tournament::TournamentSpec;
/// let text = "name = \"x\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"a\", \"b\"]\n\
///             [[stages]]\nformat = \"round-robin\"\nlegs = -1\n";
/// let e = TournamentSpec::from_toml(text).unwrap_err();
/// assert_eq!(e.field.as_deref(), Some("stages[0].legs"));
/// assert_eq!(e.line, Some(7));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}{}{message}", field.as_deref().map(|f| format!("{f}: ")).unwrap_or_default(), line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct ParseError {
    /// Path of the key at fault (`stages[0].legs`), in the file's spelling;
    /// `None` when the text as a whole is at fault (a syntax error).
    pub field: Option<String>,
    /// The 1-based line of the text at fault, when the parser knows it.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}
