//! Seated bots: they are given their seats (tournament assignments, ladder
//! matches) instead of looking for them, and reconnect to take them back.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use capicua_protocol::{Assignment, ClientMsg, ErrorCode, Progress, RoomId, ServerMsg};
use capicua_strategy::poly::build_poly;
use capicua_strategy::rng::derive_seed;
use capicua_strategy::spec;

use super::connection::{Connection, Greeting};
use super::decider::Decider;
use super::error::{RemoteError, code_name, unexpected};
use super::options::Strategies;
use super::tally::Tally;
use crate::backoff::Backoff;
use crate::transport::ServerAddr;

/// What `capicua-bot play --await-assignments` was asked.
#[derive(Clone, Debug)]
pub struct AwaitConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// The registered player's token (tournament tables are reserved by name).
    pub token: String,
    /// The strategy spec.
    pub strategy: String,
    /// Follow this tournament and stop when it ends (default: wait forever).
    pub tournament: Option<i64>,
    /// Other servers of the same database (`ws://HOST:PORT/ws`), tried in
    /// turn after `server` when the one in use cannot be reached.
    pub fallbacks: Vec<String>,
}

/// Waits for tournament assignments and plays them: joins the reserved
/// seat, says ready, answers prompts; reconnects with backoff (and asks for
/// its assignments again) when the connection drops. With a tournament,
/// returns when that tournament is over; a tournament that does not exist
/// yet is waited for (players register before the organiser creates it).
pub async fn await_assignments(cfg: AwaitConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    await_assignments_with(cfg, None, tally).await
}

/// [`await_assignments`] with strategies of the caller's own (such as the
/// Python package's functions) instead of those `cfg.strategy` names.
pub async fn await_assignments_with(
    cfg: AwaitConfig,
    strategies: Option<Strategies>,
    tally: Arc<Tally>,
) -> Result<(), RemoteError> {
    if strategies.is_none() {
        spec::build(&cfg.strategy, 0)?;
    }
    let servers: Vec<String> = std::iter::once(cfg.server.clone()).chain(cfg.fallbacks.iter().cloned()).collect();
    // A tournament seat is reserved by name: an answer that is not the
    // expected one will not change, so only transient errors reconnect.
    let told_not_yet = AtomicBool::new(false);
    let seated = Seated { cfg: &cfg, strategies: strategies.as_ref(), told_not_yet: &told_not_yet };
    reconnecting(&servers, 0, &tally, Session::Assignments(seated)).await
}

/// What a bot awaiting assignments plays with, for one connection.
#[derive(Clone, Copy)]
struct Seated<'a> {
    cfg: &'a AwaitConfig,
    strategies: Option<&'a Strategies>,
    /// Whether the wait for the tournament to exist was told.
    told_not_yet: &'a AtomicBool,
}

/// A seated bot's decider: the caller's strategies, or `spec`'s (with the
/// seated bots' poly strategy).
fn seated_decider(strategies: Option<&Strategies>, spec: &str, seed: u64) -> Result<Decider, RemoteError> {
    Ok(match strategies {
        Some(Strategies(build)) => {
            let (tiles, poly) = build(seed);
            Decider::new(tiles, poly)
        }
        None => Decider::new(spec::build(spec, seed)?, build_poly(SEATED_POLY_STRATEGY, seed)?),
    })
}

/// What one connection of a seated bot does.
#[derive(Clone, Copy)]
enum Session<'a> {
    /// Plays its tournament assignments ([`await_assignments`]).
    Assignments(Seated<'a>),
    /// Plays on a ladder ([`ladder`]), counting the matches it finished.
    Ladder(&'a LadderConfig, &'a AtomicU64),
}

impl Session<'_> {
    /// The registered player's token the connection says `hello` with.
    fn token(&self) -> &str {
        match self {
            Session::Assignments(seated) => &seated.cfg.token,
            Session::Ladder(cfg, _) => &cfg.token,
        }
    }
}

