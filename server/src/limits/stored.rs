//! Bytes of finished matches the rooms of one owner, and of one address,
//! may store an hour: a room whose creator's budget is spent starts no
//! match until it refills, so nobody can fill the disk with games of bots.
//!
//! Not `governor`: a game's size is known only once it was played, and it
//! may be larger than what is left of the budget. The budget goes into
//! debt then, and stays closed until the debt is paid back at its rate; a
//! GCRA bucket refuses a charge it cannot pay whole and charges nothing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::RoomOwner;

/// What a stored game counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BudgetKey {
    /// The room's owner (a registered player, or a guest's address).
    Owner(RoomOwner),
    /// The address the room's creator connected from.
    Addr(IpAddr),
}

/// A leaky bucket per key: its level is the bytes stored lately, draining
/// at the budget's rate; a key at or over the budget may not start a match.
pub(crate) struct StoreBudget {
    /// Bytes a second the level drains.
    per_sec: f64,
    /// The level at which starting stops: the budget of an hour.
    cap: f64,
    levels: Mutex<HashMap<BudgetKey, Level>>,
}

#[derive(Clone, Copy)]
struct Level {
    bytes: f64,
    at: Instant,
}

impl Level {
    /// The level at `now`, drained since it was last set.
    fn at(self, now: Instant, per_sec: f64) -> f64 {
        (self.bytes - now.saturating_duration_since(self.at).as_secs_f64() * per_sec).max(0.0)
    }
}

/// The keys a room's games count against, with the budget they share.
#[derive(Clone)]
pub(crate) struct StoreGate {
    budget: Arc<StoreBudget>,
    keys: Vec<BudgetKey>,
}

impl StoreBudget {
    /// A budget of `kib_per_hour` KiB an hour per key, in bursts of up to
    /// that much; `None` for 0 (no limit).
    pub(crate) fn new(kib_per_hour: u32) -> Option<Arc<StoreBudget>> {
        let cap = f64::from(kib_per_hour) * 1024.0;
        (kib_per_hour > 0).then(|| Arc::new(StoreBudget { per_sec: cap / 3600.0, cap, levels: Mutex::default() }))
    }

    /// The gate of a room owned by `owner`, created from `addr`.
    pub(crate) fn gate(self: &Arc<Self>, owner: RoomOwner, addr: Option<IpAddr>) -> StoreGate {
        let keys = std::iter::once(BudgetKey::Owner(owner)).chain(addr.map(BudgetKey::Addr)).collect();
        StoreGate { budget: self.clone(), keys }
    }
}

impl StoreGate {
    /// `Ok` if every key is under the budget at `now`, else how long until
    /// all are.
    pub(crate) fn check(&self, now: Instant) -> Result<(), Duration> {
        let b = &self.budget;
        let levels = b.levels.lock().expect("store budget lock");
        let worst = self.keys.iter().filter_map(|k| levels.get(k)).map(|l| l.at(now, b.per_sec)).fold(0.0, f64::max);
        if worst < b.cap {
            return Ok(());
        }
        // Just under the cap again: a second more than the excess takes.
        Err(Duration::from_secs_f64((worst - b.cap) / b.per_sec + 1.0))
    }

    /// Counts `bytes` stored against every key (past the budget too).
    pub(crate) fn charge(&self, now: Instant, bytes: usize) {
        let b = &self.budget;
        let mut levels = b.levels.lock().expect("store budget lock");
        for k in &self.keys {
            let level = levels.get(k).map_or(0.0, |l| l.at(now, b.per_sec));
            levels.insert(*k, Level { bytes: level + bytes as f64, at: now });
        }
        // Keys that drained to nothing must not stay in memory.
        if levels.len() > 1024 {
            levels.retain(|_, l| l.at(now, b.per_sec) > 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_budget_closes_until_its_debt_drains_and_keys_are_apart() {
        let budget = StoreBudget::new(36).expect("a budget"); // 36 KiB an hour: 10.24 bytes a second.
        let addr = IpAddr::from([10, 0, 0, 1]);
        let ana = budget.gate(RoomOwner::Player(1), Some(addr));
        let ben = budget.gate(RoomOwner::Player(2), Some(addr));
        let eve = budget.gate(RoomOwner::Player(3), Some(IpAddr::from([10, 0, 0, 2])));
        let t0 = Instant::now();
        assert!(ana.check(t0).is_ok());
        // A game larger than the whole budget: taken, and the debt counts.
        ana.charge(t0, 2 * 36 * 1024);
        let wait = ana.check(t0).expect_err("spent");
        assert!((3599..=3602).contains(&wait.as_secs()), "an hour to pay back the excess: {wait:?}");
        assert!(ben.check(t0).is_err(), "another name of the same address shares its budget");
        assert!(eve.check(t0).is_ok(), "another owner at another address does not");
        assert!(ana.check(t0 + wait).is_ok(), "open again once drained under the budget");
        assert!(ana.check(t0 + wait - Duration::from_secs(2)).is_err());
        assert!(StoreBudget::new(0).is_none(), "0 is no limit");
    }
}
