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
use std::sync::Arc;
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
    /// Timeouts per seat.
    pub timeouts: Vec<u32>,
    /// The tournament table this match decides: its result is stored in the
    /// same transaction as the game.
    pub tournament: Option<TableLink>,
}

pub use crate::tournament::TableLink;

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
    /// Encoded by the caller (in parallel, off the single writer).
    encoded: Encoded,
    reply: oneshot::Sender<Result<i64, String>>,
}

/// A game's JSON columns.
struct Encoded {
    seating_json: String,
    moves_json: String,
    scores_json: String,
    /// (hand number, result JSON) per finished hand.
    hands: Vec<(i64, String)>,
}

impl Encoded {
    fn of(g: &GameRecord) -> Result<Encoded, DbError> {
        Ok(Encoded {
            seating_json: serde_json::to_string(&g.seating)?,
            moves_json: encode_moves(&g.moves),
            scores_json: serde_json::to_string(&g.scores)?,
            hands: g
                .hands
                .iter()
                .map(|h| Ok((h.hand as i64, serde_json::to_string(h)?)))
                .collect::<Result<_, DbError>>()?,
        })
    }
}

/// The stored form of a move log: a JSON array with `[a, b, end, face]` for
/// a play of tile `[a, b]`, `"d"` for a draw and `"p"` for a pass, about a
/// quarter of the engine's move JSON. (Games stored before it hold the
/// engine's JSON; [`decode_moves`] reads both.)
pub fn encode_moves(moves: &[Move]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(2 + moves.len() * 13);
    s.push('[');
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        match m {
            Move::Play { tile, end, face } => {
                let (a, b) = tile.faces();
                let _ = write!(s, "[{a},{b},{},{face}]", end.0);
            }
            Move::Draw => s.push_str("\"d\""),
            Move::Pass => s.push_str("\"p\""),
        }
    }
    s.push(']');
    s
}

