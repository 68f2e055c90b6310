//! The rules of a poly game as plain data, its validation, its presets
//! and its variant files.

use serde::{Deserialize, Serialize};

use super::board::{BoardKind, Lattice, PolyMatching};
use super::tile::{MAX_POLY_PIP, MAX_POLY_TILES, PolyTileSet, SetRule};
use crate::error::VariantError;
use crate::file::{VariantFileError, file_error, parse_file};
use crate::variant::HandSize;

/// The most seats at a poly table.
pub const MAX_POLY_SEATS: u8 = 6;

/// The most hands a match may last (a `hands` target, and the safety cap of
/// a points match whose hands score nothing).
pub const MAX_POLY_HANDS: u32 = 500;

/// Every rule choice of a game with 3-, 4- or 6-faced tiles.
///
/// Serialized in kebab-case like [`Variant`](crate::Variant); unit options
/// are strings (`board = "graph"`), options with parameters one-key tables
/// (`board = { lattice = "hex" }`, `stuck = { draw-up-to = 3 }`).
///
/// ```
/// use capicua_engine::poly::{PolyVariant, poly_preset};
/// let v: PolyVariant = poly_preset("triominoes").unwrap();
/// let back: PolyVariant = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
/// assert_eq!(back, v);
/// assert_eq!(v.validate().unwrap().set().len(), 56);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PolyVariant {
    /// Stable name (a preset name, or the user's own).
    pub name: String,
    /// Free text shown to players.
    #[serde(default)]
    pub description: String,
    /// Faces of every tile: 3, 4 or 6.
    pub faces: u8,
    /// Faces show `0..=max-pip` pips (at most 9).
    pub max_pip: u8,
    /// Which tiles make up the set.
    #[serde(default)]
    pub set: SetRule,
    /// How many seats.
    pub seats: SeatRange,
    /// Tiles dealt to each seat: a number, or `[[seats, tiles], ...]`.
    pub hand_size: HandSize,
    /// What a seat that cannot play does.
    pub stuck: PolyStuck,
    /// The shape of the table.
    pub board: BoardKind,
    /// How a hand scores.
    pub scoring: PolyScoring,
    /// Points scored during play.
    #[serde(default, skip_serializing_if = "is_default")]
    pub play_points: PolyPlayPoints,
    /// When the match ends.
    pub target: PolyMatchTarget,
    /// What touching tiles must agree on: sides (default) or corners.
    #[serde(default, skip_serializing_if = "is_default")]
    pub matching: PolyMatching,
    /// Who leads each hand, with which tile.
    #[serde(default, skip_serializing_if = "is_default")]
    pub opening: PolyOpening,
    /// Bonuses and penalties on top of the play points and the hand's
    /// scoring (all zero by default).
    #[serde(default, skip_serializing_if = "is_default")]
    pub bonuses: PolyBonuses,
}

/// Who leads each hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PolyOpening {
    /// Hand `k` is led by seat `k % seats`, with any tile.
    #[default]
    Rotate,
    /// The seat holding the highest tile with every number equal (a
    /// triple, a quad) leads with it; with none dealt, the seat holding the
    /// tile of the highest sum (ties: the highest tile) leads with that.
    HighestTriple,
}

/// Bonuses and penalties (points, all zero by default). Penalties are
/// given as positive numbers and taken off the seat's total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", default, deny_unknown_fields)]
pub struct PolyBonuses {
    /// Opening a hand with a tile whose numbers are all equal.
    pub opening: u16,
    /// Added to `opening` when that tile is all zeros.
    pub zero_triple: u16,
    /// A placement on corners that touches the board along exactly one
    /// side and also at a corner off that side (for a triangle: the corner
    /// opposite that side), bridging to another tile.
    pub bridge: u16,
    /// A placement on corners completing the ring of tiles round one, two
    /// or three of its corners (six triangles: a hexagon; four squares): by
    /// rings completed, `[one, two, three or more]`.
    pub ring: [u16; 3],
    /// Each tile drawn.
    pub draw_penalty: u16,
    /// Each pass.
    pub pass_penalty: u16,
    /// Going out, on top of the pips left in the other hands.
    pub going_out: u16,
    /// A blocked hand's lightest seat scores the others' pips minus its own
    /// (instead of the others' pips).
    pub blocked_minus_own: bool,
}

