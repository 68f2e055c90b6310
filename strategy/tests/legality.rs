//! Every strategy returns only legal moves, across seeded games of every
//! preset and seat count. Size: `CAPICUA_BOT_SOAK` games per table and
//! strategy (default 4; pimc plays a quarter as many, with few samples).

mod common;

use capicua_engine::{Game, Seating};
use capicua_strategy::referee::play_turn;
use capicua_strategy::seat_view::TableSeat;
use capicua_strategy::spec::build;

const SPECS: &[&str] = &[
    "random",
    "bota-gorda",
    "heuristic",
    "carrier",
    "support",
    "disabler",
    "smart",
    "bota-gorda while hand-pips > 25 else smart",
    "cheater",
    "cheater:inner=random",
];

/// Plays `games` hands with `spec` in every seat; every choice must be legal.
fn check(spec: &str, games: u64) -> u64 {
    let mut moves = 0;
    for (t, (rules, seats)) in common::tables().into_iter().enumerate() {
        let mut bots: Vec<_> = (0..seats).map(|s| build(spec, s as u64).unwrap()).collect();
        for g in 0..games {
            let seed = (t as u64) << 32 | g;
            let mut game = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
            for (i, b) in bots.iter_mut().enumerate() {
                b.reseed(seed ^ i as u64);
            }
            while let Some(seat) = game.to_move() {
                let m = bots[seat.index()].choose(&TableSeat::new(&game, seat));
                assert!(
                    game.is_legal(m),
                    "{spec} chose illegal {m} in {} with {seats} seats, seed {seed}",
                    rules.variant().name
                );
                game.play(m).unwrap();
                moves += 1;
            }
        }
    }
    moves
}

#[test]
fn rule_of_thumb_strategies_only_choose_legal_moves() {
    let games = common::size("CAPICUA_BOT_SOAK", 4);
    for spec in SPECS {
        assert!(check(spec, games) > 0);
    }
}

#[test]
fn pimc_only_chooses_legal_moves() {
    let games = common::size("CAPICUA_BOT_SOAK", 4).div_ceil(4);
    assert!(check("pimc:samples=3", games) > 0);
    assert!(check("pimc:samples=3:beta=2:solve=6", games) > 0);
    assert!(check("pimc:samples=3:pool=3", games) > 0);
}

#[test]
fn ismcts_only_chooses_legal_moves() {
    let games = common::size("CAPICUA_BOT_SOAK", 4).div_ceil(4);
    assert!(check("ismcts:iterations=20", games) > 0);
}

#[test]
fn cheater_tries_an_illegal_move_then_plays_a_legal_one() {
    for (rules, seats) in common::tables() {
        let mut bots: Vec<_> = (0..seats).map(|s| build("cheater", s as u64).unwrap()).collect();
        let mut game = Game::new(rules.clone(), Seating::new(seats), 11).unwrap();
        let mut scratch = Vec::new();
        let mut refused = 0;
        while let Some(seat) = game.to_move() {
            let before = game.log().len();
            let played = play_turn(&mut game, bots[seat.index()].as_mut(), &mut scratch).unwrap();
            assert_eq!(game.log().len(), before + 1, "exactly one move is played");
            assert_eq!(game.log()[before], played.chosen);
            assert!(!game.is_legal(scratch[0]) || played.refused == 0);
            refused += played.refused;
        }
        assert!(refused > 0, "the cheater never tried to cheat in {}", rules.variant().name);
    }
}
