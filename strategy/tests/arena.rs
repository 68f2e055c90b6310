//! The arena's report: fields present and consistent, reproducible.

use capicua_engine::preset;
use capicua_strategy::arena::{Arena, ArenaConfig, ArenaReport, Mode};
use capicua_strategy::stats::{Sprt, SprtDecision};
use std::sync::atomic::{AtomicU64, Ordering};

fn config(variant: &str, seats: &[&str], games: u64, threads: usize, seed: u64) -> ArenaConfig {
    ArenaConfig {
        variant: preset(variant).unwrap(),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        games,
        threads,
        seed,
        mode: Mode::Hands,
        sprt: None,
        time_moves: false,
    }
}

fn run(c: ArenaConfig) -> ArenaReport {
    let progress = AtomicU64::new(0);
    let r = Arena::new(c).unwrap().run(&progress).unwrap();
    assert_eq!(progress.load(Ordering::Relaxed), r.games);
    r
}

#[test]
fn json_has_every_field_and_tallies_add_up() {
    let r = run(config("latin", &["heuristic", "random", "heuristic", "random"], 200, 2, 3));
    let json: serde_json::Value = serde_json::to_value(&r).unwrap();
    for field in ["games", "games_per_sec", "blocked_rate", "tie_rate", "tiles_per_hand", "passes_per_hand", "teams"] {
        assert!(json.get(field).is_some(), "missing {field}");
    }
    assert_eq!(json["games"], 200);
    for list in ["teams", "seats"] {
        for e in json[list].as_array().unwrap() {
            for f in ["strategy", "wins", "win_rate", "ci95_low", "ci95_high", "mean_score"] {
                assert!(e.get(f).is_some(), "{list} entry lacks {f}");
            }
            let (w, l, t) = (e["wins"].as_u64().unwrap(), e["losses"].as_u64().unwrap(), e["ties"].as_u64().unwrap());
            assert_eq!(w + l + t, 200);
            let rate = e["win_rate"].as_f64().unwrap();
            assert!((rate - w as f64 / 200.0).abs() < 1e-12);
            assert!(e["ci95_low"].as_f64().unwrap() <= rate && rate <= e["ci95_high"].as_f64().unwrap());
        }
    }
    let teams = r.teams.as_ref().unwrap();
    assert_eq!(teams.len(), 2);
    assert_eq!(teams[0].strategy, "heuristic+heuristic");
    // Two teams: one's wins are the other's losses.
    assert_eq!(teams[0].wins, teams[1].losses);
    assert_eq!(teams[0].ties, teams[1].ties);
    for rate in [r.blocked_rate, r.tie_rate] {
        assert!((0.0..=1.0).contains(&rate));
    }
    assert!(r.tiles_per_hand > 0.0 && r.tiles_per_hand <= 28.0);
    assert!(r.games_per_sec > 0.0);
}

#[test]
fn seats_without_teams_report_no_teams() {
    let r = run(config("block", &["random", "bota-gorda", "heuristic"], 60, 1, 1));
    assert!(r.teams.is_none());
    assert_eq!(r.seats.len(), 3);
    let wins: u64 = r.seats.iter().map(|e| e.wins).sum();
    // Exactly one seat wins each game that someone wins.
    assert_eq!(wins + (r.tie_rate * 60.0).round() as u64, 60);
}

#[test]
fn results_are_reproducible_for_a_seed() {
    let seats = ["smart", "random", "bota-gorda", "carrier"];
    let strip = |mut r: ArenaReport| {
        r.seconds = 0.0;
        r.games_per_sec = 0.0;
        r.threads = 0;
        r
    };
    let a = strip(run(config("latin", &seats, 120, 2, 42)));
    let b = strip(run(config("latin", &seats, 120, 2, 42)));
    assert_eq!(a, b);
    let one_thread = strip(run(config("latin", &seats, 120, 1, 42)));
    assert_eq!(a, one_thread, "results do not depend on the thread count");
    let other_seed = strip(run(config("latin", &seats, 120, 2, 43)));
    assert_ne!(a, other_seed);
}

#[test]
fn matches_mode_plays_to_the_target() {
    let mut c = config("latin", &["heuristic", "random", "heuristic", "random"], 6, 1, 5);
    c.mode = Mode::Matches;
    let r = run(c);
    assert_eq!(r.games, 6);
    assert!(r.hands > r.games, "a match to 100 takes several hands");
    let teams = r.teams.unwrap();
    // Every match ends with a side at 100 or more.
    assert!(teams.iter().map(|t| t.mean_score).sum::<f64>() >= 100.0);
}

#[test]
fn sprt_stops_when_one_side_is_clearly_stronger() {
    let mut c = config("latin", &["heuristic", "random", "heuristic", "random"], 20_000, 2, 9);
    c.sprt = Some(Sprt::new(0.0, 20.0));
    let r = run(c);
    let s = r.sprt.unwrap();
    assert_eq!(s.decision, SprtDecision::H1);
    assert!(r.games < 20_000, "the test stopped early");
    assert!(s.llr >= s.upper);
    assert_eq!(s.wins + s.ties + s.losses, r.games);
}

#[test]
fn bad_specs_are_refused() {
    assert!(Arena::new(config("latin", &["nobody", "random", "random", "random"], 1, 1, 1)).is_err());
    assert!(Arena::new(config("latin", &["random", "random"], 1, 1, 1)).is_err(), "latin seats four");
}

/// The fast path (strategies that propose only their choice, no timing)
/// plays and tallies exactly as the referee's full turn does.
#[test]
fn the_fast_path_plays_the_same_games_as_the_timed_referee_path() {
    let seats = ["random", "bota-gorda", "smart", "heuristic"];
    let fast = run(config("latin", &seats, 400, 2, 11));
    let timed = run(ArenaConfig { time_moves: true, ..config("latin", &seats, 400, 2, 11) });
    for (a, b) in fast.seats.iter().zip(&timed.seats) {
        assert_eq!((a.wins, a.losses, a.ties, a.refused), (b.wins, b.losses, b.ties, b.refused), "{}", a.strategy);
        assert_eq!(a.mean_score, b.mean_score, "{}", a.strategy);
    }
    assert_eq!(fast.tiles_per_hand, timed.tiles_per_hand);
    assert_eq!(fast.passes_per_hand, timed.passes_per_hand);
    assert_eq!(fast.blocked_rate, timed.blocked_rate);
}

/// `tie_rate` counts games whose best score is shared however the hand
/// ended; `blocked_tie_rate` only blocked hands with equal counts. In sniff
/// they differ by more than tenfold: most shared scores come from hands
/// that went out.
#[test]
fn a_shared_best_score_is_not_a_blocked_tie() {
    let r = run(config("sniff", &["random", "random"], 3000, 2, 7));
    assert!(r.blocked_tie_rate <= r.blocked_rate, "{} > {}", r.blocked_tie_rate, r.blocked_rate);
    assert!(r.tie_rate > 10.0 * r.blocked_tie_rate, "ties {} vs blocked ties {}", r.tie_rate, r.blocked_tie_rate);
    let json: serde_json::Value = serde_json::to_value(&r).unwrap();
    assert_eq!(json["blocked_tie_rate"].as_f64(), Some(r.blocked_tie_rate));
    // In block, many hands block and some of them with equal counts.
    let b = run(config("block", &["random", "random"], 3000, 2, 7));
    assert!(
        b.blocked_tie_rate > 0.0 && b.blocked_tie_rate < b.blocked_rate,
        "{} of {}",
        b.blocked_tie_rate,
        b.blocked_rate
    );
}
