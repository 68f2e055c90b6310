//! The part of the package that needs no Python: a match of either tile
//! family behind one type, and everything it hands out as JSON values
//! (the protocol's shapes), so that the Rust tests check exactly what a
//! Python caller receives.

use std::sync::Arc;

use capicua_engine::poly::{FileRules, POLY_PRESETS, PolyGame, PolyMove, PolyMoveList, PolyRules, PolyViewSnapshot};
use capicua_engine::{
    Family, Game, LeadRequirement, Move, MoveList, OpenEnd, PRESETS, Record, Rules, Seat, Seating, TileSet,
    ViewSnapshot,
};
use capicua_protocol::AnyMove;
use capicua_strategy::seat_view::SeatView;
use serde_json::{Value, json};

/// Why a variant could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Not a preset, and not the text of a variant file either.
    #[error("unknown preset {name:?}; expected one of: {presets}, or the TOML or JSON text of a variant file")]
    UnknownPreset {
        /// What was asked for.
        name: String,
        /// Every preset of both families, comma-separated.
        presets: String,
    },
    /// A variant file the engine refused (its own message: file, line,
    /// field, value, the allowed values).
    #[error("{0}")]
    File(#[from] capicua_engine::VariantFileError),
    /// A preset whose rules do not validate (an engine bug).
    #[error("{0}")]
    Variant(String),
    /// A table the rules do not seat.
    #[error("{0}")]
    Seating(String),
}

/// Checked rules of either family.
#[derive(Clone, Debug)]
pub enum AnyRules {
    /// Two-faced dominoes.
    Tiles(Arc<Rules>),
    /// Tiles with 3, 4 or 6 faces.
    Poly(Arc<PolyRules>),
}

impl AnyRules {
    /// A preset's name (of either family), or the TOML or JSON text of a
    /// variant file: JSON when its first non-blank character is `{`, as the
    /// server reads a room's variant file, and the engine's own parser.
    pub fn load(variant: &str) -> Result<AnyRules, LoadError> {
        let name = variant.trim();
        if let Some(v) = capicua_engine::preset(name) {
            return Ok(AnyRules::Tiles(Arc::new(v.validate().map_err(|e| LoadError::Variant(e.to_string()))?)));
        }
        if let Some(r) = PolyRules::preset(name) {
            return Ok(AnyRules::Poly(Arc::new(r)));
        }
        let looks_like_file = variant.contains('=') || variant.contains('{') || variant.contains('\n');
        if !looks_like_file {
            let presets: Vec<&str> = PRESETS.iter().chain(POLY_PRESETS.iter()).copied().collect();
            return Err(LoadError::UnknownPreset { name: name.to_string(), presets: presets.join(", ") });
        }
        let origin = if name.starts_with('{') { "variant.json" } else { "variant.toml" };
        Ok(match FileRules::from_file_text(origin, variant)? {
            FileRules::Tiles(r) => AnyRules::Tiles(Arc::from(r)),
            FileRules::Poly(r) => AnyRules::Poly(Arc::new(r)),
        })
    }

    /// The variant's name.
    pub fn name(&self) -> &str {
        match self {
            AnyRules::Tiles(r) => &r.variant().name,
            AnyRules::Poly(r) => &r.variant().name,
        }
    }

    /// `"tiles"` or `"poly"`, as the protocol's `family` tag says.
    pub fn family(&self) -> &'static str {
        match self {
            AnyRules::Tiles(_) => "tiles",
            AnyRules::Poly(_) => "poly",
        }
    }

    /// The full variant, as the protocol sends it in `game-started`.
    pub fn variant_json(&self) -> Value {
        match self {
            AnyRules::Tiles(r) => to_json(r.variant()),
            AnyRules::Poly(r) => to_json(r.variant()),
        }
    }

    /// The seats a table of these rules has when none are asked for: the
    /// most the variant seats, as a server's room.
    pub fn default_seats(&self) -> u8 {
        match self {
            AnyRules::Tiles(r) => r.variant().players.max,
            AnyRules::Poly(r) => *r.seat_range().end(),
        }
    }
}

/// A match of either family.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per Python object, in place for the whole match")]
pub enum AnyGame {
    /// Two-faced dominoes.
    Tiles(Game),
    /// Tiles with 3, 4 or 6 faces.
    Poly(PolyGame),
}

/// Serializes a value the engine or protocol defines; their types always
/// serialize.
pub fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("engine and protocol types serialize to JSON")
}

