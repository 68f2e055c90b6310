//! `capicua-bot poly-arena` seats the strategy crate's poly strategies, and
//! `capicua-bot strategies` lists them.

use std::process::Command;

fn bot(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-bot")).args(args).output().expect("capicua-bot runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_search_plays_the_greedy_strategy_with_an_interval() {
    let args =
        ["poly-arena", "--variant", "triominoes", "--games", "2", "--seats", "pimc:samples=2,greedy", "--seed", "4"];
    let (ok, out, err) = bot(&args);
    assert!(ok, "{err}");
    let row =
        |name: &str| out.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap_or_else(|| panic!("{out}"));
    assert!(row("pimc:samples=2").contains('%'), "{out}");
    assert!(row("greedy").contains('-'), "a 95% interval: {out}");
    // The same seed gives the same results.
    let (_, again, _) = bot(&args);
    let results = |s: &str| s.lines().filter(|l| !l.contains("moves/s")).collect::<Vec<_>>().join("\n");
    assert_eq!(results(&out), results(&again));
}

#[test]
fn an_unknown_poly_strategy_is_refused_by_name() {
    let (ok, _, err) = bot(&["poly-arena", "--seats", "smart,greedy", "--games", "1"]);
    assert!(!ok);
    assert!(err.contains("unknown strategy \"smart\""), "{err}");
}

#[test]
fn strategies_lists_the_poly_strategies() {
    let (ok, out, err) = bot(&["strategies"]);
    assert!(ok, "{err}");
    let poly = out.split("poly strategies").nth(1).unwrap_or_else(|| panic!("no poly section: {out}"));
    for name in ["random", "greedy", "pimc"] {
        assert!(poly.lines().any(|l| l.starts_with(name)), "{name} missing: {out}");
    }
}
