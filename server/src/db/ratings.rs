//! The `ratings` table: Weng-Lin ratings per board as the writer commits
//! them (`crate::ratings` decides how a game moves them), the
//! leaderboard, and a replay of the stored games that must agree with it.

use std::collections::HashMap;

use serde::Serialize;
use skillratings::weng_lin::WengLinRating;
use sqlx::Row;

use capicua_engine::Variant;

use super::{Db, DbError};
use crate::ratings::{Rated, Ratings, rate_result, seats_count};

pub use crate::ratings::{
    fingerprint, is_poly_preset, is_preset, play_rating_key, poly_rating_key, rating_key, self_play, side_ranks,
};

/// One line of the leaderboard.
#[derive(Clone, Debug, Serialize, PartialEq, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct Standing {
    /// 1-based rank.
    #[sqlx(skip)]
    pub rank: u32,
    /// Player name.
    pub name: String,
    /// The rating people read: `1500 + 60 (mu - 25)`, rounded (1500 to start).
    #[sqlx(skip)]
    pub rating: i32,
    /// Whether the rating is still provisional (its uncertainty above 6,
    /// about a dozen games against even opponents).
    #[sqlx(skip)]
    pub provisional: bool,
    /// Conservative rating, by which the board ranks: mu - 3 sigma.
    pub ordinal: f64,
    /// Mean skill.
    pub mu: f64,
    /// Uncertainty.
    pub sigma: f64,
    /// Rated games played.
    pub games: i64,
    /// Rated games won.
    pub wins: i64,
    /// Rated games drawn (no side won).
    pub draws: i64,
    /// Rated games lost: `wins + draws + losses = games`.
    pub losses: i64,
}

impl Standing {
    /// The line of a player ranked `rank` with these Weng-Lin values and games.
    #[allow(clippy::too_many_arguments, reason = "the columns of one row")]
    fn of(rank: u32, name: String, mu: f64, sigma: f64, ordinal: f64, games: i64, wins: i64, draws: i64) -> Standing {
        Standing {
            rank,
            name,
            rating: crate::ratings::shown(mu),
            provisional: crate::ratings::provisional(sigma),
            ordinal,
            mu,
            sigma,
            games,
            wins,
            draws,
            losses: games - wins - draws,
        }
    }
}

/// A leaderboard row as read, before its losses are worked out.
#[derive(sqlx::FromRow)]
struct StandingRow {
    player_id: i64,
    name: String,
    ordinal: f64,
    mu: f64,
    sigma: f64,
    games: i64,
    wins: i64,
    /// NULL only between migration 0005 and the count [`Db::open`] makes.
    draws: Option<i64>,
}

impl Db {
    /// The leaderboard of a variant, best first (served from the ratings
    /// table and its `(variant, ordinal)` index: its cost does not grow with
    /// the number of stored games).
    pub async fn leaderboard(&self, variant: &str, limit: u32) -> Result<Vec<Standing>, DbError> {
        Ok(self.leaderboard_rows(variant, limit).await?.into_iter().map(|(_, s)| s).collect())
    }

