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
    /// A poly preset (tri-ominos, quad-ominos, edge-triominoes, edge-quadominoes, hexominoes, graph-triominoes)
    /// or a poly variant file (`.toml` or `.json`).
    #[arg(long, default_value = "tri-ominos")]
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
    let mut strategies = seat_strategies(&args, &rules)?;
    let mut game = PolyGame::new(rules.clone(), seat_count(&strategies), args.seed)?;
    let start = Instant::now();
    let tally = play_matches(&args, &mut game, &mut strategies)?;
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    print_report(&args, &rules, &strategies, &tally, secs);
    Ok(())
}

/// The strategy of each entry, seeded from the master seed, once their
/// number is known to be a table the variant seats.
fn seat_strategies(args: &PolyArenaArgs, rules: &PolyRules) -> Result<Vec<Box<dyn PolyStrategy>>> {
    let strategies: Vec<Box<dyn PolyStrategy>> = args
        .seats
        .iter()
        .enumerate()
        .map(|(e, s)| build_poly(s, derive_seed(args.seed, e as u64)).with_context(|| format!("seat strategy {s:?}")))
        .collect::<Result<_>>()?;
    let seats = seat_count(&strategies);
    if !rules.seat_range().contains(&seats) {
        bail!(
            "{} seats given, but {} seats {} to {}",
            seats,
            rules.variant().name,
            rules.seat_range().start(),
            rules.seat_range().end()
        );
    }
    Ok(strategies)
}

/// The seats of a table of `strategies` (saturated: too many never fits).
fn seat_count(strategies: &[Box<dyn PolyStrategy>]) -> u8 {
    u8::try_from(strategies.len()).unwrap_or(u8::MAX)
}

/// What the matches came to, per entry (not per seat) and overall.
struct Tally {
    /// Matches each entry won.
    wins: Vec<u64>,
    /// Points each entry scored, over all matches.
    points: Vec<i64>,
    /// Matches nobody won.
    draws: u64,
    /// Hands played.
    hands: u64,
    /// Moves played.
    moves: u64,
}

/// Plays `args.games` matches, each dealt from its own seed, with the
/// entries rotated one seat a match.
fn play_matches(args: &PolyArenaArgs, game: &mut PolyGame, strategies: &mut [Box<dyn PolyStrategy>]) -> Result<Tally> {
    let k = strategies.len();
    let mut tally = Tally { wins: vec![0; k], points: vec![0; k], draws: 0, hands: 0, moves: 0 };
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
            tally.moves += 1;
        }
        let outcome = game.outcome().context("the match ended")?;
        tally.hands += outcome.hands as u64;
        for (s, &score) in outcome.scores.iter().enumerate() {
            tally.points[of_seat(s as u8)] += score as i64;
        }
        match outcome.winner {
            Some(w) => tally.wins[of_seat(w)] += 1,
            None => tally.draws += 1,
        }
    }
    Ok(tally)
}

/// Prints the variant, a line per entry and the throughput.
fn print_report(args: &PolyArenaArgs, rules: &PolyRules, strategies: &[Box<dyn PolyStrategy>], t: &Tally, secs: f64) {
    println!(
        "poly-arena: {} ({} tiles, {} faces), {} seats, {} matches, seed {}",
        rules.variant().name,
        rules.set().len(),
        rules.variant().faces,
        seat_count(strategies),
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
        let pct = 100.0 * t.wins[s] as f64 / args.games.max(1) as f64;
        let (lo, hi) = wilson95(t.wins[s], args.games);
        let avg = t.points[s] as f64 / args.games.max(1) as f64;
        let interval = format!("{:.1}-{:.1}%", 100.0 * lo, 100.0 * hi);
        println!("{:<6} {:<12} {:>8} {:>6.1}% {:>16} {:>12.1}", s, strategy.name(), t.wins[s], pct, interval, avg);
    }
    println!("ties: {}", t.draws);
    println!(
        "{} matches, {} hands, {} moves in {:.3} s: {:.1} matches/s, {:.0} hands/s, {:.0} moves/s",
        args.games,
        t.hands,
        t.moves,
        secs,
        args.games as f64 / secs,
        t.hands as f64 / secs,
        t.moves as f64 / secs
    );
}
