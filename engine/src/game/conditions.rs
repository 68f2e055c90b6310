//! Conditional rules (`[[when]]`) and the extra end rules (`end`): state
//! kept only for variants that use them, looked at after each move behind
//! the cached `Hot::watch` flag.

use std::sync::Arc;

use super::events::{Event, Events, HandEnd};
use super::ext::{Ext, ON_DRAW, ON_PASS, ON_PLAY};
use super::{Game, Hot};
use crate::moves::Move;
use crate::rules::Rules;
use crate::seating::{MAX_SEATS, Seat};
use crate::variant::{Condition, EndRule};

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
    /// re-evaluates the conditions the move may have changed.
    #[cold]
    #[inline(never)]
    pub(super) fn after_move(&mut self, seat: Seat, m: Move, ev: &mut Events) {
        if ev.iter().any(|e| matches!(e, Event::HandOver { .. } | Event::MatchOver { .. })) {
            // A new hand (or none): its state was reset when it was dealt.
            return;
        }
        let bit = 1u16 << seat.0;
        let kind = match m {
            Move::Play { .. } => {
                self.ext_mut().passed_last &= !bit;
                ON_PLAY
            }
            Move::Draw => ON_DRAW,
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
