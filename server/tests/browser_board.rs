//! The board in a real headless Chromium, on stored games that bots played
//! through the server: every layout (line, spinner cross, longana star,
//! mexican trains, triominoes) at its fullest moment fits the window
//! together with the hand under it, at 1280x800 and at 390x844; mexican
//! trains carry their markers, name each end's pip and show the double
//! waiting to be covered; double-twelve numerals stay clear of the centre
//! bar and large enough to read on a phone; triominoes speak of tiles
//! beside tiles, and the graph board names the pips that meet. With
//! `CAPICUA_SCREENSHOTS=1` it saves `book/src/screenshots/all-fives-cross.png`,
//! `mexican-train.png`, their `-phone` variants and `all-fives-table.png`.
//!
//! Read through roles and accessible names; skips (passing, with a
//! message) where Chromium or chromedriver is missing, unless
//! `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use std::time::Duration;

use browser_support::{Browser, LOOK, bots_game, fullest, fullness, steps_of, viewport, xpath_literal};
use capicua_server::Config;
use common::{TestServer, temp_db};
use fantoccini::Locator;
use serde_json::{Value, json};

/// One Chromium at a time: the machine has two cores.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const ADMIN: &str = "admin-secret";

/// The two screens every board must fit: a laptop and a phone.
const SCREENS: [(u32, u32); 2] = [(1280, 800), (390, 844)];

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// Opens the replay of `id` at `step` (of `n`) for seat 0 and waits for it.
async fn open_replay(b: &Browser, id: i64, step: usize, n: usize) {
    b.open(&format!("/?pace=0#/replay/{id}?seat=0&step={step}")).await;
    let status = format!("Move {step} of {n}");
    b.wait_js(
        &format!("game {id} at {status}"),
        &format!(
            "const s = document.querySelector('[aria-label=\"replay controls\"] [role=status]')?.textContent;
             return s === {} && !!document.querySelector('section[aria-label=\"the board\"] svg')",
            json!(status)
        ),
    )
    .await;
}

