//! The match in play: dealing it, prompting the seat to move, refereeing
//! moves (the engine decides), hosted bots, the clock and bank of each
//! seat, timeout policies, and the end of the match.

use std::sync::Arc;
use std::time::Duration;

use capicua_engine::Seat;
use capicua_protocol::{ErrorCode, GameResult, PromptId, ServerMsg, TimeoutPolicy};
use tokio::time::Instant;

use super::RoomCore;
use super::reading::Reading;
use crate::bots::{self, HostedStrategy};
use crate::record::GameRecord;
use crate::room::effect::{self, Counter, Effect, Member, Push, Think};
use crate::table::{AnyMove, Table, TableEvents};

/// Hosted moves in a row before the task yields its worker.
const HOSTED_RUN: u32 = 64;

/// Which strategy is thinking off the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thinker {
    /// The hosted bot of the seat to move.
    Seat,
    /// The timeout policy's strategy, for a seat out of time.
    Timeout,
}

/// A strategy thinking off the task.
struct Thinking {
    seat: Seat,
    who: Thinker,
    /// Moves in the log when it started: its answer is for that position only.
    plies: usize,
}

/// The prompt a seat must answer, and its clock.
struct Pending {
    id: PromptId,
    seat: Seat,
    started: Instant,
    deadline: Instant,
}

/// The room's matches: the one in play, or the finished one being stored,
/// with its prompts, clocks and the strategies that move for seats.
pub(crate) struct Match {
    game: Option<Table>,
    /// A finished match's result, waiting for its store.
    storing: Option<GameResult>,
    pending: Option<Pending>,
    /// The room's message sequence.
    seq: u64,
    next_prompt: PromptId,
    /// Each seat's bank of extra time, in milliseconds.
    banks: Vec<u64>,
    /// Timeouts per seat in the match in play.
    timeouts: Vec<u32>,
    games_played: u32,
    /// The timeout policy's strategy; `None` while it thinks off the task.
    timeout_bot: Option<Box<dyn HostedStrategy>>,
    thinking: Option<Thinking>,
    /// The last move ended a hand and the match goes on.
    pub(super) hand_ended: bool,
    pub(super) reading: Option<Reading>,
}

impl Match {
    /// No match yet, at a table of `seats`.
    pub(crate) fn new(seats: usize, bank_ms: u64, timeout_bot: Box<dyn HostedStrategy>) -> Match {
        Match {
            game: None,
            storing: None,
            pending: None,
            seq: 0,
            next_prompt: 0,
            banks: vec![bank_ms; seats],
            timeouts: vec![0; seats],
            games_played: 0,
            timeout_bot: Some(timeout_bot),
            thinking: None,
            hand_ended: false,
            reading: None,
        }
    }

    /// The match in play.
    pub(crate) fn game(&self) -> Option<&Table> {
        self.game.as_ref()
    }

    /// Whether a match is in play or being stored.
    pub(crate) fn is_on(&self) -> bool {
        self.game.is_some() || self.storing.is_some()
    }

    /// Whether a finished match waits for its store.
    pub(crate) fn is_storing(&self) -> bool {
        self.storing.is_some()
    }

    /// Matches played to the end.
    pub(crate) fn games_played(&self) -> u32 {
        self.games_played
    }

    /// The room's message sequence number.
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// The seat prompted to move.
    pub(crate) fn pending_seat(&self) -> Option<Seat> {
        self.pending.as_ref().map(|p| p.seat)
    }

    /// When the prompted seat runs out of time.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().map(|p| p.deadline)
    }

    /// When a hand's end stops holding the next hand for its readers.
    pub(crate) fn reading_until(&self) -> Option<Instant> {
        self.reading.as_ref().map(|r| r.until)
    }

    /// Stops the match in play (the room closed).
    pub(crate) fn end(&mut self) {
        self.game = None;
        self.pending = None;
        self.hand_ended = false;
        self.reading = None;
    }
}

