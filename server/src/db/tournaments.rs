//! The tables of `migrations/0002_tournaments.sql` (and `0003`'s stored variant files, `0004`'s
//! organiser's controls, `0006`'s arena deadline and pairing order) and the `tournament_standings` view.
//!
//! A tournament is its spec plus its log: its results in
//! `tournament_matches.seq` order and the organiser's controls between
//! them; [`capicua_tournament::Tournament::replay_log`] rebuilds the rest. A
//! result row is inserted by the database writer in the same transaction as
//! its `games` row ([`log`]), so a finished match is either stored
//! and recorded or neither: that is what makes a restart safe.
//!
//! - this file: specs, entrants, creation and summaries;
//! - [`log`]: results and controls of the log, the writer's replica;
//! - [`control`]: status changes and the organiser's controls, as
//!   [`capicua_tournament::ControlAction`] decides them, and the audit trail;
//! - [`tables`]: rounds' and arenas' stored tables and their rooms;
//! - [`standings`]: the rows behind the `tournament_standings` view;
//! - [`corrections`]: the correction that counts for a stored game;
//! - [`presence`]: the node of each open table.

pub mod control;
pub mod corrections;
pub mod log;
pub mod presence;
pub mod standings;
pub mod tables;

use capicua_protocol::TournamentStatus;
use capicua_tournament::{Config, ConfigError, EntrantSpec, ParseError, TournamentSpec};
use serde::Serialize;
use sqlx::{Any, AnyConnection, Row, Transaction};

use super::columns::{Text, text_column};
use super::{Db, DbError, now_secs};

pub use capicua_tournament::ControlAction;
pub use control::{AuditEntry, ControlOutcome, Deleted};
pub use corrections::GameCorrection;
pub use log::{LogTail, Logged, StoredControl, StoredResult};
pub use presence::TableNode;
pub use tables::StoredTable;

pub use crate::record::TableLink;

/// How a spec is written (`tournaments.spec_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecFormat {
    /// TOML (the default for files).
    Toml,
    /// JSON.
    Json,
}

text_column!(SpecFormat { Toml => "toml", Json => "json" });

impl SpecFormat {
    /// JSON when the text starts with `{`, TOML otherwise.
    pub fn detect(text: &str) -> SpecFormat {
        if text.trim_start().starts_with('{') { SpecFormat::Json } else { SpecFormat::Toml }
    }
}

/// What an entrant is (`tournament_entrants.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntrantKind {
    /// One hosted bot (`bot:STRATEGY`).
    HostedBot,
    /// One registered player.
    Player,
    /// A fixed team of members.
    Team,
}

text_column!(EntrantKind { HostedBot => "hosted-bot", Player => "player", Team => "team" });

/// An entrant of a new tournament.
#[derive(Clone, Debug)]
pub struct NewEntrant {
    /// The entrant's name (a team's, or its one player's).
    pub name: String,
    /// Its members' names.
    pub members: Vec<String>,
    /// What it is.
    pub kind: EntrantKind,
}

impl NewEntrant {
    /// The row of an entrant as a spec writes it: `bot:STRATEGY[#tag]` is a
    /// hosted bot, any other name a registered player.
    pub fn of(e: &EntrantSpec) -> NewEntrant {
        match e {
            EntrantSpec::Player(p) => NewEntrant {
                name: p.clone(),
                members: vec![p.clone()],
                kind: if p.starts_with("bot:") { EntrantKind::HostedBot } else { EntrantKind::Player },
            },
            EntrantSpec::Team(t) => {
                NewEntrant { name: t.name.clone(), members: t.members.clone(), kind: EntrantKind::Team }
            }
        }
    }

    /// Stores it as entrant `index` of tournament `id`.
    async fn insert(&self, conn: &mut AnyConnection, id: i64, index: i64) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO tournament_entrants (tournament_id, entrant, name, members_json, kind) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(index)
        .bind(&self.name)
        .bind(serde_json::to_string(&self.members)?)
        .bind(self.kind)
        .execute(conn)
        .await?;
        Ok(())
    }
}

/// The defaults a spec takes for the fields it leaves out, by the rules
/// of the day the tournament was created: a stored tournament keeps its
/// own, so that a new default never changes the tables of an event already
/// stored (its replay must give the pairings it played).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SpecDefaults(pub i64);

impl SpecDefaults {
    /// As first released: Swiss stages pair neighbours.
    pub const FIRST: SpecDefaults = SpecDefaults(0);
    /// Two-entrant Swiss stages pair by the Dutch system.
    pub const DUTCH_SWISS: SpecDefaults = SpecDefaults(1);
    /// What a tournament created now gets.
    pub const CURRENT: SpecDefaults = SpecDefaults::DUTCH_SWISS;
}

/// A tournament's spec as the organiser wrote it, how, and under which
/// defaults.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StoredSpec {
    /// The text.
    pub spec: String,
    /// TOML or JSON.
    pub spec_format: SpecFormat,
    /// See [`SpecDefaults`].
    pub spec_defaults: i64,
}

impl StoredSpec {
    /// Parses and validates the stored text under its defaults.
    pub fn parse<E>(&self) -> Result<Config, E>
    where
        E: From<ParseError> + From<ConfigError>,
    {
        parse_spec(&self.spec, self.spec_format, SpecDefaults(self.spec_defaults))
    }
}

