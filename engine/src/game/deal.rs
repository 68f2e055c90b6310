//! Dealing a hand and choosing its leader, from the seed or from an
//! explicit position ([`Setup`]).

use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use super::{Game, LeadRequirement};
use crate::error::SetupError;
use crate::rng::{GameRng, Purpose};
use crate::rules::Rules;
use crate::seating::{MAX_SEATS, Seat, Seating};
use crate::tile::{MAX_TILES, PIP_VALUES, Tile, TileSet};
use crate::variant::{DealMethod, FirstLeader, LaterLeader, LeadTile, Rest};

/// Every tile id in order: the deck before a shuffle.
const IDENTITY_DECK: [Tile; MAX_TILES] = {
    let mut d = [Tile(0); MAX_TILES];
    let mut i = 0;
    while i < MAX_TILES {
        d[i] = Tile(i as u8);
        i += 1;
    }
    d
};

/// The first 32 tile ids in order: the deck of a narrow catalog.
const NARROW_DECK: [Tile; 32] = {
    let mut d = [Tile(0); 32];
    let mut i = 0;
    while i < 32 {
        d[i] = Tile(i as u8);
        i += 1;
    }
    d
};

/// Redeals allowed before a hand is led by the designated seat with any tile.
const MAX_REDEALS: u32 = 1000;

/// An explicit position at the start of a hand: for tests, puzzles and
/// search bots that sample the hidden tiles. Checked by [`Game::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Setup {
    /// The match seed (later hands are dealt from it).
    pub seed: u64,
    /// The hand number, from 0.
    pub hand: u32,
    /// Match scores by side before this hand (empty: all zero).
    #[serde(default)]
    pub scores: Vec<i32>,
    /// Each seat's hand.
    pub hands: Vec<TileSet>,
    /// The stock, the next tile drawn first.
    pub stock: Vec<Tile>,
    /// The seat that leads.
    pub leader: Seat,
}

/// Which rule picks the lead tile in the current hand.
#[derive(Clone, Copy)]
enum LeadTileRule {
    Tile(Tile),
    HighestDouble,
    Seat(LeadTile),
}

impl Game {
    /// A game from an explicit position at the start of a hand.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating, Setup, Tile, TileSet};
    /// let rules = Rules::preset("block").unwrap();
    /// let all: Vec<Tile> = rules.catalog().all().iter().collect();
    /// let setup = Setup {
    ///     seed: 1, hand: 0, scores: vec![],
    ///     hands: vec![all[..7].iter().copied().collect(), all[7..14].iter().copied().collect()],
    ///     stock: vec![], leader: Seat(1),
    /// };
    /// let game = Game::from_setup(rules.into(), Seating::new(2), setup).unwrap();
    /// assert_eq!(game.to_move(), Some(Seat(1)));
    /// ```
    pub fn from_setup(rules: Arc<Rules>, seating: Seating, setup: Setup) -> Result<Game, SetupError> {
        let mut g = Game::empty(rules, seating, setup.seed)?;
        let n = g.table.seats() as usize;
        let all = g.rules.catalog().all();
        if setup.hands.len() != n {
            return Err(SetupError::Tiles(format!("{} hands for {n} seats", setup.hands.len())));
        }
        let mut seen = TileSet::EMPTY;
        for t in setup.hands.iter().flat_map(|h| h.iter()).chain(setup.stock.iter().copied()) {
            if !all.contains(t) {
                return Err(SetupError::Tiles(format!("{t} is not in the set")));
            }
            if seen.contains(t) {
                return Err(SetupError::Tiles(format!("{t} appears twice")));
            }
            seen.insert(t);
        }
        if setup.leader.index() >= n {
            return Err(SetupError::Leader(setup.leader.0));
        }
        if !setup.stock.is_empty() && g.rules.variant().deal.rest == Rest::OutOfPlay {
            return Err(SetupError::Tiles("the variant has no stock".into()));
        }
        g.hand_no = setup.hand;
        for (i, s) in setup.scores.iter().enumerate().take(g.table.sides() as usize) {
            g.scores[i] = *s;
        }
        g.hands[..n].copy_from_slice(&setup.hands);
        g.in_hands = setup.hands.iter().fold(TileSet::EMPTY, |a, h| a.or(*h));
        // The stock is drawn from the back.
        g.stock.extend(setup.stock.iter().rev().copied());
        g.out_of_play = all.minus(seen);
        g.leader = setup.leader;
        g.to_move = setup.leader;
        g.lead_req = g.lead_requirement(setup.leader, g.lead_tile_rule());
        if g.ext.is_some() {
            g.hand_extras();
        }
        Ok(g)
    }

