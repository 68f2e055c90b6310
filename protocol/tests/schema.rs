//! The JSON Schema (`json_schema()`) against every message the protocol
//! has: one or more samples of every client and server message, each
//! serialized and checked against the schema, structurally and
//! recursively (its `type` is one of the schema's alternatives, and every
//! key of every object is declared wherever the schema declares keys).
//! The server's samples carry real engine payloads (views, events,
//! variants) of several layouts, so the schema is checked on what the
//! server really sends, as far as it describes it.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use capicua_engine::poly::{
    POLY_PRESETS, PolyEvent, PolyGame, PolyMove, PolyMoveList, PolyRules, PolyVariant, PolyViewSnapshot,
};
use capicua_engine::{
    EndId, Event, Game, HandVisibility, Move, PRESETS, Rules, Seat, Seating, Side, Tile, Variant, ViewSnapshot,
};
use capicua_protocol::*;
use common::Checker;
use serde_json::Value;

/// The `type` of a client message. No catch-all arm: a new message does
/// not compile until it is named here, and `every_client_message_fits_the_schema`
/// fails until it has a sample.
fn client_tag(m: &ClientMsg) -> &'static str {
    match m {
        ClientMsg::Hello { .. } => "hello",
        ClientMsg::Register { .. } => "register",
        ClientMsg::ListRooms => "list-rooms",
        ClientMsg::CreateRoom(_) => "create-room",
        ClientMsg::Join { .. } => "join",
        ClientMsg::Leave { .. } => "leave",
        ClientMsg::Spectate { .. } => "spectate",
        ClientMsg::FillBots { .. } => "fill-bots",
        ClientMsg::Unseat { .. } => "unseat",
        ClientMsg::Ready { .. } => "ready",
        ClientMsg::Move { .. } => "move",
        ClientMsg::Resync { .. } => "resync",
        ClientMsg::CloseRoom { .. } => "close-room",
        ClientMsg::Ping => "ping",
        ClientMsg::Chat { .. } => "chat",
        ClientMsg::AwaitAssignments => "await-assignments",
        ClientMsg::SubscribeTournament { .. } => "subscribe-tournament",
        ClientMsg::Hint { .. } => "hint",
        ClientMsg::JoinLadder { .. } => "join-ladder",
        ClientMsg::LeaveLadder => "leave-ladder",
        ClientMsg::Seek { .. } => "seek",
        ClientMsg::CancelSeek => "cancel-seek",
    }
}

/// The `type` of a server message (as [`client_tag`]).
fn server_tag(m: &ServerMsg) -> &'static str {
    match m {
        ServerMsg::Welcome { .. } => "welcome",
        ServerMsg::Registered { .. } => "registered",
        ServerMsg::Rooms { .. } => "rooms",
        ServerMsg::Room { .. } => "room",
        ServerMsg::Seated { .. } => "seated",
        ServerMsg::Left { .. } => "left",
        ServerMsg::Unseated { .. } => "unseated",
        ServerMsg::Spectating { .. } => "spectating",
        ServerMsg::Ok { .. } => "ok",
        ServerMsg::GameStarted { .. } => "game-started",
        ServerMsg::Prompt { .. } => "prompt",
        ServerMsg::Accepted { .. } => "accepted",
        ServerMsg::Events { .. } => "events",
        ServerMsg::GameOver { .. } => "game-over",
        ServerMsg::Sync { .. } => "sync",
        ServerMsg::RoomClosed { .. } => "room-closed",
        ServerMsg::Pong => "pong",
        ServerMsg::Chat { .. } => "chat",
        ServerMsg::Error { .. } => "error",
        ServerMsg::Closing { .. } => "closing",
        ServerMsg::Awaiting { .. } => "awaiting",
        ServerMsg::Assignment(_) => "assignment",
        ServerMsg::TournamentProgress { .. } => "tournament-progress",
        ServerMsg::Hint { .. } => "hint",
        ServerMsg::Ladder { .. } => "ladder",
        ServerMsg::LadderMatch { .. } => "ladder-match",
        ServerMsg::Seeking { .. } => "seeking",
        ServerMsg::Paired { .. } => "paired",
    }
}

/// The `event` of a tournament's progress (as [`client_tag`]).
fn progress_tag(p: &Progress) -> &'static str {
    match p {
        Progress::Subscribed { .. } => "subscribed",
        Progress::RoundStarted { .. } => "round-started",
        Progress::TableFinished { .. } => "table-finished",
        Progress::Finished { .. } => "finished",
        Progress::Paused { .. } => "paused",
        Progress::Resumed { .. } => "resumed",
        Progress::Cancelled { .. } => "cancelled",
        Progress::Deleted { .. } => "deleted",
        Progress::Withdrawn { .. } => "withdrawn",
        Progress::Corrected { .. } => "corrected",
        Progress::Entered { .. } => "entered",
    }
}

