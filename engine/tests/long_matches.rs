//! The bound on a match's length in moves: a custom variant whose matches
//! could run for hundreds of thousands of moves ends with the hand being
//! played when it reaches `MAX_MOVES_PER_MATCH`, the leader winning.

use capicua_engine::poly::{PolyGame, PolyMatchTarget, PolyMoveList, PolyRules};
use capicua_engine::*;

#[test]
fn a_match_of_a_big_set_and_many_hands_ends_soon_after_the_move_bound() {
    // Double-eighteen, 47 tiles to each of four seats, 500 hands: about
    // 180 moves a hand, 90,000 a match without the bound.
    let text = "base = \"latin\"\nname = \"long\"\ntiles = { max-pip = 18 }\n\
                deal = { hand-size = 47, rest = \"out-of-play\" }\ntarget = { hands = 500 }\n";
    let rules = Rules::from_file_text("long.toml", text).unwrap();
    let mut game = Game::new(rules.into(), Seating::new(4), 3).unwrap();
    let mut hands_started = 0;
    while game.to_move().is_some() {
        let m = game.legal_moves()[0];
        let events = game.play(m).unwrap();
        hands_started += events.iter().filter(|e| matches!(e, Event::HandStarted { .. })).count();
        assert!(game.log().len() < MAX_MOVES_PER_MATCH + 2_000, "still going at {} moves", game.log().len());
    }
    let moves = game.log().len();
    assert!(moves >= MAX_MOVES_PER_MATCH, "ended by its hands at {moves} moves");
    assert!(hands_started < 499, "{hands_started} hands: the bound ended it, not its target");
    let outcome = game.outcome().expect("over");
    let scores = game.scores();
    let best = *scores.iter().max().unwrap();
    let leaders: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
    let expected = (leaders.len() == 1).then(|| Side(leaders[0] as u8));
    assert_eq!(outcome.winner, expected, "the leader wins: {scores:?}");
}

#[test]
fn a_poly_match_of_many_hands_ends_soon_after_the_move_bound() {
    let mut variant = PolyRules::preset("triominoes").unwrap().variant().clone();
    variant.target = PolyMatchTarget::Hands(500);
    let rules = variant.validate().unwrap();
    // The most seats: the most moves a hand.
    let seats = *rules.seat_range().end();
    let mut game = PolyGame::new(rules, seats, 5).unwrap();
    let (mut moves, mut legal) = (0, PolyMoveList::with_capacity(64));
    while game.to_move().is_some() {
        game.legal_moves(&mut legal);
        game.play(legal[0]).unwrap();
        moves += 1;
        assert!(moves < MAX_MOVES_PER_MATCH + 2_000, "still going at {moves} moves");
    }
    assert!(moves >= MAX_MOVES_PER_MATCH, "ended by its hands at {moves} moves");
}
