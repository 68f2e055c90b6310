//! Tiles with 3, 4 or 6 faces in a real headless Chromium: a guest opens a
//! triominoes room against hosted greedy bots from the lobby, plays by
//! clicking (a tile of the hand, then a marked spot on the board, turning
//! the tile where several ways fit), and the board draws exactly the tiles
//! the server has placed; then the stored match replays. A hexominoes room
//! and a graph-board room are drawn too, a quadominoes room is played from
//! the keyboard alone, and a watcher sees the board but no hand. With
//! `CAPICUA_SCREENSHOTS=1` it saves `book/src/screenshots/poly-triominoes.png`,
//! `poly-hexominoes.png`,
//! `poly-graph.png`, `poly-turning.png`, `poly-replay.png`,
//! `poly-quadominoes.png` and `poly-watching.png`.
//!
//! Read through roles and accessible names; skips (passing, with a
//! message) where Chromium or chromedriver is missing, unless
//! `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use std::time::{Duration, Instant};

use browser_support::{Browser, LOOK, xpath_literal};
use common::TestServer;
use fantoccini::Locator;
use fantoccini::key::Key;
use serde_json::Value;

/// How long the whole match may take in the browser.
const MATCH: Duration = Duration::from_secs(300);

/// One Chromium at a time: the machine has two cores.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The tiles the board draws (their accessible names) and, asked after,
/// the server's board for this seat (a `resync`): `[drawn, placed]`.
fn drawn_and_placed(room: u64) -> String {
    format!(
        r#"
// A lattice tile is named by the tiles beside it; its cell and turn are data.
const drawn = [...document.querySelectorAll('[aria-label="the board"] svg [data-placed]')].map((e) => {{
  const label = e.getAttribute('aria-label');
  const c = e.dataset.cell;
  if (c) return `tile ${{label.split(',')[0]}} at cell ${{c.replace(',', ', ')}}, turned ${{e.dataset.turn}} | ${{label}}`;
  // A graph tile says which pips meet; where it is joined is data.
  const f = e.dataset.face;
  return f === undefined ? label : `${{label.split(',')[0]}}, joined to face ${{Number(f) + 1}} of tile ${{Number(e.dataset.joined) + 1}} by its face ${{Number(e.dataset.turn) + 1}} | ${{label}}`;
}});
const svg = document.querySelector('[aria-label="the board"] svg');
const r = await window.capicuaConnection.request({{ type: 'resync', room: {room} }});
const board = r.family === 'poly' && r.view ? r.view.board : null;
return [drawn, board, svg ? svg.getAttribute('viewBox') : null];
"#
    )
}

/// The SVG tiles drawn on the board now.
const DRAWN: &str = "return document.querySelectorAll('[aria-label=\"the board\"] svg [data-placed]').length";

/// The names of the tiles in our hand, in order.
const HAND_TILES: &str = "return [...document.querySelectorAll('[role=\"toolbar\"][aria-label^=\"your hand\"] button')].map((e) => e.getAttribute('aria-label'))";

/// The hand of the match in play (from 0).
const HAND: &str = "return Number(document.querySelector('[data-hand]')?.dataset.hand)";

/// Checks that the board draws each tile the server placed, once, at its
/// cell and turn, and nothing else.
fn check_board(v: &Value) -> usize {
    let drawn: Vec<&str> = v[0].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let board = v[1].as_array().expect("the server sends its board");
    assert_eq!(drawn.len(), board.len(), "one SVG tile per placed tile: drawn {drawn:?}, placed {board:?}");
    for (label, p) in drawn.iter().zip(board) {
        let pips: Vec<String> = p["pips"].as_array().unwrap().iter().map(|x| x.to_string()).collect();
        let want = match p["at"]["kind"].as_str().unwrap() {
            "cell" => {
                format!("tile {} at cell {}, {}, turned {}", pips.join("-"), p["at"]["x"], p["at"]["y"], p["rotation"])
            }
            "face" => format!(
                "tile {}: {}, joined to face {} of tile {} by its face {}",
                p["node"].as_u64().unwrap() + 1,
                pips.join("-"),
                p["at"]["face"].as_u64().unwrap() + 1,
                p["at"]["node"].as_u64().unwrap() + 1,
                p["rotation"].as_u64().unwrap() + 1
            ),
            _ => format!("tile 1: {}, the first tile", pips.join("-")),
        };
        assert!(label.contains(&want), "drawn {label:?} is not the placed {p}");
    }
    board.len()
}

