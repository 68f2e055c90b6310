//! The statistics of the arena: confidence intervals and the SPRT.

use serde::Serialize;

/// The 95% Wilson score interval of `wins` successes in `n` trials, as
/// fractions in `0..=1` (`(0, 1)` for no trials).
///
/// ```
/// use capicua_strategy::stats::wilson95;
/// let (lo, hi) = wilson95(50, 100);
/// assert!(lo < 0.5 && 0.5 < hi);
/// assert!((hi - lo - 0.192).abs() < 0.01);
/// ```
pub fn wilson95(wins: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054;
    let n = n as f64;
    let p = wins as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The expected score of a player `elo` points stronger (logistic model).
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference a mean score means (infinite at 0 and 1).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// A sequential probability ratio test of H0 "elo = elo0" against H1
/// "elo = elo1", as chess-engine testing frameworks run it: after each
/// batch of games the log-likelihood ratio of the observed wins, draws and
/// losses (normal approximation of the trinomial, logistic Elo) is compared
/// with the bounds `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What an SPRT has concluded so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtDecision {
    /// Accept H1: the first strategy is at least `elo1` stronger.
    H1,
    /// Accept H0: it is at most `elo0` stronger.
    H0,
    /// Not yet decided.
    Undecided,
}

impl Sprt {
    /// A test with alpha = beta = 0.05.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt { elo0, elo1, alpha: 0.05, beta: 0.05 }
    }

    /// The decision bounds `(lower, upper)` of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of `wins`, `draws`, `losses`.
    ///
    /// ```
    /// use capicua_strategy::stats::Sprt;
    /// let t = Sprt::new(0.0, 20.0);
    /// assert!(t.llr(600, 0, 400) > t.bounds().1); // clearly stronger
    /// assert!(t.llr(400, 0, 600) < t.bounds().0); // clearly weaker
    /// ```
    pub fn llr(&self, wins: u64, draws: u64, losses: u64) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 || wins + draws == 0 || losses + draws == 0 {
            return 0.0;
        }
        let mean = (wins as f64 + 0.5 * draws as f64) / n;
        let var =
            (wins as f64 * (1.0 - mean).powi(2) + draws as f64 * (0.5 - mean).powi(2) + losses as f64 * mean.powi(2))
                / n;
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision for these results.
    pub fn decide(&self, wins: u64, draws: u64, losses: u64) -> SprtDecision {
        let llr = self.llr(wins, draws, losses);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Undecided
        }
    }
}
