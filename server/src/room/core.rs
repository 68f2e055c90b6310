//! The room's decisions, with no IO: a [`RoomCore`] takes commands and
//! clock ticks and returns [`Effect`]s (messages to send, a game to store, a
//! strategy to run off the task), which the room task performs.
//!
//! Everything that decides lives in the core and the types it is made of:
//! who may sit where and readiness ([`Seats`]), the match in play, its
//! prompts, clocks, banks and timeout policies ([`Match`], in `play.rs`),
//! reconnect grace, idle rooms and no-shows (`clock.rs`), what each member
//! is told. The core never reads a clock (every input carries `now`), never
//! draws from the OS (its seeds come from the entropy it is built with),
//! never encodes a frame and never awaits, so it is unit-tested by feeding it
//! inputs and reading its effects.
//!
//! Hidden information: every message to a seat is built from its own view
//! of the match or from the events of a move as that seat may see them
//! ([`crate::table::Table`]); spectators get the spectator's view.
//!
//! A room plays dominoes or tiles with 3, 4 or 6 faces
//! ([`crate::table::RoomRules`]): the decisions are the same, the engine and
//! messages differ.

mod clock;
mod play;
mod reading;

#[cfg(test)]
pub(super) use reading::HAND_END_READ;

use std::sync::Arc;

use capicua_engine::SeededRng;
use capicua_protocol::{ErrorCode, RoomId, RoomInfo, RoomStatus, ServerMsg, TimeoutPolicy};
use capicua_strategy::{SpecError, StopFlag};
use tokio::time::Instant;

use self::clock::Clocks;
use self::play::Match;
use super::chat::ChatBucket;
use super::effect::{self, Effect, Member, Push};
use super::seats::{Creator, Seats};
use super::settings::{Settings, TableOptions};
use crate::ConnId;
use crate::bots::{self, HostedStrategy};
use crate::room_cmd::{From, RoomCmd};
use crate::table::AnyMove;

/// Stream of the timeout policy's bot; seat `i`'s hosted bot uses `1 + i`.
const TIMEOUT_BOT_STREAM: u64 = 0;
/// Stream of the room's own draws (deal seeds of unseeded rooms, fallbacks).
pub(super) const ROOM_STREAM: u64 = u64::MAX;

/// What a room decides, without IO. See the module docs.
pub(crate) struct RoomCore {
    pub(super) settings: Settings,
    pub(super) options: TableOptions,
    /// Seeds of everything random in the room.
    pub(super) rng: SeededRng,
    pub(super) seats: Seats,
    pub(super) chat: ChatBucket,
    pub(super) play: Match,
    pub(super) clocks: Clocks,
    pub(super) closed: bool,
    /// A player came back to a room that stood still for want of anyone:
    /// it goes on after the connection's `resync` (which follows its
    /// `hello`), so that its prompt is sent once, with the state.
    wake_on_sync: bool,
    /// Raised when the room closes: its bots' searches stop.
    pub(super) stop: StopFlag,
}

/// Why a room cannot be built from its settings.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CoreError {
    /// A strategy spec that does not build here.
    #[error("strategy {spec:?}: {error}; known: {known}", known = bots::names().join(", "))]
    Strategy {
        /// The spec as given.
        spec: String,
        /// Why.
        error: SpecError,
    },
}

impl RoomCore {
    /// A room with its settings and table options; `entropy` seeds every
    /// random choice of a room created without a seed (the caller draws it
    /// from the OS), `now` starts the no-show clock.
    pub(crate) fn new(
        settings: Settings,
        mut options: TableOptions,
        entropy: u64,
        now: Instant,
    ) -> Result<RoomCore, CoreError> {
        let n = settings.rules.seats() as usize;
        let poly = settings.rules.is_poly();
        let timeout_name = match &settings.on_timeout {
            TimeoutPolicy::Strategy { name } => name.as_str(),
            _ => "random",
        };
        let seed_of = |stream: u64| SeededRng::new(settings.seed.unwrap_or(entropy), stream).next_u64();
        let stop = StopFlag::new();
        let build = |spec: &str, seed: u64| {
            bots::strategy(spec, seed, &settings.bots, &stop, poly)
                .map_err(|error| CoreError::Strategy { spec: spec.into(), error })
        };
        let timeout_bot = build(timeout_name, seed_of(TIMEOUT_BOT_STREAM))?;
        let mut seats = Seats::new(n);
        for (i, h) in std::mem::take(&mut options.hosted).into_iter().enumerate().take(n) {
            let Some(h) = h else { continue };
            let strategy = build(&h.strategy, seed_of(1 + i as u64))?;
            seats.seat_bot(i, h.name, h.player_id, strategy);
        }
        options.reserved.resize(n, None);
        Ok(RoomCore {
            rng: SeededRng::new(settings.seed.unwrap_or(entropy), ROOM_STREAM),
            clocks: Clocks::new(now, options.no_show),
            play: Match::new(n, settings.time.bank_ms, timeout_bot),
            settings,
            options,
            seats,
            chat: ChatBucket::default(),
            closed: false,
            wake_on_sync: false,
            stop,
        })
    }

