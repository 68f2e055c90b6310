//! What members ask of the room outside the match: seats, readiness,
//! watching, hosted bots, chat.

use std::sync::Arc;

use capicua_protocol::{ErrorCode, ServerMsg};
use tokio::time::Instant;

use super::core::{CoreError, RoomCore};
use super::effect::{self, BotFill, Effect, Member, Push};
use super::seats::Owner;
use crate::bots;

impl RoomCore {
    pub(super) fn join(&mut self, fx: &mut Vec<Effect>, who: Member, mut seat: Option<u8>, id: Option<u64>) {
        let room = self.settings.id;
        if self.options.is_reserved() {
            // A reserved player gets its own seat whatever it asks for.
            match self.options.reserved_seat(Owner::of(&who)) {
                Some(s) => seat = Some(s),
                None => return effect::refuse(fx, &who, id, ErrorCode::Unauthorized, "this table is reserved"),
            }
        }
        if self.settings.rated && who.ident.player_id.is_none() {
            let message = "rated rooms admit registered players only";
            return effect::refuse(fx, &who, id, ErrorCode::Unauthorized, message);
        }
        if self.seats.seat_of(&who).is_some() {
            let message = "you already hold a seat in this room";
            return effect::refuse(fx, &who, id, ErrorCode::AlreadySeated, message);
        }
        if self.play.is_on() {
            let message = "a match is in play; spectate or wait";
            return effect::refuse(fx, &who, id, ErrorCode::GameInProgress, message);
        }
        let i = match self.seats.free_seat(seat) {
            Ok(i) => i,
            Err((code, message)) => return effect::refuse(fx, &who, id, code, message),
        };
        // One address may hold only so many seats in rooms that have not
        // started: squatting every waiting room is not possible.
        let waiting = match (&self.settings.seat_slots, who.ident.addr) {
            (Some(slots), Some(addr)) if !who.ident.admin => match slots.take(addr) {
                Some(slot) => Some(slot),
                None => {
                    let message = format!(
                        "your address holds {} seats in rooms that have not started, the most allowed; leave one first",
                        slots.max()
                    );
                    return effect::refuse(fx, &who, id, ErrorCode::TooManySeats, message);
                }
            },
            _ => None,
        };
        fx.push(Effect::Seated(Owner::of(&who)));
        self.seats.sit(i, &who, waiting);
        tracing::info!(room, seat = i, player = %who.ident.name, "joined");
        effect::reply(fx, &who, id, ServerMsg::Seated { room, seat: i as u8 });
        self.changed(fx);
    }

    pub(super) fn leave(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, id: Option<u64>) {
        let room = self.settings.id;
        if let Some(seat) = self.seats.seat_of(&who) {
            tracing::info!(room, seat = seat.0, player = %who.ident.name, "left");
        }
        let was_spectator = self.seats.unwatch(who.conn);
        match self.seats.seat_of(&who) {
            Some(seat) if self.play.game().is_some() => {
                self.seats.abandon(seat);
                effect::reply(fx, &who, id, ServerMsg::Left { room });
                self.changed(fx);
                if self.play.pending_seat() == Some(seat) {
                    self.timeout(now, fx);
                }
            }
            Some(seat) => {
                self.vacate(fx, seat.index());
                effect::reply(fx, &who, id, ServerMsg::Left { room });
                self.changed(fx);
                if !self.seats.has_humans() && self.play.games_played() > 0 {
                    self.close(fx, "every player left");
                }
            }
            None if was_spectator => {
                effect::reply(fx, &who, id, ServerMsg::Left { room });
                fx.push(Effect::Info);
            }
            None => effect::refuse(fx, &who, id, ErrorCode::NotSeated, "you are not in this room"),
        }
    }

    /// Empties a seat, telling the task a registered player left it.
    pub(super) fn vacate(&mut self, fx: &mut Vec<Effect>, i: usize) {
        if let Some(p) = self.seats.vacate(i) {
            fx.push(Effect::Unseated(p));
        }
    }

    /// The creator (or the admin) frees a seat before the match: its
    /// player hears `unseated` and is out of the room, a hosted bot goes.
    pub(super) fn unseat(&mut self, fx: &mut Vec<Effect>, who: Member, seat: u8, id: Option<u64>) {
        if !self.seats.is_creator(&who) {
            let message = "only the room's creator or the admin may free a seat";
            return effect::refuse(fx, &who, id, ErrorCode::Unauthorized, message);
        }
        if self.options.is_table() {
            let message = "this table's seats are set by its event";
            return effect::refuse(fx, &who, id, ErrorCode::BadRequest, message);
        }
        if self.play.is_on() {
            return effect::refuse(fx, &who, id, ErrorCode::GameInProgress, "a match is in play");
        }
        let i = seat as usize;
        if i >= self.seats.len() {
            let message = crate::api::no_such_seat(seat, self.seats.len() as u64);
            return effect::refuse(fx, &who, id, ErrorCode::NoSuchSeat, message);
        }
        let Some(member) = self.seats.occupant(i) else {
            return effect::refuse(fx, &who, id, ErrorCode::BadRequest, format!("seat {seat} is empty"));
        };
        let room = self.settings.id;
        if let Some(m) = member.cloned() {
            effect::send(fx, &m, None, ServerMsg::Unseated { room, seat }, Push::Now);
        }
        tracing::info!(room, seat, by = %who.ident.name, "unseated");
        self.vacate(fx, i);
        effect::reply(fx, &who, id, ServerMsg::Ok { room });
        self.changed(fx);
    }

