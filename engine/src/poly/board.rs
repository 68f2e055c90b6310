//! The table of a poly game: the n-dimensional graph board and the three
//! lattices, with the positions a client draws from.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use arrayvec::ArrayVec;

use super::tile::{MAX_FACES, MAX_POLY_PIP, PolyTile, PolyTileId};

/// What a tile on a lattice must agree on with the tiles already placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PolyMatching {
    /// Pips sit on the sides: every side touching a placed tile shows the
    /// pips of that tile's touching side.
    #[default]
    Edges,
    /// Pips sit on the corners (Tri-Ominos, Quad-Ominos): a tile's pips are
    /// its corners clockwise, corner `i` at the clockwise start of side `i`;
    /// every corner on a vertex already on the board shows that vertex's
    /// number, and the tile shares at least one whole side with a placed
    /// tile. Triangle and square lattices only.
    Corners,
}

/// A regular tiling of the plane by cells of one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Lattice {
    /// Triangles pointing up and down (3 faces); cell `(x, y)` points up
    /// when `x + y` is even.
    Triangle,
    /// Squares (4 faces), cell `(x, y)`.
    Square,
    /// Pointy-top hexagons (6 faces), axial cell `(q, r)`.
    Hex,
}

/// Axial offsets of the six hex sides, clockwise from north-east.
const HEX: [(i16, i16); 6] = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)];
/// Offsets of the four square sides, clockwise from the top.
const SQUARE: [(i16, i16); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];

impl Lattice {
    /// The faces of its cells.
    pub fn faces(self) -> usize {
        match self {
            Lattice::Triangle => 3,
            Lattice::Square => 4,
            Lattice::Hex => 6,
        }
    }

    /// Whether triangle cell `(x, y)` points up (apex on top); always
    /// `true` for the other lattices.
    pub fn points_up(self, x: i16, y: i16) -> bool {
        self != Lattice::Triangle || (x as i32 + y as i32).rem_euclid(2) == 0
    }

    /// The cell across side `side` (taken modulo the faces) of cell `(x,
    /// y)`, and the side of that cell which touches it. Coordinates wrap at
    /// the ends of `i16` (no game comes near them).
    ///
    /// ```
    /// use capicua_engine::poly::Lattice;
    /// // An up triangle's bottom touches the top of the down triangle below.
    /// assert_eq!(Lattice::Triangle.neighbour(0, 0, 1), (0, 1, 0));
    /// assert_eq!(Lattice::Square.neighbour(0, 0, 1), (1, 0, 3));
    /// assert_eq!(Lattice::Hex.neighbour(2, 3, 0), (3, 2, 3));
    /// ```
    pub fn neighbour(self, x: i16, y: i16, side: usize) -> (i16, i16, usize) {
        match self {
            Lattice::Square => {
                let (dx, dy) = SQUARE[side % 4];
                (x.wrapping_add(dx), y.wrapping_add(dy), (side + 2) % 4)
            }
            Lattice::Hex => {
                let (dq, dr) = HEX[side % 6];
                (x.wrapping_add(dq), y.wrapping_add(dr), (side + 3) % 6)
            }
            Lattice::Triangle => match (self.points_up(x, y), side % 3) {
                // Up: 0 right, 1 bottom, 2 left.
                (true, 0) => (x.wrapping_add(1), y, 2),
                (true, 1) => (x, y.wrapping_add(1), 0),
                (true, _) => (x.wrapping_sub(1), y, 1),
                // Down: 0 top, 1 right, 2 left.
                (false, 0) => (x, y.wrapping_sub(1), 1),
                (false, 1) => (x.wrapping_add(1), y, 2),
                (false, _) => (x.wrapping_sub(1), y, 0),
            },
        }
    }
}

