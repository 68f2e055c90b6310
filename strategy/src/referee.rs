//! Asking a strategy for a move and playing it at a strict referee.

use capicua_engine::{Events, Game, IllegalMove, Move};

use crate::error::BotError;
use crate::seat_view::TableSeat;
use crate::strategy::Strategy;

/// What happened when a seat moved.
#[derive(Clone, Debug)]
pub struct Played {
    /// The move the referee accepted.
    pub chosen: Move,
    /// Proposals refused before it.
    pub refused: u32,
    /// What the move caused.
    pub events: Events,
}

/// Asks the seat to move for its proposals and plays the first one the
/// game accepts. `proposals` is scratch space (cleared here).
///
/// ```
/// use capicua_strategy::{referee::play_turn, spec::build};
/// use capicua_engine::{Game, Rules, Seating};
/// let mut game = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 1).unwrap();
/// let mut cheater = build("cheater", 1).unwrap();
/// let played = play_turn(&mut game, cheater.as_mut(), &mut Vec::new()).unwrap();
/// assert_eq!(played.refused, 1); // its illegal first try was refused
/// ```
pub fn play_turn(game: &mut Game, strategy: &mut dyn Strategy, proposals: &mut Vec<Move>) -> Result<Played, BotError> {
    play_turn_seeing(game, strategy, proposals, false)
}

/// [`play_turn`], showing the seat every hand when `open` (the arena, for
/// a strategy that [sees all hands](Strategy::sees_all_hands)).
pub(crate) fn play_turn_seeing(
    game: &mut Game,
    strategy: &mut dyn Strategy,
    proposals: &mut Vec<Move>,
    open: bool,
) -> Result<Played, BotError> {
    let Some(seat) = game.to_move() else {
        return Err(BotError::NoLegalProposal { strategy: strategy.name(), last: None, error: IllegalMove::MatchOver });
    };
    let view = if open { TableSeat::open(game, seat) } else { TableSeat::new(game, seat) };
    if !strategy.proposes_alternatives() {
        let m = strategy.choose(&view);
        return match game.play(m) {
            Ok(events) => Ok(Played { chosen: m, refused: 0, events }),
            Err(error) => Err(BotError::NoLegalProposal { strategy: strategy.name(), last: Some(m), error }),
        };
    }
    proposals.clear();
    strategy.propose(&view, proposals);
    let mut refused = 0;
    let mut last = None;
    for &m in proposals.iter() {
        match game.play(m) {
            Ok(events) => return Ok(Played { chosen: m, refused, events }),
            Err(e) => {
                refused += 1;
                last = Some((m, e));
            }
        }
    }
    let (last, error) = match last {
        Some((m, e)) => (Some(m), e),
        None => (None, IllegalMove::MatchOver),
    };
    Err(BotError::NoLegalProposal { strategy: strategy.name(), last, error })
}
