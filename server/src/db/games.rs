//! Rooms and finished games: what a room hands over when its match ends,
//! how a game is stored (its JSON columns, the compact move log) and read
//! back.

use capicua_engine::poly::PolyVariant;
use capicua_engine::{Move, Seating, Variant};
use serde::Serialize;
use sqlx::{FromRow, Row};

use super::columns::{Flag, text_column};
use super::{Db, DbError, now_secs};
use crate::ratings::RatingMove;

pub use crate::record::{GameRecord, HandResults, Play, SeatKind, SeatRecord};

text_column!(SeatKind { Player => "player", Guest => "guest", HostedBot => "hosted-bot", Empty => "empty" });

/// A stored game, as read back.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// Its id.
    pub id: i64,
    /// The room.
    pub room_id: Option<i64>,
    /// The rules, seats and moves.
    pub play: Play,
    /// The seed.
    pub seed: u64,
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
    /// Its room's invite, hashed, if the room was private: then only who
    /// shows the invite (or a seated player's token, or the admin's) may
    /// read the game.
    pub invite_hash: Option<String>,
    /// What the game did to its seats' ratings (the seats it rated).
    pub ratings: Vec<SeatRating>,
}

/// A stored game as a list of replays shows it (`GET /api/games`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct GameSummary {
    /// Its id (for `GET /api/games/{id}`).
    pub id: i64,
    /// The variant's name.
    pub variant: String,
    /// Who sat where.
    pub seats: Vec<SummarySeat>,
    /// Match scores by side.
    pub scores: Vec<i32>,
    /// Winning side; `None` for a draw.
    pub winner: Option<u8>,
    /// The seat whose side forfeited on time.
    pub forfeit: Option<u8>,
    /// Hands played.
    pub hands: i64,
    /// Whether it counted for ratings.
    pub rated: bool,
    /// When it ended, in seconds since the Unix epoch.
    pub finished_at: i64,
}

/// One seat of a [`GameSummary`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SummarySeat {
    /// Seat number.
    pub seat: u8,
    /// Side it scored for.
    pub side: u8,
    /// Name shown.
    pub name: String,
    /// Who sat there.
    pub kind: SeatKind,
    /// What the game did to the seat's rating, when it rated the seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingMove>,
}

/// What a rated game did to one seat's rating (`ratings` of a replay's
/// first page).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct SeatRating {
    /// The seat.
    pub seat: u8,
    /// The move.
    #[serde(flatten)]
    pub rating: RatingMove,
}

/// The four rating columns of a `game_seats` row, as a move.
fn rating_move(r: &sqlx::any::AnyRow) -> Result<Option<RatingMove>, DbError> {
    let pair = |mu: &str, sigma: &str| -> Result<Option<(f64, f64)>, DbError> {
        Ok(r.try_get::<Option<f64>, _>(mu)?.zip(r.try_get::<Option<f64>, _>(sigma)?))
    };
    Ok(RatingMove::of(pair("mu_before", "sigma_before")?, pair("mu_after", "sigma_after")?))
}

/// A `games` row as read back.
#[derive(sqlx::FromRow)]
struct GameRow {
    id: i64,
    room_id: Option<i64>,
    variant_json: String,
    seed: i64,
    seating_json: String,
    moves_json: String,
    scores_json: String,
    winner: Option<i64>,
    forfeit: Option<i64>,
    #[sqlx(try_from = "Flag")]
    rated: bool,
    #[sqlx(try_from = "Flag")]
    poly: bool,
    invite_hash: Option<String>,
}

/// A stored seat or side number (a small integer column).
fn small(n: Option<i64>) -> Option<u8> {
    n.and_then(|n| u8::try_from(n).ok())
}

/// A game's JSON columns.
pub(super) struct Encoded {
    pub(super) seating_json: String,
    pub(super) moves_json: String,
    pub(super) scores_json: String,
    /// (hand number, result JSON) per finished hand.
    pub(super) hands: Vec<(i64, String)>,
}

impl Encoded {
    /// The bytes of the texts, with a row's own cost for the game and each
    /// hand.
    pub(super) fn bytes(&self) -> usize {
        let texts = self.seating_json.len() + self.moves_json.len() + self.scores_json.len();
        texts + self.hands.iter().map(|(_, h)| h.len() + 64).sum::<usize>() + 64
    }

