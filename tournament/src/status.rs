//! The life of a hosted tournament: which [`TournamentStatus`] it is in,
//! which changes the organiser's controls and the server running it may
//! make from which status, and what a control becomes given where the
//! tournament stands. Pure decisions: the store applies them in one
//! transaction with the status it read.

use capicua_protocol::TournamentStatus;
use thiserror::Error;

use crate::tournament::Control;

use TournamentStatus::{Cancelled, Failed, Finished, Paused, Pending, Running};

/// What the organiser asks of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlAction {
    /// No new table opens (from pending or running).
    Pause,
    /// Tables open again (from paused or failed).
    Resume,
    /// Stops for good (from anything not finished or cancelled).
    Cancel,
    /// An entry of the log (withdraw, correct, enter).
    Log(Control),
}

/// The status does not allow the control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("a {0} tournament does not take this control")]
pub struct WrongStatus(pub TournamentStatus);

/// What taking a control does, decided from the tournament's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlDecision {
    /// The control as it is recorded (a withdrawal before the start is
    /// marked `before_start`).
    pub action: ControlAction,
    /// The status it leaves, when it changes the status.
    pub to: Option<TournamentStatus>,
}

impl ControlAction {
    /// Its name in the audit trail.
    pub fn name(&self) -> &'static str {
        match self {
            ControlAction::Pause => "pause",
            ControlAction::Resume => "resume",
            ControlAction::Cancel => "cancel",
            ControlAction::Log(Control::Withdraw { .. }) => "withdraw",
            ControlAction::Log(Control::Correct { .. }) => "correct",
            ControlAction::Log(Control::Enter { .. }) => "enter",
        }
    }

    /// The statuses it may be taken in.
    pub fn allowed_from(&self) -> &'static [TournamentStatus] {
        match self {
            ControlAction::Pause => &[Pending, Running],
            ControlAction::Resume => &[Paused, Failed],
            ControlAction::Cancel => &[Pending, Running, Paused, Failed],
            // A withdrawal or a late entry while the tournament may still
            // play; a correction at any time, the end included (that is
            // when mistakes are seen).
            ControlAction::Log(Control::Withdraw { .. } | Control::Enter { .. }) => &[Pending, Running, Paused, Failed],
            ControlAction::Log(Control::Correct { .. }) => &[Pending, Running, Paused, Failed, Finished, Cancelled],
        }
    }

    /// The status it leaves (`None`: a control of the log keeps the status).
    pub fn leaves(&self) -> Option<TournamentStatus> {
        match self {
            ControlAction::Pause => Some(Paused),
            ControlAction::Resume => Some(Running),
            ControlAction::Cancel => Some(Cancelled),
            ControlAction::Log(_) => None,
        }
    }

    /// What taking it does to a tournament in `status`, `started` or not
    /// (no table has opened before the start): refused outside
    /// [`ControlAction::allowed_from`]; a withdrawal before the start plans
    /// the first round again (see [`Control::Withdraw`]).
    pub fn decide(&self, status: TournamentStatus, started: bool) -> Result<ControlDecision, WrongStatus> {
        if !self.allowed_from().contains(&status) {
            return Err(WrongStatus(status));
        }
        let action = match self {
            ControlAction::Log(Control::Withdraw { entrant, .. }) if !started => {
                ControlAction::Log(Control::Withdraw { entrant: *entrant, before_start: true })
            }
            other => other.clone(),
        };
        Ok(ControlDecision { action, to: self.leaves() })
    }
}

/// A status change the server makes as it runs a tournament. None of them
/// overwrites the organiser's pause or cancel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// The runner starts (or resumes running) it.
    Start,
    /// Its last match is recorded (a paused one finishes too: its tables
    /// were all played).
    Finish,
    /// Its runner stopped on an error; the organiser may resume it.
    Fail,
}

