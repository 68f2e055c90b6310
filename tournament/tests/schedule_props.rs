//! Scheduling properties over entrant counts 2..=64 (4..=64 for 4-seat tables).

mod common;

use std::collections::BTreeMap;

use capicua_tournament::{EntrantId, Round, Tournament};
use common::{cases, config, play, random_result};
use proptest::prelude::*;

type Pairs = BTreeMap<(u32, u32), u32>;

fn key(a: EntrantId, b: EntrantId) -> (u32, u32) {
    (a.0.min(b.0), a.0.max(b.0))
}

/// Opponent and partner meetings; also checks nobody is seated twice in a round.
fn meetings(rounds: &[Round], n: usize) -> (Pairs, Pairs, Vec<u32>) {
    let (mut opp, mut partners, mut byes) = (Pairs::new(), Pairs::new(), vec![0; n]);
    for r in rounds {
        let mut seen = vec![false; n];
        let everyone = r.tables.iter().flat_map(|t| t.sides.iter().flatten()).chain(&r.byes);
        for e in everyone {
            assert!(!seen[e.index()], "{e:?} twice in round {}", r.number);
            seen[e.index()] = true;
        }
        for t in &r.tables {
            for (i, side) in t.sides.iter().enumerate() {
                for (j, &a) in side.iter().enumerate() {
                    for &b in &side[j + 1..] {
                        *partners.entry(key(a, b)).or_default() += 1;
                    }
                    for other in &t.sides[i + 1..] {
                        for &b in other {
                            *opp.entry(key(a, b)).or_default() += 1;
                        }
                    }
                }
            }
        }
        for b in &r.byes {
            byes[b.index()] += 1;
        }
    }
    (opp, partners, byes)
}

fn all_pairs(n: usize) -> impl Iterator<Item = (u32, u32)> {
    (0..n as u32).flat_map(move |a| (a + 1..n as u32).map(move |b| (a, b)))
}