/// Runs `session` until it ends well or fails for good, reconnecting with
/// backoff after each transient failure (told to the tally as bot `index`'s).
/// With several `servers` (nodes of one database), each failure moves on to
/// the next one, so a dead node costs one backoff.
async fn reconnecting(
    servers: &[String],
    index: u64,
    tally: &Arc<Tally>,
    session: Session<'_>,
) -> Result<(), RemoteError> {
    let addrs = servers.iter().map(|s| ServerAddr::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let mut turn = 0;
    let mut backoff = Backoff::from_os();
    let result = loop {
        let (server, addr) = (&servers[turn % servers.len()], &addrs[turn % servers.len()]);
        let mut connected = false;
        let ended = async {
            let mut conn = Connection::connect(server).await?;
            // Seats given back by `hello` resend their prompts: the session
            // answers them.
            conn.hello_with(Some(session.token().to_string()), Greeting::BATCHED).await?;
            tally.learn_site(conn.site());
            connected = true;
            backoff.reset();
            tally.recovered(index, server);
            match session {
                Session::Assignments(seated) => assignment_session(seated, conn, addr, tally).await,
                Session::Ladder(cfg, played) => ladder_session(cfg, played, conn, addr, tally).await,
            }
        }
        .await;
        match ended {
            Ok(()) => break Ok(()),
            Err(e) if !e.is_transient() => break Err(e),
            Err(e) => {
                tally.failed(index, server, &e, connected);
                turn += 1;
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    };
    tally.outage.gone(index);
    result
}

/// What `capicua-bot play --ladder` was asked.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// The registered player's token (the ladder rates players).
    pub token: String,
    /// The strategy spec.
    pub strategy: String,
    /// The preset whose ladder to play.
    pub preset: String,
    /// Which bot of the process this is (its outage reports and seeds).
    pub index: u64,
    /// Leave the ladder after this many finished matches (`None`: play
    /// until stopped).
    pub matches: Option<u64>,
    /// Strategies of the caller's own (such as the Python package's
    /// functions) instead of those `strategy` names.
    pub strategies: Option<Strategies>,
}

/// Plays on a preset's ladder until stopped (or `cfg.matches` finished
/// matches, then leaves it): joins the pool, takes every seat the server
/// gives it (`ladder-match`: join, ready), answers prompts; reconnects with
/// backoff and joins again when the connection drops. The server takes the
/// player off the ladder when its connection ends.
pub async fn ladder(cfg: LadderConfig, tally: Arc<Tally>) -> Result<(), RemoteError> {
    if cfg.strategies.is_none() {
        spec::build(&cfg.strategy, 0)?;
    }
    if cfg.matches == Some(0) {
        return Ok(());
    }
    let played = AtomicU64::new(0);
    reconnecting(std::slice::from_ref(&cfg.server), cfg.index, &tally, Session::Ladder(&cfg, &played)).await
}

async fn ladder_session(
    cfg: &LadderConfig,
    played: &AtomicU64,
    mut conn: Connection,
    addr: &ServerAddr,
    tally: &Tally,
) -> Result<(), RemoteError> {
    let mut early = VecDeque::new();
    match conn.request(ClientMsg::JoinLadder { variant: cfg.preset.clone() }, |m| early.push_back(m)).await? {
        ServerMsg::Ladder { .. } => {}
        other => return Err(unexpected("join-ladder", other)),
    }
    let seed = derive_seed(0x1add + cfg.index, u64::from(std::process::id()));
    let mut decider = seated_decider(cfg.strategies.as_ref(), &cfg.strategy, seed)?;
    loop {
        let msg = match early.pop_front() {
            Some(m) => m,
            None => conn.recv().await?.msg,
        };
        let over = matches!(msg, ServerMsg::GameOver { .. });
        match play_seated(&mut conn, &mut decider, tally, addr, msg).await? {
            None if over => {
                let done = played.fetch_add(1, Ordering::Relaxed) + 1;
                if cfg.matches.is_some_and(|m| done >= m) {
                    // Off the pool before the server pairs it again.
                    let _ = conn.send(ClientMsg::LeaveLadder).await;
                    conn.close().await;
                    return Ok(());
                }
            }
            None => {}
            Some(ServerMsg::Error { code, message, .. }) => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                if code != ErrorCode::AlreadySeated {
                    eprintln!("bot {}: server error {}: {message}", cfg.index, code_name(&code));
                }
                if code == ErrorCode::Busy {
                    // The pool was full when this player came back to it:
                    // it is off the ladder; reconnecting joins again.
                    return Err(RemoteError::Server { code, message });
                }
            }
            _ => {}
        }
    }
}

async fn assignment_session(
    Seated { cfg, strategies, told_not_yet }: Seated<'_>,
    mut conn: Connection,
    addr: &ServerAddr,
    tally: &Arc<Tally>,
) -> Result<(), RemoteError> {
    if let Some(t) = cfg.tournament
        && !follow(&mut conn, t, addr, told_not_yet).await?
    {
        conn.close().await;
        return Ok(());
    }
    // Seats given back by `hello` resend their prompt; assignments follow.
    let await_id = conn.send(ClientMsg::AwaitAssignments).await?;
    let seed = derive_seed(0xa55, u64::from(std::process::id()));
    let mut decider = seated_decider(strategies, &cfg.strategy, seed)?;
    // Tables played on another node by a task of their own, by room.
    let mut elsewhere: HashMap<RoomId, tokio::task::JoinHandle<()>> = HashMap::new();
    loop {
        let frame = conn.recv().await?;
        elsewhere.retain(|_, task| !task.is_finished());
        if let ServerMsg::Assignment(a @ Assignment { url: Some(_), .. }) = &frame.msg {
            // The table is open on another node of the database: play it
            // there on a connection of its own, and keep waiting here.
            elsewhere.entry(a.room).or_insert_with(|| {
                tokio::spawn(play_elsewhere(cfg.clone(), strategies.cloned(), a.clone(), tally.clone()))
            });
            continue;
        }
        match play_seated(&mut conn, &mut decider, tally, addr, frame.msg).await? {
            None => {}
            Some(ServerMsg::TournamentProgress { tournament, progress: Progress::Finished { .. } })
                if Some(tournament) == cfg.tournament =>
            {
                conn.close().await;
                return Ok(());
            }
            Some(ServerMsg::Error { code, message, .. }) => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                if code != ErrorCode::AlreadySeated {
                    eprintln!("server error {}: {message}", code_name(&code));
                }
                if frame.id == Some(await_id) {
                    return Err(RemoteError::Server { code, message });
                }
            }
            _ => {}
        }
    }
}

