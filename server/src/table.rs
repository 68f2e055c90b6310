//! The match a room plays, of either family: two-faced dominoes
//! ([`Game`]) or tiles with 3, 4 or 6 faces ([`PolyGame`]). The room core
//! decides the same way for both (seats, clocks, timeouts, storing); what
//! differs (the engine, the messages, what each receiver may see) is here,
//! beside the room and the hosted bots, which both read it.

use std::fmt;
use std::sync::Arc;

use capicua_engine::poly::{PolyEvent, PolyEvents, PolyGame, PolyMove, PolyMoveList, PolyRules, PolyVariant};
use capicua_engine::{Event, Game, Move, Rules, Seat, Seating, Variant};
use capicua_protocol::{HandEndView, PolyHandEnd, PolyHandResult, PromptId, RoomId, ServerMsg};

use crate::db::{HandResults, Play};

/// The rules a room plays, checked.
#[derive(Clone, Debug)]
pub(crate) enum RoomRules {
    /// Dominoes: the rules and the seating (teams).
    Tiles {
        /// The rules.
        rules: Arc<Rules>,
        /// Seats and teams, checked by the engine.
        seating: Seating,
    },
    /// Tiles with 3, 4 or 6 faces: every seat plays for itself.
    Poly {
        /// The rules.
        rules: Arc<PolyRules>,
        /// The seats.
        seats: u8,
    },
}

impl RoomRules {
    /// Seats at the table.
    pub(crate) fn seats(&self) -> u8 {
        match self {
            RoomRules::Tiles { seating, .. } => seating.seats,
            RoomRules::Poly { seats, .. } => *seats,
        }
    }

    /// The variant's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            RoomRules::Tiles { rules, .. } => &rules.variant().name,
            RoomRules::Poly { rules, .. } => &rules.variant().name,
        }
    }

    /// Whether the room plays tiles with 3, 4 or 6 faces.
    pub(crate) fn is_poly(&self) -> bool {
        matches!(self, RoomRules::Poly { .. })
    }

    /// Deals a match from `seed`.
    pub(crate) fn deal(&self, seed: u64) -> Result<Table, String> {
        match self {
            // The table keeps each hand's final position: the engine deals
            // the next hand in the move that ends one, and the players are
            // shown how it ended.
            RoomRules::Tiles { rules, seating } => {
                let mut game = Game::new(rules.clone(), seating.clone(), seed).map_err(|e| e.to_string())?;
                game.keep_hand_ends(true);
                Ok(Table::Tiles(game))
            }
            RoomRules::Poly { rules, seats } => {
                let mut game = PolyGame::new(rules.clone(), *seats, seed).map_err(|e| e.to_string())?;
                game.keep_hand_ends(true);
                Ok(Table::Poly { game, log: Vec::new(), hands: Vec::new() })
            }
        }
    }

    /// The full rules, for `sync`: (two-faced, poly), one of them set.
    pub(crate) fn sync_variants(&self) -> (Option<Box<Variant>>, Option<Box<PolyVariant>>) {
        match self {
            RoomRules::Tiles { rules, .. } => (Some(Box::new(rules.variant().clone())), None),
            RoomRules::Poly { rules, .. } => (None, Some(Box::new(rules.variant().clone()))),
        }
    }
}

/// A move of either family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyMove {
    /// A two-faced move (`move`).
    Tiles(Move),
    /// A poly move (`poly-move`).
    Poly(PolyMove),
}

impl fmt::Display for AnyMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyMove::Tiles(m) => m.fmt(f),
            AnyMove::Poly(m) => m.fmt(f),
        }
    }
}

/// The events of one move, and the final position of the hand it ended.
pub(crate) enum TableEvents {
    /// Two-faced events: public as they are.
    Tiles(Vec<Event>, Option<Box<Game>>),
    /// Poly events: a `drew` names its tile, to be told to the drawer only.
    Poly(PolyEvents, Option<Box<PolyGame>>),
}