impl Transition {
    /// The statuses it is made from.
    pub fn from(self) -> &'static [TournamentStatus] {
        match self {
            Transition::Start => &[Pending, Running],
            Transition::Finish => &[Running, Paused],
            Transition::Fail => &[Pending, Running, Paused],
        }
    }

    /// The status it leaves.
    pub fn to(self) -> TournamentStatus {
        match self {
            Transition::Start => Running,
            Transition::Finish => Finished,
            Transition::Fail => Failed,
        }
    }
}

/// Whether a tournament may be deleted with everything stored of it: only
/// while pending and never started (no table, no result).
pub fn deletable(status: TournamentStatus, started: bool) -> bool {
    status == Pending && !started
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EntrantId, MatchResult};

    const ALL: [TournamentStatus; 6] = [Pending, Running, Finished, Failed, Paused, Cancelled];

    fn withdraw(before_start: bool) -> ControlAction {
        ControlAction::Log(Control::Withdraw { entrant: EntrantId(1), before_start })
    }

    fn correct() -> ControlAction {
        let result = MatchResult { round: 0, table: 0, seats: Vec::new(), winner: Some(0) };
        ControlAction::Log(Control::Correct { result })
    }

    fn allowed(action: &ControlAction) -> Vec<TournamentStatus> {
        ALL.into_iter().filter(|&s| action.decide(s, true).is_ok()).collect()
    }

    #[test]
    fn each_control_is_taken_only_in_its_statuses() {
        assert_eq!(allowed(&ControlAction::Pause), [Pending, Running]);
        assert_eq!(allowed(&ControlAction::Resume), [Failed, Paused]);
        assert_eq!(allowed(&ControlAction::Cancel), [Pending, Running, Failed, Paused]);
        assert_eq!(allowed(&withdraw(false)), [Pending, Running, Failed, Paused]);
        assert_eq!(allowed(&correct()), ALL);
        assert_eq!(ControlAction::Pause.decide(Finished, true), Err(WrongStatus(Finished)));
    }

    #[test]
    fn status_controls_leave_their_status_and_log_controls_keep_it() {
        assert_eq!(ControlAction::Pause.decide(Running, true).unwrap().to, Some(Paused));
        assert_eq!(ControlAction::Resume.decide(Failed, true).unwrap().to, Some(Running));
        assert_eq!(ControlAction::Cancel.decide(Paused, true).unwrap().to, Some(Cancelled));
        assert_eq!(correct().decide(Finished, true).unwrap().to, None);
    }

    #[test]
    fn a_withdrawal_before_the_start_plans_the_first_round_again() {
        assert_eq!(withdraw(false).decide(Pending, false).unwrap().action, withdraw(true));
        assert_eq!(withdraw(false).decide(Running, true).unwrap().action, withdraw(false));
        assert_eq!(correct().decide(Pending, false).unwrap().action, correct());
    }

    #[test]
    fn the_runner_never_overwrites_a_cancel_and_finishes_a_paused_tournament() {
        for t in [Transition::Start, Transition::Finish, Transition::Fail] {
            assert!(!t.from().contains(&Cancelled) && !t.from().contains(&Finished), "{t:?}");
        }
        assert!(!Transition::Start.from().contains(&Paused), "a pause stands");
        assert!(Transition::Finish.from().contains(&Paused));
        assert_eq!(Transition::Fail.to(), Failed);
    }

    #[test]
    fn only_an_unstarted_pending_tournament_is_deletable() {
        assert!(deletable(Pending, false));
        assert!(!deletable(Pending, true));
        for s in [Running, Finished, Failed, Paused, Cancelled] {
            assert!(!deletable(s, false), "{s}");
        }
    }

    #[test]
    fn controls_are_named_in_the_audit_trail() {
        let names: Vec<&str> =
            [ControlAction::Pause, ControlAction::Resume, ControlAction::Cancel, withdraw(false), correct()]
                .iter()
                .map(ControlAction::name)
                .collect();
        assert_eq!(names, ["pause", "resume", "cancel", "withdraw", "correct"]);
    }
}
