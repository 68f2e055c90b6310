//! Strategies for tiles with 3, 4 or 6 faces ([`capicua_engine::poly`]).
//!
//! A [`PolyStrategy`] sees a seat's [`PolyView`] (its hand, the board, the
//! sizes of the other hands and of the stock, the scores), never the hidden
//! tiles, and returns one of the seat's legal moves. The arena
//! ([`run_poly_arena`], behind `capicua-bot poly-arena` and Python's
//! `capicua.arena`) and the server share these implementations, built by
//! name with [`build_poly`]:
//!
//! ```
//! use capicua_engine::poly::{PolyGame, PolyRules};
//! use capicua_strategy::poly::build_poly;
//!
//! let mut game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 7).unwrap();
//! let mut bots = [build_poly("pimc:samples=4", 1).unwrap(), build_poly("greedy", 2).unwrap()];
//! for _ in 0..6 {
//!     let seat = game.to_move().unwrap();
//!     let m = bots[seat as usize].choose(&game.view(seat));
//!     game.play(m).expect("strategies choose legal moves");
//! }
//! assert!(build_poly("smart", 1).is_err(), "two-faced strategies are not poly strategies");
//! ```

mod arena;
mod pimc;
mod record;

use std::time::Duration;

use capicua_engine::poly::{PolyMove, PolyMoveList, PolyView};

pub use arena::{PolyArenaReport, run_poly_arena};
pub use pimc::{PolyAnalysis, PolyBudget, PolyModel, PolyMoveEstimate, PolyPimc, PolyPimcConfig, PolyRollout};

use crate::error::SpecError;
use crate::rng::BotRng;
use crate::spec::Policy;

/// A way of playing tiles with 3, 4 or 6 faces.
pub trait PolyStrategy: Send {
    /// The strategy as a spec string (what [`build_poly`] parses).
    fn name(&self) -> String;

    /// Picks one of the viewer's legal moves. Called only when the viewer is
    /// to move (it then has at least one legal move).
    fn choose(&mut self, view: &PolyView<'_>) -> PolyMove;

    /// Whether a move costs one pass over the legal moves (as
    /// [`Strategy::is_quick`](crate::Strategy::is_quick)); searches are not
    /// quick.
    fn is_quick(&self) -> bool {
        false
    }

    /// Restarts the strategy's random stream (an arena calls this before
    /// every match).
    fn reseed(&mut self, seed: u64);
}

/// Every poly strategy name with a one-line description.
pub const POLY_STRATEGIES: &[(&str, &str)] = &[
    ("random", "uniform over the legal moves"),
    ("greedy", "places the tile with the most pips (the first such move listed)"),
    (
        "pimc",
        "perfect-information Monte Carlo: samples the unseen tiles, plays each move out to the end of the hand (by default every seat placing its heaviest tile; rollout=block: the others greedily, itself keeping easy tiles and blocking the next seat's last ones), keeps the best mean point lead [samples=40, ms=<cap>, rollout=heavy|first|tight|block]",
    ),
];

/// `random`: a legal move drawn uniformly.
#[derive(Clone, Debug)]
pub struct PolyRandom {
    rng: BotRng,
    moves: PolyMoveList,
}

impl PolyRandom {
    /// A random player.
    pub fn new(seed: u64) -> PolyRandom {
        PolyRandom { rng: BotRng::new(seed), moves: PolyMoveList::default() }
    }
}

impl PolyStrategy for PolyRandom {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, view: &PolyView<'_>) -> PolyMove {
        view.legal_moves(&mut self.moves);
        match self.moves.len() {
            0 => PolyMove::Pass,
            n => self.moves[self.rng.below(n)],
        }
    }

    fn is_quick(&self) -> bool {
        true
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = BotRng::new(seed);
    }
}

/// `greedy`: the legal move placing the tile with the most pips, the first
/// such in the order the engine lists moves (deterministic).
#[derive(Clone, Debug, Default)]
pub struct PolyGreedy {
    moves: PolyMoveList,
}

impl PolyGreedy {
    /// A greedy player.
    pub fn new() -> PolyGreedy {
        PolyGreedy::default()
    }
}

/// The pips a move places (-1 for a draw or a pass).
fn pips_placed(view: &PolyView<'_>, m: PolyMove) -> i32 {
    match m {
        PolyMove::Play { tile, .. } => view.tile(tile).map_or(0, |t| t.value()),
        _ => -1,
    }
}

impl PolyStrategy for PolyGreedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, view: &PolyView<'_>) -> PolyMove {
        view.legal_moves(&mut self.moves);
        let mut best: Option<(PolyMove, i32)> = None;
        for &m in self.moves.iter() {
            let v = pips_placed(view, m);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((m, v));
            }
        }
        best.map_or(PolyMove::Pass, |(m, _)| m)
    }

    fn is_quick(&self) -> bool {
        true
    }

    fn reseed(&mut self, _seed: u64) {}
}

/// Builds the poly strategy a spec names (`random`, `greedy`, `pimc`,
/// `pimc:samples=100:ms=20`), its random stream seeded by `seed`, with the
/// operator's [`Policy::TRUSTED`] policy.
pub fn build_poly(spec: &str, seed: u64) -> Result<Box<dyn PolyStrategy>, SpecError> {
    build_poly_with(spec, seed, &Policy::TRUSTED)
}

