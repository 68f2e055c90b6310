//! The tables of `migrations/0002_tournaments.sql` (and `0003`'s stored variant files, `0004`'s
//! organiser's controls, `0006`'s arena deadline and pairing order) and the `tournament_standings` view.
//!
//! A tournament is its spec plus its results in `tournament_matches.seq`
//! order; [`capicua_tournament::Tournament::replay`] rebuilds the rest. A
//! result row is inserted by the database writer in the same transaction as
//! its `games` row ([`insert_match`]), so a finished match is either stored
//! and recorded or neither: that is what makes a restart safe.

use capicua_protocol::TournamentStatus;
use capicua_tournament::{
    Config, ConfigError, Control, ControlError, EntrantId, EntrantSpec, Entry, MatchResult, ParseError, Round,
    Standing, Table, Tournament, TournamentSpec,
};
use serde::Serialize;
use sqlx::{Any, AnyConnection, Row, Transaction};

use super::columns::{Flag, Text, text_column};
use super::{Db, DbError, now_secs};

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

/// Stores a new tournament (status `pending`, to start at `starts_at`, unix
/// seconds, or at once), the variants of its variant files (`variants_json`,
/// a JSON object by the name the spec gives each) and its entrants, in spec
/// order; returns its id.
pub async fn create(
    db: &Db,
    name: &str,
    format: SpecFormat,
    text: &str,
    variants_json: &str,
    entrants: &[NewEntrant],
    starts_at: Option<i64>,
) -> Result<i64, DbError> {
    let mut tx = db.pool.begin().await?;
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

/// A new tournament's deal secret, as stored (hex); `None` if the OS has no
/// randomness to give, and then each of its rooms draws its own.
fn new_deal_secret() -> Option<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A tournament's deal secret (`None`: created before tournaments had one,
/// or stored unreadable), which seeds its tables' rooms.
pub async fn deal_secret(db: &Db, id: i64) -> Result<Option<[u8; 32]>, DbError> {
    let hex: Option<String> = sqlx::query_scalar("SELECT deal_secret FROM tournaments WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
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

/// A tournament's stored spec.
pub async fn spec(db: &Db, id: i64) -> Result<Option<StoredSpec>, DbError> {
    Ok(sqlx::query_as("SELECT spec, spec_format, spec_defaults FROM tournaments WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?)
}

/// The variants of a tournament's variant files as stored when it was
/// created (a JSON object by name; `{}` for a tournament stored before
/// they were kept); `None` if there is no such tournament.
pub async fn variant_files(db: &Db, id: i64) -> Result<Option<String>, DbError> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT variants_json FROM tournaments WHERE id = $1").bind(id).fetch_optional(&db.pool).await?;
    Ok(row.map(|r| r.0))
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

/// Every tournament, newest first.
pub async fn list(db: &Db) -> Result<Vec<Summary>, DbError> {
    Ok(sqlx::query_as(&format!("{SUMMARY} ORDER BY t.id DESC")).fetch_all(&db.pool).await?)
}

/// One tournament's summary.
pub async fn summary_of(db: &Db, id: i64) -> Result<Option<Summary>, DbError> {
    Ok(sqlx::query_as(&format!("{SUMMARY} WHERE t.id = $1")).bind(id).fetch_optional(&db.pool).await?)
}

/// A recorded result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct StoredResult {
    /// Record order.
    pub seq: i64,
    /// The stored game.
    pub game: i64,
    /// The result as recorded.
    pub result: MatchResult,
}

/// Results recorded after `seq`, in order.
pub async fn results_after(db: &Db, id: i64, seq: i64) -> Result<Vec<StoredResult>, DbError> {
    #[derive(sqlx::FromRow)]
    struct MatchRow {
        seq: i64,
        game_id: i64,
        result_json: String,
    }
    let rows: Vec<MatchRow> = sqlx::query_as(
        "SELECT seq, game_id, result_json FROM tournament_matches WHERE tournament_id = $1 AND seq > $2 ORDER BY seq",
    )
    .bind(id)
    .bind(seq)
    .fetch_all(&db.pool)
    .await?;
    rows.into_iter()
        .map(|r| Ok(StoredResult { seq: r.seq, game: r.game_id, result: serde_json::from_str(&r.result_json)? }))
        .collect()
}

/// Sets the status (running also stamps the start, finished or failed the
/// end) if the tournament is in one of the statuses `from`: the runner
/// never overwrites the organiser's pause or cancel. Returns whether it changed.
pub async fn set_status(
    db: &Db,
    id: i64,
    status: TournamentStatus,
    error: Option<&str>,
    from: &[TournamentStatus],
) -> Result<bool, DbError> {
    let mut conn = db.pool.acquire().await?;
    Ok(update_status(&mut conn, id, status, error, from).await?)
}

async fn update_status(
    conn: &mut AnyConnection,
    id: i64,
    status: TournamentStatus,
    error: Option<&str>,
    from: &[TournamentStatus],
) -> Result<bool, sqlx::Error> {
    let now = now_secs();
    if from.is_empty() {
        return Ok(false);
    }
    // `status IN ($8, $9, ...)`: one placeholder per status.
    let list: Vec<String> = (0..from.len()).map(|i| format!("${}", i + 8)).collect();
    let sql = format!(
        "UPDATE tournaments SET status = $1, error = $2,
         started_at = CASE WHEN $3 AND started_at IS NULL THEN $4 ELSE started_at END,
         finished_at = CASE WHEN $5 THEN $6 ELSE NULL END
         WHERE id = $7 AND status IN ({})",
        list.join(", ")
    );
    let mut q = sqlx::query(&sql)
        .bind(Text(status))
        .bind(error)
        .bind(status == TournamentStatus::Running)
        .bind(now)
        .bind(status.is_over())
        .bind(now)
        .bind(id);
    for s in from {
        q = q.bind(Text(*s));
    }
    let done = q.execute(&mut *conn).await?;
    Ok(done.rows_affected() > 0)
}

/// A stored control of the log (withdraw, correct).
#[derive(Clone, Debug)]
pub struct StoredControl {
    /// Its id (the order controls were taken).
    pub id: i64,
    /// The last result's `seq` when it was committed: it comes after that
    /// result and before the next.
    pub after_seq: i64,
    /// The control.
    pub control: Control,
}

/// The part of a tournament's log committed after a cursor.
#[derive(Clone, Debug, Default)]
pub struct LogTail {
    /// Results, in `seq` order.
    pub results: Vec<StoredResult>,
    /// Controls of the log, in `id` order.
    pub controls: Vec<StoredControl>,
}

/// One entry of a [`LogTail`] in log order.
#[derive(Clone, Copy, Debug)]
pub enum Logged<'a> {
    /// A result.
    Result(&'a StoredResult),
    /// A control.
    Control(&'a StoredControl),
}

impl Logged<'_> {
    /// The entry for [`Tournament::replay_log`].
    pub fn entry(self) -> Entry {
        match self {
            Logged::Result(r) => Entry::Result(r.result.clone()),
            Logged::Control(c) => Entry::Control(c.control.clone()),
        }
    }
}

impl LogTail {
    /// Results and controls merged in log order: a control after every
    /// result with `seq <= after_seq`, before the later ones.
    pub fn in_order(&self) -> Vec<Logged<'_>> {
        let mut out = Vec::with_capacity(self.results.len() + self.controls.len());
        let (mut r, mut c) = (self.results.iter().peekable(), self.controls.iter().peekable());
        loop {
            match (r.peek(), c.peek()) {
                (Some(res), Some(ctl)) if ctl.after_seq < res.seq => {
                    out.push(Logged::Control(c.next().expect("peeked")))
                }
                (Some(_), _) => out.push(Logged::Result(r.next().expect("peeked"))),
                (None, Some(_)) => out.push(Logged::Control(c.next().expect("peeked"))),
                (None, None) => return out,
            }
        }
    }

    /// The last result's `seq` and the last control's id (0 when none), or
    /// those given when this part has none.
    pub fn cursor(&self, seq: i64, control: i64) -> (i64, i64) {
        (self.results.last().map_or(seq, |r| r.seq), self.controls.last().map_or(control, |c| c.id))
    }
}

/// The log entries committed after result `seq` and control `control`, read
/// in one transaction (so no control is seen without the results before it).
pub async fn log_after(db: &Db, id: i64, seq: i64, control: i64) -> Result<LogTail, DbError> {
    let mut tx = db.pool.begin().await?;
    let tail = read_log(&mut tx, id, seq, control).await?;
    tx.commit().await?;
    Ok(tail)
}

async fn read_log(conn: &mut AnyConnection, id: i64, seq: i64, control: i64) -> Result<LogTail, DbError> {
    #[derive(sqlx::FromRow)]
    struct MatchRow {
        seq: i64,
        game_id: i64,
        result_json: String,
    }
    #[derive(sqlx::FromRow)]
    struct ControlRow {
        id: i64,
        after_seq: i64,
        control_json: String,
    }
    let rows: Vec<MatchRow> = sqlx::query_as(
        "SELECT seq, game_id, result_json FROM tournament_matches WHERE tournament_id = $1 AND seq > $2 ORDER BY seq",
    )
    .bind(id)
    .bind(seq)
    .fetch_all(&mut *conn)
    .await?;
    let results = rows
        .into_iter()
        .map(|r| Ok(StoredResult { seq: r.seq, game: r.game_id, result: serde_json::from_str(&r.result_json)? }))
        .collect::<Result<_, DbError>>()?;
    let rows: Vec<ControlRow> = sqlx::query_as(
        "SELECT id, after_seq, control_json FROM tournament_controls
         WHERE tournament_id = $1 AND id > $2 AND control_json IS NOT NULL ORDER BY id",
    )
    .bind(id)
    .bind(control)
    .fetch_all(&mut *conn)
    .await?;
    let controls = rows
        .into_iter()
        .map(|r| {
            Ok(StoredControl { id: r.id, after_seq: r.after_seq, control: serde_json::from_str(&r.control_json)? })
        })
        .collect::<Result<_, DbError>>()?;
    Ok(LogTail { results, controls })
}

/// What the organiser asks of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlAction {
    /// No new table opens (from pending or running).
    Pause,
    /// Tables open again (from paused or failed).
    Resume,
    /// Stops for good (from anything not finished or cancelled).
    Cancel,
    /// An entry of the log (withdraw, correct).
    Log(Control),
}

impl ControlAction {
    /// Its name in the audit trail (`tournament_controls.action`).
    pub fn name(&self) -> &'static str {
        match self {
            ControlAction::Pause => "pause",
            ControlAction::Resume => "resume",
            ControlAction::Cancel => "cancel",
            ControlAction::Log(Control::Withdraw { .. }) => "withdraw",
            ControlAction::Log(Control::Correct { .. }) => "correct",
            ControlAction::Log(Control::Enter { .. }) => "enter",
        }
    }

    /// The statuses it may be taken in, and the status it leaves.
    fn statuses(&self) -> (&'static [TournamentStatus], Option<TournamentStatus>) {
        use TournamentStatus::*;
        match self {
            ControlAction::Pause => (&[Pending, Running], Some(Paused)),
            ControlAction::Resume => (&[Paused, Failed], Some(Running)),
            ControlAction::Cancel => (&[Pending, Running, Paused, Failed], Some(Cancelled)),
            // A withdrawal while the tournament may still play; a correction
            // at any time, the end included (that is when mistakes are seen).
            ControlAction::Log(Control::Withdraw { .. } | Control::Enter { .. }) => {
                (&[Pending, Running, Paused, Failed], None)
            }
            ControlAction::Log(Control::Correct { .. }) => {
                (&[Pending, Running, Paused, Failed, Finished, Cancelled], None)
            }
        }
    }
}

/// How a control went.
#[derive(Debug)]
pub enum ControlOutcome {
    /// Taken and committed, with its audit row; the tournament as it leaves it
    /// and, for a correction, the result it replaced.
    Taken {
        /// The tournament after the control (its standings are in the view).
        tournament: Box<Tournament>,
        /// The result a correction replaced.
        old: Option<MatchResult>,
    },
    /// No such tournament.
    NoSuchTournament,
    /// The tournament's status does not allow it.
    WrongStatus(TournamentStatus),
    /// The tournament refuses it (an unknown entrant, a missing result...).
    Refused(ControlError),
}

/// Takes an organiser's control in one transaction: checks the status,
/// applies a log control to the tournament replayed from its committed log,
/// writes the new status or the log entry, the audit row and the standings
/// rows, so the `tournament_standings` view is exact at the commit. A
/// withdrawal from a tournament not started yet is stored `before_start`
/// (see [`Control::Withdraw`]).
pub async fn take_control(db: &Db, id: i64, action: &ControlAction, by: &str) -> Result<ControlOutcome, DbError> {
    let mut tx = db.pool.begin().await?;
    // The tournament's row is locked first (on SQLite the write takes the
    // database's write lock), so no result or other control of it commits
    // between the reads below and this transaction's commit.
    if !lock(&mut tx, id).await? {
        return Ok(ControlOutcome::NoSuchTournament);
    }
    let control_id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO tournament_controls (tournament_id, after_seq, action, control_json, by_name, at)
         SELECT t.id, (SELECT COALESCE(MAX(seq), 0) FROM tournament_matches), $1, $2, $3, $4
         FROM tournaments t WHERE t.id = $5 RETURNING id",
    )
    .bind(action.name())
    .bind(match action {
        ControlAction::Log(c) => Some(serde_json::to_string(c)?),
        _ => None,
    })
    .bind(by)
    .bind(now_secs())
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(control_id) = control_id else {
        return Ok(ControlOutcome::NoSuchTournament);
    };
    let (status, started): (Text<TournamentStatus>, Option<i64>) =
        sqlx::query_as("SELECT status, started_at FROM tournaments WHERE id = $1").bind(id).fetch_one(&mut *tx).await?;
    let (from, to) = action.statuses();
    if !from.contains(&status.0) {
        return Ok(ControlOutcome::WrongStatus(status.0));
    }
    // A withdrawal before the start plans the first round again: no table
    // has opened while `started_at` is unset (a runner sets it before it
    // plans, and reads the log again after; this transaction holds the
    // write lock in between).
    let mut action = action.clone();
    if let ControlAction::Log(Control::Withdraw { entrant, .. }) = action
        && started.is_none()
    {
        let c = Control::Withdraw { entrant, before_start: true };
        sqlx::query("UPDATE tournament_controls SET control_json = $1 WHERE id = $2")
            .bind(serde_json::to_string(&c)?)
            .bind(control_id)
            .execute(&mut *tx)
            .await?;
        action = ControlAction::Log(c);
    }
    if let Some(to) = to {
        update_status(&mut tx, id, to, None, from).await?;
    }
    let Some(mut t) = replay_in(&mut tx, id, Some(control_id)).await? else {
        return Ok(ControlOutcome::NoSuchTournament);
    };
    let mut old = None;
    if let ControlAction::Log(c) = &action {
        match t.control(c.clone()) {
            Ok(o) => old = o,
            Err(e) => return Ok(ControlOutcome::Refused(e)),
        }
        if let Control::Enter { entrant } = c {
            // Its row, as creation stores every entrant's.
            let e = t.entrants().last().expect("the entrant just entered");
            NewEntrant::of(entrant).insert(&mut tx, id, i64::from(e.id.0)).await?;
        }
        if let Some(o) = &old {
            sqlx::query("UPDATE tournament_controls SET old_json = $1 WHERE id = $2")
                .bind(serde_json::to_string(o)?)
                .bind(control_id)
                .execute(&mut *tx)
                .await?;
        }
        write_standings(&mut tx, id, &t.standings()).await?;
    }
    tx.commit().await?;
    Ok(ControlOutcome::Taken { tournament: Box::new(t), old })
}