/// Reads a stored move log (either form of [`encode_moves`]).
pub fn decode_moves(text: &str) -> Result<Vec<Move>, DbError> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Packed {
        Play([u8; 4]),
        Word(String),
        Engine(Move),
    }
    let packed: Vec<Packed> = serde_json::from_str(text)?;
    packed
        .into_iter()
        .map(|p| match p {
            Packed::Play([a, b, end, face]) if a.max(b) <= capicua_engine::MAX_PIP && face <= 1 => {
                Ok(Move::Play { tile: capicua_engine::Tile::domino(a, b), end: capicua_engine::EndId(end), face })
            }
            Packed::Word(w) if w == "d" => Ok(Move::Draw),
            Packed::Word(w) if w == "p" => Ok(Move::Pass),
            Packed::Engine(m) => Ok(m),
            _ => Err(DbError::Json(serde::de::Error::custom(format!("not a stored move in {text:.40}")))),
        })
        .collect()
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
        // Loaded now, so the first finished game costs no extra reads.
        let state = WriterState::load(&pool).await?;
        tokio::spawn({
            let pool = pool.clone();
            async move {
                writer(pool, rx, state).await;
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
        let encoded = Encoded::of(&record)?;
        self.writer.send(StoreJob { record, encoded, reply }).await.map_err(|_| DbError::WriterGone)?;
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
            moves: decode_moves(r.get::<&str, _>(5))?,
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
async fn writer(pool: SqlitePool, mut rx: mpsc::Receiver<StoreJob>, state: WriterState) {
    // This task is the only writer of `games` and `ratings`: it numbers new
    // games itself and keeps every rating in memory (loaded at open;
    // reloaded after a failed transaction), so a batch needs no reads at all.
    let mut state = Some(state);
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let result = match &mut state {
            Some(st) => store_batch(&pool, st, &batch).await,
            None => match WriterState::load(&pool).await {
                Ok(st) => store_batch(&pool, state.insert(st), &batch).await,
                Err(e) => Err(e),
            },
        };
        match result {
            Ok(ids) => {
                for (job, id) in batch.drain(..).zip(ids) {
                    let _ = job.reply.send(Ok(id));
                }
            }
            Err(e) => {
                tracing::error!(error = %e, games = batch.len(), "storing finished games failed");
                // The transaction rolled back: the memory state may hold ids
                // and ratings that were never committed.
                state = None;
                for job in batch.drain(..) {
                    let _ = job.reply.send(Err(e.to_string()));
                }
            }
        }
    }
}

/// Most games stored in one transaction.
const MAX_BATCH: usize = 512;
/// Rows per multi-row `INSERT` (SQLite allows 32,766 bound values).
const GAME_ROWS: usize = 64;
const SEAT_ROWS: usize = 128;
const HAND_ROWS: usize = 256;
const RATING_ROWS: usize = 128;

#[derive(Clone, Copy)]
struct Rated {
    rating: WengLinRating,
    games: i64,
    wins: i64,
}

/// What the writer knows of the committed database.
struct WriterState {
    /// The id the next stored game gets.
    next_game: i64,
    /// Every rating, by (variant, player).
    ratings: HashMap<(String, i64), Rated>,
    /// The last variant encoded, and its JSON (games of a room share it).
    variant_json: Option<(Variant, Arc<str>)>,
}

impl WriterState {
    async fn load(pool: &SqlitePool) -> Result<WriterState, DbError> {
        let max: Option<i64> = sqlx::query("SELECT MAX(id) FROM games").fetch_one(pool).await?.get(0);
        let rows =
            sqlx::query("SELECT variant, player_id, mu, sigma, games, wins FROM ratings").fetch_all(pool).await?;
        let ratings = rows
            .into_iter()
            .map(|r| {
                let rated = Rated {
                    rating: WengLinRating { rating: r.get(2), uncertainty: r.get(3) },
                    games: r.get(4),
                    wins: r.get(5),
                };
                ((r.get::<String, _>(0), r.get::<i64, _>(1)), rated)
            })
            .collect();
        Ok(WriterState { next_game: max.unwrap_or(0) + 1, ratings, variant_json: None })
    }

    fn variant_json(&mut self, v: &Variant) -> Result<Arc<str>, DbError> {
        if let Some((cached, json)) = &self.variant_json {
            if cached == v {
                return Ok(json.clone());
            }
        }
        let json: Arc<str> = serde_json::to_string(v)?.into();
        self.variant_json = Some((v.clone(), json.clone()));
        Ok(json)
    }
}

type SqliteQuery<'a> = sqlx::query::Query<'a, Sqlite, sqlx::sqlite::SqliteArguments<'a>>;

/// `INSERT INTO table (cols) VALUES (?, ...), ...` for `rows` rows, with a tail.
fn multi_insert(head: &str, cols: usize, rows: usize, tail: &str) -> String {
    let one = format!("({})", vec!["?"; cols].join(", "));
    format!("{head} VALUES {}{tail}", vec![one; rows].join(", "))
}

/// Runs a multi-row insert over `items` in chunks of `per` rows; `bind`
/// binds one item's values. Full chunks reuse one prepared statement.
async fn insert_rows<T>(
    tx: &mut Transaction<'_, Sqlite>,
    head: &str,
    cols: usize,
    tail: &str,
    per: usize,
    items: &[T],
    bind: impl for<'a> Fn(SqliteQuery<'a>, &'a T) -> SqliteQuery<'a>,
) -> Result<(), DbError> {
    let full = multi_insert(head, cols, per, tail);
    for chunk in items.chunks(per) {
        let partial;
        let sql: &str = if chunk.len() == per {
            &full
        } else {
            partial = multi_insert(head, cols, chunk.len(), tail);
            &partial
        };
        // A partial chunk's statement is used once: not worth caching.
        let mut q = sqlx::query(sql).persistent(chunk.len() == per);
        for item in chunk {
            q = bind(q, item);
        }
        // The statement text is owned by this frame; run it before it goes.
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

struct GameRow<'a> {
    id: i64,
    room_id: Option<i64>,
    variant: &'a str,
    variant_json: Arc<str>,
    seed: i64,
    seating_json: &'a str,
    moves_json: &'a str,
    scores_json: &'a str,
    winner: Option<i64>,
    forfeit: Option<i64>,
    hands: i64,
    rated: bool,
    finished_at: i64,
}

struct SeatRow<'a> {
    game_id: i64,
    seat: i64,
    side: i64,
    player_id: Option<i64>,
    name: &'a str,
    kind: &'a str,
    score: i64,
}

struct HandRow<'a> {
    game_id: i64,
    hand: i64,
    result_json: &'a str,
}

async fn store_batch(pool: &SqlitePool, st: &mut WriterState, batch: &[StoreJob]) -> Result<Vec<i64>, DbError> {
    // Everything is encoded before the transaction opens.
    let now = now_secs();
    let mut games = Vec::with_capacity(batch.len());
    let mut seats = Vec::with_capacity(batch.len() * 4);
    let mut hands = Vec::with_capacity(batch.len() * 4);
    let mut touched: HashMap<(String, i64), Rated> = HashMap::new();
    for (i, job) in batch.iter().enumerate() {
        let (g, e) = (&job.record, &job.encoded);
        let id = st.next_game + i as i64;
        games.push(GameRow {
            id,
            room_id: g.room_id,
            variant: &g.variant.name,
            variant_json: st.variant_json(&g.variant)?,
            seed: g.seed as i64,
            seating_json: &e.seating_json,
            moves_json: &e.moves_json,
            scores_json: &e.scores_json,
            winner: g.winner.map(i64::from),
            forfeit: g.forfeit.map(i64::from),
            hands: g.hands.len() as i64,
            rated: g.rated,
            finished_at: now,
        });
        for s in &g.seats {
            seats.push(SeatRow {
                game_id: id,
                seat: s.seat as i64,
                side: s.side as i64,
                player_id: s.player_id,
                name: &s.name,
                kind: &s.kind,
                score: g.scores.get(s.side as usize).copied().unwrap_or(0) as i64,
            });
        }
        for (hand, json) in &e.hands {
            hands.push(HandRow { game_id: id, hand: *hand, result_json: json });
        }
        if g.rated && g.seats.iter().all(|s| s.player_id.is_some()) {
            rate(&st.ratings, &mut touched, g);
        }
    }
    let ratings: Vec<((String, i64), Rated)> = touched.iter().map(|(k, r)| (k.clone(), *r)).collect();
    let mut tx = pool.begin().await?;
    insert_rows(
        &mut tx,
        "INSERT INTO games (id, room_id, variant, variant_json, seed, seating_json, moves_json, scores_json, winner, \
         forfeit, hands, rated, finished_at)",
        13,
        "",
        GAME_ROWS,
        &games,
        |q, g| {
            q.bind(g.id)
                .bind(g.room_id)
                .bind(g.variant)
                .bind(&*g.variant_json)
                .bind(g.seed)
                .bind(g.seating_json)
                .bind(g.moves_json)
                .bind(g.scores_json)
                .bind(g.winner)
                .bind(g.forfeit)
                .bind(g.hands)
                .bind(g.rated)
                .bind(g.finished_at)
        },
    )
    .await?;
    insert_rows(
        &mut tx,
        "INSERT INTO game_seats (game_id, seat, side, player_id, name, kind, score)",
        7,
        "",
        SEAT_ROWS,
        &seats,
        |q, s| q.bind(s.game_id).bind(s.seat).bind(s.side).bind(s.player_id).bind(s.name).bind(s.kind).bind(s.score),
    )
    .await?;
    insert_rows(&mut tx, "INSERT INTO hands (game_id, hand, result_json)", 3, "", HAND_ROWS, &hands, |q, h| {
        q.bind(h.game_id).bind(h.hand).bind(h.result_json)
    })
    .await?;
    // A tournament match is stored with its game: a result is never
    // committed without the game that decided it, nor the reverse.
    for (i, job) in batch.iter().enumerate() {
        if let Some(link) = &job.record.tournament {
            crate::tournament::store::insert_match(&mut tx, st.next_game + i as i64, link).await?;
        }
    }
    insert_rows(
        &mut tx,
        "INSERT INTO ratings (variant, player_id, mu, sigma, ordinal, games, wins)",
        7,
        " ON CONFLICT (variant, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, \
         ordinal = excluded.ordinal, games = excluded.games, wins = excluded.wins",
        RATING_ROWS,
        &ratings,
        |q, ((variant, player), r)| {
            q.bind(variant)
                .bind(*player)
                .bind(r.rating.rating)
                .bind(r.rating.uncertainty)
                .bind(r.rating.rating - 3.0 * r.rating.uncertainty)
                .bind(r.games)
                .bind(r.wins)
        },
    )
    .await?;
    tx.commit().await?;
    st.next_game += batch.len() as i64;
    st.ratings.extend(touched);
    Ok(games.iter().map(|g| g.id).collect())
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

/// Updates the ratings of a rated game's players into `touched` (ratings
/// changed in this batch, read first) over `stored` (the committed ones).
fn rate(stored: &HashMap<(String, i64), Rated>, touched: &mut HashMap<(String, i64), Rated>, g: &GameRecord) {
    let sides = g.scores.len();
    let forfeit_side = g.forfeit.and_then(|seat| g.seats.iter().find(|s| s.seat == seat)).map(|s| s.side);
    let ranks = side_ranks(&g.scores, g.winner, forfeit_side);
    let mut teams: Vec<Vec<(i64, Rated)>> = vec![Vec::new(); sides];
    for s in &g.seats {
        let pid = s.player_id.expect("checked by the caller");
        let key = (g.variant.name.clone(), pid);
        let current = touched.get(&key).or_else(|| stored.get(&key)).copied().unwrap_or(Rated {
            rating: WengLinRating::new(),
            games: 0,
            wins: 0,
        });
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
    fn move_logs_round_trip_packed_and_old_rows_still_read() {
        use capicua_engine::{Game, Rules, Seating};
        let mut game = Game::new(Rules::preset("draw").unwrap().into(), Seating::new(3), 5).unwrap();
        while game.to_move().is_some() {
            let legal = game.legal_moves();
            let m = legal[legal.len() / 2];
            game.play(m).unwrap();
        }
        let log = game.log().to_vec();
        assert!(log.contains(&Move::Draw) || log.contains(&Move::Pass));
        let packed = encode_moves(&log);
        assert_eq!(decode_moves(&packed).unwrap(), log);
        let engine_json = serde_json::to_string(&log).unwrap();
        assert!(packed.len() * 3 < engine_json.len(), "{} vs {}", packed.len(), engine_json.len());
        assert_eq!(decode_moves(&engine_json).unwrap(), log);
        assert_eq!(decode_moves("[]").unwrap(), vec![]);
        assert!(decode_moves(r#"["x"]"#).is_err());
        assert!(decode_moves("[[1,2,3]]").is_err());
    }

    #[test]
    fn token_hash_is_stable_hex() {
        assert_eq!(hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token());
    }
}
