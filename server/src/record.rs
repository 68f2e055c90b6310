//! What a finished match leaves behind: the record a room hands over to be
//! stored, replayed and rated, and the tournament result stored with it.
//! Domain types: the database stores them, rooms and tournaments make them.

use capicua_engine::poly::{PolyEvent, PolyMove, PolyVariant};
use capicua_engine::{HandResult, Move, Seating, Variant};
use capicua_protocol::{OccupantKind, TournamentId};
use capicua_tournament::MatchResult;
use serde::Serialize;

/// One seat of a finished game.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct SeatRecord {
    /// Seat number.
    #[sqlx(try_from = "i64")]
    pub seat: u8,
    /// Side it scored for.
    #[sqlx(try_from = "i64")]
    pub side: u8,
    /// The player, `None` for a guest.
    pub player_id: Option<i64>,
    /// Name shown.
    pub name: String,
    /// Who sat there.
    pub kind: SeatKind,
}

/// Who sat in a seat of a finished game (`game_seats.kind`, and `kind` in
/// `GET /api/games/{id}`): an occupant's kind, or nobody, when a tournament
/// table's player never came and its side forfeited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeatKind {
    /// A registered player.
    Player,
    /// An unregistered guest.
    Guest,
    /// A bot hosted by the server.
    HostedBot,
    /// Nobody.
    Empty,
}

impl From<OccupantKind> for SeatKind {
    fn from(k: OccupantKind) -> SeatKind {
        match k {
            OccupantKind::Player => SeatKind::Player,
            OccupantKind::Guest => SeatKind::Guest,
            OccupantKind::HostedBot => SeatKind::HostedBot,
        }
    }
}

/// What was played: the rules, the seats and the moves, which replay the
/// match from its seed. Dominoes or tiles with 3, 4 or 6 faces.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant, reason = "one per finished match, moved once")]
pub enum Play {
    /// A two-faced match.
    Tiles {
        /// The variant.
        variant: Variant,
        /// The seating.
        seating: Seating,
        /// The move log.
        moves: Vec<Move>,
    },
    /// A match of tiles with 3, 4 or 6 faces (every seat its own side).
    Poly {
        /// The variant.
        variant: PolyVariant,
        /// The seats.
        seats: u8,
        /// The move log.
        moves: Vec<PolyMove>,
    },
}

impl Play {
    /// The variant's name.
    pub fn name(&self) -> &str {
        match self {
            Play::Tiles { variant, .. } => &variant.name,
            Play::Poly { variant, .. } => &variant.name,
        }
    }

    /// Seats at the table.
    pub fn seats(&self) -> u8 {
        match self {
            Play::Tiles { seating, .. } => seating.seats,
            Play::Poly { seats, .. } => *seats,
        }
    }

    /// Moves played.
    pub fn plies(&self) -> usize {
        match self {
            Play::Tiles { moves, .. } => moves.len(),
            Play::Poly { moves, .. } => moves.len(),
        }
    }

    /// Whether it is a poly match.
    pub fn is_poly(&self) -> bool {
        matches!(self, Play::Poly { .. })
    }
}

/// The results of a match's finished hands.
#[derive(Clone, Debug)]
pub enum HandResults {
    /// A two-faced match's.
    Tiles(Vec<HandResult>),
    /// A poly match's `hand-ended` events.
    Poly(Vec<PolyEvent>),
}

impl HandResults {
    /// Hands finished.
    pub fn len(&self) -> usize {
        match self {
            HandResults::Tiles(h) => h.len(),
            HandResults::Poly(h) => h.len(),
        }
    }

    /// Whether no hand finished.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pips `seat` was left holding, summed over the hands (what
    /// tournaments break ties by; a poly hand's result does not keep them).
    pub fn pips_left(&self, seat: usize) -> u32 {
        match self {
            HandResults::Tiles(h) => h.iter().map(|h| h.pips.get(seat).copied().unwrap_or(0).max(0) as u32).sum(),
            HandResults::Poly(_) => 0,
        }
    }
}

/// A finished match, everything needed to store and replay it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The room it was played in.
    pub room_id: Option<i64>,
    /// The rules, seats and moves.
    pub play: Play,
    /// The seed.
    pub seed: u64,
    /// Scores by side.
    pub scores: Vec<i32>,
    /// Each seat's share of its side's score, by seat
    /// ([`capicua_engine::Game::seat_scores`]).
    pub seat_scores: Vec<i32>,
    /// Finished hands.
    pub hands: HandResults,
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

/// A finished tournament match, stored with its game in one transaction
/// (the room playing a tournament table puts it in its [`GameRecord`]).
#[derive(Clone, Debug)]
pub struct TableLink {
    /// The tournament.
    pub tournament: TournamentId,
    /// The result (round, table, seats, winner).
    pub result: MatchResult,
}