async fn start_room(b: &Browser, preset: &str) -> u64 {
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    let room = b.open_room(preset, Some("2"), "greedy").await;
    b.click_named("I'm ready").await;
    room
}

/// Saves a screenshot with the board at the top of the window.
async fn shoot(b: &Browser, name: &str) {
    b.js("document.querySelector('[aria-label=\"the board\"]').scrollIntoView(); return true").await;
    b.screenshot(name).await;
}

/// What a turn did.
#[derive(PartialEq)]
enum Turn {
    /// Drew or passed.
    Other,
    /// Placed a tile at a spot where one way fits.
    Placed,
    /// Placed a tile after turning it (several ways fit).
    Turned,
}

/// Takes one turn by clicking: a playable tile, a marked spot (preferring
/// one where several ways fit: turned once, then confirmed), or draw /
/// pass. With `shot`, a screenshot once the spots are marked; with
/// `turned_shot`, one of the tile turned at its spot.
async fn take_turn(b: &Browser, look: &Value, shot: Option<&str>, turned_shot: Option<&str>) -> Turn {
    let playable = look["playable"].as_array().unwrap();
    if playable.is_empty() {
        let moves = look["moves"].as_array().unwrap();
        let m = moves.first().and_then(|m| m.as_str()).expect("a turn without a playable tile offers draw or pass");
        b.click_named(m).await;
        return Turn::Other;
    }
    let tile = playable[0].as_str().unwrap();
    b.click_named(tile).await;
    let targets = b
        .wait_js(
            "the spots of the chosen tile",
            "return [...document.querySelectorAll('svg [role=\"button\"]')].map((e) => e.getAttribute('aria-label'))",
        )
        .await;
    if let Some(name) = shot {
        shoot(b, name).await;
    }
    let targets: Vec<&str> = targets.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(targets.iter().all(|t| t.starts_with("play ")), "a spot names its move: {targets:?}");
    let spot = targets.iter().find(|t| t.ends_with(" ways")).unwrap_or(&targets[0]).to_string();
    let several = spot.ends_with(" ways");
    let xp = format!("//*[@role='button'][@aria-label={}]", xpath_literal(&spot));
    assert!(b.click_now(Locator::XPath(&xp)).await, "the spot {spot} can be clicked");
    if several {
        // Several turns fit: the first is shown; turn it once, then confirm.
        let first = b.wait_js("the first way shown", "const g = document.querySelector('[role=\"group\"][aria-label^=\"where to play\"] span'); return g && g.textContent.includes(' of ') && g.textContent").await;
        b.click_named("Rotate").await;
        let again = b.wait_js("the tile turned", &format!("const g = document.querySelector('[role=\"group\"][aria-label^=\"where to play\"] span'); return g && g.textContent !== {first} && g.textContent")).await;
        assert!(again.as_str().unwrap().contains("(2 of "), "Rotate shows the next way: {again}");
        if let Some(name) = turned_shot {
            shoot(b, name).await;
        }
        b.click_named("Play here").await;
        return Turn::Turned;
    }
    Turn::Placed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_plays_triominoes_against_greedy_bots_by_clicking_and_the_board_shows_every_tile() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let room = start_room(&b, "edge-triominoes").await;

    let deadline = Instant::now() + MATCH;
    let mut plays = 0;
    let mut turns = 0;
    let mut checks = 0;
    let mut turned = 0;
    let game = loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?} ({plays} plays)");
        let look = b.js(LOOK).await;
        if !look["over"].is_null() {
            break look["game"].as_i64();
        }
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        // On our turn the board is still: it must draw what the server placed.
        let before = check_board(&b.js(&drawn_and_placed(room)).await);
        checks += 1;
        let hand = b.js(HAND).await;
        let shot = (plays == 8).then_some("poly-triominoes");
        let turn = take_turn(&b, &b.js(LOOK).await, shot, (turned == 2).then_some("poly-turning")).await;
        turns += 1;
        if turn == Turn::Turned {
            turned += 1;
        }
        if turn != Turn::Other {
            plays += 1;
            // Our tile lands on the board (or the hand ended with it).
            b.wait_js(
                "our tile on the board",
                &format!("const n = ({}); return n > {before} || ({}) !== {hand} || !!document.querySelector('[aria-labelledby=\"over-h\"]')", DRAWN.trim_start_matches("return "), HAND.trim_start_matches("return ")),
            )
            .await;
        }
    };
    eprintln!("{plays} tiles placed by clicking ({turned} turned first) in {turns} turns, {checks} boards checked");
    assert!(turned >= 1, "a spot where several ways fit was turned with Rotate");
    assert!(plays >= 10, "at least 10 tiles placed by clicking ({plays} in {turns} turns)");
    assert!(checks >= 10);
    let game = game.expect("the result links to the stored game");
    let end = b.js(DRAWN).await.as_u64().unwrap();

    // The replay at its last step draws the final board of the stored game.
    let stored = server.get_json(&format!("/api/games/{game}?seat=0")).await;
    assert_eq!(stored["poly"], true);
    let last = &stored["steps"].as_array().unwrap().last().unwrap()["view"];
    let final_board = last["board"].as_array().unwrap().len() as u64;
    assert_eq!(end, final_board, "the table's last board is the stored game's");
    b.open(&format!("/#/replay/{game}?seat=0")).await;
    b.click_named("to the end").await;
    b.wait_js(
        "the replay's last board",
        &format!(
            "return document.querySelectorAll('[aria-label=\"the board\"] svg [data-placed]').length === {final_board}"
        ),
    )
    .await;
    b.click_named("to the start").await;
    b.wait_js("the empty board of the deal", "return document.body.innerText.includes('The board is empty.')").await;
    b.click_named("next move").await;
    b.wait_js("one tile after the first move", &format!("return ({}) === 1", DRAWN.trim_start_matches("return ")))
        .await;
    b.click_named("to the end").await;
    shoot(&b, "poly-replay").await;
    // On a phone the final board stays on screen, its tiles apart and readable.
    b.client.set_window_size(390, 844).await.unwrap();
    let fit = b
        .wait_js(
            "the board at 390 px",
            &format!(
                "const tiles = [...document.querySelectorAll('[aria-label=\"the board\"] svg [data-placed]')];
                 if (tiles.length !== {final_board} || document.documentElement.clientWidth > 400) return null;
                 const felt = document.querySelector('section[aria-label=\"the board\"]').getBoundingClientRect();
                 return [felt.left, felt.right, document.documentElement.clientWidth, tiles.map((t) => {{ const r = t.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }})];"
            ),
        )
        .await;
    let (left, right, width) = (fit[0].as_f64().unwrap(), fit[1].as_f64().unwrap(), fit[2].as_f64().unwrap());
    assert!(left >= 0.0 && right <= width + 0.5, "the board fits the phone's width: {left}..{right} of {width}");
    let rects: Vec<[f64; 4]> =
        fit[3].as_array().unwrap().iter().map(|r| std::array::from_fn(|i| r[i].as_f64().unwrap())).collect();
    for (i, a) in rects.iter().enumerate() {
        assert!(a[0] >= left - 0.5 && a[0] + a[2] <= right + 0.5, "tile {i} on the board: {a:?}");
        assert!(a[2] >= 18.0, "tile {i} readable at 390 px: {a:?}");
        // Triangles of neighbouring cells share their bounding boxes'
        // halves; their centres stay apart by a third of a side at least.
        for b2 in &rects[i + 1..] {
            let d = ((a[0] + a[2] / 2.0 - b2[0] - b2[2] / 2.0).powi(2)
                + (a[1] + a[3] / 2.0 - b2[1] - b2[3] / 2.0).powi(2))
            .sqrt();
            assert!(d >= a[2] / 3.0, "two tiles drawn on one place: {a:?} and {b2:?}");
        }
    }
    b.close().await;
}

