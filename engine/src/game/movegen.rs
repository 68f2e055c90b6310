//! Move generation: the legal moves of the seat to move, and the questions
//! the referee asks on every move (may this seat play? may anyone?).
//!
//! Hands and the tiles joining each open end are bitsets: a position's
//! plays are a few ANDs per open end, unrolled per word count.

use crate::board::{Board, MAX_ENDS, OpenEnd};
use crate::moves::{EndId, Move, MoveList};
use crate::rules::Rules;
use crate::seating::Seat;
use crate::tile::{Tile, TileSet};

use super::{Game, LeadRequirement};

/// Calls `$f::<W>($args)` with `W` the game's word count, so loops over the
/// words of a [`TileSet`] are unrolled for 1, 2, 3 or 4 words.
macro_rules! by_words {
    ($words:expr, $f:ident($($arg:expr),*)) => {
        match $words {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            _ => $f::<4>($($arg),*),
        }
    };
}

#[inline(always)]
fn push_plays_w<const W: usize>(
    hand: &TileSet,
    board: &Board,
    rules: &Rules,
    seat: Seat,
    restricted: bool,
    list: &mut MoveList,
) {
    let ends = board.ends();
    // One test per position, not per end, for the layouts where every open
    // end is everybody's.
    let gated = restricted || board.must_cover() != 0;
    let doubles = hand.and(rules.catalog().doubles());
    for (i, e) in ends.iter().enumerate() {
        // A closed arm takes only doubles, where doubles go on any arm.
        let hand = if !gated || board.may_use(seat, i, restricted) {
            hand
        } else if board.doubles_on_closed_arms() {
            &doubles
        } else {
            continue;
        };
        let end = EndId(i as u8);
        // Tiles are bits: for each word, the hand's tiles joining by face 0,
        // then by face 1 (see `Rules::joining_by_face`).
        for face in 0..2u8 {
            let joining = rules.joining_by_face(e.pip, face as usize);
            for w in 0..W {
                let mut bits = hand.0[w] & joining.0[w];
                while bits != 0 {
                    let tile = Tile((w * 64) as u8 + bits.trailing_zeros() as u8);
                    bits &= bits - 1;
                    // Validation bounds the moves of any position by the
                    // capacity; `try_push` spares the panic path of `push`.
                    let pushed = list.try_push(Move::Play { tile, end, face });
                    debug_assert!(pushed.is_ok(), "move list overflow");
                }
            }
        }
    }
}

/// [`push_plays_w`] for a catalog of at most 32 tiles (double-six and
/// smaller): the hand's tiles joining an end by face 0 and by face 1 are
/// packed into one 64-bit word (face 1 in the high half), two ends into one
/// 128-bit word, and one loop pushes them in the general generator's order
/// (end, face, tile). A loop's exit depends on the hand, which the branch
/// predictor cannot foresee: a line layout pays one such exit per position
/// instead of four.
#[inline(always)]
fn push_plays_narrow(hand: u64, board: &Board, rules: &Rules, seat: Seat, restricted: bool, list: &mut MoveList) {
    let gated = restricted || board.must_cover() != 0;
    // The hand in both halves, to AND with both faces' packed tables at once.
    let both = hand | hand << 32;
    let ends = board.ends();
    if let [a, b] = ends
        && !gated
    {
        // A line of two ends open to all (every line layout, and a spinner
        // before its short sides open): the loop below unrolled, with
        // nothing to look up per end but its packed table.
        let lo = both & rules.narrow_joining(a.pip);
        let hi = both & rules.narrow_joining(b.pip);
        let (lo_four, lo_count, lo_rest) = first_four(lo, &NARROW_MOVES[0][0]);
        let (hi_four, hi_count, hi_rest) = first_four(hi, &NARROW_MOVES[0][1]);
        if lo_rest | hi_rest == 0 && list.remaining_capacity() >= 8 {
            let start = list.len();
            let pushed = list.try_extend_from_slice(&lo_four);
            debug_assert!(pushed.is_ok(), "room was checked");
            list.truncate(start + lo_count);
            let pushed = list.try_extend_from_slice(&hi_four);
            debug_assert!(pushed.is_ok(), "room was checked");
            list.truncate(start + lo_count + hi_count);
            return;
        }
    }
    let doubles = both & (rules.catalog().doubles().0[0] * 0x1_0000_0001);
    let joining = |i: usize, e: &OpenEnd| -> u64 {
        let usable = if !gated || board.may_use(seat, i, restricted) {
            both
        } else if board.doubles_on_closed_arms() {
            doubles
        } else {
            return 0;
        };
        usable & rules.narrow_joining(e.pip)
    };
    // Two ends at a time, indexed rather than chunked: a line layout (two
    // ends, the common case) runs the body once with no iterator state.
    let mut first = 0;
    while first < ends.len() {
        let lo = joining(first, &ends[first]);
        let hi = ends.get(first + 1).map_or(0, |e| joining(first + 1, e));
        let moves = &NARROW_MOVES[first / 2];
        first += 2;
        let (lo_four, lo_count, lo_rest) = first_four(lo, &moves[0]);
        let (hi_four, hi_count, hi_rest) = first_four(hi, &moves[1]);
        if lo_rest | hi_rest == 0 && list.remaining_capacity() >= 8 {
            // The common case, without a loop whose exit the predictor
            // cannot foresee: four slots per end are always written and
            // the list cut back to the moves found.
            for (four, count) in [(lo_four, lo_count), (hi_four, hi_count)] {
                let keep = list.len() + count;
                let pushed = list.try_extend_from_slice(&four);
                debug_assert!(pushed.is_ok(), "room was checked");
                list.truncate(keep);
            }
            continue;
        }
        let mut bits = lo as u128 | (hi as u128) << 64;
        let moves = moves.as_flattened();
        while bits != 0 {
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            // Validation bounds the moves of any position by the capacity.
            let pushed = list.try_push(moves[b as usize & 127]);
            debug_assert!(pushed.is_ok(), "move list overflow");
        }
    }
}

