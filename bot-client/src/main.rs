//! `capicua-bot`: list strategies, pit them against each other.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use capicua_bot::arena::{Arena, ArenaConfig, ArenaReport, Mode};
use capicua_bot::spec::STRATEGIES;
use capicua_bot::stats::Sprt;
use capicua_engine::Variant;
use clap::{Parser, Subcommand};

/// Domino bots: strategies, and an arena to measure them.
#[derive(Parser)]
#[command(name = "capicua-bot", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the strategies with a one-line description.
    Strategies,
    /// Play many games between strategies in process and print statistics.
    Arena(ArenaArgs),
}

/// Arguments of `capicua-bot arena`.
#[derive(clap::Args)]
struct ArenaArgs {
    /// A preset name (latin, block, ...) or a variant file (`.toml` or `.json`).
    #[arg(long, default_value = "latin")]
    variant: String,
    /// One strategy spec per seat, comma-separated (e.g. pimc,bota-gorda,pimc,bota-gorda).
    #[arg(long, value_delimiter = ',', required = true)]
    seats: Vec<String>,
    /// Independent hands to play, each dealt fresh as the first hand of a match.
    #[arg(long, conflicts_with = "matches")]
    games: Option<u64>,
    /// Full matches to play to the variant's target, instead of single hands.
    #[arg(long)]
    matches: Option<u64>,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Master seed: the same seed and games give the same results.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Run an SPRT `elo0,elo1` between the first strategy and the first one
    /// seated against it, stopping when it decides (games is then a cap).
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    sprt: Option<String>,
    /// Also measure milliseconds per move for each seat.
    #[arg(long)]
    time_moves: bool,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Strategies => {
            for (name, description) in STRATEGIES {
                println!("{name:<22} {description}");
            }
            Ok(())
        }
        Command::Arena(args) => arena(args),
    }
}

fn load_variant(name: &str) -> Result<Variant> {
    if let Some(v) = capicua_engine::preset(name) {
        return Ok(v);
    }
    if Path::new(name).exists() {
        let text = std::fs::read_to_string(name).with_context(|| format!("reading {name}"))?;
        return if name.ends_with(".toml") {
            toml::from_str(&text).with_context(|| format!("parsing variant file {name}"))
        } else {
            serde_json::from_str(&text).with_context(|| format!("parsing variant file {name}"))
        };
    }
    bail!("{name:?} is neither a preset ({}) nor a variant file", capicua_engine::PRESETS.join(", "))
}

fn arena(args: ArenaArgs) -> Result<()> {
    let (mode, games) = match (args.games, args.matches) {
        (_, Some(m)) => (Mode::Matches, m),
        (Some(g), None) => (Mode::Hands, g),
        (None, None) => (Mode::Hands, 1000),
    };
    let sprt = match args.sprt.as_deref() {
        None => None,
        Some(text) => {
            let bounds: Vec<f64> = text.split(',').map(|v| v.trim().parse()).collect::<Result<_, _>>()?;
            let [elo0, elo1] = bounds[..] else { bail!("--sprt takes two numbers: elo0,elo1") };
            Some(Sprt::new(elo0, elo1))
        }
    };
    let arena = Arena::new(ArenaConfig {
        variant: load_variant(&args.variant)?,
        seats: args.seats,
        games,
        threads: args.threads,
        seed: args.seed,
        mode,
        sprt,
        time_moves: args.time_moves,
    })?;
    let progress = AtomicU64::new(0);
    let show_bar = std::io::stderr().is_terminal();
    let report = std::thread::scope(|scope| {
        let run = scope.spawn(|| arena.run(&progress));
        while show_bar && !run.is_finished() {
            draw_bar(progress.load(Ordering::Relaxed), games);
            std::thread::sleep(Duration::from_millis(100));
        }
        if show_bar {
            eprint!("\r{:60}\r", "");
        }
        run.join().expect("arena thread")
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_tables(&report);
    }
    Ok(())
}

fn draw_bar(done: u64, total: u64) {
    let width = 40;
    let filled = (done.min(total) * width / total.max(1)) as usize;
    eprint!("\r[{}{}] {done}/{total}", "#".repeat(filled), " ".repeat(width as usize - filled));
    let _ = std::io::stderr().flush();
}

fn print_tables(r: &ArenaReport) {
    println!(
        "{} {:?}: {} games ({} hands) in {:.2}s on {} thread(s): {:.0} games/s",
        r.variant, r.mode, r.games, r.hands, r.seconds, r.threads, r.games_per_sec
    );
    println!(
        "blocked {:.1}%  ties {:.1}%  tiles/hand {:.2}  passes/hand {:.2}  draws/hand {:.2}",
        100.0 * r.blocked_rate,
        100.0 * r.tie_rate,
        r.tiles_per_hand,
        r.passes_per_hand,
        r.draws_per_hand
    );
    let table = |title: &str, entries: &[capicua_bot::arena::Entry]| {
        println!(
            "\n{title:<40} {:>7} {:>7} {:>6} {:>8} {:>17} {:>10} {:>9}",
            "wins", "losses", "ties", "win%", "95% CI", "mean pts", "ms/move"
        );
        for e in entries {
            let ms = e.ms_per_move.map_or("-".to_string(), |m| format!("{m:.3}"));
            println!(
                "{:<40} {:>7} {:>7} {:>6} {:>7.1}% {:>7.1}%..{:>6.1}% {:>10.2} {:>9}",
                e.strategy,
                e.wins,
                e.losses,
                e.ties,
                100.0 * e.win_rate,
                100.0 * e.ci95_low,
                100.0 * e.ci95_high,
                e.mean_score,
                ms
            );
        }
    };
    table("seat (strategy)", &r.seats);
    if let Some(teams) = &r.teams {
        table("team", teams);
    }
    if let Some(s) = &r.sprt {
        println!(
            "\nSPRT elo0={} elo1={} ({} vs {}): W{} D{} L{}  LLR {:.2} in [{:.2}, {:.2}]  elo {:.1}  => {:?}",
            s.test.elo0,
            s.test.elo1,
            s.first,
            s.second,
            s.wins,
            s.ties,
            s.losses,
            s.llr,
            s.lower,
            s.upper,
            s.elo,
            s.decision
        );
    }
}
