//! The table as a domino player meets it, in a real headless Chromium
//! against a real server: the other seats' moves land one at a time at the
//! chosen pace with the tile just played marked, the seats sit around the
//! board, a hand ends with every hand face up, the match's result comes
//! where the player looks, a choice of ends that changes nothing is not
//! asked, the log names sides as the scoreboard does, and a Spanish player
//! reads the whole table in Spanish.
//!
//! The page is read through roles and accessible names only. Each test
//! skips (passing, with a message) where Chromium or chromedriver is
//! missing, unless `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use std::time::{Duration, Instant};

use browser_support::{Browser, LOOK, tiles_in, xpath_literal};
use common::TestServer;
use fantoccini::Locator;
use serde_json::Value;

/// One Chromium at a time: the machine has two cores, and a browser that
/// waits for the CPU makes every step slow.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long a whole match may take in the browser.
const MATCH: Duration = Duration::from_secs(180);

/// Records, in the page, every change of the number of tiles on the board:
/// when it happened (`performance.now()`), the count, the newest line of
/// the log and the name of the tile marked as just played.
const RECORD: &str = r#"
if (!window.__moves) {
  window.__moves = [];
  let last = -1;
  const look = () => {
    const felt = document.querySelector('[aria-label="the board"]');
    const n = felt ? felt.querySelectorAll('g[role="img"]').length : 0;
    if (n === last) return;
    last = n;
    const log = document.querySelector('[aria-labelledby="log-h"] li');
    const mark = felt && felt.querySelector('[aria-label*="just played by"]');
    window.__moves.push({ t: performance.now(), n, log: log ? log.textContent : '', mark: mark ? mark.getAttribute('aria-label') : null });
  };
  new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
  // When the player clicked, as the page saw it: the driver's round trips
  // before a click are the test's time, not the player's.
  window.__clicks = [];
  document.addEventListener('click', () => window.__clicks.push(performance.now()), true);
}
return true;
"#;

/// The page's view of the table (see [`LOOK`]).
async fn look(b: &Browser) -> Value {
    b.js(LOOK).await
}

