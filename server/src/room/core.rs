//! The room's decisions, with no IO: a [`RoomCore`] takes commands and
//! clock ticks and returns [`Effect`]s (frames to send, a game to store, a
//! strategy to run off the task), which the room task performs.
//!
//! Everything that decides lives here: who may sit where, readiness,
//! whether a move is accepted, clocks and banks, timeout policies,
//! reconnect grace, no-shows, what each member is told. The core never
//! reads a clock (every input carries `now`), never draws from the OS
//! (its seeds come from the entropy it is built with) and never awaits, so
//! it is unit-tested by feeding it inputs and reading its effects.
//!
//! Hidden information: every frame to a seat is built from its own view of
//! the match or from the events of a move as that seat may see them
//! ([`Table`]); spectators get the spectator's view.
//!
//! A room plays dominoes or tiles with 3, 4 or 6 faces ([`RoomRules`]):
//! the decisions are the same, the engine and messages differ ([`Table`]).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use capicua_engine::{Seat, SeededRng};
use capicua_protocol::{
    ErrorCode, GameResult, Occupant, OccupantKind, PromptId, RoomId, RoomInfo, RoomStatus, SeatInfo, ServerMsg,
    TimeControl, TimeoutPolicy,
};
use tokio::time::Instant;

use capicua_strategy::{SpecError, StopFlag};

use crate::bots::{self, HostedStrategy};
use crate::db::{GameRecord, SeatKind, SeatRecord, TableLink};
use crate::outbox::encode;
use crate::table::{AnyMove, RoomRules, Table, TableEvents};
use crate::{ConnId, Identity};

/// A connection as the core sees it: who it acts for and how it wants its
/// prompts. Frames are addressed to its `conn`.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    /// The connection.
    pub conn: ConnId,
    /// Who it acts for.
    pub ident: Arc<Identity>,
    /// Prompts without the view (asked in `hello`).
    pub lean: bool,
}

/// How a frame is pushed to a connection's outbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Push {
    /// Sent at once (replies, prompts, match start and end).
    Now,
    /// May wait for the connection's next urgent frame when it batches
    /// events (events, lobby updates).
    Defer,
    /// Queued without waking the sender: a [`Effect::Wake`] follows, so a
    /// reply leaves in one write with the frames queued after it.
    Quiet,
    /// Sent at once, replacing this room's `sync` still queued for the
    /// connection (a `sync` holds the whole state: an older one is moot).
    Sync(RoomId),
}

/// Counters the room task adds to the server's metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counter {
    /// A move was played.
    Move,
    /// A request was refused.
    Error,
    /// A seat ran out of time.
    Timeout,
}

/// Which strategy is thinking off the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Thinker {
    /// The hosted bot of the seat to move.
    Seat,
    /// The timeout policy's strategy, for a seat out of time.
    Timeout,
}

/// A strategy to run on a copy of the game, off the room task; its answer
/// comes back as [`Input::Thought`].
pub(crate) struct Think {
    /// The seat it decides for (from that seat's view only).
    pub seat: Seat,
    /// The strategy, handed back with the answer.
    pub strategy: Box<dyn HostedStrategy>,
    /// A copy of the match at the position to decide.
    pub game: Table,
}

/// What the core asks the room task to do, in order.
pub(crate) enum Effect {
    /// Push a frame to a connection.
    Send {
        /// The connection.
        to: ConnId,
        /// The encoded frame.
        frame: Utf8Bytes,
        /// How.
        push: Push,
    },
    /// Wake a connection's sender (after [`Push::Quiet`] frames).
    Wake(ConnId),
    /// Run a strategy off the task.
    Think(Box<Think>),
    /// Analyse a seat's pending decision for a hint ([`crate::hints`]).
    Hint(Box<crate::hints::HintJob>),
    /// Store a finished match, then answer [`Input::Stored`]. Nobody hears
    /// the result before it is committed.
    Store(Box<GameRecord>),
    /// The match is over and announced: `Some(game id)` if it was stored.
    MatchDone(Option<i64>),
    /// A registered player now holds a seat here (for reconnects).
    Seated(i64),
    /// A registered player no longer holds a seat here.
    Unseated(i64),
    /// The seats given back to a reconnecting player.
    GaveBack(Vec<u8>),
    /// A metric to count.
    Count(Counter),
    /// The lobby entry changed ([`RoomCore::info`]).
    Info,
    /// Hosted bots have played a long stretch: yield, then send
    /// [`Input::Continue`].
    Yield,
    /// The room is closed; the task ends.
    Closed,
}

