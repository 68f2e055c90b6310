//! A tournament's log as stored: results (`tournament_matches`, in `seq`
//! order) and the organiser's controls of the log (`tournament_controls`
//! with a `control_json`), merged in the order they were committed; and the
//! writer's side of it: a result inserted with its game, the replica it
//! keeps to write standings in the same transaction. And the incidents of a
//! tournament run on several servers ([`Incident`]), which join the audit
//! trail of controls.

use std::collections::HashSet;

use capicua_tournament::{Control, Entry, MatchResult, Tournament};
use serde::{Deserialize, Serialize};
use sqlx::{Any, AnyConnection, Transaction};

use super::tables::arena_rounds_from;
use super::{SpecDefaults, SpecFormat, TableLink, parse_spec};
use crate::db::{Db, DbError, now_secs};

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

/// A `tournament_matches` row as read.
#[derive(sqlx::FromRow)]
struct MatchRow {
    seq: i64,
    game_id: i64,
    result_json: String,
}

impl MatchRow {
    fn stored(self) -> Result<StoredResult, DbError> {
        Ok(StoredResult { seq: self.seq, game: self.game_id, result: serde_json::from_str(&self.result_json)? })
    }
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

/// What befell a tournament on a cluster of servers, as its audit trail
/// records it (`tournament_controls` rows with a `detail_json`; the action
/// is the incident's name, `by` the node that saw it). Times are unix ms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "incident", rename_all = "kebab-case")]
pub enum Incident {
    /// A node was seen dead (its node lock gone) with tables of the
    /// tournament placed or in play on it: they are lost.
    #[serde(rename_all = "kebab-case")]
    NodeCrashed {
        /// The dead node.
        node: i64,
        /// Its tables lost.
        tables: Vec<TableAt>,
        /// When it was seen dead.
        seen_at: u64,
    },
    /// A placement was lost: its node died, or did not open it in time.
    #[serde(rename_all = "kebab-case")]
    PlacementLost {
        /// Its node.
        node: i64,
        /// The placement.
        placement: i64,
        /// The round.
        round: u32,
        /// The table in its round.
        table: u32,
        /// Whether its room was open (else it never opened: the placement
        /// still counts as one of the table's attempts).
        in_play: bool,
        /// Why, for people.
        why: String,
        /// When.
        at: u64,
    },
    /// A table is played again from its start.
    #[serde(rename_all = "kebab-case")]
    TableReplayed {
        /// The round.
        round: u32,
        /// The table in its round.
        table: u32,
        /// Why, for people.
        why: String,
        /// Which attempt this is (the first play is 1).
        attempt: i64,
        /// When.
        at: u64,
    },
    /// Another node's scheduler took the tournament over from one that died.
    #[serde(rename_all = "kebab-case")]
    SchedulerFailover {
        /// The node now running it.
        node: i64,
        /// The node that ran it before.
        from: i64,
        /// When the new node took it over.
        at: u64,
    },
}

/// A table of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableAt {
    /// The round.
    pub round: u32,
    /// The table in its round.
    pub table: u32,
}

impl Incident {
    /// The audit trail's action for it.
    pub fn action(&self) -> &'static str {
        match self {
            Incident::NodeCrashed { .. } => "node-crashed",
            Incident::PlacementLost { .. } => "placement-lost",
            Incident::TableReplayed { .. } => "table-replayed",
            Incident::SchedulerFailover { .. } => "scheduler-failover",
        }
    }
}

