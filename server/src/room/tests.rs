//! The room core, driven without sockets, database or sleeping: inputs in,
//! effects read back, time moved by hand.

use std::sync::Arc;
use std::time::Duration;

use capicua_engine::Move;
use capicua_engine::poly::{PolyEvent, PolyMove};
use capicua_protocol::{ErrorCode, Family, RoomSpec, ServerFrame, ServerMsg, TimeControl, TimeoutPolicy, poly, tiles};
use tokio::time::Instant;

use super::core::{Effect, HostedSeat, Input, Member, Push, RoomCore, TableOptions};
use super::{CreateError, settings};
use crate::db::GameRecord;
use crate::table::AnyMove;
use crate::{ConnId, Identity};

const GRACE: Duration = Duration::from_secs(30);
const MOVE_MS: u64 = 5_000;

fn spec(preset: &str) -> RoomSpec {
    RoomSpec {
        preset: Some(preset.into()),
        seed: Some(11),
        time: Some(TimeControl { move_ms: MOVE_MS, bank_ms: 0 }),
        ..RoomSpec::default()
    }
}

fn member(conn: ConnId, player: Option<i64>) -> Member {
    let name = match player {
        Some(p) => format!("player{p}"),
        None => format!("guest{conn}"),
    };
    Member { conn, ident: Arc::new(Identity { player_id: player, name, admin: false }), lean: false }
}

/// A frame read back from a `Send` effect.
struct Sent {
    to: ConnId,
    push: Push,
    msg: ServerMsg,
    id: Option<u64>,
}

/// A core and a hand-moved clock.
struct Room {
    core: RoomCore,
    now: Instant,
    /// Every frame sent so far, in order.
    sent: Vec<Sent>,
    /// The last batch of effects other than frames.
    stored: Option<GameRecord>,
    closed: bool,
    done: Option<Option<i64>>,
    thinks: usize,
    /// Keep slow strategies' work here instead of answering at once.
    hold_thinks: bool,
    held: Vec<super::core::Think>,
}

impl Room {
    fn new(spec: RoomSpec, table: TableOptions) -> Room {
        Room::idling(spec, table, None)
    }

    /// A room that closes after `idle` with nobody seated.
    fn idling(spec: RoomSpec, table: TableOptions, idle: Option<Duration>) -> Room {
        let now = Instant::now();
        let mut s = settings(&spec, GRACE).expect("valid spec");
        s.idle = idle;
        let mut core = RoomCore::new(s, table, 99, now).expect("core");
        core.set_id(1);
        let mut room = Room {
            core,
            now,
            sent: vec![],
            stored: None,
            closed: false,
            done: None,
            thinks: 0,
            hold_thinks: false,
            held: vec![],
        };
        let mut fx = vec![];
        room.core.start(now, &mut fx);
        room.read(fx);
        room
    }

    fn feed(&mut self, input: Input) {
        let mut fx = vec![];
        self.core.handle(self.now, input, &mut fx);
        self.read(fx);
    }

    /// Records the effects; long hosted stretches go on at once, slow
    /// strategies answer at once (on this thread), so a test sees where a
    /// person must act next.
    fn read(&mut self, fx: Vec<Effect>) {
        let mut follow = vec![];
        for e in fx {
            match e {
                Effect::Send { to, frame, push } => {
                    let frame: ServerFrame = serde_json::from_str(&frame).expect("frames decode");
                    self.sent.push(Sent { to, push, msg: frame.msg, id: frame.id });
                }
                Effect::Store(record) => self.stored = Some(*record),
                Effect::Closed => self.closed = true,
                Effect::MatchDone(game) => self.done = Some(game),
                Effect::Yield => follow.push(Input::Continue),
                Effect::Think(t) if self.hold_thinks => {
                    self.thinks += 1;
                    self.held.push(*t);
                }
                Effect::Think(mut t) => {
                    self.thinks += 1;
                    let mv = t.strategy.choose(&t.game, t.seat);
                    follow.push(Input::Thought(Some((t.strategy, mv))));
                }
                _ => {}
            }
        }
        for input in follow {
            self.feed(input);
        }
    }

    fn advance(&mut self, d: Duration) {
        self.now += d;
        self.feed(Input::Tick);
    }

