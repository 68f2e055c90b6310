//! The ids the messages name things by.

/// A room's id.
pub type RoomId = u64;
/// A prompt's id: unique per room, it names one turn of one seat.
pub type PromptId = u64;
/// A stored game's id.
pub type GameId = i64;
/// A tournament's id.
pub type TournamentId = i64;
