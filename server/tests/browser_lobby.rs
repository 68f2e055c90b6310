//! The lobby and the pages around it in a real headless Chromium: rooms
//! opened from the form keep their preset's name, a phone's width holds
//! every page without sideways scrolling and its controls answer a finger,
//! the page speaks Spanish, presets come with their words and rules, and
//! the review's links land on their move; Play now seats people who seek
//! the same table at one table, two or four of them.
//!
//! The page is read through roles and accessible names. Each test skips
//! (passing, with a message) where Chromium or chromedriver is missing,
//! unless `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use browser_support::Browser;
use common::{TestServer, WAIT, play_out, play_until_over, seat_all, wait_for};
use serde_json::{Value, json};

/// One Chromium at a time: the machine has two cores.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Opens the lobby as a fresh visitor with moves shown as they come.
async fn lobby(b: &Browser) {
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
}

fn names(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

/// Every preset opened from the form with its rules untouched is that
/// preset: the room is listed, and its match stored, under the preset's
/// name (so a rated room feeds the preset's leaderboard).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_preset_opened_from_the_lobby_with_its_rules_is_that_preset() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let cat = server.get_json("/api/variants").await;
    let mut presets = names(&cat["presets"]);
    presets.extend(names(&cat["poly-presets"]));
    assert!(presets.len() > 5, "{presets:?}");
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    let mut wrong = vec![];
    for preset in &presets {
        lobby(&b).await;
        b.choose("Variant", preset).await;
        b.choose("Fill the other seats with bots", "").await;
        b.click_named("Create and sit down").await;
        let hash = b
            .wait_js(&format!("the room of {preset}"), "return location.hash.startsWith('#/room/') && location.hash")
            .await;
        let room: u64 = hash.as_str().unwrap().trim_start_matches("#/room/").parse().unwrap();
        let info = server.room_info(room).await;
        if info["variant"] != json!(preset) {
            wrong.push(format!("{preset} opened as {}", info["variant"]));
        }
    }
    b.close().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Every element of the page whose right edge passes the viewport's (or
/// that spills out of its card), and the page's own sideways scroll.
const OVERFLOW: &str = r#"
  const w = document.documentElement.clientWidth;
  const say = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className && typeof e.className === 'string' ? '.' + e.className.trim().replace(/\s+/g, '.') : ''} "${(e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40)}"`;
  const bad = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('.visually-hidden, .skip, [hidden]')) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > w + 1) bad.push(`${say(e)} ends at ${Math.round(r.right)} of ${w}`);
    const card = e.parentElement?.closest('.card');
    if (card) {
      const c = card.getBoundingClientRect();
      if (r.right > c.right + 1) bad.push(`${say(e)} spills out of its card (${Math.round(r.right)} > ${Math.round(c.right)})`);
    }
  }
  if (document.documentElement.scrollWidth > w) bad.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${w}`);
  return bad;
"#;

async fn no_overflow(b: &Browser, page: &str) {
    let bad = b.js(OVERFLOW).await;
    assert_eq!(bad, json!([]), "{page} at a phone's width");
}

