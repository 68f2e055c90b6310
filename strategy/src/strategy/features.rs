//! What the rule-of-thumb strategies look at: a decision's context and the
//! features of each play, and how a score picks a move.

use capicua_engine::{EndId, Move, MoveList, PIP_VALUES, Seat, Tile, TileSet};

use super::Strategy;
use crate::facts::PublicFacts;
use crate::rng::BotRng;
use crate::seat_view::SeatView;

/// Everything a rule-of-thumb scorer needs, computed once per decision.
pub struct Context<'a> {
    /// The view.
    pub view: &'a dyn SeatView,
    /// The viewer.
    pub me: Seat,
    /// Its hand.
    pub hand: TileSet,
    /// Public facts about every seat.
    pub facts: PublicFacts,
    /// `holding[p]`: the hand's tiles showing pip `p`.
    pub holding: [u8; PIP_VALUES],
    /// The viewer's partners.
    pub partners: Vec<Seat>,
    /// The viewer's opponents.
    pub opponents: Vec<Seat>,
    /// The lowest tile value of this deal, or 0 if none is negative: the
    /// bottom of the scale of [`Context::value_norm`].
    pub min_value: f64,
    /// The highest tile value of this deal (to scale values to about 0..1).
    pub max_value: f64,
    /// The tiles a full hand holds.
    pub full_hand: usize,
    /// The seat that moves after the viewer.
    pub next: Seat,
    /// `outside[p]`: tiles showing pip `p` that are neither played nor in
    /// the viewer's hand (others may hold them).
    pub outside: [u8; PIP_VALUES],
}

impl<'a> Context<'a> {
    /// The context of the viewer's decision.
    pub fn new(view: &'a dyn SeatView) -> Context<'a> {
        let me = view.seat();
        let hand = view.hand();
        let mut holding = [0u8; PIP_VALUES];
        for t in hand.iter() {
            let (lo, hi) = t.faces();
            holding[lo as usize] += 1;
            if hi != lo {
                holding[hi as usize] += 1;
            }
        }
        let others = (0..view.seats()).map(Seat).filter(|&s| s != me);
        let (partners, opponents) = others.partition(|&s| view.partners(s, me));
        let cat = view.rules().catalog();
        let mut outside = [0u8; PIP_VALUES];
        for t in cat.all().minus(view.played()).minus(hand).iter() {
            let (lo, hi) = t.faces();
            outside[lo as usize] += 1;
            if hi != lo {
                outside[hi as usize] += 1;
            }
        }
        // The deal's values (drawn per deal under the random rules).
        let values = || cat.all().iter().map(|t| view.tile_value(t));
        let min_value = values().min().unwrap_or(0).min(0) as f64;
        let max_value = (values().max().unwrap_or(1) as f64).max(min_value + 1.0);
        Context {
            view,
            me,
            hand,
            facts: PublicFacts::of(view),
            holding,
            partners,
            opponents,
            min_value,
            max_value,
            full_hand: view.rules().hand_size(view.seats()) as usize,
            next: view.next_seat(me),
            outside,
        }
    }

    /// The tile's value in this deal ([`SeatView::tile_value`]) scaled to
    /// `0..=1` over the deal's values.
    pub fn value_norm(&self, t: Tile) -> f64 {
        (self.view.tile_value(t) as f64 - self.min_value) / (self.max_value - self.min_value)
    }

    /// Whether the hand is still near its dealt size.
    pub fn early(&self) -> bool {
        self.hand.len() + 1 >= self.full_hand
    }

    /// The fewest tiles any of `seats` holds (`usize::MAX` for none).
    pub fn fewest_tiles(&self, seats: &[Seat]) -> usize {
        seats.iter().map(|&s| self.view.hand_len(s)).min().unwrap_or(usize::MAX)
    }
}

/// What a play does to the table and the hand.
#[derive(Clone, Copy, Debug)]
pub struct PlayFeatures {
    /// The tile.
    pub tile: Tile,
    /// Whether it is a double.
    pub double: bool,
    /// The pip it covers (`None` for a lead).
    pub covered: Option<u8>,
    /// The pips it leaves showing (bit mask): the far face, both faces for a lead.
    pub exposed: u32,
    /// The seat that last played the covered end.
    pub covers_play_of: Option<Seat>,
    /// The open pips after the play (bit mask).
    pub open_after: u32,
}

/// The features of a play, `None` for a draw or pass.
pub fn play_features(view: &dyn SeatView, m: Move) -> Option<PlayFeatures> {
    let Move::Play { tile, end, face } = m else { return None };
    let (lo, hi) = tile.faces();
    let ends = view.ends();
    if end == EndId::LEAD || ends.is_empty() {
        let exposed = (1u32 << lo) | (1u32 << hi);
        return Some(PlayFeatures {
            tile,
            double: lo == hi,
            covered: None,
            exposed,
            covers_play_of: None,
            open_after: exposed,
        });
    }
    let e = ends.get(end.0 as usize)?;
    let far = if face == 0 { hi } else { lo };
    let others =
        ends.iter().enumerate().filter(|&(i, _)| i != end.0 as usize).fold(0u32, |m, (_, e)| m | (1u32 << e.pip));
    Some(PlayFeatures {
        tile,
        double: lo == hi,
        covered: Some(e.pip),
        exposed: 1 << far,
        covers_play_of: e.last,
        open_after: others | (1 << far),
    })
}

/// Scores a play for a rule-of-thumb strategy: higher is better.
pub trait Scorer: Send {
    /// The strategy's name.
    fn name(&self) -> &'static str;
    /// The play's score in the decision's context.
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64;
}

/// The legal move with the highest score, ties broken at random. Draws and
/// passes come only when no play is legal.
pub fn pick_best(view: &dyn SeatView, rng: &mut BotRng, score: impl Fn(&[PlayFeatures]) -> Vec<f64>) -> Move {
    let mut moves = MoveList::new();
    view.legal_moves(&mut moves);
    let plays: Vec<(Move, PlayFeatures)> =
        moves.iter().filter_map(|&m| play_features(view, m).map(|f| (m, f))).collect();
    if plays.is_empty() {
        return moves.first().copied().unwrap_or(Move::Pass);
    }
    let features: Vec<PlayFeatures> = plays.iter().map(|p| p.1).collect();
    let scores = score(&features);
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tied: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] >= best - 1e-9).collect();
    plays[tied[rng.below(tied.len())]].0
}

/// A rule-of-thumb strategy: plays the legal move its scorer rates
/// highest, ties broken at random.
pub struct Scored<S> {
    scorer: S,
    rng: BotRng,
}

impl<S: Scorer> Scored<S> {
    /// The strategy of `scorer`, its ties broken by a stream seeded with `seed`.
    pub fn new(scorer: S, seed: u64) -> Scored<S> {
        Scored { scorer, rng: BotRng::new(seed) }
    }
}

impl<S: Scorer> Strategy for Scored<S> {
    fn name(&self) -> String {
        self.scorer.name().into()
    }
    fn choose(&mut self, view: &dyn SeatView) -> Move {
        let ctx = Context::new(view);
        pick_best(view, &mut self.rng, |plays| plays.iter().map(|p| self.scorer.score(&ctx, p)).collect())
    }
    fn is_quick(&self) -> bool {
        true
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}