/// How deleting a tournament went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deleted {
    /// Deleted, with everything stored of it.
    Yes,
    /// No such tournament.
    NoSuchTournament,
    /// It has started (or is not pending): it stays.
    Started(TournamentStatus),
}

/// Deletes a tournament that has not started (pending, never run) and
/// everything stored of it, in one transaction.
pub async fn delete_unstarted(db: &Db, id: i64) -> Result<Deleted, DbError> {
    let mut tx = db.pool.begin().await?;
    // The row locked first, so the runner cannot start the tournament
    // between the check and the delete.
    if !lock(&mut tx, id).await? {
        return Ok(Deleted::NoSuchTournament);
    }
    let (status, started): (Text<TournamentStatus>, Option<i64>) =
        sqlx::query_as("SELECT status, started_at FROM tournaments WHERE id = $1").bind(id).fetch_one(&mut *tx).await?;
    if status.0 != TournamentStatus::Pending || started.is_some() {
        return Ok(Deleted::Started(status.0));
    }
    for table in ["tournament_controls", "tournament_standing_rows", "tournament_tables", "tournament_entrants"] {
        sqlx::query(&format!("DELETE FROM {table} WHERE tournament_id = $1")).bind(id).execute(&mut *tx).await?;
    }
    sqlx::query("DELETE FROM tournaments WHERE id = $1").bind(id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(Deleted::Yes)
}

/// One control in the audit trail (`GET /api/tournaments/{id}/audit`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct AuditEntry {
    /// The order taken.
    pub id: i64,
    /// `cancel`, `pause`, `resume`, `withdraw` or `correct`.
    pub action: String,
    /// Who took it.
    pub by: String,
    /// Unix seconds.
    pub at: i64,
    /// The control of the log (withdraw: the entrant; correct: the new result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<Control>,
    /// The result a correction replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<MatchResult>,
}

