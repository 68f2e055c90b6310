//! Games of tiles with 3, 4 or 6 faces, on a graph board or a lattice.
//!
//! A family separate from the two-faced engine (whose tiles, bitsets and
//! boards are built for dominoes): [`PolyVariant`] is plain data,
//! [`PolyVariant::validate`] turns it into [`PolyRules`], and a
//! [`PolyGame`] plays it, deterministic from its seed. Both games implement
//! [`crate::Family`], what a table or a search needs of either.
//!
//! ```
//! use capicua_engine::poly::{PolyGame, PolyMoveList, PolyRules};
//!
//! let rules = PolyRules::preset("hexominoes").unwrap();
//! let mut game = PolyGame::new(rules, 2, 2026).unwrap();
//! let mut moves = PolyMoveList::default(); // reused: no allocation per turn
//! while let Some(seat) = game.to_move() {
//!     game.view(seat).legal_moves(&mut moves);
//!     game.play(moves[moves.len() / 2]).expect("a legal move is accepted");
//! }
//! assert!(game.outcome().is_some());
//! ```
//!
//! # Tiles
//!
//! A [`PolyTile`] lists its pips clockwise from face 0. A set holds each
//! tile once up to rotation ([`SetRule`]): `ascending` keeps one tile per
//! multiset with faces non-decreasing clockwise (the Tri-Ominos set),
//! `all` every distinct tuple up to rotation (mirror images are distinct
//! tiles). Tiles are worth the sum of their pips.
//!
//! # Boards and positions
//!
//! "Clockwise" is as drawn on a screen, `y` growing downwards.
//!
//! **Graph** (the n-dimensional board): every face of a placed tile is an
//! open connection, with no geometry. The first tile is the root; a tile
//! joins one open face by one of its faces showing the same pips, and its
//! other faces open. A [`PlacedTile`] has a node id (order of placement), the
//! parent's node and face it joined ([`PolySpot::Face`]) and its own
//! joined face (`rotation`): a client draws it as a tree.
//!
//! ```text
//!        node 0 <1|2|3>            face 1 of node 0 (2 pips) joined by
//!        /  |  \                   face 0 of node 1 <2|2|5>; open now:
//!  (1) f0  f1   f2 (3)             node 0 faces 0, 2; node 1 faces 1, 2
//!           |
//!        node 1 <2|2|5>
//! ```
//!
//! **Lattices**: a tile goes into an empty cell next to at least one placed
//! tile, in any rotation, and must match *every* placed neighbour on the
//! faces that touch. The first tile goes to cell `(0, 0)`, unturned. A tile
//! turned by `rotation` shows its face `i` on side `(i + rotation) % faces`
//! of its cell. Sides are numbered clockwise:
//!
//! ```text
//!  square (x, y): x right, y down        hex (q, r): axial, pointy top
//!
//!          side 0 (x, y-1)                  5 (q, r-1)   0 (q+1, r-1)
//!        +---------+                               /\
//!        |         |                              /  \
//!  3     |  (x,y)  |   1 (x+1, y)    4 (q-1, r)  |q,r |  1 (q+1, r)
//! (x-1,y)|         |                              \  /
//!        +---------+                               \/
//!          side 2 (x, y+1)             3 (q-1, r+1)   2 (q, r+1)
//!
//!  triangle (x, y): x right, y down; points up when x + y is even
//!
//!       up (x + y even)                  down (x + y odd)
//!            /\                          ____0____  (x, y-1)
//!  (x-1,y)  /  \   (x+1, y)              \       /
//!        2 /    \ 0                (x-1,y) 2   1 (x+1, y)
//!         /______\                         \   /
//!            1  (x, y+1)                    \/
//! ```
//!
//! **Corners** ([`PolyMatching::Corners`], Tri-Ominos and Quad-Ominos
//! as sold; triangle and square lattices): a tile's pips are its corners,
//! clockwise, corner `i` at the clockwise start of side `i` (an up
//! triangle: apex, bottom right, bottom left; a down one: top left, top
//! right, bottom; a square: top left first). A tile goes into an empty cell
//! sharing a whole side with a placed tile, and every one of its corners
//! that lies on a vertex of a placed tile (across a side or only at that
//! point: up to six triangles or four squares meet at a vertex) shows the
//! number already there. [`Lattice::corner`] names the vertices.
//!
//! [`Lattice::centre`] gives a cell's centre on screen for cells of side 1
//! (a test checks that the neighbours across sides 0, 1, ... lie evenly
//! spaced, clockwise, as drawn here).
//!
//! # Play
//!
//! Hand `k` of a match is dealt from the seed and led by seat `k % seats`
//! (or, with [`PolyOpening::HighestTriple`], by the seat holding the best
//! opening tile, which it must play).
//! A seat that can place a tile must play one; otherwise it draws while the
//! rules allow ([`PolyStuck`]), else passes. A hand ends when a seat goes
//! out, or blocked once every seat has passed in turn without drawing;
//! [`PolyScoring`] scores it and [`PolyMatchTarget`] ends the match. Move
//! generation reads indexes the board keeps up to date (open faces by pips,
//! the frontier of empty cells with the pips each side demands) into a
//! caller-owned [`PolyMoveList`]. Moves that give the same position (turns
//! of a symmetric tile) are listed once.
//!
//! Variant files: [`PolyVariant::from_file_text`] (TOML or JSON, `base =
//! "<poly preset>"` plus overrides), the same machinery and error format as
//! [`Variant::from_file_text`](crate::Variant::from_file_text).

mod board;
mod game;
mod rebuild;
mod tile;
mod variant;
mod view;

pub use board::{BoardKind, Lattice, PlacedTile, PolyBoard, PolyMatching, PolySpot};
pub use game::{PolyEvent, PolyEvents, PolyGame, PolyIllegal, PolyMove, PolyMoveList, PolyOutcome};
pub use tile::{MAX_FACES, MAX_POLY_PIP, MAX_POLY_TILES, PolyTile, PolyTileId, PolyTileSet, SetRule};
pub use variant::{
    FileRules, MAX_POLY_HANDS, MAX_POLY_SEATS, POLY_PRESET_ALIASES, POLY_PRESETS, PolyBonuses, PolyMatchTarget,
    PolyOpening, PolyPlayPoints, PolyRules, PolyScoring, PolyStuck, PolyVariant, SeatRange, poly_preset,
};
pub use view::{PolyView, PolyViewSnapshot};
