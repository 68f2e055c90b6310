//! Test harness: a real capicua server on port 0 and a JSON WebSocket
//! client to drive it alongside the remote bots under test.
//!
//! A trimmed copy of the server's own test harness: only what the remote
//! bot tests use.
#![allow(dead_code)] // not every test file uses every helper

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

/// How long a client waits for a frame, or a test for a condition, before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

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
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let p = std::env::temp_dir().join(format!("capicua-bot-test-{}-{n}-{nanos}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(temp_db(), Config::default()).await
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

    /// A greeted guest.
    pub async fn guest(&self) -> Client {
        let mut c = Client::connect(&self.url()).await;
        c.hello().await;
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

    /// `GET path` answered 200, as JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let (status, body) = http_request(self.addr, "GET", path, None, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Room `id` as `GET /api/rooms` lists it; panics when it is not listed,
    /// so a check on its seats cannot pass for a room that is gone.
    pub async fn room_info(&self, id: u64) -> Value {
        let rooms = self.get_json("/api/rooms").await;
        let room = rooms.as_array().unwrap().iter().find(|r| r["id"] == json!(id));
        room.unwrap_or_else(|| panic!("room {id} is not listed: {rooms}")).clone()
    }

    /// `POST path` with a JSON body and an optional bearer token: (status, JSON body).
    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let (status, text) = http_request(self.addr, "POST", path, token, Some(body)).await;
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("POST {path}: {e}: {text}")))
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
/// For what the server or the bots do in their own tasks and tell this
/// client nothing about: the test polls the state it can observe instead of
/// sleeping and hoping.
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

/// A minimal HTTP/1.1 request with an optional bearer token and JSON body.
async fn http_request(
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

/// A WebSocket client speaking raw JSON frames.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Frames received but not yet consumed by `recv`.
    queue: std::collections::VecDeque<Value>,
}

impl Client {
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await.expect("connect");
        Client { ws, next_id: 0, queue: Default::default() }
    }

    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::Text(v.to_string().into())).await.unwrap();
    }

    /// The next frame.
    pub async fn recv(&mut self) -> Value {
        if let Some(v) = self.queue.pop_front() {
            return v;
        }
        loop {
            let next =
                tokio::time::timeout(WAIT, self.ws.next()).await.unwrap_or_else(|_| panic!("no frame within {WAIT:?}"));
            match next {
                Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).expect("server frames are JSON"),
                Some(Ok(Message::Close(c))) => panic!("closed by the server: {c:?}"),
                Some(Ok(_)) => continue,
                Some(Err(e)) => panic!("connection failed: {e}"),
                None => panic!("connection ended"),
            }
        }
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

    /// Hello as a guest.
    pub async fn hello(&mut self) -> Value {
        let r = self.request(json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION})).await;
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
}

/// The results a tournament recorded, straight from SQLite, in record order.
pub async fn stored_results(pool: &sqlx::SqlitePool, tournament: i64) -> Vec<capicua_tournament::MatchResult> {
    use sqlx::Row;
    sqlx::query("SELECT result_json FROM tournament_matches WHERE tournament_id = ? ORDER BY seq")
        .bind(tournament)
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_str(r.get::<&str, _>(0)).unwrap())
        .collect()
}
