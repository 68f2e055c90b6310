//! What time does to a room: timeouts, grace, no-shows, slow strategies,
//! idle rooms.

use super::*;
use crate::client::Owner;

#[test]
fn timeouts_play_by_the_rooms_policy() {
    // A strategy (the default, random) moves for a seat out of time.
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let (_, prompt, _) = room.prompt().unwrap();
    room.advance(Duration::from_millis(MOVE_MS - 1));
    assert_eq!(room.prompt().unwrap().1, prompt, "not yet");
    room.advance(Duration::from_millis(1));
    assert_eq!(room.prompt().unwrap().1, prompt + 1, "the policy moved");

    // Forfeit: the seat's side loses the match at once.
    let mut room =
        Room::new(RoomSpec { on_timeout: Some(TimeoutPolicy::Forfeit), ..spec("latin") }, TableOptions::default());
    room.seat_four();
    let (mover, _, _) = room.prompt().unwrap();
    room.advance(Duration::from_millis(MOVE_MS));
    let record = room.stored.take().expect("a forfeit is stored");
    assert_eq!(record.forfeit, Some(mover as u8 - 1));
    assert_ne!(record.winner, Some(record.seats[mover as usize - 1].side), "the forfeiting side does not win");
    assert_eq!(record.timeouts[mover as usize - 1], 1);

    // Pass: passes where passing is legal, else plays as random. In a draw
    // game a seat with a matching tile may not pass, so the policy plays.
    let mut room =
        Room::new(RoomSpec { on_timeout: Some(TimeoutPolicy::Pass), ..spec("latin") }, TableOptions::default());
    room.seat_four();
    let (_, prompt, legal) = room.prompt().unwrap();
    assert!(!legal.contains(&Move::Pass));
    let before = room.sent.len();
    room.advance(Duration::from_millis(MOVE_MS));
    let events = room.sent[before..].iter().find_map(|s| match &s.msg {
        ServerMsg::Events { happened: Family::Tiles(h), .. } => Some(h.events.clone()),
        _ => None,
    });
    let events = serde_json::to_string(&events.expect("the policy played")).unwrap();
    assert!(!events.contains("\"pass\""), "{events}");
    assert_eq!(room.prompt().unwrap().1, prompt + 1);
}

#[test]
fn the_pass_policy_passes_when_it_may() {
    let mut room =
        Room::new(RoomSpec { on_timeout: Some(TimeoutPolicy::Pass), ..spec("block") }, TableOptions::default());
    for c in 1..=2 {
        room.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: None, id: None });
    }
    // `block` seats up to four: fill the rest with quick bots.
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "random".into(), id: None });
    for c in 1..=2 {
        room.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: false, id: None });
    }
    // Play until a person's prompt offers only a pass, then let it time out.
    for _ in 0..500 {
        if room.stored.is_some() {
            break;
        }
        let (conn, prompt, legal) = room.prompt().expect("prompted");
        if legal == [Move::Pass] {
            let before = room.sent.len();
            room.advance(Duration::from_millis(MOVE_MS));
            let passed = room.sent[before..].iter().any(|s| {
                matches!(&s.msg, ServerMsg::Events { happened: Family::Tiles(h), .. } if serde_json::to_string(&h.events).unwrap().contains("pass"))
            });
            assert!(passed, "the seat out of time passed");
            return;
        }
        room.feed(RoomCmd::Move {
            client: member(conn, Some(conn as i64)),
            prompt,
            mv: AnyMove::Tiles(legal[0]),
            id: None,
        });
    }
    panic!("no seat was ever blocked in 500 moves");
}

#[test]
fn a_disconnected_player_keeps_its_seat_for_the_grace_period() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let (mover, prompt, _) = room.prompt().unwrap();
    let other = if mover == 1 { 2 } else { 1 };
    room.feed(RoomCmd::Disconnected { conn: other });
    assert!(!room.core.info().seats[other as usize - 1].occupant.as_ref().unwrap().connected);
    assert!(!room.core.knows(other));

    // Back within the grace period on a new connection: the seat returns.
    room.now += GRACE / 2;
    let mut fx = vec![];
    let (reply, _given) = tokio::sync::oneshot::channel();
    room.core.command(room.now, RoomCmd::Reattach { client: member(50, Some(other as i64)), reply }, &mut fx);
    assert!(fx.iter().any(|e| matches!(e, Effect::GaveBack(_, s) if s == &vec![other as u8 - 1])));
    assert!(room.core.knows(50));

    // The mover drops and never comes back: after the grace its turns go to
    // the timeout policy at once.
    room.feed(RoomCmd::Disconnected { conn: mover });
    room.advance(GRACE);
    let (_, next, _) = room.prompt().unwrap();
    assert!(next > prompt, "the abandoned seat's turn was played for it");
    let seat = &room.core.info().seats[mover as usize - 1];
    assert!(seat.occupant.is_some(), "the seat stays taken until the match ends");
}

