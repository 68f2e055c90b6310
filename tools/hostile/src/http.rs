//! The server's addresses, and a bare HTTP/1.1 client over a TCP socket:
//! attacks need requests they can stop reading, hang up or hold open,
//! which a full client library would hide.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Where the server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// `HOST:PORT`, for TCP and the `Host` header.
    pub authority: String,
    /// `ws://HOST:PORT/ws`.
    pub ws: String,
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
        Ok(Server { authority: authority.to_string(), ws: format!("ws://{authority}/ws") })
    }

    /// A new TCP connection to the server.
    pub async fn tcp(&self) -> std::io::Result<TcpStream> {
        TcpStream::connect(&self.authority).await
    }

    /// A new TCP connection whose receive buffer is at most `bytes` (the
    /// kernel doubles it and keeps a floor of a couple of KiB): a client
    /// that reads nothing stops the server's writes soonest.
    pub async fn tcp_small_window(&self, bytes: u32) -> std::io::Result<TcpStream> {
        let addr = tokio::net::lookup_host(&self.authority)
            .await?
            .next()
            .ok_or_else(|| std::io::Error::other(format!("{} resolves to nothing", self.authority)))?;
        let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        // Before connecting, so the window offered in the handshake is small.
        socket.set_recv_buffer_size(bytes)?;
        socket.connect(addr).await
    }

    /// The text of a GET request for `path` (the connection closes after
    /// the answer).
    pub fn get_request(&self, path: &str) -> String {
        format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.authority)
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

/// GETs `path` and reads the whole answer, within `timeout` (an error
/// otherwise; the caller tells timeouts apart with [`is_timeout`]).
pub async fn get(server: &Server, path: &str, timeout: Duration) -> anyhow::Result<Reply> {
    let t0 = Instant::now();
    let exchange = async {
        let mut tcp = server.tcp().await.context("connect")?;
        tcp.write_all(server.get_request(path).as_bytes()).await.context("send")?;
        // Read to the end (the request asked the server to close), keeping
        // the start: the status line and a little of the body.
        let mut kept = Vec::with_capacity(1024);
        let mut buf = vec![0u8; 64 * 1024];
        let mut bytes = 0;
        loop {
            let n = tcp.read(&mut buf).await.context("receive")?;
            if n == 0 {
                break;
            }
            bytes += n;
            if kept.len() < 4096 {
                kept.extend_from_slice(&buf[..n.min(4096 - kept.len())]);
            }
        }
        let text = String::from_utf8_lossy(&kept);
        let status = text.lines().next().and_then(status_code).context("no HTTP status line")?;
        let head = text.split_once("\r\n\r\n").map_or("", |(_, body)| body).chars().take(200).collect();
        anyhow::Ok(Reply { status, bytes, head, elapsed: t0.elapsed() })
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(reply) => reply,
        Err(_) => Err(TimedOut(timeout).into()),
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
        assert_eq!(s, Server { authority: "127.0.0.1:18080".into(), ws: "ws://127.0.0.1:18080/ws".into() });
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
}
