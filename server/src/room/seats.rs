//! Who is in a room: its seats (players, guests, hosted bots), its
//! spectators and its creator. Pure bookkeeping: what a seat holds, who
//! may take or fill one, how the room looks in the lobby.

use capicua_engine::Seat;
use capicua_protocol::{ErrorCode, Occupant, OccupantKind, SeatInfo};
use tokio::time::Instant;

use std::net::IpAddr;

use super::effect::Member;
use crate::ConnId;
use crate::bots::HostedStrategy;
use crate::limits::Slot;
use crate::record::{SeatKind, SeatRecord};

pub(crate) use crate::client::Owner;

impl Owner {
    pub(crate) fn of(m: &Member) -> Owner {
        m.ident.owner(m.conn)
    }
}

/// Who opened a room: the creator may fill its empty seats with hosted
/// bots without sitting in it, and the admin's rooms of bots play on with
/// no one watching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Creator {
    /// The admin.
    Admin,
    /// A registered player, or a guest's connection (WebSocket).
    Owner(Owner),
    /// Nobody a later request can be recognized as: a guest over HTTP, or a
    /// tournament for its tables.
    Unknown,
}

/// What a seat holds.
pub(crate) enum SeatState {
    Empty,
    Human {
        owner: Owner,
        name: String,
        member: Option<Member>,
        ready: bool,
        /// A person who reads each hand's end: the next hand waits for its
        /// `ready` (said with the `ready` that started the match).
        reads: bool,
        /// When the connection dropped (the grace period runs from here).
        gone_since: Option<Instant>,
        /// Left or out of grace: its turns go to the timeout policy at once.
        abandoned: bool,
        /// Its place among the seats its address holds in rooms waiting for
        /// their match (`--max-seats-per-addr`), given back when the match
        /// starts or the seat is freed.
        waiting: Option<Slot<IpAddr>>,
    },
    Bot {
        name: String,
        player_id: Option<i64>,
        /// `None` while it thinks off the task.
        strategy: Option<Box<dyn HostedStrategy>>,
    },
}

/// A refusal: the error code and the message for the member.
pub(crate) type Refusal = (ErrorCode, String);

/// The room's seats and spectators.
pub(crate) struct Seats {
    seats: Vec<SeatState>,
    spectators: Vec<Member>,
    /// Who opened the room.
    creator: Creator,
}

impl Seats {
    /// `n` seats, empty.
    pub(crate) fn new(n: usize) -> Seats {
        Seats { seats: (0..n).map(|_| SeatState::Empty).collect(), spectators: vec![], creator: Creator::Unknown }
    }

    /// Records who opened the room.
    pub(crate) fn set_creator(&mut self, creator: Creator) {
        self.creator = creator;
    }

    /// Whether the admin opened the room.
    pub(crate) fn by_admin(&self) -> bool {
        self.creator == Creator::Admin
    }

    /// How many seats.
    pub(crate) fn len(&self) -> usize {
        self.seats.len()
    }

    /// Spectators watching.
    pub(crate) fn spectators(&self) -> &[Member] {
        &self.spectators
    }

    /// Whether a connection watches the room.
    pub(crate) fn is_spectator(&self, conn: ConnId) -> bool {
        self.spectators.iter().any(|s| s.conn == conn)
    }

    /// Whether a connection is a member (seated or watching).
    pub(crate) fn knows(&self, conn: ConnId) -> bool {
        self.members().any(|m| m.conn == conn)
    }

    /// The connected member in seat `i`, if a person sits there.
    pub(crate) fn member(&self, i: usize) -> Option<&Member> {
        match &self.seats[i] {
            SeatState::Human { member: Some(m), .. } => Some(m),
            _ => None,
        }
    }

    /// Connected seats and spectators.
    pub(crate) fn members(&self) -> impl Iterator<Item = &Member> {
        (0..self.seats.len()).filter_map(|i| self.member(i)).chain(self.spectators.iter())
    }

