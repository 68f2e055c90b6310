//! Scripted hands with results computed by hand, one per rule family, and
//! the pinned seed -> deal snapshot.

mod common;

use std::sync::Arc;

use capicua_engine::*;
use common::*;

/// Play `[a|b]` on `end`, the face showing `pip` touching it.
fn on(g: &Game, a: u8, b: u8, end: u8) -> Move {
    let pip = g.board().ends()[end as usize].pip;
    let (lo, _) = d(a, b).faces();
    let face = if lo == pip { 0 } else { 1 };
    Move::Play { tile: d(a, b), end: EndId(end), face }
}

fn rules(v: Variant) -> Arc<Rules> {
    Arc::new(v.validate().unwrap())
}

fn setup(hand: u32, hands: Vec<TileSet>, stock: Vec<Tile>, leader: u8) -> Setup {
    Setup { seed: 9, hand, scores: vec![], hands, stock, leader: Seat(leader) }
}

#[test]
fn blocked_latin_tie_scores_nothing() {
    let g = blocked_latin(preset("latin").unwrap());
    let r = &g.hand_results()[0];
    assert_eq!(r.end, HandEnd::Blocked { blocker: Seat(3) });
    assert_eq!(r.pips.as_slice(), &[34, 39, 29, 24]);
    assert_eq!(r.pips[0] + r.pips[2], 63);
    assert_eq!(r.pips[1] + r.pips[3], 63);
    assert_eq!(r.winner, None);
    assert_eq!(r.points, 0);
    assert_eq!(g.scores(), &[0, 0]);
    assert_eq!(g.hand_number(), 2, "the next hand is dealt");
}

#[test]
fn blocked_latin_tie_options() {
    let mut v = preset("latin").unwrap();
    v.blocked.tie = BlockedTie::LeaderWins;
    let g = blocked_latin(v.clone());
    assert_eq!(g.hand_results()[0].winner, Some(Side(0)));
    assert_eq!(g.scores(), &[63, 0], "the leader's team scores the losers' pips");

    v.blocked.tie = BlockedTie::BlockerWins;
    let g = blocked_latin(v.clone());
    assert_eq!(g.scores(), &[0, 63], "seat 3 blocked");

    v.blocked.tie = BlockedTie::NextHandDouble;
    let g = blocked_latin(v.clone());
    assert_eq!(g.scores(), &[0, 0]);
    assert_eq!(g.multiplier(), 2, "the next hand counts double");

    v.blocked.compare = BlockedCompare::Seat;
    v.blocked.tie = BlockedTie::NoScore;
    let g = blocked_latin(v);
    // Seat 3 holds 24, the lightest single hand: its team scores 34 + 29.
    assert_eq!(g.hand_results()[0].winner_seat, Some(Seat(3)));
    assert_eq!(g.scores(), &[0, 63]);
}

#[test]
fn puerto_rico_blocked_gives_both_teams_pips() {
    let mut v = preset("puerto-rico").unwrap();
    v.blocked.tie = BlockedTie::LeaderWins;
    let g = blocked_latin(v);
    assert_eq!(g.scores(), &[126, 0]);
}

/// Block game, 2 seats: seat 0 goes out with [1|4] on ends 1 and 4.
fn capicua_hand(capicua: Capicua) -> Game {
    let mut v = preset("block").unwrap();
    v.scoring.capicua = capicua;
    let hands = vec![set(&[(2, 3), (0, 2), (1, 4)]), set(&[(3, 4), (0, 1), (6, 6), (5, 5)])];
    let mut g = Game::from_setup(rules(v), Seating::new(2), setup(0, hands, vec![], 0)).unwrap();
    play_checked(&mut g, lead(2, 3));
    let m = on(&g, 3, 4, 1);
    play_checked(&mut g, m);
    let m = on(&g, 0, 2, 0);
    play_checked(&mut g, m);
    let m = on(&g, 0, 1, 0);
    play_checked(&mut g, m);
    assert_eq!(g.board().ends().iter().map(|e| e.pip).collect::<Vec<_>>(), vec![1, 4]);
    let legal = g.legal_moves();
    assert_eq!(legal.len(), 2, "[1|4] fits both ends: two moves");
    play_checked(&mut g, legal[0]);
    g
}

