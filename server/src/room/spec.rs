//! A room's spec checked into its [`Settings`]: the rules (a preset, a
//! variant, or a variant file of either family), the seating the engine
//! accepts, the clock, the timeout policy.

use std::sync::{Arc, OnceLock};

use capicua_engine::poly::{FileRules, POLY_PRESETS, PolyRules, PolyVariant};
use capicua_engine::{Game, Rules, Seat, Seating, Variant};
use capicua_protocol::{ErrorCode, RoomSpec};
/// Longest per-move time and bank a room may set (as a tournament may).
use capicua_tournament::MAX_CLOCK_MS;

use super::core::CoreError;
use super::settings::Settings;
use crate::table::{RoomRules, RulesOf};

/// The longest `variant-file` text a room spec may carry, in bytes: ample
/// for any variant (a full one written out is a few KiB), small enough that
/// parsing one costs nothing. Over the WebSocket the frame limit, the same
/// 64 KiB, comes first; over HTTP this is the limit.
pub(crate) const MAX_VARIANT_FILE_BYTES: usize = 64 * 1024;

/// Why a room cannot be created.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CreateError {
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The creator holds its most open rooms already.
    #[error("you already have {0} open rooms, the most allowed; close or finish one first")]
    TooManyRooms(usize),
    /// The creator's address holds its most open rooms already.
    #[error("{0} rooms created from your address are open, the most allowed; close or finish one first")]
    TooManyRoomsHere(usize),
    /// The preset does not exist.
    #[error(
        "unknown preset {0:?}; presets: {presets}; poly presets: {poly}",
        presets = capicua_engine::PRESETS.join(", "),
        poly = POLY_PRESETS.join(", ")
    )]
    UnknownPreset(String),
    /// Not exactly one of `preset`, `variant` and `variant-file`.
    #[error("give exactly one of `preset`, `variant` and `variant-file`")]
    PresetOrVariant,
    /// The variant file is over [`MAX_VARIANT_FILE_BYTES`].
    #[error("variant-file: {0} bytes, over the limit of {MAX_VARIANT_FILE_BYTES}")]
    VariantFileTooLarge(usize),
    /// The variant file does not parse or validate; the error names the
    /// line and the field.
    #[error("variant-file: {0}")]
    VariantFile(#[source] capicua_engine::VariantFileError),
    /// The variant does not validate.
    #[error("variant {0}")]
    Variant(String),
    /// The seats or teams do not fit the variant.
    #[error("seating: {0}")]
    Seating(String),
    /// A rated room asked for a seed.
    #[error("a rated room cannot be seeded: the seed would reveal every hand")]
    RatedSeed,
    /// The clock is out of range.
    #[error("time: move-ms must be 1..={MAX_CLOCK_MS}, bank-ms at most that")]
    Clock,
    /// A strategy spec names no strategy.
    #[error("{0}")]
    Strategy(String),
    /// The OS gave no randomness for the room's deals.
    #[error("no randomness for the room's deals")]
    NoEntropy,
    /// The room could not be recorded.
    #[error("could not record the room")]
    Db(#[source] crate::db::DbError),
}

impl From<CoreError> for CreateError {
    fn from(e: CoreError) -> Self {
        CreateError::Strategy(e.to_string())
    }
}

impl CreateError {
    /// The protocol's error code.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            CreateError::ShuttingDown => ErrorCode::ShuttingDown,
            CreateError::TooManyRooms(_) | CreateError::TooManyRoomsHere(_) => ErrorCode::TooManyRooms,
            CreateError::UnknownPreset(_) | CreateError::PresetOrVariant | CreateError::Variant(_) => {
                ErrorCode::BadVariant
            }
            CreateError::Seating(_) => ErrorCode::BadVariant,
            CreateError::RatedSeed
            | CreateError::Clock
            | CreateError::VariantFileTooLarge(_)
            | CreateError::VariantFile(_) => ErrorCode::BadRequest,
            CreateError::Strategy(_) => ErrorCode::UnknownStrategy,
            CreateError::NoEntropy | CreateError::Db(_) => ErrorCode::Internal,
        }
    }

    /// The spec field at fault, when there is one.
    pub(crate) fn field(&self) -> Option<&'static str> {
        match self {
            CreateError::UnknownPreset(_) => Some("preset"),
            CreateError::Variant(_) | CreateError::PresetOrVariant => Some("variant"),
            CreateError::VariantFileTooLarge(_) | CreateError::VariantFile(_) => Some("variant-file"),
            CreateError::Seating(_) => Some("teams"),
            CreateError::RatedSeed => Some("seed"),
            CreateError::Clock => Some("time"),
            CreateError::Strategy(_) => Some("on-timeout"),
            _ => None,
        }
    }
}