/// Builds the poly strategy a spec names under `policy`: a spec from the
/// network is short and its search stays within the policy's
/// [`SearchCaps`](crate::SearchCaps) (`samples` and the time per move;
/// a search that names no time gets the cap's).
///
/// ```
/// use capicua_strategy::poly::build_poly_with;
/// use capicua_strategy::spec::{Policy, SearchCaps};
///
/// let net = Policy::network(SearchCaps::default());
/// assert_eq!(build_poly_with("pimc", 1, &net).unwrap().name(), "pimc:ms=2000");
/// assert!(build_poly_with("pimc:samples=1000000", 1, &net).is_err());
/// assert!(build_poly_with("pimc:ms=60000", 1, &net).is_err());
/// ```
pub fn build_poly_with(spec: &str, seed: u64, policy: &Policy) -> Result<Box<dyn PolyStrategy>, SpecError> {
    let spec = spec.trim();
    let len = spec.chars().count();
    if len > policy.max_len {
        return Err(SpecError::TooLong { len, max: policy.max_len });
    }
    let mut parts = spec.split(':');
    let name = parts.next().filter(|n| !n.is_empty()).ok_or(SpecError::Empty)?;
    let bad = |param: &str, reason: &str| SpecError::BadParameter {
        strategy: name.into(),
        param: param.into(),
        reason: reason.into(),
    };
    let params: Vec<(&str, &str)> =
        parts.map(|p| p.split_once('=').ok_or_else(|| bad(p, "expected key=value"))).collect::<Result<_, _>>()?;
    let capped = |param: &str, v: &str, cap: Option<u32>| {
        let n = v.parse::<u32>().map_err(|_| bad(param, "expected a whole number"))?;
        match cap {
            Some(max) if n > max => Err(bad(param, &format!("at most {max} on this server"))),
            _ => Ok(n),
        }
    };
    let no_params = || match params.first() {
        Some((k, _)) => Err(bad(k, "this strategy takes no parameters")),
        None => Ok(()),
    };
    let caps = policy.caps;
    Ok(match name {
        "random" => no_params().map(|_| Box::new(PolyRandom::new(seed)) as Box<dyn PolyStrategy>)?,
        "greedy" => no_params().map(|_| Box::new(PolyGreedy::new()) as Box<dyn PolyStrategy>)?,
        "pimc" => {
            let mut c = PolyPimcConfig::default();
            for &(k, v) in &params {
                match k {
                    "samples" => c.budget.samples = capped(k, v, caps.map(|c| c.samples))?.max(1),
                    "ms" => {
                        let max_ms = caps.map(|c| c.time.as_millis().min(u32::MAX as u128) as u32);
                        c.budget.time = Some(Duration::from_millis(capped(k, v, max_ms)? as u64));
                    }
                    "model" => {
                        c.model = match v {
                            "heavy" => PolyModel::Heavy,
                            "uniform" => PolyModel::Uniform,
                            _ => return Err(bad(k, "expected heavy or uniform")),
                        }
                    }
                    "rollout" => {
                        c.rollout = match v {
                            "heavy" => PolyRollout::Heavy,
                            "first" => PolyRollout::First,
                            "tight" => PolyRollout::Tight,
                            "block" => PolyRollout::Block,
                            _ => return Err(bad(k, "expected heavy, first, tight or block")),
                        }
                    }
                    _ => return Err(bad(k, "unknown parameter")),
                }
            }
            if let (None, Some(caps)) = (c.budget.time, caps) {
                c.budget.time = Some(caps.time);
            }
            Box::new(PolyPimc::new(c, seed))
        }
        other => return Err(SpecError::UnknownStrategy(other.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::poly::PolyGame;

    #[test]
    fn names_round_trip_and_bad_specs_are_refused() {
        for spec in [
            "random",
            "greedy",
            "pimc",
            "pimc:samples=7",
            "pimc:samples=7:ms=30",
            "pimc:model=uniform",
            "pimc:rollout=block",
            "pimc:rollout=first",
            "pimc:rollout=tight",
        ] {
            assert_eq!(build_poly(spec, 1).unwrap().name(), spec);
        }
        assert_eq!(build_poly("nobody", 1).err(), Some(SpecError::UnknownStrategy("nobody".into())));
        assert!(matches!(build_poly("greedy:x=1", 1), Err(SpecError::BadParameter { .. })));
        assert!(matches!(build_poly("pimc:samples=many", 1), Err(SpecError::BadParameter { .. })));
        assert!(matches!(build_poly("pimc:depth=3", 1), Err(SpecError::BadParameter { .. })));
        assert!(matches!(build_poly("pimc:rollout=deep", 1), Err(SpecError::BadParameter { .. })));
        assert_eq!(build_poly("pimc:rollout=heavy", 1).unwrap().name(), "pimc");
        assert!(matches!(build_poly("pimc:samples", 1), Err(SpecError::BadParameter { .. })));
        assert_eq!(build_poly("", 1).err(), Some(SpecError::Empty));
        assert!(build_poly("random", 1).unwrap().is_quick());
        assert!(!build_poly("pimc", 1).unwrap().is_quick());
    }

    /// Every listed strategy builds, and every strategy plays whole matches
    /// of every preset with legal moves only.
    #[test]
    fn every_strategy_plays_legal_moves_to_the_end() {
        for (name, _) in POLY_STRATEGIES {
            build_poly(name, 1).unwrap();
        }
        for preset in ["triominoes", "quadominoes", "hexominoes", "graph-triominoes"] {
            let mut rules = capicua_engine::poly::poly_preset(preset).unwrap();
            rules.target = capicua_engine::poly::PolyMatchTarget::Hands(1);
            let rules = rules.validate().unwrap();
            let mut game = PolyGame::new(rules, 3, 4).unwrap();
            let mut bots: Vec<_> =
                ["pimc:samples=2", "random", "greedy"].iter().map(|s| build_poly(s, 1).unwrap()).collect();
            while let Some(seat) = game.to_move() {
                let m = bots[seat as usize].choose(&game.view(seat));
                game.play(m).unwrap_or_else(|e| panic!("{preset}: {e}"));
            }
            assert!(game.outcome().is_some());
        }
    }
}
