//! A match in play, written once over [`TableFamily`]: the engine referees
//! the moves, the family builds the messages.
//!
//! What a room's table asks of a tile family beyond the engine's
//! [`capicua_engine::Family`]: the protocol payloads it builds from events
//! and snapshots, what each receiver may see of a move, and the stored
//! record of a match. The families tell these differently (a poly `drew`
//! names its tile to the drawer only; a two-faced game keeps its own log
//! and hand results, a poly game only its totals), so each family
//! implements them once and [`Match`] is written over this trait.

use std::fmt;
use std::sync::Arc;

use capicua_engine::{Family, Seat};
use capicua_protocol::{AnyMove, Family as Wire, poly, tiles};

use super::{RoomRules, RulesOf, Table, TableEvents};
use crate::record::{HandResults, Play};

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

/// A match of family `F` and what the table keeps of it for the record.
#[derive(Clone, Debug)]
pub(crate) struct Match<F: TableFamily> {
    game: F,
    log: F::Log,
}

/// The events of one move, and the final position of the hand it ended.
pub(crate) struct Moved<F: TableFamily> {
    /// The events, as the engine tells them (each family decides what a
    /// receiver may see of them).
    pub(crate) events: F::Events,
    /// The final position of the hand the move ended.
    pub(crate) end: Option<Box<F>>,
}

impl<F: TableFamily> Match<F> {
    /// Deals a match from `seed`. The table keeps each hand's final
    /// position: the engine deals the next hand in the move that ends one,
    /// and the players are shown how it ended.
    pub(crate) fn deal(rules: &RulesOf<F>, seed: u64) -> Result<Match<F>, String> {
        let mut game = F::deal(Arc::clone(&rules.rules), rules.seating.clone(), seed).map_err(|e| e.to_string())?;
        game.keep_hand_ends(true);
        Ok(Match { game, log: F::Log::default() })
    }

    /// The game.
    pub(crate) fn game(&self) -> &F {
        &self.game
    }
}

/// A table of either family, as the room uses it: [`Table`] hands its
/// match out as this trait, so the room's table is written once.
pub(super) trait Seated {
    fn to_move(&self) -> Option<Seat>;
    fn plies(&self) -> usize;
    fn seed(&self) -> u64;
    fn scores(&self) -> &[i32];
    fn seat_scores(&self) -> &[i32];
    fn winner(&self) -> Option<u8>;
    fn play(&mut self, m: AnyMove) -> Result<TableEvents, String>;
    fn legal_pass(&self) -> Option<AnyMove>;
    fn started(&self, rules: &RoomRules, seat: Option<Seat>) -> Wire<tiles::GameStarted, poly::GameStarted>;
    fn prompt(&self, seat: Seat, lean: bool) -> Wire<tiles::Prompt, poly::Prompt>;
    fn public_events(&self, events: &TableEvents) -> Wire<tiles::Events, poly::Events>;
    fn own_events(&self, events: &TableEvents, viewer: Option<Seat>) -> Option<Wire<tiles::Events, poly::Events>>;
    fn record(&self, rules: &RoomRules) -> (Play, HandResults);
}

fn own_rules<F: TableFamily>(rules: &RoomRules) -> &RulesOf<F> {
    F::rules_of(rules).expect("a room deals its own family")
}

fn own_events<F: TableFamily>(events: &TableEvents) -> &Moved<F> {
    F::moved_of(events).expect("events come from this table")
}

impl<F: TableFamily> Seated for Match<F> {
    fn to_move(&self) -> Option<Seat> {
        self.game.to_move()
    }
    fn plies(&self) -> usize {
        self.game.plies()
    }
    fn seed(&self) -> u64 {
        self.game.seed()
    }
    fn scores(&self) -> &[i32] {
        self.game.scores()
    }
    fn seat_scores(&self) -> &[i32] {
        self.game.seat_scores()
    }
    fn winner(&self) -> Option<u8> {
        self.game.winner().map(|s| s.0)
    }

    /// The engine referees the move (a two-faced variant's lenient referee
    /// may let an illegal play stand, seeded); a refused move, or a move of
    /// the other family, changes nothing.
    fn play(&mut self, m: AnyMove) -> Result<TableEvents, String> {
        let m = F::own_move(m)?;
        let events = self.game.referee(m).map_err(|e| e.to_string())?;
        F::note(&mut self.log, m, &events);
        let end = self.game.take_hand_end();
        Ok(F::moved(Moved { events, end }))
    }

    fn legal_pass(&self) -> Option<AnyMove> {
        let mut moves = F::MoveList::default();
        self.game.legal_moves_into(&mut moves);
        moves.contains(&F::PASS).then(|| F::any_move(F::PASS))
    }

    fn started(&self, rules: &RoomRules, seat: Option<Seat>) -> Wire<tiles::GameStarted, poly::GameStarted> {
        self.game.started(&own_rules::<F>(rules).rules, seat)
    }
    fn prompt(&self, seat: Seat, lean: bool) -> Wire<tiles::Prompt, poly::Prompt> {
        self.game.prompt(seat, lean)
    }
    fn public_events(&self, events: &TableEvents) -> Wire<tiles::Events, poly::Events> {
        F::public_events(own_events::<F>(events))
    }
    fn own_events(&self, events: &TableEvents, viewer: Option<Seat>) -> Option<Wire<tiles::Events, poly::Events>> {
        self.game.own_events(own_events::<F>(events), viewer)
    }
    fn record(&self, rules: &RoomRules) -> (Play, HandResults) {
        self.game.record(own_rules::<F>(rules), &self.log)
    }
}

/// The rules of a room, as the room uses them whatever their family.
pub(super) trait Ruled {
    fn seats(&self) -> u8;
    fn name(&self) -> &str;
    fn deal(&self, seed: u64) -> Result<Table, String>;
    fn sync_state(&self, table: Option<&Table>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync>;
}

impl<F: TableFamily> Ruled for RulesOf<F> {
    fn seats(&self) -> u8 {
        F::seats_of(&self.seating)
    }
    fn name(&self) -> &str {
        F::variant_name(&self.rules)
    }
    fn deal(&self, seed: u64) -> Result<Table, String> {
        Match::deal(self, seed).map(F::table)
    }
    fn sync_state(&self, table: Option<&Table>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync> {
        F::sync(&self.rules, table.and_then(F::match_of).map(Match::game), seat)
    }
}
