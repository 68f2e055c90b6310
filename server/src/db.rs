//! Persistence: SQLite through sqlx, WAL mode, numbered migrations from the
//! top-level `migrations/` folder.
//!
//! Finished games go through one writer task ([`Db::store_game`]): it
//! batches the games that arrive together into one transaction (SQLite has a
//! single writer anyway, and one commit per batch is what makes thousands of
//! games per second possible), updates ratings in the same transaction, and
//! only then answers each room, which announces the result after the commit.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use capicua_engine::{HandResult, Move, Seating, Variant};
use serde::Serialize;
use sha2::{Digest, Sha256};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, Sqlite, Transaction};
use tokio::sync::{mpsc, oneshot};

/// Errors of the persistence layer.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database failed.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Stored JSON did not decode.
    #[error("stored data: {0}")]
    Json(#[from] serde_json::Error),
    /// The name is already registered.
    #[error("the name {0:?} is taken")]
    NameTaken(String),
    /// The writer task is gone (shutting down).
    #[error("the database writer has stopped")]
    WriterGone,
}

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// Row id.
    pub id: i64,
    /// Unique name.
    pub name: String,
}

/// One seat of a finished game.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SeatRecord {
    /// Seat number.
    pub seat: u8,
    /// Side it scored for.
    pub side: u8,
    /// The player, `None` for a guest.
    pub player_id: Option<i64>,
    /// Name shown.
    pub name: String,
    /// `player`, `guest` or `hosted-bot`.
    pub kind: String,
}

/// A finished match, everything needed to store and replay it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The room it was played in.
    pub room_id: Option<i64>,
    /// The variant.
    pub variant: Variant,
    /// The seed.
    pub seed: u64,
    /// The seating.
    pub seating: Seating,
    /// The move log.
    pub moves: Vec<Move>,
    /// Scores by side.
    pub scores: Vec<i32>,
    /// Finished hands.
    pub hands: Vec<HandResult>,
    /// Winning side.
    pub winner: Option<u8>,
    /// The seat whose side forfeited.
    pub forfeit: Option<u8>,
    /// Who sat where.
    pub seats: Vec<SeatRecord>,
    /// Whether ratings are updated.
    pub rated: bool,
}

/// A stored game, as read back.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// Its id.
    pub id: i64,
    /// The room.
    pub room_id: Option<i64>,
    /// The variant.
    pub variant: Variant,
    /// The seed.
    pub seed: u64,
    /// The seating.
    pub seating: Seating,
    /// The move log.
    pub moves: Vec<Move>,
    /// Scores by side.
    pub scores: Vec<i32>,
    /// Winning side.
    pub winner: Option<u8>,
    /// Forfeiting seat.
    pub forfeit: Option<u8>,
    /// Who sat where.
    pub seats: Vec<SeatRecord>,
    /// Rated.
    pub rated: bool,
}

/// One line of the leaderboard.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Standing {
    /// 1-based rank.
    pub rank: u32,
    /// Player name.
    pub name: String,
    /// Conservative rating: mu - 3 sigma.
    pub ordinal: f64,
    /// Mean skill.
    pub mu: f64,
    /// Uncertainty.
    pub sigma: f64,
    /// Rated games played.
    pub games: i64,
    /// Rated games won.
    pub wins: i64,
}

struct StoreJob {
    record: GameRecord,
    reply: oneshot::Sender<Result<i64, String>>,
}

/// The database: a pool for reads and a writer task for finished games.
#[derive(Clone)]
pub struct Db {
    pool: SqlitePool,
    writer: mpsc::Sender<StoreJob>,
    writer_done: tokio::sync::watch::Receiver<bool>,
}

