//! The always-on ladder for bots: registered players (remote bots) say
//! they are available for a published preset (`join-ladder`); the server
//! keeps pairing waiting players of similar rating in rated rooms, and the
//! matches are ordinary rated rooms (stored, rated, replayable).
//!
//! - [`matchmaker`]: the pure core: a pool of (player, rating, since) to
//!   tables of similar rating, the accepted gap widening with waiting time.
//! - this file: the [`Ladder`] in `AppState` (who is on which ladder,
//!   waiting or playing) and its settings; `GET /api/ladder` (in `http`)
//!   reads its pools.
//! - [`seeks`]: Play now, people seeking a table (`crate::play_now` pairs them).
//! - `crate::matchmaking`: what needs the server's state: `join-ladder`
//!   and `leave-ladder`, and the pairing task that opens a room per table
//!   and tells each player its seat (`ladder-match`). It stands outside
//!   this module so that `AppState` can hold the ladder without a loop.
//!
//! A player is on one ladder at a time and in its pool at most once; while
//! it plays a ladder match it is out of the pool, and it comes back when
//! the match is stored, if the connection that joined is still open. A
//! connection that ends takes its player off the ladder at once: nothing
//! waits for it (a seat it was given and never took forfeits after the
//! room's no-show time, like a tournament table's).

pub mod matchmaker;
pub mod seeks;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use capicua_protocol::{ErrorCode, ServerMsg};

use self::matchmaker::{Gap, Pool};
use crate::{Client, ConnId};

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
pub(crate) struct Member {
    /// The preset's ladder.
    pub(crate) variant: String,
    /// The connection that joined: seats are announced to it, and its end
    /// takes the player off the ladder.
    pub(crate) client: Client,
    /// Seated at a ladder match not stored yet (out of the pool meanwhile).
    pub(crate) playing: bool,
}

/// What the ladder's lock guards.
#[derive(Default)]
pub(crate) struct Inner {
    pub(crate) members: HashMap<i64, Member>,
    pub(crate) pools: HashMap<String, Pool>,
    /// Players who missed a ladder match, with when they may join again.
    pub(crate) benched: HashMap<i64, u64>,
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
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("ladder lock")
    }

    pub(crate) fn now_ms(&self) -> u64 {
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
    pub(crate) fn bench(&self, players: &[i64], cooldown: Duration) {
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
    pub(crate) fn pair(&self, gap: Gap) -> Vec<(String, Vec<i64>)> {
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
    seeks::seat_range(variant).map(|(min, _)| usize::from(min))
}

/// Why there is no ladder of `variant`.
pub(crate) fn no_ladder(variant: &str) -> String {
    format!(
        "unknown preset {variant:?}; ladders are the presets: {}, {}",
        capicua_engine::PRESETS.join(", "),
        capicua_engine::poly::POLY_PRESETS.join(", ")
    )
}

/// The seconds `who` still sits out (a seat it never took), if any, after
/// forgetting every bench that has ended by `now_ms`.
pub(crate) fn benched_secs<K: Eq + std::hash::Hash>(
    benched: &mut HashMap<K, u64>,
    who: &K,
    now_ms: u64,
) -> Option<u64> {
    benched.retain(|_, until| *until > now_ms);
    benched.get(who).map(|until| (until - now_ms).div_ceil(1000))
}

/// Takes a player off its ladder.
pub(crate) fn remove(inner: &mut Inner, player: i64) {
    if let Some(m) = inner.members.remove(&player)
        && let Some(pool) = inner.pools.get_mut(&m.variant)
    {
        pool.leave(player);
    }
}
