//! Tiles with 3, 4 or 6 faces at a room's table: a `drew` names its tile
//! to the drawer only, and the table keeps the moves and the `hand-ended`
//! events for the stored record (the game keeps only the totals).

use capicua_engine::poly::{PolyEvent, PolyEvents, PolyGame, PolyMove, PolyMoveList, PolyRules};
use capicua_engine::{Family, Seat};
use capicua_protocol::{AnyMove, Family as Wire, poly, tiles};

use super::{Match, Moved, RoomRules, RulesOf, Table, TableEvents, TableFamily};
use crate::record::{HandResults, Play};

/// The moves played, in order, and the `hand-ended` events so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct PolyLog {
    moves: Vec<PolyMove>,
    hands: Vec<PolyEvent>,
}

impl TableFamily for PolyGame {
    type Log = PolyLog;

    fn note(log: &mut PolyLog, m: PolyMove, events: &PolyEvents) {
        log.moves.push(m);
        log.hands.extend(events.iter().filter(|e| matches!(e, PolyEvent::HandEnded { .. })));
    }

    fn record(&self, rules: &RulesOf<PolyGame>, log: &PolyLog) -> (Play, HandResults) {
        let play =
            Play::Poly { variant: rules.rules.variant().clone(), seats: rules.seating, moves: log.moves.clone() };
        (play, HandResults::Poly(log.hands.clone()))
    }

    fn seats_of(seats: &u8) -> u8 {
        *seats
    }

    fn variant_name(rules: &PolyRules) -> &str {
        &rules.variant().name
    }

    fn started(&self, rules: &PolyRules, seat: Option<Seat>) -> Wire<tiles::GameStarted, poly::GameStarted> {
        Wire::Poly(poly::GameStarted {
            view: Box::new(Family::snapshot(self, seat)),
            variant: Box::new(rules.variant().clone()),
        })
    }

    fn sync(rules: &PolyRules, game: Option<&PolyGame>, seat: Option<Seat>) -> Wire<tiles::Sync, poly::Sync> {
        Wire::Poly(poly::Sync {
            view: game.map(|g| Box::new(Family::snapshot(g, seat))),
            variant: Box::new(rules.variant().clone()),
        })
    }

    fn prompt(&self, seat: Seat, lean: bool) -> Wire<tiles::Prompt, poly::Prompt> {
        let mut moves = PolyMoveList::default();
        self.view(seat.0).legal_moves(&mut moves);
        let view = (!lean).then(|| Box::new(self.view(seat.0).snapshot()));
        Wire::Poly(poly::Prompt { view, legal_moves: moves.to_vec() })
    }

    fn public_events(moved: &Moved<PolyGame>) -> Wire<tiles::Events, poly::Events> {
        Wire::Poly(poly::Events {
            events: moved.events.iter().map(|e| e.seen_by(None)).collect(),
            view: None,
            hand_end: moved.end.as_deref().and_then(|end| poly_hand_end(end, &moved.events, None)),
        })
    }

    fn own_events(&self, moved: &Moved<PolyGame>, viewer: Option<Seat>) -> Option<Wire<tiles::Events, poly::Events>> {
        let events = &moved.events;
        // A hand that ended without ending the match dealt a new one.
        let new_hand = !Family::is_over(self) && events.iter().any(|e| matches!(e, PolyEvent::HandEnded { .. }));
        let drew =
            events.iter().any(|e| matches!(e, PolyEvent::Drew { seat, .. } if Some(*seat) == viewer.map(|s| s.0)));
        (new_hand || drew || moved.end.is_some()).then(|| {
            Wire::Poly(poly::Events {
                events: events.iter().map(|e| e.seen_by(viewer.map(|s| s.0))).collect(),
                view: (new_hand || drew).then(|| Box::new(Family::snapshot(self, viewer))),
                hand_end: moved.end.as_deref().and_then(|end| poly_hand_end(end, events, viewer)),
            })
        })
    }

    fn any_move(m: PolyMove) -> AnyMove {
        AnyMove::Poly(m)
    }

    fn own_move(m: AnyMove) -> Result<PolyMove, String> {
        match m {
            AnyMove::Poly(m) => Ok(m),
            m => Err(format!(
                "{m} is a dominoes move; this room plays tiles with 3, 4 or 6 faces (send a move of family poly)"
            )),
        }
    }

    fn rules_of(rules: &RoomRules) -> Option<&RulesOf<PolyGame>> {
        if let RoomRules::Poly(r) = rules { Some(r) } else { None }
    }

    fn table(m: Match<PolyGame>) -> Table {
        Table::Poly(m)
    }

    fn match_of(table: &Table) -> Option<&Match<PolyGame>> {
        if let Table::Poly(m) = table { Some(m) } else { None }
    }

    fn moved(m: Moved<PolyGame>) -> TableEvents {
        TableEvents::Poly(m)
    }

    fn moved_of(events: &TableEvents) -> Option<&Moved<PolyGame>> {
        if let TableEvents::Poly(m) = events { Some(m) } else { None }
    }
}

/// The end of a poly hand for `viewer`, from the hand's final position and
/// the move's `hand-ended` event.
pub(crate) fn poly_hand_end(end: &PolyGame, events: &[PolyEvent], viewer: Option<Seat>) -> Option<Box<poly::HandEnd>> {
    let result = poly_hand_result(end, events)?;
    Some(Box::new(poly::HandEnd {
        hand: result.hand,
        result,
        view: Box::new(end.revealed_snapshot(viewer.map(|s| s.0))),
    }))
}

/// A poly hand's result: its `hand-ended` event and the pips left in each
/// hand of its final position.
pub(crate) fn poly_hand_result(end: &PolyGame, events: &[PolyEvent]) -> Option<poly::HandResult> {
    events.iter().find_map(|e| match *e {
        PolyEvent::HandEnded { hand, winner, blocked, points } => Some(poly::HandResult {
            hand,
            winner,
            blocked,
            points: points[..end.seats() as usize].to_vec(),
            pips: (0..end.seats()).map(|s| end.pips_in_hand(s)).collect(),
        }),
        _ => None,
    })
}