/// Parses and validates a stored or new spec under `defaults`, into the
/// caller's error type: the database reads stored specs (the writer's
/// standings), the tournament module new ones.
pub fn parse_spec<E>(text: &str, format: SpecFormat, defaults: SpecDefaults) -> Result<Config, E>
where
    E: From<ParseError> + From<ConfigError>,
{
    let mut spec = match format {
        SpecFormat::Toml => TournamentSpec::from_toml(text)?,
        SpecFormat::Json => TournamentSpec::from_json(text)?,
    };
    if defaults >= SpecDefaults::DUTCH_SWISS {
        spec.fill_new_event_defaults();
    }
    Ok(spec.validate()?)
}

/// A tournament in a list.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    /// Its id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Where it stands.
    #[sqlx(try_from = "Text<TournamentStatus>")]
    pub status: TournamentStatus,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds: when it may start (`None`: at once).
    pub starts_at: Option<i64>,
    /// Unix seconds, once started.
    pub started_at: Option<i64>,
    /// Unix seconds, once finished.
    pub finished_at: Option<i64>,
    /// Entrants.
    pub entrants: i64,
    /// Matches recorded.
    pub results: i64,
    /// An arena's deadline (unix milliseconds), once it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ends_at_ms: Option<i64>,
}

/// The columns of a [`Summary`], named as its fields.
const SUMMARY: &str =
    "SELECT t.id, t.name, t.status, t.error, t.created_at, t.starts_at, t.started_at, t.finished_at, t.ends_at_ms,
    (SELECT COUNT(*) FROM tournament_entrants e WHERE e.tournament_id = t.id) AS entrants,
    (SELECT COUNT(*) FROM tournament_matches m WHERE m.tournament_id = t.id) AS results
    FROM tournaments t";

impl Db {
    /// Stores a new tournament (status `pending`, to start at `starts_at`, unix
    /// seconds, or at once), the variants of its variant files (`variants_json`,
    /// a JSON object by the name the spec gives each) and its entrants, in spec
    /// order; returns its id.
    pub async fn create_tournament(
        &self,
        name: &str,
        format: SpecFormat,
        text: &str,
        variants_json: &str,
        entrants: &[NewEntrant],
        starts_at: Option<i64>,
    ) -> Result<i64, DbError> {
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO tournaments (name, spec_format, spec, variants_json, status, created_at, starts_at, spec_defaults,
                                      deal_secret)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        )
        .bind(name)
        .bind(format)
        .bind(text)
        .bind(variants_json)
        .bind(Text(TournamentStatus::Pending))
        .bind(now_secs())
        .bind(starts_at)
        .bind(SpecDefaults::CURRENT.0)
        .bind(new_deal_secret())
        .fetch_one(&mut *tx)
        .await?;
        for (i, e) in entrants.iter().enumerate() {
            e.insert(&mut tx, id, i as i64).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// A tournament's deal secret (`None`: created before tournaments had one,
    /// or stored unreadable), which seeds its tables' rooms.
    pub async fn tournament_deal_secret(&self, id: i64) -> Result<Option<[u8; 32]>, DbError> {
        let hex: Option<String> = sqlx::query_scalar("SELECT deal_secret FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .flatten();
        Ok(hex.and_then(|h| {
            let mut out = [0u8; 32];
            (h.len() == 64).then_some(())?;
            for (i, b) in out.iter_mut().enumerate() {
                *b = u8::from_str_radix(h.get(2 * i..2 * i + 2)?, 16).ok()?;
            }
            Some(out)
        }))
    }

    /// A tournament's stored spec.
    pub async fn tournament_spec(&self, id: i64) -> Result<Option<StoredSpec>, DbError> {
        Ok(sqlx::query_as("SELECT spec, spec_format, spec_defaults FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// The variants of a tournament's variant files as stored when it was
    /// created (a JSON object by name; `{}` for a tournament stored before
    /// they were kept); `None` if there is no such tournament.
    pub async fn tournament_variant_files(&self, id: i64) -> Result<Option<String>, DbError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT variants_json FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.0))
    }

    /// Every tournament, newest first.
    pub async fn tournaments(&self) -> Result<Vec<Summary>, DbError> {
        Ok(sqlx::query_as(&format!("{SUMMARY} ORDER BY t.id DESC")).fetch_all(&self.pool).await?)
    }

    /// One tournament's summary.
    pub async fn tournament_summary(&self, id: i64) -> Result<Option<Summary>, DbError> {
        Ok(sqlx::query_as(&format!("{SUMMARY} WHERE t.id = $1")).bind(id).fetch_optional(&self.pool).await?)
    }

    /// Tournaments a server should run: running, or pending whose scheduled
    /// start has come.
    pub async fn runnable_tournaments(&self) -> Result<Vec<i64>, DbError> {
        let rows = sqlx::query(
            "SELECT id FROM tournaments WHERE status = $1 OR (status = $2 AND (starts_at IS NULL OR starts_at <= $3))
             ORDER BY id",
        )
        .bind(Text(TournamentStatus::Running))
        .bind(Text(TournamentStatus::Pending))
        .bind(now_secs())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| r.try_get("id")).collect::<Result<_, _>>()?)
    }
}

/// A new tournament's deal secret, as stored (hex); `None` if the OS has no
/// randomness to give, and then each of its rooms draws its own.
fn new_deal_secret() -> Option<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Locks a tournament's row until the transaction ends, so controls, the
/// runner's status changes and the writer's results of one tournament
/// commit one after the other: a write, which on SQLite takes the database's
/// write lock and on PostgreSQL the row's. Returns whether the row exists.
pub(in crate::db) async fn lock(tx: &mut Transaction<'_, Any>, id: i64) -> Result<bool, DbError> {
    let found = sqlx::query("UPDATE tournaments SET name = name WHERE id = $1").bind(id).execute(&mut **tx).await?;
    Ok(found.rows_affected() > 0)
}