/// A command or event for the core.
pub(crate) enum Input {
    /// Take a seat (any free one when `seat` is `None`).
    Join {
        /// Who.
        who: Member,
        /// Which seat.
        seat: Option<u8>,
        /// Request id to echo.
        id: Option<u64>,
    },
    /// Leave the seat or the spectators.
    Leave {
        /// Who.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    /// Watch.
    Spectate {
        /// Who.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    /// Say something to the room.
    Chat {
        /// Who.
        who: Member,
        /// What (already checked for length).
        text: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Fill the empty seats with hosted bots.
    FillBots {
        /// Who asks.
        who: Member,
        /// The strategy spec.
        strategy: String,
        /// The hosted bot's player row, for rated rooms.
        player_id: Option<i64>,
        /// Request id.
        id: Option<u64>,
    },
    /// Ready for the next match.
    Ready {
        /// Who.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    /// A move answering a prompt.
    Move {
        /// Who.
        who: Member,
        /// The prompt answered.
        prompt: PromptId,
        /// The move.
        mv: AnyMove,
        /// Request id.
        id: Option<u64>,
    },
    /// Send the state (and the pending prompt) again.
    /// What the strongest bot would play at the member's pending prompt.
    Hint {
        /// Who asks.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    Resync {
        /// Who.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    /// Close the room (an admin; checked by the connection).
    Close {
        /// Who.
        who: Member,
        /// Request id.
        id: Option<u64>,
    },
    /// A player reconnected: its seats go to this connection.
    Reattach {
        /// The new connection.
        who: Member,
    },
    /// A guest registered: its seats now belong to the player.
    Promote {
        /// The connection, with its new identity.
        who: Member,
    },
    /// A connection ended.
    Disconnected {
        /// Which.
        conn: ConnId,
    },
    /// The clock reached [`RoomCore::next_deadline`].
    Tick,
    /// A strategy run off the task answered ([`Effect::Think`]) with itself
    /// and its move; `None` when it failed (panicked, and is lost): the core
    /// replaces it, and its move, by random ones.
    Thought(Option<(Box<dyn HostedStrategy>, AnyMove)>),
    /// The match of [`Effect::Store`] was stored (`Some(id)`) or not.
    Stored(Option<i64>),
    /// Go on after [`Effect::Yield`].
    Continue,
    /// The server is shutting down.
    Shutdown,
}

/// A room's checked settings.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The room.
    pub id: RoomId,
    /// The rules, and seats and teams (checked by the engine).
    pub rules: RoomRules,
    /// Each seat's side.
    pub sides: Vec<u8>,
    /// Ratings count; registered players only.
    pub rated: bool,
    /// The clock.
    pub time: TimeControl,
    /// What a seat out of time does.
    pub on_timeout: TimeoutPolicy,
    /// The seed the room was created with (reproducible rooms).
    pub seed: Option<u64>,
    /// How long a disconnected player keeps its seat.
    pub grace: Duration,
    /// Unlisted, joined by invite only.
    pub private: bool,
    /// What the specs of its hosted bots may ask (they came over the network).
    pub bots: capicua_strategy::Policy,
    /// How long the room stays open with no player connected in a seat and
    /// no match in play (hosted bots and spectators do not count); `None`
    /// keeps it open. Tables are exempt: their event closes them.
    pub idle: Option<Duration>,
    /// How long a room whose seats are all hosted bots stays open with no
    /// one watching it; its match stands still meanwhile. `None` keeps it
    /// open (and playing). Tables and the admin's rooms are exempt.
    pub unwatched: Option<Duration>,
    /// Most spectators at once; 0 is no limit.
    pub max_spectators: usize,
}

/// A hosted seat set when the room is created.
pub(crate) struct HostedSeat {
    /// The name shown.
    pub name: String,
    /// The strategy spec.
    pub strategy: String,
    /// Its player row (ratings).
    pub player_id: Option<i64>,
}

/// Options of a room that is a table of something larger (a tournament):
/// reserved seats, hosted seats, one match, a no-show deadline.
#[derive(Default)]
pub(crate) struct TableOptions {
    /// The player each seat is reserved for (`None`: open or hosted).
    pub reserved: Vec<Option<i64>>,
    /// Seats filled with hosted bots at creation.
    pub hosted: Vec<Option<HostedSeat>>,
    /// Play one match, then close.
    pub one_match: bool,
    /// If the seats are not all filled and ready by then (after creation),
    /// the side of the first missing seat forfeits the match.
    pub no_show: Option<Duration>,
    /// Makes the record stored with the game in the same transaction (a
    /// tournament's result for this table) from the finished match.
    pub link: Option<LinkFn>,
    /// Seeds the room's deals and hosted bots instead of the OS's entropy
    /// (a tournament table's, from its deal secret: never shown).
    pub entropy: Option<u64>,
}

/// Builds the [`TableLink`] stored with a finished match.
pub(crate) type LinkFn = Box<dyn Fn(&GameRecord) -> TableLink + Send>;

/// Who owns a seat: a registered player (across reconnects) or a guest's
/// connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Player(i64),
    Guest(ConnId),
}

/// Who opened a room: the creator may fill its empty seats with hosted
/// bots without sitting in it, and the admin's rooms of bots play on with
/// no one watching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Creator {
    /// The admin.
    Admin,
    /// A registered player, or a guest's connection (WebSocket).
    Owner(Owner),
    /// Nobody a later request can be recognized as: a guest over HTTP, or a
    /// tournament for its tables.
    Unknown,
}

impl Owner {
    pub(crate) fn of(m: &Member) -> Owner {
        match m.ident.player_id {
            Some(p) => Owner::Player(p),
            None => Owner::Guest(m.conn),
        }
    }
}

enum SeatState {
    Empty,
    Human {
        owner: Owner,
        name: String,
        member: Option<Member>,
        ready: bool,
        /// When the connection dropped (the grace period runs from here).
        gone_since: Option<Instant>,
        /// Left or out of grace: its turns go to the timeout policy at once.
        abandoned: bool,
    },
    Bot {
        name: String,
        player_id: Option<i64>,
        /// `None` while it thinks off the task.
        strategy: Option<Box<dyn HostedStrategy>>,
    },
}

/// A strategy thinking off the task.
struct Thinking {
    seat: Seat,
    who: Thinker,
    /// Moves in the log when it started: its answer is for that position only.
    plies: usize,
}

struct Pending {
    id: PromptId,
    seat: Seat,
    started: Instant,
    deadline: Instant,
}

/// A finished match waiting for its store.
struct Storing {
    result: GameResult,
}

/// Stream of the timeout policy's bot; seat `i`'s hosted bot uses `1 + i`.
const TIMEOUT_BOT_STREAM: u64 = 0;
/// Stream of the room's own draws (deal seeds of unseeded rooms, fallbacks).
const ROOM_STREAM: u64 = u64::MAX;
/// Hosted moves in a row before the task yields its worker.
const HOSTED_RUN: u32 = 64;

/// What a room decides, without IO. See the module docs.
pub(crate) struct RoomCore {
    s: Settings,
    table: TableOptions,
    /// Seeds of everything random in the room.
    rng: SeededRng,
    /// `None` while it thinks off the task.
    timeout_bot: Option<Box<dyn HostedStrategy>>,
    thinking: Option<Thinking>,
    seats: Vec<SeatState>,
    spectators: Vec<Member>,
    game: Option<Table>,
    storing: Option<Storing>,
    seq: u64,
    next_prompt: PromptId,
    pending: Option<Pending>,
    banks: Vec<u64>,
    /// Timeouts per seat in the match in play.
    timeouts: Vec<u32>,
    games_played: u32,
    closed: bool,
    no_show_at: Option<Instant>,
    /// Since when nobody has been seated and connected, with no match in
    /// play (see [`Settings::idle`]).
    idle_since: Option<Instant>,
    /// Raised when the room closes: its bots' searches stop.
    stop: StopFlag,
    /// Who opened the room.
    creator: Creator,
    /// The room's chat bucket: tokens, and when they were counted.
    chat_tokens: Option<(f64, Instant)>,
    /// Since when the room's seats are all hosted bots and no one watches
    /// (see [`Settings::unwatched`]).
    unwatched_since: Option<Instant>,
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
    pub(crate) fn new(s: Settings, mut table: TableOptions, entropy: u64, now: Instant) -> Result<RoomCore, CoreError> {
        let n = s.rules.seats() as usize;
        let poly = s.rules.is_poly();
        let timeout_name = match &s.on_timeout {
            TimeoutPolicy::Strategy { name } => name.as_str(),
            _ => "random",
        };
        let seed_of = |stream: u64| match s.seed {
            Some(seed) => SeededRng::new(seed, stream).next_u64(),
            None => SeededRng::new(entropy, stream).next_u64(),
        };
        let stop = StopFlag::new();
        let build = |spec: &str, seed: u64| {
            bots::strategy(spec, seed, &s.bots, &stop, poly)
                .map_err(|error| CoreError::Strategy { spec: spec.into(), error })
        };
        let timeout_bot = build(timeout_name, seed_of(TIMEOUT_BOT_STREAM))?;
        let mut seats: Vec<SeatState> = (0..n).map(|_| SeatState::Empty).collect();
        for (i, h) in std::mem::take(&mut table.hosted).into_iter().enumerate().take(n) {
            let Some(h) = h else { continue };
            let strategy = build(&h.strategy, seed_of(1 + i as u64))?;
            seats[i] = SeatState::Bot { name: h.name, player_id: h.player_id, strategy: Some(strategy) };
        }
        table.reserved.resize(n, None);
        Ok(RoomCore {
            rng: SeededRng::new(s.seed.unwrap_or(entropy), ROOM_STREAM),
            no_show_at: table.no_show.map(|d| now + d),
            idle_since: Some(now),
            banks: vec![s.time.bank_ms; n],
            timeouts: vec![0; n],
            s,
            table,
            timeout_bot: Some(timeout_bot),
            thinking: None,
            seats,
            spectators: vec![],
            game: None,
            storing: None,
            seq: 0,
            next_prompt: 0,
            pending: None,
            games_played: 0,
            closed: false,
            stop,
            creator: Creator::Unknown,
            chat_tokens: None,
            unwatched_since: None,
        })
    }

    /// Records who opened the room.
    pub(crate) fn set_creator(&mut self, creator: Creator) {
        self.creator = creator;
    }

    /// Sets the room's id, once it is recorded.
    pub(crate) fn set_id(&mut self, id: RoomId) {
        self.s.id = id;
    }

    /// The room's id.
    pub(crate) fn id(&self) -> RoomId {
        self.s.id
    }

    /// Whether ratings count (hosted bots then need player rows).
    pub(crate) fn rated(&self) -> bool {
        self.s.rated
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
        self.spectators.iter().any(|m| m.conn == conn) || self.seats.iter().any(|s| Self::is_conn(s, conn))
    }

    fn is_conn(s: &SeatState, conn: ConnId) -> bool {
        matches!(s, SeatState::Human { member: Some(m), .. } if m.conn == conn)
    }

    /// Registered players seated here.
    pub(crate) fn seated_players(&self) -> Vec<i64> {
        self.seats
            .iter()
            .filter_map(|s| match s {
                SeatState::Human { owner: Owner::Player(p), .. } => Some(*p),
                _ => None,
            })
            .collect()
    }

    /// The earliest moment the room must act without a command: the pending
    /// prompt's deadline, the end of a disconnected player's grace, or a
    /// table's no-show deadline, or the end of the room's idle time.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        if self.closed || self.storing.is_some() {
            return None;
        }
        let grace = self.s.grace;
        let graces = self.seats.iter().filter_map(|s| match s {
            SeatState::Human { gone_since: Some(t), abandoned: false, .. } => Some(*t + grace),
            _ => None,
        });
        let no_show = self.no_show_at.filter(|_| self.game.is_none() && self.games_played == 0);
        self.pending
            .as_ref()
            .map(|p| p.deadline)
            .into_iter()
            .chain(graces)
            .chain(no_show)
            .chain(self.idle_end())
            .chain(self.unwatched_end())
            .min()
    }

