//! Scripted hands pinning the presets to the published rules (pagat.com as
//! digested in the project's rules reference) where they once differed.
//! Each hand uses the preset as it ships; the tests of the options that
//! keep the older behaviour name them explicitly (`scripted.rs`).

mod common;

use std::sync::Arc;

use capicua_engine::*;
use common::*;

fn setup(hands: Vec<TileSet>, stock: Vec<Tile>) -> Setup {
    Setup { seed: 9, hand: 0, scores: vec![], hands, stock, leader: Seat(0) }
}

/// Play `[a|b]` on `end`, the face showing the end's pip touching it.
fn on(g: &Game, a: u8, b: u8, end: u8) -> Move {
    let pip = g.board().ends()[end as usize].pip;
    let (lo, _) = d(a, b).faces();
    Move::Play { tile: d(a, b), end: EndId(end), face: if lo == pip { 0 } else { 1 } }
}

/// Two seats of the longana preset: seat 0 leads [9|9] and its arm ends in
/// 3; seat 1's arm ends in 5 and was never opened (seat 1 never passed).
/// Seat 0 to move, holding [5|5] and [0|1]: no 3 for its own arm. (Seat 1
/// keeps [5|6], so the hand goes on whatever seat 0 does.)
fn longana_closed_arm() -> Game {
    let hands = vec![set(&[(9, 9), (3, 9), (5, 5), (0, 1)]), set(&[(8, 9), (5, 8), (5, 6), (2, 4), (6, 7)])];
    let rules = Arc::new(preset("longana").unwrap().validate().unwrap());
    let mut g = Game::from_setup(rules, Seating::new(2), setup(hands, vec![])).unwrap();
    play_checked(&mut g, lead(9, 9));
    let script: [fn(&Game) -> Move; 3] = [|g| on(g, 8, 9, 1), |g| on(g, 3, 9, 0), |g| on(g, 5, 8, 1)];
    for f in script {
        let m = f(&g);
        play_checked(&mut g, m);
    }
    assert_eq!(g.to_move(), Some(Seat(0)));
    assert_eq!((g.board().ends()[0].pip, g.board().ends()[1].pip), (3, 5));
    assert!(!g.board().ends()[1].opened, "seat 1's arm is closed");
    g
}

#[test]
fn longana_a_double_goes_on_any_arm_even_a_closed_one() {
    let mut g = longana_closed_arm();
    let double_on_b = on(&g, 5, 5, 1);
    assert_eq!(g.legal_moves().as_slice(), &[double_on_b], "[5|5] on seat 1's closed arm, nothing else");
    assert!(!g.is_legal(Move::Pass), "a seat that can lay a double may not pass");
    assert!(!g.is_legal(on(&g, 0, 1, 1)), "only doubles go on a closed arm");
    play_checked(&mut g, double_on_b);
    let arm = g.board().ends()[1];
    assert_eq!((arm.pip, arm.owner, arm.opened), (5, Some(Seat(1)), false), "still seat 1's arm, still closed");
    assert_eq!(g.to_move(), Some(Seat(1)));
    assert_no_leak(&g);
}

/// The sniff preset, seat 0 leading [6|6] (the sniff) to seats that hold no
/// 6, with two tiles left in the stock.
fn sniff_with_two_in_stock(hands: Vec<TileSet>) -> Game {
    let rules = Arc::new(preset("sniff").unwrap().validate().unwrap());
    let seats = Seating::new(hands.len() as u8);
    let mut g = Game::from_setup(rules, seats, setup(hands, vec![d(1, 4), d(4, 5)])).unwrap();
    play_checked(&mut g, lead(6, 6));
    assert_eq!(g.to_move(), Some(Seat(1)));
    assert_eq!(g.stock().count(), 2);
    g
}

#[test]
fn sniff_keeps_two_in_the_stock_only_with_two_players() {
    // Three players: nothing stays in the stock; seat 1 draws both tiles
    // (at most two a turn), then passes.
    let hands = vec![set(&[(6, 6), (1, 6), (0, 0), (0, 3)]), set(&[(0, 1), (1, 3)]), set(&[(2, 3), (2, 4)])];
    let mut g = sniff_with_two_in_stock(hands);
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw], "three players draw the last two tiles");
    play_checked(&mut g, Move::Draw);
    assert!(g.hand(Seat(1)).contains(d(1, 4)));
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw]);
    play_checked(&mut g, Move::Draw);
    assert_eq!(g.stock().count(), 0);
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass], "two draws a turn at most, and the stock is empty");

    // Two players: the last two tiles stay in the stock.
    let hands = vec![set(&[(6, 6), (1, 6), (0, 0), (0, 3)]), set(&[(0, 1), (1, 3)])];
    let g = sniff_with_two_in_stock(hands);
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass], "two players keep two in the stock");
}

