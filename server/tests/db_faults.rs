//! Database fault drills on the real `capicua-server` binary: a full disk
//! (the database on a small tmpfs, filled up), a file system that turns
//! read-only under the running server (ext4 on a loop device mounted with
//! `errors=remount-ro`, then an error triggered: what the kernel does to a
//! failing disk), and a write lock held by another process. In each the
//! server keeps playing the matches in progress, tells their players that
//! the result was not stored (`game-over` with `game: null`), logs an error,
//! counts it in `/metrics`, answers `/healthz` with 503 and the reason while
//! storing fails, stores again once the fault is gone, and never leaves a
//! match half stored.
//!
//! Mounting needs root. Without it the two mount drills print why they are
//! skipped, unless `CAPICUA_REQUIRE_MOUNT=1` (CI) makes that a failure.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use common::{Client, WAIT, http_get, play_until_over, seat_all, wait_for};
use serde_json::{Value, json};
use sqlx::{Connection, Row};

const BIN: &str = env!("CARGO_BIN_EXE_capicua-server");

/// A scratch directory under the temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("capicua-dbf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file system mounted for a drill, unmounted on drop (after the server,
/// which is declared later and so dropped first).
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let unmounted = Command::new("umount").arg(&self.0).status().is_ok_and(|s| s.success());
        if !unmounted {
            // Something still holds a file there: detach it anyway, so no
            // mount outlives the test.
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

/// Runs a mount-related command. `None` (the drill is skipped, with a
/// message) when it fails for want of rights or devices, unless
/// `CAPICUA_REQUIRE_MOUNT=1`; any other failure fails the test.
fn privileged(what: &str, cmd: &mut Command) -> Option<()> {
    let required = std::env::var("CAPICUA_REQUIRE_MOUNT").is_ok_and(|v| v == "1");
    let skip = |why: String| {
        assert!(!required, "{what}: {why} (CAPICUA_REQUIRE_MOUNT=1 requires the mount drills)");
        eprintln!("skipped: {what}: {why}; the drill needs root (mount); CAPICUA_REQUIRE_MOUNT=1 makes this a failure");
        None
    };
    match cmd.output() {
        Ok(out) if out.status.success() => Some(()),
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
            let lower = stderr.to_lowercase();
            let no_rights = ["permission denied", "operation not permitted", "must be superuser", "only root", "loop"]
                .iter()
                .any(|w| lower.contains(w));
            if no_rights {
                return skip(stderr);
            }
            panic!("{what}: {stderr}");
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => skip(format!("{e}")),
        Err(e) => panic!("{what}: {e}"),
    }
}

/// A small tmpfs at `dir`: `None` when mounting is not allowed here.
fn mount_tmpfs(dir: &Path, size: &str) -> Option<Mount> {
    privileged(
        "mount -t tmpfs",
        Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir),
    )?;
    Some(Mount(dir.to_path_buf()))
}

/// An ext4 file system in `image` (16 MiB) on a loop device at `dir`,
/// which the kernel turns read-only on its first error.
fn mount_ext4(image: &Path, dir: &Path) -> Option<Mount> {
    std::fs::File::create(image).unwrap().set_len(16 << 20).unwrap();
    privileged("mkfs.ext4", Command::new("mkfs.ext4").args(["-q", "-F"]).arg(image))?;
    mount_loop(image, dir)
}

fn mount_loop(image: &Path, dir: &Path) -> Option<Mount> {
    privileged("mount -o loop", Command::new("mount").args(["-o", "loop,errors=remount-ro"]).arg(image).arg(dir))?;
    Some(Mount(dir.to_path_buf()))
}

/// Makes the ext4 file system mounted at `dir` fail as a disk error would:
/// the kernel aborts its journal and remounts it read-only, with the
/// server's files still open for writing (`mount -o remount,ro` refuses a
/// file system with files open for writing, so it cannot play this part).
fn fail_ext4(dir: &Path) {
    let out = Command::new("findmnt").args(["-n", "-o", "SOURCE"]).arg(dir).output().expect("findmnt runs");
    let source = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let device = source.rsplit('/').next().unwrap().to_string();
    assert!(!device.is_empty(), "no device mounted at {}", dir.display());
    std::fs::write(format!("/sys/fs/ext4/{device}/trigger_fs_error"), "1").expect("trigger an ext4 error");
    let probe = std::fs::write(dir.join("probe"), "x").expect_err("the file system is read-only now");
    assert_eq!(probe.kind(), std::io::ErrorKind::ReadOnlyFilesystem, "{probe}");
}

