//! Turning prompts into moves: one decider for both tile families, the
//! same for a seat found in the lobby and a tournament or ladder table.

use std::collections::HashMap;

use capicua_engine::Variant;
use capicua_protocol::{AnyMove, ClientMsg, Family, RoomId, ServerMsg};

use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;

use super::error::RemoteError;
use super::family::{Poly, TileFamily, Tiles};

/// A strategy of one family and what the bot knows of the rooms it plays
/// in: each room's rules (from `game-started` or `sync`) and the latest
/// view it was sent there (by `game-started`, `events`, a prompt or
/// `sync`), from which it rebuilds the position to hand the strategy.
pub(crate) struct FamilyDecider<F: TileFamily> {
    strategy: Box<F::Strategy>,
    /// Each room's rules (the full variant, so a custom variant plays as
    /// well as a preset).
    rules: HashMap<RoomId, F::Rules>,
    /// Rules known by variant name besides the presets: the custom variant
    /// this bot plays, for a prompt resent after a reconnect (which comes
    /// without its `game-started`).
    known: HashMap<String, F::Rules>,
    views: HashMap<RoomId, F::View>,
}

impl<F: TileFamily> FamilyDecider<F> {
    fn new(strategy: Box<F::Strategy>) -> FamilyDecider<F> {
        FamilyDecider { strategy, rules: HashMap::new(), known: HashMap::new(), views: HashMap::new() }
    }

    /// Takes note of a variant's rules for any room that plays it under its
    /// name; a variant that does not validate is not noted.
    fn know(&mut self, name: &str, variant: &F::Variant) {
        if let Some(rules) = F::rules(variant) {
            self.known.insert(name.to_string(), rules);
        }
    }

    /// Takes note of a room's rules; a variant that does not validate (a
    /// server newer than this bot) leaves the room to the presets and the
    /// first legal move.
    fn learn(&mut self, room: RoomId, variant: &F::Variant) {
        match F::rules(variant) {
            Some(rules) => {
                self.rules.insert(room, rules);
            }
            None => {
                self.rules.remove(&room);
            }
        }
    }

    /// Keeps the latest view of a room.
    fn see(&mut self, room: RoomId, view: F::View) {
        self.views.insert(room, view);
    }

    /// Keeps a frame's view of a room, if it carries one.
    fn see_some(&mut self, room: RoomId, view: Option<&F::View>) {
        if let Some(view) = view {
            self.see(room, view.clone());
        }
    }

    /// A match started in `room`: its rules and the first view.
    fn started(&mut self, room: RoomId, variant: &F::Variant, view: &F::View) {
        self.learn(room, variant);
        self.see(room, view.clone());
    }

    /// A room's state came whole (`sync`, after a reconnect): its rules, and
    /// the view of the match in play if there is one.
    fn synced(&mut self, room: RoomId, variant: &F::Variant, view: Option<&F::View>) {
        self.learn(room, variant);
        self.see_some(room, view);
    }

    fn forget(&mut self, room: RoomId) {
        self.rules.remove(&room);
        self.views.remove(&room);
    }

    /// The strategy's move for a prompt to `seat`, from the prompt's view or
    /// else the latest one kept. The first legal move when the bot has no
    /// view (lean prompts) or no rules (a prompt resent after a reconnect
    /// for a custom variant), when the view is not of `seat` to move, when
    /// the position cannot be rebuilt from it, or when the strategy's
    /// choice is not among the legal moves (told on stderr: the view and
    /// the prompt disagree). `None` for a prompt without legal moves, which
    /// a correct server never sends.
    pub(crate) fn decide(
        &mut self,
        room: RoomId,
        seat: u8,
        view: Option<F::View>,
        legal: &[F::Move],
    ) -> Option<F::Move> {
        let first = *legal.first()?;
        if let Some(view) = view {
            self.see(room, view);
        }
        let Some(view) = self.views.get(&room) else { return Some(first) };
        if F::viewer(view) != Some(seat) {
            return Some(first);
        }
        if !self.rules.contains_key(&room) {
            let name = F::variant_name(view);
            match self.known.get(name).cloned().or_else(|| F::preset(name)) {
                Some(rules) => self.rules.insert(room, rules),
                None => return Some(first),
            };
        }
        let rules = &self.rules[&room];
        let m = match F::choose(&mut *self.strategy, rules, view, seat) {
            Ok(Some(m)) => m,
            Ok(None) => return Some(first),
            Err(e) => {
                eprintln!("room {room}: cannot rebuild the position from the view ({e}); playing the first legal move");
                return Some(first);
            }
        };
        if legal.contains(&m) {
            return Some(m);
        }
        eprintln!(
            "room {room}: {} chose {m}, not one of the {} legal moves; playing {first}",
            F::strategy_name(&*self.strategy),
            legal.len()
        );
        Some(first)
    }
}

