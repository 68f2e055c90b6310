//! Two-faced dominoes at a room's table: every event is public; a seat is
//! shown its new view when a hand is dealt or a seat whose hand it sees
//! draws.

use capicua_engine::{Event, Family, Game, Move, MoveList, Rules, Seat, Seating};
use capicua_protocol::{AnyMove, Family as Wire, poly, tiles};

use super::{Match, Moved, RoomRules, RulesOf, Table, TableEvents, TableFamily};
use crate::record::{HandResults, Play};

impl TableFamily for Game {
    /// The game keeps its own log and hand results.
    type Log = ();

    fn note(_log: &mut (), _m: Move, _events: &capicua_engine::Events) {}

    fn record(&self, rules: &RulesOf<Game>, _log: &()) -> (Play, HandResults) {
        let play = Play::Tiles {
            variant: rules.rules.variant().clone(),
            seating: rules.seating.clone(),
            moves: self.log().to_vec(),
        };
        (play, HandResults::Tiles(self.hand_results().to_vec()))
    }

    fn seats_of(seating: &Seating) -> u8 {
        seating.seats
    }

    fn variant_name(rules: &Rules) -> &str {
        &rules.variant().name
    }

    fn started(&self, rules: &Rules, seat: Option<Seat>) -> Wire<tiles::GameStarted, poly::GameStarted> {
        Wire::Tiles(tiles::GameStarted {
            view: Box::new(Family::snapshot(self, seat)),
            variant: Box::new(rules.variant().clone()),
        })
    }

    fn sync(rules: &Rules, game: Option<&Game>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync> {
        Wire::Tiles(tiles::Sync {
            view: game.map(|g| Box::new(Family::snapshot(g, seat))),
            variant: Box::new(rules.variant().clone()),
        })
    }

    fn prompt(&self, seat: Seat, lean: bool) -> Wire<tiles::Prompt, poly::Prompt> {
        // A player chooses between results: moves that leave the same
        // board up to its sides are offered once (the referee still takes
        // either).
        let mut legal = MoveList::new();
        if self.to_move() == Some(seat) {
            self.fill_distinct_moves(&mut legal);
        }
        let legal_moves = legal.to_vec();
        // A lean prompt skips building and encoding the view: the largest
        // part of a prompt, growing with the hand's history.
        let view = (!lean).then(|| {
            let mut snap = self.view(seat).snapshot();
            snap.legal_moves.clone_from(&legal_moves);
            Box::new(snap)
        });
        Wire::Tiles(tiles::Prompt { view, legal_moves })
    }

    fn public_events(moved: &Moved<Game>) -> Wire<tiles::Events, poly::Events> {
        Wire::Tiles(tiles::Events {
            events: moved.events.to_vec(),
            view: None,
            hand_end: moved.end.as_deref().and_then(|end| tiles_hand_end(end, None)),
        })
    }

    fn own_events(&self, moved: &Moved<Game>, viewer: Option<Seat>) -> Option<Wire<tiles::Events, poly::Events>> {
        let events = &moved.events;
        let new_hand = events.iter().any(|e| matches!(e, Event::HandStarted { .. }));
        let needs_view = match viewer {
            Some(seat) => {
                let view = self.view(seat);
                new_hand || events.iter().any(|e| matches!(e, Event::Drew { seat } if view.sees(*seat)))
            }
            None => new_hand,
        };
        (needs_view || moved.end.is_some()).then(|| {
            Wire::Tiles(tiles::Events {
                events: events.to_vec(),
                view: needs_view.then(|| Box::new(Family::snapshot(self, viewer))),
                hand_end: moved.end.as_deref().and_then(|end| tiles_hand_end(end, viewer)),
            })
        })
    }

    fn any_move(m: Move) -> AnyMove {
        AnyMove::Tiles(m)
    }

    fn own_move(m: AnyMove) -> Result<Move, String> {
        match m {
            AnyMove::Tiles(m) => Ok(m),
            m => Err(format!("{m} is a move of tiles with 3, 4 or 6 faces; this room plays dominoes")),
        }
    }

    fn rules_of(rules: &RoomRules) -> Option<&RulesOf<Game>> {
        if let RoomRules::Tiles(r) = rules { Some(r) } else { None }
    }

    fn table(m: Match<Game>) -> Table {
        Table::Tiles(m)
    }

    fn match_of(table: &Table) -> Option<&Match<Game>> {
        if let Table::Tiles(m) = table { Some(m) } else { None }
    }

    fn moved(m: Moved<Game>) -> TableEvents {
        TableEvents::Tiles(m)
    }

    fn moved_of(events: &TableEvents) -> Option<&Moved<Game>> {
        if let TableEvents::Tiles(m) = events { Some(m) } else { None }
    }
}

/// The end of a hand for `viewer`, from the hand's final position.
pub(crate) fn tiles_hand_end(end: &Game, viewer: Option<Seat>) -> Option<Box<tiles::HandEnd>> {
    let result = end.hand_results().last()?.clone();
    Some(Box::new(tiles::HandEnd { hand: result.hand, result, view: Box::new(end.revealed_snapshot(viewer)) }))
}
