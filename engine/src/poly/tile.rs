//! Tiles with 3, 4 or 6 faces, and the sets they come in.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The most faces a tile has (a hexagon).
pub const MAX_FACES: usize = 6;

/// The highest pip a face may show.
pub const MAX_POLY_PIP: u8 = 9;

/// The most tiles a set may hold (ids are `u16`, and bigger sets are not games).
pub const MAX_POLY_TILES: usize = 1024;

/// A tile with 3, 4 or 6 faces, pips listed clockwise from face 0.
///
/// Two tiles are the same physical tile when one is a rotation of the
/// other; [`PolyTile::canonical`] picks one representative. Serialized as its
/// list of pips.
///
/// ```
/// use capicua_engine::poly::PolyTile;
/// let t = PolyTile::new(&[1, 2, 3]).unwrap();
/// assert_eq!(t.rotated(1).pips(), &[3, 1, 2], "face i moves to side i + 1");
/// assert_eq!(t.rotated(1).canonical(), t);
/// assert_eq!(t.value(), 6);
/// assert_eq!(PolyTile::new(&[4, 4, 4, 4]).unwrap().period(), 1);
/// assert!(PolyTile::new(&[1, 2]).is_none(), "2 faces is a domino, not a poly tile");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(into = "Vec<u8>", try_from = "Vec<u8>")]
pub struct PolyTile {
    faces: u8,
    pips: [u8; MAX_FACES],
}

impl PolyTile {
    /// The tile showing `pips` clockwise; `None` unless there are 3, 4 or 6
    /// faces of at most [`MAX_POLY_PIP`] pips.
    pub fn new(pips: &[u8]) -> Option<PolyTile> {
        if !matches!(pips.len(), 3 | 4 | 6) || pips.iter().any(|&p| p > MAX_POLY_PIP) {
            return None;
        }
        let mut all = [0; MAX_FACES];
        all[..pips.len()].copy_from_slice(pips);
        Some(PolyTile { faces: pips.len() as u8, pips: all })
    }

    /// How many faces (3, 4 or 6).
    pub fn faces(self) -> usize {
        self.faces as usize
    }

    /// The pips of every face, clockwise from face 0.
    pub fn pips(&self) -> &[u8] {
        &self.pips[..self.faces as usize]
    }

    /// The pips of face `i` (taken modulo the number of faces).
    #[inline]
    pub fn face(self, i: usize) -> u8 {
        self.pips[i % self.faces as usize]
    }

    /// The tile's worth when hands are counted: the sum of its pips.
    pub fn value(self) -> i32 {
        self.pips().iter().map(|&p| p as i32).sum()
    }

    /// The tile turned clockwise by `r` steps: face `i` now sits at position
    /// `i + r` (modulo the faces).
    pub fn rotated(self, r: usize) -> PolyTile {
        let n = self.faces as usize;
        let mut out = self;
        for i in 0..n {
            out.pips[(i + r) % n] = self.pips[i];
        }
        out
    }

    /// The number of distinct rotations: the smallest `p > 0` with
    /// `rotated(p) == self` (1 for a tile with equal faces).
    pub fn period(self) -> usize {
        let n = self.faces as usize;
        (1..=n).find(|&p| n.is_multiple_of(p) && self.rotated(p) == self).unwrap_or(n)
    }

    /// The representative of the tile's rotations: the lexicographically
    /// smallest pip list.
    pub fn canonical(self) -> PolyTile {
        (0..self.faces as usize).map(|r| self.rotated(r)).min().unwrap_or(self)
    }
}

impl fmt::Display for PolyTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<")?;
        for (i, p) in self.pips().iter().enumerate() {
            if i > 0 {
                write!(f, "|")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ">")
    }
}

impl fmt::Debug for PolyTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<PolyTile> for Vec<u8> {
    fn from(t: PolyTile) -> Vec<u8> {
        t.pips().to_vec()
    }
}

impl TryFrom<Vec<u8>> for PolyTile {
    type Error = String;
    fn try_from(v: Vec<u8>) -> Result<PolyTile, String> {
        PolyTile::new(&v).ok_or_else(|| format!("a tile is 3, 4 or 6 faces of 0..={MAX_POLY_PIP} pips, not {v:?}"))
    }
}

/// A tile's index in its set ([`PolyTileSet`]): what hands and moves hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct PolyTileId(pub u16);

/// Which tiles make up a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SetRule {
    /// One tile per multiset of pips, its faces non-decreasing clockwise
    /// (the commercial Tri-Ominos set: 56 triangles for pips 0..=5).
    #[default]
    Ascending,
    /// Every distinct tuple of pips up to rotation (76 triangles for pips
    /// 0..=5: `<0|1|2>` and `<0|2|1>` are mirror images, both included).
    All,
}

/// The tiles of a set, in a fixed order (canonical pips, ascending): a
/// [`PolyTileId`] is an index here.
///
/// ```
/// use capicua_engine::poly::{PolyTileSet, SetRule};
/// assert_eq!(PolyTileSet::new(3, 5, SetRule::Ascending).len(), 56);
/// assert_eq!(PolyTileSet::new(3, 5, SetRule::All).len(), 76);
/// assert_eq!(PolyTileSet::new(4, 2, SetRule::All).len(), 24);
/// assert_eq!(PolyTileSet::new(6, 1, SetRule::All).len(), 14);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyTileSet {
    tiles: Vec<PolyTile>,
    periods: Vec<u8>,
}