/// Hex SHA-256 of a token: only this is stored.
pub fn hash_token(token: &str) -> String {
    let d = Sha256::digest(token.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh secret token: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the OS random source works");
    b.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Normalizes a `--database` value: a bare path becomes `sqlite://path`.
pub fn database_url(arg: &str) -> String {
    if arg.starts_with("sqlite:") { arg.to_string() } else { format!("sqlite://{arg}") }
}

impl Db {
    /// Opens (creating if missing) and migrates the database, in WAL mode,
    /// and starts the writer task.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        let opts = SqliteConnectOptions::from_str(&database_url(url))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL: a commit survives a process crash; only an OS
            // crash can lose the last commits, never corrupt the file.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            // No ping before each checkout: it costs a round trip to the
            // SQLite worker thread on every query.
            .test_before_acquire(false)
            .connect_with(opts)
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        let (tx, rx) = mpsc::channel(4096);
        let (done_tx, writer_done) = tokio::sync::watch::channel(false);
        tokio::spawn({
            let pool = pool.clone();
            async move {
                writer(pool, rx).await;
                let _ = done_tx.send(true);
            }
        });
        Ok(Db { pool, writer: tx, writer_done })
    }

    /// The pool, for ad-hoc reads.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Waits until every queued game is committed, then closes the pool.
    pub async fn close(self) {
        let Db { pool, writer, mut writer_done } = self;
        // The writer drains its queue and ends when every sender is dropped
        // (the caller drops the other clones first).
        drop(writer);
        let _ = tokio::time::timeout(Duration::from_secs(10), writer_done.wait_for(|done| *done)).await;
        pool.close().await;
    }

    /// Registers a name, returning the player and a fresh token (stored hashed).
    pub async fn register(&self, name: &str) -> Result<(Player, String), DbError> {
        let token = new_token();
        let res = sqlx::query("INSERT INTO players (name, token_hash, kind, created_at) VALUES (?, ?, 'player', ?)")
            .bind(name)
            .bind(hash_token(&token))
            .bind(now_secs())
            .execute(&self.pool)
            .await;
        match res {
            Ok(r) => Ok((Player { id: r.last_insert_rowid(), name: name.to_string() }, token)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(DbError::NameTaken(name.to_string())),
            Err(e) => Err(e.into()),
        }
    }

    /// The player holding a token.
    pub async fn player_by_token(&self, token: &str) -> Result<Option<Player>, DbError> {
        let row = sqlx::query("SELECT id, name FROM players WHERE token_hash = ?")
            .bind(hash_token(token))
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| Player { id: r.get(0), name: r.get(1) }))
    }

    /// The player row of a hosted strategy (`bot:NAME`), created on first use.
    pub async fn hosted_bot(&self, strategy: &str) -> Result<Player, DbError> {
        let name = format!("bot:{strategy}");
        sqlx::query(
            "INSERT OR IGNORE INTO players (name, token_hash, kind, created_at) VALUES (?, NULL, 'hosted-bot', ?)",
        )
        .bind(&name)
        .bind(now_secs())
        .execute(&self.pool)
        .await?;
        let id: i64 =
            sqlx::query("SELECT id FROM players WHERE name = ?").bind(&name).fetch_one(&self.pool).await?.get(0);
        Ok(Player { id, name })
    }

    /// Records a new room, returning its id.
    pub async fn create_room(&self, variant: &Variant, seats: u8, rated: bool) -> Result<i64, DbError> {
        let r =
            sqlx::query("INSERT INTO rooms (variant, variant_json, seats, rated, created_at) VALUES (?, ?, ?, ?, ?)")
                .bind(&variant.name)
                .bind(serde_json::to_string(variant)?)
                .bind(seats as i64)
                .bind(rated)
                .bind(now_secs())
                .execute(&self.pool)
                .await?;
        Ok(r.last_insert_rowid())
    }

    /// Stores a finished game (and updates ratings) in one committed
    /// transaction; returns its id once it is durable.
    pub async fn store_game(&self, record: GameRecord) -> Result<i64, DbError> {
        let (reply, rx) = oneshot::channel();
        self.writer.send(StoreJob { record, reply }).await.map_err(|_| DbError::WriterGone)?;
        match rx.await {
            Ok(Ok(id)) => Ok(id),
            Ok(Err(msg)) => Err(DbError::Sql(sqlx::Error::Protocol(msg))),
            Err(_) => Err(DbError::WriterGone),
        }
    }

    /// A stored game.
    pub async fn game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        let Some(r) = sqlx::query(
            "SELECT id, room_id, variant_json, seed, seating_json, moves_json, scores_json, winner, forfeit, rated
             FROM games WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let seats =
            sqlx::query("SELECT seat, side, player_id, name, kind FROM game_seats WHERE game_id = ? ORDER BY seat")
                .bind(id)
                .fetch_all(&self.pool)
                .await?
                .into_iter()
                .map(|s| SeatRecord {
                    seat: s.get::<i64, _>(0) as u8,
                    side: s.get::<i64, _>(1) as u8,
                    player_id: s.get(2),
                    name: s.get(3),
                    kind: s.get(4),
                })
                .collect();
        Ok(Some(StoredGame {
            id: r.get(0),
            room_id: r.get(1),
            variant: serde_json::from_str(r.get::<&str, _>(2))?,
            seed: r.get::<i64, _>(3) as u64,
            seating: serde_json::from_str(r.get::<&str, _>(4))?,
            moves: serde_json::from_str(r.get::<&str, _>(5))?,
            scores: serde_json::from_str(r.get::<&str, _>(6))?,
            winner: r.get::<Option<i64>, _>(7).map(|w| w as u8),
            forfeit: r.get::<Option<i64>, _>(8).map(|w| w as u8),
            seats,
            rated: r.get(9),
        }))
    }

    /// Number of stored games.
    pub async fn game_count(&self) -> Result<i64, DbError> {
        Ok(sqlx::query("SELECT COUNT(*) FROM games").fetch_one(&self.pool).await?.get(0))
    }

    /// The leaderboard of a variant, best first (served from the ratings
    /// table and its `(variant, ordinal)` index: its cost does not grow with
    /// the number of stored games).
    pub async fn leaderboard(&self, variant: &str, limit: u32) -> Result<Vec<Standing>, DbError> {
        let rows = sqlx::query(
            "SELECT p.name, r.ordinal, r.mu, r.sigma, r.games, r.wins FROM ratings r
             JOIN players p ON p.id = r.player_id
             WHERE r.variant = ? ORDER BY r.ordinal DESC LIMIT ?",
        )
        .bind(variant)
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| Standing {
                rank: i as u32 + 1,
                name: r.get(0),
                ordinal: r.get(1),
                mu: r.get(2),
                sigma: r.get(3),
                games: r.get(4),
                wins: r.get(5),
            })
            .collect())
    }

    /// Variants that have ratings.
    pub async fn rated_variants(&self) -> Result<Vec<String>, DbError> {
        let rows = sqlx::query("SELECT DISTINCT variant FROM ratings ORDER BY variant").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|r| r.get(0)).collect())
    }
}