/// The board (the drawings in it), the hand and the window, as screen rects.
const FIT: &str = r#"
  const felt = document.querySelector('section[aria-label="the board"]');
  const hand = document.querySelector('section[aria-label="your hand and moves"], section[aria-label$="hand"]');
  const rect = (e) => { const r = e.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
  const drawings = [...felt.querySelectorAll('svg[role="group"]')].map(rect);
  const tiles = [...felt.querySelectorAll('[role="img"]')].map(rect);
  return {
    felt: rect(felt), hand: hand ? rect(hand) : null, drawings, tiles,
    width: document.documentElement.clientWidth, height: document.documentElement.clientHeight,
    scrolled: window.scrollY, page: document.documentElement.scrollHeight,
  };
"#;

/// Checks that the board's drawing, every tile and the hand lie inside the window.
fn check_fit(what: &str, got: &Value) {
    let tol = 1.0;
    let num = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let (w, h) = (got["width"].as_f64().unwrap(), got["height"].as_f64().unwrap());
    let inside =
        |r: &Value| num(r, "x0") >= -tol && num(r, "y0") >= -tol && num(r, "x1") <= w + tol && num(r, "y1") <= h + tol;
    let felt = &got["felt"];
    assert!(inside(felt), "{what}: the board is not wholly in the {w}x{h} window: {felt}");
    for r in got["drawings"].as_array().unwrap().iter().chain(got["tiles"].as_array().unwrap()) {
        assert!(inside(r), "{what}: part of the board is off the {w}x{h} window: {r}");
    }
    let hand = &got["hand"];
    assert!(!hand.is_null(), "{what}: the page shows a hand");
    assert!(inside(hand), "{what}: the hand is not in the {w}x{h} window with the board: {hand}, board {felt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_board_at_its_fullest_fits_the_window_with_the_hand() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let layouts = [
        ("line", "block", true, false),
        ("spinner cross", "all-fives", true, false),
        ("longana star", "longana", false, false),
        ("mexican trains", "mexican-train", false, false),
        ("triominoes", "triominoes", true, true),
    ];
    let mut games = vec![];
    for (layout, variant, duel, poly) in layouts {
        let id = bots_game(&server, ADMIN, variant, duel, poly).await;
        let steps = steps_of(&server, id).await;
        games.push((layout, id, fullest(&steps, |_| true), steps.len()));
    }
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    for (w, h) in SCREENS {
        viewport(&b, w, h).await;
        for &(layout, id, k, n) in &games {
            open_replay(&b, id, k, n).await;
            // The replay's title, controls, scores and seats come first; the
            // player looks at the board, and the board and hand fill the
            // window from there.
            b.js("window.scrollTo(0, document.querySelector('section[aria-label=\"the board\"]').getBoundingClientRect().top + window.scrollY); return true").await;
            let got = b.js(FIT).await;
            eprintln!("{layout} at {w}x{h}: board {} hand {}", got["felt"], got["hand"]);
            check_fit(&format!("{layout} (game {id}, move {k}) at {w}x{h}"), &got);
            let phone = if w < 500 { "-phone" } else { "" };
            if layout == "spinner cross" {
                b.screenshot(&format!("all-fives-cross{phone}")).await;
            }
        }
    }
    b.close().await;
}

/// At a real table the player neither scrolls nor zooms: on every turn of
/// an all-fives match against a bot (played by clicking), once the spinner
/// cross has grown, the whole board and the hand are in the window as the
/// page leaves it, at 1280x800 and then at 390x844.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_table_the_spinner_cross_and_the_hand_are_seen_together_without_scrolling() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    viewport(&b, SCREENS[0].0, SCREENS[0].1).await;
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    b.open_room("all-fives", Some("2"), "random").await;
    b.click_named("I'm ready").await;
    let strings =
        |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect() };
    let deadline = std::time::Instant::now() + Duration::from_secs(240);
    let mut checked = [0, 0];
    let mut screen = 0;
    while checked[1] < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "no spinner cross grew on our turns in time ({checked:?} checked)"
        );
        let look = b.js(&format!("return (() => {{ {LOOK} }})()")).await;
        if !look["over"].is_null() {
            // Another match at the same table, until the checks are done.
            b.click_named("I'm ready").await;
            continue;
        }
        if look["turn"] != true {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let cross = b
            .js("const s = document.querySelector('section[aria-label=\"the board\"] svg[role=group]'); \
                 return !!s && s.getAttribute('aria-label').includes('spinner side') && s.querySelectorAll('[role=img]').length")
            .await;
        if cross.as_u64().unwrap_or(0) >= 8 {
            let (w, h) = SCREENS[screen];
            let got = b.js(FIT).await;
            check_fit(&format!("the cross of {cross} tiles at the table at {w}x{h}"), &got);
            checked[screen] += 1;
            if screen == 1 && checked[1] == 1 {
                b.screenshot("all-fives-table-phone").await;
            }
            if screen == 0 && checked[0] >= 3 {
                b.screenshot("all-fives-table").await;
                screen = 1;
                viewport(&b, SCREENS[1].0, SCREENS[1].1).await;
                continue;
            }
        }
        let choices = strings(&look["choices"]);
        let playable = strings(&look["playable"]);
        let moves = strings(&look["moves"]);
        let Some(name) = choices.first().or(playable.first()).or(moves.first()) else { continue };
        // Clicked from the page as a tap would: a WebDriver click scrolls
        // the button into view first, which a player's tap does not.
        b.js(&format!(
            "const e = [...document.querySelectorAll('button')].find((e) => e.getAttribute('aria-label') === {}); if (e) e.click(); return true",
            json!(name)
        ))
        .await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    b.close().await;
}

/// The train rows of the board: each one's accessible name.
const TRAINS: &str = r#"
  return [...document.querySelectorAll('section[aria-label="the board"] svg[role="group"]')]
    .map((e) => e.getAttribute('aria-label'));
"#;

/// A replay step (from 1) and the seats whose trains are open to everyone then.
type OpenTrains = (usize, Vec<u64>);

