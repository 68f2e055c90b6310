//! Every stop, disqualification, scoring and tie-break rule, stage
//! composition, configuration errors and record errors.

mod common;

use capicua_tournament::{
    EntrantId, MatchResult, RecordError, Round, SeatResult, StopReason, Table, Tournament, TournamentSpec,
};
use common::{config, play, random_result, spec, stronger_wins};

const E: fn(u32) -> EntrantId = EntrantId;

/// A result where the side holding `winner` wins (None: draw), each seat
/// scoring `score(entrant)`, with `timeouts(entrant)` timeouts.
fn result(
    round: &Round,
    table: &Table,
    winner: Option<EntrantId>,
    score: impl Fn(EntrantId) -> i64,
    timeouts: impl Fn(EntrantId) -> u32,
) -> MatchResult {
    let seats = table
        .seats
        .iter()
        .map(|s| SeatResult { score: score(s.entrant), pips: 0, timeouts: timeouts(s.entrant) })
        .collect();
    let winner = winner.map(|w| table.sides.iter().position(|s| s.contains(&w)).unwrap() as u32);
    MatchResult { round: round.number, table: table.id, seats, winner }
}

fn has(table: &Table, e: EntrantId) -> bool {
    table.sides.iter().flatten().any(|&x| x == e)
}