/// The `event` of an engine event (as [`client_tag`]).
fn event_tag(e: &Event) -> &'static str {
    match e {
        Event::Played { .. } => "played",
        Event::Drew { .. } => "drew",
        Event::Passed { .. } => "passed",
        Event::Scored { .. } => "scored",
        Event::HandOver { .. } => "hand-over",
        Event::HandStarted { .. } => "hand-started",
        Event::MatchOver { .. } => "match-over",
        Event::Overruled { .. } => "overruled",
    }
}
const EVENT_TAGS: [&str; 8] =
    ["played", "drew", "passed", "scored", "hand-over", "hand-started", "match-over", "overruled"];

/// Every error code, each named in a match without a catch-all arm.
fn error_codes() -> Vec<ErrorCode> {
    use ErrorCode::*;
    let all = vec![
        BadJson,
        BadMessage,
        BinaryFrame,
        FrameTooLarge,
        VersionMismatch,
        HelloRequired,
        AlreadyGreeted,
        BadToken,
        Unauthorized,
        NameTaken,
        BadName,
        NoSuchRoom,
        WrongNode,
        SeatTaken,
        InviteOnly,
        NoSuchSeat,
        NotSeated,
        AlreadySeated,
        BadVariant,
        BadRequest,
        GameInProgress,
        UnknownStrategy,
        NotYourTurn,
        StalePrompt,
        IllegalMove,
        RateLimited,
        TooManyConnections,
        TooManyRooms,
        ShuttingDown,
        SlowConsumer,
        Internal,
        NoSuchTournament,
        BadTournament,
        NoSuchGame,
        NotFound,
        HintUnavailable,
        Busy,
        StorageBudget,
        TooManySeats,
        BadOrigin,
        TournamentState,
        NoSuchPlayer,
        BadSignIn,
    ];
    for c in &all {
        match c {
            BadJson | BadMessage | BinaryFrame | FrameTooLarge | VersionMismatch | HelloRequired | AlreadyGreeted
            | BadToken | Unauthorized | NameTaken | BadName | NoSuchRoom | WrongNode | SeatTaken | InviteOnly
            | NoSuchSeat | NotSeated | AlreadySeated | BadVariant | BadRequest | GameInProgress | UnknownStrategy
            | NotYourTurn | StalePrompt | IllegalMove | RateLimited | TooManyConnections | TooManyRooms
            | ShuttingDown | SlowConsumer | Internal | NoSuchTournament | BadTournament | NoSuchGame | NotFound
            | HintUnavailable | Busy | StorageBudget | TooManySeats | BadOrigin | TournamentState | NoSuchPlayer
            | BadSignIn => {}
        }
    }
    all
}

/// Every preset (every layout), plus variant files with the rarer options:
/// shown tiles, random tile values, conditional rules, extra hand ends and
/// a lenient referee.
fn variants() -> Vec<Variant> {
    let mut all: Vec<Variant> = PRESETS.iter().map(|p| capicua_engine::preset(p).unwrap()).collect();
    for (origin, text) in [
        ("house-sampler.toml", include_str!("../../variants/house-sampler.toml")),
        ("lenient-block.toml", include_str!("../../variants/lenient-block.toml")),
    ] {
        all.push(Variant::from_file_text(origin, text).unwrap());
    }
    all
}

/// What real play produces: views (seats' and spectators', at the start,
/// along the way and at the end of a match) and every move's events.
struct Played {
    views: Vec<ViewSnapshot>,
    events: Vec<Vec<Event>>,
    /// Hands' ends (their final positions, hands face up), a few a variant.
    ends: Vec<tiles::HandEnd>,
}