impl RoomCore {
    /// Deals the next match with fresh clocks and timeout counts; false (and
    /// the room closed) if the engine refuses the seating checked at creation.
    pub(in crate::room) fn deal_match(&mut self, fx: &mut Vec<Effect>) -> bool {
        // A seeded room deals its k-th match from `seed + k`: the first
        // match's stored seed is the one the room was created with.
        let deal_seed = match self.settings.seed {
            Some(s) => s.wrapping_add(u64::from(self.play.games_played)),
            None => self.rng.next_u64(),
        };
        match self.settings.rules.deal(deal_seed) {
            Ok(game) => {
                self.play.banks = vec![self.settings.time.bank_ms; self.seats.len()];
                self.play.timeouts = vec![0; self.seats.len()];
                self.play.game = Some(game);
                self.play.hand_ended = false;
                self.play.reading = None;
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "seating checked at creation failed");
                self.close(fx, "internal error");
                false
            }
        }
    }

    /// Starts a match once every seat is filled and ready.
    pub(in crate::room) fn maybe_start(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if self.play.is_on() || self.closed || self.unattended() {
            return;
        }
        if self.seats.first_missing().is_some() || self.over_budget(now, fx) || !self.deal_match(fx) {
            return;
        }
        self.play.seq += 1;
        self.seats.stop_waiting();
        let (room, seq) = (self.settings.id, self.play.seq);
        let game = self.play.game.as_ref().expect("just dealt");
        for i in 0..self.seats.len() {
            if let Some(m) = self.seats.member(i) {
                let msg = game.started(&self.settings.rules, room, seq, Some(Seat(i as u8)));
                effect::send(fx, m, None, msg, Push::Now);
            }
        }
        if !self.seats.spectators().is_empty() {
            let msg = Arc::new(game.started(&self.settings.rules, room, seq, None));
            effect::send_all(fx, self.seats.spectators(), &msg, Push::Now);
        }
        tracing::info!(room, seq, "match started");
        self.changed(fx);
        self.advance(now, fx);
    }

    /// Whether the room's owner has stored its most games lately: then no
    /// match starts, and everyone in the room hears when one may.
    fn over_budget(&self, now: Instant, fx: &mut Vec<Effect>) -> bool {
        let Some(Err(wait)) = self.settings.store_gate.as_ref().map(|g| g.check(now)) else { return false };
        let mins = wait.as_secs().div_ceil(60).max(1);
        let message = format!(
            "the games of this room's creator (or of its address) filled their storage for now: \
             the next match may start in about {mins} min"
        );
        let msg = Arc::new(ServerMsg::Error { code: ErrorCode::StorageBudget, message, url: None });
        effect::send_all(fx, self.seats.members(), &msg, Push::Now);
        true
    }

    /// Plays hosted seats until a player must move (prompted), a slow
    /// strategy starts thinking off the task, the match ends, or a long
    /// stretch of hosted moves asks the task to yield.
    pub(in crate::room) fn advance(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let mut hosted_moves = 0u32;
        loop {
            if self.play.thinking.is_some() || self.closed || self.unattended() {
                return;
            }
            if std::mem::take(&mut self.play.hand_ended) {
                self.start_reading(now);
            }
            if self.play.reading.is_some() {
                if self.readers_left() {
                    return;
                }
                self.play.reading = None;
            }
            let Some(game) = self.play.game.as_ref() else { return };
            let Some(seat) = game.to_move() else {
                return self.finish(fx, None);
            };
            let Some(strategy) = self.seats.bot(seat) else {
                return self.prompt(now, fx, seat);
            };
            let Some(bot) = strategy else { return };
            if !bot.is_quick() {
                let bot = strategy.take().expect("checked");
                return self.think(fx, seat, Thinker::Seat, bot);
            }
            if hosted_moves == HOSTED_RUN {
                // Bot-only stretches must not monopolize a worker thread.
                fx.push(Effect::Yield);
                return;
            }
            let m = bot.choose(game, seat);
            self.apply_hosted(fx, seat, m);
            hosted_moves += 1;
        }
    }

    /// Plays a hosted seat's move; an illegal one (a strategy bug) is
    /// logged and replaced by a random legal move.
    pub(in crate::room) fn apply_hosted(&mut self, fx: &mut Vec<Effect>, seat: Seat, m: AnyMove) {
        if let Err(e) = self.referee(fx, m, None) {
            tracing::error!(room = self.settings.id, error = %e, "a hosted strategy chose an illegal move");
            let m = self.fallback_move(seat);
            let _ = self.referee(fx, m, None);
        }
    }

    /// A `random` strategy seeded from the room's stream.
    pub(in crate::room) fn random_strategy(&mut self) -> Box<dyn HostedStrategy> {
        let poly = self.settings.rules.is_poly();
        bots::strategy("random", self.rng.next_u64(), &self.settings.bots, &self.stop, poly).expect("random exists")
    }

    /// A random legal move for the seat to move.
    pub(in crate::room) fn fallback_move(&mut self, seat: Seat) -> AnyMove {
        let mut random = self.random_strategy();
        random.choose(self.play.game.as_ref().expect("in play"), seat)
    }

    /// Hands a slow strategy a copy of the game to think on off the task
    /// (it still sees only its seat's view).
    fn think(&mut self, fx: &mut Vec<Effect>, seat: Seat, who: Thinker, strategy: Box<dyn HostedStrategy>) {
        let game = self.play.game.clone().expect("thinking needs a game");
        self.play.thinking = Some(Thinking { seat, who, plies: game.plies() });
        fx.push(Effect::Think(Box::new(Think { seat, strategy, game })));
    }

    /// A strategy finished thinking: its move is played if the position is
    /// still the one it thought about.
    pub(in crate::room) fn on_thought(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        answer: Option<(Box<dyn HostedStrategy>, AnyMove)>,
    ) {
        let Some(thinking) = self.play.thinking.take() else { return };
        let (strategy, mv) = match answer {
            Some((strategy, mv)) => (strategy, Some(mv)),
            None => (self.random_strategy(), None),
        };
        match thinking.who {
            Thinker::Seat => {
                if let Some(slot) = self.seats.bot(thinking.seat) {
                    *slot = Some(strategy);
                }
            }
            Thinker::Timeout => self.play.timeout_bot = Some(strategy),
        }
        let current =
            self.play.game.as_ref().is_some_and(|g| g.plies() == thinking.plies && g.to_move() == Some(thinking.seat));
        if !current {
            return;
        }
        let m = match mv {
            Some(m) => m,
            None => {
                tracing::error!(room = self.settings.id, "a hosted strategy failed; a random move replaces it");
                self.fallback_move(thinking.seat)
            }
        };
        self.apply_hosted(fx, thinking.seat, m);
        self.advance(now, fx);
    }

    pub(in crate::room) fn prompt(&mut self, now: Instant, fx: &mut Vec<Effect>, seat: Seat) {
        self.play.next_prompt += 1;
        let allowed =
            if self.seats.is_abandoned(seat) { 0 } else { self.settings.time.move_ms + self.play.banks[seat.index()] };
        let deadline = now + Duration::from_millis(allowed);
        self.play.pending = Some(Pending { id: self.play.next_prompt, seat, started: now, deadline });
        self.send_prompt(now, fx, seat);
    }

    /// Sends the seat its pending prompt, if it has one and is connected.
    pub(in crate::room) fn send_prompt(&self, now: Instant, fx: &mut Vec<Effect>, seat: Seat) {
        let (Some(p), Some(game)) = (&self.play.pending, &self.play.game) else { return };
        if p.seat != seat {
            return;
        }
        let Some(m) = self.seats.member(seat.index()) else { return };
        let left = p.deadline.saturating_duration_since(now).as_millis() as u64;
        let msg = game.prompt(self.settings.id, p.id, seat, m.lean, left);
        effect::send(fx, m, None, msg, Push::Now);
    }

    /// Checks that `seat` may answer `prompt` now.
    fn check_turn(&self, seat: Seat, prompt: PromptId) -> Result<&Pending, (ErrorCode, String)> {
        let Some(p) = &self.play.pending else {
            return Err((ErrorCode::NotYourTurn, "no move is expected".into()));
        };
        if p.seat != seat {
            return Err((ErrorCode::NotYourTurn, format!("it is seat {}'s turn, you are seat {}", p.seat.0, seat.0)));
        }
        if p.id != prompt {
            return Err((ErrorCode::StalePrompt, format!("prompt {prompt} is not the pending one ({})", p.id)));
        }
        Ok(p)
    }

    pub(in crate::room) fn on_move(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        who: Member,
        prompt: PromptId,
        mv: AnyMove,
        id: Option<u64>,
    ) {
        let Some(seat) = self.seats.seat_of(&who) else {
            return effect::refuse(fx, &who, id, ErrorCode::NotSeated, "you hold no seat in this room");
        };
        let started = match self.check_turn(seat, prompt) {
            Ok(p) => p.started,
            Err((code, message)) => return effect::refuse(fx, &who, id, code, message),
        };
        let elapsed = now.saturating_duration_since(started).as_millis() as u64;
        let over = elapsed.saturating_sub(self.settings.time.move_ms);
        if let Err(message) = self.referee(fx, mv, Some((&who, id, prompt))) {
            // Nothing changed; the prompt stands.
            return effect::refuse(fx, &who, id, ErrorCode::IllegalMove, message);
        }
        let bank = &mut self.play.banks[seat.index()];
        *bank = bank.saturating_sub(over);
        self.advance(now, fx);
    }

    /// The one path of a move, whoever made it (a member answering its
    /// prompt, a hosted bot, a timeout policy): the engine referees it, and
    /// everyone is told what happened. A legal move is played; an illegal
    /// one is refused with nothing changed, unless the variant's lenient
    /// referee lets it stand (seeded, so the stored log replays it).
    pub(in crate::room) fn referee(
        &mut self,
        fx: &mut Vec<Effect>,
        m: AnyMove,
        answers: Option<(&Member, Option<u64>, PromptId)>,
    ) -> Result<(), String> {
        let game = self.play.game.as_mut().expect("a move needs a match in play");
        let events = game.play(m)?;
        // A member's `accepted` goes first, then the events, in one write:
        // the reply is queued quietly and the mover woken after the
        // broadcast. A mover that skips `accepted` (and sent no id) gets
        // nothing now: its move's events wait like everyone else's.
        let accepted = answers.filter(|(who, id, _)| id.is_some() || !who.skip_accepted);
        if let Some((who, id, prompt)) = accepted {
            effect::send(fx, who, id, ServerMsg::Accepted { room: self.settings.id, prompt }, Push::Quiet);
        }
        self.play.pending = None;
        self.play.hand_ended = events.ended_hand() && game.to_move().is_some();
        fx.push(Effect::Count(Counter::Move));
        self.broadcast_events(fx, &events);
        if let Some((who, ..)) = accepted {
            fx.push(Effect::Wake(who.conn));
        }
        Ok(())
    }

    pub(in crate::room) fn broadcast_events(&mut self, fx: &mut Vec<Effect>, events: &TableEvents) {
        let game = self.play.game.as_ref().expect("in play");
        self.play.seq += 1;
        let (room, seq) = (self.settings.id, self.play.seq);
        // The public message is shared by everyone the move tells nothing
        // of its own (the task encodes it once).
        let mut shared: Option<Arc<ServerMsg>> = None;
        let mut plain = || shared.get_or_insert_with(|| Arc::new(game.public_events(room, seq, events))).clone();
        for i in 0..self.seats.len() {
            let Some(m) = self.seats.member(i) else { continue };
            let msg = match game.own_events(room, seq, events, Some(Seat(i as u8))) {
                Some(msg) => Arc::new(msg),
                None => plain(),
            };
            fx.push(Effect::Send { to: m.conn, id: None, msg, push: Push::Defer });
        }
        if !self.seats.spectators().is_empty() {
            let msg = match game.own_events(room, seq, events, None) {
                Some(msg) => Arc::new(msg),
                None => plain(),
            };
            effect::send_all(fx, self.seats.spectators(), &msg, Push::Defer);
        }
    }

    /// The pending seat is out of time (or gone): its timeout policy moves.
    pub(in crate::room) fn timeout(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let Some(p) = self.play.pending.take() else { return };
        let seat = p.seat;
        let Some(game) = self.play.game.as_ref() else { return };
        fx.push(Effect::Count(Counter::Timeout));
        self.play.banks[seat.index()] = 0;
        self.play.timeouts[seat.index()] += 1;
        let pass = game.legal_pass();
        let m = match &self.settings.on_timeout {
            TimeoutPolicy::Forfeit => return self.finish(fx, Some(seat)),
            TimeoutPolicy::Pass if pass.is_some() => pass.expect("checked"),
            _ => match self.play.timeout_bot.take() {
                Some(bot) if !bot.is_quick() => return self.think(fx, seat, Thinker::Timeout, bot),
                Some(mut bot) => {
                    let m = bot.choose(game, seat);
                    self.play.timeout_bot = Some(bot);
                    m
                }
                // Already thinking: it answers for this seat.
                None => return,
            },
        };
        if let Err(e) = self.referee(fx, m, None) {
            tracing::error!(room = self.settings.id, error = %e, "the timeout policy chose an illegal move");
            let m = self.fallback_move(seat);
            let _ = self.referee(fx, m, None);
        }
        self.advance(now, fx);
    }

    /// Ends the match: asks for it to be stored; the result is announced
    /// once the store answers ([`RoomCore::stored`]).
    pub(in crate::room) fn finish(&mut self, fx: &mut Vec<Effect>, forfeit: Option<Seat>) {
        let Some(game) = self.play.game.take() else { return };
        self.play.pending = None;
        let scores = game.scores();
        let sides = &self.settings.sides;
        let winner = match forfeit {
            None => game.winner(),
            Some(seat) => {
                let loser = sides[seat.index()];
                (0..scores.len() as u8).filter(|&s| s != loser).max_by_key(|&s| (scores[s as usize], -(s as i32)))
            }
        };
        let (play, hand_results) = game.record(&self.settings.rules);
        let hands = hand_results.len() as u32;
        let mut record = GameRecord {
            room_id: Some(self.settings.id as i64),
            play,
            seed: game.seed(),
            scores: scores.clone(),
            seat_scores: game.seat_scores(),
            hands: hand_results,
            winner,
            forfeit: forfeit.map(|s| s.0),
            seats: self.seats.records(sides),
            rated: self.settings.rated,
            timeouts: self.play.timeouts.clone(),
            tournament: None,
        };
        record.tournament = self.options.link.as_ref().map(|link| link(&record));
        tracing::info!(room = self.settings.id, hands, ?winner, "match over; storing it");
        self.play.storing = Some(GameResult { winner, scores, hands, forfeit: forfeit.map(|s| s.0) });
        fx.push(Effect::Store(Box::new(record)));
    }

    /// The finished match is stored (or failed to be): announce it.
    pub(in crate::room) fn on_stored(&mut self, fx: &mut Vec<Effect>, stored: Option<i64>) {
        let Some(result) = self.play.storing.take() else { return };
        self.play.games_played += 1;
        self.play.seq += 1;
        let msg = ServerMsg::GameOver { room: self.settings.id, seq: self.play.seq, game: stored, result };
        effect::send_all(fx, self.seats.members(), &Arc::new(msg), Push::Now);
        // After `game-over` is queued: a table's news comes after it.
        fx.push(Effect::MatchDone(stored));
        // Seats left during the match are freed; players must say ready again.
        for p in self.seats.after_match() {
            fx.push(Effect::Unseated(p));
        }
        if !self.seats.has_humans() || self.options.one_match {
            // A table of hosted bots plays one match: it would otherwise
            // replay forever with nobody to watch it.
            return self.close(fx, "the match is over");
        }
        self.changed(fx);
    }

    /// Hands the member's pending decision to the hint analysis, or says
    /// why there is none: never in a rated room or at a tournament's table
    /// (a hint there would be help from a bot in a game that counts).
    pub(in crate::room) fn hint(&self, fx: &mut Vec<Effect>, who: Member, id: Option<u64>) {
        if self.settings.rated {
            let message = "hints are not offered in rated rooms";
            return effect::refuse(fx, &who, id, ErrorCode::HintUnavailable, message);
        }
        if self.options.is_table() || self.options.link.is_some() {
            let message = "hints are not offered at a tournament's table";
            return effect::refuse(fx, &who, id, ErrorCode::HintUnavailable, message);
        }
        let Some(seat) = self.seats.seat_of(&who) else {
            return effect::refuse(fx, &who, id, ErrorCode::NotSeated, "you hold no seat in this room");
        };
        let (Some(p), Some(table)) = (&self.play.pending, &self.play.game) else {
            return effect::refuse(fx, &who, id, ErrorCode::NotYourTurn, "no move is expected");
        };
        if p.seat != seat {
            let message = format!("it is seat {}'s turn, you are seat {}", p.seat.0, seat.0);
            return effect::refuse(fx, &who, id, ErrorCode::NotYourTurn, message);
        }
        let Some(game) = table.tiles() else {
            let message = "hints are offered for dominoes, not for tiles with 3, 4 or 6 faces";
            return effect::refuse(fx, &who, id, ErrorCode::HintUnavailable, message);
        };
        // The analysis plays hands out on copies: none of them needs the
        // final positions the room keeps.
        let mut game = game.clone();
        game.keep_hand_ends(false);
        fx.push(Effect::Hint(Box::new(crate::hints::HintJob {
            conn: who.conn,
            player: who.ident.player_id,
            addr: who.ident.addr,
            id,
            room: self.settings.id,
            seq: self.play.seq,
            prompt: p.id,
            seat,
            game,
            stop: self.stop.clone(),
        })));
    }
}