#[test]
fn a_table_reserves_its_seats_and_forfeits_a_no_show() {
    let table = TableOptions {
        reserved: [1, 2, 3, 4].map(|p| Some(Owner::Player(p))).to_vec(),
        one_match: true,
        no_show: Some(Duration::from_secs(60)),
        ..TableOptions::default()
    };
    let mut room = Room::new(RoomSpec { seed: None, rated: true, ..spec("latin") }, table);
    room.feed(RoomCmd::Join { client: member(9, Some(9)), seat: None, id: None });
    assert_eq!(room.last_error(9), Some(ErrorCode::Unauthorized));
    // A reserved player gets its own seat whatever it asks for.
    room.feed(RoomCmd::Join { client: member(3, Some(3)), seat: Some(0), id: None });
    assert!(room.to(3, 0).iter().any(|m| matches!(m, ServerMsg::Seated { seat: 2, .. })));
    room.feed(RoomCmd::FillBots { client: member(3, Some(3)), strategy: "random".into(), id: None });
    assert_eq!(room.last_error(3), Some(ErrorCode::BadRequest));
    room.feed(RoomCmd::Ready { client: member(3, Some(3)), reads: false, id: None });

    assert_eq!(room.core.next_deadline(), Some(room.now + Duration::from_secs(60)));
    room.advance(Duration::from_secs(60));
    let record = room.stored.take().expect("the no-show is stored");
    assert_eq!(record.forfeit, Some(0), "the first missing seat forfeits");
    assert_eq!(record.play.plies(), 0);
    room.stored(Some(8));
    assert_eq!(room.done, Some(Some(8)));
    assert!(room.closed, "a table plays one match");
}

#[test]
fn a_table_of_hosted_bots_plays_at_once() {
    let hosted = (0..4)
        .map(|i| Some(HostedSeat { name: format!("bot:{i}"), strategy: "bota-gorda".into(), player_id: Some(i) }))
        .collect();
    let table = TableOptions { hosted, one_match: true, ..TableOptions::default() };
    let mut room = Room::new(spec("latin"), table);
    let record = room.stored.take().expect("played to the end with no input");
    assert!(record.play.plies() > 64, "long enough to have yielded on the way");
    assert_eq!(record.seats.iter().filter_map(|s| s.player_id).count(), 4);
    room.stored(None);
    assert_eq!(room.done, Some(None));
    assert!(room.closed);
}