#[test]
fn capicua_bonus() {
    let plain = capicua_hand(Capicua::None);
    assert_eq!(plain.hand_results()[0].end, HandEnd::Out { seat: Seat(0), capicua: true });
    assert_eq!(plain.scores(), &[22, 0], "[6|6] + [5|5] left");
    assert_eq!(capicua_hand(Capicua::Double).scores(), &[44, 0]);
    assert_eq!(capicua_hand(Capicua::Bonus(25)).scores(), &[47, 0]);
}

#[test]
fn draw_game_forces_draws_until_a_tile_fits() {
    let hands = vec![set(&[(6, 6), (0, 1), (2, 4)]), set(&[(0, 2), (0, 3), (1, 3)])];
    let stock = vec![d(1, 1), d(2, 2), d(3, 6), d(4, 4), d(5, 5)];
    let mut g = Game::from_setup(rules(preset("draw").unwrap()), Seating::new(2), setup(0, hands, stock, 0)).unwrap();
    assert_eq!(g.legal_moves().as_slice(), &[lead(6, 6)], "the highest double must lead");
    play_checked(&mut g, lead(6, 6));
    for drawn in 1..=3 {
        assert_eq!(g.legal_moves().as_slice(), &[Move::Draw], "no 6: draw ({drawn})");
        assert!(g.play(Move::Pass).is_err(), "passing is not allowed while the stock allows a draw");
        play_checked(&mut g, Move::Draw);
        assert_no_leak(&g);
    }
    assert_eq!(g.drawn_by(Seat(1)), set(&[(1, 1), (2, 2), (3, 6)]));
    assert_eq!(g.view(Seat(0)).drawn_by(Seat(1)), None, "seat 0 does not see what seat 1 drew");
    assert_eq!(g.view(Seat(1)).drawn_by(Seat(1)), Some(set(&[(1, 1), (2, 2), (3, 6)])));
    let legal = g.legal_moves();
    assert!(legal.iter().all(|m| matches!(m, Move::Play { tile, .. } if *tile == d(3, 6))), "{legal:?}");
    assert_eq!(legal.len(), 2, "[3|6] fits either side of [6|6]");
    play_checked(&mut g, legal[0]);
    assert_eq!(g.stock_len(), 2);
    // Seat 0 holds [0|1] and [2|4]: nothing fits 6 and 3, and the last two
    // tiles of the stock may not be drawn: it must pass.
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass]);
    let actions: Vec<_> = g.history().iter().map(|r| r.action).collect();
    assert_eq!(actions.iter().filter(|a| **a == Action::Draw).count(), 3);
}

#[test]
fn all_fives_scores_during_play_and_rounds_the_count() {
    let hands = vec![set(&[(5, 5), (1, 5), (1, 4)]), set(&[(0, 5), (0, 4), (6, 6), (2, 3)])];
    let mut g =
        Game::from_setup(rules(preset("all-fives").unwrap()), Seating::new(2), setup(0, hands, vec![], 0)).unwrap();
    play_checked(&mut g, lead(5, 5));
    assert_eq!(g.scores(), &[10, 0], "the lead spinner counts 10");
    let m = on(&g, 0, 5, 0);
    play_checked(&mut g, m);
    assert_eq!(g.scores(), &[10, 10], "0 + the spinner's 10");
    let m = on(&g, 1, 5, 1);
    play_checked(&mut g, m);
    assert_eq!(g.board().ends().len(), 4, "both long sides covered: the spinner opens");
    assert_eq!(g.board().end_sum(), 1, "0 + 1; the short sides count once played on");
    assert_eq!(g.scores(), &[10, 10]);
    let m = on(&g, 0, 4, 0);
    play_checked(&mut g, m);
    assert_eq!(g.scores(), &[10, 15], "4 + 1 = 5");
    let m = on(&g, 1, 4, 0);
    play_checked(&mut g, m);
    let r = &g.hand_results()[0];
    assert_eq!(r.end, HandEnd::Out { seat: Seat(0), capicua: true });
    assert_eq!(r.pips[1], 17, "[6|6] + [2|3]");
    assert_eq!(r.points, 15, "17 rounds to 15");
    assert_eq!(g.scores(), &[25, 15]);
    assert_eq!(r.play_points.as_slice(), &[10, 15]);
}

