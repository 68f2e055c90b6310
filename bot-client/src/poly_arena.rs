//! `capicua-bot poly-arena`: seeded matches of 3-, 4- or 6-faced tiles
//! between simple strategies, with wins per strategy and throughput.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use capicua_engine::SeededRng;
use capicua_engine::poly::{POLY_PRESETS, PolyGame, PolyMove, PolyMoveList, PolyRules};

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
    /// One strategy per seat, comma-separated: `random` or `greedy` (the
    /// legal move with the most pips). Strategies rotate round the seats
    /// from match to match.
    #[arg(long, value_delimiter = ',', default_value = "greedy,random")]
    pub seats: Vec<String>,
}

/// A simple poly strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    /// A legal move drawn uniformly.
    Random,
    /// The legal move placing the tile with the most pips (the first such).
    Greedy,
}

impl Strategy {
    fn parse(name: &str) -> Result<Strategy> {
        match name.trim() {
            "random" => Ok(Strategy::Random),
            "greedy" => Ok(Strategy::Greedy),
            other => bail!("unknown poly strategy {other:?}; expected random or greedy"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Greedy => "greedy",
        }
    }

    fn choose(self, game: &PolyGame, moves: &[PolyMove], rng: &mut SeededRng) -> PolyMove {
        match self {
            Strategy::Random => moves[rng.below(moves.len() as u32) as usize],
            Strategy::Greedy => {
                let set = game.rules().set();
                let worth = |m: &PolyMove| match *m {
                    PolyMove::Play { tile, .. } => set.get(tile).map_or(0, |t| t.value()),
                    _ => -1,
                };
                let best = moves.iter().map(worth).max().unwrap_or(-1);
                *moves.iter().find(|m| worth(m) == best).unwrap_or(&moves[0])
            }
        }
    }
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
    let strategies = args.seats.iter().map(|s| Strategy::parse(s)).collect::<Result<Vec<_>>>()?;
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
    let mut moves = PolyMoveList::with_capacity(1024);
    let mut game = PolyGame::new(rules.clone(), seats, args.seed)?;
    let start = Instant::now();
    for i in 0..args.games {
        let seed = SeededRng::new(args.seed, i).next_u64();
        game.restart(seed);
        let mut rng = SeededRng::new(seed, 1);
        // Seat s plays strategy (s + i) % k: every strategy sits everywhere.
        let of_seat = |s: u8| (s as usize + i as usize) % k;
        while let Some(seat) = game.to_move() {
            game.legal_moves(&mut moves);
            let m = strategies[of_seat(seat)].choose(&game, &moves, &mut rng);
            game.play(m).context("a strategy chose a legal move")?;
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
    println!("{:<6} {:<8} {:>8} {:>7} {:>12}", "entry", "strategy", "wins", "win%", "avg points");
    for (s, strategy) in strategies.iter().enumerate() {
        let pct = 100.0 * wins[s] as f64 / args.games.max(1) as f64;
        let avg = points[s] as f64 / args.games.max(1) as f64;
        println!("{:<6} {:<8} {:>8} {:>6.1}% {:>12.1}", s, strategy.name(), wins[s], pct, avg);
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
