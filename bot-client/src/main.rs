//! `capicua-bot`: list strategies, pit them against each other.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, anyhow, bail};
use capicua_bot::remote::{AwaitConfig, LadderConfig, PlayConfig, PlayOptions, PlayVariant, Registration, Tally};
use capicua_bot::token_file;
use capicua_bot::transport::ServerAddr;
use capicua_engine::poly::FileRules;
use capicua_engine::{Game, Seating, Variant};
use capicua_strategy::arena::{Arena, ArenaConfig, ArenaReport, Mode};
use capicua_strategy::poly::POLY_STRATEGIES;
use capicua_strategy::spec::STRATEGIES;
use capicua_strategy::stats::Sprt;
use clap::{Parser, Subcommand};

mod poly_arena;

/// Domino bots: strategies, and an arena to measure them.
#[derive(Parser)]
#[command(name = "capicua-bot", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the strategies (two-faced, then poly) with a one-line description.
    Strategies,
    /// Play many games between strategies in process and print statistics.
    ///
    /// `blocked` is the share of hands that ended blocked, and `(tied)` the
    /// share of hands that ended blocked with nobody winning (equal lowest
    /// counts); `ties` is the share of games nobody won, the best score
    /// shared however the hand ended (`tie_rate`, `blocked_rate` and
    /// `blocked_tie_rate` in `--json`).
    Arena(ArenaArgs),
    /// Play on a capicua server as remote bots until stopped.
    Play(PlayArgs),
    /// Load a capicua server: N rooms of 4 remote bots, print throughput and latency.
    Load(LoadArgs),
    /// Play seeded matches of 3-, 4- or 6-faced tiles (Tri-Ominos and kin) between poly strategies.
    PolyArena(poly_arena::PolyArenaArgs),
    /// Prints this command line's reference as Markdown (the book's
    /// options page is this output).
    #[command(hide = true)]
    MarkdownHelp,
}

/// Arguments of `capicua-bot play`.
#[derive(clap::Args)]
struct PlayArgs {
    /// The server: its WebSocket URL, or unix:PATH for a server listening on a Unix socket.
    #[arg(long, env = "CAPICUA_BOT_SERVER", default_value = "ws://127.0.0.1:8080/ws")]
    server: String,
    /// A registered player's token (without one: a guest, casual rooms only).
    #[arg(long, env = "CAPICUA_TOKEN", conflicts_with = "register")]
    token: Option<String>,
    /// Play as the registered player NAME: its token is read from the token
    /// file, or, without one, NAME is registered and its token written there.
    /// With `--count N` (N > 1) the bots are NAME-1 ... NAME-N, each with its
    /// own token file (`NAME.token` -> `NAME-1.token`).
    #[arg(long, value_name = "NAME")]
    register: Option<String>,
    /// With `--register`: the token file (default: NAME.token in the current
    /// directory). Never overwritten; written with mode 0600.
    #[arg(long, value_name = "PATH", requires = "register")]
    token_file: Option<PathBuf>,
    /// Find or create rated rooms only (needs `--register` or `--token`).
    #[arg(long)]
    rated: bool,
    /// Find or create rooms of the variant in this file (TOML or JSON:
    /// `base = "latin"` and overrides; a poly preset as `base`, as in
    /// `base = "tri-ominos"`, makes rooms of tiles with 3, 4 or 6 faces)
    /// instead of a preset.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    variant: Option<PathBuf>,
    /// The strategy spec (see `capicua-bot strategies`).
    #[arg(long, default_value = "random")]
    strategy: String,
    /// The strategy spec in rooms of tiles with 3, 4 or 6 faces (a poly
    /// strategy: random, greedy, pimc; see `capicua-bot strategies`).
    #[arg(long, value_name = "SPEC", default_value = "greedy")]
    poly_strategy: String,
    /// Join this room (default: the first waiting room of the preset with a free seat, else a new one).
    #[arg(long)]
    room: Option<u64>,
    /// The preset of rooms to find or create: two-faced (latin, block, ...)
    /// or of tiles with 3, 4 or 6 faces (tri-ominos, quad-ominos,
    /// edge-triominoes, edge-quadominoes, hexominoes, graph-triominoes).
    #[arg(long, default_value = "latin")]
    preset: String,
    /// Bots to run in this process.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Stop each bot after this many matches (default: play until stopped).
    #[arg(long)]
    matches: Option<u64>,
    /// Wait for tournament assignments instead of finding rooms (needs a
    /// registered player: `--register NAME` or `--token`).
    #[arg(long)]
    await_assignments: bool,
    /// With `--await-assignments` (implied): follow this tournament and stop
    /// when it ends. A tournament not created yet is waited for.
    #[arg(long)]
    tournament: Option<i64>,
    /// With `--await-assignments`: another server of the same database
    /// (`ws://HOST:PORT/ws`; repeat for more), tried in turn after `--server`
    /// whenever the one in use cannot be reached. Tables a server sends on
    /// another node are played there whatever this says.
    #[arg(long, value_name = "URL")]
    fallback: Vec<String>,
    /// Play on the always-on ladder of `--preset` (needs `--register` or
    /// `--token`): the server pairs this bot with others of similar rating
    /// in rated rooms, until stopped.
    #[arg(long, conflicts_with_all = ["await_assignments", "tournament", "room", "variant", "matches", "rated"])]
    ladder: bool,
}

