//! Rooms: a task per room, owning its seats and its match; the engine is
//! the referee.
//!
//! - [`core`]: what a room decides, with no IO ([`RoomCore`]: commands and
//!   clock ticks in, effects out), unit-tested without sockets, database or
//!   sleeping.
//! - [`task`]: the async shell that feeds the core and performs its effects.
//! - this file: the commands a connection sends a room, and creation: a
//!   [`RoomSpec`] checked into the core's settings.
//!
//! Everything that changes a room arrives as a [`RoomCmd`] on its channel,
//! so the match needs no lock: the task applies commands one at a time.

pub(crate) mod core;
mod task;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use capicua_engine::poly::{FileRules, POLY_PRESETS, PolyRules, PolyVariant};
use capicua_engine::{Game, Seat, Seating, Variant};
use capicua_protocol::{ErrorCode, PromptId, RoomInfo, RoomSpec};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use self::core::{CoreError, RoomCore, Settings};
pub(crate) use self::core::{Creator, HostedSeat, LinkFn, Owner, TableOptions};
use self::task::RoomTask;
use crate::limits::{RoomOwner, RoomSlot, TooManyRooms};
use crate::table::{AnyMove, RoomRules};
use crate::{AppState, Client, ConnId, RoomHandle};

/// Longest per-move time and bank a room may set (as a tournament may).
use capicua_tournament::MAX_CLOCK_MS;

/// The longest `variant-file` text a room spec may carry, in bytes: ample
/// for any variant (a full one written out is a few KiB), small enough that
/// parsing one costs nothing. Over the WebSocket the frame limit, the same
/// 64 KiB, comes first; over HTTP this is the limit.
pub(crate) const MAX_VARIANT_FILE_BYTES: usize = 64 * 1024;