/// A `capicua-server serve` process, killed when dropped so a failing
/// test leaves none behind.
struct Server {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Server {
    /// Serves `db` on a free port, logging to `log`, with `args` added;
    /// returns once it listens.
    async fn start(db: &Path, log: &Path, args: &[&str]) -> Server {
        let file = std::fs::File::create(log).unwrap();
        let child = Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--database"])
            .arg(db)
            .args(args)
            .env("RUST_LOG", "info")
            .env_remove("CAPICUA_DATABASE")
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("spawn the server");
        let mut server = Server { child, addr: "0.0.0.0:0".parse().unwrap(), log: log.to_path_buf() };
        let addr = wait_for("the server to listen", WAIT, async || {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("the server exited ({status}): {}", server.log());
            }
            let log = server.log();
            let addr =
                log.lines().find_map(|l| l.split("listening on http://").nth(1)?.split(' ').next()?.parse().ok());
            addr.ok_or(())
        })
        .await;
        server.addr = addr;
        server
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Two greeted guests.
    async fn guests(&self) -> Vec<Client> {
        let mut out = Vec::new();
        for _ in 0..2 {
            let mut c = Client::connect(&format!("ws://{}/ws", self.addr)).await;
            c.hello(None).await;
            out.push(c);
        }
        out
    }

    /// `GET /healthz`: (status, body).
    async fn healthz(&self) -> (u16, String) {
        http_get(self.addr, "/healthz").await
    }