impl Lattice {
    /// The vertex at corner `i` (taken modulo the faces) of cell `(x, y)`,
    /// corner `i` being the clockwise start of side `i`: squares `(x, y)`
    /// top-left of cell `(x, y)`; triangles `(X, j)` on row line `j` at
    /// `X / 2` across (`X + j` odd); hex corners are not modelled (the
    /// cell itself is returned).
    ///
    /// ```
    /// use capicua_engine::poly::Lattice;
    /// // The bottom side of up triangle (0, 0) is the top side of (0, 1),
    /// // run the other way round.
    /// let t = Lattice::Triangle;
    /// assert_eq!((t.corner(0, 0, 1), t.corner(0, 0, 2)), (t.corner(0, 1, 1), t.corner(0, 1, 0)));
    /// assert_eq!(Lattice::Square.corner(0, 0, 2), Lattice::Square.corner(1, 1, 0));
    /// ```
    pub fn corner(self, x: i16, y: i16, i: usize) -> (i16, i16) {
        let (dx, dy) = match self {
            Lattice::Square => [(0, 0), (1, 0), (1, 1), (0, 1)][i % 4],
            Lattice::Triangle if self.points_up(x, y) => [(1, 0), (2, 1), (0, 1)][i % 3],
            Lattice::Triangle => [(0, 0), (2, 0), (1, 1)][i % 3],
            Lattice::Hex => (0, 0),
        };
        (x.wrapping_add(dx), y.wrapping_add(dy))
    }

    /// The cells round a vertex of [`Lattice::corner`]: six triangles or
    /// four squares (none for a hex lattice).
    pub fn round_vertex(self, vx: i16, vy: i16) -> impl Iterator<Item = (i16, i16)> {
        let (xs, ys): (&[i16], &[i16]) = match self {
            Lattice::Triangle => (&[-2, -1, 0], &[-1, 0]),
            Lattice::Square => (&[-1, 0], &[-1, 0]),
            Lattice::Hex => (&[], &[]),
        };
        ys.iter().flat_map(move |&dy| xs.iter().map(move |&dx| (vx.wrapping_add(dx), vy.wrapping_add(dy))))
    }

    /// The centre of cell `(x, y)` on a screen (`y` growing downwards), for
    /// cells of side 1: squares at `(x, y)`; pointy-top hexagons at
    /// `(sqrt(3) * (q + r / 2), 3/2 * r)`; triangles at their centroid
    /// `((x + 1) / 2, (y + 2/3) * h)` pointing up, `((x + 1) / 2, (y + 1/3) * h)`
    /// pointing down, `h = sqrt(3) / 2` the height of a row.
    ///
    /// ```
    /// use capicua_engine::poly::Lattice;
    /// assert_eq!(Lattice::Square.centre(2, -1), (2.0, -1.0));
    /// let (x, y) = Lattice::Hex.centre(0, 2);
    /// assert!((x - 3f64.sqrt()).abs() < 1e-9 && (y - 3.0).abs() < 1e-9);
    /// ```
    pub fn centre(self, x: i16, y: i16) -> (f64, f64) {
        let (x, y) = (x as f64, y as f64);
        let root3 = 3f64.sqrt();
        match self {
            Lattice::Square => (x, y),
            Lattice::Hex => (root3 * (x + y / 2.0), 1.5 * y),
            Lattice::Triangle => {
                let third = if self.points_up(x as i16, y as i16) { 2.0 / 3.0 } else { 1.0 / 3.0 };
                ((x + 1.0) / 2.0, (y + third) * root3 / 2.0)
            }
        }
    }
}

/// The shape of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BoardKind {
    /// The n-dimensional board: every face of a placed tile is an open
    /// connection; a tile joins one open face by one of its faces with equal
    /// pips, and its other faces open.
    Graph,
    /// Cells of a lattice: a tile goes into an empty cell next to a placed
    /// tile, in any rotation, matching every placed neighbour.
    Lattice(Lattice),
}

/// Where a tile is played (part of a [`PolyMove`](super::PolyMove)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "kind")]
pub enum PolySpot {
    /// The first tile on an empty graph board.
    Root,
    /// Graph board: open face `face` of placed tile `node`.
    Face {
        /// The placed tile (its index in [`PolyBoard::placed`]).
        node: u16,
        /// Its face.
        face: u8,
    },
    /// Lattice board: a cell (the first tile goes to `(0, 0)`).
    Cell {
        /// Column (hex: axial q).
        x: i16,
        /// Row (hex: axial r).
        y: i16,
    },
}

