//! Seats, readiness, moves and the stored match.

use super::*;

#[test]
fn joining_checks_seats_and_tells_the_members() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: Some(2), id: Some(5) });
    assert!(matches!(room.sent[0], Sent { to: 1, id: Some(5), msg: ServerMsg::Seated { seat: 2, .. }, .. }));
    // The lobby entry follows, deferrable.
    let info = room.sent.iter().find(|s| matches!(s.msg, ServerMsg::Room { .. })).expect("room update");
    assert_eq!(info.push, Push::Defer);
    assert!(room.core.info().seats[2].occupant.is_some());

    room.feed(RoomCmd::Join { client: member(2, Some(2)), seat: Some(2), id: None });
    assert_eq!(room.last_error(2), Some(ErrorCode::SeatTaken));
    room.feed(RoomCmd::Join { client: member(2, Some(2)), seat: Some(9), id: None });
    assert_eq!(room.last_error(2), Some(ErrorCode::NoSuchSeat));
    room.feed(RoomCmd::Join { client: member(3, Some(1)), seat: None, id: None });
    assert_eq!(room.last_error(3), Some(ErrorCode::AlreadySeated), "a player holds one seat per room");
    room.feed(RoomCmd::Join { client: member(2, Some(2)), seat: None, id: None });
    assert!(room.to(2, 0).iter().any(|m| matches!(m, ServerMsg::Seated { seat: 0, .. })), "any free seat");
    assert!(room.core.knows(1) && room.core.knows(2) && !room.core.knows(3));
}

#[test]
fn a_rated_room_admits_registered_players_only() {
    let mut room = Room::new(RoomSpec { seed: None, rated: true, ..spec("latin") }, TableOptions::default());
    room.feed(RoomCmd::Join { client: member(1, None), seat: None, id: None });
    assert_eq!(room.last_error(1), Some(ErrorCode::Unauthorized));
    room.feed(RoomCmd::Join { client: member(2, Some(7)), seat: None, id: None });
    assert_eq!(room.last_error(2), None);
}

#[test]
fn the_match_starts_when_every_seat_is_ready() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    for c in 1..=4 {
        room.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: None, id: None });
    }
    for c in 1..=3 {
        room.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: false, id: None });
    }
    assert!(room.prompt().is_none(), "seat 3 is not ready");
    let before = room.sent.len();
    room.feed(RoomCmd::Ready { client: member(4, Some(4)), reads: false, id: None });
    for c in 1..=4u64 {
        let started = room.to(c, before);
        let Some(ServerMsg::GameStarted { seat, game: Family::Tiles(tiles::GameStarted { view, .. }), .. }) =
            started.iter().find(|m| matches!(m, ServerMsg::GameStarted { .. }))
        else {
            panic!("conn {c} heard no game-started");
        };
        assert_eq!(*seat, Some(c as u8 - 1));
        // Each seat's view holds its own hand only.
        let json = serde_json::to_value(view).unwrap();
        assert_eq!(json["seat"], serde_json::json!(c - 1));
    }
    let (_, _, legal) = room.prompt().expect("the leader is prompted");
    assert!(!legal.is_empty());
    assert_eq!(room.core.next_deadline(), Some(room.now + Duration::from_millis(MOVE_MS)));
    // Nobody may join a match in play.
    room.feed(RoomCmd::Join { client: member(9, Some(9)), seat: None, id: None });
    assert_eq!(room.last_error(9), Some(ErrorCode::GameInProgress));
}

