//! Guest sessions: a guest is a guest of its own, not of one connection.
//!
//! A guest's `welcome` carries a session secret; a later `hello` with it
//! (`guest:HEX` as the token) is the same guest, by name and seats, so a
//! reloaded page or a dropped connection keeps its seat for the match.
//! The server keeps only the secret's SHA-256, in memory: a restart ends
//! every guest session (the rooms end with it anyway).
//!
//! Bounds: a session with no connection is forgotten after the idle time
//! (the reconnect grace: its seats are given up by then anyway), and past
//! `max` sessions the longest idle goes first; a session with a live
//! connection is never evicted, and there are at most as many of those as
//! connections.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// The prefix that tells a guest session from a player's token.
pub(crate) const PREFIX: &str = "guest:";

/// A guest session's hashed secret.
pub(crate) type SessionKey = [u8; 32];

/// Who a guest session is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Guest {
    /// Its number, the seats' owner: the connection it first said hello on.
    pub(crate) id: u64,
    /// Its name (`guest-N`).
    pub(crate) name: String,
}

struct Session {
    guest: Guest,
    /// Connections using it now.
    live: u32,
    /// Since when none has.
    idle_since: Instant,
}

/// The server's guest sessions.
pub(crate) struct Guests {
    sessions: Mutex<HashMap<SessionKey, Session>>,
    idle: Duration,
    max: usize,
}

/// A fresh session: its secret (for the `welcome`) and key.
pub(crate) struct Opened {
    pub(crate) secret: String,
    pub(crate) key: SessionKey,
}

impl Guests {
    /// Sessions forgotten `idle` after their last connection closed, and
    /// at most `max` of them (the idle ones go first).
    pub(crate) fn new(idle: Duration, max: usize) -> Guests {
        Guests { sessions: Mutex::default(), idle, max: max.max(1) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionKey, Session>> {
        self.sessions.lock().expect("guest sessions lock")
    }

    /// Opens a session for `guest`, used by one connection now; `None`
    /// if the OS has no randomness to give (the guest then has none).
    pub(crate) fn open(&self, guest: Guest, now: Instant) -> Option<Opened> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let secret = format!("{PREFIX}{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
        let key = key_of(&secret);
        let mut sessions = self.lock();
        let idle = self.idle;
        sessions.retain(|_, s| s.live > 0 || now.duration_since(s.idle_since) < idle);
        if sessions.len() >= self.max {
            // The longest idle goes; with none idle, the map may exceed
            // `max` by live sessions only, which connections bound.
            let oldest =
                sessions.iter().filter(|(_, s)| s.live == 0).min_by_key(|(_, s)| s.idle_since).map(|(k, _)| *k);
            if let Some(k) = oldest {
                sessions.remove(&k);
            }
        }
        sessions.insert(key, Session { guest, live: 1, idle_since: now });
        Some(Opened { secret, key })
    }

    /// The guest of a session secret, now used by one more connection;
    /// `None` for a secret the server does not know (or no longer).
    pub(crate) fn resume(&self, secret: &str, now: Instant) -> Option<(Guest, SessionKey)> {
        let key = key_of(secret);
        let mut sessions = self.lock();
        let s = sessions.get_mut(&key)?;
        if s.live == 0 && now.duration_since(s.idle_since) >= self.idle {
            sessions.remove(&key);
            return None;
        }
        s.live += 1;
        Some((s.guest.clone(), key))
    }

    /// A connection using the session closed.
    pub(crate) fn release(&self, key: &SessionKey, now: Instant) {
        if let Some(s) = self.lock().get_mut(key) {
            s.live = s.live.saturating_sub(1);
            if s.live == 0 {
                s.idle_since = now;
            }
        }
    }

    /// Sessions kept now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

fn key_of(secret: &str) -> SessionKey {
    Sha256::digest(secret.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guest(id: u64) -> Guest {
        Guest { id, name: format!("guest-{id}") }
    }

    #[test]
    fn a_session_is_the_same_guest_until_it_has_been_idle_too_long() {
        let t0 = Instant::now();
        let guests = Guests::new(Duration::from_secs(60), 10);
        let opened = guests.open(guest(3), t0).unwrap();
        assert!(opened.secret.starts_with(PREFIX) && opened.secret.len() == PREFIX.len() + 64);
        assert!(guests.resume("guest:00", t0).is_none(), "an unknown secret is nobody");
        guests.release(&opened.key, t0);
        let (g, key) = guests.resume(&opened.secret, t0 + Duration::from_secs(59)).unwrap();
        assert_eq!((g, key), (guest(3), opened.key));
        // Two connections at once (two tabs): idle only once both close.
        guests.resume(&opened.secret, t0 + Duration::from_secs(59)).unwrap();
        guests.release(&key, t0 + Duration::from_secs(60));
        assert!(guests.resume(&opened.secret, t0 + Duration::from_secs(500)).is_some(), "one is still live");
        for _ in 0..2 {
            guests.release(&key, t0 + Duration::from_secs(500));
        }
        assert!(guests.resume(&opened.secret, t0 + Duration::from_secs(560)).is_none(), "idle 60 s: forgotten");
    }

    #[test]
    fn sessions_are_bounded_and_the_longest_idle_goes_first() {
        let t0 = Instant::now();
        let guests = Guests::new(Duration::from_secs(3600), 3);
        let a = guests.open(guest(1), t0).unwrap();
        let b = guests.open(guest(2), t0).unwrap();
        let c = guests.open(guest(3), t0).unwrap();
        guests.release(&b.key, t0 + Duration::from_secs(1));
        guests.release(&a.key, t0 + Duration::from_secs(2));
        let d = guests.open(guest(4), t0 + Duration::from_secs(3)).unwrap();
        assert_eq!(guests.len(), 3);
        assert!(guests.resume(&b.secret, t0 + Duration::from_secs(4)).is_none(), "the longest idle went");
        assert!(guests.resume(&a.secret, t0 + Duration::from_secs(4)).is_some());
        // None idle: live sessions are never evicted (connections bound them).
        let e = guests.open(guest(5), t0 + Duration::from_secs(5)).unwrap();
        assert_eq!(guests.len(), 4);
        for s in [&c, &d, &e] {
            assert!(guests.resume(&s.secret, t0 + Duration::from_secs(6)).is_some());
        }
    }
}
