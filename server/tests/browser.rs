//! The browser client in a real headless Chromium against a real server:
//! a person's whole match by mouse, a registered player's reload, a replay
//! stepped both ways, a hand played from the keyboard alone, and (with
//! `CAPICUA_SCREENSHOTS=1`) the pictures in `book/src/screenshots/`.
//!
//! The page is read through roles and accessible names only. Each test
//! skips (passing, with a message) where Chromium or chromedriver is
//! missing, unless `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use browser_support::{Browser, LOOK, bots_game, steps_of, tiles_in, view_tiles, xpath_literal};
use capicua_server::Config;
use common::{TestServer, play_out, seat_all, temp_db, wait_for};
use fantoccini::Locator;
use fantoccini::key::Key;
use serde_json::{Value, json};

/// One Chromium at a time: the machine has two cores, and a browser that
/// waits for the CPU makes every step slow.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long a whole match may take in the browser.
const MATCH: Duration = Duration::from_secs(120);

/// When `play` stops.
#[derive(Clone, Copy, PartialEq)]
enum Until {
    /// The match is over (its result is on screen).
    MatchOver,
    /// This many of our moves were made.
    Moves(u32),
    /// A hand's result is on screen.
    HandOver,
}

/// What a test saw while playing.
#[derive(Default)]
struct Played {
    /// Our plays and draws sent from the page.
    moves: u32,
    /// Our passes clicked (or keyed): none while the page passes for us.
    pass_clicks: u32,
    /// Plays whose end was chosen on the board, and in the list.
    chose_on_board: u32,
    chose_in_list: u32,
    /// Every (region, text or label) the page showed.
    seen: HashSet<(String, String)>,
    /// The stored game, once the match is over.
    game: Option<i64>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// Plays our seat from the page until `until`: by mouse (the first
/// playable tile; a tile that fits two ends is placed alternately by the
/// board's end and by the list of ends), or from the keyboard alone
/// (arrows to a playable tile, Enter; focus follows the turn).
async fn play(b: &Browser, until: Until, keyboard: bool, p: &mut Played) {
    let deadline = Instant::now() + MATCH;
    loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?}");
        let look = b.js(LOOK).await;
        for pair in look["texts"].as_array().unwrap() {
            p.seen.insert((pair[0].as_str().unwrap().into(), pair[1].as_str().unwrap().into()));
        }
        if !look["over"].is_null() {
            p.game = look["game"].as_i64();
            if until == Until::MatchOver || until == Until::HandOver {
                return;
            }
            panic!("the match ended before {} moves", p.moves);
        }
        match until {
            Until::Moves(n) if p.moves >= n => return,
            Until::HandOver if look["texts"].as_array().unwrap().iter().any(|t| t[1] == "Hand 1 result") => return,
            _ => {}
        }
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let choices = strings(&look["choices"]);
        let playable = strings(&look["playable"]);
        let moves = strings(&look["moves"]);
        if keyboard {
            let focused = b.focused_name().await;
            if !choices.is_empty() {
                assert!(choices.contains(&focused), "focus is on the ends to choose from, not {focused:?}");
                b.keys(&Key::Enter.to_string()).await;
                p.moves += 1;
            } else if !playable.is_empty() {
                // Walk to the last playable tile with the arrows, then play it.
                let want = playable.last().unwrap();
                if &focused == want {
                    b.keys(&Key::Enter.to_string()).await;
                    if !want.contains("choose") {
                        p.moves += 1;
                    }
                } else {
                    assert!(
                        focused.contains(", playable") || focused.contains(", cannot"),
                        "focus is in the hand, not on {focused:?}"
                    );
                    b.keys(&Key::Right.to_string()).await;
                }
            } else if !moves.is_empty() {
                assert!(moves.contains(&focused), "focus is on {moves:?}, not {focused:?}");
                b.keys(&Key::Enter.to_string()).await;
                p.count(&focused);
            }
            continue;
        }
        if let Some(choice) = choices.first() {
            let targets = strings(&look["targets"]);
            let on_board = p.chose_on_board <= p.chose_in_list && targets.contains(choice);
            let xp = if on_board {
                format!("//*[@role='button'][@aria-label={}]", xpath_literal(choice))
            } else {
                format!("//button[@aria-label={}]", xpath_literal(choice))
            };
            if b.click_now(Locator::XPath(&xp)).await {
                p.moves += 1;
                if on_board {
                    p.chose_on_board += 1;
                } else {
                    p.chose_in_list += 1;
                }
            }
        } else if let Some(tile) = playable.first() {
            let xp = format!("//button[@aria-label={}]", xpath_literal(tile));
            if b.click_now(Locator::XPath(&xp)).await && !tile.contains("choose") {
                p.moves += 1;
            }
        } else if let Some(m) = moves.first() {
            let xp = format!("//button[@aria-label={}]", xpath_literal(m));
            if b.click_now(Locator::XPath(&xp)).await {
                p.count(m);
            }
        }
    }
}

impl Played {
    /// Counts a click on the move button named `name` (pass or draw).
    fn count(&mut self, name: &str) {
        if name == "pass" {
            self.pass_clicks += 1;
        } else {
            self.moves += 1;
        }
    }
}

/// Plays and draws a seat made in a stored game.
fn seat_moves(game: &Value, seat: u64) -> u32 {
    seat_events(game, seat, &["played", "drew"])
}

/// How many of a stored game's steps begin with one of `events` by `seat`.
fn seat_events(game: &Value, seat: u64, events: &[&str]) -> u32 {
    game["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            let first = &s["events"][0];
            first["seat"] == json!(seat) && events.iter().any(|e| first["event"] == *e)
        })
        .count() as u32
}

/// Opens the lobby as a fresh visitor with moves shown as they come.
async fn lobby(b: &Browser) {
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
}

/// Creates a latin room from the lobby with bots of `strength` in the
/// other seats, sits down, and says ready.
async fn start_latin(b: &Browser, strength: &str) {
    b.open_room("latin", None, strength).await;
    b.click_named("I'm ready").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_plays_a_latin_match_by_mouse_and_never_sees_a_hidden_tile() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    start_latin(&b, "random").await;
    let mut p = Played::default();
    play(&b, Until::MatchOver, false, &mut p).await;
    let id = p.game.expect("the result links to the stored game");
    b.close().await;

    let g = server.get_json(&format!("/api/games/{id}?seat=0")).await;
    assert_eq!(g["seats"][0]["kind"], "guest", "{}", g["seats"]);
    assert_eq!(seat_moves(&g, 0), p.moves, "every play of seat 0 was made by a click on the page");
    assert_eq!(p.pass_clicks, 0, "the page passed for seat 0 whenever nothing fitted");
    assert!(p.moves >= 7, "a match takes more than a hand's moves: {}", p.moves);
    assert!(!g["winner"].is_null(), "latin matches are won: {}", g["scores"]);

    // What seat 0 could know: its own hands and the tiles on the board.
    let mut own = HashSet::new();
    let mut played = HashSet::new();
    let views = std::iter::once(&g["start"]).chain(g["steps"].as_array().unwrap().iter().map(|s| &s["view"]));
    for v in views {
        let (hand, on_board) = view_tiles(v);
        own.extend(hand);
        played.extend(on_board);
    }
    // A hand's end turns every hand face up: each seat's tiles then, as
    // "seat N's tiles: ..." names them.
    let mut turned_up = HashSet::new();
    for s in g["steps"].as_array().unwrap() {
        for (seat, hand) in s["hand-end"]["view"]["hands"].as_array().into_iter().flatten().enumerate() {
            let faces = |t: &Value| (t[0].as_u64().unwrap(), t[1].as_u64().unwrap());
            let tiles: Vec<String> =
                hand.as_array().unwrap().iter().map(faces).map(|(a, b)| format!("{}-{}", a.max(b), a.min(b))).collect();
            let list = if tiles.is_empty() { "none".to_string() } else { tiles.join(", ") };
            turned_up.insert(format!("seat {}'s tiles: {list}", seat + 1));
        }
    }
    assert!(!turned_up.is_empty(), "the stored game has the hands turned up at each hand's end");
    let revealed: HashSet<[u8; 2]> = turned_up.iter().flat_map(|l| tiles_in(l)).collect();
    // A hand's last play is in no view's board: the view after it already
    // holds the next hand. Its `played` event told every seat.
    for e in g["steps"].as_array().unwrap().iter().flat_map(|s| s["events"].as_array().unwrap()) {
        if e["event"] == "played" {
            let t = &e["tile"];
            let (a, b) = (t[0].as_u64().unwrap() as u8, t[1].as_u64().unwrap() as u8);
            played.insert([a.min(b), a.max(b)]);
        }
    }
    let mut shown = HashSet::new();
    for (region, text) in &p.seen {
        for t in tiles_in(text) {
            shown.insert(t);
            assert!(
                own.contains(&t) || played.contains(&t) || revealed.contains(&t),
                "the page showed {t:?} ({region}: {text:?}), a tile seat 0 never saw"
            );
            if region == "seats" {
                // A panel names a seat's hand only as it was at a hand's end.
                assert!(
                    played.contains(&t) || turned_up.contains(text),
                    "the other seats' panels named {t:?}, neither played nor a hand turned up at a hand's end: {text:?}"
                );
            }
        }
    }
    // The check had something to check: the page turned the other hands up
    // at a hand's end, and named our tiles and the board's.
    assert!(
        p.seen.iter().any(|(region, text)| region == "seats" && turned_up.contains(text)),
        "no hand was shown turned up at a hand's end: {turned_up:?}"
    );
    assert!(own.iter().all(|t| shown.contains(t)), "every tile seat 0 held was shown to it");
    assert!(shown.len() >= 20, "{} tiles named", shown.len());
    // Ends were chosen both ways when a tile fitted two (it does not always happen).
    eprintln!("moves {}, ends chosen on the board {}, in the list {}", p.moves, p.chose_on_board, p.chose_in_list);
}

