//! The tournament description: plain serde data, and its validated form.
//!
//! A [`TournamentSpec`] is what a user writes (TOML or JSON, kebab-case,
//! unknown fields rejected). [`TournamentSpec::validate`] checks every field
//! and returns a [`Config`], the only thing a
//! [`Tournament`](crate::Tournament) accepts; a [`ConfigError`] names the bad
//! field in the file's spelling.

use capicua_engine::Teams;
use serde::{Deserialize, Serialize};

use crate::disqualify::{DisqualifySpec, LenientJudgeSpec};
use crate::error::ConfigError;
use crate::scoring::ScoringSpec;
use crate::stop::StopSpec;
use crate::table::TableKind;

/// Most entrants a tournament accepts.
pub const MAX_ENTRANTS: usize = 512;

/// Everything about a tournament, as written by its organizer.
///
/// ```
/// use capicua_tournament::TournamentSpec;
/// let spec: TournamentSpec = serde_json::from_str(r#"{
///     "name": "club night", "seed": 7, "table": "duel", "variants": ["block"],
///     "entrants": ["ana", "ben", "eva"],
///     "stages": [{ "format": "round-robin" }]
/// }"#).unwrap();
/// let config = spec.validate().unwrap();
/// assert_eq!(config.entrant_count(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TournamentSpec {
    /// Name shown to players.
    pub name: String,
    /// Seed of every random choice (seeding draw, scheduling ties, lot, lenient referee).
    #[serde(default)]
    pub seed: u64,
    /// Who sits at a table and how they form sides.
    pub table: TableKind,
    /// Variants played, cycled round by round: a preset name
    /// (`capicua_engine::PRESETS`) or the path of a variant file (`.toml`/`.json`).
    pub variants: Vec<String>,
    /// The entrants, best seed first: player names, or teams for `fixed-pairs`.
    pub entrants: Vec<EntrantSpec>,
    /// Draw the seeding order by lot (from `seed`) instead of the listed order.
    #[serde(default)]
    pub draw: bool,
    /// The stages, played in order; the ranking of one seeds the next.
    pub stages: Vec<StageSpec>,
    /// When the tournament ends early.
    #[serde(default)]
    pub stop: StopSpec,
    /// When an entrant is disqualified.
    #[serde(default)]
    pub disqualify: DisqualifySpec,
    /// How games turn into tournament points, and how ties are broken.
    #[serde(default)]
    pub scoring: ScoringSpec,
    /// The sources' "corrupt judge": a disqualified entrant may stay in at
    /// half its points. Off unless present.
    #[serde(default)]
    pub lenient_judge: Option<LenientJudgeSpec>,
    /// The tables' clock and how long an entrant may keep its table waiting.
    #[serde(default)]
    pub clock: ClockSpec,
}

/// Longest move time or bank a tournament may set: one hour.
pub const MAX_CLOCK_MS: u64 = 3_600_000;

/// The clock of every table of a tournament.
///
/// ```
/// use capicua_tournament::{ClockSpec, TimeoutRule};
/// let clock: ClockSpec = toml::from_str("move-ms = 5000\nno-show-secs = 60").unwrap();
/// assert_eq!((clock.move_ms, clock.bank_ms, clock.no_show_secs), (5000, 0, 60));
/// assert_eq!(clock.on_timeout, TimeoutRule::Strategy { name: "random".into() });
/// let strict: ClockSpec = toml::from_str("on-timeout = { kind = \"forfeit\" }").unwrap();
/// assert_eq!(strict.on_timeout, TimeoutRule::Forfeit);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ClockSpec {
    /// Milliseconds per move before the bank is used (default 30,000).
    #[serde(default = "ClockSpec::default_move_ms")]
    pub move_ms: u64,
    /// A per-seat bank of extra milliseconds for the match (default 0).
    #[serde(default)]
    pub bank_ms: u64,
    /// Seconds a table waits for its players to sit and say ready; then
    /// the side of the first missing seat forfeits the match (default 300).
    #[serde(default = "ClockSpec::default_no_show_secs")]
    pub no_show_secs: u32,
    /// What happens when a seat's time runs out (default: a random legal
    /// move is played for it).
    #[serde(default)]
    pub on_timeout: TimeoutRule,
}

/// What a table does for a seat whose time ran out (the server's room
/// timeout policies).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TimeoutRule {
    /// Play a legal move chosen by a named hosted strategy.
    Strategy {
        /// The strategy's name (checked by the server that runs the tournament).
        name: String,
    },
    /// Pass where passing is legal, else a random legal move.
    Pass,
    /// The seat's side loses the match.
    Forfeit,
}

impl Default for TimeoutRule {
    fn default() -> Self {
        TimeoutRule::Strategy { name: "random".into() }
    }
}

impl ClockSpec {
    fn default_move_ms() -> u64 {
        30_000
    }

    fn default_no_show_secs() -> u32 {
        300
    }