/// The fullest step whose view has a private train open to everyone (with
/// its owners), and the first where a double lies at the end of a train,
/// uncovered (with that double).
fn train_moments(steps: &[Value]) -> (Option<OpenTrains>, Option<(usize, [u64; 2])>) {
    let mut opened = None;
    let mut double = None;
    let mut best: Option<(bool, usize)> = None;
    for (k, s) in steps.iter().enumerate() {
        let view = &s["view"];
        let owners: Vec<u64> = view["ends"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["opened"] == true && e["owner"].is_u64())
            .map(|e| e["owner"].as_u64().unwrap())
            .collect();
        let last = view["history"].as_array().and_then(|h| h.last());
        let mut waits = false;
        if let Some(last) = last {
            let a = &last["action"];
            if a["kind"] == "play" && a["end"] != 255 && a["tile"][0] == a["tile"][1] {
                waits = true;
                let p = a["tile"][0].as_u64().unwrap();
                if double.is_none() {
                    double = Some((k + 1, [p, p]));
                }
            }
        }
        // The fullest board with an open train (and a double to cover, if
        // any such moment came): the one worth a picture.
        if !owners.is_empty() {
            let score = (waits, fullness(s).1);
            if best.is_none_or(|b| score > b) {
                best = Some(score);
                opened = Some((k + 1, owners));
            }
        }
    }
    (opened, double)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mexican_trains_show_their_markers_their_ends_and_the_double_to_cover() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let id = bots_game(&server, ADMIN, "mexican-train", false, false).await;
    let steps = steps_of(&server, id).await;
    let n = steps.len();
    let (opened, double) = train_moments(&steps);
    let (open_step, owners) = opened.expect("some seat passed and opened its train");
    let (double_step, tile) = double.expect("some double was played on a train");
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    for (w, h) in SCREENS {
        viewport(&b, w, h).await;
        open_replay(&b, id, open_step, n).await;
        let trains = b.js(TRAINS).await;
        let trains: Vec<&str> = trains.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        eprintln!("at move {open_step}: {trains:#?}");
        for owner in &owners {
            let name = if *owner == 0 { "your train".to_string() } else { format!("seat {}'s train", owner + 1) };
            let row = trains
                .iter()
                .find(|t| t.starts_with(&format!("{name}:")))
                .unwrap_or_else(|| panic!("no row named {name}: {trains:?}"));
            assert!(row.contains("marker: open to everyone"), "{name} is open to everyone and says so: {row}");
        }
        // The marker is drawn where people see it, named for screen readers.
        let markers = b.js("return document.querySelectorAll('section[aria-label=\"the board\"] [role=img][aria-label=\"marker: open to everyone\"]').length").await;
        assert_eq!(markers.as_u64().unwrap() as usize, owners.len(), "one marker per open private train");
        for row in &trains {
            assert!(!row.contains("open at"), "\"open at\" reads like \"open\": {row}");
            let shows = row.split("ends in ").nth(1).unwrap_or_else(|| panic!("a train names its end's pip: {row}"));
            assert!(shows.chars().next().unwrap().is_ascii_digit(), "{row}");
        }
        let text = b.js("return document.querySelector('section[aria-label=\"the board\"]').innerText").await;
        assert!(!text.as_str().unwrap().contains("open at"), "{text}");
        if w == 1280 {
            b.js("document.querySelector('section[aria-label=\"the board\"]').scrollIntoView({block: 'start'}); return true").await;
            b.screenshot("mexican-train").await;
        } else {
            b.js("document.querySelector('section[aria-label=\"the board\"]').scrollIntoView({block: 'start'}); return true").await;
            b.screenshot("mexican-train-phone").await;
        }

        open_replay(&b, id, double_step, n).await;
        let name = format!("{}-{}, the double to cover", tile[0], tile[1]);
        b.wait_named(&name).await;
        let trains = b.js(TRAINS).await;
        let waiting = format!("the double {}-{} waits to be covered", tile[0], tile[1]);
        let rows: Vec<&Value> =
            trains.as_array().unwrap().iter().filter(|t| t.as_str().unwrap().contains(&waiting)).collect();
        assert_eq!(rows.len(), 1, "one train says its double waits: {trains}");
        let note = b
            .js("return [...document.querySelectorAll('section[aria-label=\"the board\"] [role=status]')].map((e) => e.textContent).join(' ')")
            .await;
        assert!(
            note.as_str().unwrap().contains(&format!("The double {}-{}", tile[0], tile[1])),
            "the board says which double must be covered: {note}"
        );
    }
    b.close().await;
}