fn play_every_variant() -> Played {
    let mut played = Played { views: vec![], events: vec![], ends: vec![] };
    // One list of events per sequence of kinds and variant is enough.
    let mut sequences = BTreeSet::new();
    for variant in variants() {
        let rules: Arc<Rules> = variant.validate().unwrap().into();
        let seats = *rules.seat_range().end();
        let mut game = Game::new(rules, Seating::new(seats), 7).unwrap();
        game.keep_hand_ends(true);
        played.views.push(game.view(Seat(0)).snapshot());
        played.views.push(game.spectator_view().snapshot());
        let (mut ply, mut kept) = (0, 0);
        while let Some(seat) = game.to_move() {
            let legal = game.legal_moves();
            let events = game.play(legal[(ply * 5 + 1) % legal.len()]).unwrap().to_vec();
            if let Some(end) = game.take_hand_end() {
                let result = end.hand_results().last().unwrap().clone();
                let hand = result.hand;
                if hand < 2 {
                    let viewer = if hand == 0 { Some(seat) } else { None };
                    let view = Box::new(end.revealed_snapshot(viewer));
                    played.ends.push(tiles::HandEnd { hand, result, view });
                }
            }
            // A hand's end and every 17th move, a dozen times a match.
            let telling = events.len() > 1 || ply % 17 == 0;
            if telling && kept < 12 {
                kept += 1;
                played.views.push(game.view(seat).snapshot());
                played.views.push(game.view(game.next_seat(seat)).snapshot());
            }
            let kinds: Vec<&str> = events.iter().map(event_tag).collect();
            if sequences.insert((rules_name(&game), kinds)) {
                played.events.push(events);
            }
            ply += 1;
        }
        played.views.push(game.view(Seat(0)).snapshot());
        played.views.push(game.spectator_view().snapshot());
    }
    // Every kind of event, whether or not the games above produced it.
    let every = vec![
        Event::Played { seat: Seat(1), tile: Tile::domino(2, 5), end: EndId(3), face: 1 },
        Event::Drew { seat: Seat(2) },
        Event::Passed { seat: Seat(0) },
        Event::Scored { side: Side(1), points: 15 },
        Event::HandOver { hand: 2, winner: Some(Side(0)) },
        Event::HandOver { hand: 3, winner: None },
        Event::HandStarted { hand: 3, leader: Seat(3) },
        Event::MatchOver { winner: None },
        Event::MatchOver { winner: Some(Side(1)) },
        Event::Overruled { seat: Seat(1), penalty: 12 },
    ];
    let kinds: BTreeSet<&str> = every.iter().map(event_tag).collect();
    assert_eq!(kinds, BTreeSet::from(EVENT_TAGS), "one event of each kind");
    played.events.push(every);
    played
}

fn rules_name(game: &Game) -> String {
    game.rules().variant().name.clone()
}

fn info(status: RoomStatus, occupied: bool, on_timeout: TimeoutPolicy, seeded: bool) -> RoomInfo {
    let occupant =
        |seat: u8, kind| Occupant { name: format!("p{seat}"), kind, ready: seat.is_multiple_of(2), connected: true };
    let kinds = [OccupantKind::Player, OccupantKind::Guest, OccupantKind::HostedBot];
    RoomInfo {
        id: 9,
        variant: "latin".into(),
        poly: false,
        seats: (0..4)
            .map(|seat| SeatInfo {
                seat,
                side: seat % 2,
                occupant: (occupied && seat < 3).then(|| occupant(seat, kinds[seat as usize])),
            })
            .collect(),
        status,
        rated: !seeded,
        spectators: 2,
        time: TimeControl { move_ms: 5_000, bank_ms: 60_000 },
        on_timeout,
        games_played: 3,
        seeded,
        private: false,
        invite: None,
        node: None,
    }
}

fn client_samples() -> Vec<ClientMsg> {
    let full_spec = RoomSpec {
        preset: None,
        variant: Some(capicua_engine::preset("all-fives").unwrap()),
        variant_file: None,
        seats: Some(4),
        teams: Some(vec![vec![0, 2], vec![1, 3]]),
        rated: false,
        time: Some(TimeControl { move_ms: 10_000, bank_ms: 30_000 }),
        on_timeout: Some(TimeoutPolicy::Forfeit),
        seed: Some(u64::MAX),
        private: true,
    };
    let mut samples = vec![
        ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            token: None,
            lean_prompts: false,
            batch_events: false,
            skip_accepted: false,
        },
        ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            token: Some("t0k".into()),
            lean_prompts: true,
            batch_events: true,
            skip_accepted: true,
        },
        ClientMsg::Register { name: "ana".into() },
        ClientMsg::ListRooms,
        ClientMsg::CreateRoom(Box::new(RoomSpec { preset: Some("latin".into()), ..Default::default() })),
        ClientMsg::CreateRoom(Box::new(full_spec)),
        ClientMsg::CreateRoom(Box::new(RoomSpec {
            variant_file: Some(
                "base = \"latin\"\nname = \"latin-200\"\ntarget = { points = { points = 200 } }\n".into(),
            ),
            ..Default::default()
        })),
        ClientMsg::CreateRoom(Box::new(RoomSpec {
            preset: Some("block".into()),
            rated: true,
            on_timeout: Some(TimeoutPolicy::Strategy { name: "random".into() }),
            ..Default::default()
        })),
        ClientMsg::CreateRoom(Box::new(RoomSpec {
            preset: Some("draw".into()),
            on_timeout: Some(TimeoutPolicy::Pass),
            ..Default::default()
        })),
        ClientMsg::CreateRoom(Box::new(RoomSpec { preset: Some("latin".into()), private: true, ..Default::default() })),
        ClientMsg::join(3, None),
        ClientMsg::join(3, Some(2)),
        ClientMsg::Join { room: None, seat: None, invite: Some("0b8a5f0e-3c1d-4e6f-9a2b-7c4d1e8f0a3b".into()) },
        ClientMsg::Leave { room: 3 },
        ClientMsg::Spectate { room: Some(3), invite: None },
        ClientMsg::FillBots { room: 3, strategy: "random".into() },
        ClientMsg::Unseat { room: 3, seat: 1 },
        ClientMsg::Ready { room: 3, read_hand_ends: false },
        ClientMsg::Resync { room: 3 },
        ClientMsg::CloseRoom { room: 3 },
        ClientMsg::Ping,
        ClientMsg::Chat { room: 3, text: "good game, partner".into() },
        ClientMsg::Hint { room: 3 },
        ClientMsg::AwaitAssignments,
        ClientMsg::SubscribeTournament { tournament: 4 },
        ClientMsg::JoinLadder { variant: "block".into() },
        ClientMsg::LeaveLadder,
        ClientMsg::Seek { preset: "latin".into(), seats: Some(4), rated: true },
        ClientMsg::CancelSeek,
    ];
    // A move of every kind the engine writes.
    let mut game = Game::new(Rules::preset("draw").unwrap().into(), Seating::new(2), 1).unwrap();
    let mut kinds = BTreeSet::new();
    let mut prompt = 0;
    while game.to_move().is_some() {
        let legal = game.legal_moves();
        for &m in &legal {
            let kind = serde_json::to_value(m).unwrap()["kind"].clone();
            if kinds.insert(kind.to_string()) {
                prompt += 1;
                samples.push(ClientMsg::play(3, prompt, m));
            }
        }
        game.play(legal[legal.len() - 1]).unwrap();
    }
    assert_eq!(kinds.len(), 3, "play, draw and pass: {kinds:?}");
    // A poly move of every kind and spot: the graph board's root and faces,
    // a lattice's cells, draws and passes.
    let mut kinds = BTreeSet::new();
    for m in poly_played().moves {
        let v = serde_json::to_value(m).unwrap();
        if kinds.insert((v["kind"].to_string(), v["at"]["kind"].to_string())) {
            prompt += 1;
            samples.push(ClientMsg::play(3, prompt, m));
        }
    }
    for kind in [("\"play\"", "\"root\""), ("\"play\"", "\"face\""), ("\"play\"", "\"cell\""), ("\"draw\"", "null")] {
        assert!(
            kinds.contains(&(kind.0.to_string(), kind.1.to_string())),
            "root, face and cell plays, draw: {kinds:?}"
        );
    }
    // Most presets draw until a tile fits, so a pass may not come up in play.
    samples.push(ClientMsg::play(3, prompt + 1, PolyMove::Pass));
    samples
}