impl Db {
    /// Records an incident seen by node `by` in the tournament's audit
    /// trail. A placement lost before its room opened counts as one more
    /// attempt of its table, in the same transaction (an opened room was
    /// counted when it opened).
    pub async fn record_incident(&self, id: i64, by: i64, incident: &Incident) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO tournament_controls (tournament_id, after_seq, action, by_name, at, detail_json)
             VALUES ($1, (SELECT COALESCE(MAX(seq), 0) FROM tournament_matches), $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(incident.action())
        .bind(format!("node {by}"))
        .bind(now_secs())
        .bind(serde_json::to_string(incident)?)
        .execute(&mut *tx)
        .await?;
        if let Incident::PlacementLost { round, table, in_play: false, .. } = incident {
            sqlx::query(
                "UPDATE tournament_tables SET attempts = attempts + 1 WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
            )
            .bind(id)
            .bind(i64::from(*round))
            .bind(i64::from(*table))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The attempts stored for each table of a round (rooms opened and
    /// placements lost before their room opened), by table.
    pub async fn table_attempts(&self, id: i64, round: u32) -> Result<Vec<(u32, i64)>, DbError> {
        let rows: Vec<(i64, i64)> =
            sqlx::query_as("SELECT table_no, attempts FROM tournament_tables WHERE tournament_id = $1 AND round = $2")
                .bind(id)
                .bind(i64::from(round))
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(t, a)| (t as u32, a)).collect())
    }

    /// The tables of a round whose match is in the log.
    pub async fn tables_with_results(&self, id: i64, round: u32) -> Result<HashSet<u32>, DbError> {
        let rows: Vec<(i64,)> =
            sqlx::query_as("SELECT table_no FROM tournament_matches WHERE tournament_id = $1 AND round = $2")
                .bind(id)
                .bind(i64::from(round))
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(t,)| t as u32).collect())
    }

    /// Notes that node `node` runs the tournament now; returns the node that
    /// ran it before, if another, and whether that one stopped cleanly.
    pub async fn take_over_tournament(&self, id: i64, node: i64) -> Result<Option<(i64, bool)>, DbError> {
        let mut tx = self.pool.begin().await?;
        let before: Option<(i64, Option<i64>)> = sqlx::query_as(
            "SELECT n.id, n.stopped_at FROM tournaments t JOIN nodes n ON n.id = t.runner_node WHERE t.id = $1",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        sqlx::query("UPDATE tournaments SET runner_node = $1 WHERE id = $2")
            .bind(node)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(before.filter(|b| b.0 != node).map(|(n, stopped)| (n, stopped.is_some())))
    }

    /// Results recorded after `seq`, in order.
    pub async fn tournament_results_after(&self, id: i64, seq: i64) -> Result<Vec<StoredResult>, DbError> {
        let rows: Vec<MatchRow> = sqlx::query_as(
            "SELECT seq, game_id, result_json FROM tournament_matches WHERE tournament_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(id)
        .bind(seq)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(MatchRow::stored).collect()
    }

    /// The log entries committed after result `seq` and control `control`, read
    /// in one transaction (so no control is seen without the results before it).
    pub async fn tournament_log_after(&self, id: i64, seq: i64, control: i64) -> Result<LogTail, DbError> {
        let mut tx = self.pool.begin().await?;
        let tail = read_log(&mut tx, id, seq, control).await?;
        tx.commit().await?;
        Ok(tail)
    }
}

async fn read_log(conn: &mut AnyConnection, id: i64, seq: i64, control: i64) -> Result<LogTail, DbError> {
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
    let results = rows.into_iter().map(MatchRow::stored).collect::<Result<_, DbError>>()?;
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

/// A tournament as its committed log leaves it, read inside `tx` (the
/// writer keeps one per tournament that stores matches, to write the
/// standings in each match's transaction). `None` when there is no such
/// tournament or its stored spec or log no longer fit each other.
pub(in crate::db) async fn replica(tx: &mut Transaction<'_, Any>, id: i64) -> Result<Option<Tournament>, DbError> {
    replay_in(tx, id, None).await
}

/// [`replica`], leaving out the control `except` (the one being taken).
pub(super) async fn replay_in(
    conn: &mut AnyConnection,
    id: i64,
    except: Option<i64>,
) -> Result<Option<Tournament>, DbError> {
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
    // An arena's stored tables with its log (each table once its entrants have entered).
    let tables = if config.is_arena() { arena_rounds_from(&mut *conn, id, 0).await? } else { Vec::new() };
    Ok(Tournament::replay_stored(config, &tables, &entries, ends_at.map(|ms| ms as u64)).ok())
}

/// The id of the tournament's last control of the log (0 when none): the
/// writer's replica is stale once it changes.
pub(in crate::db) async fn last_control(tx: &mut Transaction<'_, Any>, id: i64) -> Result<i64, DbError> {
    Ok(sqlx::query_scalar(
        "SELECT COALESCE(MAX(id), 0) FROM tournament_controls WHERE tournament_id = $1 AND control_json IS NOT NULL",
    )
    .bind(id)
    .fetch_one(&mut **tx)
    .await?)
}

/// Inserts a finished tournament match inside the writer's transaction that
/// stores its game.
pub(in crate::db) async fn insert_match(
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
