//! Tiles, sets of tiles as bitsets, and the catalog of a tile set.
//!
//! A [`Tile`] is a small id into a [`TileCatalog`]; the catalog knows each
//! tile's faces, value and the per-pip masks the move generator uses. Hands,
//! stocks and "tiles a seat is known to lack" are all [`TileSet`]s: 256-bit
//! bitsets, so the hot operations (which of my tiles fit this end?) are a
//! handful of word-wise ANDs and never allocate.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The most tiles a catalog may hold (the width of a [`TileSet`]).
pub const MAX_TILES: usize = 256;
/// The highest pip a face may show (double-18 is the largest set).
pub const MAX_PIP: u8 = 18;
/// Number of distinct pip values (`0..=MAX_PIP`).
pub const PIP_VALUES: usize = MAX_PIP as usize + 1;

/// A tile, identified by its index in the game's [`TileCatalog`].
///
/// In a double-N set the ids are ordered by high face then low face, so
/// `[0|0]=0, [0|1]=1, [1|1]=2, [0|2]=3, ...`: every double-N set is a prefix
/// of the double-(N+1) set and a tile keeps its id across set sizes.
///
/// ```
/// use capicua_engine::Tile;
/// let t = Tile::domino(6, 4);
/// assert_eq!(t, Tile::domino(4, 6));
/// assert_eq!(t.faces(), (4, 6));
/// assert_eq!(t.to_string(), "[4|6]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tile(pub u8);

impl Tile {
    /// The domino with faces `a` and `b` (in either order).
    ///
    /// # Panics
    /// If a face is above [`MAX_PIP`].
    pub const fn domino(a: u8, b: u8) -> Tile {
        assert!(a <= MAX_PIP && b <= MAX_PIP, "pip above MAX_PIP");
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        Tile((hi as u16 * (hi as u16 + 1) / 2 + lo as u16) as u8)
    }

    /// The index of this tile in its catalog.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The two faces `(low, high)` of a domino id (a table lookup).
    #[inline]
    pub const fn faces(self) -> (u8, u8) {
        let f = FACES[self.0 as usize];
        (f[0], f[1])
    }

    /// Whether both faces of this domino are equal.
    pub const fn is_double(self) -> bool {
        let (lo, hi) = self.faces();
        lo == hi
    }
}

/// `FACES[id]`: the `[low, high]` faces of every domino id, built at compile time.
const FACES: [[u8; 2]; MAX_TILES] = {
    let mut t = [[u8::MAX; 2]; MAX_TILES];
    let mut hi = 0u8;
    let mut id = 0usize;
    while hi <= MAX_PIP {
        let mut lo = 0u8;
        while lo <= hi {
            t[id] = [lo, hi];
            id += 1;
            lo += 1;
        }
        hi += 1;
    }
    t
};

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.faces();
        write!(f, "[{lo}|{hi}]")
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Tiles serialize as their two faces, `[4, 6]`, so JSON and variant files
/// stay readable and do not depend on id order.
impl Serialize for Tile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (lo, hi) = self.faces();
        [lo, hi].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Tile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [a, b] = <[u8; 2]>::deserialize(d)?;
        if a > MAX_PIP || b > MAX_PIP {
            return Err(serde::de::Error::custom(format_args!("tile [{a}|{b}] has a face above {MAX_PIP}")));
        }
        Ok(Tile::domino(a, b))
    }
}

/// The schema of what [`Tile`]'s `Serialize` writes: its two faces.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Tile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A tile as its two faces, low face first: `[4, 6]`.",
            "type": "array",
            "items": { "type": "integer", "minimum": 0, "maximum": MAX_PIP },
            "minItems": 2,
            "maxItems": 2
        })
    }
}

/// A set of tiles: a 256-bit bitset indexed by [`Tile`] id.
///
/// ```
/// use capicua_engine::{Tile, TileSet};
/// let mut hand = TileSet::EMPTY;
/// hand.insert(Tile::domino(6, 6));
/// hand.insert(Tile::domino(0, 3));
/// assert_eq!(hand.len(), 2);
/// assert!(hand.contains(Tile::domino(3, 0)));
/// assert_eq!(hand.iter().collect::<Vec<_>>(), vec![Tile::domino(0, 3), Tile::domino(6, 6)]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TileSet(pub [u64; 4]);

impl TileSet {
    /// The empty set.
    pub const EMPTY: TileSet = TileSet([0; 4]);

    /// The set of the first `n` tile ids.
    pub fn first(n: usize) -> TileSet {
        let mut s = TileSet::EMPTY;
        for (w, word) in s.0.iter_mut().enumerate() {
            let lo = w * 64;
            if n >= lo + 64 {
                *word = u64::MAX;
            } else if n > lo {
                *word = (1u64 << (n - lo)) - 1;
            }
        }
        s
    }