/// Arguments of `capicua-bot load`.
#[derive(clap::Args)]
struct LoadArgs {
    /// The server: its WebSocket URL, or unix:PATH for a server listening on a Unix socket.
    #[arg(long, env = "CAPICUA_BOT_SERVER", default_value = "ws://127.0.0.1:8080/ws")]
    server: String,
    /// Rooms to fill with 4 bots each.
    #[arg(long, default_value_t = 100)]
    tables: usize,
    /// Seconds to measure.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// The preset played (4 seats).
    #[arg(long, default_value = "latin")]
    preset: String,
    /// Ask for every event the moment it happens, instead of batched events
    /// (which travel with the bot's next prompt or reply).
    #[arg(long)]
    live_events: bool,
    /// Ask for an `accepted` frame for every move, as a client that waits
    /// for one does, and measure move -> accepted. By default the bots say
    /// `skip-accepted` in `hello` and learn that a move was played from the
    /// table's next prompt.
    #[arg(long)]
    accepted: bool,
    /// Mean think time per move, in milliseconds (exponentially
    /// distributed, capped at ten times the mean); 0 answers at once.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Share of seats (0 to 1) that drop their connection once per match
    /// and reconnect to their seat with a token (they register first).
    #[arg(long, default_value_t = 0.0)]
    churn: f64,
    /// The server's process id: report its resident memory (Linux).
    #[arg(long)]
    server_pid: Option<u32>,
    /// Print a line of figures to stderr every this many seconds of the
    /// measured window (moves/s, matches stored, errors, the server's
    /// memory): the curve of a soak. 0 prints none.
    #[arg(long, default_value_t = 0)]
    report_every: u64,
    /// Rated rooms: every seat registers, and each stored match moves ratings.
    #[arg(long)]
    rated: bool,
    /// End once this many matches have finished (warm-up included), if
    /// that comes before the end of `--seconds`.
    #[arg(long)]
    games: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::MarkdownHelp => {
            let options =
                clap_markdown::MarkdownOptions::new().title("capicua-bot options".to_string()).show_footer(false);
            print!("{}", clap_markdown::help_markdown_custom::<Cli>(&options));
            Ok(())
        }
        Command::Strategies => {
            for (name, description) in STRATEGIES {
                println!("{name:<22} {description}");
            }
            println!();
            println!("poly strategies (3-, 4- and 6-faced tiles: `capicua-bot poly-arena --seats`):");
            for (name, description) in POLY_STRATEGIES {
                println!("{name:<22} {description}");
            }
            Ok(())
        }
        Command::Arena(args) => arena(args),
        Command::Play(args) => remote_play(args),
        Command::Load(args) => load(args),
        Command::PolyArena(args) => poly_arena::run(args),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().enable_all().build()?)
}

/// `capicua-bot play`: everything that can be checked without the server
/// is checked first (the address, the variant file, the strategy, a rated
/// bot's name), then the registered bots get their tokens, then they play.
fn remote_play(a: PlayArgs) -> Result<()> {
    let plan = plan_play(&a)?;
    let tally = Arc::new(Tally::default());
    run_remote(&tally, play_session(a, plan, tally.clone()))
}

/// What `capicua-bot play` will do, from its checked arguments.
struct PlayPlan {
    /// Waiting for tournament assignments rather than finding rooms.
    awaiting: bool,
    /// Bots to run.
    count: usize,
    /// The variant of `--variant FILE`, if given.
    variant: Option<PlayVariant>,
    /// The players to register or read tokens for (`--register`).
    players: Vec<Registration>,
}

