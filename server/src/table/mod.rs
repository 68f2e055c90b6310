//! The match a room plays, of either family: two-faced dominoes
//! ([`Game`]) or tiles with 3, 4 or 6 faces ([`PolyGame`]). The room core
//! decides the same way for both (seats, clocks, timeouts, storing); the
//! table is written once over the engine's [`capicua_engine::Family`]
//! ([`Match`]), and what the families tell differently (the messages, what
//! each receiver may see, the stored record) is each family's
//! [`TableFamily`] implementation. The enums here are the one place that
//! chooses between the families; the room and the hosted bots read them.

use std::sync::Arc;

use capicua_engine::poly::PolyGame;
use capicua_engine::{Game, Seat};
pub(crate) use capicua_protocol::AnyMove;
use capicua_protocol::{Family as Wire, PromptId, RoomId, ServerMsg, poly, tiles};

use crate::record::{HandResults, Play};

mod game;
mod poly_family;
mod tiles_family;

pub(crate) use game::TableFamily;
pub(crate) use game::{Match, Moved};
use game::{Ruled, Seated};
pub(crate) use poly_family::poly_hand_end;
pub(crate) use tiles_family::tiles_hand_end;

/// The checked rules of one family and who sits at the table.
#[derive(Clone, Debug)]
pub(crate) struct RulesOf<F: TableFamily> {
    /// The rules.
    pub(crate) rules: Arc<F::Rules>,
    /// Seats and teams (dominoes), or the number of seats (every poly seat
    /// plays for itself), checked by the engine.
    pub(crate) seating: F::Seating,
}

/// The rules a room plays, checked.
#[derive(Clone, Debug)]
pub(crate) enum RoomRules {
    /// Dominoes.
    Tiles(RulesOf<Game>),
    /// Tiles with 3, 4 or 6 faces.
    Poly(RulesOf<PolyGame>),
}

impl RoomRules {
    /// The rules whatever their family: the one place that chooses.
    fn ruled(&self) -> &dyn Ruled {
        match self {
            RoomRules::Tiles(r) => r,
            RoomRules::Poly(r) => r,
        }
    }

    /// Seats at the table.
    pub(crate) fn seats(&self) -> u8 {
        self.ruled().seats()
    }

    /// The variant's name.
    pub(crate) fn name(&self) -> &str {
        self.ruled().name()
    }

    /// Whether the room plays tiles with 3, 4 or 6 faces.
    pub(crate) fn is_poly(&self) -> bool {
        matches!(self, RoomRules::Poly(_))
    }

    /// Deals a match from `seed`.
    pub(crate) fn deal(&self, seed: u64) -> Result<Table, String> {
        self.ruled().deal(seed)
    }

    /// The state `sync` tells: the full rules and the receiver's view of
    /// the match in play, if any.
    pub(crate) fn sync_state(&self, table: Option<&Table>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync> {
        self.ruled().sync_state(table, seat)
    }
}

/// The events of one move, and the final position of the hand it ended.
pub(crate) enum TableEvents {
    /// Two-faced events: public as they are.
    Tiles(Moved<Game>),
    /// Poly events: a `drew` names its tile, to be told to the drawer only.
    Poly(Moved<PolyGame>),
}

impl TableEvents {
    /// Whether the move ended a hand (the match's last hand included).
    pub(crate) fn ended_hand(&self) -> bool {
        match self {
            TableEvents::Tiles(m) => m.end.is_some(),
            TableEvents::Poly(m) => m.end.is_some(),
        }
    }
}

/// A match in play.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per room, in place for the whole match")]
pub(crate) enum Table {
    /// Dominoes.
    Tiles(Match<Game>),
    /// Tiles with 3, 4 or 6 faces.
    Poly(Match<PolyGame>),
}

impl Table {
    /// The match whatever its family: the one place that chooses.
    fn seated(&self) -> &dyn Seated {
        match self {
            Table::Tiles(m) => m,
            Table::Poly(m) => m,
        }
    }