/// A bot's decider: a strategy for each tile family, and what it knows of
/// the rooms it plays in.
pub(crate) struct Decider {
    tiles: FamilyDecider<Tiles>,
    poly: FamilyDecider<Poly>,
}

impl Decider {
    pub(crate) fn new(tiles: Box<dyn Strategy>, poly: Box<dyn PolyStrategy>) -> Decider {
        Decider { tiles: FamilyDecider::new(tiles), poly: FamilyDecider::new(poly) }
    }

    /// Takes note of a custom variant's rules for any room that plays it
    /// under its name (the variant this bot plays).
    pub(crate) fn know(&mut self, variant: &Variant) {
        self.tiles.know(&variant.name, variant);
    }

    /// A match ended: its room's next match (if any) starts with its own
    /// `game-started`.
    pub(crate) fn forget(&mut self, room: RoomId) {
        self.tiles.forget(room);
        self.poly.forget(room);
    }

    /// Takes note of what a frame tells of a room's match (its rules, the
    /// latest view); `false` for a frame that tells none.
    pub(crate) fn note(&mut self, msg: &ServerMsg) -> bool {
        match msg {
            ServerMsg::GameStarted { room, game, .. } => match game {
                Family::Tiles(g) => self.tiles.started(*room, &g.variant, &g.view),
                Family::Poly(g) => self.poly.started(*room, &g.variant, &g.view),
            },
            ServerMsg::Events { room, happened, .. } => match happened {
                Family::Tiles(e) => self.tiles.see_some(*room, e.view.as_deref()),
                Family::Poly(e) => self.poly.see_some(*room, e.view.as_deref()),
            },
            ServerMsg::Sync { room, state, .. } => match state {
                Family::Tiles(s) => self.tiles.synced(*room, &s.variant, s.view.as_deref()),
                Family::Poly(s) => self.poly.synced(*room, &s.variant, s.view.as_deref()),
            },
            _ => return false,
        }
        true
    }

