//! Helpers shared by the integration tests: building specs and playing
//! tournaments to the end with a deterministic result policy.
#![allow(dead_code)]

use capicua_tournament::{Config, MatchResult, Round, SeatResult, Table, Tournament, TournamentSpec};

/// Entrant names as JSON: players `p0..`, or teams `t0..` of `t0a`/`t0b`.
pub fn entrants(table: &str, n: usize) -> String {
    let list: Vec<String> = (0..n)
        .map(|i| {
            if table == "fixed-pairs" {
                format!(r#"{{ "name": "t{i}", "members": ["t{i}a", "t{i}b"] }}"#)
            } else {
                format!(r#""p{i}""#)
            }
        })
        .collect();
    format!("[{}]", list.join(", "))
}

/// A spec from JSON fragments: `stages` is a JSON array, `extra` more top-level fields (starting with a comma or empty).
pub fn spec(table: &str, n: usize, stages: &str, extra: &str) -> TournamentSpec {
    let variant = if table == "fixed-pairs" || table == "rotating-partners" { "latin" } else { "block" };
    let json = format!(
        r#"{{ "name": "t", "seed": 11, "table": "{table}", "variants": ["{variant}"], "entrants": {}, "stages": {stages} {extra} }}"#,
        entrants(table, n)
    );
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

pub fn config(table: &str, n: usize, stages: &str, extra: &str) -> Config {
    spec(table, n, stages, extra).validate().unwrap()
}

/// SplitMix64 finalizer: a deterministic hash for result policies.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pseudo-random result: random scores, a random winner (draws if `draws`).
pub fn random_result(seed: u64, round: &Round, table: &Table, draws: bool) -> MatchResult {
    let h = mix(seed ^ ((round.number as u64) << 32) ^ table.id as u64);
    let sides = table.sides.len() as u64;
    let pick = h % (sides + u64::from(draws));
    let seats = table
        .seats
        .iter()
        .enumerate()
        .map(|(i, _)| SeatResult {
            score: (mix(h + i as u64) % 100) as i64,
            pips: (mix(h ^ i as u64) % 40) as u32,
            timeouts: 0,
        })
        .collect();
    MatchResult { round: round.number, table: table.id, seats, winner: (pick < sides).then_some(pick as u32) }
}

/// Plays every round with `policy` until the tournament ends; returns the rounds played.
/// An arena is played on a clock of its own: sixteen pairings over its
/// duration, each table played before the next pairing.
pub fn play(t: &mut Tournament, mut policy: impl FnMut(&Round, &Table) -> MatchResult) -> Vec<Round> {
    let mut rounds = Vec::new();
    if let Some(duration) = t.arena_duration_ms() {
        t.start_arena(duration);
        let step = (duration / 16).max(1);
        let mut now = 0;
        while !t.is_finished() {
            assert!(now <= duration, "an arena ends at its deadline");
            for round in t.arena_pair(now).tables {
                t.record(policy(&round, &round.tables[0])).unwrap();
                rounds.push(round);
            }
            now += step;
            t.arena_tick(now);
        }
        assert!(t.rounds().iter().eq(rounds.iter()), "tables paired are the tables completed");
        return rounds;
    }
    while let Some(round) = t.next_round() {
        assert!(rounds.len() < 5000, "tournament does not end");
        for table in &round.tables {
            t.record(policy(&round, table)).unwrap();
        }
        rounds.push(round);
    }
    assert!(t.is_finished());
    // Rounds left without a table (everyone's opponent disqualified) complete by themselves.
    let completed: Vec<&Round> = t.rounds().iter().filter(|r| !r.tables.is_empty()).collect();
    assert!(completed.iter().copied().eq(rounds.iter()), "rounds handed out are the rounds completed");
    rounds
}

/// The lower-id entrant's side wins (a fixed strength order).
pub fn stronger_wins(round: &Round, table: &Table) -> MatchResult {
    let best = (0..table.sides.len()).min_by_key(|&s| table.sides[s].iter().min().copied()).unwrap();
    let seats = table
        .seats
        .iter()
        .map(|s| SeatResult { score: if s.side as usize == best { 10 } else { 0 }, ..SeatResult::default() })
        .collect();
    MatchResult { round: round.number, table: table.id, seats, winner: Some(best as u32) }
}

/// Proptest case count: modest by default, `PROPTEST_CASES` scales it.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