/// Checks a room spec into the core's settings (the id is filled in later);
/// rules equal to a preset's open that preset ([`preset_of`]).
pub(crate) fn settings(spec: &RoomSpec, grace: std::time::Duration) -> Result<Settings, CreateError> {
    settings_named(spec, grace, true)
}

/// [`settings`], with rules equal to a preset's named as the preset only
/// when `as_preset`.
pub(super) fn settings_named(
    spec: &RoomSpec,
    grace: std::time::Duration,
    as_preset: bool,
) -> Result<Settings, CreateError> {
    let named = |rules: FileRules| if as_preset { self::as_preset(rules) } else { rules };
    let rules = match (&spec.preset, &spec.variant, &spec.variant_file) {
        (Some(name), None, None) if capicua_engine::poly::poly_preset(name).is_some() => {
            FileRules::Poly(PolyRules::preset(name).ok_or_else(|| CreateError::UnknownPreset(name.clone()))?)
        }
        (Some(name), None, None) => {
            let variant: Variant =
                capicua_engine::preset(name).ok_or_else(|| CreateError::UnknownPreset(name.clone()))?;
            FileRules::Tiles(Box::new(variant.validate().map_err(|e| CreateError::Variant(e.to_string()))?))
        }
        (None, Some(v), None) => {
            let v = preset_of(v).filter(|_| as_preset).unwrap_or_else(|| v.clone());
            FileRules::Tiles(Box::new(v.validate().map_err(|e| CreateError::Variant(e.to_string()))?))
        }
        (None, None, Some(text)) => named(variant_file(text)?),
        _ => return Err(CreateError::PresetOrVariant),
    };
    let (rules, sides) = match rules {
        FileRules::Tiles(rules) => tiles_seating(spec, *rules)?,
        FileRules::Poly(rules) => poly_seating(spec, rules)?,
    };
    if spec.rated && spec.seed.is_some() {
        // Whoever knows a room's seed knows every hand.
        return Err(CreateError::RatedSeed);
    }
    let time = spec.time.unwrap_or_default();
    if time.move_ms == 0 || time.move_ms > MAX_CLOCK_MS || time.bank_ms > MAX_CLOCK_MS {
        return Err(CreateError::Clock);
    }
    Ok(Settings {
        id: 0,
        rules,
        sides,
        rated: spec.rated,
        time,
        on_timeout: spec.on_timeout.clone().unwrap_or_default(),
        seed: spec.seed,
        grace,
        private: spec.private,
        bots: capicua_strategy::Policy::network(capicua_strategy::SearchCaps::default()),
        idle: None,
        unwatched: None,
        max_spectators: 0,
        store_gate: None,
        seat_slots: None,
    })
}

/// The preset whose rules `v` plays, rule for rule, whatever `v` is called
/// and described: rules compared as values, so a client that rebuilt a
/// preset's rules (with its keys in another order, under another name)
/// opens a room of that preset, listed, stored and rated under its name.
fn preset_of(v: &Variant) -> Option<Variant> {
    let presets = capicua_engine::PRESETS.iter().filter_map(|name| capicua_engine::preset(name));
    same_rules(v, presets, |v| (&mut v.name, &mut v.description))
}

/// The poly preset whose rules `v` plays (as [`preset_of`]).
fn poly_preset_of(v: &PolyVariant) -> Option<PolyVariant> {
    let presets = POLY_PRESETS.iter().filter_map(|name| capicua_engine::poly::poly_preset(name));
    same_rules(v, presets, |v| (&mut v.name, &mut v.description))
}

