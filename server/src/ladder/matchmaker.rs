//! The ladder's matchmaker: which waiting players sit down together. Pure
//! and synchronous: a pool of (player, rating, since) in, tables out; the
//! caller passes the time as a number.
//!
//! A player waiting alone at the top or bottom of the ratings must not
//! wait for ever: each player accepts opponents within a rating gap that
//! widens the longer it has waited, and a table forms only when every one
//! of its players accepts its spread. The player who has waited longest is
//! seated first, at the closest table its neighbours in rating make.

use std::collections::HashMap;
use std::hash::Hash;

/// How far apart in rating (Weng-Lin mean skill) the players of a table
/// may be: `base` at once, growing by `per_sec` for every second waited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gap {
    /// The spread accepted by a player who has just joined.
    pub base: f64,
    /// How much the accepted spread grows per second of waiting.
    pub per_sec: f64,
}

impl Default for Gap {
    fn default() -> Self {
        // A new player's sigma is 25/3 ≈ 8.3: within a few seconds anyone
        // may meet anyone, but close ratings meet first.
        Gap { base: 2.0, per_sec: 1.0 }
    }
}

impl Gap {
    /// The spread accepted after waiting `waited_ms`.
    pub fn allowed(&self, waited_ms: u64) -> f64 {
        self.base + self.per_sec * waited_ms as f64 / 1000.0
    }
}

/// A player waiting to be paired: `K` names it (a player id on the
/// ladder; a seat's owner, person or guest, for Play now).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waiting<K = i64> {
    /// The player.
    pub player: K,
    /// Its rating on the ladder's board (mean skill).
    pub rating: f64,
    /// When it began waiting (milliseconds on the caller's clock).
    pub since_ms: u64,
}

/// Why a player could not join a pool.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// The pool holds its most players already.
    #[error("the ladder's pool is full ({0} players wait); try again later")]
    Full(usize),
}

/// One ladder's waiting players: each at most once, at most `cap` of them.
#[derive(Clone, Debug)]
pub struct Pool<K = i64> {
    waiting: HashMap<K, Waiting<K>>,
    cap: usize,
}

impl<K: Copy + Eq + Hash + Ord> Pool<K> {
    /// An empty pool for at most `cap` players.
    pub fn new(cap: usize) -> Pool<K> {
        Pool { waiting: HashMap::new(), cap }
    }

    /// Adds a player, or updates the rating of one already waiting (it
    /// keeps its place: joining again never resets the wait).
    pub fn join(&mut self, player: K, rating: f64, now_ms: u64) -> Result<(), PoolError> {
        if let Some(w) = self.waiting.get_mut(&player) {
            w.rating = rating;
            return Ok(());
        }
        if self.waiting.len() >= self.cap {
            return Err(PoolError::Full(self.waiting.len()));
        }
        self.waiting.insert(player, Waiting { player, rating, since_ms: now_ms });
        Ok(())
    }

    /// Removes a player; whether it was waiting.
    pub fn leave(&mut self, player: K) -> bool {
        self.waiting.remove(&player).is_some()
    }

    /// Whether a player waits here.
    pub fn contains(&self, player: K) -> bool {
        self.waiting.contains_key(&player)
    }

    /// Players waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether nobody waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Forms the tables of `seats` players that `gap` allows now and takes
    /// their players out of the pool.
    pub fn pair(&mut self, now_ms: u64, seats: usize, gap: Gap) -> Vec<Vec<K>> {
        let waiting: Vec<Waiting<K>> = self.waiting.values().copied().collect();
        let tables = tables(&waiting, now_ms, seats, gap);
        for t in &tables {
            for p in t {
                self.waiting.remove(p);
            }
        }
        tables
    }
}

