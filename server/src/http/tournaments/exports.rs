//! The CSV exports of a tournament: `GET /api/tournaments/{id}/standings.csv`,
//! `/pairings.csv` and `/results.csv`, each a header row and one row per
//! standing, per seat of a table (and per bye) and per recorded result.
//! Rounds and tables are numbered from 0, as the API numbers them.

use capicua_tournament::{Standing, TieBreak};

use super::pairings::{Pairings, ResultRow, TableState};

/// `text/csv`, with the charset spelled out: spreadsheets guess otherwise.
pub(super) const CSV: &str = "text/csv; charset=utf-8";

/// One CSV field: quoted when it holds a comma, a quote, a line break or
/// leading or trailing spaces (a spreadsheet would trim them), its quotes
/// doubled (RFC 4180). A text a spreadsheet would run as a formula (it
/// starts with `=`, `+`, `-`, `@`, a tab or a carriage return, and is not
/// a number) is neutralised with a leading `'`: a team named
/// `=HYPERLINK(...)` is shown, not run.
pub(super) fn field(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err();
    let text = if formula { format!("'{text}") } else { text.to_string() };
    let needs = text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ');
    if needs { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

/// One CSV line of `fields`, ended by CRLF (RFC 4180).
fn line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = fields.iter().map(|f| field(f.as_ref())).collect::<Vec<_>>().join(",");
    out.push_str("\r\n");
    out
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The standings, leader first; one tie-break column per tie-break of the
/// spec, named `tie-break-` and the spec's name for it (`wins` is a count
/// of its own too, and a spreadsheet wants unique column names).
pub(super) fn standings(rows: &[Standing], tie_breaks: &[TieBreak]) -> String {
    let mut header: Vec<String> = [
        "rank",
        "entrant",
        "name",
        "points",
        "wins",
        "draws",
        "losses",
        "games",
        "byes",
        "timeouts",
        "score",
        "stage",
        "eliminated",
        "disqualified",
        "withdrawn",
        "reprieves",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(tie_breaks.iter().map(|t| format!("tie-break-{}", t.name())));
    let mut out = line(&header);
    for s in rows {
        let mut row = vec![
            s.rank.to_string(),
            s.entrant.0.to_string(),
            s.name.clone(),
            s.points.to_string(),
            s.wins.to_string(),
            s.draws.to_string(),
            s.losses.to_string(),
            s.games.to_string(),
            s.byes.to_string(),
            s.timeouts.to_string(),
            s.score.to_string(),
            s.stage.to_string(),
            s.eliminated.to_string(),
            s.disqualified.to_string(),
            s.withdrawn.to_string(),
            s.reprieves.to_string(),
        ];
        row.extend(s.tie_breaks.iter().map(i64::to_string));
        out.push_str(&line(&row));
    }
    out
}

fn state_name(s: TableState) -> &'static str {
    match s {
        TableState::Finished => "finished",
        TableState::InPlay => "in-play",
        TableState::Waiting => "waiting",
        TableState::NotOpen => "not-open",
        TableState::Unplayed => "unplayed",
    }
}

/// One row per seat of every table, and one per bye (its table and seat
/// columns empty, its state `bye`).
pub(super) fn pairings(p: &Pairings) -> String {
    let mut out = line(&[
        "round",
        "stage",
        "variant",
        "table",
        "seat",
        "side",
        "player",
        "entrant",
        "entrant-name",
        "state",
        "game",
        "winner-side",
        "corrected-by",
    ]);
    for r in &p.rounds {
        for t in &r.tables {
            for s in &t.seats {
                out.push_str(&line(&[
                    r.round.to_string(),
                    r.stage.to_string(),
                    r.variant.clone(),
                    t.table.to_string(),
                    s.seat.to_string(),
                    s.side.to_string(),
                    s.player.clone(),
                    s.entrant.to_string(),
                    s.entrant_name.clone(),
                    state_name(t.state).to_string(),
                    opt(t.game),
                    opt(t.result.as_ref().and_then(|x| x.winner)),
                    t.corrected_by.clone().unwrap_or_default(),
                ]));
            }
        }
        for b in &r.byes {
            out.push_str(&line(&[
                r.round.to_string(),
                r.stage.to_string(),
                r.variant.clone(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                b.entrant.to_string(),
                b.name.clone(),
                "bye".to_string(),
                String::new(),
                String::new(),
                String::new(),
            ]));
        }
    }
    out
}

/// One row per recorded result: the seats' players and scores (as many
/// seat columns as the largest table), the winner, the correction.
pub(super) fn results(rows: &[ResultRow]) -> String {
    let seats = rows.iter().map(|r| r.seats.len()).max().unwrap_or(0);
    let mut header: Vec<String> =
        ["round", "stage", "variant", "table", "game"].iter().map(|s| s.to_string()).collect();
    for i in 0..seats {
        header.extend([format!("seat-{i}-player"), format!("seat-{i}-entrant"), format!("seat-{i}-score")]);
    }
    header.extend(
        ["winner-side", "winner", "draw", "corrected-by", "corrected-at", "played-winner-side"]
            .iter()
            .map(|s| s.to_string()),
    );
    let mut out = line(&header);
    for r in rows {
        let mut row =
            vec![r.round.to_string(), r.stage.to_string(), r.variant.clone(), r.table.to_string(), opt(r.game)];
        for i in 0..seats {
            match (r.seats.get(i), r.result.seats.get(i)) {
                (Some(s), score) => row.extend([s.player.clone(), s.entrant_name.clone(), opt(score.map(|x| x.score))]),
                (None, _) => row.extend([String::new(), String::new(), String::new()]),
            }
        }
        row.extend([
            opt(r.result.winner),
            r.winners.join(" & "),
            r.result.winner.is_none().to_string(),
            r.corrected_by.clone().unwrap_or_default(),
            opt(r.corrected_at),
            r.played.as_ref().map(|p| opt(p.winner)).unwrap_or_default(),
        ]);
        out.push_str(&line(&row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formula_is_shown_not_run_and_a_number_stays_a_number() {
        assert_eq!(field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(field("-cmd|' /C calc'!A0"), "'-cmd|' /C calc'!A0");
        assert_eq!(field("+1+1"), "'+1+1");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("\tx"), "'\tx");
        assert_eq!(field("-3"), "-3", "a negative score");
        assert_eq!(field("-0.5"), "-0.5");
        assert_eq!(field("ana-maría"), "ana-maría", "a dash inside is nothing");
    }

    #[test]
    fn a_field_is_quoted_only_when_it_must_be() {
        assert_eq!(field("ana"), "ana");
        assert_eq!(field("bot:random#1"), "bot:random#1");
        assert_eq!(field("ana, the first"), "\"ana, the first\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field(" padded"), "\" padded\"");
        assert_eq!(field(""), "");
    }

    #[test]
    fn a_line_joins_its_fields_and_ends_with_crlf() {
        assert_eq!(line(&["1", "a,b", "c"]), "1,\"a,b\",c\r\n");
    }
}
