//! The tournament description: plain serde data, and its validated form.
//!
//! A [`TournamentSpec`] is what a user writes (TOML or JSON, kebab-case,
//! unknown fields rejected). [`TournamentSpec::validate`] checks every field
//! and returns a [`Config`], the only thing a
//! [`Tournament`](crate::Tournament) accepts; a [`ConfigError`] names the bad
//! field in the file's spelling. [`TournamentSpec::from_toml`] and
//! [`TournamentSpec::from_json`] parse a text; their [`ParseError`] names
//! the key at fault by its path (`stages[0].legs`).
//!
//! Everything that can be known before the first game is checked here, so a
//! tournament is refused when it is created rather than misbehaving midway:
//! among others `stop.winners` against the entrants, negative points, and
//! the most games the schedule may play (see [`DEFAULT_MAX_GAMES`]).

use std::collections::BTreeMap;

use capicua_engine::poly::{POLY_PRESETS, PolyVariant, poly_preset};
use capicua_engine::{Teams, Variant};
use serde::{Deserialize, Serialize};

use crate::disqualify::{DisqualifySpec, LenientJudgeSpec};
use crate::error::{ConfigError, ParseError};
use crate::scoring::{PointsRule, ScoringSpec};
use crate::stop::StopSpec;
use crate::table::TableKind;

/// Most entrants a tournament accepts.
pub const MAX_ENTRANTS: usize = 512;

/// Most games a tournament's schedule may play unless its spec sets
/// `max-games`: a spec this large is more often a slip (a 512-entrant,
/// 4-leg round robin is 523,264 games) than an event anyone means to run.
pub const DEFAULT_MAX_GAMES: u64 = 100_000;

/// Highest `max-games` a spec may set.
pub const MAX_GAMES_CEILING: u64 = 10_000_000;

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
    /// (`capicua_engine::PRESETS`), a poly preset's name (tiles with 3, 4
    /// or 6 faces, `capicua_engine::poly::POLY_PRESETS`; every seat for
    /// itself, so not at tables played in pairs) or the path of a variant
    /// file (`.toml`/`.json`, two-faced).
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
    /// How games turn into tournament points, and how ties are broken (see
    /// [`ScoringSpec`]; `book/src/organising/scoring.md` defines every rule and
    /// tie-break with a worked example).
    #[serde(default)]
    pub scoring: ScoringSpec,
    /// The sources' "corrupt judge": a disqualified entrant may stay in at
    /// half its points. Off unless present.
    #[serde(default)]
    pub lenient_judge: Option<LenientJudgeSpec>,
    /// The tables' clock and how long an entrant may keep its table waiting.
    #[serde(default)]
    pub clock: ClockSpec,
    /// The most games the schedule may play (an upper bound, see
    /// [`TournamentSpec::game_bound`]); default [`DEFAULT_MAX_GAMES`], at most
    /// [`MAX_GAMES_CEILING`]. Set it to say a larger tournament is meant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_games: Option<u64>,
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
    /// Swiss of two entrants per table: how a round is paired (refused
    /// elsewhere). Absent means [`SwissPairing::Neighbours`], so a spec
    /// stored before Dutch pairing existed replays as it was played; a new
    /// tournament gets [`SwissPairing::Dutch`] written in by
    /// [`TournamentSpec::fill_new_event_defaults`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairing: Option<SwissPairing>,
    /// Split the stage's entrants into this many groups (snake seeding). Default 1.
    #[serde(default)]
    pub groups: Option<u32>,
    /// How many of each group go on to the next stage (required on every stage but the last).
    #[serde(default)]
    pub advance: Option<u32>,
    /// Variants of this stage (cycled by the stage's rounds), replacing the tournament's.
    #[serde(default)]
    pub variants: Option<Vec<String>>,
    /// Arena: how long it pairs entrants, in seconds (required for an arena,
    /// refused elsewhere; 1 to [`MAX_ARENA_SECS`]).
    #[serde(default)]
    pub duration_secs: Option<u32>,
    /// Arena: after two wins in a row an entrant's wins count double until
    /// it fails to win (default false; refused elsewhere).
    #[serde(default)]
    pub streak_bonus: Option<bool>,
}

