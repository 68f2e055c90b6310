//! Watches the server while an attack runs: its process every second
//! (`/proc`), `/healthz` (and, given the admin token, an admin read) every
//! second, and the probe table's move latencies; prints a line a second,
//! then the summary of each phase and the recovery check. The probe table
//! and those requests come from the probe address, not the attacks': the
//! server caps connections per address, and what the attacks' address
//! meets is the attacks' result, not a normal client's.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::http::{self, Server};
use crate::procfs::{self, Reading};
use crate::stats::{Summary, ms};
use crate::table::TableStats;

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The attack builds what it needs (a long game, accounts).
    Setup,
    /// Nothing hostile yet: the reference figures.
    Baseline,
    /// The attack runs.
    Attack,
    /// The attack has stopped; is the server back to its baseline?
    Recovery,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Baseline => "baseline",
            Phase::Attack => "attack",
            Phase::Recovery => "recovery",
        }
    }
}

/// One second of the server process.
#[derive(Clone, Copy, Debug)]
struct Point {
    reading: Reading,
    phase: Phase,
    /// Percent of one core over the second before.
    cpu: f64,
}

/// How a timed request (`/healthz`, the admin read) went.
#[derive(Clone, Debug)]
enum Health {
    Ok(Duration),
    /// Answered with another status, or the connection failed.
    Failed(String),
    TimedOut,
}

impl Health {
    /// GETs `path` (with `bearer`) and times it: anything but a `200`
    /// within `timeout` is a failure or a timeout.
    async fn check(server: &Server, path: &str, bearer: Option<&str>, timeout: Duration) -> Health {
        match http::get_as(server, path, bearer, timeout).await {
            Ok(r) if r.status == 200 => Health::Ok(r.elapsed),
            Ok(r) => Health::Failed(format!("HTTP {}", r.status)),
            Err(e) if http::is_timeout(&e) => Health::TimedOut,
            Err(e) => Health::Failed(format!("{e:#}")),
        }
    }
}

/// Timed requests of one kind, by when each was sent.
#[derive(Default)]
struct Checks(Mutex<Vec<(Instant, Health)>>);

impl Checks {
    fn push(&self, sent: Instant, health: Health) {
        self.0.lock().expect("checks lock").push((sent, health));
    }

    fn all(&self) -> Vec<(Instant, Health)> {
        self.0.lock().expect("checks lock").clone()
    }

    /// The last one, for the line of the second.
    fn last_text(&self) -> String {
        self.0.lock().expect("checks lock").last().map_or("-".into(), |(_, h)| match h {
            Health::Ok(d) => format!("{} ms", ms(Some(d.as_secs_f64() * 1000.0))),
            Health::Failed(why) => format!("FAILED ({why})"),
            Health::TimedOut => "TIMEOUT".into(),
        })
    }
}

/// The figures of one kind of timed request: latency in the baseline and
/// in the attack, failures and timeouts from the attack's start.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckFigures {
    /// Latency of the answered ones.
    pub baseline: Summary,
    /// Latency of the answered ones.
    pub attack: Summary,
    /// Failed and timed out, from the attack's start on.
    pub failures: (usize, usize),
}

/// What the monitor keeps.
pub struct Monitor {
    server: Server,
    pid: u32,
    ticks: u64,
    healthz_timeout: Duration,
    start: Instant,
    phases: Mutex<Vec<(Instant, Phase)>>,
    points: Mutex<Vec<Point>>,
    health: Checks,
    /// The admin token, for the admin read.
    admin_token: Option<String>,
    admin: Checks,
    /// The probe table's figures.
    pub probe: Arc<TableStats>,
    notes: Mutex<Vec<String>>,
    gone: AtomicBool,
}

/// The thresholds of the recovery check: CPU and probe p99 count as back
/// to the baseline below these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Percent of one core.
    pub cpu: f64,
    /// Milliseconds.
    pub p99_ms: f64,
}

