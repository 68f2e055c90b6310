//! Server-hosted bots and timeout moves.
//!
//! Strategies come from `capicua-strategy`'s registry (the same code local and
//! remote bots run), named by its spec strings (`random`, `bota-gorda`,
//! `pimc:samples=50`, ...), and for tiles with 3, 4 or 6 faces from its
//! poly registry (`random`, `greedy`, `pimc`). A hosted bot decides from
//! its seat's view only, exactly like a remote one; the room asks it for a
//! move when its seat is to move.

use std::marker::PhantomData;

use capicua_engine::poly::{PolyGame, PolyMove};
use capicua_engine::{Game, Move, Seat};
use capicua_strategy::poly::PolyStrategy;
use capicua_strategy::{Policy, SeatView, SpecError, StopFlag, Strategy};

use crate::table::{AnyMove, Table, TableFamily};

/// A move chooser for a hosted seat.
pub(crate) trait HostedStrategy: Send {
    /// A move for `seat`, which is to move at `table`, from that seat's view
    /// only (the room checks it is legal).
    fn choose(&mut self, table: &Table, seat: Seat) -> AnyMove;
    /// Whether a move costs microseconds (one pass over the legal moves):
    /// the room then asks inline. Otherwise (searches such as `pimc`, which
    /// think for milliseconds) the room runs the strategy on tokio's
    /// blocking pool and keeps serving its commands meanwhile.
    fn is_quick(&self) -> bool {
        false
    }
}

/// A strategy of one tile family: it decides from a seat's view of a game
/// of family `F`.
trait Chooser<F: TableFamily>: Send {
    /// A move for `seat`, which is to move in `game`.
    fn choose_in(&mut self, game: &F, seat: Seat) -> F::Move;
    /// Whether a move costs microseconds.
    fn is_quick(&self) -> bool;
}

impl Chooser<Game> for Box<dyn Strategy> {
    fn choose_in(&mut self, game: &Game, seat: Seat) -> Move {
        self.choose(&game.view(seat) as &dyn SeatView)
    }
    fn is_quick(&self) -> bool {
        Strategy::is_quick(&**self)
    }
}

impl Chooser<PolyGame> for Box<dyn PolyStrategy> {
    fn choose_in(&mut self, game: &PolyGame, seat: Seat) -> PolyMove {
        self.choose(&game.view(seat.0))
    }
    fn is_quick(&self) -> bool {
        PolyStrategy::is_quick(&**self)
    }
}

/// A registry strategy of family `F` behind the hosted-bot trait.
struct Registry<F, C> {
    inner: C,
    family: PhantomData<fn() -> F>,
}

impl<F: TableFamily, C: Chooser<F>> HostedStrategy for Registry<F, C> {
    fn choose(&mut self, table: &Table, seat: Seat) -> AnyMove {
        match table.game::<F>() {
            Some(game) => F::any_move(self.inner.choose_in(game, seat)),
            // Never asked: a room builds its bots for its own family; the
            // room replaces a move it refuses by a random legal one.
            None => F::any_move(F::PASS),
        }
    }
    fn is_quick(&self) -> bool {
        self.inner.is_quick()
    }
}

fn hosted<F: TableFamily, C: Chooser<F> + 'static>(inner: C) -> Box<dyn HostedStrategy> {
    Box::new(Registry { inner, family: PhantomData })
}

/// The poly strategies' names (`fill-bots` in a poly room).
pub(crate) fn poly_names() -> Vec<&'static str> {
    capicua_strategy::poly::POLY_STRATEGIES.iter().map(|(n, _)| *n).collect()
}

/// The named strategies (any spec `capicua-bot strategies` documents also
/// works, e.g. `pimc:samples=50` or a conditional).
pub(crate) fn names() -> Vec<&'static str> {
    capicua_strategy::spec::STRATEGIES.iter().map(|(n, _)| *n).filter(|n| !n.contains(' ')).collect()
}

