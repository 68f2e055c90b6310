//! Server-hosted bots and timeout moves.
//!
//! Strategies come from `capicua-bot`'s registry (the same code local and
//! remote bots run), named by its spec strings (`random`, `bota-gorda`,
//! `pimc:samples=50`, ...). A hosted bot decides from its seat's [`View`]
//! only, exactly like a remote one; the room asks it for a move when its
//! seat is to move.

use capicua_bot::{SeatView, Strategy};
use capicua_engine::{Move, View};

/// A move chooser for a hosted seat.
pub trait HostedStrategy: Send {
    /// The strategy's spec.
    fn name(&self) -> String;
    /// A move for the viewer, who is to move (the room checks it is legal).
    fn choose(&mut self, view: &View<'_>) -> Move;
}

/// A `capicua-bot` strategy behind the hosted-bot trait.
struct Registry(Box<dyn Strategy>);

impl HostedStrategy for Registry {
    fn name(&self) -> String {
        self.0.name()
    }
    fn choose(&mut self, view: &View<'_>) -> Move {
        self.0.choose(view as &dyn SeatView)
    }
}

/// The named strategies (any spec `capicua-bot strategies` documents also
/// works, e.g. `pimc:samples=50` or a conditional).
pub fn names() -> Vec<&'static str> {
    capicua_bot::spec::STRATEGIES.iter().map(|(n, _)| *n).filter(|n| !n.contains(' ')).collect()
}

/// A hosted strategy by spec, seeded; `None` if the spec does not build.
pub fn strategy(spec: &str, seed: u64) -> Option<Box<dyn HostedStrategy>> {
    capicua_bot::spec::build(spec, seed).ok().map(|s| Box::new(Registry(s)) as Box<dyn HostedStrategy>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{Game, Rules, Seating};

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
        assert!(names().contains(&"random"));
    }
}
