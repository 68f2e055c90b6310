//! Snapshot tests: the exact JSON of every message. A change here is a
//! protocol change: bump `PROTOCOL_VERSION` and update the book's Protocol reference
//! (book/src/bots/protocol*.md).

use capicua_engine::poly::{PolyEvent, PolyGame, PolyMove, PolyRules, PolySpot, PolyTileId};
use capicua_engine::{EndId, Event, Game, Move, Rules, Seat, Seating, Side, Tile};
use capicua_protocol::*;
use serde_json::json;

fn client(id: Option<u64>, msg: ClientMsg) -> String {
    serde_json::to_string(&ClientFrame::new(id, msg)).unwrap()
}

fn server(id: Option<u64>, msg: ServerMsg) -> String {
    serde_json::to_string(&ServerFrame { id, msg }).unwrap()
}

#[test]
fn client_messages() {
    let cases: Vec<(ClientMsg, &str)> = vec![
        (
            ClientMsg::Hello {
                version: 2,
                token: Some("t0k".into()),
                lean_prompts: false,
                batch_events: false,
                skip_accepted: false,
            },
            r#"{"id":1,"type":"hello","version":2,"token":"t0k"}"#,
        ),
        (
            ClientMsg::Hello { version: 2, token: None, lean_prompts: true, batch_events: true, skip_accepted: true },
            r#"{"id":1,"type":"hello","version":2,"lean-prompts":true,"batch-events":true,"skip-accepted":true}"#,
        ),
        (ClientMsg::Register { name: "ana".into() }, r#"{"id":1,"type":"register","name":"ana"}"#),
        (ClientMsg::ListRooms, r#"{"id":1,"type":"list-rooms"}"#),
        (
            ClientMsg::CreateRoom(Box::new(RoomSpec {
                preset: Some("latin".into()),
                time: Some(TimeControl { move_ms: 5000, bank_ms: 60000 }),
                on_timeout: Some(TimeoutPolicy::Pass),
                ..Default::default()
            })),
            r#"{"id":1,"type":"create-room","preset":"latin","rated":false,"time":{"move-ms":5000,"bank-ms":60000},"on-timeout":{"kind":"pass"}}"#,
        ),
        (ClientMsg::join(3, Some(2)), r#"{"id":1,"type":"join","room":3,"seat":2}"#),
        (ClientMsg::join(3, None), r#"{"id":1,"type":"join","room":3}"#),
        (ClientMsg::Leave { room: 3 }, r#"{"id":1,"type":"leave","room":3}"#),
        (ClientMsg::Spectate { room: Some(3), invite: None }, r#"{"id":1,"type":"spectate","room":3}"#),
        (
            ClientMsg::FillBots { room: 3, strategy: "random".into() },
            r#"{"id":1,"type":"fill-bots","room":3,"strategy":"random"}"#,
        ),
        (ClientMsg::Ready { room: 3, read_hand_ends: false }, r#"{"id":1,"type":"ready","room":3}"#),
        (
            ClientMsg::Ready { room: 3, read_hand_ends: true },
            r#"{"id":1,"type":"ready","room":3,"read-hand-ends":true}"#,
        ),
        (
            ClientMsg::Move {
                room: 3,
                prompt: 17,
                r#move: AnyMove::Tiles(Move::Play { tile: Tile::domino(6, 6), end: EndId::LEAD, face: 0 }),
            },
            r#"{"id":1,"type":"move","room":3,"prompt":17,"family":"tiles","move":{"kind":"play","tile":[6,6],"end":255,"face":0}}"#,
        ),
        (
            ClientMsg::play(3, 18, Move::Draw),
            r#"{"id":1,"type":"move","room":3,"prompt":18,"family":"tiles","move":{"kind":"draw"}}"#,
        ),
        (
            ClientMsg::Move {
                room: 3,
                prompt: 19,
                r#move: AnyMove::Poly(PolyMove::Play {
                    tile: PolyTileId(12),
                    at: PolySpot::Cell { x: -1, y: 2 },
                    rotation: 1,
                }),
            },
            r#"{"id":1,"type":"move","room":3,"prompt":19,"family":"poly","move":{"kind":"play","tile":12,"at":{"kind":"cell","x":-1,"y":2},"rotation":1}}"#,
        ),
        (
            ClientMsg::play(
                3,
                20,
                PolyMove::Play { tile: PolyTileId(4), at: PolySpot::Face { node: 0, face: 2 }, rotation: 1 },
            ),
            r#"{"id":1,"type":"move","room":3,"prompt":20,"family":"poly","move":{"kind":"play","tile":4,"at":{"kind":"face","node":0,"face":2},"rotation":1}}"#,
        ),
        (
            ClientMsg::play(3, 21, PolyMove::Draw),
            r#"{"id":1,"type":"move","room":3,"prompt":21,"family":"poly","move":{"kind":"draw"}}"#,
        ),
        (ClientMsg::Resync { room: 3 }, r#"{"id":1,"type":"resync","room":3}"#),
        (ClientMsg::CloseRoom { room: 3 }, r#"{"id":1,"type":"close-room","room":3}"#),
        (ClientMsg::Ping, r#"{"id":1,"type":"ping"}"#),
        (ClientMsg::AwaitAssignments, r#"{"id":1,"type":"await-assignments"}"#),
        (ClientMsg::SubscribeTournament { tournament: 2 }, r#"{"id":1,"type":"subscribe-tournament","tournament":2}"#),
        (ClientMsg::Hint { room: 3 }, r#"{"id":1,"type":"hint","room":3}"#),
        (ClientMsg::JoinLadder { variant: "block".into() }, r#"{"id":1,"type":"join-ladder","variant":"block"}"#),
        (ClientMsg::LeaveLadder, r#"{"id":1,"type":"leave-ladder"}"#),
        (
            ClientMsg::Seek { preset: "latin".into(), seats: Some(4), rated: true },
            r#"{"id":1,"type":"seek","preset":"latin","seats":4,"rated":true}"#,
        ),
        (
            ClientMsg::Seek { preset: "draw".into(), seats: None, rated: false },
            r#"{"id":1,"type":"seek","preset":"draw","rated":false}"#,
        ),
        (ClientMsg::CancelSeek, r#"{"id":1,"type":"cancel-seek"}"#),
    ];
    for (msg, want) in cases {
        assert_eq!(client(Some(1), msg.clone()), want);
        let back: ClientFrame = serde_json::from_str(want).unwrap();
        assert_eq!(back.msg, msg);
    }
    assert_eq!(client(None, ClientMsg::Ping), r#"{"type":"ping"}"#);
}

fn info() -> RoomInfo {
    RoomInfo {
        id: 3,
        variant: "block".into(),
        poly: false,
        seats: vec![
            SeatInfo {
                seat: 0,
                side: 0,
                occupant: Some(Occupant {
                    name: "ana".into(),
                    kind: OccupantKind::Player,
                    ready: true,
                    connected: true,
                }),
            },
            SeatInfo { seat: 1, side: 1, occupant: None },
        ],
        status: RoomStatus::Waiting,
        rated: false,
        spectators: 1,
        time: TimeControl::default(),
        on_timeout: TimeoutPolicy::default(),
        games_played: 0,
        seeded: false,
        private: false,
        invite: None,
        node: None,
    }
}

#[test]
fn server_messages() {
    let cases: Vec<(ServerMsg, &str)> = vec![
        (
            ServerMsg::Welcome {
                version: 2,
                player: PlayerInfo { name: "ana".into(), guest: false, admin: false },
                seats: vec![SeatRef { room: 3, seat: 0 }],
                site: Some("https://dominoes.example.org".into()),
                guest_session: None,
            },
            r#"{"id":1,"type":"welcome","version":2,"player":{"name":"ana","guest":false,"admin":false},"seats":[{"room":3,"seat":0}],"site":"https://dominoes.example.org"}"#,
        ),
        (
            ServerMsg::Welcome {
                version: 2,
                player: PlayerInfo { name: "guest-4".into(), guest: true, admin: false },
                seats: vec![],
                site: None,
                guest_session: Some(format!("guest:{}", "0a".repeat(32))),
            },
            r#"{"id":1,"type":"welcome","version":2,"player":{"name":"guest-4","guest":true,"admin":false},"seats":[],"guest-session":"guest:0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a"}"#,
        ),
        (
            ServerMsg::Registered { name: "ana".into(), token: "abc".into() },
            r#"{"id":1,"type":"registered","name":"ana","token":"abc"}"#,
        ),
        (
            ServerMsg::Room { room: info() },
            r#"{"id":1,"type":"room","room":{"id":3,"variant":"block","seats":[{"seat":0,"side":0,"occupant":{"name":"ana","kind":"player","ready":true,"connected":true}},{"seat":1,"side":1}],"status":"waiting","rated":false,"spectators":1,"time":{"move-ms":30000,"bank-ms":0},"on-timeout":{"kind":"strategy","name":"random"},"games-played":0}}"#,
        ),
        (ServerMsg::Seated { room: 3, seat: 1 }, r#"{"id":1,"type":"seated","room":3,"seat":1}"#),
        (ServerMsg::Left { room: 3 }, r#"{"id":1,"type":"left","room":3}"#),
        (ServerMsg::Spectating { room: 3 }, r#"{"id":1,"type":"spectating","room":3}"#),
        (ServerMsg::Ok { room: 3 }, r#"{"id":1,"type":"ok","room":3}"#),
        (ServerMsg::Accepted { room: 3, prompt: 17 }, r#"{"id":1,"type":"accepted","room":3,"prompt":17}"#),
        (
            ServerMsg::Events {
                room: 3,
                seq: 9,
                happened: Family::Tiles(tiles::Events {
                    events: vec![
                        Event::Played { seat: Seat(1), tile: Tile::domino(3, 5), end: EndId(0), face: 1 },
                        Event::Drew { seat: Seat(0) },
                        Event::Scored { side: Side(1), points: 10 },
                    ],
                    view: None,
                    hand_end: None,
                }),
            },
            r#"{"id":1,"type":"events","room":3,"seq":9,"family":"tiles","events":[{"event":"played","seat":1,"tile":[3,5],"end":0,"face":1},{"event":"drew","seat":0},{"event":"scored","side":1,"points":10}]}"#,
        ),
        (
            ServerMsg::GameOver {
                room: 3,
                seq: 40,
                game: Some(12),
                result: GameResult { winner: Some(1), scores: vec![40, 101], hands: 3, forfeit: None },
            },
            r#"{"id":1,"type":"game-over","room":3,"seq":40,"game":12,"result":{"winner":1,"scores":[40,101],"hands":3}}"#,
        ),
        (
            ServerMsg::RoomClosed { room: 3, reason: "bye".into() },
            r#"{"id":1,"type":"room-closed","room":3,"reason":"bye"}"#,
        ),
        (ServerMsg::Pong, r#"{"id":1,"type":"pong"}"#),
        (
            ServerMsg::Error {
                code: ErrorCode::StalePrompt,
                message: "prompt 3 is not the pending one (4)".into(),
                url: None,
            },
            r#"{"id":1,"type":"error","code":"stale-prompt","message":"prompt 3 is not the pending one (4)"}"#,
        ),
        (
            ServerMsg::Closing { reason: "the server is shutting down".into(), reconnect: true },
            r#"{"id":1,"type":"closing","reason":"the server is shutting down","reconnect":true}"#,
        ),
        (ServerMsg::Awaiting { pending: 1 }, r#"{"id":1,"type":"awaiting","pending":1}"#),
        (
            ServerMsg::Ladder { variant: Some("block".into()), waiting: 4 },
            r#"{"id":1,"type":"ladder","variant":"block","waiting":4}"#,
        ),
        (ServerMsg::Ladder { variant: None, waiting: 0 }, r#"{"id":1,"type":"ladder","variant":null,"waiting":0}"#),
        (
            ServerMsg::LadderMatch { room: 7, seat: 1, variant: "block".into() },
            r#"{"id":1,"type":"ladder-match","room":7,"seat":1,"variant":"block"}"#,
        ),
        (
            ServerMsg::Seeking { preset: Some("draw".into()), seats: 2, rated: false, waiting: 3 },
            r#"{"id":1,"type":"seeking","preset":"draw","seats":2,"rated":false,"waiting":3}"#,
        ),
        (
            ServerMsg::Paired { room: 7, seat: 0, preset: "draw".into(), rated: true },
            r#"{"id":1,"type":"paired","room":7,"seat":0,"preset":"draw","rated":true}"#,
        ),
        (
            ServerMsg::Assignment(Assignment {
                tournament: 2,
                round: 0,
                table: 1,
                room: 7,
                seat: 3,
                variant: "latin".into(),
                url: None,
            }),
            r#"{"id":1,"type":"assignment","tournament":2,"round":0,"table":1,"room":7,"seat":3,"variant":"latin"}"#,
        ),
        (
            ServerMsg::Assignment(Assignment {
                tournament: 2,
                round: 0,
                table: 1,
                room: 7,
                seat: 3,
                variant: "latin".into(),
                url: Some("http://10.0.0.2:8080".into()),
            }),
            r#"{"id":1,"type":"assignment","tournament":2,"round":0,"table":1,"room":7,"seat":3,"variant":"latin","url":"http://10.0.0.2:8080"}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::Subscribed { status: TournamentStatus::Running, results: 5 },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"subscribed","status":"running","results":5}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::RoundStarted { round: 3, stage: 0, variant: "latin".into(), tables: 2 },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"round-started","round":3,"stage":0,"variant":"latin","tables":2}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::TableFinished { round: 3, table: 1, game: 40, winner: Some(0) },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"table-finished","round":3,"table":1,"game":40,"winner":0}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::Finished { winners: vec!["ana".into()] },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"finished","winners":["ana"]}}"#,
        ),
        (
            ServerMsg::TournamentProgress { tournament: 2, progress: Progress::Paused { by: "admin".into() } },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"paused","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress { tournament: 2, progress: Progress::Resumed { by: "admin".into() } },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"resumed","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress { tournament: 2, progress: Progress::Deleted { by: "admin".into() } },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"deleted","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress { tournament: 2, progress: Progress::Cancelled { by: "admin".into() } },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"cancelled","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::Withdrawn { entrant: 1, name: "ben".into(), by: "admin".into() },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"withdrawn","entrant":1,"name":"ben","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::Entered { entrant: 4, name: "bot:random#9".into(), by: "admin".into() },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"entered","entrant":4,"name":"bot:random#9","by":"admin"}}"#,
        ),
        (
            ServerMsg::TournamentProgress {
                tournament: 2,
                progress: Progress::Corrected { round: 0, table: 1, winner: Some(1), by: "ana".into() },
            },
            r#"{"id":1,"type":"tournament-progress","tournament":2,"progress":{"event":"corrected","round":0,"table":1,"winner":1,"by":"ana"}}"#,
        ),
        (
            ServerMsg::Error { code: ErrorCode::NoSuchTournament, message: "no tournament 9".into(), url: None },
            r#"{"id":1,"type":"error","code":"no-such-tournament","message":"no tournament 9"}"#,
        ),
        (
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
                    HintMove { r#move: Move::Pass, win: 0.2, value: -0.6 },
                ],
                samples: 300,
            },
            r#"{"id":1,"type":"hint","room":3,"prompt":17,"seat":1,"best":{"kind":"play","tile":[4,6],"end":0,"face":1},"moves":[{"move":{"kind":"play","tile":[4,6],"end":0,"face":1},"win":0.63,"value":0.27},{"move":{"kind":"pass"},"win":0.2,"value":-0.6}],"samples":300}"#,
        ),
        (
            ServerMsg::Room { room: RoomInfo { poly: true, variant: "triominoes".into(), ..info() } },
            r#"{"id":1,"type":"room","room":{"id":3,"variant":"triominoes","poly":true,"seats":[{"seat":0,"side":0,"occupant":{"name":"ana","kind":"player","ready":true,"connected":true}},{"seat":1,"side":1}],"status":"waiting","rated":false,"spectators":1,"time":{"move-ms":30000,"bank-ms":0},"on-timeout":{"kind":"strategy","name":"random"},"games-played":0}}"#,
        ),
        (
            ServerMsg::Events {
                room: 3,
                seq: 8,
                happened: Family::Poly(poly::Events {
                    events: vec![PolyEvent::Drew { seat: 1, tile: None }, PolyEvent::Passed { seat: 1 }],
                    view: None,
                    hand_end: None,
                }),
            },
            r#"{"id":1,"type":"events","room":3,"seq":8,"family":"poly","events":[{"event":"drew","seat":1},{"event":"passed","seat":1}]}"#,
        ),
        (
            ServerMsg::Events {
                room: 3,
                seq: 9,
                happened: Family::Poly(poly::Events {
                    events: vec![
                        PolyEvent::Drew { seat: 1, tile: Some(PolyTileId(30)) },
                        PolyEvent::Played {
                            seat: 1,
                            tile: PolyTileId(30),
                            at: PolySpot::Cell { x: 1, y: 0 },
                            rotation: 2,
                            points: 9,
                        },
                    ],
                    view: None,
                    hand_end: None,
                }),
            },
            r#"{"id":1,"type":"events","room":3,"seq":9,"family":"poly","events":[{"event":"drew","seat":1,"tile":30},{"event":"played","seat":1,"tile":30,"at":{"kind":"cell","x":1,"y":0},"rotation":2,"points":9}]}"#,
        ),
        (
            ServerMsg::Error {
                code: ErrorCode::HintUnavailable,
                message: "no hints in a rated room".into(),
                url: None,
            },
            r#"{"id":1,"type":"error","code":"hint-unavailable","message":"no hints in a rated room"}"#,
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(server(Some(1), msg.clone()), want);
        let back: ServerFrame = serde_json::from_str(want).unwrap();
        assert_eq!(back.msg, msg);
    }
}

#[test]
fn prompt_carries_view_legal_moves_and_prompt_id() {
    let game = Game::new(Rules::preset("block").unwrap().into(), Seating::new(2), 11).unwrap();
    let seat = game.to_move().unwrap();
    let view = game.view(seat).snapshot();
    let msg = ServerMsg::Prompt {
        room: 3,
        prompt: 1,
        seat: seat.0,
        deadline_ms: 30000,
        turn: Family::Tiles(tiles::Prompt {
            legal_moves: view.legal_moves.clone(),
            view: Some(Box::new(view.clone())),
        }),
    };
    let v = serde_json::to_value(ServerFrame { id: None, msg: msg.clone() }).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["deadline-ms", "family", "legal-moves", "prompt", "room", "seat", "type", "view"]);
    assert_eq!((&v["type"], &v["family"]), (&json!("prompt"), &json!("tiles")));
    assert_eq!(v["view"]["seat"], json!(seat.0));
    assert_eq!(v["view"]["hand"].as_array().unwrap().len(), 7);
    let back: ServerFrame = serde_json::from_value(v).unwrap();
    assert_eq!(back.msg, msg);
    // A lean prompt: the same without the view.
    let lean = ServerMsg::Prompt {
        room: 3,
        prompt: 2,
        seat: 1,
        deadline_ms: 500,
        turn: Family::Tiles(tiles::Prompt { legal_moves: vec![Move::Draw, Move::Pass], view: None }),
    };
    let text = server(None, lean.clone());
    assert_eq!(
        text,
        r#"{"type":"prompt","room":3,"prompt":2,"seat":1,"deadline-ms":500,"family":"tiles","legal-moves":[{"kind":"draw"},{"kind":"pass"}]}"#
    );
    assert_eq!(serde_json::from_str::<ServerFrame>(&text).unwrap().msg, lean);
}

#[test]
fn decoding_tells_bad_json_from_unknown_messages() {
    assert_eq!(decode_client("{oops").unwrap_err().1.code(), ErrorCode::BadJson);
    let (id, e) = decode_client(r#"{"id":5,"type":"fly"}"#).unwrap_err();
    assert_eq!((id, e.code()), (Some(5), ErrorCode::BadMessage));
    let (_, e) = decode_client(r#"{"type":"leave"}"#).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BadMessage);
    assert!(decode_client(r#"{"type":"ping"}"#).is_ok());
}

#[test]
fn the_schema_names_every_message_type() {
    let schema = json_schema().to_string();
    for t in ["hello", "create-room", "move", "resync", "prompt", "game-over", "stale-prompt", "legal-moves", "family"]
    {
        assert!(schema.contains(&format!("\"{t}\"")), "schema lacks {t}");
    }
    assert_eq!(json_schema()["protocol-version"], PROTOCOL_VERSION);
}

#[test]
fn poly_messages_carry_the_poly_view_rules_and_moves() {
    let game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 11).unwrap();
    let seat = game.to_move().unwrap();
    let mut legal = capicua_engine::poly::PolyMoveList::default();
    game.legal_moves(&mut legal);
    let prompt = ServerMsg::Prompt {
        room: 3,
        prompt: 1,
        seat,
        deadline_ms: 30000,
        turn: Family::Poly(poly::Prompt {
            view: Some(Box::new(game.view(seat).snapshot())),
            legal_moves: legal.to_vec(),
        }),
    };
    let v = serde_json::to_value(ServerFrame { id: None, msg: prompt.clone() }).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["deadline-ms", "family", "legal-moves", "prompt", "room", "seat", "type", "view"]);
    assert_eq!((&v["type"], &v["family"]), (&json!("prompt"), &json!("poly")));
    let PolyMove::Play { tile, .. } = legal[0] else { panic!("the lead is a play: {:?}", legal[0]) };
    assert_eq!(
        v["legal-moves"][0],
        json!({"kind": "play", "tile": tile.0, "at": {"kind": "cell", "x": 0, "y": 0}, "rotation": 0})
    );
    let mut view_keys: Vec<&str> = v["view"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    view_keys.sort();
    assert_eq!(
        view_keys,
        [
            "board",
            "board-kind",
            "drawn",
            "hand",
            "hand-number",
            "hand-sizes",
            "passes",
            "scores",
            "seat",
            "stock",
            "to-move",
            "variant"
        ]
    );
    assert_eq!(v["view"]["board-kind"], json!({"lattice": "triangle"}));
    // A hand entry is [id, pips clockwise].
    assert_eq!(v["view"]["hand"][0].as_array().unwrap().len(), 2);
    let back: ServerFrame = serde_json::from_value(v).unwrap();
    assert_eq!(back.msg, prompt);

    // A spectator's start: no seat, no hand; the rules in full.
    let started = ServerMsg::GameStarted {
        room: 3,
        seq: 1,
        seat: None,
        game: Family::Poly(poly::GameStarted {
            view: Box::new(game.spectator_snapshot()),
            variant: Box::new(game.rules().variant().clone()),
        }),
    };
    let v = serde_json::to_value(ServerFrame { id: None, msg: started.clone() }).unwrap();
    assert_eq!((&v["type"], &v["family"]), (&json!("game-started"), &json!("poly")));
    assert!(v.get("seat").is_none() && v["view"].get("seat").is_none());
    assert_eq!(v["view"]["hand"], json!([]));
    assert_eq!(v["variant"]["name"], "triominoes");
    let back: ServerFrame = serde_json::from_value(v).unwrap();
    assert_eq!(back.msg, started);
}

fn sorted_keys(v: &serde_json::Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    keys
}

/// The end of a hand: the frame that ends it carries the final position
/// (the hand's last play on the board, every hand face up) and the result.
#[test]
fn hand_end_carries_the_final_position_with_hands_face_up() {
    let mut game = Game::new(Rules::preset("block").unwrap().into(), Seating::new(2), 11).unwrap();
    game.keep_hand_ends(true);
    let (events, end) = loop {
        let events = game.play(game.legal_moves()[0]).unwrap();
        if let Some(end) = game.take_hand_end() {
            break (events, end);
        }
    };
    let result = end.hand_results().last().unwrap().clone();
    let msg = ServerMsg::Events {
        room: 3,
        seq: 30,
        happened: Family::Tiles(tiles::Events {
            events: events.to_vec(),
            view: Some(Box::new(game.view(Seat(1)).snapshot())),
            hand_end: Some(Box::new(tiles::HandEnd {
                hand: 0,
                result: result.clone(),
                view: Box::new(end.revealed_snapshot(Some(Seat(1)))),
            })),
        }),
    };
    let v = serde_json::to_value(ServerFrame { id: None, msg: msg.clone() }).unwrap();
    assert_eq!(sorted_keys(&v), ["events", "family", "hand-end", "room", "seq", "type", "view"]);
    let end_json = &v["hand-end"];
    assert_eq!(sorted_keys(end_json), ["hand", "result", "view"]);
    assert_eq!(end_json["hand"], 0);
    assert_eq!(
        sorted_keys(&end_json["result"]),
        ["end", "hand", "leader", "pips", "play-points", "points", "ranking", "winner", "winner-seat"]
    );
    assert_eq!(end_json["result"]["pips"].as_array().unwrap().len(), 2);
    let final_view = &end_json["view"];
    assert_eq!(final_view["seat"], 1);
    assert_eq!(final_view["to-move"], json!(null));
    assert_eq!(final_view["legal-moves"], json!([]));
    // Every seat's hand is there, as its tiles, matching the counts.
    let hands = final_view["hands"].as_array().unwrap();
    let sizes = final_view["hand-sizes"].as_array().unwrap();
    assert_eq!(hands.len(), 2);
    for (h, n) in hands.iter().zip(sizes) {
        assert_eq!(h.as_array().unwrap().len() as u64, n.as_u64().unwrap());
    }
    // The hand's last play is on the board of the final view, not on the
    // next deal's.
    let Event::Played { tile, .. } = events.iter().rev().find(|e| matches!(e, Event::Played { .. })).unwrap() else {
        unreachable!()
    };
    let last = final_view["history"].as_array().unwrap().last().unwrap();
    assert_eq!(last["action"]["tile"], serde_json::to_value(tile).unwrap());
    assert_eq!(v["view"]["hand-number"], 1);
    assert_eq!(v["view"]["history"], json!([]));
    let back: ServerFrame = serde_json::from_value(v).unwrap();
    assert_eq!(back.msg, msg);

    // The poly form, with its result in full.
    let result = poly::HandResult { hand: 2, winner: Some(1), blocked: false, points: vec![0, 37], pips: vec![12, 0] };
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        r#"{"hand":2,"winner":1,"blocked":false,"points":[0,37],"pips":[12,0]}"#
    );
    let mut game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 11).unwrap();
    game.keep_hand_ends(true);
    let mut legal = capicua_engine::poly::PolyMoveList::default();
    let end = loop {
        game.legal_moves(&mut legal);
        game.play(legal[0]).unwrap();
        if let Some(end) = game.take_hand_end() {
            break end;
        }
    };
    let msg = ServerMsg::Events {
        room: 3,
        seq: 40,
        happened: Family::Poly(poly::Events {
            events: vec![],
            view: None,
            hand_end: Some(Box::new(poly::HandEnd { hand: 0, result, view: Box::new(end.revealed_snapshot(None)) })),
        }),
    };
    let v = serde_json::to_value(ServerFrame { id: None, msg: msg.clone() }).unwrap();
    assert_eq!(sorted_keys(&v), ["events", "family", "hand-end", "room", "seq", "type"]);
    assert_eq!(sorted_keys(&v["hand-end"]), ["hand", "result", "view"]);
    let final_view = &v["hand-end"]["view"];
    assert!(final_view.get("seat").is_none(), "a spectator's");
    assert_eq!(final_view["to-move"], json!(null));
    let hands = final_view["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 2);
    for (h, n) in hands.iter().zip(final_view["hand-sizes"].as_array().unwrap()) {
        assert_eq!(h.as_array().unwrap().len() as u64, n.as_u64().unwrap());
    }
    assert!(!final_view["board"].as_array().unwrap().is_empty());
    let back: ServerFrame = serde_json::from_value(v).unwrap();
    assert_eq!(back.msg, msg);
}

/// The game messages are one set for both families: the same `type`, the
/// family's payload beside the message's keys, tagged by `family`.
#[test]
fn game_messages_of_both_families_differ_only_by_their_tagged_payload() {
    let tiles_game = Game::new(Rules::preset("block").unwrap().into(), Seating::new(2), 11).unwrap();
    let poly_game = PolyGame::new(PolyRules::preset("triominoes").unwrap(), 2, 11).unwrap();
    let tiles_variant = Box::new(tiles_game.rules().variant().clone());
    let poly_variant = Box::new(poly_game.rules().variant().clone());
    let both = |tiles_msg: ServerMsg, poly_msg: ServerMsg, want: &str, keys: &[&str]| {
        for (msg, family) in [(tiles_msg, "tiles"), (poly_msg, "poly")] {
            let v = serde_json::to_value(ServerFrame { id: None, msg: msg.clone() }).unwrap();
            assert_eq!((v["type"].as_str(), v["family"].as_str()), (Some(want), Some(family)), "{v}");
            assert_eq!(sorted_keys(&v), keys, "{family} {want}");
            assert_eq!(serde_json::from_value::<ServerFrame>(v).unwrap().msg, msg);
        }
    };
    both(
        ServerMsg::GameStarted {
            room: 3,
            seq: 1,
            seat: Some(0),
            game: Family::Tiles(tiles::GameStarted {
                view: Box::new(tiles_game.view(Seat(0)).snapshot()),
                variant: tiles_variant.clone(),
            }),
        },
        ServerMsg::GameStarted {
            room: 3,
            seq: 1,
            seat: Some(0),
            game: Family::Poly(poly::GameStarted {
                view: Box::new(poly_game.view(0).snapshot()),
                variant: poly_variant.clone(),
            }),
        },
        "game-started",
        &["family", "room", "seat", "seq", "type", "variant", "view"],
    );
    both(
        ServerMsg::Prompt {
            room: 3,
            prompt: 4,
            seat: 0,
            deadline_ms: 900,
            turn: Family::Tiles(tiles::Prompt { view: None, legal_moves: vec![Move::Pass] }),
        },
        ServerMsg::Prompt {
            room: 3,
            prompt: 4,
            seat: 0,
            deadline_ms: 900,
            turn: Family::Poly(poly::Prompt { view: None, legal_moves: vec![PolyMove::Pass] }),
        },
        "prompt",
        &["deadline-ms", "family", "legal-moves", "prompt", "room", "seat", "type"],
    );
    both(
        ServerMsg::Events {
            room: 3,
            seq: 2,
            happened: Family::Tiles(tiles::Events { events: vec![], view: None, hand_end: None }),
        },
        ServerMsg::Events {
            room: 3,
            seq: 2,
            happened: Family::Poly(poly::Events { events: vec![], view: None, hand_end: None }),
        },
        "events",
        &["events", "family", "room", "seq", "type"],
    );
    both(
        ServerMsg::Sync {
            room: 3,
            seq: 2,
            info: info(),
            state: Family::Tiles(tiles::Sync { view: None, variant: tiles_variant.clone() }),
        },
        ServerMsg::Sync {
            room: 3,
            seq: 2,
            info: RoomInfo { poly: true, ..info() },
            state: Family::Poly(poly::Sync { view: None, variant: poly_variant.clone() }),
        },
        "sync",
        &["family", "info", "room", "seq", "type", "variant"],
    );
    both(
        ServerMsg::Sync {
            room: 3,
            seq: 2,
            info: info(),
            state: Family::Tiles(tiles::Sync {
                view: Some(Box::new(tiles_game.spectator_view().snapshot())),
                variant: tiles_variant,
            }),
        },
        ServerMsg::Sync {
            room: 3,
            seq: 2,
            info: RoomInfo { poly: true, ..info() },
            state: Family::Poly(poly::Sync {
                view: Some(Box::new(poly_game.spectator_snapshot())),
                variant: poly_variant,
            }),
        },
        "sync",
        &["family", "info", "room", "seq", "type", "variant", "view"],
    );
    // The move answers in the prompt's family; a move without its family,
    // or of an unknown one, is not a message.
    for text in [
        r#"{"type":"move","room":3,"prompt":4,"move":{"kind":"pass"}}"#,
        r#"{"type":"move","room":3,"prompt":4,"family":"hexes","move":{"kind":"pass"}}"#,
        r#"{"type":"move","room":3,"prompt":4,"family":"tiles"}"#,
    ] {
        assert_eq!(decode_client(text).unwrap_err().1.code(), ErrorCode::BadMessage, "{text}");
    }
}