/// Opens a room of `preset`, waits for our turn with at least `tiles` on
/// the board (or our first turn), picks a playable tile and checks the
/// board draws the server's tiles and a marked spot for each legal place.
async fn draw_a_room(preset: &str, shot: &str) {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let room = start_room(&b, preset).await;
    let deadline = Instant::now() + MATCH;
    let mut turns = 0;
    loop {
        assert!(Instant::now() < deadline, "no turn with tiles on the board");
        let look = b.js(LOOK).await;
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let placed = check_board(&b.js(&drawn_and_placed(room)).await);
        let playable = look["playable"].as_array().unwrap();
        if placed >= 6 && !playable.is_empty() {
            b.click_named(playable[0].as_str().unwrap()).await;
            let targets = b.wait_js("the spots", "return [...document.querySelectorAll('svg [role=\"button\"]')].map((e) => e.getAttribute('aria-label'))").await;
            assert!(targets.as_array().unwrap().iter().all(|t| t.as_str().unwrap().starts_with("play ")));
            shoot(&b, shot).await;
            break;
        }
        take_turn(&b, &look, None, None).await;
        turns += 1;
        assert!(turns < 200);
    }
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hexominoes_room_draws_its_hexagons_and_the_spots_of_a_chosen_tile() {
    draw_a_room("hexominoes", "poly-hexominoes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_board_room_draws_its_tree_and_the_open_faces_of_a_chosen_tile() {
    draw_a_room("graph-triominoes", "poly-graph").await;
}

/// Every word of the page's text and accessible names (tile names such as
/// `0-1-2` are words).
const WORDS: &str = r#"
const out = [];
for (const el of document.querySelectorAll('[aria-label]')) out.push(el.getAttribute('aria-label'));
out.push(document.body.innerText);
return out.join(' ').split(/[^0-9A-Za-z-]+/).filter(Boolean);
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_watches_a_poly_match_and_sees_the_board_but_no_hand() {
    watch("edge-triominoes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_watches_a_graph_board_match_drawn_from_its_events() {
    watch("graph-triominoes").await;
}

/// A player over the protocol against a greedy bot in a room of `preset`,
/// watched in the browser: on each of the player's turns the watcher's
/// board (built from the public events) is the server's, and no tile of
/// the player's hand is named on the page.
async fn watch(preset: &str) {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    // A player over the protocol against a greedy bot; the browser watches.
    let mut c = server.guest().await;
    let room = c.create_room(serde_json::json!({"preset": preset, "seats": 2})).await;
    c.join(room, Some(0)).await;
    let r = c.request(serde_json::json!({"type": "fill-bots", "room": room, "strategy": "greedy"})).await;
    assert_ne!(r["type"], "error", "{r}");
    b.open(&format!("/?pace=0#/room/{room}")).await;
    b.wait_js("the waiting room", "return document.body.innerText.includes('Waiting for players')").await;
    c.ready(room).await;
    let mut turns = 0;
    while turns < 8 {
        let v = c.recv().await;
        if v["type"] == "game-over" {
            break;
        }
        if v["type"] != "prompt" {
            continue;
        }
        // The bot waits for us: the watcher's board catches up and holds still.
        let placed = v["view"]["board"].as_array().unwrap().len();
        b.wait_js(
            "the watcher's board to show the placed tiles",
            &format!("return ({}) === {placed}", DRAWN.trim_start_matches("return ")),
        )
        .await;
        // Drawn from the events alone (a watcher gets no views between
        // hands): each tile at its cell and turn, as the server placed it.
        assert_eq!(check_board(&b.js(&drawn_and_placed(room)).await), placed);
        let words = b.js(WORDS).await;
        let words: Vec<&str> = words.as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
        for tile in v["view"]["hand"].as_array().unwrap() {
            let name: Vec<String> = tile[1].as_array().unwrap().iter().map(|p| p.to_string()).collect();
            let name = name.join("-");
            assert!(!words.contains(&name.as_str()), "the watcher is shown {name}, a tile of seat 1's hand");
        }
        let look = b.js(LOOK).await;
        assert!(look["hand"].is_null(), "a watcher has no hand: {}", look["hand"]);
        assert!(look["playable"].as_array().unwrap().is_empty());
        if turns == 3 && preset == "edge-triominoes" {
            shoot(&b, "poly-watching").await;
        }
        let m = &v["legal-moves"][0];
        c.send(serde_json::json!({"type": "move", "family": "poly", "room": room, "prompt": v["prompt"], "move": m}))
            .await;
        turns += 1;
    }
    assert!(turns >= 8, "the watched match went on for 8 of our turns");
    b.close().await;
}

/// Whether it is our turn (our clock runs).
const MY_TURN: &str = "return !!document.querySelector('[role=\"timer\"][aria-label=\"time left for your move\"]')";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quadominoes_are_played_from_the_keyboard_alone() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let room = start_room(&b, "edge-quadominoes").await;
    let enter = Key::Enter.to_string();
    let (mut plays, mut turned) = (0, 0);
    let deadline = Instant::now() + MATCH;
    while plays < 8 {
        assert!(Instant::now() < deadline, "8 plays from the keyboard within {MATCH:?}");
        let look = b.js(LOOK).await;
        if look["over"].is_string() {
            break;
        }
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let before = check_board(&b.js(&drawn_and_placed(room)).await);
        // The turn puts the focus on a playable tile, or on draw / pass.
        let focused = b.focused_name().await;
        if focused == "draw a tile" || focused == "pass" {
            b.keys(&enter).await;
            b.wait_js("the move sent", &format!("return !({})", MY_TURN.trim_start_matches("return "))).await;
            continue;
        }
        assert!(focused.ends_with(", playable"), "the turn focuses a playable tile, not {focused:?}");
        b.keys(&enter).await;
        // Its first spot takes the focus; Enter picks it.
        let spot = b.focused_name().await;
        assert!(spot.starts_with("play "), "the chosen tile's first spot has the focus, not {spot:?}");
        b.keys(&enter).await;
        if spot.ends_with(" ways") {
            // Several turns fit: Play here has the focus, Rotate is just before it.
            assert_eq!(b.focused_name().await, "Play here");
            b.keys(&format!("{}{}", Key::Shift, Key::Tab)).await;
            assert_eq!(b.focused_name().await, "Rotate");
            b.keys(&enter).await;
            b.wait_js(
                "the second way shown",
                "const g = document.querySelector('[role=\"group\"][aria-label^=\"where to play\"] span'); return g && g.textContent.includes('(2 of ')",
            )
            .await;
            assert_eq!(b.focused_name().await, "Rotate", "Rotate keeps the focus");
            b.keys(&Key::Tab.to_string()).await;
            assert_eq!(b.focused_name().await, "Play here");
            b.keys(&enter).await;
            turned += 1;
        }
        plays += 1;
        b.wait_js(
            "our tile on the board",
            &format!(
                "return ({}) > {before} || !({}) || !!document.querySelector('[aria-labelledby=\"over-h\"]')",
                DRAWN.trim_start_matches("return "),
                MY_TURN.trim_start_matches("return ")
            ),
        )
        .await;
    }
    eprintln!("{plays} plays from the keyboard, {turned} turned first");
    assert!(plays >= 8 || b.js(LOOK).await["over"].is_string());
    shoot(&b, "poly-quadominoes").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_player_reloads_mid_match_at_a_poly_table_and_plays_on() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    b.register("tri").await;
    let room = b.open_room("edge-triominoes", Some("2"), "greedy").await;
    b.click_named("I'm ready").await;
    // Three of our turns by clicking, then our fourth turn: the page is still.
    let deadline = Instant::now() + MATCH;
    let mut turns = 0;
    let before = loop {
        assert!(Instant::now() < deadline, "no fourth turn");
        let look = b.js(LOOK).await;
        assert!(look["over"].is_null(), "the match ended before the reload");
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        if turns == 3 {
            break look;
        }
        let placed = b.js(DRAWN).await.as_u64().unwrap();
        let hand = b.js(HAND).await;
        if take_turn(&b, &look, None, None).await != Turn::Other {
            b.wait_js(
                "our tile on the board",
                &format!(
                    "return ({}) > {placed} || ({}) !== {hand}",
                    DRAWN.trim_start_matches("return "),
                    HAND.trim_start_matches("return ")
                ),
            )
            .await;
        }
        turns += 1;
    };
    let drawn = check_board(&b.js(&drawn_and_placed(room)).await);
    let tiles = b.js(HAND_TILES).await;
    assert!(tiles.as_array().is_some_and(|t| !t.is_empty()), "the hand's tiles are named: {tiles}");
    b.client.refresh().await.unwrap();
    // Back at the table as tri, with the turn, the same hand, and the board
    // drawn again from the `sync` alone.
    let look = b
        .wait_js("our turn after the reload", &format!("const l = (() => {{ {LOOK} }})(); return l.turn ? l : null"))
        .await;
    assert_eq!(look["hash"], before["hash"]);
    assert_eq!(look["hand"], before["hand"], "the same hand after the reload");
    assert_eq!(b.js(HAND_TILES).await, tiles, "the same tiles in the hand after the reload");
    b.wait_js("the board drawn again", &format!("return ({}) === {drawn}", DRAWN.trim_start_matches("return "))).await;
    assert_eq!(check_board(&b.js(&drawn_and_placed(room)).await), drawn);
    // And the match goes on from the page.
    let placed = b.js(DRAWN).await.as_u64().unwrap();
    let hand = b.js(HAND).await;
    if take_turn(&b, &look, None, None).await != Turn::Other {
        b.wait_js(
            "a tile placed after the reload",
            &format!(
                "return ({}) > {placed} || ({}) !== {hand}",
                DRAWN.trim_start_matches("return "),
                HAND.trim_start_matches("return ")
            ),
        )
        .await;
    }
    b.close().await;
}

/// Reads every number drawn on the board back to the corner it stands by
/// (a corner number sits on the line from its tile's centre to the corner)
/// and reports the corners seen from two tiles or more and any corner
/// that shows two different numbers.
const CORNERS: &str = r#"
const reach = 0.58;
const at = new Map();
let tiles = 0;
for (const g of document.querySelectorAll('[aria-label="the board"] svg [data-placed]')) {
  tiles += 1;
  const pts = g.querySelector('polygon').getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
  const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  for (const t of g.querySelectorAll('text.p-pip')) {
    const vx = cx + (Number(t.getAttribute('x')) - cx) / reach;
    const vy = cy + (Number(t.getAttribute('y')) - cy) / reach;
    const key = `${vx.toFixed(2)},${vy.toFixed(2)}`;
    (at.get(key) || at.set(key, []).get(key)).push(t.textContent);
  }
}
const seen = [...at.values()];
return {
  tiles,
  shared: seen.filter((ns) => ns.length > 1).length,
  clashes: [...at.entries()].filter(([, ns]) => new Set(ns).size > 1).map(([k, ns]) => `${k}: ${ns.join(' ')}`),
};
"#;

/// Tri-Ominos as sold: a tile's numbers stand at its corners, and a tile
/// goes where every corner it shares agrees. A guest plays by clicking;
/// on every board it sees, each corner shows one number whichever tile it
/// is read from, and the hand's tiles show theirs at their corners.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tri_ominos_are_drawn_with_their_numbers_at_the_corners_and_every_shared_corner_agrees() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    start_room(&b, "tri-ominos").await;
    let deadline = Instant::now() + MATCH;
    let (mut plays, mut shared) = (0, 0);
    while plays < 6 {
        assert!(Instant::now() < deadline, "6 tiles were not placed within {MATCH:?} ({plays} placed)");
        let look = b.js(LOOK).await;
        if !look["over"].is_null() {
            break;
        }
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let board = b.js(CORNERS).await;
        assert_eq!(board["clashes"], serde_json::json!([]), "a corner shows two numbers: {board}");
        if board["tiles"].as_u64().unwrap() >= 2 {
            assert!(board["shared"].as_u64().unwrap() >= 2, "tiles side by side share their corners: {board}");
            shared += 1;
        }
        if plays == 0 {
            let numbers = b
                .js("return [...document.querySelectorAll('[role=\"toolbar\"][aria-label^=\"your hand\"] button')].map((e) => e.querySelectorAll('text.p-pip').length)")
                .await;
            let numbers: Vec<u64> = numbers.as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
            assert!(!numbers.is_empty() && numbers.iter().all(|&n| n == 3), "three numbers a hand tile: {numbers:?}");
        }
        let shot = (plays == 4).then_some("tri-ominos");
        if take_turn(&b, &look, shot, None).await != Turn::Other {
            plays += 1;
        }
    }
    assert!(plays >= 6, "{plays} tiles placed by clicking");
    assert!(shared >= 4, "{shared} boards of several tiles checked");
}
