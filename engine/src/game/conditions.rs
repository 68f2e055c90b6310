//! Conditional rules (`[[when]]`) and the extra end rules (`end`): state
//! kept only for variants that use them, looked at after each move behind
//! the cached `Hot::watch` flag.

use std::collections::HashSet;
use std::sync::Arc;

use super::events::{Events, HandEnd};
use super::ext::{Ext, ON_DRAW, ON_PASS, ON_PLAY};
use super::{Game, Hot};
use crate::moves::Move;
use crate::rules::Rules;
use crate::seating::{MAX_SEATS, Seat};
use crate::variant::{Condition, EndRule};

/// Most passes [`Game::end_if_passing_forever`] plays out on its copy.
const PASS_PROBE_LIMIT: usize = 1 << 14;

/// The state that decides where a run of passes goes (see
/// [`Game::pass_state`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PassState {
    to_move: u8,
    reversed: bool,
    turns: u32,
    passes: [u8; MAX_SEATS],
    passed_last: u16,
    active: u32,
    opened: u64,
}

impl Game {
    fn ext_mut(&mut self) -> &mut Ext {
        self.ext.as_mut().expect("extra rules have their state")
    }

    /// Puts the variant's own rules back in force and clears the per-hand
    /// counters (a new hand starts).
    pub(super) fn reset_rules(&mut self) {
        let ext = self.ext_mut();
        ext.passes = [0; MAX_SEATS];
        ext.passed_last = 0;
        ext.active = 0;
        ext.passes_probed = false;
        if !Arc::ptr_eq(&self.rules, &self.base) {
            self.set_rules(self.base.clone());
        }
    }

    fn set_rules(&mut self, rules: Arc<Rules>) {
        let mut hot = Hot::new(&rules, self.table.seats());
        // The combinations have no `when` of their own.
        hot.watch = self.hot.watch;
        hot.conditional = self.hot.conditional;
        self.hot = hot;
        self.rules = rules;
    }

    /// After a move by `seat`: counts passes, applies the end rules and
    /// re-evaluates the conditions the move may have changed. `ended`: the
    /// move ended a hand. Returns what happened.
    #[cold]
    #[inline(never)]
    pub(super) fn after_move(&mut self, seat: Seat, m: Move, ended: bool) -> Events {
        let mut ev = Events::new();
        if ended {
            // A new hand (or none): its state was reset when it was dealt.
            return ev;
        }
        self.after_move_into(seat, m, &mut ev);
        ev
    }

    fn after_move_into(&mut self, seat: Seat, m: Move, ev: &mut Events) {
        let bit = 1u16 << seat.0;
        let kind = match m {
            Move::Play { .. } => {
                let ext = self.ext_mut();
                ext.passed_last &= !bit;
                ext.passes_probed = false;
                ON_PLAY
            }
            Move::Draw => {
                self.ext_mut().passes_probed = false;
                ON_DRAW
            }
            Move::Pass => {
                let ext = self.ext_mut();
                ext.passes[seat.index()] = ext.passes[seat.index()].saturating_add(1);
                ext.passed_last |= bit;
                ON_PASS
            }
        };
        let base = self.base.clone();
        for rule in &base.variant().end {
            match *rule {
                EndRule::MostPassed(k) if kind == ON_PASS => {
                    let n = self.table.seats() as usize;
                    let ext = self.ext.as_ref().expect("extra state");
                    let passed = ext.passes[..n].iter().filter(|&&p| p >= k).count();
                    if passed * 2 > n {
                        let blocker = self.last_player.unwrap_or(self.leader);
                        self.end_hand(HandEnd::Passes { blocker }, ev);
                        return;
                    }
                }
                EndRule::HandScore(points) if kind == ON_PLAY => {
                    let side = self.table.side_of(seat);
                    if self.play_points[side.index()] >= points as i32 {
                        self.end_hand(HandEnd::HandScore { seat }, ev);
                        return;
                    }
                }
                EndRule::MostPassed(_) | EndRule::HandScore(_) => {}
            }
        }
        if self.hot.conditional && self.ext.as_ref().is_some_and(|e| e.watch_kinds & kind != 0) {
            self.update_conditions();
        }
        // With a turn cap, the cap ends such a hand (and always did: its
        // games must replay as they were played).
        if self.hot.conditional && self.hot.max_turns == u32::MAX {
            self.end_if_passing_forever(ev);
        }
    }

