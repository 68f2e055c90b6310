//! `capicua-server tournament`: creating and listing tournaments in the
//! database, and an organiser's controls, pairings, who is here and
//! exports through the serving server (which alone knows its rooms and
//! connections).

use std::time::Duration;

use anyhow::Context;
use capicua_server::tournament::store::{self, SpecFormat};
use clap::Subcommand;

use super::reader::Reader;

#[derive(Subcommand)]
pub(crate) enum TournamentCommand {
    /// Validates a tournament file (TOML, or JSON by extension) and stores it
    /// as pending; a serving server on the same database starts it within a second.
    /// Variant files it names are read from the current directory, validated
    /// and stored with it: a later change to a file changes no event.
    /// book/src/organising/scoring.md defines the formats, the scoring rules and every
    /// tie-break of `scoring.tie-breaks`, each with a worked example.
    Create {
        /// The tournament file.
        #[arg(long)]
        file: std::path::PathBuf,
        /// When it may start: an RFC 3339 time (`2026-01-01T18:00:00Z`) or
        /// unix seconds; default at once.
        #[arg(long)]
        starts_at: Option<String>,
    },
    /// Lists the tournaments, newest first.
    List,
    /// Pauses a tournament on the serving server: no new table opens,
    /// tables in play finish.
    Pause {
        #[command(flatten)]
        to: Organiser,
    },
    /// Resumes a paused tournament, or a failed one once its cause is fixed.
    Resume {
        #[command(flatten)]
        to: Organiser,
    },
    /// Cancels a tournament: its open tables close, its played games stay.
    Cancel {
        #[command(flatten)]
        to: Organiser,
    },
    /// Withdraws an entrant: no round planned from now on seats it.
    Withdraw {
        #[command(flatten)]
        to: Organiser,
        /// The entrant's name (or its id, a number).
        #[arg(long)]
        entrant: String,
    },
    /// Enters a late entrant into a running Swiss or arena.
    Enter {
        #[command(flatten)]
        to: Organiser,
        /// A registered player's name or a hosted bot (`bot:STRATEGY`), as in a spec's `entrants`.
        name: String,
    },
    /// Deletes a tournament that has not started, with everything stored of it.
    Delete {
        #[command(flatten)]
        to: Organiser,
    },
    /// Prints each round's pairings from the serving server: its tables'
    /// seats, results (and who corrected them), games, open tables' state,
    /// and the byes. Rounds and tables are numbered from 1 here.
    Pairings {
        #[command(flatten)]
        from: Reader,
        /// Only this round (from 1, as printed).
        #[arg(long)]
        round: Option<u32>,
    },
    /// Shows a tournament as the serving server sees it now: its status,
    /// who is here (playing, waiting, missing) and the node of each open table.
    Show {
        #[command(flatten)]
        from: Reader,
    },
    /// Prints the standings, pairings or results of a tournament from the
    /// serving server, as CSV (a header row) or JSON.
    Export {
        #[command(flatten)]
        from: Reader,
        /// What to export.
        #[arg(long, value_enum)]
        what: Export,
        /// The format.
        #[arg(long, value_enum, default_value = "csv")]
        format: ExportFormat,
    },
    /// Corrects a recorded result; the standings are recomputed.
    Correct {
        #[command(flatten)]
        to: Organiser,
        /// The round (from 0).
        #[arg(long)]
        round: u32,
        /// The table (from 0).
        #[arg(long)]
        table: u32,
        /// The winning side (from 0), or `draw`.
        #[arg(long)]
        winner: String,
        /// Each seat's score, in seat order, comma-separated (default: as recorded).
        #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
        scores: Option<Vec<i64>>,
    },
}

/// Where an organiser's control goes: the serving server, over its HTTP
/// API, so that the server (the tournament's only runner) decides it.
#[derive(clap::Args)]
pub(crate) struct Organiser {
    /// The tournament's id.
    id: i64,
    /// The serving server's base URL (plain `http://HOST[:PORT]`).
    #[arg(long, env = "CAPICUA_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
    /// The server's admin token.
    #[arg(long, env = "CAPICUA_ADMIN_TOKEN")]
    admin_token: String,
    /// Who takes the control, for the audit trail (default: `admin`).
    #[arg(long)]
    by: Option<String>,
}

/// What `tournament export` prints.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Export {
    /// One row per entrant, leader first.
    Standings,
    /// One row per seat of every table, and per bye.
    Pairings,
    /// One row per recorded result.
    Results,
}

/// How `tournament export` prints it.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    Csv,
    Json,
}

/// Runs one `tournament` command on `database`.
pub(crate) async fn run(command: TournamentCommand, database: &str, allow_foreign_tables: bool) -> anyhow::Result<()> {
    match command {
        TournamentCommand::Create { file, starts_at } => {
            create(&file, starts_at.as_deref(), database, allow_foreign_tables).await
        }
        TournamentCommand::List => list(database).await,
        TournamentCommand::Pairings { from, round } => super::pairings::print(&from, round).await,
        TournamentCommand::Show { from } => super::pairings::show(&from).await,
        TournamentCommand::Export { from, what, format } => export(&from, what, format).await,
        control => organise(control).await,
    }
}