/// The allowed seat counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SeatRange {
    /// Fewest seats (at least 2).
    pub min: u8,
    /// Most seats (at most [`MAX_POLY_SEATS`]).
    pub max: u8,
}

/// What a seat that holds no playable tile does. Undealt tiles are the
/// stock; a seat that can play must play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PolyStuck {
    /// Pass; the stock is never drawn from (block game).
    Pass,
    /// Draw one tile, play it if it fits, else pass.
    DrawOne,
    /// Draw up to this many tiles, playing as soon as one fits, then pass.
    DrawUpTo(u8),
    /// Draw until a tile fits or the stock is empty, then pass.
    DrawUntilPlayable,
}

impl PolyStuck {
    /// The most tiles a seat may draw in one turn.
    pub fn draw_limit(self) -> u32 {
        match self {
            PolyStuck::Pass => 0,
            PolyStuck::DrawOne => 1,
            PolyStuck::DrawUpTo(n) => n as u32,
            PolyStuck::DrawUntilPlayable => u32::MAX,
        }
    }
}

/// How a hand scores. A hand ends when a seat goes out, or blocked when
/// every seat in turn passed without drawing (nobody can move); a blocked
/// hand is won by the seat with the fewest pips left, by nobody on a tie.
/// A tile is worth the sum of its pips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PolyScoring {
    /// The hand's winner scores the pips left in every other hand; the
    /// highest total wins the match.
    Opponents,
    /// Every seat scores the pips left in its own hand as penalty points;
    /// the lowest total wins the match.
    OwnPips,
}

/// Points scored during play, on top of the hand's scoring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PolyPlayPoints {
    /// Nothing scores during play.
    #[default]
    None,
    /// Placing a tile scores its pips for the placer (Tri-Ominos).
    TilePips,
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// When the match ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum PolyMatchTarget {
    /// After the hand in which a seat's total reaches `points`.
    Points {
        /// The target.
        points: u32,
    },
    /// After this many hands.
    Hands(u32),
}

/// A validated [`PolyVariant`]: the only thing a
/// [`PolyGame`](super::PolyGame) accepts, with its tile set built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyRules {
    variant: PolyVariant,
    set: PolyTileSet,
}

impl PolyRules {
    /// The variant it was made from.
    pub fn variant(&self) -> &PolyVariant {
        &self.variant
    }

    /// The tile set.
    pub fn set(&self) -> &PolyTileSet {
        &self.set
    }

    /// The seat counts allowed.
    pub fn seat_range(&self) -> std::ops::RangeInclusive<u8> {
        self.variant.seats.min..=self.variant.seats.max
    }

    /// Tiles per seat with `seats` seats (validated for every allowed count).
    pub fn hand_size(&self, seats: u8) -> Option<u8> {
        self.variant.hand_size.for_seats(seats)
    }

    /// A preset, validated.
    pub fn preset(name: &str) -> Option<PolyRules> {
        poly_preset(name).map(|v| v.validate().expect("presets are valid"))
    }

    /// Parses and validates a poly variant file in one step; a validation
    /// error is reported against the file, at the field's line.
    ///
    /// ```
    /// use capicua_engine::poly::PolyRules;
    /// let e = PolyRules::from_file_text("x.toml", "base = \"triominoes\"\nboard = { lattice = \"hex\" }\n").unwrap_err();
    /// assert_eq!(e.to_string(), "x.toml:2: board: a hex lattice holds 6-faced tiles, not 3");
    /// ```
    pub fn from_file_text(origin: &str, text: &str) -> Result<PolyRules, VariantFileError> {
        PolyVariant::from_file_text(origin, text)?.validate().map_err(|e| file_error(origin, text, e))
    }
}

/// The rules of a variant file of either family.
#[derive(Clone, Debug)]
pub enum FileRules {
    /// Two-faced dominoes.
    Tiles(Box<crate::Rules>),
    /// Tiles with 3, 4 or 6 faces.
    Poly(PolyRules),
}

