//! The bots under the newer rule options: per-deal tile values, shown
//! tiles, a lenient referee, conditional rules and explicit teams. Each
//! test checks what the sampler or a strategy gets from the view against
//! the real game.

mod common;

use std::sync::Arc;

use capicua_engine::{
    ArmAccess, ArmDoubles, BoardLayout, Condition, EndId, Fraction, Game, HandVisibility, LenientSpec, LonganaSpec,
    MatchRule, MatchTarget, Move, Referee, RuleOverride, Rules, Seat, Seating, Setup, Tile, TileSet, TileValue,
    Variant, ViewSnapshot, WhenRule, preset,
};
use capicua_strategy::determinize::sample;
use capicua_strategy::facts::PublicFacts;
use capicua_strategy::rng::BotRng;
use capicua_strategy::seat_view::{SeatView, SnapshotSeat, TableSeat};
use capicua_strategy::spec::build;

/// Single-hand rules from a preset, changed by `edit`.
fn rules(base: &str, edit: impl FnOnce(&mut Variant)) -> Arc<Rules> {
    let mut v = preset(base).unwrap();
    v.target = MatchTarget::Hands(1);
    edit(&mut v);
    Arc::new(v.validate().unwrap())
}

/// Plays `plies` moves chosen by `rng` among the legal ones.
fn advance(game: &mut Game, plies: usize, rng: &mut BotRng) {
    for _ in 0..plies {
        if game.to_move().is_none() {
            break;
        }
        let moves = game.legal_moves();
        game.play(moves[rng.below(moves.len())]).unwrap();
    }
}

#[test]
fn sampled_deals_and_strategies_use_the_deals_tile_values() {
    let rules = rules("draw", |v| v.tiles.value = TileValue::RandomFaces { lo: -3, hi: 6 });
    let mut checked = 0;
    for seed in 0..12u64 {
        let mut game = Game::new(rules.clone(), Seating::new(3), seed).unwrap();
        let mut rng = BotRng::new(seed);
        advance(&mut game, 4 + seed as usize % 5, &mut rng);
        let Some(me) = game.to_move() else { continue };
        let view = TableSeat::new(&game, me);
        let snap = game.view(me).snapshot();
        let remote = SnapshotSeat::new(&rules, &snap).unwrap();
        for t in rules.catalog().all().iter() {
            assert_eq!(view.tile_value(t), game.tile_value(t));
            assert_eq!(remote.tile_value(t), game.tile_value(t));
        }
        let facts = PublicFacts::of(&view);
        let deal = sample(&view, &rules, &facts, &mut rng).expect("a deal");
        for t in rules.catalog().all().iter() {
            assert_eq!(deal.game.tile_value(t), game.tile_value(t), "the sampled game values {t} as the real one");
        }
        // bota-gorda sheds the tile heaviest in this deal.
        let legal = game.legal_moves();
        let plays: Vec<_> = legal
            .iter()
            .filter_map(|m| match *m {
                Move::Play { tile, .. } => Some(tile),
                _ => None,
            })
            .collect();
        if plays.len() < 2 {
            continue;
        }
        let heaviest = plays.iter().map(|&t| game.tile_value(t)).max().unwrap();
        let mut bot = build("bota-gorda", seed).unwrap();
        let Move::Play { tile, .. } = bot.choose(&view) else { panic!("bota-gorda plays when it can") };
        assert_eq!(game.tile_value(tile), heaviest, "seed {seed}: bota-gorda chose {tile}");
        checked += 1;
    }
    assert!(checked >= 4, "too few positions with a choice: {checked}");
}