    /// When the room closes for idleness, if its idle clock runs.
    fn idle_end(&self) -> Option<Instant> {
        if self.is_table() {
            return None;
        }
        // A deadline too far to represent is no deadline.
        self.idle_since?.checked_add(self.s.idle?)
    }

    /// When a room of bots nobody watches closes, if that clock runs.
    fn unwatched_end(&self) -> Option<Instant> {
        self.unwatched_since?.checked_add(self.s.unwatched?)
    }

    /// Whether the room is one of hosted bots alone that no one watches:
    /// such a room does not play (its searches would burn the CPU for
    /// nobody), and closes once [`Settings::unwatched`] has passed. Tables
    /// (their event needs the result) and the admin's rooms play on.
    fn unattended(&self) -> bool {
        self.s.unwatched.is_some()
            && !self.is_table()
            && self.creator != Creator::Admin
            && self.spectators.is_empty()
            && self.seats.iter().any(|s| matches!(s, SeatState::Bot { .. }))
            && !self.seats.iter().any(|s| matches!(s, SeatState::Human { .. }))
    }

    /// Starts or stops the idle clock: it runs while no seat holds a
    /// connected player and no match is in play (a match ends on its own,
    /// by its clock and timeout policy). Starts or stops the unwatched
    /// clock of a room of bots.
    fn track_idle(&mut self, now: Instant) {
        if !self.unattended() {
            self.unwatched_since = None;
        } else if self.unwatched_since.is_none() {
            self.unwatched_since = Some(now);
        }
        let busy = self.game.is_some()
            || self.storing.is_some()
            || self.seats.iter().any(|s| matches!(s, SeatState::Human { member: Some(_), .. }));
        if busy {
            self.idle_since = None;
        } else if self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
    }

    /// The first thing to do once the task runs: a table of hosted bots
    /// only starts at once.
    pub(crate) fn start(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        fx.push(Effect::Info);
        self.maybe_start(now, fx);
        self.track_idle(now);
    }

    /// Applies one input.
    pub(crate) fn handle(&mut self, now: Instant, input: Input, fx: &mut Vec<Effect>) {
        self.apply(now, input, fx);
        self.track_idle(now);
    }