/// The longest wait between two looks for a tournament that does not exist
/// yet: it starts within a few seconds of being created, and a look is one
/// small request.
const TOURNAMENT_POLL_CAP: Duration = Duration::from_secs(4);

/// What the answer to `subscribe-tournament` means for a bot following it.
#[derive(Debug)]
enum Followed {
    /// Subscribed to a tournament not over yet: wait for its tables.
    Following,
    /// The tournament is over: nothing to play.
    Over,
    /// No such tournament yet: an organiser may create it after the
    /// players registered, so look again later.
    NotYet,
    /// Any other answer, which waiting will not change.
    Failed(RemoteError),
}

fn followed(answer: ServerMsg) -> Followed {
    match answer {
        ServerMsg::TournamentProgress { progress: Progress::Subscribed { status, .. }, .. } => {
            if status.is_over() {
                Followed::Over
            } else {
                Followed::Following
            }
        }
        ServerMsg::Error { code: ErrorCode::NoSuchTournament, .. } => Followed::NotYet,
        other => Followed::Failed(unexpected("subscribe-tournament", other)),
    }
}

/// The line telling that the bot waits for tournament `t` to be created.
fn not_yet_line(t: i64, server: &str) -> String {
    format!("tournament {t} does not exist yet on {server}; waiting for it to be created")
}