#[test]
fn shown_tiles_stay_in_their_holders_hand() {
    let rules = rules("draw", |v| v.visibility.hands = HandVisibility::Shown { tiles: 3 });
    let mut checked = 0;
    for seed in 0..10u64 {
        let mut game = Game::new(rules.clone(), Seating::new(3), seed).unwrap();
        let mut rng = BotRng::new(seed);
        advance(&mut game, 2 + seed as usize % 4, &mut rng);
        let Some(me) = game.to_move() else { continue };
        let view = TableSeat::new(&game, me);
        let facts = PublicFacts::of(&view);
        for s in (0..3).map(Seat).filter(|&s| s != me) {
            assert_eq!(view.known_of(s), game.shown(s));
            assert!(!view.unseen().intersects(&game.shown(s)), "a shown tile is not unseen");
        }
        for _ in 0..20 {
            let deal = sample(&view, &rules, &facts, &mut rng).expect("a deal");
            for s in (0..3).map(Seat) {
                let shown = game.shown(s);
                assert_eq!(deal.hands[s.index()].and(shown), shown, "seed {seed}: seat {} keeps its shown tiles", s.0);
                assert_eq!(deal.game.hand(s).len(), game.hand_len(s));
            }
            checked += 1;
        }
    }
    assert!(checked > 100);
}

#[test]
fn a_history_with_overruled_plays_is_replayed() {
    // The referee lets every well-formed illegal play stand.
    let rules = rules("block", |v| {
        v.referee = Referee::Lenient(LenientSpec { accept: Fraction(1.0), penalty: Fraction(0.0), points: 1 })
    });
    let mut found = 0;
    for seed in 0..20u64 {
        let mut game = Game::new(rules.clone(), Seating::new(2), seed).unwrap();
        let lead = game.legal_moves()[0];
        game.play(lead).unwrap();
        let seat = game.to_move().unwrap();
        let end = game.board().ends()[0];
        let Some(tile) = game.hand(seat).iter().find(|&t| !rules.playable_on(end.pip).contains(t)) else { continue };
        game.referee_play(Move::Play { tile, end: EndId(0), face: 0 }).unwrap();
        assert_eq!(game.overruled_plays().len(), 1);
        let Some(me) = game.to_move() else { continue };
        let view = TableSeat::new(&game, me);
        let facts = PublicFacts::of(&view);
        let mut rng = BotRng::new(seed);
        for _ in 0..10 {
            let deal = sample(&view, &rules, &facts, &mut rng).expect("the overruled play is replayed");
            assert_eq!(deal.game.history(), game.history());
            assert_eq!(deal.game.board().ends(), game.board().ends());
            assert_eq!(deal.game.overruled_plays(), game.overruled_plays());
            assert_eq!(deal.game.scores(), game.scores(), "the penalty is not paid twice");
        }
        // pimc plays from such a position by sampling, not by its fallback.
        let mut pimc = build("pimc:samples=8", seed).unwrap();
        let m = pimc.choose(&view);
        assert!(game.is_legal(m));
        found += 1;
    }
    assert!(found >= 10, "too few overruled positions: {found}");
}

/// Every seat's real hand avoids every tile the facts exclude for it.
fn assert_no_false_void(game: &Game, what: &str) {
    let Some(me) = game.to_move() else { return };
    let view = TableSeat::new(game, me);
    let facts = PublicFacts::of(&view);
    for s in (0..game.table().seats()).map(Seat) {
        let wrong = facts.excluded[s.index()].and(game.hand(s));
        assert!(wrong.is_empty(), "{what}: seat {} holds excluded {wrong:?}", s.0);
    }
}

#[test]
fn inference_uses_the_rules_in_force_when_a_seat_passed() {
    // Blanks are wild until some seat has passed; then plain matching. A
    // pass under plain matching says nothing about blanks.
    let conditional = rules("block", |v| {
        v.matching = MatchRule::ZeroWild;
        v.when = vec![WhenRule {
            condition: Condition::AnySeatPasses(1),
            rules: RuleOverride { matching: Some(MatchRule::Equal), ..RuleOverride::default() },
        }];
    });
    // And a seat that may pass at will (once two seats passed) proves nothing.
    let may_pass = rules("block", |v| {
        v.turn.max_turns = 200;
        v.when = vec![WhenRule {
            condition: Condition::AnySeatPasses(2),
            rules: RuleOverride { may_pass: Some(true), ..RuleOverride::default() },
        }];
    });
    let games = common::size("CAPICUA_BOT_SOAK", 1) * 150;
    let mut reached = 0;
    for (rules, name) in [(conditional, "zero-wild until a pass"), (may_pass, "may pass after two passes")] {
        for seed in 0..games {
            let mut game = Game::new(rules.clone(), Seating::new(3), seed).unwrap();
            let mut rng = BotRng::new(seed);
            while game.to_move().is_some() {
                assert_no_false_void(&game, name);
                if game.active_conditions() != 0 {
                    reached += 1;
                }
                let moves = game.legal_moves();
                // Pass at will now and then where the rules allow it.
                let m = if moves.contains(&Move::Pass) && rng.below(3) == 0 {
                    Move::Pass
                } else {
                    moves[rng.below(moves.len())]
                };
                game.play(m).unwrap();
            }
        }
    }
    assert!(reached > 100, "the conditions rarely held: {reached}");
}