/// Checks the arguments as far as can be done without the server.
fn plan_play(a: &PlayArgs) -> Result<PlayPlan> {
    ServerAddr::parse(&a.server)?;
    capicua_strategy::spec::build(&a.strategy, 0)?;
    capicua_strategy::poly::build_poly(&a.poly_strategy, 0)?;
    let awaiting = a.await_assignments || a.tournament.is_some();
    let variant = rooms_variant(a, awaiting)?;
    check_play_player(a, awaiting)?;
    // A tournament bot is one player.
    let count = if awaiting { 1 } else { a.count.max(1) };
    // A player acts through one connection at a time: the server closes
    // the older of two with one token, so bots sharing it would fight.
    if a.token.is_some() && count > 1 {
        bail!("--token is one player, and a player plays from one connection: give --register NAME for {count} bots");
    }
    Ok(PlayPlan { awaiting, count, variant, players: registrations(a, count) })
}

/// The variant of `--variant FILE`; without one, the preset must be known
/// unless the server picks the room (a tournament's, or `--room`).
fn rooms_variant(a: &PlayArgs, awaiting: bool) -> Result<Option<PlayVariant>> {
    match &a.variant {
        Some(path) => Ok(Some(play_variant(path)?)),
        None if awaiting || a.room.is_some() => Ok(None),
        None => {
            if capicua_engine::preset(&a.preset).is_none() && capicua_engine::poly::poly_preset(&a.preset).is_none() {
                bail!(
                    "unknown preset {:?}; presets: {}, {}",
                    a.preset,
                    capicua_engine::PRESETS.join(", "),
                    capicua_engine::poly::POLY_PRESETS.join(", ")
                );
            }
            Ok(None)
        }
    }
}

/// Refuses the options that need a registered player without one, and
/// `--fallback` servers outside a tournament.
fn check_play_player(a: &PlayArgs, awaiting: bool) -> Result<()> {
    let registered = a.register.is_some() || a.token.is_some();
    if a.rated && !registered {
        bail!("--rated needs a registered player: give --register NAME (or --token)");
    }
    if a.ladder && !registered {
        bail!("--ladder needs a registered player: give --register NAME (or --token); the ladder rates players");
    }
    if !a.fallback.is_empty() && !awaiting {
        bail!("--fallback is for --await-assignments: a bot finding rooms plays on the one --server");
    }
    for f in &a.fallback {
        ServerAddr::parse(f)?;
    }
    if awaiting && !registered {
        bail!(
            "--await-assignments needs --register NAME or --token (tournament tables are reserved for registered players)"
        );
    }
    Ok(())
}

/// The players `--register NAME` names, one per bot, each with its token file.
fn registrations(a: &PlayArgs, count: usize) -> Vec<Registration> {
    let Some(name) = &a.register else { return vec![] };
    let file = a.token_file.clone().unwrap_or_else(|| PathBuf::from(format!("{name}.token")));
    (0..count)
        .map(|i| Registration {
            name: token_file::numbered_name(name, i, count),
            token_file: token_file::numbered_path(&file, i, count),
        })
        .collect()
}

/// The bots' session: tokens first, then the ladder, a tournament, or rooms.
async fn play_session(a: PlayArgs, plan: PlayPlan, tally: Arc<Tally>) -> Result<()> {
    let tokens = capicua_bot::remote::tokens_for(&a.server, &plan.players, &tally).await?;
    if a.ladder {
        return play_ladder(a, tokens, tally).await;
    }
    if plan.awaiting {
        let token = tokens.into_iter().next().or(a.token).expect("checked above: a token or a name");
        let cfg = AwaitConfig {
            server: a.server,
            token,
            strategy: a.strategy,
            tournament: a.tournament,
            fallbacks: a.fallback,
        };
        return Ok(capicua_bot::remote::await_assignments(cfg, tally).await?);
    }
    let cfg = PlayConfig {
        server: a.server,
        token: a.token,
        strategy: a.strategy,
        poly_strategy: a.poly_strategy,
        room: a.room,
        preset: a.preset,
        count: plan.count,
        matches: a.matches,
    };
    let opts = PlayOptions { tokens, rated: a.rated, variant: plan.variant, strategies: None };
    Ok(capicua_bot::remote::play_as(cfg, opts, tally).await?)
}

