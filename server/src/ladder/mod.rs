//! The always-on ladder for bots: registered players (remote bots) say
//! they are available for a published preset (`join-ladder`); the server
//! keeps pairing waiting players of similar rating in rated rooms, and the
//! matches are ordinary rated rooms (stored, rated, replayable).
//!
//! - [`matchmaker`]: the pure core: a pool of (player, rating, since) to
//!   tables of similar rating, the accepted gap widening with waiting time.
//! - this file: the [`Ladder`] in `AppState` (who is on which ladder,
//!   waiting or playing), the pairing task that opens a room per table and
//!   tells each player its seat (`ladder-match`); `GET /api/ladder`
//!   (in `http`) reads its pools.
//!
//! A player is on one ladder at a time and in its pool at most once; while
//! it plays a ladder match it is out of the pool, and it comes back when
//! the match is stored, if the connection that joined is still open. A
//! connection that ends takes its player off the ladder at once: nothing
//! waits for it (a seat it was given and never took forfeits after the
//! room's no-show time, like a tournament table's).

pub mod matchmaker;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use capicua_protocol::{ErrorCode, RoomSpec, ServerMsg, TimeControl};
use tokio::sync::oneshot;

use self::matchmaker::{Gap, Pool, PoolError};
use crate::room::TableOptions;
use crate::{AppState, Client, ConnId};

/// How the ladder pairs and what its rooms play.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// How often waiting players are paired.
    pub every: Duration,
    /// The rating gap accepted, widening with waiting time.
    pub gap: Gap,
    /// Most players waiting on one ladder.
    pub pool_cap: usize,
    /// The per-move clock of ladder rooms (milliseconds; no bank).
    pub move_ms: u64,
    /// A reserved seat not taken and ready this long after its room opened
    /// forfeits the match.
    pub no_show: Duration,
    /// A player who never took its seat leaves the ladder and may join it
    /// again only this long after its match ended.
    pub no_show_cooldown: Duration,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            every: Duration::from_millis(500),
            gap: Gap::default(),
            pool_cap: 1000,
            move_ms: 10_000,
            no_show: Duration::from_secs(30),
            no_show_cooldown: Duration::from_secs(300),
        }
    }
}

/// A player on a ladder.
struct Member {
    /// The preset's ladder.
    variant: String,
    /// The connection that joined: seats are announced to it, and its end
    /// takes the player off the ladder.
    client: Client,
    /// Seated at a ladder match not stored yet (out of the pool meanwhile).
    playing: bool,
}

#[derive(Default)]
struct Inner {
    members: HashMap<i64, Member>,
    pools: HashMap<String, Pool>,
    /// Players who missed a ladder match, with when they may join again.
    benched: HashMap<i64, u64>,
}

/// Who is on which ladder, and the pools of those waiting.
pub struct Ladder {
    inner: Mutex<Inner>,
    /// The clock the pools' waiting times are read on.
    epoch: std::time::Instant,
}

impl Default for Ladder {
    fn default() -> Self {
        Ladder { inner: Mutex::default(), epoch: std::time::Instant::now() }
    }
}

impl Ladder {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("ladder lock")
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// A connection ended: its player leaves the ladder if it joined
    /// through this connection.
    pub(crate) fn disconnected(&self, player: i64, conn: ConnId) {
        let mut inner = self.lock();
        if inner.members.get(&player).is_some_and(|m| m.client.conn == conn) {
            remove(&mut inner, player);
        }
    }

    /// Takes players who never took their ladder seat off the ladder for
    /// `cooldown`, and tells them.
    fn bench(&self, players: &[i64], cooldown: Duration) {
        let until = self.now_ms() + cooldown.as_millis() as u64;
        let mut inner = self.lock();
        for &p in players {
            if let Some(m) = inner.members.get(&p) {
                let message = format!("you did not take your ladder seat: off the ladder for {} s", cooldown.as_secs());
                m.client.out.send(None, ServerMsg::Error { code: ErrorCode::RateLimited, message, url: None });
                m.client.out.send(None, ServerMsg::Ladder { variant: None, waiting: 0 });
            }
            remove(&mut inner, p);
            inner.benched.insert(p, until);
        }
    }

    /// The players on a ladder (waiting or playing), and how many wait.
    pub(crate) fn on(&self, variant: &str) -> (std::collections::HashSet<i64>, usize) {
        let inner = self.lock();
        let players = inner.members.iter().filter(|(_, m)| m.variant == variant).map(|(&p, _)| p).collect();
        (players, inner.pools.get(variant).map_or(0, Pool::len))
    }