/// A tile on the table, with everything a client needs to draw it.
///
/// Graph board: `at` is [`PolySpot::Root`] or the parent's face the tile
/// joined, and `rotation` is the tile's own face that joined it. Lattice:
/// `at` is the cell and the tile's face `i` lies on side `(i + rotation) %
/// faces` of the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct PlacedTile {
    /// Its node id: the order of placement, from 0.
    pub node: u16,
    /// Which tile of the set.
    pub tile: PolyTileId,
    /// Its pips, as listed in the set.
    pub pips: PolyTile,
    /// Where it was put.
    pub at: PolySpot,
    /// Graph: its joined face; lattice: its clockwise rotation.
    pub rotation: u8,
    /// Graph: bit `i` set while face `i` is open (always 0 on a lattice).
    pub open: u8,
}

impl PlacedTile {
    /// Lattice: the pips on side `side` of its cell.
    pub fn side_pips(&self, side: usize) -> u8 {
        self.pips.rotated(self.rotation as usize).face(side)
    }
}

/// An empty cell next to the placed tiles, with the pips each placed
/// neighbour demands on each of its sides: byte `side` of `need`, where
/// byte `side` of `mask` is `0xFF` (0 where the side touches nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frontier {
    x: i16,
    y: i16,
    need: u64,
    mask: u64,
}

/// A small multiplicative hasher for packed cells (the default SipHash is
/// built for untrusted keys; these are coordinates).
#[derive(Clone, Copy, Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type CellMap = HashMap<u32, u32, BuildHasherDefault<CellHasher>>;

fn key(x: i16, y: i16) -> u32 {
    ((x as u16 as u32) << 16) | y as u16 as u32
}

/// The table: placed tiles, and the places a tile may go next.
///
/// Move generation reads indexes kept up to date by every placement (open
/// faces by pips on the graph board, the frontier of empty cells with their
/// demands on a lattice), so it allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyBoard {
    kind: BoardKind,
    placed: Vec<PlacedTile>,
    /// Graph: the open faces showing each pip value.
    open: Vec<Vec<(u16, u8)>>,
    /// Lattice: placed tile of each occupied cell.
    cells: CellMap,
    /// Lattice: the empty cells next to a placed tile.
    frontier: Vec<Frontier>,
    /// Lattice: index in `frontier` of each frontier cell.
    frontier_at: CellMap,
    /// Whether pips sit on corners (see [`PolyMatching`]).
    corners: bool,
    /// Corners: the number shown at each vertex of a placed tile.
    vertices: CellMap,
}

/// What a placement on corners touches, before it is made (see
/// [`PolyBoard::corner_contact`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CornerContact {
    /// It shares exactly one side with the board and touches it at a
    /// corner off that side.
    pub bridge: bool,
    /// The corners round which it completes the ring of cells.
    pub rings: usize,
}

impl PolyBoard {
    /// An empty board of a kind.
    pub fn new(kind: BoardKind) -> PolyBoard {
        PolyBoard::with_matching(kind, PolyMatching::Edges)
    }

    /// An empty board matching sides or corners (corners only on a
    /// triangle or square lattice; otherwise sides).
    pub fn with_matching(kind: BoardKind, matching: PolyMatching) -> PolyBoard {
        let corners = matching == PolyMatching::Corners
            && matches!(kind, BoardKind::Lattice(Lattice::Triangle | Lattice::Square));
        PolyBoard {
            corners,
            vertices: CellMap::default(),
            kind,
            placed: Vec::new(),
            open: vec![Vec::new(); MAX_POLY_PIP as usize + 1],
            cells: CellMap::default(),
            frontier: Vec::new(),
            frontier_at: CellMap::default(),
        }
    }

    /// Empties the board, keeping its memory.
    pub fn clear(&mut self) {
        self.placed.clear();
        self.open.iter_mut().for_each(Vec::clear);
        self.cells.clear();
        self.frontier.clear();
        self.frontier_at.clear();
        self.vertices.clear();
    }

