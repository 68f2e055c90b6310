//! What a tournament's followers are told of an organiser's control, on
//! whichever node they follow it: the node that took the control tells its
//! own followers at once, and every other node tells its followers when it
//! reads the control from the database ([`super::relay::look_controls`]).

use capicua_protocol::Progress;
use capicua_tournament::{Control, EntrantSpec, Tournament};

/// The progress frame a control of the audit trail makes: `action` is its
/// name there (`pause`, `withdraw`...), `control` its entry of the log,
/// `t` the tournament after it. `None` for an entry that is not an
/// organiser's control (or does not fit the tournament).
pub(crate) fn control_progress(
    action: &str,
    control: Option<&Control>,
    by: String,
    t: &Tournament,
) -> Option<Progress> {
    Some(match (action, control) {
        ("pause", _) => Progress::Paused { by },
        ("resume", _) => Progress::Resumed { by },
        ("cancel", _) => Progress::Cancelled { by },
        (_, Some(Control::Withdraw { entrant, .. })) => {
            Progress::Withdrawn { entrant: entrant.0, name: t.entrants().get(entrant.index())?.name.clone(), by }
        }
        (_, Some(Control::Correct { result })) => {
            Progress::Corrected { round: result.round, table: result.table, winner: result.winner, by }
        }
        (_, Some(Control::Enter { entrant })) => {
            let name = match entrant {
                EntrantSpec::Player(p) => p,
                EntrantSpec::Team(team) => &team.name,
            };
            let e = t.entrants().iter().find(|e| &e.name == name)?;
            Progress::Entered { entrant: e.id.0, name: e.name.clone(), by }
        }
        _ => return None,
    })
}
