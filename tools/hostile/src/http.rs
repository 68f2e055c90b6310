//! The server's addresses, and a bare HTTP/1.1 client over a TCP socket:
//! attacks need requests they can stop reading, hang up or hold open,
//! which a full client library would hide.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};

/// Where the server listens, and which local address connections to it
/// come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// `HOST:PORT`, for TCP and the `Host` header.
    pub authority: String,
    /// `ws://HOST:PORT/ws`.
    pub ws: String,
    /// The local address every connection binds before connecting (the
    /// system's choice when `None`): the server counts connections per
    /// client address, so the probe comes from another one than the
    /// attacks.
    pub from: Option<IpAddr>,
}

impl Server {
    /// From `--server http://HOST:PORT` (a trailing `/` is allowed).
    pub fn parse(base: &str) -> anyhow::Result<Server> {
        let Some(rest) = base.strip_prefix("http://") else {
            bail!("{base:?}: give the server's base URL, http://HOST:PORT");
        };
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains('/') {
            bail!("{base:?}: give the server's base URL, http://HOST:PORT (no path)");
        }
        Ok(Server { authority: authority.to_string(), ws: format!("ws://{authority}/ws"), from: None })
    }

    /// The same server, reached from local address `from`.
    pub fn bound_to(&self, from: IpAddr) -> Server {
        Server { from: Some(from), ..self.clone() }
    }

    /// A socket for the server's address, bound to [`Server::from`] if set.
    async fn socket(&self) -> std::io::Result<(TcpSocket, SocketAddr)> {
        let addr = tokio::net::lookup_host(&self.authority)
            .await?
            .next()
            .ok_or_else(|| std::io::Error::other(format!("{} resolves to nothing", self.authority)))?;
        let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        if let Some(from) = self.from {
            socket.bind(SocketAddr::new(from, 0))?;
        }
        Ok((socket, addr))
    }

    /// A new TCP connection to the server.
    pub async fn tcp(&self) -> std::io::Result<TcpStream> {
        let (socket, addr) = self.socket().await?;
        socket.connect(addr).await
    }

    /// A new TCP connection whose receive buffer is at most `bytes` (the
    /// kernel doubles it and keeps a floor of a couple of KiB): a client
    /// that reads nothing stops the server's writes soonest.
    pub async fn tcp_small_window(&self, bytes: u32) -> std::io::Result<TcpStream> {
        let (socket, addr) = self.socket().await?;
        // Before connecting, so the window offered in the handshake is small.
        socket.set_recv_buffer_size(bytes)?;
        socket.connect(addr).await
    }

    /// The text of a GET request for `path` (the connection closes after
    /// the answer).
    pub fn get_request(&self, path: &str) -> String {
        self.request("GET", path, None, true, "")
    }

    /// The text of a request: `bearer` as its `Authorization`, `close` to
    /// ask the server to close after the answer, `body` (JSON) if not empty.
    pub fn request(&self, method: &str, path: &str, bearer: Option<&str>, close: bool, body: &str) -> String {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.authority);
        if let Some(token) = bearer {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        if close {
            head.push_str("Connection: close\r\n");
        }
        if !body.is_empty() || method == "POST" {
            head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
        }
        format!("{head}\r\n{body}")
    }
}

/// An HTTP answer, read to its end.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Bytes received, headers included.
    pub bytes: usize,
    /// The first bytes of the body (for an error's message).
    pub head: String,
    /// From sending the request to the end of the answer.
    pub elapsed: Duration,
}

/// The status code of an HTTP/1.x status line (`HTTP/1.1 200 OK`).
pub fn status_code(line: &str) -> Option<u16> {
    let mut parts = line.split_whitespace();
    if !parts.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let code = parts.next()?;
    if code.len() != 3 {
        return None;
    }
    code.parse().ok()
}

/// An answer as read off a connection.
#[derive(Clone, Debug, Default)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Bytes received, headers included.
    pub bytes: usize,
    /// The body's first bytes, as many as the reader was told to keep.
    pub body: Vec<u8>,
    /// The server closes the connection after it (`Connection: close`, or
    /// a body that ends with the connection).
    pub close: bool,
}