impl FileRules {
    /// Parses and validates a variant file of either family: read as
    /// dominoes first, then as tiles with 3, 4 or 6 faces. The error is
    /// the one of the family the file means: the poly reading's when `base`
    /// names no two-faced preset but the poly reading got past `base`.
    ///
    /// ```
    /// use capicua_engine::poly::FileRules;
    /// let poly = FileRules::from_file_text("x.toml", "base = \"hexominoes\"\nname = \"hex\"\n").unwrap();
    /// assert!(matches!(poly, FileRules::Poly(_)));
    /// let tiles = FileRules::from_file_text("x.toml", "base = \"latin\"\nname = \"l\"\n").unwrap();
    /// assert!(matches!(tiles, FileRules::Tiles(_)));
    /// let e = FileRules::from_file_text("x.toml", "base = \"hexominoes\"\nfaces = 5\n").unwrap_err();
    /// assert_eq!(e.field, "faces");
    /// ```
    pub fn from_file_text(origin: &str, text: &str) -> Result<FileRules, VariantFileError> {
        match crate::Rules::from_file_text(origin, text) {
            Ok(rules) => Ok(FileRules::Tiles(Box::new(rules))),
            Err(tiles) => match PolyRules::from_file_text(origin, text) {
                Ok(rules) => Ok(FileRules::Poly(rules)),
                Err(poly) if tiles.field == "base" && poly.field != "base" => Err(poly),
                Err(_) => Err(tiles),
            },
        }
    }
}

impl PolyVariant {
    /// Checks every field and builds the tile set.
    pub fn validate(&self) -> Result<PolyRules, VariantError> {
        let json = serde_json::to_value(self).map_err(|e| VariantError::new("variant", e.to_string()))?;
        crate::catalog::check_ranges(&json, "poly.")?;
        let faces = self.faces as usize;
        if !matches!(faces, 3 | 4 | 6) {
            return Err(VariantError::new("faces", format!("{faces} faces; expected 3, 4 or 6")));
        }
        if self.max_pip > MAX_POLY_PIP {
            return Err(VariantError::new("max-pip", format!("{} is above {MAX_POLY_PIP}", self.max_pip)));
        }
        let count = PolyTileSet::count(faces, self.max_pip, self.set);
        if count > MAX_POLY_TILES {
            return Err(VariantError::new(
                "max-pip",
                format!("the set would have {count} tiles; at most {MAX_POLY_TILES}"),
            ));
        }
        if let BoardKind::Lattice(lattice) = self.board
            && lattice.faces() != faces
        {
            let name = serde_json::to_value(lattice).ok().and_then(|v| v.as_str().map(str::to_string));
            return Err(VariantError::new(
                "board",
                format!("a {} lattice holds {}-faced tiles, not {faces}", name.unwrap_or_default(), lattice.faces()),
            ));
        }
        let SeatRange { min, max } = self.seats;
        if min < 2 || min > max || max > MAX_POLY_SEATS {
            return Err(VariantError::new(
                "seats",
                format!("{min} to {max} seats; expected 2 <= min <= max <= {MAX_POLY_SEATS}"),
            ));
        }
        for seats in min..=max {
            match self.hand_size.for_seats(seats) {
                None => return Err(VariantError::new("hand-size", format!("no hand size for {seats} seats"))),
                Some(0) => return Err(VariantError::new("hand-size", "a hand holds at least 1 tile")),
                Some(n) if n as usize * seats as usize > count => {
                    return Err(VariantError::new(
                        "hand-size",
                        format!("{seats} hands of {n} need {} tiles; the set has {count}", n as usize * seats as usize),
                    ));
                }
                Some(_) => {}
            }
        }
        if self.play_points == PolyPlayPoints::TilePips && self.scoring == PolyScoring::OwnPips {
            return Err(VariantError::new(
                "play-points",
                "tile-pips rewards the placer, but own-pips scoring counts penalties (the lowest total wins)",
            ));
        }
        if self.matching == PolyMatching::Corners
            && !matches!(self.board, BoardKind::Lattice(Lattice::Triangle | Lattice::Square))
        {
            return Err(VariantError::new("matching", "corners match on a triangle or square lattice only"));
        }
        if self.bonuses != PolyBonuses::default() && self.scoring == PolyScoring::OwnPips {
            return Err(VariantError::new(
                "bonuses",
                "bonuses reward the scorer, but own-pips scoring counts penalties (the lowest total wins)",
            ));
        }
        if self.stuck == PolyStuck::DrawUpTo(0) {
            return Err(VariantError::new("stuck.draw-up-to", "draw at least 1 tile (or pass)"));
        }
        match self.target {
            PolyMatchTarget::Points { points: 0 } => {
                return Err(VariantError::new("target.points.points", "the target is at least 1 point"));
            }
            PolyMatchTarget::Hands(n) if n == 0 || n > MAX_POLY_HANDS => {
                return Err(VariantError::new("target.hands", format!("1 to {MAX_POLY_HANDS} hands, not {n}")));
            }
            _ => {}
        }
        Ok(PolyRules { variant: self.clone(), set: PolyTileSet::new(faces, self.max_pip, self.set) })
    }