    /// [`Db::leaderboard`] with each row's player id.
    pub async fn leaderboard_rows(&self, variant: &str, limit: u32) -> Result<Vec<(i64, Standing)>, DbError> {
        let rows: Vec<StandingRow> = sqlx::query_as(
            "SELECT r.player_id, p.name, r.ordinal, r.mu, r.sigma, r.games, r.wins, r.draws FROM ratings r
             JOIN players p ON p.id = r.player_id
             WHERE r.variant = $1 ORDER BY r.ordinal DESC LIMIT $2",
        )
        .bind(variant)
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        // Draws not counted yet (a database migrated by a server that
        // stopped before counting them, read by a reader that may not
        // write): counted here from the stored games, as the server would.
        let counted: HashMap<i64, i64> = if rows.iter().any(|r| r.draws.is_none()) {
            self.replay_ratings()
                .await?
                .into_iter()
                .filter(|r| r.variant == variant)
                .map(|r| (r.player_id, r.draws))
                .collect()
        } else {
            HashMap::new()
        };
        Ok(rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let draws = r.draws.or_else(|| counted.get(&r.player_id).copied()).unwrap_or(0);
                let standing = Standing::of(i as u32 + 1, r.name, r.mu, r.sigma, r.ordinal, r.games, r.wins, draws);
                (r.player_id, standing)
            })
            .collect())
    }

    /// A player's rating on a board (mean skill and uncertainty), `None`
    /// before its first rated game there.
    pub async fn rating(&self, board: &str, player: i64) -> Result<Option<(f64, f64)>, DbError> {
        Ok(sqlx::query_as("SELECT mu, sigma FROM ratings WHERE variant = $1 AND player_id = $2")
            .bind(board)
            .bind(player)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Counts the draws of ratings stored before migration 0005 (their
    /// `draws` is NULL) from the stored games, in one transaction. Run by
    /// [`Db::open_with`] before the writer starts, so the writer never sees
    /// an uncounted row.
    pub(super) async fn count_missing_draws(&self) -> Result<(), DbError> {
        let missing: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM ratings WHERE draws IS NULL").fetch_one(&self.pool).await?;
        if missing == 0 {
            return Ok(());
        }
        let replayed = self.replay_ratings().await?;
        let mut tx = self.pool.begin().await?;
        for r in &replayed {
            sqlx::query("UPDATE ratings SET draws = $1 WHERE variant = $2 AND player_id = $3 AND draws IS NULL")
                .bind(r.draws)
                .bind(&r.variant)
                .bind(r.player_id)
                .execute(&mut *tx)
                .await?;
        }
        // A rating without a game behind it (none is expected) drew none.
        sqlx::query("UPDATE ratings SET draws = 0 WHERE draws IS NULL").execute(&mut *tx).await?;
        tx.commit().await?;
        tracing::info!(ratings = missing, "counted the draws of ratings stored before migration 0005");
        Ok(())
    }

    /// Variants that have ratings.
    pub async fn rated_variants(&self) -> Result<Vec<String>, DbError> {
        let rows = sqlx::query("SELECT DISTINCT variant FROM ratings ORDER BY variant").fetch_all(&self.pool).await?;
        Ok(rows.iter().map(|r| r.try_get("variant")).collect::<Result<_, _>>()?)
    }
}

/// A player's rating on one board, with the player's rank there (the
/// profile's table).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct BoardRating {
    /// The board ([`rating_key`]).
    pub board: String,
    /// The player's line of that board's leaderboard (its `name` the player's).
    #[serde(flatten)]
    pub standing: Standing,
}

/// A profile's rating row as read.
#[derive(sqlx::FromRow)]
struct BoardRow {
    variant: String,
    name: String,
    mu: f64,
    sigma: f64,
    ordinal: f64,
    games: i64,
    wins: i64,
    draws: i64,
    rank: i64,
}

impl Db {
    /// Every board `player` is rated on, most games first, each with the
    /// player's rank there (`1 +` the players above on that board).
    pub async fn player_ratings(&self, player: i64) -> Result<Vec<BoardRating>, DbError> {
        let rows: Vec<BoardRow> = sqlx::query_as(
            "SELECT r.variant, p.name, r.mu, r.sigma, r.ordinal, r.games, r.wins, COALESCE(r.draws, 0) AS draws,
                    (SELECT COUNT(*) FROM ratings o WHERE o.variant = r.variant AND o.ordinal > r.ordinal) + 1 AS rank
             FROM ratings r JOIN players p ON p.id = r.player_id
             WHERE r.player_id = $1 ORDER BY r.games DESC, r.variant",
        )
        .bind(player)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| BoardRating {
                board: r.variant,
                standing: Standing::of(
                    u32::try_from(r.rank).unwrap_or(u32::MAX),
                    r.name,
                    r.mu,
                    r.sigma,
                    r.ordinal,
                    r.games,
                    r.wins,
                    r.draws,
                ),
            })
            .collect())
    }
}

/// A `ratings` row.
#[derive(sqlx::FromRow)]
struct RatingRow {
    variant: String,
    player_id: i64,
    mu: f64,
    sigma: f64,
    games: i64,
    wins: i64,
    draws: i64,
}

/// Every stored rating (the writer keeps them in memory).
pub(super) async fn load<'e>(conn: impl sqlx::Executor<'e, Database = sqlx::Any>) -> Result<Ratings, DbError> {
    let rows: Vec<RatingRow> =
        sqlx::query_as("SELECT variant, player_id, mu, sigma, games, wins, draws FROM ratings").fetch_all(conn).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let rated = Rated {
                rating: WengLinRating { rating: r.mu, uncertainty: r.sigma },
                games: r.games,
                wins: r.wins,
                draws: r.draws,
            };
            ((r.variant, r.player_id), rated)
        })
        .collect())
}