/// A match in play.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per room, in place for the whole match")]
pub(crate) enum Table {
    /// Dominoes (the game keeps its own log).
    Tiles(Game),
    /// Tiles with 3, 4 or 6 faces, with the moves played (the stored log).
    Poly {
        /// The game.
        game: PolyGame,
        /// The moves played, in order.
        log: Vec<PolyMove>,
        /// The `hand-ended` events so far (the game keeps only the totals).
        hands: Vec<PolyEvent>,
    },
}

impl Table {
    /// The seat to move, `None` once the match is over.
    pub(crate) fn to_move(&self) -> Option<Seat> {
        match self {
            Table::Tiles(g) => g.to_move(),
            Table::Poly { game, .. } => game.to_move().map(Seat),
        }
    }

    /// Moves played so far.
    pub(crate) fn plies(&self) -> usize {
        match self {
            Table::Tiles(g) => g.log().len(),
            Table::Poly { log, .. } => log.len(),
        }
    }

    /// The match's seed.
    pub(crate) fn seed(&self) -> u64 {
        match self {
            Table::Tiles(g) => g.seed(),
            Table::Poly { game, .. } => game.seed(),
        }
    }

    /// Plays a move: the engine referees it (a two-faced variant's lenient
    /// referee may let an illegal play stand, seeded). A refused move, or a
    /// move of the other family, changes nothing.
    pub(crate) fn play(&mut self, m: AnyMove) -> Result<TableEvents, String> {
        match (self, m) {
            (Table::Tiles(g), AnyMove::Tiles(m)) => {
                let events = g.referee_play(m).map(|r| r.events().to_vec()).map_err(|e| e.to_string())?;
                Ok(TableEvents::Tiles(events, g.take_hand_end()))
            }
            (Table::Poly { game, log, hands }, AnyMove::Poly(m)) => {
                let events = game.play(m).map_err(|e| e.to_string())?;
                log.push(m);
                hands.extend(events.iter().filter(|e| matches!(e, PolyEvent::HandEnded { .. })));
                Ok(TableEvents::Poly(events, game.take_hand_end()))
            }
            (Table::Tiles(_), m) => {
                Err(format!("{m} is a move of tiles with 3, 4 or 6 faces; this room plays dominoes"))
            }
            (Table::Poly { .. }, m) => {
                Err(format!("{m} is a dominoes move; this room plays tiles with 3, 4 or 6 faces (send poly-move)"))
            }
        }
    }

    /// A pass, when it is a legal move for the seat to move.
    pub(crate) fn legal_pass(&self) -> Option<AnyMove> {
        match self {
            Table::Tiles(g) => {
                let seat = g.to_move()?;
                g.view(seat).legal_moves().contains(&Move::Pass).then_some(AnyMove::Tiles(Move::Pass))
            }
            Table::Poly { game, .. } => {
                let mut moves = PolyMoveList::default();
                game.legal_moves(&mut moves);
                moves.contains(&PolyMove::Pass).then_some(AnyMove::Poly(PolyMove::Pass))
            }
        }
    }

    /// `game-started` for a seat (its view) or a spectator (`None`).
    pub(crate) fn started(&self, rules: &RoomRules, room: RoomId, seq: u64, seat: Option<Seat>) -> ServerMsg {
        match (self, rules) {
            (Table::Poly { game, .. }, RoomRules::Poly { rules, .. }) => ServerMsg::PolyGameStarted {
                room,
                seq,
                seat: seat.map(|s| s.0),
                view: Box::new(poly_snapshot(game, seat)),
                variant: Box::new(rules.variant().clone()),
            },
            (Table::Tiles(g), RoomRules::Tiles { rules, .. }) => ServerMsg::GameStarted {
                room,
                seq,
                seat: seat.map(|s| s.0),
                view: Box::new(tiles_snapshot(g, seat)),
                variant: Box::new(rules.variant().clone()),
            },
            _ => unreachable!("a room deals its own family"),
        }
    }

