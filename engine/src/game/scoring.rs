//! Scoring during play and at the end of a hand, and the end of hands and
//! matches.

use arrayvec::ArrayVec;

use super::events::{Event, Events, HandEnd, HandResult, Outcome};
use super::{Game, MAX_HANDS_PER_MATCH, MAX_MOVES_PER_MATCH};
use crate::seating::{MAX_SEATS, Seat, Side};
use crate::variant::{BlockedCompare, BlockedTie, Capicua, HandPoints, MatchTarget, PlayScoring};

/// Appends the events of a step taken out of line to the move's own.
#[inline(always)]
pub(super) fn append(ev: &mut Events, more: &Events) {
    for &e in more {
        ev.push(e);
    }
}

impl Game {
    /// Adds `points` to `side`, honouring an exact target. Returns the points
    /// actually scored.
    fn add_score(&mut self, side: Side, points: i32) -> i32 {
        if let MatchTarget::Points { points: target, exact: true, .. } = self.rules.variant().target
            && self.scores[side.index()] + points > target as i32
        {
            return 0;
        }
        self.scores[side.index()] += points;
        points
    }

    fn target_reached(&self, side: Side) -> bool {
        match self.rules.variant().target {
            MatchTarget::Points { points, .. } => self.scores[side.index()] >= points as i32,
            MatchTarget::Hands(_) => false,
        }
    }

    /// Scores the ends after a play, appending what happened to `ev`.
    /// Returns true when this ended the match.
    #[inline(always)]
    pub(super) fn score_play(&mut self, seat: Seat, ev: &mut Events) -> bool {
        if !self.hot.play_scoring {
            return false;
        }
        let (over, scored) = self.score_ends(seat);
        append(ev, &scored);
        over
    }

    /// [`Game::score_play`] for a variant that scores during play: whether
    /// the match ended, and the events. Its events come back by value, so
    /// the play's own list never leaves the caller (a list passed to a call
    /// that is not inlined lives in memory and its every push is kept).
    #[inline(never)]
    fn score_ends(&mut self, seat: Seat) -> (bool, Events) {
        let mut ev = Events::new();
        let over = self.score_ends_into(seat, &mut ev);
        (over, ev)
    }

    fn score_ends_into(&mut self, seat: Seat, ev: &mut Events) -> bool {
        let rule = self.rules.variant().scoring.during_play;
        let sum = if matches!(rule, PlayScoring::Headers) { 0 } else { self.board.end_sum() as i32 };
        let points = match rule {
            PlayScoring::None => 0,
            PlayScoring::EndsMultipleOf(k) => {
                if sum > 0 && sum % k as i32 == 0 {
                    sum
                } else {
                    0
                }
            }
            PlayScoring::FivesAndThrees => {
                let mut p = 0;
                if sum > 0 && sum % 5 == 0 {
                    p += sum / 5;
                }
                if sum > 0 && sum % 3 == 0 {
                    p += sum / 3;
                }
                p
            }
            PlayScoring::Headers => match self.board.ends() {
                [a, b] if a.pip == b.pip && a.tile == b.tile => 2,
                [a, b] if a.pip == b.pip && (a.double || b.double) => 3,
                [a, b] if a.pip == b.pip => 2,
                _ => 0,
            },
        };
        if points == 0 {
            return false;
        }
        let side = self.table.side_of(seat);
        let scored = self.add_score(side, points);
        if scored == 0 {
            return false;
        }
        self.seat_scores[seat.index()] += scored;
        self.play_points[side.index()] += scored;
        ev.push(Event::Scored { side, points: scored });
        if let MatchTarget::Points { immediate: true, .. } = self.rules.variant().target
            && self.target_reached(side)
        {
            let pips = self.pips();
            self.record_hand(HandEnd::Target, Some(side), Some(seat), 0, &pips, ev);
            self.finish(Some(side), ev);
            return true;
        }
        false
    }

    fn pips(&self) -> [i32; MAX_SEATS] {
        if !self.hot.plain_count {
            return self.counted_pips();
        }
        let cat = self.rules.catalog();
        let mut pips = [0; MAX_SEATS];
        for (p, hand) in pips.iter_mut().zip(&self.hands).take(self.table.seats() as usize) {
            *p = cat.value_of(*hand);
        }
        pips
    }