/// Subscribes to tournament `t`, looking again with randomized backoff
/// (capped at [`TOURNAMENT_POLL_CAP`]) while it does not exist yet, and
/// saying so once per process (`told`). True when the tournament is
/// followed, false when it is already over.
async fn follow(conn: &mut Connection, t: i64, addr: &ServerAddr, told: &AtomicBool) -> Result<bool, RemoteError> {
    let mut backoff = Backoff::from_os_with_limits(crate::backoff::BASE, TOURNAMENT_POLL_CAP);
    loop {
        match followed(conn.request(ClientMsg::SubscribeTournament { tournament: t }, |_| {}).await?) {
            Followed::Following => return Ok(true),
            Followed::Over => return Ok(false),
            Followed::Failed(e) => return Err(e),
            Followed::NotYet => {
                if !told.swap(true, Ordering::Relaxed) {
                    eprintln!("{}", not_yet_line(t, &addr.as_server()));
                }
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    }
}

/// How many times a table on another node is connected to before it is
/// given up (its no-show deadline decides the match then).
const ELSEWHERE_TRIES: u32 = 5;

/// Plays one tournament table on the node that hosts it (the assignment's
/// `url`): connects there with the same token, joins the reserved seat,
/// says ready and plays until the match is over or the room is closed.
/// A dropped connection is tried again with backoff a few times; the seat
/// stays reserved meanwhile.
async fn play_elsewhere(cfg: AwaitConfig, strategies: Option<Strategies>, a: Assignment, tally: Arc<Tally>) {
    let url = a.url.clone().unwrap_or_default();
    let addr = match ServerAddr::of_node(&url) {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("table {} of tournament {}: {e}", a.table, a.tournament);
            return;
        }
    };
    let server = addr.as_server();
    let mut backoff = Backoff::from_os();
    for _ in 0..ELSEWHERE_TRIES {
        let played = async {
            let mut conn = Connection::connect(&server).await?;
            conn.hello_with(Some(cfg.token.clone()), Greeting::BATCHED).await?;
            tally.learn_site(conn.site());
            let seed = derive_seed(0xe15e, a.room);
            let mut decider = seated_decider(strategies.as_ref(), &cfg.strategy, seed)?;
            play_seated(&mut conn, &mut decider, &tally, &addr, ServerMsg::Assignment(a.clone())).await?;
            loop {
                let msg = conn.recv().await?.msg;
                let over = match &msg {
                    ServerMsg::GameOver { room, .. } | ServerMsg::RoomClosed { room, .. } => *room == a.room,
                    _ => false,
                };
                match play_seated(&mut conn, &mut decider, &tally, &addr, msg).await? {
                    Some(ServerMsg::Error { code, message, .. }) if code != ErrorCode::AlreadySeated => {
                        tally.errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("{server}: server error {}: {message}", code_name(&code));
                        // The seat is gone (the match ended meanwhile, or
                        // the room did): nothing is left to play here.
                        if matches!(
                            code,
                            ErrorCode::NoSuchRoom | ErrorCode::WrongNode | ErrorCode::SeatTaken | ErrorCode::NoSuchSeat
                        ) {
                            break;
                        }
                    }
                    _ => {}
                }
                if over {
                    break;
                }
            }
            conn.close().await;
            Ok::<(), RemoteError>(())
        }
        .await;
        match played {
            Ok(()) => return,
            Err(e) if !e.is_transient() => {
                eprintln!("{server}: {e}");
                return;
            }
            Err(_) => tokio::time::sleep(backoff.next_delay()).await,
        }
    }
}

/// The poly strategy of ladder and tournament bots, which are given seats
/// rather than a preset (their tables are two-faced today).
const SEATED_POLY_STRATEGY: &str = "greedy";

/// Answers the frames every seated bot answers alike: a seat offered (a
/// ladder match or a tournament assignment: join it and say ready; a seat
/// already held answers `already-seated`, which changes nothing), a match's
/// start, prompts, acceptances and match ends. Any other frame is handed
/// back.
async fn play_seated(
    conn: &mut Connection,
    decider: &mut Decider,
    tally: &Tally,
    addr: &ServerAddr,
    msg: ServerMsg,
) -> Result<Option<ServerMsg>, RemoteError> {
    if decider.note(&msg) {
        return Ok(None);
    }
    if let Some(reply) = decider.answer(&msg)? {
        conn.send(reply).await?;
        return Ok(None);
    }
    match msg {
        ServerMsg::LadderMatch { room, seat, .. } | ServerMsg::Assignment(Assignment { room, seat, .. }) => {
            conn.send(ClientMsg::join(room, Some(seat))).await?;
            conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
        }
        ServerMsg::Accepted { .. } => {
            tally.moves.fetch_add(1, Ordering::Relaxed);
        }
        ServerMsg::GameOver { room, seq, game, .. } => {
            decider.forget(room);
            tally.ended(addr, room, seq, game);
        }
        other => return Ok(Some(other)),
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_protocol::TournamentStatus;

    fn subscribed(status: TournamentStatus) -> ServerMsg {
        ServerMsg::TournamentProgress { tournament: 1, progress: Progress::Subscribed { status, results: 0 } }
    }

    #[test]
    fn a_tournament_not_created_yet_is_waited_for_and_other_answers_are_final() {
        let no_such =
            ServerMsg::Error { code: ErrorCode::NoSuchTournament, message: "no tournament 1".into(), url: None };
        assert!(matches!(followed(no_such), Followed::NotYet));
        assert!(matches!(followed(subscribed(TournamentStatus::Pending)), Followed::Following));
        assert!(matches!(followed(subscribed(TournamentStatus::Running)), Followed::Following));
        assert!(matches!(followed(subscribed(TournamentStatus::Finished)), Followed::Over));
        let refused = ServerMsg::Error { code: ErrorCode::Unauthorized, message: "no".into(), url: None };
        assert!(matches!(
            followed(refused),
            Followed::Failed(RemoteError::Server { code: ErrorCode::Unauthorized, .. })
        ));
        assert_eq!(
            not_yet_line(3, "ws://h/ws"),
            "tournament 3 does not exist yet on ws://h/ws; waiting for it to be created"
        );
    }
}
