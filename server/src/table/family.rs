//! What a room's table asks of a tile family beyond the engine's
//! [`capicua_engine::Family`]: the protocol payloads it builds from events
//! and snapshots, what each receiver may see of a move, and the stored
//! record of a match. The families tell these differently (a poly `drew`
//! names its tile to the drawer only; a two-faced game keeps its own log
//! and hand results, a poly game only its totals), so each family
//! implements them once and [`super::Match`] is written over this trait.

use std::fmt;

use capicua_engine::{Family, Seat};
use capicua_protocol::{AnyMove, Family as Wire, poly, tiles};

use super::{Match, Moved, RoomRules, RulesOf, Table, TableEvents};
use crate::db::{HandResults, Play};

/// A tile family a room can play.
pub(crate) trait TableFamily: Family {
    /// What the table keeps of the moves beyond what the game keeps, for
    /// the stored record.
    type Log: Clone + fmt::Debug + Default + Send + Sync;

    /// Keeps what the stored record needs of a move that was played.
    fn note(log: &mut Self::Log, m: Self::Move, events: &Self::Events);
    /// What replays the match (with its seed), and its hands' results.
    fn record(&self, rules: &RulesOf<Self>, log: &Self::Log) -> (Play, HandResults);

    /// Seats of a seating.
    fn seats_of(seating: &Self::Seating) -> u8;
    /// The variant's name.
    fn variant_name(rules: &Self::Rules) -> &str;

    /// `game-started` for a seat (its view) or a spectator (`None`).
    fn started(&self, rules: &Self::Rules, seat: Option<Seat>) -> Wire<tiles::GameStarted, poly::GameStarted>;
    /// The state `sync` tells: the full rules and the receiver's view of the
    /// match in play, if any.
    fn sync(rules: &Self::Rules, game: Option<&Self>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync>;
    /// The prompt for `seat`, to move; `lean` leaves the view out.
    fn prompt(&self, seat: Seat, lean: bool) -> Wire<tiles::Prompt, poly::Prompt>;
    /// What a receiver that sees only the public events is told of a move.
    fn public_events(moved: &Moved<Self>) -> Wire<tiles::Events, poly::Events>;
    /// What `viewer` is told of a move when it differs from the public
    /// message; `None`: the public message.
    fn own_events(&self, moved: &Moved<Self>, viewer: Option<Seat>) -> Option<Wire<tiles::Events, poly::Events>>;

    /// The move as the wire tells it.
    fn any_move(m: Self::Move) -> AnyMove;
    /// A move of this family, or why a move of the other one is refused.
    fn own_move(m: AnyMove) -> Result<Self::Move, String>;
    /// The room's rules, when they are of this family.
    fn rules_of(rules: &RoomRules) -> Option<&RulesOf<Self>>;
    /// The table of this family.
    fn table(m: Match<Self>) -> Table;
    /// The match, when the table plays this family.
    fn match_of(table: &Table) -> Option<&Match<Self>>;
    /// The events of a move of this family.
    fn moved(m: Moved<Self>) -> TableEvents;
    /// The events, when they come from a table of this family.
    fn moved_of(events: &TableEvents) -> Option<&Moved<Self>>;
}
