//! The board in Spanish, in a real headless Chromium whose language is
//! Spanish, on stored games that bots played through the server: mexican
//! trains name their owners, the pip each ends in ("termina en 8"), their
//! markers and the double to cover in Spanish; the all-fives cross reads as
//! "la línea"; triominoes speak of fichas beside fichas; the rules page
//! words each rule of the server's catalog in Spanish. With
//! `CAPICUA_SCREENSHOTS=1` it saves `book/src/screenshots/mexican-train-es.png`
//! and `all-fives-cross-es.png` at 1280x800.
//!
//! Read through roles and accessible names; skips (passing, with a
//! message) where Chromium or chromedriver is missing, unless
//! `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use browser_support::{Browser, bots_game, fullest, fullness, steps_of, viewport};
use capicua_server::Config;
use common::{TestServer, temp_db};
use serde_json::{Value, json};

/// One Chromium at a time: the machine has two cores.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const ADMIN: &str = "admin-secret";

/// A Chromium that asks for Spanish pages.
const SPANISH: [&str; 2] = ["--lang=es-ES", "--accept-lang=es-ES,es"];

async fn admin_server() -> TestServer {
    TestServer::start_with(temp_db(), Config { admin_token: Some(ADMIN.into()), ..common::config() }).await
}

/// Opens the replay of `id` at `step` (of `n`) for seat 0, in Spanish, and
/// waits for its board.
async fn open_replay(b: &Browser, id: i64, step: usize, n: usize) {
    b.open(&format!("/?pace=0#/replay/{id}?seat=0&step={step}")).await;
    let status = format!("Jugada {step} de {n}");
    b.wait_js(
        &format!("game {id} at {status}"),
        &format!(
            "const s = document.querySelector('[aria-label=\"controles de la repetición\"] [role=status]')?.textContent;
             return s === {} && !!document.querySelector('section[aria-label=\"la mesa\"] svg')",
            json!(status)
        ),
    )
    .await;
}

/// The board's drawings: each one's accessible name.
const DRAWINGS: &str = r#"
  return [...document.querySelectorAll('section[aria-label="la mesa"] svg[role="group"]')]
    .map((e) => e.getAttribute('aria-label'));
"#;

/// The board's words for people who see it (headings, notes, markers).
const BOARD_TEXT: &str = r#"return document.querySelector('section[aria-label="la mesa"]').innerText"#;

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
}

/// English words of the board that must not be left in a Spanish page.
const ENGLISH: [&str; 8] =
    ["ends in", "train", "the line", "no tiles yet", "marker", "to cover", "left to right", "the double"];

fn no_english(what: &str, text: &str) {
    for w in ENGLISH {
        assert!(!text.contains(w), "{what} still says \"{w}\" in English: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mexican_trains_and_the_all_fives_cross_speak_spanish() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let trains = bots_game(&server, ADMIN, "mexican-train", false, false).await;
    let fives = bots_game(&server, ADMIN, "all-fives", true, false).await;
    let Some(b) = Browser::start_with(format!("http://{}", server.addr), &SPANISH).await else { return };
    viewport(&b, 1280, 800).await;

    // Mexican train, at its fullest moment with a private train open to everyone.
    let steps = steps_of(&server, trains).await;
    let opened = |s: &Value| {
        s["view"]["ends"].as_array().into_iter().flatten().any(|e| e["opened"] == true && e["owner"].is_u64())
    };
    let k = fullest(&steps, opened);
    open_replay(&b, trains, k, steps.len()).await;
    let rows = strings(&b.js(DRAWINGS).await);
    eprintln!("mexican train at move {k}: {rows:#?}");
    assert!(rows.len() >= 4, "a row per train: {rows:?}");
    assert!(
        rows.iter().any(|r| r.starts_with("tu tren:")) && rows.iter().any(|r| r.starts_with("el tren público:")),
        "your train and the public one, named in Spanish: {rows:?}"
    );
    for row in &rows {
        let shows = row.split("termina en ").nth(1).unwrap_or_else(|| panic!("a train says what it ends in: {row}"));
        assert!(shows.chars().next().unwrap().is_ascii_digit(), "{row}");
        no_english("a train", row);
    }
    if opened(&steps[k - 1]) {
        assert!(rows.iter().any(|r| r.contains("marcador: abierto a todos")), "the open train says so: {rows:?}");
    }
    let text = b.js(BOARD_TEXT).await;
    let text = text.as_str().unwrap();
    assert!(text.contains("Todos los trenes salen de la locomotora"), "{text}");
    no_english("the trains' words", text);
    b.js("document.querySelector('section[aria-label=\"la mesa\"]').scrollIntoView({block: 'start'}); return true")
        .await;
    b.screenshot("mexican-train-es").await;

    // All fives: the spinner cross at its fullest.
    let steps = steps_of(&server, fives).await;
    let k = fullest(&steps, |s| fullness(s).0 >= 3);
    open_replay(&b, fives, k, steps.len()).await;
    let drawings = strings(&b.js(DRAWINGS).await);
    eprintln!("all fives at move {k}: {drawings:#?}");
    assert!(
        drawings.iter().any(|d| d.starts_with("la línea, de izquierda a derecha: ")),
        "the line is read in Spanish: {drawings:?}"
    );
    for d in &drawings {
        no_english("the cross", d);
    }
    // The player looks at the board: it and the hand fill the window from there.
    b.js("window.scrollTo(0, document.querySelector('section[aria-label=\"la mesa\"]').getBoundingClientRect().top + window.scrollY); return true").await;
    b.screenshot("all-fives-cross-es").await;

    // The rules page words each rule from the catalog, by its code.
    b.open("/#/rules/all-fives").await;
    let rules = b
        .wait_js(
            "the rules of all-fives",
            "const m = document.querySelector('main'); return m && m.innerText.includes('Cómo se juega') && m.innerText",
        )
        .await;
    let rules = rules.as_str().unwrap();
    assert!(rules.contains("Puntas múltiplo de") && rules.contains("Cruz"), "the rules in Spanish: {rules}");
    assert!(!rules.contains("Ends multiple of") && !rules.contains("Spinners"), "no rule left in English: {rules}");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn triominoes_speak_spanish() {
    let _one = ONE_BROWSER.lock().await;
    let server = admin_server().await;
    let id = bots_game(&server, ADMIN, "triominoes", true, true).await;
    let steps = steps_of(&server, id).await;
    let k = fullest(&steps, |_| true);
    let Some(b) = Browser::start_with(format!("http://{}", server.addr), &SPANISH).await else { return };
    open_replay(&b, id, k, steps.len()).await;
    let board = b.js("return document.querySelector('section[aria-label=\"la mesa\"] svg[role=\"group\"]').getAttribute('aria-label')").await;
    let board = board.as_str().unwrap();
    assert!(board.starts_with("la mesa: ") && board.ends_with(" fichas"), "{board}");
    let placed = strings(
        &b.js("return [...document.querySelectorAll('section[aria-label=\"la mesa\"] [data-placed]')].map((e) => e.getAttribute('aria-label'))")
            .await,
    );
    eprintln!("{placed:#?}");
    assert!(placed.len() >= 3, "{placed:?}");
    assert!(placed.iter().any(|p| p.contains(", la primera ficha")), "{placed:?}");
    assert!(
        placed.iter().any(|p| p.contains("junto a ") && p.contains(" con ")),
        "pips that meet, in Spanish: {placed:?}"
    );
    for p in &placed {
        for w in ["the first", " meets ", "beside", " of the ", "on its"] {
            assert!(!p.contains(w), "a placed ficha says \"{w}\" in English: {p}");
        }
    }
    b.close().await;
}
