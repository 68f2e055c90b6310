//! `capicua-server standings`: the ratings of every rated variant, or a
//! tournament's standings.

/// The ratings boards: of `variant`, or of every rated variant; `limit`
/// lines each.
pub(crate) async fn ratings(database: &str, variant: Option<String>, limit: u32) -> anyhow::Result<()> {
    let db = super::open_read_only(database).await?;
    let rated = db.rated_variants().await?;
    let variants = match variant {
        Some(v) if rated.contains(&v) => vec![v],
        Some(v) => {
            db.close().await;
            if rated.is_empty() {
                anyhow::bail!("no rated games in variant {v:?}: there are no rated games yet");
            }
            anyhow::bail!("no rated games in variant {v:?}; variants with rated games: {}", rated.join(", "));
        }
        None => rated,
    };
    if variants.is_empty() {
        outln!("no rated games yet");
    }
    for v in variants {
        outln!("{v}");
        super::board::print(&db.leaderboard(&v, limit).await?)?;
    }
    db.close().await;
    Ok(())
}

/// Tournament `id`'s standings: a table, or JSON.
pub(crate) async fn tournament(database: &str, id: i64, json: bool) -> anyhow::Result<()> {
    let db = super::open_read_only(database).await?;
    let Some(summary) = db.tournament_summary(id).await? else {
        anyhow::bail!("no tournament {id}");
    };
    let rows = db.tournament_standings(id).await?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        db.close().await;
        return Ok(());
    }
    // The spec says how the rows were ordered; a stored spec that no longer
    // parses (a newer format) still prints, with the tie-breaks unnamed.
    let scoring = match db.tournament_spec(id).await? {
        Some(spec) => spec.parse::<capicua_server::tournament::TournamentError>().ok(),
        None => None,
    };
    outln!("{} (tournament {id}, {}, {} results)", summary.name, summary.status, summary.results);
    let tie_breaks = rows.first().map_or(0, |r| r.tie_breaks.len());
    let order = RankOrder::of(scoring.as_ref(), tie_breaks);
    outln!("ranked by: {}", order.explain());
    let mut header = format!(
        "{:>4}  {:<24} {:>5} {:>6} {:>5} {:>5} {:>6} {:>4} {:>5} {:>7}",
        "rank", "entrant", "stage", "points", "wins", "draws", "losses", "byes", "games", "score"
    );
    for label in &order.tie_break_labels {
        header.push_str(&format!(" {label:>w$}", w = label.len().max(5)));
    }
    outln!("{header}");
    for r in rows {
        let mut line = format!(
            "{:>4}  {:<24} {:>5} {:>6} {:>5} {:>5} {:>6} {:>4} {:>5} {:>7}",
            r.rank, r.name, r.stage, r.points, r.wins, r.draws, r.losses, r.byes, r.games, r.score
        );
        for (label, value) in order.tie_break_labels.iter().zip(&r.tie_breaks) {
            line.push_str(&format!(" {value:>w$}", w = label.len().max(5)));
        }
        // Withdrawn first: a withdrawn entrant may also be marked as not
        // advancing, but it left by the organiser's hand, not by losing.
        if r.disqualified {
            line.push_str("  (disqualified)");
        } else if r.withdrawn {
            line.push_str("  (withdrawn)");
        } else if r.eliminated {
            line.push_str("  (eliminated)");
        }
        outln!("{line}");
    }
    db.close().await;
    Ok(())
}

/// How a tournament's standings are ordered, for the table's header: the
/// keys of `Tournament::standings`, named from the tournament's spec.
struct RankOrder {
    /// The keys before the tie-breaks, in order.
    keys: Vec<&'static str>,
    /// One label per tie-break column (the spec's names).
    tie_break_labels: Vec<String>,
}

impl RankOrder {
    /// The order of a tournament with `config` (`None`: its spec could not
    /// be read, and its `tie_breaks` columns are only numbered).
    fn of(config: Option<&capicua_tournament::Config>, tie_breaks: usize) -> RankOrder {
        use capicua_tournament::{FormatKind, WinnerRule};
        let Some(config) = config else {
            return RankOrder {
                keys: vec!["not disqualified", "furthest stage", "later knockout exit", "the winner rule"],
                tie_break_labels: (1..=tie_breaks).map(|i| format!("tb{i}")).collect(),
            };
        };
        let spec = config.spec();
        let mut keys = vec!["not disqualified", "furthest stage"];
        if spec.stages.iter().any(|s| matches!(s.format, FormatKind::Knockout | FormatKind::DoubleKnockout)) {
            keys.push("later knockout exit");
        }
        keys.push(match spec.scoring.winner {
            WinnerRule::MostPoints => "most points",
            WinnerRule::MostWins => "most wins, then points",
            WinnerRule::BestPlayer => "best player's score, then points",
        });
        let tie_break_labels = spec
            .scoring
            .tie_breaks
            .iter()
            .map(|tb| serde_json::to_value(tb).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default())
            .collect();
        RankOrder { keys, tie_break_labels }
    }

    /// One line: the keys, the tie-breaks, the seed.
    fn explain(&self) -> String {
        let mut text = self.keys.join(", ");
        if !self.tie_break_labels.is_empty() {
            text.push_str(&format!("; then tie-breaks {}", self.tie_break_labels.join(", ")));
        }
        text.push_str("; then seed");
        text
    }
}
