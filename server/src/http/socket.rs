//! The WebSocket behind `GET /ws`: the HTTP/1 upgrade ([`Upgrade`]) and a
//! socket ([`Socket`]) that carries axum's [`Message`]s over
//! tokio-tungstenite, a long text leaving as fragments.
//!
//! Why not axum's own `WebSocket`: tungstenite formats every outgoing frame
//! into one write buffer that keeps its capacity for the connection's life,
//! so each connection held a buffer as large as the largest batch it ever
//! sent (a hand's end with its final position is several KiB), tens of
//! thousands of connections over. Here a text longer than [`FRAGMENT`]
//! bytes leaves as a text frame and continuation frames, and the buffer is
//! written out once it passes [`FRAGMENT`] bytes: it stays near 2 KiB. The
//! message a client reads is the same (RFC 6455, section 5.4).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::extract::FromRequestParts;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, Utf8Bytes as TsUtf8Bytes};
use tokio_tungstenite::tungstenite::protocol::{CloseFrame as TsCloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error, Message as TsMessage};

/// The longest text sent as one frame, and the write buffer's threshold: a
/// batch of frames is written out once it passes this many bytes.
pub(crate) const FRAGMENT: usize = 1024;

/// A request to upgrade to a WebSocket (HTTP/1.1, version 13), checked as
/// axum's `WebSocketUpgrade` checks it.
pub(crate) struct Upgrade {
    key: HeaderValue,
    on_upgrade: OnUpgrade,
}

/// Why a request to `/ws` is no WebSocket upgrade.
pub(crate) struct NotUpgrade(StatusCode, &'static str);

impl IntoResponse for NotUpgrade {
    fn into_response(self) -> Response {
        (self.0, self.1).into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = NotUpgrade;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, NotUpgrade> {
        if parts.method != Method::GET {
            return Err(NotUpgrade(StatusCode::METHOD_NOT_ALLOWED, "Request method must be `GET`"));
        }
        if !header_has_token(&parts.headers, header::CONNECTION, "upgrade") {
            return Err(NotUpgrade(StatusCode::BAD_REQUEST, "Connection header did not include 'upgrade'"));
        }
        if !header_is(&parts.headers, header::UPGRADE, "websocket") {
            return Err(NotUpgrade(StatusCode::BAD_REQUEST, "`Upgrade` header did not include 'websocket'"));
        }
        if !header_is(&parts.headers, header::SEC_WEBSOCKET_VERSION, "13") {
            return Err(NotUpgrade(StatusCode::BAD_REQUEST, "`Sec-WebSocket-Version` header did not include '13'"));
        }
        let key = parts
            .headers
            .get(header::SEC_WEBSOCKET_KEY)
            .cloned()
            .ok_or(NotUpgrade(StatusCode::BAD_REQUEST, "`Sec-WebSocket-Key` header missing"))?;
        let on_upgrade = parts
            .extensions
            .remove::<OnUpgrade>()
            .ok_or(NotUpgrade(StatusCode::UPGRADE_REQUIRED, "WebSocket request couldn't be upgraded"))?;
        Ok(Upgrade { key, on_upgrade })
    }
}

impl Upgrade {
    /// Answers `101 Switching Protocols` and, once the connection is
    /// upgraded, runs `callback` with the socket on a task of its own.
    pub(crate) fn on_upgrade<F, Fut>(self, read_buffer: usize, max_message: usize, callback: F) -> Response
    where
        F: FnOnce(Socket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let config = WebSocketConfig::default()
            .read_buffer_size(read_buffer)
            .write_buffer_size(FRAGMENT)
            .max_message_size(Some(max_message))
            .max_frame_size(Some(max_message));
        let on_upgrade = self.on_upgrade;
        tokio::spawn(async move {
            // A client that went away before the upgrade: nothing to serve.
            let Ok(upgraded) = on_upgrade.await else { return };
            let inner = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config)).await;
            callback(Socket { inner }).await;
        });
        let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
        let headers = response.headers_mut();
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        if let Ok(accept) = HeaderValue::from_str(&accept) {
            headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
        }
        response
    }
}

fn header_is(headers: &HeaderMap, name: HeaderName, value: &str) -> bool {
    headers.get(name).is_some_and(|h| h.as_bytes().eq_ignore_ascii_case(value.as_bytes()))
}

fn header_has_token(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .any(|h| h.to_str().is_ok_and(|h| h.split(',').any(|t| t.trim().eq_ignore_ascii_case(token))))
}

/// A server-side WebSocket as a `Stream` and a `Sink` of axum's
/// [`Message`]s.
pub(crate) struct Socket {
    inner: WebSocketStream<TokioIo<Upgraded>>,
}

