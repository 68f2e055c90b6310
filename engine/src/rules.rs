//! Validated rules: a [`Variant`] that is known to be playable, with the
//! tables the move generator reads precomputed.

use std::sync::Arc;

use crate::board::MAX_ENDS;
use crate::error::VariantError;
use crate::moves::MAX_MOVES;
use crate::seating::{MAX_SEATS, Seating, Table};
use crate::tile::{MAX_PIP, PIP_VALUES, Tile, TileCatalog, TileSet};
use crate::variant::*;

/// A validated variant. The only way to get one is [`Variant::validate`]
/// (or [`Rules::preset`]), so a [`Game`](crate::Game) never meets a rule
/// combination that cannot be played.
#[derive(Clone, Debug)]
pub struct Rules {
    variant: Variant,
    catalog: TileCatalog,
    /// `joins[e]`: bit `f` set when a face showing `f` may join an end showing `e`.
    joins: [u32; PIP_VALUES],
    /// `playable[e]`: the tiles with some face that joins an end showing `e`.
    playable: [TileSet; PIP_VALUES],
    /// `by_face[e][f]`: the tiles that join an end showing `e` by face `f`
    /// (face 1 only for non-doubles: a double joins the same way either side).
    by_face: [[TileSet; 2]; PIP_VALUES],
    /// `narrow_by_face[e]`: for a catalog of at most 32 tiles, the first
    /// word of `by_face[e][0]` in the low half and of `by_face[e][1]` in
    /// the high half: a hand copied into both halves ANDs with it into the
    /// packed plays of the narrow move generator.
    narrow_by_face: [u64; PIP_VALUES],
    max_ends: usize,
    /// For a variant with conditional rules: the rules in force for each
    /// set of active conditions (bit `i`: `when[i]` holds), index 0 unused.
    alternates: Vec<Arc<Rules>>,
}

/// Most `[[when]]` entries: every combination is compiled at validation.
pub const MAX_WHEN: usize = 6;

impl Variant {
    /// Checks every field and combination and returns playable [`Rules`].
    ///
    /// The error names the field in the variant-file spelling.
    ///
    /// ```
    /// use capicua_engine::{preset, Rest, WhenUnable};
    /// let mut v = preset("block").unwrap();
    /// v.stuck.when_unable = WhenUnable::DrawUntilPlayable;
    /// v.deal.rest = Rest::OutOfPlay;
    /// let e = v.validate().unwrap_err();
    /// assert_eq!(e.field, "stuck.when-unable");
    /// ```
    pub fn validate(&self) -> Result<Rules, VariantError> {
        Rules::new(self.clone())
    }
}

impl Rules {
    /// Validates a variant.
    ///
    /// The checks run in a fixed order, so a variant with several faults
    /// always reports the same one.
    pub fn new(variant: Variant) -> Result<Rules, VariantError> {
        let v = &variant;
        check_name_and_set(v)?;
        let catalog = TileCatalog::double_n(v.tiles.max_pip, |t| v.tiles.value.of(t));
        check_players(v)?;
        let max_hand = largest_hand(v, &catalog)?;
        check_stuck_and_turns(v)?;
        check_lead(v, &catalog)?;
        let tables = JoinTables::build(v, &catalog)?;
        let max_ends = max_ends(v, &catalog)?;
        check_move_bound(v, &catalog, &tables, max_ends, max_hand)?;
        check_scoring(v)?;
        check_target(v)?;
        if v.visibility.hands == HandVisibility::Partners && v.players.teams == Teams::None {
            return Err(err("visibility.hands", "\"partners\" needs teams (players.teams)"));
        }
        validate_extras(v)?;
        let alternates = compile_when(v)?;

        let JoinTables { joins, playable, by_face, .. } = tables;
        let narrow_by_face = std::array::from_fn(|e| by_face[e][0].0[0] & 0xffff_ffff | by_face[e][1].0[0] << 32);
        Ok(Rules { variant, catalog, joins, playable, by_face, narrow_by_face, max_ends, alternates })
    }