/// The first of `presets` equal to `v` once both are stripped of their name
/// and description (`words` lends those two fields).
fn same_rules<V: Clone + PartialEq>(
    v: &V,
    mut presets: impl Iterator<Item = V>,
    words: impl Fn(&mut V) -> (&mut String, &mut String),
) -> Option<V> {
    let rules_of = |v: &V| {
        let mut v = v.clone();
        let (name, description) = words(&mut v);
        name.clear();
        description.clear();
        v
    };
    let rules = rules_of(v);
    presets.find(|p| rules_of(p) == rules)
}

/// Rules read from a variant file, under their preset's name when they are
/// a preset's rules ([`preset_of`]).
fn as_preset(rules: FileRules) -> FileRules {
    match rules {
        FileRules::Tiles(r) => match preset_of(r.variant()).and_then(|p| p.validate().ok()) {
            Some(p) => FileRules::Tiles(Box::new(p)),
            None => FileRules::Tiles(r),
        },
        FileRules::Poly(r) => match poly_preset_of(r.variant()).and_then(|p| p.validate().ok()) {
            Some(p) => FileRules::Poly(p),
            None => FileRules::Poly(r),
        },
    }
}

/// A two-faced room's seating, checked by the engine, and its seats' sides.
fn tiles_seating(spec: &RoomSpec, rules: capicua_engine::Rules) -> Result<(RoomRules, Vec<u8>), CreateError> {
    let seats = spec.seats.unwrap_or(rules.variant().players.max);
    let mut seating = Seating::new(seats);
    if let Some(teams) = &spec.teams {
        seating = seating.with_teams(teams.clone());
    }
    let rules = shared_preset(rules);
    // Seating is checked by dealing a throwaway game: the engine is the
    // only judge of what a table may be.
    let probe = Game::new(rules.clone(), seating.clone(), 0).map_err(|e| CreateError::Seating(e.to_string()))?;
    let sides: Vec<u8> = (0..seats).map(|s| probe.table().side_of(Seat(s)).0).collect();
    if spec.rated
        && capicua_engine::preset(&rules.variant().name).is_some()
        && !crate::db::ratings::is_preset(rules.variant())
    {
        // Its games would count on the preset's leaderboard under the
        // preset's name while playing other rules.
        return Err(preset_name_taken(&rules.variant().name));
    }
    Ok((RoomRules::Tiles(RulesOf { rules, seating }), sides))
}

/// A poly room's seats (every seat its own side), checked by the engine.
fn poly_seating(spec: &RoomSpec, rules: PolyRules) -> Result<(RoomRules, Vec<u8>), CreateError> {
    if spec.teams.is_some() {
        return Err(CreateError::Seating("tiles with 3, 4 or 6 faces are played without teams".into()));
    }
    let seats = spec.seats.unwrap_or(*rules.seat_range().end());
    let rules = shared_poly_preset(rules);
    capicua_engine::poly::PolyGame::new(rules.clone(), seats, 0).map_err(|e| CreateError::Seating(e.to_string()))?;
    let name = &rules.variant().name;
    if spec.rated
        && capicua_engine::poly::poly_preset(name).is_some()
        && !crate::db::ratings::is_poly_preset(rules.variant())
    {
        return Err(preset_name_taken(name));
    }
    Ok((RoomRules::Poly(RulesOf { rules, seating: seats }), (0..seats).collect()))
}

/// The process's one compiled copy of a preset's rules when `rules` are
/// exactly that preset's (name included), else `rules` in an `Arc` of their
/// own. Rooms hold their rules for life and most rooms play a preset:
/// sharing saves each room its own compiled copy (about 4 KiB).
fn shared_preset(rules: Rules) -> Arc<Rules> {
    static SHARED: OnceLock<Vec<Arc<Rules>>> = OnceLock::new();
    let presets = SHARED.get_or_init(|| {
        let compiled = capicua_engine::PRESETS.iter().filter_map(|name| capicua_engine::preset(name)?.validate().ok());
        compiled.map(Arc::new).collect()
    });
    shared(rules, presets, Rules::variant)
}