/// The tables of `seats` players that `gap` allows among `pool` at
/// `now_ms`, as player ids ordered by rating. No player is seated twice
/// (a player listed twice counts once), and a table's spread of ratings is
/// within what each of its players accepts.
pub fn tables<K: Copy + Eq + Hash + Ord>(pool: &[Waiting<K>], now_ms: u64, seats: usize, gap: Gap) -> Vec<Vec<K>> {
    if seats < 2 {
        return Vec::new();
    }
    let mut seen = std::collections::HashSet::new();
    let mut by_rating: Vec<Waiting<K>> = pool.iter().copied().filter(|w| seen.insert(w.player)).collect();
    // NaN ratings (none are expected) sort last and stay there.
    by_rating
        .sort_by(|a, b| a.rating.total_cmp(&b.rating).then(a.since_ms.cmp(&b.since_ms)).then(a.player.cmp(&b.player)));
    let mut order: Vec<usize> = (0..by_rating.len()).collect();
    order.sort_by_key(|&i| (by_rating[i].since_ms, by_rating[i].player));
    let mut seated = vec![false; by_rating.len()];
    let mut out = Vec::new();
    for anchor in order {
        if seated[anchor] {
            continue;
        }
        // The players still free, in rating order: any table the anchor can
        // join with the smallest spread is a run of them around it.
        let free: Vec<usize> = (0..by_rating.len()).filter(|&i| !seated[i]).collect();
        if free.len() < seats {
            break;
        }
        let at = free.iter().position(|&i| i == anchor).expect("the anchor is free");
        let mut best: Option<(f64, usize)> = None;
        for start in at.saturating_sub(seats - 1)..=at {
            if start + seats > free.len() {
                break;
            }
            let run = &free[start..start + seats];
            let spread = by_rating[run[seats - 1]].rating - by_rating[run[0]].rating;
            let accepted = run.iter().all(|&i| spread <= gap.allowed(now_ms.saturating_sub(by_rating[i].since_ms)));
            if accepted && best.is_none_or(|(s, _)| spread < s) {
                best = Some((spread, start));
            }
        }
        if let Some((_, start)) = best {
            let run: Vec<usize> = free[start..start + seats].to_vec();
            for &i in &run {
                seated[i] = true;
            }
            out.push(run.iter().map(|&i| by_rating[i].player).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(player: i64, rating: f64, since_ms: u64) -> Waiting {
        Waiting { player, rating, since_ms }
    }

    const GAP: Gap = Gap { base: 2.0, per_sec: 1.0 };

    #[test]
    fn close_ratings_meet_and_distant_ones_wait_until_their_gap_has_widened() {
        let pool = [w(1, 25.0, 0), w(2, 26.0, 0), w(3, 40.0, 0), w(4, 41.5, 0)];
        let mut got = tables(&pool, 0, 2, GAP);
        got.sort();
        assert_eq!(got, [vec![1, 2], vec![3, 4]]);
        // 1 and 3 alone: 15 apart, accepted only after 13 seconds of waiting.
        let pool = [w(1, 25.0, 0), w(3, 40.0, 0)];
        assert!(tables(&pool, 12_999, 2, GAP).is_empty());
        assert_eq!(tables(&pool, 13_000, 2, GAP), [vec![1, 3]]);
    }

    #[test]
    fn every_player_of_a_table_must_accept_its_spread() {
        // 1 has waited long enough for a 15-point gap, 3 has just come.
        let pool = [w(1, 25.0, 0), w(3, 40.0, 60_000)];
        assert!(tables(&pool, 60_000, 2, GAP).is_empty());
        assert_eq!(tables(&pool, 73_000, 2, GAP), [vec![1, 3]]);
    }

    #[test]
    fn the_longest_waiting_player_is_seated_first_with_its_closest_neighbour() {
        // 2 sits between 1 and 3; 3 has waited longest and is 0.5 from 2.
        let pool = [w(1, 24.0, 500), w(2, 25.0, 400), w(3, 25.5, 100)];
        assert_eq!(tables(&pool, 1_000, 2, GAP), [vec![2, 3]]);
    }

    #[test]
    fn tables_of_four_take_runs_of_neighbours_and_leave_the_rest_waiting() {
        let pool: Vec<Waiting> = (0..9).map(|i| w(i, 20.0 + i as f64 * 0.5, 0)).collect();
        let got = tables(&pool, 0, 4, GAP);
        assert_eq!(got.len(), 2, "{got:?}");
        let mut seated: Vec<i64> = got.concat();
        seated.sort();
        seated.dedup();
        assert_eq!(seated.len(), 8, "nobody sits twice: {got:?}");
        for t in &got {
            assert_eq!(t.len(), 4);
        }
    }

    #[test]
    fn a_player_listed_twice_never_sits_at_two_seats() {
        let pool = [w(1, 25.0, 0), w(1, 25.0, 0), w(1, 25.1, 0)];
        assert!(tables(&pool, 100_000, 2, GAP).is_empty(), "no self-play");
        let pool = [w(1, 25.0, 0), w(1, 25.0, 0), w(2, 25.0, 0), w(2, 25.2, 0)];
        assert_eq!(tables(&pool, 0, 2, GAP), [vec![1, 2]]);
    }

    #[test]
    fn a_pool_holds_a_player_once_keeps_its_wait_and_is_bounded() {
        let mut pool = Pool::new(2);
        pool.join(1, 25.0, 0).unwrap();
        pool.join(1, 30.0, 5_000).unwrap();
        assert_eq!(pool.len(), 1);
        pool.join(2, 45.0, 5_000).unwrap();
        assert_eq!(pool.join(3, 25.0, 5_000), Err(PoolError::Full(2)));
        assert!(!pool.contains(3));
        // 1 waits since 0 with its new rating of 30: 15 from 2, whose own
        // wait (since 5 s) allows 15 only at 18 s.
        assert!(pool.pair(17_999, 2, GAP).is_empty());
        assert_eq!(pool.pair(18_000, 2, GAP), [vec![1, 2]]);
        assert!(pool.is_empty(), "paired players leave the pool");
        assert!(!pool.leave(1));
    }
}