    /// A member watches; a room of bots that stood still for want of a
    /// watcher plays on ([`RoomCore::wake`], after every command).
    pub(super) fn spectate(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, id: Option<u64>) {
        if let Err((code, message)) = self.seats.watch(&who, self.settings.max_spectators) {
            return effect::refuse(fx, &who, id, code, message);
        }
        effect::reply(fx, &who, id, ServerMsg::Spectating { room: self.settings.id });
        fx.push(Effect::Info);
        self.send_sync(now, fx, &who, None);
    }

    pub(super) fn ready(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, reads: bool, id: Option<u64>) {
        let Some(seat) = self.seats.seat_of(&who) else {
            return effect::refuse(fx, &who, id, ErrorCode::NotSeated, "take a seat first");
        };
        if self.play.game().is_some() {
            // In a match: the seat has read the hand's end.
            effect::reply(fx, &who, id, ServerMsg::Ok { room: self.settings.id });
            return self.hand_end_read(now, fx, seat);
        }
        self.seats.set_ready(seat, reads);
        effect::reply(fx, &who, id, ServerMsg::Ok { room: self.settings.id });
        self.changed(fx);
        self.maybe_start(now, fx);
    }

    /// Checks a request to fill the empty seats with hosted bots; a rated
    /// room's bots first get their player row ([`Effect::RegisterBots`]).
    pub(super) fn fill_bots(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        who: Member,
        strategy: String,
        id: Option<u64>,
    ) {
        if self.options.is_table() {
            let message = "this table's seats are set by its event";
            return effect::refuse(fx, &who, id, ErrorCode::BadRequest, message);
        }
        // Filling seats decides who the seated players meet (and, in a rated
        // room, starts a match that counts): only a player seated here, the
        // room's creator or the admin may. A private room's seats are taken
        // by its invite, so a stranger cannot reach this by its number.
        if !self.seats.may_fill(&who) {
            // A stranger learns nothing of a private room named by number.
            if self.settings.private {
                let message = format!("room {} is private: it is reached by its invite", self.settings.id);
                return effect::refuse(fx, &who, id, ErrorCode::InviteOnly, message);
            }
            let message = "only the room's creator or a player seated in it may fill its seats";
            return effect::refuse(fx, &who, id, ErrorCode::NotSeated, message);
        }
        let poly = self.settings.rules.is_poly();
        if let Err(error) = bots::strategy(&strategy, 0, &self.settings.bots, &self.stop, poly) {
            let message = CoreError::Strategy { spec: strategy, error }.to_string();
            return effect::refuse(fx, &who, id, ErrorCode::UnknownStrategy, message);
        }
        if self.play.is_on() {
            return effect::refuse(fx, &who, id, ErrorCode::GameInProgress, "a match is in play");
        }
        if self.seats.empty().is_empty() {
            return effect::refuse(fx, &who, id, ErrorCode::SeatTaken, "the room has no empty seat");
        }
        if self.settings.rated {
            // A rated room's hosted bots play under a player row of their
            // own (ratings).
            return fx.push(Effect::RegisterBots(Box::new(BotFill { who, strategy, id })));
        }
        self.seat_bots(now, fx, who, strategy, None, id);
    }

    /// Fills the empty seats with hosted bots of a checked strategy.
    pub(super) fn seat_bots(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        who: Member,
        strategy: String,
        player_id: Option<i64>,
        id: Option<u64>,
    ) {
        let poly = self.settings.rules.is_poly();
        for i in self.seats.empty() {
            let seed = self.seed_for(1 + i as u64);
            let bot = bots::strategy(&strategy, seed, &self.settings.bots, &self.stop, poly).expect("checked");
            self.seats.seat_bot(i, format!("bot:{strategy}"), player_id, bot);
        }
        effect::reply(fx, &who, id, ServerMsg::Ok { room: self.settings.id });
        self.changed(fx);
        self.maybe_start(now, fx);
    }

    /// Hands the seats a guest connection holds to the player it registered as.
    pub(super) fn promote(&mut self, fx: &mut Vec<Effect>, who: Member) {
        let Some(pid) = who.ident.player_id else { return };
        if self.seats.promote(&who, pid) {
            fx.push(Effect::Unseated(who.ident.guest_owner(who.conn)));
            fx.push(Effect::Seated(Owner::Player(pid)));
            self.changed(fx);
        }
    }

    /// Passes a member's words to every member, the sender too (its copy
    /// is the confirmation that everyone got them, in the room's order).
    pub(super) fn chat(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, text: String, id: Option<u64>) {
        let seat = self.seats.seat_of(&who);
        if seat.is_none() && !self.seats.is_spectator(who.conn) {
            let message = "take a seat or watch the room first";
            return effect::refuse(fx, &who, id, ErrorCode::NotSeated, message);
        }
        if !self.chat.take(now) {
            let message = format!(
                "this room's chat is busy: at most {} lines a second from everyone together; wait a moment",
                capicua_protocol::ROOM_CHAT_PER_SEC
            );
            return effect::refuse(fx, &who, id, ErrorCode::RateLimited, message);
        }
        let room = self.settings.id;
        effect::reply(fx, &who, id, ServerMsg::Ok { room });
        let msg = ServerMsg::Chat { room, seat: seat.map(|s| s.0), name: who.ident.name.clone(), text };
        effect::send_all(fx, self.seats.members(), &Arc::new(msg), Push::Now);
    }
}
