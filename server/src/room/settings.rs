//! A room's settings, checked from its spec ([`super::spec`]), and the
//! options of a room that is a table of something larger.

use std::time::Duration;

use capicua_protocol::{RoomId, TimeControl, TimeoutPolicy};

use crate::client::Owner;
use crate::record::{GameRecord, TableLink};
use crate::table::RoomRules;

/// A room's checked settings.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The room.
    pub id: RoomId,
    /// The rules, and seats and teams (checked by the engine).
    pub rules: RoomRules,
    /// Each seat's side.
    pub sides: Vec<u8>,
    /// Ratings count; registered players only.
    pub rated: bool,
    /// The clock.
    pub time: TimeControl,
    /// What a seat out of time does.
    pub on_timeout: TimeoutPolicy,
    /// The seed the room was created with (reproducible rooms).
    pub seed: Option<u64>,
    /// How long a disconnected player keeps its seat.
    pub grace: Duration,
    /// Unlisted, joined by invite only.
    pub private: bool,
    /// What the specs of its hosted bots may ask (they came over the network).
    pub bots: capicua_strategy::Policy,
    /// How long the room stays open with no player connected in a seat and
    /// no match in play (hosted bots and spectators do not count); `None`
    /// keeps it open. Tables are exempt: their event closes them.
    pub idle: Option<Duration>,
    /// How long a room whose seats are all hosted bots stays open with no
    /// one watching it; its match stands still meanwhile. `None` keeps it
    /// open (and playing). Tables and the admin's rooms are exempt.
    pub unwatched: Option<Duration>,
    /// Most spectators at once; 0 is no limit.
    pub max_spectators: usize,
    /// The budget its stored games count against (its creator's, and its
    /// creator's address's); `None` for the admin's rooms and tables.
    pub store_gate: Option<crate::limits::StoreGate>,
    /// The seats each address holds in rooms waiting for their match;
    /// `None`: not counted (tables, or no limit).
    pub seat_slots: Option<std::sync::Arc<crate::limits::Slots<std::net::IpAddr>>>,
}

/// A hosted seat set when the room is created.
pub(crate) struct HostedSeat {
    /// The name shown.
    pub name: String,
    /// The strategy spec.
    pub strategy: String,
    /// Its player row (ratings).
    pub player_id: Option<i64>,
}

/// Options of a room that is a table of something larger (a tournament):
/// reserved seats, hosted seats, one match, a no-show deadline.
#[derive(Default)]
pub(crate) struct TableOptions {
    /// Who each seat is reserved for (`None`: open or hosted): a player,
    /// or a guest session (a Play now pairing).
    pub reserved: Vec<Option<Owner>>,
    /// Seats filled with hosted bots at creation.
    pub hosted: Vec<Option<HostedSeat>>,
    /// Play one match, then close.
    pub one_match: bool,
    /// If the seats are not all filled and ready by then (after creation),
    /// the side of the first missing seat forfeits the match.
    pub no_show: Option<Duration>,
    /// Makes the record stored with the game in the same transaction (a
    /// tournament's result for this table) from the finished match.
    pub link: Option<LinkFn>,
    /// Seeds the room's deals and hosted bots instead of the OS's entropy
    /// (a tournament table's, from its deal secret: never shown).
    pub entropy: Option<u64>,
}

/// Builds the [`TableLink`] stored with a finished match.
pub(crate) type LinkFn = Box<dyn Fn(&GameRecord) -> TableLink + Send>;

impl TableOptions {
    /// Whether the room is a table of an event: its seats reserved, or one
    /// match to play.
    pub(crate) fn is_table(&self) -> bool {
        self.reserved.iter().any(Option::is_some) || self.one_match
    }

    /// Whether its seats are reserved for players.
    pub(crate) fn is_reserved(&self) -> bool {
        self.reserved.iter().any(Option::is_some)
    }

    /// The seat reserved for an owner, if one is.
    pub(crate) fn reserved_seat(&self, owner: Owner) -> Option<u8> {
        self.reserved.iter().position(|r| *r == Some(owner)).map(|s| s as u8)
    }
}