/// One ladder bot per token (the registered ones, or `--token`'s).
async fn play_ladder(a: PlayArgs, tokens: Vec<String>, tally: Arc<Tally>) -> Result<()> {
    let tokens = if tokens.is_empty() { a.token.into_iter().collect() } else { tokens };
    let mut bots = tokio::task::JoinSet::new();
    for (i, token) in tokens.into_iter().enumerate() {
        let cfg = LadderConfig {
            server: a.server.clone(),
            token,
            strategy: a.strategy.clone(),
            preset: a.preset.clone(),
            index: i as u64,
            matches: None,
            strategies: None,
        };
        bots.spawn(capicua_bot::remote::ladder(cfg, tally.clone()));
    }
    // The first bot that fails for good stops them all.
    while let Some(done) = bots.join_next().await {
        done??;
    }
    Ok(())
}

/// The variant of `--variant FILE`, checked as the server checks a room's:
/// it validates, and a table of its most seats deals. A file the two-faced
/// reader refuses is read as tiles with 3, 4 or 6 faces (as the server
/// does: the error shown is the one of the family the file means).
fn play_variant(path: &Path) -> Result<PlayVariant> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("reading the variant file {origin}"))?;
    // Errors name the file, the line and the field.
    let rules = match FileRules::from_file_text(&origin, &text).map_err(|e| anyhow!("{e}"))? {
        FileRules::Tiles(rules) => *rules,
        FileRules::Poly(poly) => {
            let name = poly.variant().name.clone();
            let seats = *poly.seat_range().end();
            capicua_engine::poly::PolyGame::new(poly, seats, 0)
                .map_err(|e| anyhow!("{origin}: seats.max: a table of {seats} seats does not deal: {e}"))?;
            if capicua_engine::poly::poly_preset(&name).is_some() {
                bail!("{origin}: name: {name:?} is a preset's name; give the variant its own name");
            }
            return Ok(PlayVariant::Poly { name, file: text });
        }
    };
    let variant = rules.variant().clone();
    Game::new(Arc::new(rules), Seating::new(variant.players.max), 0)
        .map_err(|e| anyhow!("{origin}: players.max: a table of {} seats does not deal: {e}", variant.players.max))?;
    // Rooms are found, and ratings kept, by variant name: a house variant
    // under a preset's name would sit bots at the preset's tables.
    if capicua_engine::preset(&variant.name).is_some_and(|p| p != variant) {
        let line = text.lines().position(|l| {
            let l = l.trim_start();
            l.starts_with("name") || l.starts_with("\"name\"")
        });
        let at = line.map_or(String::new(), |n| format!(":{}", n + 1));
        bail!(
            "{origin}{at}: name: {:?} is a preset's name but this variant differs from it; give it its own name",
            variant.name
        );
    }
    Ok(PlayVariant::Tiles(Box::new(variant)))
}

/// Runs a remote session until it ends or Ctrl-C, then prints its tally.
fn run_remote(tally: &Tally, session: impl std::future::Future<Output = Result<()>>) -> Result<()> {
    runtime()?.block_on(async {
        tokio::select! {
            r = session => r,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })?;
    eprintln!(
        "moves {}, matches {}, errors {}, reconnects {}",
        tally.moves.load(Ordering::Relaxed),
        tally.games.load(Ordering::Relaxed),
        tally.errors.load(Ordering::Relaxed),
        tally.reconnects.load(Ordering::Relaxed)
    );
    Ok(())
}

fn load(a: LoadArgs) -> Result<()> {
    let cfg = capicua_bot::load::LoadConfig {
        server: a.server,
        tables: a.tables,
        seconds: a.seconds,
        preset: a.preset,
        batch_events: !a.live_events,
        skip_accepted: !a.accepted,
        think: (a.think_ms > 0).then(|| std::time::Duration::from_millis(a.think_ms)),
        churn: a.churn,
        server_pid: a.server_pid,
        report_every: (a.report_every > 0).then(|| std::time::Duration::from_secs(a.report_every)),
        rated: a.rated,
        games: a.games,
        players: Vec::new(),
    };
    if !(0.0..=1.0).contains(&cfg.churn) {
        bail!("--churn is a share of the seats, from 0 to 1");
    }
    let r = runtime()?.block_on(capicua_bot::load::run(cfg)).context("load")?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!("tables {} ({} connections), {:.1} s", r.tables, r.connections, r.seconds);
        println!("moves/s {:.0}  finished games/s {:.1}", r.moves_per_sec, r.finished_games_per_sec);
        if let (Some(p50), Some(p99)) = (r.latency_p50_ms, r.latency_p99_ms) {
            print!("move->accepted p50 {p50:.2} ms  p99 {p99:.2} ms  ");
        }
        println!("move->next prompt p50 {:.2} ms  p99 {:.2} ms", r.next_prompt_p50_ms, r.next_prompt_p99_ms);
        println!("errors {}  reconnects {}", r.errors, r.reconnects);
        // Over the whole run: a match the server could not store is over
        // for its players but named no game.
        println!("matches over: {} stored, {} not stored", r.games_stored, r.games_not_stored);
        if let (Some(mib), Some(per)) = (r.server_rss_mib, r.server_rss_per_connection_kib) {
            println!("server RSS {mib:.1} MiB, {per:.1} KiB per connection");
        }
    }
    Ok(())
}

