//! A game rebuilt from what one seat sees: for a client that holds only a
//! [`PolyViewSnapshot`] (a remote bot) and wants a [`PolyView`](super::PolyView)
//! to hand a strategy.

use std::sync::Arc;

use super::board::PolyMatching;
use super::board::{BoardKind, PolyBoard};
use super::game::{PolyGame, PolyOutcome};
use super::tile::{PolyTileId, PolyTileSet};
use super::variant::{PolyRules, PolyScoring, PolyVariant};
use super::view::PolyViewSnapshot;
use crate::error::SetupError;

/// The seed of the hands a rebuilt game deals after the current one (the
/// real seed is the referee's secret; the snapshot does not tell it).
const REBUILT_SEED: u64 = 0x5eed_0f7a_b1e5;

impl PolyGame {
    /// A game consistent with a seat's view: the snapshot's board (same
    /// placements, node ids and open faces), the seat's hand in its order,
    /// hand sizes, stock size, scores, seat to move, hand number, draws
    /// this turn and passes in a row. What the seat cannot see is filled
    /// in by one consistent guess: the unseen tiles in id order go to the
    /// other seats' hands (seat order), the rest to the stock; later hands
    /// deal from a fixed seed. A spectator's snapshot (no seat) rebuilds
    /// with every hand guessed.
    ///
    /// So its [`view`](PolyGame::view) of the snapshot's seat has the same
    /// legal moves and the same [`snapshot`](super::PolyView::snapshot) as
    /// the real game's; a strategy that reads only the public parts and its
    /// own hand (and imagines the rest with
    /// [`PolyView::imagine`](super::PolyView::imagine)) decides as it would at
    /// the real table.
    ///
    /// A snapshot that no game of these rules can show (another variant,
    /// a tile twice or not in the set, a placement that does not fit, sizes
    /// that do not add up) is refused with [`SetupError`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use capicua_engine::poly::{PolyGame, PolyMoveList, PolyRules};
    /// let rules = Arc::new(PolyRules::preset("triominoes").unwrap());
    /// let mut game = PolyGame::new(rules.clone(), 3, 11).unwrap();
    /// let mut moves = PolyMoveList::default();
    /// for _ in 0..5 {
    ///     game.legal_moves(&mut moves);
    ///     game.play(moves[moves.len() - 1]).unwrap();
    /// }
    /// let seat = game.to_move().unwrap();
    /// let snap = game.view(seat).snapshot();
    /// let rebuilt = PolyGame::from_snapshot(rules.clone(), &snap).unwrap();
    /// assert_eq!(rebuilt.view(seat).snapshot(), snap);
    /// let mut again = PolyMoveList::default();
    /// rebuilt.view(seat).legal_moves(&mut again);
    /// game.legal_moves(&mut moves);
    /// assert_eq!(again.as_slice(), moves.as_slice());
    ///
    /// let mut other = snap.clone();
    /// other.variant = "quadominoes".into();
    /// assert!(PolyGame::from_snapshot(rules, &other).is_err());
    /// ```
    pub fn from_snapshot(rules: Arc<PolyRules>, snap: &PolyViewSnapshot) -> Result<PolyGame, SetupError> {
        let variant = rules.variant();
        check_variant(variant, snap)?;
        let seats = u8::try_from(snap.hand_sizes.len()).unwrap_or(u8::MAX);
        let mut game = PolyGame::new(rules.clone(), seats, REBUILT_SEED)?;
        check_seats(snap, seats)?;
        let set = rules.set();
        let mut shown = Shown::new(set.len());
        let board = rebuild_board(variant.board, variant.matching, set, snap, &mut shown)?;
        let own = own_hand(set, snap, &mut shown)?;
        let Guessed { hands, stock } = guess_hidden(seats, snap, own, &shown)?;
        let outcome = match snap.to_move {
            Some(_) => None,
            None => Some(outcome(variant.scoring, &snap.scores, snap.hand_number)),
        };
        game.set_state(
            board,
            hands,
            stock,
            snap.scores.clone(),
            snap.hand_number,
            snap.to_move,
            snap.drawn,
            snap.passes,
            outcome,
        );
        Ok(game)
    }
}

/// A refusal of the snapshot's tiles.
fn bad<T>(why: String) -> Result<T, SetupError> {
    Err(SetupError::Tiles(why))
}

/// The snapshot is of these rules' variant and board.
fn check_variant(variant: &PolyVariant, snap: &PolyViewSnapshot) -> Result<(), SetupError> {
    if snap.variant != variant.name {
        return bad(format!("the view is of {:?}, not {:?}", snap.variant, variant.name));
    }
    if snap.board_kind != variant.board {
        return bad(format!("the view's board is {:?}, not {:?}", snap.board_kind, variant.board));
    }
    Ok(())
}

