//! Watching in the browser: a watcher pauses a live match, steps through
//! it one move at a time and plays it on; a knockout's page follows the
//! tournament live, through a dropped connection, and draws its bracket. In a real headless Chromium
//! against a real server.
//!
//! The page is read through roles and accessible names only. Each test
//! skips (passing, with a message) where Chromium or chromedriver is
//! missing, unless `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use browser_support::Browser;
use common::{Client, TestServer};
use serde_json::{Value, json};

/// What the page says it has shown: the room's `seq` and the moves of
/// this hand, from the watch controls' status.
const SHOWN: &str = "const s = document.querySelector('[aria-label=\"moves shown\"]'); \
     return s ? [Number(s.dataset.seq), Number(s.dataset.moves), s.textContent] : null";

/// Seats playing the match, moved by the test so the server's pace is
/// known exactly: each `step` is one move, and returns the room's `seq`.
struct Seats {
    a: Client,
    b: Client,
    room: u64,
    salt: u64,
}

impl Seats {
    /// Two guests seated in a two-seat draw game, its match started.
    async fn draw_game(server: &TestServer) -> Seats {
        let mut a = server.guest().await;
        let mut b = server.guest().await;
        let room = a.create_room(json!({"preset": "draw", "seats": 2})).await;
        a.join(room, Some(0)).await;
        b.join(room, Some(1)).await;
        a.ready(room).await;
        b.ready(room).await;
        Seats { a, b, room, salt: 0 }
    }

    /// Makes the next move (whoever is prompted) and returns the room's
    /// `seq` after it.
    async fn step(&mut self) -> u64 {
        let (mover, prompt) = tokio::select! {
            p = self.a.recv_type("prompt") => (&mut self.a, p),
            p = self.b.recv_type("prompt") => (&mut self.b, p),
        };
        self.salt += 1;
        let m = common::pick(&prompt["legal-moves"], self.salt);
        mover
            .send(json!({"type": "move", "family": "tiles", "room": self.room, "prompt": prompt["prompt"], "move": m}))
            .await;
        mover.recv_type("events").await["seq"].as_u64().unwrap()
    }
}

async fn shown(b: &Browser) -> (u64, u64, String) {
    let v: Value = b.wait_js("the watch controls' status", SHOWN).await;
    (v[0].as_u64().unwrap(), v[1].as_u64().unwrap(), v[2].as_str().unwrap().to_string())
}

/// Waits until the page has shown the room up to `seq`.
async fn wait_shown(b: &Browser, what: &str, seq: u64) {
    let script =
        format!("return Number(document.querySelector('[aria-label=\"moves shown\"]')?.dataset.seq) === {seq}");
    b.wait_js(what, &script).await;
}