    /// Its kind.
    pub fn kind(&self) -> BoardKind {
        self.kind
    }

    /// What touching tiles agree on.
    pub fn matching(&self) -> PolyMatching {
        if self.corners { PolyMatching::Corners } else { PolyMatching::Edges }
    }

    /// Corners: the number at a vertex of [`Lattice::corner`], if a placed
    /// tile has a corner there.
    pub fn at_vertex(&self, vx: i16, vy: i16) -> Option<u8> {
        self.vertices.get(&key(vx, vy)).map(|&p| p as u8)
    }

    /// Corners: what placing a tile in empty cell `(x, y)` touches (the
    /// caller has checked it fits).
    pub(crate) fn corner_contact(&self, x: i16, y: i16) -> CornerContact {
        let BoardKind::Lattice(lattice) = self.kind else { return CornerContact::default() };
        if !self.corners {
            return CornerContact::default();
        }
        let n = lattice.faces();
        let corner = |i: usize| lattice.corner(x, y, i);
        let touching: ArrayVec<usize, MAX_FACES> = (0..n)
            .filter(|&s| {
                let (nx, ny, _) = lattice.neighbour(x, y, s);
                self.cells.contains_key(&key(nx, ny))
            })
            .collect();
        let bridge = touching.len() == 1 && {
            let s = touching[0];
            (0..n).filter(|&i| i != s && i != (s + 1) % n).any(|i| {
                let (vx, vy) = corner(i);
                self.vertices.contains_key(&key(vx, vy))
            })
        };
        let ring = if lattice == Lattice::Triangle { 6 } else { 4 };
        let rings = (0..n)
            .filter(|&i| {
                let (vx, vy) = corner(i);
                lattice.round_vertex(vx, vy).filter(|&(cx, cy)| self.cells.contains_key(&key(cx, cy))).count()
                    == ring - 1
            })
            .count();
        CornerContact { bridge, rings }
    }

    /// Every placed tile, by node id (order of placement).
    pub fn placed(&self) -> &[PlacedTile] {
        &self.placed
    }