    /// Parses a poly variant file (TOML, or JSON for a `.json` origin),
    /// optionally `base = "<poly preset>"` plus overrides, into an unchecked
    /// variant; errors read `file:line: field: message`.
    ///
    /// ```
    /// use capicua_engine::poly::{PolyVariant, PolyStuck};
    /// let v = PolyVariant::from_file_text("t.toml", "base = \"triominoes\"\nstuck = \"draw-one\"\n").unwrap();
    /// assert_eq!(v.stuck, PolyStuck::DrawOne);
    /// let e = PolyVariant::from_file_text("t.toml", "base = \"triominoes\"\n\nstuck = \"draw\"\n").unwrap_err();
    /// assert!(e.to_string().starts_with("t.toml:3: stuck: unknown option \"draw\"; expected one of: pass, draw-one,"), "{e}");
    /// ```
    pub fn from_file_text(origin: &str, text: &str) -> Result<PolyVariant, VariantFileError> {
        parse_file(origin, text, POLY_PRESETS, poly_preset)
    }
}

/// The names of the poly presets.
pub const POLY_PRESETS: &[&str] =
    &["tri-ominos", "quad-ominos", "edge-triominoes", "edge-quadominoes", "hexominoes", "graph-triominoes"];

/// Former names of presets, still read (in stored specs, variant files and
/// requests) as the preset they name: `(former, preset)`. A preset read by
/// a former name keeps that name, so what was stored under it reads back
/// unchanged.
pub const POLY_PRESET_ALIASES: &[(&str, &str)] =
    &[("triominoes", "edge-triominoes"), ("quadominoes", "edge-quadominoes")];

