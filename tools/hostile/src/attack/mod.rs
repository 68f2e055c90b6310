//! The attacks, one module each. Each sets up what it needs, calls
//! [`Ctx::begin`] (the baseline, then the attack phase), attacks, and
//! returns once its time is up, dropping every connection it opened: the
//! recovery check starts when it returns.

pub mod abandoned_rooms;
pub mod admin_guess;
pub mod bot_rooms;
pub mod bot_rows;
pub mod chat;
pub mod fill_bots;
pub mod fragments;
pub mod hint_starve;
pub mod idle;
pub mod ladder_flood;
pub mod long_game;
pub mod pings;
pub mod replay;
pub mod replay_burst;
pub mod review;
pub mod slow_spectators;
pub mod squat;
pub mod store_flood;
pub mod subscribe_flood;
pub mod ws_flood;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::http::Server;
use crate::monitor::Monitor;

/// Connections attacking at once, and for how long: the attacks whose
/// whole size is that.
#[derive(clap::Args, Clone, Debug)]
pub struct Swarm {
    /// Connections attacking at once.
    #[arg(long, default_value_t = 8)]
    pub connections: usize,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
}

/// Names, and the rooms each opens: the attacks that spread over
/// owners.
#[derive(clap::Args, Clone, Debug)]
pub struct Owners {
    /// Names registered at the start (guests where the server registers
    /// no more).
    #[arg(long, default_value_t = 10)]
    pub names: usize,
    /// Rooms each name opens.
    #[arg(long, default_value_t = 4)]
    pub rooms: usize,
}

/// What every attack is given.
pub struct Ctx {
    /// The server, as the attacks reach it.
    pub server: Server,
    /// The server as reached from the probe address: for victims, whose
    /// connections must not count against the attacks' address.
    pub probe: Server,
    /// The server's admin token, if given.
    pub admin_token: Option<String>,
    /// The monitor (phases, notes, the probe).
    pub monitor: Arc<Monitor>,
    /// How long the baseline lasts.
    pub baseline: Duration,
    /// This process's descriptor limit (after raising it).
    pub fd_limit: u64,
}

impl Ctx {
    /// The baseline, then the attack phase.
    pub async fn begin(&self) {
        self.monitor.baseline_then_attack(self.baseline).await;
    }

    /// Says something the attack found.
    pub fn note(&self, line: impl Into<String>) {
        self.monitor.note(line);
    }
}

/// Sleeps until `deadline`, or until the server process is gone.
pub async fn hold_until(ctx: &Ctx, deadline: Instant) {
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        tokio::time::sleep(Duration::from_millis(250).min(deadline.saturating_duration_since(Instant::now()))).await;
    }
}

/// Until `deadline` (or the server process is gone), a note every
/// `every` of what `say` reports then.
pub async fn hold_noting(ctx: &Ctx, deadline: Instant, every: Duration, mut say: impl FnMut() -> String) {
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        hold_until(ctx, (Instant::now() + every).min(deadline)).await;
        ctx.note(say());
    }
}

/// How many of `wanted` connections this process may open, keeping
/// `margin` descriptors free (noted when fewer).
pub fn fd_budget(ctx: &Ctx, wanted: usize, margin: u64) -> usize {
    let budget = ctx.fd_limit.saturating_sub(crate::procfs::own_fds() + margin) as usize;
    if budget < wanted {
        ctx.note(format!("opening {budget} connections, not {wanted}: this process may hold {}", ctx.fd_limit));
    }
    wanted.min(budget)
}

/// Counts of outcomes by name, printed in a stable order.
#[derive(Clone, Debug, Default)]
pub struct Tally(std::collections::BTreeMap<String, u64>);

impl Tally {
    /// Counts one `what`.
    pub fn add(&mut self, what: impl Into<String>) {
        *self.0.entry(what.into()).or_default() += 1;
    }

    /// Counts `n` more `what`.
    pub fn add_n(&mut self, what: impl Into<String>, n: u64) {
        *self.0.entry(what.into()).or_default() += n;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Tally) {
        for (k, v) in &other.0 {
            self.add_n(k.clone(), *v);
        }
    }

    /// The sum of every count.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// How many `what`.
    pub fn get(&self, what: &str) -> u64 {
        self.0.get(what).copied().unwrap_or(0)
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return write!(f, "none");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k} {v}")).collect();
        write!(f, "{}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_and_prints_in_order() {
        let mut t = Tally::default();
        assert_eq!(t.to_string(), "none");
        t.add("ok");
        t.add("error:busy");
        t.add("ok");
        assert_eq!(t.get("ok"), 2);
        assert_eq!(t.get("room"), 0);
        assert_eq!(t.to_string(), "error:busy 1, ok 2");
    }
}