#[test]
fn fives_and_threes_scores_and_exact_target() {
    let hands = vec![set(&[(3, 6), (6, 6), (0, 0)]), set(&[(3, 3), (1, 2), (4, 4)])];
    let v = preset("fives-and-threes").unwrap();
    let mut g = Game::from_setup(rules(v.clone()), Seating::new(2), setup(0, hands.clone(), vec![], 0)).unwrap();
    play_checked(&mut g, lead(3, 6));
    assert_eq!(g.scores(), &[3, 0], "9: three 3s");
    let m = on(&g, 3, 3, 0);
    play_checked(&mut g, m);
    assert_eq!(g.scores(), &[3, 4], "6 + 6 = 12: four 3s");
    let m = on(&g, 6, 6, 1);
    play_checked(&mut g, m);
    // 6 + 12 = 18: six 3s. Then nobody holds a 3 or a 6: the hand blocks,
    // seat 0's [0|0] (0 pips) beats [1|2] + [4|4], and winning scores 1.
    assert_eq!(g.hand_results()[0].end, HandEnd::Blocked { blocker: Seat(0) });
    assert_eq!(g.hand_results()[0].play_points.as_slice(), &[9, 4]);
    assert_eq!(g.scores(), &[10, 4]);

    // Exact target: from 58, the 3 for [3|6] reaches 61 and wins at once.
    let mut s = setup(0, hands.clone(), vec![], 0);
    s.scores = vec![58, 0];
    let mut g = Game::from_setup(rules(v.clone()), Seating::new(2), s).unwrap();
    play_checked(&mut g, lead(3, 6));
    assert_eq!(g.outcome().map(|o| o.winner), Some(Some(Side(0))));
    assert_eq!(g.hand_results()[0].end, HandEnd::Target);

    // From 59 the same 3 would overshoot: it scores nothing.
    let mut s = setup(0, hands, vec![], 0);
    s.scores = vec![59, 0];
    let mut g = Game::from_setup(rules(v), Seating::new(2), s).unwrap();
    play_checked(&mut g, lead(3, 6));
    assert_eq!(g.scores(), &[59, 0]);
    assert_eq!(g.outcome(), None);
}

#[test]
fn longana_arms_open_when_their_owner_passes() {
    // 3 seats, counter-clockwise: 0, 2, 1.
    let hands = vec![set(&[(9, 9), (1, 1), (2, 2)]), set(&[(9, 1), (9, 5), (0, 0)]), set(&[(3, 4), (3, 5), (6, 7)])];
    let mut g =
        Game::from_setup(rules(preset("longana").unwrap()), Seating::new(3), setup(0, hands, vec![], 0)).unwrap();
    assert_eq!(g.legal_moves().as_slice(), &[lead(9, 9)], "the highest double leads");
    play_checked(&mut g, lead(9, 9));
    assert_eq!(g.board().ends().len(), 3, "one arm per seat");
    assert_eq!(g.to_move(), Some(Seat(2)));
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass], "no 9 for seat 2's own arm");
    play_checked(&mut g, Move::Pass);
    assert!(g.board().ends()[2].opened, "seat 2's arm is open to all");
    assert_eq!(g.to_move(), Some(Seat(1)));
    let legal = g.legal_moves();
    let ends: Vec<u8> = legal
        .iter()
        .filter_map(|m| match m {
            Move::Play { end, .. } => Some(end.0),
            _ => None,
        })
        .collect();
    assert!(ends.iter().all(|&e| e == 1 || e == 2), "own arm or the opened arm only: {legal:?}");
    assert!(ends.contains(&2) && ends.contains(&1));
    let m = on(&g, 9, 1, 2);
    play_checked(&mut g, m);
    assert_eq!(g.board().ends()[2].pip, 1);
    assert!(g.board().ends()[2].opened, "it stays open until its owner plays on it");
    // Seat 0 has no 9 and no 1 on its arms... [1|1] fits arm 2 (open, showing 1).
    let legal = g.legal_moves();
    assert!(legal.iter().all(|m| matches!(m, Move::Play { end: EndId(2), .. })), "{legal:?}");
    play_checked(&mut g, legal[0]);
    assert_no_leak(&g);
}

