//! At most so many of something per key (an owner's open rooms, an
//! address's replays in flight, seats or hints): a [`Slot`] taken holds
//! one, and gives it back when it drops.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// What each key holds, at most `max` (0: no limit).
#[derive(Debug)]
pub(crate) struct Slots<K: Copy + Eq + Hash> {
    max: usize,
    held: Mutex<HashMap<K, usize>>,
}

/// One of a key's slots, held while it lives.
#[derive(Debug)]
pub(crate) struct Slot<K: Copy + Eq + Hash> {
    slots: Arc<Slots<K>>,
    key: K,
}

impl<K: Copy + Eq + Hash> Slots<K> {
    /// At most `max` slots per key; 0 is no limit.
    pub(crate) fn new(max: usize) -> Arc<Slots<K>> {
        Arc::new(Slots { max, held: Mutex::new(HashMap::new()) })
    }

    /// The most a key holds (0: no limit).
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// A slot for `key`, or `None` when it holds `max` already.
    pub(crate) fn take(self: &Arc<Self>, key: K) -> Option<Slot<K>> {
        if self.max > 0 {
            let mut held = self.held.lock().expect("slots lock");
            let n = held.entry(key).or_insert(0);
            if *n >= self.max {
                return None;
            }
            *n += 1;
        }
        Some(Slot { slots: self.clone(), key })
    }

    /// The slots `key` holds.
    #[cfg(test)]
    pub(crate) fn held(&self, key: K) -> usize {
        self.held.lock().expect("slots lock").get(&key).copied().unwrap_or(0)
    }
}

impl<K: Copy + Eq + Hash> Drop for Slot<K> {
    fn drop(&mut self) {
        if self.slots.max == 0 {
            return;
        }
        let mut held = self.slots.held.lock().expect("slots lock");
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                // A key gone must not stay in memory.
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    #[test]
    fn a_key_holds_at_most_its_slots_and_a_dropped_one_frees_its_place() {
        let slots = Slots::new(2);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let first = slots.take(a).expect("first");
        let _second = slots.take(a).expect("second");
        assert!(slots.take(a).is_none(), "a third at once");
        let _other = slots.take(b).expect("another key is counted apart");
        drop(first);
        assert_eq!(slots.held(a), 1);
        assert!(slots.take(a).is_some(), "a slot was freed");
        drop(_other);
        assert!(slots.held.lock().unwrap().get(&b).is_none(), "a key gone is forgotten");
        let open = Slots::new(0);
        let all: Vec<_> = (0..100).map(|_| open.take(a).expect("no limit")).collect();
        drop(all);
    }
}
