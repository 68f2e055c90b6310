//! The server's settings: what the CLI reads from flags and environment,
//! and the web origins the HTTP API answers.

use std::time::Duration;

use crate::ladder;

/// Server settings (the CLI fills them from flags and environment).
#[derive(Clone, Debug)]
pub struct Config {
    /// The admin token, if admin actions are enabled.
    pub admin_token: Option<String>,
    /// Web origins whose pages may call the HTTP API (`/api/...`) from a
    /// browser; none by default (same-origin only).
    pub cors: CorsOrigins,
    /// Most simultaneous WebSocket connections.
    pub max_connections: usize,
    /// Messages per second a connection may send (token bucket refill).
    pub rate_per_sec: u32,
    /// Burst size of the token bucket.
    pub rate_burst: u32,
    /// Rejected messages in a row before a flooding connection is closed.
    pub flood_limit: u32,
    /// How long a disconnected player's seat is kept.
    pub reconnect_grace: Duration,
    /// Frames queued for a connection before it counts as a slow consumer.
    pub outbound_buffer: usize,
    /// Longest wait of an event to a connection that asked for batched
    /// events (they usually leave sooner, with its next reply or prompt).
    /// The flusher ticks at a fifth of this period (`Flusher::tick_for`).
    pub batch_every: Duration,
    /// What a hosted bot may spend on a move (every hosted bot's spec came
    /// from a client).
    pub bot_caps: capicua_strategy::SearchCaps,
    /// How long a room stays open with no player connected in a seat and no
    /// match in play; `None` keeps it open (tournament tables are exempt).
    pub room_idle: Option<Duration>,
    /// Most open rooms one registered player, or one guest address, may
    /// have created; 0 is no limit (the admin has none).
    pub max_rooms_per_owner: usize,
    /// HTTP API writes (`POST`, `DELETE`) per minute per address, in bursts
    /// of up to that many; 0 is no limit.
    pub http_writes_per_min: u32,
    /// HTTP API reads per minute per address, in bursts of up to that many;
    /// 0 is no limit.
    pub http_reads_per_min: u32,
    /// Reverse proxies whose `X-Forwarded-For` names the client address
    /// that per-address limits count; empty trusts none.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The ladder's pairing and the clock of its rooms.
    pub ladder: ladder::LadderConfig,
    /// Play now's rooms and bounds.
    pub seeks: crate::ladder::seeks::SeekConfig,
    /// The base URL clients reach this server at (`http://host:port`),
    /// recorded for the other servers on the database, which send clients
    /// of this server's rooms here; `None`: `http://` and the listening
    /// address.
    pub public_url: Option<String>,
    /// How long a room of hosted bots alone stays open with no one
    /// watching (its match stands still meanwhile); `None` lets such rooms
    /// play on unwatched. Tables and the admin's rooms are exempt.
    pub unwatched_room: Option<Duration>,
    /// Registrations (new names) per minute per address, in bursts of up
    /// to that many; 0 is no limit.
    pub registrations_per_min: u32,
    /// Time a new TCP connection has to send a request's headers (and an
    /// idle HTTP connection to start its next request) before it is
    /// closed.
    pub header_timeout: Duration,
    /// Time a WebSocket has to say `hello` before it is closed.
    pub hello_timeout: Duration,
    /// Time a WebSocket may stay silent (no frame, no pong to the server's
    /// pings) before it is closed.
    pub idle_timeout: Duration,
    /// Most open TCP connections from one address (not a trusted proxy's:
    /// its clients are counted by their forwarded address on the
    /// WebSocket); 0 is no limit.
    pub max_connections_per_addr: usize,
    /// Most spectators in one room; 0 is no limit.
    pub max_spectators: usize,
    /// Bytes of frames queued for a connection before it counts as a slow
    /// consumer (one frame alone may be larger).
    pub outbound_bytes: usize,
    /// Most bytes of steps in one page of a replay (`GET /api/games/{id}`);
    /// a page always holds at least one step.
    pub replay_page_bytes: usize,
    /// Replay requests of one address being answered at once (their
    /// answers still being sent count); 0 is no limit.
    pub replays_per_addr: usize,
    /// Replay pages (`GET /api/games/{id}`) one address may be answered a
    /// minute, in bursts of up to that many; 0 is no limit.
    pub replay_pages_per_min: u32,
    /// How many leading bits of an IPv6 address make the address the
    /// per-address limits count (64: a /64, what one subscriber is given);
    /// 128 counts every address apart.
    pub ipv6_prefix: u8,
    /// Most open rooms created from one address, by guests and every name
    /// registered there together; 0 is no limit (the admin has none).
    pub max_rooms_per_addr: usize,
    /// Most seats one address may hold in rooms whose match has not
    /// started; 0 is no limit.
    pub max_seats_per_addr: usize,
    /// KiB of stored games one room owner (a registered player, or a
    /// guest's address), and one address, may add an hour, in bursts of up
    /// to that many: a match does not start once its creator's budget is
    /// spent; 0 is no limit.
    pub stored_kib_per_hour: u32,
    /// Wrong tokens one address may send in `hello` a minute (the admin's
    /// and players'); 0 is no limit.
    pub token_guesses_per_min: u32,