/// The single writer: batches queued games into one transaction each round.
async fn writer(pool: SqlitePool, mut rx: mpsc::Receiver<StoreJob>) {
    // Ratings cache: this task is the only writer of `ratings`, so after the
    // first read of a row its cached value is the stored one.
    let mut cache: HashMap<(String, i64), Rated> = HashMap::new();
    let mut batch = Vec::with_capacity(512);
    while rx.recv_many(&mut batch, 512).await > 0 {
        let result = store_batch(&pool, &mut cache, &batch).await;
        match result {
            Ok(ids) => {
                for (job, id) in batch.drain(..).zip(ids) {
                    let _ = job.reply.send(Ok(id));
                }
            }
            Err(e) => {
                tracing::error!(error = %e, games = batch.len(), "storing finished games failed");
                // The transaction rolled back: the cache may hold ratings that
                // were never committed.
                cache.clear();
                for job in batch.drain(..) {
                    let _ = job.reply.send(Err(e.to_string()));
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Rated {
    rating: WengLinRating,
    games: i64,
    wins: i64,
}

async fn store_batch(
    pool: &SqlitePool,
    cache: &mut HashMap<(String, i64), Rated>,
    batch: &[StoreJob],
) -> Result<Vec<i64>, DbError> {
    let mut tx = pool.begin().await?;
    let mut ids = Vec::with_capacity(batch.len());
    let mut touched: HashMap<(String, i64), Rated> = HashMap::new();
    for job in batch {
        let g = &job.record;
        let id = insert_game(&mut tx, g).await?;
        if g.rated && g.seats.iter().all(|s| s.player_id.is_some()) {
            rate(&mut tx, cache, &mut touched, g).await?;
        }
        ids.push(id);
    }
    for ((variant, player), r) in &touched {
        sqlx::query(
            "INSERT INTO ratings (variant, player_id, mu, sigma, ordinal, games, wins) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (variant, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,
             ordinal = excluded.ordinal, games = excluded.games, wins = excluded.wins",
        )
        .bind(variant)
        .bind(player)
        .bind(r.rating.rating)
        .bind(r.rating.uncertainty)
        .bind(r.rating.rating - 3.0 * r.rating.uncertainty)
        .bind(r.games)
        .bind(r.wins)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    cache.extend(touched);
    Ok(ids)
}

async fn insert_game(tx: &mut Transaction<'_, Sqlite>, g: &GameRecord) -> Result<i64, DbError> {
    let id = sqlx::query(
        "INSERT INTO games (room_id, variant, variant_json, seed, seating_json, moves_json, scores_json, winner,
         forfeit, hands, rated, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(g.room_id)
    .bind(&g.variant.name)
    .bind(serde_json::to_string(&g.variant)?)
    .bind(g.seed as i64)
    .bind(serde_json::to_string(&g.seating)?)
    .bind(serde_json::to_string(&g.moves)?)
    .bind(serde_json::to_string(&g.scores)?)
    .bind(g.winner.map(i64::from))
    .bind(g.forfeit.map(i64::from))
    .bind(g.hands.len() as i64)
    .bind(g.rated)
    .bind(now_secs())
    .execute(&mut **tx)
    .await?
    .last_insert_rowid();
    for s in &g.seats {
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, side, player_id, name, kind, score) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(s.seat as i64)
        .bind(s.side as i64)
        .bind(s.player_id)
        .bind(&s.name)
        .bind(&s.kind)
        .bind(g.scores.get(s.side as usize).copied().unwrap_or(0))
        .execute(&mut **tx)
        .await?;
    }
    for h in &g.hands {
        sqlx::query("INSERT INTO hands (game_id, hand, result_json) VALUES (?, ?, ?)")
            .bind(id)
            .bind(h.hand as i64)
            .bind(serde_json::to_string(h)?)
            .execute(&mut **tx)
            .await?;
    }
    Ok(id)
}

/// Ranks of the sides: the winner first, then by score; a forfeiting side last.
pub fn side_ranks(scores: &[i32], winner: Option<u8>, forfeit_side: Option<u8>) -> Vec<usize> {
    let key = |s: usize| -> (i64, i64) {
        let tier = if Some(s as u8) == forfeit_side {
            0
        } else if Some(s as u8) == winner {
            2
        } else {
            1
        };
        (tier, scores.get(s).copied().unwrap_or(0) as i64)
    };
    (0..scores.len()).map(|s| 1 + (0..scores.len()).filter(|&o| key(o) > key(s)).count()).collect()
}

async fn rate(
    tx: &mut Transaction<'_, Sqlite>,
    cache: &mut HashMap<(String, i64), Rated>,
    touched: &mut HashMap<(String, i64), Rated>,
    g: &GameRecord,
) -> Result<(), DbError> {
    let sides = g.scores.len();
    let forfeit_side = g.forfeit.and_then(|seat| g.seats.iter().find(|s| s.seat == seat)).map(|s| s.side);
    let ranks = side_ranks(&g.scores, g.winner, forfeit_side);
    let mut teams: Vec<Vec<(i64, Rated)>> = vec![Vec::new(); sides];
    for s in &g.seats {
        let pid = s.player_id.expect("checked by the caller");
        let key = (g.variant.name.clone(), pid);
        let current = match touched.get(&key).or_else(|| cache.get(&key)) {
            Some(r) => *r,
            None => {
                let row = sqlx::query("SELECT mu, sigma, games, wins FROM ratings WHERE variant = ? AND player_id = ?")
                    .bind(&key.0)
                    .bind(pid)
                    .fetch_optional(&mut **tx)
                    .await?;
                match row {
                    Some(r) => Rated {
                        rating: WengLinRating { rating: r.get(0), uncertainty: r.get(1) },
                        games: r.get(2),
                        wins: r.get(3),
                    },
                    None => Rated { rating: WengLinRating::new(), games: 0, wins: 0 },
                }
            }
        };
        if let Some(team) = teams.get_mut(s.side as usize) {
            team.push((pid, current));
        }
    }
    let ratings: Vec<Vec<WengLinRating>> = teams.iter().map(|t| t.iter().map(|(_, r)| r.rating).collect()).collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
        .iter()
        .zip(&ranks)
        .filter(|(t, _)| !t.is_empty())
        .map(|(t, &rank)| (t.as_slice(), MultiTeamOutcome::new(rank)))
        .collect();
    let new = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut new_iter = new.into_iter();
    for (side, team) in teams.iter().enumerate() {
        if team.is_empty() {
            continue;
        }
        let Some(updated) = new_iter.next() else { break };
        for ((pid, old), rating) in team.iter().zip(updated) {
            let won = g.winner == Some(side as u8);
            touched.insert(
                (g.variant.name.clone(), *pid),
                Rated { rating, games: old.games + 1, wins: old.wins + i64::from(won) },
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_put_winner_first_and_forfeit_last() {
        assert_eq!(side_ranks(&[100, 40], Some(0), None), vec![1, 2]);
        assert_eq!(side_ranks(&[10, 40, 5], Some(2), Some(1)), vec![2, 3, 1]);
        assert_eq!(side_ranks(&[10, 10], None, None), vec![1, 1]);
    }

    #[test]
    fn token_hash_is_stable_hex() {
        assert_eq!(hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token());
    }
}
