//! A room: one task owning its seats and its [`Game`]; the engine is the
//! referee.
//!
//! Everything that changes a room arrives as a [`RoomCmd`] on its channel,
//! so the game needs no lock: the task applies commands one at a time.
//! Every frame sent to a seat is built from `game.view(seat).snapshot()` or
//! from the public [`Event`]s `Game::play` returns; spectators get
//! `game.spectator_view()`. Nothing else about the game leaves this task.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use capicua_engine::{Event, Game, Move, Rules, Seat, Seating, SeededRng, Variant};
use capicua_protocol::{
    ErrorCode, GameResult, Occupant, OccupantKind, PromptId, RoomId, RoomInfo, RoomSpec, RoomStatus, SeatInfo,
    ServerMsg, TimeControl, TimeoutPolicy,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::bots::{self, HostedStrategy};
use crate::db::{GameRecord, SeatKind, SeatRecord};
use crate::metrics::Metrics;
use crate::{AppState, Client, ConnId, RoomHandle, encode};

/// Longest per-move time and bank a room may set (as a tournament may).
use capicua_tournament::MAX_CLOCK_MS;

/// A command for a room task.
pub enum RoomCmd {
    /// Take a seat.
    Join {
        /// Who.
        client: Client,
        /// Which seat, or any.
        seat: Option<u8>,
        /// Request id to echo.
        id: Option<u64>,
    },
    /// Leave the seat or the spectators.
    Leave {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Watch.
    Spectate {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Fill empty seats with hosted bots.
    FillBots {
        /// Who asks.
        client: Client,
        /// Strategy name.
        strategy: String,
        /// Request id.
        id: Option<u64>,
    },
    /// Ready for the next match.
    Ready {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// A move answering a prompt.
    Move {
        /// Who.
        client: Client,
        /// The prompt answered.
        prompt: PromptId,
        /// The move.
        mv: Move,
        /// Request id.
        id: Option<u64>,
    },
    /// Send the current state (and the pending prompt) again.
    Resync {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// Close the room (admin; checked by the connection).
    Close {
        /// Who.
        client: Client,
        /// Request id.
        id: Option<u64>,
    },
    /// A player reconnected: give its seats back to this connection.
    Reattach {
        /// The new connection.
        client: Client,
        /// The seats given back.
        reply: oneshot::Sender<Vec<u8>>,
    },
    /// A guest connection registered: the seats it holds as a guest now
    /// belong to the player it acts for.
    Promote {
        /// The connection, with its new identity.
        client: Client,
    },
    /// A connection ended.
    Disconnected {
        /// Which.
        conn: ConnId,
    },
    /// The server is shutting down.
    Shutdown,
}

/// Who may own a seat: a registered player (across reconnects) or a guest's
/// connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Player(i64),
    Guest(ConnId),
}

impl Owner {
    fn of(c: &Client) -> Owner {
        match c.ident.player_id {
            Some(p) => Owner::Player(p),
            None => Owner::Guest(c.conn),
        }
    }
}

enum SeatState {
    Empty,
    Human {
        owner: Owner,
        name: String,
        client: Option<Client>,
        ready: bool,
        /// When the connection dropped (the grace period runs from here).
        gone_since: Option<Instant>,
        /// Left or out of grace: its turns go to the timeout policy at once.
        abandoned: bool,
    },
    Bot {
        name: String,
        player_id: Option<i64>,
        /// `None` while it thinks on the blocking pool.
        strategy: Option<Box<dyn HostedStrategy>>,
    },
}

/// Whose strategy is thinking off the room task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thinker {
    /// The hosted bot of the seat to move.
    Seat,
    /// The timeout policy's strategy, for a seat out of time.
    Timeout,
}

/// A move being chosen on tokio's blocking pool: the room keeps serving
/// commands (and other rooms their tables) meanwhile.
struct Thinking {
    seat: Seat,
    who: Thinker,
    /// Moves in the log when it started: the result is for that position only.
    plies: usize,
    task: tokio::task::JoinHandle<(Box<dyn HostedStrategy>, Move)>,
}

struct Pending {
    id: PromptId,
    seat: Seat,
    started: Instant,
    deadline: Instant,
}

struct Room {
    id: RoomId,
    state: Arc<AppState>,
    rules: Arc<Rules>,
    seating: Seating,
    sides: Vec<u8>,
    rated: bool,
    time: TimeControl,
    on_timeout: TimeoutPolicy,
    /// `None` while it thinks on the blocking pool.
    timeout_bot: Option<Box<dyn HostedStrategy>>,
    thinking: Option<Thinking>,
    seats: Vec<SeatState>,
    spectators: Vec<Client>,
    game: Option<Game>,
    seq: u64,
    next_prompt: PromptId,
    pending: Option<Pending>,
    banks: Vec<u64>,
    games_played: u32,
    info: Arc<Mutex<RoomInfo>>,
    closed: bool,
    /// A tournament table: reserved seats, one match, result stored with the game.
    tournament: Option<crate::tournament::TableHook>,
    /// Timeouts per seat in the match in play.
    timeouts: Vec<u32>,
    /// The room's seed, when its creator asked for a reproducible room.
    seed: Option<u64>,
    /// A tournament table: when a seat still missing forfeits the match.
    no_show_at: Option<Instant>,
}

fn random_seed() -> u64 {
    getrandom::u64().unwrap_or(0x5eed)
}

/// Stream of the timeout policy's bot; seat `i`'s hosted bot uses `1 + i`.
const TIMEOUT_BOT_STREAM: u64 = 0;

/// A seed for one of the room's random choices: derived from the room's
/// seed when it has one (so the whole room replays), else fresh.
fn seed_from(room_seed: Option<u64>, stream: u64) -> u64 {
    match room_seed {
        Some(seed) => SeededRng::new(seed, stream).next_u64(),
        None => random_seed(),
    }
}

fn bad(code: ErrorCode, message: impl Into<String>) -> (ErrorCode, String) {
    (code, message.into())
}

/// Validates a room spec, records the room and starts its task.
pub async fn create(state: &Arc<AppState>, spec: RoomSpec) -> Result<RoomInfo, (ErrorCode, String)> {
    create_with(state, spec, None).await
}

/// Opens the room of a tournament table: hosted seats filled, the other
/// seats reserved for their players; it plays one match and closes.
pub(crate) async fn create_table(
    state: &Arc<AppState>,
    spec: RoomSpec,
    setup: crate::tournament::TableSetup,
) -> Result<RoomInfo, (ErrorCode, String)> {
    create_with(state, spec, Some(setup)).await
}

async fn create_with(
    state: &Arc<AppState>,
    spec: RoomSpec,
    setup: Option<crate::tournament::TableSetup>,
) -> Result<RoomInfo, (ErrorCode, String)> {
    if state.is_shutting_down() {
        return Err(bad(ErrorCode::ShuttingDown, "the server is shutting down"));
    }
    let variant: Variant = match (spec.preset, spec.variant) {
        (Some(name), None) => capicua_engine::preset(&name).ok_or_else(|| {
            bad(
                ErrorCode::BadVariant,
                format!("unknown preset {name:?}; presets: {}", capicua_engine::PRESETS.join(", ")),
            )
        })?,
        (None, Some(v)) => v,
        _ => return Err(bad(ErrorCode::BadVariant, "give exactly one of `preset` and `variant`")),
    };
    let rules = variant.validate().map_err(|e| bad(ErrorCode::BadVariant, format!("variant {e}")))?;
    let seats = spec.seats.unwrap_or(rules.variant().players.max);
    let mut seating = Seating::new(seats);
    if let Some(teams) = spec.teams {
        seating = seating.with_teams(teams);
    }
    let rules = Arc::new(rules);
    // Seating is checked by dealing a throwaway game: the engine is the
    // only judge of what a table may be.
    let probe = Game::new(rules.clone(), seating.clone(), 0)
        .map_err(|e| bad(ErrorCode::BadVariant, format!("seating: {e}")))?;
    let sides: Vec<u8> = (0..seats).map(|s| probe.table().side_of(Seat(s)).0).collect();
    if spec.rated && spec.seed.is_some() {
        // Whoever knows a room's seed knows every hand.
        return Err(bad(ErrorCode::BadRequest, "a rated room cannot be seeded: the seed would reveal every hand"));
    }
    let time = spec.time.unwrap_or_default();
    if time.move_ms == 0 || time.move_ms > MAX_CLOCK_MS || time.bank_ms > MAX_CLOCK_MS {
        return Err(bad(
            ErrorCode::BadRequest,
            format!("time: move-ms must be 1..={MAX_CLOCK_MS}, bank-ms at most that"),
        ));
    }
    let on_timeout = spec.on_timeout.unwrap_or_default();
    let timeout_name = match &on_timeout {
        TimeoutPolicy::Strategy { name } => name.as_str(),
        _ => "random",
    };
    let timeout_bot = bots::strategy(timeout_name, seed_from(spec.seed, TIMEOUT_BOT_STREAM)).ok_or_else(|| {
        bad(
            ErrorCode::UnknownStrategy,
            format!("unknown strategy {timeout_name:?}; known: {}", bots::names().join(", ")),
        )
    })?;
    let id = state.db.create_room(rules.variant(), seats, spec.rated).await.map_err(|e| {
        tracing::error!(error = %e, "creating a room");
        bad(ErrorCode::Internal, "could not record the room")
    })? as RoomId;
    let info = Arc::new(Mutex::new(RoomInfo {
        id,
        variant: rules.variant().name.clone(),
        seats: vec![],
        status: RoomStatus::Waiting,
        rated: spec.rated,
        spectators: 0,
        time,
        on_timeout: on_timeout.clone(),
        games_played: 0,
        seeded: spec.seed.is_some(),
    }));
    let mut room = Room {
        id,
        state: state.clone(),
        rules,
        seating,
        sides,
        rated: spec.rated,
        time,
        on_timeout,
        timeout_bot: Some(timeout_bot),
        thinking: None,
        seats: (0..seats).map(|_| SeatState::Empty).collect(),
        spectators: vec![],
        game: None,
        seq: 0,
        next_prompt: 0,
        pending: None,
        banks: vec![time.bank_ms; seats as usize],
        games_played: 0,
        info: info.clone(),
        closed: false,
        tournament: None,
        timeouts: vec![0; seats as usize],
        seed: spec.seed,
        no_show_at: setup.as_ref().map(|s| Instant::now() + s.hook.no_show),
    };
    if let Some(setup) = setup {
        for (i, h) in setup.hosted.into_iter().enumerate() {
            let Some(h) = h else { continue };
            let strategy = bots::strategy(&h.strategy, seed_from(spec.seed, 1 + i as u64))
                .ok_or_else(|| bad(ErrorCode::UnknownStrategy, format!("unknown strategy {:?}", h.strategy)))?;
            room.seats[i] = SeatState::Bot { name: h.name, player_id: Some(h.player_id), strategy: Some(strategy) };
        }
        room.tournament = Some(setup.hook);
    }
    room.publish_info();
    let snapshot = room.info.lock().expect("room info lock").clone();
    let (tx, rx) = mpsc::unbounded_channel();
    state.rooms.lock().expect("rooms lock").insert(id, RoomHandle { tx, info });
    state.metrics.rooms.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let guard = state.task_guard();
    tokio::spawn(async move {
        room.run(rx).await;
        drop(guard);
    });
    Ok(snapshot)
}

impl Room {
    async fn run(&mut self, mut rx: mpsc::UnboundedReceiver<RoomCmd>) {
        if self.tournament.is_some() {
            // A table of hosted bots only starts at once.
            self.maybe_start().await;
        }
        while !self.closed {
            let deadline = self.next_deadline();
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    None | Some(RoomCmd::Shutdown) => self.close("the server is shutting down"),
                    Some(cmd) => self.handle(cmd).await,
                },
                _ = sleep_until_opt(deadline) => self.on_timer().await,
                thought = thought(&mut self.thinking) => self.on_thought(thought).await,
            }
        }
        self.state.rooms.lock().expect("rooms lock").remove(&self.id);
        self.state.metrics.rooms.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        let players: Vec<i64> = self.seat_players();
        let mut by_player = self.state.seats_by_player.lock().expect("seats lock");
        for p in players {
            if let Some(set) = by_player.get_mut(&p) {
                set.remove(&self.id);
            }
        }
    }

    fn seat_players(&self) -> Vec<i64> {
        self.seats
            .iter()
            .filter_map(|s| match s {
                SeatState::Human { owner: Owner::Player(p), .. } => Some(*p),
                _ => None,
            })
            .collect()
    }

    /// The earliest moment the room must act without a command: the pending
    /// prompt's deadline or the end of a disconnected player's grace.
    fn next_deadline(&self) -> Option<Instant> {
        let grace = self.state.config.reconnect_grace;
        let graces = self.seats.iter().filter_map(|s| match s {
            SeatState::Human { gone_since: Some(t), abandoned: false, .. } => Some(*t + grace),
            _ => None,
        });
        let no_show = self.no_show_at.filter(|_| self.game.is_none() && self.games_played == 0);
        self.pending.as_ref().map(|p| p.deadline).into_iter().chain(graces).chain(no_show).min()
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        if self.game.is_none() && self.games_played == 0 && self.no_show_at.is_some_and(|t| t <= now) {
            return self.forfeit_no_show().await;
        }
        let grace = self.state.config.reconnect_grace;
        let mut changed = false;
        for i in 0..self.seats.len() {
            let mut expired = false;
            if let SeatState::Human { gone_since: Some(t), abandoned, .. } = &mut self.seats[i] {
                if !*abandoned && *t + grace <= now {
                    *abandoned = true;
                    expired = true;
                }
            }
            if expired && self.game.is_none() {
                self.vacate(i);
            }
            changed |= expired;
        }
        if changed {
            self.publish_info();
            self.push_info();
            if let Some(p) = &self.pending {
                if self.is_abandoned(p.seat) {
                    self.timeout().await;
                    return;
                }
            }
        }
        if self.pending.as_ref().is_some_and(|p| p.deadline <= now) {
            self.timeout().await;
        }
    }

    fn is_abandoned(&self, seat: Seat) -> bool {
        matches!(self.seats[seat.index()], SeatState::Human { abandoned: true, .. })
    }

    fn vacate(&mut self, i: usize) {
        if let SeatState::Human { owner: Owner::Player(p), .. } = self.seats[i] {
            if let Some(set) = self.state.seats_by_player.lock().expect("seats lock").get_mut(&p) {
                set.remove(&self.id);
            }
        }
        self.seats[i] = SeatState::Empty;
    }

    fn seat_of(&self, c: &Client) -> Option<Seat> {
        let owner = Owner::of(c);
        self.seats
            .iter()
            .position(|s| matches!(s, SeatState::Human { owner: o, abandoned: false, .. } if *o == owner))
            .map(|i| Seat(i as u8))
    }

    fn reply_err(&self, c: &Client, id: Option<u64>, code: ErrorCode, message: impl Into<String>) {
        Metrics::inc(&self.state.metrics.errors);
        c.out.send(id, ServerMsg::Error { code, message: message.into() });
    }

    async fn handle(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Join { client, seat, id } => self.join(client, seat, id),
            RoomCmd::Leave { client, id } => self.leave(client, id).await,
            RoomCmd::Spectate { client, id } => {
                if !self.spectators.iter().any(|s| s.conn == client.conn) {
                    self.spectators.push(client.clone());
                }
                client.out.send(id, ServerMsg::Spectating { room: self.id });
                self.publish_info();
                self.send_sync(&client, None);
            }
            RoomCmd::FillBots { client, strategy, id } => self.fill_bots(client, strategy, id).await,
            RoomCmd::Ready { client, id } => {
                let Some(seat) = self.seat_of(&client) else {
                    return self.reply_err(&client, id, ErrorCode::NotSeated, "take a seat first");
                };
                if let SeatState::Human { ready, .. } = &mut self.seats[seat.index()] {
                    *ready = true;
                }
                client.out.send(id, ServerMsg::Ok { room: self.id });
                self.publish_info();
                self.push_info();
                self.maybe_start().await;
            }
            RoomCmd::Move { client, prompt, mv, id } => self.on_move(client, prompt, mv, id).await,
            RoomCmd::Resync { client, id } => self.send_sync(&client, id),
            RoomCmd::Close { client, id } => {
                client.out.send(id, ServerMsg::Ok { room: self.id });
                self.close("closed by an admin");
            }
            RoomCmd::Reattach { client, reply } => {
                let owner = Owner::of(&client);
                let mut seats = vec![];
                for (i, s) in self.seats.iter_mut().enumerate() {
                    if let SeatState::Human { owner: o, client: c, gone_since, abandoned: false, .. } = s {
                        if *o == owner {
                            *c = Some(client.clone());
                            *gone_since = None;
                            seats.push(i as u8);
                        }
                    }
                }
                let _ = reply.send(seats);
                self.publish_info();
            }
            RoomCmd::Promote { client } => self.promote(client),
            RoomCmd::Disconnected { conn } => {
                let now = Instant::now();
                for s in &mut self.seats {
                    if let SeatState::Human { client: c, gone_since, .. } = s {
                        if c.as_ref().is_some_and(|c| c.conn == conn) {
                            *c = None;
                            *gone_since = Some(now);
                        }
                    }
                }
                self.spectators.retain(|s| s.conn != conn);
                self.publish_info();
                self.push_info();
            }
            RoomCmd::Shutdown => self.close("the server is shutting down"),
        }
    }

    /// Hands the seats a guest connection holds to the player it registered as.
    fn promote(&mut self, client: Client) {
        let Some(pid) = client.ident.player_id else { return };
        let guest = Owner::Guest(client.conn);
        let mut changed = false;
        for s in &mut self.seats {
            if let SeatState::Human { owner, name, client: c, .. } = s {
                if *owner == guest {
                    *owner = Owner::Player(pid);
                    *name = client.ident.name.clone();
                    *c = Some(client.clone());
                    changed = true;
                }
            }
        }
        for s in self.spectators.iter_mut().filter(|s| s.conn == client.conn) {
            *s = client.clone();
        }
        if changed {
            self.state.seats_by_player.lock().expect("seats lock").entry(pid).or_default().insert(self.id);
            self.publish_info();
            self.push_info();
        }
    }

    fn join(&mut self, client: Client, mut seat: Option<u8>, id: Option<u64>) {
        if let Some(t) = &self.tournament {
            match t.seat_for(client.ident.player_id) {
                Some(s) => seat = Some(s),
                None => {
                    return self.reply_err(&client, id, ErrorCode::Unauthorized, "this tournament table is reserved");
                }
            }
        }
        if self.rated && client.ident.player_id.is_none() {
            return self.reply_err(&client, id, ErrorCode::Unauthorized, "rated rooms admit registered players only");
        }
        if self.seat_of(&client).is_some() {
            return self.reply_err(&client, id, ErrorCode::AlreadySeated, "you already hold a seat in this room");
        }
        if self.game.is_some() {
            return self.reply_err(&client, id, ErrorCode::GameInProgress, "a match is in play; spectate or wait");
        }
        let n = self.seats.len();
        let i = match seat {
            Some(s) if s as usize >= n => {
                return self.reply_err(&client, id, ErrorCode::NoSuchSeat, format!("seats are 0..{n}"));
            }
            Some(s) if !matches!(self.seats[s as usize], SeatState::Empty) => {
                return self.reply_err(&client, id, ErrorCode::SeatTaken, format!("seat {s} is taken"));
            }
            Some(s) => s as usize,
            None => match self.seats.iter().position(|s| matches!(s, SeatState::Empty)) {
                Some(i) => i,
                None => return self.reply_err(&client, id, ErrorCode::SeatTaken, "the room is full"),
            },
        };
        let owner = Owner::of(&client);
        if let Owner::Player(p) = owner {
            self.state.seats_by_player.lock().expect("seats lock").entry(p).or_default().insert(self.id);
        }
        self.spectators.retain(|s| s.conn != client.conn);
        self.seats[i] = SeatState::Human {
            owner,
            name: client.ident.name.clone(),
            client: Some(client.clone()),
            ready: false,
            gone_since: None,
            abandoned: false,
        };
        client.out.send(id, ServerMsg::Seated { room: self.id, seat: i as u8 });
        self.publish_info();
        self.push_info();
    }

    async fn leave(&mut self, client: Client, id: Option<u64>) {
        let was_spectator = self.spectators.iter().any(|s| s.conn == client.conn);
        self.spectators.retain(|s| s.conn != client.conn);
        match self.seat_of(&client) {
            Some(seat) if self.game.is_some() => {
                if let SeatState::Human { abandoned, client: c, .. } = &mut self.seats[seat.index()] {
                    *abandoned = true;
                    *c = None;
                }
                client.out.send(id, ServerMsg::Left { room: self.id });
                self.publish_info();
                self.push_info();
                if self.pending.as_ref().is_some_and(|p| p.seat == seat) {
                    self.timeout().await;
                }
            }
            Some(seat) => {
                self.vacate(seat.index());
                client.out.send(id, ServerMsg::Left { room: self.id });
                self.publish_info();
                self.push_info();
                if !self.has_humans() && self.games_played > 0 {
                    self.close("every player left");
                }
            }
            None if was_spectator => {
                client.out.send(id, ServerMsg::Left { room: self.id });
                self.publish_info();
            }
            None => self.reply_err(&client, id, ErrorCode::NotSeated, "you are not in this room"),
        }
    }

    async fn fill_bots(&mut self, client: Client, strategy: String, id: Option<u64>) {
        if self.tournament.is_some() {
            return self.reply_err(
                &client,
                id,
                ErrorCode::BadRequest,
                "a tournament table is seated by the tournament",
            );
        }
        if bots::strategy(&strategy, 0).is_none() {
            return self.reply_err(
                &client,
                id,
                ErrorCode::UnknownStrategy,
                format!("unknown strategy {strategy:?}; known: {}", bots::names().join(", ")),
            );
        }
        if self.game.is_some() {
            return self.reply_err(&client, id, ErrorCode::GameInProgress, "a match is in play");
        }
        let player_id = if self.rated {
            match self.state.db.hosted_bot(&strategy).await {
                Ok(p) => Some(p.id),
                Err(e) => {
                    tracing::error!(error = %e, "registering a hosted bot");
                    return self.reply_err(&client, id, ErrorCode::Internal, "could not register the hosted bot");
                }
            }
        } else {
            None
        };
        for (i, s) in self.seats.iter_mut().enumerate().filter(|(_, s)| matches!(s, SeatState::Empty)) {
            *s = SeatState::Bot {
                name: format!("bot:{strategy}"),
                player_id,
                strategy: Some(bots::strategy(&strategy, seed_from(self.seed, 1 + i as u64)).expect("checked above")),
            };
        }
        client.out.send(id, ServerMsg::Ok { room: self.id });
        self.publish_info();
        self.push_info();
        self.maybe_start().await;
    }

    fn has_humans(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, SeatState::Human { .. }))
    }

    /// Starts a match when every seat is filled and ready.
    /// The first seat that is not ready to play (empty, not ready, gone).
    fn first_missing(&self) -> Option<usize> {
        self.seats.iter().position(|s| match s {
            SeatState::Empty => true,
            SeatState::Human { ready, abandoned, .. } => !*ready || *abandoned,
            SeatState::Bot { .. } => false,
        })
    }

    /// A tournament table's players did not all come in time: the side of
    /// the first missing seat forfeits the match, which is stored (a fresh
    /// deal, no moves) like any other so the tournament goes on.
    async fn forfeit_no_show(&mut self) {
        let Some(missing) = self.first_missing() else { return self.maybe_start().await };
        if !self.deal_match() {
            return;
        }
        tracing::info!(room = self.id, seat = missing, "no-show: the seat's side forfeits");
        self.finish(Some(Seat(missing as u8))).await;
    }

    /// Deals the room's next match into `self.game`, with fresh clocks and
    /// timeout counts; false (and the room closed) if the engine refuses
    /// the seating that was checked when the room was created.
    fn deal_match(&mut self) -> bool {
        // A seeded room deals its k-th match from `seed + k`: the first
        // match's stored seed is the one the room was created with.
        let deal_seed = self.seed.map_or_else(random_seed, |s| s.wrapping_add(self.games_played as u64));
        match Game::new(self.rules.clone(), self.seating.clone(), deal_seed) {
            Ok(game) => {
                self.banks = vec![self.time.bank_ms; self.seats.len()];
                self.timeouts = vec![0; self.seats.len()];
                self.game = Some(game);
                true
            }
            Err(e) => {
                tracing::error!(room = self.id, error = %e, "seating checked at creation failed");
                self.close("internal error");
                false
            }
        }
    }

    async fn maybe_start(&mut self) {
        if self.game.is_some() || self.closed {
            return;
        }
        if self.first_missing().is_some() || !self.deal_match() {
            return;
        }
        self.seq += 1;
        let game = self.game.as_ref().expect("just set");
        for (i, s) in self.seats.iter().enumerate() {
            if let SeatState::Human { client: Some(c), .. } = s {
                c.out.send(
                    None,
                    ServerMsg::GameStarted {
                        room: self.id,
                        seq: self.seq,
                        seat: Some(i as u8),
                        view: Box::new(game.view(Seat(i as u8)).snapshot()),
                        variant: Box::new(self.rules.variant().clone()),
                    },
                );
            }
        }
        if !self.spectators.is_empty() {
            let frame = encode(
                None,
                ServerMsg::GameStarted {
                    room: self.id,
                    seq: self.seq,
                    seat: None,
                    view: Box::new(game.spectator_view().snapshot()),
                    variant: Box::new(self.rules.variant().clone()),
                },
            );
            for s in &self.spectators {
                s.out.send_text(frame.clone());
            }
        }
        self.publish_info();
        self.push_info();
        self.advance().await;
    }

    /// Plays hosted seats until a player must move (prompted), a slow
    /// strategy starts thinking off the task, or the match ends.
    async fn advance(&mut self) {
        let mut hosted_moves = 0u32;
        loop {
            if self.thinking.is_some() {
                return;
            }
            let Some(game) = self.game.as_ref() else { return };
            let Some(seat) = game.to_move() else {
                return self.finish(None).await;
            };
            match &mut self.seats[seat.index()] {
                SeatState::Bot { strategy, .. } => {
                    let Some(bot) = strategy else { return };
                    if !bot.is_quick() {
                        let bot = strategy.take().expect("checked");
                        return self.think(seat, Thinker::Seat, bot);
                    }
                    let m = bot.choose(&game.view(seat));
                    self.apply_hosted(seat, m);
                    hosted_moves += 1;
                    if hosted_moves % 64 == 0 {
                        // Bot-only stretches must not monopolize a worker thread.
                        tokio::task::yield_now().await;
                    }
                }
                _ => return self.prompt(seat),
            }
        }
    }

    /// Applies a hosted seat's move; an illegal one (a strategy bug) is
    /// logged and replaced by a random legal move.
    fn apply_hosted(&mut self, seat: Seat, m: Move) {
        if let Err(e) = self.apply(m) {
            tracing::error!(room = self.id, error = %e, "a hosted strategy chose an illegal move");
            let mut fallback = bots::strategy("random", random_seed()).expect("random exists");
            let m = fallback.choose(&self.game.as_ref().expect("in play").view(seat));
            let _ = self.apply(m);
        }
    }

    /// Runs a slow strategy for `seat` on the blocking pool, on a copy of
    /// the game (the strategy still sees only its seat's view).
    fn think(&mut self, seat: Seat, who: Thinker, mut bot: Box<dyn HostedStrategy>) {
        let game = self.game.clone().expect("thinking needs a game");
        let plies = game.log().len();
        let task = tokio::task::spawn_blocking(move || {
            let m = bot.choose(&game.view(seat));
            (bot, m)
        });
        self.thinking = Some(Thinking { seat, who, plies, task });
    }

    /// A strategy finished thinking: its move is played if the position is
    /// still the one it thought about.
    async fn on_thought(&mut self, (thinking, result): (Thinking, ThoughtResult)) {
        let bot = match result {
            Ok((bot, m)) => Some((bot, m)),
            Err(e) => {
                tracing::error!(room = self.id, error = %e, "a hosted strategy failed; replaced by random");
                None
            }
        };
        let (bot, m) = match bot {
            Some((bot, m)) => (bot, Some(m)),
            None => (bots::strategy("random", random_seed()).expect("random exists"), None),
        };
        match thinking.who {
            Thinker::Seat => {
                if let SeatState::Bot { strategy, .. } = &mut self.seats[thinking.seat.index()] {
                    *strategy = Some(bot);
                }
            }
            Thinker::Timeout => self.timeout_bot = Some(bot),
        }
        let current =
            self.game.as_ref().is_some_and(|g| g.log().len() == thinking.plies && g.to_move() == Some(thinking.seat));
        if !current {
            return;
        }
        let m = match m {
            Some(m) => m,
            None => {
                let mut fallback = bots::strategy("random", random_seed()).expect("random exists");
                fallback.choose(&self.game.as_ref().expect("in play").view(thinking.seat))
            }
        };
        self.apply_hosted(thinking.seat, m);
        self.advance().await;
    }

    fn prompt(&mut self, seat: Seat) {
        self.next_prompt += 1;
        let now = Instant::now();
        let allowed = if self.is_abandoned(seat) { 0 } else { self.time.move_ms + self.banks[seat.index()] };
        self.pending =
            Some(Pending { id: self.next_prompt, seat, started: now, deadline: now + Duration::from_millis(allowed) });
        self.send_prompt(seat);
    }

    fn send_prompt(&self, seat: Seat) {
        let (Some(p), Some(game)) = (&self.pending, &self.game) else { return };
        if p.seat != seat {
            return;
        }
        if let SeatState::Human { client: Some(c), .. } = &self.seats[seat.index()] {
            let view = game.view(seat);
            let left = p.deadline.saturating_duration_since(Instant::now()).as_millis() as u64;
            // A lean prompt skips building and encoding the view: the
            // largest part of a prompt, growing with the hand's history.
            let (legal_moves, view) = if c.out.lean_prompts() {
                (view.legal_moves().to_vec(), None)
            } else {
                let snap = view.snapshot();
                (snap.legal_moves.clone(), Some(Box::new(snap)))
            };
            c.out.send(
                None,
                ServerMsg::Prompt { room: self.id, prompt: p.id, seat: seat.0, legal_moves, view, deadline_ms: left },
            );
        }
    }

    async fn on_move(&mut self, client: Client, prompt: PromptId, mv: Move, id: Option<u64>) {
        let Some(seat) = self.seat_of(&client) else {
            return self.reply_err(&client, id, ErrorCode::NotSeated, "you hold no seat in this room");
        };
        let Some(p) = &self.pending else {
            return self.reply_err(&client, id, ErrorCode::NotYourTurn, "no move is expected");
        };
        if p.seat != seat {
            return self.reply_err(
                &client,
                id,
                ErrorCode::NotYourTurn,
                format!("it is seat {}'s turn, you are seat {}", p.seat.0, seat.0),
            );
        }
        if p.id != prompt {
            return self.reply_err(
                &client,
                id,
                ErrorCode::StalePrompt,
                format!("prompt {prompt} is not the pending one ({})", p.id),
            );
        }
        let elapsed = p.started.elapsed().as_millis() as u64;
        let over = elapsed.saturating_sub(self.time.move_ms);
        // The engine referees: a legal move is played; an illegal one is
        // refused with nothing changed, unless the variant's lenient referee
        // lets it stand (seeded, so the stored log replays it).
        let ruling = match self.game.as_mut().map(|g| g.referee_play(mv)) {
            Some(Ok(ruling)) => ruling,
            Some(Err(_)) | None => {
                // Nothing changed; the prompt stands.
                return self.reply_err(&client, id, ErrorCode::IllegalMove, format!("{mv} is not a legal move here"));
            }
        };
        // Accepted first, then the events, in one write: the reply is
        // queued quietly and the mover's outbox woken after the broadcast.
        client.out.queue(id, ServerMsg::Accepted { room: self.id, prompt });
        self.pending = None;
        Metrics::inc(&self.state.metrics.moves);
        self.broadcast_events(ruling.events());
        client.out.wake();
        let bank = &mut self.banks[seat.index()];
        *bank = bank.saturating_sub(over);
        self.advance().await;
    }

    /// Applies the move of the seat to move and tells everyone what happened.
    fn apply(&mut self, m: Move) -> Result<(), capicua_engine::IllegalMove> {
        let game = self.game.as_mut().expect("apply needs a game");
        let events = game.play(m)?;
        self.pending = None;
        Metrics::inc(&self.state.metrics.moves);
        self.broadcast_events(&events);
        Ok(())
    }

    fn broadcast_events(&mut self, events: &[Event]) {
        let game = self.game.as_ref().expect("in play");
        self.seq += 1;
        let new_hand = events.iter().any(|e| matches!(e, Event::HandStarted { .. }));
        let mut shared: Option<Utf8Bytes> = None;
        let mut plain = || {
            shared
                .get_or_insert_with(|| {
                    encode(
                        None,
                        ServerMsg::Events { room: self.id, seq: self.seq, events: events.to_vec(), view: None },
                    )
                })
                .clone()
        };
        for (i, s) in self.seats.iter().enumerate() {
            let SeatState::Human { client: Some(c), .. } = s else { continue };
            let view = game.view(Seat(i as u8));
            // A seat's tiles change when a hand is dealt or when a seat whose
            // hand it sees draws: then (only then) it gets its new view.
            let needs_view = new_hand || events.iter().any(|e| matches!(e, Event::Drew { seat } if view.sees(*seat)));
            if needs_view {
                c.out.send_deferrable(encode(
                    None,
                    ServerMsg::Events {
                        room: self.id,
                        seq: self.seq,
                        events: events.to_vec(),
                        view: Some(Box::new(view.snapshot())),
                    },
                ));
            } else {
                c.out.send_deferrable(plain());
            }
        }
        if !self.spectators.is_empty() {
            let frame = if new_hand {
                encode(
                    None,
                    ServerMsg::Events {
                        room: self.id,
                        seq: self.seq,
                        events: events.to_vec(),
                        view: Some(Box::new(game.spectator_view().snapshot())),
                    },
                )
            } else {
                plain()
            };
            for s in &self.spectators {
                s.out.send_deferrable(frame.clone());
            }
        }
    }

    async fn timeout(&mut self) {
        let Some(p) = self.pending.take() else { return };
        let Some(game) = self.game.as_ref() else { return };
        Metrics::inc(&self.state.metrics.timeouts);
        self.banks[p.seat.index()] = 0;
        self.timeouts[p.seat.index()] += 1;
        let view = game.view(p.seat);
        let m = match &self.on_timeout {
            TimeoutPolicy::Forfeit => return self.finish(Some(p.seat)).await,
            TimeoutPolicy::Pass if view.legal_moves().contains(&Move::Pass) => Move::Pass,
            _ => match self.timeout_bot.take() {
                Some(bot) if !bot.is_quick() => return self.think(p.seat, Thinker::Timeout, bot),
                Some(mut bot) => {
                    let m = bot.choose(&view);
                    self.timeout_bot = Some(bot);
                    m
                }
                // Already thinking (cannot happen: one pending move at a time).
                None => return,
            },
        };
        if let Err(e) = self.apply(m) {
            tracing::error!(room = self.id, error = %e, "timeout policy chose an illegal move");
            return self.close("internal error");
        }
        self.advance().await;
    }

    /// Ends the match: stores it (committed before anyone hears the result),
    /// then announces it.
    async fn finish(&mut self, forfeit: Option<Seat>) {
        let Some(game) = self.game.take() else { return };
        self.pending = None;
        let scores = game.scores().to_vec();
        let winner = match forfeit {
            None => game.outcome().and_then(|o| o.winner).map(|s| s.0),
            Some(seat) => {
                let loser = self.sides[seat.index()];
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
                SeatRecord { seat: i as u8, side: self.sides[i], player_id, name, kind }
            })
            .collect();
        let record = GameRecord {
            room_id: Some(self.id as i64),
            variant: self.rules.variant().clone(),
            seed: game.seed(),
            seating: self.seating.clone(),
            moves: game.log().to_vec(),
            scores: scores.clone(),
            hands: game.hand_results().to_vec(),
            winner,
            forfeit: forfeit.map(|s| s.0),
            seats,
            rated: self.rated,
            tournament: self.tournament.as_ref().map(|t| t.link(&game, winner, &self.timeouts)),
        };
        let hands = game.hand_results().len() as u32;
        let stored = match self.state.db.store_game(record).await {
            Ok(id) => {
                Metrics::inc(&self.state.metrics.games_finished);
                Some(id)
            }
            Err(e) => {
                Metrics::inc(&self.state.metrics.games_store_failed);
                tracing::error!(room = self.id, error = %e, "storing a finished game");
                None
            }
        };
        self.games_played += 1;
        self.seq += 1;
        let frame = encode(
            None,
            ServerMsg::GameOver {
                room: self.id,
                seq: self.seq,
                game: stored,
                result: GameResult { winner, scores, hands, forfeit: forfeit.map(|s| s.0) },
            },
        );
        for c in self.members() {
            c.out.send_text(frame.clone());
        }
        // After `game-over` is queued: the tournament's news comes after it.
        if let Some(t) = &mut self.tournament {
            t.finished(stored);
        }
        // Seats left during the match are freed; players must say ready again.
        for i in 0..self.seats.len() {
            match &mut self.seats[i] {
                SeatState::Human { abandoned: true, .. } => self.vacate(i),
                SeatState::Human { ready, .. } => *ready = false,
                _ => {}
            }
        }
        if !self.has_humans() || self.tournament.is_some() {
            // A table of hosted bots plays one match: it would otherwise
            // replay forever with nobody to watch it.
            return self.close("the match is over");
        }
        self.publish_info();
        self.push_info();
    }

    fn members(&self) -> impl Iterator<Item = &Client> {
        self.seats
            .iter()
            .filter_map(|s| match s {
                SeatState::Human { client: Some(c), .. } => Some(c),
                _ => None,
            })
            .chain(self.spectators.iter())
    }

    fn send_sync(&self, client: &Client, id: Option<u64>) {
        let seat = self.seat_of(client);
        let is_spectator = self.spectators.iter().any(|s| s.conn == client.conn);
        if seat.is_none() && !is_spectator {
            return self.reply_err(client, id, ErrorCode::NotSeated, "you are not in this room");
        }
        let view = self.game.as_ref().map(|g| match seat {
            Some(s) => Box::new(g.view(s).snapshot()),
            None => Box::new(g.spectator_view().snapshot()),
        });
        let info = self.info.lock().expect("room info lock").clone();
        client.out.send(id, ServerMsg::Sync { room: self.id, seq: self.seq, info, view });
        if let Some(seat) = seat {
            self.send_prompt(seat);
        }
    }

    fn close(&mut self, reason: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.game = None;
        self.pending = None;
        let frame = encode(None, ServerMsg::RoomClosed { room: self.id, reason: reason.into() });
        for c in self.members() {
            c.out.send_text(frame.clone());
        }
        self.publish_info();
    }

    /// Rebuilds the lobby entry.
    fn publish_info(&mut self) {
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatInfo {
                seat: i as u8,
                side: self.sides[i],
                occupant: match s {
                    SeatState::Empty => None,
                    SeatState::Human { owner, name, client, ready, .. } => Some(Occupant {
                        name: name.clone(),
                        kind: if matches!(owner, Owner::Player(_)) {
                            OccupantKind::Player
                        } else {
                            OccupantKind::Guest
                        },
                        ready: *ready,
                        connected: client.is_some(),
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
        } else if self.game.is_some() {
            RoomStatus::Playing
        } else {
            RoomStatus::Waiting
        };
        let mut info = self.info.lock().expect("room info lock");
        info.seats = seats;
        info.status = status;
        info.spectators = self.spectators.len() as u32;
        info.games_played = self.games_played;
    }

    /// Sends the lobby entry to the room's members.
    fn push_info(&self) {
        let info = self.info.lock().expect("room info lock").clone();
        let frame = encode(None, ServerMsg::Room { room: info });
        for c in self.members() {
            c.out.send_deferrable(frame.clone());
        }
    }
}

type ThoughtResult = Result<(Box<dyn HostedStrategy>, Move), tokio::task::JoinError>;

/// Resolves when the thinking strategy (if any) is done, taking it out.
async fn thought(thinking: &mut Option<Thinking>) -> (Thinking, ThoughtResult) {
    let Some(t) = thinking.as_mut() else { return std::future::pending().await };
    let result = (&mut t.task).await;
    (thinking.take().expect("present"), result)
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