/// The scores, the viewing seat, the seat to move and the passes in a row
/// fit a table of `seats`.
fn check_seats(snap: &PolyViewSnapshot, seats: u8) -> Result<(), SetupError> {
    if snap.scores.len() != seats as usize {
        return bad(format!("{} scores for {seats} seats", snap.scores.len()));
    }
    if let Some(s) = snap.seat.filter(|&s| s >= seats) {
        return bad(format!("seat {s} is not at the table"));
    }
    if let Some(s) = snap.to_move {
        if s >= seats {
            return Err(SetupError::Leader(s));
        }
        if snap.passes >= seats {
            return bad(format!("{} passes in a row end a hand of {seats} seats", snap.passes));
        }
    }
    Ok(())
}

/// The tiles of the set the snapshot shows, each of which it may show once.
struct Shown {
    seen: Vec<bool>,
}

impl Shown {
    fn new(set_len: usize) -> Shown {
        Shown { seen: vec![false; set_len] }
    }

    /// Notes `id` as shown, refusing a tile not in the set or shown twice.
    fn mark(&mut self, id: PolyTileId) -> Result<(), SetupError> {
        let set_len = self.seen.len();
        match self.seen.get_mut(id.0 as usize) {
            None => bad(format!("#{} is not in a set of {set_len}", id.0)),
            Some(true) => bad(format!("#{} is shown twice", id.0)),
            Some(slot) => {
                *slot = true;
                Ok(())
            }
        }
    }

    /// The tiles not shown, in id order.
    fn unseen(&self) -> impl Iterator<Item = PolyTileId> + Clone + '_ {
        (0..self.seen.len() as u16).map(PolyTileId).filter(|t| !self.seen[t.0 as usize])
    }
}

/// Replays the snapshot's placements on an empty board, checking that each
/// is the tile it claims and fits where it lies, and that they leave the
/// open faces the snapshot shows.
fn rebuild_board(
    kind: BoardKind,
    matching: PolyMatching,
    set: &PolyTileSet,
    snap: &PolyViewSnapshot,
    shown: &mut Shown,
) -> Result<PolyBoard, SetupError> {
    let mut board = PolyBoard::with_matching(kind, matching);
    for (i, p) in snap.board.iter().enumerate() {
        shown.mark(p.tile)?;
        if p.node as usize != i {
            return bad(format!("placed tile {i} says it is node {}", p.node));
        }
        if set.get(p.tile) != Some(p.pips) {
            return bad(format!("node {i}: #{} is not {}", p.tile.0, p.pips));
        }
        if !board.allows(p.pips, set.period(p.tile), p.at, p.rotation) {
            return bad(format!("node {i}: #{} does not fit there", p.tile.0));
        }
        board.place(p.tile, p.pips, p.at, p.rotation);
    }
    if board.placed() != snap.board.as_slice() {
        return bad("the board's open faces are not the ones its placements leave".into());
    }
    Ok(board)
}

/// The viewing seat's hand, in its order, checked against the set and the
/// seat's hand size (a spectator's view shows none).
fn own_hand(set: &PolyTileSet, snap: &PolyViewSnapshot, shown: &mut Shown) -> Result<Vec<PolyTileId>, SetupError> {
    let own: Vec<PolyTileId> = snap.hand.iter().map(|&(id, _)| id).collect();
    for &(id, pips) in &snap.hand {
        shown.mark(id)?;
        if set.get(id) != Some(pips) {
            return bad(format!("the hand's #{} is not {pips}", id.0));
        }
    }
    if let Some(s) = snap.seat {
        if own.len() != snap.hand_sizes[s as usize] as usize {
            return bad(format!("seat {s} holds {} tiles, not {}", snap.hand_sizes[s as usize], own.len()));
        }
    } else if !own.is_empty() {
        return bad("a spectator's view shows a hand".into());
    }
    Ok(own)
}

/// Every seat's hand and the stock, the hidden ones guessed.
struct Guessed {
    hands: Vec<Vec<PolyTileId>>,
    stock: Vec<PolyTileId>,
}

/// Deals the unseen tiles in id order to the other seats' hands (seat
/// order) and the rest to the stock, once their counts add up.
fn guess_hidden(
    seats: u8,
    snap: &PolyViewSnapshot,
    own: Vec<PolyTileId>,
    shown: &Shown,
) -> Result<Guessed, SetupError> {
    let mut unseen = shown.unseen();
    let hidden: usize =
        (0..seats).filter(|&s| Some(s) != snap.seat).map(|s| snap.hand_sizes[s as usize] as usize).sum::<usize>()
            + snap.stock as usize;
    if hidden != unseen.clone().count() {
        return bad(format!("{hidden} tiles in other hands and the stock, but {} unseen", unseen.count()));
    }
    let hands: Vec<Vec<PolyTileId>> = (0..seats)
        .map(|s| match snap.seat {
            Some(me) if me == s => own.clone(),
            _ => unseen.by_ref().take(snap.hand_sizes[s as usize] as usize).collect(),
        })
        .collect();
    let stock: Vec<PolyTileId> = unseen.collect();
    Ok(Guessed { hands, stock })
}

