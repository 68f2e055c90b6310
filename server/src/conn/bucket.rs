//! A token bucket: the rate limit of a connection's frames, and the slower
//! one of its chat lines.

use std::time::Instant;

/// A token bucket: `rate` tokens a second, at most `burst` saved.
pub(super) struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    pub(super) fn new(rate: u32, burst: u32) -> Bucket {
        Bucket { tokens: burst as f64, rate: rate as f64, burst: burst as f64, last: Instant::now() }
    }
    pub(super) fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}
