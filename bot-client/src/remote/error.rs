//! What goes wrong for a remote bot, and which of it retrying may fix.

use std::path::PathBuf;

use capicua_protocol::{ErrorCode, PromptId, RoomId, ServerMsg, close};
use capicua_strategy::SpecError;

use super::CONNECT_TIMEOUT;
use crate::token_file::TokenFileError;
use crate::transport::AddrError;

/// Errors of a remote bot.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The server address cannot be used.
    #[error(transparent)]
    Addr(#[from] AddrError),
    /// The WebSocket failed.
    #[error("websocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// The server answered the WebSocket handshake with another HTTP status.
    #[error("{url} answered HTTP {status} {reason} instead of accepting a WebSocket{hint}",
        hint = if *status == 404 { " (is the path right? capicua serves it at /ws)" } else { "" })]
    Http {
        /// The address tried.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Its reason phrase.
        reason: String,
    },
    /// The server answered the WebSocket handshake, but not as a WebSocket
    /// server does (a 101 without the upgrade headers, a response that is
    /// not HTTP): not a capicua server's WebSocket.
    #[error("{url}: WebSocket handshake failed ({detail}); is this a capicua server's /ws address?")]
    Handshake {
        /// The address tried.
        url: String,
        /// What was wrong with the answer.
        detail: tokio_tungstenite::tungstenite::error::ProtocolError,
    },
    /// The server accepted the connection and closed or reset it before
    /// the WebSocket handshake completed: a proxy in front of a server
    /// that is down, or a server going down or out of room. Nothing was
    /// refused: retrying may succeed.
    #[error("connection closed before the WebSocket handshake")]
    HandshakeCut,
    /// Connecting and the handshake took longer than [`CONNECT_TIMEOUT`].
    #[error("no answer within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout,
    /// The server sent something we could not read.
    #[error("bad frame from the server: {0}")]
    Frame(#[from] serde_json::Error),
    /// The server closed the connection with a close code.
    #[error("closed by the server with code {code}: {reason}{hint}",
        hint = if *code == close::REPLACED { " (another program or tab connected with this token; this bot stops)" } else { "" })]
    Refused {
        /// The close code.
        code: u16,
        /// Its reason.
        reason: String,
    },
    /// The server answered a request with an error.
    #[error("server error {}: {message}", code_name(.code))]
    Server {
        /// The code.
        code: ErrorCode,
        /// The message.
        message: String,
    },
    /// The server answered a request with a message that is not its reply.
    #[error("unexpected answer to {request}: {answer}")]
    Unexpected {
        /// The request's `type`.
        request: &'static str,
        /// The answer, for people.
        answer: String,
    },
    /// Every room tried was full or taken meanwhile.
    #[error("could not find a free seat")]
    NoSeat,
    /// The room asked for is hosted by another server of the same database
    /// (`wrong-node`): the bot reconnects there.
    #[error("the room is hosted by another server: {server}")]
    Moved {
        /// That server's WebSocket address.
        server: String,
    },
    /// A bot's task panicked or was cancelled.
    #[error("bot task failed: {0}")]
    Task(tokio::task::JoinError),
    /// The strategy spec does not build.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The connection ended.
    #[error("connection closed")]
    Closed,
    /// The server prompted a move and offered none: a server bug the bot
    /// cannot play around, so it stops instead of guessing a move.
    #[error("the server prompted a move in room {room} (prompt {prompt}) with no legal moves")]
    NoLegalMoves {
        /// The room.
        room: RoomId,
        /// The prompt's id.
        prompt: PromptId,
    },
    /// Rated rooms admit registered players only.
    #[error("rated rooms admit registered players only: give --register NAME (or --token)")]
    RatedGuest,
    /// A token file cannot be read or written.
    #[error(transparent)]
    TokenFile(#[from] TokenFileError),
    /// `--register` names a player that exists, and its token file is missing.
    #[error(
        "the name {name:?} is already taken on {server} and its token file {} is missing: \
         give that player's token file (--token-file) or token (--token), or register another name",
        path.display()
    )]
    NameTaken {
        /// The player name.
        name: String,
        /// The server.
        server: String,
        /// The token file looked for.
        path: PathBuf,
    },
    /// The server does not know the token of a token file.
    #[error("the token in {} is not known to {server} (a token file of another server or database?)", path.display())]
    TokenRejected {
        /// The token file.
        path: PathBuf,
        /// The server.
        server: String,
    },
    /// A token file holds another player's token than its name says.
    #[error("{} holds the token of player {holder:?}, not {name:?}", path.display())]
    WrongPlayer {
        /// The token file.
        path: PathBuf,
        /// The name it was read for.
        name: String,
        /// The player the server says the token is for.
        holder: String,
    },
}

