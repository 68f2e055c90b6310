//! Strategy specs: names, parameters, conditionals and files.

use capicua_strategy::SpecError;
use capicua_strategy::spec::{STRATEGIES, build};

#[test]
fn every_listed_name_builds_and_names_itself() {
    for (name, _) in STRATEGIES.iter().filter(|(n, _)| !n.contains(' ')) {
        assert_eq!(build(name, 1).unwrap().name(), *name);
    }
}

#[test]
fn parameters_are_checked() {
    assert_eq!(build("pimc:samples=50:ms=20", 1).unwrap().name(), "pimc:samples=50:ms=20");
    // Every parameter that differs from the default is named, so the name
    // builds the same player again.
    let other = "pimc:samples=200:rollout=heavy:model=uniform";
    assert_eq!(build(other, 1).unwrap().name(), other);
    assert_eq!(build("pimc:beta=2", 1).unwrap().name(), "pimc:model=heavy:beta=2");
    assert!(matches!(build("pimc:samples=lots", 1), Err(SpecError::BadParameter { .. })));
    assert!(matches!(build("random:x=1", 1), Err(SpecError::BadParameter { .. })));
    assert!(matches!(build("smart:weights=1/2", 1), Err(SpecError::BadParameter { .. })));
    assert!(matches!(build("nobody", 1), Err(SpecError::UnknownStrategy(_))));
    assert!(matches!(build("", 1), Err(SpecError::Empty)));
}

#[test]
fn conditionals_nest_to_the_right() {
    let s = build("bota-gorda while hand-pips > 25 else carrier while opponent-tiles <= 2 else heuristic", 1).unwrap();
    assert_eq!(s.name(), "bota-gorda while hand-pips > 25 else carrier while opponent-tiles <= 2 else heuristic");
    assert!(matches!(build("bota-gorda while pips > 25 else random", 1), Err(SpecError::BadCondition(_))));
    assert!(build("bota-gorda while hand-pips > 25", 1).is_err(), "an else is required");
}

#[test]
fn a_spec_file_is_read() {
    let path = std::env::temp_dir().join(format!("capicua-strategy-spec-{}.txt", std::process::id()));
    std::fs::write(&path, "# heavy hands first\nbota-gorda while hand-pips > 25\nelse smart\n").unwrap();
    let s = build(&format!("@{}", path.display()), 1).unwrap();
    assert_eq!(s.name(), "bota-gorda while hand-pips > 25 else smart");
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(build("@/no/such/file", 1), Err(SpecError::File { .. })));
}

#[test]
fn a_conditional_plays_its_branch() {
    use capicua_engine::{Game, Rules, Seating};
    use capicua_strategy::seat_view::TableSeat;
    let rules = Rules::preset("latin").unwrap();
    // Never more than 7 tiles in hand: always the `else` branch; always
    // at least 0: always the `while` branch.
    let mut never = build("random while hand-tiles > 100 else bota-gorda", 3).unwrap();
    let mut always = build("bota-gorda while hand-tiles >= 0 else random", 3).unwrap();
    let mut heavy = build("bota-gorda", 3).unwrap();
    let mut game = Game::new(rules.into(), Seating::new(4), 8).unwrap();
    let mut checked = 0;
    while let Some(seat) = game.to_move() {
        let view = TableSeat::new(&game, seat);
        let m = heavy.choose(&view);
        let value = |m| match m {
            capicua_engine::Move::Play { tile, .. } => game.rules().catalog().value(tile),
            _ => -1,
        };
        // Ties between equally heavy plays may break differently: compare weights.
        assert_eq!(value(never.choose(&view)), value(m));
        assert_eq!(value(always.choose(&view)), value(m));
        checked += 1;
        game.play(m).unwrap();
    }
    assert!(checked > 10);
}
