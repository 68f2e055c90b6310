//! Tournament messages: tables due for a player and news of a followed
//! tournament.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{GameId, RoomId, TournamentId};

/// A tournament table due for a player (the `assignment` message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Assignment {
    /// The tournament.
    pub tournament: TournamentId,
    /// The round (from 0).
    pub round: u32,
    /// The table in its round.
    pub table: u32,
    /// The room to join.
    pub room: RoomId,
    /// The seat reserved for the receiver.
    pub seat: u8,
    /// The variant played.
    pub variant: String,
    /// The base URL of the server that hosts the room, when that is not
    /// the server sending the assignment (several servers on one
    /// database): connect there, say `hello` with the same token, and join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// What happened in a tournament (`tournament-progress`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum Progress {
    /// Answer to `subscribe-tournament`: where it stands.
    Subscribed {
        /// `pending`, `running`, `finished` or `failed`.
        status: TournamentStatus,
        /// Results recorded so far.
        results: u32,
    },
    /// A round's tables were opened.
    RoundStarted {
        /// The round (from 0).
        round: u32,
        /// Its stage (from 0).
        stage: u32,
        /// The variant played.
        variant: String,
        /// Tables in play.
        tables: u32,
    },
    /// A table's match is over, stored and recorded.
    TableFinished {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The stored game (`GET /api/games/{id}`).
        game: GameId,
        /// The winning side of the table (index into its sides), `None` for a draw.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<u32>,
    },
    /// The tournament is over.
    Finished {
        /// The winners' names.
        winners: Vec<String>,
    },
    /// The organiser paused it: no new table opens; tables in play finish.
    Paused {
        /// Who paused it (the audit trail's `by`).
        by: String,
    },
    /// The organiser resumed it (from `paused` or `failed`): tables open again.
    Resumed {
        /// Who resumed it.
        by: String,
    },
    /// The organiser cancelled it: its open tables are closed, its played
    /// games stay; no table opens again.
    Cancelled {
        /// Who cancelled it.
        by: String,
    },
    /// The organiser deleted it before it started: it is gone.
    Deleted {
        /// Who deleted it.
        by: String,
    },
    /// The organiser withdrew an entrant: no round planned from now on seats it.
    Withdrawn {
        /// The entrant's id (index in the tournament's entrants).
        entrant: u32,
        /// Its name.
        name: String,
        /// Who withdrew it.
        by: String,
    },
    /// The organiser corrected a recorded result; the standings are recomputed.
    Corrected {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The winning side as corrected, `None` for a draw.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<u32>,
        /// Who corrected it.
        by: String,
    },
    /// The organiser entered a late entrant (a Swiss pairs it from the next
    /// round planned, an arena at its next pairing).
    Entered {
        /// The new entrant's id (index in the tournament's entrants).
        entrant: u32,
        /// Its name.
        name: String,
        /// Who entered it.
        by: String,
    },
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TournamentStatus {
    /// Created; a serving server starts it.
    Pending,
    /// A server is playing its rounds.
    Running,
    /// Over: it has its winners.
    Finished,
    /// Stopped by an error (its summary says which); the organiser may
    /// resume it once the cause is fixed.
    Failed,
    /// Paused by the organiser: no new table opens until it is resumed.
    Paused,
    /// Cancelled by the organiser: over, without winners.
    Cancelled,
}

impl TournamentStatus {
    /// Its name on the wire (and in the database).
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Pending => "pending",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Failed => "failed",
            TournamentStatus::Paused => "paused",
            TournamentStatus::Cancelled => "cancelled",
        }
    }

    /// Whether it has stopped (finished, failed or cancelled; a failed one
    /// may still be resumed by the organiser).
    pub fn is_over(self) -> bool {
        matches!(self, TournamentStatus::Finished | TournamentStatus::Failed | TournamentStatus::Cancelled)
    }
}

impl std::fmt::Display for TournamentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OccupantKind;

    /// `as_str` is what the server stores and prints: it must be the serde name.
    #[test]
    fn status_and_kind_names_are_their_wire_names() {
        let statuses = [
            TournamentStatus::Pending,
            TournamentStatus::Running,
            TournamentStatus::Finished,
            TournamentStatus::Failed,
            TournamentStatus::Paused,
            TournamentStatus::Cancelled,
        ];
        for s in statuses {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(serde_json::from_value::<TournamentStatus>(s.as_str().into()).unwrap(), s);
            assert_eq!(format!("{s:<9}|"), format!("{:<9}|", s.as_str()));
        }
        for k in [OccupantKind::Player, OccupantKind::Guest, OccupantKind::HostedBot] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
            assert_eq!(serde_json::from_value::<OccupantKind>(k.as_str().into()).unwrap(), k);
        }
        assert_eq!(
            statuses.iter().filter(|s| s.is_over()).collect::<Vec<_>>(),
            [&TournamentStatus::Finished, &TournamentStatus::Failed, &TournamentStatus::Cancelled]
        );
    }
}