    /// The owners (players and guests) seated here.
    pub(crate) fn seat_owners(&self) -> Vec<Owner> {
        self.seats
            .iter()
            .filter_map(|s| match s {
                SeatState::Human { owner, .. } => Some(*owner),
                _ => None,
            })
            .collect()
    }

    /// The seat a member's owner holds (and has not left).
    pub(crate) fn seat_of(&self, m: &Member) -> Option<Seat> {
        let owner = Owner::of(m);
        self.seats
            .iter()
            .position(|s| matches!(s, SeatState::Human { owner: o, abandoned: false, .. } if *o == owner))
            .map(|i| Seat(i as u8))
    }

    /// Whether the seat's player left or ran out of grace.
    pub(crate) fn is_abandoned(&self, seat: Seat) -> bool {
        matches!(self.seats[seat.index()], SeatState::Human { abandoned: true, .. })
    }

    /// Whether any person holds a seat.
    pub(crate) fn has_humans(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, SeatState::Human { .. }))
    }

    /// Whether a person holds a seat and is connected.
    pub(crate) fn has_connected(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, SeatState::Human { member: Some(_), .. }))
    }

    /// Whether a hosted bot holds a seat.
    pub(crate) fn has_bots(&self) -> bool {
        self.seats.iter().any(|s| matches!(s, SeatState::Bot { .. }))
    }

    /// The first seat not ready to play (empty, not ready, gone).
    pub(crate) fn first_missing(&self) -> Option<usize> {
        self.seats.iter().position(|s| match s {
            SeatState::Empty => true,
            SeatState::Human { ready, abandoned, .. } => !*ready || *abandoned,
            SeatState::Bot { .. } => false,
        })
    }

    /// When each disconnected player's grace ends.
    pub(crate) fn grace_ends(&self, grace: std::time::Duration) -> impl Iterator<Item = Instant> + '_ {
        self.seats.iter().filter_map(move |s| match s {
            SeatState::Human { gone_since: Some(t), abandoned: false, .. } => Some(*t + grace),
            _ => None,
        })
    }

    /// The seat a member may take: the one it asks for if free, else the
    /// first free one.
    pub(crate) fn free_seat(&self, seat: Option<u8>) -> Result<usize, Refusal> {
        let n = self.seats.len();
        match seat {
            Some(s) if s as usize >= n => Err((ErrorCode::NoSuchSeat, crate::api::no_such_seat(s, n as u64))),
            Some(s) if !matches!(self.seats[s as usize], SeatState::Empty) => {
                Err((ErrorCode::SeatTaken, format!("seat {s} is taken")))
            }
            Some(s) => Ok(s as usize),
            None => match self.seats.iter().position(|s| matches!(s, SeatState::Empty)) {
                Some(i) => Ok(i),
                None => Err((ErrorCode::SeatTaken, "the room is full".into())),
            },
        }
    }

    /// Seats `who` in seat `i` (not ready yet), out of the spectators,
    /// holding its address's `waiting` slot.
    pub(crate) fn sit(&mut self, i: usize, who: &Member, waiting: Option<Slot<IpAddr>>) {
        self.spectators.retain(|s| s.conn != who.conn);
        self.seats[i] = SeatState::Human {
            owner: Owner::of(who),
            name: who.ident.name.clone(),
            member: Some(who.clone()),
            ready: false,
            reads: false,
            gone_since: None,
            abandoned: false,
            waiting,
        };
    }

    /// The match started: the seats no longer count as waiting ones.
    pub(crate) fn stop_waiting(&mut self) {
        for s in &mut self.seats {
            if let SeatState::Human { waiting, .. } = s {
                *waiting = None;
            }
        }
    }

    /// What holds seat `i`: `None` when it is empty, else its connected
    /// member (`None` inside for a hosted bot, or a player away).
    pub(crate) fn occupant(&self, i: usize) -> Option<Option<&Member>> {
        match self.seats.get(i)? {
            SeatState::Empty => None,
            SeatState::Human { member, .. } => Some(member.as_ref()),
            SeatState::Bot { .. } => Some(None),
        }
    }

    /// Whether `who` is the room's creator (or the admin).
    pub(crate) fn is_creator(&self, who: &Member) -> bool {
        who.ident.admin || self.creator == Creator::Owner(Owner::of(who))
    }

    /// Empties seat `i`; the player or guest who held it, if one did.
    pub(crate) fn vacate(&mut self, i: usize) -> Option<Owner> {
        let player = match self.seats[i] {
            SeatState::Human { owner, .. } => Some(owner),
            _ => None,
        };
        self.seats[i] = SeatState::Empty;
        player
    }

    /// A player leaves its seat during a match: the seat stays taken, its
    /// turns go to the timeout policy.
    pub(crate) fn abandon(&mut self, seat: Seat) {
        if let SeatState::Human { abandoned, member, .. } = &mut self.seats[seat.index()] {
            *abandoned = true;
            *member = None;
        }
    }

    /// Marks a seat ready, and whether its player reads hand ends.
    pub(crate) fn set_ready(&mut self, seat: Seat, reads_hand_ends: bool) {
        if let SeatState::Human { ready, reads, .. } = &mut self.seats[seat.index()] {
            *ready = true;
            *reads = reads_hand_ends;
        }
    }

    /// Whether seat `i` holds a connected person who reads hand ends.
    pub(crate) fn reads_hand_ends(&self, i: usize) -> bool {
        matches!(self.seats[i], SeatState::Human { member: Some(_), reads: true, abandoned: false, .. })
    }

    /// After a match: seats left during it are freed (their registered
    /// players returned), the others must say ready again.
    pub(crate) fn after_match(&mut self) -> Vec<Owner> {
        let mut unseated = vec![];
        for i in 0..self.seats.len() {
            match &mut self.seats[i] {
                SeatState::Human { abandoned: true, .. } => unseated.extend(self.vacate(i)),
                SeatState::Human { ready, .. } => *ready = false,
                _ => {}
            }
        }
        unseated
    }

    /// Players out of grace by `now` abandon their seats: the seats
    /// that expired.
    pub(crate) fn expire(&mut self, now: Instant, grace: std::time::Duration) -> Vec<usize> {
        let mut expired = vec![];
        for (i, s) in self.seats.iter_mut().enumerate() {
            if let SeatState::Human { gone_since: Some(t), abandoned, .. } = s
                && !*abandoned
                && *t + grace <= now
            {
                *abandoned = true;
                expired.push(i);
            }
        }
        expired
    }

    /// Gives the seats of `who`'s owner back to its connection.
    pub(crate) fn reattach(&mut self, who: &Member) -> Vec<u8> {
        let owner = Owner::of(who);
        let mut given = vec![];
        for (i, s) in self.seats.iter_mut().enumerate() {
            if let SeatState::Human { owner: o, member, gone_since, abandoned: false, .. } = s
                && *o == owner
            {
                *member = Some(who.clone());
                *gone_since = None;
                given.push(i as u8);
            }
        }
        given
    }

    /// A connection ended: its seats wait for it (grace), it stops watching.
    pub(crate) fn disconnect(&mut self, conn: ConnId, now: Instant) {
        for s in &mut self.seats {
            if let SeatState::Human { member, gone_since, .. } = s
                && member.as_ref().is_some_and(|m| m.conn == conn)
            {
                *member = None;
                *gone_since = Some(now);
            }
        }
        self.spectators.retain(|s| s.conn != conn);
    }

    /// Adds a spectator (at most `max` at once, 0 for no limit).
    pub(crate) fn watch(&mut self, who: &Member, max: usize) -> Result<(), Refusal> {
        if self.is_spectator(who.conn) {
            return Ok(());
        }
        if max > 0 && self.spectators.len() >= max {
            return Err((ErrorCode::SeatTaken, format!("the room has its most spectators ({max})")));
        }
        self.spectators.push(who.clone());
        Ok(())
    }

    /// Stops `conn` watching; whether it was.
    pub(crate) fn unwatch(&mut self, conn: ConnId) -> bool {
        let was = self.is_spectator(conn);
        self.spectators.retain(|s| s.conn != conn);
        was
    }

    /// Whether `who` may fill the empty seats: the admin, the room's
    /// creator or a player seated in it.
    pub(crate) fn may_fill(&self, who: &Member) -> bool {
        self.is_creator(who) || self.seat_of(who).is_some()
    }

    /// The empty seats.
    pub(crate) fn empty(&self) -> Vec<usize> {
        (0..self.seats.len()).filter(|&i| matches!(self.seats[i], SeatState::Empty)).collect()
    }

    /// Seats a hosted bot in seat `i`.
    pub(crate) fn seat_bot(&mut self, i: usize, name: String, player_id: Option<i64>, bot: Box<dyn HostedStrategy>) {
        self.seats[i] = SeatState::Bot { name, player_id, strategy: Some(bot) };
    }

    /// The hosted bot's strategy slot in a seat (`None` inside while it
    /// thinks); `None` if no bot sits there.
    pub(crate) fn bot(&mut self, seat: Seat) -> Option<&mut Option<Box<dyn HostedStrategy>>> {
        match &mut self.seats[seat.index()] {
            SeatState::Bot { strategy, .. } => Some(strategy),
            _ => None,
        }
    }

    /// Hands the seats a guest connection holds to the player it registered
    /// as (the creator's too); whether a seat moved.
    pub(crate) fn promote(&mut self, who: &Member, player: i64) -> bool {
        let guest = who.ident.guest_owner(who.conn);
        if self.creator == Creator::Owner(guest) {
            self.creator = Creator::Owner(Owner::Player(player));
        }
        let mut moved = false;
        for s in &mut self.seats {
            if let SeatState::Human { owner, name, member, .. } = s
                && *owner == guest
            {
                *owner = Owner::Player(player);
                *name = who.ident.name.clone();
                *member = Some(who.clone());
                moved = true;
            }
        }
        for s in self.spectators.iter_mut().filter(|s| s.conn == who.conn) {
            *s = who.clone();
        }
        moved
    }

    /// The seats as the lobby shows them; `sides` gives each seat's side.
    pub(crate) fn info(&self, sides: &[u8]) -> Vec<SeatInfo> {
        let occupant = |s: &SeatState| match s {
            SeatState::Empty => None,
            SeatState::Human { owner, name, member, ready, .. } => Some(Occupant {
                name: name.clone(),
                kind: if matches!(owner, Owner::Player(_)) { OccupantKind::Player } else { OccupantKind::Guest },
                ready: *ready,
                connected: member.is_some(),
            }),
            SeatState::Bot { name, .. } => {
                Some(Occupant { name: name.clone(), kind: OccupantKind::HostedBot, ready: true, connected: true })
            }
        };
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatInfo { seat: i as u8, side: sides[i], occupant: occupant(s) })
            .collect()
    }

    /// Who sat where, as a finished match stores it.
    pub(crate) fn records(&self, sides: &[u8]) -> Vec<SeatRecord> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (player_id, name, kind) = match s {
                    SeatState::Human { owner: Owner::Player(p), name, .. } => {
                        (Some(*p), name.clone(), SeatKind::Player)
                    }
                    SeatState::Human { name, .. } => (None, name.clone(), SeatKind::Guest),
                    SeatState::Bot { name, player_id, .. } => (*player_id, name.clone(), SeatKind::HostedBot),
                    SeatState::Empty => (None, String::new(), SeatKind::Empty),
                };
                SeatRecord { seat: i as u8, side: sides[i], player_id, name, kind }
            })
            .collect()
    }
}
