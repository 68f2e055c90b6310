//! Strategies by name: the registry and the spec-string language.
//!
//! A spec is one of:
//!
//! - a name, with optional `:key=value` parameters: `random`, `pimc`,
//!   `pimc:samples=100:ms=20`, `ismcts:iterations=500`, `cheater:inner=smart`;
//! - a conditional: `X while CONDITION else Y`, where `Y` may itself be a
//!   conditional (`bota-gorda while hand-pips > 25 else smart`);
//! - `@path`: a file holding a spec (lines are joined, `#` starts a comment).
//!
//! Where a spec comes from decides what it may ask ([`Policy`]): the
//! operator's own command line may name files and search as long as it
//! likes ([`build`]); a spec that came over the network (a room's hosted
//! bots) may not name a file, is short, and its searches stay within the
//! operator's [`SearchCaps`], a time per move included ([`build_with`]).

use std::time::Duration;

use crate::determinize::PlayModel;
use crate::error::SpecError;
use crate::rng::derive_seed;
use crate::strategy::{
    BotaGorda, Carrier, Cheater, Condition, Conditional, Disabler, Heuristic, Ismcts, Oracle, OracleConfig, Pimc,
    PimcConfig, Random, Rollout, Scored, Smart, Strategy, Support,
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
        "perfect-information Monte Carlo [samples=2000, ms=<cap>, rollout=own-block|heavy|block|random, rollouts=1, solve=10, model=heavy|uniform, beta=3, pool=1]",
    ),
    (
        "oracle",
        "sees every hand (arena only, refused by servers): exact search on open cards [nodes=200000, samples=8, rollouts=32, ms=<cap>]",
    ),
    ("ismcts", "information-set Monte Carlo tree search: one tree over sampled deals [iterations=2000, ms=<cap>]"),
    (
        "X while COND else Y",
        "conditional: COND is `<measure> <op> <n>`, measures: hand-pips hand-tiles opponent-tiles partner-tiles stock played score-lead",
    ),
];

/// The most a hosted search may spend on one move.
///
/// A parameter above its cap is refused (not silently lowered, so whoever
/// asked learns it); a search that names no time gets [`SearchCaps::time`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchCaps {
    /// `pimc` samples per move.
    pub samples: u32,
    /// `pimc` rollouts per sample and move.
    pub rollouts: u32,
    /// `pimc` solves exactly at most this many tiles in hand.
    pub solve: u32,
    /// `ismcts` iterations per move.
    pub iterations: u32,
    /// The longest a search thinks per move.
    pub time: Duration,
}

impl Default for SearchCaps {
    /// `pimc`'s default 2000 samples, ten times `ismcts`' default 2000
    /// iterations, and two seconds a move.
    fn default() -> SearchCaps {
        SearchCaps { samples: 2000, rollouts: 16, solve: 14, iterations: 20_000, time: Duration::from_secs(2) }
    }
}

/// The most deals a hosted `pimc` draws per sample (`pool=`).
pub const MAX_POOL: u32 = 16;

/// What a spec may do, by where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Whether `@path` may read a file.
    pub files: bool,
    /// The longest spec accepted, in characters.
    pub max_len: usize,
    /// Caps on searches, if any.
    pub caps: Option<SearchCaps>,
    /// Whether a strategy that reads every hand (`oracle`, see
    /// [`crate::Strategy::sees_all_hands`]) may be built: only where the
    /// operator runs it against bots on a table it can show (the arena).
    pub sees_hands: bool,
}

impl Policy {
    /// The operator's own command line: files allowed, no caps, the
    /// `oracle` allowed.
    pub const TRUSTED: Policy = Policy { files: true, max_len: usize::MAX, caps: None, sees_hands: true };

    /// A spec from the network: no files, at most 200 characters, searches
    /// within `caps`, no strategy that reads every hand (every room, rated
    /// or not, and every tournament table a server hosts).
    pub fn network(caps: SearchCaps) -> Policy {
        Policy { files: false, max_len: 200, caps: Some(caps), sees_hands: false }
    }
}