/// A poly preset by name, or `None`.
///
/// | name | tiles | board | seats | hand | stuck | scoring | target |
/// |---|---|---|---|---|---|---|---|
/// | `edge-triominoes` (formerly `triominoes`) | 56 triangles, pips 0..=5 on the sides, ascending clockwise | triangle lattice | 2-4 | 9 (2 seats), 7 (3-4) | draw up to 3 | a placed tile's pips to the placer; opponents' pips to the hand's winner | 400 |
/// | `edge-quadominoes` (formerly `quadominoes`) | 70 squares, pips 0..=3, every tile up to rotation | square lattice | 2-4 | 9 (2), 7 (3-4) | draw until playable | as triominoes | 200 |
/// | `hexominoes` | 130 hexagons, pips 0..=2, every tile up to rotation | hex lattice | 2-4 | 10 | draw until playable | as triominoes | 200 |
/// | `graph-triominoes` | as triominoes | n-dimensional graph | 2-4 | 9 (2), 7 (3-4) | draw until playable | as triominoes | 400 |
/// | `tri-ominos` | as triominoes, numbers at the corners | triangle lattice, corners match | 2-4 | 9 (2), 7 (3-4) | draw up to 3 (-5 each), then pass (-10) | see below | 400 |
/// | `quad-ominos` | 126 squares, numbers 0..=5 at the corners, ascending clockwise | square lattice, corners match | 2-6 | 30, 20, 15, 12, 10 (2-6) | draw up to 3 | a placed tile's numbers; opponents' pips to the one who goes out | 800 |
///
/// `tri-ominos` follows the Pressman Tri-Ominos rules (as printed in the
/// box and retold by rule sites): the seat with the highest triple opens
/// with it for its sum + 10 (0-0-0 scores 10 + 30 = 40); with no triple dealt, the
/// highest-sum tile opens, with no bonus. Each tile scores its numbers; a
/// bridge (one side on the board and the opposite corner on another
/// tile) +40; completing a hexagon +50, two at once +60, three +70 (the
/// editions that pay a double hexagon 60 and a triple 70; `bonuses.ring`
/// sets others). Drawing costs 5 a tile, at most 3 draws; then, or with the
/// pool empty, passing costs 10. Going out: +25 and the pips left in every
/// other hand; a blocked hand: the lightest seat scores the others' pips
/// minus its own (`bonuses.blocked-minus-own = false`: the others' pips).
///
/// `quad-ominos` follows what is sure of the Pressman Quad-Ominos (1978)
/// as described by its Wikipedia article and domino-play.com: numbers 0..=5
/// at the four corners, one tile per multiset, hands of 30/20/15/12/10 for
/// 2-6 players, the highest quad (else the highest-sum tile) opens, every
/// tile scores its numbers, and the game is to 800. Departures: the set
/// keeps 0-2-4-5 (126 tiles; the boxed set omits it, 125) and every tile
/// has its corners ascending clockwise (boxed tiles mix both senses); its
/// bonuses (squares completed round a vertex and others) are not known
/// here and are all zero (a variant file may set `bonuses`); three draws
/// at most, as in Tri-Ominos.
///
/// `edge-triominoes` and `edge-quadominoes` are named for what they are:
/// choices where sources are silent or differ. Pips sit on faces (edges),
/// where the commercial Tri-Ominos prints them at corners, so a triangle's
/// three faces are matched like domino ends; the Tri-Ominos set (every
/// multiset of 0..=5 once, non-decreasing clockwise, 56 tiles), its hand
/// sizes, its three draws, its 400-point target, its placement points (a
/// tile's pips) and its going-out points (the others' pips) are kept, but its
/// bridge and hexagon bonuses and draw penalties are not (`tri-ominos` has
/// them, with the numbers at the corners). Squares and hexagons have no commercial
/// edge-matching set of this kind: they use every tile up to rotation, with
/// pips kept low enough (0..=3, 0..=2) that a cell touching several tiles can
/// still be filled, and score as triominoes (placement points make a hand
/// worth more than the one or two tiles a loser is usually left holding
/// when nearly every tile fits somewhere). Hand `k` of a match is led by seat `k % seats`, which
/// may play any tile.
///
/// ```
/// use capicua_engine::poly::{POLY_PRESETS, poly_preset};
/// for name in POLY_PRESETS {
///     let v = poly_preset(name).unwrap();
///     assert_eq!(&v.name, name);
///     assert!(v.validate().is_ok());
/// }
/// ```
pub fn poly_preset(name: &str) -> Option<PolyVariant> {
    Some(match name {
        "edge-triominoes" | "triominoes" => tri(
            name,
            BoardKind::Lattice(Lattice::Triangle),
            PolyStuck::DrawUpTo(3),
            "Edge triominoes: triangles with 0 to 5 on each side (not at the corners), laid so that touching sides match; first to 400 wins.",
        ),
        "graph-triominoes" => tri(
            name,
            BoardKind::Graph,
            PolyStuck::DrawUntilPlayable,
            "Graph triominoes: the triomino set laid as a branching tree in which every side of a tile stays open; first to 400 wins.",
        ),
        "edge-quadominoes" | "quadominoes" => PolyVariant {
            name: name.into(),
            description: "Edge quadominoes: squares with 0 to 3 on each side (not at the corners), laid so that touching sides match; first to 200 wins.".into(),
            faces: 4,
            max_pip: 3,
            set: SetRule::All,
            seats: SeatRange { min: 2, max: 4 },
            hand_size: HandSize::BySeats(vec![[2, 9], [3, 7], [4, 7]]),
            stuck: PolyStuck::DrawUntilPlayable,
            board: BoardKind::Lattice(Lattice::Square),
            scoring: PolyScoring::Opponents,
            play_points: PolyPlayPoints::TilePips,
            target: PolyMatchTarget::Points { points: 200 },
            matching: PolyMatching::Edges,
            opening: PolyOpening::Rotate,
            bonuses: PolyBonuses::default(),
        },
        "hexominoes" => PolyVariant {
            name: name.into(),
            description: "Hexominoes: hexagons with a number from 0 to 2 on each side, laid so that touching sides match; first to 200 wins.".into(),
            faces: 6,
            max_pip: 2,
            set: SetRule::All,
            seats: SeatRange { min: 2, max: 4 },
            hand_size: HandSize::Fixed(10),
            stuck: PolyStuck::DrawUntilPlayable,
            board: BoardKind::Lattice(Lattice::Hex),
            scoring: PolyScoring::Opponents,
            play_points: PolyPlayPoints::TilePips,
            target: PolyMatchTarget::Points { points: 200 },
            matching: PolyMatching::Edges,
            opening: PolyOpening::Rotate,
            bonuses: PolyBonuses::default(),
        },
        _ => return corner_preset(name),
    })
}

