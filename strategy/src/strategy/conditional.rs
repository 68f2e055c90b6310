//! Conditional composition: "use X while CONDITION, otherwise Y".

use std::fmt;

use capicua_engine::{Move, Seat};

use super::Strategy;
use crate::error::SpecError;
use crate::seat_view::SeatView;

/// A number read from the viewer's situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// `hand-pips`: the value of the viewer's hand.
    HandPips,
    /// `hand-tiles`: tiles in the viewer's hand.
    HandTiles,
    /// `opponent-tiles`: the fewest tiles an opponent holds.
    OpponentTiles,
    /// `partner-tiles`: the fewest tiles a partner holds (99 without partners).
    PartnerTiles,
    /// `stock`: tiles in the stock.
    Stock,
    /// `played`: tiles played this hand.
    Played,
    /// `score-lead`: the viewer's side's match score minus the best other side's.
    ScoreLead,
}

impl Measure {
    /// Every measure with its spelling.
    pub const ALL: [(Measure, &'static str); 7] = [
        (Measure::HandPips, "hand-pips"),
        (Measure::HandTiles, "hand-tiles"),
        (Measure::OpponentTiles, "opponent-tiles"),
        (Measure::PartnerTiles, "partner-tiles"),
        (Measure::Stock, "stock"),
        (Measure::Played, "played"),
        (Measure::ScoreLead, "score-lead"),
    ];

    /// The measure's value for the viewer.
    pub fn read(self, view: &dyn SeatView) -> i64 {
        let me = view.seat();
        let others = || (0..view.seats()).map(Seat).filter(move |&s| s != me);
        match self {
            Measure::HandPips => view.value_of(view.hand()) as i64,
            Measure::HandTiles => view.hand().len() as i64,
            Measure::OpponentTiles => {
                others().filter(|&s| !view.partners(s, me)).map(|s| view.hand_len(s) as i64).min().unwrap_or(99)
            }
            Measure::PartnerTiles => {
                others().filter(|&s| view.partners(s, me)).map(|s| view.hand_len(s) as i64).min().unwrap_or(99)
            }
            Measure::Stock => view.stock_len() as i64,
            Measure::Played => view.played().len() as i64,
            Measure::ScoreLead => {
                let scores = view.scores();
                let mine = view.side_of(me).index();
                let best_other = scores.iter().enumerate().filter(|&(i, _)| i != mine).map(|(_, &s)| s).max();
                scores.get(mine).copied().unwrap_or(0) as i64 - best_other.unwrap_or(0) as i64
            }
        }
    }

    fn spelling(self) -> &'static str {
        Measure::ALL.iter().find(|m| m.0 == self).map(|m| m.1).unwrap_or("?")
    }
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterOrEqual,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
}

impl Op {
    const SPELLINGS: [(Op, &'static str); 6] = [
        (Op::LessOrEqual, "<="),
        (Op::GreaterOrEqual, ">="),
        (Op::Equal, "=="),
        (Op::NotEqual, "!="),
        (Op::Less, "<"),
        (Op::Greater, ">"),
    ];

    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Op::Less => a < b,
            Op::LessOrEqual => a <= b,
            Op::Greater => a > b,
            Op::GreaterOrEqual => a >= b,
            Op::Equal => a == b,
            Op::NotEqual => a != b,
        }
    }
}

/// `<measure> <op> <number>`, e.g. `hand-pips > 25`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    /// What is measured.
    pub measure: Measure,
    /// How it is compared.
    pub op: Op,
    /// With what.
    pub value: i64,
}

impl Condition {
    /// Parses `hand-pips > 25` (spaces optional).
    ///
    /// ```
    /// use capicua_strategy::strategy::{Condition, Measure, Op};
    /// let c = Condition::parse("hand-pips>25").unwrap();
    /// assert_eq!(c, Condition { measure: Measure::HandPips, op: Op::Greater, value: 25 });
    /// assert!(Condition::parse("pips ~ 3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Condition, SpecError> {
        let bad = || SpecError::BadCondition(text.trim().to_string());
        let (op, at, len) = Op::SPELLINGS
            .iter()
            .filter_map(|&(op, s)| text.find(s).map(|at| (op, at, s.len())))
            .min_by_key(|&(_, at, len)| (at, usize::MAX - len))
            .ok_or_else(bad)?;
        let name = text[..at].trim();
        let measure = Measure::ALL.iter().find(|m| m.1 == name).ok_or_else(bad)?.0;
        let value = text[at + len..].trim().parse().map_err(|_| bad())?;
        Ok(Condition { measure, op, value })
    }

    /// Whether the condition holds for the viewer.
    pub fn holds(&self, view: &dyn SeatView) -> bool {
        self.op.holds(self.measure.read(view), self.value)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = Op::SPELLINGS.iter().find(|o| o.0 == self.op).map(|o| o.1).unwrap_or("?");
        write!(f, "{} {op} {}", self.measure.spelling(), self.value)
    }
}

/// Plays `then` while `when` holds, `otherwise` the rest of the time.
pub struct Conditional {
    /// The condition.
    pub when: Condition,
    /// The strategy while it holds.
    pub then: Box<dyn Strategy>,
    /// The strategy otherwise.
    pub otherwise: Box<dyn Strategy>,
}

impl Strategy for Conditional {
    fn name(&self) -> String {
        format!("{} while {} else {}", self.then.name(), self.when, self.otherwise.name())
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        if self.when.holds(view) { self.then.choose(view) } else { self.otherwise.choose(view) }
    }
    fn propose(&mut self, view: &dyn SeatView, out: &mut Vec<Move>) {
        if self.when.holds(view) { self.then.propose(view, out) } else { self.otherwise.propose(view, out) }
    }
    fn proposes_alternatives(&self) -> bool {
        self.then.proposes_alternatives() || self.otherwise.proposes_alternatives()
    }
    fn is_quick(&self) -> bool {
        self.then.is_quick() && self.otherwise.is_quick()
    }
    fn sees_all_hands(&self) -> bool {
        self.then.sees_all_hands() || self.otherwise.sees_all_hands()
    }
    fn watch(&mut self, stop: &crate::StopFlag) {
        self.then.watch(stop);
        self.otherwise.watch(stop);
    }
    fn reseed(&mut self, seed: u64) {
        self.then.reseed(seed);
        self.otherwise.reseed(seed ^ 0x5555_5555_5555_5555);
    }
}