    fn check(&self) -> Result<(), ConfigError> {
        if self.move_ms == 0 || self.move_ms > MAX_CLOCK_MS {
            return Err(ConfigError::new("clock.move-ms", format!("must be 1..={MAX_CLOCK_MS}")));
        }
        if self.bank_ms > MAX_CLOCK_MS {
            return Err(ConfigError::new("clock.bank-ms", format!("must be at most {MAX_CLOCK_MS}")));
        }
        if self.no_show_secs == 0 || u64::from(self.no_show_secs) * 1000 > MAX_CLOCK_MS {
            return Err(ConfigError::new("clock.no-show-secs", format!("must be 1..={}", MAX_CLOCK_MS / 1000)));
        }
        Ok(())
    }
}

impl Default for ClockSpec {
    fn default() -> Self {
        ClockSpec {
            move_ms: Self::default_move_ms(),
            bank_ms: 0,
            no_show_secs: Self::default_no_show_secs(),
            on_timeout: TimeoutRule::default(),
        }
    }
}

/// One entrant as written: a player's name, or a fixed team of two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EntrantSpec {
    /// A single player.
    Player(String),
    /// A fixed partnership (table `fixed-pairs`).
    Team(TeamSpec),
}

/// A fixed team of two players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TeamSpec {
    /// The team's name.
    pub name: String,
    /// Its two players; the first sits at seat 0 or 1, the second opposite.
    pub members: Vec<String>,
}

/// A stage: one format played by every entrant of the stage, optionally split into groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StageSpec {
    /// The format of the stage.
    pub format: FormatKind,
    /// Round robin: how many times every pair meets (1 single, 2 double). Default 1.
    #[serde(default)]
    pub legs: Option<u32>,
    /// Swiss: the number of rounds (required for Swiss, refused elsewhere).
    #[serde(default)]
    pub rounds: Option<u32>,
    /// Split the stage's entrants into this many groups (snake seeding). Default 1.
    #[serde(default)]
    pub groups: Option<u32>,
    /// How many of each group go on to the next stage (required on every stage but the last).
    #[serde(default)]
    pub advance: Option<u32>,
    /// Variants of this stage (cycled by the stage's rounds), replacing the tournament's.
    #[serde(default)]
    pub variants: Option<Vec<String>>,
}

/// The formats a stage can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormatKind {
    /// Everyone meets everyone (`legs` times). For 4-entrant tables, rounds are
    /// built until every pair has met `legs` times, repeating as little as the
    /// numbers allow; with `rotating-partners` every pair partners at most `legs` times.
    RoundRobin,
    /// Pairing by standing, avoiding repeats, for `rounds` rounds.
    Swiss,
    /// Single elimination with byes for the top seeds (two entrants per table only).
    Knockout,
    /// Double elimination: out at the second loss (two entrants per table only).
    DoubleKnockout,
}

/// A validated tournament description; build it with [`TournamentSpec::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    spec: TournamentSpec,
}

impl Config {
    /// The description it was built from.
    pub fn spec(&self) -> &TournamentSpec {
        &self.spec
    }

    /// Number of entrants.
    pub fn entrant_count(&self) -> usize {
        self.spec.entrants.len()
    }
}

impl TryFrom<TournamentSpec> for Config {
    type Error = ConfigError;
    fn try_from(spec: TournamentSpec) -> Result<Config, ConfigError> {
        spec.validate()
    }
}