    /// The move answering a prompt; `None` for a frame that is no prompt,
    /// and an error for a prompt without legal moves (a server bug the bot
    /// cannot play around, so it stops instead of guessing a move).
    pub(crate) fn answer(&mut self, msg: &ServerMsg) -> Result<Option<ClientMsg>, RemoteError> {
        let ServerMsg::Prompt { room, prompt, seat, turn, .. } = msg else { return Ok(None) };
        let m: Option<AnyMove> = match turn {
            Family::Tiles(p) => {
                self.tiles.decide(*room, *seat, p.view.as_deref().cloned(), &p.legal_moves).map(AnyMove::from)
            }
            Family::Poly(p) => {
                self.poly.decide(*room, *seat, p.view.as_deref().cloned(), &p.legal_moves).map(AnyMove::from)
            }
        };
        let m = m.ok_or(RemoteError::NoLegalMoves { room: *room, prompt: *prompt })?;
        Ok(Some(ClientMsg::play(*room, *prompt, m)))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use capicua_engine::Move;
    use capicua_engine::poly::{PolyGame, PolyMove, PolyRules, PolyViewSnapshot};
    use capicua_protocol::{ServerFrame, poly, tiles};
    use capicua_strategy::poly::build_poly;
    use capicua_strategy::spec;

    use super::*;
    use crate::remote::rooms::tests::bots_room_info;

    #[test]
    fn a_custom_variant_is_played_by_the_strategy_once_its_rules_are_known() {
        use capicua_engine::{Game, Seating};
        let mut variant = capicua_engine::preset("block").unwrap();
        variant.name = "house-block".into();
        let rules = std::sync::Arc::new(variant.clone().validate().unwrap());
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
        // A position where the heaviest tile is not the first legal move.
        let mut game = Game::new(rules.clone(), Seating::new(2), 5).unwrap();
        let mut strategy = spec::build("bota-gorda", 1).unwrap();
        let (view, legal, heaviest) = loop {
            let seat = game.to_move().expect("such a position comes before the end");
            let legal: Vec<Move> = game.legal_moves().iter().copied().collect();
            let choice = strategy.choose(&capicua_strategy::TableSeat::new(&game, seat));
            if choice != legal[0] {
                break (game.view(seat).snapshot(), legal, choice);
            }
            game.play(*legal.last().unwrap()).unwrap();
        };
        let seat = view.seat.unwrap().0;
        // Unknown rules (no game-started, and no preset of that name): the
        // first legal move.
        assert_eq!(decider.tiles.decide(7, seat, Some(view.clone()), &legal), Some(legal[0]));
        decider.tiles.learn(7, &variant);
        assert_eq!(decider.tiles.decide(7, seat, Some(view.clone()), &legal), Some(heaviest));
        // A lean prompt (no view) is decided from the latest view kept.
        assert_eq!(decider.tiles.decide(7, seat, None, &legal), Some(heaviest));
        // The match ends: nothing of the room is kept. A lean prompt with no
        // view kept, and a view of unknown rules: the first legal move.
        decider.forget(7);
        assert_eq!(decider.tiles.decide(7, seat, None, &legal), Some(legal[0]));
        assert_eq!(decider.tiles.decide(7, seat, Some(view.clone()), &legal), Some(legal[0]));
        // A view of another seat than the prompt's: the first legal move.
        decider.tiles.learn(7, &variant);
        assert_eq!(decider.tiles.decide(7, seat + 1, Some(view.clone()), &legal), Some(legal[0]));
        // A game-started frame teaches the room's rules and view: a lean
        // prompt is then played by the strategy.
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
        let started = wire(ServerMsg::GameStarted {
            room: 7,
            seq: 1,
            seat: Some(seat),
            game: Family::Tiles(tiles::GameStarted {
                view: Box::new(view.clone()),
                variant: Box::new(variant.clone()),
            }),
        });
        assert!(decider.note(&started));
        let lean = wire(ServerMsg::Prompt {
            room: 7,
            prompt: 3,
            seat,
            deadline_ms: 1000,
            turn: Family::Tiles(tiles::Prompt { view: None, legal_moves: legal.clone() }),
        });
        assert_eq!(decider.answer(&lean).unwrap(), Some(ClientMsg::play(7, 3, heaviest)));
        // The custom variant this bot plays is known by name: a prompt
        // resent after a reconnect (without its game-started) is played.
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
        decider.know(&variant);
        assert_eq!(decider.tiles.decide(7, seat, Some(view), &legal), Some(heaviest));
    }

    /// A frame as the server sends it: serialized and read back, as a bot
    /// reads it off the wire.
    fn wire(msg: ServerMsg) -> ServerMsg {
        let text = serde_json::to_string(&ServerFrame { id: None, msg }).unwrap();
        serde_json::from_str::<ServerFrame>(&text).unwrap().msg
    }

    /// A triominoes position (3 seats) where the greedy choice is not the
    /// first legal move, and the game to make frames from.
    fn poly_position() -> (PolyGame, u8, Vec<PolyMove>, PolyMove) {
        let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
        let mut game = PolyGame::new(rules, 3, 21).unwrap();
        let mut greedy = build_poly("greedy", 1).unwrap();
        let mut moves = capicua_engine::poly::PolyMoveList::default();
        loop {
            let seat = game.to_move().expect("such a position comes before the end");
            game.legal_moves(&mut moves);
            let choice = greedy.choose(&game.view(seat));
            if moves.len() > 1 && choice != moves[0] {
                return (game.clone(), seat, moves.to_vec(), choice);
            }
            game.play(moves[moves.len() - 1]).unwrap();
        }
    }

    #[test]
    fn poly_prompts_are_answered_by_the_poly_strategy_from_the_view() {
        let (game, seat, legal, greedy) = poly_position();
        let variant = game.rules().variant().clone();
        let view = game.view(seat).snapshot();
        let prompt = |view: Option<PolyViewSnapshot>, legal: &[PolyMove]| {
            wire(ServerMsg::Prompt {
                room: 7,
                prompt: 3,
                seat,
                deadline_ms: 1000,
                turn: Family::Poly(poly::Prompt { view: view.map(Box::new), legal_moves: legal.to_vec() }),
            })
        };
        // The move of the `move` a prompt is answered with; `None` when the
        // prompt offers none (an error that stops the bot).
        let answer = |d: &mut Decider, msg: ServerMsg| match d.answer(&msg) {
            Ok(Some(ClientMsg::Move { room: 7, prompt: 3, r#move: AnyMove::Poly(m) })) => Some(m),
            Err(RemoteError::NoLegalMoves { room: 7, prompt: 3 }) => None,
            other => panic!("{other:?}"),
        };
        let decider = || Decider::new(spec::build("random", 1).unwrap(), build_poly("greedy", 1).unwrap());

        // A full prompt: the strategy chooses from its view.
        let mut d = decider();
        assert_eq!(answer(&mut d, prompt(Some(view.clone()), &legal)), Some(greedy));
        // A lean prompt after game-started (or events) with the view: the
        // latest view kept.
        let mut d = decider();
        let started = wire(ServerMsg::GameStarted {
            room: 7,
            seq: 1,
            seat: Some(seat),
            game: Family::Poly(poly::GameStarted { view: Box::new(view.clone()), variant: Box::new(variant.clone()) }),
        });
        assert!(d.note(&started));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        let mut d = decider();
        let events = wire(ServerMsg::Events {
            room: 7,
            seq: 4,
            happened: Family::Poly(poly::Events { events: vec![], view: Some(Box::new(view.clone())), hand_end: None }),
        });
        assert!(d.note(&events));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        // A custom variant's rules come from sync (a reconnect).
        let mut renamed = variant.clone();
        renamed.name = "house-triominoes".into();
        let mut house_view = view.clone();
        house_view.variant = renamed.name.clone();
        let mut d = decider();
        assert_eq!(answer(&mut d, prompt(Some(house_view.clone()), &legal)), Some(legal[0]), "unknown rules");
        let info = bots_room_info();
        let sync = wire(ServerMsg::Sync {
            room: 7,
            seq: 9,
            info,
            state: Family::Poly(poly::Sync { view: Some(Box::new(house_view.clone())), variant: Box::new(renamed) }),
        });
        assert!(d.note(&sync));
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(greedy));
        // The match ends: nothing of the room is kept.
        d.forget(7);
        assert_eq!(answer(&mut d, prompt(None, &legal)), Some(legal[0]));
        // A choice the prompt does not offer, a view of another seat, a
        // view no game shows, no view at all: the first legal move.
        let mut d = decider();
        let others: Vec<PolyMove> = legal.iter().copied().filter(|&m| m != greedy).collect();
        assert_eq!(answer(&mut d, prompt(Some(view.clone()), &others)), Some(others[0]));
        let mut theirs = view.clone();
        theirs.seat = Some((seat + 1) % 3);
        assert_eq!(answer(&mut decider(), prompt(Some(theirs), &legal)), Some(legal[0]));
        let mut garbled = view.clone();
        garbled.stock += 5;
        assert_eq!(answer(&mut decider(), prompt(Some(garbled), &legal)), Some(legal[0]));
        assert_eq!(answer(&mut decider(), prompt(None, &legal)), Some(legal[0]));
        assert_eq!(answer(&mut decider(), prompt(Some(view), &[])), None, "no legal moves: a server bug");
        // A frame of no match is no news, and no prompt.
        let accepted = wire(ServerMsg::Accepted { room: 7, prompt: 3 });
        assert!(!decider().note(&accepted));
        assert!(decider().answer(&accepted).unwrap().is_none());
    }

    /// A prompt without legal moves is a server bug: the bot stops with an
    /// error naming the prompt, and does not retry into the same prompt.
    #[test]
    fn a_prompt_without_legal_moves_is_a_clear_permanent_error() {
        let mut decider = Decider::new(spec::build("bota-gorda", 1).unwrap(), build_poly("greedy", 1).unwrap());
        let view = capicua_engine::Game::new(
            std::sync::Arc::new(capicua_engine::preset("block").unwrap().validate().unwrap()),
            capicua_engine::Seating::new(2),
            5,
        )
        .unwrap()
        .view(capicua_engine::Seat(0))
        .snapshot();
        assert_eq!(decider.tiles.decide(7, 0, Some(view.clone()), &[]), None);
        assert_eq!(decider.tiles.decide(7, 0, None, &[]), None);
        let prompt = ServerMsg::Prompt {
            room: 7,
            prompt: 3,
            seat: 0,
            deadline_ms: 1000,
            turn: Family::Tiles(tiles::Prompt { view: Some(Box::new(view)), legal_moves: vec![] }),
        };
        assert!(matches!(decider.answer(&prompt), Err(RemoteError::NoLegalMoves { room: 7, prompt: 3 })));
        let e = RemoteError::NoLegalMoves { room: 7, prompt: 3 };
        assert_eq!(e.to_string(), "the server prompted a move in room 7 (prompt 3) with no legal moves");
        assert!(!e.is_transient());
    }
}