/// A move a caller gave that is not one of the legal moves, or not a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not the shape of a move of this game's family.
    #[error("not a move of family {family}: {reason}")]
    Shape {
        /// The game's family.
        family: &'static str,
        /// What serde said.
        reason: String,
    },
    /// An index past the legal moves.
    #[error("move index {index} out of range: {count} legal moves")]
    Index {
        /// The index given.
        index: usize,
        /// Legal moves.
        count: usize,
    },
    /// The engine refused it.
    #[error("illegal move {mv}: {reason}")]
    Illegal {
        /// The move, as the engine writes it.
        mv: String,
        /// The engine's reason.
        reason: String,
    },
    /// The match is over.
    #[error("the match is over")]
    Over,
}

impl AnyGame {
    /// Deals a match of `rules` at a table of `seats` (the variant's most
    /// when `None`), in `teams` (two-faced variants only), from `seed`.
    pub fn deal(
        rules: &AnyRules,
        seats: Option<u8>,
        teams: Option<Vec<Vec<u8>>>,
        seed: u64,
    ) -> Result<AnyGame, LoadError> {
        let seats = seats.unwrap_or_else(|| rules.default_seats());
        let seating_error = |e: capicua_engine::SeatingError| LoadError::Seating(e.to_string());
        Ok(match rules {
            AnyRules::Tiles(r) => {
                let mut seating = Seating::new(seats);
                if let Some(teams) = teams {
                    seating = seating.with_teams(teams);
                }
                AnyGame::Tiles(Game::new(r.clone(), seating, seed).map_err(seating_error)?)
            }
            AnyRules::Poly(r) => {
                if teams.is_some() {
                    return Err(LoadError::Seating("tiles with 3, 4 or 6 faces are played without teams".into()));
                }
                AnyGame::Poly(PolyGame::new(r.clone(), seats, seed).map_err(seating_error)?)
            }
        })
    }

