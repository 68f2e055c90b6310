//! Times Dutch Swiss pairing: the milliseconds each round of a Swiss takes
//! to plan (the closing result's `record`, which ranks and pairs the next
//! round; `Tournament::new` for the first).
//!
//! ```text
//! cargo run --release -p capicua-tournament --example swiss_timing [ENTRANTS] [ROUNDS]
//! ```
//!
//! Defaults: 64 entrants, 9 rounds, win 2 / draw 1 / loss 0 and pseudo-random results.

use std::time::{Duration, Instant};

use capicua_tournament::{MatchResult, SeatResult, Tournament, TournamentSpec};

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("ENTRANTS and ROUNDS are numbers"));
    let n = args.next().unwrap_or(64);
    let rounds = args.next().unwrap_or(9);
    let entrants: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let spec = serde_json::json!({
        "name": "timing", "seed": 7, "table": "duel", "variants": ["block"], "entrants": entrants,
        "stages": [{ "format": "swiss", "rounds": rounds, "pairing": "dutch" }],
        "scoring": { "points": { "per-result": { "win": 2, "draw": 1, "loss": 0 } } },
    });
    let spec: TournamentSpec = serde_json::from_value(spec).expect("a valid spec");
    let config = spec.validate().expect("a valid spec");
    let start = Instant::now();
    let mut t = Tournament::new(config);
    let mut times: Vec<Duration> = vec![start.elapsed()];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    while let Some(round) = t.next_round() {
        let last = round.tables.len() - 1;
        for (i, table) in round.tables.iter().enumerate() {
            // xorshift: 0 and 1 win a side, 2 is a draw.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pick = state % 3;
            let seats = vec![SeatResult::default(); table.seats.len()];
            let result =
                MatchResult { round: round.number, table: table.id, seats, winner: (pick < 2).then_some(pick as u32) };
            let start = Instant::now();
            t.record(result).expect("a result of the round");
            if i == last && !t.is_finished() {
                times.push(start.elapsed());
            }
        }
    }
    let ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let max = ms.iter().copied().fold(0.0, f64::max);
    println!("{n} entrants, {} rounds planned: {mean:.2} ms a round on average, {max:.2} ms at most", ms.len());
}
