//! The match a room plays, of either family: two-faced dominoes
//! ([`Game`]) or tiles with 3, 4 or 6 faces ([`PolyGame`]). The room core
//! decides the same way for both (seats, clocks, timeouts, storing); what
//! differs (the engine, the messages, what each receiver may see) is here,
//! beside the room and the hosted bots, which both read it.

use std::sync::Arc;

use capicua_engine::poly::{PolyEvent, PolyEvents, PolyGame, PolyMove, PolyMoveList, PolyRules};
use capicua_engine::{Event, Game, Move, Rules, Seat, Seating};
pub(crate) use capicua_protocol::AnyMove;
use capicua_protocol::{Family, PromptId, RoomId, ServerMsg, poly, tiles};

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

    /// The state `sync` tells: the full rules and the receiver's view of
    /// the match in play, if any.
    pub(crate) fn sync_state(&self, table: Option<&Table>, seat: Option<Seat>) -> Family<tiles::Sync, poly::Sync> {
        match self {
            RoomRules::Tiles { rules, .. } => Family::Tiles(tiles::Sync {
                view: table.and_then(Table::tiles).map(|g| Box::new(tiles_snapshot(g, seat))),
                variant: Box::new(rules.variant().clone()),
            }),
            RoomRules::Poly { rules, .. } => Family::Poly(poly::Sync {
                view: table.and_then(Table::poly).map(|g| Box::new(poly_snapshot(g, seat))),
                variant: Box::new(rules.variant().clone()),
            }),
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
            (Table::Poly { .. }, m) => Err(format!(
                "{m} is a dominoes move; this room plays tiles with 3, 4 or 6 faces (send a move of family poly)"
            )),
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
        let game = match (self, rules) {
            (Table::Poly { game, .. }, RoomRules::Poly { rules, .. }) => Family::Poly(poly::GameStarted {
                view: Box::new(poly_snapshot(game, seat)),
                variant: Box::new(rules.variant().clone()),
            }),
            (Table::Tiles(g), RoomRules::Tiles { rules, .. }) => Family::Tiles(tiles::GameStarted {
                view: Box::new(tiles_snapshot(g, seat)),
                variant: Box::new(rules.variant().clone()),
            }),
            _ => unreachable!("a room deals its own family"),
        };
        ServerMsg::GameStarted { room, seq, seat: seat.map(|s| s.0), game }
    }

    /// The prompt for `seat`, to move; `lean` leaves the view out.
    pub(crate) fn prompt(&self, room: RoomId, prompt: PromptId, seat: Seat, lean: bool, deadline_ms: u64) -> ServerMsg {
        let turn = match self {
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
                Family::Tiles(tiles::Prompt { view, legal_moves })
            }
            Table::Poly { game, .. } => {
                let mut moves = PolyMoveList::default();
                game.view(seat.0).legal_moves(&mut moves);
                let view = (!lean).then(|| Box::new(game.view(seat.0).snapshot()));
                Family::Poly(poly::Prompt { view, legal_moves: moves.to_vec() })
            }
        };
        ServerMsg::Prompt { room, prompt, seat: seat.0, deadline_ms, turn }
    }

    /// What every receiver that sees nothing more than the public events is
    /// told of a move (a spectator, and every seat the move tells nothing
    /// of its own).
    pub(crate) fn public_events(&self, room: RoomId, seq: u64, events: &TableEvents) -> ServerMsg {
        let happened = match events {
            TableEvents::Tiles(events, end) => Family::Tiles(tiles::Events {
                events: events.clone(),
                view: None,
                hand_end: end.as_deref().and_then(|end| tiles_hand_end(end, None)),
            }),
            TableEvents::Poly(events, end) => Family::Poly(poly::Events {
                events: events.iter().map(|e| e.seen_by(None)).collect(),
                view: None,
                hand_end: end.as_deref().and_then(|end| poly_hand_end(end, events, None)),
            }),
        };
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
                    happened: Family::Tiles(tiles::Events {
                        events: events.clone(),
                        view: needs_view.then(|| Box::new(tiles_snapshot(g, viewer))),
                        hand_end: end.as_deref().and_then(|end| tiles_hand_end(end, viewer)),
                    }),
                })
            }
            (Table::Poly { game, .. }, TableEvents::Poly(events, end)) => {
                // A hand that ended without ending the match dealt a new one.
                let new_hand =
                    game.to_move().is_some() && events.iter().any(|e| matches!(e, PolyEvent::HandEnded { .. }));
                let drew = events
                    .iter()
                    .any(|e| matches!(e, PolyEvent::Drew { seat, .. } if Some(*seat) == viewer.map(|s| s.0)));
                (new_hand || drew || end.is_some()).then(|| ServerMsg::Events {
                    room,
                    seq,
                    happened: Family::Poly(poly::Events {
                        events: events.iter().map(|e| e.seen_by(viewer.map(|s| s.0))).collect(),
                        view: (new_hand || drew).then(|| Box::new(poly_snapshot(game, viewer))),
                        hand_end: end.as_deref().and_then(|end| poly_hand_end(end, events, viewer)),
                    }),
                })
            }
            _ => unreachable!("events come from this table"),
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

    /// The poly game, if the table plays tiles with 3, 4 or 6 faces.
    pub(crate) fn poly(&self) -> Option<&PolyGame> {
        match self {
            Table::Tiles(_) => None,
            Table::Poly { game, .. } => Some(game),
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
pub(crate) fn tiles_hand_end(end: &Game, viewer: Option<Seat>) -> Option<Box<tiles::HandEnd>> {
    let result = end.hand_results().last()?.clone();
    Some(Box::new(tiles::HandEnd { hand: result.hand, result, view: Box::new(end.revealed_snapshot(viewer)) }))
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
