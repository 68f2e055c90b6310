//! Open rooms per owner (a registered player, or a guest's address), and
//! per address the rooms' creators connected from, whoever they are: an
//! address that registers a name a minute would otherwise hold the rooms
//! of every name.

use std::net::IpAddr;
use std::sync::Arc;

use super::slots::{Slot, Slots};

/// Who a room counts against: the registered player who created it, or the
/// address of the guest who did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RoomOwner {
    /// A registered player.
    Player(i64),
    /// A guest, by address.
    Addr(IpAddr),
}

impl RoomOwner {
    /// The owner a creator counts as: `None` (no limit) for the admin, and
    /// for a guest whose address is unknown (a Unix socket).
    pub(crate) fn of(player_id: Option<i64>, admin: bool, addr: Option<IpAddr>) -> Option<RoomOwner> {
        match (admin, player_id, addr) {
            (true, _, _) => None,
            (false, Some(p), _) => Some(RoomOwner::Player(p)),
            (false, None, Some(a)) => Some(RoomOwner::Addr(a)),
            (false, None, None) => None,
        }
    }
}

/// Open rooms per owner and per address.
#[derive(Debug)]
pub(crate) struct RoomQuota {
    per_owner: Arc<Slots<RoomOwner>>,
    per_addr: Arc<Slots<IpAddr>>,
}

/// A room refused: the owner, or its address, holds this many open rooms
/// already.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TooManyRooms {
    /// The owner's rooms.
    Owner(usize),
    /// The rooms created from the address.
    Addr(usize),
}

impl RoomQuota {
    /// At most `per_owner` open rooms per owner and `per_addr` per address;
    /// 0 is no limit.
    pub(crate) fn new(per_owner: usize, per_addr: usize) -> RoomQuota {
        RoomQuota { per_owner: Slots::new(per_owner), per_addr: Slots::new(per_addr) }
    }

    /// Takes one of the owner's slots and one of its address's: the room
    /// holds them while it is open.
    pub(crate) fn take(&self, owner: RoomOwner, addr: Option<IpAddr>) -> Result<RoomSlot, TooManyRooms> {
        let owned = self.per_owner.take(owner).ok_or(TooManyRooms::Owner(self.per_owner.max()))?;
        let from = match addr {
            Some(a) => Some(self.per_addr.take(a).ok_or(TooManyRooms::Addr(self.per_addr.max()))?),
            None => None,
        };
        Ok(RoomSlot { _owned: owned, _from: from })
    }

    /// The rooms an owner holds open (for tests).
    #[cfg(test)]
    pub(crate) fn held(&self, owner: RoomOwner) -> usize {
        self.per_owner.held(owner)
    }
}

/// One open room of an owner: dropping it (the room closed, or its
/// creation failed) frees its slots.
#[derive(Debug)]
pub(crate) struct RoomSlot {
    _owned: Slot<RoomOwner>,
    _from: Option<Slot<IpAddr>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_room_frees_its_owners_slot() {
        let quota = RoomQuota::new(2, 0);
        let ana = RoomOwner::Player(1);
        let a = quota.take(ana, None).expect("first");
        let _b = quota.take(ana, None).expect("second");
        assert_eq!(quota.take(ana, None).unwrap_err(), TooManyRooms::Owner(2));
        // Another owner is counted apart.
        let _c = quota.take(RoomOwner::Addr(IpAddr::from([10, 0, 0, 1])), None).expect("another owner");
        drop(a);
        assert_eq!(quota.held(ana), 1);
        let _d = quota.take(ana, None).expect("a slot was freed");
    }

    #[test]
    fn the_names_of_one_address_share_its_rooms() {
        let quota = RoomQuota::new(2, 3);
        let addr = Some(IpAddr::from([10, 0, 0, 1]));
        let held: Vec<_> = (1..=3).map(|p| quota.take(RoomOwner::Player(p), addr).expect("within")).collect();
        assert_eq!(quota.take(RoomOwner::Player(4), addr).unwrap_err(), TooManyRooms::Addr(3));
        assert_eq!(quota.held(RoomOwner::Player(4)), 0, "the owner's slot refused with the address's");
        assert!(quota.take(RoomOwner::Player(4), Some(IpAddr::from([10, 0, 0, 2]))).is_ok(), "another address");
        drop(held);
        assert!(quota.take(RoomOwner::Player(4), addr).is_ok(), "the address's rooms closed");
    }

    #[test]
    fn zero_is_no_limit() {
        let quota = RoomQuota::new(0, 0);
        let addr = Some(IpAddr::from([10, 0, 0, 1]));
        let slots: Vec<_> = (0..100).map(|_| quota.take(RoomOwner::Player(1), addr).expect("no limit")).collect();
        drop(slots);
    }

    #[test]
    fn the_admin_and_unknown_addresses_own_nothing() {
        let ip = IpAddr::from([127, 0, 0, 1]);
        assert_eq!(RoomOwner::of(Some(3), true, Some(ip)), None);
        assert_eq!(RoomOwner::of(Some(3), false, Some(ip)), Some(RoomOwner::Player(3)));
        assert_eq!(RoomOwner::of(None, false, Some(ip)), Some(RoomOwner::Addr(ip)));
        assert_eq!(RoomOwner::of(None, false, None), None);
    }
}
