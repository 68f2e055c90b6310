//! `--database` guards, run as processes: readers never create, migrate or
//! alter a file; writers refuse another program's file untouched; `serve`
//! binds before it opens.

mod common;

use std::path::Path;
use std::process::Command;
use std::str::FromStr;

use common::temp_db;
use sha2::{Digest, Sha256};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

fn capicua_server() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capicua-server"));
    c.env("RUST_LOG", "warn").env_remove("CAPICUA_ALLOW_FOREIGN_TABLES").env_remove("CAPICUA_DATABASE");
    c
}

/// Runs `args` to the end: (exit success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let out = capicua_server().args(args).output().expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The file and the `-wal`/`-shm` files SQLite may leave beside it.
fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
}

/// Runs SQL on a plain (rollback-journal) SQLite file, created if missing:
/// another program's database.
async fn sql(path: &Path, statements: &[&str]) {
    let opts = SqliteConnectOptions::from_str(path.to_str().unwrap()).unwrap().create_if_missing(true);
    let mut conn = SqliteConnection::connect_with(&opts).await.unwrap();
    for s in statements {
        sqlx::query(s).execute(&mut conn).await.unwrap();
    }
    conn.close().await.unwrap();
}

/// The newest migration recorded in a database.
async fn latest_migration(path: &Path) -> i64 {
    let opts = SqliteConnectOptions::from_str(path.to_str().unwrap()).unwrap();
    let mut conn = SqliteConnection::connect_with(&opts).await.unwrap();
    let v: i64 = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations").fetch_one(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    v
}

/// A capicua database with one registered player, closed.
async fn capicua_db() -> std::path::PathBuf {
    let path = temp_db();
    let db = capicua_server::Db::open(path.to_str().unwrap()).await.unwrap();
    db.register("ana").await.unwrap();
    db.close().await;
    path
}

#[test]
fn readers_refuse_a_missing_file_and_create_none() {
    let path = temp_db();
    let db = path.to_str().unwrap();
    for args in [
        vec!["standings", "--database", db],
        vec!["standings", "--database", db, "--tournament", "1"],
        vec!["tournament", "list", "--database", db],
    ] {
        let (ok, stdout, stderr) = run(&args);
        assert!(!ok, "{args:?}: {stdout}");
        assert_eq!(stderr.trim(), format!("error: no database at {db} (serve creates one; check --database)"));
        assert!(!path.exists(), "{args:?} created {db}");
    }
}