/// At 390x844 (a phone, touch events on) no page is wider than the
/// screen: the lobby with rooms and their Join and Watch, the bots menu,
/// the replays, the standings and a room; and a finger's tap on "Create
/// and sit down" opens a room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_nothing_overflows_and_a_tap_opens_a_room() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    // A stored game (for the replays list) and rooms in the lobby: one
    // waiting for players with a long name in it, one in play.
    let mut clients = vec![];
    for _ in 0..2 {
        clients.push(server.guest().await);
    }
    let room = seat_all(&mut clients, json!({"preset": "block", "seats": 2})).await;
    let (_clients, _game) = play_out(clients, room).await;
    let (mut host, _) = server.player("a-rather-long-player-name").await;
    let waiting = host.create_room(json!({"preset": "all-fives", "seats": 4})).await;
    host.join(waiting, Some(0)).await;
    let mut busy = server.guest().await;
    let playing = busy.create_room(json!({"preset": "mexican-train", "seats": 4})).await;
    busy.join(playing, Some(0)).await;
    let r = busy.request(json!({"type": "fill-bots", "room": playing, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");

    let Some(b) = Browser::start_phone(format!("http://{}", server.addr), &[]).await else { return };
    lobby(&b).await;
    b.wait_named(&format!("watch room {playing}")).await;
    b.wait_named(&format!("join room {waiting}")).await;
    let width = b.js("return document.documentElement.clientWidth").await;
    assert_eq!(width, json!(390), "the phone's viewport");
    // The bots menu lists its strengths before the page is measured.
    b.choose("Fill the other seats with bots", "random").await;
    no_overflow(&b, "the lobby").await;
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("lobby-phone").await;
    b.click_named("Change the rules").await;
    no_overflow(&b, "the lobby with its rule menus").await;
    // Join and Watch are on screen, each reachable by a finger.
    for name in [format!("join room {waiting}"), format!("watch room {playing}")] {
        let inside = b
            .js(&format!(
                "const e = [...document.querySelectorAll('[aria-label]')].find((e) => e.getAttribute('aria-label') === {});
                 const r = e.getBoundingClientRect();
                 return r.left >= 0 && r.right <= document.documentElement.clientWidth && r.width >= 24 && r.height >= 24",
                json!(name)
            ))
            .await;
        assert_eq!(inside, json!(true), "{name} is on screen and big enough for a finger");
    }
    for (path, ready) in [
        ("#/replays", "return document.querySelector('table caption') && document.querySelector('tbody tr')"),
        (
            "#/standings",
            "return [...document.querySelectorAll('h2')].length >= 2 && !document.body.innerText.includes('Loading')",
        ),
    ] {
        b.open(&format!("/?pace=0{path}")).await;
        b.wait_js(path, ready).await;
        no_overflow(&b, path).await;
    }
    // A finger opens a room: the tap reaches the button, the room opens.
    lobby(&b).await;
    b.choose("Variant", "latin").await;
    b.choose("Fill the other seats with bots", "random").await;
    b.tap_named("Create and sit down").await;
    b.wait_named("I'm ready").await;
    let hash = b.wait_js("the room's page", "return location.hash.startsWith('#/room/') && location.hash").await;
    no_overflow(&b, hash.as_str().unwrap()).await;
    // In Spanish, whose words are longer, the lobby holds as well.
    lobby(&b).await;
    b.tap_named("Español").await;
    b.wait_js("the lobby in Spanish", "return document.documentElement.lang === 'es' && document.querySelector('[data-key=\"c-create\"]')?.textContent === 'Crear y sentarse'").await;
    b.wait_named(&format!("mirar la sala {playing}")).await;
    b.choose("Completar los demás asientos con bots", "random").await;
    no_overflow(&b, "the lobby in Spanish").await;
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("lobby-phone-es").await;
    b.close().await;
    drop((host, busy));
}

/// The lobby's heading and the form's first label, as shown.
const WORDS: &str = "return { lang: document.documentElement.lang, h1: document.querySelector('main h1')?.textContent, \
     create: document.querySelector('[data-key=\"c-create\"]')?.textContent, \
     nav: [...document.querySelectorAll('.top nav a')].map((a) => a.textContent).join('|') }";

/// A browser whose language is Spanish gets the page in Spanish; the
/// EN/ES switch changes it at once and is remembered after a reload; an
/// error of the server is worded in Spanish from its code, beside the rule
/// at fault.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spanish_browser_gets_the_lobby_in_spanish_and_the_switch_is_remembered() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) =
        Browser::start_with(format!("http://{}", server.addr), &["--lang=es-ES", "--accept-lang=es-ES,es"]).await
    else {
        return;
    };
    lobby(&b).await;
    let spanish = json!({ "lang": "es", "h1": "Dominó para personas y bots", "create": "Crear y sentarse",
                          "nav": "Salón|Repeticiones|Clasificación|Reglas|Manual" });
    let english = json!({ "lang": "en", "h1": "Dominoes for people and bots", "create": "Create and sit down",
                          "nav": "Lobby|Replays|Standings|Rules|Manual" });
    b.wait_js("the lobby in Spanish", &format!("const w = (() => {{ {WORDS} }})(); return w.create && w")).await;
    assert_eq!(b.js(WORDS).await, spanish, "the browser's language chooses the page's");
    b.wait_js("the welcome in Spanish", "return document.getElementById('who').textContent.startsWith('Juegas como')")
        .await;
    b.screenshot("lobby-es").await;
    b.click_named("English").await;
    b.wait_js("the lobby in English", &format!("const w = (() => {{ {WORDS} }})(); return w.lang === 'en' && w")).await;
    assert_eq!(b.js(WORDS).await, english, "the switch changes every word at once");
    lobby(&b).await;
    b.wait_js("the form", "return document.querySelector('[data-key=\"c-create\"]')").await;
    assert_eq!(b.js(WORDS).await, english, "the choice is remembered after a reload");
    b.click_named("Español").await;
    b.wait_js("the lobby in Spanish again", &format!("const w = (() => {{ {WORDS} }})(); return w.lang === 'es' && w"))
        .await;
    assert_eq!(b.js(WORDS).await, spanish);
    // A refused rule: worded from the error's code, in Spanish, beside its menu.
    b.choose("Modalidad", "block").await;
    b.choose("Mesa", "2").await;
    b.choose("Completar los demás asientos con bots", "").await;
    b.click_named("Cambiar las reglas").await;
    b.choose("stuck.when-unable", "draw-until-playable").await;
    b.click_named("Crear y sentarse").await;
    let alert = b
        .wait_js(
            "the refusal beside stuck.when-unable",
            "const e = document.getElementById('rule-stuck-when-unable-err'); return e && !e.hidden ? e.textContent : null",
        )
        .await;
    let alert = alert.as_str().unwrap();
    assert!(alert.starts_with("Estas reglas no van juntas: ") && alert.contains("stuck.when-unable"), "{alert}");
    // At a table the switch redraws the page in place: the seat is kept.
    b.choose("stuck.when-unable", "pass").await;
    b.click_named("Crear y sentarse").await;
    let hash = b.wait_js("the room", "return location.hash.startsWith('#/room/') && location.hash").await;
    b.wait_named("Estoy listo").await;
    b.click_named("English").await;
    b.wait_js("the shell in English", "return document.documentElement.lang === 'en'").await;
    b.wait_named("I'm ready").await;
    assert_eq!(b.js("return location.hash").await, hash, "still at the table");
    b.close().await;
}

/// A latin match of one guest (seat 1) and three random bots, played out
/// by the guest's client; the stored game's id.
async fn guest_and_bots(server: &TestServer) -> i64 {
    let mut c = server.guest().await;
    let room = c.create_room(json!({"preset": "latin", "seats": 4})).await;
    assert_eq!(c.join(room, Some(0)).await, 0);
    let r = c.request(json!({"type": "fill-bots", "room": room, "strategy": "random"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    c.ready(room).await;
    let (_c, over) = play_until_over(c, room, 11).await;
    over["game"].as_i64().expect("the game is stored")
}

/// The lobby names its games with their one line and links to the rules
/// (no pointer to a README or an API): the rules page lists every preset,
/// each with its page of rules and the words of the table. The Replays
/// list names the winning seats, not "bot:random and bot:random".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presets_have_their_words_and_rules_and_replays_name_the_winning_seats() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let game = guest_and_bots(&server).await;
    let cat = server.get_json("/api/variants").await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    b.choose("Variant", "all-fives").await;
    let about =
        b.wait_js("the preset's line", "return document.querySelector('[data-key=\"c-about\"]')?.textContent").await;
    let about = about.as_str().unwrap().to_string();
    assert!(about.contains("Rules of all-fives"), "{about}");
    let all_fives = cat["presets"].as_array().unwrap().iter().find(|p| p["name"] == "all-fives").unwrap();
    if let Some(d) = all_fives["description"].as_str() {
        assert!(about.contains(d), "the lobby shows the server's description {d:?}: {about}");
    }
    let text = b.js("return document.body.innerText").await;
    let text = text.as_str().unwrap();
    assert!(
        !text.contains("README") && !text.contains("/api/"),
        "the lobby speaks to players, not to programmers: {text}"
    );

    // The rules of every game: each preset with its page.
    b.click_named("The rules of every game, and the words of the table").await;
    b.wait_js(
        "the rules page",
        "return location.hash === '#/rules' && document.querySelector('main h1')?.textContent === 'Rules'",
    )
    .await;
    let listed = b
        .wait_js("the presets listed", "return [...document.querySelectorAll('main ul a')].map((a) => a.textContent)")
        .await;
    let mut want = names(&cat["presets"]);
    want.extend(names(&cat["poly-presets"]));
    assert_eq!(listed, json!(want), "every preset has its rules page");
    let words = b.js("return [...document.querySelectorAll('dt')].map((d) => d.textContent)").await;
    assert_eq!(words, json!(["capicúa", "tranque", "pase", "data", "la mano"]));
    b.click_named("latin").await;
    let rules = b
        .wait_js(
            "latin's rules",
            "return document.querySelector('main h1')?.textContent === 'Rules of latin' && [...document.querySelectorAll('.rule-lines li')].map((l) => l.textContent)",
        )
        .await;
    assert!(rules.as_array().unwrap().len() >= 4, "latin's rules in words: {rules}");
    // Every rules page says which sources its rules follow.
    let sources = b.js("return document.querySelector('[data-key=\"rules-sources\"]')?.textContent").await;
    assert!(
        sources.as_str().is_some_and(|t| t.starts_with("Sources and choices:") && t.contains("[6|6] leads")),
        "{sources}"
    );
    // A poly preset's page, opened by its address (the table links there).
    let poly = want.last().unwrap().clone();
    b.open(&format!("/#/rules/{poly}")).await;
    b.wait_js(
        "a poly preset's page",
        &format!("return document.querySelector('main h1')?.textContent === 'Rules of {poly}'"),
    )
    .await;
    let sources = b.js("return document.querySelector('[data-key=\"rules-sources\"]')?.textContent").await;
    assert!(sources.as_str().is_some_and(|t| t.len() > 40), "{poly}'s sources: {sources}");

    // The Replays list: the winners by their seats.
    let g = server.get_json(&format!("/api/games/{game}")).await;
    let winner = g["winner"].as_u64().expect("latin matches are won");
    let seats: Vec<String> = g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["side"] == json!(winner))
        .map(|s| (s["seat"].as_u64().unwrap() + 1).to_string())
        .collect();
    b.open("/#/replays").await;
    let row = b
        .wait_js(
            "the stored game listed",
            &format!(
                "const a = [...document.querySelectorAll('table a')].find((a) => a.textContent === 'Game {game}'); \
                 return a ? a.closest('tr').innerText : null"
            ),
        )
        .await;
    let row = row.as_str().unwrap();
    let won = format!("Seats {} and {} won", seats[0], seats[1]);
    assert!(row.contains(&won), "{row} says {won:?}");
    assert!(!row.contains("bot:random and bot:random"), "{row}");
    b.close().await;
}

/// The review's "Move N" link opens move N: the replay says "Move N of …",
/// the move is in this step's words, and the review of it is shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_link_opens_the_move_it_names() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let game = guest_and_bots(&server).await;
    let review = server.get_json(&format!("/api/games/{game}/review?seat=0")).await;
    let decisions = review["decisions"].as_array().unwrap();
    assert!(decisions.len() >= 2, "{review}");
    let g = server.replay(game, "seat=0").await;
    let total = g["steps"].as_array().unwrap().len();
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/replay/{game}?seat=0")).await;
    // A decision is marked a mistake (✗) only where the server found one:
    // a loss beyond the estimates' error, not any other choice.
    let marks = b
        .wait_js(
            "the review",
            "const l = [...document.querySelectorAll('[aria-label=\"decisions\"] li')]; return l.length && l.map((li) => li.dataset.mistake === 'true')",
        )
        .await;
    let want: Vec<bool> =
        decisions.iter().map(|d| d["mistake"].as_bool().unwrap_or(d["played"] != d["best"])).collect();
    assert_eq!(marks, json!(want), "the mistakes marked");
    for d in [&decisions[1], decisions.last().unwrap()] {
        let step = d["step"].as_u64().unwrap() as usize;
        let n = step + 1;
        b.click_named(&format!("Move {n}")).await;
        let status = format!("Move {n} of {total}");
        b.wait_js(
            &status,
            &format!(
                "return [...document.querySelectorAll('[aria-label=\"replay controls\"] [role=\"status\"]')][0]?.textContent === {}",
                json!(status)
            ),
        )
        .await;
        assert!(
            b.js("return location.hash").await.as_str().unwrap().ends_with(&format!("step={n}")),
            "the address names step {n}"
        );
        // The step shows the move the link names: its first event is seat 1's.
        let first = &g["steps"][step]["events"][0];
        assert_eq!(first["seat"], json!(0), "move {n} is seat 1's: {first}");
        let shown = b.js("return document.querySelector('[aria-label=\"this move\"]').textContent").await;
        assert!(shown.as_str().unwrap().starts_with("Seat 1 (this view)"), "{shown}");
        let hint = b
            .wait_js(
                "the review of that move",
                "return document.querySelector('[data-key=\"replay-hint\"]')?.textContent",
            )
            .await;
        assert!(hint.as_str().unwrap().starts_with(&format!("Move {n}: ")), "{hint}");
    }
    b.close().await;
}

/// A replay shows the end of each hand: at the step that ends it, the
/// board with its last tile and every seat's remaining tiles face up, with
/// the hand's result; the step after it is the next deal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_shows_each_hands_end_with_the_hands_turned_up() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let game = guest_and_bots(&server).await;
    let g = server.replay(game, "seat=0").await;
    let steps = g["steps"].as_array().unwrap();
    let k = 1 + steps.iter().position(|s| s["hand-end"].is_object()).expect("a step ends a hand");
    let end = &steps[k - 1]["hand-end"];
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/replay/{game}?seat=0&step={k}")).await;
    let shown = b
        .wait_js(
            "the hands turned up",
            "const r = document.querySelector('[aria-label=\"the hands turned up\"]'); \
             return r && { hands: [...r.querySelectorAll('[role=\"group\"]')].map((g) => g.getAttribute('aria-label')), \
               board: document.querySelectorAll('[aria-label=\"the board\"] [role=\"img\"]').length, \
               result: [...document.querySelectorAll('h2')].some((h) => h.textContent === 'Hand 1 result') }",
        )
        .await;
    let hands = end["view"]["hands"].as_array().unwrap();
    assert_eq!(shown["hands"].as_array().unwrap().len(), hands.len(), "every seat's tiles: {shown}");
    for (label, tiles) in shown["hands"].as_array().unwrap().iter().zip(hands) {
        let named = browser_support::tiles_in(label.as_str().unwrap());
        assert_eq!(named.len(), tiles.as_array().unwrap().len(), "{label} shows {tiles}");
    }
    let (_, on_board) = browser_support::view_tiles(&end["view"]);
    assert_eq!(shown["board"], json!(on_board.len()), "the final board, its last tile laid");
    let (_, before) = browser_support::view_tiles(&steps[k - 2]["view"]);
    let laid = usize::from(steps[k - 1]["events"][0]["event"] == "played");
    assert_eq!(on_board.len(), before.len() + laid, "the board of the step before, and the hand's last tile");
    assert_eq!(shown["result"], json!(true), "the hand's result is shown");
    b.client.set_window_size(1280, 1400).await.unwrap();
    b.screenshot("replay-hand-end").await;
    // The next step is the next deal: no hands turned up.
    b.click_named("next move").await;
    b.wait_js(&format!("Move {} of", k + 1), "return !document.querySelector('[aria-label=\"the hands turned up\"]')")
        .await;
    b.close().await;
}

