//! What `/proc` says about the server process: CPU time, resident memory,
//! threads and open descriptors.

use std::time::Instant;

/// One reading of a process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// When it was read.
    pub at: Instant,
    /// User plus system CPU time, in clock ticks.
    pub cpu_ticks: u64,
    /// Resident memory, KiB.
    pub rss_kib: u64,
    /// Threads.
    pub threads: u64,
    /// Open descriptors (entries of `/proc/PID/fd`).
    pub fds: u64,
}

/// User plus system CPU time (fields 14 and 15) of a `/proc/PID/stat`
/// line, in clock ticks. The command name (field 2) is in parentheses and
/// may hold spaces and parentheses itself, so the fields are counted from
/// the last `)`.
pub fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) is index 0, so field N is N - 3.
    let mut fields = rest.split_whitespace().skip(14 - 3);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// A numeric field of `/proc/PID/status` (`VmRSS:` in kB, `Threads:`).
pub fn status_field(status: &str, key: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// CPU used between two readings, in percent of one core (200% is both
/// cores of a 2-core machine busy).
pub fn cpu_percent(before: &Reading, after: &Reading, ticks_per_sec: u64) -> f64 {
    let secs = after.at.duration_since(before.at).as_secs_f64();
    if secs <= 0.0 || ticks_per_sec == 0 {
        return 0.0;
    }
    after.cpu_ticks.saturating_sub(before.cpu_ticks) as f64 / ticks_per_sec as f64 / secs * 100.0
}

/// Reads process `pid` now; `None` once it is gone.
pub fn read(pid: u32) -> Option<Reading> {
    let at = Instant::now();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    Some(Reading {
        at,
        cpu_ticks: stat_cpu_ticks(&stat)?,
        rss_kib: status_field(&status, "VmRSS").unwrap_or(0),
        threads: status_field(&status, "Threads").unwrap_or(0),
        fds: count_fds(&format!("/proc/{pid}/fd")).unwrap_or(0),
    })
}

/// Open descriptors of this process.
pub fn own_fds() -> u64 {
    count_fds("/proc/self/fd").unwrap_or(0)
}

fn count_fds(dir: &str) -> Option<u64> {
    Some(std::fs::read_dir(dir).ok()?.count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cpu_ticks_are_counted_after_the_command_name() {
        // A name with spaces and a parenthesis, as a thread may have.
        let stat = "4242 (capicua (srv) x) S 1 4242 4242 0 -1 4194560 2619 0 0 0 1234 567 0 0 20 0 9 0 123 456 789";
        assert_eq!(stat_cpu_ticks(stat), Some(1234 + 567));
        assert_eq!(stat_cpu_ticks("4242 (x) S 1 2"), None);
        assert_eq!(stat_cpu_ticks("no name here"), None);
    }

    #[test]
    fn status_fields_are_read_by_key() {
        let status = "Name:\tcapicua-server\nVmPeak:\t  999 kB\nVmRSS:\t  123456 kB\nThreads:\t7\n";
        assert_eq!(status_field(status, "VmRSS"), Some(123_456));
        assert_eq!(status_field(status, "Threads"), Some(7));
        assert_eq!(status_field(status, "VmSwap"), None);
        // `VmRSS` must not match a key it is the start of.
        assert_eq!(status_field("VmRSSx:\t5 kB\n", "VmRSS"), None);
    }

    #[test]
    fn cpu_percent_is_of_one_core() {
        let t0 = Instant::now();
        let r = |at, cpu_ticks| Reading { at, cpu_ticks, rss_kib: 0, threads: 0, fds: 0 };
        let (a, b) = (r(t0, 1000), r(t0 + Duration::from_secs(2), 1300));
        // 300 ticks at 100 a second over 2 s: 1.5 cores.
        assert!((cpu_percent(&a, &b, 100) - 150.0).abs() < 1e-9);
        assert_eq!(cpu_percent(&a, &a, 100), 0.0);
    }

    #[test]
    fn this_process_can_be_read() {
        let me = read(std::process::id()).expect("/proc/self");
        assert!(me.threads >= 1 && me.fds >= 1 && me.rss_kib > 0, "{me:?}");
    }
}