fn load_variant(name: &str) -> Result<Variant> {
    if let Some(v) = capicua_engine::preset(name) {
        return Ok(v);
    }
    if Path::new(name).exists() {
        let text = std::fs::read_to_string(name).with_context(|| format!("reading {name}"))?;
        // The engine's loader: `base = "<preset>"` + overrides, and errors
        // that name the line, the field and the allowed values.
        return Variant::from_file_text(name, &text).map_err(|e| anyhow::anyhow!("{e}"));
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
    let bar = capicua_bot::progress::stderr_bar(games);
    let report = capicua_bot::progress::watch(&bar, &progress, || arena.run(&progress))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_tables(&report);
    }
    Ok(())
}

fn print_tables(r: &ArenaReport) {
    println!(
        "{} {:?}: {} games ({} hands) in {:.2}s on {} thread(s): {:.0} games/s",
        r.variant, r.mode, r.games, r.hands, r.seconds, r.threads, r.games_per_sec
    );
    println!(
        "blocked {:.1}% (tied {:.1}%)  ties {:.1}%  tiles/hand {:.2}  passes/hand {:.2}  draws/hand {:.2}",
        100.0 * r.blocked_rate,
        100.0 * r.blocked_tie_rate,
        100.0 * r.tie_rate,
        r.tiles_per_hand,
        r.passes_per_hand,
        r.draws_per_hand
    );
    let table = |title: &str, entries: &[capicua_strategy::arena::Entry]| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    /// The help paragraph of `capicua-bot play`'s flag `--FLAG`: its line
    /// and the indented lines after it.
    fn flag_help(flag: &str) -> String {
        let mut cli = Cli::command();
        let help = cli.find_subcommand_mut("play").expect("a play subcommand").render_long_help().to_string();
        let mut lines = help.lines().skip_while(|l| !l.trim_start().starts_with(&format!("--{flag}")));
        let head = lines.next().unwrap_or_else(|| panic!("no --{flag} in:\n{help}"));
        let body = lines.take_while(|l| !l.trim_start().starts_with('-') && !l.trim().is_empty());
        std::iter::once(head).chain(body).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn await_assignments_help_names_both_ways_to_be_a_registered_player() {
        let help = flag_help("await-assignments");
        assert!(help.contains("--register NAME") && help.contains("--token"), "{help}");
        let help = flag_help("tournament");
        assert!(help.contains("not created yet is waited for"), "{help}");
    }

    /// `capicua-bot play ARGS`, whatever `CAPICUA_TOKEN` the environment has.
    fn play_args(args: &[&str]) -> PlayArgs {
        let cmd = Cli::command().mut_subcommand("play", |p| p.mut_arg("token", |a| a.env(None::<&str>)));
        let matches = cmd.try_get_matches_from(std::iter::once("capicua-bot").chain(args.iter().copied())).unwrap();
        match Cli::from_arg_matches(&matches).unwrap().command {
            Command::Play(args) => args,
            _ => panic!("not play: {args:?}"),
        }
    }

    #[test]
    fn await_assignments_without_a_player_is_refused_naming_both_ways() {
        let e = plan_play(&play_args(&["play", "--await-assignments"])).err().expect("refused without a player");
        assert!(e.to_string().contains("--register NAME or --token"), "{e}");
        let plan = plan_play(&play_args(&["play", "--register", "ana", "--tournament", "1"])).unwrap();
        assert!(plan.awaiting && plan.players.len() == 1);
        assert!(plan_play(&play_args(&["play", "--token", "t", "--await-assignments"])).is_ok());
    }
}