    /// A named preset, validated. See [`preset`](crate::preset) for the names.
    ///
    /// ```
    /// let r = capicua_engine::Rules::preset("cuban").unwrap();
    /// assert_eq!(r.catalog().len(), 55);
    /// ```
    pub fn preset(name: &str) -> Option<Rules> {
        crate::presets::preset(name).map(|v| v.validate().expect("presets are valid"))
    }

    /// The variant these rules were validated from.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }
    /// The tile set.
    pub fn catalog(&self) -> &TileCatalog {
        &self.catalog
    }
    /// The hand size for `seats` seats (validated to exist in the seat range).
    pub fn hand_size(&self, seats: u8) -> u8 {
        self.variant.deal.hand_size.for_seats(seats).unwrap_or(0)
    }
    /// The most open ends the layout can have.
    pub fn max_ends(&self) -> usize {
        self.max_ends
    }
    /// Whether a face showing `face` may join an end showing `end` (by the
    /// matching rule alone; wild tiles join by any face).
    #[inline]
    pub fn joins(&self, end: u8, face: u8) -> bool {
        self.joins[end as usize] & (1 << face) != 0
    }
    /// Whether `tile` may join an end showing `end` by face `face` (0: the
    /// low face touches; 1: the high face), wild tiles included.
    #[inline]
    pub fn joins_by_face(&self, end: u8, tile: Tile, face: u8) -> bool {
        face < 2 && self.by_face[end as usize][face as usize].contains(tile)
    }
    /// The tiles that may join an end showing `end`.
    #[inline]
    pub fn playable_on(&self, end: u8) -> TileSet {
        self.playable[end as usize]
    }
    /// The tiles that join an end showing `end` by face `face` (0 or 1).
    #[inline]
    pub fn joining_by_face(&self, end: u8, face: usize) -> &TileSet {
        &self.by_face[end as usize][face]
    }
    /// [`Rules::joining_by_face`] of both faces packed into one word, for
    /// a catalog of at most 32 tiles (face 1 in the high half).
    #[inline]
    pub(crate) fn narrow_joining(&self, end: u8) -> u64 {
        self.narrow_by_face[end as usize]
    }
    /// Whether some open ends belong to a seat and are closed to the others
    /// until that seat passes: a longana's arms under `own-or-opened`, the
    /// private trains of a train game.
    pub fn restricted_arms(&self) -> bool {
        matches!(
            self.variant.board,
            BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened, .. }) | BoardLayout::Trains(_)
        )
    }
    /// Penalty scoring ([`HandPoints::OwnPips`]): sides collect the pips
    /// left in their hands and the lowest total wins.
    pub fn penalty_scoring(&self) -> bool {
        self.variant.scoring.out == HandPoints::OwnPips
    }
    /// Whether seats may draw from the stock at all.
    pub fn draws(&self) -> bool {
        self.variant.deal.rest == Rest::Stock && self.variant.stuck.when_unable != WhenUnable::Pass
    }
    /// The seat range.
    pub fn seat_range(&self) -> std::ops::RangeInclusive<u8> {
        self.variant.players.min..=self.variant.players.max
    }
    /// The rules in force while the conditional rules of `mask` hold (bit
    /// `i` for `when[i]`); `None` for mask 0 or a variant without `when`.
    pub fn when_rules(&self, mask: u32) -> Option<&Arc<Rules>> {
        if mask == 0 { None } else { self.alternates.get(mask as usize) }
    }
    /// Whether `t` is in this set.
    pub fn has_tile(&self, t: Tile) -> bool {
        t.index() < self.catalog.len()
    }
}

/// The largest number of points any one rule may name (a bonus, a target, a
/// penalty): scores stay far from `i32`'s limits over any match.
pub const MAX_POINTS: i32 = 100_000;

/// A validation error on `field`.
fn err(field: impl Into<String>, message: impl Into<String>) -> VariantError {
    VariantError::new(field, message)
}

/// The variant has a name and its tile set exists.
fn check_name_and_set(v: &Variant) -> Result<(), VariantError> {
    if v.name.trim().is_empty() {
        return Err(err("name", "must not be empty"));
    }
    if v.tiles.max_pip > MAX_PIP {
        return Err(err("tiles.max-pip", format!("{} is above the largest set, double-{MAX_PIP}", v.tiles.max_pip)));
    }
    Ok(())
}

