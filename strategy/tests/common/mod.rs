//! Helpers shared by the integration tests.

use std::sync::Arc;

use capicua_engine::{MatchTarget, PRESETS, Rules, preset};

/// A size from the environment, or `default`: soak tests grow with
/// `CAPICUA_BOT_SOAK=<n>`.
pub fn size(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Every preset with every seat count it allows, as single-hand rules.
#[allow(dead_code)] // not every test file uses it
pub fn tables() -> Vec<(Arc<Rules>, u8)> {
    let mut out = Vec::new();
    for name in PRESETS {
        let mut v = preset(name).expect("preset");
        v.target = MatchTarget::Hands(1);
        let rules = Arc::new(v.validate().expect("valid preset"));
        for seats in rules.seat_range() {
            out.push((rules.clone(), seats));
        }
    }
    out
}
