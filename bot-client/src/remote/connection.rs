//! A WebSocket connection speaking the protocol.

use capicua_protocol::{ClientFrame, ClientMsg, PROTOCOL_VERSION, PlayerInfo, SeatRef, ServerFrame, ServerMsg};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::CONNECT_TIMEOUT;
use super::error::{RemoteError, unexpected};
use crate::transport::{ServerAddr, Transport};

/// What a failed WebSocket handshake with `url` (the TCP or Unix
/// connection made) means: an HTTP answer other than the upgrade, a
/// connection cut before any answer (nobody really there: retry), or an
/// answer that is not a WebSocket server's.
fn handshake_error(url: String, e: tokio_tungstenite::tungstenite::Error) -> RemoteError {
    use tokio_tungstenite::tungstenite::Error as WsError;
    use tokio_tungstenite::tungstenite::error::ProtocolError;
    match e {
        WsError::Http(response) => RemoteError::Http {
            url,
            status: response.status().as_u16(),
            reason: response.status().canonical_reason().unwrap_or("").to_string(),
        },
        WsError::Io(_)
        | WsError::ConnectionClosed
        | WsError::AlreadyClosed
        | WsError::Protocol(ProtocolError::HandshakeIncomplete) => RemoteError::HandshakeCut,
        WsError::Protocol(detail) => RemoteError::Handshake { url, detail },
        e => e.into(),
    }
}

/// What a connection asks for in its `hello` (each off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Greeting {
    /// Prompts without the view: for a bot that chooses from the legal
    /// moves alone, or keeps its own view from the events.
    pub lean_prompts: bool,
    /// Events may wait for the next prompt or reply.
    pub batch_events: bool,
    /// No `accepted` for a legal move sent without an id.
    pub skip_accepted: bool,
}

impl Greeting {
    /// Full prompts with batched events: what a bot that reads its view needs.
    pub const BATCHED: Greeting = Greeting { lean_prompts: false, batch_events: true, skip_accepted: false };
}

/// A WebSocket connection speaking the protocol.
pub struct Connection {
    ws: WebSocketStream<Transport>,
    next_id: u64,
    /// The server's `site`, once its `welcome` said it.
    site: Option<String>,
}

impl Connection {
    /// Connects to `ws://HOST:PORT/PATH` (TCP, Nagle off: frames are small
    /// and latency matters) or `unix:PATH` (a Unix domain socket), within
    /// [`CONNECT_TIMEOUT`].
    pub async fn connect(server: &str) -> Result<Connection, RemoteError> {
        let addr = ServerAddr::parse(server)?;
        tokio::time::timeout(CONNECT_TIMEOUT, Connection::connect_to(&addr)).await.map_err(|_| RemoteError::Timeout)?
    }

    async fn connect_to(addr: &ServerAddr) -> Result<Connection, RemoteError> {
        use tokio_tungstenite::tungstenite::Error as WsError;
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        // Small read buffer: the transport zero-fills it on every read.
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
        let (request, stream, url) = match addr {
            #[cfg(not(unix))]
            ServerAddr::Unix { path } => {
                let e =
                    std::io::Error::new(std::io::ErrorKind::Unsupported, format!("unix:{path}: no Unix sockets here"));
                return Err(WsError::Io(e).into());
            }
            #[cfg(unix)]
            ServerAddr::Unix { path } => {
                let unix = tokio::net::UnixStream::connect(path).await.map_err(WsError::Io)?;
                // The handshake still names a host and a path; the socket
                // decides where it goes.
                ("ws://localhost/ws".into_client_request()?, Transport::Unix(unix), format!("unix:{path}"))
            }
            ServerAddr::Ws { url, host, port, .. } => {
                let tcp = TcpStream::connect((host.as_str(), *port)).await.map_err(WsError::Io)?;
                tcp.set_nodelay(true).map_err(WsError::Io)?;
                (url.as_str().into_client_request()?, Transport::Tcp(tcp), url.clone())
            }
        };
        let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, Some(config))
            .await
            .map_err(|e| handshake_error(url, e))?;
        Ok(Connection { ws, next_id: 0, site: None })
    }

    /// Sends a message with a fresh request id, returning the id.
    pub async fn send(&mut self, msg: ClientMsg) -> Result<u64, RemoteError> {
        self.next_id += 1;
        let text = serde_json::to_string(&ClientFrame::new(Some(self.next_id), msg))?;
        self.ws.send(Message::Text(text.into())).await?;
        Ok(self.next_id)
    }

    /// The next server frame; a close frame becomes an error carrying its code.
    pub async fn recv(&mut self) -> Result<ServerFrame, RemoteError> {
        let text = self.recv_text().await?;
        Ok(serde_json::from_str(&text)?)
    }

    /// Sends a request and waits for its reply, handing other frames to `other`.
    pub async fn request(
        &mut self,
        msg: ClientMsg,
        mut other: impl FnMut(ServerMsg),
    ) -> Result<ServerMsg, RemoteError> {
        let id = self.send(msg).await?;
        loop {
            let f = self.recv().await?;
            if f.id == Some(id) {
                return Ok(f.msg);
            }
            other(f.msg);
        }
    }

    /// Says hello; returns the rooms where this player already sits.
    pub async fn hello(&mut self, token: Option<String>) -> Result<Vec<SeatRef>, RemoteError> {
        self.hello_with(token, Greeting::default()).await
    }

    /// Says hello with the options given; returns the rooms where this
    /// player already sits.
    pub async fn hello_with(&mut self, token: Option<String>, how: Greeting) -> Result<Vec<SeatRef>, RemoteError> {
        Ok(self.greet(token, how).await?.1)
    }

    /// Where people open the server's pages, as its `welcome` said (`None`
    /// before the welcome, or from a server that does not say).
    pub fn site(&self) -> Option<&str> {
        self.site.as_deref()
    }

    /// Says hello as [`Connection::hello_with`] does; returns who the
    /// connection acts for and the rooms where that player already sits.
    pub async fn greet(
        &mut self,
        token: Option<String>,
        how: Greeting,
    ) -> Result<(PlayerInfo, Vec<SeatRef>), RemoteError> {
        let Greeting { lean_prompts, batch_events, skip_accepted } = how;
        let hello = ClientMsg::Hello { version: PROTOCOL_VERSION, token, lean_prompts, batch_events, skip_accepted };
        match self.request(hello, |_| {}).await? {
            ServerMsg::Welcome { player, seats, site, .. } => {
                self.site = site;
                Ok((player, seats))
            }
            other => Err(unexpected("hello", other)),
        }
    }

    /// Sends an already serialized client frame (no request id
    /// bookkeeping): a `String` (moved, not copied) or shared bytes.
    pub async fn send_text(
        &mut self,
        text: impl Into<tokio_tungstenite::tungstenite::Utf8Bytes>,
    ) -> Result<(), RemoteError> {
        self.ws.send(Message::Text(text.into())).await?;
        Ok(())
    }

    /// The next text frame, undecoded; a close frame becomes an error
    /// carrying its code.
    pub async fn recv_text(&mut self) -> Result<tokio_tungstenite::tungstenite::Utf8Bytes, RemoteError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(t),
                Some(Ok(Message::Close(Some(c)))) => {
                    return Err(RemoteError::Refused { code: c.code.into(), reason: c.reason.to_string() });
                }
                Some(Ok(Message::Close(None))) | None => return Err(RemoteError::Closed),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
            }
        }
    }

    /// Closes politely.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
