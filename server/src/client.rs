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
    /// The guest session this connection is (or was, before it
    /// registered): its number, which owns the guest's seats across
    /// reconnects. `None` for the admin, and for a player who was never a
    /// guest here.
    pub guest: Option<u64>,
}

/// Who owns a seat: a registered player or a guest session, both across
/// reconnects (a connection with neither, the admin's, by its number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Owner {
    Player(i64),
    Guest(u64),
}

impl Identity {
    /// The owner of the seats this identity takes on connection `conn`.
    pub(crate) fn owner(&self, conn: ConnId) -> Owner {
        match (self.player_id, self.guest) {
            (Some(p), _) => Owner::Player(p),
            (None, Some(g)) => Owner::Guest(g),
            (None, None) => Owner::Guest(conn),
        }
    }

    /// The owner it was as a guest, before registering.
    pub(crate) fn guest_owner(&self, conn: ConnId) -> Owner {
        Owner::Guest(self.guest.unwrap_or(conn))
    }
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
