//! The two tile families as a remote bot plays them: dominoes (two faces)
//! and tiles with 3, 4 or 6 faces ("poly"). One [`TileFamily`] each, so the
//! decider is written once for both.

use std::fmt::Display;
use std::sync::Arc;

use capicua_engine::poly::{PolyGame, PolyMove, PolyRules, PolyVariant, PolyViewSnapshot};
use capicua_engine::{Move, Rules, Seat, Variant, ViewSnapshot};
use capicua_strategy::poly::PolyStrategy;
use capicua_strategy::{SnapshotSeat, Strategy};

/// A tile family: its rules, a seat's view, its moves and its strategies.
pub(crate) trait TileFamily {
    /// The full rules as the server sends them (`game-started`, `sync`).
    type Variant;
    /// The rules, validated.
    type Rules: Clone;
    /// A seat's view of a match.
    type View: Clone;
    /// A move.
    type Move: Copy + PartialEq + Display;
    /// What chooses the moves.
    type Strategy: ?Sized;

    /// The rules of `variant`; `None` when they do not validate (a server
    /// newer than this bot).
    fn rules(variant: &Self::Variant) -> Option<Self::Rules>;
    /// The rules of the preset `name`.
    fn preset(name: &str) -> Option<Self::Rules>;
    /// The name of the variant `view` is of.
    fn variant_name(view: &Self::View) -> &str;
    /// The seat `view` is taken for; `None` for a spectator's.
    fn viewer(view: &Self::View) -> Option<u8>;
    /// The strategy's move for `seat` in the position of `view`: `Ok(None)`
    /// when it is not that seat's turn there, an error when the position
    /// cannot be rebuilt from the view.
    fn choose(
        strategy: &mut Self::Strategy,
        rules: &Self::Rules,
        view: &Self::View,
        seat: u8,
    ) -> Result<Option<Self::Move>, String>;
    /// The strategy's name, for messages.
    fn strategy_name(strategy: &Self::Strategy) -> String;
}

/// Dominoes: tiles with two faces.
pub(crate) struct Tiles;

impl TileFamily for Tiles {
    type Variant = Variant;
    type Rules = Rules;
    type View = ViewSnapshot;
    type Move = Move;
    type Strategy = dyn Strategy;

    fn rules(variant: &Variant) -> Option<Rules> {
        variant.validate().ok()
    }
    fn preset(name: &str) -> Option<Rules> {
        Rules::preset(name)
    }
    fn variant_name(view: &ViewSnapshot) -> &str {
        &view.variant
    }
    fn viewer(view: &ViewSnapshot) -> Option<u8> {
        view.seat.map(|s| s.0)
    }
    fn choose(
        strategy: &mut Self::Strategy,
        rules: &Rules,
        view: &ViewSnapshot,
        seat: u8,
    ) -> Result<Option<Move>, String> {
        if view.to_move != Some(Seat(seat)) {
            return Ok(None);
        }
        let at = SnapshotSeat::new(rules, view).map_err(|e| e.to_string())?;
        Ok(Some(strategy.choose(&at)))
    }
    fn strategy_name(strategy: &Self::Strategy) -> String {
        strategy.name()
    }
}

/// Tiles with 3, 4 or 6 faces.
pub(crate) struct Poly;

impl TileFamily for Poly {
    type Variant = PolyVariant;
    type Rules = Arc<PolyRules>;
    type View = PolyViewSnapshot;
    type Move = PolyMove;
    type Strategy = dyn PolyStrategy;

    fn rules(variant: &PolyVariant) -> Option<Arc<PolyRules>> {
        variant.validate().ok().map(Arc::new)
    }
    fn preset(name: &str) -> Option<Arc<PolyRules>> {
        PolyRules::preset(name).map(Arc::new)
    }
    fn variant_name(view: &PolyViewSnapshot) -> &str {
        &view.variant
    }
    fn viewer(view: &PolyViewSnapshot) -> Option<u8> {
        view.seat
    }
    fn choose(
        strategy: &mut Self::Strategy,
        rules: &Arc<PolyRules>,
        view: &PolyViewSnapshot,
        seat: u8,
    ) -> Result<Option<PolyMove>, String> {
        let game = PolyGame::from_snapshot(rules.clone(), view).map_err(|e| e.to_string())?;
        if game.to_move() != Some(seat) {
            return Ok(None);
        }
        Ok(Some(strategy.choose(&game.view(seat))))
    }
    fn strategy_name(strategy: &Self::Strategy) -> String {
        strategy.name()
    }
}