    /// Ends the hand as blocked when nobody can ever move again although
    /// some tile still joins some end.
    ///
    /// The conditional rules in force depend on the seat to move (its
    /// points, its passes), and they may set the direction of play or the
    /// matching rule: the turn can then go back and forth between seats
    /// that must pass (a seat whose hand holds points sends it
    /// counter-clockwise, its neighbour with only blank-valued doubles sends
    /// it back), while the seats that could play never get it. Passes that
    /// must be made change nothing but counters, opened arms and the seat to
    /// move, so they are played out on a copy: if they come back to a state
    /// they were in before any seat can play or draw, they would go round
    /// for ever, and the hand is blocked now. One probe per run of passes:
    /// its answer holds until somebody plays or draws.
    #[cold]
    fn end_if_passing_forever(&mut self, ev: &mut Events) {
        if self.ext.as_ref().expect("extra state").passes_probed || !self.must_pass() {
            return;
        }
        if self.passes_go_round() {
            let blocker = self.last_player.unwrap_or(self.leader);
            self.end_hand(HandEnd::Blocked { blocker }, ev);
        } else {
            self.ext_mut().passes_probed = true;
        }
    }

    /// Whether the seat to move has no move but a pass.
    fn must_pass(&self) -> bool {
        self.legal_moves().as_slice() == [Move::Pass]
    }

    /// Plays the passes that must follow on a copy of the game: whether
    /// they come back to a state seen before any seat can play or draw and
    /// before they end the hand themselves (an end rule, or nobody able to
    /// move at all). Gives up (`false`: the game goes on) after
    /// [`PASS_PROBE_LIMIT`] passes, which only a turn-count condition far
    /// beyond any real hand or a random turn order can need.
    fn passes_go_round(&self) -> bool {
        let mut copy = self.clone();
        copy.keep_hand_ends(false);
        copy.ext_mut().passes_probed = true;
        let mut seen = HashSet::new();
        for _ in 0..PASS_PROBE_LIMIT {
            if !copy.must_pass() {
                return false;
            }
            if !seen.insert(copy.pass_state()) {
                return true;
            }
            copy.apply(Move::Pass, &mut Events::new());
            if copy.outcome.is_some() || copy.hand_no != self.hand_no {
                return false;
            }
        }
        false
    }

    /// Everything a run of passes changes that a rule reads, counters
    /// clamped where the rules stop telling them apart.
    fn pass_state(&self) -> PassState {
        let ext = self.ext.as_ref().expect("extra state");
        let opened = self.board.ends().iter().enumerate().fold(0u64, |m, (i, e)| m | (e.opened as u64) << i);
        PassState {
            to_move: self.to_move.0,
            reversed: self.reversed,
            turns: self.turns.min(ext.turns_clamp),
            passes: ext.passes.map(|p| p.min(ext.pass_clamp)),
            passed_last: ext.passed_last,
            active: ext.active,
            opened,
        }
    }

    /// Evaluates every condition and puts the matching rules in force.
    pub(super) fn update_conditions(&mut self) {
        let base = self.base.clone();
        let mut mask = 0u32;
        for (i, w) in base.variant().when.iter().enumerate() {
            if self.holds(w.condition) {
                mask |= 1 << i;
            }
        }
        if mask == self.ext.as_ref().expect("extra state").active {
            return;
        }
        self.ext_mut().active = mask;
        let rules = base.when_rules(mask).cloned().unwrap_or(base);
        self.set_rules(rules);
    }

    /// Called when nobody can move: re-evaluates the conditions and tells
    /// whether the rules now in force let some seat move.
    #[cold]
    #[inline(never)]
    pub(super) fn rescued_by_conditions(&mut self) -> bool {
        let before = self.ext.as_ref().expect("extra state").active;
        self.update_conditions();
        before != self.ext.as_ref().expect("extra state").active && self.anyone_can_move()
    }

    fn holds(&self, c: Condition) -> bool {
        let ext = self.ext.as_ref().expect("extra state");
        let mover = self.to_move;
        match c {
            Condition::SeatPasses(n) => ext.passes[mover.index()] >= n,
            Condition::AnySeatPasses(n) => ext.passes[..self.table.seats() as usize].iter().any(|&p| p >= n),
            Condition::TeamPasses(n) => {
                let side = self.table.side_of(mover);
                let total: u32 = self.table.members(side).map(|s| ext.passes[s.index()] as u32).sum();
                total >= n as u32
            }
            Condition::PassedLastTurn => ext.passed_last & (1 << mover.0) != 0,
            Condition::NobodyCanPlay => {
                !self.board.is_empty() && {
                    let base = &*self.base;
                    let ends = self.board.ends();
                    !ends.iter().any(|e| base.playable_on(e.pip).intersects(&self.in_hands))
                }
            }
            Condition::PipsAbove(x) => self.value_of(self.hands[mover.index()]) > x,
            Condition::TurnsAbove(x) => self.turns > x,
            Condition::HandsAbove(x) => self.hand_no > x,
        }
    }

    /// The conditional rules in force now (bit `i`: `when[i]` holds).
    pub fn active_conditions(&self) -> u32 {
        self.ext.as_ref().map_or(0, |e| e.active)
    }
}
