//! What one seat (or a spectator) may know.
//!
//! A [`View`] borrows the game and answers only what the variant's
//! visibility rules allow: its own hand, the hands it may see, tile counts,
//! the stock size, the layout and the public history. Bots decide from a
//! view; the server sends [`View::snapshot`]s. Nothing else leaves the engine
//! for a player.

use serde::{Deserialize, Serialize};

use crate::board::OpenEnd;
use crate::game::events::{HandResult, Outcome};
use crate::game::{Game, LeadRequirement};
use crate::history::{Action, Record};
use crate::moves::{Move, MoveList};
use crate::rules::Rules;
use crate::seating::{Seat, Side};
use crate::tile::TileSet;
use crate::variant::HandVisibility;

/// A seat's (or a spectator's) window on a game.
#[derive(Clone, Copy)]
pub struct View<'a> {
    game: &'a Game,
    seat: Option<Seat>,
}

impl Game {
    /// What `seat` may know.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating};
    /// let g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 3).unwrap();
    /// let v = g.view(Seat(1));
    /// assert_eq!(v.hand().len(), 7);
    /// assert_eq!(v.hand_of(Seat(2)), None); // hidden
    /// assert_eq!(v.hand_len(Seat(2)), 7);   // but counted
    /// ```
    #[inline]
    pub fn view(&self, seat: Seat) -> View<'_> {
        View { game: self, seat: Some(seat) }
    }

    /// What a spectator may know: no hands at all.
    pub fn spectator_view(&self) -> View<'_> {
        View { game: self, seat: None }
    }
}