/// The triangle presets' common rules (the Tri-Ominos set, deal and target).
fn tri(name: &str, board: BoardKind, stuck: PolyStuck, description: &str) -> PolyVariant {
    PolyVariant {
        name: name.into(),
        description: description.into(),
        faces: 3,
        max_pip: 5,
        set: SetRule::Ascending,
        seats: SeatRange { min: 2, max: 4 },
        hand_size: HandSize::BySeats(vec![[2, 9], [3, 7], [4, 7]]),
        stuck,
        board,
        scoring: PolyScoring::Opponents,
        play_points: PolyPlayPoints::TilePips,
        target: PolyMatchTarget::Points { points: 400 },
        matching: PolyMatching::Edges,
        opening: PolyOpening::Rotate,
        bonuses: PolyBonuses::default(),
    }
}

/// The presets with numbers at the corners.
fn corner_preset(name: &str) -> Option<PolyVariant> {
    Some(match name {
        "tri-ominos" => PolyVariant {
            matching: PolyMatching::Corners,
            opening: PolyOpening::HighestTriple,
            bonuses: PolyBonuses {
                opening: 10,
                zero_triple: 30,
                bridge: 40,
                ring: [50, 60, 70],
                draw_penalty: 5,
                pass_penalty: 10,
                going_out: 25,
                blocked_minus_own: true,
            },
            ..tri(
                name,
                BoardKind::Lattice(Lattice::Triangle),
                PolyStuck::DrawUpTo(3),
                "Tri-Ominos: 56 triangles with a number at each corner, every shared corner agreeing; bonuses for bridges and hexagons; first to 400 wins.",
            )
        },
        "quad-ominos" => PolyVariant {
            name: name.into(),
            description: "Quad-Ominos: squares with a number from 0 to 5 at each corner, every shared corner agreeing; the highest quad opens; first to 800 wins.".into(),
            faces: 4,
            max_pip: 5,
            set: SetRule::Ascending,
            seats: SeatRange { min: 2, max: 6 },
            hand_size: HandSize::BySeats(vec![[2, 30], [3, 20], [4, 15], [5, 12], [6, 10]]),
            stuck: PolyStuck::DrawUpTo(3),
            board: BoardKind::Lattice(Lattice::Square),
            scoring: PolyScoring::Opponents,
            play_points: PolyPlayPoints::TilePips,
            target: PolyMatchTarget::Points { points: 800 },
            matching: PolyMatching::Corners,
            opening: PolyOpening::HighestTriple,
            bonuses: PolyBonuses::default(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_field() {
        let base = poly_preset("triominoes").unwrap();
        let check = |f: &dyn Fn(&mut PolyVariant), field: &str| {
            let mut v = base.clone();
            f(&mut v);
            assert_eq!(v.validate().unwrap_err().field, field);
        };
        check(&|v| v.faces = 5, "faces");
        check(&|v| v.max_pip = 10, "max-pip");
        check(&|v| (v.faces, v.max_pip, v.set) = (6, 5, SetRule::All), "max-pip");
        check(&|v| v.board = BoardKind::Lattice(super::super::board::Lattice::Square), "board");
        check(&|v| v.seats = SeatRange { min: 1, max: 4 }, "seats");
        check(&|v| v.seats = SeatRange { min: 2, max: 7 }, "seats");
        check(&|v| v.seats = SeatRange { min: 2, max: 5 }, "hand-size");
        check(&|v| v.hand_size = HandSize::Fixed(15), "hand-size");
        check(&|v| v.stuck = PolyStuck::DrawUpTo(0), "stuck.draw-up-to");
        check(&|v| v.scoring = PolyScoring::OwnPips, "play-points");
        check(&|v| v.target = PolyMatchTarget::Hands(0), "target.hands");
        // Graph boards take any face count.
        let mut v = base.clone();
        (v.faces, v.max_pip, v.set, v.board) = (6, 1, SetRule::All, BoardKind::Graph);
        v.hand_size = HandSize::Fixed(3);
        assert!(v.validate().is_ok());
    }
}