    fn apply(&mut self, now: Instant, input: Input, fx: &mut Vec<Effect>) {
        if self.closed {
            // A closed room answers nothing but what keeps a client waiting.
            match input {
                Input::Reattach { .. } => fx.push(Effect::GaveBack(vec![])),
                Input::Join { who, id, .. }
                | Input::Leave { who, id }
                | Input::Spectate { who, id }
                | Input::FillBots { who, id, .. }
                | Input::Ready { who, id }
                | Input::Chat { who, id, .. }
                | Input::Move { who, id, .. }
                | Input::Resync { who, id }
                | Input::Hint { who, id }
                | Input::Close { who, id } => {
                    self.reply_err(fx, &who, id, ErrorCode::NoSuchRoom, "the room is closed");
                }
                _ => {}
            }
            return;
        }
        match input {
            Input::Join { who, seat, id } => self.join(fx, who, seat, id),
            Input::Leave { who, id } => self.leave(now, fx, who, id),
            Input::Spectate { who, id } => {
                let stood_still = self.unattended();
                let watching = self.spectators.iter().any(|s| s.conn == who.conn);
                if !watching && self.s.max_spectators > 0 && self.spectators.len() >= self.s.max_spectators {
                    let message = format!("the room has its most spectators ({})", self.s.max_spectators);
                    return self.reply_err(fx, &who, id, ErrorCode::SeatTaken, message);
                }
                if !watching {
                    self.spectators.push(who.clone());
                }
                self.reply(fx, &who, id, ServerMsg::Spectating { room: self.s.id });
                fx.push(Effect::Info);
                self.send_sync(now, fx, &who, None);
                // A room of bots that stood still for want of a watcher
                // plays on.
                if stood_still {
                    if self.game.is_some() {
                        self.advance(now, fx);
                    } else {
                        self.maybe_start(now, fx);
                    }
                }
            }
            Input::FillBots { who, strategy, player_id, id } => self.fill_bots(now, fx, who, strategy, player_id, id),
            Input::Ready { who, id } => {
                let Some(seat) = self.seat_of(&who) else {
                    return self.reply_err(fx, &who, id, ErrorCode::NotSeated, "take a seat first");
                };
                if let SeatState::Human { ready, .. } = &mut self.seats[seat.index()] {
                    *ready = true;
                }
                self.reply(fx, &who, id, ServerMsg::Ok { room: self.s.id });
                self.changed(fx);
                self.maybe_start(now, fx);
            }
            Input::Chat { who, text, id } => self.chat(now, fx, who, text, id),
            Input::Move { who, prompt, mv, id } => self.on_move(now, fx, who, prompt, mv, id),
            Input::Resync { who, id } => self.send_sync(now, fx, &who, id),
            Input::Hint { who, id } => self.hint(fx, who, id),
            Input::Close { who, id } => {
                self.reply(fx, &who, id, ServerMsg::Ok { room: self.s.id });
                self.close(fx, "closed by an admin");
            }
            Input::Reattach { who } => {
                let owner = Owner::of(&who);
                let mut given = vec![];
                for (i, s) in self.seats.iter_mut().enumerate() {
                    if let SeatState::Human { owner: o, member, gone_since, abandoned: false, .. } = s {
                        if *o == owner {
                            *member = Some(who.clone());
                            *gone_since = None;
                            given.push(i as u8);
                        }
                    }
                }
                fx.push(Effect::GaveBack(given));
                fx.push(Effect::Info);
            }
            Input::Promote { who } => self.promote(fx, who),
            Input::Disconnected { conn } => {
                for s in &mut self.seats {
                    if let SeatState::Human { member, gone_since, .. } = s {
                        if member.as_ref().is_some_and(|m| m.conn == conn) {
                            *member = None;
                            *gone_since = Some(now);
                        }
                    }
                }
                self.spectators.retain(|s| s.conn != conn);
                self.changed(fx);
            }
            Input::Tick => self.on_timer(now, fx),
            Input::Thought(answer) => self.on_thought(now, fx, answer),
            Input::Stored(game) => self.on_stored(fx, game),
            Input::Continue => self.advance(now, fx),
            Input::Shutdown => self.close(fx, "the server is shutting down"),
        }
    }

    /// Passes a member's words to every member, the sender too (its copy
    /// is the confirmation that everyone got them, in the room's order).
    fn chat(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, text: String, id: Option<u64>) {
        let seat = self.seat_of(&who);
        if seat.is_none() && !self.spectators.iter().any(|s| s.conn == who.conn) {
            return self.reply_err(fx, &who, id, ErrorCode::NotSeated, "take a seat or watch the room first");
        }
        // A line costs a frame to every member: the room's own bucket
        // bounds that cost, however many members talk.
        let per_sec = f64::from(capicua_protocol::ROOM_CHAT_PER_SEC);
        let burst = f64::from(capicua_protocol::ROOM_CHAT_BURST);
        let (tokens, last) = self.chat_tokens.unwrap_or((burst, now));
        let tokens = (tokens + now.saturating_duration_since(last).as_secs_f64() * per_sec).min(burst);
        if tokens < 1.0 {
            self.chat_tokens = Some((tokens, now));
            let message = format!(
                "this room's chat is busy: at most {} lines a second from everyone together; wait a moment",
                capicua_protocol::ROOM_CHAT_PER_SEC
            );
            return self.reply_err(fx, &who, id, ErrorCode::RateLimited, message);
        }
        self.chat_tokens = Some((tokens - 1.0, now));
        self.reply(fx, &who, id, ServerMsg::Ok { room: self.s.id });
        let msg = ServerMsg::Chat { room: self.s.id, seat: seat.map(|s| s.0), name: who.ident.name.clone(), text };
        let frame = encode(None, msg);
        for m in self.members() {
            Self::send(fx, m, frame.clone(), Push::Now);
        }
    }

    /// Hands the member's pending decision to the hint analysis, or says
    /// why there is none: never in a rated room or at a tournament's table
    /// (a hint there would be help from a bot in a game that counts).
    fn hint(&self, fx: &mut Vec<Effect>, who: Member, id: Option<u64>) {
        if self.s.rated {
            return self.reply_err(fx, &who, id, ErrorCode::HintUnavailable, "hints are not offered in rated rooms");
        }
        if self.is_table() || self.table.link.is_some() {
            let message = "hints are not offered at a tournament's table";
            return self.reply_err(fx, &who, id, ErrorCode::HintUnavailable, message);
        }
        let Some(seat) = self.seat_of(&who) else {
            return self.reply_err(fx, &who, id, ErrorCode::NotSeated, "you hold no seat in this room");
        };
        let (Some(p), Some(table)) = (&self.pending, &self.game) else {
            return self.reply_err(fx, &who, id, ErrorCode::NotYourTurn, "no move is expected");
        };
        if p.seat != seat {
            let message = format!("it is seat {}'s turn, you are seat {}", p.seat.0, seat.0);
            return self.reply_err(fx, &who, id, ErrorCode::NotYourTurn, message);
        }
        let Some(game) = table.tiles() else {
            let message = "hints are offered for dominoes, not for tiles with 3, 4 or 6 faces";
            return self.reply_err(fx, &who, id, ErrorCode::HintUnavailable, message);
        };
        fx.push(Effect::Hint(Box::new(crate::hints::HintJob {
            conn: who.conn,
            id,
            room: self.s.id,
            seq: self.seq,
            prompt: p.id,
            seat,
            game: {
                // The analysis plays hands out on copies: none of them
                // needs the final positions the room keeps.
                let mut game = game.clone();
                game.keep_hand_ends(false);
                game
            },
            stop: self.stop.clone(),
        })));
    }

    // --- replies and broadcasts -------------------------------------------

    fn send(fx: &mut Vec<Effect>, to: &Member, frame: Utf8Bytes, push: Push) {
        fx.push(Effect::Send { to: to.conn, frame, push });
    }

    fn reply(&self, fx: &mut Vec<Effect>, to: &Member, id: Option<u64>, msg: ServerMsg) {
        Self::send(fx, to, encode(id, msg), Push::Now);
    }

    fn reply_err(
        &self,
        fx: &mut Vec<Effect>,
        to: &Member,
        id: Option<u64>,
        code: ErrorCode,
        message: impl Into<String>,
    ) {
        fx.push(Effect::Count(Counter::Error));
        self.reply(fx, to, id, ServerMsg::Error { code, message: message.into(), url: None });
    }

    /// Connected seats and spectators.
    fn members(&self) -> impl Iterator<Item = &Member> {
        self.seats
            .iter()
            .filter_map(|s| match s {
                SeatState::Human { member: Some(m), .. } => Some(m),
                _ => None,
            })
            .chain(self.spectators.iter())
    }

