//! [`run`]: the server from its listener to its shutdown. It starts the
//! node's beat, the scheduler, the tournament host and the ladder, serves
//! HTTP and WebSocket, and on shutdown closes rooms first, then
//! connections, then the database once every finished game is committed.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::state::AppState;
use crate::{Db, accept, db, http, matchmaking, nodes, room, tournament};

/// Errors of the server as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Socket trouble.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    /// Database trouble.
    #[error(transparent)]
    Db(#[from] db::DbError),
    /// The server stopped because it lost something it cannot serve without.
    #[error("{0}")]
    Failed(String),
}

/// Where the server takes connections.
pub enum Listener {
    /// A TCP socket (the default: `--listen 127.0.0.1:8080`).
    Tcp(TcpListener),
    /// A Unix domain socket (`--listen unix:/path`): for a reverse proxy or
    /// local bots on the same host, without the TCP stack's cost per frame.
    #[cfg(unix)]
    Unix(tokio::net::UnixListener),
}

impl Listener {
    /// The URL the listening address is reached at, as far as this host
    /// knows it (`http://127.0.0.1:8080`, `unix:/run/capicua.sock`).
    fn url(&self) -> String {
        match self {
            Listener::Tcp(l) => l.local_addr().map(|a| format!("http://{a}")).unwrap_or_default(),
            #[cfg(unix)]
            Listener::Unix(l) => l
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| format!("unix:{}", p.display())))
                .unwrap_or_default(),
        }
    }
}

impl From<TcpListener> for Listener {
    fn from(l: TcpListener) -> Listener {
        Listener::Tcp(l)
    }
}

#[cfg(unix)]
impl From<tokio::net::UnixListener> for Listener {
    fn from(l: tokio::net::UnixListener) -> Listener {
        Listener::Unix(l)
    }
}

/// Serves HTTP and WebSocket on `listener` until `shutdown` resolves; then
/// tells every connection and room, waits for them to finish, and closes the
/// database once every finished game is committed.
pub async fn run(
    listener: impl Into<Listener>,
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let listener = listener.into();
    let url = config.public_url.clone().unwrap_or_else(|| listener.url());
    // Told to every client in `welcome`: where people open this server.
    let config = Config { public_url: Some(url.clone()), ..config };
    let (state, shutdown_tx, mut done_rx) = AppState::new(db.clone(), config);
    // Recorded before any room opens: every room is stored as this node's.
    nodes::join(&state, &url).await?;
    let shutdown_rx = state.shutdown();
    let app = http::router(state.clone());
    tournament::spawn_scheduler(state.clone());
    tournament::spawn_host(state.clone());
    matchmaking::spawn(state.clone());
    let mut http_shutdown = shutdown_rx.clone();
    let stopped = async move {
        crate::shutdown_signalled(&mut http_shutdown).await;
    };
    let server = match listener {
        // Prompts and moves are small frames on a round trip: Nagle's
        // algorithm would hold each one back waiting for an ACK.
        // Each request carries its peer's address (the per-address limits
        // read it); connections are timed out and capped (`accept`).
        Listener::Tcp(listener) => tokio::spawn(accept::serve(listener, app, state.clone(), stopped)),
        #[cfg(unix)]
        Listener::Unix(listener) => spawn_http(listener, app, stopped),
    };
    tokio::select! {
        _ = shutdown => {}
        _ = state.failed() => {}
    }
    let failure = state.failure();
    tracing::info!("shutting down: closing rooms, then connections");
    // Rooms first, so players still connected hear that their room closed;
    // a room never stops mid-write (a finished game's commit is awaited
    // inside the room task before it reads its next command).
    state.start_closing();
    state.hints.stop.stop();
    for r in state.lobby.handles() {
        let _ = r.tx.send(room::RoomCmd::Shutdown);
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while state.lobby.room_count() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let _ = shutdown_tx.send(true);
    drop(state);
    // Every task holding a guard has ended when recv() yields None.
    let _ = tokio::time::timeout(Duration::from_secs(10), done_rx.recv()).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
    if let Err(e) = db.stop_node().await {
        tracing::warn!(error = %e, "stamping this node stopped");
    }
    db.close().await;
    tracing::info!("shutdown complete");
    match failure {
        Some(why) => Err(ServerError::Failed(why)),
        None => Ok(()),
    }
}

/// Serves the router on a listener with no peer addresses (a Unix socket)
/// until `stopped` resolves.
#[cfg(unix)]
fn spawn_http<L>(
    listener: L,
    app: axum::Router,
    stopped: impl Future<Output = ()> + Send + 'static,
) -> tokio::task::JoinHandle<std::io::Result<()>>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    let server = axum::serve(listener, app).with_graceful_shutdown(stopped);
    tokio::spawn(async move { server.await })
}
