//! `capicua-bot poly-arena`: seeded matches of 3-, 4- or 6-faced tiles
//! between poly strategies, played by the strategy crate's poly arena
//! (`capicua_strategy::poly::run_poly_arena`): wins per strategy, their
//! 95% interval, and throughput.

use std::path::Path;

use anyhow::{Context, Result};
use capicua_engine::poly::{POLY_PRESETS, PolyRules};
use capicua_strategy::arena::Mode;
use capicua_strategy::poly::{PolyArenaReport, PolyStrategy, build_poly, run_poly_arena};
use capicua_strategy::rng::derive_seed;

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
    let rules = load_rules(&args.variant)?;
    let mut strategies: Vec<Box<dyn PolyStrategy>> = args
        .seats
        .iter()
        .enumerate()
        .map(|(e, s)| build_poly(s, derive_seed(args.seed, e as u64)).with_context(|| format!("seat strategy {s:?}")))
        .collect::<Result<_>>()?;
    let report = run_poly_arena(rules, &mut strategies, args.games, args.seed, Mode::Matches)
        .with_context(|| format!("{} seats of {:?}", strategies.len(), args.variant))?;
    print_report(&report);
    Ok(())
}

/// Prints the variant, a line per entry and the throughput.
fn print_report(r: &PolyArenaReport) {
    println!(
        "poly-arena: {} ({} tiles, {} faces), {} seats, {} matches, seed {}",
        r.variant,
        r.tiles,
        r.faces,
        r.seats.len(),
        r.games,
        r.seed
    );
    // Entry e sits at seat (e - match) mod seats: results are per entry.
    // The interval counts a tie as not a win.
    println!(
        "{:<6} {:<12} {:>8} {:>7} {:>16} {:>12}",
        "entry", "strategy", "wins", "win%", "95% interval", "avg points"
    );
    for (e, entry) in r.seats.iter().enumerate() {
        let interval = format!("{:.1}-{:.1}%", 100.0 * entry.ci95_low, 100.0 * entry.ci95_high);
        println!(
            "{:<6} {:<12} {:>8} {:>6.1}% {:>16} {:>12.1}",
            e,
            entry.strategy,
            entry.wins,
            100.0 * entry.win_rate,
            interval,
            entry.mean_score
        );
    }
    println!("ties: {}", r.seats.first().map_or(0, |e| e.ties));
    println!(
        "{} matches, {} hands, {} moves in {:.3} s: {:.1} matches/s, {:.0} hands/s, {:.0} moves/s",
        r.games, r.hands, r.moves, r.seconds, r.games_per_sec, r.hands_per_sec, r.moves_per_sec
    );
}