/// The seat range fits the engine and every seat count can be seated in
/// the asked teams.
fn check_players(v: &Variant) -> Result<(), VariantError> {
    let (min, max) = (v.players.min, v.players.max);
    if min < 2 || max as usize > MAX_SEATS || min > max {
        return Err(err(
            "players",
            format!("min {min} / max {max}: seats must satisfy 2 <= min <= max <= {MAX_SEATS}"),
        ));
    }
    for n in min..=max {
        Table::resolve(&Seating::new(n), &v.players.teams)
            .map_err(|e| err("players.teams", format!("with {n} seats: {e}")))?;
    }
    Ok(())
}

/// Checks that every seat count is dealt a hand that fits the set, and
/// returns the most tiles one hand can ever hold: the deal plus all the
/// stock it may draw.
fn largest_hand(v: &Variant, catalog: &TileCatalog) -> Result<usize, VariantError> {
    let mut max_hand = 0usize;
    for n in v.players.min..=v.players.max {
        let Some(h) = v.deal.hand_size.for_seats(n) else {
            return Err(err("deal.hand-size", format!("no hand size for {n} seats")));
        };
        if h == 0 || n as usize * h as usize > catalog.len() {
            return Err(err(
                "deal.hand-size",
                format!("{n} seats x {h} tiles does not fit the {} tiles of double-{}", catalog.len(), v.tiles.max_pip),
            ));
        }
        let stock = catalog.len() - n as usize * h as usize;
        let drawable = if v.deal.rest == Rest::Stock && v.stuck.when_unable != WhenUnable::Pass {
            stock.saturating_sub(v.stuck.keep.for_seats(n) as usize)
        } else {
            0
        };
        max_hand = max_hand.max(h as usize + drawable);
    }
    Ok(max_hand)
}

/// What a stuck seat does can be carried out, and no turn order can go on
/// forever.
fn check_stuck_and_turns(v: &Variant) -> Result<(), VariantError> {
    if v.stuck.when_unable != WhenUnable::Pass && v.deal.rest == Rest::OutOfPlay {
        return Err(err("stuck.when-unable", "drawing needs a stock: set deal.rest = \"stock\""));
    }
    if v.stuck.may_pass && v.turn.max_turns == 0 {
        return Err(err("turn.max-turns", "passing while able could go on forever: set a turn cap"));
    }
    if v.turn.order == TurnOrder::ReverseOnPass && v.turn.max_turns == 0 {
        // Two stuck seats can hand the turn back and forth forever while
        // the seats that could play never move.
        return Err(err("turn.max-turns", "reverse-on-pass can bounce between stuck seats forever: set a turn cap"));
    }
    if v.stuck.when_unable == WhenUnable::DrawUpTo(0) {
        return Err(err("stuck.when-unable", "draw-up-to needs at least 1 tile"));
    }
    Ok(())
}

/// The first leader exists, and a board that opens from a double always
/// gets one.
fn check_lead(v: &Variant, catalog: &TileCatalog) -> Result<(), VariantError> {
    let min = v.players.min;
    match v.lead.first {
        FirstLeader::HolderOf(t) if t.index() >= catalog.len() => {
            return Err(err("lead.first", format!("{t} is not in the double-{} set", v.tiles.max_pip)));
        }
        FirstLeader::Seat(s) if s >= min => {
            return Err(err("lead.first", format!("seat {s} does not exist with {min} seats")));
        }
        _ => {}
    }
    if v.lead.first == FirstLeader::RoundDouble && v.lead.later != LaterLeader::AsFirst {
        return Err(err("lead.later", "round-double picks every hand's leader: set lead.later = \"as-first\""));
    }
    if let BoardLayout::Longana(_) | BoardLayout::Trains(_) | BoardLayout::ChickenFoot(_) = v.board {
        let first_double = match v.lead.first {
            FirstLeader::HolderOf(t) => t.is_double(),
            FirstLeader::HighestDouble | FirstLeader::RoundDouble => true,
            FirstLeader::Seat(_) | FirstLeader::Lot => v.lead.tile != LeadTile::Any,
        };
        let later_double = match v.lead.later {
            LaterLeader::AsFirst => first_double,
            LaterLeader::Winner | LaterLeader::Next => v.lead.tile != LeadTile::Any,
        };
        if !v.lead.redeal_without_double && v.lead.first != FirstLeader::RoundDouble {
            return Err(err("lead.redeal-without-double", "this board needs a lead double: set it to true"));
        }
        if !first_double || !later_double {
            return Err(err("lead", "this board opens from a double: lead.first and lead.tile must require one"));
        }
    }
    Ok(())
}

