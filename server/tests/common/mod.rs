//! Test harness: a real server on port 0 and real WebSocket clients.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use capicua_server::{Config, Db};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The server's defaults but for the limits per address: every test client
/// is a guest from 127.0.0.1, one address, and many tests open more rooms,
/// register more names, hold more connections and seats, store more games
/// and ask more hints than one address may (`tests/limits.rs`,
/// `tests/hostile.rs` and `tests/hostile_bounds.rs` test those limits).
pub fn config() -> Config {
    Config {
        max_rooms_per_owner: 0,
        max_rooms_per_addr: 0,
        max_seats_per_addr: 0,
        registrations_per_min: 0,
        max_connections_per_addr: 0,
        stored_kib_per_hour: 0,
        hints_per_addr: 0,
        token_guesses_per_min: 0,
        replay_pages_per_min: 0,
        ..Config::default()
    }
}

/// A running server.
pub struct TestServer {
    pub addr: SocketAddr,
    pub db_path: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A fresh database path under the temp dir.
pub fn temp_db() -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("capicua-test-{}-{n}-{}.db", std::process::id(), rand_suffix()));
    let _ = std::fs::remove_file(&p);
    p
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(temp_db(), config()).await
    }

    pub async fn start_with(db_path: PathBuf, config: Config) -> TestServer {
        let db = Db::open(db_path.to_str().unwrap()).await.expect("open db");
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            capicua_server::run(listener, db, config, async move {
                let _ = rx.await;
            })
            .await
            .expect("server runs");
        });
        TestServer { addr, db_path, stop: Some(tx), task: Some(task) }
    }

    /// Graceful shutdown, waiting for the server to finish.
    pub async fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(30), t).await.expect("server stops in time").unwrap();
        }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.url()).await
    }

    /// A greeted guest.
    pub async fn guest(&self) -> Client {
        let mut c = self.client().await;
        c.hello(None).await;
        c
    }

    /// A greeted guest that asked for batched events.
    pub async fn batched_guest(&self) -> Client {
        let mut c = self.client().await;
        c.hello_with(None, true).await;
        c
    }

    /// A registered player: (client, token).
    pub async fn player(&self, name: &str) -> (Client, String) {
        let mut c = self.guest().await;
        let r = c.request(json!({"type": "register", "name": name})).await;
        assert_eq!(r["type"], "registered", "{r}");
        let token = r["token"].as_str().unwrap().to_string();
        (c, token)
    }

    /// `GET path`: (status, body).
    pub async fn get(&self, path: &str) -> (u16, String) {
        http_get(self.addr, path).await
    }

    /// `POST path` with a JSON body and an optional bearer token: (status, JSON body).
    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let (status, text) = http_request(self.addr, "POST", path, token, Some(body)).await;
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("POST {path}: {e}: {text}")))
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// A stored game's whole replay from `query`'s viewpoint (`seat=N`, or
    /// empty for a spectator's): its pages followed from `next`, their steps
    /// joined into the first page's.
    pub async fn replay(&self, id: i64, query: &str) -> Value {
        let sep = if query.is_empty() { "" } else { "&" };
        let mut whole = self.get_json(&format!("/api/games/{id}?{query}")).await;
        while let Some(from) = whole["next"].as_u64() {
            let page = self.get_json(&format!("/api/games/{id}?{query}{sep}from={from}")).await;
            assert_eq!(page["from"], json!(from), "{page}");
            let steps = page["steps"].as_array().unwrap().clone();
            whole["steps"].as_array_mut().unwrap().extend(steps);
            whole["next"] = page["next"].clone();
        }
        assert_eq!(whole["steps"].as_array().unwrap().len() as u64, whole["total-steps"].as_u64().unwrap());
        whole
    }

    /// Room `id` as `GET /api/rooms` lists it; panics when it is not listed,
    /// so a check on its seats cannot pass for a room that is gone.
    pub async fn room_info(&self, id: u64) -> Value {
        let rooms = self.get_json("/api/rooms").await;
        let room = rooms.as_array().unwrap().iter().find(|r| r["id"] == json!(id));
        room.unwrap_or_else(|| panic!("room {id} is not listed: {rooms}")).clone()
    }

    /// Waits until exactly `n` seats of room `id` are taken, as the lobby
    /// lists it.
    pub async fn wait_seated(&self, id: u64, n: usize) {
        wait_for(&format!("{n} seat(s) of room {id} taken"), WAIT, async || {
            let info = self.room_info(id).await;
            let seated = info["seats"].as_array().unwrap().iter().filter(|s| s.get("occupant").is_some()).count();
            if seated == n { Ok(()) } else { Err(info) }
        })
        .await;
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// How long `wait_for` and `wait_until` pause between two checks.
const POLL: Duration = Duration::from_millis(5);

/// Checks until the condition holds and returns what `check` found: `Ok`
/// once it holds, `Err` with what it saw until then. Panics naming `what`
/// (and the last thing seen) when `timeout` passes first.
///
/// For what the server does in its own tasks and tells no client about:
/// the test polls the state it can observe instead of sleeping and hoping.
pub async fn wait_for<T, S: std::fmt::Debug>(
    what: &str,
    timeout: Duration,
    mut check: impl AsyncFnMut() -> Result<T, S>,
) -> T {
    let mut last = None;
    let polled = tokio::time::timeout(timeout, async {
        loop {
            match check().await {
                Ok(v) => return v,
                Err(seen) => last = Some(seen),
            }
            tokio::time::sleep(POLL).await;
        }
    })
    .await;
    match (polled, last) {
        (Ok(v), _) => v,
        (Err(_), Some(seen)) => panic!("waited {timeout:?} for {what}; last seen: {seen:?}"),
        (Err(_), None) => panic!("waited {timeout:?} for {what}; the first check never returned"),
    }
}

/// Checks until `check` is true; panics naming `what` when `timeout` passes first.
pub async fn wait_until(what: &str, timeout: Duration, mut check: impl AsyncFnMut() -> bool) {
    let polled = tokio::time::timeout(timeout, async {
        while !check().await {
            tokio::time::sleep(POLL).await;
        }
    })
    .await;
    assert!(polled.is_ok(), "waited {timeout:?} for {what}");
}

/// A minimal HTTP/1.1 GET.
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    http_request(addr, "GET", path, None, None).await
}