/// [`shared_preset`] for tiles with 3, 4 or 6 faces.
fn shared_poly_preset(rules: PolyRules) -> Arc<PolyRules> {
    static SHARED: OnceLock<Vec<Arc<PolyRules>>> = OnceLock::new();
    let presets =
        SHARED.get_or_init(|| POLY_PRESETS.iter().filter_map(|name| PolyRules::preset(name)).map(Arc::new).collect());
    shared(rules, presets, PolyRules::variant)
}

/// The one of `presets` whose variant is `rules`' own, name included (the
/// name is the variant's first field, so most misses stop there), else
/// `rules` in an `Arc` of their own.
fn shared<R, V: PartialEq>(rules: R, presets: &[Arc<R>], variant: impl Fn(&R) -> &V) -> Arc<R> {
    let v = variant(&rules);
    match presets.iter().find(|p| variant(p) == v) {
        Some(p) => p.clone(),
        None => Arc::new(rules),
    }
}

/// A rated room that names a preset must play its rules.
fn preset_name_taken(name: &str) -> CreateError {
    CreateError::Variant(format!(
        "name: a rated room named {name:?} must play {name}'s exact rules; give other rules a name of their own \
         (for example \"{name}-custom\")"
    ))
}

/// Parses and validates the text of a variant file of either family
/// ([`FileRules`]). The origin named in
/// errors (`variant-file.toml:3: ...`) says which format was read: JSON when
/// the first non-blank character is `{`, as a JSON object must start,
/// otherwise TOML. The engine's parser is pure: `base` names a preset,
/// never a file, so a client cannot make the server read its disk.
fn variant_file(text: &str) -> Result<FileRules, CreateError> {
    if text.len() > MAX_VARIANT_FILE_BYTES {
        return Err(CreateError::VariantFileTooLarge(text.len()));
    }
    let origin = if text.trim_start().starts_with('{') { "variant-file.json" } else { "variant-file.toml" };
    FileRules::from_file_text(origin, text).map_err(CreateError::VariantFile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles_rules(spec: &RoomSpec) -> Arc<Rules> {
        match settings(spec, std::time::Duration::ZERO).expect("a valid spec").rules {
            RoomRules::Tiles(r) => r.rules,
            RoomRules::Poly(_) => panic!("a dominoes room"),
        }
    }

    fn poly_rules(spec: &RoomSpec) -> Arc<PolyRules> {
        match settings(spec, std::time::Duration::ZERO).expect("a valid spec").rules {
            RoomRules::Poly(r) => r.rules,
            RoomRules::Tiles(_) => panic!("a poly room"),
        }
    }

    #[test]
    fn rooms_of_a_preset_share_its_compiled_rules_and_other_rules_are_their_own() {
        let latin = RoomSpec { preset: Some("latin".into()), ..RoomSpec::default() };
        assert!(Arc::ptr_eq(&tiles_rules(&latin), &tiles_rules(&latin)));
        // The preset's rules sent as a variant open the preset: shared too.
        let as_variant = RoomSpec { variant: capicua_engine::preset("latin"), ..RoomSpec::default() };
        assert!(Arc::ptr_eq(&tiles_rules(&latin), &tiles_rules(&as_variant)));
        // Other rules keep a copy of their own, whatever their name.
        let mut other = capicua_engine::preset("latin").unwrap();
        other.name = "latin-custom".into();
        other.target = capicua_engine::MatchTarget::Hands(1);
        let custom = RoomSpec { variant: Some(other.clone()), ..RoomSpec::default() };
        let (a, b) = (tiles_rules(&custom), tiles_rules(&custom));
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(a.variant(), &other);
        assert!(!Arc::ptr_eq(&a, &tiles_rules(&latin)));

        let name = POLY_PRESETS[0];
        let poly = RoomSpec { preset: Some(name.into()), ..RoomSpec::default() };
        assert!(Arc::ptr_eq(&poly_rules(&poly), &poly_rules(&poly)));
        assert_eq!(poly_rules(&poly).variant().name, name);
    }
}
