#![doc = include_str!("../README.md")]

use std::fs;
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use sqlx::{Connection, PgConnection};

/// Where Debian installs each major version's server binaries.
const PG_ROOT: &str = "/usr/lib/postgresql";
/// The superuser `initdb` creates; `-A trust` lets it in without a password.
const USER: &str = "capicua";
/// How long a starting server may take to accept connections.
const START_DEADLINE: Duration = Duration::from_secs(30);
/// Prefix of the per-process directories under the temp dir.
const DIR_PREFIX: &str = "capicua-pgtest-";

/// The environment variable that turns a missing PostgreSQL into a failure.
pub const REQUIRE_ENV: &str = "CAPICUA_REQUIRE_POSTGRES";

/// A PostgreSQL server owned by this test process, on 127.0.0.1.
#[derive(Debug)]
pub struct PgServer {
    port: u16,
    dir: PathBuf,
    next_db: AtomicU64,
}

impl PgServer {
    /// The TCP port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory holding the cluster (`data/`), its socket and its log
    /// (`postgres.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of database `name` on this server, as the superuser.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a new empty database with a name no other call in this
    /// process returns, and returns its URL
    /// (`postgres://capicua@127.0.0.1:PORT/NAME`). Safe from any thread, in
    /// or out of an async runtime (it blocks the calling thread).
    ///
    /// # Panics
    ///
    /// When the server does not create it.
    pub fn fresh_database(&self) -> String {
        let name = format!("test_{}", self.next_db.fetch_add(1, Ordering::Relaxed));
        let admin = self.url("postgres");
        let created = block_on_own_thread(async {
            let mut conn = PgConnection::connect(&admin).await?;
            // The name is ours (letters, digits, `_`): nothing to quote.
            sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut conn).await?;
            conn.close().await
        });
        if let Err(e) = created {
            panic!("PostgreSQL on port {} did not create database {name}: {e}", self.port);
        }
        self.url(&name)
    }
}

/// The test process's PostgreSQL server, started on the first call.
///
/// `None` when PostgreSQL is not installed (no
/// `/usr/lib/postgresql/*/bin/postgres`).
///
/// # Panics
///
/// When PostgreSQL is not installed and `CAPICUA_REQUIRE_POSTGRES=1`, or
/// when it is installed but the server does not start (every call panics
/// then, with the same reason).
pub fn server() -> Option<&'static PgServer> {
    static SERVER: OnceLock<Result<Option<PgServer>, String>> = OnceLock::new();
    let started = SERVER.get_or_init(|| match bin_dir() {
        None => Ok(None),
        Some(bin) => start(&bin).map(Some),
    });
    match started {
        Ok(Some(server)) => Some(server),
        Ok(None) => {
            assert!(!required(), "PostgreSQL is not installed (no {PG_ROOT}/*/bin/postgres) and {REQUIRE_ENV}=1");
            None
        }
        Err(e) => panic!("PostgreSQL did not start: {e}"),
    }
}

/// [`server`] for a test that needs it: when PostgreSQL is missing (and not
/// required), prints that `test` is skipped and returns `None`.
pub fn require(test: &str) -> Option<&'static PgServer> {
    let server = server();
    if server.is_none() {
        eprintln!(
            "skipped: {test}: PostgreSQL is not installed (apt-get install postgresql); \
             {REQUIRE_ENV}=1 makes this a failure"
        );
    }
    server
}

fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}