impl RemoteError {
    /// Whether retrying later may succeed: an unreachable, overloaded or
    /// restarting server, a dropped connection, a server fault. Everything
    /// else (a bad address, an HTTP answer other than 5xx or 429, a refused
    /// token, a request the server calls bad, a taken name) would fail the
    /// same way again.
    pub fn is_transient(&self) -> bool {
        use tokio_tungstenite::tungstenite::Error as W;
        match self {
            RemoteError::Ws(W::Io(_) | W::ConnectionClosed | W::AlreadyClosed | W::Protocol(_)) => true,
            RemoteError::Http { status, .. } => *status >= 500 || *status == 429,
            RemoteError::Timeout | RemoteError::Closed | RemoteError::NoSeat | RemoteError::HandshakeCut => true,
            RemoteError::Refused { code, .. } => close::may_reconnect(*code),
            RemoteError::Server { code, .. } => matches!(
                code,
                ErrorCode::RateLimited
                    | ErrorCode::TooManyConnections
                    | ErrorCode::ShuttingDown
                    | ErrorCode::SlowConsumer
                    | ErrorCode::Internal
                    | ErrorCode::GameInProgress
                    | ErrorCode::Busy
            ),
            _ => false,
        }
    }

    /// What went wrong in a few words, for the lines telling an outage:
    /// a server that cannot be reached (refused, closed before the
    /// handshake) is told apart from a connection lost mid-session and
    /// from a handshake the server really answered wrongly.
    pub fn cause(&self) -> String {
        use std::io::ErrorKind;
        use tokio_tungstenite::tungstenite::Error as W;
        use tokio_tungstenite::tungstenite::error::ProtocolError as P;
        match self {
            RemoteError::Ws(W::Io(e)) => match e.kind() {
                ErrorKind::ConnectionRefused => "connection refused".into(),
                ErrorKind::ConnectionReset => "connection reset".into(),
                ErrorKind::ConnectionAborted => "connection aborted".into(),
                ErrorKind::UnexpectedEof | ErrorKind::BrokenPipe => "connection closed".into(),
                ErrorKind::TimedOut => "timed out".into(),
                ErrorKind::NotFound => "no such socket".into(),
                _ => e.to_string(),
            },
            RemoteError::Ws(W::ConnectionClosed | W::AlreadyClosed) | RemoteError::Closed => "connection closed".into(),
            // The server went away mid-session (stopped, crashed, or a
            // proxy dropped it) without a WebSocket close frame.
            RemoteError::Ws(W::Protocol(P::ResetWithoutClosingHandshake)) => {
                "connection closed without a close frame".into()
            }
            RemoteError::Ws(W::Protocol(P::HandshakeIncomplete)) | RemoteError::HandshakeCut => {
                RemoteError::HandshakeCut.to_string()
            }
            RemoteError::Ws(W::Protocol(p)) => format!("WebSocket protocol error ({p})"),
            RemoteError::Handshake { detail, .. } => format!("WebSocket handshake failed ({detail})"),
            RemoteError::Http { status, reason, .. } => format!("HTTP {status} {reason}"),
            other => other.to_string(),
        }
    }
}

/// The error for an answer to `request` that is not the expected reply: the
/// server's error, or an unexpected message.
pub(crate) fn unexpected(request: &'static str, msg: ServerMsg) -> RemoteError {
    match msg {
        ServerMsg::Error { code, message, .. } => RemoteError::Server { code, message },
        other => RemoteError::Unexpected { request, answer: format!("{other:?}") },
    }
}