/// A minimal HTTP/1.1 request with an optional bearer token and JSON body.
pub async fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}", b.len()));
    } else {
        req.push_str("\r\n");
    }
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.into() };
    (status, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// A WebSocket client that records every frame it receives.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Every text frame received, in order.
    pub frames: Vec<Value>,
    /// Frames received but not yet consumed by `recv`.
    queue: std::collections::VecDeque<Value>,
    /// The close code, once closed.
    pub closed: Option<u16>,
}

/// How long a client waits for a frame, or a test for a condition, before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The close code recorded for a close frame without a code (RFC 6455 "no status received").
pub const NO_STATUS: u16 = 1005;
/// The close code recorded for a connection that ended without a close frame
/// (RFC 6455 "abnormal closure").
pub const ABNORMAL: u16 = 1006;

impl Client {
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await.expect("connect");
        Client { ws, next_id: 0, frames: vec![], queue: Default::default(), closed: None }
    }

    /// A client whose TCP connection comes from `local` (any 127.x.y.z is
    /// loopback on Linux): another address for the per-address limits.
    pub async fn connect_from(local: std::net::IpAddr, server: SocketAddr) -> Result<Client, String> {
        let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
        socket.bind(SocketAddr::new(local, 0)).map_err(|e| e.to_string())?;
        let tcp = socket.connect(server).await.map_err(|e| e.to_string())?;
        let url = format!("ws://{server}/ws");
        let (ws, _) =
            tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(tcp)).await.map_err(|e| e.to_string())?;
        Ok(Client::from_ws(ws))
    }

    /// A client over a WebSocket the test opened itself (on a socket with
    /// options of its own).
    pub fn from_ws(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client { ws, next_id: 0, frames: vec![], queue: Default::default(), closed: None }
    }

    /// The next frame, or `None` once the connection ended (`closed` says
    /// how); panics when none comes within [`WAIT`].
    pub async fn next_frame(&mut self) -> Option<Value> {
        if self.queue.is_empty() && !self.pull(Some(WAIT)).await {
            return None;
        }
        self.queue.pop_front()
    }

    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::Text(v.to_string().into())).await.unwrap();
    }

    pub async fn send_raw(&mut self, m: Message) {
        let _ = self.ws.send(m).await;
    }

    /// Reads one more frame from the socket: false when the socket ended.
    async fn pull(&mut self, wait: Option<Duration>) -> bool {
        loop {
            let next = match wait {
                Some(w) => match tokio::time::timeout(w, self.ws.next()).await {
                    Ok(n) => n,
                    Err(_) => panic!(
                        "no frame within {w:?}; last frames: {:?}",
                        self.frames.iter().rev().take(3).collect::<Vec<_>>()
                    ),
                },
                None => self.ws.next().await,
            };
            match next {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(&t).expect("server frames are JSON");
                    self.frames.push(v.clone());
                    self.queue.push_back(v);
                    return true;
                }
                Some(Ok(Message::Close(c))) => {
                    self.closed = Some(c.map(|c| u16::from(c.code)).unwrap_or(NO_STATUS));
                    return false;
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => {
                    self.closed.get_or_insert(ABNORMAL);
                    return false;
                }
            }
        }
    }

    /// The next frame.
    pub async fn recv(&mut self) -> Value {
        if let Some(v) = self.queue.pop_front() {
            return v;
        }
        assert!(
            self.pull(Some(WAIT)).await,
            "connection closed ({:?}); frames: {:?}",
            self.closed,
            self.frames.iter().rev().take(3).collect::<Vec<_>>()
        );
        self.queue.pop_front().unwrap()
    }

    /// The next frame, waiting without a client-side timeout (for paused-time tests).
    pub async fn recv_untimed(&mut self) -> Value {
        if let Some(v) = self.queue.pop_front() {
            return v;
        }
        assert!(self.pull(None).await, "connection closed ({:?})", self.closed);
        self.queue.pop_front().unwrap()
    }

    /// The next frame of type `t`, skipping others.
    pub async fn recv_type(&mut self, t: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == t {
                return v;
            }
        }
    }

    /// Waits for the close frame, returning its code.
    pub async fn closed_with(&mut self) -> u16 {
        while self.closed.is_none() {
            if !self.pull(Some(WAIT)).await {
                break;
            }
        }
        // As a real client does: read on, which sends our close reply, until
        // the server ends the connection.
        let ended = tokio::time::timeout(WAIT, async { while self.ws.next().await.is_some() {} }).await;
        assert!(ended.is_ok(), "the server kept the connection open after closing it");
        self.closed.unwrap()
    }

    /// Sends a request with a fresh id and returns the reply carrying that id.
    pub async fn request(&mut self, mut v: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        v["id"] = json!(id);
        self.send(v).await;
        let mut deferred = vec![];
        loop {
            let r = self.recv().await;
            if r["id"] == json!(id) {
                // Frames that arrived first stay queued, in order.
                for d in deferred.into_iter().rev() {
                    self.queue.push_front(d);
                }
                return r;
            }
            deferred.push(r);
        }
    }

    pub async fn hello(&mut self, token: Option<&str>) -> Value {
        self.hello_with(token, false).await
    }

    /// Hello, asking for batched events or not.
    pub async fn hello_with(&mut self, token: Option<&str>, batch_events: bool) -> Value {
        let mut m = json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION});
        if let Some(t) = token {
            m["token"] = json!(t);
        }
        if batch_events {
            m["batch-events"] = json!(true);
        }
        self.hello_as(m).await
    }

    /// A guest's hello with these options besides the version (e.g.
    /// `{"batch-events": true, "skip-accepted": true}`).
    pub async fn hello_options(&mut self, options: Value) -> Value {
        let mut m = options;
        m["type"] = json!("hello");
        m["version"] = json!(capicua_protocol::PROTOCOL_VERSION);
        self.hello_as(m).await
    }

    async fn hello_as(&mut self, m: Value) -> Value {
        let r = self.request(m).await;
        assert_eq!(r["type"], "welcome", "{r}");
        r
    }

    /// Creates a room from a spec, returning its id.
    pub async fn create_room(&mut self, spec: Value) -> u64 {
        let mut m = spec;
        m["type"] = json!("create-room");
        let r = self.request(m).await;
        assert_eq!(r["type"], "room", "{r}");
        r["room"]["id"].as_u64().unwrap()
    }

    pub async fn join(&mut self, room: u64, seat: Option<u8>) -> u8 {
        let mut m = json!({"type": "join", "room": room});
        if let Some(s) = seat {
            m["seat"] = json!(s);
        }
        let r = self.request(m).await;
        assert_eq!(r["type"], "seated", "{r}");
        r["seat"].as_u64().unwrap() as u8
    }

    pub async fn ready(&mut self, room: u64) {
        let r = self.request(json!({"type": "ready", "room": room})).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
}

