//! `capicua-bot play` as a new user runs it, the binary against a real
//! server: registering by name with a token file, rated rooms, variant
//! files, the stored games' addresses, and clear errors (a wrong address
//! fails at once; an unreachable server is retried, and said so once).

// The server's own test harness: a real server on port 0 and a JSON client.
#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// How long one run of the binary may take (a few block matches).
const RUN: Duration = Duration::from_secs(120);

/// A fresh empty directory for token and variant files.
fn temp_dir(tag: &str) -> PathBuf {
    let db = temp_db();
    let dir = db.with_file_name(format!("{}-{tag}", db.file_stem().unwrap().to_string_lossy()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary, run in `dir` (where default token files go).
fn bot(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capicua-bot"));
    c.args(args).current_dir(dir).env_remove("CAPICUA_TOKEN").kill_on_drop(true);
    c
}

/// Runs the binary to its end.
/// The arguments of four bots registered as NAME-1..4 (tokens beside
/// `file`) playing one rated block match.
fn four_rated_block_bots<'a>(url: &'a str, name: &'a str, file: &'a Path) -> [&'a str; 14] {
    let file = file.to_str().unwrap();
    [
        "play",
        "--server",
        url,
        "--register",
        name,
        "--token-file",
        file,
        "--rated",
        "--count",
        "4",
        "--preset",
        "block",
        "--matches",
        "1",
    ]
}

async fn run(dir: &Path, args: &[&str]) -> Output {
    run_within(RUN, dir, args).await
}

/// Runs the binary to its end, which must come within `limit`.
async fn run_within(limit: Duration, dir: &Path, args: &[&str]) -> Output {
    let out = bot(dir, args).output();
    tokio::time::timeout(limit, out)
        .await
        .unwrap_or_else(|_| panic!("capicua-bot {args:?} ran past {limit:?}"))
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs the binary and checks that it succeeded; returns (stdout, stderr).
async fn run_ok(dir: &Path, args: &[&str]) -> (String, String) {
    let out = run(dir, args).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "capicua-bot {args:?}: {:?}\nstdout: {stdout}\nstderr: {stderr}", out.status);
    (stdout, stderr)
}

/// Runs the binary and checks that it failed with exit code 1 and a
/// one-line message; returns that line.
async fn run_err(dir: &Path, args: &[&str]) -> String {
    // A permanent error is not retried: the binary ends at once.
    let out = run_within(Duration::from_secs(20), dir, args).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "capicua-bot {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one message: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    lines[0].to_string()
}

/// The stored game ids that stdout announces, checking each line's form.
fn announced_games(stdout: &str, server: &TestServer) -> Vec<i64> {
    stdout
        .lines()
        .map(|l| {
            let id: i64 = l
                .strip_prefix("game ")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("not a game line: {l:?}"));
            assert_eq!(l, format!("game {id} stored: http://{}/api/games/{id}", server.addr));
            id
        })
        .collect()
}

/// The player names seated in stored game `id`, sorted.
async fn seated_names(server: &TestServer, id: i64) -> Vec<String> {
    let game = server.get_json(&format!("/api/games/{id}")).await;
    let mut names: Vec<String> =
        game["seats"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect();
    names.sort();
    names
}

async fn player_count(server: &TestServer) -> i64 {
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", server.db_path.display())).await.unwrap();
    let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM players").fetch_one(&pool).await.unwrap();
    pool.close().await;
    n.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_bots_write_private_token_files_and_reuse_them() {
    let server = TestServer::start().await;
    let dir = temp_dir("reuse");
    let url = server.url();
    let args = ["play", "--server", &url, "--register", "b", "--count", "4", "--preset", "block", "--matches", "1"];
    let (stdout, stderr) = run_ok(&dir, &args).await;
    let first = announced_games(&stdout, &server);
    assert_eq!(first.len(), 1, "one line for the match, not one per bot: {stdout}");
    let names: Vec<String> = (1..=4).map(|i| format!("b-{i}")).collect();
    assert_eq!(seated_names(&server, first[0]).await, names);
    assert_eq!(player_count(&server).await, 4);
    assert_eq!(stderr.matches("registered b-").count(), 4, "{stderr}");
    let mut tokens = vec![];
    for name in &names {
        let path = dir.join(format!("{name}.token"));
        let token = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(token.trim().len() >= 16, "{token:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600, "{}", path.display());
        }
        tokens.push(token);
    }
    let mut files: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["b-1.token", "b-2.token", "b-3.token", "b-4.token"], "no temporary file left");

    // The same command again: the same players, from their token files.
    let (stdout, stderr) = run_ok(&dir, &args).await;
    assert!(!stderr.contains("registered"), "{stderr}");
    assert!(stderr.contains("playing as b-1 (token from b-1.token)"), "{stderr}");
    let second = announced_games(&stdout, &server);
    assert_eq!(second.len(), 1, "{stdout}");
    assert_ne!(second, first);
    assert_eq!(seated_names(&server, second[0]).await, names);
    assert_eq!(player_count(&server).await, 4, "nobody registered twice");
    for (name, token) in names.iter().zip(&tokens) {
        assert_eq!(&std::fs::read_to_string(dir.join(format!("{name}.token"))).unwrap(), token, "unchanged");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_taken_name_without_its_token_file_is_a_permanent_error() {
    let server = TestServer::start().await;
    let _owner = server.player("taken").await;
    let dir = temp_dir("taken");
    let file = dir.join("taken.token");
    let url = server.url();
    let line = run_err(
        &dir,
        &["play", "--server", &url, "--register", "taken", "--token-file", file.to_str().unwrap(), "--matches", "1"],
    )
    .await;
    assert!(line.contains("\"taken\" is already taken"), "{line}");
    assert!(line.contains(&format!("token file {} is missing", file.display())), "{line}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no token file, no temporary file");

    // A token file the server does not know.
    std::fs::write(&file, "not-a-token\n").unwrap();
    let line = run_err(
        &dir,
        &["play", "--server", &url, "--register", "taken", "--token-file", file.to_str().unwrap(), "--matches", "1"],
    )
    .await;
    assert!(line.contains(&format!("the token in {} is not known", file.display())), "{line}");

    // A name and a token are two ways to say who plays: clap refuses both.
    let out = run(&dir, &["play", "--server", &url, "--register", "x", "--token", "t"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot be used with"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_rated_bots_fill_one_rated_room_and_get_ratings() {
    let server = TestServer::start().await;
    // A casual room of the same preset waiting for players: rated bots
    // leave it alone.
    let mut host = server.guest().await;
    let casual = host.create_room(serde_json::json!({"preset": "block"})).await;
    let dir = temp_dir("rated");
    let url = server.url();
    let file = dir.join("r.token");
    let args = four_rated_block_bots(&url, "r", &file);
    let (stdout, _) = run_ok(&dir, &args).await;
    let games = announced_games(&stdout, &server);
    assert_eq!(games.len(), 1, "the game is announced once: {stdout}");
    let board = server.get_json("/api/leaderboard?variant=block").await;
    let rows = board.as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["r-1", "r-2", "r-3", "r-4"], "{board}");
    assert!(rows.iter().all(|r| r["games"] == 1), "{board}");
    assert!(dir.join("r-1.token").exists() && dir.join("r-4.token").exists());
    let info = server.room_info(casual).await;
    assert!(info["seats"].as_array().unwrap().iter().all(|s| s.get("occupant").is_none()), "{info}");

    // Rated without a name: refused before connecting (nothing listens on
    // port 1, so a connection attempt would be retried instead).
    let line = run_err(&dir, &["play", "--server", "ws://127.0.0.1:1/ws", "--rated"]).await;
    assert!(line.contains("--rated needs a registered player"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_waiting_in_two_rooms_gather_in_the_fuller_one() {
    let server = TestServer::start().await;
    // A registered player holds a seat of a rated room: three bots join
    // it, the fourth finds it full and opens a second room.
    let (mut host, _) = server.player("host").await;
    let first = host.create_room(serde_json::json!({"preset": "block", "rated": true})).await;
    host.join(first, None).await;
    let dir = temp_dir("gather");
    let url = server.url();
    let file = dir.join("g.token");
    let args = four_rated_block_bots(&url, "g", &file);
    let bots = bot(&dir, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let taken = |room: &Value| room["seats"].as_array().unwrap().iter().filter(|s| s.get("occupant").is_some()).count();
    let second = wait_for("three bots in the first room and one in a second", WAIT, async || {
        let rooms = server.get_json("/api/rooms").await;
        let list = rooms.as_array().unwrap();
        let first_full = list.iter().any(|r| r["id"] == first && taken(r) == 4);
        match list.iter().find(|r| r["id"] != first && taken(r) == 1) {
            Some(r) if first_full => Ok(r["id"].as_u64().unwrap()),
            _ => Err(rooms),
        }
    })
    .await;
    // The player leaves: the first room waits for one more, the lone bot
    // in the second room moves there and the match starts.
    let r = host.request(serde_json::json!({"type": "leave", "room": first})).await;
    assert_eq!(r["type"], "left", "{r}");
    let out = tokio::time::timeout(RUN, bots.wait_with_output()).await.expect("the bots gather and play").unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let games = announced_games(&stdout, &server);
    assert_eq!(games.len(), 1, "{stdout}");
    assert_eq!(seated_names(&server, games[0]).await, ["g-1", "g-2", "g-3", "g-4"]);
    let game = server.get_json(&format!("/api/games/{}", games[0])).await;
    assert_eq!(game["room"], first, "played in the first room: {game}");
    assert_eq!(taken(&server.room_info(second).await), 0, "the second room was left");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The binary running, its stderr lines collected as they come.
struct Watched {
    child: tokio::process::Child,
    lines: Arc<Mutex<Vec<String>>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Watched {
    fn spawn(dir: &Path, args: &[&str]) -> Watched {
        let mut child = bot(dir, args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let reader = {
            let lines = lines.clone();
            let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
            tokio::spawn(async move {
                while let Ok(Some(line)) = stderr.next_line().await {
                    lines.lock().unwrap().push(line);
                }
            })
        };
        Watched { child, lines, reader }
    }

    /// The stderr lines so far.
    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Waits for a stderr line that `wanted` accepts, and returns it.
    async fn line(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        wait_for(what, WAIT, async || self.lines().into_iter().find(|l| wanted(l)).ok_or_else(|| self.lines())).await
    }

    /// Waits for the run to end (within [`RUN`]): its status, stdout and stderr lines.
    async fn finish(mut self) -> (std::process::ExitStatus, String, Vec<String>) {
        let mut stdout = String::new();
        let mut out = self.child.stdout.take().unwrap();
        let status = tokio::time::timeout(RUN, async {
            tokio::io::AsyncReadExt::read_to_string(&mut out, &mut stdout).await.unwrap();
            self.child.wait().await.unwrap()
        })
        .await
        .unwrap_or_else(|_| panic!("the bot ran past {RUN:?}; stderr: {:?}", self.lines()));
        self.reader.await.unwrap();
        let stderr = self.lines.lock().unwrap().clone();
        (status, stdout, stderr)
    }
}

const ADMIN: &str = "s3cret";

/// A tournament of one block duel: `entrant` against a hosted bot.
async fn create_duel(server: &TestServer, entrant: &str) -> i64 {
    let spec = serde_json::json!({
        "name": "duel night", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": [entrant, "bot:random"], "stages": [{"format": "round-robin"}],
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_registered_by_name_waits_for_its_tournament_to_be_created_and_plays_it() {
    let config = capicua_server::Config { admin_token: Some(ADMIN.into()), ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let dir = temp_dir("tournament");
    let url = server.url();
    // The players register and start their bots; the organiser creates
    // the tournament naming them afterwards.
    let bot = Watched::spawn(&dir, &["play", "--server", &url, "--register", "ana", "--tournament", "1"]);
    let waiting = format!("tournament 1 does not exist yet on {url}; waiting for it to be created");
    bot.line("the bot to say it waits", |l| l == waiting).await;
    assert_eq!(bot.lines()[0], format!("registered ana on {url}; its token is in ana.token"));
    assert!(dir.join("ana.token").exists());
    assert_eq!(create_duel(&server, "ana").await, 1, "a fresh database numbers it 1");
    let (status, stdout, stderr) = bot.finish().await;
    assert!(status.success(), "{stderr:?}");
    assert_eq!(stderr.iter().filter(|l| **l == waiting).count(), 1, "said once, not per look: {stderr:?}");
    let games = announced_games(&stdout, &server);
    assert_eq!(games.len(), 1, "{stdout}");
    assert!(seated_names(&server, games[0]).await.contains(&"ana".to_string()));
    let t = server.get_json("/api/tournaments/1").await;
    assert_eq!(t["status"], "finished", "{t}");
    // Started again for the finished tournament: its token is read back,
    // and there is nothing left to play.
    let (stdout, stderr) = run_ok(&dir, &["play", "--server", &url, "--register", "ana", "--tournament", "1"]).await;
    assert!(stderr.contains("playing as ana (token from ana.token)"), "{stderr}");
    assert!(!stderr.contains("does not exist"), "{stderr}");
    assert_eq!(stdout, "");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A free address on 127.0.0.1 whose port lies below Linux's ephemeral
/// range (32768-60999). The outage test frees it and binds it again; a port
/// from `bind(":0")` is ephemeral, so a connection another test opens
/// meanwhile may take it as its own local port and the bind fails.
fn quiet_addr() -> SocketAddr {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    (0..4000u32)
        .map(|i| 20_000 + ((nanos.wrapping_add(i.wrapping_mul(7919))) % 12_000) as u16)
        .find_map(|port| std::net::TcpListener::bind(("127.0.0.1", port)).ok())
        .map(|l| l.local_addr().unwrap())
        .expect("a free port below the ephemeral range")
}

/// Listens on `addr` once it is free: the listener before it there (an
/// aborted task's) may not be closed yet.
async fn listen(addr: SocketAddr) -> tokio::net::TcpListener {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => return l,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && std::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("cannot listen on {addr}: {e}"),
        }
    }
}

/// A TCP proxy to `to` on `addr`: the server as the bots see it. Aborting
/// the task closes the listener and drops every connection through it,
/// as a server that dies does.
async fn forwarding(addr: SocketAddr, to: SocketAddr) -> tokio::task::JoinHandle<()> {
    let listener = listen(addr).await;
    tokio::spawn(async move {
        // Dropped with the task: every connection through it ends.
        let mut conns = tokio::task::JoinSet::new();
        while let Ok((mut inbound, _)) = listener.accept().await {
            conns.spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_lost_mid_session_is_told_by_cause_and_counted_as_one_reconnect() {
    let config = capicua_server::Config { admin_token: Some(ADMIN.into()), ..common::config() };
    let server = TestServer::start_with(temp_db(), config).await;
    let dir = temp_dir("outage");
    let addr = quiet_addr();
    let url = format!("ws://{addr}/ws");
    let proxy = forwarding(addr, server.addr).await;
    let bot = Watched::spawn(&dir, &["play", "--server", &url, "--register", "ana", "--tournament", "1"]);
    let waiting = format!("tournament 1 does not exist yet on {url}; waiting for it to be created");
    // Said once connected: the session is up.
    bot.line("the bot to wait for its tournament", |l| l == waiting).await;

    // The server dies: its connections drop, then nothing listens.
    proxy.abort();
    let _ = proxy.await;
    let lost = bot.line("the lost connection to be told", |l| l.starts_with("lost the connection to")).await;
    assert!(lost.starts_with(&format!("lost the connection to {url}: ")), "{lost}");
    assert!(lost.ends_with("; retrying with backoff up to 30 s"), "{lost}");
    let refused = format!("still cannot reach {url}: connection refused");
    bot.line("the refusals to be told", |l| l == refused).await;
    // Up but hanging up on every connection (a proxy before a server still
    // down): another cause, told once; the attempts are not reconnects.
    let accepted = Arc::new(Mutex::new(0));
    let dropper = drop_connections(addr, accepted.clone()).await;
    wait_until("two attempts hung up on", WAIT, async || *accepted.lock().unwrap() >= 2).await;
    let cut = format!("still cannot reach {url}: connection closed before the WebSocket handshake");
    bot.line("the hang-ups to be told", |l| l == cut).await;
    dropper.abort();
    let _ = dropper.await;

    // Back: one line telling how long and how many attempts.
    let _proxy = forwarding(addr, server.addr).await;
    let back = bot.line("the bot to be back", |l| l.starts_with("reconnected to")).await;
    let attempts: u32 = back
        .strip_prefix(&format!("reconnected to {url} after "))
        .and_then(|rest| rest.split(" s (").nth(1))
        .and_then(|rest| rest.strip_suffix(" failed attempts)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{back:?}"));
    assert!(attempts >= 4, "lost, refused, hung up on twice: {back}");

    assert_eq!(create_duel(&server, "ana").await, 1);
    let (status, stdout, stderr) = bot.finish().await;
    assert!(status.success(), "{stderr:?}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("game ")).count(), 1, "{stdout}");
    // All it said: who it plays as, the wait (once), one line per cause of
    // the outage and one for its end (none per attempt), and its tally.
    let registered = format!("registered ana on {url}; its token is in ana.token");
    let (tally, said) = stderr.split_last().unwrap();
    assert_eq!(said, [registered, waiting, lost, refused, cut, back]);
    assert!(tally.starts_with("moves ") && tally.ends_with(", reconnects 1"), "one outage, one reconnect: {tally}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_address_fails_at_once_with_one_message() {
    let server = TestServer::start().await;
    let dir = temp_dir("addr");
    let http = format!("http://{}/ws", server.addr);
    let line = run_err(&dir, &["play", "--server", &http, "--matches", "1"]).await;
    assert!(line.contains("is not a WebSocket address"), "{line}");
    assert!(line.contains("ws://HOST:PORT/ws"), "{line}");
    // A real server, a wrong path: HTTP 404, for every bot, said once.
    let nope = format!("ws://{}/nope", server.addr);
    let line = run_err(&dir, &["play", "--server", &nope, "--count", "4", "--matches", "1"]).await;
    assert!(line.contains(&format!("{nope} answered HTTP 404 Not Found")), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Accepts connections and drops them at once, counting them: a server
/// that is up but not answering.
async fn drop_connections(addr: SocketAddr, accepted: Arc<Mutex<u32>>) -> tokio::task::JoinHandle<()> {
    let listener = listen(addr).await;
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            *accepted.lock().unwrap() += 1;
            drop(stream);
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_told_once_and_the_bots_play_once_it_is_up() {
    // A port with nothing listening (until the server binds it).
    let addr = quiet_addr();
    let url = format!("ws://{addr}/ws");
    let dir = temp_dir("down");
    let mut child = bot(&dir, &["play", "--server", &url, "--count", "4", "--preset", "block", "--matches", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let reader = {
        let lines = lines.clone();
        let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = stderr.next_line().await {
                lines.lock().unwrap().push(line);
            }
        })
    };
    let told = format!("cannot reach {url}: connection refused; retrying with backoff up to 30 s");
    let seen = || lines.lock().unwrap().clone();
    wait_until("the outage to be told", WAIT, async || seen().contains(&told)).await;

    // Up but dropping every connection: the bots keep trying, telling the
    // new cause once.
    let accepted = Arc::new(Mutex::new(0));
    let dropper = drop_connections(addr, accepted.clone()).await;
    wait_until("the bots to retry several times", Duration::from_secs(60), async || *accepted.lock().unwrap() >= 8)
        .await;
    let cut = format!("still cannot reach {url}: connection closed before the WebSocket handshake");
    assert_eq!(seen(), [told.clone(), cut], "one line per cause, not one per attempt or bot");
    dropper.abort();
    let _ = dropper.await;

    // The real server on that port: the bots connect and play their match.
    let db = capicua_server::Db::open(temp_db().to_str().unwrap()).await.unwrap();
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(capicua_server::run(listener, db, common::config(), async move {
        let _ = stopped.await;
    }));
    let mut stdout = String::new();
    let mut out = child.stdout.take().unwrap();
    let status = tokio::time::timeout(RUN, async {
        tokio::io::AsyncReadExt::read_to_string(&mut out, &mut stdout).await.unwrap();
        child.wait().await.unwrap()
    })
    .await
    .expect("the bots finish their match once the server is up");
    reader.await.unwrap();
    let stderr = seen();
    assert!(status.success(), "{stderr:?}");
    assert_eq!(stderr.iter().filter(|l| l.contains("retrying")).count(), 1, "{stderr:?}");
    // The bots never got through before: they connect, they do not reconnect.
    let back: Vec<_> = stderr.iter().filter(|l| l.starts_with(&format!("connected to {url} after "))).collect();
    assert_eq!(back.len(), 1, "{stderr:?}");
    assert!(back[0].ends_with(" by 4 bots)"), "{stderr:?}");
    assert!(stderr.last().unwrap().ends_with(", reconnects 0"), "{stderr:?}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("game ") && l.contains(" stored: ")).count(), 1, "{stdout}");
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(30), server).await.expect("stops").unwrap().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_file_is_checked_before_connecting_and_its_rooms_play_it() {
    let dir = temp_dir("variant");
    // Nothing listens on port 1: an error here comes before any connection.
    let down = "ws://127.0.0.1:1/ws";
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "base = \"block\"\nname = \"quick-block\"\n\n[scoring]\ncapicua = \"triple\"\n").unwrap();
    let line = run_err(&dir, &["play", "--server", down, "--variant", bad.to_str().unwrap()]).await;
    assert!(line.starts_with(&format!("error: {}:5: scoring.capicua: ", bad.display())), "{line}");
    // Parsed, but not valid as a whole: the field's line too.
    let big = dir.join("big.toml");
    std::fs::write(&big, "base = \"latin\"\nname = \"big\"\n\n[deal]\nhand-size = 8\n").unwrap();
    let line = run_err(&dir, &["play", "--server", down, "--variant", big.to_str().unwrap()]).await;
    assert!(line.starts_with(&format!("error: {}:5: deal.hand-size: ", big.display())), "{line}");
    // A house variant under a preset's name would sit at that preset's tables.
    let posing = dir.join("posing.toml");
    std::fs::write(&posing, "base = \"block\"\nname = \"latin\"\n").unwrap();
    let line = run_err(&dir, &["play", "--server", down, "--variant", posing.to_str().unwrap()]).await;
    assert!(line.contains(&format!("{}:2: name: \"latin\" is a preset's name", posing.display())), "{line}");
    let missing = run_err(&dir, &["play", "--server", down, "--variant", "nope.toml"]).await;
    assert!(missing.contains("reading the variant file nope.toml"), "{missing}");
    let out = run(&dir, &["play", "--variant", bad.to_str().unwrap(), "--preset", "block"]).await;
    assert_eq!(out.status.code(), Some(2), "--variant and --preset conflict: {}", text(&out.stderr));

    // A good file: one-hand block matches.
    let server = TestServer::start().await;
    let good = dir.join("quick.toml");
    std::fs::write(&good, "base = \"block\"\nname = \"quick-block\"\ntarget = { hands = 1 }\n").unwrap();
    let url = server.url();
    let args = ["play", "--server", &url, "--variant", good.to_str().unwrap(), "--count", "4", "--matches", "1"];
    let (stdout, _) = run_ok(&dir, &args).await;
    let games = announced_games(&stdout, &server);
    assert_eq!(games.len(), 1, "{stdout}");
    let game: Value = server.get_json(&format!("/api/games/{}", games[0])).await;
    assert_eq!(game["variant"]["name"], "quick-block", "{}", game["variant"]);
    assert_eq!(game["variant"]["target"], serde_json::json!({"hands": 1}), "{}", game["variant"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
