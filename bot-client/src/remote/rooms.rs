//! Finding a seat in the lobby: which rooms fit a bot, which is best, and
//! moving to a better one while waiting.

use std::collections::VecDeque;

use capicua_protocol::{ClientMsg, ErrorCode, RoomId, RoomInfo, RoomSpec, RoomStatus, ServerMsg};

use super::connection::Connection;
use super::error::{RemoteError, unexpected};
use super::options::{PlayConfig, PlayOptions, PlayVariant};
use crate::transport::ServerAddr;

/// The rooms a bot looks for: one variant (by name, as the lobby lists
/// rooms), casual or rated, unseeded; and the spec of the room it creates
/// when there is none.
#[derive(Debug)]
pub(crate) struct Wanted {
    name: String,
    rated: bool,
    /// Rooms of tiles with 3, 4 or 6 faces (a poly preset).
    poly: bool,
    pub(crate) spec: RoomSpec,
}

impl Wanted {
    pub(crate) fn new(cfg: &PlayConfig, opts: &PlayOptions) -> Wanted {
        let (name, spec, poly) = match &opts.variant {
            Some(PlayVariant::Tiles(v)) => {
                (v.name.clone(), RoomSpec { variant: Some(v.as_ref().clone()), ..Default::default() }, false)
            }
            Some(PlayVariant::Poly { name, file }) => {
                (name.clone(), RoomSpec { variant_file: Some(file.clone()), ..Default::default() }, true)
            }
            None => (
                cfg.preset.clone(),
                RoomSpec { preset: Some(cfg.preset.clone()), ..Default::default() },
                capicua_engine::poly::poly_preset(&cfg.preset).is_some(),
            ),
        };
        Wanted { name, rated: opts.rated, poly, spec: RoomSpec { rated: opts.rated, ..spec } }
    }

    /// Whether room `r` is one to sit in now. A seeded room is for practice
    /// (its seed tells every hand), and a casual bot does not sit in a rated
    /// room it was not asked to play, nor a rated bot in a casual one. A
    /// room another server of the database hosts (listed with its `node`)
    /// is left to the bots connected there.
    pub(crate) fn fits(&self, r: &RoomInfo) -> bool {
        r.node.is_none()
            && r.status == RoomStatus::Waiting
            && r.variant == self.name
            && r.poly == self.poly
            && r.rated == self.rated
            && !r.seeded
            && occupied(r) < r.seats.len()
    }
}

/// Seats taken in a room.
fn occupied(r: &RoomInfo) -> usize {
    r.seats.iter().filter(|s| s.occupant.is_some()).count()
}

/// The better room to wait in: the fuller one (its match starts sooner),
/// then the older one. A total order, so bots of different processes that
/// each created a room end up in the same one.
fn rank(r: &RoomInfo) -> (usize, std::cmp::Reverse<RoomId>) {
    (occupied(r), std::cmp::Reverse(r.id))
}

/// The bots of one process look for seats one at a time, so they fill one
/// room together instead of each creating its own.
pub(crate) static FINDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The rooms the server lists now.
async fn list_rooms(conn: &mut Connection, pending: &mut VecDeque<ServerMsg>) -> Result<Vec<RoomInfo>, RemoteError> {
    match conn.request(ClientMsg::ListRooms, |m| pending.push_back(m)).await? {
        ServerMsg::Rooms { rooms } => Ok(rooms),
        other => Err(unexpected("list-rooms", other)),
    }
}

/// Takes a seat: in the room asked for, else in the best waiting room that
/// fits, else in a new room. The caller holds [`FINDING`].
pub(crate) async fn find_seat(
    conn: &mut Connection,
    asked: Option<RoomId>,
    wanted: &Wanted,
    pending: &mut VecDeque<ServerMsg>,
) -> Result<RoomId, RemoteError> {
    if let Some(room) = asked {
        return match conn.request(ClientMsg::join(room, None), |m| pending.push_back(m)).await? {
            ServerMsg::Seated { .. } => Ok(room),
            ServerMsg::Error { code: ErrorCode::WrongNode, url: Some(url), .. } => {
                Err(RemoteError::Moved { server: ServerAddr::of_node(&url)?.as_server() })
            }
            other => Err(unexpected("join", other)),
        };
    }
    for _ in 0..5 {
        let rooms = list_rooms(conn, pending).await?;
        let room = match rooms.iter().filter(|r| wanted.fits(r)).max_by_key(|r| rank(r)) {
            Some(r) => r.id,
            None => {
                let create = ClientMsg::CreateRoom(Box::new(wanted.spec.clone()));
                match conn.request(create, |m| pending.push_back(m)).await? {
                    ServerMsg::Room { room } => room.id,
                    other => return Err(unexpected("create-room", other)),
                }
            }
        };
        // Another bot may have taken the seat in between: try again.
        match conn.request(ClientMsg::join(room, None), |m| pending.push_back(m)).await? {
            ServerMsg::Seated { .. } => return Ok(room),
            ServerMsg::Error {
                code: ErrorCode::SeatTaken | ErrorCode::GameInProgress | ErrorCode::NoSuchRoom, ..
            } => {}
            other => return Err(unexpected("join", other)),
        }
    }
    Err(RemoteError::NoSeat)
}

