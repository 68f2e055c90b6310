//! Dutch-system Swiss pairing: properties over random events, and the
//! defects of neighbours pairing it removes.

mod common;

use capicua_tournament::{Config, EntrantId, Round, SwissPairing, Tournament};
use common::{cases, config, mix, play, random_result, spec, stronger_wins};
use proptest::prelude::*;

const PER_RESULT: &str = r#", "scoring": { "points": { "per-result": { "win": 2, "draw": 1, "loss": 0 } } }"#;

fn swiss(n: usize, rounds: usize, pairing: &str, extra: &str) -> Config {
    let pairing = if pairing.is_empty() { String::new() } else { format!(r#", "pairing": "{pairing}""#) };
    config("duel", n, &format!(r#"[{{ "format": "swiss", "rounds": {rounds} {pairing} }}]"#), extra)
}

/// What the rounds so far leave behind: who met, byes, and sides.
struct Ledger {
    met: Vec<Vec<u32>>,
    byes: Vec<u32>,
    /// Side 0 games less side 1 games.
    diff: Vec<i32>,
    /// The sides of each entrant's games, in order.
    sides: Vec<Vec<u32>>,
}

impl Ledger {
    fn new(n: usize) -> Ledger {
        Ledger { met: vec![vec![0; n]; n], byes: vec![0; n], diff: vec![0; n], sides: vec![Vec::new(); n] }
    }

    fn pairs(round: &Round) -> Vec<(EntrantId, EntrantId)> {
        round.tables.iter().map(|t| (t.sides[0][0], t.sides[1][0])).collect()
    }

    fn repeats(&self, round: &Round) -> usize {
        Self::pairs(round).iter().filter(|(a, b)| self.met[a.index()][b.index()] > 0).count()
    }

    fn add(&mut self, round: &Round) {
        for (a, b) in Self::pairs(round) {
            self.met[a.index()][b.index()] += 1;
            self.met[b.index()][a.index()] += 1;
            self.diff[a.index()] += 1;
            self.diff[b.index()] -= 1;
            self.sides[a.index()].push(0);
            self.sides[b.index()].push(1);
        }
        for b in &round.byes {
            self.byes[b.index()] += 1;
        }
    }

    /// Whether a round without a repeat (and without a second bye) exists.
    fn repeat_free_round_exists(&self, n: usize) -> bool {
        let byes: Vec<usize> = (0..n).filter(|&b| n % 2 == 1 && self.byes[b] == 0).collect();
        self.round_exists(n, &byes, |a, b| self.met[a][b] == 0)
    }

    /// Whether, with the bye `bye`, a round exists without a repeat and
    /// without a pair of entrants who both need the same side to stay
    /// within two of even.
    fn limit_free_round_exists(&self, n: usize, bye: Option<usize>) -> bool {
        let clash = |a: usize, b: usize| {
            let (x, y) = (self.diff[a], self.diff[b]);
            (x >= 2 && y >= 2) || (x <= -2 && y <= -2)
        };
        self.round_exists(n, &bye.into_iter().collect::<Vec<_>>(), |a, b| self.met[a][b] == 0 && !clash(a, b))
    }

    /// Whether the `n` entrants less one of `byes` (if `n` is odd) can all
    /// be paired by pairs `ok` allows: exhaustively over the subsets still
    /// to pair up to 20 entrants, beyond by a maximum-cardinality matching.
    fn round_exists(&self, n: usize, byes: &[usize], ok: impl Fn(usize, usize) -> bool) -> bool {
        if n > 20 {
            let size = n + n % 2;
            let mut w = vec![0i64; size * size];
            for a in 0..n {
                for b in a + 1..n {
                    w[a * size + b] = i64::from(ok(a, b));
                }
                if n % 2 == 1 {
                    w[a * size + n] = i64::from(byes.contains(&a));
                }
            }
            return integer_blossom::max_weight_matching(&w, size).iter().all(Option::is_some);
        }
        // 0 unknown, 1 pairable, 2 not.
        let mut memo = vec![0u8; 1 << n];
        let all = (1u32 << n) - 1;
        if n.is_multiple_of(2) {
            return pairable(all, &mut memo, &ok);
        }
        byes.iter().any(|&b| pairable(all & !(1 << b), &mut memo, &ok))
    }

    fn longest_run(&self) -> usize {
        self.sides.iter().map(|s| s.chunk_by(|a, b| a == b).map(<[u32]>::len).max().unwrap_or(0)).max().unwrap_or(0)
    }
}

fn pairable(left: u32, memo: &mut [u8], ok: &impl Fn(usize, usize) -> bool) -> bool {
    if left == 0 {
        return true;
    }
    if memo[left as usize] != 0 {
        return memo[left as usize] == 1;
    }
    let a = left.trailing_zeros() as usize;
    let rest = left & !(1 << a);
    let found = (0..32).filter(|&b| rest & (1 << b) != 0 && ok(a, b)).any(|b| pairable(rest & !(1 << b), memo, ok));
    memo[left as usize] = if found { 1 } else { 2 };
    found
}

/// Plays `t` to the end, checking the Dutch properties round by round;
/// returns the number of rounds that repeated a pairing although a
/// repeat-free round existed.
fn avoidable_repeats(t: &mut Tournament, n: usize, seed: u64) -> usize {
    let mut ledger = Ledger::new(n);
    let mut avoidable = 0;
    while let Some(round) = t.next_round() {
        if ledger.repeats(&round) > 0 && ledger.repeat_free_round_exists(n) {
            avoidable += 1;
        }
        for table in &round.tables {
            t.record(random_result(seed, &round, table, true)).unwrap();
        }
        ledger.add(&round);
    }
    avoidable
}

#[test]
fn first_round_pairs_the_top_half_against_the_bottom_half() {
    let t = Tournament::new(swiss(8, 3, "dutch", ""));
    let round = t.next_round().unwrap();
    let mut pairs: Vec<(u32, u32)> = Ledger::pairs(&round).iter().map(|(a, b)| (a.0.min(b.0), a.0.max(b.0))).collect();
    pairs.sort();
    assert_eq!(pairs, vec![(0, 4), (1, 5), (2, 6), (3, 7)]);
}

#[test]
fn a_spec_without_pairing_keeps_the_neighbours_pairing_it_was_stored_with() {
    let t = Tournament::new(swiss(8, 3, "", ""));
    let round = t.next_round().unwrap();
    let pairs: Vec<(u32, u32)> = Ledger::pairs(&round).iter().map(|(a, b)| (a.0, b.0)).collect();
    assert_eq!(pairs, vec![(0, 1), (2, 3), (4, 5), (6, 7)]);
    assert_eq!(t.config().spec().stages[0].pairing, None);
}

#[test]
fn new_events_get_dutch_pairing() {
    let mut s = spec("duel", 6, r#"[{ "format": "swiss", "rounds": 3 }]"#, "");
    assert!(s.fill_new_event_defaults());
    assert_eq!(s.stages[0].pairing, Some(SwissPairing::Dutch));
    // Stored and read back, the spec keeps it.
    let text = serde_json::to_string(&s).unwrap();
    let back: capicua_tournament::TournamentSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(back.stages[0].pairing, Some(SwissPairing::Dutch));
    // Four entrants per table keep their Swiss, and other formats have no pairing.
    let mut four = spec("free-for-all", 8, r#"[{ "format": "swiss", "rounds": 3 }]"#, "");
    assert!(!four.fill_new_event_defaults());
    let mut rr = spec("duel", 6, r#"[{ "format": "round-robin" }]"#, "");
    assert!(!rr.fill_new_event_defaults());
}

#[test]
fn pairing_is_refused_where_it_has_no_meaning() {
    let refused = |table: &str, stages: &str| spec(table, 8, stages, "").validate().unwrap_err().field;
    assert_eq!(refused("duel", r#"[{ "format": "round-robin", "pairing": "dutch" }]"#), "stages[0].pairing");
    assert_eq!(
        refused("free-for-all", r#"[{ "format": "swiss", "rounds": 2, "pairing": "dutch" }]"#),
        "stages[0].pairing"
    );
    assert!(
        spec("free-for-all", 8, r#"[{ "format": "swiss", "rounds": 2, "pairing": "neighbours" }]"#, "")
            .validate()
            .is_ok()
    );
}

#[test]
fn sides_alternate_where_neighbours_pairing_kept_the_leader_on_one_side() {
    let run = |pairing: &str| {
        let n = 16;
        let mut t = Tournament::new(swiss(n, 9, pairing, PER_RESULT));
        let rounds = play(&mut t, stronger_wins);
        let mut ledger = Ledger::new(n);
        for r in &rounds {
            ledger.add(r);
        }
        (ledger.longest_run(), ledger.diff.iter().map(|d| d.abs()).max().unwrap())
    };
    let (run_old, diff_old) = run("neighbours");
    assert!(run_old >= 9 && diff_old >= 9, "neighbours: the leader always on side 0 ({run_old}, {diff_old})");
    let (run_new, diff_new) = run("dutch");
    assert!(run_new <= 2 && diff_new <= 2, "dutch: longest run {run_new}, largest side difference {diff_new}");
}

#[test]
fn no_late_repeat_while_a_repeat_free_round_exists() {
    // Forty entrants, 39 rounds: late in the event the neighbours search
    // runs out of budget and repeats where a repeat-free round exists.
    let (n, seed) = (40, mix(1));
    let mut t = Tournament::new(swiss(n, n - 1, "neighbours", PER_RESULT));
    assert!(avoidable_repeats(&mut t, n, seed) > 0, "neighbours pairing repeats late where it need not");
    let mut t = Tournament::new(swiss(n, n - 1, "dutch", PER_RESULT));
    assert_eq!(avoidable_repeats(&mut t, n, seed), 0);
}

#[test]
fn stored_dutch_pairings_replay_as_they_were_played() {
    // Pairings of a fixed event, pinned: a change to the weights or to the
    // matching crate that pairs it otherwise would change stored tournaments.
    let mut t = Tournament::new(swiss(11, 6, "dutch", PER_RESULT));
    let rounds = play(&mut t, |r, tb| random_result(3, r, tb, true));
    let text: Vec<String> = rounds
        .iter()
        .map(|r| {
            let tables: Vec<String> = Ledger::pairs(r).iter().map(|(a, b)| format!("{}-{}", a.0, b.0)).collect();
            format!("{} bye {}", tables.join(" "), r.byes[0].0)
        })
        .collect();
    let expected = [
        "0-5 6-1 2-7 8-3 4-9 bye 10",
        "3-0 1-2 7-4 9-10 5-6 bye 8",
        "4-3 0-1 10-5 2-8 6-7 bye 9",
        "1-4 3-10 7-0 8-6 9-2 bye 5",
        "10-4 1-3 0-6 7-8 5-9 bye 2",
        "10-1 4-0 3-7 9-8 2-5 bye 6",
    ];
    assert_eq!(text, expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Random events of 4-64 entrants and up to n-1 rounds with random
    /// results: no repeated pairing while a repeat-free round exists (checked
    /// exhaustively up to 20 entrants, beyond by a maximum-cardinality
    /// matching of the pairs not met), sides within two of even while a
    /// round without a repeat allows it, at most one bye each, everyone
    /// seated or given the bye every round.
    #[test]
    fn dutch_swiss_keeps_its_promises(n in 4usize..=64, share in 0.0f64..=1.0, per_result in any::<bool>(), seed in any::<u64>()) {
        let rounds = 1 + ((n - 2) as f64 * share).round() as usize;
        let extra = if per_result { PER_RESULT } else { "" };
        let mut t = Tournament::new(swiss(n, rounds, "dutch", extra));
        let mut ledger = Ledger::new(n);
        let mut played = 0;
        while let Some(round) = t.next_round() {
            let seated: usize = round.tables.len() * 2 + round.byes.len();
            prop_assert_eq!(seated, n);
            prop_assert_eq!(round.byes.len(), n % 2);
            let repeats = ledger.repeats(&round);
            if repeats > 0 {
                let avoidable = ledger.repeat_free_round_exists(n);
                prop_assert!(!avoidable, "round {}: {} avoidable repeats", round.number, repeats);
            }
            let limit_free = ledger.limit_free_round_exists(n, round.byes.first().map(|b| b.index()));
            for table in &round.tables {
                t.record(random_result(seed, &round, table, true)).unwrap();
            }
            ledger.add(&round);
            played += 1;
            if limit_free {
                prop_assert!(ledger.diff.iter().all(|d| d.abs() <= 2), "round {}: side differences {:?}", round.number, ledger.diff);
            }
            prop_assert!(ledger.byes.iter().all(|&b| b <= 1), "round {}: byes {:?}", round.number, ledger.byes);
        }
        prop_assert_eq!(played, rounds);
    }
}
