//! Which legal moves are one choice for a player.
//!
//! A tile that fits two ends is two legal moves, yet the two boards can be
//! the same up to the sides: on a line whose ends both show a 1, a 1-4 on
//! the left and on the right both leave a 1 and a 4 open. The referee takes
//! either; a player (and a review) should see one choice.

use crate::moves::{EndId, Move, MoveList};
use crate::variant::PlayScoring;

use super::Game;

impl Game {
    /// Whether `a` and `b`, both legal for the seat to move, leave the same
    /// position up to the sides of the layout: the same tile joined where
    /// every open end that results is alike (see [`crate::Board::same_placement`]).
    pub fn same_result(&self, a: Move, b: Move) -> bool {
        match (a, b) {
            (Move::Play { tile, end: ea, face: fa }, Move::Play { tile: other, end: eb, face: fb })
                if tile == other && ea != EndId::LEAD && eb != EndId::LEAD =>
            {
                let counted = self.rules.variant().scoring.during_play != PlayScoring::None;
                self.board.same_placement(tile, (ea, fa), (eb, fb), self.to_move, counted)
            }
            _ => a == b,
        }
    }

    /// The legal moves with moves of one result (see [`Game::same_result`])
    /// given once, by the first of them: what a player chooses from.
    pub fn fill_distinct_moves(&self, list: &mut MoveList) {
        self.fill_legal_moves(list);
        let mut kept = 0;
        for i in 0..list.len() {
            let m = list[i];
            if !list[..kept].iter().any(|&k| self.same_result(k, m)) {
                list[kept] = m;
                kept += 1;
            }
        }
        list.truncate(kept);
    }
}

#[cfg(test)]
mod tests {
    use crate::variant::{BoardLayout, PlayScoring};
    use crate::{Game, Move, MoveList, OpenEnd, PRESETS, Rules, Seating, SeededRng};

    /// What a rule can read of the layout, order aside.
    fn ends(g: &Game) -> Vec<(u8, bool, bool, Option<u8>, bool)> {
        let counted = g.rules().variant().scoring.during_play != PlayScoring::None;
        let mut v: Vec<_> = g
            .board()
            .ends()
            .iter()
            .map(|e: &OpenEnd| (e.pip, e.double && counted, e.scored, e.owner.map(|s| s.0), e.opened))
            .collect();
        v.sort_unstable();
        v
    }

    /// Every pair called one choice leads to the same ends, scores and
    /// number of moves for the next seat; a tile fitting two alike ends of
    /// a line is one choice; and
    /// the distinct list keeps one of each.
    #[test]
    fn moves_of_one_result_are_alike_and_given_once() {
        let mut same = 0;
        let mut alike_met = 0;
        let mut rng = SeededRng::new(7, 0);
        for name in PRESETS {
            let rules = Rules::preset(name).unwrap();
            for seed in 0..20u64 {
                let Ok(mut g) = Game::new(rules.clone().into(), Seating::new(4), seed) else { continue };
                let mut distinct = MoveList::new();
                while g.outcome().is_none() {
                    let legal = g.legal_moves();
                    g.fill_distinct_moves(&mut distinct);
                    assert!(distinct.iter().all(|m| legal.contains(m)), "{name}: distinct moves are legal");
                    for (i, &a) in legal.iter().enumerate() {
                        assert!(distinct.iter().any(|&d| g.same_result(d, a)), "{name}: {a:?} has its choice");
                        for &b in &legal[i + 1..] {
                            if !g.same_result(a, b) {
                                continue;
                            }
                            same += 1;
                            assert_eq!(
                                distinct.iter().filter(|&&d| g.same_result(d, a)).count(),
                                1,
                                "{name}: one move of the result of {a:?} and {b:?}"
                            );
                            let (mut x, mut y) = (g.clone(), g.clone());
                            x.play(a).unwrap();
                            y.play(b).unwrap();
                            assert_eq!(ends(&x), ends(&y), "{name}: {a:?} and {b:?}");
                            assert_eq!(x.scores(), y.scores(), "{name}: {a:?} and {b:?}");
                            assert_eq!(x.legal_moves().len(), y.legal_moves().len(), "{name}: {a:?} and {b:?}");
                        }
                    }
                    if rules.variant().board == BoardLayout::Line {
                        // Two ends alike: a tile fitting both is one choice.
                        if let [l, r] = g.board().ends() {
                            let counted = rules.variant().scoring.during_play != PlayScoring::None;
                            let alike =
                                (l.pip, l.double && counted, l.scored) == (r.pip, r.double && counted, r.scored);
                            for &a in &legal {
                                let Move::Play { tile, end, face } = a else { continue };
                                let twin = legal.iter().find(
                                    |&&b| matches!(b, Move::Play { tile: t, end: e, face: f } if t == tile && e != end && f == face),
                                );
                                if let Some(&b) = twin.filter(|_| alike) {
                                    assert!(g.same_result(a, b), "{name}: {a:?} and {b:?} on {l:?} {r:?}");
                                    alike_met += 1;
                                }
                            }
                        }
                    }
                    let m = legal[rng.below(legal.len() as u32) as usize];
                    g.play(m).unwrap();
                }
            }
        }
        assert!(same > 100, "only {same} pairs of one result met");
        assert!(alike_met > 20, "only {alike_met} tiles met fitting two alike ends of a line");
    }
}