/// Builds the strategy a spec names, its random stream seeded by `seed`,
/// with the [`Policy::TRUSTED`] policy of the operator's command line.
///
/// ```
/// use capicua_strategy::spec::build;
/// assert_eq!(build("bota-gorda", 1).unwrap().name(), "bota-gorda");
/// let c = build("bota-gorda while hand-pips > 25 else heuristic", 1).unwrap();
/// assert_eq!(c.name(), "bota-gorda while hand-pips > 25 else heuristic");
/// assert!(build("nobody", 1).is_err());
/// ```
pub fn build(spec: &str, seed: u64) -> Result<Box<dyn Strategy>, SpecError> {
    build_with(spec, seed, &Policy::TRUSTED)
}

/// Builds the strategy a spec names under `policy`.
///
/// ```
/// use capicua_strategy::spec::{Policy, SearchCaps, build_with};
/// use capicua_strategy::SpecError;
///
/// let net = Policy::network(SearchCaps::default());
/// assert_eq!(build_with("@/etc/passwd", 1, &net).err(), Some(SpecError::FileNotAllowed));
/// assert!(build_with("pimc:samples=1000000", 1, &net).is_err());
/// // A search that names no time gets the cap's.
/// assert_eq!(build_with("pimc", 1, &net).unwrap().name(), "pimc:ms=2000");
/// // A strategy that reads every hand is never built from the network.
/// assert_eq!(build_with("oracle", 1, &net).err(), Some(SpecError::SeesHands("oracle".into())));
/// ```
pub fn build_with(spec: &str, seed: u64, policy: &Policy) -> Result<Box<dyn Strategy>, SpecError> {
    let spec = spec.trim();
    let len = spec.chars().count();
    if len > policy.max_len {
        return Err(SpecError::TooLong { len, max: policy.max_len });
    }
    build_checked(spec, seed, policy)
}

fn build_checked(spec: &str, seed: u64, policy: &Policy) -> Result<Box<dyn Strategy>, SpecError> {
    let spec = spec.trim();
    if let Some(path) = spec.strip_prefix('@') {
        if !policy.files {
            return Err(SpecError::FileNotAllowed);
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError::File { path: path.to_string(), reason: e.to_string() })?;
        let joined: Vec<&str> = text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).collect();
        return build_checked(&joined.join(" "), seed, policy);
    }
    if let Some((then, rest)) = split_word(spec, "while") {
        let (cond, otherwise) = split_word(rest, "else").ok_or_else(|| SpecError::BadCondition(rest.to_string()))?;
        return Ok(Box::new(Conditional {
            when: Condition::parse(cond)?,
            then: build_checked(then, derive_seed(seed, 1), policy)?,
            otherwise: build_checked(otherwise, derive_seed(seed, 2), policy)?,
        }));
    }
    build_named(spec, seed, policy)
}

/// Splits `text` around the first standalone `word`.
fn split_word<'a>(text: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let padded = format!(" {word} ");
    let at = text.find(&padded)?;
    Some((text[..at].trim(), text[at + padded.len()..].trim()))
}

/// Builds the strategy `name:key=value:…` names, each parameter read
/// under the policy's caps.
fn build_named(spec: &str, seed: u64, policy: &Policy) -> Result<Box<dyn Strategy>, SpecError> {
    let params = Params::parse(spec, policy.caps)?;
    Ok(match params.strategy {
        "random" => params.none().map(|_| Box::new(Random::new(seed)) as Box<dyn Strategy>)?,
        "bota-gorda" => params.none().map(|_| Box::new(Scored::new(BotaGorda, seed)) as Box<dyn Strategy>)?,
        "heuristic" => params.none().map(|_| Box::new(Scored::new(Heuristic, seed)) as Box<dyn Strategy>)?,
        "carrier" => params.none().map(|_| Box::new(Scored::new(Carrier, seed)) as Box<dyn Strategy>)?,
        "support" => params.none().map(|_| Box::new(Scored::new(Support, seed)) as Box<dyn Strategy>)?,
        "disabler" => params.none().map(|_| Box::new(Scored::new(Disabler, seed)) as Box<dyn Strategy>)?,
        "smart" => Box::new(Smart::with_weights(smart_weights(&params)?, seed)),
        "cheater" => Box::new(Cheater::new(build_named(cheater_inner(&params)?, seed, policy)?)),
        "pimc" => Box::new(Pimc::new(pimc_config(&params)?, seed)),
        "oracle" => {
            // Refused before its parameters are read: no value makes it fit.
            if !policy.sees_hands {
                return Err(SpecError::SeesHands(params.strategy.into()));
            }
            Box::new(Oracle::new(oracle_config(&params)?, seed))
        }
        "ismcts" => Box::new(ismcts(&params, seed)?),
        other => return Err(SpecError::UnknownStrategy(other.to_string())),
    })
}