    /// The lobby entry changed: publish it and push it to the members.
    fn changed(&self, fx: &mut Vec<Effect>) {
        fx.push(Effect::Info);
        let frame = encode(None, ServerMsg::Room { room: self.info() });
        for m in self.members() {
            Self::send(fx, m, frame.clone(), Push::Defer);
        }
    }

    /// The room's lobby entry.
    pub(crate) fn info(&self) -> RoomInfo {
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatInfo {
                seat: i as u8,
                side: self.s.sides[i],
                occupant: match s {
                    SeatState::Empty => None,
                    SeatState::Human { owner, name, member, ready, .. } => Some(Occupant {
                        name: name.clone(),
                        kind: if matches!(owner, Owner::Player(_)) {
                            OccupantKind::Player
                        } else {
                            OccupantKind::Guest
                        },
                        ready: *ready,
                        connected: member.is_some(),
                    }),
                    SeatState::Bot { name, .. } => Some(Occupant {
                        name: name.clone(),
                        kind: OccupantKind::HostedBot,
                        ready: true,
                        connected: true,
                    }),
                },
            })
            .collect();
        let status = if self.closed {
            RoomStatus::Closed
        } else if self.game.is_some() || self.storing.is_some() {
            RoomStatus::Playing
        } else {
            RoomStatus::Waiting
        };
        RoomInfo {
            id: self.s.id,
            variant: self.s.rules.name().to_string(),
            poly: self.s.rules.is_poly(),
            seats,
            status,
            rated: self.s.rated,
            spectators: self.spectators.len() as u32,
            time: self.s.time,
            on_timeout: self.s.on_timeout.clone(),
            games_played: self.games_played,
            seeded: self.s.seed.is_some(),
            private: self.s.private,
            // The invite is the key to the room: never in what members see.
            invite: None,
            // Set by a lobby listing another server's rooms.
            node: None,
        }
    }

    // --- seats ---------------------------------------------------------------

    fn seat_of(&self, m: &Member) -> Option<Seat> {
        let owner = Owner::of(m);
        self.seats
            .iter()
            .position(|s| matches!(s, SeatState::Human { owner: o, abandoned: false, .. } if *o == owner))
            .map(|i| Seat(i as u8))
    }

    fn is_abandoned(&self, seat: Seat) -> bool {
        matches!(self.seats[seat.index()], SeatState::Human { abandoned: true, .. })
    }

    fn vacate(&mut self, fx: &mut Vec<Effect>, i: usize) {
        if let SeatState::Human { owner: Owner::Player(p), .. } = self.seats[i] {
            fx.push(Effect::Unseated(p));
        }
        self.seats[i] = SeatState::Empty;
    }

    fn has_humans(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, SeatState::Human { .. }))
    }

    /// The first seat not ready to play (empty, not ready, gone).
    fn first_missing(&self) -> Option<usize> {
        self.seats.iter().position(|s| match s {
            SeatState::Empty => true,
            SeatState::Human { ready, abandoned, .. } => !*ready || *abandoned,
            SeatState::Bot { .. } => false,
        })
    }

    fn is_table(&self) -> bool {
        self.table.reserved.iter().any(Option::is_some) || self.table.one_match
    }

    fn join(&mut self, fx: &mut Vec<Effect>, who: Member, mut seat: Option<u8>, id: Option<u64>) {
        if self.table.reserved.iter().any(Option::is_some) {
            let mine = who.ident.player_id.and_then(|p| self.table.reserved.iter().position(|r| *r == Some(p)));
            match mine {
                Some(s) => seat = Some(s as u8),
                None => return self.reply_err(fx, &who, id, ErrorCode::Unauthorized, "this table is reserved"),
            }
        }
        if self.s.rated && who.ident.player_id.is_none() {
            return self.reply_err(fx, &who, id, ErrorCode::Unauthorized, "rated rooms admit registered players only");
        }
        if self.seat_of(&who).is_some() {
            return self.reply_err(fx, &who, id, ErrorCode::AlreadySeated, "you already hold a seat in this room");
        }
        if self.game.is_some() || self.storing.is_some() {
            return self.reply_err(fx, &who, id, ErrorCode::GameInProgress, "a match is in play; spectate or wait");
        }
        let n = self.seats.len();
        let i = match seat {
            Some(s) if s as usize >= n => {
                return self.reply_err(fx, &who, id, ErrorCode::NoSuchSeat, crate::api::no_such_seat(s, n as u64));
            }
            Some(s) if !matches!(self.seats[s as usize], SeatState::Empty) => {
                return self.reply_err(fx, &who, id, ErrorCode::SeatTaken, format!("seat {s} is taken"));
            }
            Some(s) => s as usize,
            None => match self.seats.iter().position(|s| matches!(s, SeatState::Empty)) {
                Some(i) => i,
                None => return self.reply_err(fx, &who, id, ErrorCode::SeatTaken, "the room is full"),
            },
        };
        let owner = Owner::of(&who);
        if let Owner::Player(p) = owner {
            fx.push(Effect::Seated(p));
        }
        self.spectators.retain(|s| s.conn != who.conn);
        self.seats[i] = SeatState::Human {
            owner,
            name: who.ident.name.clone(),
            member: Some(who.clone()),
            ready: false,
            gone_since: None,
            abandoned: false,
        };
        tracing::info!(room = self.s.id, seat = i, player = %who.ident.name, "joined");
        self.reply(fx, &who, id, ServerMsg::Seated { room: self.s.id, seat: i as u8 });
        self.changed(fx);
    }

    fn leave(&mut self, now: Instant, fx: &mut Vec<Effect>, who: Member, id: Option<u64>) {
        if let Some(seat) = self.seat_of(&who) {
            tracing::info!(room = self.s.id, seat = seat.0, player = %who.ident.name, "left");
        }
        let was_spectator = self.spectators.iter().any(|s| s.conn == who.conn);
        self.spectators.retain(|s| s.conn != who.conn);
        match self.seat_of(&who) {
            Some(seat) if self.game.is_some() => {
                if let SeatState::Human { abandoned, member, .. } = &mut self.seats[seat.index()] {
                    *abandoned = true;
                    *member = None;
                }
                self.reply(fx, &who, id, ServerMsg::Left { room: self.s.id });
                self.changed(fx);
                if self.pending.as_ref().is_some_and(|p| p.seat == seat) {
                    self.timeout(now, fx);
                }
            }
            Some(seat) => {
                self.vacate(fx, seat.index());
                self.reply(fx, &who, id, ServerMsg::Left { room: self.s.id });
                self.changed(fx);
                if !self.has_humans() && self.games_played > 0 {
                    self.close(fx, "every player left");
                }
            }
            None if was_spectator => {
                self.reply(fx, &who, id, ServerMsg::Left { room: self.s.id });
                fx.push(Effect::Info);
            }
            None => self.reply_err(fx, &who, id, ErrorCode::NotSeated, "you are not in this room"),
        }
    }

    fn fill_bots(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        who: Member,
        strategy: String,
        player_id: Option<i64>,
        id: Option<u64>,
    ) {
        if self.is_table() {
            return self.reply_err(fx, &who, id, ErrorCode::BadRequest, "this table's seats are set by its event");
        }
        // Filling seats decides who the seated players meet (and, in a rated
        // room, starts a match that counts): only a player seated here, the
        // room's creator or the admin may. A private room's seats are taken
        // by its invite, so a stranger cannot reach this by its number.
        let creator = self.creator == Creator::Owner(Owner::of(&who));
        if !(who.ident.admin || creator || self.seat_of(&who).is_some()) {
            let message = "only the room's creator or a player seated in it may fill its seats";
            return self.reply_err(fx, &who, id, ErrorCode::NotSeated, message);
        }
        let poly = self.s.rules.is_poly();
        if let Err(error) = bots::strategy(&strategy, 0, &self.s.bots, &self.stop, poly) {
            let message = CoreError::Strategy { spec: strategy, error }.to_string();
            return self.reply_err(fx, &who, id, ErrorCode::UnknownStrategy, message);
        }
        if self.game.is_some() || self.storing.is_some() {
            return self.reply_err(fx, &who, id, ErrorCode::GameInProgress, "a match is in play");
        }
        let mut bots = vec![];
        let empty: Vec<usize> = (0..self.seats.len()).filter(|&i| matches!(self.seats[i], SeatState::Empty)).collect();
        for i in empty {
            let seed = self.seed_for(1 + i as u64);
            bots.push((i, bots::strategy(&strategy, seed, &self.s.bots, &self.stop, poly).expect("checked above")));
        }
        for (i, b) in bots {
            self.seats[i] = SeatState::Bot { name: format!("bot:{strategy}"), player_id, strategy: Some(b) };
        }
        self.reply(fx, &who, id, ServerMsg::Ok { room: self.s.id });
        self.changed(fx);
        self.maybe_start(now, fx);
    }

    /// Hands the seats a guest connection holds to the player it registered as.
    fn promote(&mut self, fx: &mut Vec<Effect>, who: Member) {
        let Some(pid) = who.ident.player_id else { return };
        let guest = Owner::Guest(who.conn);
        if self.creator == Creator::Owner(guest) {
            self.creator = Creator::Owner(Owner::Player(pid));
        }
        let mut moved = false;
        for s in &mut self.seats {
            if let SeatState::Human { owner, name, member, .. } = s {
                if *owner == guest {
                    *owner = Owner::Player(pid);
                    *name = who.ident.name.clone();
                    *member = Some(who.clone());
                    moved = true;
                }
            }
        }
        for s in self.spectators.iter_mut().filter(|s| s.conn == who.conn) {
            *s = who.clone();
        }
        if moved {
            fx.push(Effect::Seated(pid));
            self.changed(fx);
        }
    }

    // --- seeds -----------------------------------------------------------------

    /// A seed for one of the room's random choices: derived from the room's
    /// seed when it has one (so the whole room replays), else from its
    /// entropy.
    fn seed_for(&mut self, stream: u64) -> u64 {
        match self.s.seed {
            Some(seed) => SeededRng::new(seed, stream).next_u64(),
            None => self.rng.next_u64(),
        }
    }

    // --- the match -------------------------------------------------------------

    /// Deals the next match with fresh clocks and timeout counts; false (and
    /// the room closed) if the engine refuses the seating checked at creation.
    fn deal_match(&mut self, fx: &mut Vec<Effect>) -> bool {
        // A seeded room deals its k-th match from `seed + k`: the first
        // match's stored seed is the one the room was created with.
        let deal_seed = match self.s.seed {
            Some(s) => s.wrapping_add(u64::from(self.games_played)),
            None => self.rng.next_u64(),
        };
        match self.s.rules.deal(deal_seed) {
            Ok(game) => {
                self.banks = vec![self.s.time.bank_ms; self.seats.len()];
                self.timeouts = vec![0; self.seats.len()];
                self.game = Some(game);
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "seating checked at creation failed");
                self.close(fx, "internal error");
                false
            }
        }
    }

    fn maybe_start(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if self.game.is_some() || self.storing.is_some() || self.closed || self.unattended() {
            return;
        }
        if self.first_missing().is_some() || !self.deal_match(fx) {
            return;
        }
        self.seq += 1;
        let game = self.game.as_ref().expect("just dealt");
        for (i, s) in self.seats.iter().enumerate() {
            if let SeatState::Human { member: Some(m), .. } = s {
                let msg = game.started(&self.s.rules, self.s.id, self.seq, Some(Seat(i as u8)));
                Self::send(fx, m, encode(None, msg), Push::Now);
            }
        }
        if !self.spectators.is_empty() {
            let frame = encode(None, game.started(&self.s.rules, self.s.id, self.seq, None));
            for m in &self.spectators {
                Self::send(fx, m, frame.clone(), Push::Now);
            }
        }
        tracing::info!(room = self.s.id, seq = self.seq, "match started");
        self.changed(fx);
        self.advance(now, fx);
    }

    /// Plays hosted seats until a player must move (prompted), a slow
    /// strategy starts thinking off the task, the match ends, or a long
    /// stretch of hosted moves asks the task to yield.
    fn advance(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let mut hosted_moves = 0u32;
        loop {
            if self.thinking.is_some() || self.closed || self.unattended() {
                return;
            }
            let Some(game) = self.game.as_ref() else { return };
            let Some(seat) = game.to_move() else {
                return self.finish(fx, None);
            };
            let SeatState::Bot { strategy, .. } = &mut self.seats[seat.index()] else {
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
    fn apply_hosted(&mut self, fx: &mut Vec<Effect>, seat: Seat, m: AnyMove) {
        if let Err(e) = self.play(fx, m, None) {
            tracing::error!(room = self.s.id, error = %e, "a hosted strategy chose an illegal move");
            let m = self.fallback_move(seat);
            let _ = self.play(fx, m, None);
        }
    }

    /// A `random` strategy seeded from the room's stream.
    fn random_strategy(&mut self) -> Box<dyn HostedStrategy> {
        let poly = self.s.rules.is_poly();
        bots::strategy("random", self.rng.next_u64(), &self.s.bots, &self.stop, poly).expect("random exists")
    }

    /// A random legal move for the seat to move.
    fn fallback_move(&mut self, seat: Seat) -> AnyMove {
        let mut random = self.random_strategy();
        random.choose(self.game.as_ref().expect("in play"), seat)
    }

    /// Hands a slow strategy a copy of the game to think on off the task
    /// (it still sees only its seat's view).
    fn think(&mut self, fx: &mut Vec<Effect>, seat: Seat, who: Thinker, strategy: Box<dyn HostedStrategy>) {
        let game = self.game.clone().expect("thinking needs a game");
        self.thinking = Some(Thinking { seat, who, plies: game.plies() });
        fx.push(Effect::Think(Box::new(Think { seat, strategy, game })));
    }

    /// A strategy finished thinking: its move is played if the position is
    /// still the one it thought about.
    fn on_thought(&mut self, now: Instant, fx: &mut Vec<Effect>, answer: Option<(Box<dyn HostedStrategy>, AnyMove)>) {
        let Some(thinking) = self.thinking.take() else { return };
        let (strategy, mv) = match answer {
            Some((strategy, mv)) => (strategy, Some(mv)),
            None => (self.random_strategy(), None),
        };
        match thinking.who {
            Thinker::Seat => {
                if let SeatState::Bot { strategy: slot, .. } = &mut self.seats[thinking.seat.index()] {
                    *slot = Some(strategy);
                }
            }
            Thinker::Timeout => self.timeout_bot = Some(strategy),
        }
        let current =
            self.game.as_ref().is_some_and(|g| g.plies() == thinking.plies && g.to_move() == Some(thinking.seat));
        if !current {
            return;
        }
        let m = match mv {
            Some(m) => m,
            None => {
                tracing::error!(room = self.s.id, "a hosted strategy failed; a random move replaces it");
                self.fallback_move(thinking.seat)
            }
        };
        self.apply_hosted(fx, thinking.seat, m);
        self.advance(now, fx);
    }

    fn prompt(&mut self, now: Instant, fx: &mut Vec<Effect>, seat: Seat) {
        self.next_prompt += 1;
        let allowed = if self.is_abandoned(seat) { 0 } else { self.s.time.move_ms + self.banks[seat.index()] };
        self.pending =
            Some(Pending { id: self.next_prompt, seat, started: now, deadline: now + Duration::from_millis(allowed) });
        self.send_prompt(now, fx, seat);
    }

    fn send_prompt(&self, now: Instant, fx: &mut Vec<Effect>, seat: Seat) {
        let (Some(p), Some(game)) = (&self.pending, &self.game) else { return };
        if p.seat != seat {
            return;
        }
        let SeatState::Human { member: Some(m), .. } = &self.seats[seat.index()] else { return };
        let left = p.deadline.saturating_duration_since(now).as_millis() as u64;
        let msg = game.prompt(self.s.id, p.id, seat, m.lean, left);
        Self::send(fx, m, encode(None, msg), Push::Now);
    }

    fn on_move(
        &mut self,
        now: Instant,
        fx: &mut Vec<Effect>,
        who: Member,
        prompt: PromptId,
        mv: AnyMove,
        id: Option<u64>,
    ) {
        let Some(seat) = self.seat_of(&who) else {
            return self.reply_err(fx, &who, id, ErrorCode::NotSeated, "you hold no seat in this room");
        };
        let Some(p) = &self.pending else {
            return self.reply_err(fx, &who, id, ErrorCode::NotYourTurn, "no move is expected");
        };
        if p.seat != seat {
            let message = format!("it is seat {}'s turn, you are seat {}", p.seat.0, seat.0);
            return self.reply_err(fx, &who, id, ErrorCode::NotYourTurn, message);
        }
        if p.id != prompt {
            let message = format!("prompt {prompt} is not the pending one ({})", p.id);
            return self.reply_err(fx, &who, id, ErrorCode::StalePrompt, message);
        }
        let elapsed = now.saturating_duration_since(p.started).as_millis() as u64;
        let over = elapsed.saturating_sub(self.s.time.move_ms);
        if let Err(message) = self.play(fx, mv, Some((&who, id, prompt))) {
            // Nothing changed; the prompt stands.
            return self.reply_err(fx, &who, id, ErrorCode::IllegalMove, message);
        }
        let bank = &mut self.banks[seat.index()];
        *bank = bank.saturating_sub(over);
        self.advance(now, fx);
    }

    /// The one path of a move, whoever made it (a member answering its
    /// prompt, a hosted bot, a timeout policy): the engine referees it, and
    /// everyone is told what happened. A legal move is played; an illegal
    /// one is refused with nothing changed, unless the variant's lenient
    /// referee lets it stand (seeded, so the stored log replays it).
    fn play(
        &mut self,
        fx: &mut Vec<Effect>,
        m: AnyMove,
        answers: Option<(&Member, Option<u64>, PromptId)>,
    ) -> Result<(), String> {
        let game = self.game.as_mut().expect("a move needs a match in play");
        let events = game.play(m)?;
        // A member's `accepted` goes first, then the events, in one write:
        // the reply is queued quietly and the mover woken after the broadcast.
        if let Some((who, id, prompt)) = answers {
            Self::send(fx, who, encode(id, ServerMsg::Accepted { room: self.s.id, prompt }), Push::Quiet);
        }
        self.pending = None;
        fx.push(Effect::Count(Counter::Move));
        self.broadcast_events(fx, &events);
        if let Some((who, ..)) = answers {
            fx.push(Effect::Wake(who.conn));
        }
        Ok(())
    }

    fn broadcast_events(&mut self, fx: &mut Vec<Effect>, events: &TableEvents) {
        let game = self.game.as_ref().expect("in play");
        self.seq += 1;
        let (room, seq) = (self.s.id, self.seq);
        // The public frame is encoded once, for everyone the move tells
        // nothing of its own.
        let mut shared: Option<Utf8Bytes> = None;
        let mut plain = || shared.get_or_insert_with(|| encode(None, game.public_events(room, seq, events))).clone();
        for (i, s) in self.seats.iter().enumerate() {
            let SeatState::Human { member: Some(m), .. } = s else { continue };
            let frame = match game.own_events(room, seq, events, Some(Seat(i as u8))) {
                Some(msg) => encode(None, msg),
                None => plain(),
            };
            Self::send(fx, m, frame, Push::Defer);
        }
        if !self.spectators.is_empty() {
            let frame = match game.own_events(room, seq, events, None) {
                Some(msg) => encode(None, msg),
                None => plain(),
            };
            for m in &self.spectators {
                Self::send(fx, m, frame.clone(), Push::Defer);
            }
        }
    }

    fn on_timer(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        if self.game.is_none() && self.games_played == 0 && self.no_show_at.is_some_and(|t| t <= now) {
            return self.forfeit_no_show(now, fx);
        }
        if self.idle_end().is_some_and(|t| t <= now) {
            let secs = self.s.idle.map_or(0, |d| d.as_secs());
            return self.close(fx, &format!("nobody was seated for {secs} s"));
        }
        if self.unwatched_end().is_some_and(|t| t <= now) {
            let secs = self.s.unwatched.map_or(0, |d| d.as_secs());
            return self.close(fx, &format!("nobody watched this room of bots for {secs} s"));
        }
        let grace = self.s.grace;
        let mut expired_any = false;
        for i in 0..self.seats.len() {
            let mut expired = false;
            if let SeatState::Human { gone_since: Some(t), abandoned, .. } = &mut self.seats[i] {
                if !*abandoned && *t + grace <= now {
                    *abandoned = true;
                    expired = true;
                }
            }
            if expired && self.game.is_none() {
                self.vacate(fx, i);
            }
            expired_any |= expired;
        }
        if expired_any {
            self.changed(fx);
            if self.pending.as_ref().is_some_and(|p| self.is_abandoned(p.seat)) {
                return self.timeout(now, fx);
            }
        }
        if self.pending.as_ref().is_some_and(|p| p.deadline <= now) {
            self.timeout(now, fx);
        }
    }

    /// A table's players did not all come in time: the side of the first
    /// missing seat forfeits the match, which is stored (a fresh deal, no
    /// moves) like any other so the event goes on.
    fn forfeit_no_show(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let Some(missing) = self.first_missing() else { return self.maybe_start(now, fx) };
        if !self.deal_match(fx) {
            return;
        }
        tracing::info!(room = self.s.id, seat = missing, "no-show: the seat's side forfeits");
        self.finish(fx, Some(Seat(missing as u8)));
    }

    /// The pending seat is out of time (or gone): its timeout policy moves.
    fn timeout(&mut self, now: Instant, fx: &mut Vec<Effect>) {
        let Some(p) = self.pending.take() else { return };
        let seat = p.seat;
        let Some(game) = self.game.as_ref() else { return };
        fx.push(Effect::Count(Counter::Timeout));
        self.banks[seat.index()] = 0;
        self.timeouts[seat.index()] += 1;
        let pass = game.legal_pass();
        let m = match &self.s.on_timeout {
            TimeoutPolicy::Forfeit => return self.finish(fx, Some(seat)),
            TimeoutPolicy::Pass if pass.is_some() => pass.expect("checked"),
            _ => match self.timeout_bot.take() {
                Some(bot) if !bot.is_quick() => return self.think(fx, seat, Thinker::Timeout, bot),
                Some(mut bot) => {
                    let m = bot.choose(game, seat);
                    self.timeout_bot = Some(bot);
                    m
                }
                // Already thinking: it answers for this seat.
                None => return,
            },
        };
        if let Err(e) = self.play(fx, m, None) {
            tracing::error!(room = self.s.id, error = %e, "the timeout policy chose an illegal move");
            let m = self.fallback_move(seat);
            let _ = self.play(fx, m, None);
        }
        self.advance(now, fx);
    }

    /// Ends the match: asks for it to be stored; the result is announced
    /// once the store answers ([`Input::Stored`]).
    fn finish(&mut self, fx: &mut Vec<Effect>, forfeit: Option<Seat>) {
        let Some(game) = self.game.take() else { return };
        self.pending = None;
        let scores = game.scores();
        let winner = match forfeit {
            None => game.winner(),
            Some(seat) => {
                let loser = self.s.sides[seat.index()];
                (0..scores.len() as u8).filter(|&s| s != loser).max_by_key(|&s| (scores[s as usize], -(s as i32)))
            }
        };
        let seats: Vec<SeatRecord> = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (player_id, name, kind) = match s {
                    SeatState::Human { owner: Owner::Player(p), name, .. } => {
                        (Some(*p), name.clone(), SeatKind::Player)
                    }
                    SeatState::Human { name, .. } => (None, name.clone(), SeatKind::Guest),
                    SeatState::Bot { name, player_id, .. } => (*player_id, name.clone(), SeatKind::HostedBot),
                    SeatState::Empty => (None, String::new(), SeatKind::Empty),
                };
                SeatRecord { seat: i as u8, side: self.s.sides[i], player_id, name, kind }
            })
            .collect();
        let (play, hand_results) = game.record(&self.s.rules);
        let hands = hand_results.len() as u32;
        let mut record = GameRecord {
            room_id: Some(self.s.id as i64),
            play,
            seed: game.seed(),
            scores: scores.clone(),
            seat_scores: game.seat_scores(),
            hands: hand_results,
            winner,
            forfeit: forfeit.map(|s| s.0),
            seats,
            rated: self.s.rated,
            timeouts: self.timeouts.clone(),
            tournament: None,
        };
        record.tournament = self.table.link.as_ref().map(|link| link(&record));
        tracing::info!(room = self.s.id, hands, ?winner, "match over; storing it");
        self.storing = Some(Storing { result: GameResult { winner, scores, hands, forfeit: forfeit.map(|s| s.0) } });
        fx.push(Effect::Store(Box::new(record)));
    }

    /// The finished match is stored (or failed to be): announce it.
    fn on_stored(&mut self, fx: &mut Vec<Effect>, stored: Option<i64>) {
        let Some(Storing { result }) = self.storing.take() else { return };
        self.games_played += 1;
        self.seq += 1;
        let frame = encode(None, ServerMsg::GameOver { room: self.s.id, seq: self.seq, game: stored, result });
        for m in self.members() {
            Self::send(fx, m, frame.clone(), Push::Now);
        }
        // After `game-over` is queued: a table's news comes after it.
        fx.push(Effect::MatchDone(stored));
        // Seats left during the match are freed; players must say ready again.
        for i in 0..self.seats.len() {
            match &mut self.seats[i] {
                SeatState::Human { abandoned: true, .. } => self.vacate(fx, i),
                SeatState::Human { ready, .. } => *ready = false,
                _ => {}
            }
        }
        if !self.has_humans() || self.table.one_match {
            // A table of hosted bots plays one match: it would otherwise
            // replay forever with nobody to watch it.
            return self.close(fx, "the match is over");
        }
        self.changed(fx);
    }

    fn send_sync(&self, now: Instant, fx: &mut Vec<Effect>, who: &Member, id: Option<u64>) {
        let seat = self.seat_of(who);
        let is_spectator = self.spectators.iter().any(|s| s.conn == who.conn);
        if seat.is_none() && !is_spectator {
            return self.reply_err(fx, who, id, ErrorCode::NotSeated, "you are not in this room");
        }
        let state = self.s.rules.sync_state(self.game.as_ref(), seat);
        let sync = ServerMsg::Sync { room: self.s.id, seq: self.seq, info: self.info(), state };
        Self::send(fx, who, encode(id, sync), Push::Sync(self.s.id));
        if let Some(seat) = seat {
            self.send_prompt(now, fx, seat);
        }
    }

    fn close(&mut self, fx: &mut Vec<Effect>, reason: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.game = None;
        self.pending = None;
        let frame = encode(None, ServerMsg::RoomClosed { room: self.s.id, reason: reason.into() });
        for m in self.members() {
            Self::send(fx, m, frame.clone(), Push::Now);
        }
        for p in self.seated_players() {
            fx.push(Effect::Unseated(p));
        }
        tracing::info!(room = self.s.id, reason, "room closed");
        fx.push(Effect::Info);
        fx.push(Effect::Closed);
    }
}