/// What real poly play produces: every preset's rules, views of seats and
/// spectators, every move's events as each receiver sees them, the moves.
struct PolyPlayed {
    variants: Vec<PolyVariant>,
    views: Vec<PolyViewSnapshot>,
    events: Vec<Vec<PolyEvent>>,
    moves: Vec<PolyMove>,
    /// (legal moves, view) of seats to move.
    prompts: Vec<(Vec<PolyMove>, PolyViewSnapshot)>,
    /// Hands' ends (their final positions, hands face up), a few a preset.
    ends: Vec<poly::HandEnd>,
}

fn poly_played() -> PolyPlayed {
    let mut played =
        PolyPlayed { variants: vec![], views: vec![], events: vec![], moves: vec![], prompts: vec![], ends: vec![] };
    let mut sequences = BTreeSet::new();
    let mut legal = PolyMoveList::default();
    for &name in POLY_PRESETS {
        let rules = PolyRules::preset(name).unwrap();
        played.variants.push(rules.variant().clone());
        let seats = *rules.seat_range().end();
        let mut game = PolyGame::new(rules, seats, 3).unwrap();
        game.keep_hand_ends(true);
        played.views.push(game.spectator_snapshot());
        let mut ply = 0usize;
        while let Some(seat) = game.to_move() {
            game.legal_moves(&mut legal);
            if ply.is_multiple_of(23) {
                played.prompts.push((legal.to_vec(), game.view(seat).snapshot()));
            }
            let m = legal[(ply * 7 + 1) % legal.len()];
            let events = game.play(m).unwrap();
            played.moves.push(m);
            if let Some(end) = game.take_hand_end() {
                let Some(PolyEvent::HandEnded { hand, winner, blocked, points }) =
                    events.iter().find(|e| matches!(e, PolyEvent::HandEnded { .. })).copied()
                else {
                    panic!("a hand's end comes with its event")
                };
                if hand < 2 {
                    let n = end.seats() as usize;
                    let result = poly::HandResult {
                        hand,
                        winner,
                        blocked,
                        points: points[..n].to_vec(),
                        pips: (0..end.seats()).map(|s| end.pips_in_hand(s)).collect(),
                    };
                    let viewer = if hand == 0 { Some(seat) } else { None };
                    played.ends.push(poly::HandEnd { hand, result, view: Box::new(end.revealed_snapshot(viewer)) });
                }
            }
            let tags: Vec<String> =
                events.iter().map(|e| serde_json::to_value(e).unwrap()["event"].to_string()).collect();
            if sequences.insert((name, tags)) {
                for viewer in [Some(seat), None] {
                    played.events.push(events.iter().map(|e| e.seen_by(viewer)).collect());
                }
                played.views.push(game.view(seat).snapshot());
            }
            ply += 1;
        }
        played.views.push(game.spectator_snapshot());
    }
    played
}

