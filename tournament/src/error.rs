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
