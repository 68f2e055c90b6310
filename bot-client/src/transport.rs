//! The byte stream under a remote bot's WebSocket: TCP (`ws://HOST:PORT/ws`)
//! or, on Unix, a Unix domain socket (`unix:PATH`, for a server started with
//! `capicua-server serve --listen unix:PATH` on the same host).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::http::Uri;

/// A server address that cannot be used; retrying cannot fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddrError {
    /// Not a URL at all.
    #[error("{addr:?} is not a server address: give ws://HOST:PORT/ws or unix:PATH")]
    Invalid {
        /// The address as given.
        addr: String,
    },
    /// A scheme other than `ws` (`http`, `https`, none, ...).
    #[error("{addr:?} is not a WebSocket address: the bots speak WebSocket, give ws://HOST:PORT/ws (or unix:PATH)")]
    Scheme {
        /// The address as given.
        addr: String,
    },
    /// `wss://`: this client speaks plain WebSocket only.
    #[error("{addr:?}: this client has no TLS; give the server's plain ws:// address (or unix:PATH)")]
    Tls {
        /// The address as given.
        addr: String,
    },
    /// No host name.
    #[error("{addr:?} names no host: give ws://HOST:PORT/ws")]
    NoHost {
        /// The address as given.
        addr: String,
    },
}

/// Where a server listens, checked before any connection is tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerAddr {
    /// `ws://HOST[:PORT]/PATH`.
    Ws {
        /// The URL as given (for the handshake and for messages).
        url: String,
        /// The host, without IPv6 brackets (for the TCP connection).
        host: String,
        /// The port (80 when the URL gives none).
        port: u16,
        /// `HOST[:PORT]` as written in the URL (for HTTP links).
        authority: String,
    },
    /// `unix:PATH`, a Unix domain socket.
    Unix {
        /// The socket's path.
        path: String,
    },
}

impl ServerAddr {
    /// Checks a `--server` value: `ws://HOST[:PORT]/PATH` or `unix:PATH`.
    pub fn parse(addr: &str) -> Result<ServerAddr, AddrError> {
        if let Some(path) = unix_path(addr) {
            return Ok(ServerAddr::Unix { path: path.to_string() });
        }
        let a = || addr.to_string();
        let uri: Uri = addr.parse().map_err(|_| AddrError::Invalid { addr: a() })?;
        match uri.scheme_str() {
            Some("ws") => {}
            Some("wss") => return Err(AddrError::Tls { addr: a() }),
            Some(_) => return Err(AddrError::Scheme { addr: a() }),
            // `HOST:PORT` without a scheme.
            None if uri.host().is_some() => return Err(AddrError::Scheme { addr: a() }),
            None => return Err(AddrError::Invalid { addr: a() }),
        }
        let Some(authority) = uri.authority() else { return Err(AddrError::NoHost { addr: a() }) };
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        if host.is_empty() {
            return Err(AddrError::NoHost { addr: a() });
        }
        Ok(ServerAddr::Ws {
            url: addr.to_string(),
            host,
            port: uri.port_u16().unwrap_or(80),
            authority: authority.as_str().to_string(),
        })
    }

    /// The WebSocket address of a node named by its base URL, as the
    /// server gives it in an `assignment`'s or a `wrong-node` error's `url`
    /// (`http://HOST:PORT` -> `ws://HOST:PORT/ws`).
    pub fn of_node(base: &str) -> Result<ServerAddr, AddrError> {
        let a = || base.to_string();
        let ws = if let Some(rest) = base.strip_prefix("http://") {
            format!("ws://{}/ws", rest.trim_end_matches('/'))
        } else if base.starts_with("https://") {
            return Err(AddrError::Tls { addr: a() });
        } else {
            return Err(AddrError::Scheme { addr: a() });
        };
        ServerAddr::parse(&ws)
    }

    /// The address as a `--server` value (`ws://...` or `unix:PATH`).
    pub fn as_server(&self) -> String {
        match self {
            ServerAddr::Ws { url, .. } => url.clone(),
            ServerAddr::Unix { path } => format!("unix:{path}"),
        }
    }

    /// Where a person reads stored game `id` (`GET /api/games/{id}` on the
    /// same host and port); `None` for a Unix socket, which has no URL.
    pub fn game_url(&self, id: i64) -> Option<String> {
        match self {
            ServerAddr::Ws { authority, .. } => Some(format!("http://{authority}/api/games/{id}")),
            ServerAddr::Unix { .. } => None,
        }
    }
}

/// A connected byte stream.
pub enum Transport {
    /// TCP (Nagle off).
    Tcp(TcpStream),
    /// A Unix domain socket.
    #[cfg(unix)]
    Unix(tokio::net::UnixStream),
}

/// The socket path of a `unix:PATH` server address, or `None` for a URL.
pub fn unix_path(server: &str) -> Option<&str> {
    server.strip_prefix("unix:")
}

impl AsyncRead for Transport {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            #[cfg(unix)]
            Transport::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Transport {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            #[cfg(unix)]
            Transport::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_flush(cx),
            #[cfg(unix)]
            Transport::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(unix)]
            Transport::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_url_names_its_websocket() {
        let addr = ServerAddr::of_node("http://10.0.0.2:8080").unwrap();
        assert_eq!(addr.as_server(), "ws://10.0.0.2:8080/ws");
        assert!(matches!(addr, ServerAddr::Ws { port: 8080, .. }));
        assert_eq!(ServerAddr::of_node("http://h/").unwrap().as_server(), "ws://h/ws");
        assert!(matches!(ServerAddr::of_node("https://h"), Err(AddrError::Tls { .. })));
        assert!(matches!(ServerAddr::of_node("ftp://h"), Err(AddrError::Scheme { .. })));
    }

    #[test]
    fn unix_addresses_are_told_from_urls() {
        assert_eq!(unix_path("unix:/tmp/capicua.sock"), Some("/tmp/capicua.sock"));
        assert_eq!(unix_path("ws://127.0.0.1:8080/ws"), None);
    }

    #[test]
    fn server_addresses_are_checked_before_connecting() {
        let ws = ServerAddr::parse("ws://127.0.0.1:8080/ws").unwrap();
        assert_eq!(
            ws,
            ServerAddr::Ws {
                url: "ws://127.0.0.1:8080/ws".into(),
                host: "127.0.0.1".into(),
                port: 8080,
                authority: "127.0.0.1:8080".into()
            }
        );
        assert_eq!(ws.game_url(17).as_deref(), Some("http://127.0.0.1:8080/api/games/17"));
        let v6 = ServerAddr::parse("ws://[::1]/ws").unwrap();
        assert!(matches!(&v6, ServerAddr::Ws { host, port: 80, .. } if host == "::1"), "{v6:?}");
        assert_eq!(v6.game_url(1).as_deref(), Some("http://[::1]/api/games/1"));
        let unix = ServerAddr::parse("unix:/tmp/c.sock").unwrap();
        assert_eq!(unix, ServerAddr::Unix { path: "/tmp/c.sock".into() });
        assert_eq!(unix.game_url(1), None);
        for (bad, want) in [
            ("http://127.0.0.1:8080/ws", "not a WebSocket address"),
            ("https://example.org/ws", "not a WebSocket address"),
            ("wss://example.org/ws", "no TLS"),
            ("127.0.0.1:8080", "not a WebSocket address"),
            ("", "not a server address"),
            ("ws:///ws", "not a server address"),
        ] {
            let e = ServerAddr::parse(bad).unwrap_err();
            assert!(e.to_string().contains(want), "{bad:?}: {e}");
        }
    }
}
