//! `book/src/organising/scoring.md` stays true: every tie-break a spec accepts has its
//! section there, with the one-line definition the code gives, and every
//! worked example (a `standings-example` block and the table after it) is
//! played through the crate and must give the numbers the document prints.

use std::collections::BTreeSet;

use capicua_tournament::{MatchResult, SeatResult, Standing, TieBreak, Tournament, TournamentSpec};

const DOC: &str = include_str!("../../book/src/organising/scoring.md");

/// Collapses runs of whitespace (line breaks included) into one space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text under the heading line `heading`, up to the next heading of any level.
fn section(heading: &str) -> Option<String> {
    let mut lines = DOC.lines().skip_while(|l| l.trim_end() != heading);
    lines.next()?;
    Some(lines.take_while(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n"))
}

/// Every name a spec's `tie-breaks` accepts, aliases included, as serde
/// lists them when it refuses an unknown one: a new variant or alias shows
/// up here without anyone listing it.
fn accepted_names() -> BTreeSet<String> {
    let err = serde_json::from_str::<TieBreak>(r#""no-such-tie-break""#).unwrap_err().to_string();
    let expected = err.split("expected one of").nth(1).unwrap_or_else(|| panic!("serde's message changed: {err}"));
    expected.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

#[test]
fn every_tie_break_a_spec_accepts_is_defined_in_the_document() {
    let accepted = accepted_names();
    let named: BTreeSet<String> = TieBreak::ALL.iter().map(|tb| tb.name().to_string()).collect();
    assert!(named.is_subset(&accepted), "TieBreak::name gives a name serde refuses: {named:?} vs {accepted:?}");
    for tb in TieBreak::ALL {
        assert_eq!(serde_json::to_string(&tb).unwrap(), format!("\"{}\"", tb.name()));
        let heading = format!("### `{}`", tb.name());
        let text =
            section(&heading).unwrap_or_else(|| panic!("book/src/organising/scoring.md has no heading {heading}"));
        assert!(
            squash(&text).contains(tb.definition()),
            "the section {heading} does not give TieBreak::definition word for word: {:?}",
            tb.definition()
        );
    }
    // Aliases: each is named, in backquotes, in the section of the tie-break it stands for.
    for alias in accepted.difference(&named) {
        let tb: TieBreak = serde_json::from_str(&format!("\"{alias}\"")).unwrap();
        assert!(TieBreak::ALL.contains(&tb) && tb.name() != alias, "TieBreak::ALL lacks {tb:?}");
        let text = section(&format!("### `{}`", tb.name())).unwrap();
        assert!(text.contains(&format!("`{alias}`")), "alias {alias} is not given in the section of {}", tb.name());
    }
}

#[test]
fn the_scoring_rustdoc_defines_every_tie_break_as_the_document_does() {
    let source = include_str!("../src/scoring.rs");
    let rustdoc: Vec<&str> = source.lines().filter_map(|l| l.trim().strip_prefix("///")).collect();
    let rustdoc = squash(&rustdoc.join(" "));
    for tb in TieBreak::ALL {
        assert!(
            rustdoc.contains(&format!("`{}`", tb.name())) && rustdoc.contains(tb.definition()),
            "ScoringSpec::tie_breaks does not define `{}` as TieBreak::definition does",
            tb.name()
        );
    }
}

#[test]
fn every_tie_break_has_a_worked_example() {
    let examples = examples();
    for tb in TieBreak::ALL {
        assert!(
            examples.iter().any(|ex| ex.columns.iter().any(|c| c == tb.name())),
            "no standings-example table of book/src/organising/scoring.md has a `{}` column",
            tb.name()
        );
    }
}

#[test]
fn every_worked_example_gives_the_numbers_the_document_prints() {
    let examples = examples();
    assert!(examples.len() >= 5, "found {} examples", examples.len());
    for ex in &examples {
        let standings = ex.play();
        ex.check(&standings);
    }
}

/// One game as the document writes it: `ana 100, ben 60 (1 timeout)`, then
/// optionally `; draw` or `; ben wins` (else the highest score wins, and
/// equal highest scores draw).
#[derive(Debug)]
struct Game {
    /// Name, match score, timeouts, per entrant.
    seats: Vec<(String, i64, u32)>,
    /// `Some(None)` for a draw, `Some(Some(name))` for a named winner.
    decided: Option<Option<String>>,
}

impl Game {
    fn parse(text: &str, line: usize) -> Game {
        let (seats, verdict) = text.split_once(';').map_or((text, None), |(s, v)| (s, Some(v.trim())));
        let seats = seats
            .split(',')
            .map(|item| {
                let (main, timeouts) = match item.split_once('(') {
                    Some((main, rest)) => {
                        let n = rest.split_whitespace().next().unwrap_or("");
                        (main, n.parse().unwrap_or_else(|_| panic!("line {line}: timeouts in {item:?}")))
                    }
                    None => (item, 0),
                };
                let mut words = main.split_whitespace();
                let name = words.next().unwrap_or_else(|| panic!("line {line}: empty seat"));
                let score = words.next().and_then(|s| s.parse().ok());
                let score = score.unwrap_or_else(|| panic!("line {line}: no score in {item:?}"));
                (name.to_string(), score, timeouts)
            })
            .collect();
        let decided = verdict.map(|v| match v.strip_suffix(" wins") {
            Some(name) => Some(name.trim().to_string()),
            None if v == "draw" => None,
            None => panic!("line {line}: {v:?} is neither `draw` nor `NAME wins`"),
        });
        Game { seats, decided }
    }

    fn names(&self) -> BTreeSet<&str> {
        self.seats.iter().map(|s| s.0.as_str()).collect()
    }

    fn winner(&self) -> Option<&str> {
        match &self.decided {
            Some(named) => named.as_deref(),
            None => {
                let best = self.seats.iter().map(|s| s.1).max()?;
                let top: Vec<&str> = self.seats.iter().filter(|s| s.1 == best).map(|s| s.0.as_str()).collect();
                (top.len() == 1).then(|| top[0])
            }
        }
    }
}

/// One `standings-example` block and the table that follows it.
struct Example {
    /// Line of the block's opening fence.
    line: usize,
    /// The spec lines (TOML); `name` and `variants = ["block"]` are implied.
    spec: String,
    games: Vec<Game>,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn examples() -> Vec<Example> {
    let lines: Vec<&str> = DOC.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```standings-example" {
            i += 1;
            continue;
        }
        let line = i + 1;
        let mut spec = String::from("name = \"example\"\nvariants = [\"block\"]\n");
        let mut games = Vec::new();
        i += 1;
        while lines[i].trim() != "```" {
            match lines[i].trim().strip_prefix("game:") {
                Some(g) => games.push(Game::parse(g, i + 1)),
                None => {
                    spec.push_str(lines[i]);
                    spec.push('\n');
                }
            }
            i += 1;
        }
        // The expected standings: the first table after the block, before any other block.
        while i < lines.len() && !lines[i].starts_with('|') {
            assert!(!lines[i].starts_with("```standings-example"), "the example at line {line} has no table");
            i += 1;
        }
        let cells = |l: &str| -> Vec<String> {
            l.trim().trim_matches('|').split('|').map(|c| c.trim().trim_matches('`').to_string()).collect()
        };
        let columns = cells(lines[i]);
        let rows = lines[i + 2..].iter().take_while(|l| l.starts_with('|')).map(|l| cells(l)).collect();
        out.push(Example { line, spec, games, columns, rows });
    }
    out
}

impl Example {
    /// Plays the example's tournament: each table the schedule hands out
    /// takes the first unused game of the document between its entrants.
    fn play(&self) -> Vec<Standing> {
        let spec = TournamentSpec::from_toml(&self.spec).unwrap_or_else(|e| panic!("line {}: {e}", self.line));
        let config = spec.validate().unwrap_or_else(|e| panic!("line {}: {e}", self.line));
        let mut t = Tournament::new(config);
        let games = &self.games;
        let mut used = vec![false; games.len()];
        let name = |t: &Tournament, id: capicua_tournament::EntrantId| t.entrants()[id.index()].name.clone();
        while let Some(round) = t.next_round() {
            for table in &round.tables {
                let names: BTreeSet<String> = table.sides.iter().flatten().map(|&e| name(&t, e)).collect();
                let names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
                let Some(k) = (0..games.len()).find(|&k| !used[k] && games[k].names() == names) else {
                    panic!(
                        "example at line {}: round {} seats {names:?}, and no game between them is left",
                        self.line, round.number
                    )
                };
                used[k] = true;
                let game = &games[k];
                let seat_of = |who: &str| game.seats.iter().find(|s| s.0 == who).expect("names match");
                let seats = table
                    .seats
                    .iter()
                    .map(|s| {
                        let (_, score, timeouts) = seat_of(&name(&t, s.entrant));
                        SeatResult { score: *score, pips: 0, timeouts: *timeouts }
                    })
                    .collect();
                let winner = game.winner().map(|w| {
                    let side = table.sides.iter().position(|side| side.iter().any(|&e| name(&t, e) == w));
                    side.unwrap_or_else(|| panic!("example at line {}: winner {w} is not at the table", self.line))
                        as u32
                });
                t.record(MatchResult { round: round.number, table: table.id, seats, winner }).unwrap();
            }
        }
        let left: Vec<_> = games.iter().zip(&used).filter(|(_, u)| !**u).map(|(g, _)| g.names()).collect();
        assert!(left.is_empty(), "example at line {}: games never scheduled: {left:?}", self.line);
        t.standings()
    }

    /// Every cell of the table against the standings.
    fn check(&self, standings: &[Standing]) {
        let spec = TournamentSpec::from_toml(&self.spec).unwrap();
        let tie_breaks: Vec<&str> = spec.scoring.tie_breaks.iter().map(|tb| tb.name()).collect();
        let col = |name: &str| self.columns.iter().position(|c| c == name);
        let entrant = col("entrant").unwrap_or_else(|| panic!("example at line {}: no entrant column", self.line));
        assert_eq!(self.rows.len(), standings.len(), "example at line {}: one row per entrant", self.line);
        for row in &self.rows {
            let who = &row[entrant];
            let s = standings.iter().find(|s| s.name == *who);
            let s = s.unwrap_or_else(|| panic!("example at line {}: no entrant {who}", self.line));
            for (column, cell) in self.columns.iter().zip(row) {
                if column == "entrant" {
                    continue;
                }
                let actual = match tie_breaks.iter().position(|n| n == column) {
                    Some(k) => s.tie_breaks[k],
                    None => self.number(s, column),
                };
                let printed: i64 = cell
                    .replace('\u{2212}', "-")
                    .parse()
                    .unwrap_or_else(|_| panic!("example at line {}: {who} {column} = {cell:?}", self.line));
                assert_eq!(
                    printed, actual,
                    "example at line {}: the document says {who} has {column} {printed}, the code gives {actual}",
                    self.line
                );
            }
        }
    }

    /// The standings number a column names.
    fn number(&self, s: &Standing, column: &str) -> i64 {
        match column {
            "rank" => s.rank.into(),
            "points" => s.points,
            "wins" => s.wins.into(),
            "draws" => s.draws.into(),
            "losses" => s.losses.into(),
            "games" => s.games.into(),
            "byes" => s.byes.into(),
            "timeouts" => s.timeouts.into(),
            "score" => s.score,
            other => panic!(
                "example at line {}: column {other:?} is neither a standings number nor one of its tie-breaks",
                self.line
            ),
        }
    }
}