impl Stream for Socket {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Raw frames are not surfaced by tungstenite when reading: skip them.
        while let Some(next) = ready!(self.inner.poll_next_unpin(cx)) {
            match next {
                Ok(msg) => match from_tungstenite(msg)? {
                    Some(msg) => return Poll::Ready(Some(Ok(msg))),
                    None => continue,
                },
                Err(e) => return Poll::Ready(Some(Err(e))),
            }
        }
        Poll::Ready(None)
    }
}

impl Sink<Message> for Socket {
    type Error = Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_ready_unpin(cx)
    }

    fn start_send(mut self: Pin<&mut Self>, msg: Message) -> Result<(), Error> {
        match msg {
            Message::Text(text) if text.len() > FRAGMENT => {
                // tungstenite queues every frame it is given (a full socket
                // only stops the next `poll_ready`), so the fragments go in
                // one go and the message is never interleaved.
                let mut first = true;
                for_each_fragment(Bytes::from(text), |chunk, last| {
                    let opcode = if first { OpCode::Data(Data::Text) } else { OpCode::Data(Data::Continue) };
                    first = false;
                    self.inner.start_send_unpin(TsMessage::Frame(Frame::message(chunk, opcode, last)))
                })
            }
            msg => self.inner.start_send_unpin(into_tungstenite(msg)?),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_flush_unpin(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.inner.poll_close_unpin(cx)
    }
}

/// Calls `send(chunk, is_last)` for the pieces of at most [`FRAGMENT`]
/// bytes that `text` splits into, each cut at a character boundary (a
/// client may check each fragment's UTF-8 as it comes).
fn for_each_fragment(text: Bytes, mut send: impl FnMut(Bytes, bool) -> Result<(), Error>) -> Result<(), Error> {
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(FRAGMENT);
        // A continuation byte is 0b10xx_xxxx: step back to a character's start.
        while cut < rest.len() && cut > 0 && (rest[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        let chunk = rest.split_to(cut);
        send(chunk, rest.is_empty())?;
    }
    Ok(())
}

fn utf8(bytes: Bytes) -> Result<TsUtf8Bytes, Error> {
    TsUtf8Bytes::try_from(bytes).map_err(|e| Error::Utf8(e.to_string()))
}

fn into_tungstenite(msg: Message) -> Result<TsMessage, Error> {
    Ok(match msg {
        Message::Text(text) => TsMessage::Text(utf8(Bytes::from(text))?),
        Message::Binary(data) => TsMessage::Binary(data),
        Message::Ping(data) => TsMessage::Ping(data),
        Message::Pong(data) => TsMessage::Pong(data),
        Message::Close(Some(close)) => TsMessage::Close(Some(TsCloseFrame {
            code: CloseCode::from(close.code),
            reason: utf8(Bytes::from(close.reason))?,
        })),
        Message::Close(None) => TsMessage::Close(None),
    })
}

fn text(text: TsUtf8Bytes) -> Result<Utf8Bytes, Error> {
    Utf8Bytes::try_from(Bytes::from(text)).map_err(|e| Error::Utf8(e.to_string()))
}

/// A message read, as axum's; `None` for a raw frame.
fn from_tungstenite(msg: TsMessage) -> Result<Option<Message>, Error> {
    Ok(Some(match msg {
        TsMessage::Text(t) => Message::Text(text(t)?),
        TsMessage::Binary(data) => Message::Binary(data),
        TsMessage::Ping(data) => Message::Ping(data),
        TsMessage::Pong(data) => Message::Pong(data),
        TsMessage::Close(Some(close)) => {
            Message::Close(Some(CloseFrame { code: close.code.into(), reason: text(close.reason)? }))
        }
        TsMessage::Close(None) => Message::Close(None),
        TsMessage::Frame(_) => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragments(s: &str) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for_each_fragment(Bytes::copy_from_slice(s.as_bytes()), |chunk, last| {
            out.push((String::from_utf8(chunk.to_vec()).expect("cut at a character boundary"), last));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn a_long_text_splits_into_fragments_at_character_boundaries_that_join_back() {
        // Two-, three- and four-byte characters, so cuts land mid-character.
        let text: String = "ñandú €uro 🂡 dominó ".repeat(200);
        let parts = fragments(&text);
        assert!(parts.len() > 3);
        assert!(parts.iter().all(|(p, _)| !p.is_empty() && p.len() <= FRAGMENT));
        assert_eq!(parts.iter().filter(|(_, last)| *last).count(), 1);
        assert!(parts.last().unwrap().1);
        assert_eq!(parts.iter().map(|(p, _)| p.as_str()).collect::<String>(), text);
        // A text of exactly one fragment is one final frame.
        assert_eq!(fragments(&"x".repeat(FRAGMENT)), vec![("x".repeat(FRAGMENT), true)]);
    }
}
