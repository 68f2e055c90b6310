//! Accounts in a real headless Chromium: a name registered with a password
//! in one browser signs in on another and gets its seat back; the session
//! is a cookie the page's scripts cannot read; a bot token made on the
//! account page plays as the account and, revoked there, is refused at
//! once.
//!
//! The page is read through roles and accessible names. Each test skips
//! (passing, with a message) where Chromium or chromedriver is missing,
//! unless `CAPICUA_REQUIRE_BROWSER=1`.

mod browser_support;
mod common;

use browser_support::{Browser, PASSWORD};
use common::TestServer;
use serde_json::json;

/// One Chromium at a time: the machine has two cores.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn lobby(b: &Browser) {
    b.open("/?pace=0#/").await;
    b.wait_js("the welcome", "return document.getElementById('who').textContent").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_player_signs_in_on_a_second_browser_with_the_password_and_gets_their_seat() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(laptop) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&laptop).await;
    laptop.register("Carmen").await;
    let room = laptop.open_room("block", Some("2"), "random").await;
    laptop.click_named("I'm ready").await;
    laptop
        .wait_js(
            "the match under way",
            "return document.querySelector('[role=\"toolbar\"][aria-label^=\"your hand\"]')",
        )
        .await;
    // Scripts never see the session: no token in storage, no cookie to read.
    let seen = laptop.js("return [document.cookie, Object.keys(localStorage).filter((k) => /token/.test(k))]").await;
    assert_eq!(seen, json!(["", []]), "the session is HttpOnly and nothing secret is stored");

    let Some(phone) = Browser::start_phone(format!("http://{}", server.addr), &[]).await else { return };
    lobby(&phone).await;
    // A wrong password says so, without saying which of the two was wrong.
    phone.fill("Registered name", "Carmen").await;
    phone.fill("Its password", "not her password").await;
    phone.click_named("Sign in").await;
    let wrong = phone.wait_js("the refusal", "return document.querySelector('.form-error')?.textContent || null").await;
    assert_eq!(wrong, json!("The name or the password is wrong."));
    phone.screenshot("sign-in-phone").await;
    phone.sign_in("carmen", PASSWORD).await;
    let who = phone.js("return document.getElementById('who').textContent").await;
    assert_eq!(who, json!("Signed in as Carmen"));
    // Her seat is hers on the phone: back to it, and the hand is there.
    phone.click_named(&format!("back to room {room}")).await;
    phone
        .wait_js(
            "her hand on the phone",
            "return document.querySelector('[role=\"toolbar\"][aria-label^=\"your hand\"]')",
        )
        .await;
    let info = server.room_info(room).await;
    assert_eq!(info["seats"][0]["occupant"]["name"], "Carmen", "{info}");
    // The laptop hears that the phone took over.
    laptop
        .wait_js(
            "the laptop told",
            "return document.getElementById('connection').textContent.includes('another tab or window')",
        )
        .await;
    phone.close().await;
    laptop.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_token_made_on_the_account_page_plays_and_revoked_there_is_refused_at_once() {
    let _one = ONE_BROWSER.lock().await;
    let server = TestServer::start().await;
    let Some(b) = Browser::start(format!("http://{}", server.addr)).await else { return };
    lobby(&b).await;
    b.register("Dora").await;
    b.click_named("Your account").await;
    b.fill("Token name", "laptop bot").await;
    b.click_named("Make a bot token").await;
    let token = b
        .wait_js(
            "the token, shown once",
            "return document.querySelector('input[aria-label=\"token of laptop bot\"]')?.value || null",
        )
        .await;
    let token = token.as_str().unwrap().to_string();
    assert_eq!(token.len(), 64, "{token}");
    b.screenshot("account").await;

    let mut bot = server.client().await;
    let welcome = bot.hello(Some(&token)).await;
    assert_eq!(welcome["player"]["name"], "Dora", "the bot plays as the account: {welcome}");

    b.click_named("revoke laptop bot").await;
    b.wait_js("the revocation", "return document.getElementById('ac-status')?.textContent.includes('is revoked')")
        .await;
    assert_eq!(b.js("return document.querySelectorAll('ul.tokens li').length").await, json!(0));
    let mut late = server.client().await;
    late.send(json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION, "token": token})).await;
    assert_eq!(late.recv().await["code"], "bad-token");
    assert_eq!(late.closed_with().await, capicua_protocol::close::BAD_TOKEN);

    // Signing out everywhere from the same page leaves a guest.
    b.click_named("Sign out everywhere").await;
    b.wait_js("a guest again", "return document.getElementById('who').textContent.includes('guest')").await;
    b.close().await;
}