    /// Frames sent to `conn` since `from`.
    fn to(&self, conn: ConnId, from: usize) -> Vec<&ServerMsg> {
        self.sent[from..].iter().filter(|s| s.to == conn).map(|s| &s.msg).collect()
    }

    fn last_error(&self, conn: ConnId) -> Option<ErrorCode> {
        self.sent.iter().rev().filter(|s| s.to == conn).find_map(|s| match &s.msg {
            ServerMsg::Error { code, .. } => Some(*code),
            _ => None,
        })
    }

    /// The pending prompt: (conn, prompt id, legal moves), from the frames.
    fn prompt(&self) -> Option<(ConnId, u64, Vec<Move>)> {
        self.sent.iter().rev().find_map(|s| match &s.msg {
            ServerMsg::Prompt { prompt, turn: Family::Tiles(t), .. } => Some((s.to, *prompt, t.legal_moves.clone())),
            _ => None,
        })
    }

    /// Seats four members (conns 1..=4, players 1..=4) and says ready.
    fn seat_four(&mut self) {
        for c in 1..=4 {
            self.feed(Input::Join { who: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: Some(c) });
        }
        for c in 1..=4 {
            self.feed(Input::Ready { who: member(c, Some(c as i64)), id: None });
        }
    }

    /// Answers prompts with their first legal move until the match ends.
    fn play_out(&mut self) {
        let mut answered = 0;
        while self.stored.is_none() {
            let (conn, prompt, legal) = self.prompt().expect("a prompt while the match is on");
            self.feed(Input::Move {
                who: member(conn, Some(conn as i64)),
                prompt,
                mv: AnyMove::Tiles(legal[0]),
                id: None,
            });
            answered += 1;
            assert!(answered < 10_000, "the match never ends");
        }
    }
}

#[test]
fn joining_checks_seats_and_tells_the_members() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.feed(Input::Join { who: member(1, Some(1)), seat: Some(2), id: Some(5) });
    assert!(matches!(room.sent[0], Sent { to: 1, id: Some(5), msg: ServerMsg::Seated { seat: 2, .. }, .. }));
    // The lobby entry follows, deferrable.
    let info = room.sent.iter().find(|s| matches!(s.msg, ServerMsg::Room { .. })).expect("room update");
    assert_eq!(info.push, Push::Defer);
    assert!(room.core.info().seats[2].occupant.is_some());

    room.feed(Input::Join { who: member(2, Some(2)), seat: Some(2), id: None });
    assert_eq!(room.last_error(2), Some(ErrorCode::SeatTaken));
    room.feed(Input::Join { who: member(2, Some(2)), seat: Some(9), id: None });
    assert_eq!(room.last_error(2), Some(ErrorCode::NoSuchSeat));
    room.feed(Input::Join { who: member(3, Some(1)), seat: None, id: None });
    assert_eq!(room.last_error(3), Some(ErrorCode::AlreadySeated), "a player holds one seat per room");
    room.feed(Input::Join { who: member(2, Some(2)), seat: None, id: None });
    assert!(room.to(2, 0).iter().any(|m| matches!(m, ServerMsg::Seated { seat: 0, .. })), "any free seat");
    assert!(room.core.knows(1) && room.core.knows(2) && !room.core.knows(3));
}

#[test]
fn a_rated_room_admits_registered_players_only() {
    let mut room = Room::new(RoomSpec { seed: None, rated: true, ..spec("latin") }, TableOptions::default());
    room.feed(Input::Join { who: member(1, None), seat: None, id: None });
    assert_eq!(room.last_error(1), Some(ErrorCode::Unauthorized));
    room.feed(Input::Join { who: member(2, Some(7)), seat: None, id: None });
    assert_eq!(room.last_error(2), None);
}

#[test]
fn the_match_starts_when_every_seat_is_ready() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    for c in 1..=4 {
        room.feed(Input::Join { who: member(c, Some(c as i64)), seat: None, id: None });
    }
    for c in 1..=3 {
        room.feed(Input::Ready { who: member(c, Some(c as i64)), id: None });
    }
    assert!(room.prompt().is_none(), "seat 3 is not ready");
    let before = room.sent.len();
    room.feed(Input::Ready { who: member(4, Some(4)), id: None });
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
    room.feed(Input::Join { who: member(9, Some(9)), seat: None, id: None });
    assert_eq!(room.last_error(9), Some(ErrorCode::GameInProgress));
}