/// A command for a room task.
pub enum RoomCmd {
    /// Take a seat.
    Join {
        /// Who.
        client: Client,
        /// Which seat, or any.
        seat: Option<u8>,
        /// Request id to echo.
        id: Option<u64>,
    },
    /// Leave the seat or the spectators.
    Leave {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Watch.
    Spectate {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Fill empty seats with hosted bots.
    FillBots {
        /// Who asks.
        client: Client,
        /// Strategy name.
        strategy: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Say something to everyone in the room (checked for length and
    /// rate by the connection).
    Chat {
        /// Who.
        client: Client,
        /// What.
        text: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Ready for the next match.
    Ready {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// A move answering a prompt.
    Move {
        /// Who.
        client: Client,
        /// The prompt answered.
        prompt: PromptId,
        /// The move (of the room's family).
        mv: AnyMove,
        /// Request id.
        id: Option<u64>,
    },
    /// What the strongest bot would play at the pending prompt.
    Hint {
        /// Who asks.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Send the current state (and the pending prompt) again.
    Resync {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Close the room (admin; checked by the connection).
    Close {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// A player reconnected: give its seats back to this connection.
    Reattach {
        /// The new connection.
        client: Client,
        /// The seats given back.
        reply: oneshot::Sender<Vec<u8>>,
    },
    /// A guest connection registered: the seats it holds as a guest now
    /// belong to the player it acts for.
    Promote {
        /// The connection, with its new identity.
        client: Client,
    },
    /// A connection ended.
    Disconnected {
        /// Which.
        conn: ConnId,
    },
    /// The server is shutting down.
    Shutdown,
}

/// Why a room cannot be created.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CreateError {
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The creator holds its most open rooms already.
    #[error("you already have {0} open rooms, the most allowed; close or finish one first")]
    TooManyRooms(usize),
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
            CreateError::TooManyRooms(_) => ErrorCode::TooManyRooms,
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
fn settings_named(spec: &RoomSpec, grace: std::time::Duration, as_preset: bool) -> Result<Settings, CreateError> {
    let named = |rules: FileRules| if as_preset { self::as_preset(rules) } else { rules };
    let rules = match (&spec.preset, &spec.variant, &spec.variant_file) {
        (Some(name), None, None) if POLY_PRESETS.contains(&name.as_str()) => {
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
    })
}

/// The preset whose rules `v` plays, rule for rule, whatever `v` is called
/// and described: rules compared as values, so a client that rebuilt a
/// preset's rules (with its keys in another order, under another name)
/// opens a room of that preset, listed, stored and rated under its name.
fn preset_of(v: &Variant) -> Option<Variant> {
    let rules_of = |v: &Variant| {
        let mut v = v.clone();
        v.name.clear();
        v.description.clear();
        v
    };
    let rules = rules_of(v);
    capicua_engine::PRESETS.iter().filter_map(|name| capicua_engine::preset(name)).find(|p| rules_of(p) == rules)
}

/// The poly preset whose rules `v` plays (as [`preset_of`]).
fn poly_preset_of(v: &PolyVariant) -> Option<PolyVariant> {
    let rules_of = |v: &PolyVariant| {
        let mut v = v.clone();
        v.name.clear();
        v.description.clear();
        v
    };
    let rules = rules_of(v);
    POLY_PRESETS.iter().filter_map(|name| capicua_engine::poly::poly_preset(name)).find(|p| rules_of(p) == rules)
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
    let rules = Arc::new(rules);
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
    Ok((RoomRules::Tiles { rules, seating }, sides))
}

/// A poly room's seats (every seat its own side), checked by the engine.
fn poly_seating(spec: &RoomSpec, rules: PolyRules) -> Result<(RoomRules, Vec<u8>), CreateError> {
    if spec.teams.is_some() {
        return Err(CreateError::Seating("tiles with 3, 4 or 6 faces are played without teams".into()));
    }
    let seats = spec.seats.unwrap_or(*rules.seat_range().end());
    let rules = Arc::new(rules);
    capicua_engine::poly::PolyGame::new(rules.clone(), seats, 0).map_err(|e| CreateError::Seating(e.to_string()))?;
    let name = &rules.variant().name;
    if spec.rated
        && capicua_engine::poly::poly_preset(name).is_some()
        && !crate::db::ratings::is_poly_preset(rules.variant())
    {
        return Err(preset_name_taken(name));
    }
    Ok((RoomRules::Poly { rules, seats }, (0..seats).collect()))
}

/// A rated room that names a preset must play its rules.
fn preset_name_taken(name: &str) -> CreateError {
    CreateError::Variant(format!(
        "name: a rated room named {name:?} must play {name}'s exact rules; give other rules a name of their own \
         (for example \"{name}-custom\")"
    ))
}

/// A fresh invite id: a random UUID v4 (122 random bits), so a private
/// room cannot be found by guessing.
pub(crate) fn invite_id() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
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

/// Validates a room spec, records the room and starts its task. The room
/// counts against its `owner`'s open rooms (none for the admin's).
pub(crate) async fn create(
    state: &Arc<AppState>,
    spec: RoomSpec,
    owner: Option<RoomOwner>,
    creator: Creator,
) -> Result<RoomInfo, CreateError> {
    // The slot is taken before anything is checked or recorded: a creator
    // at its limit costs the server no row.
    let slot = match owner {
        Some(o) => Some(state.room_quota.take(o).map_err(|TooManyRooms(n)| CreateError::TooManyRooms(n))?),
        None => None,
    };
    let settings = settings(&spec, state.config.reconnect_grace)?;
    create_with(state, spec, settings, TableOptions::default(), None, slot, creator).await
}

/// Opens a room with table options (reserved and hosted seats, one match, a
/// no-show deadline); `on_stored` hears the stored game's id once its match
/// is over. Its rules keep the name they are given: an organiser's house
/// rules are played and stored under the organiser's name even where they
/// equal a preset's.
pub(crate) async fn create_table(
    state: &Arc<AppState>,
    spec: RoomSpec,
    table: TableOptions,
    on_stored: oneshot::Sender<Option<i64>>,
) -> Result<RoomInfo, CreateError> {
    let settings = settings_named(&spec, state.config.reconnect_grace, false)?;
    create_with(state, spec, settings, table, Some(on_stored), None, Creator::Unknown).await
}

async fn create_with(
    state: &Arc<AppState>,
    spec: RoomSpec,
    mut settings: Settings,
    table: TableOptions,
    on_stored: Option<oneshot::Sender<Option<i64>>>,
    slot: Option<RoomSlot>,
    creator: Creator,
) -> Result<RoomInfo, CreateError> {
    if state.is_shutting_down() {
        return Err(CreateError::ShuttingDown);
    }
    settings.bots = state.config.bot_policy();
    settings.idle = state.config.room_idle;
    settings.unwatched = state.config.unwatched_room;
    settings.max_spectators = state.config.max_spectators;
    // Deals of an unseeded room must be unpredictable: no randomness, no room.
    let entropy = match table.entropy {
        Some(e) => e,
        None => getrandom::u64().map_err(|_| CreateError::NoEntropy)?,
    };
    let rules = settings.rules.clone();
    // Everything is checked before the room is recorded.
    let mut core = RoomCore::new(settings, table, entropy, Instant::now())?;
    let recorded = match &rules {
        RoomRules::Tiles { rules, seating } => state.db.create_room(rules.variant(), seating.seats, spec.rated).await,
        RoomRules::Poly { rules, seats } => state.db.create_room(rules.variant(), *seats, spec.rated).await,
    };
    let id = recorded.map_err(|e| {
        tracing::error!(error = %e, "recording a room");
        CreateError::Db(e)
    })? as capicua_protocol::RoomId;
    core.set_id(id);
    core.set_creator(creator);
    let mut snapshot = core.info();
    let info = Arc::new(Mutex::new(snapshot.clone()));
    let (tx, rx) = mpsc::unbounded_channel();
    let invite = if spec.private { Some(invite_id().map_err(|_| CreateError::NoEntropy)?) } else { None };
    state.rooms.lock().expect("rooms lock").insert(id, RoomHandle { tx, info: info.clone(), invite: invite.clone() });
    // Only the creator's reply carries the invite.
    snapshot.invite = invite;
    state.metrics.rooms.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let guard = state.task_guard();
    let task = RoomTask::new(core, state.clone(), info, on_stored);
    tracing::info!(room = task.id(), variant = %snapshot.variant, rated = snapshot.rated, "room created");
    tokio::spawn(async move {
        task.run(rx).await;
        // The room is out of the lobby: its owner may open another.
        drop(slot);
        drop(guard);
    });
    Ok(snapshot)
}
