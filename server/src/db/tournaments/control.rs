//! A tournament's status and the organiser's controls, applied in SQL as
//! [`ControlAction::decide`] and [`Transition`] decide them, and the audit
//! trail of controls (`tournament_controls`).

use capicua_protocol::TournamentStatus;
use capicua_tournament::{
    Control, ControlAction, ControlDecision, ControlError, MatchResult, Tournament, Transition, deletable,
};
use serde::Serialize;
use sqlx::{Any, AnyConnection, Transaction};

use super::log::replay_in;
use super::standings::write_standings;
use super::{NewEntrant, lock};
use crate::db::columns::Text;
use crate::db::{Db, DbError, now_secs};

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
        /// Its id in the audit trail.
        control: i64,
    },
    /// No such tournament.
    NoSuchTournament,
    /// The tournament's status does not allow it.
    WrongStatus(TournamentStatus),
    /// The tournament refuses it (an unknown entrant, a missing result...).
    Refused(ControlError),
}

impl Db {
    /// Makes a runner's status change (running also stamps the start,
    /// finished or failed the end) if the tournament is in a status it is
    /// made from: the runner never overwrites the organiser's pause or
    /// cancel. Returns whether it changed.
    pub async fn transition_tournament(&self, id: i64, t: Transition, error: Option<&str>) -> Result<bool, DbError> {
        self.set_tournament_status(id, t.to(), error, t.from()).await
    }

    /// Sets the status (running also stamps the start, finished or failed
    /// the end) if the tournament is in one of the statuses `from`. Returns
    /// whether it changed.
    pub async fn set_tournament_status(
        &self,
        id: i64,
        status: TournamentStatus,
        error: Option<&str>,
        from: &[TournamentStatus],
    ) -> Result<bool, DbError> {
        let mut conn = self.pool.acquire().await?;
        Ok(update_status(&mut conn, id, status, error, from).await?)
    }

    /// Takes an organiser's control in one transaction: reads the status,
    /// lets [`ControlAction::decide`] say what the control does there,
    /// applies a log control to the tournament replayed from its committed
    /// log, writes the new status or the log entry, the audit row and the
    /// standings rows, so the `tournament_standings` view is exact at the
    /// commit.
    pub async fn take_tournament_control(
        &self,
        id: i64,
        action: &ControlAction,
        by: &str,
    ) -> Result<ControlOutcome, DbError> {
        let mut tx = self.pool.begin().await?;
        // The tournament's row is locked first (on SQLite the write takes the
        // database's write lock), so no result or other control of it commits
        // between the reads below and this transaction's commit.
        if !lock(&mut tx, id).await? {
            return Ok(ControlOutcome::NoSuchTournament);
        }
        // No table has opened while `started_at` is unset (a runner sets it
        // before it plans, and reads the log again after; this transaction
        // holds the write lock in between).
        let (status, started): (Text<TournamentStatus>, Option<i64>) =
            sqlx::query_as("SELECT status, started_at FROM tournaments WHERE id = $1")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
        let ControlDecision { action: decided, to } = match action.decide(status.0, started.is_some()) {
            Ok(d) => d,
            Err(wrong) => return Ok(ControlOutcome::WrongStatus(wrong.0)),
        };
        let control_id = insert_control(&mut tx, id, &decided, by).await?;
        if let Some(to) = to {
            update_status(&mut tx, id, to, None, action.allowed_from()).await?;
        }
        let Some(mut t) = replay_in(&mut tx, id, Some(control_id)).await? else {
            return Ok(ControlOutcome::NoSuchTournament);
        };
        let mut old = None;
        if let ControlAction::Log(c) = &decided {
            match apply_log_control(&mut tx, id, control_id, &mut t, c).await? {
                Ok(o) => old = o,
                Err(e) => return Ok(ControlOutcome::Refused(e)),
            }
        }
        tx.commit().await?;
        Ok(ControlOutcome::Taken { tournament: Box::new(t), old, control: control_id })
    }
}

/// The audit row of a control (with its entry of the log, for a log
/// control) committed after the last result; returns its id.
async fn insert_control(
    tx: &mut Transaction<'_, Any>,
    id: i64,
    action: &ControlAction,
    by: &str,
) -> Result<i64, DbError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO tournament_controls (tournament_id, after_seq, action, control_json, by_name, at)
         VALUES ($1, (SELECT COALESCE(MAX(seq), 0) FROM tournament_matches), $2, $3, $4, $5) RETURNING id",
    )
    .bind(id)
    .bind(action.name())
    .bind(match action {
        ControlAction::Log(c) => Some(serde_json::to_string(c)?),
        _ => None,
    })
    .bind(by)
    .bind(now_secs())
    .fetch_one(&mut **tx)
    .await?)
}

