//! The two speed ratios of the arena's random-seat loop, measured in one
//! process: `cargo run --release -p capicua-strategy --example loop_ratios [GAMES [ROUNDS]]`.
//!
//! Three loops play complete latin hands on one thread: the engine's
//! checked `play` loop (the `random_hands` example's loop, uniform over the
//! legal moves), the special latin-only loop (the yardstick), and the arena
//! with four `random` seats. Each round plays `GAMES` hands through each
//! loop in ten interleaved slices (engine, latin-only, arena, engine, ...),
//! so a shared machine's load, which drifts within seconds, weighs on the
//! three alike. Prints each round's rates and `arena / engine` and
//! `engine / latin-only`, then the median of each ratio.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use capicua_engine::{MatchTarget, preset};
use capicua_strategy::arena::{Arena, ArenaConfig, Mode};

#[path = "../../engine/examples/common/loops.rs"]
mod loops;
use loops::{measure_hands, special_latin};

const SLICES: u64 = 10;

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300_000);
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let slice = (games / SLICES).max(1);
    let mut v = preset("latin").expect("latin is a preset");
    v.target = MatchTarget::Hands(1);
    let rules = Arc::new(v.clone().validate().expect("presets validate"));
    let arena = Arena::new(ArenaConfig {
        variant: v,
        seats: vec!["random".into(); 4],
        games: slice,
        threads: 1,
        seed: 1,
        mode: Mode::Hands,
        sprt: None,
        time_moves: false,
    })
    .expect("four random seats at latin");
    println!(
        "{:>5} {:>12} {:>12} {:>12} {:>13} {:>18}",
        "round", "engine/s", "latin-only/s", "arena/s", "arena/engine", "engine/latin-only"
    );
    let (mut arena_engine, mut engine_special) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        // Seconds spent in each loop over the round's slices.
        let (mut e, mut s, mut a) = (0.0, 0.0, 0.0);
        for _ in 0..SLICES {
            e += slice as f64 / measure_hands(&rules, 4, slice, false).0;
            s += slice as f64 / special_latin(slice).0;
            a += slice as f64 / arena.run(&AtomicU64::new(0)).expect("the arena runs").games_per_sec;
        }
        let n = (slice * SLICES) as f64;
        let (engine, special, arena) = (n / e, n / s, n / a);
        arena_engine.push(arena / engine);
        engine_special.push(engine / special);
        println!(
            "{round:>5} {engine:>12.0} {special:>12.0} {arena:>12.0} {:>13.3} {:>18.3}",
            arena / engine,
            engine / special
        );
    }
    println!("median arena/engine {:.3}, engine/latin-only {:.3}", median(arena_engine), median(engine_special));
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