impl PolyTileSet {
    /// Every tile of `faces` faces with pips `0..=max_pip` under `rule`.
    /// Counts beyond [`MAX_POLY_TILES`] are the caller's to refuse (see
    /// [`PolyTileSet::count`]).
    pub fn new(faces: usize, max_pip: u8, rule: SetRule) -> PolyTileSet {
        let mut tiles = Vec::new();
        let base = max_pip as usize + 1;
        if matches!(faces, 3 | 4 | 6)
            && max_pip <= MAX_POLY_PIP
            && PolyTileSet::count(faces, max_pip, rule) <= MAX_POLY_TILES
        {
            let mut digits = [0u8; MAX_FACES];
            for _ in 0..base.pow(faces as u32) {
                let t = PolyTile::new(&digits[..faces]).expect("valid digits");
                let keep = match rule {
                    SetRule::Ascending => t.pips().windows(2).all(|w| w[0] <= w[1]),
                    SetRule::All => t.canonical() == t,
                };
                if keep {
                    tiles.push(t);
                }
                // Next tuple, last digit fastest: ascending order.
                for d in digits[..faces].iter_mut().rev() {
                    *d += 1;
                    if (*d as usize) < base {
                        break;
                    }
                    *d = 0;
                }
            }
        }
        let periods = tiles.iter().map(|t| t.period() as u8).collect();
        PolyTileSet { tiles, periods }
    }

    /// How many tiles [`PolyTileSet::new`] would make, without making them
    /// (Burnside's count for `All`, multisets for `Ascending`).
    pub fn count(faces: usize, max_pip: u8, rule: SetRule) -> usize {
        let k = max_pip as u128 + 1;
        let n = faces as u128;
        let total = match rule {
            // Multisets of `faces` values from `k`: C(k + n - 1, n).
            SetRule::Ascending => (0..n).fold(1u128, |acc, i| acc * (k + i) / (i + 1)),
            // Burnside over the rotation group: (1/n) sum over r of k^gcd(r, n).
            SetRule::All => (0..n).map(|r| k.pow(gcd(r, n) as u32)).sum::<u128>() / n,
        };
        total.min(usize::MAX as u128) as usize
    }

    /// How many tiles.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether the set is empty (never, for a validated variant).
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The tile of an id, if the id is in the set.
    pub fn get(&self, id: PolyTileId) -> Option<PolyTile> {
        self.tiles.get(id.0 as usize).copied()
    }

    /// The tile of an id of this set (the engine's ids come from the set).
    #[inline]
    pub(crate) fn tile(&self, id: PolyTileId) -> PolyTile {
        self.tiles[id.0 as usize]
    }

    /// The distinct rotations of a tile of this set (0 for an id beyond it).
    #[inline]
    pub fn period(&self, id: PolyTileId) -> usize {
        self.periods.get(id.0 as usize).map_or(0, |&p| p as usize)
    }

    /// The id of a tile, given in any rotation.
    pub fn id_of(&self, tile: PolyTile) -> Option<PolyTileId> {
        (0..tile.faces())
            .map(|r| tile.rotated(r))
            .find_map(|t| self.tiles.binary_search(&t).ok())
            .map(|i| PolyTileId(i as u16))
    }

    /// Every tile, by id.
    pub fn tiles(&self) -> &[PolyTile] {
        &self.tiles
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_enumeration() {
        for faces in [3, 4, 6] {
            for max in 0..=3u8 {
                for rule in [SetRule::All, SetRule::Ascending] {
                    let set = PolyTileSet::new(faces, max, rule);
                    assert_eq!(set.len(), PolyTileSet::count(faces, max, rule), "{faces} {max} {rule:?}");
                }
            }
        }
        // Tri-Ominos: C(8, 3) = 56; quads 0..=3 all: (256 + 16 + 2 * 4) / 4 = 70.
        assert_eq!(PolyTileSet::count(3, 5, SetRule::Ascending), 56);
        assert_eq!(PolyTileSet::count(4, 3, SetRule::All), 70);
    }

    #[test]
    fn every_tile_is_distinct_up_to_rotation_and_found_by_any_rotation() {
        let set = PolyTileSet::new(4, 3, SetRule::All);
        let mut seen = std::collections::BTreeSet::new();
        for (i, &t) in set.tiles().iter().enumerate() {
            assert!(seen.insert(t.canonical()), "{t} twice");
            for r in 0..4 {
                assert_eq!(set.id_of(t.rotated(r)), Some(PolyTileId(i as u16)));
            }
        }
        let tri = PolyTileSet::new(3, 5, SetRule::Ascending);
        assert_eq!(tri.id_of(PolyTile::new(&[0, 2, 1]).unwrap()), None, "mirror image not in Tri-Ominos");
    }

    #[test]
    fn periods() {
        assert_eq!(PolyTile::new(&[1, 2, 1, 2]).unwrap().period(), 2);
        assert_eq!(PolyTile::new(&[1, 2, 3, 1, 2, 3]).unwrap().period(), 3);
        assert_eq!(PolyTile::new(&[1, 1, 2]).unwrap().period(), 3);
        assert_eq!(PolyTile::new(&[0, 0, 0, 0, 0, 0]).unwrap().period(), 1);
    }

    #[test]
    fn serde_is_the_pip_list() {
        let t = PolyTile::new(&[5, 0, 2]).unwrap();
        assert_eq!(serde_json::to_string(&t).unwrap(), "[5,0,2]");
        assert_eq!(serde_json::from_str::<PolyTile>("[5,0,2]").unwrap(), t);
        assert!(serde_json::from_str::<PolyTile>("[5,0]").is_err());
        assert!(serde_json::from_str::<PolyTile>("[5,0,10]").is_err());
    }
}
