//! Accounts: signing in with a name and a password, the sessions that
//! makes, setting a password. The attempts are bounded per name and per
//! address (a guesser learns at most a few passwords a minute, whichever
//! names or addresses it spreads them over), and the hashing itself takes
//! a bounded number of slots ([`crate::passwords::Hashing`]).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};

use crate::db::{Db, DbError, Player};
use crate::passwords::{self, Hashing};

/// Sign-in attempts per name per minute, in bursts of up to that many.
pub(crate) const PER_NAME_PER_MIN: u32 = 5;
/// Sign-in attempts per address per minute, in bursts of up to that many.
pub(crate) const PER_ADDR_PER_MIN: u32 = 20;

type Keyed<K> = RateLimiter<K, HashMapStateStore<K>, DefaultClock>;

/// Why signing in failed.
#[derive(Debug)]
pub(crate) enum SignInError {
    /// The name or the password is wrong (never which).
    Wrong,
    /// Too many attempts for this name or from this address: retry after this.
    TooMany(Duration),
    /// No hashing slot came free: retry shortly.
    Busy,
    /// The database failed.
    Db(DbError),
}

impl From<DbError> for SignInError {
    fn from(e: DbError) -> SignInError {
        SignInError::Db(e)
    }
}

/// Why a name cannot be registered: `name` (or a name one with it) is taken.
pub(crate) fn name_taken(name: &str) -> String {
    format!("{name:?} is taken (names in another case or with look-alike letters are one name)")
}

/// The sign-in limits and the hashing slots.
pub(crate) struct Accounts {
    hashing: Hashing,
    by_name: Keyed<String>,
    by_addr: Keyed<IpAddr>,
}

impl Accounts {
    /// `slots` hashes at once (one per core).
    pub(crate) fn new(slots: usize) -> Accounts {
        let per_min = |n: u32| Quota::per_minute(NonZeroU32::new(n).expect("a nonzero rate"));
        Accounts {
            hashing: Hashing::new(slots),
            by_name: RateLimiter::hashmap(per_min(PER_NAME_PER_MIN)),
            by_addr: RateLimiter::hashmap(per_min(PER_ADDR_PER_MIN)),
        }
    }

    /// Counts an attempt on `name` from `addr`: `Err` with the wait when
    /// either has had its attempts for now. Every attempt counts, right or
    /// wrong, so a guess costs the same whatever it finds.
    fn attempt(&self, name: &str, addr: Option<IpAddr>) -> Result<(), Duration> {
        let now = DefaultClock::default().now();
        let wait = |n: governor::NotUntil<_>| n.wait_time_from(now);
        if let Some(a) = addr {
            self.by_addr.check_key(&a).map_err(wait)?;
        }
        self.by_name.check_key(&capicua_protocol::name_key(name)).map_err(wait)?;
        // Forget keys whose buckets are full again, or a guesser's names
        // would stay in memory.
        if self.by_name.len() > 10_000 {
            self.by_name.retain_recent();
        }
        if self.by_addr.len() > 10_000 {
            self.by_addr.retain_recent();
        }
        Ok(())
    }

    /// The player whose name and password these are. A name nobody has
    /// (or one with no password) costs a hash too.
    pub(crate) async fn sign_in(
        &self,
        db: &Db,
        name: &str,
        password: &str,
        addr: Option<IpAddr>,
    ) -> Result<Player, SignInError> {
        self.attempt(name, addr).map_err(SignInError::TooMany)?;
        let found = db.password_of(name).await?;
        let phc = found.as_ref().and_then(|(_, h)| h.clone()).unwrap_or_else(|| passwords::decoy().to_string());
        let given = password.to_string();
        let ok = self.hashing.run(move || passwords::verify(&given, &phc)).await.ok_or(SignInError::Busy)?;
        match found {
            Some((player, Some(_))) if ok => Ok(player),
            _ => Err(SignInError::Wrong),
        }
    }

    /// The hash of a new password, `None` when no slot came free (or the
    /// OS gave no randomness for its salt).
    pub(crate) async fn hash(&self, password: &str) -> Option<String> {
        let given = password.to_string();
        self.hashing.run(move || passwords::hash(&given)).await.flatten()
    }
}