    // CPU-bound work: hosted searches, hints, reviews.
    /// Hosted-bot searches, hints and review decisions running at once,
    /// server-wide (at least 1); more wait their turn in a queue.
    pub max_searches: usize,
    /// The longest a review may take in all, waiting for slots included;
    /// a review that needs longer is refused `busy` and not stored.
    pub review_time: Duration,
    /// Hints one address may have computed or waiting at once (a
    /// connection and a player have one each); 0 is no limit.
    pub hints_per_addr: usize,
}

impl Config {
    /// The policy for strategy specs from the network.
    pub(crate) fn bot_policy(&self) -> capicua_strategy::Policy {
        capicua_strategy::Policy::network(self.bot_caps)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            admin_token: None,
            cors: CorsOrigins::None,
            max_connections: 20_000,
            rate_per_sec: 1000,
            rate_burst: 2000,
            flood_limit: 200,
            reconnect_grace: Duration::from_secs(60),
            outbound_buffer: 1024,
            batch_every: Duration::from_millis(1000),
            bot_caps: capicua_strategy::SearchCaps::default(),
            room_idle: Some(Duration::from_secs(600)),
            max_rooms_per_owner: 4,
            http_writes_per_min: 60,
            http_reads_per_min: 1200,
            trusted_proxies: Vec::new(),
            ladder: ladder::LadderConfig::default(),
            seeks: crate::ladder::seeks::SeekConfig::default(),
            public_url: None,
            unwatched_room: Some(Duration::from_secs(60)),
            registrations_per_min: 10,
            header_timeout: Duration::from_secs(10),
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(90),
            max_connections_per_addr: 64,
            max_spectators: 200,
            outbound_bytes: 4 << 20,
            replay_page_bytes: 1 << 20,
            replays_per_addr: 4,
            replay_pages_per_min: 120,
            ipv6_prefix: 64,
            max_rooms_per_addr: 8,
            max_seats_per_addr: 8,
            stored_kib_per_hour: 16 * 1024,
            token_guesses_per_min: 10,
            max_searches: std::thread::available_parallelism().map_or(1, |n| n.get()),
            review_time: Duration::from_secs(30),
            hints_per_addr: 1,
        }
    }
}

/// Which web origins may call the HTTP API from a browser (CORS) and open
/// the WebSocket from their pages; the server's own origin always may.
/// `/healthz` and `/metrics` never answer cross-origin requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No CORS headers: browsers allow same-origin calls only.
    #[default]
    None,
    /// Any origin (`--cors-origin '*'`).
    Any,
    /// These origins exactly, as browsers send them (`https://club.example`).
    List(Vec<String>),
}

/// A `--cors-origin` value that no browser would ever send as its origin.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad CORS origin {origin:?}: {why}")]
pub struct BadOrigin {
    /// The value given.
    pub origin: String,
    /// What is wrong with it.
    pub why: &'static str,
}

impl CorsOrigins {
    /// Whether a page of `origin` (an `Origin` header) was allowed.
    pub(crate) fn allows(&self, origin: &str) -> bool {
        match self {
            CorsOrigins::None => false,
            CorsOrigins::Any => true,
            CorsOrigins::List(list) => list.iter().any(|o| o.eq_ignore_ascii_case(origin)),
        }
    }

    /// Reads `--cors-origin` values: nothing for [`CorsOrigins::None`], a
    /// `*` among them for [`CorsOrigins::Any`], otherwise each must be an
    /// origin: `http://` or `https://`, a host, an optional port, and no path
    /// (browsers send `https://club.example`, never with a trailing `/`, so
    /// such a value would silently match nothing).
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<CorsOrigins, BadOrigin> {
        let values: Vec<&str> = values.iter().map(|v| v.as_ref().trim()).filter(|v| !v.is_empty()).collect();
        if values.is_empty() {
            return Ok(CorsOrigins::None);
        }
        if values.contains(&"*") {
            return Ok(CorsOrigins::Any);
        }
        let mut list = Vec::with_capacity(values.len());
        for v in values {
            let bad = |why| BadOrigin { origin: v.to_string(), why };
            let Some(rest) = v.strip_prefix("https://").or_else(|| v.strip_prefix("http://")) else {
                return Err(bad("an origin starts with http:// or https://"));
            };
            if rest.is_empty() {
                return Err(bad("no host"));
            }
            if rest.contains(['/', '?', '#']) {
                return Err(bad("an origin has no path, not even a trailing /"));
            }
            if !v.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(bad("an origin is printable ASCII without spaces"));
            }
            list.push(v.to_string());
        }
        Ok(CorsOrigins::List(list))
    }
}