    fn deal(&mut self, attempt: u32) {
        if self.hot.narrow {
            // A narrow catalog's deck fits 32 entries: copying the whole
            // 256-entry deck cost more than shuffling it.
            let mut deck = NARROW_DECK;
            let len = self.rules.catalog().len();
            self.deal_deck(&mut deck[..len], attempt);
        } else {
            let mut deck = IDENTITY_DECK;
            let len = self.rules.catalog().len();
            self.deal_deck(&mut deck[..len], attempt);
        }
    }

    /// Shuffles `deck` (every tile id in order) and deals it.
    #[inline(always)]
    fn deal_deck(&mut self, deck: &mut [Tile], attempt: u32) {
        let n = self.table.seats() as usize;
        let h = self.rules.hand_size(self.table.seats()) as usize;
        let mut rng = GameRng::for_purpose(self.seed, Purpose::Deal { hand: self.hand_no, attempt });
        rng.shuffle(deck);
        if self.rules.variant().deal.method == DealMethod::SameSuit {
            self.gather_suits(deck, n, h, &mut rng);
        }
        let mut dealt = TileSet::EMPTY;
        for s in 0..n {
            let cards = &deck[s * h..(s + 1) * h];
            self.hands[s] = if self.hot.narrow {
                // Every tile of a narrow catalog lives in the first word.
                TileSet([cards.iter().fold(0, |w, t| w | 1 << (t.0 & 63)), 0, 0, 0])
            } else {
                cards.iter().copied().collect()
            };
            dealt = dealt.or(self.hands[s]);
        }
        self.in_hands = dealt;
        self.stock.clear();
        self.out_of_play = TileSet::EMPTY;
        let rest = &deck[n * h..];
        match self.rules.variant().deal.rest {
            // The stock is drawn from the back: reverse so the first tile
            // after the hands is drawn first.
            Rest::Stock => self.stock.extend(rest.iter().rev().copied()),
            Rest::OutOfPlay => self.out_of_play = rest.iter().copied().collect(),
        }
    }

    /// Reorders the shuffled `deck` so that seat `s`'s slice
    /// `s * h .. (s + 1) * h` starts with as many tiles of one pip as it can
    /// hold, the pip drawn among those with the most tiles left.
    fn gather_suits(&self, deck: &mut [Tile], n: usize, h: usize, rng: &mut GameRng) {
        let max_pip = self.rules.catalog().max_pip();
        for s in 0..n {
            let start = s * h;
            let left = &deck[start..];
            let count = |p: u8| left.iter().filter(|t| t.faces().0 == p || t.faces().1 == p).count();
            let best = (0..=max_pip).map(count).max().unwrap_or(0);
            let candidates: ArrayVec<u8, PIP_VALUES> = (0..=max_pip).filter(|&p| count(p) == best).collect();
            let pip = candidates[rng.below(candidates.len() as u32) as usize];
            // Stable partition of the remainder: the pip's tiles first.
            let mut next = start;
            for i in start..deck.len() {
                let (lo, hi) = deck[i].faces();
                if (lo == pip || hi == pip) && next < start + h {
                    deck[next..=i].rotate_right(1);
                    next += 1;
                }
            }
        }
    }

    fn holder_of(&self, t: Tile) -> Option<Seat> {
        (0..self.table.seats()).map(Seat).find(|s| self.hands[s.index()].contains(t))
    }

    fn highest_double_in(&self, set: TileSet) -> Option<Tile> {
        let d = set.and(self.rules.catalog().doubles());
        d.iter().last()
    }

    /// The first-hand rule applies to hand 0 and under `later = "as-first"`.
    fn first_rule_applies(&self) -> bool {
        self.hand_no == 0 || self.rules.variant().lead.later == LaterLeader::AsFirst
    }

    fn lead_tile_rule(&self) -> LeadTileRule {
        let lead = &self.rules.variant().lead;
        match (self.first_rule_applies(), lead.first) {
            (true, FirstLeader::HolderOf(t)) => LeadTileRule::Tile(t),
            (true, FirstLeader::HighestDouble) => LeadTileRule::HighestDouble,
            (true, FirstLeader::RoundDouble) => LeadTileRule::Tile(self.round_double()),
            _ => LeadTileRule::Seat(lead.tile),
        }
    }

    /// What `leader` must lead under `rule`.
    fn lead_requirement(&self, leader: Seat, rule: LeadTileRule) -> LeadRequirement {
        let hand = self.hands[leader.index()];
        match rule {
            LeadTileRule::Tile(t) if hand.contains(t) => LeadRequirement::Tile(t),
            LeadTileRule::Tile(_) | LeadTileRule::HighestDouble | LeadTileRule::Seat(LeadTile::HighestDouble) => {
                match self.highest_double_in(hand) {
                    Some(d) => LeadRequirement::Tile(d),
                    None => LeadRequirement::Any,
                }
            }
            LeadTileRule::Seat(LeadTile::AnyDouble) if !hand.and(self.rules.catalog().doubles()).is_empty() => {
                LeadRequirement::AnyDouble
            }
            LeadTileRule::Seat(_) => LeadRequirement::Any,
        }
    }