fn list(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// Clicks what is named `name` if it is there now.
async fn click(b: &Browser, role_xpath: &str, name: &str) -> bool {
    let xp = format!("{role_xpath}[@aria-label={}]", xpath_literal(name));
    b.click_now(Locator::XPath(&xp)).await
}

/// Makes one move of ours if it is our turn (the first playable tile, the
/// first end offered, else draw or pass); true when a move was sent.
async fn move_once(b: &Browser) -> bool {
    let l = look(b).await;
    if l["turn"] != true {
        return false;
    }
    if let Some(c) = list(&l["choices"]).first() {
        return click(b, "//button", c).await;
    }
    if let Some(t) = list(&l["playable"]).first() {
        let sent = click(b, "//button", t).await;
        return sent && !t.contains("choose");
    }
    if let Some(m) = list(&l["moves"]).first() {
        return click(b, "//button", m).await;
    }
    false
}

/// Presses Continue when a hand's end is on screen; true if it did.
async fn continue_hand(b: &Browser) -> bool {
    b.continue_hand().await
}

/// Waits until no tile is sliding (for a still picture).
async fn settle(b: &Browser) {
    b.wait_js("the tiles at rest", "return document.getAnimations().length === 0").await;
}

/// Opens the lobby as a fresh visitor at `path` (such as `/#/` or `/?pace=0#/`).
async fn lobby(b: &Browser, path: &str) {
    b.open(path).await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_seats_moves_land_one_at_a_time_at_the_default_pace_and_the_last_tile_is_marked() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    // No `?pace=`: the page's own default, 450 ms a move.
    lobby(&b, "/#/").await;
    let pace = 450.0;
    b.open_room("latin", None, "random").await;
    b.js(RECORD).await;
    b.click_named("I'm ready").await;

    // Play until three other seats' moves in a row have been seen twice over.
    let deadline = Instant::now() + MATCH;
    let mut ours = 0;
    loop {
        assert!(Instant::now() < deadline, "not enough moves were seen");
        let moves = b.js("return window.__moves").await;
        let moves = moves.as_array().unwrap().clone();
        let others = moves.windows(2).filter(|w| w[1]["log"].as_str().unwrap_or("").starts_with("Seat ")).count();
        if ours >= 3 && others >= 6 {
            break;
        }
        continue_hand(&b).await;
        if move_once(&b).await {
            ours += 1;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let moves = b.js("return window.__moves").await;
    let moves = moves.as_array().unwrap();
    let mut pairs = 0;
    for w in moves.windows(2) {
        let (a, z) = (&w[0], &w[1]);
        let (la, lz) = (a["log"].as_str().unwrap(), z["log"].as_str().unwrap());
        // Two moves of other seats in a row: the second waits the pace.
        if z["n"].as_u64() == a["n"].as_u64().map(|n| n + 1) && la.starts_with("Seat ") && lz.starts_with("Seat ") {
            let gap = z["t"].as_f64().unwrap() - a["t"].as_f64().unwrap();
            assert!(gap >= pace, "{lz:?} came {gap:.1} ms after {la:?}, less than the pace of {pace} ms: {moves:#?}");
            pairs += 1;
        }
    }
    for w in moves.windows(2) {
        let (a, z) = (&w[0], &w[1]);
        let lz = z["log"].as_str().unwrap();
        // Each tile laid by another seat is marked on the board, named with its player.
        if z["n"].as_u64() > a["n"].as_u64() && lz.starts_with("Seat ") {
            let mark = z["mark"].as_str().unwrap_or_else(|| panic!("no tile marked as just played after {lz:?}"));
            assert_eq!(tiles_in(mark), tiles_in(lz), "the marked tile {mark:?} is the one the log names: {lz:?}");
            let seat = lz.split(' ').nth(1).unwrap();
            assert!(mark.contains(&format!("just played by seat {seat}")), "{mark:?} names seat {seat}");
        }
    }
    assert!(pairs >= 2, "at least two pairs of other seats' moves were measured: {moves:#?}");
    // Our own moves show at once: well within the pace of the click.
    let clicks = b.js("return window.__clicks").await;
    let clicked_at: Vec<f64> = clicks.as_array().unwrap().iter().filter_map(Value::as_f64).collect();
    for m in moves.iter().filter(|m| m["log"].as_str().unwrap().starts_with("You played")) {
        let at = m["t"].as_f64().unwrap();
        let click = clicked_at.iter().rev().find(|&&c| c <= at).copied().unwrap_or(0.0);
        assert!(at - click < pace, "our own move took {:.0} ms to show", at - click);
    }
    b.close().await;
}

/// Every log line the page writes, recorded as it appears.
const RECORD_LOG: &str = r#"
if (!window.__log) {
  window.__log = [];
  const seen = new Set();
  new MutationObserver(() => {
    for (const li of document.querySelectorAll('[aria-labelledby="log-h"] li')) {
      if (!seen.has(li.textContent)) {
        seen.add(li.textContent);
        window.__log.push(li.textContent);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}
return true;
"#;

/// The top of the board and the rect of each seat's panel, by seat number.
const PLACES: &str = r#"
const r = (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; };
const felt = document.querySelector('[aria-label="the board"]');
const seats = {};
for (const g of document.querySelectorAll('[aria-label="the other seats"] [role="group"][aria-label^="seat "]')) {
  seats[g.getAttribute('aria-label').split(/[ :]/)[1]] = r(g);
}
const hand = document.querySelector('[role="toolbar"][aria-label^="your hand"]');
return { felt: felt ? r(felt) : null, feltTop: felt ? felt.getBoundingClientRect().top + scrollY : null, seats, hand: hand ? r(hand) : null, width: document.documentElement.clientWidth, height: innerHeight };
"#;

/// Elements whose right edge leaves the viewport (a page that scrolls sideways).
const OVERFLOW: &str = r#"
const w = document.documentElement.clientWidth;
return [...document.querySelectorAll('body *')]
  .filter((e) => { const b = e.getBoundingClientRect(); return b.width > 0 && b.right > w + 1; })
  .map((e) => `${e.tagName.toLowerCase()}.${e.className?.baseVal ?? e.className} ${e.getAttribute('aria-label') || e.textContent.slice(0, 40)}`);
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_sit_around_the_board_on_a_laptop_and_on_a_phone() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    lobby(&b, "/?pace=0#/").await;
    b.open_room("latin", None, "random").await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    // A few moves in, at our turn.
    let mut ours = 0;
    while ours < 2 {
        assert!(Instant::now() < deadline, "our moves never came");
        continue_hand(&b).await;
        if move_once(&b).await {
            ours += 1;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
    let p = b.js(PLACES).await;
    let (felt, seats) = (&p["felt"], &p["seats"]);
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    // We are seat 1 at the bottom: seat 2 on the left, 3 opposite, 4 on the right.
    assert!(f(&seats["2"], "right") <= f(felt, "left") + 1.0, "seat 2 sits left of the board: {p}");
    assert!(f(&seats["4"], "left") >= f(felt, "right") - 1.0, "seat 4 sits right of the board: {p}");
    assert!(f(&seats["3"], "bottom") <= f(felt, "top") + 1.0, "seat 3 sits above the board: {p}");
    assert!(f(&p["hand"], "top") >= f(felt, "bottom"), "our hand is below the board: {p}");
    for s in ["2", "3", "4"] {
        let label = b
            .js(&format!("return document.querySelector('[aria-label^=\"seat {s}:\"]').getAttribute('aria-label')"))
            .await;
        let label = label.as_str().unwrap();
        assert!(label.contains(" tiles") || label.contains(" tile,"), "seat {s} shows its tile count: {label}");
        assert!(label.contains("last played") || label.contains("passed"), "seat {s} shows its last action: {label}");
    }
    settle(&b).await;
    b.screenshot("table-4-seats").await;

    // A phone: the seats above the board, nothing wider than the screen.
    b.client.set_window_size(390, 844).await.unwrap();
    b.wait_js("the narrow layout", "return document.documentElement.clientWidth <= 390").await;
    let p = b.js(PLACES).await;
    let over = b.js(OVERFLOW).await;
    assert_eq!(over, serde_json::json!([]), "nothing leaves a 390 px screen: {p}");
    let (felt, seats) = (&p["felt"], &p["seats"]);
    for s in ["2", "3", "4"] {
        assert!(f(&seats[s], "bottom") <= f(felt, "top") + 1.0, "seat {s} sits above the board on a phone: {p}");
    }
    assert!(f(&seats["2"], "right") <= f(&seats["3"], "left") + 1.0, "left, opposite, right: {p}");
    assert!(f(&seats["3"], "right") <= f(&seats["4"], "left") + 1.0, "left, opposite, right: {p}");
    b.js("document.querySelector('[aria-label=\"the other seats\"] [role=\"group\"]').scrollIntoView(); return true")
        .await;
    settle(&b).await;
    b.screenshot("table-4-seats-phone").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_result_comes_over_the_table_and_a_new_hand_does_not_push_the_board_down() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    lobby(&b, "/?pace=0#/").await;
    b.open_room("latin", None, "random").await;
    b.js(RECORD_LOG).await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    let mut tops: Vec<f64> = vec![];
    loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?}");
        let l = look(&b).await;
        if !l["over"].is_null() {
            break;
        }
        continue_hand(&b).await;
        if l["turn"] == true && l["choices"].as_array().unwrap().is_empty() {
            let p = b.js(PLACES).await;
            if let Some(top) = p["feltTop"].as_f64() {
                tops.push(top);
            }
        }
        move_once(&b).await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Whatever came before (a hand's result, a pass), the board stays where it was at our turns.
    eprintln!("the board's top at our turns: {tops:?}");
    let first = tops[0];
    let worst = tops.iter().cloned().fold(f64::MIN, f64::max);
    assert!(worst <= first + 4.0, "the board moved down at our turns: {tops:?}");

    // The result is over the table, in view, and has the focus.
    let dialog = b
        .wait_js(
            "the result in view with the focus",
            r#"const d = document.querySelector('[role="dialog"][aria-labelledby="over-h"]');
               if (!d) return null;
               const r = d.getBoundingClientRect();
               return { top: r.top, bottom: r.bottom, focused: document.activeElement === d || d.contains(document.activeElement), height: innerHeight };"#,
        )
        .await;
    assert!(dialog["top"].as_f64().unwrap() >= 0.0, "{dialog}");
    assert!(dialog["bottom"].as_f64().unwrap() <= dialog["height"].as_f64().unwrap(), "{dialog}");
    assert_eq!(dialog["focused"], true, "the result takes the focus: {dialog}");
    b.screenshot("match-result").await;
    // Then out of the way.
    b.click_named("Close").await;
    b.wait_named("Show the match result").await;
    assert!(b.js("return !document.querySelector('[role=\"dialog\"]')").await == true);

    // The log names sides as the scoreboard does.
    let log = b.js("return window.__log").await;
    let log = list(&log);
    assert!(!log.iter().any(|l| l.contains("Side ")), "the log says 'Side': {log:#?}");
    assert!(
        log.iter().any(|l| l.starts_with("Seats 2 and 4 score") || l.starts_with("Your side (you and seat 3) scores")),
        "a score is told by the team's seats: {log:#?}"
    );
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tile_that_fits_a_lone_double_on_either_side_is_played_without_asking() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    // The first hand leads the double six; when the seat before us holds it,
    // we play second beside a lone double. Deal again until that happens.
    for attempt in 0..40 {
        lobby(&b, "/?pace=0#/").await;
        b.open_room("latin", None, "random").await;
        b.click_named("I'm ready").await;
        b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
        let board = b
            .js(r#"return [...document.querySelectorAll('[aria-label="the board"] g[role="img"]')].map((g) => g.getAttribute('aria-label'))"#)
            .await;
        let board = list(&board);
        let l = look(&b).await;
        let playable = list(&l["playable"]);
        let lone = (board.len() == 1).then(|| tiles_in(&board[0])[0]).filter(|t| t[0] == t[1]);
        let fits = lone.and_then(|d| playable.iter().find(|p| tiles_in(p)[0].contains(&d[0])).cloned());
        let (Some(double), Some(tile)) = (lone, fits) else {
            eprintln!("attempt {attempt}: the board is {board:?}");
            continue;
        };
        let name = tiles_in(&tile)[0];
        b.click_now(Locator::XPath(&format!("//button[@aria-label={}]", xpath_literal(&tile)))).await;
        let after = b
            .wait_js(
                "the tile played or a choice offered",
                r#"const n = document.querySelectorAll('[aria-label="the board"] g[role="img"]').length;
                   const ask = document.querySelector('[role="group"][aria-label^="where to play"]');
                   return n > 1 || ask ? { n, ask: ask ? ask.getAttribute('aria-label') : null } : null;"#,
            )
            .await;
        assert!(after["ask"].is_null(), "asked where to play {name:?} beside a lone {double:?}: {after}");
        let board = b
            .js(r#"return [...document.querySelectorAll('[aria-label="the board"] g[role="img"]')].map((g) => g.getAttribute('aria-label'))"#)
            .await;
        assert!(list(&board).iter().any(|t| tiles_in(t).first() == Some(&name)), "{name:?} is on the board: {board}");
        b.close().await;
        return;
    }
    panic!("no deal in 40 put us second beside a lone double");
}

/// Records, in the page, each tile another seat lays (with how many
/// animations run on the board then) and each pass or draw told over the
/// board and in the live region.
const RECORD_MOTION: &str = r#"
if (!window.__seen) {
  window.__seen = { tiles: [], told: [] };
  let last = -1;
  new MutationObserver(() => {
    const felt = document.querySelector('[aria-label="the board"]');
    const n = felt ? felt.querySelectorAll('g[role="img"]').length : 0;
    const log = document.querySelector('[aria-labelledby="log-h"] li')?.textContent || '';
    if (n !== last) {
      last = n;
      if (log.startsWith('Seat ') && log.includes(' played ')) {
        const anims = document.getAnimations().filter((a) => felt.contains(a.effect?.target)).length;
        window.__seen.tiles.push({ log, anims });
      }
    }
    const status = felt?.querySelector('[role="status"]')?.textContent || '';
    const said = [...document.querySelectorAll('#announce p')].map((p) => p.textContent);
    if (/ (drew a tile|passed)\.$/.test(status) && said.includes(status) && !window.__seen.told.includes(status)) {
      window.__seen.told.push(status);
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}
return true;
"#;

/// Plays a two-seat draw game at `path` until another seat has laid
/// `tiles` tiles and drawn or passed once (or the match ended); returns
/// what the page recorded.
async fn watch_motion(b: &Browser, path: &str, tiles: usize) -> Value {
    lobby(b, path).await;
    b.choose("Variant", "draw").await;
    b.choose("Table", "2").await;
    b.choose("Fill the other seats with bots", "random").await;
    b.click_named("Create and sit down").await;
    b.wait_named("I'm ready").await;
    b.js(RECORD_MOTION).await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    loop {
        assert!(
            Instant::now() < deadline,
            "no draw or pass of the other seat was told: {}",
            b.js("return window.__seen").await
        );
        let seen = b.js("return window.__seen").await;
        let over = b.js(&format!("return (() => {{ {LOOK} }})().over")).await.is_string();
        if seen["tiles"].as_array().unwrap().len() >= tiles && (over || !seen["told"].as_array().unwrap().is_empty()) {
            return seen;
        }
        continue_hand(b).await;
        move_once(b).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_played_tile_slides_in_unless_motion_is_reduced_and_draws_are_told() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let seen = watch_motion(&b, "/?pace=300#/", 2).await;
    for t in seen["tiles"].as_array().unwrap() {
        assert!(t["anims"].as_u64().unwrap() >= 1, "the tile slides to its place: {seen}");
    }
    assert!(
        !seen["told"].as_array().unwrap().is_empty(),
        "the other seat's draw or pass is told on the board and aloud: {seen}"
    );
    b.close().await;

    let Some(b) = Browser::start_with(format!("http://{}", server.addr), &["--force-prefers-reduced-motion"]).await
    else {
        return;
    };
    let seen = watch_motion(&b, "/?pace=300#/", 2).await;
    for t in seen["tiles"].as_array().unwrap() {
        assert_eq!(t["anims"], 0, "no motion when the person asked for less: {seen}");
    }
    b.close().await;
}

/// The end of a hand on screen: the seats' rows of tiles face up (their
/// labels), the tiles on the board, and the name of the focused element.
const HAND_END: &str = r#"
const list = document.querySelector('[aria-label="the hands, face up"]');
if (!list) return null;
const board = [...document.querySelectorAll('[aria-label="the board"] g[role="img"]')].map((g) => g.getAttribute('aria-label'));
const a = document.activeElement;
return {
  hands: [...list.querySelectorAll('li')].map((li) => li.getAttribute('aria-label')),
  board,
  heading: document.getElementById('sum-h')?.textContent,
  focused: a ? (a.getAttribute('aria-label') || a.textContent.trim()) : '',
};
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_ends_with_its_last_tile_laid_and_every_hand_face_up_until_the_player_continues() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    lobby(&b, "/?pace=0#/").await;
    b.open_room("latin", None, "random").await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    let end = loop {
        assert!(Instant::now() < deadline, "no hand's end was shown");
        let end = b.js(HAND_END).await;
        if !end.is_null() {
            break end;
        }
        let l = look(&b).await;
        assert!(l["over"].is_null(), "the match ended without showing a hand's end");
        move_once(&b).await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(end["heading"], "Hand 1 result", "{end}");
    assert_eq!(end["focused"], "Continue", "the focus is on Continue: {end}");
    // Four seats' rows; each names its tiles and their pips, which add up.
    let hands = list(&end["hands"]);
    assert_eq!(hands.len(), 4, "{end}");
    let mut held = 0;
    for row in &hands {
        let (tiles_part, pips_part) = row.rsplit_once("; ").unwrap_or_else(|| panic!("{row}"));
        let tiles = tiles_in(tiles_part);
        let pips: u32 = pips_part.split(' ').next().unwrap().parse().unwrap_or_else(|e| panic!("{row}: {e}"));
        assert_eq!(tiles.iter().map(|[a, z]| u32::from(*a + *z)).sum::<u32>(), pips, "{row}");
        held += tiles.len();
    }
    // Latin deals all 28 tiles: those on the board (the last one with them)
    // and those in the hands make the whole set.
    let board = list(&end["board"]);
    assert_eq!(board.len() + held, 28, "board {board:?} and hands {hands:?} hold every tile");
    assert!(board.iter().any(|t| t.contains("just played")), "the last tile is marked: {board:?}");
    // It stays while the player looks (the room waits for them)...
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(b.js(HAND_END).await["board"], end["board"], "the hand's end stayed on screen");
    // The picture, as the page shows it: the result over the final board
    // with its last tile, the hands face up around it and the score above.
    b.screenshot("hand-end").await;
    b.client.set_window_size(390, 844).await.unwrap();
    b.wait_js("the narrow layout", "return document.documentElement.clientWidth <= 390").await;
    assert_eq!(b.js(OVERFLOW).await, serde_json::json!([]), "the hand's end fits a phone");
    b.client.set_window_size(1280, 800).await.unwrap();
    // ...until Continue: then the next hand, whose clock did not run
    // while the player read (its first moves wait for the Continue).
    b.click_named("Continue").await;
    b.wait_js("the next hand", "return !document.querySelector('[aria-label=\"the hands, face up\"]')").await;
    let clock = b
        .wait_js(
            "our first turn of the next hand",
            "const c = document.querySelector('[role=\"timer\"][aria-label=\"time left for your move\"]'); return c && c.textContent",
        )
        .await;
    let secs: u64 = clock.as_str().unwrap().trim_end_matches(" s").parse().unwrap_or_else(|e| panic!("{clock}: {e}"));
    assert!(secs >= 29, "{secs} s of 30 left at our first turn after reading the hand's end");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_is_shown_each_hands_end_for_a_few_seconds_and_the_match_goes_on() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    let room = host.create_room(serde_json::json!({"preset": "latin", "seats": 4})).await;
    host.join(room, Some(0)).await;
    let r = host.request(serde_json::json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/room/{room}")).await;
    b.wait_js("the watcher in the room", "return document.body.innerText.includes('Waiting for players')").await;
    // When each hand's end appears and goes, measured in the page.
    b.js(r#"window.__ends = []; let last = null;
        new MutationObserver(() => {
          const up = document.querySelector('[aria-label="the hands, face up"]');
          const key = up ? document.getElementById('sum-h')?.textContent : null;
          if (key !== last) { last = key; window.__ends.push({ t: performance.now(), key }); }
        }).observe(document.body, { childList: true, subtree: true });
        return true;"#)
        .await;
    host.ready(room).await;
    let player = tokio::spawn(common::play_until_over(host, room, 7));

    let shown = b.wait_js("a hand's end", HAND_END).await;
    assert!(list(&shown["hands"]).len() == 4, "every hand is face up for the watcher: {shown}");
    // Nobody presses Continue: it goes by itself after a few seconds (the
    // next hand may then be played out and end at once: another heading).
    let ends = b
        .wait_js(
            "the hand's end to go by itself",
            "const e = window.__ends; const i = e.findIndex((x) => x.key); return i >= 0 && i + 1 < e.length ? [e[i], e[i + 1]] : null",
        )
        .await;
    let held = ends[1]["t"].as_f64().unwrap() - ends[0]["t"].as_f64().unwrap();
    assert!(held >= 3900.0, "the hand's end stayed {held} ms: {ends}");
    b.close().await;
    let _ = player.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seats_sit_left_and_right_of_the_board_and_two_face_each_other() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    for seats in ["3", "2"] {
        lobby(&b, "/?pace=0#/").await;
        b.choose("Variant", "draw").await;
        b.choose("Table", seats).await;
        b.choose("Fill the other seats with bots", "random").await;
        b.click_named("Create and sit down").await;
        b.click_named("I'm ready").await;
        b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
        let p = b.js(PLACES).await;
        let (felt, s) = (&p["felt"], &p["seats"]);
        if seats == "3" {
            // Seat 2 follows us clockwise: on our left; seat 3 on our right.
            assert!(f(&s["2"], "right") <= f(felt, "left") + 1.0, "seat 2 sits left of the board: {p}");
            assert!(f(&s["3"], "left") >= f(felt, "right") - 1.0, "seat 3 sits right of the board: {p}");
            settle(&b).await;
            b.screenshot("table-3-seats").await;
        } else {
            assert!(f(&s["2"], "bottom") <= f(felt, "top") + 1.0, "seat 2 sits opposite: {p}");
        }
        assert!(f(&p["hand"], "top") >= f(felt, "bottom"), "our hand is below the board: {p}");
    }
    b.close().await;
}

/// The table's words a Spanish player reads, by accessible names: whose
/// turn, the seats, the hand, the hand's end; and every text outside the
/// board and the log's lines (the board speaks its own words).
const ES_LOOK: &str = r#"
const all = (sel, root = document) => [...root.querySelectorAll(sel)];
const turn = !!document.querySelector('[role="timer"][aria-label="tiempo que te queda para jugar"]');
const group = document.querySelector('[role="group"][aria-label^="dónde jugar"]');
const choices = group ? all('button', group).map((e) => e.getAttribute('aria-label')).filter(Boolean) : [];
const playable = all('button[aria-label*=", se puede jugar"]').map((e) => e.getAttribute('aria-label'));
const moves = all('button[aria-label="robar una ficha"], button[aria-label="pasar"]').map((e) => e.getAttribute('aria-label'));
const ends = document.querySelector('[aria-label="las manos, boca arriba"]');
const a = document.activeElement;
const main = document.querySelector('main');
const outside = (el) => !el.closest('[aria-label="la mesa"], [aria-labelledby="log-h"] ol');
const words = [];
for (const el of all('[aria-label]', main)) if (outside(el)) words.push(el.getAttribute('aria-label'));
const walk = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
while (walk.nextNode()) {
  const t = walk.currentNode.textContent.trim();
  if (t && outside(walk.currentNode.parentElement)) words.push(t);
}
return {
  turn,
  heading: document.querySelector('.hand-area h2')?.textContent ?? null,
  hand: document.querySelector('[role="toolbar"][aria-label^="tu mano"]')?.getAttribute('aria-label') ?? null,
  seats: all('[aria-label="los otros asientos"] [aria-label^="asiento "]').map((e) => e.getAttribute('aria-label')),
  choices, playable, moves,
  end: ends ? {
    heading: document.getElementById('sum-h')?.textContent,
    hands: all('li', ends).map((li) => li.getAttribute('aria-label')),
    focused: a ? (a.getAttribute('aria-label') || a.textContent.trim()) : '',
  } : null,
  words,
};
"#;

/// English words of the table that a Spanish page must not show.
const ENGLISH: [&str; 24] = [
    "Your turn",
    "Your hand",
    "your hand",
    "Seat ",
    "seat ",
    "partner",
    "opponent",
    " tiles",
    "passed",
    "played",
    "to move",
    "Continue",
    "Hand ",
    "result",
    "Pips",
    "pips",
    "What happened",
    "Playing",
    "Draw a tile",
    "Pass",
    "Leave the table",
    "match score",
    "the other seats",
    "Table chat",
];

/// Makes one move of ours on the Spanish page (as [`move_once`]).
async fn move_once_es(b: &Browser) -> bool {
    let l = b.js(ES_LOOK).await;
    if l["turn"] != true {
        return false;
    }
    if let Some(c) = list(&l["choices"]).first() {
        return click(b, "//button", c).await;
    }
    if let Some(t) = list(&l["playable"]).first() {
        let sent = click(b, "//button", t).await;
        return sent && !t.contains("elige");
    }
    if let Some(m) = list(&l["moves"]).first() {
        return click(b, "//button", m).await;
    }
    false
}

fn no_english(l: &Value, when: &str) {
    let words = list(&l["words"]);
    for w in &words {
        for e in ENGLISH {
            assert!(!w.contains(e), "{when}: English {e:?} left in {w:?}; all: {words:#?}");
        }
    }
}

/// A Spanish player plays a latin match against bots: the turn, the seats
/// (partner, rivals), the hand and the hand's end with its "Seguir" are in
/// Spanish, and none of the table's English words are left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spanish_player_reads_the_table_and_the_hands_end_in_spanish() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) =
        Browser::start_with(format!("http://{}", server.addr), &["--lang=es-ES", "--accept-lang=es-ES,es"]).await
    else {
        return;
    };
    b.client.set_window_size(1280, 800).await.unwrap();
    lobby(&b, "/?pace=0#/").await;
    b.choose("Modalidad", "latin").await;
    b.choose("Completar los demás asientos con bots", "random").await;
    b.click_named("Crear y sentarse").await;
    // The waiting room names each seat as the table does: partner or rival.
    b.wait_named("Estoy listo").await;
    let room = b.js("return document.querySelector('main').innerText").await;
    let room = room.as_str().unwrap();
    assert!(room.contains("(compañero)") && room.contains("(rival)"), "the waiting room names the teams: {room}");
    assert!(!room.contains("side "), "{room}");
    b.click_named("Estoy listo").await;
    let deadline = Instant::now() + MATCH;
    // Our turn, after a move of ours: the table in Spanish.
    let mut ours = 0;
    let l = loop {
        assert!(Instant::now() < deadline, "our turn never came");
        let l = b.js(ES_LOOK).await;
        if l["turn"] == true && ours >= 1 && l["end"].is_null() {
            break l;
        }
        b.continue_hand().await;
        if move_once_es(&b).await {
            ours += 1;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(l["heading"].as_str().unwrap().starts_with("Tu turno"), "{l}");
    assert!(l["hand"].as_str().unwrap().starts_with("tu mano: "), "{l}");
    let seats = list(&l["seats"]);
    assert_eq!(seats.len(), 3, "{l}");
    assert!(seats[1].contains("compañero"), "seat 3 is our partner: {seats:?}");
    assert!(seats[0].contains("rival") && seats[2].contains("rival"), "seats 2 and 4 are rivals: {seats:?}");
    assert!(seats.iter().all(|s| s.contains(" ficha")), "each seat counts its tiles: {seats:?}");
    no_english(&l, "our turn");
    settle(&b).await;
    b.screenshot("table-4-seats-es").await;
    // Play on to the hand's end.
    let end = loop {
        assert!(Instant::now() < deadline, "no hand's end was shown");
        let l = b.js(ES_LOOK).await;
        if !l["end"].is_null() {
            break l;
        }
        move_once_es(&b).await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let e = &end["end"];
    assert_eq!(e["heading"], "Resultado de la mano 1", "{end}");
    assert_eq!(e["focused"], "Seguir", "the focus is on Seguir: {end}");
    let hands = list(&e["hands"]);
    assert_eq!(hands.len(), 4, "{end}");
    assert!(
        hands.iter().all(|h| h.ends_with(" puntos") || h.ends_with(" punto")),
        "pips counted in Spanish: {hands:?}"
    );
    no_english(&end, "the hand's end");
    // The picture, as the page shows it: the result and "Seguir" over the
    // final board, the hands face up around it, the score above.
    settle(&b).await;
    b.screenshot("hand-end-es").await;
    b.click_named("Seguir").await;
    b.wait_js("the next hand", "return !document.querySelector('[aria-label=\"las manos, boca arriba\"]')").await;
    b.close().await;
}

/// The board's and the score's boxes against the window, once both are
/// inside it: what a player sees without scrolling.
const IN_SIGHT: &str = r#"
const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return { top: Math.round(r.top), bottom: Math.round(r.bottom) }; };
const board = box('section[aria-label="the board"]');
const score = box('.scoreboard');
const h = document.documentElement.clientHeight;
const inside = (r) => r && r.top >= -1 && r.bottom <= h + 1;
return inside(board) && inside(score) ? { board, score, h } : null;
"#;

/// Plays a latin match from `b`, checking at every turn of ours and every
/// hand's end that the board and the score are in the window together;
/// the number of turns and of hand ends checked.
async fn board_and_score_in_sight(b: &Browser, what: &str) -> (u32, u32) {
    lobby(b, "/?pace=0#/").await;
    b.open_room("latin", None, "random").await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    let (mut turns, mut ends) = (0, 0);
    loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?}");
        let l = look(b).await;
        if !l["over"].is_null() {
            return (turns, ends);
        }
        let at_end = b.js("return !!document.querySelector('[data-key=\"hand-continue\"]')").await == true;
        if at_end || l["turn"] == true {
            let which =
                if at_end { format!("{what}, hand end {}", ends + 1) } else { format!("{what}, turn {}", turns + 1) };
            b.wait_js(&format!("the board and the score in sight ({which})"), IN_SIGHT).await;
            if at_end {
                ends += 1;
                if ends == 1 && what == "phone" {
                    b.screenshot("hand-end-phone").await;
                }
                continue_hand(b).await;
            } else if move_once(b).await {
                turns += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_and_the_score_stay_in_sight_at_every_turn_and_hand_end_on_a_laptop_and_a_phone() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    let (turns, ends) = board_and_score_in_sight(&b, "laptop").await;
    assert!(turns >= 7 && ends >= 1, "checked {turns} turns and {ends} hand ends");
    b.close().await;
    let Some(b) = Browser::start_phone(format!("http://{}", server.addr), &[]).await else { return };
    let (turns, ends) = board_and_score_in_sight(&b, "phone").await;
    assert!(turns >= 7 && ends >= 1, "checked {turns} turns and {ends} hand ends");
    b.close().await;
}

/// An all-fives table counts its open ends as the engine does: at every
/// turn of ours the page shows the ends' sum and the points it scores,
/// checked against the stored game's boards rebuilt by the engine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_fives_shows_the_ends_count_and_its_points_as_the_engine_counts_them() {
    use capicua_engine::{Board, Record, Rules};
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.client.set_window_size(1280, 800).await.unwrap();
    lobby(&b, "/?pace=0#/").await;
    b.open_room("all-fives", Some("2"), "random").await;
    b.click_named("I'm ready").await;
    let deadline = Instant::now() + MATCH;
    // (hand, plays on the board, sum shown, points shown, the words).
    let mut shown: Vec<(u64, u64, u64, u64, String)> = vec![];
    let game = loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?}");
        let l = look(&b).await;
        if !l["over"].is_null() {
            break l["game"].as_i64().expect("the stored game");
        }
        continue_hand(&b).await;
        if l["turn"] == true {
            let c = b
                .js("const e = document.querySelector('.ends-count'); \
                     return e ? [e.dataset.hand, e.dataset.plays, e.dataset.sum, e.dataset.points, e.textContent] : null")
                .await;
            if let Some(c) = c.as_array() {
                let n = |i: usize| c[i].as_str().unwrap().parse::<u64>().unwrap();
                shown.push((n(0), n(1), n(2), n(3), c[4].as_str().unwrap().to_string()));
                if shown.iter().filter(|s| s.3 > 0).count() == 1 && shown.last().unwrap().3 > 0 {
                    b.screenshot("all-fives-count").await;
                }
            }
            move_once(&b).await;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    b.close().await;

    let g = server.get_json(&format!("/api/games/{game}?seat=0")).await;
    let layout = Rules::preset("all-fives").unwrap().variant().board;
    let mut truth = std::collections::HashMap::new();
    let views = std::iter::once(&g["start"]).chain(g["steps"].as_array().unwrap().iter().map(|s| &s["view"]));
    for v in views {
        let mut board = Board::new(layout);
        let mut plays = 0;
        for r in v["history"].as_array().unwrap() {
            let record: Record = serde_json::from_value(r.clone()).unwrap();
            board.apply(&record, 2);
            plays += u64::from(r["action"]["kind"] == "play");
        }
        truth.insert((v["hand-number"].as_u64().unwrap(), plays), u64::from(board.end_sum()));
    }
    assert!(shown.len() >= 5, "the count was shown at {} turns", shown.len());
    for (hand, plays, sum, points, words) in &shown {
        assert_eq!(truth.get(&(*hand, *plays)), Some(sum), "hand {hand} after {plays} plays: {words:?}");
        assert_eq!(*points, if *sum > 0 && sum % 5 == 0 { *sum } else { 0 }, "{words:?}");
        assert!(words.contains(&sum.to_string()), "{words:?}");
    }
}