/// Reads one answer: the status line and headers, then the body by its
/// `Content-Length`, in chunks, or to the end of the stream; keeps the
/// body's first `keep` bytes.
pub async fn read_response<R: AsyncBufRead + Unpin>(r: &mut R, keep: usize) -> anyhow::Result<Response> {
    let mut out = Response::default();
    let mut line = String::new();
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        let n = r.read_line(&mut line).await.context("receive")?;
        anyhow::ensure!(n > 0, "closed before the answer ended");
        out.bytes += n;
        let text = line.trim_end();
        if out.status == 0 {
            out.status = status_code(text).context("no HTTP status line")?;
        } else if text.is_empty() {
            break;
        } else if let Some((name, value)) = text.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_ascii_lowercase());
            match name.as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.contains("chunked"),
                "connection" => out.close |= value.contains("close"),
                _ => {}
            }
        }
    }
    if chunked {
        loop {
            line.clear();
            out.bytes += r.read_line(&mut line).await.context("receive")?;
            let size = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16).with_context(|| format!("bad chunk size {line:?}"))?;
            if size == 0 {
                break;
            }
            read_body(r, size, keep, &mut out).await?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).await.context("receive")?;
            out.bytes += 2;
        }
        // Trailers (none, usually), then a blank line.
        loop {
            line.clear();
            let n = r.read_line(&mut line).await.context("receive")?;
            out.bytes += n;
            if n == 0 || line.trim().is_empty() {
                break;
            }
        }
    } else if let Some(length) = length {
        read_body(r, length, keep, &mut out).await?;
    } else {
        read_body(r, usize::MAX, keep, &mut out).await?;
        out.close = true;
    }
    Ok(out)
}

/// Reads `n` bytes of a body (to the end of the stream for `usize::MAX`),
/// keeping them up to `keep`.
async fn read_body<R: AsyncBufRead + Unpin>(
    r: &mut R,
    n: usize,
    keep: usize,
    out: &mut Response,
) -> anyhow::Result<()> {
    let mut left = n;
    let mut buf = vec![0u8; 64 * 1024];
    while left > 0 {
        let got = r.read(&mut buf[..left.min(64 * 1024)]).await.context("receive")?;
        if got == 0 {
            anyhow::ensure!(n == usize::MAX, "closed before the answer ended");
            break;
        }
        out.bytes += got;
        left -= got;
        let room = keep.saturating_sub(out.body.len());
        out.body.extend_from_slice(&buf[..got.min(room)]);
    }
    Ok(())
}

/// Sends `request` on a new connection and reads the answer, keeping
/// `keep` bytes of its body, within `timeout`.
async fn exchange(server: &Server, request: String, keep: usize, timeout: Duration) -> anyhow::Result<Response> {
    let exchange = async {
        let mut tcp = server.tcp().await.context("connect")?;
        tcp.write_all(request.as_bytes()).await.context("send")?;
        read_response(&mut BufReader::new(tcp), keep).await
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(reply) => reply,
        Err(_) => Err(TimedOut(timeout).into()),
    }
}

/// GETs `path` and reads the whole answer, within `timeout` (an error
/// otherwise; the caller tells timeouts apart with [`is_timeout`]).
pub async fn get(server: &Server, path: &str, timeout: Duration) -> anyhow::Result<Reply> {
    get_as(server, path, None, timeout).await
}

/// [`get`] with `bearer` as the request's credential.
pub async fn get_as(server: &Server, path: &str, bearer: Option<&str>, timeout: Duration) -> anyhow::Result<Reply> {
    let t0 = Instant::now();
    let r = exchange(server, server.request("GET", path, bearer, true, ""), 4096, timeout).await?;
    let head = String::from_utf8_lossy(&r.body).chars().take(200).collect();
    Ok(Reply { status: r.status, bytes: r.bytes, head, elapsed: t0.elapsed() })
}

/// The most of a JSON answer read.
const JSON_KEEP: usize = 64 << 20;

/// GETs `path` and reads its JSON body (`Null` if it is none): the status
/// and the value.
pub async fn get_json(server: &Server, path: &str, timeout: Duration) -> anyhow::Result<(u16, Value)> {
    let r = exchange(server, server.request("GET", path, None, true, ""), JSON_KEEP, timeout).await?;
    Ok((r.status, serde_json::from_slice(&r.body).unwrap_or(Value::Null)))
}

/// POSTs the JSON `body` to `path` with `bearer`: the status and the JSON
/// answer (`Null` if it is none).
pub async fn post_json(
    server: &Server,
    path: &str,
    bearer: Option<&str>,
    body: &str,
    timeout: Duration,
) -> anyhow::Result<(u16, Value)> {
    let r = exchange(server, server.request("POST", path, bearer, true, body), JSON_KEEP, timeout).await?;
    Ok((r.status, serde_json::from_slice(&r.body).unwrap_or(Value::Null)))
}