impl<'a> View<'a> {
    /// The viewer, `None` for a spectator.
    pub fn seat(&self) -> Option<Seat> {
        self.seat
    }
    /// The rules.
    pub fn rules(&self) -> &'a Rules {
        self.game.rules()
    }
    /// The side a seat scores for.
    pub fn side_of(&self, s: Seat) -> Side {
        self.game.table().side_of(s)
    }
    /// Number of seats.
    pub fn seats(&self) -> u8 {
        self.game.table().seats()
    }
    /// The resolved seating: every seat's side (public).
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating};
    /// let g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 3).unwrap();
    /// let t = g.view(Seat(0)).table();
    /// assert!(t.same_side(Seat(0), Seat(2)));
    /// assert_eq!(t.teams(), vec![vec![0, 2], vec![1, 3]]);
    /// ```
    pub fn table(&self) -> &'a crate::seating::Table {
        self.game.table()
    }
    /// Whether two seats are on the same side.
    pub fn partners(&self, a: Seat, b: Seat) -> bool {
        self.game.table().same_side(a, b)
    }
    /// The seat after `s` in turn order.
    pub fn next_seat(&self, s: Seat) -> Seat {
        self.game.next_seat(s)
    }

    /// Whether this viewer may see `other`'s hand.
    pub fn sees(&self, other: Seat) -> bool {
        let Some(me) = self.seat else { return false };
        me == other
            || match self.game.rules().variant().visibility.hands {
                HandVisibility::Own | HandVisibility::CountsOnly | HandVisibility::Shown { .. } => false,
                HandVisibility::Partners => self.game.table().same_side(me, other),
                HandVisibility::Open => true,
            }
    }

    /// The viewer's own hand (empty for a spectator).
    pub fn hand(&self) -> TileSet {
        self.seat.map(|s| self.game.hand(s)).unwrap_or_default()
    }
    /// A seat's hand, if this viewer may see it.
    pub fn hand_of(&self, s: Seat) -> Option<TileSet> {
        self.sees(s).then(|| self.game.hand(s))
    }
    /// The tiles of a seat's hand shown to everyone (visibility
    /// `shown`), spectators included; empty under other rules.
    pub fn shown_of(&self, s: Seat) -> TileSet {
        self.game.shown(s)
    }
    /// The tiles of `s`'s hand this viewer knows: all of it if it sees the
    /// hand, else the shown ones.
    pub fn known_of(&self, s: Seat) -> TileSet {
        if self.sees(s) { self.game.hand(s) } else { self.game.shown(s) }
    }
    /// The value of a tile in this deal (public once dealt; drawn per deal
    /// under the random tile-value rules).
    pub fn tile_value(&self, t: crate::tile::Tile) -> i32 {
        self.game.tile_value(t)
    }
    /// The per-deal value of every tile by id, under the random tile-value
    /// rules (`None`: the catalog's values).
    pub fn tile_values(&self) -> Option<&'a [i32]> {
        self.game.tile_values()
    }
    /// The rules in force now (conditional rules may replace some choices).
    pub fn rules_now(&self) -> &'a Rules {
        self.game.rules_now()
    }
    /// The tiles a seat drew this hand, if this viewer may see its hand.
    pub fn drawn_by(&self, s: Seat) -> Option<TileSet> {
        self.sees(s).then(|| self.game.drawn_by(s))
    }
    /// How many tiles a seat holds (public).
    pub fn hand_len(&self, s: Seat) -> usize {
        self.game.hand_len(s)
    }
    /// Tiles in the stock (public).
    pub fn stock_len(&self) -> usize {
        self.game.stock_len()
    }
    /// The open ends.
    pub fn ends(&self) -> &'a [OpenEnd] {
        self.game.board().ends()
    }
    /// The sum of the scored open ends.
    pub fn end_sum(&self) -> u32 {
        self.game.board().end_sum()
    }
    /// The public history of the current hand.
    pub fn history(&self) -> &'a [Record] {
        self.game.history()
    }
    /// The seat to move, `None` once the match is over.
    pub fn to_move(&self) -> Option<Seat> {
        self.game.to_move()
    }
    /// The seat that led this hand.
    pub fn leader(&self) -> Seat {
        self.game.leader()
    }
    /// What the leader must lead (public: it follows from the rules).
    pub fn lead_requirement(&self) -> Option<LeadRequirement> {
        self.game.board().is_empty().then(|| self.game.lead_requirement_now())
    }
    /// Current hand number.
    pub fn hand_number(&self) -> u32 {
        self.game.hand_number()
    }
    /// Match scores by side.
    pub fn scores(&self) -> &'a [i32] {
        self.game.scores()
    }
    /// Points scored during play this hand, by side.
    pub fn play_points(&self) -> &'a [i32] {
        self.game.play_points()
    }
    /// Finished hands of the match.
    pub fn hand_results(&self) -> &'a [HandResult] {
        self.game.hand_results()
    }
    /// The match result, once over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }
    /// The viewer's legal moves (empty unless it is the viewer's turn).
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        match self.seat {
            Some(s) if self.game.to_move() == Some(s) => self.game.legal_moves(),
            _ => MoveList::new(),
        }
    }
    /// Fills `out` with the viewer's legal moves (empty unless it is the
    /// viewer's turn), reusing the caller's list: the allocation-free form
    /// of [`View::legal_moves`] for search loops.
    ///
    /// ```
    /// use capicua_engine::{Game, MoveList, Rules, Seating};
    /// let g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 3).unwrap();
    /// let mut out = MoveList::new();
    /// let me = g.to_move().unwrap();
    /// g.view(me).fill_legal_moves(&mut out);
    /// assert_eq!(out, g.legal_moves());
    /// g.view(g.next_seat(me)).fill_legal_moves(&mut out);
    /// assert!(out.is_empty());
    /// ```
    // Always inlined, like the game's own: a strategy's loop (the arena's
    // `random` seats) otherwise calls it, reloading the position each move.
    #[inline(always)]
    pub fn fill_legal_moves(&self, out: &mut MoveList) {
        match self.seat {
            Some(s) if self.game.to_move() == Some(s) => self.game.fill_legal_moves(out),
            _ => out.clear(),
        }
    }
    /// The tiles played so far this hand.
    pub fn played(&self) -> TileSet {
        self.history()
            .iter()
            .filter_map(|r| match r.action {
                Action::Play { tile, .. } => Some(tile),
                _ => None,
            })
            .collect()
    }
    /// The tiles whose place this viewer does not know: every tile of the
    /// set except those played and those in hands it sees. They lie in the
    /// hidden hands, the stock or out of play.
    pub fn unseen(&self) -> TileSet {
        let mut known = self.played();
        for s in (0..self.seats()).map(Seat) {
            known = known.or(self.known_of(s));
        }
        self.rules().catalog().all().minus(known)
    }

    /// An owned, serializable copy of everything this viewer may know.
    pub fn snapshot(&self) -> ViewSnapshot {
        let seats = (0..self.seats()).map(Seat);
        ViewSnapshot {
            variant: self.rules().variant().name.clone(),
            seat: self.seat,
            hand_number: self.hand_number(),
            leader: self.leader(),
            to_move: self.to_move(),
            lead_requirement: self.lead_requirement(),
            hand: self.seat.map(|_| self.hand()),
            hands: seats.clone().map(|s| self.hand_of(s)).collect(),
            drawn: seats.clone().map(|s| self.drawn_by(s)).collect(),
            hand_sizes: seats.clone().map(|s| self.hand_len(s) as u8).collect(),
            teams: self.table().teams(),
            shown: if matches!(self.rules().variant().visibility.hands, HandVisibility::Shown { .. }) {
                seats.map(|s| self.shown_of(s)).collect()
            } else {
                Vec::new()
            },
            values: self.tile_values().map(<[i32]>::to_vec),
            active_conditions: self.game.active_conditions(),
            stock: self.stock_len(),
            ends: self.ends().to_vec(),
            history: self.history().to_vec(),
            scores: self.scores().to_vec(),
            play_points: self.play_points().to_vec(),
            results: self.hand_results().to_vec(),
            outcome: self.outcome(),
            legal_moves: {
                // Filled in place: a returned MoveList is a 4 KiB copy, more
                // than the rest of a small snapshot (a Python strategy is
                // handed one every move).
                let mut legal = MoveList::new();
                self.fill_legal_moves(&mut legal);
                legal.to_vec()
            },
        }
    }
}

