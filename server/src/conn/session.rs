//! The session family: `hello` (who the connection acts for, its seats
//! given back), `register` (a new name and token), and the one connection
//! that acts for each registered player.

use std::sync::Arc;

use capicua_protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, PlayerInfo, SeatRef, ServerMsg, close};
use tokio::sync::oneshot;

use super::{Conn, End};
use crate::Identity;
use crate::lobby::Acting;
use crate::room::RoomCmd;

impl Conn {
    /// `hello` (again: refused), `ping` and `register` once greeted.
    pub(super) async fn on_session(&mut self, id: Option<u64>, msg: ClientMsg) {
        match msg {
            ClientMsg::Hello { .. } => self.error(id, ErrorCode::AlreadyGreeted, "hello was already received"),
            ClientMsg::Ping => {
                self.out.send(id, ServerMsg::Pong);
            }
            ClientMsg::Register { name } => self.register(id, name).await,
            _ => unreachable!("routed to the session: {msg:?}"),
        }
    }

    /// Makes this connection the one acting for its registered player, and
    /// tells the one it replaces (if any) to close.
    pub(super) fn claim_player(&self) {
        let Some(pid) = self.ident.as_ref().and_then(|i| i.player_id) else { return };
        let now = Acting { conn: self.id, replaced: self.replaced.clone() };
        if let Some(old) = self.state.lobby.take_over(pid, now) {
            tracing::info!(replaced = old.conn, "a newer connection acts for this player");
            // A stored permit: the old connection closes even if it is busy now.
            old.replaced.notify_one();
        }
    }

    /// Forgets this connection as its player's, unless a newer one took over.
    pub(super) fn forget_player(&self) {
        let Some(pid) = self.ident.as_ref().and_then(|i| i.player_id) else { return };
        self.state.lobby.release(pid, self.id);
    }

    /// A guest's name: `guest-N` by its connection's number; on PostgreSQL,
    /// where other servers number their guests too, `guest-N@NODE`, so two
    /// guests of one lobby never share a name.
    pub(super) fn guest_name(&self) -> String {
        match (self.state.db.topology(), self.state.db.node_id()) {
            (crate::db::Topology::Cluster, Some(node)) => format!("guest-{}@{node}", self.id),
            _ => format!("guest-{}", self.id),
        }
    }

    /// A guest: the one of `session` if the server knows it (this
    /// connection now one of its own), else a new guest with a new session
    /// (its secret for the `welcome`).
    fn guest(&mut self, session: Option<&str>) -> Identity {
        let now = std::time::Instant::now();
        let guests = &self.state.guests;
        if let Some((g, key)) = session.and_then(|s| guests.resume(s, now)) {
            self.guest_session = Some(key);
            return Identity { player_id: None, name: g.name, admin: false, addr: self.peer, guest: Some(g.id) };
        }
        let name = self.guest_name();
        let opened = guests.open(crate::guests::Guest { id: self.id, name: name.clone() }, now);
        let guest = opened.map(|o| {
            self.guest_session = Some(o.key);
            self.guest_secret = Some(o.secret);
            self.id
        });
        Identity { player_id: None, name, admin: false, addr: self.peer, guest }
    }

    /// Who a `hello` with `token` is: a guest (new, or the one of a
    /// guest session), the admin or a registered player; or the error
    /// that ends the connection.
    async fn identify(&mut self, id: Option<u64>, token: Option<String>) -> Result<Identity, End> {
        // An address that sent too many wrong tokens may try none for a
        // while, the right one included: guessing on learns nothing.
        let limits = &self.state.http_limits;
        // A guest's session is no credential to guess: an unknown one is a
        // new guest.
        let (guest_token, token) = match token {
            Some(t) if t.starts_with(crate::guests::PREFIX) => (Some(t), None),
            t => (None, t),
        };
        if token.is_some()
            && let Some(wait) = self.peer.and_then(|a| limits.may_try_token(a).err())
        {
            let secs = wait.as_secs().max(1);
            self.error(
                id,
                ErrorCode::RateLimited,
                format!("too many wrong tokens from this address; retry in {secs} s"),
            );
            return Err(End::Close(close::BAD_TOKEN, "too many wrong tokens"));
        }
        // A signed-in browser: its session cookie, unless the hello names a
        // player's token. A session that ended (signed out elsewhere) leaves
        // a guest.
        if token.is_none()
            && let Some(cookie) = self.cookie.clone()
        {
            match self.state.db.credential(&cookie).await {
                Ok(Some((p, crate::db::accounts::Credential::Session))) => {
                    return Ok(Identity {
                        player_id: Some(p.id),
                        name: p.name,
                        admin: false,
                        addr: self.peer,
                        guest: None,
                    });
                }
                Ok(_) => self.cookie = None,
                Err(e) => {
                    tracing::error!(error = %e, "session lookup");
                    self.error(id, ErrorCode::Internal, "could not check the session; try again");
                    return Err(End::Close(close::TRY_AGAIN_LATER, "internal error"));
                }
            }
        }
        Ok(match token {
            None => self.guest(guest_token.as_deref()),
            Some(t) if crate::secret::is_admin(&t, self.state.config.admin_token.as_deref()) => {
                Identity { player_id: None, name: "admin".into(), admin: true, addr: self.peer, guest: None }
            }
            Some(t) => match self.state.db.player_by_token(&t).await {
                Ok(Some(p)) => {
                    Identity { player_id: Some(p.id), name: p.name, admin: false, addr: self.peer, guest: None }
                }
                Ok(None) => {
                    if let Some(a) = self.peer {
                        limits.wrong_token(a);
                    }
                    self.error(id, ErrorCode::BadToken, "unknown token");
                    return Err(End::Close(close::BAD_TOKEN, "bad token"));
                }
                Err(e) => {
                    tracing::error!(error = %e, "token lookup");
                    self.error(id, ErrorCode::Internal, "could not check the token; try again");
                    return Err(End::Close(close::TRY_AGAIN_LATER, "internal error"));
                }
            },
        })
    }

