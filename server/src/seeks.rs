//! Play now: people (registered players and guests alike) seek a table of
//! a preset, a size and rated or casual play; the pairing task seats those
//! who seek the same thing together, nearest rating first with the gap
//! widening as they wait (the ladder's [`matchmaker`](crate::ladder::matchmaker),
//! keyed by the seat's owner), in a one-match room whose seats are
//! reserved for them.
//!
//! - [`Seeks`] in `AppState`: who seeks what, and a pool per kind of table.
//! - `seek`, `cancel` and `open`: what needs the server's state (a
//!   rating, a room).
//!
//! One seek per owner (a player, or a guest session) and so per
//! connection: a second replaces the first. A seek ends with the
//! connection that made it. A seeker given a seat it never took cost the
//! others a match: it may not seek again for a while, or names that never
//! show would keep opening rooms.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use capicua_protocol::{ErrorCode, ServerMsg};
use serde::Serialize;

use crate::client::Owner;
use crate::ladder::matchmaker::{Gap, Pool, PoolError};
use crate::{AppState, Client, ConnId};

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
struct Seeker {
    wanted: Wanted,
    /// The connection that seeks: the pairing is sent to it, and its end
    /// ends the seek.
    client: Client,
}

#[derive(Default)]
struct Inner {
    seekers: HashMap<Owner, Seeker>,
    pools: HashMap<Wanted, Pool<Owner>>,
    /// Seekers who missed their seat, with when they may seek again.
    benched: HashMap<Owner, u64>,
}

impl Inner {
    fn remove(&mut self, owner: Owner) -> Option<Seeker> {
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
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("seeks lock")
    }

    fn now_ms(&self) -> u64 {
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
    fn pair(&self, gap: Gap) -> Vec<(Wanted, Vec<(Owner, Client)>)> {
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
    fn bench(&self, owners: &[Owner], cooldown: Duration) {
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

fn refuse(client: &Client, id: Option<u64>, code: ErrorCode, message: String) {
    client.out.send(id, ServerMsg::Error { code, message, url: None });
}

/// The `seeking` of a connection that seeks nothing.
pub(crate) fn not_seeking() -> ServerMsg {
    ServerMsg::Seeking { preset: None, seats: 0, rated: false, waiting: 0 }
}

/// `seek`: puts the connection's owner in the pool of what it seeks.
pub(crate) async fn seek(
    state: &Arc<AppState>,
    client: &Client,
    preset: String,
    seats: Option<u8>,
    rated: bool,
    id: Option<u64>,
) {
    let Some((min, max)) = seat_range(&preset) else {
        return refuse(client, id, ErrorCode::BadVariant, crate::ladder::no_ladder(&preset));
    };
    let seats = seats.unwrap_or(min);
    if !(min..=max).contains(&seats) {
        let message = format!("{preset} is played by {min} to {max}; asked for {seats}");
        return refuse(client, id, ErrorCode::BadVariant, message);
    }
    let player = client.ident.player_id;
    if rated && player.is_none() {
        let message = "rated play is for registered players; seek casual play, or register".into();
        return refuse(client, id, ErrorCode::Unauthorized, message);
    }
    if state.is_shutting_down() {
        return refuse(client, id, ErrorCode::ShuttingDown, "the server is shutting down".into());
    }
    // Casual seekers meet whoever waits longest; rated ones meet their
    // nearest rating first.
    let rating = match player {
        Some(p) if rated => {
            let start = skillratings::weng_lin::WengLinRating::new().rating;
            match state.db.rating(&preset, p).await {
                Ok(r) => r.map_or(start, |(mu, _)| mu),
                Err(e) => {
                    tracing::error!(error = %e, "reading a rating for Play now");
                    return refuse(client, id, ErrorCode::Internal, "could not read the rating".into());
                }
            }
        }
        _ => 0.0,
    };
    let owner = client.ident.owner(client.conn);
    let wanted = Wanted { preset, seats, rated };
    let now = state.seeks.now_ms();
    let mut inner = state.seeks.lock();
    inner.benched.retain(|_, until| *until > now);
    if let Some(&until) = inner.benched.get(&owner) {
        drop(inner);
        let secs = (until - now).div_ceil(1000);
        let message = format!("you did not take your last Play now seat; seek again in {secs} s");
        return refuse(client, id, ErrorCode::RateLimited, message);
    }
    // One seek per owner: a second (from any of its connections) replaces
    // the first, whose connection is told.
    if let Some(old) = inner.remove(owner)
        && old.client.conn != client.conn
    {
        old.client.out.send(None, not_seeking());
    }
    let pool = inner.pools.entry(wanted.clone()).or_insert_with(|| Pool::new(state.config.seeks.pool_cap));
    if let Err(e @ PoolError::Full(_)) = pool.join(owner, rating, now) {
        drop(inner);
        return refuse(client, id, ErrorCode::Busy, e.to_string());
    }
    let waiting = pool.len() as u32;
    inner.seekers.insert(owner, Seeker { wanted: wanted.clone(), client: client.clone() });
    drop(inner);
    tracing::debug!(?owner, preset = wanted.preset, seats, rated, "seeking");
    client.out.send(id, ServerMsg::Seeking { preset: Some(wanted.preset), seats, rated, waiting });
}

/// `cancel-seek`: ends the connection's owner's seek, if any.
pub(crate) fn cancel(state: &AppState, client: &Client, id: Option<u64>) {
    let owner = client.ident.owner(client.conn);
    state.seeks.lock().remove(owner);
    client.out.send(id, not_seeking());
}

/// Pairs the seekers and opens a room per table formed.
pub(crate) async fn pair_and_open(state: &Arc<AppState>, gap: Gap) {
    for (wanted, seated) in state.seeks.pair(gap) {
        open(state, wanted, seated).await;
    }
}

/// Opens the room of one table and tells each seeker its seat.
async fn open(state: &Arc<AppState>, wanted: Wanted, mut seated: Vec<(Owner, Client)>) {
    let cfg = &state.config.seeks;
    let mut owners: Vec<(Owner, Owner)> = seated.iter().map(|(o, _)| (*o, *o)).collect();
    let opened =
        crate::matchmaking::open_reserved(state, &wanted.preset, wanted.rated, cfg.move_ms, cfg.no_show, &mut owners)
            .await;
    let (info, ended) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(error = %e, preset = wanted.preset, "opening a Play now room");
            for (_, c) in &seated {
                let message = format!("could not open the room: {e}; seek again");
                c.out.send(None, ServerMsg::Error { code: ErrorCode::Internal, message, url: None });
                c.out.send(None, not_seeking());
            }
            return;
        }
    };
    // The seats as shuffled.
    seated.sort_by_key(|(o, _)| owners.iter().position(|(p, _)| p == o));
    tracing::info!(
        room = info.id,
        preset = wanted.preset,
        seats = wanted.seats,
        rated = wanted.rated,
        "Play now pairing"
    );
    for (seat, (_, c)) in seated.iter().enumerate() {
        let msg =
            ServerMsg::Paired { room: info.id, seat: seat as u8, preset: wanted.preset.clone(), rated: wanted.rated };
        c.out.send(None, msg);
    }
    let state = state.clone();
    tokio::spawn(async move {
        let absent = ended.await;
        state.seeks.bench(&absent, state.config.seeks.no_show_cooldown);
    });
}