/// Three seats of the mexican-train preset (clockwise 0, 1, 2), the stock
/// starting with [0|6] then [1|3]: seat 0 leads [12|12], seat 1 starts the
/// Mexican train (end 3) with [1|12], and seat 2 lays [1|1] on it.
fn mexican_double_laid(seat2: &[(u8, u8)]) -> Game {
    let v = Variant { target: MatchTarget::Hands(1), ..preset("mexican-train").unwrap() };
    let hands = vec![set(&[(12, 12), (5, 12), (3, 4)]), set(&[(1, 12), (2, 9)]), set(seat2)];
    let dealt: TileSet = hands.iter().fold(set(&[(0, 6), (1, 3)]), |a, h| a.or(*h));
    let rules = Arc::new(v.validate().unwrap());
    let mut stock = vec![d(0, 6), d(1, 3)];
    stock.extend(rules.catalog().all().iter().filter(|t| !dealt.contains(*t)));
    let mut g = Game::from_setup(rules, Seating::new(3), setup(hands, stock)).unwrap();
    play_checked(&mut g, lead(12, 12));
    let m = on(&g, 1, 12, 3);
    play_checked(&mut g, m);
    let m = on(&g, 1, 1, 3);
    play_checked(&mut g, m);
    assert_eq!(g.board().must_cover(), 1 << 3, "the double waits to be covered");
    g
}

#[test]
fn mexican_train_the_player_of_a_double_covers_it() {
    // Seat 2 holds [1|7]: it plays again, and only on the double.
    let mut g = mexican_double_laid(&[(1, 1), (1, 7), (8, 12)]);
    assert_eq!(g.to_move(), Some(Seat(2)), "the player of the double moves again");
    let cover = on(&g, 1, 7, 3);
    assert_eq!(g.legal_moves().as_slice(), &[cover], "only a tile on the double, not [8|12] on its own train");
    play_checked(&mut g, cover);
    assert_eq!(g.board().must_cover(), 0);
    assert_eq!(g.to_move(), Some(Seat(0)), "then the turn passes");
    assert_eq!(g.legal_moves().as_slice(), &[on(&g, 5, 12, 0)], "play is free again");
    assert_no_leak(&g);
}

#[test]
fn mexican_train_a_double_its_player_cannot_cover_marks_its_train() {
    // Seat 2 holds nothing with a 1: it draws [0|6], still cannot, passes
    // and its train is marked; seat 0 must then cover the double.
    let mut g = mexican_double_laid(&[(1, 1), (8, 12)]);
    assert_eq!(g.to_move(), Some(Seat(2)));
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw], "it draws to cover its double");
    play_checked(&mut g, Move::Draw);
    assert!(g.hand(Seat(2)).contains(d(0, 6)));
    assert_eq!(g.legal_moves().as_slice(), &[Move::Pass]);
    play_checked(&mut g, Move::Pass);
    assert!(g.board().ends()[2].opened, "seat 2's train is marked");
    assert_eq!(g.to_move(), Some(Seat(0)));
    assert_eq!(g.board().must_cover(), 1 << 3, "the double still waits");
    // Seat 0 could play [5|12] on its own train, but the double comes
    // first: it draws [1|3], which covers it.
    assert_eq!(g.legal_moves().as_slice(), &[Move::Draw]);
    play_checked(&mut g, Move::Draw);
    assert_eq!(g.legal_moves().as_slice(), &[on(&g, 1, 3, 3)]);
    let m = on(&g, 1, 3, 3);
    play_checked(&mut g, m);
    assert_eq!((g.board().must_cover(), g.to_move()), (0, Some(Seat(1))));
    assert_no_leak(&g);
}

/// A variant stored before a rule became a choice carries no field for it:
/// it reads as the rule it was played under, so stored games replay as they
/// were played, while the presets name the published rule.
#[test]
fn a_variant_without_the_new_fields_keeps_the_rules_it_was_stored_with() {
    for (name, field) in [("longana", "doubles"), ("mexican-train", "cover")] {
        let v = preset(name).unwrap();
        let mut json = serde_json::to_value(&v).unwrap();
        let board = json["board"].as_object_mut().unwrap();
        let spec = board.values_mut().next().unwrap().as_object_mut().unwrap();
        assert!(spec.remove(field).is_some(), "{name} writes its {field}: {json}");
        let stored: Variant = serde_json::from_value(json).unwrap();
        match (&v.board, &stored.board) {
            (BoardLayout::Longana(new), BoardLayout::Longana(old)) => {
                assert_eq!(new.doubles, ArmDoubles::AnyArm);
                assert_eq!(old.doubles, ArmDoubles::LikeOtherTiles);
            }
            (BoardLayout::Trains(new), BoardLayout::Trains(old)) => {
                assert_eq!(new.cover, DoubleCover::Player);
                assert_eq!(old.cover, DoubleCover::NextSeat);
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}