    /// Takes closed connections off the ladder, then forms the tables every
    /// pool allows now; their players are marked playing.
    fn pair(&self, gap: Gap) -> Vec<(String, Vec<i64>)> {
        let now = self.now_ms();
        let mut inner = self.lock();
        let gone: Vec<i64> = inner.members.iter().filter(|(_, m)| !m.client.out.is_open()).map(|(&p, _)| p).collect();
        for p in gone {
            remove(&mut inner, p);
        }
        let mut tables = Vec::new();
        for (variant, pool) in inner.pools.iter_mut() {
            let seats = ladder_seats(variant).unwrap_or(2);
            for t in pool.pair(now, seats, gap) {
                tables.push((variant.clone(), t));
            }
        }
        for (_, t) in &tables {
            for p in t {
                if let Some(m) = inner.members.get_mut(p) {
                    m.playing = true;
                }
            }
        }
        tables
    }
}

/// The seats of a ladder table of `variant`: the fewest its rules allow,
/// for a published preset, two-faced or poly; `None` for anything else
/// (there is no ladder of it).
pub(crate) fn ladder_seats(variant: &str) -> Option<usize> {
    capicua_engine::preset(variant)
        .map(|v| usize::from(v.players.min))
        .or_else(|| capicua_engine::poly::poly_preset(variant).map(|v| usize::from(v.seats.min)))
}

/// Why there is no ladder of `variant`.
pub(crate) fn no_ladder(variant: &str) -> String {
    format!(
        "unknown preset {variant:?}; ladders are the presets: {}, {}",
        capicua_engine::PRESETS.join(", "),
        capicua_engine::poly::POLY_PRESETS.join(", ")
    )
}

/// Takes a player off its ladder.
fn remove(inner: &mut Inner, player: i64) {
    if let Some(m) = inner.members.remove(&player)
        && let Some(pool) = inner.pools.get_mut(&m.variant)
    {
        pool.leave(player);
    }
}

/// A player's rating on a preset's board (mean skill; a new player's
/// starting one before its first rated game there).
async fn rating_of(state: &AppState, variant: &str, player: i64) -> Result<f64, crate::db::DbError> {
    let start = skillratings::weng_lin::WengLinRating::new().rating;
    Ok(state.db.rating(variant, player).await?.map_or(start, |(mu, _)| mu))
}

/// `join-ladder`: puts the connection's player in the preset's pool.
pub(crate) async fn join(state: &Arc<AppState>, client: &Client, variant: String, id: Option<u64>) {
    let Some(player) = client.ident.player_id else {
        client.out.send(
            id,
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                message: "only registered players (hello with a token) play on the ladder".into(),
                url: None,
            },
        );
        return;
    };
    if ladder_seats(&variant).is_none() {
        client.out.send(id, ServerMsg::Error { code: ErrorCode::BadVariant, message: no_ladder(&variant), url: None });
        return;
    }
    if state.is_shutting_down() {
        let message = "the server is shutting down".into();
        client.out.send(id, ServerMsg::Error { code: ErrorCode::ShuttingDown, message, url: None });
        return;
    }
    let rating = match rating_of(state, &variant, player).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "reading a rating for the ladder");
            let message = "could not read the rating".into();
            client.out.send(id, ServerMsg::Error { code: ErrorCode::Internal, message, url: None });
            return;
        }
    };
    let now = state.ladder.now_ms();
    let cap = state.config.ladder.pool_cap;
    let mut inner = state.ladder.lock();
    // A player given a seat it never took cost its opponents a match: it
    // sits out a while, or names that never show would fill the pools.
    inner.benched.retain(|_, until| *until > now);
    if let Some(&until) = inner.benched.get(&player) {
        drop(inner);
        let secs = (until - now).div_ceil(1000);
        let message = format!("you missed your last ladder match; join again in {secs} s");
        client.out.send(id, ServerMsg::Error { code: ErrorCode::RateLimited, message, url: None });
        return;
    }
    let playing = match inner.members.get(&player) {
        Some(m) if m.variant != variant => {
            let playing = m.playing;
            remove(&mut inner, player);
            playing
        }
        Some(m) => m.playing,
        None => false,
    };
    inner.members.insert(player, Member { variant: variant.clone(), client: client.clone(), playing });
    let pool = inner.pools.entry(variant.clone()).or_insert_with(|| Pool::new(cap));
    if !playing && let Err(e @ PoolError::Full(_)) = pool.join(player, rating, now) {
        inner.members.remove(&player);
        drop(inner);
        client.out.send(id, ServerMsg::Error { code: ErrorCode::Busy, message: e.to_string(), url: None });
        return;
    }
    let waiting = pool.len() as u32;
    drop(inner);
    client.out.send(id, ServerMsg::Ladder { variant: Some(variant), waiting });
}

