//! The byte stream under a remote bot's WebSocket: TCP (`ws://HOST:PORT/ws`)
//! or, on Unix, a Unix domain socket (`unix:PATH`, for a server started with
//! `capicua-server serve --listen unix:PATH` on the same host).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

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
    fn unix_addresses_are_told_from_urls() {
        assert_eq!(unix_path("unix:/tmp/capicua.sock"), Some("/tmp/capicua.sock"));
        assert_eq!(unix_path("ws://127.0.0.1:8080/ws"), None);
    }
}
