//! The referee's explicit API: strict, or lenient (`referee = { lenient = ... }`).

use super::Game;
use super::events::{Event, Events};
use crate::error::IllegalMove;
use crate::moves::Move;
use crate::rng::{Purpose, SeededRng};
use crate::variant::Referee;

/// What the referee made of a move it accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// A legal move, played.
    Legal(Events),
    /// An illegal play the lenient referee let stand: played, and the
    /// seat's side paid `penalty` points.
    Overruled {
        /// What happened (an [`Event::Overruled`] follows the play).
        events: Events,
        /// Points the side lost.
        penalty: i32,
    },
}

impl Ruling {
    /// The events of the move.
    pub fn events(&self) -> &Events {
        match self {
            Ruling::Legal(ev) | Ruling::Overruled { events: ev, .. } => ev,
        }
    }
}

impl Game {
    /// Referees `m` for the seat to move, as a server does. A legal move is
    /// played as by [`Game::play`]. Under a strict referee an illegal move
    /// is refused with the game untouched. Under a lenient referee a
    /// well-formed illegal play (a tile the seat holds, on an existing open
    /// end, by a face the tile has) is accepted with the variant's
    /// probability, decided by a coin seeded from the seed, the hand and
    /// the move's log position (so a replay, or a retry at the same turn,
    /// gets the same answer); an accepted one costs the seat's side the
    /// penalty and is listed by [`Game::overruled_plays`]. A refused one
    /// leaves the game untouched.
    ///
    /// ```
    /// use capicua_engine::*;
    /// let mut v = preset("block").unwrap();
    /// v.referee = Referee::Lenient(LenientSpec { accept: Fraction(1.0), penalty: Fraction(0.5), points: 3 });
    /// let rules: std::sync::Arc<Rules> = v.validate().unwrap().into();
    /// let mut g = Game::new(rules.clone(), Seating::new(2), 1).unwrap();
    /// let lead = g.legal_moves()[0];
    /// g.play(lead).unwrap();
    /// let seat = g.to_move().unwrap();
    /// // A tile that does not fit, played anyway.
    /// let end = g.board().ends()[0];
    /// let tile = g.hand(seat).iter().find(|t| !rules.playable_on(end.pip).contains(*t)).unwrap();
    /// let m = Move::Play { tile, end: EndId(0), face: 0 };
    /// assert!(g.play(m).is_err(), "play stays strict");
    /// let ruling = g.referee_play(m).unwrap();
    /// assert!(matches!(ruling, Ruling::Overruled { penalty: 3, .. }));
    /// assert_eq!(g.overruled_plays(), &[1]);
    /// let replay = Game::replay(rules, Seating::new(2), 1, g.log()).unwrap();
    /// assert_eq!(replay.board().ends(), g.board().ends());
    /// ```
    pub fn referee_play(&mut self, m: Move) -> Result<Ruling, IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::MatchOver);
        }
        if self.is_legal(m) {
            return Ok(Ruling::Legal(self.play_unchecked(m)));
        }
        let Referee::Lenient(spec) = self.base.variant().referee else {
            return Err(IllegalMove::NotLegal(m));
        };
        if !self.well_formed_play(m) {
            return Err(IllegalMove::NotLegal(m));
        }
        let position = self.log.len() as u32;
        let coin = SeededRng::for_purpose(self.seed, Purpose::Referee { hand: self.hand_no, position }).unit();
        if coin >= spec.accept.0 {
            return Err(IllegalMove::NotLegal(m));
        }
        let seat = self.to_move;
        let side = self.table.side_of(seat);
        let score = self.scores[side.index()];
        let penalty = (score.max(0) as f64 * spec.penalty.0).floor() as i32 + spec.points;
        self.scores[side.index()] -= penalty;
        self.seat_scores[seat.index()] -= penalty;
        Ok(Ruling::Overruled { events: self.play_overruled(m, penalty), penalty })
    }

    /// Replays a play that a lenient referee accepted in another game with
    /// the same public history (a search bot's sampled deal: its seed
    /// would throw a different coin). A legal move is played as by
    /// [`Game::play`]; a well-formed illegal play (see
    /// [`Game::referee_play`]) is accepted without a coin and without a
    /// penalty (the real game's scores already carry it), listed by
    /// [`Game::overruled_plays`] and followed by an [`Event::Overruled`]
    /// with penalty 0. Refused under a strict referee.
    ///
    /// ```
    /// use capicua_engine::*;
    /// let mut v = preset("block").unwrap();
    /// v.referee = Referee::Lenient(LenientSpec { accept: Fraction(0.0), penalty: Fraction(0.5), points: 3 });
    /// let rules: std::sync::Arc<Rules> = v.validate().unwrap().into();
    /// let mut g = Game::new(rules.clone(), Seating::new(2), 1).unwrap();
    /// g.play(g.legal_moves()[0]).unwrap();
    /// let seat = g.to_move().unwrap();
    /// let end = g.board().ends()[0];
    /// let tile = g.hand(seat).iter().find(|t| !rules.playable_on(end.pip).contains(*t)).unwrap();
    /// let m = Move::Play { tile, end: EndId(0), face: 0 };
    /// assert!(g.referee_play(m).is_err(), "this referee never accepts");
    /// let before = g.scores().to_vec();
    /// g.replay_overruled(m).unwrap();
    /// assert_eq!(g.overruled_plays(), &[1]);
    /// assert_eq!(g.scores(), &before[..]);
    /// ```
    pub fn replay_overruled(&mut self, m: Move) -> Result<Events, IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::MatchOver);
        }
        if self.is_legal(m) {
            return Ok(self.play_unchecked(m));
        }
        if !matches!(self.base.variant().referee, Referee::Lenient(_)) || !self.well_formed_play(m) {
            return Err(IllegalMove::NotLegal(m));
        }
        Ok(self.play_overruled(m, 0))
    }

    /// Plays an illegal play the referee lets stand: listed at its log
    /// position, played with the overruling flag up, and followed by an
    /// [`Event::Overruled`] carrying `penalty` (already charged).
    fn play_overruled(&mut self, m: Move, penalty: i32) -> Events {
        let seat = self.to_move;
        let position = self.log.len() as u32;
        let ext = self.ext.as_mut().expect("a lenient referee has its state");
        ext.lenient.push(position);
        ext.overruling = true;
        let mut ev = self.play_unchecked(m);
        if let Some(ext) = self.ext.as_mut() {
            ext.overruling = false;
        }
        // Right after the play, before any scoring or end of hand.
        let _ = ev.try_insert(1, Event::Overruled { seat, penalty });
        ev
    }

    /// A play the lenient referee may accept: not a lead, a tile the seat
    /// holds, an open end that exists, a face the tile has.
    fn well_formed_play(&self, m: Move) -> bool {
        let Move::Play { tile, end, face } = m else { return false };
        !self.board.is_empty()
            && self.hands[self.to_move.index()].contains(tile)
            && self.board.end(end).is_some()
            && (face == 0 || (face == 1 && !tile.is_double()))
    }

    /// Log positions of the illegal plays the lenient referee accepted.
    pub fn overruled_plays(&self) -> &[u32] {
        self.ext.as_ref().map_or(&[], |e| &e.lenient)
    }
}
