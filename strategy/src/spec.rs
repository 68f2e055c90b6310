//! Strategies by name: the registry and the spec-string language.
//!
//! A spec is one of:
//!
//! - a name, with optional `:key=value` parameters: `random`, `pimc`,
//!   `pimc:samples=100:ms=20`, `ismcts:iterations=500`, `cheater:inner=smart`;
//! - a conditional: `X while CONDITION else Y`, where `Y` may itself be a
//!   conditional (`bota-gorda while hand-pips > 25 else smart`);
//! - `@path`: a file holding a spec (lines are joined, `#` starts a comment).

use std::time::Duration;

use crate::determinize::PlayModel;
use crate::error::SpecError;
use crate::rng::derive_seed;
use crate::strategy::{
    BotaGorda, Budget, Carrier, Cheater, Condition, Conditional, Disabler, Heuristic, Ismcts, Pimc, PimcConfig, Random,
    Rollout, Scored, Smart, Strategy, Support,
};

/// Every strategy name with a one-line description.
pub const STRATEGIES: &[(&str, &str)] = &[
    ("random", "uniform over the legal moves"),
    ("bota-gorda", "plays the heaviest tile (by the variant's tile value)"),
    ("heuristic", "doubles early, then the tile whose pips it holds most of"),
    ("carrier", "keeps the widest variety of pips in hand, so it passes less"),
    ("support", "partner-aware: covers pips its partner passed on, leaves ends the partner can follow"),
    ("disabler", "blocks the opponents: leaves ends they have passed on"),
    ("smart", "blends the above, weighted by hand size, score and who is about to go out [weights=h/c/s/d/b]"),
    ("cheater", "proposes an illegal play first, then heuristic's legal move [inner=<name>]"),
    (
        "pimc",
        "perfect-information Monte Carlo [samples=200, ms=<cap>, rollout=heavy|block|own-block|random, rollouts=1, solve=10, model=uniform|heavy, beta=0.5]",
    ),
    ("ismcts", "information-set Monte Carlo tree search: one tree over sampled deals [iterations=2000]"),
    (
        "X while COND else Y",
        "conditional: COND is `<measure> <op> <n>`, measures: hand-pips hand-tiles opponent-tiles partner-tiles stock played score-lead",
    ),
];

/// Builds the strategy a spec names, its random stream seeded by `seed`.
///
/// ```
/// use capicua_strategy::spec::build;
/// assert_eq!(build("bota-gorda", 1).unwrap().name(), "bota-gorda");
/// let c = build("bota-gorda while hand-pips > 25 else heuristic", 1).unwrap();
/// assert_eq!(c.name(), "bota-gorda while hand-pips > 25 else heuristic");
/// assert!(build("nobody", 1).is_err());
/// ```
pub fn build(spec: &str, seed: u64) -> Result<Box<dyn Strategy>, SpecError> {
    let spec = spec.trim();
    if let Some(path) = spec.strip_prefix('@') {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError::File { path: path.to_string(), reason: e.to_string() })?;
        let joined: Vec<&str> = text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).collect();
        return build(&joined.join(" "), seed);
    }
    if let Some((then, rest)) = split_word(spec, "while") {
        let (cond, otherwise) = split_word(rest, "else").ok_or_else(|| SpecError::BadCondition(rest.to_string()))?;
        return Ok(Box::new(Conditional {
            when: Condition::parse(cond)?,
            then: build(then, derive_seed(seed, 1))?,
            otherwise: build(otherwise, derive_seed(seed, 2))?,
        }));
    }
    build_named(spec, seed)
}

/// Splits `text` around the first standalone `word`.
fn split_word<'a>(text: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let padded = format!(" {word} ");
    let at = text.find(&padded)?;
    Some((text[..at].trim(), text[at + padded.len()..].trim()))
}