    /// `"tiles"` or `"poly"`.
    pub fn family(&self) -> &'static str {
        match self {
            AnyGame::Tiles(_) => "tiles",
            AnyGame::Poly(_) => "poly",
        }
    }

    /// Seats at the table.
    pub fn seats(&self) -> u8 {
        match self {
            AnyGame::Tiles(g) => Family::seats(g),
            AnyGame::Poly(g) => Family::seats(g),
        }
    }

    /// The seat to move; `None` once the match is over.
    pub fn to_move(&self) -> Option<u8> {
        match self {
            AnyGame::Tiles(g) => Family::to_move(g).map(|s| s.0),
            AnyGame::Poly(g) => Family::to_move(g).map(|s| s.0),
        }
    }

    /// The hand being played, from 0.
    pub fn hand_number(&self) -> u32 {
        match self {
            AnyGame::Tiles(g) => Family::hand_number(g),
            AnyGame::Poly(g) => Family::hand_number(g),
        }
    }

    /// Moves played in the match.
    pub fn plies(&self) -> usize {
        match self {
            AnyGame::Tiles(g) => Family::plies(g),
            AnyGame::Poly(g) => Family::plies(g),
        }
    }

    /// Starts a new match at the same table from `seed`.
    pub fn restart(&mut self, seed: u64) {
        match self {
            AnyGame::Tiles(g) => Family::restart(g, seed),
            AnyGame::Poly(g) => Family::restart(g, seed),
        }
    }

    /// The legal moves of the seat to move (none once the match is over).
    pub fn legal_moves(&self) -> Vec<AnyMove> {
        match self {
            AnyGame::Tiles(g) => {
                let mut out = MoveList::new();
                g.legal_moves_into(&mut out);
                out.iter().map(|&m| AnyMove::Tiles(m)).collect()
            }
            AnyGame::Poly(g) => {
                let mut out = PolyMoveList::default();
                g.legal_moves_into(&mut out);
                out.iter().map(|&m| AnyMove::Poly(m)).collect()
            }
        }
    }

    /// A move of this game's family from its JSON shape (a legal move as
    /// [`AnyGame::legal_moves`] writes it).
    pub fn move_of(&self, value: Value) -> Result<AnyMove, MoveError> {
        let shape = |e: serde_json::Error| MoveError::Shape { family: self.family(), reason: e.to_string() };
        Ok(match self {
            AnyGame::Tiles(_) => AnyMove::Tiles(serde_json::from_value::<Move>(value).map_err(shape)?),
            AnyGame::Poly(_) => AnyMove::Poly(serde_json::from_value::<PolyMove>(value).map_err(shape)?),
        })
    }

    /// Plays a move of the seat to move, as the table's referee rules it;
    /// an illegal move changes nothing. Returns the events as every seat
    /// sees them (a poly `drew` names no tile: the drawer finds it in its
    /// next view).
    pub fn play(&mut self, m: AnyMove) -> Result<Vec<Value>, MoveError> {
        match self.play_events(m)? {
            AnyEvents::Tiles(e) => Ok(e.iter().map(to_json).collect()),
            AnyEvents::Poly(e) => Ok(e.iter().map(to_json).collect()),
        }
    }

    /// [`AnyGame::play`], the events as the engine's types.
    pub fn play_events(&mut self, m: AnyMove) -> Result<AnyEvents, MoveError> {
        if self.to_move().is_none() {
            return Err(MoveError::Over);
        }
        let illegal = |mv: &dyn std::fmt::Display, e: &dyn std::fmt::Display| MoveError::Illegal {
            mv: mv.to_string(),
            reason: e.to_string(),
        };
        match (self, m) {
            (AnyGame::Tiles(g), AnyMove::Tiles(m)) => {
                let events = Family::referee(g, m).map_err(|e| illegal(&m, &e))?;
                Ok(AnyEvents::Tiles(events.to_vec()))
            }
            (AnyGame::Poly(g), AnyMove::Poly(m)) => {
                let events = Family::referee(g, m).map_err(|e| illegal(&m, &e))?;
                Ok(AnyEvents::Poly(events.iter().map(|e| e.seen_by(None)).collect()))
            }
            (g, m) => {
                Err(MoveError::Shape { family: g.family(), reason: format!("{m} is a move of the other family") })
            }
        }
    }

    /// Plays the `index`th legal move.
    pub fn play_index(&mut self, index: usize) -> Result<Vec<Value>, MoveError> {
        let legal = self.legal_moves();
        let m = *legal.get(index).ok_or(MoveError::Index { index, count: legal.len() })?;
        self.play(m)
    }

    /// What `seat` (`None`: a spectator) may know, as the protocol's JSON
    /// view (`game-started`'s `view`): never another seat's hidden tile.
    pub fn view(&self, seat: Option<u8>) -> Value {
        match self {
            AnyGame::Tiles(g) => to_json(&Family::snapshot(g, seat.map(Seat))),
            AnyGame::Poly(g) => {
                let legal = match seat {
                    Some(s) if g.to_move() == Some(s) => self.legal_moves(),
                    _ => Vec::new(),
                };
                poly_view_json(&Family::snapshot(g, seat.map(Seat)), &legal)
            }
        }
    }

    /// What `seat` (`None`: a spectator) may know, as data.
    pub fn snap(&self, seat: Option<u8>) -> Snap {
        match self {
            AnyGame::Tiles(g) => Snap::Tiles(Box::new(Family::snapshot(g, seat.map(Seat)))),
            AnyGame::Poly(g) => {
                let legal = match seat {
                    Some(s) if g.to_move() == Some(s) => self.legal_moves(),
                    _ => Vec::new(),
                };
                Snap::Poly(Box::new(Family::snapshot(g, seat.map(Seat))), legal)
            }
        }
    }

    /// How the match stands: whether it is over, the scores by side and by
    /// seat, the winning side, and the finished hands (two-faced variants)
    /// or the outcome (poly).
    pub fn result(&self) -> Value {
        match self {
            AnyGame::Tiles(g) => json!({
                "over": g.is_over(),
                "scores": g.scores(),
                "seat-scores": g.seat_scores(),
                "winner": Family::winner(g).map(|s| s.0),
                "hands": to_json(&g.hand_results()),
                "outcome": to_json(&g.outcome()),
            }),
            AnyGame::Poly(g) => json!({
                "over": g.is_over(),
                "scores": g.scores(),
                "seat-scores": g.scores(),
                "winner": Family::winner(g).map(|s| s.0),
                "hands": Value::Array(Vec::new()),
                "outcome": to_json(&g.outcome()),
            }),
        }
    }

    /// The side each seat scores for.
    pub fn sides(&self) -> Vec<u8> {
        match self {
            AnyGame::Tiles(g) => (0..Family::seats(g)).map(|s| Family::side_of(g, Seat(s)).0).collect(),
            AnyGame::Poly(g) => (0..Family::seats(g)).collect(),
        }
    }
}

/// The JSON shape of a move of either family (`{"kind": "play", ...}`),
/// as the protocol's `move` carries it beside `family`.
pub fn move_json(m: &AnyMove) -> Value {
    match m {
        AnyMove::Tiles(m) => to_json(m),
        AnyMove::Poly(m) => to_json(m),
    }
}

/// The keys of a two-faced move's JSON shape ([`move_json`]): `kind`, and
/// a play's `tile`, `end` and `face`.
pub fn move_keys(m: &Move) -> usize {
    match m {
        Move::Play { .. } => 4,
        Move::Draw | Move::Pass => 1,
    }
}