fn server_samples() -> Vec<ServerMsg> {
    let played = play_every_variant();
    let mut samples = vec![
        ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            player: PlayerInfo { name: "guest-1".into(), guest: true, admin: false },
            seats: vec![],
            site: None,
            guest_session: Some(format!("guest:{}", "0a".repeat(32))),
        },
        ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            player: PlayerInfo { name: "ana".into(), guest: false, admin: false },
            seats: vec![SeatRef { room: 3, seat: 1 }, SeatRef { room: 5, seat: 0 }],
            site: Some("http://127.0.0.1:8080".into()),
            guest_session: None,
        },
        ServerMsg::Registered { name: "ana".into(), token: "ab12".into() },
        ServerMsg::Rooms { rooms: vec![] },
        ServerMsg::Rooms {
            rooms: vec![
                info(RoomStatus::Waiting, false, TimeoutPolicy::default(), false),
                info(RoomStatus::Playing, true, TimeoutPolicy::Pass, true),
                info(RoomStatus::Closed, true, TimeoutPolicy::Forfeit, false),
                // A room another server on the same database hosts.
                RoomInfo {
                    node: Some("http://10.0.0.2:8080".into()),
                    ..info(RoomStatus::Waiting, false, TimeoutPolicy::default(), false)
                },
            ],
        },
        ServerMsg::Room { room: info(RoomStatus::Waiting, true, TimeoutPolicy::default(), true) },
        // The reply to a private room's creator: its invite.
        ServerMsg::Room {
            room: RoomInfo {
                private: true,
                invite: Some("0b8a5f0e-3c1d-4e6f-9a2b-7c4d1e8f0a3b".into()),
                ..info(RoomStatus::Waiting, false, TimeoutPolicy::default(), false)
            },
        },
        ServerMsg::Seated { room: 3, seat: 1 },
        ServerMsg::Left { room: 3 },
        ServerMsg::Unseated { room: 3, seat: 1 },
        ServerMsg::Spectating { room: 3 },
        ServerMsg::Ok { room: 3 },
        ServerMsg::Accepted { room: 3, prompt: 7 },
        ServerMsg::GameOver {
            room: 3,
            seq: 90,
            game: Some(12),
            result: GameResult { winner: Some(1), scores: vec![40, 101], hands: 4, forfeit: None },
        },
        ServerMsg::GameOver {
            room: 3,
            seq: 91,
            game: None,
            result: GameResult { winner: None, scores: vec![0, 0, 0], hands: 0, forfeit: Some(2) },
        },
        ServerMsg::Sync {
            room: 3,
            seq: 0,
            info: info(RoomStatus::Waiting, true, TimeoutPolicy::Pass, false),
            state: Family::Tiles(tiles::Sync { view: None, variant: Box::new(variants()[0].clone()) }),
        },
        ServerMsg::RoomClosed { room: 3, reason: "the match is over".into() },
        ServerMsg::Pong,
        ServerMsg::Chat { room: 3, seat: Some(1), name: "ana".into(), text: "good game, partner".into() },
        ServerMsg::Chat { room: 3, seat: None, name: "guest-7".into(), text: "nice capicua!".into() },
        ServerMsg::Closing { reason: "the server is shutting down".into(), reconnect: true },
        ServerMsg::Awaiting { pending: 2 },
        ServerMsg::Hint {
            room: 3,
            prompt: 17,
            seat: 1,
            best: Move::Play { tile: Tile::domino(6, 4), end: EndId(0), face: 1 },
            moves: vec![
                HintMove {
                    r#move: Move::Play { tile: Tile::domino(6, 4), end: EndId(0), face: 1 },
                    win: 0.63,
                    value: 0.27,
                },
                HintMove {
                    r#move: Move::Play { tile: Tile::domino(5, 2), end: EndId(1), face: 0 },
                    win: 0.41,
                    value: -0.18,
                },
                HintMove { r#move: Move::Draw, win: 0.2, value: -0.6 },
            ],
            samples: 300,
        },
        ServerMsg::Assignment(Assignment {
            tournament: 1,
            round: 0,
            table: 2,
            room: 4,
            seat: 1,
            variant: "block".into(),
            url: Some("http://10.0.0.2:8080".into()),
        }),
        ServerMsg::Ladder { variant: Some("block".into()), waiting: 3 },
        ServerMsg::Ladder { variant: None, waiting: 0 },
        ServerMsg::LadderMatch { room: 9, seat: 1, variant: "block".into() },
        ServerMsg::Seeking { preset: Some("latin".into()), seats: 4, rated: true, waiting: 2 },
        ServerMsg::Seeking { preset: None, seats: 0, rated: false, waiting: 0 },
        ServerMsg::Paired { room: 9, seat: 3, preset: "latin".into(), rated: false },
    ];
    for code in error_codes() {
        samples.push(ServerMsg::Error { code, message: format!("{code:?}"), url: None });
    }
    samples.push(ServerMsg::Error {
        code: ErrorCode::WrongNode,
        message: "room 12 is hosted by http://10.0.0.2:8080".into(),
        url: Some("http://10.0.0.2:8080".into()),
    });
    let progress = vec![
        Progress::Subscribed { status: capicua_protocol::TournamentStatus::Running, results: 3 },
        Progress::RoundStarted { round: 1, stage: 0, variant: "draw".into(), tables: 2 },
        Progress::TableFinished { round: 0, table: 1, game: 7, winner: Some(1) },
        Progress::TableFinished { round: 0, table: 2, game: 8, winner: None },
        Progress::Finished { winners: vec!["ana".into()] },
        Progress::Paused { by: "admin".into() },
        Progress::Resumed { by: "admin".into() },
        Progress::Cancelled { by: "ana".into() },
        Progress::Deleted { by: "admin".into() },
        Progress::Withdrawn { entrant: 2, name: "eva".into(), by: "admin".into() },
        Progress::Corrected { round: 0, table: 1, winner: Some(0), by: "admin".into() },
        Progress::Corrected { round: 0, table: 1, winner: None, by: "admin".into() },
    ];
    let tags: BTreeSet<&str> = progress.iter().map(progress_tag).collect();
    assert_eq!(tags.len(), 10, "one progress of each kind");
    for progress in progress {
        samples.push(ServerMsg::TournamentProgress { tournament: 1, progress });
    }
    let variants = variants();
    // Each view goes out in one kind of message, in turn: every kind gets
    // views of every layout without checking each view five times.
    for (i, view) in played.views.iter().enumerate() {
        let boxed = Box::new(view.clone());
        let seat = view.seat.map(|s| s.0);
        let prompted = seat.filter(|&s| view.to_move == Some(Seat(s)));
        match (i % 4, prompted) {
            (0, _) => samples.push(ServerMsg::GameStarted {
                room: 3,
                seq: 1,
                seat,
                game: Family::Tiles(tiles::GameStarted {
                    view: boxed,
                    variant: Box::new(variants[i / 4 % variants.len()].clone()),
                }),
            }),
            (1, _) => samples.push(ServerMsg::Sync {
                room: 3,
                seq: 5,
                info: info(RoomStatus::Playing, true, TimeoutPolicy::default(), false),
                state: Family::Tiles(tiles::Sync {
                    view: Some(boxed),
                    variant: Box::new(variants[i / 4 % variants.len()].clone()),
                }),
            }),
            (3, Some(seat)) => {
                let legal_moves = view.legal_moves.clone();
                samples.push(ServerMsg::Prompt {
                    room: 3,
                    prompt: 9,
                    seat,
                    deadline_ms: 0,
                    turn: Family::Tiles(tiles::Prompt { view: None, legal_moves: legal_moves.clone() }),
                });
                samples.push(ServerMsg::Prompt {
                    room: 3,
                    prompt: 9,
                    seat,
                    deadline_ms: 29_998,
                    turn: Family::Tiles(tiles::Prompt { view: Some(boxed), legal_moves }),
                });
            }
            _ => samples.push(ServerMsg::Events {
                room: 3,
                seq: 6,
                happened: Family::Tiles(tiles::Events { events: vec![], view: Some(boxed), hand_end: None }),
            }),
        }
    }
    // Every variant's rules, in the message that carries them, to a seat
    // and to a spectator.
    let spectator = played.views.iter().find(|v| v.seat.is_none()).expect("a spectator's view");
    let seated = played.views.iter().find(|v| v.seat.is_some()).expect("a seat's view");
    for (i, variant) in variants.into_iter().enumerate() {
        let view = if i % 2 == 0 { seated } else { spectator };
        samples.push(ServerMsg::GameStarted {
            room: 3,
            seq: 1,
            seat: view.seat.map(|s| s.0),
            game: Family::Tiles(tiles::GameStarted { view: Box::new(view.clone()), variant: Box::new(variant) }),
        });
    }
    for events in played.events {
        let happened = Family::Tiles(tiles::Events { events, view: None, hand_end: None });
        samples.push(ServerMsg::Events { room: 3, seq: 6, happened });
    }
    assert!(played.ends.len() > 10, "hands' ends of many variants");
    for end in played.ends {
        let events = vec![Event::HandOver { hand: end.hand, winner: end.result.winner }];
        let happened = Family::Tiles(tiles::Events { events, view: None, hand_end: Some(Box::new(end)) });
        samples.push(ServerMsg::Events { room: 3, seq: 6, happened });
    }
    let poly = poly_played();
    let poly_info = RoomInfo {
        poly: true,
        variant: "triominoes".into(),
        ..info(RoomStatus::Playing, true, TimeoutPolicy::default(), false)
    };
    samples.push(ServerMsg::Room { room: poly_info.clone() });
    for (i, view) in poly.views.iter().enumerate() {
        let variant = Box::new(poly.variants[i % poly.variants.len()].clone());
        samples.push(ServerMsg::GameStarted {
            room: 3,
            seq: 1,
            seat: view.seat,
            game: Family::Poly(poly::GameStarted { view: Box::new(view.clone()), variant: variant.clone() }),
        });
        // A room between matches has no view to send.
        let view = (i % 4 != 1).then(|| Box::new(view.clone()));
        samples.push(ServerMsg::Sync {
            room: 3,
            seq: 5,
            info: poly_info.clone(),
            state: Family::Poly(poly::Sync { view, variant }),
        });
    }
    for (i, events) in poly.events.into_iter().enumerate() {
        let view = (i % 3 == 0).then(|| Box::new(poly.views[i % poly.views.len()].clone()));
        let happened = Family::Poly(poly::Events { events, view, hand_end: None });
        samples.push(ServerMsg::Events { room: 3, seq: 6, happened });
    }
    assert!(poly.ends.len() >= POLY_PRESETS.len(), "a hand's end of every poly preset");
    for end in poly.ends {
        let events = vec![PolyEvent::HandEnded {
            hand: end.hand,
            winner: end.result.winner,
            blocked: end.result.blocked,
            points: [0; 6],
        }];
        let happened = Family::Poly(poly::Events { events, view: None, hand_end: Some(Box::new(end)) });
        samples.push(ServerMsg::Events { room: 3, seq: 6, happened });
    }
    for (legal_moves, view) in poly.prompts {
        let seat = view.seat.unwrap();
        samples.push(ServerMsg::Prompt {
            room: 3,
            prompt: 9,
            seat,
            deadline_ms: 0,
            turn: Family::Poly(poly::Prompt { view: None, legal_moves: legal_moves.clone() }),
        });
        samples.push(ServerMsg::Prompt {
            room: 3,
            prompt: 9,
            seat,
            deadline_ms: 12_000,
            turn: Family::Poly(poly::Prompt { view: Some(Box::new(view)), legal_moves }),
        });
    }
    samples
}

