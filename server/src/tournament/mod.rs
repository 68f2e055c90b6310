//! Tournaments on the server: the pure [`capicua_tournament`]
//! state machine driven by real rooms.
//!
//! - [`store`]: specs in and out of the database (parsing, checking
//!   entrants, loading for replay); the rows are [`crate::db::tournaments`].
//! - `runner`: one task per running tournament: opens a room per table of
//!   the round in progress, seats the entrants, waits for the committed
//!   results, records them and moves on; an arena is run by `runner/arena.rs`
//!   instead, which pairs entrants as their games end until its deadline.
//! - `placement`: a table from plan to room; on PostgreSQL the scheduler
//!   places each table on the least loaded node, whose `host` task opens
//!   it and sends every node's players their assignments, and `relay`
//!   tells followers on the other nodes how the tournament goes.
//! - `http`: `POST/GET /api/tournaments...`.
//!
//! A scheduler task (started by [`crate::run`]) looks for `pending` and
//! `running` tournaments at start, every second, and at once when one is
//! created over HTTP; so `capicua-server tournament create` (which only
//! writes the database) is picked up by a serving server within a second.
//!
//! Entrants: a member named `bot:STRATEGY` (optionally `bot:STRATEGY#tag`
//! to enter one strategy several times) is a hosted bot; any other name is
//! a registered player (remote bot or human), who is sent an `assignment`
//! when its table is due, if it has sent `await-assignments`.
//!
//! Variants: presets and variant files (dominoes), and poly presets (tiles
//! with 3, 4 or 6 faces, at duel or free-for-all tables): a round's table
//! opens a room of the round's family, where hosted entrants play with
//! that family's strategy of their name and players answer poly `prompt`s.
//! A hosted entrant (and the clock's timeout strategy) must be a strategy
//! of every family the tournament plays (`random` is both).
//!
//! Durability: a table's result is inserted in the same transaction as its
//! game (see [`crate::db::tournaments`]). After a crash the runner replays the
//! stored results; a table whose match was interrupted has no result and is
//! played again from its start in a new room (the interrupted moves are not
//! kept).

pub(crate) mod announce;
mod host;
pub(crate) mod placement;
mod relay;
pub(crate) mod replays;
pub(crate) mod runner;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use capicua_protocol::{Assignment, ErrorCode, Progress, ServerMsg, TournamentId};
use capicua_tournament::{
    ArenaError, ConfigError, ControlError, LogError, MatchResult, ParseError, RecordError, SeatResult,
};

use crate::db::{DbError, GameRecord, TableLink};
use crate::state::tournaments::{Registry, RegistryInner, Wake};
use crate::{AppState, Client};