// --- Play now ------------------------------------------------------------------

/// The Play now card's wait line, when one shows.
const SEEKING: &str = "return document.querySelector('.playnow .seek-wait')?.textContent || null";

/// The room a page sits at (`#/room/N`) once the match there is under way,
/// and the seat (from 1) that the page shows as its own: the one its panels
/// of the other seats leave out.
const SEATED: &str = r#"
  const m = location.hash.match(/^#\/room\/(\d+)$/);
  const others = [...document.querySelectorAll('section.seats .seat')].map((e) => Number(e.getAttribute('aria-label').match(/^seat (\d+)/)[1]));
  if (!m || !others.length) return null;
  const mine = [...Array(others.length + 1).keys()].map((i) => i + 1).find((i) => !others.includes(i));
  return [Number(m[1]), mine];
"#;

/// What `GET /api/seeks` says, once it says `want`.
async fn seeks_become(server: &TestServer, want: Value) {
    wait_for("the seeks", WAIT, async || {
        let got = server.get_json("/api/seeks").await;
        if got["seeks"] == want { Ok(()) } else { Err(got) }
    })
    .await;
}

/// Chooses a Play now table and presses its button.
async fn play_now(b: &Browser, game: &str, players: &str) {
    b.choose("Game", game).await;
    b.choose("Players", players).await;
    b.click_named("Play now").await;
}

/// Two guests in two browsers: one seeks, sees the wait and can cancel;
/// the queue shows the other how many seek what; when the second presses
/// Play now for the same table both land at one room, each in a seat of
/// their own, and the match begins without another click.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_click_play_now_and_land_at_one_table() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(ana) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ana).await;
    let nobody =
        ana.wait_js("the empty queue", "return document.querySelector('.seek-queue')?.textContent || null").await;
    assert!(nobody.as_str().unwrap().contains("Nobody is seeking"), "{nobody}");
    play_now(&ana, "draw", "2").await;
    let wait = ana.wait_js("ana's wait", SEEKING).await;
    assert!(wait.as_str().unwrap().starts_with("Looking for people: draw, 2 players."), "{wait}");
    seeks_become(&server, json!([{"preset": "draw", "seats": 2, "rated": false, "waiting": 1}])).await;
    // The wait counts up while it lasts.
    ana.wait_js(
        "the wait's clock to move",
        "const c = document.querySelector('.seek-clock')?.textContent; return c && c !== '0:00' ? c : null",
    )
    .await;
    // Cancel leaves the queue at once and gives the form back.
    ana.click_named("Cancel").await;
    seeks_become(&server, json!([])).await;
    ana.wait_js(
        "the form back, and no wait shown",
        "return !document.querySelector('.playnow .seek-wait') && document.querySelector('[data-key=\"p-go\"]').offsetParent !== null",
    )
    .await;
    play_now(&ana, "draw", "2").await;
    ana.wait_js("ana's wait again", SEEKING).await;
    ana.screenshot("play-now-seeking").await;

    let Some(ben) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ben).await;
    let queue = ben
        .wait_js(
            "ana's seek in ben's queue",
            "const q = document.querySelector('.seek-queue')?.innerText || ''; return q.includes('1 waiting') ? q : null",
        )
        .await;
    assert!(queue.as_str().unwrap().contains("draw · 2 players"), "{queue}");
    ben.screenshot("play-now-queue").await;
    play_now(&ben, "draw", "2").await;
    let at_ana = ana.wait_js("ana at the table", SEATED).await;
    let at_ben = ben.wait_js("ben at the table", SEATED).await;
    assert_eq!(at_ana[0], at_ben[0], "one table: {at_ana} {at_ben}");
    assert_ne!(at_ana[1], at_ben[1], "a seat each: {at_ana} {at_ben}");
    let room = at_ana[0].as_u64().unwrap();
    let info = server.room_info(room).await;
    assert_eq!(info["variant"], "draw", "{info}");
    assert_ne!(info["status"], "waiting", "both were made ready: {info}");
    let names: Vec<&str> =
        info["seats"].as_array().unwrap().iter().map(|s| s["occupant"]["name"].as_str().unwrap()).collect();
    for b in [&ana, &ben] {
        let who = b.js("return document.getElementById('who').textContent").await;
        assert!(names.iter().any(|n| who.as_str().unwrap().contains(n)), "{who} sits in {names:?}");
    }
    seeks_become(&server, json!([])).await;
    ben.close().await;
    ana.close().await;
}