#[test]
fn snapshots_carry_explicit_teams() {
    // Four seats in two teams, where the variant itself has none.
    let rules = Rules::preset("draw").unwrap();
    let seating = Seating::new(4).with_teams(vec![vec![0, 2], vec![1, 3]]);
    let game = Game::new(rules.clone().into(), seating, 3).unwrap();
    let me = game.to_move().unwrap();
    let json = serde_json::to_string(&game.view(me).snapshot()).unwrap();
    let snap: ViewSnapshot = serde_json::from_str(&json).unwrap();
    let remote = SnapshotSeat::new(&rules, &snap).unwrap();
    let local = TableSeat::new(&game, me);
    for s in (0..4).map(Seat) {
        assert_eq!(remote.side_of(s), game.table().side_of(s));
        assert_eq!(local.side_of(s), remote.side_of(s));
    }
    assert_eq!(remote.teams(), vec![vec![0, 2], vec![1, 3]]);
    // A sampled deal is played at the same table.
    let facts = PublicFacts::of(&local);
    let deal = sample(&local, &Arc::new(rules), &facts, &mut BotRng::new(1)).expect("a deal");
    assert_eq!(deal.game.table(), game.table());
}

/// A longana pass says what the passer lacks for its own and opened arms,
/// and, where doubles go on any arm, that it holds no double joining any
/// arm: seat 0 passes with its arm on 3 and seat 1's closed arm on 5.
#[test]
fn a_longana_pass_excludes_the_doubles_of_closed_arms_where_doubles_go_anywhere() {
    let d = Tile::domino;
    let set = |ts: &[(u8, u8)]| ts.iter().map(|&(a, b)| d(a, b)).collect::<TileSet>();
    for doubles in [ArmDoubles::AnyArm, ArmDoubles::LikeOtherTiles] {
        let rules = rules("longana", |v| {
            v.board = BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened, doubles });
        });
        let hands = vec![set(&[(9, 9), (3, 9), (0, 1), (2, 4)]), set(&[(8, 9), (5, 8), (5, 6), (6, 7)])];
        let setup = Setup { seed: 1, hand: 0, scores: vec![], hands, stock: vec![], leader: Seat(0) };
        let mut game = Game::from_setup(rules.clone(), Seating::new(2), setup).unwrap();
        let plays = [
            Move::Play { tile: d(9, 9), end: EndId::LEAD, face: 0 },
            Move::Play { tile: d(8, 9), end: EndId(1), face: 1 },
            Move::Play { tile: d(3, 9), end: EndId(0), face: 1 },
            Move::Play { tile: d(5, 8), end: EndId(1), face: 1 },
            Move::Pass,
        ];
        for m in plays {
            game.play(m).unwrap();
        }
        let facts = PublicFacts::of(&TableSeat::new(&game, Seat(1)));
        let excluded = facts.excluded[0];
        assert!(excluded.contains(d(3, 3)) && excluded.contains(d(3, 6)), "{doubles:?}: no 3 for its own arm");
        assert!(!excluded.contains(d(5, 6)), "{doubles:?}: a 5 could not go on the closed arm");
        assert_eq!(excluded.contains(d(5, 5)), doubles == ArmDoubles::AnyArm, "{doubles:?}: [5|5]");
    }
}