/// `leave-ladder`: takes the connection's player off the ladder (a match
/// in play goes on).
pub(crate) fn leave(state: &AppState, client: &Client, id: Option<u64>) {
    let Some(player) = client.ident.player_id else {
        let message = "only registered players play on the ladder".into();
        client.out.send(id, ServerMsg::Error { code: ErrorCode::Unauthorized, message, url: None });
        return;
    };
    remove(&mut state.ladder.lock(), player);
    client.out.send(id, ServerMsg::Ladder { variant: None, waiting: 0 });
}

/// Starts the pairing task: every [`LadderConfig::every`] it pairs the
/// waiting players and opens a room per table, until shutdown.
pub fn spawn(state: Arc<AppState>) {
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        let mut tick = tokio::time::interval(state.config.ladder.every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
            if state.is_shutting_down() {
                return;
            }
            for (variant, players) in state.ladder.pair(state.config.ladder.gap) {
                open(&state, variant, players).await;
            }
        }
    });
}

/// Opens the rated room of one table, tells each player its seat, and
/// brings them back to the pool once the match is stored (or the room
/// ended without one).
async fn open(state: &Arc<AppState>, variant: String, mut players: Vec<i64>) {
    // Who leads is the room's deal; who sits where is shuffled so that a
    // rating order never decides the seats.
    for i in (1..players.len()).rev() {
        let j = getrandom::u64().map_or(0, |r| (r % (i as u64 + 1)) as usize);
        players.swap(i, j);
    }
    let cfg = &state.config.ladder;
    let spec = RoomSpec {
        preset: Some(variant.clone()),
        seats: Some(players.len() as u8),
        rated: true,
        time: Some(TimeControl { move_ms: cfg.move_ms, bank_ms: 0 }),
        ..RoomSpec::default()
    };
    let options = TableOptions {
        reserved: players.iter().map(|&p| Some(p)).collect(),
        hosted: players.iter().map(|_| None).collect(),
        one_match: true,
        no_show: Some(cfg.no_show),
        link: None,
        entropy: None,
    };
    let (done_tx, done_rx) = oneshot::channel();
    let info = match crate::room::create_table(state, spec, options, done_tx).await {
        Ok(info) => info,
        Err(e) => {
            tracing::warn!(error = %e, variant, "opening a ladder room");
            back_to_pool(state, &players).await;
            return;
        }
    };
    tracing::debug!(room = info.id, variant, players = ?players, "ladder match");
    {
        let inner = state.ladder.lock();
        for (seat, p) in players.iter().enumerate() {
            if let Some(m) = inner.members.get(p) {
                m.client
                    .out
                    .send(None, ServerMsg::LadderMatch { room: info.id, seat: seat as u8, variant: variant.clone() });
            }
        }
    }
    // The room's lobby entry as it ends tells who never took a seat.
    let entry = state.room(info.id).map(|h| h.info);
    let state = state.clone();
    tokio::spawn(async move {
        let _ = done_rx.await;
        if let Some(entry) = entry {
            let last = entry.lock().expect("room info lock").clone();
            let absent: Vec<i64> =
                players.iter().zip(&last.seats).filter(|(_, s)| s.occupant.is_none()).map(|(&p, _)| p).collect();
            state.ladder.bench(&absent, state.config.ladder.no_show_cooldown);
        }
        back_to_pool(&state, &players).await;
    });
}

/// Players whose ladder match is over wait again, each on the ladder it is
/// on now, if the connection that joined is still open.
async fn back_to_pool(state: &AppState, players: &[i64]) {
    for &p in players {
        let variant = match state.ladder.lock().members.get(&p) {
            Some(m) if m.playing && m.client.out.is_open() => m.variant.clone(),
            _ => continue,
        };
        // Read after the match was stored: its result counts.
        let rating = match rating_of(state, &variant, p).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "reading a rating for the ladder");
                continue;
            }
        };
        let now = state.ladder.now_ms();
        let cap = state.config.ladder.pool_cap;
        let mut inner = state.ladder.lock();
        let Some(m) = inner.members.get_mut(&p).filter(|m| m.playing && m.variant == variant) else { continue };
        m.playing = false;
        let client = m.client.clone();
        let pool = inner.pools.entry(variant).or_insert_with(|| Pool::new(cap));
        if let Err(e) = pool.join(p, rating, now) {
            inner.members.remove(&p);
            drop(inner);
            client.out.send(None, ServerMsg::Error { code: ErrorCode::Busy, message: e.to_string(), url: None });
        }
    }
}