/// Four people seek a latin table, one after another: the fourth forms it,
/// and all four land at one room in pairs, each in a seat of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_people_seek_latin_and_form_a_partnership_table() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let mut people = vec![];
    for n in 1..=4u64 {
        let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
        lobby(&b).await;
        play_now(&b, "latin", "4").await;
        b.wait_js("the wait", SEEKING).await;
        if n < 4 {
            seeks_become(&server, json!([{"preset": "latin", "seats": 4, "rated": false, "waiting": n}])).await;
        }
        people.push(b);
    }
    let mut seats = std::collections::BTreeSet::new();
    let mut rooms = std::collections::BTreeSet::new();
    for b in &people {
        let at = b.wait_js("a seat at the table", SEATED).await;
        rooms.insert(at[0].as_u64().unwrap());
        seats.insert(at[1].as_u64().unwrap());
    }
    assert_eq!(rooms.len(), 1, "one table: {rooms:?}");
    assert_eq!(seats.len(), 4, "four seats: {seats:?}");
    let info = server.room_info(*rooms.first().unwrap()).await;
    let sides: Vec<u64> = info["seats"].as_array().unwrap().iter().map(|s| s["side"].as_u64().unwrap()).collect();
    assert_eq!(sides, [0, 1, 0, 1], "partners sit across: {info}");
    assert!(info["seats"].as_array().unwrap().iter().all(|s| s["occupant"]["kind"] == "guest"), "four people: {info}");
    seeks_become(&server, json!([])).await;
    for b in people {
        b.close().await;
    }
}