fn build_named(spec: &str, seed: u64) -> Result<Box<dyn Strategy>, SpecError> {
    let mut parts = spec.split(':');
    let name = parts.next().filter(|n| !n.is_empty()).ok_or(SpecError::Empty)?;
    let params: Vec<(&str, &str)> = parts
        .map(|p| {
            p.split_once('=').ok_or_else(|| SpecError::BadParameter {
                strategy: name.into(),
                param: p.into(),
                reason: "expected key=value".into(),
            })
        })
        .collect::<Result<_, _>>()?;
    let bad = |param: &str, reason: &str| SpecError::BadParameter {
        strategy: name.into(),
        param: param.into(),
        reason: reason.into(),
    };
    let no_params = || match params.first() {
        Some((k, _)) => Err(bad(k, "this strategy takes no parameters")),
        None => Ok(()),
    };
    Ok(match name {
        "random" => no_params().map(|_| Box::new(Random::new(seed)) as Box<dyn Strategy>)?,
        "bota-gorda" => no_params().map(|_| Box::new(Scored::new(BotaGorda, seed)) as Box<dyn Strategy>)?,
        "heuristic" => no_params().map(|_| Box::new(Scored::new(Heuristic, seed)) as Box<dyn Strategy>)?,
        "carrier" => no_params().map(|_| Box::new(Scored::new(Carrier, seed)) as Box<dyn Strategy>)?,
        "support" => no_params().map(|_| Box::new(Scored::new(Support, seed)) as Box<dyn Strategy>)?,
        "disabler" => no_params().map(|_| Box::new(Scored::new(Disabler, seed)) as Box<dyn Strategy>)?,
        "smart" => {
            let mut weights = Smart::BASE;
            for &(k, v) in &params {
                match k {
                    "weights" => {
                        let w: Vec<f64> = v.split('/').map(str::parse).collect::<Result<_, _>>().map_err(|_| {
                            bad(k, "expected five numbers: heuristic/carrier/support/disabler/bota-gorda")
                        })?;
                        weights = w.try_into().map_err(|_| {
                            bad(k, "expected five numbers: heuristic/carrier/support/disabler/bota-gorda")
                        })?;
                    }
                    _ => return Err(bad(k, "unknown parameter")),
                }
            }
            Box::new(Smart::with_weights(weights, seed))
        }
        "cheater" => {
            let mut inner = "heuristic";
            for &(k, v) in &params {
                match k {
                    "inner" => inner = v,
                    _ => return Err(bad(k, "unknown parameter")),
                }
            }
            Box::new(Cheater::new(build_named(inner, seed)?))
        }
        "pimc" => {
            let mut c = PimcConfig::default();
            for &(k, v) in &params {
                let number = || v.parse::<u32>().map_err(|_| bad(k, "expected a whole number"));
                match k {
                    "samples" => c.budget.samples = number()?.max(1),
                    "ms" => c.budget.time = Some(Duration::from_millis(number()? as u64)),
                    "rollouts" => c.rollouts = number()?.max(1),
                    "solve" => c.solve_below = number()?,
                    "model" => {
                        c.model = match v {
                            "uniform" => PlayModel::Uniform,
                            "heavy" => PlayModel::Heavy { beta: 0.5 },
                            _ => return Err(bad(k, "expected uniform or heavy")),
                        }
                    }
                    "beta" => {
                        let beta = v.parse::<f64>().map_err(|_| bad(k, "expected a number"))?;
                        c.model = PlayModel::Heavy { beta };
                    }
                    "rollout" => {
                        c.rollout = match v {
                            "heavy" => Rollout::Heavy,
                            "random" => Rollout::Random,
                            "block" => Rollout::Block,
                            "own-block" => Rollout::OwnBlock,
                            _ => return Err(bad(k, "expected heavy, block, own-block or random")),
                        }
                    }
                    _ => return Err(bad(k, "unknown parameter")),
                }
            }
            let _: Budget = c.budget;
            Box::new(Pimc::new(c, seed))
        }
        "ismcts" => {
            let mut iterations = 2000;
            for &(k, v) in &params {
                match k {
                    "iterations" => {
                        iterations = v.parse::<u32>().map_err(|_| bad(k, "expected a whole number"))?.max(1)
                    }
                    _ => return Err(bad(k, "unknown parameter")),
                }
            }
            Box::new(Ismcts::new(iterations, seed))
        }
        other => return Err(SpecError::UnknownStrategy(other.to_string())),
    })
}
