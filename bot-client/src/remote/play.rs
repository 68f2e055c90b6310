//! Lobby bots (`capicua-bot play`): each finds or is given a seat, says
//! ready and answers every prompt, match after match.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use capicua_protocol::{ClientMsg, RoomId, ServerMsg};
use capicua_strategy::poly::build_poly;
use capicua_strategy::rng::derive_seed;
use capicua_strategy::spec;

use super::connection::{Connection, Greeting};
use super::decider::Decider;
use super::error::{RemoteError, code_name};
pub use super::options::{PlayConfig, PlayOptions, PlayVariant, Strategies};
use super::rooms::{FINDING, Wanted, find_seat, regroup};
use super::tally::Tally;
use crate::backoff::Backoff;
use crate::transport::ServerAddr;

/// How often a bot waiting for its match to start looks for a fuller room.
const LOOK_AROUND: Duration = Duration::from_secs(1);

/// Runs `count` bots until stopped (or each has played `matches`).
pub async fn play(cfg: PlayConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    play_as(cfg, PlayOptions::default(), tally).await
}

/// Runs `count` bots as `opts` says until stopped (or each has played
/// `matches`); the first permanent error stops them all.
pub async fn play_as(cfg: PlayConfig, opts: PlayOptions, tally: Arc<Tally>) -> Result<(), RemoteError> {
    spec::build(&cfg.strategy, 0)?;
    build_poly(&cfg.poly_strategy, 0)?;
    let addr = Arc::new(ServerAddr::parse(&cfg.server)?);
    let count = cfg.count.max(1);
    let tokens: Vec<Option<String>> =
        (0..count).map(|i| opts.tokens.get(i).cloned().or_else(|| cfg.token.clone())).collect();
    if opts.rated && cfg.room.is_none() && tokens.iter().any(Option::is_none) {
        return Err(RemoteError::RatedGuest);
    }
    let wanted = Arc::new(Wanted::new(&cfg, &opts));
    let cfg = Arc::new(cfg);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, token) in tokens.into_iter().enumerate() {
        let bot = Bot {
            strategies: opts.strategies.clone(),
            index: i as u64,
            token,
            cfg: cfg.clone(),
            wanted: wanted.clone(),
            server: cfg.server.clone(),
            addr: addr.clone(),
            tally: tally.clone(),
            played: 0,
            backoff: Backoff::from_os(),
        };
        tasks.spawn(bot.run());
    }
    while let Some(done) = tasks.join_next().await {
        let failed = match done {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => e,
            Err(e) => RemoteError::Task(e),
        };
        // Retrying cannot fix it, and the others would only wait for
        // a bot that is gone.
        tasks.abort_all();
        return Err(failed);
    }
    Ok(())
}

/// How many times in a row a bot follows `wrong-node` to another server.
const MAX_MOVES: u32 = 3;

/// One bot of [`play_as`].
struct Bot {
    /// The caller's strategies, if any (else the config's specs).
    strategies: Option<Strategies>,
    index: u64,
    token: Option<String>,
    cfg: Arc<PlayConfig>,
    wanted: Arc<Wanted>,
    /// The server in use: `cfg.server`, or the server hosting the room
    /// asked for.
    server: String,
    addr: Arc<ServerAddr>,
    tally: Arc<Tally>,
    /// Matches finished.
    played: u64,
    backoff: Backoff,
}

/// How a session ended without an error.
enum SessionEnd {
    /// The bot played its matches.
    Done,
    /// Its room closed: find another one.
    RoomClosed,
}

impl Bot {
    /// Sessions separated by backoff until done or failed for good.
    async fn run(mut self) -> Result<(), RemoteError> {
        // Servers that sent the bot on, in a row: two servers that each
        // say the other hosts the room must not bounce it forever.
        let mut moves = 0;
        let result = loop {
            let mut connected = false;
            match self.session(&mut connected).await {
                Ok(SessionEnd::Done) => break Ok(()),
                Ok(SessionEnd::RoomClosed) => continue,
                Err(RemoteError::Moved { server }) if moves < MAX_MOVES => {
                    moves += 1;
                    self.addr = Arc::new(ServerAddr::parse(&server)?);
                    eprintln!("bot {}: room {:?} is hosted by {server}: connecting there", self.index, self.cfg.room);
                    self.server = server;
                }
                Err(e) if !e.is_transient() => break Err(e),
                Err(e) => {
                    self.tally.failed(self.index, &self.server, &e, connected);
                    tokio::time::sleep(self.backoff.next_delay()).await;
                }
            }
        };
        self.tally.outage.gone(self.index);
        result
    }

