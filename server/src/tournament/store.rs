//! Tournament specs in and out of the database: parsing and checking a spec
//! before it is stored, and loading a stored tournament for replay. The rows
//! themselves are [`crate::db::tournaments`].

use std::collections::BTreeMap;
use std::io::Read;

use capicua_engine::Variant;
use capicua_engine::poly::FileRules;
use capicua_strategy::{Policy, SearchCaps, StopFlag};
use capicua_tournament::{Config, EntrantSpec, Family, Round, Tournament};

use super::{Member, TournamentError};
use crate::db::Db;
use crate::db::tournaments::{self, LogTail, Logged, NewEntrant, SpecDefaults, Summary};

pub use crate::db::tournaments::SpecFormat;

/// Largest tournament spec accepted, in bytes (`POST /api/tournaments`).
pub const MAX_SPEC_BYTES: usize = 256 * 1024;

/// Largest variant file a spec may name, in bytes (as for a room's variant file).
pub const MAX_VARIANT_FILE_BYTES: u64 = crate::room::MAX_VARIANT_FILE_BYTES as u64;

/// Parses and validates a new spec, under the defaults a tournament
/// created now gets; the error names the field (by its path for a parse
/// error: `stages[0].legs`). Variant files are not read: see [`create`] and
/// [`load`].
pub fn parse_spec(text: &str, format: SpecFormat) -> Result<Config, TournamentError> {
    tournaments::parse_spec(text, format, SpecDefaults::CURRENT)
}

/// Who is creating a tournament, which decides whether its spec may name
/// variant files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A request over the network: anything a client sends is hostile, and
    /// never names a file on the server's disk, so only presets are played.
    Network,
    /// The operator (`capicua-server tournament create`): variant files are
    /// read from the current directory, once, and stored with the tournament.
    Operator,
}

