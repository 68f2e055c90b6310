//! Rooms: a task per room, owning its seats and its match; the engine is
//! the referee.
//!
//! - [`RoomCmd`] (in `room_cmd`, out of this module so that the lobby can
//!   hold a room's channel without depending on rooms): what a room is
//!   asked, and by whom.
//! - [`core`]: what a room decides, with no IO ([`RoomCore`]: commands and
//!   clock ticks in, effects out), unit-tested without sockets, database or
//!   sleeping; made of its seats ([`seats`]), the match in play ([`play`]),
//!   its clocks ([`clock`]) and chat ([`chat`]).
//! - [`task`]: the async shell that feeds the core, encodes its messages and
//!   performs its effects.
//! - [`spec`]: a [`RoomSpec`] checked into the core's [`settings`].
//! - this file: creation.
//!
//! Everything that changes a room arrives as a [`RoomCmd`] on its channel,
//! so the match needs no lock: the task applies commands one at a time.

mod chat;
mod core;
mod effect;
mod members;
mod seats;
mod settings;
mod spec;
mod task;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use capicua_protocol::{RoomInfo, RoomSpec};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use self::core::RoomCore;
pub(crate) use self::seats::{Creator, Owner};
use self::settings::Settings;
pub(crate) use self::settings::{HostedSeat, LinkFn, TableOptions};
use self::spec::settings_named;
pub(crate) use self::spec::{CreateError, MAX_VARIANT_FILE_BYTES, settings};
use self::task::RoomTask;
use crate::limits::{RoomOwner, RoomSlot, TooManyRooms};
pub(crate) use crate::room_cmd::{From, RoomCmd};
use crate::table::RoomRules;
use crate::{AppState, RoomHandle};

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

/// Validates a room spec, records the room and starts its task. The room
/// counts against its `owner`'s open rooms and those created from `addr`
/// (none for the admin's: no owner).
pub(crate) async fn create(
    state: &Arc<AppState>,
    spec: RoomSpec,
    owner: Option<RoomOwner>,
    addr: Option<std::net::IpAddr>,
    creator: Creator,
) -> Result<RoomInfo, CreateError> {
    // The slot is taken before anything is checked or recorded: a creator
    // at its limit costs the server no row.
    let slot = match owner {
        Some(o) => Some(state.room_quota.take(o, addr).map_err(|e| match e {
            TooManyRooms::Owner(n) => CreateError::TooManyRooms(n),
            TooManyRooms::Addr(n) => CreateError::TooManyRoomsHere(n),
        })?),
        None => None,
    };
    let mut settings = settings(&spec, state.config.reconnect_grace)?;
    settings.store_gate = state.store_budget.as_ref().zip(owner).map(|(b, o)| b.gate(o, addr));
    settings.seat_slots = (state.config.max_seats_per_addr > 0).then(|| state.seat_slots.clone());
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

/// What a room of reserved seats plays: a preset, rated or not, the move
/// clock (no bank), how long a seat may stay untaken, and whether it closes
/// after its match (`one_match`: the ladder's, whose players go back to
/// its pool) or stays while its players are in it, who play again when all
/// of them say ready (a rematch).
pub(crate) struct Reserved<'a> {
    pub(crate) preset: &'a str,
    pub(crate) rated: bool,
    pub(crate) move_ms: u64,
    pub(crate) no_show: std::time::Duration,
    pub(crate) one_match: bool,
}

/// A room of `table` with a seat reserved for each of `players` (whose
/// owner `owner` tells) in order, shuffled first so that the order of a queue or
/// a rating never decides the seats (who leads is the room's deal).
/// Returns the room and a future that ends once its first match is stored
/// (or the room without one), naming the seats (indices into `players` as
/// shuffled) never taken.
pub(crate) async fn open_reserved<T>(
    state: &Arc<AppState>,
    table: Reserved<'_>,
    players: &mut [T],
    owner: impl Fn(&T) -> crate::client::Owner,
) -> Result<(capicua_protocol::RoomInfo, impl Future<Output = Vec<usize>> + Send + 'static), CreateError> {
    for i in (1..players.len()).rev() {
        let j = getrandom::u64().map_or(0, |r| (r % (i as u64 + 1)) as usize);
        players.swap(i, j);
    }
    let Reserved { preset, rated, move_ms, no_show, one_match } = table;
    let spec = capicua_protocol::RoomSpec {
        preset: Some(preset.to_string()),
        seats: Some(players.len() as u8),
        rated,
        time: Some(capicua_protocol::TimeControl { move_ms, bank_ms: 0 }),
        ..capicua_protocol::RoomSpec::default()
    };
    let options = TableOptions {
        reserved: players.iter().map(|p| Some(owner(p))).collect(),
        hosted: players.iter().map(|_| None).collect(),
        one_match,
        no_show: Some(no_show),
        link: None,
        entropy: None,
    };
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let info = create_table(state, spec, options, done_tx).await?;
    // The room's lobby entry as it ends tells who never took a seat.
    let entry = state.room(info.id).map(|h| h.info);
    let ended = async move {
        let _ = done_rx.await;
        let Some(entry) = entry else { return Vec::new() };
        let last = entry.lock().expect("room info lock").clone();
        last.seats.iter().enumerate().filter(|(_, s)| s.occupant.is_none()).map(|(i, _)| i).collect()
    };
    Ok((info, ended))
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
        RoomRules::Tiles(r) => state.db.create_room(r.rules.variant(), r.seating.seats, spec.rated).await,
        RoomRules::Poly(r) => state.db.create_room(r.rules.variant(), r.seating, spec.rated).await,
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
    if let Some(invite) = &invite {
        // Its games are private too.
        state.db.set_room_invite(id as i64, invite).await.map_err(CreateError::Db)?;
    }
    state.lobby.insert_room(id, RoomHandle { tx, info: info.clone(), invite: invite.clone() });
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