#[test]
fn moves_are_accepted_refused_or_stale() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let (mover, prompt, legal) = room.prompt().expect("prompted");
    let other = if mover == 1 { 2 } else { 1 };

    room.feed(Input::Move { who: member(other, Some(other as i64)), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
    assert_eq!(room.last_error(other), Some(ErrorCode::NotYourTurn));

    room.feed(Input::Move {
        who: member(mover, Some(mover as i64)),
        prompt: prompt + 7,
        mv: AnyMove::Tiles(legal[0]),
        id: None,
    });
    assert_eq!(room.last_error(mover), Some(ErrorCode::StalePrompt));

    // A move that is not legal changes nothing: the prompt stands.
    let illegal = Move::Draw;
    assert!(!legal.contains(&illegal));
    let before = room.sent.len();
    room.feed(Input::Move { who: member(mover, Some(mover as i64)), prompt, mv: AnyMove::Tiles(illegal), id: Some(3) });
    assert_eq!(room.last_error(mover), Some(ErrorCode::IllegalMove));
    assert!(!room.sent[before..].iter().any(|s| matches!(s.msg, ServerMsg::Events { .. })));
    assert_eq!(room.prompt().map(|p| p.1), Some(prompt));

    let before = room.sent.len();
    room.feed(Input::Move {
        who: member(mover, Some(mover as i64)),
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
    room.feed(Input::Move { who: member(mover, Some(mover as i64)), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
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
    room.feed(Input::Stored(Some(42)));
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
        room.feed(Input::Join { who: member(c, Some(c as i64)), seat: None, id: None });
    }
    // `block` seats up to four: fill the rest with quick bots.
    room.feed(Input::FillBots { who: member(1, Some(1)), strategy: "random".into(), player_id: None, id: None });
    for c in 1..=2 {
        room.feed(Input::Ready { who: member(c, Some(c as i64)), id: None });
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
        room.feed(Input::Move { who: member(conn, Some(conn as i64)), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
    }
    panic!("no seat was ever blocked in 500 moves");
}

#[test]
fn a_disconnected_player_keeps_its_seat_for_the_grace_period() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.seat_four();
    let (mover, prompt, _) = room.prompt().unwrap();
    let other = if mover == 1 { 2 } else { 1 };
    room.feed(Input::Disconnected { conn: other });
    assert!(!room.core.info().seats[other as usize - 1].occupant.as_ref().unwrap().connected);
    assert!(!room.core.knows(other));

    // Back within the grace period on a new connection: the seat returns.
    room.now += GRACE / 2;
    let mut fx = vec![];
    room.core.handle(room.now, Input::Reattach { who: member(50, Some(other as i64)) }, &mut fx);
    assert!(fx.iter().any(|e| matches!(e, Effect::GaveBack(s) if s == &vec![other as u8 - 1])));
    assert!(room.core.knows(50));

    // The mover drops and never comes back: after the grace its turns go to
    // the timeout policy at once.
    room.feed(Input::Disconnected { conn: mover });
    room.advance(GRACE);
    let (_, next, _) = room.prompt().unwrap();
    assert!(next > prompt, "the abandoned seat's turn was played for it");
    let seat = &room.core.info().seats[mover as usize - 1];
    assert!(seat.occupant.is_some(), "the seat stays taken until the match ends");
}

#[test]
fn a_table_reserves_its_seats_and_forfeits_a_no_show() {
    let table = TableOptions {
        reserved: vec![Some(1), Some(2), Some(3), Some(4)],
        one_match: true,
        no_show: Some(Duration::from_secs(60)),
        ..TableOptions::default()
    };
    let mut room = Room::new(RoomSpec { seed: None, rated: true, ..spec("latin") }, table);
    room.feed(Input::Join { who: member(9, Some(9)), seat: None, id: None });
    assert_eq!(room.last_error(9), Some(ErrorCode::Unauthorized));
    // A reserved player gets its own seat whatever it asks for.
    room.feed(Input::Join { who: member(3, Some(3)), seat: Some(0), id: None });
    assert!(room.to(3, 0).iter().any(|m| matches!(m, ServerMsg::Seated { seat: 2, .. })));
    room.feed(Input::FillBots { who: member(3, Some(3)), strategy: "random".into(), player_id: None, id: None });
    assert_eq!(room.last_error(3), Some(ErrorCode::BadRequest));
    room.feed(Input::Ready { who: member(3, Some(3)), id: None });

    assert_eq!(room.core.next_deadline(), Some(room.now + Duration::from_secs(60)));
    room.advance(Duration::from_secs(60));
    let record = room.stored.take().expect("the no-show is stored");
    assert_eq!(record.forfeit, Some(0), "the first missing seat forfeits");
    assert_eq!(record.play.plies(), 0);
    room.feed(Input::Stored(Some(8)));
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
    room.feed(Input::Stored(None));
    assert_eq!(room.done, Some(None));
    assert!(room.closed);
}

#[test]
fn a_slow_strategy_thinks_off_the_task_and_a_stale_answer_is_dropped() {
    let mut room = Room::new(spec("latin"), TableOptions::default());
    room.hold_thinks = true;
    room.feed(Input::Join { who: member(1, Some(1)), seat: Some(0), id: None });
    room.feed(Input::FillBots {
        who: member(1, Some(1)),
        strategy: "pimc:samples=2".into(),
        player_id: None,
        id: None,
    });
    room.feed(Input::Ready { who: member(1, Some(1)), id: None });
    // The person plays until a bot must think.
    while room.held.is_empty() {
        let (conn, prompt, legal) = room.prompt().expect("the person is prompted");
        room.feed(Input::Move { who: member(conn, Some(1)), prompt, mv: AnyMove::Tiles(legal[0]), id: None });
    }
    assert_eq!(room.held.len(), 1, "one strategy thinks at a time");
    let think = room.held.pop().unwrap();
    // Meanwhile nothing moves, and the person may not move for the bot.
    assert!(room.core.next_deadline().is_none());
    let before = room.sent.len();
    let prompt = room.prompt().unwrap().1;
    room.feed(Input::Move { who: member(1, Some(1)), prompt, mv: AnyMove::Tiles(Move::Pass), id: None });
    assert!(room.last_error(1).is_some());
    // A failed strategy's turn is played by a random move.
    drop(think);
    room.feed(Input::Thought(None));
    assert!(room.sent[before..].iter().any(|s| matches!(s.msg, ServerMsg::Events { .. })), "the bot's turn was played");
    // The next bot thinks, or the person is prompted.
    assert!(!room.held.is_empty() || room.prompt().unwrap().1 > prompt);
    // An answer that arrives after the room closed changes nothing.
    room.feed(Input::Close { who: member(1, Some(1)), id: None });
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
    room.feed(Input::Thought(Some((strategy, AnyMove::Tiles(Move::Pass)))));
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
    room.feed(Input::Spectate { who: member(9, None), id: None });
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
    room.feed(Input::Join { who: member(1, Some(1)), seat: None, id: None });
    assert_eq!(room.core.next_deadline(), None, "a seated, connected player: no idle clock");
    room.advance(IDLE * 3);
    assert!(!room.closed);

    // Gone: the idle clock runs from the disconnection, not from creation,
    // and the seat kept for the grace period does not count.
    room.feed(Input::Disconnected { conn: 1 });
    let gone = room.now;
    room.advance(GRACE);
    assert!(!room.closed);
    room.now = gone + IDLE - Duration::from_millis(1);
    room.feed(Input::Tick);
    assert!(!room.closed);
    room.now = gone + IDLE;
    room.feed(Input::Tick);
    assert!(room.closed);
}

#[test]
fn hosted_bots_do_not_keep_a_room_open() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), Some(IDLE));
    room.feed(Input::Join { who: member(1, Some(1)), seat: Some(0), id: None });
    room.feed(Input::FillBots { who: member(1, Some(1)), strategy: "random".into(), player_id: None, id: None });
    room.feed(Input::Leave { who: member(1, Some(1)), id: None });
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
        room.feed(Input::Disconnected { conn: c });
    }
    room.advance(short * 2);
    assert!(!room.closed, "the match ends by its clock and timeout policy, not by idleness");
}

#[test]
fn tables_and_rooms_without_an_idle_time_never_close_for_idleness() {
    let mut room = Room::idling(spec("latin"), TableOptions::default(), None);
    room.advance(IDLE * 100);
    assert!(!room.closed);
    let table = TableOptions { reserved: vec![Some(1), Some(2), Some(3), Some(4)], ..TableOptions::default() };
    let mut room = Room::idling(spec("latin"), table, Some(IDLE));
    room.advance(IDLE * 2);
    assert!(!room.closed, "an event closes its tables");
}

/// The pending poly prompt: (conn, prompt id, legal moves), from the frames.
fn poly_prompt(room: &Room) -> Option<(ConnId, u64, Vec<PolyMove>)> {
    room.sent.iter().rev().find_map(|s| match &s.msg {
        ServerMsg::Prompt { prompt, turn: Family::Poly(p), .. } => Some((s.to, *prompt, p.legal_moves.clone())),
        ServerMsg::Prompt { .. } => panic!("a two-faced prompt in a poly room"),
        _ => None,
    })
}

/// A triominoes variant whose seats are often stuck: pips 0..=9 (220
/// tiles), five tiles a hand, matches of 150 points.
const SPARSE_TRIOMINOES: &str =
    "base = \"triominoes\"\nname = \"sparse\"\nmax-pip = 9\nhand-size = 5\ntarget = { points = { points = 150 } }\n";

/// Plays a seeded poly room to its end: people at seats 0 and 1 (conns 1
/// and 2) answer their prompts, hosted `greedy` bots hold the others, conn
/// 9 watches.
fn play_poly_room(spec: RoomSpec) -> Room {
    let mut room = Room::new(spec, TableOptions::default());
    room.feed(Input::Spectate { who: member(9, None), id: None });
    for c in 1..=2 {
        room.feed(Input::Join { who: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: None });
    }
    room.feed(Input::FillBots { who: member(1, Some(1)), strategy: "greedy".into(), player_id: None, id: None });
    for c in 1..=2 {
        room.feed(Input::Ready { who: member(c, Some(c as i64)), id: None });
    }
    let mut answered = 0;
    while room.stored.is_none() {
        let (conn, prompt, legal) = poly_prompt(&room).expect("a prompt while the match is on");
        let m = legal[answered % legal.len()];
        room.feed(Input::Move { who: member(conn, Some(conn as i64)), prompt, mv: AnyMove::Poly(m), id: None });
        answered += 1;
        assert!(answered < 5_000, "the match never ends");
    }
    room
}

#[test]
fn a_poly_room_speaks_poly_messages_and_refuses_what_does_not_fit() {
    let mut room = Room::new(spec("triominoes"), TableOptions::default());
    assert!(room.core.info().poly);
    assert_eq!(room.core.info().seats.len(), 4);
    room.feed(Input::Spectate { who: member(9, None), id: None });
    for c in 1..=2 {
        room.feed(Input::Join { who: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: None });
    }
    room.feed(Input::FillBots { who: member(1, Some(1)), strategy: "smart".into(), player_id: None, id: Some(8) });
    assert_eq!(room.last_error(1), Some(ErrorCode::UnknownStrategy), "a two-faced strategy cannot play poly tiles");
    room.feed(Input::FillBots { who: member(1, Some(1)), strategy: "greedy".into(), player_id: None, id: None });
    for c in 1..=2 {
        room.feed(Input::Ready { who: member(c, Some(c as i64)), id: None });
    }
    for c in [1, 2, 9] {
        let started = room.to(c, 0);
        let Some(ServerMsg::GameStarted { seat, game: Family::Poly(poly::GameStarted { view, variant }), .. }) =
            started.iter().find(|m| matches!(m, ServerMsg::GameStarted { .. }))
        else {
            panic!("conn {c} heard no poly game-started");
        };
        assert_eq!(variant.name, "triominoes");
        if c == 9 {
            assert_eq!((*seat, view.seat, view.hand.len()), (None, None, 0), "a spectator sees no hand");
        } else {
            assert_eq!((*seat, view.seat, view.hand.len()), (Some(c as u8 - 1), Some(c as u8 - 1), 7));
        }
        assert!(!started.iter().any(|m| matches!(m, ServerMsg::GameStarted { game: Family::Tiles(_), .. })));
    }
    // A dominoes move is refused in a poly room, and changes nothing.
    let (mover, prompt, legal) = poly_prompt(&room).expect("a person is prompted");
    room.feed(Input::Move { who: member(mover, Some(mover as i64)), prompt, mv: AnyMove::Tiles(Move::Pass), id: None });
    assert_eq!(room.last_error(mover), Some(ErrorCode::IllegalMove));
    assert_eq!(poly_prompt(&room).map(|p| p.1), Some(prompt));
    // Hints are for dominoes.
    room.feed(Input::Hint { who: member(mover, Some(mover as i64)), id: None });
    assert_eq!(room.last_error(mover), Some(ErrorCode::HintUnavailable));
    let before = room.sent.len();
    room.feed(Input::Move { who: member(mover, Some(mover as i64)), prompt, mv: AnyMove::Poly(legal[0]), id: Some(5) });
    assert!(matches!(room.sent[before].msg, ServerMsg::Accepted { prompt: p, .. } if p == prompt));
    assert!(
        room.to(9, before).iter().any(|m| matches!(m, ServerMsg::Events { happened: Family::Poly(_), .. })),
        "the spectator hears it"
    );
    // A reload mid-match: `sync` carries the poly view and rules, then the
    // pending poly prompt again.
    let (next, prompt, _) = poly_prompt(&room).expect("the next person is prompted");
    let before = room.sent.len();
    room.feed(Input::Resync { who: member(next, Some(next as i64)), id: Some(6) });
    let answer = room.to(next, before);
    let Some(ServerMsg::Sync { state: Family::Poly(poly::Sync { view, variant }), info, .. }) = answer.first() else {
        panic!("no poly sync: {answer:?}")
    };
    assert!(info.poly);
    assert_eq!(view.as_ref().map(|v| v.seat), Some(Some(next as u8 - 1)));
    assert_eq!(variant.name, "triominoes");
    assert!(matches!(answer.get(1), Some(ServerMsg::Prompt { prompt: p, turn: Family::Poly(_), .. }) if *p == prompt));
    room.feed(Input::Resync { who: member(9, None), id: None });
    let Some(ServerMsg::Sync { state: Family::Poly(poly::Sync { view: Some(v), .. }), .. }) =
        room.to(9, before).last().copied()
    else {
        panic!("spectator sync")
    };
    assert!(v.seat.is_none() && v.hand.is_empty(), "a spectator's sync shows no hand");
}

#[test]
fn a_poly_draw_is_told_to_the_drawer_only_and_the_match_is_stored_to_replay() {
    // The first seed whose match has draws by the people and by the bots.
    let mut checked = None;
    for seed in 0..40 {
        let spec =
            RoomSpec { preset: None, variant_file: Some(SPARSE_TRIOMINOES.into()), seed: Some(seed), ..spec("x") };
        let mut room = play_poly_room(spec);
        // Draws: the drawer is told its tile, nobody else is.
        let mut told = [0; 2];
        for s in &room.sent {
            assert!(!matches!(
                s.msg,
                ServerMsg::Events { happened: Family::Tiles(_), .. } | ServerMsg::Prompt { turn: Family::Tiles(_), .. }
            ));
            let ServerMsg::Events { happened: Family::Poly(poly::Events { events, .. }), .. } = &s.msg else {
                continue;
            };
            for e in events {
                if let PolyEvent::Drew { seat, tile } = e {
                    let own = s.to != 9 && u64::from(*seat) + 1 == s.to;
                    assert_eq!(tile.is_some(), own, "conn {} told of seat {seat}'s draw: {e:?}", s.to);
                    told[usize::from(own)] += 1;
                }
            }
        }
        let record = room.stored.take().expect("stored");
        let crate::db::Play::Poly { variant, seats, moves } = &record.play else { panic!("a poly record") };
        assert_eq!((variant.name.as_str(), *seats), ("sparse", 4));
        // The record replays to its scores and hands.
        let mut replay =
            capicua_engine::poly::PolyGame::new(variant.validate().unwrap(), *seats, record.seed).expect("deals");
        for &m in moves {
            replay.play(m).expect("the log replays");
        }
        assert_eq!(replay.outcome().map(|o| o.scores.clone()), Some(record.scores.clone()));
        assert_eq!(record.hands.len() as u32, replay.outcome().unwrap().hands);
        room.feed(Input::Stored(Some(3)));
        assert!(room.to(9, 0).iter().any(|m| matches!(m, ServerMsg::GameOver { game: Some(3), .. })));
        if told[0] > 0 && told[1] > 0 {
            checked = Some(seed);
            break;
        }
    }
    assert!(checked.is_some(), "no seed of 40 had a person draw");
}

#[test]
fn poly_rooms_check_their_seats_and_teams() {
    let e = settings(&RoomSpec { seats: Some(5), ..spec("triominoes") }, GRACE).err().expect("5 seats");
    assert!(matches!(e, CreateError::Seating(_)), "{e}");
    let e = settings(&RoomSpec { teams: Some(vec![vec![0, 2], vec![1, 3]]), ..spec("quadominoes") }, GRACE)
        .err()
        .expect("teams");
    assert!(e.to_string().contains("without teams"), "{e}");
    let file = RoomSpec {
        preset: None,
        variant_file: Some(
            "base = \"hexominoes\"\nname = \"hex-100\"\ntarget = { points = { points = 100 } }\n".into(),
        ),
        ..spec("x")
    };
    let s = settings(&file, GRACE).expect("a poly variant file");
    assert!(s.rules.is_poly() && s.rules.name() == "hex-100");
    // A poly file's mistake is reported as a poly field.
    let bad = RoomSpec { variant_file: Some("base = \"hexominoes\"\nfaces = 5\n".into()), ..file };
    let e = settings(&bad, GRACE).err().expect("5 faces");
    assert!(e.to_string().contains("faces"), "{e}");
}

#[test]
fn a_poly_seat_out_of_time_is_played_by_a_poly_strategy_or_forfeits() {
    // Four people at a quadominoes table; the one to move never answers.
    let seat_four_poly = |on_timeout: Option<TimeoutPolicy>| {
        let mut room = Room::new(RoomSpec { on_timeout, ..spec("quadominoes") }, TableOptions::default());
        room.seat_four();
        room
    };
    for policy in [None, Some(TimeoutPolicy::Pass), Some(TimeoutPolicy::Strategy { name: "greedy".into() })] {
        let mut room = seat_four_poly(policy.clone());
        let (mover, prompt, legal) = poly_prompt(&room).expect("prompted");
        assert!(legal.iter().all(|m| matches!(m, PolyMove::Play { .. })), "the leader places a tile");
        let before = room.sent.len();
        room.advance(Duration::from_millis(MOVE_MS));
        // The policy placed a tile for the seat (a pass is not legal here):
        // every member hears it as a poly event, and the next seat is prompted.
        let played = room.to(mover, before).iter().any(|m| {
            matches!(m, ServerMsg::Events { happened: Family::Poly(h), .. } if matches!(h.events[0], PolyEvent::Played { seat, .. } if u64::from(seat) + 1 == mover))
        });
        assert!(played, "{policy:?}: the seat out of time played");
        assert_eq!(poly_prompt(&room).map(|p| p.1), Some(prompt + 1), "{policy:?}");
    }
    let mut room = seat_four_poly(Some(TimeoutPolicy::Forfeit));
    let (mover, _, _) = poly_prompt(&room).expect("prompted");
    room.advance(Duration::from_millis(MOVE_MS));
    let record = room.stored.take().expect("a forfeit is stored");
    assert_eq!(record.forfeit, Some(mover as u8 - 1));
    assert!(record.play.is_poly());
    // A strategy that cannot play poly tiles is refused at creation.
    let e = settings(
        &RoomSpec { on_timeout: Some(TimeoutPolicy::Strategy { name: "smart".into() }), ..spec("quadominoes") },
        GRACE,
    )
    .map(|s| RoomCore::new(s, TableOptions::default(), 1, Instant::now()).err());
    assert!(matches!(e, Ok(Some(_))), "smart is not a poly strategy");
}