/// The option that keeps doubles to the arms a seat may use: seat 0, its
/// arm on 3, holds [5|5] while seat 1's closed arm shows 5, and passes
/// (the preset lets it lay the double there: `published_rules.rs`).
#[test]
fn longana_doubles_like_other_tiles_stay_off_closed_arms() {
    let mut v = preset("longana").unwrap();
    v.board = BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened, doubles: ArmDoubles::LikeOtherTiles });
    let hands = vec![set(&[(9, 9), (3, 9), (5, 5), (0, 1)]), set(&[(8, 9), (5, 8), (5, 6), (2, 4), (6, 7)])];
    let mut g = Game::from_setup(rules(v), Seating::new(2), setup(0, hands, vec![], 0)).unwrap();
    play_checked(&mut g, lead(9, 9));
    play_on(&mut g, 8, 9, 1);
    play_on(&mut g, 3, 9, 0);
    play_on(&mut g, 5, 8, 1);
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass], "[5|5] may not go on seat 1's closed arm");
    play_checked(&mut g, Move::Pass);
    assert!(g.board().ends()[0].opened, "seat 0's arm opens");
}

/// The option that keeps 2 tiles in a sniff stock at every table size:
/// with three players and two tiles left, a seat without a 6 for the
/// sniff passes (the preset keeps none with three: `published_rules.rs`).
#[test]
fn sniff_keep_two_at_every_table_size() {
    let mut v = preset("sniff").unwrap();
    v.stuck.keep = Keep::Fixed(2);
    let hands = vec![set(&[(6, 6), (1, 6), (0, 0), (0, 3)]), set(&[(0, 1), (1, 3)]), set(&[(2, 3), (2, 4)])];
    let mut g = Game::from_setup(rules(v), Seating::new(3), setup(0, hands, vec![d(1, 4), d(4, 5)], 0)).unwrap();
    play_checked(&mut g, lead(6, 6));
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass], "the last two tiles stay in the stock");
    // In a file: a number, or a table by seat count as the hand sizes are.
    let stuck: StuckSpec = toml::from_str("when-unable = { draw-up-to = 2 }\nkeep = [[2, 2], [3, 0], [4, 0]]").unwrap();
    assert_eq!(stuck.keep, preset("sniff").unwrap().stuck.keep);
    let stuck: StuckSpec = toml::from_str("when-unable = \"pass\"\nkeep = 2").unwrap();
    assert_eq!(stuck.keep, Keep::Fixed(2));
}

#[test]
fn seed_to_deal_snapshot() {
    // Pinned: a stored seed must deal the same hands forever. If this fails,
    // the shuffle or the generator changed and every stored game is broken.
    let g = Game::new(Arc::new(Rules::preset("latin").unwrap()), Seating::new(4), 42).unwrap();
    let hands: Vec<String> = (0..4).map(|s| format!("{:?}", g.hand(Seat(s)))).collect();
    insta_like(
        &hands.join("\n"),
        "{[0|0], [1|3], [2|5], [5|5], [0|6], [2|6], [5|6]}\n\
         {[1|2], [2|2], [0|3], [2|4], [3|4], [4|5], [6|6]}\n\
         {[0|1], [0|2], [0|4], [1|4], [0|5], [1|5], [1|6]}\n\
         {[1|1], [2|3], [3|3], [4|4], [3|5], [3|6], [4|6]}",
    );
    assert_eq!(g.leader(), Seat(1), "the [6|6] holder leads");
    let cuban = Game::new(Arc::new(Rules::preset("cuban").unwrap()), Seating::new(4), 7).unwrap();
    assert_eq!(cuban.out_of_play().len(), 15);
}