    /// Records who opened the room.
    pub(crate) fn set_creator(&mut self, creator: Creator) {
        self.seats.set_creator(creator);
    }

    /// Sets the room's id, once it is recorded.
    pub(crate) fn set_id(&mut self, id: RoomId) {
        self.settings.id = id;
    }

    /// The room's id.
    pub(crate) fn id(&self) -> RoomId {
        self.settings.id
    }

    /// The budget its stored games count against, if any.
    pub(crate) fn store_gate(&self) -> Option<&crate::limits::StoreGate> {
        self.settings.store_gate.as_ref()
    }

    /// Whether the room is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// The flag that stops the room's searches (raised when it closes).
    pub(crate) fn stop_flag(&self) -> &StopFlag {
        &self.stop
    }

    /// Whether a connection is a member (seated or watching): the task
    /// forgets the outboxes of connections that are not.
    pub(crate) fn knows(&self, conn: ConnId) -> bool {
        self.seats.knows(conn)
    }

    /// The first thing to do once the task runs: a table of hosted bots
    /// only starts at once.
    pub(crate) fn start(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        fx.push(Effect::Info);
        self.maybe_start(now, fx);
        self.track_idle(now);
    }

    /// Applies a command.
    pub(crate) fn command(&mut self, now: Instant, cmd: RoomCmd, fx: &mut Vec<Effect>) {
        if self.closed {
            return refuse_closed(cmd, fx);
        }
        let stood_still = self.unattended();
        let reattach = matches!(cmd, RoomCmd::Reattach { .. });
        match cmd {
            RoomCmd::Join { client, seat, id } => self.join(fx, Member::of(&client), seat, id),
            RoomCmd::Leave { client, id } => self.leave(now, fx, Member::of(&client), id),
            RoomCmd::Spectate { client, id } => self.spectate(now, fx, Member::of(&client), id),
            RoomCmd::FillBots { client, strategy, id } => self.fill_bots(now, fx, Member::of(&client), strategy, id),
            RoomCmd::Unseat { client, seat, id } => self.unseat(fx, Member::of(&client), seat, id),
            RoomCmd::Ready { client, reads, id } => self.ready(now, fx, Member::of(&client), reads, id),
            RoomCmd::Chat { client, text, id } => self.chat(now, fx, Member::of(&client), text, id),
            RoomCmd::Move { client, prompt, mv, id } => self.on_move(now, fx, Member::of(&client), prompt, mv, id),
            RoomCmd::Resync { client, id } => self.send_sync(now, fx, &Member::of(&client), id),
            RoomCmd::Hint { client, id } => self.hint(fx, Member::of(&client), id),
            RoomCmd::Close { from, id } => {
                if let From::Member(client) = from {
                    effect::reply(fx, &Member::of(&client), id, ServerMsg::Ok { room: self.settings.id });
                }
                self.close(fx, "closed by an admin");
            }
            RoomCmd::Reattach { client, reply } => {
                let given = self.seats.reattach(&Member::of(&client));
                // The others see the seat connected again.
                if given.is_empty() {
                    fx.push(Effect::Info);
                } else {
                    self.changed(fx);
                }
                fx.push(Effect::GaveBack(reply, given));
            }
            RoomCmd::Promote { client } => self.promote(fx, Member::of(&client)),
            RoomCmd::Disconnected { conn } => {
                self.seats.disconnect(conn, now);
                self.changed(fx);
            }
            RoomCmd::Shutdown => self.close(fx, "the server is shutting down"),
        }
        // A reader who left or dropped is not waited for.
        self.resume_if_read(now, fx);
        if reattach {
            self.wake_on_sync |= stood_still;
        } else {
            let stood_still = stood_still || std::mem::take(&mut self.wake_on_sync);
            self.wake(now, fx, stood_still);
        }
        self.track_idle(now);
    }

    /// The clock reached [`RoomCore::next_deadline`].
    pub(crate) fn tick(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if !self.closed {
            self.on_timer(now, fx);
            self.track_idle(now);
        }
    }

    /// A strategy run off the task answered ([`Effect::Think`]) with itself
    /// and its move; `None` when it failed (panicked, and is lost): the core
    /// replaces it, and its move, by random ones.
    pub(crate) fn thought(
        &mut self,
        now: Instant,
        answer: Option<(Box<dyn HostedStrategy>, AnyMove)>,
        fx: &mut Vec<Effect>,
    ) {
        if !self.closed {
            self.on_thought(now, fx, answer);
            self.track_idle(now);
        }
    }

    /// The match of [`Effect::Store`] was stored (`Some(id)`) or not.
    pub(crate) fn stored(&mut self, now: Instant, game: Option<i64>, fx: &mut Vec<Effect>) {
        if !self.closed {
            self.on_stored(fx, game);
            self.track_idle(now);
        }
    }