/// Why a spec that does not build as a hosted strategy (`poly`: for tiles
/// with 3, 4 or 6 faces) is refused, with the strategies that would do.
pub(crate) fn refusal(e: &SpecError, poly: bool) -> String {
    if poly {
        format!(
            "this tournament plays tiles with 3, 4 or 6 faces ({}), which it cannot play: {e}; poly strategies: {}",
            capicua_engine::poly::POLY_PRESETS.join(", "),
            poly_names().join(", ")
        )
    } else {
        format!("{e}; known: {}", names().join(", "))
    }
}

/// A hosted strategy by spec, seeded. Every spec a server hosts came over
/// the network (a room, a fill, a tournament's entrants), so it is built
/// under a network `policy`: no files, searches within the operator's caps.
/// Its searches stop early once `stop` is raised (the room closed). `poly`
/// builds a strategy for tiles with 3, 4 or 6 faces.
pub(crate) fn strategy(
    spec: &str,
    seed: u64,
    policy: &Policy,
    stop: &StopFlag,
    poly: bool,
) -> Result<Box<dyn HostedStrategy>, SpecError> {
    if poly {
        let inner = capicua_strategy::poly::build_poly_with(spec, seed, policy)?;
        return Ok(hosted::<PolyGame, _>(inner));
    }
    let mut inner = capicua_strategy::build_with(spec, seed, policy)?;
    inner.watch(stop);
    Ok(hosted::<Game, _>(inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{Rules, Seating};
    use capicua_strategy::SearchCaps;

    fn strategy(spec: &str, seed: u64) -> Option<Box<dyn HostedStrategy>> {
        super::strategy(spec, seed, &Policy::network(SearchCaps::default()), &StopFlag::new(), false).ok()
    }

    #[test]
    fn registry_strategies_finish_a_match_with_legal_moves() {
        for name in ["random", "bota-gorda", "heuristic", "smart"] {
            let rules = Rules::preset("draw").unwrap();
            let rules =
                crate::table::RoomRules::Tiles(crate::table::RulesOf { rules: rules.into(), seating: Seating::new(3) });
            let mut table = rules.deal(9).unwrap();
            let mut bots: Vec<_> = (0..3).map(|i| strategy(name, i).unwrap()).collect();
            while let Some(seat) = table.to_move() {
                let m = bots[seat.index()].choose(&table, seat);
                table.play(m).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(table.tiles().unwrap().outcome().is_some());
        }
        assert!(strategy("nope", 0).is_none());
        assert!(strategy("random", 0).unwrap().is_quick());
        assert!(!strategy("pimc:samples=5", 0).unwrap().is_quick());
        assert!(names().contains(&"random"));
    }

    #[test]
    fn poly_strategies_finish_a_match_with_legal_moves_and_two_faced_ones_are_refused() {
        let policy = Policy::network(SearchCaps::default());
        let stop = StopFlag::new();
        for name in ["random", "greedy", "pimc:samples=4"] {
            let rules = crate::table::RoomRules::Poly(crate::table::RulesOf {
                rules: capicua_engine::poly::PolyRules::preset("quadominoes").unwrap().into(),
                seating: 3,
            });
            let mut table = rules.deal(9).unwrap();
            let mut bots: Vec<_> = (0..3).map(|i| super::strategy(name, i, &policy, &stop, true).unwrap()).collect();
            while let Some(seat) = table.to_move() {
                let m = bots[seat.index()].choose(&table, seat);
                assert!(matches!(m, AnyMove::Poly(_)), "{name}: {m}");
                table.play(m).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(table.plies() > 10, "{name}: a whole match is played");
        }
        assert!(super::strategy("smart", 0, &policy, &stop, true).is_err());
        assert!(super::strategy("greedy", 0, &policy, &stop, false).is_err());
        assert_eq!(poly_names(), ["random", "greedy", "pimc"]);
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