/// Errors of tournaments on the server.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The spec is not TOML/JSON of the right shape (the error names the key's path).
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The spec names a bad field.
    #[error(transparent)]
    Invalid(#[from] ConfigError),
    /// An entrant cannot be seated.
    #[error("{field}: {message}")]
    Entrant {
        /// `entrants[i]`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A variant file named by a new tournament's spec cannot be used.
    #[error("{field}: {message}")]
    VariantFile {
        /// `variants[i]` or `stages[j].variants[i]`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The scheduled start is neither RFC 3339 nor unix seconds.
    #[error("starts-at: {0}")]
    StartsAt(String),
    /// A round's variant cannot be loaded.
    #[error("variant {name:?}: {message}")]
    Variant {
        /// The preset or file.
        name: String,
        /// Why.
        message: String,
    },
    /// A room could not be opened.
    #[error("opening a room: {0}")]
    Room(String),
    /// A stored result does not fit the tournament.
    #[error("stored result: {0}")]
    Record(#[from] RecordError),
    /// A stored arena table does not fit the arena.
    #[error("stored arena table: {0}")]
    Arena(#[from] ArenaError),
    /// A stored control does not fit the tournament.
    #[error("stored control: {0}")]
    Control(#[from] ControlError),
    /// The stored log does not fit the tournament.
    #[error("stored log: {0}")]
    Log(#[from] LogError),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

impl TournamentError {
    /// The spec field at fault, for bad specs.
    pub fn field(&self) -> Option<&str> {
        match self {
            TournamentError::Invalid(e) => Some(&e.field),
            TournamentError::Parse(e) => e.field.as_deref(),
            TournamentError::Entrant { field, .. } | TournamentError::VariantFile { field, .. } => Some(field),
            TournamentError::StartsAt(_) => Some("starts-at"),
            _ => None,
        }
    }

    /// Whether the organiser's input is at fault (HTTP 400).
    pub fn is_bad_spec(&self) -> bool {
        matches!(
            self,
            TournamentError::Parse(_)
                | TournamentError::Invalid(_)
                | TournamentError::Entrant { .. }
                | TournamentError::VariantFile { .. }
                | TournamentError::StartsAt(_)
        )
    }
}

impl From<sqlx::Error> for TournamentError {
    fn from(e: sqlx::Error) -> Self {
        TournamentError::Db(DbError::Sql(e))
    }
}

/// Who an entrant's member is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    /// A server-hosted bot.
    Hosted {
        /// Its strategy spec.
        strategy: String,
    },
    /// A registered player.
    Player(String),
}

impl Member {
    /// `bot:STRATEGY[#tag]` is hosted, anything else a player name.
    pub fn of(name: &str) -> Member {
        match name.strip_prefix("bot:") {
            Some(rest) => {
                let strategy = rest.split_once('#').map_or(rest, |(s, _)| s);
                Member::Hosted { strategy: strategy.to_string() }
            }
            None => Member::Player(name.to_string()),
        }
    }
}

/// How a tournament table's result is made from its finished match: the
/// builder a table room calls once, before the game is stored, so the
/// result commits in the game's transaction. The room's seats are the
/// table's seats in order (the room is seated so).
pub(crate) fn table_link(tournament: TournamentId, round: u32, table: u32) -> crate::room::LinkFn {
    Box::new(move |record: &GameRecord| {
        let seats = record
            .seats
            .iter()
            .enumerate()
            .map(|(i, _)| SeatResult {
                // The seat's own share: partners' shares sum to their side's
                // score, and `best-player` can tell the members apart.
                score: record.seat_scores.get(i).copied().unwrap_or(0) as i64,
                // Pips left in the seat's hand at the end of every hand of
                // the match: `opponents-pips` counts the match, not its last hand.
                pips: record.hands.pips_left(i),
                timeouts: record.timeouts.get(i).copied().unwrap_or(0),
            })
            .collect();
        TableLink { tournament, result: MatchResult { round, table, seats, winner: record.winner.map(u32::from) } }
    })
}

/// The entropy of a tournament table's room: the first word of ChaCha20
/// keyed by the tournament's deal secret, on the stream of the round and
/// the table. Whoever knows no secret can predict no deal; a table played
/// again (after a crash, on any server) is dealt as before.
pub(crate) fn table_entropy(secret: &[u8; 32], round: u32, table: u32) -> u64 {
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    let mut rng = rand_chacha::ChaCha20Rng::from_seed(*secret);
    rng.set_stream((u64::from(round) << 32) | u64::from(table));
    rng.next_u64()
}

impl Registry {
    /// Asks the scheduler to look for new tournaments now.
    pub(crate) fn wake(&self) {
        self.wake.notify_one();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RegistryInner> {
        self.inner.lock().expect("tournament registry lock")
    }

    fn assign(&self, player: i64, a: Assignment) {
        let mut inner = self.lock();
        if let Some(conns) = inner.waiting.get_mut(&player) {
            conns.retain(|c| c.out.is_open());
            for c in conns.iter() {
                c.out.send(None, ServerMsg::Assignment(a.clone()));
            }
        }
        inner.assignments.entry(player).or_default().push(a);
    }

    /// Forgets the assignments `gone` picks, of every player.
    fn forget(&self, gone: impl Fn(&Assignment) -> bool) {
        let mut inner = self.lock();
        for list in inner.assignments.values_mut() {
            list.retain(|a| !gone(a));
        }
        inner.assignments.retain(|_, l| !l.is_empty());
    }

    fn unassign(&self, tournament: TournamentId, round: u32, table: u32) {
        self.forget(|a| a.tournament == tournament && a.round == round && a.table == table);
    }

    /// Forgets the assignments to a room (its table ended).
    fn unassign_room(&self, room: u64) {
        self.forget(|a| a.room == room);
    }

    /// The tournaments someone follows here that run on another node.
    fn followed_elsewhere(&self) -> Vec<TournamentId> {
        let all = self.followed();
        let inner = self.lock();
        all.into_iter().filter(|id| !inner.runners.contains_key(id)).collect()
    }

    /// Every tournament someone follows here.
    fn followed(&self) -> Vec<TournamentId> {
        let mut inner = self.lock();
        inner.subscribers.retain(|_, subs| {
            subs.retain(|c| c.out.is_open());
            !subs.is_empty()
        });
        inner.subscribers.keys().copied().collect()
    }

    /// Marks a control taken here (its audit id) as told to this node's
    /// followers, so the relay does not tell it again.
    pub(crate) fn told(&self, tournament: TournamentId, control: i64) {
        self.lock().told_here.insert((tournament, control));
    }

    /// Tells the tournament's runner, if one runs here, to look at its
    /// table placements now.
    fn nudge(&self, tournament: TournamentId) {
        if let Some(tx) = self.lock().runners.get(&tournament) {
            let _ = tx.send(Wake::Placements);
        }
    }

    fn unassign_tournament(&self, tournament: TournamentId) {
        self.forget(|a| a.tournament == tournament);
    }

    /// Tells the tournament's runner, if one runs here, that the organiser
    /// took a control.
    pub(crate) fn poke(&self, tournament: TournamentId) {
        if let Some(tx) = self.lock().runners.get(&tournament) {
            let _ = tx.send(Wake::Control);
        }
    }

    pub(crate) fn publish(&self, tournament: TournamentId, progress: Progress) {
        let mut inner = self.lock();
        if let Some(subs) = inner.subscribers.get_mut(&tournament) {
            subs.retain(|c| c.out.is_open());
            let frame = crate::encode(None, ServerMsg::TournamentProgress { tournament, progress });
            for c in subs.iter() {
                c.out.send_text(frame.clone());
            }
        }
    }
}

/// The most tournaments one connection follows at once.
pub(crate) const MAX_FOLLOWED: usize = 32;

/// `await-assignments`: registers the connection and sends the tables due.
pub(crate) fn await_assignments(state: &AppState, client: &Client, id: Option<u64>) {
    let Some(player) = client.ident.player_id else {
        client.out.send(
            id,
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                message: "only registered players (hello with a token) receive tournament tables".into(),
                url: None,
            },
        );
        return;
    };
    let mut inner = state.tournaments.lock();
    let conns = inner.waiting.entry(player).or_default();
    conns.retain(|c| c.out.is_open() && c.conn != client.conn);
    conns.push(client.clone());
    let due = inner.assignments.get(&player).cloned().unwrap_or_default();
    client.out.send(id, ServerMsg::Awaiting { pending: due.len() as u32 });
    for a in due {
        client.out.send(None, ServerMsg::Assignment(a));
    }
}

/// `subscribe-tournament`: answers with where it stands, then streams progress.
pub(crate) async fn subscribe(state: &AppState, client: &Client, tournament: TournamentId, id: Option<u64>) {
    let follows = |inner: &crate::state::tournaments::RegistryInner| {
        inner
            .subscribers
            .iter()
            .filter(|(t, subs)| **t != tournament && subs.iter().any(|c| c.conn == client.conn))
            .count()
    };
    if follows(&state.tournaments.lock()) >= MAX_FOLLOWED {
        let message = format!("a connection follows at most {MAX_FOLLOWED} tournaments");
        client.out.send(id, ServerMsg::Error { code: ErrorCode::BadRequest, message, url: None });
        return;
    }
    // The organiser's controls the followers here are told of start after
    // the last one taken before this subscription (see `relay`).
    let controls = state.db.last_tournament_audit(tournament).await;
    match state.db.tournament_summary(tournament).await {
        Ok(Some(s)) => {
            // Registered before the answer is sent: no event can fall in between
            // unseen (at worst one is seen twice). A connection is a follower
            // once, however often it subscribes.
            let mut inner = state.tournaments.lock();
            let subs = inner.subscribers.entry(tournament).or_default();
            subs.retain(|c| c.conn != client.conn && c.out.is_open());
            subs.push(client.clone());
            if let Ok(last) = controls {
                inner.controls_told.entry(tournament).or_insert(last);
            }
            drop(inner);
            client.out.send(
                id,
                ServerMsg::TournamentProgress {
                    tournament,
                    progress: Progress::Subscribed { status: s.status, results: s.results as u32 },
                },
            );
        }
        Ok(None) => {
            client.out.send(
                id,
                ServerMsg::Error {
                    code: ErrorCode::NoSuchTournament,
                    message: format!("no tournament {tournament}"),
                    url: None,
                },
            );
        }
        Err(e) => {
            tracing::error!(error = %e, "subscribe-tournament");
            client.out.send(
                id,
                ServerMsg::Error { code: ErrorCode::Internal, message: "could not read it".into(), url: None },
            );
        }
    }
}

/// How often the scheduler looks for tournaments created by the CLI.
const POLL: Duration = Duration::from_secs(1);

/// Starts the scheduler: runs every pending or running tournament, looking
/// again every second and whenever `Registry::wake` is called.
///
/// On PostgreSQL, where several servers may serve one database, it first
/// waits to be elected ([`crate::db::SchedulerLock`]): a server that is not
/// the scheduler serves rooms and stands by. While elected it checks its
/// lock every look; a lost lock means another server may be scheduling, so
/// this one stops serving (`AppState::fail`) rather than open tables the
/// other also opens.
pub fn spawn_scheduler(state: Arc<AppState>) {
    // The periodic look is driven by a plain thread on the real clock, not
    // a tokio timer: tests that pause tokio's clock must not see time jump
    // because of it. It ends once the server's state is gone.
    let wake = Arc::downgrade(&state.tournaments.wake);
    let _ = std::thread::Builder::new().name("tournament-poll".into()).spawn(move || {
        loop {
            std::thread::sleep(POLL);
            match wake.upgrade() {
                Some(w) => w.notify_one(),
                None => return,
            }
        }
    });
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        let Some(mut lock) = elect(&state, &mut shutdown).await else { return };
        state.scheduler.store(true, std::sync::atomic::Ordering::Relaxed);
        // Controls taken on another server reach no runner here by a
        // `poke`: with other servers possible, every look pokes them all.
        let others = lock.is_some();
        loop {
            if state.is_shutting_down() {
                return;
            }
            if let Some(l) = &mut lock
                && !l.is_held().await
            {
                state.fail("the tournament scheduler lost its lock on the database");
                return;
            }
            match state.db.runnable_tournaments().await {
                Ok(ids) => {
                    for id in ids {
                        if state.tournaments.lock().running.insert(id) {
                            tokio::spawn(runner::run(state.clone(), id));
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "looking for tournaments"),
            }
            if others {
                // A pause or cancel makes the tournament unrunnable: poke
                // every runner, not only the runnable ones.
                let ids: Vec<TournamentId> = state.tournaments.lock().runners.keys().copied().collect();
                for id in ids {
                    state.tournaments.poke(id);
                }
            }
            tokio::select! {
                _ = state.tournaments.wake.notified() => {}
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
        }
    });
}

/// Starts this node's host task on PostgreSQL, where any node may be given
/// tournament tables to open (see `placement`); on SQLite the scheduler
/// opens them itself.
pub fn spawn_host(state: Arc<AppState>) {
    if state.db.topology() == crate::db::Topology::Cluster {
        host::spawn(state);
    }
}

/// Waits until this server is the tournament scheduler: `Some(None)` at
/// once on SQLite, `Some(Some(lock))` once elected on PostgreSQL, `None` if
/// the server shuts down first. A failed wait (the database unreachable)
/// is tried again after a randomized pause, doubling up to half a minute.
async fn elect(
    state: &AppState,
    shutdown: &mut tokio::sync::watch::Receiver<bool>,
) -> Option<Option<crate::db::SchedulerLock>> {
    let mut pause = Duration::from_millis(500);
    if state.db.topology() == crate::db::Topology::Cluster {
        tracing::info!("standing by: another server may be running the tournaments");
    }
    loop {
        tokio::select! {
            elected = state.db.elect_scheduler() => match elected {
                Ok(lock) => {
                    if lock.is_some() {
                        tracing::info!("this server runs the tournaments (it holds the scheduler lock)");
                    }
                    return Some(lock);
                }
                Err(e) => {
                    let wait = pause.mul_f64(0.5 + (getrandom::u64().unwrap_or(0) % 1000) as f64 / 2000.0);
                    tracing::warn!(error = %e, retry_in_ms = wait.as_millis() as u64, "waiting for the scheduler lock failed");
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = crate::shutdown_signalled(shutdown) => return None,
                    }
                    pause = (pause * 2).min(Duration::from_secs(30));
                }
            },
            _ = crate::shutdown_signalled(shutdown) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_named_bot_are_hosted_with_their_strategy_spec() {
        assert_eq!(Member::of("bot:random"), Member::Hosted { strategy: "random".into() });
        assert_eq!(Member::of("bot:pimc:samples=5#2"), Member::Hosted { strategy: "pimc:samples=5".into() });
        assert_eq!(Member::of("ana"), Member::Player("ana".into()));
        assert_eq!(Member::of("robot:x"), Member::Player("robot:x".into()));
    }
}