    /// Chooses the leader of the freshly dealt hand, or `None` to redeal.
    fn pick_leader(&self) -> Option<(Seat, LeadRequirement)> {
        let v = self.rules.variant();
        let n = self.table.seats();
        let doubles = self.rules.catalog().doubles();
        let rule = self.lead_tile_rule();
        let needs_double = |s: Seat| -> Option<(Seat, LeadRequirement)> {
            // A leader that needs a double yields to the next seat holding one.
            let mut seat = s;
            for _ in 0..n {
                if !self.hands[seat.index()].and(doubles).is_empty() {
                    return Some((seat, self.lead_requirement(seat, rule)));
                }
                seat = self.next_seat(seat);
            }
            None
        };
        let by_tile = |t: Option<Tile>| -> Option<(Seat, LeadRequirement)> {
            let t = t?;
            let s = self.holder_of(t)?;
            Some((s, LeadRequirement::Tile(t)))
        };
        let highest_double = || {
            let dealt = (0..n).fold(TileSet::EMPTY, |a, s| a.or(self.hands[s as usize]));
            by_tile(self.highest_double_in(dealt))
        };
        let designated = if self.first_rule_applies() {
            match v.lead.first {
                FirstLeader::HolderOf(t) => {
                    if let Some(found) = by_tile(Some(t)) {
                        return Some(found);
                    }
                    return highest_double().or_else(|| self.no_double_fallback(Seat(0)));
                }
                FirstLeader::HighestDouble => return highest_double().or_else(|| self.no_double_fallback(Seat(0))),
                // Not dealt: deal again (the round's double must start it).
                FirstLeader::RoundDouble => return by_tile(Some(self.round_double())),
                FirstLeader::Seat(s) => Seat(s),
                FirstLeader::Lot => {
                    Seat(GameRng::for_purpose(self.seed, Purpose::Lot { hand: self.hand_no }).below(n as u32) as u8)
                }
            }
        } else {
            let prev = self.results.last();
            match v.lead.later {
                LaterLeader::Winner => prev.and_then(|r| r.winner_seat).unwrap_or(self.leader),
                LaterLeader::Next => self.next_seat(self.leader),
                LaterLeader::AsFirst => unreachable!("as-first uses the first-hand rule"),
            }
        };
        match v.lead.tile {
            LeadTile::Any => Some((designated, LeadRequirement::Any)),
            LeadTile::AnyDouble | LeadTile::HighestDouble => {
                needs_double(designated).or_else(|| self.no_double_fallback(designated))
            }
        }
    }

    /// The double that leads this hand under [`FirstLeader::RoundDouble`]:
    /// `[N|N]` first, one pip lower each hand, `[N|N]` again after `[0|0]`.
    fn round_double(&self) -> Tile {
        let max = self.rules.catalog().max_pip();
        let p = max - (self.hand_no % (max as u32 + 1)) as u8;
        Tile::domino(p, p)
    }

    /// Nobody holds the double the lead needs: redeal, or let `seat` (the
    /// holder of the heaviest tile, for double-based rules) lead any tile.
    fn no_double_fallback(&self, seat: Seat) -> Option<(Seat, LeadRequirement)> {
        if self.rules.variant().lead.redeal_without_double {
            return None;
        }
        let n = self.table.seats();
        let cat = self.rules.catalog();
        let heaviest = (0..n)
            .flat_map(|s| self.hands[s as usize].iter().map(move |t| (s, t)))
            .max_by_key(|&(_, t)| (cat.value(t), t));
        match (self.first_rule_applies(), self.rules.variant().lead.first, heaviest) {
            (true, FirstLeader::HolderOf(_) | FirstLeader::HighestDouble, Some((s, t))) => {
                Some((Seat(s), LeadRequirement::Tile(t)))
            }
            _ => Some((seat, LeadRequirement::Any)),
        }
    }

    pub(super) fn start_hand(&mut self) {
        if self.ext.is_some() {
            self.reset_rules();
        }
        let mut chosen = None;
        for attempt in 0..MAX_REDEALS {
            self.deal(attempt);
            if let Some(c) = self.pick_leader() {
                chosen = Some(c);
                break;
            }
        }
        let (leader, req) = chosen.unwrap_or((self.leader, LeadRequirement::Any));
        self.leader = leader;
        self.to_move = leader;
        self.lead_req = req;
        self.board.clear();
        self.reversed = false;
        self.turns = 0;
        // Seats beyond the table's never draw: their sets stay empty.
        let n = self.table.seats() as usize;
        self.drawn_by[..n].fill(TileSet::EMPTY);
        self.drawn_this_turn = 0;
        self.last_player = None;
        self.play_points = [0; MAX_SEATS];
        self.history.clear();
        if self.ext.is_some() {
            self.hand_extras();
        }
    }
}