/// GETs `/metrics`: the text, within `timeout`.
pub async fn metrics(server: &Server, timeout: Duration) -> anyhow::Result<String> {
    let r = exchange(server, server.get_request("/metrics"), 1 << 20, timeout).await?;
    anyhow::ensure!(r.status == 200, "/metrics: HTTP {}", r.status);
    Ok(String::from_utf8_lossy(&r.body).into_owned())
}

/// The value of metric `name` (no labels) in a Prometheus text.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// One kept-alive connection for requests one after another; a new one
/// after the server closes it or a request fails.
pub struct KeepAlive {
    server: Server,
    conn: Option<BufReader<TcpStream>>,
    /// Connections opened.
    pub opened: u64,
}

impl KeepAlive {
    /// No connection yet: the first request opens it.
    pub fn new(server: Server) -> KeepAlive {
        KeepAlive { server, conn: None, opened: 0 }
    }

    /// GETs `path` and reads the whole answer (keeping `keep` bytes of it).
    pub async fn get(&mut self, path: &str, keep: usize) -> anyhow::Result<Response> {
        if self.conn.is_none() {
            self.conn = Some(BufReader::new(self.server.tcp().await.context("connect")?));
            self.opened += 1;
        }
        let conn = self.conn.as_mut().expect("just opened");
        let request = self.server.request("GET", path, None, false, "");
        let answer = async {
            conn.get_mut().write_all(request.as_bytes()).await.context("send")?;
            read_response(conn, keep).await
        };
        let answer = answer.await;
        if answer.as_ref().map_or(true, |r| r.close) {
            self.conn = None;
        }
        answer
    }
}

/// A request that got no whole answer in time.
#[derive(Debug)]
pub struct TimedOut(pub Duration);

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no answer within {:.1} s", self.0.as_secs_f64())
    }
}

impl std::error::Error for TimedOut {}

/// Whether an error of [`get`] is its timeout.
pub fn is_timeout(e: &anyhow::Error) -> bool {
    e.downcast_ref::<TimedOut>().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_url_gives_both_addresses() {
        let s = Server::parse("http://127.0.0.1:18080/").unwrap();
        assert_eq!(s, Server { authority: "127.0.0.1:18080".into(), ws: "ws://127.0.0.1:18080/ws".into(), from: None });
        assert!(s.get_request("/healthz").starts_with("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:18080\r\n"));
        assert!(Server::parse("ws://127.0.0.1:1/ws").is_err());
        assert!(Server::parse("http://h:1/api").is_err());
        assert!(Server::parse("http://").is_err());
    }

    #[test]
    fn status_lines_give_their_code() {
        assert_eq!(status_code("HTTP/1.1 200 OK"), Some(200));
        assert_eq!(status_code("HTTP/1.0 503 Service Unavailable"), Some(503));
        assert_eq!(status_code("HTTP/2 200"), None);
        assert_eq!(status_code("SSH-2.0-x"), None);
        assert_eq!(status_code("HTTP/1.1 20 OK"), None);
    }

    #[tokio::test]
    async fn answers_are_read_by_length_in_chunks_or_to_the_end() {
        let read = |text: &'static str, keep| async move {
            let mut r = BufReader::new(text.as_bytes());
            let answer = read_response(&mut r, keep).await.unwrap();
            let mut rest = String::new();
            r.read_to_string(&mut rest).await.unwrap();
            (answer, rest)
        };
        let (a, rest) = read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", 100).await;
        assert_eq!((a.status, a.body.as_slice(), a.close, rest.as_str()), (200, &b"hello"[..], false, "NEXT"));
        let chunked = "HTTP/1.1 429 Too Many\r\ntransfer-encoding: chunked\r\nConnection: close\r\n\r\n\
                       3\r\nabc\r\n2\r\nde\r\n0\r\n\r\nNEXT";
        let (a, rest) = read(chunked, 4).await;
        assert_eq!((a.status, a.body.as_slice(), a.close, rest.as_str()), (429, &b"abcd"[..], true, "NEXT"));
        let (a, _) = read("HTTP/1.0 200 OK\r\n\r\nto the end", 100).await;
        assert_eq!((a.body.as_slice(), a.close), (&b"to the end"[..], true));
    }

    #[test]
    fn metrics_are_read_by_name() {
        let text = "# HELP capicua_searches x\ncapicua_searches 3\ncapicua_searches_total 9\n";
        assert_eq!(metric(text, "capicua_searches"), Some(3.0));
        assert_eq!(metric(text, "capicua_cpu_slots_waiting"), None);
    }
}