/// How a match with these totals ended (the referee's rule: the best total
/// wins, a tie has no winner).
fn outcome(scoring: PolyScoring, scores: &[i32], hand_number: u32) -> PolyOutcome {
    let best = match scoring {
        PolyScoring::Opponents => scores.iter().copied().max(),
        PolyScoring::OwnPips => scores.iter().copied().min(),
    }
    .unwrap_or(0);
    let mut top = (0..scores.len() as u8).filter(|&s| scores[s as usize] == best);
    let winner = match (top.next(), top.next()) {
        (Some(w), None) => Some(w),
        _ => None,
    };
    PolyOutcome { winner, scores: scores.to_vec(), hands: hand_number + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::{POLY_PRESETS, PolyMoveList, PolySpot};

    /// Over whole matches of every preset, at every turn, every seat's
    /// snapshot rebuilds a game whose view of that seat has the same
    /// snapshot and the same legal moves as the real one (and a
    /// spectator's, the same spectator snapshot).
    #[test]
    fn every_seats_view_rebuilds_with_the_same_snapshot_and_legal_moves() {
        for name in POLY_PRESETS {
            let rules = Arc::new(PolyRules::preset(name).unwrap());
            let seat_counts = [*rules.seat_range().start(), *rules.seat_range().end()];
            for (k, seats) in seat_counts.into_iter().enumerate() {
                let mut game = PolyGame::new(rules.clone(), seats, 40 + k as u64).unwrap();
                let (mut real, mut again) = (PolyMoveList::default(), PolyMoveList::default());
                let mut turn = 0usize;
                let mut checked = 0u32;
                loop {
                    for seat in 0..seats {
                        let snap = game.view(seat).snapshot();
                        let rebuilt = PolyGame::from_snapshot(rules.clone(), &snap)
                            .unwrap_or_else(|e| panic!("{name} turn {turn} seat {seat}: {e}"));
                        assert_eq!(rebuilt.view(seat).snapshot(), snap, "{name} turn {turn} seat {seat}");
                        game.view(seat).legal_moves(&mut real);
                        rebuilt.view(seat).legal_moves(&mut again);
                        assert_eq!(again.as_slice(), real.as_slice(), "{name} turn {turn} seat {seat}");
                        assert_eq!(rebuilt.outcome().is_some(), game.outcome().is_some());
                        checked += 1;
                    }
                    let public = game.spectator_snapshot();
                    let guessed = PolyGame::from_snapshot(rules.clone(), &public).unwrap();
                    assert_eq!(guessed.spectator_snapshot(), public, "{name} turn {turn}: a spectator's view");
                    if game.to_move().is_none() {
                        break;
                    }
                    game.legal_moves(&mut real);
                    // A spread of choices, not always the first move.
                    game.play(real[turn * 7 % real.len()]).unwrap();
                    turn += 1;
                }
                assert!(game.outcome().unwrap().hands >= 1 && checked > 10, "{name}: {checked}");
            }
        }
    }

    /// Snapshots no game can show are refused, not played from.
    #[test]
    fn impossible_snapshots_are_refused() {
        let rules = Arc::new(PolyRules::preset("graph-triominoes").unwrap());
        let mut game = PolyGame::new(rules.clone(), 2, 3).unwrap();
        let mut moves = PolyMoveList::default();
        for _ in 0..4 {
            game.legal_moves(&mut moves);
            game.play(moves[0]).unwrap();
        }
        let snap = game.view(0).snapshot();
        assert!(snap.board.len() >= 2, "a few tiles are placed");
        PolyGame::from_snapshot(rules.clone(), &snap).unwrap();
        let refused = |edit: &dyn Fn(&mut PolyViewSnapshot)| {
            let mut s = snap.clone();
            edit(&mut s);
            PolyGame::from_snapshot(rules.clone(), &s).unwrap_err().to_string()
        };
        assert!(refused(&|s| s.board[1].tile = PolyTileId(9999)).contains("not in a set"));
        assert!(refused(&|s| s.board[1].at = PolySpot::Face { node: 60, face: 0 }).contains("does not fit"));
        assert!(refused(&|s| s.hand[0].0 = s.board[0].tile).contains("twice"));
        assert!(refused(&|s| s.board[1].open ^= 1).contains("open faces"));
        assert!(refused(&|s| s.stock += 1).contains("unseen"));
        assert!(refused(&|s| s.hand_sizes.push(0)).contains("scores"));
        assert!(refused(&|s| s.hand_sizes = vec![0; 40]).contains("seat"));
        assert!(refused(&|s| s.seat = Some(5)).contains("not at the table"));
        assert!(refused(&|s| s.to_move = Some(7)).contains("leader 7"));
        assert!(
            refused(&|s| s.board_kind = crate::poly::BoardKind::Lattice(crate::poly::Lattice::Hex)).contains("board")
        );
    }
}