/// On a phone, in Spanish: Play now is tapped with a finger, the wait and
/// its Cancel fit the screen, and Cancel ends the seek.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_in_spanish_play_now_waits_and_cancels() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let flags = ["--lang=es-ES", "--accept-lang=es-ES,es"];
    let Some(b) = Browser::start_phone(format!("http://{}", server.addr), &flags).await else { return };
    lobby(&b).await;
    b.choose("Juego", "draw").await;
    b.tap_named("Jugar ya").await;
    let wait = b.wait_js("the wait", SEEKING).await;
    assert!(wait.as_str().unwrap().starts_with("Buscando personas: draw, 2 jugadores."), "{wait}");
    b.wait_js("the queue", "return (document.querySelector('.seek-queue')?.innerText || '').includes('1 esperando')")
        .await;
    no_overflow(&b, "the lobby while seeking").await;
    b.js("window.scrollTo(0, 0)").await;
    b.screenshot("play-now-phone-es").await;
    b.tap_named("Cancelar").await;
    seeks_become(&server, json!([])).await;
    b.wait_js("the form back", "return document.querySelector('[data-key=\"p-go\"]').offsetParent !== null").await;
    b.close().await;
}

/// A registered player opens a rated room from the form; the lobby marks
/// it rated, and a guest, whom a rated room does not admit, is offered no
/// seat in it (only to watch) and cannot tick the box.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_player_opens_a_rated_room_from_the_form_and_a_guest_only_watches_it() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(ana) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ana).await;
    ana.register("Ana María").await;
    ana.wait_js("the rated box, open to a registered name", "return !document.getElementById('c-rated').disabled")
        .await;
    ana.choose("Variant", "block").await;
    ana.choose("Table", "2").await;
    ana.choose("Fill the other seats with bots", "").await;
    ana.client.find(fantoccini::Locator::Id("c-rated")).await.unwrap().click().await.unwrap();
    ana.click_named("Create and sit down").await;
    ana.wait_named("I'm ready").await;
    let hash = ana.wait_js("the room's page", "return location.hash.startsWith('#/room/') && location.hash").await;
    let room: u64 = hash.as_str().unwrap().trim_start_matches("#/room/").parse().unwrap();
    let info = server.room_info(room).await;
    assert_eq!(info["rated"], true, "{info}");
    assert_eq!(info["seats"][0]["occupant"]["name"], "Ana María", "{info}");

    let Some(guest) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&guest).await;
    guest.wait_named(&format!("watch room {room}")).await;
    let row = guest.js(&format!("return document.querySelector('tr[aria-label=\"room {room}\"]').innerText")).await;
    assert!(row.as_str().unwrap().contains("rated"), "{row}");
    assert!(
        guest.find_named(&format!("join room {room}")).await.is_err(),
        "a guest is offered no seat in a rated room"
    );
    assert_eq!(guest.js("return document.getElementById('c-rated').disabled").await, json!(true));
    guest.close().await;
    ana.close().await;
}