/// Validates and stores the tournament in `file`, pending.
async fn create(
    file: &std::path::Path,
    starts_at: Option<&str>,
    database: &str,
    allow_foreign_tables: bool,
) -> anyhow::Result<()> {
    let starts_at = starts_at.map(store::parse_starts_at).transpose()?;
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let format = if file.extension().is_some_and(|e| e == "json") { SpecFormat::Json } else { SpecFormat::Toml };
    let db = super::open_for_writing(database, allow_foreign_tables).await?;
    let created =
        store::create(&db, &text, format, capicua_strategy::SearchCaps::default(), store::Origin::Operator, starts_at)
            .await;
    db.close().await;
    let (id, config) = created.with_context(|| format!("{}", file.display()))?;
    outln!(
        "created tournament {id} ({:?}, {} entrants), pending: a server serving {database} starts it",
        config.spec().name,
        config.entrant_count()
    );
    Ok(())
}

/// Prints the tournaments, newest first.
async fn list(database: &str) -> anyhow::Result<()> {
    let db = super::open_read_only(database).await?;
    let list = db.tournaments().await?;
    db.close().await;
    if list.is_empty() {
        outln!("no tournaments");
    } else {
        outln!("{:>4}  {:<28} {:<9} {:>8} {:>7}", "id", "name", "status", "entrants", "results");
    }
    for t in list {
        outln!(
            "{:>4}  {:<28} {:<9} {:>8} {:>7}{}",
            t.id,
            t.name,
            t.status,
            t.entrants,
            t.results,
            t.error.map(|e| format!("  ({e})")).unwrap_or_default()
        );
    }
    Ok(())
}

/// An organiser's control, as the serving server's API takes it: where it
/// goes, its name and its body.
fn control_of(command: TournamentCommand) -> anyhow::Result<(Organiser, &'static str, serde_json::Value)> {
    Ok(match command {
        TournamentCommand::Pause { to } => (to, "pause", serde_json::json!({})),
        TournamentCommand::Resume { to } => (to, "resume", serde_json::json!({})),
        TournamentCommand::Cancel { to } => (to, "cancel", serde_json::json!({})),
        TournamentCommand::Delete { to } => (to, "delete", serde_json::json!({})),
        TournamentCommand::Withdraw { to, entrant } => {
            let entrant = match entrant.parse::<u32>() {
                Ok(id) => serde_json::json!(id),
                Err(_) => serde_json::json!(entrant),
            };
            (to, "withdraw", serde_json::json!({ "entrant": entrant }))
        }
        TournamentCommand::Enter { to, name } => (to, "enter", serde_json::json!({ "entrant": name })),
        TournamentCommand::Correct { to, round, table, winner, scores } => {
            let winner = match winner.as_str() {
                "draw" => serde_json::Value::Null,
                w => serde_json::json!(
                    w.parse::<u32>().map_err(|_| anyhow::anyhow!("--winner: a side number or `draw`"))?
                ),
            };
            let mut body = serde_json::json!({ "round": round, "table": table, "winner": winner });
            if let Some(scores) = scores {
                body["scores"] = serde_json::json!(scores);
            }
            (to, "correct", body)
        }
        TournamentCommand::Create { .. }
        | TournamentCommand::List
        | TournamentCommand::Pairings { .. }
        | TournamentCommand::Show { .. }
        | TournamentCommand::Export { .. } => {
            unreachable!("create, list and the reading commands are no controls")
        }
    })
}

/// Sends an organiser's control to the serving server and prints its outcome.
async fn organise(command: TournamentCommand) -> anyhow::Result<()> {
    let (to, control, mut body) = control_of(command)?;
    if let Some(by) = &to.by {
        body["by"] = serde_json::json!(by);
    }
    let base = format!("{}/api/tournaments/{}", to.server.trim_end_matches('/'), to.id);
    let (method, url) = if control == "delete" { ("DELETE", base) } else { ("POST", format!("{base}/{control}")) };
    let body = body.to_string();
    let call = super::http::request(method, &url, Some(&to.admin_token), Some(&body));
    let answer = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .map_err(|_| anyhow::anyhow!("{url}: no answer within 30 s"))??;
    let (status, answer) = (answer.status, answer.body);
    let json: Option<serde_json::Value> = serde_json::from_str(&answer).ok();
    if !(200..300).contains(&status) {
        let reason = json
            .as_ref()
            .and_then(|j| Some(format!("{}: {}", j.get("code")?.as_str()?, j.get("message")?.as_str()?)))
            .unwrap_or_else(|| answer.split_whitespace().collect::<Vec<_>>().join(" "));
        anyhow::bail!("tournament {} {control}: HTTP status {status}: {reason}", to.id);
    }
    match json.as_ref().and_then(|j| j.get("status")?.as_str().map(String::from)) {
        Some(state) => outln!("tournament {} {control}: done (status {state})", to.id),
        None => outln!("tournament {} {control}: done", to.id),
    }
    Ok(())
}

/// Prints an export as the serving server writes it.
async fn export(from: &Reader, what: Export, format: ExportFormat) -> anyhow::Result<()> {
    let name = match what {
        Export::Standings => "standings",
        Export::Pairings => "pairings",
        Export::Results => "results",
    };
    let body = match format {
        ExportFormat::Csv => from.get(&format!("/{name}.csv")).await?,
        ExportFormat::Json => serde_json::to_string_pretty(&from.get_json(&format!("/{name}")).await?)?,
    };
    // The CSV ends its last row itself; JSON gets a final line break.
    match format {
        ExportFormat::Csv => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(body.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
                r => r.context("writing to stdout")?,
            }
        }
        ExportFormat::Json => outln!("{body}"),
    }
    Ok(())
}