fn insta_like(actual: &str, expected: &str) {
    assert_eq!(actual, expected, "\nactual:\n{actual}\n");
}

#[test]
fn tile_values_count_the_hands() {
    // The capicua hand leaves [6|6] and [5|5] in seat 1's hand.
    for (value, expected) in [
        (TileValue::PipSum, 22),
        (TileValue::Difference, 0),
        (TileValue::LargestFace, 11),
        (TileValue::DoublesDouble, 44),
    ] {
        let mut v = preset("block").unwrap();
        v.tiles.value = value;
        let hands = vec![set(&[(2, 3), (0, 2), (1, 4)]), set(&[(3, 4), (0, 1), (6, 6), (5, 5)])];
        let mut g = Game::from_setup(rules(v), Seating::new(2), setup(0, hands, vec![], 0)).unwrap();
        play_checked(&mut g, lead(2, 3));
        for (a, b, end) in [(3, 4, 1), (0, 2, 0), (0, 1, 0), (1, 4, 0)] {
            let m = on(&g, a, b, end);
            play_checked(&mut g, m);
        }
        assert_eq!(g.hand_results()[0].pips[1], expected, "{value:?}");
    }
}

/// Block game, 3 seats clockwise, with the given turn order.
fn three_seat_game(order: TurnOrder, may_pass: bool, hands: Vec<TileSet>) -> Game {
    let mut v = preset("block").unwrap();
    v.players.min = 3;
    v.turn.order = order;
    v.turn.max_turns = 60;
    v.stuck.may_pass = may_pass;
    Game::from_setup(rules(v), Seating::new(3), setup(1, hands, vec![], 0)).unwrap()
}

#[test]
fn repeat_while_able_keeps_the_turn() {
    let hands = vec![set(&[(1, 1), (1, 2), (2, 3)]), set(&[(5, 5), (6, 6)]), set(&[(4, 4), (0, 6)])];
    let mut g = three_seat_game(TurnOrder::RepeatWhileAble, false, hands);
    play_checked(&mut g, lead(1, 1));
    assert_eq!(g.to_move(), Some(Seat(0)), "seat 0 can still play [1|2]: it moves again");
    let m = on(&g, 1, 2, 0);
    play_checked(&mut g, m);
    assert_eq!(g.to_move(), Some(Seat(0)), "and again with [2|3]");
}

#[test]
fn reverse_on_pass_turns_the_table_around() {
    let hands = vec![set(&[(1, 1), (1, 2), (4, 5)]), set(&[(5, 5), (6, 6)]), set(&[(1, 3), (0, 6)])];
    let mut g = three_seat_game(TurnOrder::ReverseOnPass, false, hands);
    play_checked(&mut g, lead(1, 1));
    assert_eq!(g.to_move(), Some(Seat(1)));
    play_checked(&mut g, Move::Pass);
    assert_eq!(g.to_move(), Some(Seat(0)), "after seat 1 passes, play runs counter-clockwise");
    let m = on(&g, 1, 2, 0);
    play_checked(&mut g, m);
    assert_eq!(g.to_move(), Some(Seat(2)), "seat 0's next, counter-clockwise, is seat 2");
}

#[test]
fn random_seat_order_is_seeded() {
    let hands = vec![set(&[(1, 1), (1, 2)]), set(&[(1, 5), (2, 6)]), set(&[(1, 3), (2, 4)])];
    let seats: Vec<Vec<u8>> = (0..2)
        .map(|_| {
            let mut g = three_seat_game(TurnOrder::RandomSeat, false, hands.clone());
            let mut seen = vec![];
            while g.hand_results().is_empty() {
                seen.push(g.to_move().unwrap().0);
                let m = g.legal_moves()[0];
                play_checked(&mut g, m);
            }
            seen
        })
        .collect();
    assert_eq!(seats[0], seats[1], "the same seed gives the same order");
}