/// Makes one move for whoever's turn it is on the page (the first end to
/// choose, the first playable tile, else draw or pass), or presses
/// Continue at a hand's end; the stored game once the match is over.
async fn step(b: &Browser) -> Option<i64> {
    use browser_support::{LOOK, xpath_literal};
    use fantoccini::Locator;
    let look = b.js(LOOK).await;
    if !look["over"].is_null() {
        return Some(look["game"].as_i64().unwrap_or(-1));
    }
    if look["turn"] != true {
        b.continue_hand().await;
        return None;
    }
    let first = |k: &str| look[k].as_array().and_then(|a| a.first()).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(name) = first("choices").or_else(|| first("playable")).or_else(|| first("moves")) {
        b.click_now(Locator::XPath(&format!("//button[@aria-label={}]", xpath_literal(&name)))).await;
    }
    None
}

/// Two registered people play a rated match in two browsers: the result
/// shows what it did to both ratings, the leaderboard ranks them with
/// their new ratings (provisional) and marks the reader's own row, and the
/// profile lists the rating and the game with its change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_match_between_two_people_moves_both_ratings_and_the_leaderboard_shows_them() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(ana) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ana).await;
    ana.register("Ana").await;
    ana.choose("Variant", "block").await;
    ana.choose("Table", "2").await;
    ana.choose("Fill the other seats with bots", "").await;
    ana.client.find(fantoccini::Locator::Id("c-rated")).await.unwrap().click().await.unwrap();
    ana.click_named("Create and sit down").await;
    ana.click_named("I'm ready").await;
    let hash = ana.wait_js("the room's page", "return location.hash.startsWith('#/room/') && location.hash").await;
    let room: u64 = hash.as_str().unwrap().trim_start_matches("#/room/").parse().unwrap();

    let Some(ben) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&ben).await;
    ben.register("Ben").await;
    ben.click_named(&format!("join room {room}")).await;
    ben.click_named("I'm ready").await;

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    let (mut at_ana, mut at_ben) = (None, None);
    while at_ana.is_none() || at_ben.is_none() {
        assert!(std::time::Instant::now() < deadline, "the match did not end in time");
        if at_ana.is_none() {
            at_ana = step(&ana).await;
        }
        if at_ben.is_none() {
            at_ben = step(&ben).await;
        }
    }
    assert_eq!(at_ana, at_ben, "one stored game");
    let game = at_ana.unwrap();
    assert!(game > 0, "the result links to the stored game");

    // The result card says what the match did to both ratings, the reader's first.
    let changes = ana
        .wait_js(
            "the rating changes on the result",
            "const l = document.querySelector('[aria-label=\"Rating changes\"]'); return l ? [...l.children].map((li) => li.textContent) : null",
        )
        .await;
    let changes: Vec<&str> = changes.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    ana.screenshot("rated-result").await;
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(changes[0].starts_with("You: "), "{changes:?}");
    assert!(changes[1].contains("(Ben)"), "{changes:?}");
    assert!(changes.iter().all(|c| c.contains("?") && c.contains("(provisional)")), "{changes:?}");
    let stored = server.get_json(&format!("/api/games/{game}?limit=1")).await;
    let winner = stored["winner"].as_u64().expect("block is won by one side") as usize;
    let moves = stored["ratings"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{stored}");
    for m in moves {
        let won = m["seat"].as_u64().unwrap() as usize == winner;
        let change = m["change"].as_i64().unwrap();
        assert!(if won { change > 0 } else { change < 0 }, "{m}");
        assert_eq!(m["after"].as_i64().unwrap() - m["before"].as_i64().unwrap(), change);
        assert_eq!(m["before"], 1500, "{m}");
    }
    let sign = |c: i64| if c > 0 { format!("+{c}") } else { format!("\u{2212}{}", -c) };
    let ana_move = moves
        .iter()
        .find(|m| m["seat"] == stored["seats"].as_array().unwrap().iter().find(|s| s["name"] == "Ana").unwrap()["seat"])
        .unwrap();
    assert!(
        changes[0].contains(&format!("{}? ({})", ana_move["after"], sign(ana_move["change"].as_i64().unwrap()))),
        "{changes:?} {ana_move}"
    );

    // Both on the leaderboard, the winner first, with the shown ratings.
    let board = server.get_json("/api/leaderboard?variant=block").await;
    let rows = board.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{board}");
    let winner_name = stored["seats"][winner]["name"].as_str().unwrap();
    assert_eq!(rows[0]["name"], winner_name, "{board}");
    assert!(rows.iter().all(|r| r["provisional"] == true && r["games"] == 1), "{board}");
    assert!(rows[0]["rating"].as_i64().unwrap() > 1500 && rows[1]["rating"].as_i64().unwrap() < 1500, "{board}");

    // The page's leaderboard marks Ana's row.
    ana.open("/?pace=0#/standings").await;
    ana.choose("Variant", "block").await;
    let mine = ana
        .wait_js(
            "Ana's row marked",
            "const r = document.querySelector('tr[aria-current=\"true\"]'); return r ? r.innerText : null",
        )
        .await;
    let mine = mine.as_str().unwrap();
    assert!(mine.contains("Ana") && mine.contains(&format!("{}?", ana_move["after"])), "{mine}");
    let rows_marked = ana.js("return document.querySelectorAll('tr[aria-current]').length").await;
    assert_eq!(rows_marked, json!(1));

    // Her name opens her profile: the board's rating and the game with its change.
    ana.click_named("Ana").await;
    let profile = ana
        .wait_js(
            "Ana's profile",
            "const t = document.querySelector('table[class~=\"cards\"] caption'); return location.hash === '#/player/Ana' && document.querySelectorAll('main table').length === 2 ? document.querySelector('main').innerText : null",
        )
        .await;
    let profile = profile.as_str().unwrap();
    assert!(profile.contains("This is you."), "{profile}");
    assert!(profile.contains(&format!("Game {game}")), "{profile}");
    assert!(
        profile.contains(&format!("{}? ({})", ana_move["after"], sign(ana_move["change"].as_i64().unwrap()))),
        "{profile}"
    );
    ana.screenshot("profile").await;
    // A name nobody has says so.
    ana.open("/?pace=0#/player/Nobody%20Here").await;
    let missing = ana
        .wait_js("no such player", "return document.querySelector('main [role=\"alert\"]')?.textContent || null")
        .await;
    assert!(missing.as_str().unwrap().contains("Nobody has that name"), "{missing}");
    // Ben's, in Spanish, from his name at the top of the page.
    ben.click_named("Español").await;
    ben.click_named("Conectado como Ben").await;
    let perfil = ben
        .wait_js(
            "Ben's profile in Spanish",
            "return location.hash === '#/player/Ben' && document.querySelectorAll('main table').length === 2 ? document.querySelector('main').innerText : null",
        )
        .await;
    let perfil = perfil.as_str().unwrap();
    assert!(
        perfil.contains("Eres tú.") && perfil.contains("Partidas recientes") && perfil.contains("Perdida"),
        "{perfil}"
    );
    ben.screenshot("profile-es").await;
    ben.close().await;
    ana.close().await;
}