    /// A counter of `/metrics`.
    async fn metric(&self, name: &str) -> i64 {
        let (status, text) = http_get(self.addr, "/metrics").await;
        assert_eq!(status, 200);
        let line = text.lines().find(|l| l.split(' ').next() == Some(name)).unwrap_or_else(|| panic!("no {name}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    /// `capicua-server health` against this server: (success, stderr).
    async fn health_probe(&self) -> (bool, String) {
        let url = format!("http://{}/healthz", self.addr);
        tokio::task::spawn_blocking(move || {
            let out = Command::new(BIN).args(["health", "--url", &url]).output().unwrap();
            (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
        })
        .await
        .unwrap()
    }

    /// Asserts that the server reports storing as failing with one of
    /// `reasons`, everywhere an operator looks: `/healthz`, the health
    /// probe, the `games_store_failed` counter (`failed` so far), an error
    /// in its log.
    async fn assert_reports(&self, reasons: &[&str], failed: i64) {
        let (status, body) = self.healthz().await;
        assert_eq!(status, 503, "{body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["status"], "degraded", "{body}");
        let database = body["database"].as_str().unwrap_or_default();
        let reason = reasons
            .iter()
            .find(|r| database == format!("storing finished matches failed: {r}"))
            .unwrap_or_else(|| panic!("not one of {reasons:?}: {body}"));
        assert!(body["since"].as_i64().is_some_and(|s| s > 1_700_000_000), "{body}");
        let (ok, stderr) = self.health_probe().await;
        assert!(!ok, "the probe passed a degraded server");
        assert!(stderr.contains("HTTP status 503") && stderr.contains(reason), "{stderr}");
        assert_eq!(self.metric("capicua_games_store_failed_total").await, failed);
        let log = self.log();
        let logged =
            log.lines().any(|l| l.contains("ERROR") && l.contains("storing a finished match") && l.contains(reason));
        assert!(logged, "no error logged for the lost match:\n{log}");
    }

    async fn assert_healthy(&self) {
        assert_eq!(self.healthz().await, (200, "ok".to_string()));
        assert!(self.health_probe().await.0);
    }

    /// SIGTERM, then waits for the process to end: its exit status.
    async fn stop(mut self) -> ExitStatus {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = wait_for("the server to exit", WAIT, async || self.child.try_wait().unwrap().ok_or(())).await;
        let log = self.log();
        assert!(!log.contains("panicked"), "the server panicked:\n{log}");
        status
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Plays the match in progress in `room` to its end; returns the players
/// and the stored game's id as `game-over` told them (`None`: not stored).
async fn play(clients: Vec<Client>, room: u64) -> (Vec<Client>, Option<i64>) {
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(play_until_over(c, room, i as u64 * 7919 + 1)))
        .collect();
    let mut out = Vec::new();
    let mut games = Vec::new();
    for t in tasks {
        let (c, over) = t.await.expect("player task");
        assert!(over["game"].is_null() || over["game"].is_i64(), "{over}");
        games.push(over["game"].as_i64());
        out.push(c);
    }
    assert!(games.windows(2).all(|w| w[0] == w[1]), "players heard different games: {games:?}");
    (out, games[0])
}

/// The players say ready again: the room's next match starts.
async fn again(clients: &mut [Client], room: u64) {
    for c in clients.iter_mut() {
        c.ready(room).await;
    }
}

/// A new room of two guests with its first match started.
async fn new_match(server: &Server) -> (Vec<Client>, u64) {
    let mut clients = server.guests().await;
    let room = seat_all(&mut clients, json!({"preset": "block", "seats": 2})).await;
    (clients, room)
}

/// Checks the stopped server's database: sound, holding exactly the
/// games `stored` that players were told about, each whole (its seats and
/// hands), and no row of a game that is not there.
async fn assert_nothing_half(db: &Path, stored: &[i64]) {
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    let check: String = sqlx::query("PRAGMA integrity_check").fetch_one(&mut conn).await.unwrap().get(0);
    assert_eq!(check, "ok");
    assert!(sqlx::query("PRAGMA foreign_key_check").fetch_all(&mut conn).await.unwrap().is_empty());
    let ids: Vec<i64> = sqlx::query("SELECT id FROM games ORDER BY id")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(ids, stored, "the games stored are the games announced");
    let partial: i64 = sqlx::query(
        "SELECT COUNT(*) FROM games g JOIN rooms r ON r.id = g.room_id WHERE \
         (SELECT COUNT(*) FROM game_seats s WHERE s.game_id = g.id) != r.seats \
         OR (SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id) != g.hands OR g.hands < 1",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap()
    .get(0);
    assert_eq!(partial, 0, "a stored game lacks seats or hands");
    let orphans: i64 = sqlx::query(
        "SELECT (SELECT COUNT(*) FROM game_seats WHERE game_id NOT IN (SELECT id FROM games)) \
         + (SELECT COUNT(*) FROM hands WHERE game_id NOT IN (SELECT id FROM games))",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap()
    .get(0);
    assert_eq!(orphans, 0, "rows of a game that was not stored");
    conn.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_loses_only_the_results_it_cannot_hold_and_storing_resumes_when_space_is_freed() {
    let scratch = Scratch::new("full");
    let dir = scratch.0.join("disk");
    std::fs::create_dir_all(&dir).unwrap();
    let Some(_mount) = mount_tmpfs(&dir, "2m") else { return };
    let db = dir.join("capicua.db");
    let server = Server::start(&db, &scratch.0.join("server.log"), &["--store-retry-ms", "300"]).await;

    let (clients, room) = new_match(&server).await;
    let (mut clients, first) = play(clients, room).await;
    let first = first.expect("stored while there is room");
    server.assert_healthy().await;

    // A match is in play when the disk fills up.
    again(&mut clients, room).await;
    let filler = dir.join("filler");
    let full = {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0u8; 64 << 10];
        loop {
            if let Err(e) = f.write_all(&chunk).and_then(|()| f.flush()) {
                break e;
            }
        }
    };
    assert_eq!(full.kind(), std::io::ErrorKind::StorageFull, "{full}");
    let (mut clients, lost) = play(clients, room).await;
    assert_eq!(lost, None, "a full disk cannot have stored the match");
    server.assert_reports(&["database or disk is full"], 1).await;

    // The room plays on: its next match is played out, and lost too (a
    // connection whose transaction SQLite rolled back by itself is not
    // reused: it would hold the write lock and lock every later store out).
    again(&mut clients, room).await;
    let (mut clients, lost) = play(clients, room).await;
    assert_eq!(lost, None);
    server.assert_reports(&["database or disk is full"], 2).await;

    // Space comes back: the next match is stored, and the server is healthy.
    std::fs::remove_file(&filler).unwrap();
    again(&mut clients, room).await;
    let (_clients, last) = play(clients, room).await;
    let last = last.unwrap_or_else(|| panic!("not stored once there is room again:\n{}", server.log()));
    server.assert_healthy().await;

    assert!(server.stop().await.success());
    assert_nothing_half(&db, &[first, last]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_system_turned_read_only_loses_results_cleanly_and_serve_refuses_to_start_on_one() {
    let scratch = Scratch::new("ro");
    let dir = scratch.0.join("disk");
    std::fs::create_dir_all(&dir).unwrap();
    let image = scratch.0.join("disk.img");
    let Some(mount) = mount_ext4(&image, &dir) else { return };
    let db = dir.join("capicua.db");
    let log = scratch.0.join("server.log");
    let server = Server::start(&db, &log, &["--store-retry-ms", "300"]).await;

    let (clients, room) = new_match(&server).await;
    let (mut clients, first) = play(clients, room).await;
    let first = first.expect("stored while the file system is writable");
    // With `synchronous=NORMAL` a commit is on disk once the kernel writes
    // it back; an aborted journal drops what it has not, as an OS crash
    // would. The drill is about what happens next: write it back now.
    assert!(Command::new("sync").arg("-f").arg(&db).status().unwrap().success());

    again(&mut clients, room).await;
    fail_ext4(&dir);
    let (mut clients, lost) = play(clients, room).await;
    assert_eq!(lost, None, "a read-only file system cannot have stored the match");
    // SQLite names it by where the write failed: the open connection's
    // write to its WAL file, or a fresh connection that could open the file
    // for reading only.
    let reasons = ["attempt to write a readonly database", "disk I/O error"];
    server.assert_reports(&reasons, 1).await;
    again(&mut clients, room).await;
    let (_clients, lost) = play(clients, room).await;
    assert_eq!(lost, None);
    server.assert_reports(&reasons, 2).await;
    assert!(server.stop().await.success(), "the server shuts down cleanly on a read-only file system");

    // The operator's repair: unmount, check, mount again.
    drop(mount);
    let fsck = Command::new("e2fsck").args(["-f", "-y"]).arg(&image).output().expect("e2fsck runs");
    assert!(fsck.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&fsck.stdout));
    let Some(mount) = mount_loop(&image, &dir) else { return };
    assert_nothing_half(&db, &[first]).await;

    // A server on the repaired file system stores again.
    let server = Server::start(&db, &log, &[]).await;
    let (clients, room) = new_match(&server).await;
    let (_clients, next) = play(clients, room).await;
    let next = next.expect("stored on the repaired file system");
    assert_eq!(next, first + 1, "the lost matches took no ids");
    assert!(server.stop().await.success());
    assert_nothing_half(&db, &[first, next]).await;

    // On a read-only file system `serve` refuses to start, in one line,
    // and the commands that only read still work.
    assert!(Command::new("mount").args(["-o", "remount,ro"]).arg(&dir).status().unwrap().success());
    let out = tokio::task::spawn_blocking({
        let db = db.clone();
        move || {
            Command::new(BIN)
                .args(["serve", "--listen", "127.0.0.1:0", "--database"])
                .arg(&db)
                .env_remove("CAPICUA_DATABASE")
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [format!(
            "error: the database {} is on a read-only file system: serve needs to write it (it stores every \
             finished match), so it does not start; `standings` and `tournament list` read such a database",
            db.display()
        )],
        "{stderr}"
    );
    let standings = Command::new(BIN).args(["standings", "--database"]).arg(&db).output().unwrap();
    assert!(standings.status.success(), "{}", String::from_utf8_lossy(&standings.stderr));
    drop(mount);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_lock_held_elsewhere_is_waited_out_within_the_retries_and_reported_beyond_them() {
    let scratch = Scratch::new("locked");
    let db = scratch.0.join("capicua.db");
    let server =
        Server::start(&db, &scratch.0.join("server.log"), &["--db-busy-ms", "100", "--store-retry-ms", "3000"]).await;
    let (clients, room) = new_match(&server).await;
    let (mut clients, first) = play(clients, room).await;
    let first = first.expect("stored");

    // Another process takes the write lock (in WAL mode readers go on).
    let mut other = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE").execute(&mut other).await.unwrap();

    // Released while the writer retries: the match is stored, late.
    again(&mut clients, room).await;
    let playing = tokio::spawn(play(clients, room));
    let degraded = wait_for("the first failed attempt", WAIT, async || {
        let (status, body) = server.healthz().await;
        if status == 503 { Ok(body) } else { Err((status, body)) }
    })
    .await;
    assert!(degraded.contains("storing finished matches failed: database is locked"), "{degraded}");
    assert!(!playing.is_finished(), "the players heard before the retries were spent");
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    let (mut clients, second) = playing.await.unwrap();
    let second = second.expect("stored once the lock went, within the retries");
    server.assert_healthy().await;
    assert_eq!(server.metric("capicua_games_store_failed_total").await, 0);

    // Held past the retries: the match is lost, and reported.
    sqlx::query("BEGIN IMMEDIATE").execute(&mut other).await.unwrap();
    again(&mut clients, room).await;
    let (mut clients, lost) = play(clients, room).await;
    assert_eq!(lost, None);
    server.assert_reports(&["database is locked"], 1).await;
    assert!(server.log().contains("retrying"), "the writer retried before giving up");

    // The lock goes: storing works again.
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    other.close().await.unwrap();
    again(&mut clients, room).await;
    let (_clients, last) = play(clients, room).await;
    let last = last.expect("stored after the lock went");
    server.assert_healthy().await;

    assert!(server.stop().await.success());
    assert_nothing_half(&db, &[first, second, last]).await;
}