/// The page passes for its player when passing is all they may do (the
/// switch is on by default), and leaves the pass to click once the switch
/// is off, which the browser remembers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_passes_for_you_when_nothing_fits_unless_you_turn_it_off() {
    const SWITCH: &str = "Pass for me when nothing fits";
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let switch_on = async || {
        b.wait_named(SWITCH).await;
        let on = b.js(&format!("return document.querySelector('[aria-label={}]').checked", json!(SWITCH))).await;
        on.as_bool().expect("a checkbox")
    };
    // Plays a block match against a bot: its stored game and what we did.
    let block_match = async |on: bool| {
        lobby(&b).await;
        b.open_room("block", Some("2"), "random").await;
        b.click_named("I'm ready").await;
        assert_eq!(switch_on().await, on, "the switch is as it was left");
        let mut p = Played::default();
        play(&b, Until::MatchOver, false, &mut p).await;
        let g = server.get_json(&format!("/api/games/{}?seat=0", p.game.expect("stored game"))).await;
        assert_eq!(seat_moves(&g, 0), p.moves, "every play of seat 0 came from the page");
        (g, p)
    };
    // Until seat 0 had to pass (two-seat block hands leave many stuck).
    let mut passed = 0;
    for _ in 0..4 {
        let (g, p) = block_match(true).await;
        assert_eq!(p.pass_clicks, 0, "no Pass clicked while the page passes for us");
        passed += seat_events(&g, 0, &["passed"]);
        if passed > 0 {
            break;
        }
    }
    assert!(passed > 0, "seat 0 never had to pass in four block matches");
    // Turned off at the finished table, before the next match.
    b.click_named(SWITCH).await;
    assert!(!switch_on().await, "the switch is off once clicked");

    let mut clicked = 0;
    for _ in 0..4 {
        let (g, p) = block_match(false).await;
        assert_eq!(seat_events(&g, 0, &["passed"]), p.pass_clicks, "with the switch off, every pass was clicked");
        clicked += p.pass_clicks;
        if clicked > 0 {
            break;
        }
    }
    assert!(clicked > 0, "seat 0 never had to pass in four block matches with the switch off");
    // A new page in this browser keeps it off.
    b.client.refresh().await.unwrap();
    block_match(false).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_player_reloads_mid_match_and_plays_on_in_the_same_seat() {
    reload_mid_match(Some("ana")).await;
}

/// A guest's tab keeps its guest session: F5 is the same guest, in the
/// same seat, with the turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_reloads_mid_match_and_plays_on_in_the_same_seat() {
    reload_mid_match(None).await;
}