/// The matching tables the move generator reads, and the wild tiles they
/// were built with.
struct JoinTables {
    joins: [u32; PIP_VALUES],
    playable: [TileSet; PIP_VALUES],
    by_face: [[TileSet; 2]; PIP_VALUES],
    wild: TileSet,
}

impl JoinTables {
    /// Builds the tables, refusing a matching rule under which no tile could
    /// ever be played.
    fn build(v: &Variant, catalog: &TileCatalog) -> Result<JoinTables, VariantError> {
        let joins: [u32; PIP_VALUES] = std::array::from_fn(|e| {
            (0..PIP_VALUES as u8).filter(|&f| v.matching.joins(e as u8, f)).fold(0u32, |m, f| m | 1 << f)
        });
        if let MatchRule::CongruentMod(0) = v.matching {
            return Err(err("matching", "congruent-mod needs a positive modulus"));
        }
        let wild = wild_tiles(v, catalog)?;
        let ends = 0..=v.tiles.max_pip as usize;
        if !ends.clone().any(|e| joins[e] != 0) && wild.is_empty() {
            return Err(err("matching", "this rule never lets a tile join an end: no hand could be played"));
        }
        let playable: [TileSet; PIP_VALUES] = std::array::from_fn(|e| {
            (0..=v.tiles.max_pip).filter(|&f| joins[e] & (1 << f) != 0).fold(wild, |s, f| s.or(catalog.suit(f)))
        });
        let by_face = std::array::from_fn(|e| joining_by_face(joins[e], wild, catalog));
        Ok(JoinTables { joins, playable, by_face, wild })
    }

    /// Whether some tile could join one end by either of its two faces, so
    /// that playing it there is two distinct moves.
    fn two_ways(&self, catalog: &TileCatalog) -> bool {
        !self.wild.is_empty()
            || catalog.all().iter().any(|t| {
                let (a, b) = t.faces();
                a != b && (0..PIP_VALUES).any(|e| self.joins[e] & (1 << a) != 0 && self.joins[e] & (1 << b) != 0)
            })
    }
}

/// The wild tiles of the variant, all in its set.
fn wild_tiles(v: &Variant, catalog: &TileCatalog) -> Result<TileSet, VariantError> {
    Ok(match &v.wild {
        WildTiles::None => TileSet::EMPTY,
        WildTiles::List(tiles) => {
            if let Some(t) = tiles.iter().find(|t| t.index() >= catalog.len()) {
                return Err(err("wild", format!("{t} is not in the double-{} set", v.tiles.max_pip)));
            }
            tiles.iter().copied().collect()
        }
        WildTiles::Matadors => catalog
            .all()
            .iter()
            .filter(|t| {
                let (a, b) = t.faces();
                a + b == v.tiles.max_pip + 1 || (a == 0 && b == 0)
            })
            .collect(),
    })
}

/// The tiles that join an end whose joining faces are the bits of `joins`,
/// by the low face (0) and by the high face (1; non-doubles only).
fn joining_by_face(joins: u32, wild: TileSet, catalog: &TileCatalog) -> [TileSet; 2] {
    let mut m = [TileSet::EMPTY; 2];
    for t in catalog.all().iter() {
        let (lo, hi) = t.faces();
        // A wild tile joins by either face.
        if joins & (1 << lo) != 0 || wild.contains(t) {
            m[0].insert(t);
        }
        if lo != hi && (joins & (1 << hi) != 0 || wild.contains(t)) {
            m[1].insert(t);
        }
    }
    m
}