    /// Whether `t` is in the set.
    #[inline]
    pub const fn contains(&self, t: Tile) -> bool {
        self.0[(t.0 >> 6) as usize] & (1u64 << (t.0 & 63)) != 0
    }

    /// Adds `t`.
    #[inline]
    pub fn insert(&mut self, t: Tile) {
        self.0[(t.0 >> 6) as usize] |= 1u64 << (t.0 & 63);
    }

    /// Removes `t`.
    #[inline]
    pub fn remove(&mut self, t: Tile) {
        self.0[(t.0 >> 6) as usize] &= !(1u64 << (t.0 & 63));
    }

    /// Number of tiles in the set.
    #[inline]
    pub const fn len(&self) -> usize {
        (self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones() + self.0[3].count_ones()) as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Tiles in both sets.
    #[inline]
    #[must_use]
    pub const fn and(self, o: TileSet) -> TileSet {
        TileSet([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2], self.0[3] & o.0[3]])
    }

    /// Tiles in either set.
    #[inline]
    #[must_use]
    pub const fn or(self, o: TileSet) -> TileSet {
        TileSet([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2], self.0[3] | o.0[3]])
    }

    /// Tiles in `self` but not in `o`.
    #[inline]
    #[must_use]
    pub const fn minus(self, o: TileSet) -> TileSet {
        TileSet([self.0[0] & !o.0[0], self.0[1] & !o.0[1], self.0[2] & !o.0[2], self.0[3] & !o.0[3]])
    }

    /// The tile with the lowest id, if any.
    #[inline]
    pub fn first_tile(&self) -> Option<Tile> {
        for (w, &word) in self.0.iter().enumerate() {
            if word != 0 {
                return Some(Tile((w * 64 + word.trailing_zeros() as usize) as u8));
            }
        }
        None
    }

    /// The tiles in id order. Does not allocate.
    #[inline]
    pub fn iter(&self) -> TileSetIter {
        TileSetIter { words: self.0, w: 0 }
    }

    /// Whether the two sets share a tile.
    #[inline]
    pub const fn intersects(&self, o: &TileSet) -> bool {
        ((self.0[0] & o.0[0]) | (self.0[1] & o.0[1]) | (self.0[2] & o.0[2]) | (self.0[3] & o.0[3])) != 0
    }
}

impl fmt::Debug for TileSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<Tile> for TileSet {
    fn from_iter<I: IntoIterator<Item = Tile>>(iter: I) -> Self {
        let mut s = TileSet::EMPTY;
        for t in iter {
            s.insert(t);
        }
        s
    }
}

impl IntoIterator for &TileSet {
    type Item = Tile;
    type IntoIter = TileSetIter;
    fn into_iter(self) -> TileSetIter {
        self.iter()
    }
}

/// Serialized as the list of its tiles.
impl Serialize for TileSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for TileSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Tile>::deserialize(d)?.into_iter().collect())
    }
}

/// The schema of what [`TileSet`]'s `Serialize` writes: its tiles, lowest id
/// first.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for TileSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TileSet".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A set of tiles, as the list of its tiles.",
            "type": "array",
            "items": generator.subschema_for::<Tile>(),
            "uniqueItems": true,
            "maxItems": MAX_TILES
        })
    }
}

/// Iterator over a [`TileSet`], lowest id first.
#[derive(Clone)]
pub struct TileSetIter {
    words: [u64; 4],
    w: usize,
}

impl Iterator for TileSetIter {
    type Item = Tile;
    #[inline]
    fn next(&mut self) -> Option<Tile> {
        while self.w < 4 {
            let word = self.words[self.w];
            if word != 0 {
                self.words[self.w] = word & (word - 1);
                return Some(Tile((self.w * 64 + word.trailing_zeros() as usize) as u8));
            }
            self.w += 1;
        }
        None
    }
}

/// Everything the engine precomputes about the tiles of a variant.
#[derive(Clone, Debug)]
pub struct TileCatalog {
    max_pip: u8,
    len: usize,
    all: TileSet,
    doubles: TileSet,
    /// `suits[p]`: the tiles with at least one face equal to `p`.
    suits: [TileSet; PIP_VALUES],
    /// Value of each tile for scoring (pip sum unless the variant says otherwise).
    values: Vec<i32>,
    /// For a catalog of at most 32 tiles (double-six and smaller):
    /// `byte_values[i][b]` is the total value of the tiles whose bits are
    /// set in `b` at byte `i` of a set's first word, so a hand is counted in
    /// four lookups, with no loop whose end depends on the hand.
    byte_values: Option<ByteValues>,
}