/// A bot waiting in `room` for its match to start moves to a better room
/// ([`rank`]) that fits, if there is one: bots of different processes that
/// each created a room at the same moment gather in one. Returns the new
/// room, seated (not ready yet).
pub(crate) async fn regroup(
    conn: &mut Connection,
    room: RoomId,
    wanted: &Wanted,
    pending: &mut VecDeque<ServerMsg>,
) -> Result<Option<RoomId>, RemoteError> {
    let _turn = FINDING.lock().await;
    let rooms = list_rooms(conn, pending).await?;
    let Some(ours) = rooms.iter().find(|r| r.id == room) else { return Ok(None) };
    // A full room starts as soon as everyone is ready: stay.
    if ours.status != RoomStatus::Waiting || occupied(ours) == ours.seats.len() {
        return Ok(None);
    }
    let better =
        rooms.iter().filter(|r| r.id != room && wanted.fits(r) && rank(r) > rank(ours)).max_by_key(|r| rank(r));
    let Some(target) = better else { return Ok(None) };
    if pending.iter().any(|m| matches!(m, ServerMsg::GameStarted { room: r, .. } if *r == room)) {
        return Ok(None);
    }
    match conn.request(ClientMsg::Leave { room }, |m| pending.push_back(m)).await? {
        ServerMsg::Left { .. } => {}
        other => return Err(unexpected("leave", other)),
    }
    match conn.request(ClientMsg::join(target.id, None), |m| pending.push_back(m)).await? {
        ServerMsg::Seated { .. } => Ok(Some(target.id)),
        // Taken meanwhile: any seat will do, even the one just left.
        ServerMsg::Error { code: ErrorCode::SeatTaken | ErrorCode::GameInProgress | ErrorCode::NoSuchRoom, .. } => {
            find_seat(conn, None, wanted, pending).await.map(Some)
        }
        other => Err(unexpected("join", other)),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn room(id: RoomId, variant: &str, rated: bool, taken: u8) -> RoomInfo {
        use capicua_protocol::{Occupant, OccupantKind, SeatInfo, TimeControl, TimeoutPolicy};
        let occupant =
            |i: u8| Occupant { name: format!("p{i}"), kind: OccupantKind::Player, ready: false, connected: true };
        RoomInfo {
            id,
            variant: variant.into(),
            poly: false,
            seats: (0..4)
                .map(|i| SeatInfo { seat: i, side: i % 2, occupant: (i < taken).then(|| occupant(i)) })
                .collect(),
            status: RoomStatus::Waiting,
            rated,
            spectators: 0,
            time: TimeControl::default(),
            on_timeout: TimeoutPolicy::default(),
            games_played: 0,
            seeded: false,
            private: false,
            invite: None,
            node: None,
        }
    }

    pub(crate) fn bots_room_info() -> RoomInfo {
        let mut r = room(7, "triominoes", false, 1);
        r.poly = true;
        r
    }

    #[test]
    fn bots_sit_in_the_fullest_fitting_room_and_rated_bots_in_rated_ones() {
        let cfg = PlayConfig {
            server: String::new(),
            token: None,
            strategy: "random".into(),
            poly_strategy: "greedy".into(),
            room: None,
            preset: "latin".into(),
            count: 1,
            matches: None,
        };
        let casual = Wanted::new(&cfg, &PlayOptions::default());
        let rated = Wanted::new(&cfg, &PlayOptions { rated: true, ..Default::default() });
        assert!(rated.spec.rated && rated.spec.preset.as_deref() == Some("latin"));
        assert!(casual.fits(&room(1, "latin", false, 1)));
        assert!(!casual.fits(&room(1, "latin", true, 1)), "a casual bot stays out of rated rooms");
        assert!(rated.fits(&room(1, "latin", true, 1)));
        assert!(!rated.fits(&room(1, "latin", false, 1)), "a rated bot stays out of casual rooms");
        assert!(!casual.fits(&room(1, "block", false, 1)));
        assert!(!casual.fits(&room(1, "latin", false, 4)), "full");
        let mut seeded = room(1, "latin", false, 1);
        seeded.seeded = true;
        assert!(!casual.fits(&seeded));
        let mut playing = room(1, "latin", false, 1);
        playing.status = RoomStatus::Playing;
        assert!(!casual.fits(&playing));
        let mut elsewhere = room(1, "latin", false, 1);
        elsewhere.node = Some("http://10.0.0.2:8080".into());
        assert!(!casual.fits(&elsewhere), "a room on another server is not joined here");
        // The fuller room first, then the older one.
        assert!(rank(&room(5, "latin", true, 3)) > rank(&room(2, "latin", true, 1)));
        assert!(rank(&room(2, "latin", true, 1)) > rank(&room(5, "latin", true, 1)));
        let mut custom = capicua_engine::preset("block").unwrap();
        custom.name = "house-block".into();
        let house = Wanted::new(
            &cfg,
            &PlayOptions { variant: Some(PlayVariant::Tiles(Box::new(custom.clone()))), ..Default::default() },
        );
        assert!(house.fits(&room(1, "house-block", false, 0)));
        assert_eq!(house.spec.variant, Some(custom));
        assert_eq!(house.spec.preset, None);
        // A poly preset finds and creates poly rooms, and two-faced bots
        // stay out of them.
        let tri = Wanted::new(&PlayConfig { preset: "triominoes".into(), ..cfg.clone() }, &PlayOptions::default());
        assert_eq!(tri.spec.preset.as_deref(), Some("triominoes"));
        assert!(tri.fits(&bots_room_info()));
        assert!(!tri.fits(&room(1, "triominoes", false, 1)), "a two-faced room of that name");
        assert!(!casual.fits(&RoomInfo { variant: "latin".into(), ..bots_room_info() }));
    }
}