fn check_variants(field: &str, variants: &[String], table: TableKind) -> Result<(), ConfigError> {
    if variants.is_empty() {
        return Err(ConfigError::new(field, "name at least one variant"));
    }
    for (i, v) in variants.iter().enumerate() {
        let f = format!("{field}[{i}]");
        if let Some(variant) = capicua_engine::preset(v) {
            let seats = table.seats() as u8;
            if seats < variant.players.min || seats > variant.players.max {
                return Err(ConfigError::new(
                    f,
                    format!(
                        "preset {v} seats {} to {} players, a {table:?} table has {seats}",
                        variant.players.min, variant.players.max
                    ),
                ));
            }
            let pairs = match &variant.players.teams {
                Teams::None => false,
                Teams::Pairs | Teams::PairsIfFourPlus | Teams::Alternate => true,
                Teams::Fixed(groups) => {
                    let mut g: Vec<Vec<u8>> = groups
                        .iter()
                        .map(|t| {
                            let mut t = t.clone();
                            t.sort();
                            t
                        })
                        .collect();
                    g.sort();
                    g == [vec![0, 2], vec![1, 3]]
                }
            };
            let wants_pairs = matches!(table, TableKind::FixedPairs | TableKind::RotatingPartners);
            if seats == 4 && pairs != wants_pairs {
                let how = if pairs { "in partnerships" } else { "every seat for itself" };
                return Err(ConfigError::new(f, format!("preset {v} plays 4 seats {how}, unlike a {table:?} table")));
            }
        } else if !(v.ends_with(".toml") || v.ends_with(".json")) {
            return Err(ConfigError::new(
                f,
                format!(
                    "{v:?} is neither a preset ({}) nor a .toml/.json variant file",
                    capicua_engine::PRESETS.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

impl TournamentSpec {
    /// Checks every field; the error names the first bad one.
    pub fn validate(self) -> Result<Config, ConfigError> {
        if self.name.trim().is_empty() {
            return Err(ConfigError::new("name", "must not be empty"));
        }
        check_variants("variants", &self.variants, self.table)?;
        self.check_entrants()?;
        self.check_stages()?;
        self.stop.check()?;
        self.disqualify.check()?;
        self.scoring.check(self.table)?;
        if let Some(judge) = &self.lenient_judge {
            judge.check()?;
        }
        self.clock.check()?;
        Ok(Config { spec: self })
    }

    fn check_entrants(&self) -> Result<(), ConfigError> {
        let n = self.entrants.len();
        let min = if self.table.entrants_per_table() == 4 { 4 } else { 2 };
        if n < min || n > MAX_ENTRANTS {
            return Err(ConfigError::new(
                "entrants",
                format!("{n} entrants; a {:?} tournament needs {min} to {MAX_ENTRANTS}", self.table),
            ));
        }
        let mut names = std::collections::BTreeSet::new();
        let mut players = std::collections::BTreeSet::new();
        for (i, e) in self.entrants.iter().enumerate() {
            let f = format!("entrants[{i}]");
            let name = match (e, self.table.team_entrants()) {
                (EntrantSpec::Player(name), false) => {
                    if !players.insert(name.clone()) {
                        return Err(ConfigError::new(f, format!("player {name:?} is listed twice")));
                    }
                    name
                }
                (EntrantSpec::Team(team), true) => {
                    if team.members.len() != 2 {
                        return Err(ConfigError::new(f + ".members", "a team has exactly two players"));
                    }
                    for m in &team.members {
                        if m.trim().is_empty() || !players.insert(m.clone()) {
                            return Err(ConfigError::new(
                                f + ".members",
                                format!("player {m:?} is empty or plays in two teams"),
                            ));
                        }
                    }
                    &team.name
                }
                (EntrantSpec::Player(_), true) => {
                    return Err(ConfigError::new(f, "fixed-pairs entrants are teams: { name, members = [a, b] }"));
                }
                (EntrantSpec::Team(_), false) => {
                    return Err(ConfigError::new(f, format!("{:?} entrants are players, not teams", self.table)));
                }
            };
            if name.trim().is_empty() || !names.insert(name.clone()) {
                return Err(ConfigError::new(f, format!("entrant name {name:?} is empty or repeated")));
            }
        }
        Ok(())
    }

    fn check_stages(&self) -> Result<(), ConfigError> {
        if self.stages.is_empty() {
            return Err(ConfigError::new("stages", "a tournament has at least one stage"));
        }
        let min_group = if self.table.entrants_per_table() == 4 { 4 } else { 2 };
        let mut entrants = self.entrants.len() as u32;
        let last = self.stages.len() - 1;
        for (i, stage) in self.stages.iter().enumerate() {
            let f = |name: &str| format!("stages[{i}].{name}");
            match (stage.format, stage.legs) {
                (FormatKind::RoundRobin, Some(l)) if !(1..=4).contains(&l) => {
                    return Err(ConfigError::new(f("legs"), "between 1 and 4"));
                }
                (FormatKind::RoundRobin, _) | (_, None) => {}
                (_, Some(_)) => return Err(ConfigError::new(f("legs"), "only a round robin has legs")),
            }
            match (stage.format, stage.rounds) {
                (FormatKind::Swiss, None) => return Err(ConfigError::new(f("rounds"), "a Swiss stage needs rounds")),
                (FormatKind::Swiss, Some(r)) if r == 0 || r > 1000 => {
                    return Err(ConfigError::new(f("rounds"), "between 1 and 1000"));
                }
                (FormatKind::Swiss, _) => {}
                (_, Some(_)) => return Err(ConfigError::new(f("rounds"), "only a Swiss stage has rounds")),
                _ => {}
            }
            if matches!(stage.format, FormatKind::Knockout | FormatKind::DoubleKnockout) && !self.table.head_to_head() {
                return Err(ConfigError::new(
                    f("format"),
                    format!("knockouts need two entrants per table, not a {:?} table", self.table),
                ));
            }
            let groups = stage.groups.unwrap_or(1);
            if groups == 0 || entrants / groups.max(1) < min_group {
                return Err(ConfigError::new(
                    f("groups"),
                    format!("{entrants} entrants cannot fill {groups} groups of at least {min_group}"),
                ));
            }
            if let Some(v) = &stage.variants {
                check_variants(&f("variants"), v, self.table)?;
            }
            match (i == last, stage.advance) {
                (true, Some(_)) => {
                    return Err(ConfigError::new(f("advance"), "the last stage has nobody to advance to"));
                }
                (false, None) => return Err(ConfigError::new(f("advance"), "say how many of each group go on")),
                (false, Some(k)) => {
                    let smallest = entrants / groups;
                    if k == 0 || k > smallest || k * groups < min_group {
                        return Err(ConfigError::new(
                            f("advance"),
                            format!(
                                "{k} per group of {groups} groups (smallest {smallest}); the next stage needs {min_group}"
                            ),
                        ));
                    }
                    entrants = k * groups;
                }
                (true, None) => {}
            }
        }
        Ok(())
    }
}
