//! The room core, driven without sockets, database or sleeping: inputs in,
//! effects read back, time moved by hand.

use std::sync::Arc;
use std::time::Duration;

use capicua_engine::Move;
use capicua_engine::poly::{PolyEvent, PolyMove};
use capicua_protocol::{ErrorCode, Family, RoomSpec, ServerFrame, ServerMsg, TimeControl, TimeoutPolicy, poly, tiles};
use tokio::time::Instant;

use super::core::{HAND_END_READ, RoomCore};
use super::effect::{BotFill, Effect, Push, Think};
use super::settings::{HostedSeat, TableOptions};
use super::{CreateError, settings};
use crate::bots::HostedStrategy;
use crate::outbox::{Flusher, Outbox};
use crate::record::GameRecord;
use crate::room_cmd::{From, RoomCmd};
use crate::table::AnyMove;
use crate::{Client, ConnId, Identity};

mod clock;
mod seating;

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

/// A connection acting for a player (or a guest); its outbox is never
/// read here: the core sends nothing itself.
fn member(conn: ConnId, player: Option<i64>) -> Client {
    let name = match player {
        Some(p) => format!("player{p}"),
        None => format!("guest{conn}"),
    };
    let out = Outbox::new(8, 1 << 20, &Arc::new(Flusher::default()));
    Client { conn, ident: Arc::new(Identity { player_id: player, name, admin: false, addr: None, guest: None }), out }
}

/// What the test answers the core with, as the task would.
enum Next {
    Resume,
    Thought(Option<(Box<dyn HostedStrategy>, AnyMove)>),
    Registered(Box<BotFill>),
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
    /// Every connection woken after quiet frames, in order.
    wakes: Vec<ConnId>,
    /// The last batch of effects other than frames.
    stored: Option<GameRecord>,
    closed: bool,
    done: Option<Option<i64>>,
    thinks: usize,
    /// Keep slow strategies' work here instead of answering at once.
    hold_thinks: bool,
    held: Vec<Think>,
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
            wakes: vec![],
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

    fn feed(&mut self, cmd: RoomCmd) {
        let mut fx = vec![];
        self.core.command(self.now, cmd, &mut fx);
        self.read(fx);
    }

    fn tick(&mut self) {
        let mut fx = vec![];
        self.core.tick(self.now, &mut fx);
        self.read(fx);
    }

    fn stored(&mut self, game: Option<i64>) {
        let mut fx = vec![];
        self.core.stored(self.now, game, &mut fx);
        self.read(fx);
    }

    fn thought(&mut self, answer: Option<(Box<dyn HostedStrategy>, AnyMove)>) {
        let mut fx = vec![];
        self.core.thought(self.now, answer, &mut fx);
        self.read(fx);
    }

    /// Records the effects; long hosted stretches go on at once, slow
    /// strategies answer at once (on this thread), a rated room's bots get
    /// player 100, so a test sees where a person must act next. Each
    /// message is encoded as the task would, and read back from its frame.
    fn read(&mut self, fx: Vec<Effect>) {
        let mut follow = vec![];
        for e in fx {
            match e {
                Effect::Send { to, id, msg, push } => {
                    let frame = crate::outbox::encode_ref(id, &msg);
                    let frame: ServerFrame = serde_json::from_str(&frame).expect("frames decode");
                    self.sent.push(Sent { to, push, msg: frame.msg, id: frame.id });
                }
                Effect::Wake(conn) => self.wakes.push(conn),
                Effect::Store(record) => self.stored = Some(*record),
                Effect::Closed => self.closed = true,
                Effect::MatchDone(game) => self.done = Some(game),
                Effect::Yield => follow.push(Next::Resume),
                Effect::RegisterBots(fill) => follow.push(Next::Registered(fill)),
                Effect::Think(t) if self.hold_thinks => {
                    self.thinks += 1;
                    self.held.push(*t);
                }
                Effect::Think(mut t) => {
                    self.thinks += 1;
                    let mv = t.strategy.choose(&t.game, t.seat);
                    follow.push(Next::Thought(Some((t.strategy, mv))));
                }
                _ => {}
            }
        }
        for next in follow {
            let mut fx = vec![];
            match next {
                Next::Resume => self.core.resume(self.now, &mut fx),
                Next::Thought(answer) => self.core.thought(self.now, answer, &mut fx),
                Next::Registered(fill) => self.core.bots_registered(self.now, *fill, Ok(100), &mut fx),
            }
            self.read(fx);
        }
    }

