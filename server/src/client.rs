//! Who a connection acts for, and a connected client as rooms see it.

use std::sync::Arc;

use crate::Outbox;

/// A connection's id, unique for the server's life.
pub type ConnId = u64;

/// Who a connection acts for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The registered player, `None` for a guest.
    pub player_id: Option<i64>,
    /// Name shown.
    pub name: String,
    /// Admin rights.
    pub admin: bool,
    /// The client's address as the per-address limits count it (see
    /// `limits`); `None` on a Unix socket.
    pub addr: Option<std::net::IpAddr>,
}

/// A connected client as rooms see it.
#[derive(Clone)]
pub struct Client {
    /// The connection.
    pub conn: ConnId,
    /// Who it acts for.
    pub ident: Arc<Identity>,
    /// Where its frames go.
    pub out: Outbox,
}