/// A poly view as the package hands it out: the protocol's snapshot, with
/// the viewer's legal moves beside it under `legal-moves` (as a two-faced
/// snapshot carries them; a poly prompt sends them beside its view).
pub fn poly_view_json(snap: &capicua_engine::poly::PolyViewSnapshot, legal: &[AnyMove]) -> Value {
    let mut value = to_json(snap);
    if let Value::Object(map) = &mut value {
        map.insert("legal-moves".into(), Value::Array(legal.iter().map(move_json).collect()));
    }
    value
}

/// A move of either family serialized as itself (no `family` tag), for
/// handing to Python.
pub struct BareMove<'a>(pub &'a AnyMove);

impl serde::Serialize for BareMove<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            AnyMove::Tiles(m) => m.serialize(s),
            AnyMove::Poly(m) => m.serialize(s),
        }
    }
}

/// The events of one move, of either family, as every seat sees them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum AnyEvents {
    /// Two-faced events (all public).
    Tiles(Vec<capicua_engine::Event>),
    /// Poly events, a `drew` naming no tile.
    Poly(Vec<capicua_engine::poly::PolyEvent>),
}

/// A seat's view as a strategy is handed it: read like the dict
/// `Game.view(seat)` returns (`view["hand"]`, `view["legal-moves"]`), built
/// into Python objects only when first read.
pub enum Snap {
    /// Two-faced dominoes (the snapshot carries the legal moves).
    Tiles(Box<ViewSnapshot>),
    /// Tiles with 3, 4 or 6 faces, and the viewer's legal moves.
    Poly(Box<PolyViewSnapshot>, Vec<AnyMove>),
}

impl Snap {
    /// The view as the protocol's JSON.
    pub fn json(&self) -> Value {
        match self {
            Snap::Tiles(s) => to_json(s),
            Snap::Poly(s, legal) => poly_view_json(s, legal),
        }
    }
}

/// One key of a two-faced view, read from the seat itself rather than
/// from a whole [`ViewSnapshot`]: a Python strategy that reads its hand
/// and legal moves pays for those alone. Serializes as the snapshot's
/// value of the key does.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum TilesField {
    /// `legal-moves`.
    Moves(Vec<Move>),
    /// `hand`.
    Hand(Option<TileSet>),
    /// `seat`, `to-move`.
    Seat(Option<Seat>),
    /// `leader`.
    Leader(Seat),
    /// `ends`.
    Ends(Vec<OpenEnd>),
    /// `history`.
    History(Vec<Record>),
    /// `hand-sizes`.
    Sizes(Vec<u8>),
    /// `scores`, `play-points`.
    Points(Vec<i32>),
    /// `stock`.
    Count(usize),
    /// `hand-number`.
    Number(u32),
    /// `variant`.
    Name(String),
    /// `lead-requirement`.
    Lead(Option<LeadRequirement>),
}

/// The key `key` of the view of `seat`, the seat to move, whose legal
/// moves are `legal`: the same value as the key of `seat.snapshot()`, for
/// the keys a strategy reads most; `None` for the others (whole-table
/// keys such as `hands`, `results` or `outcome`, and those a snapshot
/// leaves out when empty), which the snapshot answers.
pub fn tiles_field(seat: &dyn SeatView, legal: &[Move], key: &str) -> Option<TilesField> {
    Some(match key {
        "legal-moves" => TilesField::Moves(legal.to_vec()),
        "hand" => TilesField::Hand(Some(seat.hand())),
        // The seat is lent while it chooses: it is to move.
        "seat" | "to-move" => TilesField::Seat(Some(seat.seat())),
        "leader" => TilesField::Leader(seat.leader()),
        "ends" => TilesField::Ends(seat.ends().to_vec()),
        "history" => TilesField::History(seat.history().to_vec()),
        "hand-sizes" => TilesField::Sizes((0..seat.seats()).map(|s| seat.hand_len(Seat(s)) as u8).collect()),
        "scores" => TilesField::Points(seat.scores().to_vec()),
        "play-points" => TilesField::Points(seat.play_points().to_vec()),
        "stock" => TilesField::Count(seat.stock_len()),
        "hand-number" => TilesField::Number(seat.hand_number()),
        "variant" => TilesField::Name(seat.rules().variant().name.clone()),
        "lead-requirement" => TilesField::Lead(seat.lead_requirement()),
        _ => return None,
    })
}

/// The keys [`tiles_field`] answers.
pub const TILES_FIELDS: [&str; 14] = [
    "legal-moves",
    "hand",
    "seat",
    "to-move",
    "leader",
    "ends",
    "history",
    "hand-sizes",
    "scores",
    "play-points",
    "stock",
    "hand-number",
    "variant",
    "lead-requirement",
];