    /// Whether no tile is placed yet.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// Graph: every open face as `(node, face, pips)`, grouped by pips.
    pub fn open_faces(&self) -> impl Iterator<Item = (u16, u8, u8)> + '_ {
        self.open.iter().enumerate().flat_map(|(p, v)| v.iter().map(move |&(n, f)| (n, f, p as u8)))
    }

    /// Lattice: the placed tile in a cell, if any.
    pub fn at_cell(&self, x: i16, y: i16) -> Option<&PlacedTile> {
        self.cells.get(&key(x, y)).map(|&i| &self.placed[i as usize])
    }

    /// Lattice: the empty cells a tile could go into now (next to a placed
    /// tile), in the board's order.
    pub fn frontier(&self) -> impl Iterator<Item = (i16, i16)> + '_ {
        self.frontier.iter().map(|f| (f.x, f.y))
    }

    /// Whether `tile` (in any rotation) fits somewhere on the board now.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyRules, PolyTile};
    /// let game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 1).unwrap();
    /// assert!(game.board().fits(PolyTile::new(&[0, 1, 2]).unwrap()), "any tile opens the board");
    /// ```
    pub fn fits(&self, tile: PolyTile) -> bool {
        !self.placements(tile, tile.period(), |_, _| false)
    }

    /// The board as it was when its first `n` tiles were placed (all of
    /// them for `n` beyond the count): what a seat saw earlier in the hand.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyGame, PolyMoveList, PolyRules};
    /// let mut game = PolyGame::new(PolyRules::preset("quadominoes").unwrap(), 2, 1).unwrap();
    /// let mut moves = PolyMoveList::default();
    /// game.legal_moves(&mut moves);
    /// game.play(moves[0]).unwrap();
    /// let one = game.board().clone();
    /// game.legal_moves(&mut moves);
    /// game.play(moves[0]).unwrap();
    /// assert_eq!(game.board().prefix(1), one);
    /// assert_eq!(game.board().prefix(9), *game.board());
    /// ```
    pub fn prefix(&self, n: usize) -> PolyBoard {
        let mut b = PolyBoard::with_matching(self.kind, self.matching());
        for p in self.placed.iter().take(n) {
            b.place(p.tile, p.pips, p.at, p.rotation);
        }
        b
    }

    /// Calls `f(spot, rotation)` for every distinct placement of `tile`
    /// (with `period` distinct rotations) until `f` returns `false`; returns
    /// whether it ran to the end.
    #[inline]
    pub(crate) fn placements(&self, tile: PolyTile, period: usize, mut f: impl FnMut(PolySpot, u8) -> bool) -> bool {
        if self.placed.is_empty() {
            let spot = match self.kind {
                BoardKind::Graph => PolySpot::Root,
                BoardKind::Lattice(_) => PolySpot::Cell { x: 0, y: 0 },
            };
            return f(spot, 0);
        }
        match self.kind {
            BoardKind::Graph => {
                for r in 0..period {
                    for &(node, face) in &self.open[tile.face(r) as usize] {
                        if !f(PolySpot::Face { node, face }, r as u8) {
                            return false;
                        }
                    }
                }
            }
            BoardKind::Lattice(_) => {
                let shown = packed_rotations(tile);
                for cell in &self.frontier {
                    for (r, &pips) in shown[..period].iter().enumerate() {
                        if (pips ^ cell.need) & cell.mask == 0 && !f(PolySpot::Cell { x: cell.x, y: cell.y }, r as u8) {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    /// Whether `tile` (with `period` distinct rotations) may go at `at` with
    /// `rotation`: the check [`PolyBoard::placements`] makes, for one move.
    pub(crate) fn allows(&self, tile: PolyTile, period: usize, at: PolySpot, rotation: u8) -> bool {
        let r = rotation as usize;
        if r >= period {
            return false;
        }
        match (self.kind, at) {
            (_, _) if self.placed.is_empty() => {
                r == 0
                    && match self.kind {
                        BoardKind::Graph => at == PolySpot::Root,
                        BoardKind::Lattice(_) => at == PolySpot::Cell { x: 0, y: 0 },
                    }
            }
            (BoardKind::Graph, PolySpot::Face { node, face }) => self.placed.get(node as usize).is_some_and(|p| {
                (face as usize) < p.pips.faces()
                    && p.open & (1 << face) != 0
                    && p.pips.face(face as usize) == tile.face(r)
            }),
            (BoardKind::Lattice(_), PolySpot::Cell { x, y }) => self.frontier_at.get(&key(x, y)).is_some_and(|&i| {
                let cell = &self.frontier[i as usize];
                (packed(tile.rotated(r)) ^ cell.need) & cell.mask == 0
            }),
            _ => false,
        }
    }

    /// Places a tile; the caller has checked [`PolyBoard::allows`].
    pub(crate) fn place(&mut self, id: PolyTileId, tile: PolyTile, at: PolySpot, rotation: u8) {
        let node = self.placed.len() as u16;
        let n = tile.faces();
        let mut placed = PlacedTile { node, tile: id, pips: tile, at, rotation, open: 0 };
        match self.kind {
            BoardKind::Graph => {
                if let PolySpot::Face { node: parent, face } = at {
                    let pip = self.placed[parent as usize].pips.face(face as usize) as usize;
                    let list = &mut self.open[pip];
                    if let Some(i) = list.iter().position(|&e| e == (parent, face)) {
                        list.swap_remove(i);
                    }
                    self.placed[parent as usize].open &= !(1 << face);
                }
                for g in 0..n {
                    if at == PolySpot::Root || g != rotation as usize {
                        placed.open |= 1 << g;
                        self.open[tile.face(g) as usize].push((node, g as u8));
                    }
                }
            }
            BoardKind::Lattice(lattice) => {
                let PolySpot::Cell { x, y } = at else { return };
                if let Some(i) = self.frontier_at.remove(&key(x, y)) {
                    self.frontier.swap_remove(i as usize);
                    if let Some(moved) = self.frontier.get(i as usize) {
                        self.frontier_at.insert(key(moved.x, moved.y), i);
                    }
                }
                self.cells.insert(key(x, y), node as u32);
                let shown = tile.rotated(rotation as usize);
                if self.corners {
                    self.place_corners(lattice, x, y, shown);
                    self.placed.push(placed);
                    return;
                }
                for side in 0..n {
                    let (nx, ny, back) = lattice.neighbour(x, y, side);
                    if self.cells.contains_key(&key(nx, ny)) {
                        continue;
                    }
                    let i = *self.frontier_at.entry(key(nx, ny)).or_insert_with(|| {
                        self.frontier.push(Frontier { x: nx, y: ny, need: 0, mask: 0 });
                        self.frontier.len() as u32 - 1
                    });
                    let cell = &mut self.frontier[i as usize];
                    cell.need |= (shown.face(side) as u64) << (8 * back);
                    cell.mask |= 0xFF << (8 * back);
                }
            }
        }
        self.placed.push(placed);
    }

    /// Corners: records the vertices of a tile just put in cell `(x, y)`
    /// showing `shown` (already turned), opens its empty neighbours and
    /// renews what every frontier cell sharing one of its vertices needs.
    fn place_corners(&mut self, lattice: Lattice, x: i16, y: i16, shown: PolyTile) {
        let n = lattice.faces();
        for i in 0..n {
            let (vx, vy) = lattice.corner(x, y, i);
            self.vertices.insert(key(vx, vy), shown.face(i) as u32);
        }
        for side in 0..n {
            let (nx, ny, _) = lattice.neighbour(x, y, side);
            if !self.cells.contains_key(&key(nx, ny)) && !self.frontier_at.contains_key(&key(nx, ny)) {
                self.frontier.push(Frontier { x: nx, y: ny, need: 0, mask: 0 });
                self.frontier_at.insert(key(nx, ny), self.frontier.len() as u32 - 1);
            }
        }
        for i in 0..n {
            let (vx, vy) = lattice.corner(x, y, i);
            for (cx, cy) in lattice.round_vertex(vx, vy) {
                let Some(&f) = self.frontier_at.get(&key(cx, cy)) else { continue };
                let (mut need, mut mask) = (0u64, 0u64);
                for c in 0..n {
                    let (wx, wy) = lattice.corner(cx, cy, c);
                    if let Some(&p) = self.vertices.get(&key(wx, wy)) {
                        need |= (p as u64) << (8 * c);
                        mask |= 0xFF << (8 * c);
                    }
                }
                let cell = &mut self.frontier[f as usize];
                (cell.need, cell.mask) = (need, mask);
            }
        }
    }
}

/// The pips of a tile by side, byte `side` of a `u64`.
#[inline]
fn packed(tile: PolyTile) -> u64 {
    tile.pips().iter().rev().fold(0, |acc, &p| (acc << 8) | p as u64)
}

/// [`packed`] for every rotation `r` of the tile (faces beyond its count
/// are unused).
#[inline]
fn packed_rotations(tile: PolyTile) -> [u64; MAX_FACES] {
    let mut out = [0; MAX_FACES];
    for (r, slot) in out[..tile.faces()].iter_mut().enumerate() {
        *slot = packed(tile.rotated(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(p: &[u8]) -> PolyTile {
        PolyTile::new(p).unwrap()
    }

    #[test]
    fn neighbours_are_mutual() {
        for lattice in [Lattice::Triangle, Lattice::Square, Lattice::Hex] {
            for x in -3..3 {
                for y in -3..3 {
                    for side in 0..lattice.faces() {
                        let (nx, ny, back) = lattice.neighbour(x, y, side);
                        assert_eq!(lattice.neighbour(nx, ny, back), (x, y, side), "{lattice:?} ({x},{y}) {side}");
                        if lattice == Lattice::Triangle {
                            assert_ne!(lattice.points_up(x, y), lattice.points_up(nx, ny), "triangles alternate");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sides_run_clockwise_round_evenly_spaced_neighbours() {
        // On a screen (y down) the angle atan2(dy, dx) grows clockwise: the
        // neighbours across sides 0, 1, ... lie at equal distances, each
        // 360/n degrees clockwise from the previous.
        for (lattice, dist) in
            [(Lattice::Square, 1.0), (Lattice::Hex, 3f64.sqrt()), (Lattice::Triangle, 1.0 / 3f64.sqrt())]
        {
            let n = lattice.faces();
            for (x, y) in [(0, 0), (1, 0), (-3, 2), (4, 5)] {
                let (cx, cy) = lattice.centre(x, y);
                let angle = |side: usize| {
                    let (nx, ny, _) = lattice.neighbour(x, y, side);
                    let (px, py) = lattice.centre(nx, ny);
                    assert!(((px - cx).hypot(py - cy) - dist).abs() < 1e-9, "{lattice:?} ({x},{y}) side {side}");
                    (py - cy).atan2(px - cx)
                };
                for side in 0..n {
                    let step = (angle((side + 1) % n) - angle(side)).rem_euclid(std::f64::consts::TAU);
                    assert!((step - std::f64::consts::TAU / n as f64).abs() < 1e-9, "{lattice:?} ({x},{y}) {side}");
                }
            }
        }
    }

    #[test]
    fn graph_opens_the_other_faces() {
        let mut b = PolyBoard::new(BoardKind::Graph);
        b.place(PolyTileId(0), t(&[1, 2, 3]), PolySpot::Root, 0);
        assert_eq!(b.open_faces().count(), 3);
        let at = PolySpot::Face { node: 0, face: 1 };
        assert!(b.allows(t(&[2, 2, 5]), 3, at, 0));
        assert!(!b.allows(t(&[2, 2, 5]), 3, at, 2), "face 2 shows 5, not 2");
        b.place(PolyTileId(1), t(&[2, 2, 5]), at, 0);
        let open: Vec<_> = b.open_faces().collect();
        assert_eq!(open, vec![(0, 0, 1), (1, 1, 2), (0, 2, 3), (1, 2, 5)]);
        assert_eq!(b.placed()[0].open, 0b101);
        assert!(!b.allows(t(&[2, 0, 0]), 3, at, 0), "a joined face is closed");
    }

    #[test]
    fn a_lattice_cell_must_match_every_neighbour() {
        // Squares: A at (0,0) = [top 1, right 2, bottom 3, left 4];
        // B at (1,1) = [5, 6, 7, 8]. Cell (1,0) touches A's right (2) on its
        // left and B's top (5) on its bottom.
        let mut b = PolyBoard::new(BoardKind::Lattice(Lattice::Square));
        b.place(PolyTileId(0), t(&[1, 2, 3, 4]), PolySpot::Cell { x: 0, y: 0 }, 0);
        b.place(PolyTileId(1), t(&[5, 6, 7, 8]), PolySpot::Cell { x: 1, y: 1 }, 0);
        let cell = PolySpot::Cell { x: 1, y: 0 };
        // Sides top, right, bottom, left = 0, 0, 5, 2: fits both.
        assert!(b.allows(t(&[0, 0, 5, 2]), 4, cell, 0));
        // The same tile turned once puts 2 at the bottom: no.
        assert!(!b.allows(t(&[0, 0, 5, 2]), 4, cell, 1));
        // Matches A (left 2) but not B (bottom 9).
        assert!(!b.allows(t(&[0, 0, 9, 2]), 4, cell, 0));
        // Turned: [2, 0, 0, 5] by 3 reads [0, 0, 5, 2].
        assert!(b.allows(t(&[2, 0, 0, 5]), 4, cell, 3));
        assert!(!b.allows(t(&[0, 0, 5, 2]), 4, PolySpot::Cell { x: 5, y: 5 }, 0), "not next to the tiles");
        assert!(!b.allows(t(&[0, 0, 5, 2]), 4, PolySpot::Cell { x: 0, y: 0 }, 0), "occupied");
    }
}