    fn seated_mut(&mut self) -> &mut dyn Seated {
        match self {
            Table::Tiles(m) => m,
            Table::Poly(m) => m,
        }
    }

    /// The seat to move, `None` once the match is over.
    pub(crate) fn to_move(&self) -> Option<Seat> {
        self.seated().to_move()
    }

    /// Moves played so far.
    pub(crate) fn plies(&self) -> usize {
        self.seated().plies()
    }

    /// The match's seed.
    pub(crate) fn seed(&self) -> u64 {
        self.seated().seed()
    }

    /// Plays a move: the engine referees it (a two-faced variant's lenient
    /// referee may let an illegal play stand, seeded). A refused move, or a
    /// move of the other family, changes nothing.
    pub(crate) fn play(&mut self, m: AnyMove) -> Result<TableEvents, String> {
        self.seated_mut().play(m)
    }

    /// A pass, when it is a legal move for the seat to move.
    pub(crate) fn legal_pass(&self) -> Option<AnyMove> {
        self.seated().legal_pass()
    }

    /// `game-started` for a seat (its view) or a spectator (`None`).
    pub(crate) fn started(&self, rules: &RoomRules, room: RoomId, seq: u64, seat: Option<Seat>) -> ServerMsg {
        let game = self.seated().started(rules, seat);
        ServerMsg::GameStarted { room, seq, seat: seat.map(|s| s.0), game }
    }

    /// The prompt for `seat`, to move; `lean` leaves the view out.
    pub(crate) fn prompt(&self, room: RoomId, prompt: PromptId, seat: Seat, lean: bool, deadline_ms: u64) -> ServerMsg {
        let turn = self.seated().prompt(seat, lean);
        ServerMsg::Prompt { room, prompt, seat: seat.0, deadline_ms, turn }
    }

    /// What every receiver that sees nothing more than the public events is
    /// told of a move (a spectator, and every seat the move tells nothing
    /// of its own).
    pub(crate) fn public_events(&self, room: RoomId, seq: u64, events: &TableEvents) -> ServerMsg {
        let happened = self.seated().public_events(events);
        ServerMsg::Events { room, seq, happened }
    }

    /// What `viewer` (a seat, or `None` for a spectator) is told of a move
    /// when it differs from [`Table::public_events`]: its new view when its
    /// tiles changed (a new hand was dealt, a seat whose hand it sees drew),
    /// in a poly room the tile it drew itself, and the end of a hand as
    /// this viewer sees it. `None`: the public message.
    pub(crate) fn own_events(
        &self,
        room: RoomId,
        seq: u64,
        events: &TableEvents,
        viewer: Option<Seat>,
    ) -> Option<ServerMsg> {
        let happened = self.seated().own_events(events, viewer)?;
        Some(ServerMsg::Events { room, seq, happened })
    }

    /// Match scores by side (in a poly game every seat is its own side).
    pub(crate) fn scores(&self) -> Vec<i32> {
        self.seated().scores().to_vec()
    }

    /// The winning side of a finished match, `None` for a draw.
    pub(crate) fn winner(&self) -> Option<u8> {
        self.seated().winner()
    }

    /// Each seat's share of its side's score.
    pub(crate) fn seat_scores(&self) -> Vec<i32> {
        self.seated().seat_scores().to_vec()
    }

    /// What replays the match (with its seed), and its hands' results.
    pub(crate) fn record(&self, rules: &RoomRules) -> (Play, HandResults) {
        self.seated().record(rules)
    }

    /// The game, if the table plays family `F` (for what only one family
    /// offers: hints, a strategy of that family).
    pub(crate) fn game<F: TableFamily>(&self) -> Option<&F> {
        F::match_of(self).map(Match::game)
    }

    /// The two-faced game, for what only two-faced games offer (hints).
    pub(crate) fn tiles(&self) -> Option<&Game> {
        self.game::<Game>()
    }
}
