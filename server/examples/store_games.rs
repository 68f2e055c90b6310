//! Measures the persistence path alone: N finished latin matches (played in
//! process) stored through the batched writer from R concurrent "rooms"
//! (default 64), rated among 200 players; then times the leaderboard query.
//! Prints games stored per second, moves stored per second (the moves of the
//! stored games over the same time, for per-move comparisons with a served
//! load) and the leaderboard's median and worst time.
//!
//! `cargo run --release -p capicua-server --example store_games -- 20000 DATABASE [ROOMS] [PAD_TO]`
//!
//! DATABASE is a SQLite file path (deleted first, then created) or a
//! PostgreSQL URL, which must name an empty database (nothing is deleted
//! there; a database already holding players or games is refused), e.g.
//!
//! ```text
//! cargo build --release -p capicua-server --example store_games
//! # a scratch PostgreSQL 15 with its default durability (fsync and
//! # synchronous_commit on), run as the postgres user in a directory it owns:
//! initdb -D /tmp/pg/data -U postgres --auth=trust
//! pg_ctl -D /tmp/pg/data -l /tmp/pg/log -o "-p 55432 -k /tmp/pg -c listen_addresses=127.0.0.1" -w start
//! # alternate the backends, a fresh database each run (machine speed drifts:
//! # compare within a round):
//! for r in 1 2 3 4; do
//!   target/release/examples/store_games 20000 /tmp/bench.db 64
//!   createdb -h 127.0.0.1 -p 55432 -U postgres bench_r$r
//!   target/release/examples/store_games 20000 postgres://postgres@127.0.0.1:55432/bench_r$r 64
//! done
//! pg_ctl -D /tmp/pg/data -m fast stop
//! ```
//!
//! (`ALTER DATABASE bench_r5 SET synchronous_commit = off` before a run
//! measures PostgreSQL without waiting for its WAL flush at each commit.)
//!
//! `CAPICUA_STORE_WRITERS=2` stores through two writers on the database, the
//! rooms dealt between them, as two servers on one PostgreSQL database do:
//! their transactions take turns and each reloads the ratings the other
//! changed.
//!
//! With `PAD_TO` (e.g. 1000000, SQLite only) the stored games (and their
//! seats) are then copied inside SQLite until the table holds that many, to
//! time the leaderboard over a large database (`capicua-server standings`
//! and `GET /api/leaderboard` can then be timed against the same file).

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, Rules, Seat, Seating};
use capicua_server::Db;
use capicua_server::db::{Backend, GameRecord, HandResults, Play, SeatKind, SeatRecord};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(10_000);
    let database = args.next().unwrap_or_else(|| "store-bench.db".into());
    let rooms: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(64).max(1);
    let pad_to: Option<i64> = args.next().map(|s| s.parse()).transpose()?;
    let backend = Backend::of(&database);
    if backend == Backend::Postgres && pad_to.is_some() {
        // The padding copies rows with SQLite-only statements; a large
        // PostgreSQL database is better filled by storing more games.
        anyhow::bail!("PAD_TO works on a SQLite file only; on PostgreSQL store more games instead");
    }
    if backend == Backend::Sqlite {
        // A fresh file each run, so runs compare; a PostgreSQL database is
        // never emptied here (it may not be a scratch one).
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{database}{suffix}"));
        }
    }
    let db = Db::open(&database).await?;
    if backend == Backend::Postgres {
        ensure_empty(&db, &database).await?;
    }
    println!("backend {backend:?}, {n} games from {rooms} rooms");
    let mut players = vec![];
    for i in 0..200 {
        players.push(db.register(&format!("p{i}")).await?.0.id);
    }
    let (records, moves) = played(n, &players)?;
    // CAPICUA_STORE_WRITERS=K: K writers on the database (as K servers on
    // one PostgreSQL database have), the rooms dealt among them in turn.
    let writers: usize = std::env::var("CAPICUA_STORE_WRITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let mut dbs = vec![db.clone()];
    for _ in 1..writers {
        dbs.push(Db::open(&database).await?);
    }
    let t0 = Instant::now();
    let chunks: Vec<Vec<GameRecord>> = records.chunks(n.div_ceil(rooms).max(1)).map(|c| c.to_vec()).collect();
    let tasks: Vec<_> = chunks
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let db = dbs[i % dbs.len()].clone();
            tokio::spawn(async move {
                for r in chunk {
                    db.store_game(r).await.expect("stored");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await?;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "stored {n} rated games ({moves} moves) in {secs:.2} s: {:.0} games/s, {:.0} moves/s",
        n as f64 / secs,
        moves as f64 / secs
    );
    if let Some(target) = pad_to {
        let t = Instant::now();
        pad(&db, target).await?;
        println!(
            "padded to {} games (copies of games and seats, not hands) in {:.1} s",
            db.game_count().await?,
            t.elapsed().as_secs_f64()
        );
    }
    time_leaderboard(&db).await?;
    db.close().await;
    Ok(())
}

/// `n` matches of latin played out by first legal moves, as the records
/// a room would store (rated, four players each), and their moves in all.
fn played(n: usize, players: &[i64]) -> anyhow::Result<(Vec<GameRecord>, usize)> {
    let rules: Arc<Rules> = Rules::preset("latin").expect("preset").into();
    let mut records = Vec::with_capacity(n);
    let mut moves = 0usize;
    for i in 0..n {
        let mut g = Game::new(rules.clone(), Seating::new(4), i as u64)?;
        while g.to_move().is_some() {
            let m = g.legal_moves()[0];
            g.play(m)?;
        }
        moves += g.log().len();
        let seats = (0..4u8)
            .map(|s| SeatRecord {
                seat: s,
                side: g.table().side_of(Seat(s)).0,
                player_id: Some(players[(i * 7 + s as usize * 13) % players.len()]),
                name: String::new(),
                kind: SeatKind::Player,
            })
            .collect();
        records.push(GameRecord {
            room_id: None,
            play: Play::Tiles { variant: rules.variant().clone(), seating: Seating::new(4), moves: g.log().to_vec() },
            seed: i as u64,
            scores: g.scores().to_vec(),
            seat_scores: g.seat_scores().to_vec(),
            hands: HandResults::Tiles(g.hand_results().to_vec()),
            winner: g.outcome().and_then(|o| o.winner).map(|s| s.0),
            forfeit: None,
            seats,
            timeouts: vec![0; 4],
            tournament: None,
            rated: true,
        });
    }
    Ok((records, moves))
}

/// Refuses a PostgreSQL database that already holds players or games, so
/// the figures measure this run alone.
async fn ensure_empty(db: &Db, database: &str) -> anyhow::Result<()> {
    use sqlx::Row;
    let row =
        sqlx::query("SELECT (SELECT COUNT(*) FROM players), (SELECT COUNT(*) FROM games)").fetch_one(db.pool()).await?;
    let (players, games): (i64, i64) = (row.get(0), row.get(1));
    if players > 0 || games > 0 {
        anyhow::bail!(
            "{database} already holds {players} players and {games} games: give an empty database \
             (createdb a fresh one), so the figures measure this run alone"
        );
    }
    Ok(())
}

/// Times the latin leaderboard over what is stored: 21 queries, median and
/// maximum.
async fn time_leaderboard(db: &Db) -> anyhow::Result<()> {
    let mut times = vec![];
    let mut board = vec![];
    for _ in 0..21 {
        let t1 = Instant::now();
        board = db.leaderboard("latin", 100).await?;
        times.push(t1.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "leaderboard (top {} of {} games stored): median {:.2} ms, max {:.2} ms over 21 queries",
        board.len(),
        db.game_count().await?,
        times[10],
        times[20]
    );
    Ok(())
}

/// Doubles the stored games (with their seats) inside SQLite until `target`.
async fn pad(db: &Db, target: i64) -> anyhow::Result<()> {
    use sqlx::Row;
    loop {
        let (count, max): (i64, i64) = {
            let r = sqlx::query("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM games").fetch_one(db.pool()).await?;
            (r.get(0), r.get(1))
        };
        if count >= target || count == 0 {
            return Ok(());
        }
        let take = (target - count).min(count);
        let mut tx = db.pool().begin().await?;
        sqlx::query(
            "INSERT INTO games (id, room_id, variant, variant_json, seed, seating_json, moves_json, scores_json,
             winner, forfeit, hands, rated, finished_at)
             SELECT id + ?1, room_id, variant, variant_json, seed, seating_json, moves_json, scores_json,
             winner, forfeit, hands, rated, finished_at FROM games ORDER BY id LIMIT ?2",
        )
        .bind(max)
        .bind(take)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, side, player_id, name, kind, score)
             SELECT game_id + ?1, seat, side, player_id, name, kind, score FROM game_seats
             WHERE game_id IN (SELECT id FROM games ORDER BY id LIMIT ?2)",
        )
        .bind(max)
        .bind(take)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
    }
}