    /// One connection: takes a seat (given back, asked for or found),
    /// then plays there until the bot is done, its room closes or the
    /// connection fails.
    async fn session(&mut self, connected: &mut bool) -> Result<SessionEnd, RemoteError> {
        let mut conn = Connection::connect(&self.server).await?;
        // Batched events: a bot decides from its prompt's view alone.
        let (_, seats) = conn.greet(self.token.clone(), Greeting::BATCHED).await?;
        self.tally.learn_site(conn.site());
        *connected = true;
        self.backoff.reset();
        self.tally.recovered(self.index, &self.server);
        // Frames that arrived while a request waited for its reply.
        let mut pending = VecDeque::new();
        let at = match seats.first() {
            // A seat given back: its room resends its state.
            Some(s) => At { room: s.room, waiting: false },
            None => {
                let room = {
                    let _turn = FINDING.lock().await;
                    find_seat(&mut conn, self.cfg.room, &self.wanted, &mut pending).await?
                };
                conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
                At { room, waiting: true }
            }
        };
        let seed = derive_seed(self.index, u64::from(std::process::id()));
        let mut decider = match &self.strategies {
            Some(Strategies(build)) => {
                let (tiles, poly) = build(seed);
                Decider::new(tiles, poly)
            }
            None => Decider::new(spec::build(&self.cfg.strategy, seed)?, build_poly(&self.cfg.poly_strategy, seed)?),
        };
        if let Some(v) = &self.wanted.spec.variant {
            decider.know(v);
        }
        self.play_at(conn, at, decider, pending).await
    }

    /// Plays at the seat `at` until the bot is done, its room closes or the
    /// connection fails; while waiting for a match to start, moves to a
    /// fuller room now and then.
    async fn play_at(
        &mut self,
        mut conn: Connection,
        mut at: At,
        mut decider: Decider,
        mut pending: VecDeque<ServerMsg>,
    ) -> Result<SessionEnd, RemoteError> {
        // A bot sent to a room does not leave it for another.
        let may_move = self.cfg.room.is_none();
        let mut look = tokio::time::Instant::now() + self.backoff.jitter(LOOK_AROUND);
        loop {
            let msg = match pending.pop_front() {
                Some(msg) => msg,
                None => tokio::select! {
                    frame = conn.recv() => frame?.msg,
                    () = tokio::time::sleep_until(look), if at.waiting && may_move => {
                        look = tokio::time::Instant::now() + self.backoff.jitter(LOOK_AROUND);
                        if let Some(better) = regroup(&mut conn, at.room, &self.wanted, &mut pending).await? {
                            at.room = better;
                            conn.send(ClientMsg::Ready { room: at.room, read_hand_ends: false }).await?;
                        }
                        continue;
                    }
                },
            };
            if let Some(end) = self.hear(&mut conn, &mut at, &mut decider, msg).await? {
                conn.close().await;
                return Ok(end);
            }
        }
    }

    /// Acts on one frame at the seat `at`; the session's end when the bot
    /// is done or its room closed.
    async fn hear(
        &mut self,
        conn: &mut Connection,
        at: &mut At,
        decider: &mut Decider,
        msg: ServerMsg,
    ) -> Result<Option<SessionEnd>, RemoteError> {
        let room = at.room;
        decider.note(&msg);
        match msg {
            ServerMsg::GameStarted { room: r, .. } if r == room => {
                at.waiting = false;
            }
            ServerMsg::Prompt { room: r, .. } if r == room => {
                at.waiting = false;
                if let Some(reply) = decider.answer(&msg)? {
                    conn.send(reply).await?;
                }
            }
            ServerMsg::Accepted { .. } => {
                self.tally.moves.fetch_add(1, Ordering::Relaxed);
            }
            ServerMsg::GameOver { room: r, seq, game, .. } if r == room => {
                decider.forget(room);
                self.tally.ended(&self.addr, room, seq, game);
                self.played += 1;
                if self.cfg.matches.is_some_and(|m| self.played >= m) {
                    let _ = conn.send(ClientMsg::Leave { room }).await;
                    return Ok(Some(SessionEnd::Done));
                }
                conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
                at.waiting = true;
            }
            ServerMsg::RoomClosed { room: r, .. } if r == room => return Ok(Some(SessionEnd::RoomClosed)),
            ServerMsg::Error { code, message, .. } => {
                self.tally.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("bot {}: server error {}: {message}", self.index, code_name(&code));
            }
            _ => {}
        }
        Ok(None)
    }
}

/// Where a bot sits in the lobby: its room, and whether it waits there for
/// a match to start.
struct At {
    room: RoomId,
    waiting: bool,
}
