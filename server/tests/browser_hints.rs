//! Hints and the post-match review in a real headless Chromium: a guest
//! asks for hints at an unrated table (the move shown is one of the
//! highlighted legal tiles, and it is the server's answer), plays the match
//! out, and the replay from its seat lists its decisions against the
//! strongest bot's, each a link to its step. With `CAPICUA_SCREENSHOTS=1`
//! it saves `book/src/screenshots/hint.png` and `review.png`.
//!
//! Read through roles and accessible names only; skips (passing, with a
//! message) where Chromium or chromedriver is missing, unless
//! `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use std::time::{Duration, Instant};

use browser_support::{Browser, LOOK, xpath_literal};
use common::TestServer;
use fantoccini::Locator;
use serde_json::Value;

/// How long the whole match may take in the browser.
const MATCH: Duration = Duration::from_secs(180);

/// Hints asked for (the first turns of the match); the other turns are
/// played without one.
const HINTS: u32 = 4;

const HINT_BUTTON: &str = "Hint: what the strongest bot would play";

/// One Chromium at a time: the machine has two cores, and a browser that
/// waits for the CPU makes every step slow.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_gets_hints_at_the_table_and_a_review_after_the_match() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    b.choose("Variant", "latin").await;
    b.choose("Fill the other seats with bots", "random").await;
    b.click_named("Create and sit down").await;
    b.click_named("I'm ready").await;

    let deadline = Instant::now() + MATCH;
    let mut hints = 0;
    let game = loop {
        assert!(Instant::now() < deadline, "the match did not end within {MATCH:?}");
        let look = b.js(LOOK).await;
        if !look["over"].is_null() {
            break look["game"].as_i64().expect("the result links to the stored game");
        }
        if look["turn"] != true {
            b.continue_hand().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        let choices = strings(&look["choices"]);
        let playable = strings(&look["playable"]);
        let moves = strings(&look["moves"]);
        if hints < HINTS && choices.is_empty() {
            b.click_named(HINT_BUTTON).await;
            let shown = b
                .wait_js(
                    "the hint",
                    "const p = document.querySelector('[data-key=\"hint-text\"]'); \
                     return p && [p.textContent, p.getAttribute('data-best')]",
                )
                .await;
            let text = shown[0].as_str().unwrap().to_string();
            let best: Value = serde_json::from_str(shown[1].as_str().unwrap()).unwrap();
            assert!(text.starts_with("The strongest bot would "), "{text}");
            assert!(text.ends_with("% to win the hand."), "{text}");
            let look = b.js(LOOK).await;
            let playable = strings(&look["playable"]);
            if best["kind"] == "play" {
                // The tile marked is one of the raised, playable tiles, and
                // the sentence names it.
                let marked: Vec<&String> = playable.iter().filter(|t| t.ends_with(", the hint")).collect();
                assert_eq!(marked.len(), 1, "one playable tile is marked: {playable:?}");
                let name = marked[0].split(',').next().unwrap();
                assert!(text.contains(&format!(" {name}")), "{text} names {name}");
                if hints == 0 {
                    b.screenshot("hint").await;
                }
                // Play the hint: its tile, then its end if it fits two.
                let xp = format!("//button[@aria-label={}]", xpath_literal(marked[0]));
                assert!(b.click_now(Locator::XPath(&xp)).await);
                if marked[0].contains("choose the end") {
                    let label = text.trim_start_matches("The strongest bot would ").split(':').next().unwrap();
                    b.click_named(label).await;
                }
            } else {
                assert!(playable.is_empty(), "{best} while {playable:?} are playable");
                let label = if best["kind"] == "draw" { "draw a tile" } else { "pass" };
                b.click_named(label).await;
            }
            hints += 1;
            continue;
        }
        let target = choices.first().or(playable.first()).or(moves.first());
        if let Some(name) = target {
            let xp = format!("//button[@aria-label={}]", xpath_literal(name));
            b.click_now(Locator::XPath(&xp)).await;
        }
    };
    assert_eq!(hints, HINTS, "the match had fewer turns than hints to ask");

    // The replay from our seat: the review lists each decision as the
    // server computed it, and its links step the replay there.
    let review = server.get_json(&format!("/api/games/{game}/review?seat=0")).await;
    let decisions = review["decisions"].as_array().unwrap();
    assert!(!decisions.is_empty(), "{review}");
    b.open(&format!("/?pace=0#/replay/{game}?seat=0")).await;
    b.wait_named("next move").await;
    let listed = b
        .wait_js(
            "the review",
            "return [...document.querySelectorAll('[aria-label=\"decisions\"] li')].map((li) => li.textContent)",
        )
        .await;
    let listed = strings(&listed);
    assert_eq!(listed.len(), decisions.len(), "{listed:?}");
    for (text, d) in listed.iter().zip(decisions) {
        let step = d["step"].as_u64().unwrap();
        assert!(text.starts_with(&format!("Move {}: ", step + 1)), "{text}");
        let win = (d["played-win"].as_f64().unwrap() * 100.0).round();
        assert!(text.contains(&format!("({win}%)")), "{text} shows {win}%");
    }
    // A decision where the bot would have played otherwise, if any, else the first.
    let pick = decisions.iter().find(|d| d["played"] != d["best"]).unwrap_or(&decisions[0]);
    let step = pick["step"].as_u64().unwrap();
    b.click_named(&format!("Move {}", step + 1)).await;
    // "Move N" opens move N: the step after the decision, the move on the board.
    b.wait_js("the step in the address", &format!("return location.hash.endsWith('step={}')", step + 1)).await;
    let hint =
        b.wait_js("the step's hint", "return document.querySelector('[data-key=\"replay-hint\"]')?.textContent").await;
    let best_win = (pick["best-win"].as_f64().unwrap() * 100.0).round();
    assert!(hint.as_str().unwrap().ends_with(&format!(": {best_win}% to win the hand.")), "{hint}");
    let same_tile = |x: &serde_json::Value, y: &serde_json::Value| {
        let (mut x, mut y) = (x.as_array().cloned().unwrap_or_default(), y.as_array().cloned().unwrap_or_default());
        x.sort_by_key(|v| v.as_u64());
        y.sort_by_key(|v| v.as_u64());
        x == y
    };
    if pick["best"]["kind"] == "play" && !same_tile(&pick["best"]["tile"], &pick["played"]["tile"]) {
        // Its tile, still in the hand after the move played, is marked there.
        b.wait_js("the hinted tile", "return document.querySelector('[role=\"img\"][aria-label$=\", the hint\"]')")
            .await;
    }
    b.client.set_window_size(1280, 1500).await.unwrap();
    b.screenshot("review").await;
    b.close().await;
}

/// A rated room offers no hint: a registered player's turn shows no button.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_table_shows_no_hint_button() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let (mut ben, _) = server.player("ben").await;
    let room = ben.create_room(serde_json::json!({"preset": "block", "seats": 2, "rated": true})).await;
    assert_eq!(ben.join(room, Some(1)).await, 1);
    ben.ready(room).await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
    b.register("ana").await;
    b.click_named(&format!("join room {room}")).await;
    b.click_named("I'm ready").await;
    let ben = tokio::spawn(common::play_until_over(ben, room, 1));
    b.wait_js("our turn", &format!("return (() => {{ {LOOK} }})().turn")).await;
    // The hand is drawn with its moves, and no hint is on offer.
    b.wait_js(
        "the playable tiles",
        &format!("const l = (() => {{ {LOOK} }})(); return l.playable.length || l.moves.length"),
    )
    .await;
    assert!(b.find_named(HINT_BUTTON).await.is_err(), "a rated table offers a hint");
    b.close().await;
    ben.abort();
}