/// Plays three moves of a latin match from the page (as `name`, registered
/// first, or as a guest), reloads it, and plays the match out: the same
/// room, name and hand after the reload, every move of seat 0 from the page.
async fn reload_mid_match(name: Option<&str>) {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    if let Some(name) = name {
        b.register(name).await;
    }
    let who =
        || async { b.js("return document.getElementById('who').textContent").await.as_str().unwrap().to_string() };
    let before_who = who().await;
    start_latin(&b, "random").await;
    let mut p = Played::default();
    play(&b, Until::Moves(3), false, &mut p).await;
    // Our turn again: the page has the server's answer to our third move,
    // so the hand it shows is the hand the server will send after the reload.
    let before = b.wait_js("our turn", &format!("const l = (() => {{ {LOOK} }})(); return l.turn ? l : null")).await;
    let room = before["hash"].as_str().unwrap().to_string();
    assert!(room.starts_with("#/room/"), "{room}");

    b.client.refresh().await.unwrap();
    // Back in the same room, as before, with the turn (the pending prompt is sent again).
    let look = b
        .wait_js(
            "our turn again after the reload",
            &format!("const l = (() => {{ {LOOK} }})(); return l.turn || l.over ? l : null"),
        )
        .await;
    assert_eq!(look["hash"], json!(room));
    assert_eq!(who().await, before_who, "the same name after the reload");
    if let Some(name) = name {
        assert!(before_who.contains(&format!("Signed in as {name}")), "{before_who}");
    }
    if look["over"].is_null() {
        assert_eq!(look["hand"], before["hand"], "the same hand after the reload");
    }
    // What the returning page shows, to check against the stored game.
    let mut shown_hand = tiles_in(look["hand"].as_str().unwrap_or(""));
    shown_hand.sort();
    let shown_board: HashSet<[u8; 2]> = look["texts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t[0] == "board")
        .flat_map(|t| tiles_in(t[1].as_str().unwrap()))
        .collect();
    let shown_playable: HashSet<[u8; 2]> =
        strings(&look["playable"]).iter().flat_map(|l| tiles_in(l.split(',').next().unwrap())).collect();
    let shown_log = look["log"].as_str().unwrap_or("").to_string();
    play(&b, Until::MatchOver, false, &mut p).await;
    let id = p.game.expect("stored game");
    b.close().await;

    let g = server.get_json(&format!("/api/games/{id}?seat=0")).await;
    if look["over"].is_null() {
        // The table the page came back to is the stored game's at that
        // step: seat 0 to move, its hand, the tiles on the board (all
        // played by then), what it could play, and a log that does not
        // give another seat's move to it.
        let steps = g["steps"].as_array().unwrap();
        let views: Vec<&Value> = std::iter::once(&g["start"]).chain(steps.iter().map(|s| &s["view"])).collect();
        // Seat 0 may hold one hand at several turns (it passed between
        // them), so the step is the one whose board is the board shown.
        let seat_0_next = |j: usize| {
            let (mut hand, _) = view_tiles(views[j]);
            hand.sort();
            hand == shown_hand && views[j]["to-move"] == json!(0) && steps[j]["events"][0]["seat"] == json!(0)
        };
        let board_at = |j: usize| view_tiles(views[j]).1.into_iter().collect::<HashSet<_>>();
        let at = (0..steps.len()).find(|&j| seat_0_next(j) && board_at(j) == shown_board).unwrap_or_else(|| {
            let boards: Vec<_> = (0..steps.len()).filter(|&j| seat_0_next(j)).map(board_at).collect();
            panic!("no step of the stored game has seat 0 to move with the hand and board shown ({shown_board:?}); boards with that hand: {boards:?}")
        });
        let (hand, _) = view_tiles(views[at]);
        assert!(!shown_playable.is_empty() || strings(&look["moves"]).len() == 1, "a move is offered: {look}");
        assert!(shown_playable.iter().all(|t| hand.contains(t)), "playable tiles are in the hand: {shown_playable:?}");
        let last = at.checked_sub(1).map(|k| &steps[k]["events"][0]);
        if shown_log.starts_with("You ") {
            assert_eq!(last.map(|e| &e["seat"]), Some(&json!(0)), "the log gives seat 0 the last move: {shown_log}");
        }
    }
    match name {
        Some(name) => {
            assert_eq!((g["seats"][0]["name"].as_str(), g["seats"][0]["kind"].as_str()), (Some(name), Some("player")))
        }
        None => assert_eq!(g["seats"][0]["kind"], "guest", "{}", g["seats"]),
    }
    assert_eq!(seat_moves(&g, 0), p.moves, "moves before and after the reload, all from the page");
    assert!(p.moves > 3, "moves were made after the reload");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_steps_to_the_end_and_back_as_the_stored_game_says() {
    let _one = ONE_BROWSER.lock().await;
    // Pages of a few steps: the page loads the steps it shows as it goes,
    // forward, back and from a link.
    let server = TestServer::start_with(temp_db(), Config { replay_page_bytes: 4096, ..common::config() }).await;
    let mut clients = vec![];
    for _ in 0..4 {
        clients.push(server.guest().await);
    }
    let room = seat_all(&mut clients, json!({"preset": "latin"})).await;
    let (_clients, id) = play_out(clients, room).await;
    let g = server.replay(id, "seat=1").await;
    let n = g["steps"].as_array().unwrap().len();
    assert!(
        server.get_json(&format!("/api/games/{id}?seat=1")).await["next"].is_u64(),
        "the game takes more than one page"
    );
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/replay/{id}?seat=1")).await;

    let read = r#"
      const status = [...document.querySelectorAll('[role="group"][aria-label="replay controls"] [role="status"]')].map((e) => e.textContent)[0];
      const board = [...document.querySelectorAll('[aria-label="the board"] [role="img"]')].map((e) => e.getAttribute('aria-label'));
      const hand = document.querySelector('[role="group"][aria-label^="seat 2\'s hand"]');
      // Shown, not only named: every tile of the board and the hand has a size on screen.
      const unseen = [...document.querySelectorAll('[aria-label="the board"] [role="img"], [role="group"][aria-label^="seat 2\'s hand"] [role="img"]')]
        .filter((e) => { const r = e.getBoundingClientRect(); return r.width < 10 || r.height < 10; }).length;
      return { status, board, unseen, hand: hand ? hand.getAttribute('aria-label') : null };
    "#;
    let check = async |k: usize| {
        let want = format!("Move {k} of {n}");
        let got = b
            .wait_js(
                &want,
                &format!("const r = (() => {{ {read} }})(); return r.status === {} ? r : null", json!(want)),
            )
            .await;
        // A step that ends a hand shows that hand's final position.
        let view = if k == 0 {
            &g["start"]
        } else if g["steps"][k - 1]["hand-end"].is_object() {
            &g["steps"][k - 1]["hand-end"]["view"]
        } else {
            &g["steps"][k - 1]["view"]
        };
        let (hand, on_board) = view_tiles(view);
        let mut shown: Vec<[u8; 2]> = strings(&got["board"]).iter().flat_map(|l| tiles_in(l)).collect();
        let mut expected = on_board;
        shown.sort();
        expected.sort();
        assert_eq!(shown, expected, "the board at move {k}");
        assert_eq!(got["unseen"], 0, "tiles without a size on screen at move {k}");
        let named = tiles_in(got["hand"].as_str().expect("seat 2's hand is shown"));
        assert_eq!(named, hand, "seat 2's hand at move {k}");
    };
    check(0).await;
    for k in 1..=n {
        b.click_named("next move").await;
        check(k).await;
    }
    let next = b.find_named("next move").await.unwrap();
    assert!(!next.is_enabled().await.unwrap(), "no move after the last");
    // Back to the start from the keyboard.
    for k in (0..n).rev() {
        b.keys(&Key::Left.to_string()).await;
        check(k).await;
    }
    let link = b.js("return document.getElementById('rp-link').value").await;
    assert!(link.as_str().unwrap().ends_with(&format!("/#/replay/{id}?seat=1")), "{link}");
    // The shared link opens the same viewpoint at the step it names.
    b.open(&format!("/#/replay/{id}?seat=1&step={n}")).await;
    check(n).await;
    // Opened at the end, it loads the steps before it stepping back.
    for k in (n.saturating_sub(3)..n).rev() {
        b.keys(&Key::Left.to_string()).await;
        check(k).await;
    }

    // The Replays page lists it (variant, players, result) and links to it.
    b.open("/#/replays").await;
    let row = b
        .wait_js(
            "the stored game listed",
            &format!(
                "const a = [...document.querySelectorAll('table a')].find((a) => a.textContent === 'Game {id}');
                 return a ? a.closest('tr').innerText : null"
            ),
        )
        .await;
    let row = row.as_str().unwrap();
    let names: Vec<String> =
        g["seats"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect();
    assert!(row.contains("latin") && names.iter().all(|n| row.contains(n.as_str())), "{row} lacks {names:?}");
    // The winner's score first (a drawn match's in side order).
    let mut scores: Vec<String> = g["scores"].as_array().unwrap().iter().map(|v| v.to_string()).collect();
    if let Some(w) = g["winner"].as_u64() {
        let won = scores.remove(w as usize);
        scores.insert(0, won);
    }
    assert!(row.contains(&scores.join("–")), "{row} lacks the scores {scores:?}");
    let more = b.js("return getComputedStyle(document.querySelector('[data-key=\"more-games\"]')).display").await;
    assert_eq!(more, json!("none"), "one game stored: no older page to offer");
    b.screenshot("replays").await;
    b.click_named(&format!("Game {id}")).await;
    b.wait_js("the listed game's replay", &format!("return location.hash === '#/replay/{id}' || null")).await;
    b.wait_named("next move").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_is_played_from_the_keyboard_alone() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    start_latin(&b, "random").await;
    let mut p = Played::default();
    play(&b, Until::HandOver, true, &mut p).await;
    assert!(p.moves >= 1, "moves made by keys");
    let log = p.seen.iter().filter(|(_, t)| t.starts_with("You played ") || t == "You passed.").count();
    assert!(log >= 1, "the log tells our moves");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_watches_a_match_live_and_is_shown_no_hand() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    // A guest plays against two bots over the WebSocket, one prompt at a time.
    let mut guest = server.guest().await;
    let room = guest.create_room(json!({"preset": "draw", "seats": 3})).await;
    guest.join(room, Some(0)).await;
    let r = guest.request(json!({"type": "fill-bots", "room": room, "strategy": "heuristic"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    guest.ready(room).await;
    let mut prompt = guest.recv_type("prompt").await;

    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    b.click_named(&format!("watch room {room}")).await;
    // The log shows what happens from the moment the server counts the
    // watcher (its `spectating` answer): a move made before that is only in
    // the board the page is sent.
    b.wait_js(
        "the page to be watching",
        "return [...document.querySelectorAll('.tag')].some((e) => e.textContent === 'watching')",
    )
    .await;
    let board = "return [...document.querySelectorAll('[aria-label=\"the board\"] [role=\"img\"]')].map((e) => e.getAttribute('aria-label'))";
    // The guest moves: each move shows up on the watcher's page as it happens.
    for salt in 0..6u64 {
        let m = common::pick(&prompt["legal-moves"], salt);
        let played = m["kind"] == "play";
        guest
            .send(json!({"type": "move", "family": "tiles", "room": room, "prompt": prompt["prompt"], "move": m}))
            .await;
        prompt = guest.recv_type("prompt").await;
        if played {
            let (x, y) = (m["tile"][0].as_u64().unwrap(), m["tile"][1].as_u64().unwrap());
            let said = format!("Seat 1 (guest-1) played {}-{}", x.max(y), x.min(y));
            let want = format!(
                "return document.querySelector('[aria-labelledby=\"log-h\"]')?.textContent.includes({})",
                json!(said)
            );
            b.wait_js("the guest's move on the watcher's page", &want).await;
        }
    }
    // The board and the page in one look, never at a hand's end: then every
    // hand is public, turned face up beside the final board, and a watcher's
    // page goes on to the next deal by itself.
    let up = "document.querySelector('[aria-label=\"the hands, face up\"]')";
    let mut dealt_again = false;
    let seen = loop {
        let seen = b
            .js(&format!(
                "const board = (() => {{ {board} }})(); const look = (() => {{ {LOOK} }})();
                 return [board, look, !!{up}];"
            ))
            .await;
        if seen[2] != json!(true) {
            break seen;
        }
        b.wait_js("the next deal after a hand's end", &format!("return !{up}")).await;
        dealt_again = true;
    };
    let look = &seen[1];
    assert!(look["hand"].is_null(), "a watcher has no hand");
    assert!(look["playable"].as_array().unwrap().is_empty() && look["moves"].as_array().unwrap().is_empty());
    let panels = b.js("return [...document.querySelectorAll('[aria-label=\"the other seats\"] [role=\"group\"]')].map((e) => e.getAttribute('aria-label'))").await;
    assert_eq!(panels.as_array().unwrap().len(), 3, "every seat is shown to a watcher: {panels}");
    // No hand is ever shown: a tile is named on the board, or in the log
    // as a tile someone played.
    let shown: HashSet<[u8; 2]> = strings(&seen[0]).iter().flat_map(|l| tiles_in(l)).collect();
    // (A new deal the guest leads has an empty board.)
    assert!(dealt_again || !shown.is_empty(), "the board shows the hand's tiles");
    for pair in look["texts"].as_array().unwrap() {
        let (region, text) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        if region == "log" {
            let played: Vec<_> =
                text.match_indices("played ").flat_map(|(i, _)| tiles_in(&text[i..]).into_iter().take(1)).collect();
            assert_eq!(tiles_in(text), played, "the log names only played tiles: {text}");
        } else {
            for t in tiles_in(text) {
                assert!(shown.contains(&t), "a watcher was shown {t:?}, not on the board: {pair}");
            }
        }
    }
    b.close().await;
}

const ADMIN: &str = "admin-secret";

/// A server that runs tournaments created with [`ADMIN`].
async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// A rated latin match of four registered players; its stored game.
async fn rated_match(server: &TestServer) -> i64 {
    let mut players = vec![];
    for name in ["ana", "ben", "carla", "dani"] {
        players.push(server.player(name).await.0);
    }
    let room = seat_all(&mut players, json!({"preset": "latin", "rated": true})).await;
    play_out(players, room).await.1
}

/// A round robin of hosted bots, played to its end; its id.
async fn bots_tournament(server: &TestServer) -> i64 {
    let spec = json!({
        "name": "bots night", "seed": 1, "table": "duel", "variants": ["block"],
        "entrants": ["bot:random", "bot:heuristic", "bot:smart", "bot:bota-gorda"],
        "stages": [{"format": "round-robin"}],
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    wait_for("the bots' tournament to finish", Duration::from_secs(60), async || {
        let t = server.get_json(&format!("/api/tournaments/{id}")).await;
        if t["status"] == "finished" { Ok(()) } else { Err(t["status"].clone()) }
    })
    .await;
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standings_show_the_ratings_and_a_tournament_whose_tables_open_as_replays() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    rated_match(&server).await;
    let tid = bots_tournament(&server).await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open("/#/standings").await;
    let rows = |caption: &str| {
        format!(
            "const t = [...document.querySelectorAll('table')].find((t) => t.querySelector('caption')?.textContent === {});
             return t ? [...t.querySelectorAll('tbody th[scope=row]')].map((th) => th.textContent) : null;",
            json!(caption)
        )
    };
    let names = |v: &Value, key: &str| -> Vec<Value> { v.as_array().unwrap().iter().map(|r| r[key].clone()).collect() };
    let shown = b.wait_js("the latin leaderboard", &rows("leaderboard of latin")).await;
    let board = server.get_json("/api/leaderboard?variant=latin").await;
    assert_eq!(shown.as_array().unwrap(), &names(&board, "name"), "the leaderboard in its order");
    assert_eq!(board.as_array().unwrap().len(), 4);
    // Each row counts games, wins, draws and losses as the board does.
    let counts = b
        .wait_js(
            "the leaderboard's counts",
            "const t = [...document.querySelectorAll('table')].find((t) => t.querySelector('caption')?.textContent === 'leaderboard of latin');
             return t ? [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].slice(3).map((c) => Number(c.textContent))) : null;",
        )
        .await;
    let expected: Vec<Value> =
        board.as_array().unwrap().iter().map(|r| json!([r["games"], r["wins"], r["draws"], r["losses"]])).collect();
    assert_eq!(counts.as_array().unwrap(), &expected, "games, wins, draws and losses");

    b.click_named("bots night").await;
    let shown = b.wait_js("the tournament's standings", &rows("standings of bots night")).await;
    let standings = server.get_json(&format!("/api/tournaments/{tid}/standings")).await;
    assert_eq!(shown.as_array().unwrap(), &names(&standings, "name"), "the standings in their order");
    // Each finished table links to its game's replay.
    let detail = server.get_json(&format!("/api/tournaments/{tid}")).await;
    let game = detail["rounds"][0]["tables"][0]["game"].as_i64().unwrap();
    let link = b
        .wait_js(
            "a table's link",
            "return [...document.querySelectorAll('a')].find((a) => a.textContent === 'table 1')?.getAttribute('href')",
        )
        .await;
    assert_eq!(link, json!(format!("#/replay/{game}")));
    // Earlier rounds are folded: open round 1 as a person would, then its table 1.
    b.client.find(Locator::XPath("//summary[text()='Round 1 (block)']")).await.unwrap().click().await.unwrap();
    b.client.find(Locator::LinkText("table 1")).await.unwrap().click().await.unwrap();
    let steps = server.get_json(&format!("/api/games/{game}")).await["steps"].as_array().unwrap().len();
    let status = format!("Move 0 of {steps}");
    b.wait_js(
        &status,
        &format!(
            "return document.querySelector('[aria-label=\"replay controls\"] [role=status]')?.textContent === {}",
            json!(status)
        ),
    )
    .await;
    b.close().await;
}

/// A Swiss of six hosted bots, one withdrawn before it starts (five left:
/// a bye in every round) and one result corrected; played to its end. It
/// starts two seconds after its creation, so the withdrawal comes first
/// however fast the bots play.
async fn swiss_with_a_bye_a_withdrawal_and_a_correction(server: &TestServer) -> i64 {
    let spec = json!({
        "name": "club swiss", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": ["bot:random#1", "bot:random#2", "bot:random#3", "bot:heuristic", "bot:smart", "bot:bota-gorda"],
        "stages": [{"format": "swiss", "rounds": 3}],
    });
    let starts_at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 2;
    let (status, created) =
        server.post_json(&format!("/api/tournaments?starts-at={starts_at}"), Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (status, body) = server
        .post_json(
            &format!("/api/tournaments/{id}/withdraw"),
            Some(ADMIN),
            &json!({"entrant": "bot:smart", "by": "marta"}).to_string(),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    wait_for("the Swiss to finish", Duration::from_secs(90), async || {
        let t = server.get_json(&format!("/api/tournaments/{id}")).await;
        if t["status"] == "finished" { Ok(()) } else { Err(t["status"].clone()) }
    })
    .await;
    // The organiser turns round 1, table 1 the other way.
    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    let played = &detail["rounds"][0]["tables"][0]["result"];
    let winner = played["winner"].as_u64().map_or(0, |w| 1 - w);
    let body = json!({"round": 0, "table": 0, "winner": winner, "scores": [played["seats"][1]["score"], played["seats"][0]["score"]], "by": "marta"});
    let (status, e) = server.post_json(&format!("/api/tournaments/{id}/correct"), Some(ADMIN), &body.to_string()).await;
    assert_eq!(status, 200, "{e}");
    id
}

/// A tournament's page shows what an organiser reads out: every round's
/// pairings with names, seats, scores and results, the byes, every
/// tie-break as a column, the withdrawn entrant as withdrawn, the
/// corrected table's result that counts, and links to its CSV exports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_page_shows_pairings_byes_tie_breaks_a_withdrawal_and_a_correction() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let id = swiss_with_a_bye_a_withdrawal_and_a_correction(&server).await;
    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    let standings = server.get_json(&format!("/api/tournaments/{id}/standings")).await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/#/standings/tournament/{id}")).await;
    // The standings' columns: the counts, the byes, each tie-break, the status.
    let head = b
        .wait_js(
            "the standings' columns",
            "const t = [...document.querySelectorAll('table')].find((t) => t.querySelector('caption')?.textContent === 'standings of club swiss');
             return t ? [...t.querySelectorAll('thead th')].map((th) => th.textContent) : null;",
        )
        .await;
    let tie_breaks = strings(&detail["spec"]["scoring"]["tie-breaks"]);
    assert_eq!(tie_breaks.len(), 4, "the default tie-breaks: {detail}");
    let head = strings(&head);
    assert_eq!(head[7], "Byes");
    assert_eq!(head.len(), 9 + tie_breaks.len(), "{head:?}");
    assert!(head.contains(&"Buchholz".to_string()) && head.contains(&"Head-to-head".to_string()), "{head:?}");
    // Each row as the stored standings say: byes, tie-break values, status.
    let rows = b
        .wait_js(
            "the standings' rows",
            "const t = [...document.querySelectorAll('table')].find((t) => t.querySelector('caption')?.textContent === 'standings of club swiss');
             return [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent));",
        )
        .await;
    for (row, s) in rows.as_array().unwrap().iter().zip(standings.as_array().unwrap()) {
        let row = strings(row);
        assert_eq!(row[1], s["name"].as_str().unwrap());
        assert_eq!(row[7], s["byes"].to_string(), "{row:?} {s}");
        for (i, v) in s["tie-breaks"].as_array().unwrap().iter().enumerate() {
            assert_eq!(row[8 + i], v.to_string(), "tie-break {} of {row:?}", tie_breaks[i]);
        }
        let status = row.last().unwrap();
        if s["name"] == "bot:smart" {
            assert_eq!(status, "withdrawn", "{row:?}");
        } else {
            assert!(status != "withdrawn" && status != "out", "{row:?}");
        }
    }
    // Every round's pairings: a row per table naming its seats, and the byes.
    let rounds = detail["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3, "{detail}");
    let shown = b
        .wait_js(
            "the pairings",
            "const ts = [...document.querySelectorAll('table.pairings')];
             return ts.length === 3 ? ts.map((t) => ({
               caption: t.querySelector('caption').textContent,
               rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent)),
               byes: t.parentElement.querySelector('.byes')?.textContent ?? null,
             })) : null;",
        )
        .await;
    let name_of = |e: &Value| detail["entrants"][e.as_u64().unwrap() as usize]["name"].as_str().unwrap().to_string();
    for (r, shown) in rounds.iter().zip(shown.as_array().unwrap()) {
        let n = r["number"].as_u64().unwrap() + 1;
        assert_eq!(shown["caption"], json!(format!("pairings of round {n}")));
        let tables = r["tables"].as_array().unwrap();
        let rows = shown["rows"].as_array().unwrap();
        assert_eq!(rows.len(), tables.len(), "round {n}: {shown}");
        for (tb, row) in tables.iter().zip(rows) {
            let row = strings(row);
            for (i, seat) in tb["seats"].as_array().unwrap().iter().enumerate() {
                let says = format!("{} (seat {})", seat["player"].as_str().unwrap(), i + 1);
                assert!(row[1].contains(&says), "round {n}: {row:?} lacks {says}");
            }
            let result = &tb["result"];
            let sides = tb["sides"].as_array().unwrap();
            let expected = match result["winner"].as_u64() {
                Some(w) => format!("{} won", name_of(&sides[w as usize][0])),
                None => "drawn".to_string(),
            };
            assert!(row[3].starts_with(&expected), "round {n}: {row:?}, expected {expected}");
            // The corrected table says so, and by whom.
            let corrected = n == 1 && tb["id"] == 0;
            assert_eq!(row[3].contains("corrected by marta"), corrected, "round {n}: {row:?}");
            let scores: Vec<String> =
                result["seats"].as_array().unwrap().iter().map(|s| s["score"].to_string()).collect();
            assert_eq!(row[2], scores.join(" – "), "round {n}: {row:?}");
        }
        let byes: Vec<String> = r["byes"].as_array().unwrap().iter().map(name_of).collect();
        if byes.is_empty() {
            assert_eq!(shown["byes"], Value::Null, "round {n}");
        } else {
            assert_eq!(shown["byes"], json!(format!("Bye: {}.", byes.join(" and "))), "round {n}");
        }
    }
    assert!(!rounds[2]["byes"].as_array().unwrap().is_empty(), "five entrants left: a bye: {detail}");
    // The withdrawn entrant sits out the rounds after its withdrawal.
    let last = &rounds[2];
    let seated = |r: &Value, e: u64| {
        r["tables"].as_array().unwrap().iter().any(|t| t["seats"].as_array().unwrap().iter().any(|s| s["entrant"] == e))
    };
    let smart = detail["entrants"].as_array().unwrap().iter().position(|e| e["name"] == "bot:smart").unwrap() as u64;
    assert!(!seated(last, smart), "a withdrawn entrant is not paired: {last}");
    // The export links answer.
    let links = b
        .wait_js(
            "the CSV links",
            "return [...document.querySelectorAll('.downloads a')].map((a) => a.getAttribute('href'))",
        )
        .await;
    assert_eq!(strings(&links), ["standings", "pairings", "results"].map(|w| format!("/api/tournaments/{id}/{w}.csv")),);
    b.screenshot("tournament").await;
    b.close().await;
    // On a phone the page never scrolls sideways: wide tables scroll in
    // their card, the pairings read as cards.
    let Some(b) = Browser::start_phone(format!("http://{}", server.addr), &[]).await else { return };
    b.open(&format!("/#/standings/tournament/{id}")).await;
    let wide = b
        .wait_js(
            "the pairings at a phone's width",
            "return document.querySelectorAll('table.pairings').length === 3 ? [document.documentElement.scrollWidth - window.innerWidth] : null",
        )
        .await;
    assert!(wide[0].as_i64().unwrap() <= 0, "the page is {} px wider than a phone", wide[0]);
    b.client.execute("document.querySelector('table.pairings').scrollIntoView()", vec![]).await.unwrap();
    b.screenshot("tournament-phone").await;
    b.close().await;
}

/// While a round waits for its players, the page says who is here: the
/// connected player waiting, the registered one who is not connected as
/// missing, and, at the table, whom it waits for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_tournament_page_says_who_is_here_and_who_is_missing() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let (registering, ana_token) = server.player("ana").await;
    drop(registering);
    let (registering, _) = server.player("ben").await;
    drop(registering);
    let mut ana = server.client().await;
    ana.hello(Some(&ana_token)).await;
    let r = ana.request(json!({"type": "await-assignments"})).await;
    assert_eq!(r["type"], "awaiting", "{r}");
    let spec = json!({
        "name": "club night", "seed": 3, "table": "duel", "variants": ["block"],
        "entrants": ["ana", "ben", "bot:random#1", "bot:random#2"],
        "stages": [{"format": "round-robin"}],
        "clock": {"move-ms": 30000, "no-show-secs": 600}
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let state_of = |d: &Value, name: &str| {
        d["presence"].as_array().unwrap().iter().find(|p| p["name"] == name).map(|p| p["state"].clone())
    };
    let detail = wait_for("ben missing and ana waiting", Duration::from_secs(30), async || {
        let d = server.get_json(&format!("/api/tournaments/{id}")).await;
        let states = (state_of(&d, "ana"), state_of(&d, "ben"));
        if states == (Some(json!("waiting")), Some(json!("missing"))) { Ok(d) } else { Err(d["presence"].clone()) }
    })
    .await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/#/standings/tournament/{id}")).await;
    let lines = b
        .wait_js(
            "who is here",
            "const s = document.querySelector('section[aria-labelledby=\"here-h\"]');
             return s ? [...s.querySelectorAll('li')].map((li) => li.textContent) : null;",
        )
        .await;
    let lines = strings(&lines);
    assert!(lines.contains(&"Missing (1): ben (not connected)".to_string()), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("Connected and waiting") && l.contains("ana")), "{lines:?}");
    // ben's table says it waits for him.
    let round = &detail["rounds"][0];
    let bens = round["tables"]
        .as_array()
        .unwrap()
        .iter()
        .position(|t| t["seats"].as_array().unwrap().iter().any(|s| s["player"] == "ben"))
        .unwrap();
    let result = b
        .wait_js(
            "ben's table",
            &format!(
                "const t = document.querySelector('table.pairings');
                 return t ? t.querySelectorAll('tbody tr')[{bens}].children[3].textContent : null;"
            ),
        )
        .await;
    let result = result.as_str().unwrap();
    assert!(result.starts_with("waiting for") && result.contains("ben"), "{result}");
    b.screenshot("tournament-running").await;
    b.close().await;
}

/// Pictures for the book, saved only with `CAPICUA_SCREENSHOTS=1`: the
/// lobby with rooms, a table mid-hand, a replay, the standings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_of_the_lobby_a_table_a_replay_and_the_standings() {
    if std::env::var("CAPICUA_SCREENSHOTS").as_deref() != Ok("1") {
        eprintln!("screenshots are taken with CAPICUA_SCREENSHOTS=1");
        return;
    }
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let rated = rated_match(&server).await;
    bots_tournament(&server).await;
    // Rooms in the lobby: one waiting for players, one in play.
    let mut host = server.guest().await;
    let waiting = host.create_room(json!({"preset": "all-fives", "seats": 2})).await;
    host.join(waiting, Some(0)).await;
    let mut busy = server.guest().await;
    let playing = busy.create_room(json!({"preset": "draw", "seats": 3})).await;
    busy.join(playing, Some(0)).await;
    let r = busy.request(json!({"type": "fill-bots", "room": playing, "strategy": "heuristic"})).await;
    assert_eq!(r["type"], "ok");
    busy.ready(playing).await;

    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    b.wait_named(&format!("watch room {playing}")).await;
    b.screenshot("lobby").await;

    // A room of our own: the waiting room, then bots, a hand, its result.
    b.open_room("latin", None, "").await;
    b.wait_named("Fill 3 empty seats with bots").await;
    b.screenshot("waiting-room").await;
    b.choose("Bots", "smart").await;
    b.click_named("Fill 3 empty seats with bots").await;
    b.click_named("I'm ready").await;
    let mut p = Played::default();
    play(&b, Until::Moves(3), false, &mut p).await;
    b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
    b.screenshot("table").await;
    play(&b, Until::HandOver, false, &mut p).await;
    b.screenshot("hand-result").await;
    play(&b, Until::MatchOver, false, &mut p).await;
    b.screenshot("match-over").await;

    b.open(&format!("/#/replay/{rated}?seat=0&step=17")).await;
    b.wait_named("next move").await;
    b.screenshot("replay").await;

    b.open("/#/standings").await;
    b.wait_js(
        "the leaderboard",
        "return document.querySelector('table caption')?.textContent.startsWith('leaderboard')",
    )
    .await;
    b.screenshot("standings").await;
    b.close().await;

    // A phone's width, in the dark.
    let Some(b) =
        Browser::start_with(format!("http://{}", server.addr), &["--blink-settings=preferredColorScheme=0"]).await
    else {
        return;
    };
    b.client.set_window_size(390, 844).await.unwrap();
    lobby(&b).await;
    start_latin(&b, "random").await;
    let mut p = Played::default();
    play(&b, Until::Moves(2), false, &mut p).await;
    b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
    b.screenshot("phone-dark").await;
    b.close().await;
}

/// The rule menus of "Open a room": a combination the engine refuses is
/// shown beside the menu at fault, and no room is opened; a good custom
/// variant opens a room whose match the guest plays by clicking, under
/// the rules chosen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_variant_is_checked_beside_its_field_and_then_played() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    b.choose("Variant", "block").await;
    b.choose("Table", "2").await;
    b.choose("Fill the other seats with bots", "random").await;
    b.click_named("Change the rules").await;
    // Drawing with no stock: block deals leave the rest out of play.
    b.choose("stuck.when-unable", "draw-until-playable").await;
    let shown = b.js("return document.getElementById('rule-stuck-when-unable-desc').textContent").await;
    assert!(!shown.as_str().unwrap().is_empty(), "the chosen option's description is shown");
    b.click_named("Create and sit down").await;
    let alert = b
        .wait_js(
            "the refusal beside stuck.when-unable",
            "const e = document.getElementById('rule-stuck-when-unable-err'); \
             return e && !e.hidden && e.getAttribute('role') === 'alert' ? e.textContent : null",
        )
        .await;
    assert!(alert.as_str().unwrap().contains("stuck.when-unable"), "{alert}");
    let described =
        b.js("return document.getElementById('rule-stuck-when-unable').getAttribute('aria-describedby')").await;
    assert!(described.as_str().unwrap().contains("rule-stuck-when-unable-err"), "{described}");
    assert_eq!(server.get_json("/api/rooms").await, json!([]), "a refused variant opens no room");

    // Fixed: a stock to draw from, one hand, tiles worth their larger face.
    b.choose("deal.rest", "stock").await;
    b.choose("target", "hands").await;
    b.choose("tiles.value", "largest-face").await;
    b.click_named("Create and sit down").await;
    b.click_named("I'm ready").await;
    let mut p = Played::default();
    play(&b, Until::MatchOver, false, &mut p).await;
    let id = p.game.expect("the result links to the stored game");
    b.close().await;

    let g = server.get_json(&format!("/api/games/{id}?seat=0")).await;
    assert_eq!(seat_moves(&g, 0), p.moves, "every move of seat 0 was made by a click on the page");
    assert!(p.moves >= 1);
    let v = &g["variant"];
    assert_eq!(v["name"], "block-custom", "{v}");
    assert_eq!(v["stuck"]["when-unable"], "draw-until-playable", "{v}");
    assert_eq!(v["deal"]["rest"], "stock", "{v}");
    assert_eq!(v["target"], json!({ "hands": 1 }), "{v}");
    assert_eq!(v["tiles"]["value"], "largest-face", "{v}");
}

/// A private room for friends: its creator is shown an invite link, the
/// room is not in anyone's lobby, and a second browser that opens the link
/// sits at the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_friend_opens_the_invite_link_of_a_private_room_and_sits() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(host) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&host).await;
    host.choose("Variant", "block").await;
    host.choose("Table", "2").await;
    host.choose("Fill the other seats with bots", "").await;
    host.client.find(Locator::Id("c-private")).await.unwrap().click().await.unwrap();
    host.click_named("Create and sit down").await;
    let link = host
        .wait_js("the invite link", "const e = document.getElementById('invite-link'); return e ? e.value : null")
        .await;
    let link = link.as_str().unwrap().to_string();
    let (_, invite) = link.split_once("#/invite/").expect("an invite link");
    assert_eq!(invite.len(), 36, "{link}");
    host.click_named("Copy the invite link").await;
    assert_eq!(server.get_json("/api/rooms").await, json!([]), "a private room is not listed");

    let Some(friend) = Browser::start(format!("http://{}", server.addr)).await else { return };
    friend.open(&format!("/?pace=0#/invite/{invite}")).await;
    friend.wait_named("I'm ready").await;
    let hash = friend.js("return location.hash").await;
    assert!(hash.as_str().unwrap().starts_with("#/room/"), "{hash}");
    // The host sees the friend in the second seat.
    host.wait_js(
        "the friend seated at the host's table",
        "return [...document.querySelectorAll('[aria-label^=\"seat 2: \"]')].some((e) => !e.getAttribute('aria-label').includes('empty'))",
    )
    .await;
    // With both seats taken, the same link lets a third person watch (the
    // room is unlisted: its seats reach the page only by watching it).
    let room: u64 = hash.as_str().unwrap().trim_start_matches("#/room/").parse().unwrap();
    let Some(watcher) = Browser::start(format!("http://{}", server.addr)).await else { return };
    watcher.open(&format!("/?pace=0#/invite/{invite}")).await;
    watcher
        .wait_js(
            "the watcher at the private room",
            &format!(
                "return location.hash === '#/room/{room}' && document.body.innerText.includes('Waiting for players')"
            ),
        )
        .await;
    assert!(watcher.find_named("I'm ready").await.is_err(), "a watcher has no seat to be ready in");
    watcher.close().await;
    // A wrong invite says so instead of seating anyone.
    friend.open("/?pace=0#/invite/00000000-0000-4000-8000-000000000000").await;
    friend.wait_js("the refusal", "return document.body.innerText.includes('This invite opens no room')").await;
    friend.close().await;
    host.close().await;
}

/// Table chat between two people at one table: a line one sends appears in
/// the other's chat log (a live log region), named by seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_line_sent_by_one_player_appears_for_the_other() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(ana) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ana).await;
    let room = ana.open_room("block", Some("2"), "").await;

    let Some(ben) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ben).await;
    ben.click_named(&format!("join room {room}")).await;
    ben.wait_named("I'm ready").await;

    ana.fill("chat message", "buena suerte").await;
    ana.click_named("Send").await;
    let line = ben
        .wait_js(
            "ana's line in ben's chat log",
            "const l = document.querySelector('[role=\"log\"][aria-label=\"table chat\"]'); \
             return l && l.textContent.includes('buena suerte') ? l.textContent : null",
        )
        .await;
    assert!(line.as_str().unwrap().contains("Seat 1"), "named by seat: {line}");
    // The sender sees its own line once, as the room delivered it.
    let own = ana
        .wait_js(
            "ana's own line",
            "const l = document.querySelector('[role=\"log\"][aria-label=\"table chat\"]'); \
             return l ? l.querySelectorAll('li').length : 0",
        )
        .await;
    assert_eq!(own, json!(1));
    let typed = ana.js("return document.getElementById('chat-text').value").await;
    assert_eq!(typed, json!(""), "the line is cleared once sent");
    ben.close().await;
    ana.close().await;
}

// --- board shapes -------------------------------------------------------------

/// Every tile on the board, as screen rects, with the board's own rect and
/// the window's width: enough to tell a tile off the board or on another.
const BOARD_RECTS: &str = r#"
  const felt = document.querySelector('section[aria-label="the board"]');
  if (!felt) return null;
  const f = felt.getBoundingClientRect();
  const tiles = [...felt.querySelectorAll('.tile')].map((t) => {
    const r = t.getBoundingClientRect();
    return { name: t.getAttribute('aria-label'), x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
  });
  return { felt: { x0: f.left, y0: f.top, x1: f.right, y1: f.bottom }, width: window.innerWidth, height: window.innerHeight, tiles };
"#;

/// Checks a board read by [`BOARD_RECTS`]: every tile inside the board and
/// the window, no two tiles over each other (a pixel of slack for the
/// anti-aliased edges of tiles that touch), and every tile at least `least`
/// pixels across its short side, so long arms turn rather than shrink.
fn check_board(what: &str, got: &Value, least: f64) {
    let tol = 1.0;
    let f = &got["felt"];
    let num = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let width = got["width"].as_f64().unwrap();
    let tiles = got["tiles"].as_array().unwrap();
    assert!(tiles.len() > 4, "{what}: a late board has tiles: {got}");
    let short = |t: &Value| (num(t, "x1") - num(t, "x0")).min(num(t, "y1") - num(t, "y0"));
    let smallest = tiles.iter().map(short).fold(f64::INFINITY, f64::min);
    eprintln!("{what}: {} tiles, the smallest {smallest:.1}px across", tiles.len());
    for t in tiles {
        assert!(short(t) >= least, "{what}: tile under {least}px across, too small to read: {t}");
        let inside = num(t, "x0") >= num(f, "x0") - tol
            && num(t, "y0") >= num(f, "y0") - tol
            && num(t, "x1") <= num(f, "x1") + tol
            && num(t, "y1") <= num(f, "y1") + tol
            && num(t, "x0") >= -tol
            && num(t, "x1") <= width + tol;
        assert!(inside, "{what}: tile off the board or the screen: {t} board {f} window {width}");
    }
    // The drawing fits the screen's height too: scrolled to, it is seen whole.
    let top = tiles.iter().map(|t| num(t, "y0")).fold(f64::INFINITY, f64::min);
    let bottom = tiles.iter().map(|t| num(t, "y1")).fold(f64::NEG_INFINITY, f64::max);
    let height = got["height"].as_f64().unwrap();
    assert!(bottom - top <= height, "{what}: the board is taller than the screen ({top}..{bottom} in {height})");
    for (i, a) in tiles.iter().enumerate() {
        for b in &tiles[i + 1..] {
            let overlap_x = num(a, "x1").min(num(b, "x1")) - num(a, "x0").max(num(b, "x0"));
            let overlap_y = num(a, "y1").min(num(b, "y1")) - num(a, "y0").max(num(b, "y0"));
            assert!(overlap_x <= tol || overlap_y <= tol, "{what}: tiles overlap: {a} and {b}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_of_every_layout_stay_on_screen_without_overlapping_tiles() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let layouts = [
        ("line", "block", false),
        ("spinner", "all-fives", true),
        ("longana", "longana", false),
        ("train", "mexican-train", false),
    ];
    let mut games = vec![];
    for (layout, variant, duel) in layouts {
        let id = bots_game(&server, ADMIN, variant, duel, false).await;
        let steps = steps_of(&server, id).await;
        // The fullest board of the match: the latest moment worth checking.
        let (k, _) = steps
            .iter()
            .enumerate()
            .map(|(k, s)| {
                // Most arms first (a spinner's cross, a star of arms), then most tiles.
                let ends: HashSet<u64> = s["view"]["history"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| (r["action"]["kind"] == "play").then(|| r["action"]["end"].as_u64()).flatten())
                    .collect();
                (k + 1, (ends.len(), view_tiles(&s["view"]).1.len()))
            })
            .max_by_key(|&(k, n)| (n, std::cmp::Reverse(k)))
            .unwrap();
        games.push((layout, id, k, steps.len()));
    }
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    // The least size a tile keeps across its short side: long arms shrink
    // to stay on screen, so tiles are only held to being visible.
    for (w, h, least) in [(1280, 900, 6.0), (390, 844, 6.0)] {
        b.client.set_window_size(w, h).await.unwrap();
        for &(layout, id, k, n) in &games {
            b.open(&format!("/?pace=0#/replay/{id}?seat=0&step={k}")).await;
            let status = format!("Move {k} of {n}");
            let got = b
                .wait_js(
                    &format!("the {layout} board at {status}"),
                    &format!(
                        "const s = document.querySelector('[aria-label=\"replay controls\"] [role=status]')?.textContent;
                         return s === {} ? (() => {{ {BOARD_RECTS} }})() : null",
                        json!(status)
                    ),
                )
                .await;
            // Train rows share one scale, set by the longest, and may shrink
            // to half size: they are only held to being visible.
            let least = if layout == "train" { 6.0 } else { least };
            check_board(&format!("{layout} at {w}px"), &got, least);
            if w == 1280 {
                b.js("document.querySelector('section[aria-label=\"the board\"]').scrollIntoView({block: 'start'})")
                    .await;
                b.screenshot(&format!("board-{layout}")).await;
            }
        }
    }
    b.close().await;
}

/// Two servers on one PostgreSQL database: the lobby of one lists the
/// other's room with a link to that server's page, where the visitor
/// watches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_on_another_server_opens_on_that_server_from_the_lobby_or_a_link() {
    let Some(pg) = capicua_pgtest::require("a_room_on_another_server_opens_on_that_server_from_the_lobby") else {
        return;
    };
    let _one = ONE_BROWSER.lock().await;
    let database = pg.fresh_database();
    let a = TestServer::start_with(std::path::PathBuf::from(&database), common::config()).await;
    let b_server = TestServer::start_with(std::path::PathBuf::from(&database), common::config()).await;
    let mut host = a.guest().await;
    let room = host.create_room(json!({"preset": "block"})).await;
    host.join(room, Some(0)).await;

    let Some(b) = Browser::start(format!("http://{}", b_server.addr)).await else { return };
    lobby(&b).await;
    // B's lobby shows A's room (as of A's next beat), with a link to A.
    let link = format!("open room {room} on {}", a.addr);
    b.wait_named(&link).await;
    b.screenshot("lobby-another-server").await;
    let href = b.js(&format!("return document.querySelector('[aria-label={}]').href", json!(link))).await;
    assert_eq!(href, json!(format!("http://{}/#/room/{room}", a.addr)));
    assert!(
        b.find_named(&format!("join room {room}")).await.is_err(),
        "no Join button that this server would answer with wrong-node"
    );
    b.click_named(&link).await;
    // Now on A's page, watching the room with its host seated.
    b.wait_js(
        "the room watched on the other server",
        &format!(
            "return location.host === {} && [...document.querySelectorAll('.tag')].some((e) => e.textContent === 'watching')",
            json!(a.addr.to_string())
        ),
    )
    .await;
    // A link to the room on B (a tournament page's, a shared one) is
    // answered `wrong-node` there, and the page follows it to A.
    b.open(&format!("/?pace=0#/room/{room}")).await;
    b.wait_js(
        "the room page on B to go to A",
        &format!(
            "return location.host === {} && location.hash === {} && [...document.querySelectorAll('.tag')].some((e) => e.textContent === 'watching')",
            json!(a.addr.to_string()),
            json!(format!("#/room/{room}"))
        ),
    )
    .await;
    b.close().await;
}

/// The manual is one click from the site's header, reads as a book on a
/// desktop (the chapter list beside the page, every part named, links
/// between pages and to a heading working) and on a phone (the page first
/// and inside the screen's width, the chapter list one tap away).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manual_is_one_click_from_the_site_and_reads_on_a_desktop_and_a_phone() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let base = format!("http://{}", server.addr);
    let Some(b) = Browser::start(base.clone()).await else { return };
    b.open("/").await;
    b.click_named("Manual").await;
    let heading = "const h = document.querySelector('main.book-page h1'); return h ? h.textContent : null;";
    assert_eq!(b.wait_js("the manual's first page", heading).await, "Introduction");
    let parts = b.js("return [...document.querySelectorAll('.book-toc li.part')].map((li) => li.textContent);").await;
    assert_eq!(
        parts,
        json!(["Playing", "Writing a bot", "Organising tournaments", "Running a server", "Inside capicua"])
    );
    // Beside the page on a desktop: the chapter list and the page share the screen's top.
    let side = b
        .js("const n = document.querySelector('.book-nav').getBoundingClientRect();
             const m = document.querySelector('.book-page').getBoundingClientRect();
             return [n.right <= m.left, Math.abs(n.top - m.top) < 40];")
        .await;
    assert_eq!(side, json!([true, true]), "the chapter list stands beside the page");
    b.click_named("protocol reference").await;
    let h = b
        .wait_js(
            "the protocol reference",
            "const h = document.querySelector('main.book-page h1');
             return h && h.textContent === 'Protocol reference' ? [h.textContent, document.title] : null;",
        )
        .await;
    assert_eq!(h, json!(["Protocol reference", "Protocol reference · capicua manual"]));
    let current = b.js("return document.querySelector('.book-toc a[aria-current=\"page\"]').textContent;").await;
    assert_eq!(current, "Protocol reference", "the chapter list marks the page being read");
    // A link to a heading of another page lands on that heading.
    b.open("/docs/introduction.html").await;
    b.click_named("limits").await;
    let landed = b
        .wait_js(
            "the limits page",
            "const h = document.getElementById('per-address-limits');
             return location.pathname.endsWith('/running/limits.html') && h
                 ? [location.hash, h.textContent, Math.abs(h.getBoundingClientRect().top) < 80] : null;",
        )
        .await;
    assert_eq!(landed, json!(["#per-address-limits", "Per-address limits", true]), "the link lands on its heading");
    b.open("/docs/introduction.html").await;
    b.screenshot("manual").await;
    b.close().await;

    let Some(p) = Browser::start_phone(base, &[]).await else { return };
    p.open("/docs/bots/protocol.html").await;
    p.wait_js("the protocol page", heading).await;
    let fit = p
        .js("const h = document.querySelector('main.book-page h1').getBoundingClientRect();
             const n = document.querySelector('.book-nav').getBoundingClientRect();
             return [document.documentElement.scrollWidth <= window.innerWidth, h.top < window.innerHeight / 3,
                     n.top > h.top];")
        .await;
    assert_eq!(fit, json!([true, true, true]), "on a phone: no sideways scroll, the page first, the chapters after it");
    p.tap_named("Chapters").await;
    let at = p
        .wait_js(
            "the chapter list in view",
            "const n = document.querySelector('.book-nav').getBoundingClientRect();
             return n.top >= -1 && n.top < window.innerHeight ? [true] : null;",
        )
        .await;
    assert_eq!(at, json!([true]));
    p.open("/docs/bots/protocol.html").await;
    p.screenshot("manual-phone").await;
    p.close().await;
}

/// Two people at one table; one's browser goes away mid-match: the other's
/// page says at once that they are disconnected and what happens to their
/// turns, and says it no more once they are back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_drops_is_shown_disconnected_to_the_other_within_two_seconds() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(ana) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ana).await;
    let room = ana.open_room("block", Some("2"), "").await;
    let Some(ben) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ben).await;
    ben.click_named(&format!("join room {room}")).await;
    ben.click_named("I'm ready").await;
    ana.click_named("I'm ready").await;
    ana.wait_js("the match under way at ana's table", "return document.querySelector('section.seats .seat') !== null")
        .await;
    const AWAY: &str =
        "const e = document.querySelector('.seat.away .tag.away[role=\"status\"]'); return e ? e.textContent : null";
    assert!(ana.js(AWAY).await.is_null(), "nobody is away yet");
    // Ben's page goes (a guest's tab closed): ana's page says so.
    let session = ben.js("return sessionStorage.getItem('capicua.guest-session')").await;
    let session = session.as_str().expect("ben's tab keeps its guest session").to_string();
    let gone = Instant::now();
    ben.close().await;
    let said = ana.wait_js("ben shown disconnected", AWAY).await;
    let within = gone.elapsed();
    assert!(
        said.as_str().unwrap().contains("disconnected") && said.as_str().unwrap().contains("a bot plays for them"),
        "{said}"
    );
    assert!(within < Duration::from_secs(2), "shown {within:?} after the drop");
    ana.screenshot("seat-disconnected").await;
    let label = ana.js("return document.querySelector('.seat.away').getAttribute('aria-label')").await;
    assert!(label.as_str().unwrap().contains("disconnected"), "the seat's accessible name says it: {label}");
    // And in Spanish, as the table speaks it.
    ana.click_named("Español").await;
    let dicho = ana
        .wait_js(
            "ben shown disconnected in Spanish",
            &format!("const t = (() => {{ {AWAY} }})(); return t && t.includes('desconectado') ? t : null"),
        )
        .await;
    assert!(dicho.as_str().unwrap().contains("juega por él un bot"), "{dicho}");
    ana.screenshot("seat-disconnected-es").await;
    // Ben comes back with his session: the note goes.
    let mut back = server.client().await;
    let w = back.hello(Some(&session)).await;
    assert_eq!(w["seats"], json!([{"room": room, "seat": 1}]), "{w}");
    ana.wait_js("ben shown back", "return document.querySelector('.seat.away') === null").await;
    ana.close().await;
}