    /// Decides a blocked hand: the winning side and seat, or `None`.
    fn blocked_winner(&mut self, pips: &[i32; MAX_SEATS], blocker: Seat) -> Option<(Side, Seat)> {
        let spec = self.rules.variant().blocked;
        let n = self.table.seats();
        let seats = || (0..n).map(Seat);
        let best_seat_of =
            |side: Side| self.table.members(side).min_by_key(|s| pips[s.index()]).expect("sides have members");
        let decided = match spec.compare {
            _ if self.hot.ranked => self.ranked_winner(pips),
            BlockedCompare::Seat => {
                let low = seats().map(|s| pips[s.index()]).min().unwrap_or(0);
                let mut lowest = seats().filter(|s| pips[s.index()] == low);
                let first = lowest.next().expect("at least one seat");
                let side = self.table.side_of(first);
                lowest.all(|s| self.table.side_of(s) == side).then_some((side, first))
            }
            BlockedCompare::Team => {
                let mut totals = [0i32; MAX_SEATS];
                for s in seats() {
                    totals[self.table.side_of(s).index()] += pips[s.index()];
                }
                let sides = self.table.sides() as usize;
                let low = totals[..sides].iter().copied().min().unwrap_or(0);
                let mut lowest = (0..sides).filter(|&i| totals[i] == low);
                let first = lowest.next().expect("at least one side");
                (lowest.next().is_none()).then(|| (Side(first as u8), best_seat_of(Side(first as u8))))
            }
        };
        decided.or_else(|| match spec.tie {
            BlockedTie::NoScore => None,
            BlockedTie::LeaderWins => Some((self.table.side_of(self.leader), self.leader)),
            BlockedTie::BlockerWins => Some((self.table.side_of(blocker), blocker)),
            BlockedTie::NextHandDouble => {
                self.multiplier *= 2;
                None
            }
        })
    }

    /// [`Game::end_hand`] with its events returned by value (see
    /// [`Game::score_ends`]).
    #[inline(never)]
    pub(super) fn end_hand_events(&mut self, end: HandEnd) -> Events {
        let mut ev = Events::new();
        self.end_hand(end, &mut ev);
        ev
    }

    /// Ends the hand: decides its winner, scores it, records it, then
    /// starts the next hand or ends the match.
    pub(super) fn end_hand(&mut self, end: HandEnd, ev: &mut Events) {
        let pips = self.pips();
        // Read before deciding the winner: a tie may double the next hand's.
        let carried = self.multiplier;
        let winner = self.hand_winner(end, &pips);
        let mut points = 0;
        if self.rules.penalty_scoring() {
            self.charge_own_pips(&pips, carried);
            if winner.is_some() {
                self.multiplier = 1;
            }
        } else if let Some((side, seat)) = winner {
            let p = self.winning_points(end, (side, seat), &pips, carried);
            points = if p != 0 { self.add_score(side, p) } else { 0 };
            // The hand's points are the winning seat's: it went out, or
            // held the lowest hand of the block.
            self.seat_scores[seat.index()] += points;
            // The tie multiplier is spent by a hand that someone won.
            self.multiplier = 1;
        }
        self.record_hand(end, winner.map(|w| w.0), winner.map(|w| w.1), points, &pips, ev);
        if points != 0 {
            let side = winner.expect("points go to a winner").0;
            ev.push(Event::Scored { side, points });
        }
        self.after_hand(ev);
    }

    /// The side and seat that won the hand, if any.
    fn hand_winner(&mut self, end: HandEnd, pips: &[i32; MAX_SEATS]) -> Option<(Side, Seat)> {
        match end {
            HandEnd::Out { seat, .. } => Some((self.table.side_of(seat), seat)),
            HandEnd::Blocked { blocker } | HandEnd::Passes { blocker } => self.blocked_winner(pips, blocker),
            HandEnd::HandScore { seat } => Some((self.table.side_of(seat), seat)),
            HandEnd::Target => unreachable!("target ends are recorded by score_play"),
        }
    }

    /// Penalty scoring: every side takes its own pips (times `carried`, a
    /// multiplier left by tied hands).
    fn charge_own_pips(&mut self, pips: &[i32; MAX_SEATS], carried: i32) {
        let n = self.table.seats() as usize;
        let mut totals = [0i32; MAX_SEATS];
        for (s, &p) in pips.iter().enumerate().take(n) {
            totals[self.table.side_of(Seat(s as u8)).index()] += p;
        }
        for (i, &t) in totals[..self.table.sides() as usize].iter().enumerate() {
            // All or nothing (an exact target refuses the whole sum):
            // each seat keeps its own pips when the side's total counts.
            if self.add_score(Side(i as u8), t * carried) != 0 {
                for (s, &p) in pips.iter().enumerate().take(n) {
                    if self.table.side_of(Seat(s as u8)).index() == i {
                        self.seat_scores[s] += p * carried;
                    }
                }
            }
        }
    }