/// Every numeral on the board and in the hand: its font size on screen and
/// its gap to its tile's centre bar, in pixels.
const NUMERALS: &str = r#"
  const out = [];
  for (const t of document.querySelectorAll('.tile')) {
    const bar = t.querySelector('line').getBoundingClientRect();
    const [bx, by] = [(bar.left + bar.right) / 2, (bar.top + bar.bottom) / 2];
    // The bar lies across the tile: it is wide when the tile stands upright.
    const upright = bar.width > bar.height;
    for (const n of t.querySelectorAll('text')) {
      const r = n.getBoundingClientRect();
      const m = n.getScreenCTM();
      const px = parseFloat(getComputedStyle(n).fontSize) * Math.hypot(m.a, m.b);
      // The ink of the digits: the text box less its line spacing.
      const ink = n.getBBox();
      const gap = upright ? Math.min(Math.abs(r.top - by), Math.abs(r.bottom - by)) : Math.min(Math.abs(r.left - bx), Math.abs(r.right - bx));
      const across = upright ? (r.top < by && r.bottom > by) : (r.left < bx && r.right > bx);
      out.push({ text: n.textContent, px, gap: across ? -gap : gap, tile: t.getAttribute('aria-label') || 'hand', w: r.width, h: r.height, ink: ink.height });
    }
  }
  return out;
"#;