#[test]
fn a_slow_strategy_thinks_off_the_task_and_a_stale_answer_is_dropped() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.hold_thinks = true;
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: Some(0), id: None });
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "pimc:samples=2".into(), id: None });
    room.feed(RoomCmd::Ready { client: member(1, Some(1)), reads: false, id: None });
    // The person plays until a bot must think.
    while room.held.is_empty() {
        let (conn, prompt, legal) = room.prompt().expect("the person is prompted");
        room.feed(RoomCmd::Move { client: member(conn, Some(1)), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
    }
    assert_eq!(room.held.len(), 1, "one strategy thinks at a time");
    let think = room.held.pop().unwrap();
    // Meanwhile nothing moves, and the person may not move for the bot.
    assert!(room.core.next_deadline().is_none());
    let before = room.sent.len();
    let prompt = room.prompt().unwrap().1;
    room.feed(RoomCmd::Move { client: member(1, Some(1)), prompt, mv: AnyMove::Tiles(Move::Pass), id: None });
    assert!(room.last_error(1).is_some());
    // A failed strategy's turn is played by a random move.
    drop(think);
    room.thought(None);
    assert!(room.sent[before..].iter().any(|s| matches!(s.msg, ServerMsg::Events { .. })), "the bot's turn was played");
    // The next bot thinks, or the person is prompted.
    assert!(!room.held.is_empty() || room.prompt().unwrap().1 > prompt);
    // An answer that arrives after the room closed changes nothing.
    room.feed(RoomCmd::Close { from: From::Member(member(1, Some(1))), id: None });
    assert!(room.closed);
    let frames = room.sent.len();
    let strategy = crate::bots::strategy(
        "random",
        1,
        &capicua_strategy::Policy::TRUSTED,
        &capicua_strategy::StopFlag::new(),
        false,
    )
    .unwrap();
    room.thought(Some((strategy, AnyMove::Tiles(Move::Pass))));
    assert_eq!(room.sent.len(), frames);
}

#[test]
fn a_spec_is_checked_into_settings_with_typed_errors() {
    let err = |spec: RoomSpec| settings(&spec, GRACE).err().expect("refused");
    assert!(matches!(
        err(RoomSpec { preset: Some("nope".into()), ..RoomSpec::default() }),
        CreateError::UnknownPreset(_)
    ));
    assert!(matches!(err(RoomSpec::default()), CreateError::PresetOrVariant));
    assert!(matches!(err(RoomSpec { rated: true, ..spec("latin") }), CreateError::RatedSeed));
    let e = err(RoomSpec { time: Some(TimeControl { move_ms: 0, bank_ms: 0 }), ..spec("latin") });
    assert_eq!((e.code(), e.field()), (ErrorCode::BadRequest, Some("time")));
    let e = err(RoomSpec { seats: Some(9), ..spec("latin") });
    assert_eq!(e.code(), ErrorCode::BadVariant);
    let bad_timeout = RoomSpec { on_timeout: Some(TimeoutPolicy::Strategy { name: "nope".into() }), ..spec("latin") };
    let s = settings(&bad_timeout, GRACE).expect("settings");
    assert!(RoomCore::new(s, TableOptions::default(), 1, Instant::now()).is_err());
}

const IDLE: Duration = Duration::from_secs(600);

/// The reason of the `room-closed` frame sent to `conn`, if one was.
fn closed_reason(room: &Room, conn: ConnId) -> Option<String> {
    room.to(conn, 0).into_iter().find_map(|m| match m {
        ServerMsg::RoomClosed { reason, .. } => Some(reason.clone()),
        _ => None,
    })
}

#[test]
fn a_room_nobody_sits_in_closes_after_its_idle_time() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), Some(IDLE));
    // A spectator does not keep a room open, but hears it close.
    room.feed(RoomCmd::Spectate { client: member(9, None), id: None });
    assert_eq!(room.core.next_deadline(), Some(room.now + IDLE));
    room.advance(IDLE - Duration::from_secs(1));
    assert!(!room.closed && !room.core.is_closed());
    room.advance(Duration::from_secs(1));
    assert!(room.closed && room.core.is_closed());
    let reason = closed_reason(&room, 9).expect("the spectator hears the room close");
    assert!(reason.contains("nobody was seated for 600 s"), "{reason}");
    assert_eq!(room.core.info().status, capicua_protocol::RoomStatus::Closed);
}

#[test]
fn a_connected_player_keeps_a_room_open_and_its_idle_time_starts_when_it_goes() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), Some(IDLE));
    room.advance(IDLE / 2);
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: None, id: None });
    assert_eq!(room.core.next_deadline(), None, "a seated, connected player: no idle clock");
    room.advance(IDLE * 3);
    assert!(!room.closed);

    // Gone: the idle clock runs from the disconnection, not from creation,
    // and the seat kept for the grace period does not count.
    room.feed(RoomCmd::Disconnected { conn: 1 });
    let gone = room.now;
    room.advance(GRACE);
    assert!(!room.closed);
    room.now = gone + IDLE - Duration::from_millis(1);
    room.tick();
    assert!(!room.closed);
    room.now = gone + IDLE;
    room.tick();
    assert!(room.closed);
}

#[test]
fn hosted_bots_do_not_keep_a_room_open() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), Some(IDLE));
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: Some(0), id: None });
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "random".into(), id: None });
    room.feed(RoomCmd::Leave { client: member(1, Some(1)), id: None });
    let left = room.now;
    assert_eq!(room.core.next_deadline(), Some(left + IDLE), "three bots and an empty seat: idle");
    room.advance(IDLE);
    assert!(room.closed);
}