fn everyone_each_round(rounds: &[Round], n: usize) {
    for r in rounds {
        let count = r.tables.iter().map(|t| t.sides.iter().flatten().count()).sum::<usize>() + r.byes.len();
        assert_eq!(count, n, "round {} seats or byes every entrant", r.number);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    #[test]
    fn round_robin_two_per_table_meets_every_pair_legs_times(n in 2usize..=64, legs in 1u32..=2, fixed in any::<bool>(), seed in any::<u64>()) {
        let table = if fixed { "fixed-pairs" } else { "duel" };
        let mut t = Tournament::new(config(table, n, &format!(r#"[{{ "format": "round-robin", "legs": {legs} }}]"#), ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, true));
        let (opp, _, byes) = meetings(&rounds, n);
        for p in all_pairs(n) {
            prop_assert_eq!(opp.get(&p).copied().unwrap_or(0), legs, "pair {:?}", p);
        }
        let per_leg = if n % 2 == 0 { n - 1 } else { n };
        prop_assert_eq!(rounds.len(), per_leg * legs as usize);
        everyone_each_round(&rounds, n);
        let expected_byes = if n % 2 == 1 { legs } else { 0 };
        prop_assert!(byes.iter().all(|&b| b == expected_byes), "{:?}", byes);
    }

    #[test]
    fn round_robin_free_for_all_covers_every_pair_with_balanced_byes(n in 4usize..=64, seed in any::<u64>()) {
        let mut t = Tournament::new(config("free-for-all", n, r#"[{ "format": "round-robin" }]"#, ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, false));
        let (opp, _, byes) = meetings(&rounds, n);
        for p in all_pairs(n) {
            prop_assert!(opp.get(&p).copied().unwrap_or(0) >= 1, "pair {:?} never met", p);
        }
        // Each round gives an entrant 3 new opponents at best: (n-1)/3 rounds is the floor.
        let floor = (n - 1).div_ceil(3);
        prop_assert!(rounds.len() <= 2 * floor + 3, "{} rounds for {} entrants", rounds.len(), n);
        everyone_each_round(&rounds, n);
        let (lo, hi) = (byes.iter().min().unwrap(), byes.iter().max().unwrap());
        prop_assert!(hi - lo <= 1, "byes {:?}", byes);
        for r in &rounds {
            prop_assert!(r.tables.iter().all(|t| t.sides.len() == 4 && t.seats.len() == 4));
            prop_assert_eq!(r.byes.len(), n % 4);
        }
    }

    #[test]
    fn rotating_partners_round_robin_balances_partners(n in 4usize..=64, seed in any::<u64>()) {
        let mut t = Tournament::new(config("rotating-partners", n, r#"[{ "format": "round-robin" }]"#, ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, false));
        let (_, partners, byes) = meetings(&rounds, n);
        prop_assert!(partners.values().all(|&c| c == 1), "someone partnered twice");
        let mut per_entrant = vec![0u32; n];
        for &(a, b) in partners.keys() {
            per_entrant[a as usize] += 1;
            per_entrant[b as usize] += 1;
        }
        if n % 4 == 0 {
            prop_assert_eq!(partners.len(), n * (n - 1) / 2, "every pair partners exactly once");
            prop_assert!(byes.iter().all(|&b| b == 0));
        } else {
            let (lo, hi) = (per_entrant.iter().min().unwrap(), per_entrant.iter().max().unwrap());
            prop_assert!(hi - lo <= 2, "partner counts {:?}", per_entrant);
        }
        everyone_each_round(&rounds, n);
        for r in &rounds {
            for tb in &r.tables {
                prop_assert_eq!(tb.sides.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2]);
                // Partners sit opposite.
                prop_assert_eq!(tb.seats[0].side, tb.seats[2].side);
                prop_assert_eq!(tb.seats[1].side, tb.seats[3].side);
                prop_assert_ne!(tb.seats[0].side, tb.seats[1].side);
            }
        }
    }

    #[test]
    fn swiss_never_repeats_while_avoidable(n in 2usize..=64, extra in 0usize..3, fixed in any::<bool>(), seed in any::<u64>()) {
        // With at most n/2 rounds a repeat-free pairing always exists (Dirac).
        let max = (n / 2).max(1);
        let rounds_wanted = (extra + (n as f64).log2().ceil() as usize).clamp(1, max);
        let table = if fixed { "fixed-pairs" } else { "duel" };
        let stages = format!(r#"[{{ "format": "swiss", "rounds": {rounds_wanted} }}]"#);
        let mut t = Tournament::new(config(table, n, &stages, ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, true));
        prop_assert_eq!(rounds.len(), rounds_wanted);
        let (opp, _, byes) = meetings(&rounds, n);
        if n % 2 == 0 || rounds_wanted < n / 2 {
            prop_assert!(opp.values().all(|&c| c == 1), "repeat pairing: {:?}", opp.iter().find(|e| *e.1 > 1));
        }
        prop_assert!(byes.iter().all(|&b| b <= 1), "a second bye: {:?}", byes);
        everyone_each_round(&rounds, n);
    }

    #[test]
    fn knockout_has_one_winner_and_correct_byes(n in 2usize..=64, fixed in any::<bool>(), seed in any::<u64>()) {
        let table = if fixed { "fixed-pairs" } else { "duel" };
        let mut t = Tournament::new(config(table, n, r#"[{ "format": "knockout" }]"#, ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, false));
        let size = n.next_power_of_two();
        prop_assert_eq!(rounds.len(), size.trailing_zeros() as usize);
        prop_assert_eq!(rounds[0].byes.len(), size - n);
        // Byes go to the top seeds, and only in the first round.
        prop_assert!(rounds[0].byes.iter().all(|b| (b.index()) < size - n));
        prop_assert!(rounds[1..].iter().all(|r| r.byes.is_empty()));
        let games: usize = rounds.iter().map(|r| r.tables.len()).sum();
        prop_assert_eq!(games, n - 1);
        let standings = t.standings();
        let alive: Vec<_> = standings.iter().filter(|s| !s.eliminated).collect();
        prop_assert_eq!(alive.len(), 1);
        prop_assert_eq!(t.winners(), vec![alive[0].entrant]);
        prop_assert_eq!(standings[0].entrant, alive[0].entrant);
        // Exactly one loss for everyone else, none for the winner.
        for s in &standings {
            let expected = u32::from(s.entrant != alive[0].entrant);
            prop_assert_eq!(s.losses, expected, "{:?}", s);
        }
    }

    #[test]
    fn double_knockout_eliminates_at_the_second_loss(n in 2usize..=64, seed in any::<u64>()) {
        let mut t = Tournament::new(config("duel", n, r#"[{ "format": "double-knockout" }]"#, ""));
        let rounds = play(&mut t, |r, tb| random_result(seed, r, tb, false));
        let standings = t.standings();
        let alive: Vec<_> = standings.iter().filter(|s| !s.eliminated).collect();
        prop_assert_eq!(alive.len(), 1);
        prop_assert!(alive[0].losses <= 1);
        for s in standings.iter().filter(|s| s.eliminated) {
            prop_assert_eq!(s.losses, 2, "{:?}", s);
        }
        let games: usize = rounds.iter().map(|r| r.tables.len()).sum();
        prop_assert_eq!(games, 2 * (n - 1) + alive[0].losses as usize);
        prop_assert_eq!(t.winners(), vec![alive[0].entrant]);
    }

    #[test]
    fn replay_equals_live(n in 4usize..=24, format in 0usize..7, seed in any::<u64>(), cut in 0usize..200) {
        let (table, stages) = [
            ("duel", r#"[{ "format": "round-robin", "groups": 2, "advance": 2 }, { "format": "knockout" }]"#),
            ("duel", r#"[{ "format": "swiss", "rounds": 3, "advance": 4 }, { "format": "double-knockout" }]"#),
            ("free-for-all", r#"[{ "format": "swiss", "rounds": 3 }]"#),
            ("rotating-partners", r#"[{ "format": "round-robin" }]"#),
            ("fixed-pairs", r#"[{ "format": "knockout" }]"#),
            ("duel", r#"[{ "format": "round-robin" }]"#),
            ("duel", r#"[{ "format": "swiss", "rounds": 5, "pairing": "dutch", "advance": 2 }, { "format": "knockout" }]"#),
        ][format];
        let extra = r#", "draw": true, "disqualify": { "consecutive-losses": 3 }, "lenient-judge": { "probability": 0.5 }"#;
        let cfg = config(table, n, stages, extra);
        let mut live = Tournament::new(cfg.clone());
        play(&mut live, |r, tb| random_result(seed, r, tb, true));
        let results = live.results().to_vec();
        prop_assert_eq!(&Tournament::replay(cfg.clone(), &results).unwrap(), &live);
        // A crash mid-tournament: the replayed prefix is the live state at that point.
        let cut = cut.min(results.len());
        let mut partial = Tournament::new(cfg.clone());
        for r in &results[..cut] {
            partial.record(r.clone()).unwrap();
        }
        let resumed = Tournament::replay(cfg, &results[..cut]).unwrap();
        prop_assert_eq!(&resumed, &partial);
        if let Some(round) = resumed.next_round() {
            prop_assert_eq!(resumed.pending_tables().len(), round.tables.len() - results[..cut].iter().filter(|r| r.round == round.number).count());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// Under disqualification rules, in every format: a disqualified entrant is
    /// never seated again, ranks are 1..=n with the disqualified last, and the
    /// tournament still ends.
    #[test]
    fn disqualified_entrants_are_never_seated_again(n in 4usize..=40, format in 0usize..8, seed in any::<u64>()) {
        let (table, stages) = [
            ("duel", r#"[{ "format": "round-robin", "legs": 2 }]"#),
            ("duel", r#"[{ "format": "swiss", "rounds": 5 }]"#),
            ("duel", r#"[{ "format": "knockout" }]"#),
            ("duel", r#"[{ "format": "double-knockout" }]"#),
            ("free-for-all", r#"[{ "format": "round-robin" }]"#),
            ("rotating-partners", r#"[{ "format": "swiss", "rounds": 4 }]"#),
            ("fixed-pairs", r#"[{ "format": "swiss", "rounds": 3, "advance": 2 }, { "format": "double-knockout" }]"#),
            ("fixed-pairs", r#"[{ "format": "swiss", "rounds": 6, "pairing": "dutch" }]"#),
        ][format];
        let extra = r#", "disqualify": { "consecutive-losses": 2, "loss-percent": 70, "min-games": 3 }"#;
        let mut t = Tournament::new(config(table, n, stages, extra));
        let mut out: Vec<EntrantId> = Vec::new();
        let mut rounds = 0;
        while let Some(round) = t.next_round() {
            rounds += 1;
            prop_assert!(rounds < 2000);
            for tb in &round.tables {
                prop_assert!(tb.sides.iter().flatten().all(|e| !out.contains(e)), "disqualified {:?} seated", out);
            }
            prop_assert!(round.byes.iter().all(|e| !out.contains(e)));
            for tb in &round.tables {
                t.record(random_result(seed, &round, tb, true)).unwrap();
            }
            let standings = t.standings();
            prop_assert_eq!(standings.iter().map(|s| s.rank).collect::<Vec<_>>(), (1..=n as u32).collect::<Vec<_>>());
            let first_dq = standings.iter().position(|s| s.disqualified).unwrap_or(n);
            prop_assert!(standings[first_dq..].iter().all(|s| s.disqualified));
            out = standings.iter().filter(|s| s.disqualified).map(|s| s.entrant).collect();
        }
        prop_assert!(t.is_finished());
        prop_assert!(t.winners().iter().all(|w| !out.contains(w)));
    }
}