impl Thresholds {
    /// From the baseline's mean CPU and probe p99: half as much again, and
    /// at least 10 points of CPU and 5 ms more (a quiet baseline is noisy
    /// in relative terms).
    pub fn from_baseline(cpu_mean: f64, p99_ms: Option<f64>) -> Thresholds {
        let p99 = p99_ms.unwrap_or(20.0);
        Thresholds { cpu: (cpu_mean * 1.5).max(cpu_mean + 10.0), p99_ms: (p99 * 1.5).max(p99 + 5.0) }
    }
}

/// Whether the server is back to its baseline: CPU and the probe's p99
/// under the [`Thresholds`] for [`RecoveryCheck::IN_A_ROW`] seconds in a
/// row, with moves answered in the window and none waiting longer.
#[derive(Clone, Debug)]
pub struct RecoveryCheck {
    limits: Thresholds,
    /// Seconds looked at.
    looks: u32,
    /// The first good second of the current run of good seconds.
    since: Option<u32>,
}

impl RecoveryCheck {
    /// Good seconds in a row that make a recovery.
    pub const IN_A_ROW: u32 = 3;

    /// A check against `limits`.
    pub fn new(limits: Thresholds) -> RecoveryCheck {
        RecoveryCheck { limits, looks: 0, since: None }
    }

    /// Whether one second is good: CPU (percent of one core) and the
    /// probe's latencies over its window under the limits, and no move
    /// waiting (milliseconds) longer than the p99 limit.
    pub fn is_good(&self, cpu: f64, probe: &Summary, oldest_waiting_ms: Option<f64>) -> bool {
        cpu < self.limits.cpu
            && probe.n > 0
            && probe.p99.is_some_and(|p| p < self.limits.p99_ms)
            && oldest_waiting_ms.is_none_or(|w| w <= self.limits.p99_ms)
    }

    /// Takes the next second's figures; once enough good seconds in a row
    /// are seen, the seconds from the check's start to the first of them.
    pub fn observe(&mut self, cpu: f64, probe: &Summary, oldest_waiting_ms: Option<f64>) -> Option<u32> {
        self.looks += 1;
        if !self.is_good(cpu, probe, oldest_waiting_ms) {
            self.since = None;
            return None;
        }
        // Look k covers the second from k - 1 to k.
        let since = *self.since.get_or_insert(self.looks - 1);
        (self.looks - since >= Self::IN_A_ROW).then_some(since)
    }
}

/// The figures of a run, for the summary table.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// CPU, percent of one core: baseline mean, peak (attack and
    /// recovery), last.
    pub cpu: (f64, f64, f64),
    /// RSS, MiB: baseline mean, peak, last.
    pub rss: (f64, f64, f64),
    /// Threads: baseline, peak, last.
    pub threads: (u64, u64, u64),
    /// Descriptors: baseline, peak, last.
    pub fds: (u64, u64, u64),
    /// Probe latency.
    pub probe_baseline: Summary,
    /// Probe latency.
    pub probe_attack: Summary,
    /// `/healthz`.
    pub health: CheckFigures,
    /// The admin read, when the admin token was given.
    pub admin: Option<CheckFigures>,
    /// Seconds from the attack's end to the recovery; `None`: not
    /// recovered in time.
    pub recovered: Option<f64>,
    /// The server process ended.
    pub server_gone: bool,
}

impl Monitor {
    /// Starts watching process `pid` of `server` (as reached from the
    /// probe address): the sampler and the probe table (four remote bots
    /// thinking `probe_think` per move); with `admin_token`, an admin read
    /// a second too.
    pub fn start(
        server: Server,
        pid: u32,
        healthz_timeout: Duration,
        probe_think: Duration,
        admin_token: Option<String>,
    ) -> Arc<Monitor> {
        let start = Instant::now();
        let monitor = Arc::new(Monitor {
            server: server.clone(),
            pid,
            ticks: crate::sys::clock_ticks(),
            healthz_timeout,
            start,
            phases: Mutex::new(vec![(start, Phase::Setup)]),
            points: Mutex::new(Vec::new()),
            health: Checks::default(),
            admin_token,
            admin: Checks::default(),
            probe: Arc::new(TableStats::default()),
            notes: Mutex::new(Vec::new()),
            gone: AtomicBool::new(false),
        });
        let probe = crate::table::TableConfig { server, name: "probe".into(), think: probe_think, record: true };
        tokio::spawn(crate::table::run(probe, monitor.probe.clone()));
        tokio::spawn(monitor.clone().sample());
        monitor
    }