/// A tournament's audit trail, oldest first.
pub async fn audit(db: &Db, id: i64) -> Result<Vec<AuditEntry>, DbError> {
    #[derive(sqlx::FromRow)]
    struct AuditRow {
        id: i64,
        action: String,
        by_name: String,
        at: i64,
        control_json: Option<String>,
        old_json: Option<String>,
    }
    let rows: Vec<AuditRow> = sqlx::query_as(
        "SELECT id, action, by_name, at, control_json, old_json FROM tournament_controls
         WHERE tournament_id = $1 ORDER BY id",
    )
    .bind(id)
    .fetch_all(&db.pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(AuditEntry {
                id: r.id,
                action: r.action,
                by: r.by_name,
                at: r.at,
                control: r.control_json.as_deref().map(serde_json::from_str).transpose()?,
                old: r.old_json.as_deref().map(serde_json::from_str).transpose()?,
            })
        })
        .collect()
}

/// Tournaments a server should run: running, or pending whose scheduled
/// start has come.
pub async fn runnable(db: &Db) -> Result<Vec<i64>, DbError> {
    let rows = sqlx::query(
        "SELECT id FROM tournaments WHERE status = $1 OR (status = $2 AND (starts_at IS NULL OR starts_at <= $3))
         ORDER BY id",
    )
    .bind(Text(TournamentStatus::Running))
    .bind(Text(TournamentStatus::Pending))
    .bind(now_secs())
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.iter().map(|r| r.try_get("id")).collect::<Result<_, _>>()?)
}