#[test]
fn passing_while_able_is_offered_and_capped() {
    let hands = vec![set(&[(1, 1), (1, 2)]), set(&[(1, 5), (2, 6)]), set(&[(1, 3), (2, 4)])];
    let mut g = three_seat_game(TurnOrder::Fixed, true, hands);
    play_checked(&mut g, lead(1, 1));
    assert!(g.legal_moves().contains(&Move::Pass), "seat 1 may pass though it holds [1|5]");
    let mut turns = 1;
    while g.hand_results().is_empty() {
        play_checked(&mut g, Move::Pass);
        turns += 1;
    }
    assert_eq!(turns, 60, "everyone passing ends the hand at the turn cap");
    assert!(matches!(g.hand_results()[0].end, HandEnd::Blocked { .. }));
    let mut v = preset("block").unwrap();
    v.stuck.may_pass = true;
    assert_eq!(v.validate().unwrap_err().field, "turn.max-turns");
}

#[test]
fn bergen_headers() {
    let hands = vec![set(&[(3, 3), (3, 5), (0, 1)]), set(&[(3, 6), (5, 6), (2, 2)])];
    let mut g =
        Game::from_setup(rules(preset("bergen").unwrap()), Seating::new(2), setup(0, hands, vec![], 0)).unwrap();
    play_checked(&mut g, lead(3, 3));
    assert_eq!(g.scores(), &[2, 0], "a lone double is a double-header");
    let m = on(&g, 3, 6, 0);
    play_checked(&mut g, m);
    assert_eq!(g.scores(), &[2, 0], "6 and 3: nothing");
    let m = on(&g, 3, 5, 1);
    play_checked(&mut g, m);
    assert_eq!(g.scores(), &[2, 0], "6 and 5: nothing");
    let m = on(&g, 5, 6, 1);
    play_checked(&mut g, m);
    assert_eq!(g.hand_results()[0].play_points.as_slice(), &[2, 2], "6 and 6: a double-header");
    // Nobody holds a 6 now: seat 0 ([0|1], 1 pip) wins the block and its 2.
    assert_eq!(g.hand_results()[0].end, HandEnd::Blocked { blocker: Seat(1) });
    assert_eq!(g.scores(), &[4, 2]);
}

#[test]
fn matador_preset_plays_by_sums() {
    let rules = rules(preset("matador").unwrap());
    let hands = vec![set(&[(2, 3), (0, 0), (6, 6)]), set(&[(1, 4), (5, 5), (1, 1)])];
    let mut g = Game::from_setup(rules, Seating::new(2), setup(1, hands, vec![], 0)).unwrap();
    play_checked(&mut g, lead(2, 3));
    // [1|4]: the 4 joins the 3 (sum 7); [5|5] joins the 2; [1|1] joins nothing.
    let tiles = played_tiles(&g);
    assert!(tiles.contains(&d(1, 4)) && tiles.contains(&d(5, 5)) && !tiles.contains(&d(1, 1)), "{tiles:?}");
}

#[test]
fn same_suit_deal_gives_each_seat_a_suit() {
    let mut v = preset("block").unwrap();
    v.deal.method = DealMethod::SameSuit;
    let rules = rules(v);
    for seed in 0..50 {
        let g = Game::new(rules.clone(), Seating::new(2), seed).unwrap();
        // Seat 0 chooses first from all 28 tiles: every pip has 7, so it
        // gets 7 of one pip. Seat 1 gets as many of one pip as remain (at
        // least 6: the pip shares only one tile with seat 0's suit).
        for (seat, at_least) in [(0u8, 7usize), (1, 6)] {
            let hand = g.hand(Seat(seat));
            let best = (0..=6u8).map(|p| hand.and(rules.catalog().suit(p)).len()).max().unwrap();
            assert!(best >= at_least, "seed {seed} seat {seat}: {hand:?}");
        }
        assert_tiles_conserved(&g);
    }
}