/// The byte tables of [`TileCatalog::value_of`]: derived from the values,
/// so their 1024 entries are left out of `Debug`.
#[derive(Clone)]
struct ByteValues(Box<[[i32; 256]; 4]>);

impl fmt::Debug for ByteValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ByteValues(..)")
    }
}

impl TileCatalog {
    /// The double-`max_pip` set, valued by `value`.
    pub(crate) fn double_n(max_pip: u8, value: impl Fn(Tile) -> i32) -> TileCatalog {
        let len = (max_pip as usize + 1) * (max_pip as usize + 2) / 2;
        let all = TileSet::first(len);
        let mut suits = [TileSet::EMPTY; PIP_VALUES];
        let mut doubles = TileSet::EMPTY;
        let mut values = Vec::with_capacity(len);
        for t in all.iter() {
            let (lo, hi) = t.faces();
            suits[lo as usize].insert(t);
            suits[hi as usize].insert(t);
            if lo == hi {
                doubles.insert(t);
            }
            values.push(value(t));
        }
        let byte_values = (len <= 32).then(|| {
            ByteValues(Box::new(std::array::from_fn(|i| {
                std::array::from_fn(|b| {
                    (0..8).filter(|k| b >> k & 1 == 1).map(|k| values.get(8 * i + k).copied().unwrap_or(0)).sum()
                })
            })))
        });
        TileCatalog { max_pip, len, all, doubles, suits, values, byte_values }
    }

    /// How many 64-bit words of a [`TileSet`] this catalog uses (1 for
    /// double-six and double-nine): iteration can stop there.
    #[inline]
    pub fn words(&self) -> usize {
        self.len.div_ceil(64)
    }
    /// The highest pip of the set.
    pub fn max_pip(&self) -> u8 {
        self.max_pip
    }
    /// Number of tiles in the set.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the set is empty (never, for a validated variant).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Every tile of the set.
    pub fn all(&self) -> TileSet {
        self.all
    }
    /// The doubles of the set.
    pub fn doubles(&self) -> TileSet {
        self.doubles
    }
    /// The tiles showing pip `p` on some face.
    #[inline]
    pub fn suit(&self, p: u8) -> TileSet {
        self.suits[p as usize]
    }
    /// The scoring value of `t`.
    #[inline]
    pub fn value(&self, t: Tile) -> i32 {
        self.values[t.index()]
    }
    /// The total value of a set of tiles.
    #[inline]
    pub fn value_of(&self, s: TileSet) -> i32 {
        if let Some(ByteValues(rows)) = &self.byte_values {
            let w = s.0[0];
            return rows.iter().enumerate().map(|(i, row)| row[(w >> (8 * i)) as u8 as usize]).sum();
        }
        s.iter().map(|t| self.values[t.index()]).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domino_ids_round_trip() {
        let mut id = 0u8;
        for hi in 0..=MAX_PIP {
            for lo in 0..=hi {
                let t = Tile::domino(hi, lo);
                assert_eq!(t.0, id, "[{lo}|{hi}]");
                assert_eq!(t.faces(), (lo, hi));
                id += 1;
            }
        }
        assert_eq!(id as usize, 190);
    }

    #[test]
    fn catalog_counts_match_the_published_sizes() {
        for (n, tiles, pips) in [(6u8, 28usize, 168i32), (9, 55, 495), (12, 91, 1092)] {
            let c = TileCatalog::double_n(n, |t| {
                let (a, b) = t.faces();
                (a + b) as i32
            });
            assert_eq!(c.len(), tiles);
            assert_eq!(c.value_of(c.all()), pips);
            // Counted by byte tables up to 32 tiles: the same as tile by tile.
            let odd: TileSet = c.all().iter().filter(|t| t.0 % 3 != 1).collect();
            assert_eq!(c.value_of(odd), odd.iter().map(|t| c.value(t)).sum::<i32>());
            assert_eq!(c.doubles().len(), n as usize + 1);
            for p in 0..=n {
                assert_eq!(c.suit(p).len(), n as usize + 1, "suit {p}");
            }
        }
    }

    #[test]
    fn set_operations() {
        let a: TileSet = [Tile(1), Tile(70), Tile(200)].into_iter().collect();
        let b: TileSet = [Tile(70), Tile(3)].into_iter().collect();
        assert_eq!(a.and(b).iter().collect::<Vec<_>>(), vec![Tile(70)]);
        assert_eq!(a.or(b).len(), 4);
        assert_eq!(a.minus(b).len(), 2);
        assert_eq!(a.first_tile(), Some(Tile(1)));
        assert_eq!(TileSet::first(190).len(), 190);
        assert_eq!(TileSet::first(64).len(), 64);
    }
}