    /// Enters a phase.
    pub fn set_phase(&self, phase: Phase) {
        self.phases.lock().expect("phases lock").push((Instant::now(), phase));
        println!("{:>5.0}s == {} ==", self.start.elapsed().as_secs_f64(), phase.name());
    }

    fn phase_at(&self, at: Instant) -> Phase {
        let phases = self.phases.lock().expect("phases lock");
        phases.iter().rev().find(|(t, _)| *t <= at).map_or(Phase::Setup, |&(_, p)| p)
    }

    /// When `phase` began and ended (the end: the next phase's start, or now).
    fn span(&self, phase: Phase) -> Option<(Instant, Instant)> {
        let phases = self.phases.lock().expect("phases lock");
        let i = phases.iter().position(|&(_, p)| p == phase)?;
        Some((phases[i].0, phases.get(i + 1).map_or_else(Instant::now, |&(t, _)| t)))
    }

    /// Says something an attack found; printed now and in the summary.
    pub fn note(&self, line: impl Into<String>) {
        let line = line.into();
        println!("{:>5.0}s   {line}", self.start.elapsed().as_secs_f64());
        self.notes.lock().expect("notes lock").push(line);
    }

    /// Whether the server process has ended.
    pub fn server_gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }

    /// Every second: read the process, ask `/healthz`, print a line.
    async fn sample(self: Arc<Self>) {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last: Option<Reading> = None;
        let mut probe_seen = Instant::now();
        loop {
            tick.tick().await;
            let sent = Instant::now();
            let me = self.clone();
            tokio::spawn(async move {
                let health = Health::check(&me.server, "/healthz", None, me.healthz_timeout).await;
                me.health.push(sent, health);
            });
            if self.admin_token.is_some() {
                let me = self.clone();
                tokio::spawn(async move {
                    // The admin sees private games here: an admin-authorised read.
                    let token = me.admin_token.as_deref();
                    let admin = Health::check(&me.server, "/api/games?limit=1", token, me.healthz_timeout).await;
                    me.admin.push(sent, admin);
                });
            }
            let Some(now) = procfs::read(self.pid) else {
                if !self.gone.swap(true, Ordering::Relaxed) {
                    self.note(format!("the server process {} is gone", self.pid));
                }
                continue;
            };
            let phase = self.phase_at(now.at);
            let cpu = last.map_or(0.0, |l| procfs::cpu_percent(&l, &now, self.ticks));
            if last.is_some() {
                self.points.lock().expect("points lock").push(Point { reading: now, phase, cpu });
            }
            last = Some(now);
            let probe = Summary::of(self.probe.latencies(probe_seen, now.at));
            probe_seen = now.at;
            let health = self.health.last_text();
            let admin =
                if self.admin_token.is_some() { format!(" | admin {}", self.admin.last_text()) } else { String::new() };
            let stalled = self.probe.oldest_pending().filter(|d| *d > Duration::from_secs(1));
            println!(
                "{:>5.0}s {:<8} cpu {:>5.1}%  rss {:>7.1} MiB  threads {:>3}  fds {:>5} | healthz {health}{admin} | probe {} moves p99 {} ms{}",
                self.start.elapsed().as_secs_f64(),
                phase.name(),
                cpu,
                now.rss_kib as f64 / 1024.0,
                now.threads,
                now.fds,
                probe.n,
                ms(probe.p99),
                stalled.map_or(String::new(), |d| format!(" (a move waiting {:.1} s)", d.as_secs_f64())),
            );
        }
    }

    /// Runs the baseline for `secs`, then enters the attack.
    pub async fn baseline_then_attack(&self, secs: Duration) {
        self.set_phase(Phase::Baseline);
        tokio::time::sleep(secs).await;
        self.set_phase(Phase::Attack);
    }

    fn thresholds(&self) -> Thresholds {
        let (cpu, _) = self.process_figures(Phase::Baseline);
        let probe = self.span(Phase::Baseline).map(|(a, b)| Summary::of(self.probe.latencies(a, b)));
        Thresholds::from_baseline(cpu, probe.and_then(|s| s.p99))
    }

    /// Mean CPU and RSS (MiB) of a phase.
    fn process_figures(&self, phase: Phase) -> (f64, f64) {
        let points = self.points.lock().expect("points lock");
        let of: Vec<&Point> = points.iter().filter(|p| p.phase == phase).collect();
        if of.is_empty() {
            return (0.0, 0.0);
        }
        let n = of.len() as f64;
        (
            of.iter().map(|p| p.cpu).sum::<f64>() / n,
            of.iter().map(|p| p.reading.rss_kib as f64 / 1024.0).sum::<f64>() / n,
        )
    }

    /// The recovery check: enters the recovery phase and looks once a
    /// second, up to `within`, at the last second's CPU and the probe's
    /// p99 over the last 3 s ([`RecoveryCheck`]). Returns the seconds from
    /// the attack's end to the first of the good seconds in a row.
    pub async fn recovery(&self, within: Duration) -> Option<f64> {
        self.set_phase(Phase::Recovery);
        let limits = self.thresholds();
        self.note(format!(
            "recovery means: cpu under {:.1}% and probe p99 under {} ms, {} s in a row",
            limits.cpu,
            ms(Some(limits.p99_ms)),
            RecoveryCheck::IN_A_ROW
        ));
        let mut check = RecoveryCheck::new(limits);
        for _ in 0..within.as_secs() {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if self.server_gone() {
                return None;
            }
            let now = Instant::now();
            let cpu = self.points.lock().expect("points lock").last().map_or(f64::MAX, |p| p.cpu);
            let window = Summary::of(self.probe.latencies(now - Duration::from_secs(3), now));
            let waiting = self.probe.oldest_pending().map(|d| d.as_secs_f64() * 1000.0);
            if let Some(secs) = check.observe(cpu, &window, waiting) {
                return Some(f64::from(secs));
            }
        }
        None
    }

    /// The figures of the run so far.
    pub fn figures(&self, recovered: Option<f64>) -> Figures {
        let points = self.points.lock().expect("points lock").clone();
        let after: Vec<&Point> = points.iter().filter(|p| matches!(p.phase, Phase::Attack | Phase::Recovery)).collect();
        let base: Vec<&Point> = points.iter().filter(|p| p.phase == Phase::Baseline).collect();
        let last = points.last();
        let peak_f = |f: &dyn Fn(&Point) -> f64| after.iter().map(|p| f(p)).fold(0.0, f64::max);
        let peak_u = |f: &dyn Fn(&Point) -> u64| after.iter().map(|p| f(p)).max().unwrap_or(0);
        let base_u = |f: &dyn Fn(&Point) -> u64| base.last().map_or(0, |p| f(p));
        let rss = |p: &Point| p.reading.rss_kib as f64 / 1024.0;
        let (cpu_base, rss_base) = self.process_figures(Phase::Baseline);
        let span_summary =
            |phase| self.span(phase).map_or_else(Summary::default, |(a, b)| Summary::of(self.probe.latencies(a, b)));
        Figures {
            cpu: (cpu_base, peak_f(&|p| p.cpu), last.map_or(0.0, |p| p.cpu)),
            rss: (rss_base, peak_f(&rss), last.map_or(0.0, rss)),
            threads: (
                base_u(&|p| p.reading.threads),
                peak_u(&|p| p.reading.threads),
                last.map_or(0, |p| p.reading.threads),
            ),
            fds: (base_u(&|p| p.reading.fds), peak_u(&|p| p.reading.fds), last.map_or(0, |p| p.reading.fds)),
            probe_baseline: span_summary(Phase::Baseline),
            probe_attack: span_summary(Phase::Attack),
            health: self.check_figures(&self.health),
            admin: self.admin_token.as_ref().map(|_| self.check_figures(&self.admin)),
            recovered,
            server_gone: self.server_gone(),
        }
    }

    /// The figures of one kind of timed request.
    fn check_figures(&self, checks: &Checks) -> CheckFigures {
        let all = checks.all();
        let of = |phase: Phase| {
            Summary::of(all.iter().filter(|(at, _)| self.phase_at(*at) == phase).filter_map(|(_, h)| match h {
                Health::Ok(d) => Some(*d),
                _ => None,
            }))
        };
        let attack_start = self.span(Phase::Attack).map(|(a, _)| a);
        let (mut failed, mut timed_out) = (0, 0);
        for (_, h) in all.iter().filter(|(at, _)| attack_start.is_some_and(|s| *at >= s)) {
            match h {
                Health::Failed(_) => failed += 1,
                Health::TimedOut => timed_out += 1,
                Health::Ok(_) => {}
            }
        }
        CheckFigures { baseline: of(Phase::Baseline), attack: of(Phase::Attack), failures: (failed, timed_out) }
    }

    /// The summary for people, notes included.
    pub fn summary(&self, attack: &str, f: &Figures, within: Duration) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "== summary: {attack} ==");
        let _ = writeln!(
            s,
            "server cpu %   baseline {:.1}  peak {:.1}  final {:.1}  (of one core)",
            f.cpu.0, f.cpu.1, f.cpu.2
        );
        let _ = writeln!(s, "server rss MiB baseline {:.1}  peak {:.1}  final {:.1}", f.rss.0, f.rss.1, f.rss.2);
        let _ = writeln!(s, "server threads baseline {}  peak {}  final {}", f.threads.0, f.threads.1, f.threads.2);
        let _ = writeln!(s, "server fds     baseline {}  peak {}  final {}", f.fds.0, f.fds.1, f.fds.2);
        let _ = writeln!(s, "probe move->accepted  baseline {}", f.probe_baseline);
        let _ = writeln!(s, "probe move->accepted  attack   {}", f.probe_attack);
        let probe = &self.probe;
        let _ = writeln!(
            s,
            "probe table: {} matches, {} errors, {} restarts{}",
            probe.games.load(Ordering::Relaxed),
            probe.errors.load(Ordering::Relaxed),
            probe.restarts.load(Ordering::Relaxed),
            probe
                .last_failure
                .lock()
                .expect("failure lock")
                .as_ref()
                .map_or(String::new(), |w| format!(" (last: {w})")),
        );
        let timeout = self.healthz_timeout.as_secs_f64();
        for (what, c) in std::iter::once(("healthz", &f.health)).chain(f.admin.as_ref().map(|a| ("admin  ", a))) {
            let _ = writeln!(s, "{what}        baseline {}", c.baseline);
            let _ = writeln!(s, "{what}        attack   {}", c.attack);
            let (failed, timed_out) = c.failures;
            let what = what.trim_end();
            let _ = writeln!(s, "{what} from the attack on: {failed} failed, {timed_out} timed out (> {timeout:.1} s)");
        }
        let recovered = match (f.recovered, f.server_gone) {
            (_, true) => "server gone".to_string(),
            (Some(t), _) => format!("recovered {t:.0} s after the attack stopped"),
            (None, _) => format!("not recovered within {} s", within.as_secs()),
        };
        let _ = writeln!(s, "recovery: {recovered}");
        for note in self.notes.lock().expect("notes lock").iter() {
            let _ = writeln!(s, "  - {note}");
        }
        s
    }
}