/// The `bin` directory of the highest installed major version.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(PG_ROOT)
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let major = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            (bin.join("postgres").is_file() && bin.join("initdb").is_file()).then_some((major, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// The user and group the server runs as: the `postgres` user when this
/// process is root (the server refuses root), else `None` (this process's).
fn run_as() -> Result<Option<(u32, u32)>, String> {
    if !sys::is_root() {
        return Ok(None);
    }
    let id = |flag: &str| -> Result<u32, String> {
        let out =
            Command::new("id").args([flag, "postgres"]).output().map_err(|e| format!("id {flag} postgres: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "running as root, and PostgreSQL refuses root, but there is no `postgres` user to run it as: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        String::from_utf8_lossy(&out.stdout).trim().parse().map_err(|e| format!("id {flag} postgres: {e}"))
    };
    Ok(Some((id("-u")?, id("-g")?)))
}

/// A command that runs as `user` (when given) and gets SIGQUIT (the
/// server's immediate shutdown) when the thread that spawned it exits.
fn command(program: &Path, user: Option<(u32, u32)>, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    // The test's working directory may be closed to the `postgres` user.
    cmd.current_dir(dir).env_remove("PGDATA").env("LC_ALL", "C");
    if let Some((uid, gid)) = user {
        // std drops the supplementary groups, then sets the group and user,
        // all before the hook below runs.
        cmd.uid(uid).gid(gid);
    }
    sys::die_with_parent(&mut cmd);
    cmd
}

fn start(bin: &Path) -> Result<PgServer, String> {
    remove_dead_dirs();
    let user = run_as()?;
    let dir = new_dir()?;
    if let Some((uid, gid)) = user {
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(|e| format!("chown {}: {e}", dir.display()))?;
    }
    let data = dir.join("data");
    let out = command(&bin.join("initdb"), user, &dir)
        .arg("-D")
        .arg(&data)
        .args(["-A", "trust", "-U", USER, "--no-sync", "-E", "UTF8", "--locale=C"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", bin.join("initdb").display()))?;
    if !out.status.success() {
        return Err(format!(
            "initdb -D {} failed ({}): {}{}",
            data.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Another process may take the free port before the server binds it:
    // then the server exits at once and another port is tried.
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port()?;
        match run_postmaster(bin, user, &dir, port)? {
            Started::Ready => return Ok(PgServer { port, dir, next_db: AtomicU64::new(0) }),
            Started::PortTaken(log) => last = log,
        }
    }
    Err(format!("no free port could be bound; last log:\n{last}"))
}

enum Started {
    Ready,
    PortTaken(String),
}

/// Starts the postmaster and waits until it accepts connections.
fn run_postmaster(bin: &Path, user: Option<(u32, u32)>, dir: &Path, port: u16) -> Result<Started, String> {
    let log_path = dir.join("postgres.log");
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("{}: {e}", log_path.display()))?;
    let mut cmd = command(&bin.join("postgres"), user, dir);
    cmd.arg("-D").arg(dir.join("data")).arg("-k").arg(dir).args(["-h", "127.0.0.1", "-p", &port.to_string()]);
    for setting in ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300"] {
        cmd.args(["-c", setting]);
    }
    cmd.stdin(Stdio::null()).stdout(log.try_clone().map_err(|e| format!("{}: {e}", log_path.display()))?).stderr(log);

    // The parent-death signal fires when the *thread* that forked the child
    // exits, so the postmaster is spawned from a thread that lives as long as
    // the postmaster does: it waits for it, and reports its exit.
    let (spawned_tx, spawned_rx) = mpsc::channel::<io::Result<()>>();
    let (exited_tx, exited_rx) = mpsc::channel::<io::Result<ExitStatus>>();
    std::thread::Builder::new()
        .name(format!("postgres-{port}"))
        .spawn(move || {
            let mut child: Child = match cmd.spawn() {
                Ok(child) => child,
                Err(e) => {
                    let _ = spawned_tx.send(Err(e));
                    return;
                }
            };
            let _ = spawned_tx.send(Ok(()));
            let _ = exited_tx.send(child.wait());
        })
        .map_err(|e| format!("thread for postgres: {e}"))?;
    spawned_rx
        .recv()
        .map_err(|e| format!("thread for postgres: {e}"))?
        .map_err(|e| format!("{}: {e}", bin.join("postgres").display()))?;

    let url = format!("postgres://{USER}@127.0.0.1:{port}/postgres");
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        if let Ok(status) = exited_rx.try_recv() {
            let log = fs::read_to_string(&log_path).unwrap_or_default();
            if log.contains("could not bind") || log.contains("Address already in use") {
                return Ok(Started::PortTaken(log));
            }
            return Err(format!("postgres exited ({status:?}) before accepting connections; its log:\n{log}"));
        }
        let attempt = block_on_own_thread(async {
            let conn = PgConnection::connect(&url).await?;
            conn.close().await
        });
        match attempt {
            Ok(()) => return Ok(Started::Ready),
            Err(e) if Instant::now() > deadline => {
                let log = fs::read_to_string(&log_path).unwrap_or_default();
                return Err(format!(
                    "postgres on port {port} did not accept connections within {START_DEADLINE:?} ({e}); its log:\n{log}"
                ));
            }
            // Polling: the next attempt goes as soon as this pause is over.
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Runs `fut` to completion on a runtime of its own, on a thread of its
/// own, so that the caller may or may not be inside a runtime already.
fn block_on_own_thread<T: Send>(fut: impl Future<Output = Result<T, sqlx::Error>> + Send) -> Result<T, String> {
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
            rt.block_on(async {
                match tokio::time::timeout(Duration::from_secs(30), fut).await {
                    Ok(result) => result.map_err(|e| e.to_string()),
                    Err(_) => Err("no answer within 30 s".to_owned()),
                }
            })
        })
        .join()
        .unwrap_or_else(|_| Err("the connecting thread panicked".to_owned()))
    })
}

/// A port nothing listens on right now.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("bind 127.0.0.1:0: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// A new directory for this process's cluster, open to the server's user
/// only once chowned.
fn new_dir() -> Result<PathBuf, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{DIR_PREFIX}{}-{n}", std::process::id()));
    // A directory of a dead process that had this pid.
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Removes the directories of test processes that are gone (their servers
/// died with them).
fn remove_dead_dirs() {
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)).and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The crate's only unsafe code: two libc calls.
#[allow(unsafe_code)]
mod sys {
    use std::io;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// Whether this process runs with root's effective user id.
    pub(super) fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    /// Has the child get SIGQUIT when the thread that spawned it exits.
    pub(super) fn die_with_parent(cmd: &mut Command) {
        let parent = std::process::id();
        // SAFETY: the hook runs in the forked child before exec and only
        // makes async-signal-safe system calls (prctl, getppid), touching
        // no memory shared with the parent. std runs it after changing the
        // user and group: the kernel clears the parent-death signal on
        // such a change, so it must be set afterwards.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGQUIT as libc::c_ulong) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent died before the signal was armed.
                if libc::getppid() as u32 != parent {
                    return Err(io::Error::other("the test process exited"));
                }
                Ok(())
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_fresh_databases_are_distinct_and_reachable() {
        let Some(server) = require("two_fresh_databases_are_distinct_and_reachable") else { return };
        let a = server.fresh_database();
        let b = server.fresh_database();
        assert_ne!(a, b);
        for url in [&a, &b] {
            let name = block_on_own_thread(async {
                let mut conn = PgConnection::connect(url).await?;
                let name: String = sqlx::query_scalar("SELECT current_database()").fetch_one(&mut conn).await?;
                // Empty: no table of anyone else's.
                let tables: i64 =
                    sqlx::query_scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
                        .fetch_one(&mut conn)
                        .await?;
                sqlx::query("CREATE TABLE mine (x BIGINT)").execute(&mut conn).await?;
                conn.close().await?;
                Ok((name, tables))
            })
            .unwrap();
            assert_eq!(url.rsplit('/').next(), Some(name.0.as_str()));
            assert_eq!(name.1, 0, "{url} is not empty");
        }
        // The same server serves every caller.
        assert!(std::ptr::eq(server, super::server().unwrap()));
    }

    /// Set in the child process of `the_server_dies_with_its_process`.
    const CHILD_ENV: &str = "CAPICUA_PGTEST_CHILD";

    #[test]
    fn the_server_dies_with_its_process() {
        let test = "tests::the_server_dies_with_its_process";
        if std::env::var_os(CHILD_ENV).is_some() {
            // The child: start a server, say which process it is, and exit
            // without stopping it.
            let server = server().unwrap();
            let pid_file = fs::read_to_string(server.dir().join("data/postmaster.pid")).unwrap();
            println!("postmaster pid: {}", pid_file.lines().next().unwrap());
            return;
        }
        if bin_dir().is_none() {
            assert!(!required(), "PostgreSQL is not installed and {REQUIRE_ENV}=1");
            eprintln!("skipped: {test}: PostgreSQL is not installed");
            return;
        }
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
        // The harness prints the test's name on the same line.
        let pid: u32 = stdout
            .split("postmaster pid: ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|pid| pid.parse().ok())
            .unwrap_or_else(|| panic!("no pid in {stdout}"));
        // Gone, or a zombie nobody has reaped yet: either way it serves no more.
        let alive = || {
            fs::read_to_string(format!("/proc/{pid}/status"))
                .is_ok_and(|status| !status.lines().any(|l| l.starts_with("State:") && l.contains('Z')))
        };
        let deadline = Instant::now() + START_DEADLINE;
        while alive() {
            assert!(Instant::now() < deadline, "postgres {pid} outlived its test process by {START_DEADLINE:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn databases_from_parallel_threads() {
        let Some(server) = require("databases_from_parallel_threads") else { return };
        let urls: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| server.fresh_database())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut unique = urls.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), urls.len());
    }
}
