//! Measures the persistence path alone: N finished latin matches (played in
//! process) stored through the batched writer from 64 concurrent "rooms",
//! rated among 200 players; then times the leaderboard query.
//!
//! `cargo run --release -p capicua-server --example store_games -- 20000 /tmp/bench.db`

use std::sync::Arc;
use std::time::Instant;

use capicua_engine::{Game, Rules, Seat, Seating};
use capicua_server::Db;
use capicua_server::db::{GameRecord, SeatRecord};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(10_000);
    let path = args.next().unwrap_or_else(|| "store-bench.db".into());
    let _ = std::fs::remove_file(&path);
    let db = Db::open(&path).await?;
    let mut players = vec![];
    for i in 0..200 {
        players.push(db.register(&format!("p{i}")).await?.0.id);
    }
    let rules: Arc<Rules> = Rules::preset("latin").expect("preset").into();
    // Play the matches first so only storing is timed.
    let mut records = Vec::with_capacity(n);
    for i in 0..n {
        let mut g = Game::new(rules.clone(), Seating::new(4), i as u64)?;
        while g.to_move().is_some() {
            let m = g.legal_moves()[0];
            g.play(m)?;
        }
        let seats = (0..4u8)
            .map(|s| SeatRecord {
                seat: s,
                side: g.table().side_of(Seat(s)).0,
                player_id: Some(players[(i * 7 + s as usize * 13) % players.len()]),
                name: String::new(),
                kind: "player".into(),
            })
            .collect();
        records.push(GameRecord {
            room_id: None,
            variant: rules.variant().clone(),
            seed: i as u64,
            seating: Seating::new(4),
            moves: g.log().to_vec(),
            scores: g.scores().to_vec(),
            hands: g.hand_results().to_vec(),
            winner: g.outcome().and_then(|o| o.winner).map(|s| s.0),
            forfeit: None,
            seats,
            rated: true,
        });
    }
    let t0 = Instant::now();
    let chunks: Vec<Vec<GameRecord>> = records.chunks(n.div_ceil(64).max(1)).map(|c| c.to_vec()).collect();
    let tasks: Vec<_> = chunks
        .into_iter()
        .map(|chunk| {
            let db = db.clone();
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
    println!("stored {n} rated games in {secs:.2} s: {:.0} games/s", n as f64 / secs);
    let t1 = Instant::now();
    let board = db.leaderboard("latin", 100).await?;
    println!(
        "leaderboard (top {} of {} games stored): {:.2} ms",
        board.len(),
        db.game_count().await?,
        t1.elapsed().as_secs_f64() * 1000.0
    );
    db.close().await;
    Ok(())
}