/// The move of each bit of [`push_plays_narrow`]'s packed words, by pair
/// of ends and end of the pair: bit `b` of end `k` of pair `p` is tile
/// `b & 31` joined by face `b >> 5` to end `2 p + k`. Looked up rather
/// than assembled from its fields, which cost a dozen instructions a move.
static NARROW_MOVES: [[[Move; 64]; 2]; MAX_ENDS.div_ceil(2)] = {
    let mut t = [[[Move::Pass; 64]; 2]; MAX_ENDS.div_ceil(2)];
    let mut p = 0;
    while p < t.len() {
        let mut k = 0;
        while k < 2 {
            let mut b = 0;
            while b < 64 {
                let (tile, face, end) = (Tile((b & 31) as u8), (b >> 5) as u8, EndId((2 * p + k) as u8));
                t[p][k][b] = Move::Play { tile, end, face };
                b += 1;
            }
            k += 1;
        }
        p += 1;
    }
    t
};

/// The moves of the first four bits of `bits` (in bit order; slots past
/// the last bit hold any move), how many there are, and the bits left
/// after them. The same work whatever the count: no branch to mispredict
/// (and no `count_ones`, a dozen instructions without `popcnt`).
#[inline(always)]
fn first_four(bits: u64, moves: &[Move; 64]) -> ([Move; 4], usize, u64) {
    let mut four = [Move::Pass; 4];
    let mut count = 0;
    let mut b = bits;
    for slot in &mut four {
        // The top bit set too: the word is never empty, so finding its
        // lowest bit needs no case for zero (an empty word picks slot 63,
        // which is cut), and the index is known to be in bounds.
        *slot = moves[(b | 1 << 63).trailing_zeros() as usize];
        count += (b != 0) as usize;
        b &= b.wrapping_sub(1);
    }
    (four, count, b)
}

/// Whether some tile of `tiles` joins some open end, every end counted
/// (arm access and ends that must be covered ignored). Every end is looked
/// at, without stopping at the first that fits: a plain loop of ANDs and
/// ORs, with no exit that depends on the tiles (the predictor cannot
/// foresee one).
#[inline(always)]
fn joins_any_end_w<const W: usize>(tiles: &TileSet, board: &Board, rules: &Rules) -> bool {
    let mut joining = 0;
    if let [a, b] = board.ends() {
        // A line (the common layout): both ends at once, no loop.
        let (p, q) = (rules.playable_on(a.pip), rules.playable_on(b.pip));
        for w in 0..W {
            joining |= tiles.0[w] & (p.0[w] | q.0[w]);
        }
        return joining != 0;
    }
    for e in board.ends() {
        let p = rules.playable_on(e.pip);
        for w in 0..W {
            joining |= tiles.0[w] & p.0[w];
        }
    }
    joining != 0
}

/// Whether some tile of `tiles` joins some open end (arm access ignored).
#[inline(always)]
fn any_joins_w<const W: usize>(tiles: &TileSet, board: &Board, rules: &Rules) -> bool {
    let must = board.must_cover();
    if must == 0 {
        // The common case, without a test per end.
        return joins_any_end_w::<W>(tiles, board, rules);
    }
    // Only the ends that must be covered, each looked at as above.
    let mut joining = 0;
    for (i, e) in board.ends().iter().enumerate() {
        if must >> i & 1 == 0 {
            continue;
        }
        let p = rules.playable_on(e.pip);
        for w in 0..W {
            joining |= tiles.0[w] & p.0[w];
        }
    }
    joining != 0
}