/// The most open ends the layout can have with this set, checked against
/// what the engine supports.
fn max_ends(v: &Variant, catalog: &TileCatalog) -> Result<usize, VariantError> {
    let doubles = catalog.doubles().len();
    let max = v.players.max as usize;
    let max_ends = match v.board {
        BoardLayout::Line => 2,
        BoardLayout::Spinner(SpinnerSpec { doubles: SpinnerDoubles::First, .. }) => 4,
        BoardLayout::Spinner(SpinnerSpec { doubles: SpinnerDoubles::Every, .. }) => 2 + 2 * doubles,
        BoardLayout::Longana(_) => max,
        BoardLayout::Trains(t) => max + t.public as usize,
        // The centre's sides, then each later double turns one end into `toes`.
        BoardLayout::ChickenFoot(c) => c.centre as usize + (doubles - 1) * (c.toes as usize).saturating_sub(1),
    };
    if let BoardLayout::ChickenFoot(c) = v.board
        && (!(2..=8).contains(&c.centre) || !(1..=5).contains(&c.toes))
    {
        return Err(err("board", "chicken-foot: centre must be 2..=8 sides and toes 1..=5"));
    }
    if max_ends > MAX_ENDS {
        return Err(err("board", format!("up to {max_ends} open ends with this set; the engine supports {MAX_ENDS}")));
    }
    Ok(max_ends)
}

/// The worst case of the move list fits it: every open end, every tile
/// that can join it, every distinct way of joining, plus draw and pass.
fn check_move_bound(
    v: &Variant,
    catalog: &TileCatalog,
    tables: &JoinTables,
    max_ends: usize,
    max_hand: usize,
) -> Result<(), VariantError> {
    let per_end = (0..=v.tiles.max_pip as usize).map(|e| tables.playable[e].len()).max().unwrap_or(0).min(max_hand);
    let ways = if tables.two_ways(catalog) { 2 } else { 1 };
    let worst = max_ends * per_end * ways + 2;
    if worst > MAX_MOVES {
        return Err(err(
            "board",
            format!("up to {worst} legal moves in one position; the engine supports {MAX_MOVES}"),
        ));
    }
    Ok(())
}

/// The scoring rules fit the board and each other, and something can score
/// when the match is played to points.
fn check_scoring(v: &Variant) -> Result<(), VariantError> {
    match v.scoring.during_play {
        PlayScoring::EndsMultipleOf(0) => {
            return Err(err("scoring.during-play", "ends-multiple-of needs a positive number"));
        }
        PlayScoring::Headers if v.board != BoardLayout::Line => {
            return Err(err("scoring.during-play", "headers count the two ends of a line: set board = \"line\""));
        }
        PlayScoring::None | PlayScoring::EndsMultipleOf(_) | PlayScoring::FivesAndThrees | PlayScoring::Headers => {}
    }
    let sc = &v.scoring;
    if (sc.out == HandPoints::OwnPips) != (sc.blocked == HandPoints::OwnPips) {
        return Err(err("scoring", "own-pips is penalty scoring for the whole match: set both out and blocked to it"));
    }
    if sc.out == HandPoints::OwnPips {
        if let MatchTarget::Points { exact: true, .. } = v.target {
            return Err(err("target.exact", "an exact target does not apply to penalty scoring (own-pips)"));
        }
        if sc.during_play != PlayScoring::None || sc.win_bonus != 0 || sc.capicua != Capicua::None {
            return Err(err("scoring", "own-pips counts penalty points only: no play scoring, win bonus or capicua"));
        }
    }
    let can_score = sc.out != HandPoints::Nothing
        || sc.blocked != HandPoints::Nothing
        || sc.win_bonus > 0
        || sc.during_play != PlayScoring::None
        || matches!(sc.capicua, Capicua::Bonus(b) if b > 0);
    if matches!(v.target, MatchTarget::Points { .. }) && !can_score {
        return Err(err("scoring", "nothing ever scores, so the points target can never be reached"));
    }
    Ok(())
}