/// One line of the summary table (tab-separated): attack, cpu peak, RSS
/// peak, threads peak, fds peak, probe p99 baseline/attack and the
/// attack's slowest move (a stall that a p99 over many quick moves hides),
/// healthz failures+timeouts, admin read failures+timeouts (`-` without
/// the admin token), recovered.
pub fn table_row(attack: &str, f: &Figures) -> String {
    let recovered = match (f.recovered, f.server_gone) {
        (_, true) => "server gone".into(),
        (Some(t), _) => format!("yes {t:.0}s"),
        (None, _) => "no".into(),
    };
    let admin = f.admin.map_or("-".into(), |a| format!("{}+{}", a.failures.0, a.failures.1));
    format!(
        "{attack}\t{:.0}%\t{:.0} MiB\t{}\t{}\t{}/{} ms\t{} ms\t{}+{}\t{admin}\t{recovered}",
        f.cpu.1,
        f.rss.1,
        f.threads.1,
        f.fds.1,
        ms(f.probe_baseline.p99),
        ms(f.probe_attack.p99),
        ms(f.probe_attack.max),
        f.health.failures.0,
        f.health.failures.1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_allow_half_again_with_floors() {
        let t = Thresholds::from_baseline(40.0, Some(20.0));
        assert_eq!(t, Thresholds { cpu: 60.0, p99_ms: 30.0 });
        // A quiet baseline: the absolute floors.
        let quiet = Thresholds::from_baseline(2.0, Some(1.0));
        assert_eq!(quiet, Thresholds { cpu: 12.0, p99_ms: 6.0 });
        // No probe figures: 20 ms taken as the baseline.
        assert_eq!(Thresholds::from_baseline(0.0, None).p99_ms, 30.0);
    }

    #[test]
    fn recovery_takes_good_seconds_in_a_row() {
        let limits = Thresholds { cpu: 20.0, p99_ms: 10.0 };
        let fast = Summary { n: 40, p50: Some(1.0), p99: Some(3.0), max: Some(4.0) };
        let slow = Summary { p99: Some(50.0), ..fast };
        let none = Summary::default();
        let mut check = RecoveryCheck::new(limits);
        // Busy, then a good second broken by a slow one, then three good.
        assert_eq!(check.observe(90.0, &fast, None), None);
        assert_eq!(check.observe(5.0, &fast, None), None);
        assert_eq!(check.observe(5.0, &slow, None), None);
        assert_eq!(check.observe(5.0, &fast, None), None);
        assert_eq!(check.observe(5.0, &fast, None), None);
        // The run began with the fourth look: 3 s after the check started.
        assert_eq!(check.observe(5.0, &fast, None), Some(3));
        // A probe with no answered move, or a move waiting too long, is
        // not recovered whatever the CPU.
        let check = RecoveryCheck::new(limits);
        assert!(!check.is_good(1.0, &none, None));
        assert!(!check.is_good(1.0, &fast, Some(11.0)));
        assert!(check.is_good(1.0, &fast, Some(9.0)));
        // Good from the first look: recovered at once.
        let mut check = RecoveryCheck::new(limits);
        let looks: Vec<_> = (0..3).map(|_| check.observe(1.0, &fast, None)).collect();
        assert_eq!(looks, [None, None, Some(0)]);
    }

    #[test]
    fn a_table_row_has_every_column() {
        let f = Figures {
            cpu: (5.0, 190.4, 20.0),
            rss: (20.0, 812.6, 700.0),
            threads: (4, 9, 9),
            fds: (40, 20_012, 40),
            probe_baseline: Summary { n: 10, p50: Some(0.5), p99: Some(1.25), max: Some(2.0) },
            probe_attack: Summary { n: 10, p50: Some(3.0), p99: Some(250.0), max: Some(900.0) },
            health: CheckFigures { failures: (2, 3), ..CheckFigures::default() },
            admin: Some(CheckFigures { failures: (0, 1), ..CheckFigures::default() }),
            recovered: Some(4.0),
            ..Figures::default()
        };
        let row = table_row("idle", &f);
        assert_eq!(row, "idle\t190%\t813 MiB\t9\t20012\t1.25/250.0 ms\t900.0 ms\t2+3\t0+1\tyes 4s");
        assert!(table_row("x", &Figures::default()).ends_with("\t0+0\t-\tno"));
    }
}