/// Longest arena: a day.
pub const MAX_ARENA_SECS: u32 = 86_400;

/// The formats a stage can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormatKind {
    /// Everyone meets everyone (`legs` times). For 4-entrant tables, rounds are
    /// built until every pair has met `legs` times, repeating as little as the
    /// numbers allow; with `rotating-partners` every pair partners at most `legs` times.
    RoundRobin,
    /// Pairing by standing, avoiding repeats, for `rounds` rounds (see
    /// [`SwissPairing`] for two entrants per table).
    Swiss,
    /// Single elimination with byes for the top seeds (two entrants per table only).
    Knockout,
    /// Double elimination: out at the second loss (two entrants per table only).
    DoubleKnockout,
    /// For `duration-secs`, an entrant whose game ends is paired again at
    /// once with a free entrant near it in the standings (two entrants per
    /// table, a single stage; see [`Tournament::arena_pair`](crate::Tournament::arena_pair)).
    Arena,
}

/// How a Swiss stage of two entrants per table pairs a round.
///
/// ```
/// use capicua_tournament::{StageSpec, SwissPairing};
/// let stage: StageSpec = toml::from_str("format = \"swiss\"\nrounds = 5\npairing = \"dutch\"").unwrap();
/// assert_eq!(stage.pairing, Some(SwissPairing::Dutch));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwissPairing {
    /// FIDE's Dutch system (C.04.3, as bbpPairings and JaVaFo implement it):
    /// one maximum-weight matching over the whole field that, in order,
    /// repeats no pairing while one can be avoided (nor a bye), gives the
    /// bye to the lowest-ranked entrant who can take it, keeps every
    /// entrant's sides within two of even, pairs within score groups (top
    /// half against bottom half, floaters moved down one group at a time),
    /// and grants side preferences (side 0 plays as white does: sides
    /// alternate, no three in a row while avoidable).
    Dutch,
    /// Neighbours in ranking order (1-2, 3-4, ...), the first partner down
    /// the list not met before, the higher-ranked entrant on side 0; the
    /// bye to the lowest-ranked entrant with the fewest byes. What a spec
    /// without `pairing` plays.
    Neighbours,
}

/// The family of tiles a variant plays: the two-faced engine's, or tiles
/// with 3, 4 or 6 faces (`capicua_engine::poly`). A server hosts different
/// strategies for each.
///
/// ```
/// use capicua_tournament::Family;
/// assert_eq!(Family::of("block"), Family::Tiles);
/// assert_eq!(Family::of("house.toml"), Family::Tiles);
/// assert_eq!(Family::of("triominoes"), Family::Poly);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Dominoes: a preset of `capicua_engine::PRESETS` or a variant file.
    Tiles,
    /// Tiles with 3, 4 or 6 faces: a poly preset (`capicua_engine::poly::POLY_PRESETS`).
    Poly,
}

impl Family {
    /// The family of the variant a spec names `name`.
    pub fn of(name: &str) -> Family {
        if poly_preset(name).is_some() { Family::Poly } else { Family::Tiles }
    }
}

/// What a round plays, by family (see [`Config::round_variant`]).
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant, reason = "built once per table")]
pub enum RoundVariant {
    /// A two-faced variant: a preset, or an attached variant file's variant.
    Tiles(Variant),
    /// A poly preset (its name is [`PolyVariant::name`]).
    Poly(PolyVariant),
}