/// The match target can be reached.
fn check_target(v: &Variant) -> Result<(), VariantError> {
    match v.target {
        MatchTarget::Points { points: 0, .. } => Err(err("target", "points must be positive")),
        MatchTarget::Hands(0) => Err(err("target", "hands must be positive")),
        _ => Ok(()),
    }
}

/// Checks the options that do not shape the move generator: tile values,
/// end rules, ranking, referee and visibility.
fn validate_extras(v: &Variant) -> Result<(), VariantError> {
    if !(-MAX_POINTS..=MAX_POINTS).contains(&v.scoring.win_bonus) {
        return Err(err(
            "scoring.win-bonus",
            format!("{} is outside {}..={MAX_POINTS}", v.scoring.win_bonus, -MAX_POINTS),
        ));
    }
    let json = serde_json::to_value(v).map_err(|e| err("variant", e.to_string()))?;
    crate::catalog::check_ranges(&json, "")?;
    if let TileValue::RandomFaces { lo, hi } = v.tiles.value
        && (lo > hi || lo < -1000 || hi > 1000)
    {
        return Err(err("tiles.value", format!("random-faces needs -1000 <= lo <= hi <= 1000, got {lo}..{hi}")));
    }
    let plays_score = v.scoring.during_play != PlayScoring::None
        || v.when.iter().any(|w| w.rules.during_play.is_some_and(|p| p != PlayScoring::None));
    for rule in &v.end {
        match *rule {
            EndRule::MostPassed(0) => return Err(err("end", "most-passed needs at least 1 pass")),
            EndRule::HandScore(0) => return Err(err("end", "hand-score needs a positive score")),
            EndRule::HandScore(_) if !plays_score => {
                return Err(err("end", "hand-score needs points scored during play (scoring.during-play)"));
            }
            EndRule::MostPassed(_) | EndRule::HandScore(_) => {}
        }
    }
    if v.ranking.never_played == 0 {
        return Err(err("ranking.never-played", "the multiplier must be at least 1"));
    }
    if let Referee::Lenient(l) = v.referee {
        for (name, f) in [("accept", l.accept), ("penalty", l.penalty)] {
            if !(0.0..=1.0).contains(&f.0) {
                return Err(err(format!("referee.lenient.{name}"), format!("{} is not between 0 and 1", f.0)));
            }
        }
    }
    Ok(())
}

/// Compiles the rules of every combination of `when` entries.
fn compile_when(v: &Variant) -> Result<Vec<Arc<Rules>>, VariantError> {
    if v.when.is_empty() {
        return Ok(Vec::new());
    }
    if v.when.len() > MAX_WHEN {
        return Err(VariantError::new("when", format!("{} entries; at most {MAX_WHEN}", v.when.len())));
    }
    for (i, w) in v.when.iter().enumerate() {
        if w.rules.is_empty() {
            return Err(VariantError::new(format!("when.{i}.use"), "overrides no rule"));
        }
        match w.condition {
            Condition::SeatPasses(0) | Condition::AnySeatPasses(0) | Condition::TeamPasses(0) => {
                return Err(VariantError::new(format!("when.{i}.if"), "a pass count of 0 always holds"));
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(1 << v.when.len());
    let mut base = v.clone();
    base.when.clear();
    out.push(Arc::new(Rules::new(base.clone())?));
    for mask in 1u32..(1 << v.when.len()) {
        let mut alt = base.clone();
        for (i, w) in v.when.iter().enumerate() {
            if mask & (1 << i) != 0 {
                w.rules.apply(&mut alt);
            }
        }
        let rules = Rules::new(alt).map_err(|e| {
            let field =
                if mask.is_power_of_two() { format!("when.{}.use", mask.trailing_zeros()) } else { "when".to_string() };
            let active: Vec<String> =
                (0..v.when.len()).filter(|i| mask & (1 << i) != 0).map(|i| i.to_string()).collect();
            let when = if mask.is_power_of_two() {
                "while it holds".to_string()
            } else {
                format!("while entries {} hold together", active.join(", "))
            };
            VariantError::new(field, format!("{when}: {}: {}", e.field, e.message))
        })?;
        out.push(Arc::new(rules));
    }
    Ok(out)
}