#[inline(always)]
fn has_play_w<const W: usize>(hand: &TileSet, board: &Board, rules: &Rules, seat: Seat, restricted: bool) -> bool {
    let gated = restricted || board.must_cover() != 0;
    if !gated {
        // Whether the seat can play is what a pass decides.
        return joins_any_end_w::<W>(hand, board, rules);
    }
    let doubles = hand.and(rules.catalog().doubles());
    board.ends().iter().enumerate().any(|(i, e)| {
        let usable = if board.may_use(seat, i, restricted) {
            hand
        } else if board.doubles_on_closed_arms() {
            &doubles
        } else {
            return false;
        };
        let p = rules.playable_on(e.pip);
        (0..W).any(|w| usable.0[w] & p.0[w] != 0)
    })
}

impl Game {
    /// Whether arms of a longana are closed to seats other than their owner.
    #[inline]
    fn arms_restricted(&self) -> bool {
        self.hot.restricted
    }

    #[inline]
    pub(super) fn may_use(&self, seat: Seat, i: usize) -> bool {
        self.board.may_use(seat, i, self.arms_restricted())
    }

    /// The plays of `seat` for a catalog wider than 32 tiles (the narrow
    /// ones are generated inline by `fill_legal_moves`).
    #[inline(never)]
    fn push_plays(&self, seat: Seat, list: &mut MoveList) {
        let hand = &self.hands[seat.index()];
        let (board, rules, restricted) = (&self.board, &*self.rules, self.arms_restricted());
        by_words!(self.hot.words, push_plays_w(hand, board, rules, seat, restricted, list))
    }

    /// The leads of `seat` on the empty table.
    #[inline(never)]
    fn push_leads(&self, seat: Seat, list: &mut MoveList) {
        let lead = |tile| Move::Play { tile, end: EndId::LEAD, face: 0 };
        match self.lead_req {
            LeadRequirement::Tile(t) => list.push(lead(t)),
            LeadRequirement::AnyDouble => {
                let ds = self.hands[seat.index()].and(self.rules.catalog().doubles());
                list.extend(ds.iter().map(lead));
            }
            LeadRequirement::Any => list.extend(self.hands[seat.index()].iter().map(lead)),
        }
    }

    /// Whether `seat` has a tile it may play now.
    #[inline]
    pub(super) fn has_play(&self, seat: Seat) -> bool {
        if self.hot.words != 1 {
            return self.has_play_wide(seat);
        }
        let hand = &self.hands[seat.index()];
        has_play_w::<1>(hand, &self.board, &self.rules, seat, self.arms_restricted())
    }

    /// [`Game::has_play`] for catalogs of more than 64 tiles.
    #[inline(never)]
    fn has_play_wide(&self, seat: Seat) -> bool {
        let hand = &self.hands[seat.index()];
        let (board, rules, restricted) = (&self.board, &*self.rules, self.arms_restricted());
        by_words!(self.hot.words, has_play_w(hand, board, rules, seat, restricted))
    }

    #[inline]
    fn stock_drawable(&self) -> bool {
        self.hot.draws && self.stock.len() > self.hot.keep as usize
    }

    #[inline]
    fn may_draw(&self) -> bool {
        self.stock_drawable() && (self.hot.draw_limit == 0 || self.drawn_this_turn < self.hot.draw_limit)
    }