/// A named spec taken apart: the strategy's name and its `key=value`
/// parameters in order, with the caps they are read under.
struct Params<'a> {
    /// The strategy's name.
    strategy: &'a str,
    /// The parameters as written.
    pairs: Vec<(&'a str, &'a str)>,
    /// The policy's caps on searches, if any.
    caps: Option<SearchCaps>,
}

impl<'a> Params<'a> {
    /// Splits `name:key=value:…`; an empty name or a parameter without
    /// `=` is refused.
    fn parse(spec: &'a str, caps: Option<SearchCaps>) -> Result<Params<'a>, SpecError> {
        let mut parts = spec.split(':');
        let strategy = parts.next().filter(|n| !n.is_empty()).ok_or(SpecError::Empty)?;
        let pairs = parts
            .map(|p| {
                p.split_once('=').ok_or_else(|| SpecError::BadParameter {
                    strategy: strategy.into(),
                    param: p.into(),
                    reason: "expected key=value".into(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Params { strategy, pairs, caps })
    }

    /// The error for `param` of this strategy.
    fn bad(&self, param: &str, reason: &str) -> SpecError {
        SpecError::BadParameter { strategy: self.strategy.into(), param: param.into(), reason: reason.into() }
    }

    /// Refuses any parameter, for a strategy that takes none.
    fn none(&self) -> Result<(), SpecError> {
        match self.pairs.first() {
            Some((k, _)) => Err(self.bad(k, "this strategy takes no parameters")),
            None => Ok(()),
        }
    }

    /// The error for a parameter the strategy does not take.
    fn unknown(&self, param: &str) -> SpecError {
        self.bad(param, "unknown parameter")
    }

    /// A whole number for `param`.
    fn whole(&self, param: &str, v: &str) -> Result<u32, SpecError> {
        v.parse::<u32>().map_err(|_| self.bad(param, "expected a whole number"))
    }

    /// A whole number within `cap` for `param`, if there is a cap.
    fn capped(&self, param: &str, v: &str, cap: impl FnOnce(&SearchCaps) -> u32) -> Result<u32, SpecError> {
        let n = self.whole(param, v)?;
        match self.caps.as_ref().map(cap) {
            Some(max) if n > max => Err(self.bad(param, &format!("at most {max} on this server"))),
            _ => Ok(n),
        }
    }

    /// A number of at least 1 within `cap`: a search needs one of each.
    fn positive(&self, param: &str, v: &str, cap: impl FnOnce(&SearchCaps) -> u32) -> Result<u32, SpecError> {
        Ok(self.capped(param, v, cap)?.max(1))
    }

    /// A time per move, `ms=`, within the caps' time.
    fn millis(&self, param: &str, v: &str) -> Result<Duration, SpecError> {
        let ms = self.capped(param, v, |c| c.time.as_millis().min(u32::MAX as u128) as u32)?;
        Ok(Duration::from_millis(ms as u64))
    }

    /// The caps' time, for a search that named none.
    fn default_time(&self, named: Option<Duration>) -> Option<Duration> {
        named.or(self.caps.map(|c| c.time))
    }
}

/// `smart`'s weights: `weights=h/c/s/d/b`, or its base blend.
fn smart_weights(params: &Params) -> Result<[f64; 5], SpecError> {
    let mut weights = Smart::BASE;
    for &(k, v) in &params.pairs {
        if k != "weights" {
            return Err(params.unknown(k));
        }
        let expected = || params.bad(k, "expected five numbers: heuristic/carrier/support/disabler/bota-gorda");
        let w: Vec<f64> = v.split('/').map(str::parse).collect::<Result<_, _>>().map_err(|_| expected())?;
        weights = w.try_into().map_err(|_| expected())?;
    }
    Ok(weights)
}

/// The spec `cheater` falls back to for its legal move: `inner=`, or `heuristic`.
fn cheater_inner<'a>(params: &Params<'a>) -> Result<&'a str, SpecError> {
    let mut inner = "heuristic";
    for &(k, v) in &params.pairs {
        match k {
            "inner" => inner = v,
            _ => return Err(params.unknown(k)),
        }
    }
    Ok(inner)
}

/// `pimc`'s configuration from its parameters; under caps a search that
/// names no time gets the caps' time.
fn pimc_config(params: &Params) -> Result<PimcConfig, SpecError> {
    let mut c = PimcConfig::default();
    for &(k, v) in &params.pairs {
        match k {
            "samples" => c.budget.samples = params.positive(k, v, |c| c.samples)?,
            "ms" => c.budget.time = Some(params.millis(k, v)?),
            "rollouts" => c.rollouts = params.positive(k, v, |c| c.rollouts)?,
            "pool" => c.pool = params.positive(k, v, |_| MAX_POOL)?,
            "solve" => c.solve_below = params.capped(k, v, |c| c.solve)?,
            "model" => c.model = play_model(params, k, v)?,
            "beta" => {
                let beta = v
                    .parse::<f64>()
                    .ok()
                    .filter(|b| b.is_finite() && *b >= 0.0)
                    .ok_or_else(|| params.bad(k, "expected a number, 0 or more"))?;
                c.model = PlayModel::Heavy { beta };
            }
            "rollout" => c.rollout = rollout(params, k, v)?,
            _ => return Err(params.unknown(k)),
        }
    }
    c.budget.time = params.default_time(c.budget.time);
    Ok(c)
}

/// `model=`: how `pimc` deals the hidden tiles.
fn play_model(params: &Params, k: &str, v: &str) -> Result<PlayModel, SpecError> {
    match v {
        "uniform" => Ok(PlayModel::Uniform),
        "heavy" => Ok(PlayModel::Heavy { beta: 0.5 }),
        _ => Err(params.bad(k, "expected uniform or heavy")),
    }
}

/// `rollout=`: how `pimc` plays a sampled deal out.
fn rollout(params: &Params, k: &str, v: &str) -> Result<Rollout, SpecError> {
    match v {
        "heavy" => Ok(Rollout::Heavy),
        "random" => Ok(Rollout::Random),
        "block" => Ok(Rollout::Block),
        "own-block" => Ok(Rollout::OwnBlock),
        _ => Err(params.bad(k, "expected heavy, block, own-block or random")),
    }
}

/// The `oracle`'s configuration; `nodes=` has no cap (a network spec never
/// builds an oracle).
fn oracle_config(params: &Params) -> Result<OracleConfig, SpecError> {
    let mut c = OracleConfig::default();
    for &(k, v) in &params.pairs {
        match k {
            "nodes" => c.nodes = params.whole(k, v)?.max(1),
            "samples" => c.samples = params.positive(k, v, |c| c.samples)?,
            "rollouts" => c.rollouts = params.positive(k, v, |c| c.rollouts)?,
            "ms" => c.time = Some(params.millis(k, v)?),
            _ => return Err(params.unknown(k)),
        }
    }
    c.time = params.default_time(c.time);
    Ok(c)
}

/// `ismcts` with its iterations (2000 unless named) and time per move.
fn ismcts(params: &Params, seed: u64) -> Result<Ismcts, SpecError> {
    let mut iterations = 2000;
    let mut time = None;
    for &(k, v) in &params.pairs {
        match k {
            "iterations" => iterations = params.positive(k, v, |c| c.iterations)?,
            "ms" => time = Some(params.millis(k, v)?),
            _ => return Err(params.unknown(k)),
        }
    }
    let ismcts = Ismcts::new(iterations, seed);
    Ok(match params.default_time(time) {
        Some(t) => ismcts.with_time(t),
        None => ismcts,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use capicua_engine::{Game, Rules, Seat, Seating};

    use super::*;
    use crate::StopFlag;

    fn net() -> Policy {
        Policy::network(SearchCaps::default())
    }

    #[test]
    fn network_specs_never_read_files_even_inside_a_conditional() {
        let dir = std::env::temp_dir().join(format!("capicua-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bot.spec");
        std::fs::write(&file, "bota-gorda # heaviest first\n").unwrap();
        let at = format!("@{}", file.display());
        assert_eq!(build(&at, 1).unwrap().name(), "bota-gorda", "the operator's CLI reads files");
        assert_eq!(build_with(&at, 1, &net()).err(), Some(SpecError::FileNotAllowed));
        let nested = format!("random while stock > 3 else {at}");
        assert_eq!(build_with(&nested, 1, &net()).err(), Some(SpecError::FileNotAllowed));
        assert_eq!(build_with("@/dev/zero", 1, &net()).err(), Some(SpecError::FileNotAllowed));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn network_specs_stay_within_the_caps() {
        let caps = SearchCaps::default();
        let refused = |spec: &str| match build_with(spec, 1, &net()) {
            Err(SpecError::BadParameter { reason, .. }) => assert!(reason.contains("at most"), "{spec}: {reason}"),
            other => panic!("{spec}: {:?}", other.map(|s| s.name())),
        };
        refused(&format!("pimc:samples={}", caps.samples + 1));
        refused(&format!("pimc:rollouts={}", caps.rollouts + 1));
        refused(&format!("pimc:solve={}", caps.solve + 1));
        refused(&format!("pimc:ms={}", caps.time.as_millis() + 1));
        refused(&format!("ismcts:iterations={}", caps.iterations + 1));
        refused(&format!("random while stock > 3 else pimc:samples={}", caps.samples + 1));
        // At the caps, and with a time of the spec's own below the cap.
        let at_cap = format!("pimc:samples={}:ms=20:pool={MAX_POOL}", caps.samples - 1);
        assert_eq!(build_with(&at_cap, 1, &net()).unwrap().name(), at_cap);
        refused(&format!("pimc:pool={}", MAX_POOL + 1));
        assert_eq!(build_with("ismcts", 1, &net()).unwrap().name(), "ismcts:ms=2000");
        // The operator's CLI has no caps and no default time.
        assert_eq!(build("pimc", 1).unwrap().name(), "pimc");
        assert_eq!(build("pimc:samples=1000000", 1).unwrap().name(), "pimc:samples=1000000");
        assert_eq!(build("ismcts", 1).unwrap().name(), "ismcts");
    }

    #[test]
    fn long_or_odd_network_specs_are_refused_without_building() {
        let chain = "random while stock > 1 else ".repeat(10_000) + "random";
        assert!(matches!(build_with(&chain, 1, &net()), Err(SpecError::TooLong { .. })));
        assert!(build_with("pimc:beta=NaN", 1, &net()).is_err());
        assert!(build_with("pimc:beta=-1", 1, &net()).is_err());
        assert!(build_with("pimc:samples=-1", 1, &net()).is_err());
    }

    /// A raised flag ends a search whose budget would take hours: it then
    /// plays its fallback's move.
    #[test]
    fn a_raised_stop_flag_ends_a_search_at_once() {
        for spec in ["pimc:samples=100000000", "ismcts:iterations=100000000"] {
            let game = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 3).unwrap();
            let seat = game.to_move().unwrap_or(Seat(0));
            let stop = StopFlag::new();
            let mut bot = build(spec, 5).unwrap();
            bot.watch(&stop);
            stop.stop();
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let m = bot.choose(&game.view(seat));
                let mut legal = capicua_engine::MoveList::new();
                game.fill_legal_moves(&mut legal);
                tx.send(legal.contains(&m)).unwrap();
            });
            let legal = rx.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| panic!("{spec} did not stop"));
            assert!(legal, "{spec} played a legal move");
        }
    }
}