/// A deterministic pick among legal moves.
pub fn pick(moves: &Value, salt: u64) -> Value {
    let list = moves.as_array().expect("legal moves");
    assert!(!list.is_empty());
    list[(salt as usize) % list.len()].clone()
}

/// Answers prompts (of either family, with a `move` of the prompt's
/// family) with legal moves until `game-over`; returns the client and the
/// game-over frame.
pub async fn play_until_over(mut c: Client, room: u64, mut salt: u64) -> (Client, Value) {
    loop {
        let v = c.recv().await;
        match v["type"].as_str().unwrap() {
            "prompt" => {
                assert_eq!(v["room"], json!(room));
                salt = salt.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let m = pick(&v["legal-moves"], salt >> 33);
                let family = &v["family"];
                c.send(json!({"type": "move", "family": family, "room": room, "prompt": v["prompt"], "move": m})).await;
            }
            "game-over" => return (c, v),
            "room-closed" | "error" => panic!("unexpected: {v}"),
            _ => {}
        }
    }
}

/// Creates a room from `spec` with the first client, seats client `i` at
/// seat `i` and says ready for each (the match starts); returns the room.
pub async fn seat_all(clients: &mut [Client], spec: Value) -> u64 {
    let room = clients[0].create_room(spec).await;
    for (i, c) in clients.iter_mut().enumerate() {
        assert_eq!(c.join(room, Some(i as u8)).await, i as u8);
    }
    for c in clients.iter_mut() {
        c.ready(room).await;
    }
    room
}