/// Three seats of Mexican Train (clockwise 0, 1, 2), hand 0, the stock
/// starting with [0|6] then [1|3]; a double is covered by the next seat
/// (`cover = "next-seat"`; the preset has its player cover it:
/// `published_rules.rs`).
fn mexican_hand(target: MatchTarget) -> Game {
    let trains = TrainsSpec { public: true, satisfy_doubles: true, cover: DoubleCover::NextSeat };
    let v = Variant { target, board: BoardLayout::Trains(trains), ..preset("mexican-train").unwrap() };
    let hands = vec![set(&[(12, 12), (5, 12), (3, 4)]), set(&[(1, 12), (2, 9)]), set(&[(1, 1), (8, 12)])];
    let mut stock = vec![d(0, 6), d(1, 3)];
    let dealt: TileSet = hands.iter().fold(set(&[(0, 6), (1, 3)]), |a, h| a.or(*h));
    stock.extend(Rules::preset("mexican-train").unwrap().catalog().all().iter().filter(|t| !dealt.contains(*t)));
    Game::from_setup(rules(v), Seating::new(3), setup(0, hands, stock, 0)).unwrap()
}

fn ends_of(moves: &[Move]) -> Vec<(Tile, u8)> {
    let mut v: Vec<_> = moves
        .iter()
        .filter_map(|m| match *m {
            Move::Play { tile, end, .. } => Some((tile, end.0)),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn mexican_train_private_trains_markers_and_satisfied_doubles() {
    let mut g = mexican_hand(MatchTarget::Hands(1));
    assert_eq!(g.lead_requirement_now(), LeadRequirement::Tile(d(12, 12)));
    play_checked(&mut g, lead(12, 12));
    assert_eq!(g.board().ends().len(), 4, "three private trains and the Mexican train");
    // Seat 1: its own train (1) or the public one (3), not the others'.
    assert_eq!(ends_of(&g.legal_moves()), vec![(d(1, 12), 1), (d(1, 12), 3)]);
    play_on(&mut g, 1, 12, 3);
    // Seat 2 doubles the public train: it must be satisfied first.
    play_on(&mut g, 1, 1, 3);
    assert_eq!(g.board().must_cover(), 1 << 3);
    // Seat 0 could play [5|12] on its own train, but the double comes first:
    // it draws [0|6], still cannot, passes, and its train is marked.
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw]);
    play_checked(&mut g, Move::Draw);
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass]);
    play_checked(&mut g, Move::Pass);
    assert!(g.board().ends()[0].opened, "seat 0's train is marked");
    assert!(matches!(g.history().last().unwrap().action, Action::Pass { open_pips } if open_pips == 1 << 1));
    // Seat 1 draws [1|3], which satisfies the double (and must be played there).
    play_checked(&mut g, Move::Draw);
    assert_eq!(ends_of(&g.legal_moves()), vec![(d(1, 3), 3)]);
    play_on(&mut g, 1, 3, 3);
    assert_eq!(g.board().must_cover(), 0);
    // Seat 2: its own train or seat 0's marked one; seat 1's stays closed.
    assert_eq!(ends_of(&g.legal_moves()), vec![(d(8, 12), 0), (d(8, 12), 2)]);
    play_on(&mut g, 8, 12, 0);
    // Seat 2 is out. Penalty scoring: everyone takes their own pips.
    let r = g.hand_results().last().unwrap().clone();
    assert!(matches!(r.end, HandEnd::Out { seat: Seat(2), .. }));
    assert_eq!(g.scores(), &[17 + 7 + 6, 11, 0]);
    // One hand: the lowest total wins the match.
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.winner, Some(Side(2)));
    assert_eq!(outcome.ranking.as_slice(), &[Side(2), Side(1), Side(0)], "penalty points rank the lowest first");
}