/// The `family` tags of the `tag` frames.
fn families(frames: &[(Value, &'static str)], tag: &str) -> Vec<String> {
    let all: BTreeSet<String> = frames
        .iter()
        .filter(|(_, t)| *t == tag)
        .map(|(json, _)| json["family"].as_str().expect("a game message names its family").to_string())
        .collect();
    all.into_iter().collect()
}

/// The values a tag key takes across the alternatives of a schema.
fn tags<'a>(checker: &Checker<'a>, schema: &'a Value, key: &str) -> BTreeSet<String> {
    checker
        .shapes(schema)
        .unwrap()
        .all
        .iter()
        .map(|s| s.tag(key).and_then(Value::as_str).expect("every alternative pins its tag").to_string())
        .collect()
}

/// Checks every frame against `schema` (the client's or the server's
/// document): its tag is one of the schema's alternatives and the whole
/// frame fits. Returns the tags seen.
fn check_frames(schema: &Value, frames: &[(Value, &'static str)]) -> BTreeSet<String> {
    let checker = Checker::new(schema);
    let declared = tags(&checker, schema, "type");
    let mut seen = BTreeSet::new();
    for (json, tag) in frames {
        assert_eq!(json["type"], *tag, "{json}");
        assert!(declared.contains(*tag), "the schema has no alternative for `{tag}`");
        if let Err(e) = checker.check(json, schema, "$") {
            let text = json.to_string();
            panic!("a `{tag}` frame does not fit the schema: {e}\n{:.2000}", text);
        }
        seen.insert(tag.to_string());
    }
    assert_eq!(seen, declared, "a sample of every message the schema declares, and nothing else");
    seen
}

#[test]
fn every_client_message_fits_the_schema() {
    let schema = json_schema();
    let mut frames = vec![];
    for msg in client_samples() {
        let tag = client_tag(&msg);
        for id in [None, Some(u64::MAX)] {
            frames.push((serde_json::to_value(ClientFrame::new(id, msg.clone())).unwrap(), tag));
        }
    }
    let seen = check_frames(&schema["client"], &frames);
    assert_eq!(seen.len(), 22);
    assert_eq!(families(&frames, "move"), ["poly", "tiles"]);
}

#[test]
fn every_server_message_fits_the_schema() {
    let schema = json_schema();
    // Every other frame answers a request (carries an `id`).
    let frames: Vec<(Value, &str)> = server_samples()
        .into_iter()
        .enumerate()
        .map(|(i, msg)| {
            let tag = server_tag(&msg);
            let id = (i % 2 == 1).then_some(i as u64);
            (serde_json::to_value(ServerFrame { id, msg }).unwrap(), tag)
        })
        .collect();
    let has = |tag: &str, family: &str, key: &str, present: bool| {
        frames.iter().any(|(json, t)| {
            *t == tag && json["family"] == family && json.get(key).is_some_and(|v| !v.is_null()) == present
        })
    };
    for family in ["tiles", "poly"] {
        for (tag, key) in [("prompt", "view"), ("events", "view"), ("sync", "view"), ("game-started", "seat")] {
            assert!(
                has(tag, family, key, true) && has(tag, family, key, false),
                "{family} `{tag}` frames with and without `{key}`"
            );
        }
    }
    for tag in ["game-started", "prompt", "events", "sync"] {
        assert_eq!(families(&frames, tag), ["poly", "tiles"], "`{tag}` frames of both families");
    }
    let seen = check_frames(&schema["server"], &frames);
    assert_eq!(seen.len(), 28);
}

/// The enums inside messages: the schema lists exactly the values the
/// types write.
#[test]
fn the_schema_lists_every_error_code_and_progress() {
    let schema = json_schema();
    let server = &schema["server"];
    let checker = Checker::new(server);
    let codes: BTreeSet<String> =
        error_codes().iter().map(|c| serde_json::to_value(c).unwrap().as_str().unwrap().to_string()).collect();
    let def = &server["$defs"]["ErrorCode"];
    let listed: BTreeSet<String> = match (def.get("enum"), def.get("oneOf")) {
        (Some(Value::Array(e)), _) => e.iter().map(|v| v.as_str().unwrap().to_string()).collect(),
        (_, Some(Value::Array(one))) => one.iter().map(|v| v["const"].as_str().unwrap().to_string()).collect(),
        _ => panic!("ErrorCode is not an enumeration: {def}"),
    };
    assert_eq!(codes, listed);
    assert_eq!(codes.len(), 43);
    let progress = tags(&checker, &server["$defs"]["Progress"], "event");
    assert_eq!(
        progress,
        BTreeSet::from(
            [
                "subscribed",
                "round-started",
                "table-finished",
                "finished",
                "paused",
                "resumed",
                "cancelled",
                "deleted",
                "withdrawn",
                "corrected",
                "entered"
            ]
            .map(String::from)
        )
    );
}

/// The samples reach what a view may carry only under some rules.
#[test]
fn the_samples_cover_the_optional_parts_of_a_view() {
    let played = play_every_variant();
    let v = &played.views;
    assert!(v.iter().any(|v| !v.shown.is_empty()), "shown tiles");
    assert!(v.iter().any(|v| v.values.is_some()), "random tile values");
    assert!(v.iter().any(|v| v.active_conditions != 0), "conditional rules in force");
    assert!(v.iter().any(|v| !v.teams.is_empty()) && v.iter().any(|v| v.teams.is_empty()), "teams and none");
    assert!(v.iter().any(|v| v.outcome.is_some()), "a finished match");
    assert!(v.iter().any(|v| v.lead_requirement.is_some()), "a lead requirement");
    assert!(v.iter().any(|v| v.seat.is_none()), "a spectator");
    let history: BTreeSet<String> = v
        .iter()
        .flat_map(|v| &v.history)
        .map(|r| serde_json::to_value(r.action).unwrap()["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(history, BTreeSet::from(["draw", "pass", "play"].map(String::from)));
    let ends: BTreeSet<String> = v
        .iter()
        .flat_map(|v| &v.results)
        .map(|r| serde_json::to_value(r.end).unwrap()["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(ends.contains("out") && ends.contains("blocked"), "{ends:?}");
    assert!(
        variants().iter().any(|v| matches!(v.visibility.hands, HandVisibility::Shown { .. })),
        "a variant with shown tiles"
    );
}

/// The check can fail: an undeclared key, a wrong tag, a missing field.
#[test]
fn the_checker_refuses_frames_the_schema_does_not_describe() {
    let schema = json_schema();
    let checker = Checker::new(&schema["client"]);
    let root = &schema["client"];
    let ok = serde_json::json!({"id": 1, "type": "join", "room": 3});
    assert_eq!(checker.check(&ok, root, "$"), Ok(()));
    for bad in [
        serde_json::json!({"id": 1, "type": "join", "room": 3, "sneaky": true}),
        serde_json::json!({"id": 1, "type": "jump", "room": 3}),
        serde_json::json!({"id": 1, "type": "leave"}),
        serde_json::json!({"id": "1", "type": "join", "room": 3}),
        serde_json::json!({"type": "create-room", "preset": "latin", "time": {"move-ms": 5, "extra": 1}}),
        serde_json::json!({"type": "create-room", "on-timeout": {"kind": "shrug"}}),
        serde_json::json!({"type": "move", "room": 3, "prompt": 1, "move": {"kind": "pass"}}),
        serde_json::json!({"type": "move", "room": 3, "prompt": 1, "family": "tiles", "move": {"kind": "play", "tile": 4}}),
    ] {
        assert!(checker.check(&bad, root, "$").is_err(), "{bad} passed");
    }
}