    pub(super) fn of(g: &GameRecord) -> Result<Encoded, DbError> {
        let (seating_json, moves_json) = match &g.play {
            Play::Tiles { seating, moves, .. } => (serde_json::to_string(seating)?, encode_moves(moves)),
            // A poly table has seats and no teams: the seating of its seats.
            Play::Poly { seats, moves, .. } => {
                (serde_json::to_string(&Seating::new(*seats))?, serde_json::to_string(moves)?)
            }
        };
        let hands = match &g.hands {
            HandResults::Tiles(h) => {
                h.iter().map(|h| Ok((h.hand as i64, serde_json::to_string(h)?))).collect::<Result<_, DbError>>()?
            }
            HandResults::Poly(h) => h
                .iter()
                .enumerate()
                .map(|(i, e)| Ok((i as i64, serde_json::to_string(e)?)))
                .collect::<Result<_, DbError>>()?,
        };
        Ok(Encoded { seating_json, moves_json, scores_json: serde_json::to_string(&g.scores)?, hands })
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

/// The rules a room records: a two-faced or a poly variant.
pub trait RoomVariant: Serialize {
    /// The variant's name.
    fn name(&self) -> &str;
}

impl RoomVariant for Variant {
    fn name(&self) -> &str {
        &self.name
    }
}

impl RoomVariant for PolyVariant {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Db {
    /// Records a new room, returning its id.
    /// The variant is a two-faced or a poly one.
    pub async fn create_room<V: RoomVariant>(&self, variant: &V, seats: u8, rated: bool) -> Result<i64, DbError> {
        Ok(sqlx::query_scalar(
            "INSERT INTO rooms (variant, variant_json, seats, rated, created_at, node_id) VALUES ($1, $2, $3, $4, $5, $6)
             RETURNING id",
        )
        .bind(variant.name())
        .bind(serde_json::to_string(variant)?)
        .bind(seats as i64)
        .bind(i64::from(rated))
        .bind(now_secs())
        .bind(self.node_id())
        .fetch_one(&self.pool)
        .await?)
    }

    /// A stored game.
    pub async fn game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        let Some(r) = sqlx::query_as::<_, GameRow>(
            "SELECT id, room_id, variant_json, seed, seating_json, moves_json, scores_json, winner, forfeit, rated,
                    poly, (SELECT invite_hash FROM rooms WHERE rooms.id = games.room_id) AS invite_hash
             FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        // Who sat where and what the game did to their ratings, in one read.
        let rows = sqlx::query(
            "SELECT seat, side, player_id, name, kind, mu_before, sigma_before, mu_after, sigma_after
             FROM game_seats WHERE game_id = $1 ORDER BY seat",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut seats = Vec::with_capacity(rows.len());
        let mut ratings = Vec::new();
        for row in &rows {
            let seat = SeatRecord::from_row(row)?;
            if let Some(rating) = rating_move(row)? {
                ratings.push(SeatRating { seat: seat.seat, rating });
            }
            seats.push(seat);
        }
        let seating: Seating = serde_json::from_str(&r.seating_json)?;
        let play = if r.poly {
            Play::Poly {
                variant: serde_json::from_str(&r.variant_json)?,
                seats: seating.seats,
                moves: serde_json::from_str(&r.moves_json)?,
            }
        } else {
            Play::Tiles {
                variant: serde_json::from_str(&r.variant_json)?,
                seating,
                moves: decode_moves(&r.moves_json)?,
            }
        };
        Ok(Some(StoredGame {
            id: r.id,
            room_id: r.room_id,
            play,
            seed: r.seed as u64,
            scores: serde_json::from_str(&r.scores_json)?,
            winner: small(r.winner),
            forfeit: small(r.forfeit),
            seats,
            rated: r.rated,
            invite_hash: r.invite_hash,
            ratings,
        }))
    }

    /// Who may read a stored game: `None` when there is no such game, else
    /// its room's invite hash (`None` inside for a public room) and the
    /// registered players seated in it.
    pub async fn game_access(&self, id: i64) -> Result<Option<(Option<String>, Vec<i64>)>, DbError> {
        let Some(row) = sqlx::query(
            "SELECT (SELECT invite_hash FROM rooms WHERE rooms.id = games.room_id) AS invite_hash FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let hash: Option<String> = row.try_get("invite_hash")?;
        if hash.is_none() {
            return Ok(Some((None, vec![])));
        }
        let players =
            sqlx::query_scalar("SELECT player_id FROM game_seats WHERE game_id = $1 AND player_id IS NOT NULL")
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
        Ok(Some((hash, players)))
    }

    /// Records a private room's invite (hashed): its games are private.
    pub async fn set_room_invite(&self, room: i64, invite: &str) -> Result<(), DbError> {
        sqlx::query("UPDATE rooms SET invite_hash = $1 WHERE id = $2")
            .bind(super::hash_token(invite))
            .bind(room)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stored games, newest first: at most `limit`, only those older than
    /// `before` (an id) when given, and only those the registered player
    /// (or hosted bot) named `player` sat in when given: by player id, so
    /// a guest's passing name never matches and the lookup is indexed.
    /// What a list of replays shows, no more: no seed, no moves. The games
    /// of private rooms are listed only when `private` says so (the admin).
    pub async fn recent_games(
        &self,
        limit: u32,
        before: Option<i64>,
        player: Option<&str>,
        private: bool,
    ) -> Result<Vec<GameSummary>, DbError> {
        let rows = sqlx::query(
            "SELECT id, variant, scores_json, winner, forfeit, hands, rated, finished_at FROM games
             WHERE ($1 IS NULL OR id < $1)
               AND ($2 IS NULL OR id IN (SELECT game_id FROM game_seats
                                         WHERE player_id = (SELECT id FROM players WHERE name = $2)))
               AND ($4 = 1 OR room_id IS NULL
                    OR NOT EXISTS (SELECT 1 FROM rooms WHERE rooms.id = games.room_id AND rooms.invite_hash IS NOT NULL))
             ORDER BY id DESC LIMIT $3",
        )
        .bind(before)
        .bind(player)
        .bind(limit as i64)
        .bind(i64::from(private))
        .fetch_all(&self.pool)
        .await?;
        let mut games = rows
            .iter()
            .map(|r| {
                Ok(GameSummary {
                    id: r.try_get("id")?,
                    variant: r.try_get("variant")?,
                    seats: vec![],
                    scores: serde_json::from_str(r.try_get("scores_json")?)?,
                    winner: small(r.try_get("winner")?),
                    forfeit: small(r.try_get("forfeit")?),
                    hands: r.try_get("hands")?,
                    rated: r.try_get::<Flag, _>("rated")?.0,
                    finished_at: r.try_get("finished_at")?,
                })
            })
            .collect::<Result<Vec<_>, DbError>>()?;
        let (Some(last), Some(first)) = (games.last().map(|g| g.id), games.first().map(|g| g.id)) else {
            return Ok(games);
        };
        // The seats of the whole page in one query (ids are contiguous enough).
        let seats: Vec<(i64, SummarySeat)> = sqlx::query(
            "SELECT game_id, seat, side, name, kind, mu_before, sigma_before, mu_after, sigma_after FROM game_seats
             WHERE game_id BETWEEN $1 AND $2 ORDER BY game_id, seat",
        )
        .bind(last)
        .bind(first)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok((
                r.try_get("game_id")?,
                SummarySeat {
                    seat: small(r.try_get("seat")?).unwrap_or_default(),
                    side: small(r.try_get("side")?).unwrap_or_default(),
                    name: r.try_get("name")?,
                    kind: r.try_get("kind")?,
                    rating: rating_move(r)?,
                },
            ))
        })
        .collect::<Result<_, DbError>>()?;
        for g in &mut games {
            g.seats = seats.iter().filter(|(id, _)| *id == g.id).map(|(_, s)| s.clone()).collect();
        }
        Ok(games)
    }

    /// Number of stored games.
    pub async fn game_count(&self) -> Result<i64, DbError> {
        Ok(sqlx::query("SELECT COUNT(*) AS games FROM games").fetch_one(&self.pool).await?.try_get("games")?)
    }
}

#[cfg(test)]
mod tests {
    use capicua_protocol::OccupantKind;

    use super::*;

    #[test]
    fn seat_kinds_have_the_names_of_occupant_kinds() {
        for k in [OccupantKind::Player, OccupantKind::Guest, OccupantKind::HostedBot] {
            assert_eq!(serde_json::to_value(SeatKind::from(k)).unwrap(), serde_json::to_value(k).unwrap());
        }
        assert_eq!(serde_json::to_value(SeatKind::Empty).unwrap(), "empty");
        for k in [SeatKind::Player, SeatKind::Guest, SeatKind::HostedBot, SeatKind::Empty] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.column_name(), "stored as on the wire");
        }
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
}