/// Plays every client to the end of the match in parallel; returns the
/// clients (in order) and the stored game id.
pub async fn play_out(clients: Vec<Client>, room: u64) -> (Vec<Client>, i64) {
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(play_until_over(c, room, i as u64 * 7919 + 1)))
        .collect();
    let mut out = vec![];
    let mut id = None;
    for t in tasks {
        let (c, over) = t.await.expect("player task");
        let g = over["game"].as_i64().expect("game stored");
        assert!(id.is_none() || id == Some(g));
        id = Some(g);
        out.push(c);
    }
    (out, id.unwrap())
}

/// [`play_out`] with a spectator of the room reading its frames meanwhile
/// (a reader that waited for the end would be closed as a slow consumer in
/// a long match); returns the players, the spectator and the stored game id.
pub async fn play_out_watched(players: Vec<Client>, room: u64, mut spectator: Client) -> (Vec<Client>, Client, i64) {
    let watching = tokio::spawn(async move {
        spectator.recv_type("game-over").await;
        spectator
    });
    let (players, game_id) = play_out(players, room).await;
    (players, watching.await.unwrap(), game_id)
}

/// The results a tournament recorded, straight from SQLite, in record order.
pub async fn stored_results(pool: &sqlx::AnyPool, tournament: i64) -> Vec<capicua_tournament::MatchResult> {
    use sqlx::Row;
    sqlx::query("SELECT result_json FROM tournament_matches WHERE tournament_id = $1 ORDER BY seq")
        .bind(tournament)
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_str(r.get::<&str, _>(0)).unwrap())
        .collect()
}