    fn advance(&mut self, d: Duration) {
        self.now += d;
        self.tick();
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
            self.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: Some(c) });
        }
        for c in 1..=4 {
            self.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: false, id: None });
        }
    }

    /// Answers prompts with their first legal move until the match ends.
    fn play_out(&mut self) {
        let mut answered = 0;
        while self.stored.is_none() {
            let (conn, prompt, legal) = self.prompt().expect("a prompt while the match is on");
            self.feed(RoomCmd::Move {
                client: member(conn, Some(conn as i64)),
                prompt,
                mv: AnyMove::Tiles(legal[0]),
                id: None,
            });
            answered += 1;
            assert!(answered < 10_000, "the match never ends");
        }
    }
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
    room.feed(RoomCmd::Spectate { client: member(9, None), id: None });
    for c in 1..=2 {
        room.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: None });
    }
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "greedy".into(), id: None });
    for c in 1..=2 {
        room.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: false, id: None });
    }
    let mut answered = 0;
    while room.stored.is_none() {
        let (conn, prompt, legal) = poly_prompt(&room).expect("a prompt while the match is on");
        let m = legal[answered % legal.len()];
        room.feed(RoomCmd::Move { client: member(conn, Some(conn as i64)), prompt, mv: AnyMove::Poly(m), id: None });
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
    room.feed(RoomCmd::Spectate { client: member(9, None), id: None });
    for c in 1..=2 {
        room.feed(RoomCmd::Join { client: member(c, Some(c as i64)), seat: Some(c as u8 - 1), id: None });
    }
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "smart".into(), id: Some(8) });
    assert_eq!(room.last_error(1), Some(ErrorCode::UnknownStrategy), "a two-faced strategy cannot play poly tiles");
    room.feed(RoomCmd::FillBots { client: member(1, Some(1)), strategy: "greedy".into(), id: None });
    for c in 1..=2 {
        room.feed(RoomCmd::Ready { client: member(c, Some(c as i64)), reads: false, id: None });
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
    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt,
        mv: AnyMove::Tiles(Move::Pass),
        id: None,
    });
    assert_eq!(room.last_error(mover), Some(ErrorCode::IllegalMove));
    assert_eq!(poly_prompt(&room).map(|p| p.1), Some(prompt));
    // Hints are for dominoes.
    room.feed(RoomCmd::Hint { client: member(mover, Some(mover as i64)), id: None });
    assert_eq!(room.last_error(mover), Some(ErrorCode::HintUnavailable));
    let before = room.sent.len();
    room.feed(RoomCmd::Move {
        client: member(mover, Some(mover as i64)),
        prompt,
        mv: AnyMove::Poly(legal[0]),
        id: Some(5),
    });
    assert!(matches!(room.sent[before].msg, ServerMsg::Accepted { prompt: p, .. } if p == prompt));
    assert!(
        room.to(9, before).iter().any(|m| matches!(m, ServerMsg::Events { happened: Family::Poly(_), .. })),
        "the spectator hears it"
    );
    // A reload mid-match: `sync` carries the poly view and rules, then the
    // pending poly prompt again.
    let (next, prompt, _) = poly_prompt(&room).expect("the next person is prompted");
    let before = room.sent.len();
    room.feed(RoomCmd::Resync { client: member(next, Some(next as i64)), id: Some(6) });
    let answer = room.to(next, before);
    let Some(ServerMsg::Sync { state: Family::Poly(poly::Sync { view, variant }), info, .. }) = answer.first() else {
        panic!("no poly sync: {answer:?}")
    };
    assert!(info.poly);
    assert_eq!(view.as_ref().map(|v| v.seat), Some(Some(next as u8 - 1)));
    assert_eq!(variant.name, "triominoes");
    assert!(matches!(answer.get(1), Some(ServerMsg::Prompt { prompt: p, turn: Family::Poly(_), .. }) if *p == prompt));
    room.feed(RoomCmd::Resync { client: member(9, None), id: None });
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
        let crate::record::Play::Poly { variant, seats, moves } = &record.play else { panic!("a poly record") };
        assert_eq!((variant.name.as_str(), *seats), ("sparse", 4));
        // The record replays to its scores and hands.
        let mut replay =
            capicua_engine::poly::PolyGame::new(variant.validate().unwrap(), *seats, record.seed).expect("deals");
        for &m in moves {
            replay.play(m).expect("the log replays");
        }
        assert_eq!(replay.outcome().map(|o| o.scores.clone()), Some(record.scores.clone()));
        assert_eq!(record.hands.len() as u32, replay.outcome().unwrap().hands);
        room.stored(Some(3));
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
