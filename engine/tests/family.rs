//! One generic random playout, written against [`Family`], over every
//! preset of both tile families: the invariants every match keeps hold
//! whichever shape its tiles have.

use std::sync::Arc;

use capicua_engine::poly::{POLY_PRESETS, PolyGame, PolyRules};
use capicua_engine::{Family, Game, MAX_MOVES_PER_MATCH, PRESETS, Rules, Seat, Seating, SeededRng};

/// Plays `game` to the end with moves drawn from `seed`, checking at every
/// turn what holds in both families; returns the finished match.
fn play_out<F: Family>(mut game: F, seed: u64, name: &str) -> F {
    let mut rng = SeededRng::new(seed, 0);
    let mut moves = F::MoveList::default();
    let (seats, sides) = (game.seats(), game.sides());
    let mut hand = game.hand_number();
    game.keep_hand_ends(true);
    while let Some(seat) = game.to_move() {
        assert!(game.plies() < MAX_MOVES_PER_MATCH, "{name}: the match never ends");
        assert!(seat.0 < seats, "{name}");
        assert_eq!(game.scores().len(), sides as usize, "{name}");
        assert_eq!(game.seat_scores().len(), seats as usize, "{name}");
        assert!((0..seats).all(|s| game.side_of(Seat(s)).0 < sides), "{name}");
        assert_eq!(game.winner(), None, "{name}: a winner before the end");
        game.legal_moves_into(&mut moves);
        assert!(!moves.is_empty(), "{name}: a seat to move has a legal move");
        assert!(moves.iter().all(|&m| game.is_legal(m)), "{name}");
        // An illegal move is refused and changes nothing.
        if !moves.contains(&F::PASS) {
            let before = (game.snapshot(None), game.revealed_snapshot(None), game.plies(), game.to_move());
            assert!(!game.is_legal(F::PASS), "{name}");
            assert!(game.play(F::PASS).is_err(), "{name}: an illegal pass is refused");
            let after = (game.snapshot(None), game.revealed_snapshot(None), game.plies(), game.to_move());
            assert_eq!(before, after, "{name}: a refused move left the match untouched");
        }
        let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
        let plies = game.plies();
        let events = game.play(m).unwrap_or_else(|e| panic!("{name}: legal {m} refused: {e}"));
        assert!(!events.is_empty(), "{name}: a move tells what happened");
        assert_eq!(game.plies(), plies + 1, "{name}");
        let now = game.hand_number();
        assert!(now >= hand, "{name}: hands only go forward");
        if now > hand || game.is_over() {
            // The move that ends a hand keeps its final position.
            let end = game.take_hand_end().unwrap_or_else(|| panic!("{name}: no final position of hand {hand}"));
            assert_eq!(end.hand_number(), hand, "{name}");
        }
        assert!(game.take_hand_end().is_none(), "{name}: a final position is taken once");
        hand = now;
    }
    game.legal_moves_into(&mut moves);
    assert!(moves.is_empty(), "{name}: no legal move once the match is over");
    assert!(game.play(F::PASS).is_err(), "{name}: nothing is played after the end");
    if let Some(w) = game.winner() {
        assert!(w.0 < sides, "{name}");
    }
    game
}

fn tiles(name: &str, seed: u64) -> Game {
    let rules: Arc<Rules> = Rules::preset(name).unwrap().into();
    let seats = *rules.seat_range().start();
    <Game as Family>::deal(rules, Seating::new(seats), seed).unwrap()
}

fn poly(name: &str, seed: u64) -> PolyGame {
    let rules = Arc::new(PolyRules::preset(name).unwrap());
    let seats = *rules.seat_range().start();
    <PolyGame as Family>::deal(rules, seats, seed).unwrap()
}

#[test]
fn every_preset_of_both_families_plays_to_the_end_keeping_the_invariants() {
    for seed in 0..3 {
        for name in PRESETS {
            play_out(tiles(name, seed), seed, name);
        }
        for name in POLY_PRESETS {
            play_out(poly(name, seed), seed, name);
        }
    }
}

/// The same seed deals and plays the same match, in both families.
#[test]
fn a_seed_replays_the_same_match() {
    for name in PRESETS {
        let (a, b) = (play_out(tiles(name, 5), 9, name), play_out(tiles(name, 5), 9, name));
        assert_eq!(a.revealed_snapshot(None), b.revealed_snapshot(None), "{name}");
        assert_eq!((a.scores(), a.winner(), a.seed()), (b.scores(), b.winner(), b.seed()), "{name}");
    }
    for name in POLY_PRESETS {
        let (a, b) = (play_out(poly(name, 5), 9, name), play_out(poly(name, 5), 9, name));
        assert_eq!(a, b, "{name}");
    }
}

/// A finished match restarted with a seed is the match that seed deals,
/// and plays to the end again.
#[test]
fn a_restarted_match_is_a_fresh_one() {
    fn check<F: Family>(mut done: F, fresh: F, name: &str) {
        done.restart(fresh.seed());
        assert_eq!(done.plies(), 0, "{name}");
        assert_eq!(done.revealed_snapshot(None), fresh.revealed_snapshot(None), "{name}");
        assert_eq!((done.to_move(), done.scores()), (fresh.to_move(), fresh.scores()), "{name}");
        play_out(done, 2, name);
    }
    for name in PRESETS {
        check(play_out(tiles(name, 1), 1, name), tiles(name, 4), name);
    }
    for name in POLY_PRESETS {
        check(play_out(poly(name, 1), 1, name), poly(name, 4), name);
    }
}

/// Every seat count a preset allows deals, and the referee of a strict
/// variant rules as the plain play does.
#[test]
fn every_seat_count_deals_and_the_strict_referee_plays() {
    for name in PRESETS {
        let rules: Arc<Rules> = Rules::preset(name).unwrap().into();
        for seats in rules.seat_range() {
            let mut g = <Game as Family>::deal(rules.clone(), Seating::new(seats), 1).unwrap();
            assert_eq!(Family::seats(&g), seats, "{name}");
            let mut moves = <Game as Family>::MoveList::default();
            g.legal_moves_into(&mut moves);
            g.referee(moves[0]).unwrap();
            assert_eq!(g.plies(), 1, "{name}");
        }
    }
    for name in POLY_PRESETS {
        let rules = Arc::new(PolyRules::preset(name).unwrap());
        for seats in rules.seat_range() {
            let g = <PolyGame as Family>::deal(rules.clone(), seats, 1).unwrap();
            assert_eq!((Family::seats(&g), g.sides()), (seats, seats), "{name}");
        }
    }
}
