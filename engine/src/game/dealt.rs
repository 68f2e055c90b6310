//! What is fixed when a hand is dealt besides the hands: per-deal tile
//! values (random tile-value rules) and the tiles shown to everyone
//! (partial visibility).

use arrayvec::ArrayVec;

use super::Game;
use super::ext::Ext;
use crate::error::SetupError;
use crate::rng::{GameRng, Purpose};
use crate::seating::Seat;
use crate::tile::{MAX_TILES, PIP_VALUES, Tile, TileSet};
use crate::variant::{HandVisibility, TileValue};

impl Game {
    /// Per-hand state of the extra rules, once the hand is dealt: tile
    /// values, shown tiles, and the conditions as they stand.
    pub(super) fn hand_extras(&mut self) {
        let v = self.base.variant();
        let (value, hands_rule) = (v.tiles.value, v.visibility.hands);
        let len = self.base.catalog().len();
        if value.is_random() {
            let mut rng = GameRng::for_purpose(self.seed, Purpose::Values { hand: self.hand_no });
            let mut values = self.ext_mut_dealt().values.take().unwrap_or_else(|| vec![0; len].into_boxed_slice());
            match value {
                TileValue::RandomFaces { lo, hi } => {
                    let worth: ArrayVec<i32, PIP_VALUES> =
                        (0..=self.base.catalog().max_pip()).map(|_| rng.between(lo, hi)).collect();
                    for (id, v) in values.iter_mut().enumerate() {
                        let (a, b) = Tile(id as u8).faces();
                        *v = worth[a as usize] + worth[b as usize];
                    }
                }
                _ => {
                    const FORMULAS: [TileValue; 4] =
                        [TileValue::PipSum, TileValue::Difference, TileValue::LargestFace, TileValue::DoublesDouble];
                    for (id, v) in values.iter_mut().enumerate() {
                        *v = FORMULAS[rng.below(4) as usize].of(Tile(id as u8));
                    }
                }
            }
            self.ext_mut_dealt().values = Some(values);
        }
        if let HandVisibility::Shown { tiles } = hands_rule {
            let mut rng = GameRng::for_purpose(self.seed, Purpose::Shown { hand: self.hand_no });
            for s in 0..self.table.seats() as usize {
                let mut held: ArrayVec<Tile, MAX_TILES> = self.hands[s].iter().collect();
                rng.shuffle(&mut held);
                let shown = held.iter().take(tiles as usize).copied().collect();
                self.ext_mut_dealt().shown[s] = shown;
            }
        }
        if self.hot.conditional {
            self.update_conditions();
        }
    }

    fn ext_mut_dealt(&mut self) -> &mut Ext {
        self.ext.as_mut().expect("extra rules have their state")
    }

    /// The value of a tile in this deal: the variant's tile value, drawn
    /// per deal for the random rules (public once the deal is made).
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating, Tile, TileValue, preset};
    /// let mut v = preset("block").unwrap();
    /// v.tiles.value = TileValue::RandomFaces { lo: -2, hi: 2 };
    /// let g = Game::new(v.validate().unwrap().into(), Seating::new(2), 4).unwrap();
    /// let t = Tile::domino(1, 2);
    /// let (one, two) = (g.tile_value(Tile::domino(1, 1)) / 2, g.tile_value(Tile::domino(2, 2)) / 2);
    /// assert_eq!(g.tile_value(t), one + two);
    /// assert!((-4..=4).contains(&g.tile_value(t)));
    /// ```
    pub fn tile_value(&self, t: Tile) -> i32 {
        match self.ext.as_ref().and_then(|e| e.values.as_ref()) {
            Some(values) => values[t.index()],
            None => self.base.catalog().value(t),
        }
    }

    /// Replaces this deal's tile values with `values` (by tile id), for a
    /// position built by [`Game::from_setup`] that must value tiles as a
    /// real deal did: a search bot copies the public values of the game it
    /// samples ([`crate::View::tile_values`]), which its own seed would not
    /// draw. Refused unless the variant draws values per deal and `values`
    /// has one entry per tile of the set.
    ///
    /// ```
    /// use capicua_engine::{Game, Rules, Seating, Tile, TileValue, preset};
    /// let mut v = preset("block").unwrap();
    /// v.tiles.value = TileValue::RandomFaces { lo: -2, hi: 2 };
    /// let rules: std::sync::Arc<Rules> = v.validate().unwrap().into();
    /// let real = Game::new(rules.clone(), Seating::new(2), 4).unwrap();
    /// let mut copy = Game::new(rules, Seating::new(2), 5).unwrap();
    /// copy.set_tile_values(real.tile_values().unwrap()).unwrap();
    /// assert_eq!(copy.tile_value(Tile::domino(1, 2)), real.tile_value(Tile::domino(1, 2)));
    /// assert!(copy.set_tile_values(&[1, 2]).is_err());
    /// ```
    pub fn set_tile_values(&mut self, values: &[i32]) -> Result<(), SetupError> {
        let len = self.base.catalog().len();
        if !self.base.variant().tiles.value.is_random() {
            return Err(SetupError::Tiles("the variant's tile values are fixed".into()));
        }
        if values.len() != len {
            return Err(SetupError::Tiles(format!("{} tile values for a set of {len}", values.len())));
        }
        self.ext_mut_dealt().values = Some(values.into());
        Ok(())
    }

    /// The per-deal value of every tile by id, for the random tile-value
    /// rules (`None`: the catalog's fixed values apply).
    pub fn tile_values(&self) -> Option<&[i32]> {
        self.ext.as_ref().and_then(|e| e.values.as_deref())
    }

    /// The total value of a set of tiles in this deal.
    pub fn value_of(&self, s: TileSet) -> i32 {
        match self.tile_values() {
            Some(values) => s.iter().map(|t| values[t.index()]).sum(),
            None => self.base.catalog().value_of(s),
        }
    }

    /// The tiles of `seat`'s hand shown to everyone (partial visibility
    /// `shown`): those chosen at the deal that it still holds.
    pub fn shown(&self, seat: Seat) -> TileSet {
        match &self.ext {
            Some(e) => e.shown[seat.index()].and(self.hands[seat.index()]),
            None => TileSet::EMPTY,
        }
    }
}