#[test]
fn a_match_in_play_is_never_closed_for_idleness() {
    // An idle time shorter than the move clock and the grace period.
    let short = Duration::from_secs(1);
    let mut room = Room::idling(spec("latin"), TableOptions::default(), Some(short));
    room.seat_four();
    assert!(room.prompt().is_some(), "the match is on");
    for c in 1..=4 {
        room.feed(RoomCmd::Disconnected { conn: c });
    }
    room.advance(short * 2);
    assert!(!room.closed, "the match ends by its clock and timeout policy, not by idleness");
}

#[test]
fn tables_and_rooms_without_an_idle_time_never_close_for_idleness() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), None);
    room.advance(IDLE * 100);
    assert!(!room.closed);
    let table =
        TableOptions { reserved: [1, 2, 3, 4].map(|p| Some(Owner::Player(p))).to_vec(), ..TableOptions::default() };
    let mut room = Room::idling(spec("latin"), table, Some(IDLE));
    room.advance(IDLE * 2);
    assert!(!room.closed, "an event closes its tables");
}

/// Plays first moves in a latin room where conn 1 reads hand ends and the
/// others do not, until a hand ends; the index of the frames after it.
fn to_a_hand_end(room: &mut Room) -> usize {
    for c in 1..=4 {
        room.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: None });
    }
    for c in 1..=4 {
        room.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: c == 1, id: None });
    }
    for _ in 0..200 {
        let (conn, prompt, legal) = room.prompt().expect("prompted");
        let before = room.sent.len();
        room.feed(RoomCmd::Move {
            client: member(conn, Some(conn as i64)),
            prompt,
            mv: AnyMove::Tiles(legal[0]),
            id: None,
        });
        let ended = room.sent[before..]
            .iter()
            .any(|s| matches!(&s.msg, ServerMsg::Events { happened: Family::Tiles(h), .. } if h.hand_end.is_some()));
        if ended {
            return room.sent.len();
        }
    }
    panic!("no hand ended in 200 moves");
}

/// Prompts sent from frame `from` on, with their milliseconds left.
fn prompts_since(room: &Room, from: usize) -> Vec<u64> {
    room.sent[from..]
        .iter()
        .filter_map(|s| match &s.msg {
            ServerMsg::Prompt { deadline_ms, .. } => Some(*deadline_ms),
            _ => None,
        })
        .collect()
}

#[test]
fn a_hand_end_holds_the_next_hand_with_no_clock_running_until_its_reader_has_read_it() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    let after = to_a_hand_end(&mut room);
    // A person reads the result: nobody is prompted, nobody moves.
    room.advance(HAND_END_READ - Duration::from_millis(1));
    assert_eq!(prompts_since(&room, after), Vec::<u64>::new(), "no prompt while the hand's end is read");
    // A seat that does not read hand ends saying ready changes nothing.
    room.feed(RoomCmd::Ready { client: member(2, Some(2)), reads: false, id: None });
    assert!(prompts_since(&room, after).is_empty(), "only the reader is waited for");
    // Read: the next hand's first move has its whole time.
    room.feed(RoomCmd::Ready { client: member(1, Some(1)), reads: false, id: None });
    assert_eq!(prompts_since(&room, after), vec![MOVE_MS], "prompted at once, with the full clock");
}

#[test]
fn a_hand_end_holds_the_next_hand_no_longer_than_its_grace_nor_for_a_reader_who_dropped() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    let after = to_a_hand_end(&mut room);
    room.advance(HAND_END_READ);
    assert_eq!(prompts_since(&room, after), vec![MOVE_MS], "the grace ended: the next hand goes on");

    let mut room = Room::new(spec("latin"), TableOptions::default());
    let after = to_a_hand_end(&mut room);
    room.feed(RoomCmd::Disconnected { conn: 1 });
    // The next hand goes on: the seat to move is prompted (its player may
    // be the one who dropped, whose turn then waits for its grace).
    assert!(room.core.play.reading_until().is_none(), "nobody is left reading");
    assert!(room.core.play.pending_seat().is_some(), "the next hand's first move is asked for");
    assert!(prompts_since(&room, after).len() <= 1);
}
