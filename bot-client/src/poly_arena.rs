//! `capicua-bot poly-arena`: seeded matches of 3-, 4- or 6-faced tiles
//! between poly strategies (`capicua_strategy::poly`), with wins per
//! strategy, their 95% interval, and throughput.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use capicua_engine::SeededRng;
use capicua_engine::poly::{POLY_PRESETS, PolyGame, PolyRules};
use capicua_strategy::poly::{PolyStrategy, build_poly};
use capicua_strategy::rng::derive_seed;
use capicua_strategy::stats::wilson95;

/// Arguments of `capicua-bot poly-arena`.
#[derive(clap::Args)]
pub struct PolyArenaArgs {
    /// A poly preset (triominoes, quadominoes, hexominoes, graph-triominoes)
    /// or a poly variant file (`.toml` or `.json`).
    #[arg(long, default_value = "triominoes")]
    pub variant: String,
    /// Complete matches to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Master seed: the same seed and games give the same results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// One poly strategy per seat, comma-separated (`random`, `greedy`,
    /// `pimc[:samples=N][:ms=M]`; see `capicua-bot strategies`). Strategies
    /// rotate round the seats from match to match.
    #[arg(long, value_delimiter = ',', default_value = "greedy,random")]
    pub seats: Vec<String>,
}

fn load_rules(variant: &str) -> Result<PolyRules> {
    let lower = variant.to_ascii_lowercase();
    if lower.ends_with(".toml") || lower.ends_with(".json") {
        let text = std::fs::read_to_string(variant).with_context(|| format!("reading {variant}"))?;
        let origin = Path::new(variant).file_name().and_then(|n| n.to_str()).unwrap_or(variant);
        return Ok(PolyRules::from_file_text(origin, &text)?);
    }
    PolyRules::preset(variant)
        .with_context(|| format!("unknown poly preset {variant:?}; expected one of: {}", POLY_PRESETS.join(", ")))
}

/// Runs the arena and prints the results.
pub fn run(args: PolyArenaArgs) -> Result<()> {
    let rules = Arc::new(load_rules(&args.variant)?);
    let mut strategies: Vec<Box<dyn PolyStrategy>> = args
        .seats
        .iter()
        .enumerate()
        .map(|(e, s)| build_poly(s, derive_seed(args.seed, e as u64)).with_context(|| format!("seat strategy {s:?}")))
        .collect::<Result<_>>()?;
    let seats = u8::try_from(strategies.len()).unwrap_or(u8::MAX);
    if !rules.seat_range().contains(&seats) {
        bail!(
            "{} seats given, but {} seats {} to {}",
            seats,
            rules.variant().name,
            rules.seat_range().start(),
            rules.seat_range().end()
        );
    }
    let k = strategies.len();
    let mut wins = vec![0u64; k];
    let mut points = vec![0i64; k];
    let mut draws = 0u64;
    let (mut hands, mut moves_played) = (0u64, 0u64);
    let mut game = PolyGame::new(rules.clone(), seats, args.seed)?;
    let start = Instant::now();
    for i in 0..args.games {
        let seed = SeededRng::new(args.seed, i).next_u64();
        game.restart(seed);
        for (e, strategy) in strategies.iter_mut().enumerate() {
            strategy.reseed(derive_seed(seed, e as u64));
        }
        // Seat s plays strategy (s + i) % k: every strategy sits everywhere.
        let of_seat = |s: u8| (s as usize + i as usize) % k;
        while let Some(seat) = game.to_move() {
            let strategy = &mut strategies[of_seat(seat)];
            let m = strategy.choose(&game.view(seat));
            game.play(m).with_context(|| format!("{} chose {m}", strategy.name()))?;
            moves_played += 1;
        }
        let outcome = game.outcome().context("the match ended")?;
        hands += outcome.hands as u64;
        for (s, &score) in outcome.scores.iter().enumerate() {
            points[of_seat(s as u8)] += score as i64;
        }
        match outcome.winner {
            Some(w) => wins[of_seat(w)] += 1,
            None => draws += 1,
        }
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    println!(
        "poly-arena: {} ({} tiles, {} faces), {} seats, {} matches, seed {}",
        rules.variant().name,
        rules.set().len(),
        rules.variant().faces,
        seats,
        args.games,
        args.seed
    );
    // Entry e sits at seat (e - match) mod seats: results are per entry.
    // The interval counts a tie as not a win.
    println!(
        "{:<6} {:<12} {:>8} {:>7} {:>16} {:>12}",
        "entry", "strategy", "wins", "win%", "95% interval", "avg points"
    );
    for (s, strategy) in strategies.iter().enumerate() {
        let pct = 100.0 * wins[s] as f64 / args.games.max(1) as f64;
        let (lo, hi) = wilson95(wins[s], args.games);
        let avg = points[s] as f64 / args.games.max(1) as f64;
        let interval = format!("{:.1}-{:.1}%", 100.0 * lo, 100.0 * hi);
        println!("{:<6} {:<12} {:>8} {:>6.1}% {:>16} {:>12.1}", s, strategy.name(), wins[s], pct, interval, avg);
    }
    println!("ties: {draws}");
    println!(
        "{} matches, {} hands, {} moves in {:.3} s: {:.1} matches/s, {:.0} hands/s, {:.0} moves/s",
        args.games,
        hands,
        moves_played,
        secs,
        args.games as f64 / secs,
        hands as f64 / secs,
        moves_played as f64 / secs
    );
    Ok(())
}