    /// The legal moves of the seat to move (empty once the match is over).
    ///
    /// A tile that fits two ends is two moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        // Returning the list by value costs a copy of its inline storage;
        // hot loops reuse one list with `fill_legal_moves` instead.
        let mut list = MoveList::new();
        self.fill_legal_moves(&mut list);
        list
    }

    /// Appends the legal moves of the seat to move to `list` (after clearing it).
    // Always inlined into its callers' loops (views, strategies, searches):
    // a call would cost a good part of what it does.
    #[inline(always)]
    pub fn fill_legal_moves(&self, list: &mut MoveList) {
        list.clear();
        if self.outcome.is_some() {
            return;
        }
        let seat = self.to_move;
        if self.board.is_empty() {
            return self.push_leads(seat, list);
        }
        if self.hot.narrow {
            let hand = self.hands[seat.index()].0[0];
            push_plays_narrow(hand, &self.board, &self.rules, seat, self.hot.restricted, list);
        } else {
            self.push_plays(seat, list);
        }
        if list.is_empty() {
            list.push(if self.may_draw() { Move::Draw } else { Move::Pass });
        } else if self.hot.extra_moves {
            if !self.hot.must_play_drawn && self.drawn_this_turn > 0 && self.may_draw() {
                list.push(Move::Draw);
            }
            if self.hot.may_pass {
                list.push(Move::Pass);
            }
        }
    }

    /// Whether `m` is legal for the seat to move, without building the list.
    pub fn is_legal(&self, m: Move) -> bool {
        self.outcome.is_none() && self.is_legal_now(m)
    }

    /// [`Game::is_legal`] while the match is on: inlined into [`Game::play`].
    #[inline(always)]
    pub(super) fn is_legal_now(&self, m: Move) -> bool {
        let seat = self.to_move;
        match m {
            Move::Play { tile, end, face } => {
                if self.hot.narrow_free && self.board.must_cover() == 0 {
                    // Every end is open to every seat and every tile lives
                    // in the first word: the hand, the tile and the end's
                    // packed table answer in one AND (face 1 in the high half).
                    let Some(e) = self.board.end(end) else {
                        return self.board.is_empty() && self.is_legal_lead(seat, tile, end, face);
                    };
                    let both = self.hands[seat.index()].0[0] * 0x1_0000_0001;
                    return tile.0 < 32
                        && face < 2
                        && (both & self.rules.narrow_joining(e.pip)) >> (tile.0 + 32 * face) & 1 != 0;
                }
                if !self.hands[seat.index()].contains(tile) {
                    return false;
                }
                if self.board.is_empty() {
                    return self.is_legal_lead(seat, tile, end, face);
                }
                let Some(e) = self.board.end(end) else { return false };
                self.board.may_lay(seat, end.0 as usize, tile, self.arms_restricted())
                    && self.rules.joins_by_face(e.pip, tile, face)
            }
            Move::Draw => {
                self.may_draw()
                    && !self.board.is_empty()
                    && (!self.has_play(seat) || (!self.hot.must_play_drawn && self.drawn_this_turn > 0))
            }
            Move::Pass => {
                !self.board.is_empty() && {
                    let able = if self.hot.narrow_free && self.board.must_cover() == 0 {
                        // Every end is open to the seat: does any join its hand?
                        joins_any_end_w::<1>(&self.hands[seat.index()], &self.board, &self.rules)
                    } else {
                        self.has_play(seat)
                    };
                    (self.hot.may_pass && able) || (!able && !self.may_draw())
                }
            }
        }
    }

    /// Whether `tile` by `face` on `end` is a legal lead for `seat` (the
    /// table being empty).
    fn is_legal_lead(&self, seat: Seat, tile: Tile, end: EndId, face: u8) -> bool {
        self.hands[seat.index()].contains(tile)
            && end == EndId::LEAD
            && face == 0
            && match self.lead_req {
                LeadRequirement::Any => true,
                LeadRequirement::AnyDouble => tile.is_double(),
                LeadRequirement::Tile(t) => t == tile,
            }
    }

    /// Whether some seat could still play or draw. Arm access is ignored:
    /// a seat stuck on a closed arm opens it by passing.
    #[inline(always)]
    pub(super) fn anyone_can_move(&self) -> bool {
        if self.stock_drawable() {
            return true;
        }
        let (tiles, board, rules) = (&self.in_hands, &self.board, &*self.rules);
        by_words!(self.hot.words, any_joins_w(tiles, board, rules))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::presets::{PRESETS, preset};
    use crate::seating::Seating;

    /// The packed generator of narrow catalogs gives the general
    /// generator's moves in the same order, on every preset that uses it
    /// (line, spinner and train layouts alike) and on a double-six longana
    /// (closed arms that take doubles).
    #[test]
    fn narrow_generator_matches_the_general_one() {
        let mut checked = 0;
        let mut small_longana = preset("longana").unwrap();
        small_longana.tiles.max_pip = 6;
        small_longana.deal.hand_size = crate::variant::HandSize::Fixed(6);
        let variants = PRESETS.iter().map(|name| preset(name).unwrap()).chain([small_longana]);
        for v in variants {
            let name = v.name.clone();
            let rules = Arc::new(v.validate().unwrap());
            if rules.catalog().len() > 32 {
                continue;
            }
            let seats = *rules.seat_range().end();
            for seed in 0..20u64 {
                let mut g = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
                let mut pick = seed;
                while g.to_move().is_some() && g.hand_number() < 2 {
                    if !g.board().is_empty() {
                        let seat = g.to_move;
                        let (mut packed, mut general) = (MoveList::new(), MoveList::new());
                        let hand = g.hands[seat.index()];
                        push_plays_narrow(hand.0[0], &g.board, &g.rules, seat, g.hot.restricted, &mut packed);
                        push_plays_w::<1>(&hand, &g.board, &g.rules, seat, g.hot.restricted, &mut general);
                        assert_eq!(packed, general, "{name}, seed {seed}");
                        checked += packed.len();
                    }
                    let legal = g.legal_moves();
                    pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    g.play(legal[(pick >> 33) as usize % legal.len()]).unwrap();
                }
            }
        }
        assert!(checked > 1000, "only {checked} moves compared");
    }
}
