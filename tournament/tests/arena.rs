//! The arena: pairing free entrants by standing, rematches held back,
//! the deadline, streak points, the table limit and replay from stored
//! tables; a property test plays arenas on random timings.

mod common;

use capicua_tournament::{
    Control, ControlError, EntrantId, Entry, MatchResult, REMATCH_WAIT_MS, Round, SeatResult, StopReason, Tournament,
    TournamentSpec,
};
use common::{cases, mix};
use proptest::prelude::*;

/// An arena of `n` duel entrants `p0..`, 3/1/0 points unless `extra` says otherwise.
fn arena(n: usize, stage: &str, extra: &str) -> Tournament {
    Tournament::new(spec(n, stage, extra).validate().unwrap())
}

fn spec(n: usize, stage: &str, extra: &str) -> TournamentSpec {
    common::spec(
        "duel",
        n,
        &format!(r#"[{{ "format": "arena", "duration-secs": 60 {stage} }}]"#),
        &format!(r#", "scoring": {{ "points": {{ "per-result": {{ "win": 3, "draw": 1, "loss": 0 }} }} }} {extra}"#),
    )
}

/// Side `winner` wins table `round` (`None`: a draw).
fn result(round: &Round, winner: Option<u32>) -> MatchResult {
    MatchResult { round: round.number, table: 0, seats: vec![SeatResult::default(); 2], winner }
}

fn pairs(tables: &[Round]) -> Vec<(u32, u32)> {
    tables.iter().map(|r| (r.tables[0].sides[0][0].0, r.tables[0].sides[1][0].0)).collect()
}

fn points(t: &Tournament) -> Vec<i64> {
    let mut p = vec![0; t.entrants().len()];
    for s in t.standings() {
        p[s.entrant.index()] = s.points;
    }
    p
}

#[test]
fn free_entrants_meet_their_nearest_in_the_standings() {
    let mut t = arena(6, "", "");
    t.start_arena(60_000);
    // Everyone level: seed order.
    let first = t.arena_pair(0).tables;
    assert_eq!(pairs(&first), [(0, 1), (2, 3), (4, 5)]);
    t.record(result(&first[0], Some(0))).unwrap(); // 0 beats 1
    t.record(result(&first[1], Some(1))).unwrap(); // 3 beats 2
    t.record(result(&first[2], Some(0))).unwrap(); // 4 beats 5
    // Standings: 0, 3, 4 (3 points), then 1, 2, 5; each meets the next one down.
    assert_eq!(pairs(&t.arena_pair(1_000).tables), [(0, 3), (4, 1), (2, 5)]);
    assert_eq!(t.rounds_in_play().iter().map(|r| r.number).collect::<Vec<_>>(), [3, 4, 5]);
}

#[test]
fn an_immediate_rematch_waits_while_someone_else_may_come_free() {
    let mut t = arena(4, "", "");
    t.start_arena(60_000);
    let first = t.arena_pair(0).tables;
    assert_eq!(pairs(&first), [(0, 1), (2, 3)]);
    t.record(result(&first[0], Some(0))).unwrap();
    // 0 and 1 alone are free, and just met: held back, to be tried again after the wait.
    let held = t.arena_pair(10);
    assert_eq!((held.tables.len(), held.wake_at), (0, Some(10 + REMATCH_WAIT_MS)));
    t.record(result(&first[1], Some(0))).unwrap();
    // 2 and 3 are free now: 0 and 1 each meet someone new.
    let next = t.arena_pair(20).tables;
    assert_eq!(pairs(&next), [(0, 2), (1, 3)]);
    // Both tables end; the nearest below 0 is its last opponent 2, skipped for 1.
    t.record(result(&next[0], Some(0))).unwrap();
    t.record(result(&next[1], None)).unwrap();
    let third = t.arena_pair(30).tables;
    for (a, b) in pairs(&third) {
        assert!(![(0, 2), (2, 0), (1, 3), (3, 1)].contains(&(a, b)), "immediate rematch {a}-{b}");
    }
    assert_eq!(third.len(), 2);
}

#[test]
fn the_deadline_stops_pairing_and_games_in_play_still_count() {
    let mut t = arena(4, "", "");
    assert!(t.arena_pair(0).tables.is_empty(), "an arena not started pairs nobody");
    t.start_arena(60_000);
    let first = t.arena_pair(59_999).tables;
    assert_eq!(first.len(), 2);
    t.record(result(&first[0], Some(1))).unwrap();
    let late = t.arena_pair(60_000);
    assert_eq!(late, Default::default(), "nothing is paired at the deadline");
    assert!(!t.is_finished(), "a game is still in play");
    t.record(result(&first[1], Some(0))).unwrap();
    assert_eq!(t.stop_reason(), Some(StopReason::Completed));
    assert_eq!(points(&t), [0, 3, 3, 0]);
    assert_eq!(t.winners(), [EntrantId(1)]);
    // A result for no table is refused.
    assert!(t.record(result(&first[0], Some(0))).is_err());
}

#[test]
fn wins_count_double_after_two_wins_in_a_row_until_a_non_win() {
    for (bonus, expected) in [(true, 3 + 3 + 6 + 6 + 1 + 3 + 3 + 6), (false, 3 * 7 + 1)] {
        let mut t = arena(2, &format!(r#", "streak-bonus": {bonus}"#), "");
        t.start_arena(60_000);
        let mut now = 0;
        // Entrant 0 wins four, draws, wins three.
        for outcome in [true, true, true, true, false, true, true, true] {
            // Two entrants only: each rematch waits for nobody else to come free.
            let table = loop {
                let p = t.arena_pair(now);
                match p.tables.first() {
                    Some(table) => break table.clone(),
                    None => now = p.wake_at.unwrap(),
                }
            };
            let side0 = table.tables[0].sides[0][0] == EntrantId(0);
            let winner = outcome.then_some(u32::from(!side0));
            t.record(result(&table, winner)).unwrap();
        }
        assert_eq!(points(&t), [expected, 1], "streak-bonus = {bonus}");
    }
}

#[test]
fn no_table_beyond_max_games() {
    let mut t = arena(6, "", r#", "max-games": 4"#);
    t.start_arena(60_000);
    let first = t.arena_pair(0).tables;
    assert_eq!(first.len(), 3);
    for r in &first {
        t.record(result(r, Some(0))).unwrap();
    }
    let next = t.arena_pair(10);
    assert_eq!((next.tables.len(), next.wake_at), (1, None));
    t.record(result(&next.tables[0], Some(0))).unwrap();
    assert!(t.is_finished(), "closed at the limit, nothing in play");
}

#[test]
fn arena_specs_are_checked() {
    let refused = |s: TournamentSpec| s.validate().unwrap_err().field;
    let base = spec(4, "", "");
    let mut s = base.clone();
    s.stages[0].duration_secs = None;
    assert_eq!(refused(s), "stages[0].duration-secs");
    for d in [0, capicua_tournament::MAX_ARENA_SECS + 1] {
        let mut s = base.clone();
        s.stages[0].duration_secs = Some(d);
        assert_eq!(refused(s), "stages[0].duration-secs");
    }
    let mut s = base.clone();
    s.stages.insert(0, serde_json::from_str(r#"{ "format": "swiss", "rounds": 2, "advance": 4 }"#).unwrap());
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "stages[1].format");
    assert!(e.message.contains("single-stage"), "{e}");
    let mut s = base.clone();
    s.stages[0].format = capicua_tournament::FormatKind::Swiss;
    s.stages[0].rounds = Some(3);
    assert_eq!(refused(s), "stages[0].duration-secs", "duration-secs belongs to arenas");
    let mut s = base.clone();
    s.stop.rounds = Some(3);
    assert_eq!(refused(s), "stop.rounds");
    let ffa = common::spec("free-for-all", 8, r#"[{ "format": "arena", "duration-secs": 60 }]"#, "");
    assert_eq!(refused(ffa), "table");
    let text = "name = \"a\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"a\", \"b\"]\n\
                [[stages]]\nformat = \"arena\"\nduration-secs = -5\n";
    assert_eq!(TournamentSpec::from_toml(text).unwrap_err().field.as_deref(), Some("stages[0].duration-secs"));
}

#[test]
fn stored_tables_out_of_order_are_refused() {
    let mut t = arena(4, "", "");
    t.start_arena(60_000);
    let tables = t.arena_pair(0).tables;
    let config = t.config().clone();
    let e = Tournament::replay_with_tables(config.clone(), &tables[1..], &[]).unwrap_err();
    assert_eq!(e, capicua_tournament::ArenaError::OutOfOrder { expected: 0, got: 1 });
    let mut other = Tournament::new(common::config("duel", 4, r#"[{ "format": "round-robin" }]"#, ""));
    assert!(other.add_arena_table(tables[0].clone()).is_err());
}

/// Pairs (waiting out held-back rematches) until a table is paired.
fn next_table(t: &mut Tournament, now: &mut u64) -> Round {
    loop {
        let p = t.arena_pair(*now);
        match p.tables.first() {
            Some(table) => return table.clone(),
            None => *now = p.wake_at.expect("the arena still pairs"),
        }
    }
}

/// The live arena and the replay of its stored tables and log agree.
fn assert_replays(t: &Tournament, log: &[Entry], now: u64) {
    let mut back = Tournament::replay_arena_log(t.config().clone(), t.arena_tables(), log).unwrap();
    back.start_arena(60_000);
    back.arena_tick(now);
    assert_eq!(&back, t);
}

#[test]
fn a_withdrawn_arena_entrant_is_paired_no_more_and_its_game_in_play_counts() {
    let mut t = arena(4, "", "");
    t.start_arena(60_000);
    let mut log = Vec::new();
    let first = t.arena_pair(0).tables;
    assert_eq!(pairs(&first), [(0, 1), (2, 3)]);
    // 1 withdraws while playing 0.
    let gone = Control::Withdraw { entrant: EntrantId(1), before_start: false };
    t.control(gone.clone()).unwrap();
    log.push(Entry::Control(gone));
    for (r, w) in [(&first[0], Some(1)), (&first[1], Some(0))] {
        t.record(result(r, w)).unwrap();
        log.push(Entry::Result(result(r, w)));
    }
    assert_eq!(points(&t), [0, 3, 3, 0], "its game in play counts");
    let mut now = 10;
    for _ in 0..6 {
        let table = next_table(&mut t, &mut now);
        assert!(!table.tables[0].sides.concat().contains(&EntrantId(1)), "{table:?}");
        let r = result(&table, Some(0));
        t.record(r.clone()).unwrap();
        log.push(Entry::Result(r));
    }
    assert_eq!(t.withdrawn(), [EntrantId(1)]);
    assert_replays(&t, &log, now);
    t.arena_tick(60_000);
    assert!(t.is_finished());
    assert!(!t.winners().contains(&EntrantId(1)));
}

#[test]
fn an_arena_correction_recomputes_points_and_streaks_from_the_corrected_results() {
    let mut t = arena(2, r#", "streak-bonus": true"#, "");
    t.start_arena(60_000);
    let mut log = Vec::new();
    let mut now = 0;
    // Entrant 0 wins three in a row: 3 + 3 + 6 (the third on a streak).
    for _ in 0..3 {
        let table = next_table(&mut t, &mut now);
        let side0 = table.tables[0].sides[0][0] == EntrantId(0);
        let r = result(&table, Some(u32::from(!side0)));
        t.record(r.clone()).unwrap();
        log.push(Entry::Result(r));
    }
    assert_eq!(points(&t), [12, 0]);
    // The first was a draw: the streak starts at the second win, the third wins no bonus.
    let played = t.results()[0].clone();
    let fixed = MatchResult { winner: None, ..played.clone() };
    assert_eq!(t.control(Control::Correct { result: fixed.clone() }).unwrap(), Some(played));
    log.push(Entry::Control(Control::Correct { result: fixed.clone() }));
    assert_eq!(points(&t), [1 + 3 + 3, 1]);
    // As if recorded so from the start.
    let mut results = t.results().to_vec();
    results[0] = fixed;
    let mut straight = Tournament::replay_with_tables(t.config().clone(), t.arena_tables(), &results).unwrap();
    straight.start_arena(60_000);
    assert_eq!(straight.standings(), t.standings());
    // The next win is the second in a row: no bonus yet.
    let table = next_table(&mut t, &mut now);
    let side0 = table.tables[0].sides[0][0] == EntrantId(0);
    let r = result(&table, Some(u32::from(!side0)));
    t.record(r.clone()).unwrap();
    log.push(Entry::Result(r));
    assert_eq!(points(&t), [1 + 3 + 3 + 6, 1]);
    assert_replays(&t, &log, now);
    // A correction of a table without a result, or of the wrong shape, is refused.
    let unplayed = MatchResult { round: 9, ..t.results()[0].clone() };
    assert_eq!(
        t.control(Control::Correct { result: unplayed }),
        Err(ControlError::NoSuchResult { round: 9, table: 0 })
    );
    let side = MatchResult { winner: Some(2), ..t.results()[0].clone() };
    assert!(matches!(t.control(Control::Correct { result: side }), Err(ControlError::Shape(_))));
}

#[test]
fn a_late_arena_entrant_is_paired_at_the_next_pairing() {
    let mut t = arena(3, "", "");
    t.start_arena(60_000);
    let first = t.arena_pair(0).tables;
    assert_eq!(pairs(&first), [(0, 1)], "2 waits alone");
    let late = Control::Enter { entrant: capicua_tournament::EntrantSpec::Player("late".into()) };
    t.control(late.clone()).unwrap();
    let log = vec![Entry::Control(late)];
    assert_eq!(pairs(&t.arena_pair(10).tables), [(2, 3)]);
    assert_eq!(t.standings().len(), 4);
    // Replayed from the configuration as created: the log adds the entrant.
    let created = arena(3, "", "").config().clone();
    let mut back = Tournament::replay_arena_log(created, t.arena_tables(), &log).unwrap();
    back.start_arena(60_000);
    assert_eq!(back, t);
}

/// A reader that took the log before a late entry and the tables after the
/// table that seats the late entrant has that table ahead of the entry:
/// the table waits for the entry (the next reading brings both) instead of
/// refusing the whole reading.
#[test]
fn a_table_read_ahead_of_its_entrants_entry_waits_for_it() {
    let created = arena(3, "", "").config().clone();
    let mut t = Tournament::new(created.clone());
    t.start_arena(60_000);
    t.arena_pair(0);
    let late = Control::Enter { entrant: capicua_tournament::EntrantSpec::Player("late".into()) };
    t.control(late.clone()).unwrap();
    assert_eq!(pairs(&t.arena_pair(10).tables), [(2, 3)]);
    let tables = t.arena_tables().to_vec();

    let mut reader = Tournament::new(created);
    reader.start_arena(60_000);
    // The first reading: the log before the entry, every table.
    reader.extend_arena_log(&tables, &[]).unwrap();
    assert_eq!(reader.arena_tables(), &tables[..1], "the late entrant's table waits");
    // The next reading: from the tables it holds, and the log since.
    reader.extend_arena_log(&tables[reader.arena_tables().len()..], &[Entry::Control(late)]).unwrap();
    reader.arena_tick(10);
    assert_eq!(reader.arena_tables(), &tables[..]);
    assert_eq!(reader, t);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// Games of random lengths end in random order: nobody is ever in two
    /// games, every result counts with the streak rule recomputed from the
    /// tables, and the stored tables and results replay to the same state.
    #[test]
    fn arenas_on_random_timings_replay_and_score_exactly(n in 2usize..12, seed in any::<u64>(), bonus in any::<bool>()) {
        let mut t = arena(n, &format!(r#", "streak-bonus": {bonus}"#), "");
        t.start_arena(60_000);
        let mut now = 0u64;
        // (ends at, table) of the games in play.
        let mut playing: Vec<(u64, Round)> = Vec::new();
        let mut order: Vec<Round> = Vec::new();
        let mut step = 0u64;
        while !t.is_finished() {
            step += 1;
            prop_assert!(step < 100_000);
            let pairing = t.arena_pair(now);
            for r in pairing.tables {
                let sides = &r.tables[0].sides;
                for (_, p) in &playing {
                    for e in sides.iter().flatten() {
                        prop_assert!(!p.tables[0].sides.iter().flatten().any(|x| x == e), "{e:?} in two games");
                    }
                }
                playing.push((now + 1 + mix(seed ^ u64::from(r.number)) % 9_000, r));
            }
            // The next event: a game ends, or the pairing asked to be woken.
            let next_end = playing.iter().map(|p| p.0).min();
            match (next_end, pairing.wake_at) {
                (Some(end), wake) if wake.is_none_or(|w| end <= w) => {
                    now = end;
                    let i = playing.iter().position(|p| p.0 == end).unwrap();
                    let (_, r) = playing.remove(i);
                    let h = mix(seed ^ (u64::from(r.number) << 20));
                    let winner = [Some(0), Some(1), None][(h % 3) as usize];
                    t.record(result(&r, winner)).unwrap();
                    order.push(r);
                }
                (_, Some(w)) => now = w,
                _ => t.arena_tick(now),
            }
        }
        prop_assert!(now >= 60_000 || t.arena_tables().is_empty());
        // Points recomputed from the tables and results in record order.
        let mut expected = vec![0i64; n];
        let mut run = vec![0u32; n];
        for (r, res) in order.iter().zip(t.results()) {
            for (s, side) in r.tables[0].sides.iter().enumerate() {
                let e = side[0].index();
                let won = res.winner == Some(s as u32);
                expected[e] += match res.winner { None => 1, Some(_) if won => 3, Some(_) => 0 };
                if won && bonus && run[e] >= 2 {
                    expected[e] += 3;
                }
                run[e] = if won { run[e] + 1 } else { 0 };
            }
        }
        prop_assert_eq!(points(&t), expected);
        let mut back = Tournament::replay_with_tables(t.config().clone(), t.arena_tables(), t.results()).unwrap();
        back.start_arena(60_000);
        back.arena_tick(now);
        prop_assert_eq!(back, t);
    }
}