    pub(super) async fn hello(&mut self, id: Option<u64>, version: u32, token: Option<String>) -> Option<End> {
        if version != PROTOCOL_VERSION {
            self.error(
                id,
                ErrorCode::VersionMismatch,
                format!("this server speaks protocol version {PROTOCOL_VERSION}, not {version}"),
            );
            return Some(End::Close(close::VERSION_MISMATCH, "protocol version mismatch"));
        }
        let ident = match self.identify(id, token).await {
            Ok(ident) => ident,
            Err(end) => return Some(end),
        };
        tracing::Span::current().record("player", ident.name.as_str());
        self.ident = Some(Arc::new(ident));
        // Before the seats move here: the old connection stops acting first.
        self.claim_player();
        let seats = self.reattach().await;
        let ident = self.ident.as_ref().expect("just set");
        self.out.send(
            id,
            ServerMsg::Welcome {
                version: PROTOCOL_VERSION,
                player: PlayerInfo {
                    name: ident.name.clone(),
                    guest: ident.player_id.is_none() && !ident.admin,
                    admin: ident.admin,
                },
                seats: seats.clone(),
                site: self.state.config.public_url.clone(),
                guest_session: self.guest_secret.take(),
            },
        );
        // After the welcome: each room sends its state and the pending prompt.
        let client = self.client().expect("greeted");
        for s in seats {
            if let Some(h) = self.state.room(s.room) {
                let _ = h.tx.send(RoomCmd::Resync { client: client.clone(), id: None });
            }
        }
        None
    }

    /// Gives a registered player (or a guest session) its seats back on
    /// this connection.
    pub(super) async fn reattach(&mut self) -> Vec<SeatRef> {
        let client = self.client().expect("greeted");
        if client.ident.player_id.is_none() && client.ident.guest.is_none() {
            return vec![];
        }
        let rooms = self.state.lobby.seats_of(client.ident.owner(self.id));
        let mut seats = vec![];
        for room in rooms {
            let Some(h) = self.state.room(room) else { continue };
            let (reply, rx) = oneshot::channel();
            if h.tx.send(RoomCmd::Reattach { client: client.clone(), reply }).is_err() {
                continue;
            }
            if let Ok(got) = rx.await {
                if !got.is_empty() {
                    self.rooms.insert(room, h.tx.clone());
                }
                seats.extend(got.into_iter().map(|seat| SeatRef { room, seat }));
            }
        }
        seats.sort_by_key(|s| (s.room, s.seat));
        seats
    }

    pub(super) async fn register(&mut self, id: Option<u64>, name: String) {
        let name = match capicua_protocol::check_name(&name) {
            Ok(name) => name,
            Err(rules) => return self.error(id, ErrorCode::BadName, rules),
        };
        if self.ident.as_ref().is_some_and(|i| i.player_id.is_some()) {
            return self.error(id, ErrorCode::BadRequest, "this connection already acts for a registered player");
        }
        // Each name is a database row and a fresh owner for the room quota:
        // an address may only mint so many a minute.
        if let Some(wait) = self.peer.and_then(|a| self.state.http_limits.check_registration(a).err()) {
            let secs = wait.as_secs().max(1);
            return self.error(
                id,
                ErrorCode::RateLimited,
                format!("too many new names from this address; retry in {secs} s"),
            );
        }
        match self.state.db.register(&name).await {
            Ok((player, token)) => {
                // The guest it was stays known: its seats move to the player.
                let guest = self.ident.as_ref().and_then(|i| i.guest);
                // A seek made as the guest ends: its table would be reserved
                // for the guest, whom this connection no longer is.
                if let Some(old) = self.ident.as_ref().map(|i| i.owner(self.id))
                    && self.state.seeks.disconnected(old, self.id)
                {
                    self.out.send(None, crate::ladder::seeks::not_seeking());
                }
                let ident = Identity {
                    player_id: Some(player.id),
                    name: player.name.clone(),
                    admin: false,
                    addr: self.peer,
                    guest,
                };
                self.ident = Some(Arc::new(ident));
                self.claim_player();
                // Seats taken as a guest now belong to the player. The rooms
                // hear it before any later command of this connection (same
                // channel, sent first), so the next move finds its seat.
                let client = self.client().expect("greeted");
                for tx in self.rooms.values() {
                    let _ = tx.send(RoomCmd::Promote { client: client.clone() });
                }
                self.out.send(id, ServerMsg::Registered { name: player.name, token });
            }
            Err(crate::db::DbError::NameTaken(n)) => {
                self.error(id, ErrorCode::NameTaken, crate::accounts::name_taken(&n))
            }
            Err(e) => {
                tracing::error!(error = %e, "register");
                self.error(id, ErrorCode::Internal, "could not register; try again");
            }
        }
    }
}