    /// The prompt for `seat`, to move; `lean` leaves the view out.
    pub(crate) fn prompt(&self, room: RoomId, prompt: PromptId, seat: Seat, lean: bool, deadline_ms: u64) -> ServerMsg {
        match self {
            Table::Tiles(g) => {
                let view = g.view(seat);
                // A lean prompt skips building and encoding the view: the
                // largest part of a prompt, growing with the hand's history.
                let (legal_moves, view) = if lean {
                    (view.legal_moves().to_vec(), None)
                } else {
                    let snap = view.snapshot();
                    (snap.legal_moves.clone(), Some(Box::new(snap)))
                };
                ServerMsg::Prompt { room, prompt, seat: seat.0, legal_moves, view, deadline_ms }
            }
            Table::Poly { game, .. } => {
                let mut moves = PolyMoveList::default();
                game.view(seat.0).legal_moves(&mut moves);
                let view = (!lean).then(|| Box::new(game.view(seat.0).snapshot()));
                ServerMsg::PolyPrompt { room, prompt, seat: seat.0, view, legal_moves: moves.to_vec(), deadline_ms }
            }
        }
    }

    /// What every receiver that sees nothing more than the public events is
    /// told of a move (a spectator, and every seat the move tells nothing
    /// of its own).
    pub(crate) fn public_events(&self, room: RoomId, seq: u64, events: &TableEvents) -> ServerMsg {
        match events {
            TableEvents::Tiles(events, end) => ServerMsg::Events {
                room,
                seq,
                events: events.clone(),
                view: None,
                hand_end: end.as_deref().and_then(|end| tiles_hand_end(end, None)),
            },
            TableEvents::Poly(events, end) => ServerMsg::PolyEvents {
                room,
                seq,
                events: events.iter().map(|e| e.seen_by(None)).collect(),
                view: None,
                hand_end: end.as_deref().and_then(|end| poly_hand_end(end, events, None)),
            },
        }
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
        match (self, events) {
            (Table::Tiles(g), TableEvents::Tiles(events, end)) => {
                let new_hand = events.iter().any(|e| matches!(e, Event::HandStarted { .. }));
                let needs_view = match viewer {
                    Some(seat) => {
                        let view = g.view(seat);
                        new_hand || events.iter().any(|e| matches!(e, Event::Drew { seat } if view.sees(*seat)))
                    }
                    None => new_hand,
                };
                (needs_view || end.is_some()).then(|| ServerMsg::Events {
                    room,
                    seq,
                    events: events.clone(),
                    view: needs_view.then(|| Box::new(tiles_snapshot(g, viewer))),
                    hand_end: end.as_deref().and_then(|end| tiles_hand_end(end, viewer)),
                })
            }
            (Table::Poly { game, .. }, TableEvents::Poly(events, end)) => {
                // A hand that ended without ending the match dealt a new one.
                let new_hand =
                    game.to_move().is_some() && events.iter().any(|e| matches!(e, PolyEvent::HandEnded { .. }));
                let drew = events
                    .iter()
                    .any(|e| matches!(e, PolyEvent::Drew { seat, .. } if Some(*seat) == viewer.map(|s| s.0)));
                (new_hand || drew || end.is_some()).then(|| ServerMsg::PolyEvents {
                    room,
                    seq,
                    events: events.iter().map(|e| e.seen_by(viewer.map(|s| s.0))).collect(),
                    view: (new_hand || drew).then(|| Box::new(poly_snapshot(game, viewer))),
                    hand_end: end.as_deref().and_then(|end| poly_hand_end(end, events, viewer)),
                })
            }
            _ => unreachable!("events come from this table"),
        }
    }

    /// The receiver's view for `sync`: (two-faced, poly), one of them set.
    pub(crate) fn sync_views(
        &self,
        seat: Option<Seat>,
    ) -> (Option<Box<capicua_engine::ViewSnapshot>>, Option<Box<capicua_engine::poly::PolyViewSnapshot>>) {
        match self {
            Table::Tiles(g) => (Some(Box::new(tiles_snapshot(g, seat))), None),
            Table::Poly { game, .. } => (None, Some(Box::new(poly_snapshot(game, seat)))),
        }
    }