/// A rating as the `ratings` table holds it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RatingRecord {
    /// The board ([`rating_key`]).
    pub variant: String,
    /// The player.
    pub player_id: i64,
    /// Mean skill.
    pub mu: f64,
    /// Uncertainty.
    pub sigma: f64,
    /// mu - 3 sigma.
    pub ordinal: f64,
    /// Rated games played.
    pub games: i64,
    /// Rated games won.
    pub wins: i64,
    /// Rated games drawn (no side won).
    pub draws: i64,
}

impl RatingRecord {
    fn of(((variant, player_id), r): ((String, i64), Rated)) -> RatingRecord {
        let (mu, sigma) = (r.rating.rating, r.rating.uncertainty);
        RatingRecord {
            variant,
            player_id,
            mu,
            sigma,
            ordinal: mu - 3.0 * sigma,
            games: r.games,
            wins: r.wins,
            draws: r.draws,
        }
    }
}

/// A stored rated game, as far as rating it goes.
#[derive(sqlx::FromRow)]
struct RatedGameRow {
    id: i64,
    variant_json: String,
    scores_json: String,
    winner: Option<i64>,
    forfeit: Option<i64>,
}

impl Db {
    /// Every rating in the `ratings` table, by board then player.
    pub async fn stored_ratings(&self) -> Result<Vec<RatingRecord>, DbError> {
        Ok(sqlx::query_as(
            "SELECT variant, player_id, mu, sigma, ordinal, games, wins, draws FROM ratings ORDER BY variant, player_id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every rating recomputed from the stored games: each rated game whose
    /// seats are all players' is rated again, in the order the games were
    /// stored (by id), from the starting rating. The writer updates ratings
    /// in the transaction that stores the game, so this equals
    /// [`Db::stored_ratings`] exactly; a difference means a game was stored
    /// without its ratings, or ratings moved without a stored game.
    pub async fn replay_ratings(&self) -> Result<Vec<RatingRecord>, DbError> {
        let games: Vec<RatedGameRow> = sqlx::query_as(
            "SELECT id, variant_json, scores_json, winner, forfeit FROM games WHERE rated <> 0 ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        // (game, seat, side, player) of every seat of a rated game, in game order.
        let seats: Vec<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT s.game_id, s.seat, s.side, s.player_id FROM game_seats s JOIN games g ON g.id = s.game_id \
             WHERE g.rated <> 0 ORDER BY s.game_id, s.seat",
        )
        .fetch_all(&self.pool)
        .await?;
        let none = Ratings::new();
        let mut replayed = Ratings::new();
        // Games of one room share their rules: the board is worked out once per text.
        let mut boards: HashMap<String, String> = HashMap::new();
        let mut seats = seats.into_iter().peekable();
        for g in games {
            let mut sides = Vec::with_capacity(4);
            let mut all_players = true;
            let mut forfeit_side = None;
            while let Some((_, seat, side, player)) = seats.next_if(|s| s.0 == g.id) {
                let side = u8::try_from(side).unwrap_or(u8::MAX);
                if Some(seat) == g.forfeit {
                    forfeit_side = Some(side);
                }
                match player {
                    Some(pid) => sides.push((side, pid)),
                    None => all_players = false,
                }
            }
            // The writer rates a game only when every seat is a different
            // player's.
            if !seats_count(&sides, all_players) {
                continue;
            }
            let board = match boards.get(&g.variant_json) {
                Some(b) => b.clone(),
                None => {
                    let v: Variant = serde_json::from_str(&g.variant_json)?;
                    let b = rating_key(&v);
                    boards.insert(g.variant_json.clone(), b.clone());
                    b
                }
            };
            let scores: Vec<i32> = serde_json::from_str(&g.scores_json)?;
            let winner = g.winner.and_then(|w| u8::try_from(w).ok());
            rate_result(&none, &mut replayed, &board, &scores, winner, forfeit_side, &sides);
        }
        let mut out: Vec<RatingRecord> = replayed.into_iter().map(RatingRecord::of).collect();
        out.sort_by(|a, b| (&a.variant, a.player_id).cmp(&(&b.variant, b.player_id)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{GameRecord, HandResults, Play, SeatKind, SeatRecord};
    use capicua_engine::Seating;

    /// A finished game of `variant` with one seat per `(side, player)`.
    fn game(variant: &str, room: i64, seats: &[(u8, Option<i64>)], scores: Vec<i32>, winner: Option<u8>) -> GameRecord {
        let seats: Vec<SeatRecord> = seats
            .iter()
            .enumerate()
            .map(|(i, &(side, player_id))| SeatRecord {
                seat: i as u8,
                side,
                player_id,
                name: format!("s{i}"),
                kind: if player_id.is_some() { SeatKind::Player } else { SeatKind::Guest },
            })
            .collect();
        GameRecord {
            room_id: Some(room),
            play: Play::Tiles {
                variant: capicua_engine::preset(variant).unwrap(),
                seating: Seating::new(seats.len() as u8),
                moves: Vec::new(),
            },
            seed: 1,
            timeouts: vec![0; seats.len()],
            seat_scores: vec![0; seats.len()],
            seats,
            scores,
            hands: HandResults::Tiles(Vec::new()),
            winner,
            forfeit: None,
            rated: true,
            tournament: None,
        }
    }

    #[tokio::test]
    async fn replaying_the_stored_games_gives_the_ratings_table() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let path = std::env::temp_dir().join(format!("capicua-replay-{}-{nanos}.db", std::process::id()));
        let db = Db::open(path.to_str().unwrap()).await.unwrap();
        let block = db.create_room(&capicua_engine::preset("block").unwrap(), 2, true).await.unwrap();
        let block3 = db.create_room(&capicua_engine::preset("block").unwrap(), 3, true).await.unwrap();
        let latin = db.create_room(&capicua_engine::preset("latin").unwrap(), 4, true).await.unwrap();
        let mut p = Vec::new();
        for name in ["a", "b", "c", "d"] {
            p.push(Some(db.register(name).await.unwrap().0.id));
        }
        // Three sides, the one with the most points forfeits: it ranks last.
        let mut forfeited = game("block", block3, &[(0, p[0]), (1, p[2]), (2, p[3])], vec![10, 40, 5], Some(2));
        forfeited.forfeit = Some(1);
        let mut unrated = game("block", block, &[(0, p[0]), (1, p[1])], vec![0, 50], Some(1));
        unrated.rated = false;
        let games = [
            game("block", block, &[(0, p[0]), (1, p[1])], vec![50, 10], Some(0)),
            game("block", block, &[(0, p[1]), (1, p[0])], vec![5, 5], None),
            forfeited,
            game("latin", latin, &[(0, p[0]), (1, p[1]), (0, p[2]), (1, p[3])], vec![120, 200], Some(1)),
            // A guest's seat: the writer rates no one.
            game("block", block, &[(0, p[3]), (1, None)], vec![50, 0], Some(0)),
            unrated,
            // One player in both seats: stored, rated for no one.
            game("block", block, &[(0, p[2]), (1, p[2])], vec![50, 0], Some(0)),
            game("block", block, &[(0, p[2]), (1, p[0])], vec![50, 20], Some(0)),
            // d with b as partner and both opponents (a hosted bot's three
            // seats): d is rated, b plays with its rating unmoved.
            game("latin", latin, &[(0, p[3]), (1, p[1]), (0, p[1]), (1, p[1])], vec![200, 100], Some(0)),
        ];
        let mut ids = Vec::new();
        for g in games {
            ids.push(db.store_game(g).await.unwrap());
        }
        let stored = db.stored_ratings().await.unwrap();
        assert_eq!(db.replay_ratings().await.unwrap(), stored);
        // (board, player, games): the guest's, the unrated and the self-play game count for no one.
        let counts: Vec<(&str, i64, i64)> = stored.iter().map(|r| (r.variant.as_str(), r.player_id, r.games)).collect();
        let [a, b, c, d] = [p[0], p[1], p[2], p[3]].map(Option::unwrap);
        assert_eq!(
            counts,
            [
                ("block", a, 4),
                ("block", b, 2),
                ("block", c, 2),
                ("block", d, 1),
                ("latin", a, 1),
                ("latin", b, 1),
                ("latin", c, 1),
                ("latin", d, 2)
            ]
        );
        // The game read back says what it did to each rated seat, and only those.
        let last = db.game(*ids.last().unwrap()).await.unwrap().unwrap();
        let moved: Vec<(u8, i32)> = last.ratings.iter().map(|r| (r.seat, r.rating.change)).collect();
        assert_eq!(moved.len(), 1, "{moved:?}");
        assert_eq!(moved[0].0, 0);
        assert!(moved[0].1 > 0, "a win moves d up: {moved:?}");
        let d_latin = stored.iter().find(|r| r.variant == "latin" && r.player_id == d).unwrap();
        assert_eq!(last.ratings[0].rating.after, crate::ratings::shown(d_latin.mu));
        let listed = db.recent_games(1, None, None, false).await.unwrap();
        let listed: Vec<Option<i32>> = listed[0].seats.iter().map(|s| s.rating.map(|r| r.change)).collect();
        assert_eq!(listed, [Some(moved[0].1), None, None, None]);
        // An unrated game has no moves.
        assert!(db.game(ids[5]).await.unwrap().unwrap().ratings.is_empty());
        db.close().await;
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
        }
    }

    #[tokio::test]
    async fn ratings_stored_before_draws_were_counted_get_their_draws_from_the_stored_games() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let path = std::env::temp_dir().join(format!("capicua-draws-{}-{nanos}.db", std::process::id()));
        let url = path.to_str().unwrap().to_string();
        let db = Db::open(&url).await.unwrap();
        let block = db.create_room(&capicua_engine::preset("block").unwrap(), 2, true).await.unwrap();
        let mut house = capicua_engine::preset("block").unwrap();
        house.name = "house".into();
        house.scoring.win_bonus = 7;
        let house_room = db.create_room(&house, 2, true).await.unwrap();
        let mut p = Vec::new();
        for name in ["a", "b", "c"] {
            p.push(Some(db.register(name).await.unwrap().0.id));
        }
        let mut drawn_house = game("block", house_room, &[(0, p[0]), (1, p[1])], vec![5, 5], None);
        if let Play::Tiles { variant, .. } = &mut drawn_house.play {
            *variant = house.clone();
        }
        for g in [
            game("block", block, &[(0, p[0]), (1, p[1])], vec![50, 10], Some(0)),
            game("block", block, &[(0, p[1]), (1, p[0])], vec![5, 5], None),
            game("block", block, &[(0, p[2]), (1, p[0])], vec![7, 7], None),
            game("block", block, &[(0, p[2]), (1, p[1])], vec![0, 50], Some(1)),
            drawn_house,
        ] {
            db.store_game(g).await.unwrap();
        }
        db.close().await;
        // The database as a server before migration 0005 left it: the same
        // games and ratings, no draws column, no record of the migration.
        {
            use sqlx::Connection;
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{url}")).await.unwrap();
            sqlx::query("ALTER TABLE ratings DROP COLUMN draws").execute(&mut conn).await.unwrap();
            sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 5").execute(&mut conn).await.unwrap();
            conn.close().await.unwrap();
        }
        let db = Db::open(&url).await.unwrap();
        let rows: Vec<(String, i64, i64, i64, i64)> = db
            .leaderboard("block", 10)
            .await
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.games, s.wins, s.draws, s.losses))
            .collect();
        let mut rows = rows;
        rows.sort();
        assert_eq!(rows, [("a".to_string(), 3, 1, 2, 0), ("b".to_string(), 3, 1, 1, 1), ("c".to_string(), 2, 0, 1, 1)]);
        // The custom board's draw counts there only.
        let house_board = rating_key(&house);
        let house_rows: Vec<(i64, i64, i64)> =
            db.leaderboard(&house_board, 10).await.unwrap().iter().map(|s| (s.games, s.draws, s.losses)).collect();
        assert_eq!(house_rows, [(1, 1, 0), (1, 1, 0)]);
        // The writer goes on from the counted draws, and a replay agrees.
        let c_wins = game("block", block, &[(0, p[2]), (1, p[0])], vec![9, 9], None);
        db.store_game(c_wins).await.unwrap();
        let stored = db.stored_ratings().await.unwrap();
        assert_eq!(db.replay_ratings().await.unwrap(), stored);
        let a = stored.iter().find(|r| r.variant == "block" && Some(r.player_id) == p[0]).unwrap();
        assert_eq!((a.games, a.wins, a.draws), (4, 1, 3));
        db.close().await;
        // A reader of a row whose draws were never counted counts them itself.
        {
            use sqlx::Connection;
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{url}")).await.unwrap();
            sqlx::query("UPDATE ratings SET draws = NULL").execute(&mut conn).await.unwrap();
            conn.close().await.unwrap();
        }
        let reader = Db::open_read_only(&url).await.unwrap();
        let a_row = reader.leaderboard("block", 10).await.unwrap().into_iter().find(|s| s.name == "a").unwrap();
        assert_eq!((a_row.games, a_row.wins, a_row.draws, a_row.losses), (4, 1, 3, 0));
        reader.close().await;
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
        }
    }
}
