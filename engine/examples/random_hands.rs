//! Prints how many complete random hands per second one thread plays, per
//! preset: `cargo run --release -p capicua-engine --example random_hands [HANDS [PRESET]]`.
//! Columns: hands/s through `play` (validated), through `play_unchecked`,
//! deals/s alone, moves per hand; then a special-purpose latin loop as the
//! yardstick the issue compares against.
//!
//! Moves are uniform over the legal (tile, end) moves; each game is dealt
//! fresh from its seed and played to the end of its first hand. Also prints
//! the cost of dealing alone, to separate setup from play.

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, MatchTarget, PRESETS, Rules, Seating, preset};

#[path = "common/loops.rs"]
mod loops;
use loops::{measure_hands, special_latin};

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let only: Option<String> = std::env::args().nth(2);
    println!("{:<18} {:>14} {:>14} {:>14} {:>12}", "preset", "hands/s", "unchecked/s", "deals/s", "moves/hand");
    for name in PRESETS.iter().filter(|n| only.as_deref().is_none_or(|o| o == **n)) {
        let mut v = preset(name).unwrap();
        v.target = MatchTarget::Hands(1);
        let rules = Arc::new(v.validate().unwrap());
        let seats = if rules.seat_range().contains(&4) { 4 } else { *rules.seat_range().start() };
        // MODE=checked|unchecked|special runs one loop alone (for callgrind).
        let mode = std::env::var("MODE").unwrap_or_default();
        let run = |m: &str| mode.is_empty() || mode == m;
        let deals = if run("deals") { measure_deals(&rules, seats, hands) } else { 0.0 };
        let (rate, moves) = if run("checked") { measure_hands(&rules, seats, hands, false) } else { (0.0, 0.0) };
        let (unchecked, _) = if run("unchecked") { measure_hands(&rules, seats, hands, true) } else { (0.0, 0.0) };
        println!("{name:<18} {rate:>14.0} {unchecked:>14.0} {deals:>14.0} {moves:>12.1}");
    }
    let mode = std::env::var("MODE").unwrap_or_default();
    if only.as_deref().is_none_or(|o| o == "latin") && (mode.is_empty() || mode == "special") {
        let (rate, moves) = special_latin(hands);
        println!("{:<18} {rate:>14.0} {:>14} {:>14} {moves:>12.1}", "latin (special)", "-", "-");
    }
}

fn measure_deals(rules: &Arc<Rules>, seats: u8, hands: u64) -> f64 {
    let start = Instant::now();
    let mut check = 0u64;
    for seed in 0..hands {
        let g = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
        check += g.leader().0 as u64;
    }
    std::hint::black_box(check);
    hands as f64 / start.elapsed().as_secs_f64()
}