#[test]
fn round_doubles_count_down_and_penalty_points_rank_lowest_first() {
    let mut g = mexican_hand(MatchTarget::Hands(3));
    play_checked(&mut g, lead(12, 12));
    let script: [fn(&Game) -> Move; 6] =
        [|g| on(g, 1, 12, 3), |g| on(g, 1, 1, 3), |_| Move::Draw, |_| Move::Pass, |_| Move::Draw, |g| on(g, 1, 3, 3)];
    for f in script {
        let m = f(&g);
        play_checked(&mut g, m);
    }
    play_on(&mut g, 8, 12, 0);
    // Hand 1 is led with [11|11] by whoever was dealt it.
    assert_eq!(g.hand_number(), 1);
    let leader = g.to_move().unwrap();
    assert!(g.hand(leader).contains(d(11, 11)));
    assert_eq!(g.lead_requirement_now(), LeadRequirement::Tile(d(11, 11)));
    assert_eq!(g.legal_moves().as_slice(), &[lead(11, 11)]);
    while g.to_move().is_some() {
        let m = g.legal_moves()[0];
        play_checked(&mut g, m);
        if g.hand_number() == 2 && g.history().is_empty() {
            assert_eq!(g.lead_requirement_now(), LeadRequirement::Tile(d(10, 10)));
        }
    }
    // After three hands the lowest total wins (a shared lowest is a draw).
    let scores = g.scores().to_vec();
    let low = *scores.iter().min().unwrap();
    let lows: Vec<usize> = (0..3).filter(|&i| scores[i] == low).collect();
    let expected = (lows.len() == 1).then(|| Side(lows[0] as u8));
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.winner, expected);
    let ranked: Vec<i32> = outcome.ranking.iter().map(|s| scores[s.index()]).collect();
    if expected.is_some() {
        assert!(ranked.windows(2).all(|w| w[0] <= w[1]), "lowest first: {ranked:?}");
    }
    assert_eq!(g.hand_results().len(), 3);
}

#[test]
fn chicken_foot_centre_then_toes() {
    let v = Variant { target: MatchTarget::Hands(1), ..preset("chicken-foot").unwrap() };
    let hands = vec![
        set(&[(9, 9), (5, 5), (2, 3)]),
        set(&[(9, 1), (9, 2), (5, 6)]),
        set(&[(9, 3), (9, 5), (5, 7)]),
        set(&[(9, 4), (5, 8), (0, 0)]),
    ];
    let dealt: TileSet = hands.iter().fold(TileSet::EMPTY, |a, h| a.or(*h));
    let stock: Vec<Tile> =
        Rules::preset("chicken-foot").unwrap().catalog().all().iter().filter(|t| !dealt.contains(*t)).collect();
    let mut g = Game::from_setup(rules(v), Seating::new(4), setup(0, hands, stock, 0)).unwrap();
    play_checked(&mut g, lead(9, 9));
    assert_eq!(g.board().must_cover(), 0b1111);
    // Seat 1 must play on a side of the centre with a 9: any of the four sides.
    assert_eq!(g.legal_moves().len(), 8);
    play_on(&mut g, 1, 9, 0);
    play_on(&mut g, 3, 9, 1);
    play_on(&mut g, 4, 9, 2);
    // Seat 0 has no 9: it draws (the stock has tiles).
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw]);
    let drawn = g.stock().next().unwrap();
    play_checked(&mut g, Move::Draw);
    if g.legal_moves().as_slice() == [Move::Pass] {
        play_checked(&mut g, Move::Pass);
    } else {
        let m = g.legal_moves()[0];
        assert!(matches!(m, Move::Play { tile, .. } if tile == drawn));
        play_checked(&mut g, m);
    }
    if g.board().must_cover() != 0 {
        assert_eq!(g.board().must_cover(), 1 << 3);
        // Seat 1 covers the last side with [9|2].
        play_on(&mut g, 2, 9, 3);
    }
    assert_eq!(g.board().must_cover(), 0, "the centre is covered");
}

/// Plays `[a|b]` on `end` (see [`on`]), checking it.
fn play_on(g: &mut Game, a: u8, b: u8, end: u8) {
    let m = on(g, a, b, end);
    play_checked(g, m);
}
