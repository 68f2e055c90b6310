//! The state of the rarely used rules (conditional rules, end rules,
//! per-deal tile values, shown tiles, the lenient referee): boxed in the
//! [`Game`](super::Game) only for variants that use them, so a classic game
//! carries one empty pointer.

use crate::rules::Rules;
use crate::seating::MAX_SEATS;
use crate::tile::TileSet;
use crate::variant::{Condition, EndRule, HandVisibility, Referee, TurnOrder};

/// Move kinds, as bits, after which a condition may change.
pub(super) const ON_PLAY: u8 = 1;
pub(super) const ON_DRAW: u8 = 2;
pub(super) const ON_PASS: u8 = 4;

/// State of the rarely used rules.
#[derive(Clone, Debug)]
pub(super) struct Ext {
    /// Passes this hand, by seat.
    pub(super) passes: [u8; MAX_SEATS],
    /// Bit `s`: seat `s`'s last turn this hand was a pass.
    pub(super) passed_last: u16,
    /// Bit `i`: `when[i]` holds now.
    pub(super) active: u32,
    /// The move kinds after which some condition may change.
    pub(super) watch_kinds: u8,
    /// Per-deal tile values by tile id (random tile-value rules).
    pub(super) values: Option<Box<[i32]>>,
    /// Tiles of each hand shown to everyone (partial visibility), as dealt.
    pub(super) shown: [TileSet; MAX_SEATS],
    /// Log positions of the illegal plays a lenient referee accepted.
    pub(super) lenient: Vec<u32>,
    /// The lenient referee is applying an illegal play.
    pub(super) overruling: bool,
    /// The passes ahead are known not to go round for ever: they reach a
    /// seat that can move, or end the hand themselves. Set by the probe of
    /// `Game::end_if_passing_forever`, cleared by a play or a draw.
    pub(super) passes_probed: bool,
    /// What the forced passes may change and some rule reads, clamped to
    /// where the rules stop telling values apart (see `PassState`).
    pub(super) pass_clamp: u8,
    /// Likewise for the turn count ([`Condition::TurnsAbove`]); `u32::MAX`
    /// when a random turn order reads the exact count.
    pub(super) turns_clamp: u32,
}

impl Ext {
    /// Whether a game of these rules needs the extra state.
    pub(super) fn needed(rules: &Rules) -> bool {
        let v = rules.variant();
        !v.when.is_empty()
            || !v.end.is_empty()
            || v.tiles.value.is_random()
            || matches!(v.visibility.hands, HandVisibility::Shown { .. })
            || matches!(v.referee, Referee::Lenient(_))
    }

    pub(super) fn new(rules: &Rules) -> Ext {
        let watch_kinds = rules.variant().when.iter().fold(0u8, |k, w| {
            k | match w.condition {
                Condition::SeatPasses(_) | Condition::TeamPasses(_) | Condition::PassedLastTurn => ON_PLAY | ON_PASS,
                Condition::AnySeatPasses(_) => ON_PASS,
                Condition::NobodyCanPlay => ON_PLAY | ON_DRAW,
                Condition::PipsAbove(_) => ON_PLAY | ON_DRAW | ON_PASS,
                Condition::TurnsAbove(_) => ON_PLAY | ON_PASS,
                Condition::HandsAbove(_) => 0,
            }
        });
        let v = rules.variant();
        let pass_clamp = v
            .when
            .iter()
            .filter_map(|w| match w.condition {
                Condition::SeatPasses(n) | Condition::AnySeatPasses(n) | Condition::TeamPasses(n) => Some(n),
                _ => None,
            })
            .chain(v.end.iter().filter_map(|e| match *e {
                EndRule::MostPassed(k) => Some(k),
                EndRule::HandScore(_) => None,
            }))
            .max()
            .unwrap_or(0);
        let random_order = v.turn.order == TurnOrder::RandomSeat
            || v.when.iter().any(|w| w.rules.order == Some(TurnOrder::RandomSeat));
        let turns_clamp = if random_order {
            u32::MAX
        } else {
            v.when
                .iter()
                .filter_map(|w| match w.condition {
                    Condition::TurnsAbove(x) => Some(x.saturating_add(1)),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        Ext {
            passes: [0; MAX_SEATS],
            passed_last: 0,
            active: 0,
            watch_kinds,
            values: None,
            shown: [TileSet::EMPTY; MAX_SEATS],
            lenient: Vec::new(),
            overruling: false,
            passes_probed: false,
            pass_clamp,
            turns_clamp,
        }
    }
}
