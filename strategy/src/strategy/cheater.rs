//! `cheater`: tries an illegal play first.

use capicua_engine::{EndId, Move, MoveList};

use super::Strategy;
use crate::seat_view::SeatView;

/// The sources' cheating player: it first proposes a move the rules forbid
/// (a tile that does not fit, a pass while it could play, a draw it may not
/// make), hoping a lenient referee lets it through; after that it proposes
/// the legal move its inner strategy picks. A strict referee refuses the
/// first proposal and plays the second, so against the engine the cheater
/// plays exactly like its inner strategy.
pub struct Cheater {
    inner: Box<dyn Strategy>,
}

impl Cheater {
    /// A cheater whose honest fallback is `inner`.
    pub fn new(inner: Box<dyn Strategy>) -> Cheater {
        Cheater { inner }
    }

    /// A move the rules forbid in this position, if one can be named.
    pub fn illegal_move(view: &dyn SeatView) -> Option<Move> {
        let mut legal = MoveList::new();
        view.legal_moves(&mut legal);
        let ends = view.ends().len().max(1);
        let mut candidates = view.hand().iter().flat_map(|tile| {
            (0..ends).flat_map(move |e| {
                let end = if view.ends().is_empty() { EndId::LEAD } else { EndId(e as u8) };
                (0..2).map(move |face| Move::Play { tile, end, face })
            })
        });
        candidates
            .find(|m| !legal.contains(m))
            .or_else(|| [Move::Pass, Move::Draw].into_iter().find(|m| !legal.contains(m)))
    }
}

impl Strategy for Cheater {
    fn name(&self) -> String {
        match self.inner.name().as_str() {
            "heuristic" => "cheater".into(),
            inner => format!("cheater:inner={inner}"),
        }
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        self.inner.choose(view)
    }
    fn propose(&mut self, view: &dyn SeatView, out: &mut Vec<Move>) {
        if let Some(m) = Cheater::illegal_move(view) {
            out.push(m);
        }
        self.inner.propose(view, out);
    }
    fn proposes_alternatives(&self) -> bool {
        true
    }
    fn is_quick(&self) -> bool {
        // Naming an illegal move is one pass over the hand; the rest is the
        // inner strategy's work.
        self.inner.is_quick()
    }
    fn sees_all_hands(&self) -> bool {
        self.inner.sees_all_hands()
    }
    fn watch(&mut self, stop: &crate::StopFlag) {
        self.inner.watch(stop);
    }
    fn reseed(&mut self, seed: u64) {
        self.inner.reseed(seed);
    }
}
