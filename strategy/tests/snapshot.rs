//! One implementation serves local and remote bots: a strategy deciding
//! from a serialized snapshot chooses exactly what it chooses from the
//! in-process view.

use capicua_engine::{Game, MoveList, Rules, Seating, ViewSnapshot};
use capicua_strategy::seat_view::{SeatView, SnapshotSeat, TableSeat};
use capicua_strategy::spec::build;

#[test]
fn snapshot_and_view_give_the_same_decisions() {
    let rules = Rules::preset("latin").unwrap();
    for spec in ["heuristic", "smart", "disabler", "support", "carrier", "pimc:samples=4", "ismcts:iterations=30"] {
        let mut game = Game::new(rules.clone().into(), Seating::new(4), 5).unwrap();
        let mut local = build(spec, 9).unwrap();
        let mut remote = build(spec, 9).unwrap();
        while let Some(seat) = game.to_move() {
            let json = serde_json::to_string(&game.view(seat).snapshot()).unwrap();
            let snap: ViewSnapshot = serde_json::from_str(&json).unwrap();
            let remote_view = SnapshotSeat::new(&rules, &snap).unwrap();
            let local_view = TableSeat::new(&game, seat);
            assert_eq!(remote_view.unseen(), local_view.unseen());
            let (mut a, mut b) = (MoveList::new(), MoveList::new());
            remote_view.legal_moves(&mut a);
            local_view.legal_moves(&mut b);
            assert_eq!(a, b);
            let m = local.choose(&local_view);
            assert_eq!(remote.choose(&remote_view), m, "{spec} decided differently from a snapshot");
            game.play(m).unwrap();
        }
    }
}

#[test]
fn a_spectator_snapshot_is_refused() {
    let rules = Rules::preset("latin").unwrap();
    let game = Game::new(rules.clone().into(), Seating::new(4), 5).unwrap();
    let snap = game.spectator_view().snapshot();
    assert!(SnapshotSeat::new(&rules, &snap).is_err());
}

#[test]
fn a_snapshot_knows_the_turn_order_in_force() {
    // Latin turns clockwise once a seat has passed twice (a condition).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../variants/latin-reverse-after-two-passes.toml");
    let rules = Rules::from_file_text(path, &std::fs::read_to_string(path).unwrap()).unwrap();
    let mut changed = 0;
    for seed in 0..40 {
        let mut game = Game::new(rules.clone().into(), Seating::new(4), seed).unwrap();
        let mut bot = build("heuristic", seed).unwrap();
        while let Some(seat) = game.to_move() {
            let snap = game.view(seat).snapshot();
            let remote = SnapshotSeat::new(&rules, &snap).unwrap();
            changed += usize::from(snap.active_conditions != 0);
            for s in (0..4).map(capicua_engine::Seat) {
                assert_eq!(remote.next_seat(s), game.next_seat(s), "seed {seed}");
            }
            game.play(bot.choose(&TableSeat::new(&game, seat))).unwrap();
        }
    }
    assert!(changed > 0, "the condition never held");
}