/// Runs each named test (an `async fn(String)` taking a `--database`
/// value) once on a fresh SQLite file (module `sqlite`) and once on a fresh
/// database of a real PostgreSQL server (module `postgres`; skipped with a
/// message where PostgreSQL is not installed, unless
/// `CAPICUA_REQUIRE_POSTGRES=1`).
#[allow(unused_macros)]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::temp_db().to_str().unwrap().to_string()).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(pg) = capicua_pgtest::require(concat!("postgres::", stringify!($name))) else {
                        return;
                    };
                    super::$name(pg.fresh_database()).await
                }
            )*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both;

/// Remote bots (in-process `capicua-bot` clients, playing `heuristic`)
/// awaiting the tables of `tournament`, one per token: bot `i` waits on
/// `servers[i % len]` and fails over to the others in turn. Each task ends
/// when its server says the tournament finished.
pub fn await_spread(
    servers: &[String],
    tokens: &[String],
    tournament: i64,
) -> Vec<tokio::task::JoinHandle<Result<(), capicua_bot::RemoteError>>> {
    let tally = std::sync::Arc::new(capicua_bot::remote::Tally::default());
    tokens
        .iter()
        .enumerate()
        .map(|(i, token)| {
            let n = servers.len();
            let cfg = capicua_bot::remote::AwaitConfig {
                server: servers[i % n].clone(),
                token: token.clone(),
                strategy: "heuristic".into(),
                tournament: Some(tournament),
                fallbacks: (1..n).map(|k| servers[(i + k) % n].clone()).collect(),
            };
            tokio::spawn(capicua_bot::remote::await_assignments(cfg, tally.clone()))
        })
        .collect()
}

/// Checks that tournament `id` finished and that its standings view
/// (rank, entrant, points) is `Tournament::replay` of its stored results.
pub async fn check_standings_replay(pool: &sqlx::AnyPool, id: i64, config: capicua_tournament::Config) {
    use sqlx::Row;
    let results = stored_results(pool, id).await;
    let t = capicua_tournament::Tournament::replay(config, &results).unwrap();
    assert!(t.is_finished());
    let view: Vec<(i64, String, i64)> =
        sqlx::query("SELECT rank, entrant, points FROM tournament_standings WHERE tournament_id = $1")
            .bind(id)
            .fetch_all(pool)
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
    let want: Vec<(i64, String, i64)> =
        t.standings().iter().map(|s| (s.rank as i64, s.name.clone(), s.points)).collect();
    assert_eq!(view, want);
}

/// The players of `clients` seated in `round` (a tournament detail's
/// round), each playing its table out from its assignment.
pub async fn play_round(clients: &mut std::collections::HashMap<String, Client>, round: &Value) {
    let n = round["number"].as_u64().unwrap();
    let seated: Vec<String> = round["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["seats"].as_array().unwrap().iter().map(|s| s["player"].as_str().unwrap().to_string()))
        .filter(|p| clients.contains_key(p))
        .collect();
    let mut tasks = Vec::new();
    for (i, name) in seated.into_iter().enumerate() {
        let mut c = clients.remove(&name).unwrap();
        tasks.push(tokio::spawn(async move {
            let a = c.recv_type("assignment").await;
            assert_eq!(a["round"], json!(n), "{a}");
            let room = a["room"].as_u64().unwrap();
            c.join(room, Some(a["seat"].as_u64().unwrap() as u8)).await;
            c.ready(room).await;
            let (c, _) = play_until_over(c, room, i as u64 * 31 + n).await;
            (name, c)
        }));
    }
    for t in tasks {
        let (name, c) = t.await.expect("a player's table");
        clients.insert(name, c);
    }
}

/// Registers `names` (their registering connections closed); their tokens.
pub async fn register(server: &TestServer, names: &[&str]) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    for name in names {
        let (_, token) = server.player(name).await;
        out.insert(name.to_string(), token);
    }
    out
}