/// The seed of the double-twelve numerals test's match (`NUMERALS_SEED`
/// tries another).
const NUMERALS_SEED: u64 = 1;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_twelve_numerals_stay_clear_of_the_bar_and_readable_on_a_phone() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    // One game every run: a seeded deal played by players whose choices
    // are seeded too (a bots' tournament deals from a fresh secret).
    let seed: u64 = std::env::var("NUMERALS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(NUMERALS_SEED);
    let mut players = vec![];
    for _ in 0..4 {
        players.push(server.guest().await);
    }
    let room = common::seat_all(&mut players, json!({"preset": "mexican-train", "seats": 4, "seed": seed})).await;
    let (_players, id) = common::play_out(players, room).await;
    let steps = steps_of(&server, id).await;
    let k = fullest(&steps, |_| true);
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    for (w, h) in SCREENS {
        viewport(&b, w, h).await;
        open_replay(&b, id, k, steps.len()).await;
        let nums = b.js(NUMERALS).await;
        let nums = nums.as_array().unwrap();
        assert!(
            nums.iter().any(|n| n["text"].as_str().unwrap().len() == 2),
            "a double-twelve board shows two-digit numerals"
        );
        // Five trains of twenty tiles and more fill a phone: the numerals
        // there keep 10 px at least, 12 px on a laptop.
        let least = if w < 500 { 10.0 } else { 12.0 };
        let smallest = nums.iter().map(|n| n["px"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
        let closest = nums.iter().map(|n| n["gap"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
        eprintln!(
            "{w}x{h}: {} numerals, the smallest {smallest:.1}px, the closest {closest:.1}px from its bar",
            nums.len()
        );
        for n in nums {
            let px = n["px"].as_f64().unwrap();
            assert!(px >= least, "at {w}px a numeral is {px:.1}px, under {least}px: {n}");
            // Clear of the bar by a tenth of the numeral's size at least.
            let gap = n["gap"].as_f64().unwrap();
            assert!(gap >= px * 0.1, "at {w}px a numeral is {gap:.1}px from its tile's centre bar: {n}");
        }
    }
    b.close().await;
}

/// Plays a triominoes room against a greedy bot until our turn, then
/// reads the words of the board, the spots of a playable tile and a turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn triominoes_speak_of_tiles_beside_tiles_and_of_pips_that_meet() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    b.open_room("edge-triominoes", Some("2"), "greedy").await;
    b.click_named("I'm ready").await;
    let words =
        |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect() };
    let mut seen_turned = false;
    let mut seen_beside = false;
    for _ in 0..30 {
        // Our turn with a tile to play, and at least two tiles on the board.
        let look = b.wait_js("our turn", &format!("const l = (() => {{ {LOOK} }})(); return l.turn && l")).await;
        let placed = b
            .js("return [...document.querySelectorAll('section[aria-label=\"the board\"] [data-placed]')].map((e) => e.getAttribute('aria-label'))")
            .await;
        let placed = words(&placed);
        for p in &placed {
            assert!(!p.contains("cell") && !p.contains("turned"), "a tile is named by what it lies beside: {p}");
        }
        if placed.len() >= 2 {
            assert!(placed[1..].iter().all(|p| p.contains(" beside the ") && p.contains(" meets ")), "{placed:#?}");
            if !seen_beside {
                eprintln!("the board: {placed:#?}");
            }
            seen_beside = true;
        }
        let playable = look["playable"].as_array().unwrap().clone();
        if playable.is_empty() {
            let m = look["moves"][0].as_str().unwrap().to_string();
            b.click_named(&m).await;
            continue;
        }
        b.click_named(playable[0].as_str().unwrap()).await;
        let targets = b
            .wait_js("the spots", "return [...document.querySelectorAll('svg [role=\"button\"]')].map((e) => e.getAttribute('aria-label'))")
            .await;
        let targets = words(&targets);
        eprintln!("spots: {targets:?}");
        for t in &targets {
            assert!(t.starts_with("play ") && !t.contains("cell"), "a spot is named by the tiles beside it: {t}");
        }
        if !placed.is_empty() {
            let by = ["to the right of the ", "to the left of the ", "above the ", "below the "];
            assert!(targets.iter().all(|t| by.iter().any(|w| t.contains(w))), "{targets:?}");
        }
        let spot = targets.iter().find(|t| t.ends_with(" ways")).unwrap_or(&targets[0]).clone();
        let xp = format!("//*[@role='button'][@aria-label={}]", xpath_literal(&spot));
        assert!(b.click_now(Locator::XPath(&xp)).await, "the spot {spot} can be clicked");
        if spot.ends_with(" ways") {
            let shown = b
                .wait_js("the way shown", "const g = document.querySelector('[role=\"group\"][aria-label^=\"where to play\"] span'); return g && g.textContent.includes(' of ') && g.textContent")
                .await;
            let shown = shown.as_str().unwrap();
            eprintln!("a turn: {shown}");
            assert!(shown.contains(" turned so ") && shown.contains(" meets "), "a turn says which pips meet: {shown}");
            assert!(!shown.contains("side 1") && !shown.contains("turned 0"), "{shown}");
            seen_turned = true;
            b.click_named("Play here").await;
        }
        if seen_turned && seen_beside {
            break;
        }
        // Wait for the tile to land (or the hand or match to end).
        b.wait_js(
            "our tile on the board",
            &format!(
                "const n = document.querySelectorAll('section[aria-label=\"the board\"] [data-placed]').length; \
                 return n !== {} || !!document.querySelector('[aria-labelledby=\"over-h\"]')",
                placed.len()
            ),
        )
        .await;
    }
    assert!(seen_beside, "the board showed two tiles or more on our turn");
    assert!(seen_turned, "a spot where several turns fit was met in 30 turns");
    b.close().await;
}

/// The graph board (triominoes joined face to face in a tree) names each
/// join by the pips that meet, not by face numbers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_triominoes_name_the_pips_that_meet() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let id = bots_game(&server, ADMIN, "graph-triominoes", true, true).await;
    let steps = steps_of(&server, id).await;
    let k = fullest(&steps, |_| true);
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    open_replay(&b, id, k, steps.len()).await;
    let placed = b
        .js("return [...document.querySelectorAll('section[aria-label=\"the board\"] [data-placed]')].map((e) => e.getAttribute('aria-label'))")
        .await;
    let placed: Vec<&str> = placed.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    eprintln!("{placed:#?}");
    assert!(placed.len() >= 3, "{placed:?}");
    assert!(placed[0].ends_with(", the first tile"), "{}", placed[0]);
    for p in &placed[1..] {
        assert!(p.contains(", its ") && p.contains(" against the "), "a join names the pips that meet: {p}");
        assert!(!p.contains("face"), "{p}");
    }
    b.close().await;
}