/// Waits until the page says it holds `n` moves.
async fn wait_held(b: &Browser, n: usize) {
    let script =
        format!("return document.querySelector('[aria-label=\"moves shown\"]')?.textContent.endsWith(', {n} waiting')");
    b.wait_js(&format!("{n} moves held"), &script).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_pauses_steps_one_move_and_plays_on() {
    let server = TestServer::start().await;
    let mut seats = Seats::draw_game(&server).await;
    let mut seq = seats.step().await;

    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/room/{}", seats.room)).await;
    wait_shown(&b, "the watcher to catch up", seq).await;
    seq = seats.step().await;
    wait_shown(&b, "a move shown live", seq).await;

    b.click_named("Pause").await;
    b.wait_named("Play").await;
    let (paused_seq, paused_moves, _) = shown(&b).await;
    assert_eq!(paused_seq, seq);
    // Two moves on the server: the page holds both, and shows neither.
    let mut server_seqs = vec![];
    for n in 1..=2 {
        server_seqs.push(seats.step().await);
        wait_held(&b, n).await;
        let (s, m, text) = shown(&b).await;
        assert_eq!((s, m), (paused_seq, paused_moves), "a paused page showed a move: {text}");
    }
    assert!(server_seqs.iter().all(|&s| s > paused_seq), "the server moved on: {server_seqs:?}");

    // One step shows exactly one move, and the next stays held.
    b.click_named("Step one move").await;
    wait_shown(&b, "the stepped move", server_seqs[0]).await;
    let (s, m, text) = shown(&b).await;
    assert_eq!((s, m), (server_seqs[0], paused_moves + 1), "one step, one move: {text}");
    assert!(text.ends_with(", 1 waiting"), "the second move is still held: {text}");
    b.screenshot("watch-controls").await;

    // Play shows what was held and follows the match again.
    b.click_named("Play").await;
    wait_shown(&b, "the held move after play", server_seqs[1]).await;
    b.wait_named("Pause").await;
    let next = seats.step().await;
    wait_shown(&b, "a live move after play", next).await;
    let (_, m, text) = shown(&b).await;
    assert_eq!(m, paused_moves + 3, "every move is shown once: {text}");

    // The speeds are buttons; the chosen one is pressed.
    b.click_named("speed 4x").await;
    b.wait_js(
        "4x chosen",
        "return document.querySelector('[aria-label=\"speed 4x\"]')?.getAttribute('aria-pressed') === 'true'",
    )
    .await;
    b.close().await;
}

/// A watcher at the default pace keeps within a few moves of a match
/// played faster than the pace (the page skips the pace while behind),
/// and Pause works on the first press, held as a person holds it, while
/// moves keep arriving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_keeps_up_with_a_fast_match_and_pauses_on_the_first_press() {
    let server = TestServer::start().await;
    let mut seats = Seats::draw_game(&server).await;
    let mut seq = seats.step().await;

    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    // The default pace: 450 ms a move.
    b.open(&format!("/?pace=450#/room/{}", seats.room)).await;
    wait_shown(&b, "the watcher to catch up", seq).await;
    // Moves every 100 ms, four times faster than the pace: the page stays
    // within five moves of the room (given 200 ms for what is in
    // flight). A hand's end is shown its few seconds meanwhile, with no
    // move made.
    let mut worst = 0;
    for _ in 0..40 {
        b.wait_js("no hand's end on screen", "return !document.querySelector('[aria-label=\"the hands, face up\"]')")
            .await;
        seq = seats.step().await;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
        loop {
            let (shown_seq, _, _) = shown(&b).await;
            let behind = seq.saturating_sub(shown_seq);
            if behind <= 5 {
                worst = worst.max(behind);
                break;
            }
            assert!(std::time::Instant::now() < deadline, "the watcher stayed {behind} moves behind");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    eprintln!("the watcher was at most {worst} moves behind");
    // Pause, pressed once for 150 ms while moves arrive every 30 ms.
    let stream = async {
        for _ in 0..12 {
            seats.step().await;
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        }
    };
    let press = b.press_named("Pause", std::time::Duration::from_millis(150));
    tokio::join!(stream, press);
    b.wait_js("paused by one press", "return !!document.querySelector('[data-key=\"watch-play\"]') && document.querySelector('[data-key=\"watch-play\"]').textContent === 'Play'").await;
    b.close().await;
}

const ADMIN: &str = "admin-secret";

/// An entrant's name in a tournament's detail (`entrants`).
fn entrant_name(detail: &Value, i: &Value) -> String {
    let e = &detail["entrants"][i.as_u64().unwrap() as usize];
    e.as_str().or(e["name"].as_str()).unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_knockout_page_updates_live_and_draws_its_bracket() {
    let server = TestServer::start_with(
        common::temp_db(),
        capicua_server::Config { admin_token: Some(ADMIN.into()), ..common::config() },
    )
    .await;
    // ana is played by the test, so her tables wait for it: the page is
    // open before any of her matches ends.
    let (mut ana, _) = server.player("ana").await;
    assert_eq!(ana.request(json!({"type": "await-assignments"})).await["type"], "awaiting");
    let spec = json!({
        "name": "cup", "seed": 1, "table": "duel", "variants": ["block"],
        "entrants": ["ana", "bot:random", "bot:heuristic", "bot:smart"],
        "stages": [{"format": "knockout"}],
    });
    let (status, created) = server.post_json("/api/tournaments", Some(ADMIN), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();

    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    b.open(&format!("/?pace=0#/standings/tournament/{id}")).await;
    b.wait_named("tournament status").await;
    // A mark that a reload would wipe.
    b.js("window.notReloaded = true; return null").await;
    // The connection drops (as a network would) and comes back by itself:
    // the page must subscribe again on the new one to hear of ana's match.
    b.wait_js("the page's first greeting", "return window.capicuaConnection?.greeted === 1 || null").await;
    b.js("window.capicuaConnection.ws.close(); return null").await;
    b.wait_js(
        "the page greeted again after the drop",
        "const c = window.capicuaConnection; return (c.greeted === 2 && c.ready) || null",
    )
    .await;
    // The standings table is named by its caption.
    let ana_games = "const t = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'standings of cup'); \
        const row = t && [...t.rows].find((r) => r.cells[1]?.textContent === 'ana'); return row ? Number(row.cells[6].textContent) : -1";
    assert!(b.js(ana_games).await.as_i64().unwrap() <= 0, "ana has not played yet");

    // ana plays every table she is given, until the tournament ends.
    let play = tokio::spawn(async move {
        loop {
            let v = ana.recv_untimed().await;
            match v["type"].as_str().unwrap_or_default() {
                "assignment" => {
                    let room = v["room"].as_u64().unwrap();
                    ana.join(room, v["seat"].as_u64().map(|s| s as u8)).await;
                    ana.ready(room).await;
                }
                "prompt" => {
                    let m = common::pick(&v["legal-moves"], v["prompt"].as_u64().unwrap());
                    ana.send(
                        json!({"type": "move", "family": "tiles", "room": v["room"], "prompt": v["prompt"], "move": m}),
                    )
                    .await;
                }
                _ => {}
            }
        }
    });
    b.wait_js(
        "ana's first match in the standings, without a reload",
        &ana_games.replace(
            "return row ? Number(row.cells[6].textContent) : -1",
            "return window.notReloaded && row && Number(row.cells[6].textContent) > 0",
        ),
    )
    .await;
    b.wait_js(
        "the tournament finished on the page",
        "return document.querySelector('[aria-label=\"tournament status\"]')?.textContent.startsWith('Status: finished')",
    )
    .await;
    assert_eq!(b.js("return window.notReloaded === true").await, json!(true), "the page was not reloaded");
    play.abort();

    // The bracket: two rounds, each match named with its winner, as stored.
    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    let mut want = vec![];
    for r in detail["rounds"].as_array().unwrap() {
        for tb in r["tables"].as_array().unwrap() {
            let sides = tb["sides"].as_array().unwrap();
            let w = tb["result"]["winner"].as_u64().expect("a knockout match has a winner") as usize;
            let loser = sides.iter().enumerate().find(|&(i, _)| i != w).unwrap().1;
            want.push(format!(
                "round {}, table {}: {} beat {}",
                r["number"].as_u64().unwrap() + 1,
                tb["id"].as_u64().unwrap() + 1,
                entrant_name(&detail, &sides[w][0]),
                entrant_name(&detail, &loser[0]),
            ));
        }
    }
    assert_eq!(want.len(), 3, "four entrants: two semi-finals and a final: {want:?}");
    let shown = b
        .js("return [...document.querySelectorAll('[aria-label=\"bracket\"] [role=\"listitem\"]')].map((e) => e.getAttribute('aria-label'))")
        .await;
    assert_eq!(shown, json!(want), "the bracket shows every match and its winner");
    let columns = b.js("return [...document.querySelectorAll('[aria-label=\"bracket\"] [role=\"list\"]')].map((e) => e.getAttribute('aria-label'))").await;
    assert_eq!(columns, json!(["round 1", "round 2"]));
    b.js("document.querySelector('[aria-label=\"bracket\"]').scrollIntoView({block: 'center'}); return null").await;
    b.screenshot("bracket").await;
    b.close().await;
}
