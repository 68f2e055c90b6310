//! The HTTP client of the commands that talk to a serving server (`health`,
//! an organiser's `tournament` controls): plain `http://`, one request per
//! connection, HTTP/1.1 through hyper, and no more than a few KiB of an
//! answer's body read (a large or endless body is not read at all).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use anyhow::Context;
use hyper::body::Body as _;
use hyper::header::{AUTHORIZATION, CONNECTION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Most bytes of an answer's body kept.
const MOST_BODY: usize = 16 * 1024;

/// Most bytes of the answer's start kept, to name an answer that is not HTTP.
const MOST_HEAD: usize = 512;

/// An answer: its status and (the start of) its body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// Sends one request (`Authorization: Bearer TOKEN` with a token, a JSON
/// body with a body) and returns the answer.
pub(crate) async fn request(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> anyhow::Result<Answer> {
    let target = Target::parse(url)?;
    let stream = TcpStream::connect(&target.address).await.with_context(|| format!("{url}: connecting"))?;
    let head = Arc::new(Mutex::new(Vec::new()));
    let io = TokioIo::new(Recording { stream, head: Arc::clone(&head) });
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, String>(io).await.with_context(|| format!("{url}: connecting"))?;
    let driver = tokio::spawn(connection);
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(target.path)
        .header(HOST, target.authority)
        .header(CONNECTION, "close");
    if let Some(token) = token {
        builder = builder.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    if body.is_some() {
        builder = builder.header(CONTENT_TYPE, "application/json");
    }
    let request = builder.body(body.unwrap_or_default().to_string()).with_context(|| format!("{url}: sending"))?;
    let answer = match sender.send_request(request).await {
        Ok(response) => {
            let status = response.status().as_u16();
            Ok(Answer { status, body: read_body(response.into_body()).await })
        }
        // What came is not an HTTP answer's head (or nothing came): name
        // its first line, as the operator would see it.
        Err(e) if e.is_parse() || e.is_incomplete_message() => {
            let start = head.lock().map(|h| String::from_utf8_lossy(&h).into_owned()).unwrap_or_default();
            let line = start.lines().next().unwrap_or_default().to_string();
            Err(anyhow::anyhow!("{url}: not an HTTP answer: {line:?}"))
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("{url}: reading"))),
    };
    driver.abort();
    answer
}

/// Reads `body` until its end or [`MOST_BODY`] bytes; a reset after the
/// head ends it too: what came is the answer.
async fn read_body(mut body: hyper::body::Incoming) -> String {
    let mut bytes = Vec::new();
    while bytes.len() < MOST_BODY {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Some(Err(_)) | None => break,
        }
    }
    bytes.truncate(MOST_BODY);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where a URL's request goes.
struct Target<'a> {
    /// `HOST:PORT` to connect to.
    address: String,
    /// The URL's authority, for the `Host` header.
    authority: &'a str,
    /// The path (and query).
    path: &'a str,
}

impl<'a> Target<'a> {
    fn parse(url: &'a str) -> anyhow::Result<Target<'a>> {
        let rest = url.strip_prefix("http://").with_context(|| format!("{url}: only http:// URLs can be probed"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        anyhow::ensure!(!authority.is_empty(), "{url}: no host");
        // A bare host means port 80, as in any HTTP client.
        let address = if authority.rsplit_once(':').is_some_and(|(_, port)| port.parse::<u16>().is_ok()) {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Target { address, authority, path })
    }
}

/// A TCP stream that keeps a copy of the first bytes it reads.
struct Recording {
    stream: TcpStream,
    head: Arc<Mutex<Vec<u8>>>,
}

impl AsyncRead for Recording {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        if let Ok(mut head) = self.head.lock() {
            let room = MOST_HEAD.saturating_sub(head.len());
            let new = &buf.filled()[before..];
            head.extend_from_slice(&new[..new.len().min(room)]);
        }
        poll
    }
}

impl AsyncWrite for Recording {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