/// Reads and parses every variant file `config`'s spec names, for a new
/// tournament created from `origin`; the error names the spec field.
fn read_variant_files(config: &Config, origin: Origin) -> Result<BTreeMap<String, Variant>, TournamentError> {
    let mut files = BTreeMap::new();
    for (field, name) in config.spec().variant_files() {
        let fail = |message: String| TournamentError::VariantFile { field: field.clone(), message };
        if origin == Origin::Network {
            return Err(fail(format!(
                "{name:?} is not a preset ({}); a tournament created over HTTP plays presets only, since the server \
                 never reads a file a request names (the operator's `capicua-server tournament create --file` \
                 reads variant files and stores them with the tournament)",
                capicua_engine::PRESETS.join(", ")
            )));
        }
        let mut text = String::new();
        std::fs::File::open(&name)
            .and_then(|f| f.take(MAX_VARIANT_FILE_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| fail(format!("variant file {name:?}: {e}")))?;
        if text.len() as u64 > MAX_VARIANT_FILE_BYTES {
            return Err(fail(format!("variant file {name:?} is over the limit of {MAX_VARIANT_FILE_BYTES} bytes")));
        }
        let rules = match FileRules::from_file_text(&name, &text) {
            Ok(FileRules::Tiles(rules)) => rules,
            // A file of tiles with 3, 4 or 6 faces: tournaments play the poly presets only.
            Ok(FileRules::Poly(_)) => {
                return Err(fail(format!(
                    "variant file {name:?} is a variant of tiles with 3, 4 or 6 faces: a tournament plays those \
                     by a poly preset's name ({}), not from a file",
                    capicua_engine::poly::POLY_PRESETS.join(", ")
                )));
            }
            Err(e) => return Err(fail(e.to_string())),
        };
        files.insert(name, rules.variant().clone());
    }
    Ok(files)
}

fn members(e: &EntrantSpec) -> Vec<String> {
    match e {
        EntrantSpec::Player(p) => vec![p.clone()],
        EntrantSpec::Team(t) => t.members.clone(),
    }
}

/// Checks that every entrant can be seated (hosted strategies build for
/// every family of tiles the tournament plays, other names are registered
/// players) and that the clock's timeout strategy exists in every family.
pub async fn check_entrants(db: &Db, config: &Config, caps: SearchCaps) -> Result<(), TournamentError> {
    let families = config.families();
    if let capicua_tournament::TimeoutRule::Strategy { name } = &config.spec().clock.on_timeout
        && let Some(message) = strategy_refused(name, &families, caps)
    {
        return Err(TournamentError::Entrant {
            field: "clock.on-timeout".into(),
            message: format!("strategy {name:?}: {message}"),
        });
    }
    for (i, e) in config.spec().entrants.iter().enumerate() {
        check_entrant(db, &format!("entrants[{i}]"), e, &families, caps).await?;
    }
    Ok(())
}

/// Why the hosted strategy `spec` cannot play every family of `families`
/// (`None` when it can), with the strategies that can.
fn strategy_refused(spec: &str, families: &[Family], caps: SearchCaps) -> Option<String> {
    let policy = Policy::network(caps);
    let stop = StopFlag::new();
    for &family in families {
        let poly = family == Family::Poly;
        if let Err(e) = crate::bots::strategy(spec, 0, &policy, &stop, poly) {
            return Some(crate::bots::refusal(&e, poly));
        }
    }
    None
}

/// Checks that one entrant can be seated (hosted strategies build for
/// every family of `families`, other names are registered players);
/// `field` names it in the error.
pub async fn check_entrant(
    db: &Db,
    field: &str,
    e: &EntrantSpec,
    families: &[Family],
    caps: SearchCaps,
) -> Result<(), TournamentError> {
    for m in members(e) {
        match Member::of(&m) {
            Member::Hosted { strategy } => {
                if let Some(message) = strategy_refused(&strategy, families, caps) {
                    return Err(TournamentError::Entrant {
                        field: field.into(),
                        message: format!("{m:?}: hosted strategy {strategy:?}: {message}"),
                    });
                }
            }
            Member::Player(name) => {
                if db.player_id(&name).await?.is_none() {
                    return Err(TournamentError::Entrant {
                        field: field.into(),
                        message: format!(
                            "no registered player {name:?} (register it first, or name a hosted bot as \"bot:STRATEGY\")"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Parses a scheduled start: unix seconds (`1767225600`) or an RFC 3339
/// time (`2026-01-01T00:00:00Z`, `2026-01-01T01:00:00+01:00`).
///
/// ```
/// use capicua_server::tournament::store::parse_starts_at;
/// assert_eq!(parse_starts_at("1767225600").unwrap(), 1767225600);
/// assert_eq!(parse_starts_at("2026-01-01T01:00:00+01:00").unwrap(), 1767225600);
/// assert!(parse_starts_at("tomorrow").is_err());
/// ```
pub fn parse_starts_at(text: &str) -> Result<i64, TournamentError> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| TournamentError::StartsAt(format!("{text:?} is too large")));
    }
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map(|t| t.unix_timestamp())
        .map_err(|e| {
            TournamentError::StartsAt(format!(
                "{text:?} is neither unix seconds nor an RFC 3339 time (2026-01-01T18:00:00Z): {e}"
            ))
        })
}

/// Parses, validates and stores a new tournament (status `pending`, to
/// start at `starts_at`, unix seconds, or at once); a serving server picks
/// it up. Returns its id and configuration.
///
/// Hosted entrants' strategies are checked against `caps` (the serving
/// server's, which will host them). Variant files are refused from the
/// network, and read, validated and stored with the tournament for the
/// operator (see [`Origin`]): a later change to a file changes no event.
pub async fn create(
    db: &Db,
    text: &str,
    format: SpecFormat,
    caps: SearchCaps,
    origin: Origin,
    starts_at: Option<i64>,
) -> Result<(i64, Config), TournamentError> {
    let config = parse_spec(text, format)?;
    let files = read_variant_files(&config, origin)?;
    let config = config.with_variant_files(files)?;
    check_entrants(db, &config, caps).await?;
    let spec = config.spec();
    let entrants: Vec<NewEntrant> = spec.entrants.iter().map(NewEntrant::of).collect();
    let variants = serde_json::to_string(config.variant_files()).map_err(|e| TournamentError::Db(e.into()))?;
    let id = db.create_tournament(&spec.name, format, text, &variants, &entrants, starts_at).await?;
    Ok((id, config))
}

/// A stored tournament: its summary, configuration and log.
pub struct Stored {
    /// The summary.
    pub summary: Summary,
    /// The validated configuration.
    pub config: Config,
    /// Its results and controls ([`LogTail::in_order`] is the replay order).
    pub log: LogTail,
    /// An arena's tables in creation order (empty for other formats, whose
    /// tables follow from the results).
    pub tables: Vec<Round>,
}

impl Stored {
    /// The tournament as its stored log (and an arena's stored tables)
    /// leave it; an arena knows its stored deadline.
    pub fn replay(&self) -> Result<Tournament, TournamentError> {
        let entries: Vec<_> = self.log.in_order().into_iter().map(Logged::entry).collect();
        let ends_at = self.summary.ends_at_ms.map(|ms| ms as u64);
        Ok(Tournament::replay_stored(self.config.clone(), &self.tables, &entries, ends_at)?)
    }
}

/// Loads a tournament (`None` if there is no such id).
pub async fn load(db: &Db, id: i64) -> Result<Option<Stored>, TournamentError> {
    let Some(summary) = db.tournament_summary(id).await? else { return Ok(None) };
    let Some(spec) = db.tournament_spec(id).await? else { return Ok(None) };
    let config = spec.parse::<TournamentError>()?;
    // The variant files as they were when the tournament was created; a
    // tournament stored before they were kept has none, and its files are
    // not read now (it may have come over the network).
    let stored: BTreeMap<String, Variant> = match db.tournament_variant_files(id).await? {
        Some(json) => serde_json::from_str(&json).map_err(|e| TournamentError::Db(e.into()))?,
        None => BTreeMap::new(),
    };
    if let Some((_, name)) = config.spec().variant_files().into_iter().find(|(_, n)| !stored.contains_key(n)) {
        return Err(TournamentError::Variant {
            name,
            message: "not stored with the tournament (it was created before variant files were stored): \
                      create the tournament again"
                .into(),
        });
    }
    let config = config.with_variant_files(stored)?;
    let log = db.tournament_log_after(id, 0, 0).await?;
    // Read after the results: every result's table is stored before its game.
    let tables = if config.is_arena() { db.arena_rounds_from(id, 0).await? } else { Vec::new() };
    Ok(Some(Stored { summary, config, log, tables }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poly_variant_file_is_refused_naming_the_poly_presets() {
        let dir = std::env::temp_dir().join(format!("capicua-poly-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let poly = dir.join("tri.toml");
        std::fs::write(&poly, "base = \"triominoes\"\nname = \"tri-house\"\nhand-size = 8\n").unwrap();
        let house = dir.join("house.toml");
        std::fs::write(&house, "base = \"block\"\nname = \"block-house\"\n").unwrap();
        let spec = |file: &std::path::Path| {
            let text = format!(
                "name = \"x\"\ntable = \"duel\"\nvariants = [\"triominoes\", {:?}]\nentrants = [\"a\", \"b\"]\n\
                 [[stages]]\nformat = \"round-robin\"\n",
                file.display().to_string()
            );
            parse_spec(&text, SpecFormat::Toml).unwrap()
        };
        let e = read_variant_files(&spec(&poly), Origin::Operator).unwrap_err();
        assert_eq!(e.field(), Some("variants[1]"), "{e}");
        let message = e.to_string();
        assert!(message.contains("3, 4 or 6 faces") && message.contains("graph-triominoes"), "{message}");
        // A two-faced file next to a poly preset is read; the preset is no file.
        let files = read_variant_files(&spec(&house), Origin::Operator).unwrap();
        assert_eq!(files.keys().collect::<Vec<_>>(), [&house.display().to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