impl Game {
    /// What `seat` (`None`: a spectator) sees of a hand's final position
    /// (from [`Game::take_hand_end`]): its view with every seat's hand face
    /// up (they are public once the hand is over), nobody to move and no
    /// legal moves.
    pub fn revealed_snapshot(&self, seat: Option<Seat>) -> ViewSnapshot {
        let view = match seat {
            Some(s) => self.view(s),
            None => self.spectator_view(),
        };
        let mut snap = view.snapshot();
        snap.hands = (0..self.table().seats()).map(|s| Some(self.hand(Seat(s)))).collect();
        snap.to_move = None;
        snap.legal_moves.clear();
        snap
    }
}

/// Everything one viewer may know, owned and serializable: what the server
/// sends to a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct ViewSnapshot {
    /// The variant's name.
    pub variant: String,
    /// The viewer, `None` for a spectator.
    pub seat: Option<Seat>,
    /// Current hand number.
    pub hand_number: u32,
    /// Who led this hand.
    pub leader: Seat,
    /// Who moves next, `None` once the match is over.
    pub to_move: Option<Seat>,
    /// What the leader must lead, while the table is empty.
    pub lead_requirement: Option<LeadRequirement>,
    /// The viewer's hand.
    pub hand: Option<TileSet>,
    /// Each seat's hand where the viewer may see it.
    pub hands: Vec<Option<TileSet>>,
    /// Each seat's draws this hand where the viewer may see its hand.
    pub drawn: Vec<Option<TileSet>>,
    /// Tiles held by each seat.
    pub hand_sizes: Vec<u8>,
    /// The seats of each team, by side, when seats play in teams (empty
    /// otherwise; absent in snapshots from before teams were sent, where
    /// the variant's team rule applies: see [`ViewSnapshot::table`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Vec<u8>>,
    /// Each seat's tiles shown to everyone (visibility `shown` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shown: Vec<TileSet>,
    /// The value of every tile by id in this deal (random tile values only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<i32>>,
    /// The conditional rules in force (bit `i`: the variant's `when[i]`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active_conditions: u32,
    /// Tiles in the stock.
    pub stock: usize,
    /// The open ends.
    pub ends: Vec<OpenEnd>,
    /// The public history of this hand.
    pub history: Vec<Record>,
    /// Match scores by side.
    pub scores: Vec<i32>,
    /// Points scored during play this hand, by side.
    pub play_points: Vec<i32>,
    /// Finished hands.
    pub results: Vec<HandResult>,
    /// The match result, once over.
    pub outcome: Option<Outcome>,
    /// The viewer's legal moves, when it is to move.
    pub legal_moves: Vec<Move>,
}

impl ViewSnapshot {
    /// The table this snapshot was taken at: its explicit teams, or the
    /// variant's team rule for `rules` when it carries none.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seat, Seating};
    /// let rules = Rules::preset("latin").unwrap();
    /// let seating = Seating::new(4).with_teams(vec![vec![0, 2], vec![1, 3]]);
    /// let g = Game::new(rules.clone().into(), seating, 3).unwrap();
    /// let mut snap = g.view(Seat(1)).snapshot();
    /// assert_eq!(snap.table(&rules).unwrap(), *g.table());
    /// snap.teams.clear(); // an old snapshot: the variant's rule (pairs)
    /// assert!(snap.table(&rules).unwrap().same_side(Seat(1), Seat(3)));
    /// ```
    pub fn table(&self, rules: &Rules) -> Result<crate::seating::Table, crate::error::SeatingError> {
        let mut seating = crate::seating::Seating::new(self.hand_sizes.len() as u8);
        if !self.teams.is_empty() {
            seating = seating.with_teams(self.teams.clone());
        }
        crate::seating::Table::resolve(&seating, &rules.variant().players.teams)
    }
    /// Every tile this snapshot names as held by a seat (own hand, visible
    /// hands, visible draws, shown tiles): what a leak test checks against
    /// visibility.
    pub fn held_tiles(&self) -> TileSet {
        let mut s = self.hand.unwrap_or_default();
        for h in self.hands.iter().chain(self.drawn.iter()).flatten() {
            s = s.or(*h);
        }
        for h in &self.shown {
            s = s.or(*h);
        }
        s
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
