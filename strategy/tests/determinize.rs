//! `pimc`'s sampled deals are always consistent with the public history.

mod common;

use capicua_engine::{Action, Game, Seat, Seating};
use capicua_strategy::determinize::sample;
use capicua_strategy::facts::{PublicFacts, passes_reveal_pips};
use capicua_strategy::rng::BotRng;
use capicua_strategy::seat_view::{SeatView, TableSeat};
use proptest::prelude::*;

/// Plays `plies` random moves, then checks `samples` deals for the seat to
/// move. Returns how many samples found no deal (allowed only where seats
/// draw: the sampler models the draws' constraints only in part and gives
/// up after a bounded number of rejected deals).
fn check_position(table: usize, seed: u64, plies: usize, samples: usize) -> Result<usize, TestCaseError> {
    let tables = common::tables();
    let (rules, seats) = tables[table % tables.len()].clone();
    let mut game = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
    let mut rng = BotRng::new(seed);
    for _ in 0..plies {
        if game.to_move().is_none() {
            break;
        }
        let moves = game.legal_moves();
        game.play(moves[rng.below(moves.len())]).unwrap();
    }
    let Some(me) = game.to_move() else { return Ok(0) };
    let view = TableSeat::new(&game, me);
    let facts = PublicFacts::of(&view);
    let name = &rules.variant().name;
    let mut missed = 0;
    for _ in 0..samples {
        let deal = sample(&view, &rules, &facts, &mut rng);
        let Some(deal) = deal else {
            prop_assert!(rules.draws(), "no deal found in {name}, {seats} seats, seed {seed}, {plies} plies");
            missed += 1;
            continue;
        };
        let d = &deal.game;
        prop_assert_eq!(d.history(), game.history(), "public history differs");
        prop_assert_eq!(d.board().ends(), game.board().ends());
        prop_assert_eq!(d.stock_len(), game.stock_len());
        prop_assert_eq!(d.to_move(), Some(me));
        prop_assert_eq!(d.hand(me), game.hand(me), "the viewer's own hand is real");
        let mut all = d.out_of_play();
        for t in d.stock() {
            all.insert(t);
        }
        for s in (0..seats).map(Seat) {
            let h = d.hand(s);
            prop_assert_eq!(h, deal.hands[s.index()]);
            prop_assert_eq!(h.len(), game.hand_len(s), "seat {} holds the public count", s.0);
            prop_assert!(!h.intersects(&all));
            all = all.or(h);
            // Never a pip a seat has shown it lacks.
            let void = facts.voids[s.index()];
            for t in h.iter() {
                let joins_a_void = (0..32u8).any(|p| void & (1 << p) != 0 && rules.playable_on(p).contains(t));
                prop_assert!(
                    !joins_a_void,
                    "seat {} given {t} despite passing on it ({name}, me {}, history {:?})",
                    s.0,
                    me.0,
                    game.history()
                );
            }
        }
        prop_assert_eq!(all.or(game.view(me).played()), rules.catalog().all(), "every tile is somewhere");
        // The pass constraint, recomputed directly from the history.
        if passes_reveal_pips(&rules) {
            for (i, r) in game.history().iter().enumerate() {
                let Action::Pass { open_pips } = r.action else { continue };
                let drew_since =
                    game.history()[i..].iter().any(|later| later.seat == r.seat && later.action == Action::Draw);
                if !drew_since {
                    for t in d.hand(r.seat).iter() {
                        let joins = (0..32u8).any(|p| open_pips & (1 << p) != 0 && rules.playable_on(p).contains(t));
                        prop_assert!(!joins, "{t} joins an end seat {} passed on", r.seat.0);
                    }
                }
            }
        }
        prop_assert_eq!(view.seat(), me);
    }
    Ok(missed)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::size("CAPICUA_BOT_SOAK_CASES", 64) as u32))]

    #[test]
    fn sampled_deals_are_consistent(table in 0usize..64, seed in any::<u64>(), plies in 0usize..60) {
        check_position(table, seed, plies, 3)?;
    }
}

#[test]
fn deals_are_found_in_nearly_every_position() {
    let n = common::tables().len();
    let (mut tried, mut missed) = (0, 0);
    for table in 0..n {
        for plies in [5, 15, 25, 40] {
            for seed in 0..common::size("CAPICUA_BOT_SOAK", 4) {
                missed += check_position(table, seed * 1000 + table as u64, plies, 2).unwrap();
                tried += 2;
            }
        }
    }
    assert!(missed * 50 <= tried, "{missed} of {tried} samples found no deal");
}