fn rr(n: usize, extra: &str) -> Tournament {
    Tournament::new(config("duel", n, r#"[{ "format": "round-robin" }]"#, extra))
}

// ---- stop ----------------------------------------------------------------

#[test]
fn stop_after_rounds() {
    let mut t = rr(6, r#", "stop": { "rounds": 2 }"#);
    play(&mut t, stronger_wins);
    assert_eq!(t.rounds().len(), 2);
    assert_eq!(t.stop_reason(), Some(StopReason::Rounds));
    // p0 and p1 both won twice; Buchholz (stronger opponents) puts p1 first.
    let s = t.standings();
    assert_eq!((s[0].entrant, s[0].points, s[1].entrant, s[1].points), (E(1), 20, E(0), 20));
    assert_eq!(t.winners(), vec![E(1)]);
}

#[test]
fn stop_after_games_finishes_the_round() {
    // Three tables a round: 3 games < 4 after round 0, 6 >= 4 after round 1.
    let mut t = rr(6, r#", "stop": { "games": 4 }"#);
    play(&mut t, stronger_wins);
    assert_eq!(t.rounds().len(), 2);
    assert_eq!(t.results().len(), 6);
    assert_eq!(t.stop_reason(), Some(StopReason::Games));
}

#[test]
fn stop_when_an_entrant_reaches_points() {
    // The winner scores 10 a game. Rounds: 0-3 1-2, then 2-0 3-1, then 0-1 2-3.
    let mut t = rr(4, r#", "stop": { "points": 20 }"#);
    play(&mut t, stronger_wins);
    assert_eq!(t.rounds().len(), 2);
    assert_eq!(t.stop_reason(), Some(StopReason::Points));
    // Both reached 20 in the same round; one winner is configured (the
    // default), so the standings order names it.
    let s = t.standings();
    assert_eq!((s[0].points, s[1].points), (20, 20));
    assert_eq!(t.winners(), vec![s[0].entrant]);
    // A later target is reached by p0 alone.
    let mut t = rr(4, r#", "stop": { "points": 30 }, "scoring": { "tie-breaks": [] }"#);
    play(&mut t, |r, tb| {
        let w = tb.sides.iter().flatten().copied().min().unwrap();
        result(r, tb, Some(w), move |e| if e == w { 10 + 5 * i64::from(e == E(0)) } else { 0 }, |_| 0)
    });
    assert_eq!((t.rounds().len(), t.stop_reason()), (2, Some(StopReason::Points)));
    assert_eq!(t.winners(), vec![E(0)]);
}

#[test]
fn stop_when_enough_entrants_reach_points() {
    // Round 0 is 0-3 and 1-2: p0 and p1 both reach 3 points.
    let extra = r#", "stop": { "points": 3, "winners": 2 }, "scoring": { "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } } }"#;
    let mut t = rr(4, extra);
    play(&mut t, stronger_wins);
    assert_eq!(t.rounds().len(), 1);
    assert_eq!(t.stop_reason(), Some(StopReason::Points));
    assert_eq!(t.winners(), vec![E(0), E(1)]);
}

#[test]
fn stop_on_points_names_exactly_the_configured_winners() {
    // Six entrants, three tables: three winners reach 3 points in round 0,
    // but two are asked for: the standings order (tie-breaks, then seed) picks them.
    let extra = r#", "stop": { "points": 3, "winners": 2 }, "scoring": { "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } } }"#;
    let mut t = rr(6, extra);
    play(&mut t, stronger_wins);
    assert_eq!((t.rounds().len(), t.stop_reason()), (1, Some(StopReason::Points)));
    let s = t.standings();
    assert_eq!(s.iter().filter(|s| s.points >= 3).count(), 3, "{s:?}");
    assert_eq!(t.winners(), vec![s[0].entrant, s[1].entrant]);
}

#[test]
fn stop_when_winners_are_decided() {
    // A knockout of 8 stops once two contenders are left: after the semifinals.
    let mut t = Tournament::new(config("duel", 8, r#"[{ "format": "knockout" }]"#, r#", "stop": { "winners": 2 }"#));
    play(&mut t, stronger_wins);
    assert_eq!(t.rounds().len(), 2);
    assert_eq!(t.stop_reason(), Some(StopReason::Winners));
    assert_eq!(t.winners(), vec![E(0), E(1)]);
}

#[test]
fn without_stop_rules_the_stages_run_out() {
    let mut t = rr(5, "");
    assert!(!t.is_finished() && t.winners().is_empty());
    play(&mut t, stronger_wins);
    assert_eq!(t.stop_reason(), Some(StopReason::Completed));
    assert_eq!(t.rounds().len(), 5);
    assert_eq!(t.winners(), vec![E(0)]);
    assert_eq!(t.record(MatchResult { round: 5, table: 0, seats: vec![], winner: None }), Err(RecordError::Finished));
}

// ---- disqualification ----------------------------------------------------

/// p3 loses every game; every other game is drawn.
fn p3_loses(round: &Round, table: &Table) -> MatchResult {
    let winner = if has(table, E(3)) { table.sides.iter().flatten().copied().find(|&e| e != E(3)) } else { None };
    result(round, table, winner, |_| 5, |_| 0)
}

#[test]
fn disqualify_on_loss_percentage() {
    // 1 loss of 1 game is 100 % but min-games is 2: out after round 1.
    let mut t = rr(4, r#", "disqualify": { "loss-percent": 50, "min-games": 2 }"#);
    let rounds = play(&mut t, p3_loses);
    assert_eq!(rounds.len(), 3);
    assert!(has(&rounds[1].tables[0], E(3)) || has(&rounds[1].tables[1], E(3)));
    assert!(rounds[2].tables.iter().all(|tb| !has(tb, E(3))), "a disqualified entrant is not seated");
    assert_eq!(rounds[2].byes.len(), 1, "its scheduled opponent has a bye");
    let standings = t.standings();
    let last = standings.last().unwrap();
    assert_eq!((last.entrant, last.disqualified, last.games, last.losses), (E(3), true, 2, 2));
    assert!(standings[..3].iter().all(|s| !s.disqualified));
}

#[test]
fn loss_percentage_is_strictly_more_than() {
    // Everyone loses half: 50 % is not more than 50 %.
    let mut t = Tournament::new(config(
        "duel",
        2,
        r#"[{ "format": "round-robin", "legs": 2 }]"#,
        r#", "disqualify": { "loss-percent": 50, "min-games": 2 }"#,
    ));
    play(&mut t, |r, tb| result(r, tb, Some(if r.number == 0 { E(0) } else { E(1) }), |_| 0, |_| 0));
    assert!(t.standings().iter().all(|s| !s.disqualified));
}

#[test]
fn disqualify_on_consecutive_losses() {
    // p0 wins round 0 then loses rounds 1, 2, 3 (double round robin of 3).
    let stages = r#"[{ "format": "round-robin", "legs": 2 }]"#;
    let mut t = Tournament::new(config("duel", 4, stages, r#", "disqualify": { "consecutive-losses": 3 }"#));
    let rounds = play(&mut t, |r, tb| {
        let other = tb.sides.iter().flatten().copied().find(|&e| e != E(0)).unwrap();
        let winner = if !has(tb, E(0)) {
            None
        } else if r.number == 0 {
            Some(E(0))
        } else {
            Some(other)
        };
        result(r, tb, winner, |_| 0, |_| 0)
    });
    let s = t.standings().into_iter().find(|s| s.entrant == E(0)).unwrap();
    assert!(s.disqualified);
    assert_eq!((s.wins, s.losses), (1, 3));
    assert!(rounds[4..].iter().all(|r| r.tables.iter().all(|tb| !has(tb, E(0)))));
}

#[test]
fn disqualify_on_timeouts() {
    // One timeout a game; more than 1 means out after the second game.
    let mut t = rr(4, r#", "disqualify": { "timeouts": 1 }"#);
    play(&mut t, |r, tb| result(r, tb, None, |_| 0, |e| u32::from(e == E(2))));
    let s = t.standings().into_iter().find(|s| s.entrant == E(2)).unwrap();
    assert!(s.disqualified);
    assert_eq!((s.games, s.timeouts), (2, 2));
}

#[test]
fn lenient_judge_always_forgiving_halves_points() {
    // p3 scores 8 a game and loses; 2 consecutive losses would disqualify.
    let extra = r#", "disqualify": { "consecutive-losses": 2 }, "lenient-judge": { "probability": 1.0 }"#;
    let mut t = rr(4, extra);
    play(&mut t, |r, tb| {
        let winner = tb.sides.iter().flatten().copied().find(|&e| e != E(3)).filter(|_| has(tb, E(3)));
        result(r, tb, winner, |e| if e == E(3) { 8 } else { 0 }, |_| 0)
    });
    let s = t.standings().into_iter().find(|s| s.entrant == E(3)).unwrap();
    // Round 0: 8. Round 1: 16, halved to 8. Round 2: 16, halved to 8.
    assert_eq!((s.disqualified, s.reprieves, s.points, s.games), (false, 2, 8, 3));
}

#[test]
fn lenient_judge_off_or_never_forgiving_disqualifies() {
    for extra in [
        r#", "disqualify": { "consecutive-losses": 2 }"#,
        r#", "disqualify": { "consecutive-losses": 2 }, "lenient-judge": { "probability": 0.0 }"#,
    ] {
        let mut t = rr(4, extra);
        play(&mut t, p3_loses);
        let s = t.standings().into_iter().find(|s| s.entrant == E(3)).unwrap();
        assert!(s.disqualified && s.reprieves == 0);
    }
}

#[test]
fn lenient_judge_is_a_seeded_coin() {
    // Everyone times out in round 0; with p = 0.5 some stay in, and the same seed decides the same.
    let run = |seed: u64| {
        let mut s: TournamentSpec = spec(
            "duel",
            40,
            r#"[{ "format": "swiss", "rounds": 1 }]"#,
            r#", "disqualify": { "timeouts": 0 }, "lenient-judge": { "probability": 0.5 }"#,
        );
        s.seed = seed;
        let mut t = Tournament::new(s.validate().unwrap());
        play(&mut t, |r, tb| result(r, tb, None, |_| 0, |_| 1));
        t.standings().iter().map(|s| (s.entrant, s.disqualified)).collect::<Vec<_>>()
    };
    let a = run(1);
    let kept = a.iter().filter(|x| !x.1).count();
    assert!((8..=32).contains(&kept), "{kept} of 40 reprieved");
    assert_eq!(a, run(1));
    assert_ne!(a, run(2));
}

// ---- scoring -------------------------------------------------------------

/// Two entrants, two legs: p0 wins 100-40, then a 30-30 draw.
fn two_games(scoring: &str) -> Vec<(i64, u32, u32, u32)> {
    let stages = r#"[{ "format": "round-robin", "legs": 2 }]"#;
    let mut t = Tournament::new(config("duel", 2, stages, &format!(r#", "scoring": {scoring}"#)));
    play(&mut t, |r, tb| {
        if r.number == 0 {
            result(r, tb, Some(E(0)), |e| if e == E(0) { 100 } else { 40 }, |_| 0)
        } else {
            result(r, tb, None, |_| 30, |_| 0)
        }
    });
    let mut s = t.standings();
    s.sort_by_key(|s| s.entrant);
    s.iter().map(|s| (s.points, s.wins, s.draws, s.losses)).collect()
}

#[test]
fn points_per_game_rules() {
    assert_eq!(two_games(r#"{ "points": "match-score" }"#), vec![(130, 1, 1, 0), (70, 0, 1, 1)]);
    assert_eq!(two_games(r#"{ "points": "wins" }"#), vec![(1, 1, 1, 0), (0, 0, 1, 1)]);
    assert_eq!(
        two_games(r#"{ "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } } }"#),
        vec![(4, 1, 1, 0), (1, 0, 1, 1)]
    );
}

fn team_game(extra: &str, seats: [(i64, u32); 4]) -> Vec<i64> {
    let mut t = Tournament::new(config("fixed-pairs", 2, r#"[{ "format": "round-robin" }]"#, extra));
    play(&mut t, |r, tb| MatchResult {
        round: r.number,
        table: tb.id,
        seats: seats.iter().map(|&(score, pips)| SeatResult { score, pips, timeouts: 0 }).collect(),
        winner: Some(0),
    });
    let mut s = t.standings();
    s.sort_by_key(|s| s.entrant);
    s.iter().map(|s| s.points).collect()
}

#[test]
fn team_score_members_or_opponents_pips() {
    // Seats 0 and 2 are team t0, seats 1 and 3 team t1.
    let seats = [(10, 0), (0, 7), (5, 3), (0, 9)];
    assert_eq!(team_game("", seats), vec![15, 0]);
    assert_eq!(team_game(r#", "scoring": { "team-score": "opponents-pips" }"#, seats), vec![16, 3]);
}

#[test]
fn winner_most_points_or_most_wins() {
    // p1 beats p0 and p2 by 10-0; p0 beats p2 by 100-0.
    let policy = |r: &Round, tb: &Table| {
        let ids: Vec<EntrantId> = tb.sides.iter().flatten().copied().collect();
        let w = if ids.contains(&E(1)) { E(1) } else { E(0) };
        let points = if w == E(1) { 10 } else { 100 };
        result(r, tb, Some(w), move |e| if e == w { points } else { 0 }, |_| 0)
    };
    let first = |extra: &str| {
        let mut t = rr(3, extra);
        play(&mut t, policy);
        t.standings()[0].entrant
    };
    assert_eq!(first(""), E(0));
    assert_eq!(first(r#", "scoring": { "winner": "most-wins" }"#), E(1));
}

#[test]
fn winner_team_with_the_best_player() {
    // t0 scores 50 + 0, t1 30 + 30: t1 has more points, t0 the best player.
    let extra = r#", "scoring": { "winner": "best-player" }"#;
    let mut t = Tournament::new(config("fixed-pairs", 2, r#"[{ "format": "round-robin" }]"#, extra));
    play(&mut t, |r, tb| {
        let seats = tb
            .seats
            .iter()
            .map(|s| SeatResult {
                score: if s.entrant == E(0) {
                    [50, 0][tb.seats.iter().filter(|x| x.entrant == E(0)).position(|x| x.player == s.player).unwrap()]
                } else {
                    30
                },
                ..SeatResult::default()
            })
            .collect();
        MatchResult { round: r.number, table: tb.id, seats, winner: None }
    });
    let s = t.standings();
    assert_eq!((s[0].entrant, s[0].points, s[1].points), (E(0), 50, 60));
    let mut most_points = config("fixed-pairs", 2, r#"[{ "format": "round-robin" }]"#, "").spec().clone();
    most_points.scoring.winner = capicua_tournament::WinnerRule::MostPoints;
    let t2 = Tournament::replay(most_points.validate().unwrap(), t.results()).unwrap();
    assert_eq!(t2.standings()[0].entrant, E(1));
}

#[test]
fn bye_rules() {
    // Three entrants, every game drawn, one bye each.
    for (bye, points) in [("nothing", 2), ("draw", 3), ("win", 5)] {
        let extra = format!(
            r#", "scoring": {{ "points": {{ "per-result": {{ "win": 3, "draw": 1, "loss": 0 }} }}, "bye": "{bye}" }}"#
        );
        let mut t = rr(3, &extra);
        play(&mut t, |r, tb| result(r, tb, None, |_| 0, |_| 0));
        assert!(t.standings().iter().all(|s| s.points == points && s.byes == 1), "bye = {bye}");
    }
}

// ---- tie-breaks ----------------------------------------------------------

/// 4 entrants: p1 beats p0 and p3, p0 beats p2 and p3, p2 beats p1, p3 beats p2.
fn mini_league(round: &Round, table: &Table) -> MatchResult {
    let ids: Vec<u32> = table.sides.iter().flatten().map(|e| e.0).collect();
    let (a, b) = (ids[0].min(ids[1]), ids[0].max(ids[1]));
    let w = match (a, b) {
        (0, 1) => 1,
        (0, _) => 0,
        (1, 2) => 2,
        (1, 3) => 1,
        _ => 3,
    };
    result(round, table, Some(E(w)), |e| if e == E(w) { 10 } else { 0 }, |_| 0)
}

fn league_order(tie_breaks: &str) -> Vec<u32> {
    let extra = format!(
        r#", "scoring": {{ "points": {{ "per-result": {{ "win": 3, "draw": 1, "loss": 0 }} }}, "tie-breaks": {tie_breaks} }}"#
    );
    let mut t = rr(4, &extra);
    play(&mut t, mini_league);
    t.standings().iter().map(|s| s.entrant.0).collect()
}

#[test]
fn head_to_head_beats_seed() {
    // p0 and p1 have 6 points, p2 and p3 have 3.
    assert_eq!(league_order("[]"), vec![0, 1, 2, 3]);
    assert_eq!(league_order(r#"["head-to-head"]"#), vec![1, 0, 3, 2]);
    let mut t = rr(
        4,
        r#", "scoring": { "points": { "per-result": { "win": 3, "draw": 1, "loss": 0 } }, "tie-breaks": ["head-to-head"] }"#,
    );
    play(&mut t, mini_league);
    let s = t.standings();
    assert_eq!(s.iter().map(|s| s.tie_breaks[0]).collect::<Vec<_>>(), vec![1, -1, 1, -1]);
}

#[test]
fn buchholz_and_lot() {
    // Buchholz (opponents' points): in a complete round robin it is 18 minus
    // one's own points, equal within each tied pair, so the seed decides.
    assert_eq!(league_order(r#"["buchholz"]"#), vec![0, 1, 2, 3]);
    // Lot: a fixed seeded permutation within each tie.
    let lot = league_order(r#"["lot"]"#);
    assert_eq!(lot, league_order(r#"["lot"]"#));
    let mut sorted = lot.clone();
    sorted.sort();
    assert_eq!(sorted, vec![0, 1, 2, 3]);
    assert!(lot[..2].contains(&0) && lot[..2].contains(&1));
}

#[test]
fn wins_points_difference_and_timeouts() {
    // Two legs between two entrants, level on the winner rule.
    let run = |winner: &str, tie_breaks: &str, games: [(Option<u32>, i64, i64, u32); 2]| {
        let extra = format!(r#", "scoring": {{ "points": "wins", "winner": "{winner}", "tie-breaks": {tie_breaks} }}"#);
        let mut t = Tournament::new(config("duel", 2, r#"[{ "format": "round-robin", "legs": 2 }]"#, &extra));
        play(&mut t, |r, tb| {
            let (w, s0, s1, t1) = games[r.number as usize];
            result(r, tb, w.map(E), |e| if e == E(0) { s0 } else { s1 }, |e| if e == E(0) { t1 } else { 0 })
        });
        t.standings()[0].entrant.0
    };
    // One win each, p1 by a wider margin: score difference picks p1, seed p0.
    let split = [(Some(0), 10, 8, 0), (Some(1), 0, 20, 0)];
    assert_eq!(run("most-points", "[]", split), 0);
    assert_eq!(run("most-points", r#"["score-difference"]"#, split), 1);
    // Two draws: the seed decides, unless p0 timed out and fewest-timeouts applies.
    let draws = [(None, 0, 0, 0), (None, 0, 0, 0)];
    assert_eq!(run("most-points", r#"["fewest-timeouts"]"#, draws), 0);
    let draws_t = [(None, 0, 0, 1), (None, 0, 0, 0)];
    assert_eq!(run("most-points", r#"["fewest-timeouts"]"#, draws_t), 1);
    assert_eq!(run("most-points", r#"[]"#, draws_t), 0);
    // Points as a tie-break after most-wins: p0 won 1 game, p1 1 game, equal points too: seed.
    assert_eq!(run("most-wins", r#"["points", "score-difference"]"#, split), 1);
}

// ---- composition and variants -------------------------------------------

#[test]
fn groups_then_knockout_of_the_top_two() {
    let stages = r#"[{ "format": "round-robin", "groups": 2, "advance": 2 }, { "format": "knockout" }]"#;
    let mut t = Tournament::new(config("duel", 8, stages, ""));
    let rounds = play(&mut t, stronger_wins);
    // Snake groups: {0, 3, 4, 7} and {1, 2, 5, 6}; three rounds, then semifinals and final.
    assert_eq!(rounds.len(), 5);
    assert!(rounds[0].tables.iter().any(|tb| has(tb, E(0)) && has(tb, E(7))));
    assert!(rounds[..3].iter().all(|r| r.stage == 0) && rounds[3..].iter().all(|r| r.stage == 1));
    let semis: Vec<Vec<u32>> =
        rounds[3].tables.iter().map(|tb| tb.sides.iter().flatten().map(|e| e.0).collect()).collect();
    assert_eq!(semis, vec![vec![0, 2], vec![1, 3]]);
    let s = t.standings();
    assert_eq!(s.iter().take(2).map(|s| s.entrant.0).collect::<Vec<_>>(), vec![0, 1]);
    assert!(s[..4].iter().all(|s| s.stage == 1) && s[4..].iter().all(|s| s.stage == 0 && s.eliminated));
    assert_eq!(t.winners(), vec![E(0)]);
}

#[test]
fn a_knockout_can_feed_a_final_round_robin() {
    // The two finalists of a knockout (winner and runner-up) replay a best-of-three league.
    let stages = r#"[{ "format": "knockout", "advance": 2 }, { "format": "round-robin", "legs": 3 }]"#;
    let mut t = Tournament::new(config("duel", 8, stages, ""));
    let rounds = play(&mut t, |r, tb| {
        // In the final stage the runner-up (p1) wins.
        let ids: Vec<EntrantId> = tb.sides.iter().flatten().copied().collect();
        let w = if r.stage == 1 { E(1) } else { *ids.iter().min().unwrap() };
        result(r, tb, Some(w), move |e| if e == w { 10 } else { 0 }, |_| 0)
    });
    assert_eq!(rounds.len(), 3 + 3);
    assert!(rounds[3..].iter().all(|r| r.tables.len() == 1 && r.byes.is_empty()));
    let s = t.standings();
    assert_eq!((s[0].entrant, s[0].stage, s[1].entrant, s[1].stage), (E(1), 1, E(0), 1));
    assert!(s[2..].iter().all(|s| s.eliminated && s.stage == 0));
    assert!(!s[0].eliminated && !s[1].eliminated);
}

#[test]
fn variants_cycle_by_round_and_stages_override() {
    let stages =
        r#"[{ "format": "swiss", "rounds": 3, "advance": 2 }, { "format": "knockout", "variants": ["longana"] }]"#;
    let mut s = spec("duel", 4, stages, "");
    s.variants = vec!["block".into(), "draw".into()];
    let mut t = Tournament::new(s.validate().unwrap());
    let rounds = play(&mut t, stronger_wins);
    let v: Vec<&str> = rounds.iter().map(|r| r.variant.as_str()).collect();
    assert_eq!(v, vec!["block", "draw", "block", "longana"]);
}

#[test]
fn seats_follow_the_table_kind() {
    let t = Tournament::new(config("fixed-pairs", 2, r#"[{ "format": "round-robin" }]"#, ""));
    let tb = &t.next_round().unwrap().tables[0];
    let players: Vec<&str> = tb.seats.iter().map(|s| s.player.as_str()).collect();
    assert_eq!(players, vec!["t0a", "t1a", "t0b", "t1b"]);
    assert_eq!(tb.seats.iter().map(|s| s.side).collect::<Vec<_>>(), vec![0, 1, 0, 1]);
    let t = Tournament::new(config("free-for-all", 4, r#"[{ "format": "round-robin" }]"#, ""));
    let tb = &t.next_round().unwrap().tables[0];
    assert_eq!(tb.seats.iter().map(|s| s.side).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}

#[test]
fn draw_shuffles_the_seeding_reproducibly() {
    let seeds = |draw: bool, seed: u64| {
        let mut s = spec("duel", 16, r#"[{ "format": "knockout" }]"#, "");
        s.draw = draw;
        s.seed = seed;
        Tournament::new(s.validate().unwrap()).entrants().iter().map(|e| e.seed).collect::<Vec<_>>()
    };
    assert_eq!(seeds(false, 1), (0..16).collect::<Vec<_>>());
    assert_ne!(seeds(true, 1), seeds(false, 1));
    assert_eq!(seeds(true, 1), seeds(true, 1));
}

#[test]
fn knockout_draw_goes_to_the_higher_score_then_the_better_seed() {
    let mut t = Tournament::new(config("duel", 4, r#"[{ "format": "knockout" }]"#, ""));
    // Round 0: 0 v 3 drawn 5-5 (seed 0 goes on), 1 v 2 drawn 0-9 (p2 goes on).
    let r0 = t.next_round().unwrap();
    for tb in &r0.tables {
        t.record(result(
            &r0,
            tb,
            None,
            |e| {
                if e == E(2) {
                    9
                } else if e == E(1) {
                    0
                } else {
                    5
                }
            },
            |_| 0,
        ))
        .unwrap();
    }
    let r1 = t.next_round().unwrap();
    let ids: Vec<u32> = r1.tables[0].sides.iter().flatten().map(|e| e.0).collect();
    assert_eq!(ids, vec![0, 2]);
}

// ---- errors --------------------------------------------------------------

fn field(json_patch: &str) -> String {
    let base = r#""name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b", "c", "d"], "stages": [{ "format": "round-robin" }]"#;
    let mut v: serde_json::Value = serde_json::from_str(&format!("{{ {base} }}")).unwrap();
    let patch: serde_json::Value = serde_json::from_str(json_patch).unwrap();
    for (k, x) in patch.as_object().unwrap() {
        v[k] = x.clone();
    }
    let spec: TournamentSpec = serde_json::from_value(v).unwrap();
    spec.validate().unwrap_err().field
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        (r#"{ "name": " " }"#, "name"),
        (r#"{ "variants": [] }"#, "variants"),
        (r#"{ "variants": ["block", "chess"] }"#, "variants[1]"),
        (r#"{ "variants": ["latin"] }"#, "variants[0]"),
        (r#"{ "table": "free-for-all", "variants": ["latin"] }"#, "variants[0]"),
        (r#"{ "table": "rotating-partners", "variants": ["block"] }"#, "variants[0]"),
        (r#"{ "entrants": ["a"] }"#, "entrants"),
        (r#"{ "table": "free-for-all", "entrants": ["a", "b", "c"] }"#, "entrants"),
        (r#"{ "entrants": ["a", "a"] }"#, "entrants[1]"),
        (r#"{ "entrants": ["a", { "name": "t", "members": ["b", "c"] }] }"#, "entrants[1]"),
        (r#"{ "table": "fixed-pairs", "variants": ["latin"], "entrants": ["a", "b"] }"#, "entrants[0]"),
        (
            r#"{ "table": "fixed-pairs", "variants": ["latin"], "entrants": [{ "name": "t", "members": ["a"] }, { "name": "u", "members": ["b", "c"] }] }"#,
            "entrants[0].members",
        ),
        (
            r#"{ "table": "fixed-pairs", "variants": ["latin"], "entrants": [{ "name": "t", "members": ["a", "b"] }, { "name": "u", "members": ["b", "c"] }] }"#,
            "entrants[1].members",
        ),
        (r#"{ "stages": [] }"#, "stages"),
        (r#"{ "stages": [{ "format": "swiss" }] }"#, "stages[0].rounds"),
        (r#"{ "stages": [{ "format": "knockout", "rounds": 2 }] }"#, "stages[0].rounds"),
        (r#"{ "stages": [{ "format": "swiss", "rounds": 2, "legs": 2 }] }"#, "stages[0].legs"),
        (r#"{ "stages": [{ "format": "round-robin", "legs": 9 }] }"#, "stages[0].legs"),
        (r#"{ "stages": [{ "format": "round-robin", "groups": 3 }] }"#, "stages[0].groups"),
        (r#"{ "stages": [{ "format": "round-robin", "advance": 2 }] }"#, "stages[0].advance"),
        (r#"{ "stages": [{ "format": "round-robin" }, { "format": "knockout" }] }"#, "stages[0].advance"),
        (r#"{ "stages": [{ "format": "round-robin", "advance": 1 }, { "format": "knockout" }] }"#, "stages[0].advance"),
        (r#"{ "stages": [{ "format": "knockout", "variants": ["nope"] }] }"#, "stages[0].variants[0]"),
        (
            r#"{ "table": "free-for-all", "variants": ["block"], "stages": [{ "format": "knockout" }] }"#,
            "stages[0].format",
        ),
        (r#"{ "stop": { "rounds": 0 } }"#, "stop.rounds"),
        (r#"{ "stop": { "games": 0 } }"#, "stop.games"),
        (r#"{ "stop": { "winners": 0 } }"#, "stop.winners"),
        (r#"{ "disqualify": { "loss-percent": 150 } }"#, "disqualify.loss-percent"),
        (r#"{ "disqualify": { "min-games": 0 } }"#, "disqualify.min-games"),
        (r#"{ "disqualify": { "consecutive-losses": 0 } }"#, "disqualify.consecutive-losses"),
        (r#"{ "lenient-judge": { "probability": 1.5 } }"#, "lenient-judge.probability"),
        (r#"{ "scoring": { "winner": "best-player" } }"#, "scoring.winner"),
        (r#"{ "scoring": { "tie-breaks": ["wins", "lot", "wins"] } }"#, "scoring.tie-breaks[2]"),
    ];
    for (patch, expected) in cases {
        assert_eq!(field(patch), expected, "{patch}");
    }
}

#[test]
fn unknown_fields_are_refused() {
    let bad = r#"{ "name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b"], "stages": [{ "format": "round-robin", "leg": 2 }] }"#;
    assert!(serde_json::from_str::<TournamentSpec>(bad).is_err());
    let bad = r#"{ "name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b"], "stages": [{ "format": "round-robin" }], "stop": { "round": 2 } }"#;
    assert!(serde_json::from_str::<TournamentSpec>(bad).is_err());
}

#[test]
fn variant_files_are_accepted_by_path() {
    let mut s = spec("duel", 2, r#"[{ "format": "round-robin" }]"#, "");
    s.variants = vec!["variants/house.toml".into()];
    assert!(s.validate().is_ok());
}

#[test]
fn record_errors_leave_the_tournament_unchanged() {
    let mut t = rr(4, "");
    let before = t.clone();
    let r = t.next_round().unwrap();
    let good = random_result(1, &r, &r.tables[0], true);
    let bad = [
        (MatchResult { round: 1, ..good.clone() }, RecordError::WrongRound { expected: 0, got: 1 }),
        (MatchResult { table: 7, ..good.clone() }, RecordError::NoSuchTable { round: 0, table: 7 }),
        (MatchResult { seats: vec![], ..good.clone() }, RecordError::SeatCount { table: 0, expected: 2, got: 0 }),
        (MatchResult { winner: Some(2), ..good.clone() }, RecordError::NoSuchSide { table: 0, sides: 2, winner: 2 }),
    ];
    for (result, err) in bad {
        assert_eq!(t.record(result), Err(err));
        assert_eq!(t, before);
    }
    t.record(good.clone()).unwrap();
    assert_eq!(t.pending_tables(), vec![1]);
    assert_eq!(t.record(good), Err(RecordError::AlreadyRecorded { round: 0, table: 0 }));
}