/// An error code's name on the wire (`bad-token`), for messages to people.
pub(crate) fn code_name(code: &ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{code:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::AddrError;
    use tokio_tungstenite::tungstenite::Error as W;
    use tokio_tungstenite::tungstenite::error::ProtocolError;

    #[test]
    fn server_errors_carry_the_protocol_code_and_print_its_wire_name() {
        let e = unexpected(
            "hello",
            ServerMsg::Error { code: ErrorCode::BadToken, message: "unknown token".into(), url: None },
        );
        assert!(matches!(e, RemoteError::Server { code: ErrorCode::BadToken, .. }), "{e:?}");
        assert_eq!(e.to_string(), "server error bad-token: unknown token");
    }

    #[test]
    fn errors_are_transient_only_when_retrying_may_help() {
        let server = |code| RemoteError::Server { code, message: String::new() };
        let http = |status| RemoteError::Http { url: "ws://h/ws".into(), status, reason: String::new() };
        let io = |kind| RemoteError::Ws(W::Io(std::io::Error::from(kind)));
        let transient = [
            io(std::io::ErrorKind::ConnectionRefused),
            io(std::io::ErrorKind::ConnectionReset),
            RemoteError::Timeout,
            RemoteError::Closed,
            RemoteError::HandshakeCut,
            RemoteError::Ws(W::Protocol(ProtocolError::ResetWithoutClosingHandshake)),
            http(500),
            http(503),
            http(429),
            RemoteError::Refused { code: close::GOING_AWAY, reason: String::new() },
            RemoteError::Refused { code: close::TRY_AGAIN_LATER, reason: String::new() },
            server(ErrorCode::ShuttingDown),
            server(ErrorCode::TooManyConnections),
            server(ErrorCode::Internal),
            // A full ladder pool: `busy` says to ask again shortly.
            server(ErrorCode::Busy),
        ];
        for e in &transient {
            assert!(e.is_transient(), "{e:?}");
        }
        let permanent = [
            RemoteError::Addr(AddrError::Scheme { addr: "http://h/ws".into() }),
            http(404),
            http(400),
            http(401),
            http(403),
            http(200),
            RemoteError::Refused { code: close::BAD_TOKEN, reason: String::new() },
            RemoteError::Refused { code: close::VERSION_MISMATCH, reason: String::new() },
            server(ErrorCode::BadToken),
            server(ErrorCode::Unauthorized),
            server(ErrorCode::BadRequest),
            server(ErrorCode::BadVariant),
            server(ErrorCode::NameTaken),
            RemoteError::NameTaken { name: "b".into(), server: "ws://h/ws".into(), path: "b.token".into() },
            RemoteError::Unexpected { request: "join", answer: String::new() },
            RemoteError::Handshake { url: "ws://h/ws".into(), detail: ProtocolError::MissingUpgradeWebSocketHeader },
        ];
        for e in &permanent {
            assert!(!e.is_transient(), "{e:?}");
        }
        assert!(http(404).to_string().contains("answered HTTP 404"), "{}", http(404));
    }

    #[test]
    fn an_unreachable_server_a_lost_connection_and_a_bad_handshake_are_told_apart() {
        use std::io::ErrorKind;
        let io = |kind| RemoteError::Ws(W::Io(std::io::Error::from(kind)));
        let cases = [
            // Nothing listening: the reconnect attempts of a bot whose server died.
            (io(ErrorKind::ConnectionRefused), "connection refused"),
            // Something accepts and hangs up before answering (a proxy in
            // front of a server that is down).
            (RemoteError::HandshakeCut, "connection closed before the WebSocket handshake"),
            (
                RemoteError::Ws(W::Protocol(ProtocolError::HandshakeIncomplete)),
                "connection closed before the WebSocket handshake",
            ),
            // The server went away mid-session.
            (
                RemoteError::Ws(W::Protocol(ProtocolError::ResetWithoutClosingHandshake)),
                "connection closed without a close frame",
            ),
            (io(ErrorKind::ConnectionReset), "connection reset"),
            (RemoteError::Closed, "connection closed"),
            (RemoteError::Timeout, "no answer within 10 s"),
            (
                RemoteError::Refused { code: close::GOING_AWAY, reason: "shutting down".into() },
                "closed by the server with code 1001: shutting down",
            ),
        ];
        for (e, want) in &cases {
            assert_eq!(e.cause(), *want, "{e:?}");
            assert!(!e.cause().contains("handshake failed"), "{e:?}");
        }
        // Only an answer that is not a WebSocket server's is a failed handshake.
        let bad =
            RemoteError::Handshake { url: "ws://h/ws".into(), detail: ProtocolError::MissingUpgradeWebSocketHeader };
        assert!(bad.cause().starts_with("WebSocket handshake failed ("), "{}", bad.cause());
        assert!(bad.to_string().starts_with("ws://h/ws: WebSocket handshake failed ("), "{bad}");
    }
}