#[test]
fn a_mover_that_skips_accepted_hears_of_a_legal_move_only_with_the_events() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let skipping = |conn: ConnId| {
        let client = member(conn, Some(conn as i64));
        client.out.set_skip_accepted(true);
        client
    };
    let (mover, prompt, legal) = room.prompt().expect("prompted");
    // An illegal move is refused at once, as for anyone.
    room.feed(RoomCmd::Move { client: skipping(mover), prompt, mv: AnyMove::Tiles(Move::Draw), id: None });
    assert_eq!(room.last_error(mover), Some(ErrorCode::IllegalMove));

    // A legal one without an id: no `accepted`, no wake-up; the move's
    // events wait for the mover's next urgent frame, as everyone's do.
    let (before, woken) = (room.sent.len(), room.wakes.len());
    room.feed(RoomCmd::Move { client: skipping(mover), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
    let to_mover: Vec<&Sent> = room.sent[before..].iter().filter(|s| s.to == mover).collect();
    assert!(!to_mover.is_empty(), "the mover hears its move");
    for s in to_mover {
        assert!(matches!(s.msg, ServerMsg::Events { .. }) && s.push == Push::Defer, "{:?} {:?}", s.msg, s.push);
    }
    assert!(!room.wakes[woken..].contains(&mover));
    let (next, prompt, legal) = room.prompt().expect("the next seat is prompted");
    assert_ne!(next, mover);

    // A move sent with an id asks for its reply: it gets it.
    let before = room.sent.len();
    room.feed(RoomCmd::Move { client: skipping(next), prompt, mv: AnyMove::Tiles(legal[0]), id: Some(8) });
    let reply = &room.sent[before];
    assert!(matches!(reply.msg, ServerMsg::Accepted { prompt: p, .. } if p == prompt), "{:?}", reply.msg);
    assert_eq!((reply.to, reply.id), (next, Some(8)));
    assert!(room.wakes.contains(&next));
}

#[test]
fn moves_are_accepted_refused_or_stale() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let (mover, prompt, legal) = room.prompt().expect("prompted");
    let other = if mover == 1 { 2 } else { 1 };

    room.feed(RoomCmd::Move {
        client: member(other, Some(other as i64)),
        prompt,
        mv: AnyMove::Tiles(legal[0]),
        id: None,
    });
    assert_eq!(room.last_error(other), Some(ErrorCode::NotYourTurn));

    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt: prompt + 7,
        mv: AnyMove::Tiles(legal[0]),
        id: None,
    });
    assert_eq!(room.last_error(mover), Some(ErrorCode::StalePrompt));

    // A move that is not legal changes nothing: the prompt stands.
    let illegal = Move::Draw;
    assert!(!legal.contains(&illegal));
    let before = room.sent.len();
    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt,
        mv: AnyMove::Tiles(illegal),
        id: Some(3),
    });
    assert_eq!(room.last_error(mover), Some(ErrorCode::IllegalMove));
    assert!(!room.sent[before..].iter().any(|s| matches!(s.msg, ServerMsg::Events { .. })));
    assert_eq!(room.prompt().map(|p| p.1), Some(prompt));

    let before = room.sent.len();
    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt,
        mv: AnyMove::Tiles(legal[0]),
        id: Some(4),
    });
    let accepted = &room.sent[before];
    assert!(matches!(accepted.msg, ServerMsg::Accepted { prompt: p, .. } if p == prompt));
    assert_eq!((accepted.to, accepted.id, accepted.push), (mover, Some(4), Push::Quiet));
    for c in 1..=4 {
        assert!(room.to(c, before).iter().any(|m| matches!(m, ServerMsg::Events { .. })), "conn {c} hears the move");
    }
    let (_, next, _) = room.prompt().expect("next prompt");
    assert_eq!(next, prompt + 1);

    // The old prompt is stale now.
    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt,
        mv: AnyMove::Tiles(legal[0]),
        id: None,
    });
    assert!(matches!(room.last_error(mover), Some(ErrorCode::NotYourTurn | ErrorCode::StalePrompt)));
}

#[test]
fn a_played_match_is_stored_before_it_is_announced() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    room.play_out();
    let record = room.stored.take().expect("stored");
    assert!(record.play.plies() > 0);
    assert!(!room.sent.iter().any(|s| matches!(s.msg, ServerMsg::GameOver { .. })), "nothing before the commit");
    room.stored(Some(42));
    for c in 1..=4 {
        assert!(room.to(c, 0).iter().any(|m| matches!(m, ServerMsg::GameOver { game: Some(42), .. })));
    }
    assert_eq!(room.done, Some(Some(42)));
    assert!(!room.closed, "a room of people stays open for the next match");
    assert_eq!(room.core.info().games_played, 1);
    // No view sent to a seat ever showed another seat's hand (latin: own hand only).
    let mut views = 0;
    for s in &room.sent {
        let seat = s.to as usize - 1;
        let view = match &s.msg {
            ServerMsg::GameStarted { game: Family::Tiles(g), .. } => Some(g.view.as_ref()),
            ServerMsg::Prompt { turn: Family::Tiles(tiles::Prompt { view, .. }), .. }
            | ServerMsg::Events { happened: Family::Tiles(tiles::Events { view, .. }), .. }
            | ServerMsg::Sync { state: Family::Tiles(tiles::Sync { view, .. }), .. } => view.as_deref(),
            _ => None,
        };
        let Some(view) = view else { continue };
        views += 1;
        for (i, hand) in view.hands.iter().enumerate() {
            assert_eq!(hand.is_some(), i == seat, "a view to seat {seat} shows hand {i}");
        }
    }
    assert!(views > 10);
}

#[test]
fn the_server_closes_a_room_without_a_reply_to_anyone() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: None, id: None });
    let before = room.sent.len();
    room.feed(RoomCmd::Close { from: From::System, id: None });
    assert!(room.closed && room.core.is_closed());
    let told = room.to(1, before);
    assert!(matches!(told.as_slice(), [ServerMsg::RoomClosed { .. }]), "{told:?}");
    // Closed: a member's command is refused, the server's is not answered.
    room.feed(RoomCmd::Close { from: From::System, id: None });
    room.feed(RoomCmd::Ready { client: member(1, Some(1)), reads: false, id: Some(3) });
    assert_eq!(room.last_error(1), Some(ErrorCode::NoSuchRoom));
}

#[test]
fn a_rated_rooms_bots_play_under_their_player_row() {
    let mut room = Room::new(RoomSpec { seed: None, rated: true, ..spec("latin") }, TableOptions::default());
    room.feed(RoomCmd::Join { client: member(1, Some(1)), seat: Some(0), id: None });
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "random".into(), id: Some(2) });
    assert!(room.to(1, 0).iter().any(|m| matches!(m, ServerMsg::Ok { .. })));
    room.feed(RoomCmd::Ready { client: member(1, Some(1)), reads: false, id: None });
    room.play_out();
    let record = room.stored.take().expect("stored");
    let bots: Vec<_> = record.seats[1..].iter().map(|s| s.player_id).collect();
    assert_eq!(bots, [Some(100); 3], "the row the task found for them");
}