    /// Match scores by side (in a poly game every seat is its own side).
    pub(crate) fn scores(&self) -> Vec<i32> {
        match self {
            Table::Tiles(g) => g.scores().to_vec(),
            Table::Poly { game, .. } => game.scores().to_vec(),
        }
    }

    /// The winning side of a finished match, `None` for a draw.
    pub(crate) fn winner(&self) -> Option<u8> {
        match self {
            Table::Tiles(g) => g.outcome().and_then(|o| o.winner).map(|s| s.0),
            Table::Poly { game, .. } => game.outcome().and_then(|o| o.winner),
        }
    }

    /// Each seat's share of its side's score.
    pub(crate) fn seat_scores(&self) -> Vec<i32> {
        match self {
            Table::Tiles(g) => g.seat_scores().to_vec(),
            Table::Poly { game, .. } => game.scores().to_vec(),
        }
    }

    /// What replays the match (with its seed), and its hands' results.
    pub(crate) fn record(&self, rules: &RoomRules) -> (Play, HandResults) {
        match (self, rules) {
            (Table::Tiles(g), RoomRules::Tiles { rules, seating }) => (
                Play::Tiles { variant: rules.variant().clone(), seating: seating.clone(), moves: g.log().to_vec() },
                HandResults::Tiles(g.hand_results().to_vec()),
            ),
            (Table::Poly { log, hands, .. }, RoomRules::Poly { rules, seats }) => (
                Play::Poly { variant: rules.variant().clone(), seats: *seats, moves: log.clone() },
                HandResults::Poly(hands.clone()),
            ),
            _ => unreachable!("a room deals its own family"),
        }
    }

    /// The two-faced game, for what only two-faced games offer (hints).
    pub(crate) fn tiles(&self) -> Option<&Game> {
        match self {
            Table::Tiles(g) => Some(g),
            Table::Poly { .. } => None,
        }
    }
}

fn tiles_snapshot(g: &Game, seat: Option<Seat>) -> capicua_engine::ViewSnapshot {
    match seat {
        Some(s) => g.view(s).snapshot(),
        None => g.spectator_view().snapshot(),
    }
}

fn poly_snapshot(g: &PolyGame, seat: Option<Seat>) -> capicua_engine::poly::PolyViewSnapshot {
    match seat {
        Some(s) => g.view(s.0).snapshot(),
        None => g.spectator_snapshot(),
    }
}

/// The end of a hand for `viewer`, from the hand's final position.
pub(crate) fn tiles_hand_end(end: &Game, viewer: Option<Seat>) -> Option<Box<HandEndView>> {
    let result = end.hand_results().last()?.clone();
    Some(Box::new(HandEndView { hand: result.hand, result, view: Box::new(end.revealed_snapshot(viewer)) }))
}

/// The end of a poly hand for `viewer`, from the hand's final position and
/// the move's `hand-ended` event.
pub(crate) fn poly_hand_end(end: &PolyGame, events: &[PolyEvent], viewer: Option<Seat>) -> Option<Box<PolyHandEnd>> {
    let result = poly_hand_result(end, events)?;
    Some(Box::new(PolyHandEnd {
        hand: result.hand,
        result,
        view: Box::new(end.revealed_snapshot(viewer.map(|s| s.0))),
    }))
}

/// A poly hand's result: its `hand-ended` event and the pips left in each
/// hand of its final position.
pub(crate) fn poly_hand_result(end: &PolyGame, events: &[PolyEvent]) -> Option<PolyHandResult> {
    events.iter().find_map(|e| match *e {
        PolyEvent::HandEnded { hand, winner, blocked, points } => Some(PolyHandResult {
            hand,
            winner,
            blocked,
            points: points[..end.seats() as usize].to_vec(),
            pips: (0..end.seats()).map(|s| end.pips_in_hand(s)).collect(),
        }),
        _ => None,
    })
}