/// A validated tournament description; build it with [`TournamentSpec::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    spec: TournamentSpec,
    /// The variants of the spec's variant files, by the name the spec gives them.
    files: BTreeMap<String, Variant>,
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

    /// Whether this is an arena (whose single stage pairs entrants as they
    /// come free, see [`Tournament::arena_pair`](crate::Tournament::arena_pair)).
    pub fn is_arena(&self) -> bool {
        self.spec.stages.iter().any(|s| s.format == FormatKind::Arena)
    }

    /// Attaches the variants of the spec's variant files (see
    /// [`TournamentSpec::variant_files`]), keyed by the name the spec gives
    /// each. This crate reads no file: the caller reads and parses them, once,
    /// when the tournament is created, and stores them with it, so the event
    /// does not change when a file does. Every file must be given, validate,
    /// and seat this tournament's tables; the error names the spec field
    /// that names the file.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use capicua_tournament::TournamentSpec;
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["block", "house.toml"],
    ///     "entrants": ["ana", "ben"], "stages": [{ "format": "round-robin" }]
    /// }"#).unwrap();
    /// let config = spec.validate().unwrap();
    /// let e = config.clone().with_variant_files(BTreeMap::new()).unwrap_err();
    /// assert_eq!(e.field, "variants[1]");
    /// let house = capicua_engine::preset("draw").unwrap();
    /// let config = config.with_variant_files(BTreeMap::from([("house.toml".into(), house.clone())])).unwrap();
    /// assert_eq!(config.variant("house.toml"), Some(house));
    /// ```
    pub fn with_variant_files(mut self, files: BTreeMap<String, Variant>) -> Result<Config, ConfigError> {
        let wanted = self.spec.variant_files();
        for (field, name) in &wanted {
            let Some(variant) = files.get(name) else {
                return Err(ConfigError::new(field.clone(), format!("variant file {name:?} was not read")));
            };
            if let Err(e) = variant.validate() {
                return Err(ConfigError::new(field.clone(), format!("variant file {name:?}: {e}")));
            }
            check_fits(field, &format!("variant file {name:?}"), variant, self.spec.table)?;
            // Tournament tables are rated rooms, and a rated room under a
            // preset's name must play that preset's rules (its games count on
            // the preset's leaderboard): refused now rather than at its first table.
            let posing = capicua_engine::preset(&variant.name).is_some_and(|mut p| {
                p.description.clone_from(&variant.description);
                p != *variant
            });
            if posing {
                return Err(ConfigError::new(
                    field.clone(),
                    format!(
                        "variant file {name:?} is named {0:?} but changes {0}'s rules: give it a name of its own \
                         (name = \"{0}-house\")",
                        variant.name
                    ),
                ));
            }
        }
        if let Some(extra) = files.keys().find(|k| !wanted.iter().any(|(_, n)| n == *k)) {
            return Err(ConfigError::new("variants", format!("{extra:?} is not a variant file of this spec")));
        }
        self.files = files;
        Ok(self)
    }

    /// [`TournamentSpec::fill_new_event_defaults`] on the validated spec
    /// (what it writes in always validates): for a server that creates a
    /// tournament from a [`Config`] and stores [`Config::spec`] when this
    /// returns true.
    ///
    /// ```
    /// use capicua_tournament::{SwissPairing, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b"],
    ///     "stages": [{ "format": "swiss", "rounds": 1 }]
    /// }"#).unwrap();
    /// let mut config = spec.validate().unwrap();
    /// assert!(config.fill_new_event_defaults());
    /// let stored = toml::to_string(config.spec()).unwrap();
    /// let back = TournamentSpec::from_toml(&stored).unwrap().validate().unwrap();
    /// assert_eq!(back.spec().stages[0].pairing, Some(SwissPairing::Dutch));
    /// ```
    pub fn fill_new_event_defaults(&mut self) -> bool {
        self.spec.fill_new_event_defaults()
    }

    /// This configuration with one more entrant, at the end of the list (a
    /// late entry), validated again as a whole (a name listed twice, too
    /// many entrants, the game bound).
    pub(crate) fn with_entrant(&self, entrant: EntrantSpec) -> Result<Config, ConfigError> {
        let mut spec = self.spec.clone();
        spec.entrants.push(entrant);
        let mut config = spec.validate()?;
        config.files.clone_from(&self.files);
        Ok(config)
    }

    /// The variants attached by [`Config::with_variant_files`], by name.
    pub fn variant_files(&self) -> &BTreeMap<String, Variant> {
        &self.files
    }

    /// The two-faced variant a round named `name` plays: a preset, or an
    /// attached variant file's variant (`None` for a poly preset: see
    /// [`Config::round_variant`]).
    pub fn variant(&self, name: &str) -> Option<Variant> {
        capicua_engine::preset(name).or_else(|| self.files.get(name).cloned())
    }

    /// What a round named `name` plays, of either family.
    ///
    /// ```
    /// use capicua_tournament::{RoundVariant, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["triominoes", "block"],
    ///     "entrants": ["ana", "ben"], "stages": [{ "format": "round-robin", "legs": 2 }]
    /// }"#).unwrap();
    /// let config = spec.validate().unwrap();
    /// assert!(matches!(config.round_variant("triominoes"), Some(RoundVariant::Poly(v)) if v.name == "triominoes"));
    /// assert!(matches!(config.round_variant("block"), Some(RoundVariant::Tiles(_))));
    /// assert_eq!(config.round_variant("house.toml"), None);
    /// ```
    pub fn round_variant(&self, name: &str) -> Option<RoundVariant> {
        match Family::of(name) {
            Family::Poly => poly_preset(name).map(RoundVariant::Poly),
            Family::Tiles => self.variant(name).map(RoundVariant::Tiles),
        }
    }

    /// The families of tiles this tournament's rounds play (its stages'
    /// variants, and its own for a stage without), each once,
    /// [`Family::Tiles`] first: a hosted entrant must play every one.
    ///
    /// ```
    /// use capicua_tournament::{Family, TournamentSpec};
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["triominoes"], "entrants": ["ana", "ben", "eva"],
    ///     "stages": [{ "format": "swiss", "rounds": 2, "advance": 2 },
    ///                { "format": "knockout", "variants": ["block"] }]
    /// }"#).unwrap();
    /// assert_eq!(spec.validate().unwrap().families(), [Family::Tiles, Family::Poly]);
    /// ```
    pub fn families(&self) -> Vec<Family> {
        self.spec.families()
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
            check_fits(&f, &format!("preset {v}"), &variant, table)?;
        } else if let Some(variant) = poly_preset(v) {
            check_poly_fits(&f, &variant, table)?;
        } else if !(v.ends_with(".toml") || v.ends_with(".json")) {
            return Err(ConfigError::new(
                f,
                format!(
                    "{v:?} is neither a preset ({}), a poly preset ({}) nor a .toml/.json variant file",
                    capicua_engine::PRESETS.join(", "),
                    POLY_PRESETS.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a variant (called `what` in errors) seating `range` players
/// seats a `table`.
fn check_seats(
    field: &str,
    what: &str,
    range: std::ops::RangeInclusive<u8>,
    table: TableKind,
) -> Result<(), ConfigError> {
    let seats = table.seats() as u8;
    if !range.contains(&seats) {
        return Err(ConfigError::new(
            field,
            format!("{what} seats {} to {} players, a {table:?} table has {seats}", range.start(), range.end()),
        ));
    }
    Ok(())
}

/// Whether `variant` (called `what` in errors) seats a `table`: its seat
/// count, and partnerships exactly when the table plays in pairs.
fn check_fits(field: &str, what: &str, variant: &Variant, table: TableKind) -> Result<(), ConfigError> {
    check_seats(field, what, variant.players.min..=variant.players.max, table)?;
    let seats = table.seats() as u8;
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
        return Err(ConfigError::new(field, format!("{what} plays 4 seats {how}, unlike a {table:?} table")));
    }
    Ok(())
}

/// Whether the poly preset `variant` seats a `table`: its seat range, and
/// no partnerships (every seat of a poly game plays for itself).
fn check_poly_fits(field: &str, variant: &PolyVariant, table: TableKind) -> Result<(), ConfigError> {
    let name = &variant.name;
    if matches!(table, TableKind::FixedPairs | TableKind::RotatingPartners) {
        return Err(ConfigError::new(
            field,
            format!(
                "poly preset {name} is played every seat for itself, without teams: a {table:?} table plays in \
                 pairs (use duel or free-for-all)"
            ),
        ));
    }
    check_seats(field, &format!("poly preset {name}"), variant.seats.min..=variant.seats.max, table)?;
    Ok(())
}

/// The most points one result may be worth (`per-result`): with at most
/// [`MAX_GAMES_CEILING`] games, no sum of points, Buchholz or
/// Sonneborn-Berger can overflow.
pub const MAX_RESULT_POINTS: i64 = 1_000_000;

/// Fixed points per result are never negative (the standings, Buchholz and
/// `stop.points` all assume points only grow) nor beyond
/// [`MAX_RESULT_POINTS`].
fn check_points(points: &PointsRule) -> Result<(), ConfigError> {
    if let PointsRule::PerResult { win, draw, loss } = *points {
        for (name, value) in [("win", win), ("draw", draw), ("loss", loss)] {
            if !(0..=MAX_RESULT_POINTS).contains(&value) {
                return Err(ConfigError::new(
                    format!("scoring.points.per-result.{name}"),
                    format!("{value}: points per result are 0 to {MAX_RESULT_POINTS}"),
                ));
            }
        }
    }
    Ok(())
}

/// The dotted path of a key in a spec text (`stages[0].legs`). serde names
/// an unknown or missing key only in its message: the key is added to the
/// path so the field named is the one to fix.
fn path_of(path: &serde_path_to_error::Path, message: &str) -> Option<String> {
    let mut out = String::new();
    let mut last_key: Option<&str> = None;
    let push_key = |out: &mut String, key: &str| {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    };
    for seg in path.iter() {
        last_key = None;
        match seg {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            serde_path_to_error::Segment::Map { key } => {
                push_key(&mut out, key);
                last_key = Some(key);
            }
            serde_path_to_error::Segment::Enum { variant } => push_key(&mut out, variant),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    // serde's wording, and toml's for the fields of an enum's variant.
    let key = [("missing field `", '`'), ("unknown field `", '`'), ("unexpected keys in table: ", ',')]
        .into_iter()
        .find_map(|(prefix, end)| message.strip_prefix(prefix).and_then(|rest| rest.split(end).next()));
    if let Some(key) = key
        && last_key != Some(key)
    {
        push_key(&mut out, key);
    }
    (!out.is_empty()).then_some(out)
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
        self.stop.check_for(self.entrants.len())?;
        self.disqualify.check()?;
        self.scoring.check(self.table)?;
        check_points(&self.scoring.points)?;
        if let Some(judge) = &self.lenient_judge {
            judge.check()?;
        }
        self.clock.check()?;
        self.check_size()?;
        Ok(Config { spec: self, files: BTreeMap::new() })
    }

    /// Writes in the defaults of a tournament created now, where they differ
    /// from what an absent field means in a stored spec: every Swiss stage of
    /// two entrants per table without `pairing` gets `pairing = "dutch"`.
    /// Returns whether anything changed.
    ///
    /// A server calls it when a tournament is created, and stores the spec
    /// it returns (a stored spec is replayed with [`TournamentSpec::validate`]
    /// alone, where an absent `pairing` keeps the neighbours pairing its
    /// results were played under).
    ///
    /// ```
    /// use capicua_tournament::{SwissPairing, TournamentSpec};
    /// let mut spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["block"], "entrants": ["a", "b", "c"],
    ///     "stages": [{ "format": "swiss", "rounds": 2 }]
    /// }"#).unwrap();
    /// assert!(spec.fill_new_event_defaults());
    /// assert_eq!(spec.stages[0].pairing, Some(SwissPairing::Dutch));
    /// assert!(!spec.fill_new_event_defaults());
    /// ```
    pub fn fill_new_event_defaults(&mut self) -> bool {
        let mut changed = false;
        if self.table.head_to_head() {
            for stage in &mut self.stages {
                if stage.format == FormatKind::Swiss && stage.pairing.is_none() {
                    stage.pairing = Some(SwissPairing::Dutch);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Parses a TOML spec; the error names the key at fault by its path.
    /// The spec still needs [`TournamentSpec::validate`].
    pub fn from_toml(text: &str) -> Result<TournamentSpec, ParseError> {
        let line = |e: &toml::de::Error| e.span().map(|s| 1 + text[..s.start.min(text.len())].matches('\n').count());
        let de = toml::Deserializer::parse(text).map_err(|e| ParseError {
            field: None,
            line: line(&e),
            message: e.message().trim().to_string(),
        })?;
        serde_path_to_error::deserialize(de).map_err(|e| {
            let field = path_of(e.path(), e.inner().message());
            ParseError { field, line: line(e.inner()), message: e.inner().message().trim().to_string() }
        })
    }

    /// Parses a JSON spec; the error names the key at fault by its path.
    /// The spec still needs [`TournamentSpec::validate`].
    ///
    /// ```
    /// use capicua_tournament::TournamentSpec;
    /// let e = TournamentSpec::from_json(r#"{"name": "x", "stop": {"winers": 2}}"#).unwrap_err();
    /// assert_eq!(e.field.as_deref(), Some("stop.winers"));
    /// ```
    pub fn from_json(text: &str) -> Result<TournamentSpec, ParseError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: TournamentSpec = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let message = e.inner().to_string();
            let line = (e.inner().line() > 0).then(|| e.inner().line());
            let field = if e.inner().is_syntax() || e.inner().is_eof() { None } else { path_of(e.path(), &message) };
            // serde_json ends its messages with the position; the line is reported on its own.
            let message = message.rsplit_once(" at line ").map_or(message.as_str(), |(m, _)| m).to_string();
            ParseError { field, line, message }
        })?;
        de.end().map_err(|e| ParseError {
            field: None,
            line: Some(e.line()),
            message: "text after the spec".into(),
        })?;
        Ok(spec)
    }

    /// The variant files the spec names (every variant that is neither a
    /// preset nor a poly preset), each once, with the field that names it first.
    ///
    /// ```
    /// use capicua_tournament::TournamentSpec;
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["block", "house.toml"],
    ///     "entrants": ["ana", "ben"],
    ///     "stages": [{ "format": "round-robin", "variants": ["house.toml", "final.json"] }]
    /// }"#).unwrap();
    /// let files = spec.variant_files();
    /// assert_eq!(files, [("variants[1]".into(), "house.toml".into()), ("stages[0].variants[1]".into(), "final.json".into())]);
    /// ```
    pub fn variant_files(&self) -> Vec<(String, String)> {
        let stages = self
            .stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((format!("stages[{i}].variants"), s.variants.as_ref()?)));
        let mut files: Vec<(String, String)> = Vec::new();
        for (field, list) in std::iter::once(("variants".to_string(), &self.variants)).chain(stages) {
            for (i, name) in list.iter().enumerate() {
                if capicua_engine::preset(name).is_none()
                    && Family::of(name) == Family::Tiles
                    && !files.iter().any(|(_, n)| n == name)
                {
                    files.push((format!("{field}[{i}]"), name.clone()));
                }
            }
        }
        files
    }

    /// The families of tiles the spec's rounds play (see [`Config::families`]):
    /// the stages' own variants, and the tournament's when a stage has none.
    pub fn families(&self) -> Vec<Family> {
        let own = self.stages.iter().filter_map(|s| s.variants.as_ref()).flatten();
        let shared = self.stages.iter().any(|s| s.variants.is_none()).then_some(&self.variants).into_iter().flatten();
        let mut families: Vec<Family> = own.chain(shared).map(|v| Family::of(v)).collect();
        families.sort();
        families.dedup();
        families
    }

    /// The most games this tournament may play: exact for round robins of
    /// two entrants per table, an upper bound otherwise (a free-for-all
    /// round robin plans rounds until every pair has met; Swiss, knockouts and
    /// later stages depend on results). `stop.rounds` and `stop.games` lower
    /// it (a round always finishes, so `stop.games` may be passed by one
    /// round's tables less one).
    ///
    /// ```
    /// use capicua_tournament::TournamentSpec;
    /// let spec: TournamentSpec = serde_json::from_str(r#"{
    ///     "name": "x", "table": "duel", "variants": ["block"],
    ///     "entrants": ["a", "b", "c", "d", "e"], "stages": [{ "format": "round-robin", "legs": 2 }]
    /// }"#).unwrap();
    /// assert_eq!(spec.game_bound(), 20);
    /// ```
    pub fn game_bound(&self) -> u64 {
        let per_table = self.table.entrants_per_table() as u64;
        let mut entrants = self.entrants.len() as u64;
        // The first stage has the most entrants, hence the most tables a round can hold.
        let widest_round = entrants / per_table;
        let mut total: u64 = 0;
        for stage in &self.stages {
            let groups = u64::from(stage.groups.unwrap_or(1).max(1));
            for g in 0..groups {
                // Snake seeding: the first `entrants % groups` groups hold one more.
                let n = entrants / groups + u64::from(g < entrants % groups);
                total = total.saturating_add(self.group_bound(stage, n));
            }
            if let Some(k) = stage.advance {
                entrants = u64::from(k) * groups;
            }
        }
        if let Some(r) = self.stop.rounds {
            total = total.min(u64::from(r).saturating_mul(widest_round));
        }
        if let Some(g) = self.stop.games {
            total = total.min(u64::from(g).saturating_add(widest_round.saturating_sub(1)));
        }
        total
    }

    /// The most games one group of `n` entrants plays in `stage`.
    fn group_bound(&self, stage: &StageSpec, n: u64) -> u64 {
        let per_round = n / self.table.entrants_per_table() as u64;
        let legs = u64::from(stage.legs.unwrap_or(1));
        match stage.format {
            FormatKind::RoundRobin => match self.table {
                TableKind::Duel | TableKind::FixedPairs => legs * (n * n.saturating_sub(1) / 2),
                // Circle-method rounds (`n` rounded up to even, less one) for each leg.
                TableKind::RotatingPartners => legs * (n + n % 2).saturating_sub(1) * per_round,
                // Rounds are planned until every pair has met, never more than this
                // (the planner's own cap, see `format::round_robin`).
                TableKind::FreeForAll => (4 * n * legs + 9) * per_round,
            },
            FormatKind::Swiss => u64::from(stage.rounds.unwrap_or(1)) * per_round,
            // Every game eliminates one entrant, and one is left.
            FormatKind::Knockout => n.saturating_sub(1),
            // Every game is somebody's loss; all but one lose twice, the winner at most once.
            FormatKind::DoubleKnockout => (2 * n).saturating_sub(1),
            // Games are as many as fit in the duration: an arena creates no
            // table beyond the limit, which bounds it.
            FormatKind::Arena => self.max_games.unwrap_or(DEFAULT_MAX_GAMES),
        }
    }

    fn check_size(&self) -> Result<(), ConfigError> {
        let limit = match self.max_games {
            Some(0) => return Err(ConfigError::new("max-games", "at least 1")),
            Some(m) if m > MAX_GAMES_CEILING => {
                return Err(ConfigError::new("max-games", format!("at most {MAX_GAMES_CEILING}")));
            }
            Some(m) => m,
            None => DEFAULT_MAX_GAMES,
        };
        let bound = self.game_bound();
        if bound > limit {
            let why = match self.max_games {
                Some(_) => format!("the schedule may play up to {bound} games, more than max-games = {limit}"),
                None => format!(
                    "the schedule may play up to {bound} games, over the default limit of {DEFAULT_MAX_GAMES}: \
                     set max-games = {bound} if this is meant (at most {MAX_GAMES_CEILING}), or use fewer \
                     entrants, legs or rounds, or a stop rule"
                ),
            };
            return Err(ConfigError::new("max-games", why));
        }
        Ok(())
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

    /// The arena's own fields, and what an arena refuses: other stages,
    /// groups, tables of four, and stop rules that count rounds, games or
    /// points (an arena ends at its deadline).
    fn check_arena(&self, i: usize, stage: &StageSpec) -> Result<(), ConfigError> {
        let f = |name: &str| format!("stages[{i}].{name}");
        if stage.format != FormatKind::Arena {
            if stage.duration_secs.is_some() {
                return Err(ConfigError::new(f("duration-secs"), "only an arena has duration-secs"));
            }
            if stage.streak_bonus.is_some() {
                return Err(ConfigError::new(f("streak-bonus"), "only an arena has streak-bonus"));
            }
            return Ok(());
        }
        if self.stages.len() > 1 {
            return Err(ConfigError::new(
                f("format"),
                "an arena is a single-stage format: it cannot be combined with other stages",
            ));
        }
        match stage.duration_secs {
            None => return Err(ConfigError::new(f("duration-secs"), "an arena needs duration-secs")),
            Some(d) if d == 0 || d > MAX_ARENA_SECS => {
                return Err(ConfigError::new(f("duration-secs"), format!("between 1 and {MAX_ARENA_SECS}")));
            }
            Some(_) => {}
        }
        if !self.table.head_to_head() {
            return Err(ConfigError::new(
                "table",
                format!("an arena seats two entrants per table (duel or fixed-pairs), not a {:?} table", self.table),
            ));
        }
        if stage.groups.is_some_and(|g| g != 1) {
            return Err(ConfigError::new(f("groups"), "an arena pairs all its entrants in one pool"));
        }
        for (field, set) in [
            ("stop.rounds", self.stop.rounds.is_some()),
            ("stop.games", self.stop.games.is_some()),
            ("stop.points", self.stop.points.is_some()),
        ] {
            if set {
                return Err(ConfigError::new(
                    field,
                    "an arena ends at its deadline (duration-secs), not by stop rules",
                ));
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
            match (stage.format, stage.pairing) {
                (_, None) => {}
                (FormatKind::Swiss, Some(SwissPairing::Dutch)) if !self.table.head_to_head() => {
                    return Err(ConfigError::new(
                        f("pairing"),
                        format!("Dutch pairing needs two entrants per table, not a {:?} table", self.table),
                    ));
                }
                (FormatKind::Swiss, Some(_)) => {}
                (_, Some(_)) => return Err(ConfigError::new(f("pairing"), "only a Swiss stage has a pairing")),
            }
            self.check_arena(i, stage)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poly_variant_must_seat_the_table() {
        let mut v = poly_preset("triominoes").unwrap();
        assert!(check_poly_fits("variants[0]", &v, TableKind::Duel).is_ok());
        assert!(check_poly_fits("variants[0]", &v, TableKind::FreeForAll).is_ok());
        v.seats.min = 3;
        let e = check_poly_fits("variants[0]", &v, TableKind::Duel).unwrap_err();
        assert_eq!(e.field, "variants[0]");
        assert!(e.message.contains("seats 3 to 4 players, a Duel table has 2"), "{e}");
        v.seats = capicua_engine::poly::SeatRange { min: 2, max: 3 };
        assert!(check_poly_fits("stages[1].variants[0]", &v, TableKind::FreeForAll).is_err());
    }
}