    /// The points the winner of a hand ended by `end` earns, before an
    /// exact target may refuse them: the pips the rule counts, rounded,
    /// times `carried`, with the capicua and win bonuses.
    fn winning_points(&self, end: HandEnd, winner: (Side, Seat), pips: &[i32; MAX_SEATS], carried: i32) -> i32 {
        let scoring = self.rules.variant().scoring;
        let rule =
            if matches!(end, HandEnd::Out { .. } | HandEnd::HandScore { .. }) { scoring.out } else { scoring.blocked };
        let mut p = self.counted_hand_pips(rule, winner, pips);
        if scoring.round_to > 1 {
            let r = scoring.round_to as i32;
            p = (p + r / 2).div_euclid(r) * r;
        }
        p *= carried;
        if let HandEnd::Out { capicua: true, .. } = end {
            match scoring.capicua {
                Capicua::None => {}
                Capicua::Double => p *= 2,
                Capicua::Bonus(b) => p += b,
            }
        }
        p + scoring.win_bonus
    }

    /// The pips left in the hands that `rule` counts for the winner.
    fn counted_hand_pips(&self, rule: HandPoints, (side, seat): (Side, Seat), pips: &[i32; MAX_SEATS]) -> i32 {
        let n = self.table.seats() as usize;
        let (mut own, mut opp, mut others) = (0, 0, 0);
        for (s, &p) in pips.iter().enumerate().take(n) {
            if self.table.side_of(Seat(s as u8)) == side {
                own += p;
            } else {
                opp += p;
            }
            if s != seat.index() {
                others += p;
            }
        }
        match rule {
            HandPoints::Opponents => opp,
            HandPoints::AllOthers => others,
            HandPoints::All => own + opp,
            HandPoints::Difference => opp - own,
            HandPoints::Nothing | HandPoints::OwnPips => 0,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record_hand(
        &mut self,
        end: HandEnd,
        winner: Option<Side>,
        seat: Option<Seat>,
        points: i32,
        pips: &[i32; MAX_SEATS],
        ev: &mut Events,
    ) {
        let n = self.table.seats() as usize;
        let sides = self.table.sides() as usize;
        self.results.push(HandResult {
            hand: self.hand_no,
            leader: self.leader,
            end,
            winner,
            winner_seat: seat,
            points,
            pips: ArrayVec::try_from(&pips[..n]).expect("seats fit"),
            play_points: ArrayVec::try_from(&self.play_points[..sides]).expect("sides fit"),
            ranking: self.hand_ranking(pips, seat),
        });
        ev.push(Event::HandOver { hand: self.hand_no, winner });
        self.keep_final_position();
    }

    fn after_hand(&mut self, ev: &mut Events) {
        let sides = self.table.sides() as usize;
        let scores = &self.scores[..sides];
        // Under penalty scoring the lowest total leads.
        let low = self.rules.penalty_scoring();
        let best = if low { scores.iter().min() } else { scores.iter().max() };
        let best = *best.expect("two sides at least");
        let leaders: ArrayVec<usize, MAX_SEATS> = (0..sides).filter(|&i| self.scores[i] == best).collect();
        let over = match self.rules.variant().target {
            // Penalty points: someone reaching the target ends the match,
            // the lowest total wins (play on while that is shared).
            MatchTarget::Points { .. } if low => ((0..sides).any(|i| self.target_reached(Side(i as u8)))
                && leaders.len() == 1)
                .then(|| Some(Side(leaders[0] as u8))),
            MatchTarget::Points { .. } => {
                // Play on while the top score is shared, even past the target.
                (self.target_reached(Side(leaders[0] as u8)) && leaders.len() == 1)
                    .then(|| Some(Side(leaders[0] as u8)))
            }
            MatchTarget::Hands(h) => {
                (self.hand_no + 1 >= h).then(|| (leaders.len() == 1).then(|| Side(leaders[0] as u8)))
            }
        };
        // The safety nets: a match that never settles, or that has gone on
        // for too many moves, ends here, the leader winning (a shared lead is
        // a draw).
        let over = over.or_else(|| {
            (self.hand_no + 1 >= MAX_HANDS_PER_MATCH || self.log.len() >= MAX_MOVES_PER_MATCH)
                .then(|| (leaders.len() == 1).then(|| Side(leaders[0] as u8)))
        });
        match over {
            Some(winner) => self.finish(winner, ev),
            None => {
                self.hand_no += 1;
                self.start_hand();
                ev.push(Event::HandStarted { hand: self.hand_no, leader: self.leader });
            }
        }
    }

    fn finish(&mut self, winner: Option<Side>, ev: &mut Events) {
        self.outcome = Some(Outcome { winner, ranking: self.match_ranking(winner) });
        ev.push(Event::MatchOver { winner });
    }
}
