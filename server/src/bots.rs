//! Server-hosted bots and timeout moves.
//!
//! Strategies come from `capicua-strategy`'s registry (the same code local and
//! remote bots run), named by its spec strings (`random`, `bota-gorda`,
//! `pimc:samples=50`, ...). A hosted bot decides from its seat's [`View`]
//! only, exactly like a remote one; the room asks it for a move when its
//! seat is to move.

use capicua_engine::{Move, View};
use capicua_strategy::{Policy, SeatView, SpecError, StopFlag, Strategy};

/// A move chooser for a hosted seat.
pub(crate) trait HostedStrategy: Send {
    /// A move for the viewer, who is to move (the room checks it is legal).
    fn choose(&mut self, view: &View<'_>) -> Move;
    /// Whether a move costs microseconds (one pass over the legal moves):
    /// the room then asks inline. Otherwise (searches such as `pimc`, which
    /// think for milliseconds) the room runs the strategy on tokio's
    /// blocking pool and keeps serving its commands meanwhile.
    fn is_quick(&self) -> bool {
        false
    }
}

/// A `capicua-strategy` strategy behind the hosted-bot trait.
struct Registry {
    inner: Box<dyn Strategy>,
}

impl HostedStrategy for Registry {
    fn choose(&mut self, view: &View<'_>) -> Move {
        self.inner.choose(view as &dyn SeatView)
    }
    fn is_quick(&self) -> bool {
        self.inner.is_quick()
    }
}

/// The named strategies (any spec `capicua-bot strategies` documents also
/// works, e.g. `pimc:samples=50` or a conditional).
pub(crate) fn names() -> Vec<&'static str> {
    capicua_strategy::spec::STRATEGIES.iter().map(|(n, _)| *n).filter(|n| !n.contains(' ')).collect()
}

/// A hosted strategy by spec, seeded. Every spec a server hosts came over
/// the network (a room, a fill, a tournament's entrants), so it is built
/// under a network `policy`: no files, searches within the operator's caps.
/// Its searches stop early once `stop` is raised (the room closed).
pub(crate) fn strategy(
    spec: &str,
    seed: u64,
    policy: &Policy,
    stop: &StopFlag,
) -> Result<Box<dyn HostedStrategy>, SpecError> {
    let mut inner = capicua_strategy::build_with(spec, seed, policy)?;
    inner.watch(stop);
    Ok(Box::new(Registry { inner }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{Game, Rules, Seating};
    use capicua_strategy::SearchCaps;

    fn strategy(spec: &str, seed: u64) -> Option<Box<dyn HostedStrategy>> {
        super::strategy(spec, seed, &Policy::network(SearchCaps::default()), &StopFlag::new()).ok()
    }

    #[test]
    fn registry_strategies_finish_a_match_with_legal_moves() {
        for name in ["random", "bota-gorda", "heuristic", "smart"] {
            let rules = Rules::preset("draw").unwrap();
            let mut game = Game::new(rules.into(), Seating::new(3), 9).unwrap();
            let mut bots: Vec<_> = (0..3).map(|i| strategy(name, i).unwrap()).collect();
            while let Some(seat) = game.to_move() {
                let m = bots[seat.index()].choose(&game.view(seat));
                game.play(m).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(game.outcome().is_some());
        }
        assert!(strategy("nope", 0).is_none());
        assert!(strategy("random", 0).unwrap().is_quick());
        assert!(!strategy("pimc:samples=5", 0).unwrap().is_quick());
        assert!(names().contains(&"random"));
    }

    #[test]
    fn searches_are_not_quick_even_inside_a_conditional() {
        let quick = |spec: &str| strategy(spec, 0).unwrap().is_quick();
        assert!(quick("bota-gorda"));
        assert!(quick("smart:weights=1/1/1/1/1"));
        assert!(quick("bota-gorda while hand-pips > 25 else heuristic"));
        assert!(!quick("pimc:samples=50"));
        assert!(!quick("ismcts"));
        assert!(!quick("cheater:inner=pimc"));
        assert!(!quick("bota-gorda while stock > 3 else pimc"));
        assert!(!quick("pimc while stock > 3 else random"));
    }
}
