//! What the public record of a poly hand proves about the other hands.
//!
//! [`crate::poly::PolyPimc`] reads the view between its turns (hand sizes,
//! stock size, the tiles placed since): a seat that drew held, once it had
//! drawn, no tile fitting the board it faced (it plays as soon as one
//! fits), and a seat that passed without drawing held none either; a seat
//! that only placed a tile took nothing new. Where the record does not say
//! which of several seats drew or placed, those seats are assumed nothing.

use capicua_engine::poly::{PolyMove, PolyView};

/// The public record as the seat last left it, and what it proves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    /// The table after the seat's last move, if it is still this hand's.
    after: Option<After>,
    /// By seat, by tile id: tiles the seat is known not to hold.
    pub(crate) lacks: Vec<Vec<bool>>,
    /// By seat, by tile id: tiles it would have placed instead of a lighter
    /// one, had it held them ([`crate::poly::PolyModel::Heavy`]).
    pub(crate) doubts: Vec<Vec<bool>>,
}

/// The public state right after the seat's own last move.
#[derive(Clone, Debug)]
struct After {
    hand: u32,
    board: usize,
    sizes: Vec<usize>,
    /// The move was a draw: the seat moves again, nobody else did.
    drew: bool,
}

impl Record {
    /// Reads what the other seats did since the seat's last move.
    pub(crate) fn observe(&mut self, view: &PolyView<'_>) {
        let seats = view.hand_sizes().count();
        let tiles = view.rules().set().len();
        let sizes: Vec<usize> = view.hand_sizes().collect();
        let board = view.board();
        let fresh = match &self.after {
            Some(a) => a.hand != view.hand_number() || a.sizes.len() != seats || a.board > board.placed().len(),
            None => true,
        };
        if fresh || self.lacks.len() != seats || self.lacks.iter().any(|l| l.len() != tiles) {
            self.lacks = vec![vec![false; tiles]; seats];
            self.doubts = self.lacks.clone();
        }
        let Some(a) = self.after.take().filter(|a| !fresh && !a.drew) else { return };
        let me = view.seat() as usize;
        let order: Vec<usize> = (1..seats).map(|k| (me + k) % seats).collect();
        let placed = board.placed().len() - a.board;
        // Who placed: a smaller hand placed; the rest are settled by the count.
        let delta = |s: usize| sizes[s] as i64 - a.sizes[s] as i64;
        let sure = order.iter().filter(|&&s| delta(s) < 0).count();
        let open: Vec<usize> = order.iter().copied().filter(|&s| delta(s) >= 0).collect();
        let rest_placed = match placed.checked_sub(sure) {
            Some(0) => Some(false),
            Some(n) if n == open.len() => Some(true),
            _ => None,
        };
        let mut at = a.board;
        // Once one seat's turn is unknown, so is the board every later seat faced.
        let mut lost = false;
        for &s in &order {
            let (placed, drew) = if lost {
                (false, false)
            } else if delta(s) < 0 {
                (true, false)
            } else if let Some(p) = rest_placed {
                (p, delta(s) + p as i64 > 0)
            } else {
                lost = true;
                (false, false)
            };
            if lost {
                // Unknown: forget what was known (it may have drawn).
                self.lacks[s].iter_mut().for_each(|b| *b = false);
                self.doubts[s].iter_mut().for_each(|b| *b = false);
                continue;
            };
            let faced = board.prefix(at);
            let set = view.rules().set();
            let (lacks, doubts) = (&mut self.lacks[s], &mut self.doubts[s]);
            if drew || !placed {
                for (i, &tile) in set.tiles().iter().enumerate() {
                    let fits = faced.fits(tile);
                    // A draw brought tiles known of before into the hand.
                    lacks[i] = if drew { fits } else { lacks[i] || fits };
                    if drew {
                        doubts[i] = false;
                    }
                }
            } else if let Some(p) = board.placed().get(at) {
                let value = p.pips.value();
                for (i, &tile) in set.tiles().iter().enumerate() {
                    if tile.value() > value && !doubts[i] && faced.fits(tile) {
                        doubts[i] = true;
                    }
                }
            }
            at += placed as usize;
        }
    }

    /// Notes the seat's own move, made from `view`.
    pub(crate) fn moved(&mut self, view: &PolyView<'_>, m: PolyMove) {
        let me = view.seat() as usize;
        let mut sizes: Vec<usize> = view.hand_sizes().collect();
        let mut board = view.board().placed().len();
        match m {
            PolyMove::Play { .. } => {
                sizes[me] = sizes[me].saturating_sub(1);
                board += 1;
            }
            PolyMove::Draw => {
                sizes[me] += 1;
            }
            PolyMove::Pass => {}
        }
        self.after = Some(After { hand: view.hand_number(), board, sizes, drew: m == PolyMove::Draw });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::PolyStrategy;
    use capicua_engine::poly::{PolyGame, PolyStuck};
    use std::sync::Arc;

    /// What the record proves is true: no seat ever holds a tile it is
    /// said to lack, at every turn of whole matches, two to four seats, on
    /// tables where seats get stuck (pips up to 9, small hands) and draw
    /// one, several or none.
    #[test]
    fn the_record_never_rules_out_a_held_tile() {
        use capicua_engine::HandSize;
        use capicua_engine::poly::{PolyMatchTarget, SeatRange};
        let mut lacked = 0;
        for (stuck, seats) in [
            (PolyStuck::DrawOne, 2),
            (PolyStuck::DrawUpTo(3), 3),
            (PolyStuck::Pass, 2),
            (PolyStuck::DrawUntilPlayable, 4),
        ] {
            let mut v = capicua_engine::poly::poly_preset("triominoes").unwrap();
            (v.max_pip, v.stuck, v.hand_size) = (9, stuck, HandSize::Fixed(4));
            v.seats = SeatRange { min: 2, max: 4 };
            v.target = PolyMatchTarget::Hands(6);
            let rules = Arc::new(v.validate().unwrap());
            let mut game = PolyGame::new(rules, seats, 8).unwrap();
            let mut records: Vec<Record> = vec![Record::default(); seats as usize];
            let mut random = crate::poly::PolyRandom::new(3);
            while let Some(seat) = game.to_move() {
                let view = game.view(seat);
                let record = &mut records[seat as usize];
                record.observe(&view);
                for s in 0..seats {
                    for &t in game.hand(s) {
                        assert!(!record.lacks[s as usize][t.0 as usize], "{stuck:?}: seat {s} holds #{}", t.0);
                    }
                }
                lacked += record.lacks.iter().flatten().filter(|&&b| b).count();
                let m = random.choose(&view);
                record.moved(&view, m);
                game.play(m).unwrap();
            }
        }
        assert!(lacked > 0, "the record never proved anything");
    }
}