#[tokio::test]
async fn readers_work_on_a_read_only_file_and_change_nothing() {
    let path = capicua_db().await;
    let db = path.to_str().unwrap();
    let before = sha256(&path);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o444);
    std::fs::set_permissions(&path, perms).unwrap();
    let (ok, stdout, stderr) = run(&["standings", "--database", db]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no rated games yet");
    let (ok, stdout, stderr) = run(&["tournament", "list", "--database", db]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no tournaments");
    assert_eq!(sha256(&path), before);
    // What readers open is read-only even where the file's mode would allow
    // writing (as root, 0444 allows it).
    let reader = capicua_server::Db::open_read_only(db).await.unwrap();
    let write = sqlx::query("INSERT INTO players (name, created_at) VALUES ('eve', 0)").execute(reader.pool()).await;
    assert!(write.is_err(), "a read-only open wrote");
    reader.close().await;
    assert_eq!(sha256(&path), before);
    remove_db(&path);
}

#[tokio::test]
async fn readers_refuse_a_schema_that_is_not_this_binarys() {
    // No migrations at all: another program's file, or an empty one.
    let other = temp_db();
    sql(&other, &["CREATE TABLE notes (x)"]).await;
    let (ok, _, stderr) = run(&["standings", "--database", other.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("not a capicua database"), "{stderr}");
    remove_db(&other);
    // Newer: a migration this binary does not know.
    let path = capicua_db().await;
    let db = path.to_str().unwrap();
    sql(&path, &["INSERT INTO _sqlx_migrations VALUES (9999, 'future', 0, 1, x'00', 0)"]).await;
    let (ok, _, stderr) = run(&["tournament", "list", "--database", db]);
    assert!(!ok);
    assert!(stderr.contains("schema is at migration 9999, newer than this capicua-server knows"), "{stderr}");
    // Serving it is refused too, before anything is written.
    let before = sha256(&path);
    let (ok, _, stderr) = run(&["serve", "--listen", "127.0.0.1:0", "--database", db]);
    assert!(!ok);
    assert!(stderr.contains("newer than this capicua-server knows"), "{stderr}");
    assert_eq!(sha256(&path), before);
    // Older: the latest migration not applied yet; a reader cannot migrate.
    sql(&path, &["DELETE FROM _sqlx_migrations WHERE version = 9999"]).await;
    let latest = latest_migration(&path).await;
    sql(&path, &[&format!("DELETE FROM _sqlx_migrations WHERE version = {latest}")]).await;
    let (ok, _, stderr) = run(&["standings", "--database", db]);
    assert!(!ok);
    let previous = latest_migration(&path).await;
    let want = format!("schema is at migration {previous}, this capicua-server expects {latest}");
    assert!(stderr.contains(&want), "{stderr}");
    assert!(stderr.contains("capicua-server serve"), "{stderr}");
    remove_db(&path);
}

#[tokio::test]
async fn writers_refuse_foreign_tables_without_touching_the_file() {
    let path = temp_db();
    let db = path.to_str().unwrap();
    sql(&path, &["CREATE TABLE invoices (id)", "CREATE TABLE customers (id)", "CREATE TABLE players (id)"]).await;
    let before = sha256(&path);
    for args in [vec!["serve", "--listen", "127.0.0.1:0", "--database", db], vec!["register", "ana", "--database", db]]
    {
        let (ok, stdout, stderr) = run(&args);
        assert!(!ok, "{args:?}: {stdout}");
        // `players` is named like ours, but no migration of ours made it.
        assert!(stderr.contains("tables that are not capicua's: customers, invoices, players;"), "{stderr}");
        assert!(stderr.contains("--allow-foreign-tables"), "{stderr}");
        // Byte for byte: no migration, no switch to WAL.
        assert_eq!(sha256(&path), before, "{args:?} changed the file");
    }
    // A tournament file is read first; the database is refused all the same.
    let spec = std::env::temp_dir().join(format!("capicua-guard-{}.toml", std::process::id()));
    std::fs::write(&spec, "name = \"cup\"\ntable = \"duel\"\nvariants = [\"block\"]\nentrants = [\"bot:random\", \"bot:heuristic\"]\n[[stages]]\nformat = \"knockout\"\n").unwrap();
    let (ok, _, stderr) = run(&["tournament", "create", "--database", db, "--file", spec.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("not capicua's"), "{stderr}");
    assert_eq!(sha256(&path), before);
    let _ = std::fs::remove_file(spec);
    // With the flag the file is used, but a table in the way of ours is
    // not papered over: migrating fails on `players`.
    let (ok, _, stderr) = run(&["--allow-foreign-tables", "register", "ana", "--database", db]);
    assert!(!ok);
    assert!(stderr.contains("players"), "{stderr}");
    remove_db(&path);
    // Without a clash the flag lets capicua share the file.
    sql(&path, &["CREATE TABLE invoices (id)"]).await;
    let (ok, stdout, stderr) = run(&["register", "ana", "--database", db, "--allow-foreign-tables"]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("registered ana"), "{stdout}");
    let (ok, stdout, stderr) = run(&["standings", "--database", db]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no rated games yet");
    // From the environment too.
    let out = capicua_server()
        .args(["register", "ben", "--database", db])
        .env("CAPICUA_ALLOW_FOREIGN_TABLES", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    remove_db(&path);
}

#[test]
fn writers_take_a_missing_or_empty_file() {
    let path = temp_db();
    let db = path.to_str().unwrap();
    let (ok, _, stderr) = run(&["register", "ana", "--database", db]);
    assert!(ok, "{stderr}");
    remove_db(&path);
    std::fs::write(&path, b"").unwrap();
    let (ok, _, stderr) = run(&["register", "ana", "--database", db]);
    assert!(ok, "{stderr}");
    let (ok, stdout, stderr) = run(&["standings", "--database", db]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no rated games yet");
    remove_db(&path);
}

#[tokio::test]
async fn serve_binds_before_it_opens_the_database() {
    let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let path = temp_db();
    let (ok, _, stderr) = run(&["serve", "--listen", &addr, "--database", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains(&format!("listening on {addr}: address in use")), "{stderr}");
    assert!(!path.exists(), "a server that could not listen created its database");
    // The same for a Unix socket path that cannot be bound.
    let socket = std::env::temp_dir().join(format!("capicua-no-such-dir-{}/s.sock", std::process::id()));
    let listen = format!("unix:{}", socket.display());
    let (ok, _, stderr) = run(&["serve", "--listen", &listen, "--database", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains(&format!("listening on {listen}")), "{stderr}");
    assert!(!path.exists());
    drop(taken);
}

#[test]
fn serve_on_a_database_in_a_missing_folder_says_the_folder_is_missing_and_never_listens() {
    let folder = std::env::temp_dir().join(format!("capicua-no-such-folder-{}", std::process::id()));
    let db = folder.join("club.db");
    let (ok, _, stderr) = run(&["serve", "--listen", "127.0.0.1:0", "--database", db.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains(&format!("is in the folder {}, which does not exist", folder.display())), "{stderr}");
    assert!(!stderr.contains("listening") && !stderr.contains("lock file"), "{stderr}");
    assert!(!folder.exists());
}

/// Whether some process holds the serving lock of the database `path`.
#[cfg(unix)]
fn serving_lock_held(path: &Path) -> bool {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let Ok(file) = std::fs::OpenOptions::new().write(true).open(lock) else { return false };
    // Refused while the server holds its exclusive lock; ours is released
    // when the file closes.
    let probe = rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared);
    probe == Err(rustix::io::Errno::WOULDBLOCK)
}

#[cfg(unix)]
#[tokio::test]
async fn a_second_server_on_one_database_refuses_to_start_and_readers_still_work() {
    let path = capicua_db().await;
    let db = path.to_str().unwrap();
    let mut first = capicua_server().args(["serve", "--listen", "127.0.0.1:0", "--database", db]).spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !serving_lock_held(&path) {
        assert!(first.try_wait().unwrap().is_none(), "the first server ended");
        assert!(std::time::Instant::now() < deadline, "the first server never took its lock");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut second = capicua_server()
        .args(["serve", "--listen", "127.0.0.1:0", "--database", db])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A refusing server exits at once; one that keeps running failed the test.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while second.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            second.kill().unwrap();
            second.wait().unwrap();
            first.kill().unwrap();
            first.wait().unwrap();
            panic!("a second server started on {db}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let out = second.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("the database {db} is in use by another capicua-server")), "{stderr}");
    assert!(!stderr.contains("listening"), "a refused server never says it listens: {stderr}");
    // Readers and `register` do not need the lock.
    let (ok, stdout, stderr) = run(&["standings", "--database", db]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no rated games yet");
    let (ok, _, stderr) = run(&["register", "bea", "--database", db]);
    assert!(ok, "{stderr}");
    assert!(first.try_wait().unwrap().is_none(), "the first server ended");
    // The lock dies with its process.
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(!serving_lock_held(&path));
    remove_db(&path);
}

/// The scheduler lock of the PostgreSQL database at `url` (an advisory
/// lock on that database): how many sessions hold it and how many wait.
async fn pg_scheduler_lock(url: &str) -> (i64, i64) {
    use sqlx::{Connection, Row};
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    let row = sqlx::query(
        "SELECT COUNT(*) FILTER (WHERE granted), COUNT(*) FILTER (WHERE NOT granted) FROM pg_locks \
         WHERE locktype = 'advisory' AND objid = 1768125793 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    (row.get(0), row.get(1))
}

/// Waits until the scheduler lock of `url` is (held, waiting); the
/// `servers` must keep running meanwhile.
async fn wait_for_pg_lock(url: &str, want: (i64, i64), servers: &mut [&mut std::process::Child], what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let got = pg_scheduler_lock(url).await;
        if got == want {
            return;
        }
        for s in servers.iter_mut() {
            assert!(s.try_wait().unwrap().is_none(), "a server ended: {what}");
        }
        assert!(std::time::Instant::now() < deadline, "{what}: (held, waiting) = {got:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn servers_share_a_postgres_database_one_runs_the_tournaments_and_the_commands_use_it() {
    let Some(pg) = capicua_pgtest::require("servers_share_a_postgres_database") else {
        return;
    };
    let url = pg.fresh_database();
    // `register` creates and migrates the schema; `standings` reads it.
    let (ok, stdout, stderr) = run(&["register", "ana", "--database", &url]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("registered ana (id 1)"), "{stdout}");
    let (ok, stdout, stderr) = run(&["standings", "--database", &url]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "no rated games yet");

    let serve = || capicua_server().args(["serve", "--listen", "127.0.0.1:0", "--database", &url]).spawn().unwrap();
    let mut first = serve();
    wait_for_pg_lock(&url, (1, 0), &mut [&mut first], "the first server never became the scheduler").await;
    // A second server serves too, and stands by for the scheduler lock.
    let mut second = serve();
    wait_for_pg_lock(&url, (1, 1), &mut [&mut first, &mut second], "the second server never stood by").await;
    // Readers and `register` take no lock.
    let (ok, _, stderr) = run(&["register", "bea", "--database", &url]);
    assert!(ok, "{stderr}");
    // The lock dies with its process: kill -9, and the standby takes it.
    first.kill().unwrap();
    first.wait().unwrap();
    wait_for_pg_lock(&url, (1, 0), &mut [&mut second], "the standby never took over").await;
    second.kill().unwrap();
    second.wait().unwrap();
    wait_for_pg_lock(&url, (0, 0), &mut [], "the killed server's lock outlived it").await;
}

#[tokio::test]
async fn servers_started_together_on_an_empty_postgres_database_all_open_it() {
    let Some(pg) = capicua_pgtest::require("servers_started_together_on_an_empty_postgres_database") else {
        return;
    };
    for _ in 0..3 {
        // An empty database each round: the checks and migrations race only there.
        let url = pg.fresh_database();
        let opens = (0..3).map(|_| capicua_server::Db::open(&url));
        for db in futures_util::future::join_all(opens).await {
            db.expect("every server opens the database its neighbours are migrating").close().await;
        }
    }
}
