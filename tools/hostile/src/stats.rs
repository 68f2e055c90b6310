//! Percentiles of latency samples.

use std::fmt;
use std::time::Duration;

/// The `q` quantile (0 to 1) of sorted values, by nearest rank: the
/// smallest value with at least `q` of the values at or below it.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The median, 99th percentile and maximum of some latencies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Samples.
    pub n: usize,
    /// Milliseconds (None without samples).
    pub p50: Option<f64>,
    /// Milliseconds.
    pub p99: Option<f64>,
    /// Milliseconds.
    pub max: Option<f64>,
}

impl Summary {
    /// Summarises latencies (any order).
    pub fn of(latencies: impl IntoIterator<Item = Duration>) -> Summary {
        let mut ms: Vec<f64> = latencies.into_iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        Summary { n: ms.len(), p50: percentile(&ms, 0.50), p99: percentile(&ms, 0.99), max: ms.last().copied() }
    }
}

/// Milliseconds with a precision that suits their size, or `-`.
pub fn ms(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v < 10.0 => format!("{v:.2}"),
        Some(v) if v < 1000.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.0}"),
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p50 {} p99 {} max {} ms (n {})", ms(self.p50), ms(self.p99), ms(self.max), self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.50), Some(50.0));
        assert_eq!(percentile(&v, 0.99), Some(99.0));
        assert_eq!(percentile(&v, 1.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        // Few samples: the 99th percentile of ten is the largest.
        let few = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&few, 0.99), Some(10.0));
        assert_eq!(percentile(&few, 0.5), Some(5.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn a_summary_sorts_its_samples() {
        let s = Summary::of([30, 10, 20].map(Duration::from_millis));
        assert_eq!((s.n, s.p50, s.p99, s.max), (3, Some(20.0), Some(30.0), Some(30.0)));
        assert_eq!(Summary::of([]), Summary::default());
        assert_eq!(Summary::of([]).to_string(), "p50 - p99 - max - ms (n 0)");
    }
}