/// Stores a round's pairings (once: a resumed round keeps its rows).
pub async fn save_round(db: &Db, id: i64, round: &Round) -> Result<(), DbError> {
    let mut tx = db.pool.begin().await?;
    for t in &round.tables {
        sqlx::query(
            "INSERT INTO tournament_tables (tournament_id, round, table_no, stage, variant, table_json)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(round.number as i64)
        .bind(t.id as i64)
        .bind(round.stage as i64)
        .bind(&round.variant)
        .bind(serde_json::to_string(t)?)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Stores an arena's deadline unless one is stored already; returns the
/// stored one (a resumed arena keeps its first deadline).
pub async fn set_ends_at(db: &Db, id: i64, ends_at_ms: u64) -> Result<u64, DbError> {
    sqlx::query("UPDATE tournaments SET ends_at_ms = COALESCE(ends_at_ms, $1) WHERE id = $2")
        .bind(ends_at_ms as i64)
        .bind(id)
        .execute(&db.pool)
        .await?;
    let (stored,): (i64,) =
        sqlx::query_as("SELECT ends_at_ms FROM tournaments WHERE id = $1").bind(id).fetch_one(&db.pool).await?;
    Ok(stored as u64)
}

/// Stores an arena's new table (a round of one table) before its room
/// opens, with the last result recorded when it was paired (`after_seq`).
pub async fn save_arena_table(db: &Db, id: i64, round: &Round, after_seq: i64) -> Result<(), DbError> {
    for t in &round.tables {
        sqlx::query(
            "INSERT INTO tournament_tables
             (tournament_id, round, table_no, stage, variant, table_json, after_seq) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(round.number as i64)
        .bind(t.id as i64)
        .bind(round.stage as i64)
        .bind(&round.variant)
        .bind(serde_json::to_string(t)?)
        .bind(after_seq)
        .execute(&db.pool)
        .await?;
    }
    Ok(())
}

/// An arena's stored tables from number `from` on, in creation order, as
/// the rounds of one table they are.
pub async fn arena_rounds_from<'e, E>(ex: E, id: i64, from: usize) -> Result<Vec<Round>, DbError>
where
    E: sqlx::Executor<'e, Database = Any>,
{
    #[derive(sqlx::FromRow)]
    struct ArenaRow {
        #[sqlx(try_from = "i64")]
        round: u32,
        #[sqlx(try_from = "i64")]
        stage: u32,
        variant: String,
        table_json: String,
    }
    let rows: Vec<ArenaRow> = sqlx::query_as(
        "SELECT round, stage, variant, table_json FROM tournament_tables
         WHERE tournament_id = $1 AND round >= $2 ORDER BY round, table_no",
    )
    .bind(id)
    .bind(from as i64)
    .fetch_all(ex)
    .await?;
    rows.into_iter()
        .map(|r| {
            let table: Table = serde_json::from_str(&r.table_json)?;
            Ok(Round { number: r.round, stage: r.stage, variant: r.variant, tables: vec![table], byes: Vec::new() })
        })
        .collect()
}

/// Adds to an arena's replica the tables stored since it was read (the
/// writer's replica learns of the runner's new tables only here). Nothing
/// for other formats.
pub(super) async fn catch_up_tables(tx: &mut Transaction<'_, Any>, id: i64, t: &mut Tournament) -> Result<(), DbError> {
    if !t.config().is_arena() {
        return Ok(());
    }
    for round in arena_rounds_from(&mut **tx, id, t.arena_tables().len()).await? {
        if let Err(e) = t.add_arena_table(round) {
            tracing::warn!(tournament = id, error = %e, "a stored arena table does not fit the arena");
            break;
        }
    }
    Ok(())
}

/// Notes the room opened for a table (one more attempt, unless the room's
/// stored match already noted it: see [`insert_match`]).
pub async fn set_table_room(db: &Db, id: i64, round: u32, table: u32, room: u64) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE tournament_tables SET attempts = attempts + (CASE WHEN room_id IS NOT DISTINCT FROM $1 THEN 0 ELSE 1 END), room_id = $2
         WHERE tournament_id = $3 AND round = $4 AND table_no = $5",
    )
    .bind(room as i64)
    .bind(room as i64)
    .bind(id)
    .bind(round as i64)
    .bind(table as i64)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A stored table: its pairing, room and attempts.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct StoredTable {
    /// The round.
    pub round: u32,
    /// The room of the latest attempt.
    pub room: Option<i64>,
    /// Rooms opened for it.
    pub attempts: i64,
    /// The table (sides and seats).
    pub table: capicua_tournament::Table,
}

/// Every stored table, by round and table.
pub async fn tables(db: &Db, id: i64) -> Result<Vec<StoredTable>, DbError> {
    tables_of_rounds(db, id, 0, u32::MAX).await
}

/// The stored tables of rounds `from..=to`.
pub async fn tables_of_rounds(db: &Db, id: i64, from: u32, to: u32) -> Result<Vec<StoredTable>, DbError> {
    #[derive(sqlx::FromRow)]
    struct TableRow {
        #[sqlx(try_from = "i64")]
        round: u32,
        room_id: Option<i64>,
        attempts: i64,
        table_json: String,
    }
    let rows: Vec<TableRow> = sqlx::query_as(
        "SELECT round, room_id, attempts, table_json FROM tournament_tables
         WHERE tournament_id = $1 AND round BETWEEN $2 AND $3 ORDER BY round, table_no",
    )
    .bind(id)
    .bind(i64::from(from))
    .bind(i64::from(to))
    .fetch_all(&db.pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(StoredTable {
                round: r.round,
                room: r.room_id,
                attempts: r.attempts,
                table: serde_json::from_str(&r.table_json)?,
            })
        })
        .collect()
}

/// Rewrites the standings rows behind the `tournament_standings` view.
pub async fn save_standings(db: &Db, id: i64, standings: &[Standing]) -> Result<(), DbError> {
    let mut tx = db.pool.begin().await?;
    write_standings(&mut tx, id, standings).await?;
    tx.commit().await?;
    Ok(())
}

/// [`save_standings`] inside a transaction.
pub(super) async fn write_standings(
    tx: &mut Transaction<'_, Any>,
    id: i64,
    standings: &[Standing],
) -> Result<(), DbError> {
    sqlx::query("DELETE FROM tournament_standing_rows WHERE tournament_id = $1").bind(id).execute(&mut **tx).await?;
    for s in standings {
        sqlx::query(
            "INSERT INTO tournament_standing_rows (tournament_id, rank, entrant_id, entrant, points, wins, draws,
             losses, games, byes, timeouts, score, stage, eliminated, disqualified, reprieves, tie_breaks)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        )
        .bind(id)
        .bind(s.rank as i64)
        .bind(s.entrant.0 as i64)
        .bind(&s.name)
        .bind(s.points)
        .bind(s.wins as i64)
        .bind(s.draws as i64)
        .bind(s.losses as i64)
        .bind(s.games as i64)
        .bind(s.byes as i64)
        .bind(s.timeouts as i64)
        .bind(s.score)
        .bind(s.stage as i64)
        .bind(i64::from(s.eliminated))
        .bind(i64::from(s.disqualified))
        .bind(s.reprieves as i64)
        .bind(serde_json::to_string(&s.tie_breaks)?)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
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

/// A tournament as its committed log leaves it, read inside `tx` (the
/// writer keeps one per tournament that stores matches, to write the
/// standings in each match's transaction). `None` when there is no such
/// tournament or its stored spec or log no longer fit each other.
pub(super) async fn replica(tx: &mut Transaction<'_, Any>, id: i64) -> Result<Option<Tournament>, DbError> {
    replay_in(tx, id, None).await
}

/// [`replica`], leaving out the control `except` (the one being taken).
async fn replay_in(conn: &mut AnyConnection, id: i64, except: Option<i64>) -> Result<Option<Tournament>, DbError> {
    let spec: Option<(String, SpecFormat, i64, Option<i64>)> =
        sqlx::query_as("SELECT spec, spec_format, spec_defaults, ends_at_ms FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    let Some((text, format, defaults, ends_at)) = spec else { return Ok(None) };
    let Ok(config) = parse_spec::<Box<dyn std::error::Error>>(&text, format, SpecDefaults(defaults)) else {
        return Ok(None);
    };
    let mut log = read_log(conn, id, 0, 0).await?;
    log.controls.retain(|c| Some(c.id) != except);
    let entries: Vec<Entry> = log.in_order().into_iter().map(Logged::entry).collect();
    if config.is_arena() {
        // An arena's stored tables with its log (each table once its entrants have entered).
        let tables = arena_rounds_from(&mut *conn, id, 0).await?;
        let mut t = Tournament::replay_arena_log(config, &tables, &entries).ok();
        // An arena's replica knows its deadline, to know when it has finished.
        if let (Some(t), Some(ends_at)) = (&mut t, ends_at) {
            t.start_arena(ends_at as u64);
        }
        return Ok(t);
    }
    Ok(Tournament::replay_log(config, &entries).ok())
}

/// Locks a tournament's row until the transaction ends, so controls, the
/// runner's status changes and the writer's results of one tournament
/// commit one after the other: a write, which on SQLite takes the database's
/// write lock and on PostgreSQL the row's. Returns whether the row exists.
pub(super) async fn lock(tx: &mut Transaction<'_, Any>, id: i64) -> Result<bool, DbError> {
    let found = sqlx::query("UPDATE tournaments SET name = name WHERE id = $1").bind(id).execute(&mut **tx).await?;
    Ok(found.rows_affected() > 0)
}

/// The id of the tournament's last control of the log (0 when none): the
/// writer's replica is stale once it changes.
pub(super) async fn last_control(tx: &mut Transaction<'_, Any>, id: i64) -> Result<i64, DbError> {
    Ok(sqlx::query_scalar(
        "SELECT COALESCE(MAX(id), 0) FROM tournament_controls WHERE tournament_id = $1 AND control_json IS NOT NULL",
    )
    .bind(id)
    .fetch_one(&mut **tx)
    .await?)
}

/// The standings of a tournament, read from the `tournament_standings` view
/// (the rows the runner saved from the library's [`Standing`]s).
pub async fn standings(db: &Db, id: i64) -> Result<Vec<Standing>, DbError> {
    /// A row of the view, named as its columns.
    #[derive(sqlx::FromRow)]
    struct StandingRow {
        #[sqlx(try_from = "i64")]
        rank: u32,
        entrant: String,
        #[sqlx(try_from = "i64")]
        entrant_id: u32,
        points: i64,
        #[sqlx(try_from = "i64")]
        wins: u32,
        #[sqlx(try_from = "i64")]
        draws: u32,
        #[sqlx(try_from = "i64")]
        losses: u32,
        #[sqlx(try_from = "i64")]
        games: u32,
        #[sqlx(try_from = "i64")]
        byes: u32,
        #[sqlx(try_from = "i64")]
        timeouts: u32,
        score: i64,
        #[sqlx(try_from = "i64")]
        stage: u32,
        #[sqlx(try_from = "Flag")]
        eliminated: bool,
        #[sqlx(try_from = "Flag")]
        disqualified: bool,
        tie_breaks: String,
        #[sqlx(try_from = "i64")]
        reprieves: u32,
    }
    let rows: Vec<StandingRow> = sqlx::query_as(
        "SELECT rank, entrant, entrant_id, points, wins, draws, losses, games, byes, timeouts, score, stage,
         eliminated, disqualified, tie_breaks, reprieves FROM tournament_standings WHERE tournament_id = $1 ORDER BY rank",
    )
    .bind(id)
    .fetch_all(&db.pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(Standing {
                rank: r.rank,
                name: r.entrant,
                entrant: EntrantId(r.entrant_id),
                points: r.points,
                wins: r.wins,
                draws: r.draws,
                losses: r.losses,
                games: r.games,
                byes: r.byes,
                timeouts: r.timeouts,
                score: r.score,
                stage: r.stage,
                eliminated: r.eliminated,
                disqualified: r.disqualified,
                tie_breaks: serde_json::from_str(&r.tie_breaks)?,
                reprieves: r.reprieves,
            })
        })
        .collect()
}

/// Inserts a finished tournament match inside the writer's transaction that
/// stores its game.
pub(super) async fn insert_match(
    tx: &mut Transaction<'_, Any>,
    game_id: i64,
    room_id: Option<i64>,
    link: &TableLink,
) -> Result<(), DbError> {
    // The table row names the room whose game decided it, in the game's
    // transaction: the runner notes a room only after opening it, and a
    // fast match can be stored (and the server killed) before that.
    sqlx::query(
        "UPDATE tournament_tables SET attempts = attempts + (CASE WHEN room_id IS NOT DISTINCT FROM $1 THEN 0 ELSE 1 END),
         room_id = COALESCE($2, room_id) WHERE tournament_id = $3 AND round = $4 AND table_no = $5",
    )
    .bind(room_id)
    .bind(room_id)
    .bind(link.tournament)
    .bind(link.result.round as i64)
    .bind(link.result.table as i64)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO tournament_matches (tournament_id, round, table_no, game_id, winner, result_json)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(link.tournament)
    .bind(link.result.round as i64)
    .bind(link.result.table as i64)
    .bind(game_id)
    .bind(link.result.winner.map(i64::from))
    .bind(serde_json::to_string(&link.result)?)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
