//! Tournament specs in and out of the database: parsing and checking a spec
//! before it is stored, and loading a stored tournament for replay. The rows
//! themselves are [`crate::db::tournaments`].

use capicua_strategy::{Policy, SearchCaps, StopFlag};
use capicua_tournament::{Config, EntrantSpec, TournamentSpec};

use super::{Member, TournamentError};
use crate::db::Db;
use crate::db::tournaments::{self, EntrantKind, NewEntrant, StoredResult, Summary};

pub use crate::db::tournaments::SpecFormat;

/// Parses and validates a spec; the error names the field.
pub fn parse_spec(text: &str, format: SpecFormat) -> Result<Config, TournamentError> {
    let spec: TournamentSpec = match format {
        SpecFormat::Toml => toml::from_str(text).map_err(|e| TournamentError::Parse(e.to_string().trim().into()))?,
        SpecFormat::Json => serde_json::from_str(text).map_err(|e| TournamentError::Parse(e.to_string()))?,
    };
    Ok(spec.validate()?)
}

fn members(e: &EntrantSpec) -> Vec<String> {
    match e {
        EntrantSpec::Player(p) => vec![p.clone()],
        EntrantSpec::Team(t) => t.members.clone(),
    }
}

/// Checks that every entrant can be seated (hosted strategies build, other
/// names are registered players) and that the clock's timeout strategy exists.
pub async fn check_entrants(db: &Db, config: &Config, caps: SearchCaps) -> Result<(), TournamentError> {
    let policy = Policy::network(caps);
    let stop = StopFlag::new();
    let check = |spec: &str| crate::bots::strategy(spec, 0, &policy, &stop).err();
    if let capicua_tournament::TimeoutRule::Strategy { name } = &config.spec().clock.on_timeout {
        if let Some(e) = check(name) {
            return Err(TournamentError::Entrant {
                field: "clock.on-timeout".into(),
                message: format!("strategy {name:?}: {e}; known: {}", crate::bots::names().join(", ")),
            });
        }
    }
    for (i, e) in config.spec().entrants.iter().enumerate() {
        for m in members(e) {
            match Member::of(&m) {
                Member::Hosted { strategy } => {
                    if let Some(e) = check(&strategy) {
                        return Err(TournamentError::Entrant {
                            field: format!("entrants[{i}]"),
                            message: format!(
                                "{m:?}: hosted strategy {strategy:?}: {e}; known: {}",
                                crate::bots::names().join(", ")
                            ),
                        });
                    }
                }
                Member::Player(name) => {
                    if db.player_id(&name).await?.is_none() {
                        return Err(TournamentError::Entrant {
                            field: format!("entrants[{i}]"),
                            message: format!(
                                "no registered player {name:?} (register it first, or name a hosted bot as \"bot:STRATEGY\")"
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Parses, validates and stores a new tournament (status `pending`); a
/// serving server picks it up. Returns its id and configuration.
///
/// Hosted entrants' strategies are checked against `caps` (the serving
/// server's, which will host them).
pub async fn create(
    db: &Db,
    text: &str,
    format: SpecFormat,
    caps: SearchCaps,
) -> Result<(i64, Config), TournamentError> {
    let config = parse_spec(text, format)?;
    check_entrants(db, &config, caps).await?;
    let spec = config.spec();
    let entrants: Vec<NewEntrant> = spec
        .entrants
        .iter()
        .map(|e| {
            let (name, kind) = match e {
                EntrantSpec::Player(p) if matches!(Member::of(p), Member::Hosted { .. }) => {
                    (p.clone(), EntrantKind::HostedBot)
                }
                EntrantSpec::Player(p) => (p.clone(), EntrantKind::Player),
                EntrantSpec::Team(t) => (t.name.clone(), EntrantKind::Team),
            };
            NewEntrant { name, members: members(e), kind }
        })
        .collect();
    let id = tournaments::create(db, &spec.name, format, text, &entrants).await?;
    Ok((id, config))
}

/// A stored tournament: its summary, configuration and results in order.
pub struct Stored {
    /// The summary.
    pub summary: Summary,
    /// The validated configuration.
    pub config: Config,
    /// Results in record order.
    pub results: Vec<StoredResult>,
}

/// Loads a tournament (`None` if there is no such id).
pub async fn load(db: &Db, id: i64) -> Result<Option<Stored>, TournamentError> {
    let Some(summary) = tournaments::summary_of(db, id).await? else { return Ok(None) };
    let Some((text, format)) = tournaments::spec(db, id).await? else { return Ok(None) };
    let config = parse_spec(&text, format)?;
    let results = tournaments::results_after(db, id, 0).await?;
    Ok(Some(Stored { summary, config, results }))
}