    /// Goes on after [`Effect::Yield`].
    pub(crate) fn resume(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if !self.closed {
            self.advance(now, fx);
            self.track_idle(now);
        }
    }

    /// The hosted bots of [`Effect::RegisterBots`] have their player row
    /// (`Ok`), or why it could not be had.
    pub(crate) fn bots_registered(
        &mut self,
        now: Instant,
        fill: effect::BotFill,
        player_id: Result<i64, (ErrorCode, String)>,
        fx: &mut Vec<Effect>,
    ) {
        let effect::BotFill { who, strategy, id } = fill;
        if self.closed {
            return effect::refuse(fx, &who, id, ErrorCode::NoSuchRoom, "the room is closed");
        }
        match player_id {
            Ok(p) => self.seat_bots(now, fx, who, strategy, Some(p), id),
            Err((code, message)) => effect::refuse(fx, &who, id, code, message),
        }
        self.track_idle(now);
    }

    /// A seed for one of the room's random choices: derived from the room's
    /// seed when it has one (so the whole room replays), else from its
    /// entropy.
    pub(super) fn seed_for(&mut self, stream: u64) -> u64 {
        match self.settings.seed {
            Some(seed) => SeededRng::new(seed, stream).next_u64(),
            None => self.rng.next_u64(),
        }
    }

    /// Closes the room: every member is told why.
    pub(super) fn close(&mut self, fx: &mut Vec<Effect>, reason: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.play.end();
        let msg = Arc::new(ServerMsg::RoomClosed { room: self.settings.id, reason: reason.into() });
        effect::send_all(fx, self.seats.members(), &msg, Push::Now);
        for p in self.seats.seat_owners() {
            fx.push(Effect::Unseated(p));
        }
        tracing::info!(room = self.settings.id, reason, "room closed");
        fx.push(Effect::Info);
        fx.push(Effect::Closed);
    }

    /// The lobby entry changed: publish it and push it to the members.
    pub(super) fn changed(&self, fx: &mut Vec<Effect>) {
        fx.push(Effect::Info);
        let msg = Arc::new(ServerMsg::Room { room: self.info() });
        effect::send_all(fx, self.seats.members(), &msg, Push::Defer);
    }

    /// The room's lobby entry.
    pub(crate) fn info(&self) -> RoomInfo {
        let status = if self.closed {
            RoomStatus::Closed
        } else if self.play.is_on() {
            RoomStatus::Playing
        } else {
            RoomStatus::Waiting
        };
        let settings = &self.settings;
        RoomInfo {
            id: settings.id,
            variant: settings.rules.name().to_string(),
            poly: settings.rules.is_poly(),
            seats: self.seats.info(&settings.sides),
            status,
            rated: settings.rated,
            spectators: self.seats.spectators().len() as u32,
            time: settings.time,
            on_timeout: settings.on_timeout.clone(),
            games_played: self.play.games_played(),
            seeded: settings.seed.is_some(),
            private: settings.private,
            // The invite is the key to the room: never in what members see.
            invite: None,
            // Set by a lobby listing another server's rooms.
            node: None,
        }
    }

    /// Sends a member the whole state, then its pending prompt if it has one.
    pub(super) fn send_sync(&self, now: Instant, fx: &mut Vec<Effect>, who: &Member, id: Option<u64>) {
        let seat = self.seats.seat_of(who);
        if seat.is_none() && !self.seats.is_spectator(who.conn) {
            return effect::refuse(fx, who, id, ErrorCode::NotSeated, "you are not in this room");
        }
        let state = self.settings.rules.sync_state(self.play.game(), seat);
        let sync = ServerMsg::Sync { room: self.settings.id, seq: self.play.seq(), info: self.info(), state };
        effect::send(fx, who, id, sync, Push::Sync(self.settings.id));
        if let Some(seat) = seat {
            self.send_prompt(now, fx, seat);
        }
    }
}

/// A closed room answers nothing but what keeps a client waiting.
fn refuse_closed(cmd: RoomCmd, fx: &mut Vec<Effect>) {
    match cmd {
        RoomCmd::Reattach { reply, .. } => fx.push(Effect::GaveBack(reply, vec![])),
        RoomCmd::Join { client, id, .. }
        | RoomCmd::Leave { client, id }
        | RoomCmd::Spectate { client, id }
        | RoomCmd::FillBots { client, id, .. }
        | RoomCmd::Unseat { client, id, .. }
        | RoomCmd::Ready { client, id, .. }
        | RoomCmd::Chat { client, id, .. }
        | RoomCmd::Move { client, id, .. }
        | RoomCmd::Resync { client, id }
        | RoomCmd::Hint { client, id }
        | RoomCmd::Close { from: From::Member(client), id } => {
            effect::refuse(fx, &Member::of(&client), id, ErrorCode::NoSuchRoom, "the room is closed");
        }
        RoomCmd::Close { from: From::System, .. }
        | RoomCmd::Promote { .. }
        | RoomCmd::Disconnected { .. }
        | RoomCmd::Shutdown => {}
    }
}
