//! Browser harness: a real headless Chromium, driven over WebDriver
//! (`fantoccini` to a `chromedriver` this test starts on a free port),
//! looking at the page the way assistive technology does: by roles and
//! accessible names (`aria-label`, button text), never by CSS classes.
//!
//! Without `chromium` and `chromedriver` the tests print why and pass,
//! unless `CAPICUA_REQUIRE_BROWSER=1` (CI), where that is a failure.
#![allow(dead_code)]

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::common::{TestServer, wait_for};

/// How long a step may take before the test fails (a whole match is
/// many steps; each one is a few milliseconds when all is well).
pub const STEP: Duration = Duration::from_secs(20);

/// Pause between two looks at the page while waiting for a condition.
const POLL: Duration = Duration::from_millis(15);

/// A browser session against one server.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    /// `http://127.0.0.1:PORT` of the server under test.
    pub base: String,
}

fn find_program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p)).filter(|p| p.exists());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| names.iter().map(move |n| dir.join(n))).find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Browser {
    /// A headless Chromium at a fixed window size, or `None` (after saying
    /// why) when the machine has no Chromium or chromedriver and the
    /// browser is not required.
    pub async fn start(base: String) -> Option<Browser> {
        Self::start_with(base, &[]).await
    }

    /// [`Browser::start`] with more Chromium flags (such as
    /// `--blink-settings=preferredColorScheme=0`, a dark system theme).
    pub async fn start_with(base: String, flags: &[&str]) -> Option<Browser> {
        Self::start_opts(base, flags, json!({})).await
    }

    /// A phone: Chromium's mobile emulation at 390x844 with touch events
    /// (a tap is a touch, not a mouse click).
    pub async fn start_phone(base: String, flags: &[&str]) -> Option<Browser> {
        let phone = json!({ "mobileEmulation": { "deviceMetrics": {
            "width": 390, "height": 844, "pixelRatio": 1.0, "touch": true, "mobile": true
        } } });
        Self::start_opts(base, flags, phone).await
    }

    /// [`Browser::start_with`] with more `goog:chromeOptions` (merged in).
    pub async fn start_opts(base: String, flags: &[&str], chrome: Value) -> Option<Browser> {
        let chromium = find_program("CAPICUA_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"]);
        let driver = find_program("CAPICUA_CHROMEDRIVER", &["chromedriver"]);
        let (Some(chromium), Some(driver)) = (chromium, driver) else {
            let msg = "SKIPPED: the browser tests need `chromium` and `chromedriver` on PATH \
                       (Debian: apt-get install chromium chromium-driver)";
            if std::env::var("CAPICUA_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("CAPICUA_REQUIRE_BROWSER=1, but {msg}");
            }
            eprintln!("{msg}");
            return None;
        };
        let port = free_port();
        // Its own process group: the browsers it starts belong to it, so a
        // failed test can end them all with the driver (see `Drop`).
        let child = Command::new(&driver)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
        let mut browser = None;
        let deadline = Instant::now() + STEP;
        let mut args = vec![
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1280,900",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ];
        args.extend_from_slice(flags);
        let mut options = json!({ "binary": chromium, "args": args });
        if let (Some(o), Some(more)) = (options.as_object_mut(), chrome.as_object()) {
            o.extend(more.clone());
        }
        let caps = json!({ "browserName": "chrome", "goog:chromeOptions": options });
        let caps = caps.as_object().unwrap().clone();
        // chromedriver listens a moment after it starts: retry until it answers.
        let mut last = String::new();
        while Instant::now() < deadline {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(c) => {
                    browser = Some(c);
                    break;
                }
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut child = child;
        let Some(client) = browser else {
            let _ = child.kill();
            panic!("chromedriver on port {port} gave no session: {last}");
        };
        Some(Browser { client, driver: child, base })
    }

    /// Loads a page of the server (a path such as `/?pace=0#/`).
    pub async fn open(&self, path: &str) {
        self.client.goto(&format!("{}{path}", self.base)).await.expect("page loads");
    }

    /// Runs a script, returning what it returns.
    pub async fn js(&self, script: &str) -> Value {
        self.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Polls `script` until it returns something truthy (not null, false,
    /// 0 or ""), and returns that; panics naming `what` after [`STEP`].
    pub async fn wait_js(&self, what: &str, script: &str) -> Value {
        let deadline = Instant::now() + STEP;
        loop {
            let v = self.js(script).await;
            let truthy = !matches!(&v, Value::Null | Value::Bool(false))
                && v != json!(0)
                && v != json!("")
                && v.as_array().is_none_or(|a| !a.is_empty());
            if truthy {
                return v;
            }
            if Instant::now() > deadline {
                let seen = self.js("return document.body.innerText.slice(0, 2000)").await;
                panic!("waited {STEP:?} for {what}; the page shows:\n{}", seen.as_str().unwrap_or_default());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The element whose accessible name is `name`: its `aria-label`, or
    /// for a button or link without one, its text.
    pub async fn find_named(&self, name: &str) -> Result<Element, CmdError> {
        let q = xpath_literal(name);
        let xp = format!(
            "//*[@aria-label={q}] | //button[not(@aria-label)][normalize-space()={q}] | //a[not(@aria-label)][normalize-space()={q}]"
        );
        self.client.find(Locator::XPath(&xp)).await
    }

    /// Waits for the element named `name`.
    pub async fn wait_named(&self, name: &str) -> Element {
        let deadline = Instant::now() + STEP;
        loop {
            if let Ok(e) = self.find_named(name).await {
                return e;
            }
            if Instant::now() > deadline {
                let seen = self.js("return document.body.innerText.slice(0, 2000)").await;
                panic!(
                    "waited {STEP:?} for an element named {name:?}; the page shows:\n{}",
                    seen.as_str().unwrap_or_default()
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// From the lobby page, opens a room of `variant` (with `table` seats
    /// where given: the form's *Table* choice), fills the other seats with
    /// bots of strength `bots` (`""` for none), sits down and waits for the
    /// table to offer *I'm ready*; returns the room's number.
    pub async fn open_room(&self, variant: &str, table: Option<&str>, bots: &str) -> u64 {
        self.choose("Variant", variant).await;
        if let Some(table) = table {
            self.choose("Table", table).await;
        }
        self.choose("Fill the other seats with bots", bots).await;
        self.click_named("Create and sit down").await;
        self.wait_named("I'm ready").await;
        let hash = self.wait_js("the room's page", "return location.hash.startsWith('#/room/') && location.hash").await;
        let hash = hash.as_str().unwrap();
        hash.trim_start_matches("#/room/").parse().unwrap_or_else(|e| panic!("{hash}: {e}"))
    }

    /// Waits for the element named `name` and clicks it.
    pub async fn click_named(&self, name: &str) {
        let deadline = Instant::now() + STEP;
        loop {
            let e = self.wait_named(name).await;
            match e.click().await {
                Ok(()) => return,
                // The page re-rendered between finding and clicking: look again.
                Err(err) if Instant::now() < deadline => {
                    let _ = err;
                    tokio::time::sleep(POLL).await;
                }
                Err(err) => panic!("cannot click {name:?}: {err}"),
            }
        }
    }

    /// Taps the element named `name` with a finger (WebDriver touch
    /// actions): scrolled into view, its centre must be on screen and not
    /// covered by another element, as a person's finger would find it.
    pub async fn tap_named(&self, name: &str) {
        let e = self.wait_named(name).await;
        let covered = self
            .client
            .execute(
                "const e = arguments[0]; e.scrollIntoView({block: 'center', inline: 'center'});                  const r = e.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;                  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return `off screen at ${x},${y}`;                  const top = document.elementFromPoint(x, y);                  return top && (top === e || e.contains(top)) ? null : `covered by ${top ? top.outerHTML.slice(0, 120) : 'nothing'}`;",
                vec![serde_json::to_value(&e).unwrap()],
            )
            .await
            .expect("script");
        assert!(covered.is_null(), "{name:?} cannot be tapped: {covered}");
        use fantoccini::actions::{InputSource, PointerAction, TouchActions};
        let tap = TouchActions::new("finger".into())
            .then(PointerAction::MoveToElement { element: e, duration: None, x: 0.0, y: 0.0 })
            .then(PointerAction::Down { button: 0 })
            .then(PointerAction::Pause { duration: Duration::from_millis(60) })
            .then(PointerAction::Up { button: 0 });
        self.client.perform_actions(tap).await.unwrap_or_else(|e| panic!("cannot tap {name:?}: {e}"));
        let _ = self.client.release_actions().await;
    }

    /// Presses the element named `name` with the mouse as a person does:
    /// the button held down for `hold` before it is let go (a page that
    /// rebuilt the element meanwhile would lose the click).
    pub async fn press_named(&self, name: &str, hold: Duration) {
        use fantoccini::actions::{InputSource, MouseActions, PointerAction};
        let e = self.wait_named(name).await;
        let press = MouseActions::new("mouse".into())
            .then(PointerAction::MoveToElement { element: e, duration: None, x: 0.0, y: 0.0 })
            .then(PointerAction::Down { button: 0 })
            .then(PointerAction::Pause { duration: hold })
            .then(PointerAction::Up { button: 0 });
        self.client.perform_actions(press).await.unwrap_or_else(|e| panic!("cannot press {name:?}: {e}"));
        let _ = self.client.release_actions().await;
    }

    /// Clicks what `locator` finds, if it is there now: false when it is
    /// gone or was replaced by a re-render meanwhile. Any other failure
    /// (another element on top of it, hidden) is a bug of the page: panics.
    pub async fn click_now(&self, locator: Locator<'_>) -> bool {
        let Ok(e) = self.client.find(locator).await else { return false };
        match e.click().await {
            Ok(()) => true,
            Err(err) if err.is_stale_element_reference() => false,
            Err(err) => panic!("cannot click {locator:?}: {err}"),
        }
    }

    /// Presses *Continue* if a hand's end is on screen (its hands face up
    /// until the player goes on); true if it did.
    pub async fn continue_hand(&self) -> bool {
        self.click_now(Locator::XPath("//button[not(@aria-label)][normalize-space()='Continue']")).await
    }

    /// Registers `name` with [`PASSWORD`] from the lobby's form, and waits
    /// until the page is signed in as it.
    pub async fn register(&self, name: &str) {
        self.fill("Name", name).await;
        self.fill("Password", PASSWORD).await;
        self.click_named("Register this name").await;
        self.wait_named("Sign out").await;
    }

    /// Signs in as `name` with `password` from the lobby's form, and waits
    /// until the page is signed in as it.
    pub async fn sign_in(&self, name: &str, password: &str) {
        self.fill("Registered name", name).await;
        self.fill("Its password", password).await;
        self.click_named("Sign in").await;
        self.wait_named("Sign out").await;
    }

    /// Types into the form control labelled `label` (a `<label>` around it or `for` it).
    pub async fn fill(&self, label: &str, text: &str) {
        let q = xpath_literal(label);
        let xp = format!(
            "//input[@id=//label[normalize-space()={q}]/@for] | //label[normalize-space(text())={q}]//input | //input[@aria-label={q}]"
        );
        let e = self.client.wait().at_most(STEP).for_element(Locator::XPath(&xp)).await.expect("field");
        e.clear().await.unwrap();
        e.send_keys(text).await.unwrap();
    }

    /// Chooses `value` in the select labelled `label`.
    pub async fn choose(&self, label: &str, value: &str) {
        let q = xpath_literal(label);
        let xp =
            format!("//select[@id=//label[normalize-space()={q}]/@for] | //label[normalize-space(text())={q}]//select");
        let e = self.client.wait().at_most(STEP).for_element(Locator::XPath(&xp)).await.expect("select");
        // The options arrive with the variants list: wait for this one.
        let opt = format!("{xp}//option[@value={}]", xpath_literal(value));
        self.client.wait().at_most(STEP).for_element(Locator::XPath(&opt)).await.expect("option");
        e.select_by_value(value).await.unwrap();
    }

    /// Sends keys to whatever has the focus, as a keyboard user types.
    pub async fn keys(&self, keys: &str) {
        let e = self.client.active_element().await.expect("a focused element");
        e.send_keys(keys).await.expect("keys");
    }

    /// The accessible name of the focused element.
    pub async fn focused_name(&self) -> String {
        let v = self
            .js("const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.textContent.trim()) : ''")
            .await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// Saves a screenshot to `book/src/screenshots/NAME.png`, only when
    /// `CAPICUA_SCREENSHOTS=1` (so ordinary runs leave the tree alone).
    pub async fn screenshot(&self, name: &str) {
        if std::env::var("CAPICUA_SCREENSHOTS").as_deref() != Ok("1") {
            return;
        }
        let png = self.client.screenshot().await.expect("screenshot");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// Ends the session (and so the browser), then the driver.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A test that failed before `close` still ends its driver and the
        // browser it started: the process group this harness created.
        let group = format!("-{}", self.driver.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `s` as an XPath string literal (XPath 1 has no escapes).
pub fn xpath_literal(s: &str) -> String {
    if !s.contains('\'') {
        format!("'{s}'")
    } else if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        let parts: Vec<String> = s.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(", \"'\", "))
    }
}

/// What the page shows now, read by roles and accessible names: every
/// label and text (with the region it sits in), the hand, the moves on
/// offer, and the match's end.
/// The password the tests register names with.
pub const PASSWORD: &str = "correct horse 1";

pub const LOOK: &str = r#"
const all = (sel, root = document) => [...root.querySelectorAll(sel)];
const region = (el) => {
  if (!el) return 'other';
  if (el.closest('[aria-label="the board"]')) return 'board';
  if (el.closest('[aria-label="the other seats"]')) return 'seats';
  if (el.closest('[role="toolbar"][aria-label^="your hand"]')) return 'hand';
  if (el.closest('[aria-labelledby="log-h"], #announce')) return 'log';
  return 'other';
};
const texts = [];
for (const el of all('[aria-label]')) texts.push([region(el), el.getAttribute('aria-label')]);
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walk.nextNode()) {
  const t = walk.currentNode.textContent.trim();
  if (t) texts.push([region(walk.currentNode.parentElement), t]);
}
for (const el of all('input, select')) if (el.value) texts.push([region(el), el.value]);
const hand = document.querySelector('[role="toolbar"][aria-label^="your hand"]');
const choiceGroup = document.querySelector('[role="group"][aria-label^="where to play"]');
const over = document.querySelector('[aria-labelledby="over-h"] h2');
const replay = all('a').find((a) => /^Replay game \d+$/.test(a.textContent.trim()));
const logItem = document.querySelector('[aria-labelledby="log-h"] li');
return {
  texts,
  hand: hand ? hand.getAttribute('aria-label') : null,
  playable: all('button[aria-label*=", playable"]').map((e) => e.getAttribute('aria-label')),
  choices: choiceGroup ? all('button[aria-label^="play "], button[aria-label^="lead "]', choiceGroup).map((e) => e.getAttribute('aria-label')) : [],
  targets: all('svg [role="button"]').map((e) => e.getAttribute('aria-label')),
  moves: all('button[aria-label="draw a tile"], button[aria-label="pass"]').map((e) => e.getAttribute('aria-label')),
  turn: !!document.querySelector('[role="timer"][aria-label="time left for your move"]'),
  over: over ? over.textContent.trim() : null,
  game: replay ? Number(replay.textContent.trim().split(' ').pop()) : null,
  log: logItem ? logItem.textContent : null,
  hash: location.hash,
};
"#;

/// Every tile named in a text (`6-4`), as `[low, high]`.
pub fn tiles_in(text: &str) -> Vec<[u8; 2]> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'-' && b[i + 1].is_ascii_digit() {
                let a: u32 = text[start..i].parse().unwrap_or(999);
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let c: u32 = text[i + 1..j].parse().unwrap_or(999);
                let ends_word = j == b.len() || !b[j].is_ascii_alphanumeric();
                if a <= 18 && c <= 18 && ends_word {
                    out.push([a.min(c) as u8, a.max(c) as u8]);
                }
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The tiles of a stored game's view: its hand (`hand`) and every tile
/// played in its history.
pub fn view_tiles(view: &Value) -> (Vec<[u8; 2]>, Vec<[u8; 2]>) {
    let tile = |t: &Value| {
        let a = t[0].as_u64().unwrap() as u8;
        let b = t[1].as_u64().unwrap() as u8;
        [a.min(b), a.max(b)]
    };
    let hand = view["hand"].as_array().map(|h| h.iter().map(tile).collect()).unwrap_or_default();
    let played = view["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"]["kind"] == "play")
        .map(|r| tile(&r["action"]["tile"]))
        .collect();
    (hand, played)
}

#[test]
fn tile_names_are_found_in_text_and_nothing_else_is() {
    assert_eq!(tiles_in("your hand: 6-4, 5-5, 0-0"), vec![[4, 6], [5, 5], [0, 0]]);
    assert_eq!(tiles_in("Seat 2 (guest-3) played 12-10 on the left end."), vec![[10, 12]]);
    assert!(tiles_in("guest-3, bot:random, 104 to 30, room 7, v1-2a").is_empty());
    assert_eq!(xpath_literal("I'm ready"), "\"I'm ready\"");
    assert_eq!(xpath_literal("a'b\"c"), "concat('a', \"'\", 'b\"c')");
}

/// A match of `variant` played to its end by hosted bots at one tournament
/// table (opened with the `admin` token): two bots with `duel` (for a
/// preset that pairs four seats as partners, a duel is the one table a
/// round needs), else four each for itself; its stored game.
pub async fn bots_game(server: &TestServer, admin: &str, variant: &str, duel: bool, poly: bool) -> i64 {
    let (table, entrants) = match (duel, poly) {
        (true, true) => ("duel", json!(["bot:random", "bot:greedy"])),
        (true, false) => ("duel", json!(["bot:heuristic", "bot:smart"])),
        (false, _) => ("free-for-all", json!(["bot:random", "bot:heuristic", "bot:smart", "bot:bota-gorda"])),
    };
    let spec = json!({
        "name": format!("{variant} table"), "seed": 3, "table": table, "variants": [variant],
        "entrants": entrants,
        "stages": [{"format": "round-robin"}],
    });
    let (status, created) = server.post_json("/api/tournaments", Some(admin), &spec.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    wait_for("the bots' table to finish", Duration::from_secs(240), async || {
        let t = server.get_json(&format!("/api/tournaments/{id}")).await;
        if t["status"] == "finished" { Ok(()) } else { Err(t["status"].clone()) }
    })
    .await;
    let detail = server.get_json(&format!("/api/tournaments/{id}")).await;
    detail["rounds"][0]["tables"][0]["game"].as_i64().unwrap()
}

/// Every step of a stored game, as seat 0 saw it (every page of it).
pub async fn steps_of(server: &TestServer, id: i64) -> Vec<Value> {
    let mut steps = vec![];
    let mut from = Some(0);
    while let Some(f) = from {
        let g = server.get_json(&format!("/api/games/{id}?seat=0&from={f}")).await;
        steps.extend(g["steps"].as_array().unwrap().iter().cloned());
        from = g["next"].as_u64();
    }
    steps
}

/// The tiles played in a step's view: `(ends used, tiles)`.
pub fn fullness(step: &Value) -> (usize, usize) {
    let view = &step["view"];
    if let Some(board) = view["board"].as_array() {
        return (0, board.len());
    }
    let plays: Vec<&Value> = view["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["action"]["kind"] == "play")
        .map(|r| &r["action"])
        .collect();
    let mut ends: Vec<u64> = plays.iter().filter_map(|a| a["end"].as_u64()).collect();
    ends.sort_unstable();
    ends.dedup();
    (ends.len(), plays.len())
}

/// The replay step (from 1, as the page counts) of the fullest board, among
/// the steps `keep` accepts (all when none does).
pub fn fullest(steps: &[Value], keep: impl Fn(&Value) -> bool) -> usize {
    let any = steps.iter().any(&keep);
    let (k, _) = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| !any || keep(s))
        .map(|(k, s)| (k + 1, fullness(s)))
        .max_by_key(|&(k, n)| (n, std::cmp::Reverse(k)))
        .unwrap();
    k
}

/// Sets the window so that the page's viewport is `w` x `h` CSS pixels
/// (the window's own frame takes some of its size).
pub async fn viewport(b: &Browser, w: u32, h: u32) {
    let (mut ow, mut oh) = (w, h);
    for _ in 0..5 {
        b.client.set_window_size(ow, oh).await.unwrap();
        // The window takes its new size a moment later.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        let (iw, ih) = loop {
            let inner = b.js("return [window.innerWidth, window.innerHeight]").await;
            let (iw, ih) = (inner[0].as_u64().unwrap() as u32, inner[1].as_u64().unwrap() as u32);
            if (iw, ih) == (w, h) {
                return;
            }
            if std::time::Instant::now() > deadline {
                break (iw, ih);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        (ow, oh) = ((ow + w).saturating_sub(iw), (oh + h).saturating_sub(ih));
    }
    panic!("cannot make the viewport {w}x{h}");
}
