//! Play now: people (registered players and guests alike) seek a table of
//! a preset, a size and rated or casual play; the pairing task seats those
//! who seek the same thing together, nearest rating first with the gap
//! widening as they wait (the ladder's [`matchmaker`](crate::ladder::matchmaker),
//! keyed by the seat's owner), in a one-match room whose seats are
//! reserved for them.
//!
//! - [`Seeks`] in `AppState`: who seeks what, and a pool per kind of table.
//! - `crate::play_now`: what needs the server's state (a rating, a
//!   room): `seek`, `cancel-seek` and the pairing. It stands outside this
//!   module so that `AppState` can hold the seeks without a loop.
//!
//! One seek per owner (a player, or a guest session) and so per
//! connection: a second replaces the first. A seek ends with the
//! connection that made it. A seeker given a seat it never took cost the
//! others a match: it may not seek again for a while, or names that never
//! show would keep opening rooms.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use capicua_protocol::ServerMsg;
use serde::Serialize;

use super::matchmaker::{Gap, Pool};
use crate::client::Owner;
use crate::{Client, ConnId};

/// What Play now's rooms play, and its bounds.
#[derive(Clone, Debug)]
pub struct SeekConfig {
    /// The per-move clock of its rooms (milliseconds; no bank).
    pub move_ms: u64,
    /// Most seekers of one kind of table.
    pub pool_cap: usize,
    /// A reserved seat not taken and ready this long after its room opened
    /// forfeits the match.
    pub no_show: Duration,
    /// A seeker who never took its seat may seek again only this long
    /// after its match ended.
    pub no_show_cooldown: Duration,
}

impl Default for SeekConfig {
    fn default() -> Self {
        SeekConfig {
            move_ms: 30_000,
            pool_cap: 1000,
            no_show: Duration::from_secs(60),
            no_show_cooldown: Duration::from_secs(300),
        }
    }
}

/// A kind of table sought.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Wanted {
    /// The preset.
    pub(crate) preset: String,
    /// Seats at the table.
    pub(crate) seats: u8,
    /// Ratings count.
    pub(crate) rated: bool,
}

/// Someone seeking.
pub(crate) struct Seeker {
    pub(crate) wanted: Wanted,
    /// The connection that seeks: the pairing is sent to it, and its end
    /// ends the seek.
    pub(crate) client: Client,
}

#[derive(Default)]
pub(crate) struct Inner {
    pub(crate) seekers: HashMap<Owner, Seeker>,
    pub(crate) pools: HashMap<Wanted, Pool<Owner>>,
    /// Seekers who missed their seat, with when they may seek again.
    pub(crate) benched: HashMap<Owner, u64>,
}

impl Inner {
    pub(crate) fn remove(&mut self, owner: Owner) -> Option<Seeker> {
        let s = self.seekers.remove(&owner)?;
        if let Some(pool) = self.pools.get_mut(&s.wanted) {
            pool.leave(owner);
            if pool.is_empty() {
                self.pools.remove(&s.wanted);
            }
        }
        Some(s)
    }
}

/// Who seeks what.
pub struct Seeks {
    inner: Mutex<Inner>,
    epoch: std::time::Instant,
}

impl Default for Seeks {
    fn default() -> Self {
        Seeks { inner: Mutex::default(), epoch: std::time::Instant::now() }
    }
}

/// A line of `GET /api/seeks`: how many seek a kind of table.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct SeekCount {
    #[serde(flatten)]
    pub(crate) wanted: Wanted,
    pub(crate) waiting: u32,
}

impl Seeks {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("seeks lock")
    }

    pub(crate) fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// A connection ended (or is no longer `owner`): the seek it made
    /// ends. Whether there was one.
    pub(crate) fn disconnected(&self, owner: Owner, conn: ConnId) -> bool {
        let mut inner = self.lock();
        inner.seekers.get(&owner).is_some_and(|s| s.client.conn == conn) && inner.remove(owner).is_some()
    }

    /// How many seek each kind of table, most sought first.
    pub(crate) fn counts(&self) -> Vec<SeekCount> {
        let inner = self.lock();
        let mut out: Vec<SeekCount> = inner
            .pools
            .iter()
            .map(|(w, p)| SeekCount { wanted: w.clone(), waiting: p.len() as u32 })
            .filter(|c| c.waiting > 0)
            .collect();
        out.sort_by(|a, b| b.waiting.cmp(&a.waiting).then_with(|| a.wanted.cmp(&b.wanted)));
        out
    }

    /// Forms the tables every pool allows now, with the connections to tell;
    /// their seekers' seeks end.
    pub(crate) fn pair(&self, gap: Gap) -> Vec<(Wanted, Vec<(Owner, Client)>)> {
        let now = self.now_ms();
        let mut inner = self.lock();
        let gone: Vec<Owner> = inner.seekers.iter().filter(|(_, s)| !s.client.out.is_open()).map(|(&o, _)| o).collect();
        for o in gone {
            inner.remove(o);
        }
        let mut formed = Vec::new();
        for (wanted, pool) in inner.pools.iter_mut() {
            for t in pool.pair(now, usize::from(wanted.seats), gap) {
                formed.push((wanted.clone(), t));
            }
        }
        formed
            .into_iter()
            .map(|(wanted, owners)| {
                let seated = owners.into_iter().filter_map(|o| inner.remove(o).map(|s| (o, s.client))).collect();
                (wanted, seated)
            })
            .collect()
    }

    /// Bars owners who never took their seat from seeking for `cooldown`.
    pub(crate) fn bench(&self, owners: &[Owner], cooldown: Duration) {
        let until = self.now_ms() + cooldown.as_millis() as u64;
        let mut inner = self.lock();
        for &o in owners {
            inner.benched.insert(o, until);
        }
    }
}

/// The seats a table of `preset` may have, fewest and most; `None` for an
/// unknown preset.
pub(crate) fn seat_range(preset: &str) -> Option<(u8, u8)> {
    capicua_engine::preset(preset)
        .map(|v| (v.players.min, v.players.max))
        .or_else(|| capicua_engine::poly::poly_preset(preset).map(|v| (v.seats.min, v.seats.max)))
}

/// The `seeking` of a connection that seeks nothing.
pub(crate) fn not_seeking() -> ServerMsg {
    ServerMsg::Seeking { preset: None, seats: 0, rated: false, waiting: 0 }
}