/// Applies a control of the log to the replayed tournament and stores what
/// it leaves: a late entrant's row, the result a correction replaced, the
/// standings. The tournament's refusal comes back as the inner error.
async fn apply_log_control(
    tx: &mut Transaction<'_, Any>,
    id: i64,
    control_id: i64,
    t: &mut Tournament,
    c: &Control,
) -> Result<Result<Option<MatchResult>, ControlError>, DbError> {
    let old = match t.control(c.clone()) {
        Ok(o) => o,
        Err(e) => return Ok(Err(e)),
    };
    if let Control::Enter { entrant } = c {
        // Its row, as creation stores every entrant's.
        let e = t.entrants().last().expect("the entrant just entered");
        NewEntrant::of(entrant).insert(tx, id, i64::from(e.id.0)).await?;
    }
    if let Some(o) = &old {
        sqlx::query("UPDATE tournament_controls SET old_json = $1 WHERE id = $2")
            .bind(serde_json::to_string(o)?)
            .bind(control_id)
            .execute(&mut **tx)
            .await?;
    }
    write_standings(tx, id, &t.standings()).await?;
    Ok(Ok(old))
}

/// Sets the status if it is one of `from` (none: nothing changes).
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

/// One control in the audit trail (`GET /api/tournaments/{id}/audit`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct AuditEntry {
    /// The order taken.
    pub id: i64,
    /// `cancel`, `pause`, `resume`, `withdraw` or `correct`; or an
    /// incident: `node-crashed`, `placement-lost`, `table-replayed`,
    /// `scheduler-failover`.
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
    /// What happened, for an incident (`super::log::Incident`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
}

impl Db {
    /// Deletes a tournament that has not started (pending, never run) and
    /// everything stored of it, in one transaction.
    pub async fn delete_unstarted_tournament(&self, id: i64) -> Result<Deleted, DbError> {
        let mut tx = self.pool.begin().await?;
        // The row locked first, so the runner cannot start the tournament
        // between the check and the delete.
        if !lock(&mut tx, id).await? {
            return Ok(Deleted::NoSuchTournament);
        }
        let (status, started): (Text<TournamentStatus>, Option<i64>) =
            sqlx::query_as("SELECT status, started_at FROM tournaments WHERE id = $1")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
        if !deletable(status.0, started.is_some()) {
            return Ok(Deleted::Started(status.0));
        }
        for table in ["tournament_controls", "tournament_standing_rows", "tournament_tables", "tournament_entrants"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE tournament_id = $1")).bind(id).execute(&mut *tx).await?;
        }
        sqlx::query("DELETE FROM tournaments WHERE id = $1").bind(id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(Deleted::Yes)
    }

    /// A tournament's audit trail, oldest first.
    pub async fn tournament_audit(&self, id: i64) -> Result<Vec<AuditEntry>, DbError> {
        self.tournament_audit_after(id, 0).await
    }

    /// The entries of a tournament's audit trail after entry `after`,
    /// oldest first.
    pub async fn tournament_audit_after(&self, id: i64, after: i64) -> Result<Vec<AuditEntry>, DbError> {
        #[derive(sqlx::FromRow)]
        struct AuditRow {
            id: i64,
            action: String,
            by_name: String,
            at: i64,
            control_json: Option<String>,
            old_json: Option<String>,
            detail_json: Option<String>,
        }
        let rows: Vec<AuditRow> = sqlx::query_as(
            "SELECT id, action, by_name, at, control_json, old_json, detail_json FROM tournament_controls
             WHERE tournament_id = $1 AND id > $2 ORDER BY id",
        )
        .bind(id)
        .bind(after)
        .fetch_all(&self.pool)
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
                    detail: r.detail_json.as_deref().map(serde_json::from_str).transpose()?,
                })
            })
            .collect()
    }

    /// The id of a tournament's last audit entry (0: none).
    pub async fn last_tournament_audit(&self, id: i64) -> Result<i64, DbError> {
        let last: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM tournament_controls WHERE tournament_id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        Ok(last.unwrap_or(0))
    }
}
