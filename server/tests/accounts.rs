//! Accounts against a real server: a password signs in on any device as a
//! session cookie scripts cannot read, and each attack on it has a bound
//! (guessing per name and per address, names per address, session
//! fixation, requests from other sites); bot tokens play and do nothing
//! else, and a revoked one is refused at once.

mod common;

use common::{Client, TestServer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PASSWORD: &str = "correct horse 1";

/// What a request got back: status, headers (lower-cased names), body.
struct Answer {
    status: u16,
    head: String,
    body: Value,
}

impl Answer {
    /// The session secret a `Set-Cookie` gives, if any (empty when it clears it).
    fn cookie(&self) -> Option<String> {
        self.head.lines().find_map(|l| {
            let l = l.strip_prefix("set-cookie: ")?;
            Some(l.split(';').next()?.strip_prefix("capicua_session=")?.to_string())
        })
    }
}

/// One HTTP/1.1 request with these headers (`Host: test`, so a page of
/// this server has `Origin: http://test`).
async fn request(
    server: &TestServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Answer {
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    req.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Answer { status, head: head.to_ascii_lowercase(), body: serde_json::from_str(rest).unwrap_or(Value::Null) }
}

const OWN: (&str, &str) = ("Origin", "http://test");
const EVIL: (&str, &str) = ("Origin", "https://evil.example");

/// Registers `name` with [`PASSWORD`]: its session cookie.
async fn register(server: &TestServer, name: &str) -> String {
    let a = request(server, "POST", "/api/account", &[OWN], Some(json!({"name": name, "password": PASSWORD}))).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.cookie().expect("registering signs in")
}

async fn sign_in(server: &TestServer, name: &str, password: &str, headers: &[(&str, &str)]) -> Answer {
    request(server, "POST", "/api/session", headers, Some(json!({"name": name, "password": password}))).await
}

/// A WebSocket opened by this server's own page carrying `cookie`, greeted without a token.
async fn page_socket(server: &TestServer, cookie: &str) -> (Client, Value) {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", server.addr).into_client_request().unwrap();
    let host = server.addr.to_string();
    req.headers_mut().insert("Origin", format!("http://{host}").parse().unwrap());
    req.headers_mut().insert("Cookie", format!("capicua_session={cookie}").parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let mut c = Client::from_ws(ws);
    let welcome = c.hello(None).await;
    (c, welcome)
}

#[tokio::test]
async fn a_password_signs_in_anywhere_as_a_cookie_scripts_cannot_read() {
    let server = TestServer::start().await;
    let first = register(&server, "José Pérez").await;
    let a = sign_in(&server, "josé pérez", PASSWORD, &[OWN]).await;
    assert_eq!((a.status, &a.body["name"]), (200, &json!("José Pérez")), "any case of the name signs in");
    let cookie_line = a.head.lines().find(|l| l.starts_with("set-cookie:")).unwrap().to_string();
    for attr in ["httponly", "samesite=strict", "path=/"] {
        assert!(cookie_line.contains(attr), "{cookie_line}");
    }
    let second = a.cookie().unwrap();
    assert_ne!(first, second, "every sign-in makes a new session");
    // The page's socket acts for the player by its cookie.
    let (_c, welcome) = page_socket(&server, &second).await;
    assert_eq!(welcome["player"]["name"], "José Pérez", "{welcome}");
    assert_eq!(welcome["player"]["guest"], false, "{welcome}");
    let acct = request(&server, "GET", "/api/account", &[("Cookie", &format!("capicua_session={second}"))], None).await;
    assert_eq!(
        (acct.status, &acct.body["password"], &acct.body["sessions"]),
        (200, &json!(true), &json!(2)),
        "{}",
        acct.body
    );
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_name_get_one_answer() {
    let server = TestServer::start().await;
    register(&server, "ana").await;
    let wrong = sign_in(&server, "ana", "not her password", &[]).await;
    let nobody = sign_in(&server, "nobody at all", PASSWORD, &[]).await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.body["code"], "bad-sign-in", "{}", wrong.body);
    assert_eq!((nobody.status, &nobody.body), (wrong.status, &wrong.body), "never which of the two was wrong");
    assert!(wrong.cookie().is_none());
}

#[tokio::test]
async fn guessing_a_password_is_bounded_per_name_and_per_address() {
    let server = TestServer::start().await;
    register(&server, "ana").await;
    let mut answers = Vec::new();
    for i in 0..6 {
        answers.push(sign_in(&server, "ana", &format!("guess number {i}"), &[]).await.status);
    }
    assert_eq!(answers, [401, 401, 401, 401, 401, 429], "five guesses a minute for one name");
    let right = sign_in(&server, "ANA", PASSWORD, &[]).await;
    assert_eq!(right.status, 429, "the right password too, past the limit: guessing on learns nothing");
    assert!(right.head.contains("retry-after:"), "{}", right.head);
    // Spread over names, one address gets twenty attempts a minute in all
    // (seven of them spent above, the refused ones too).
    let mut statuses = Vec::new();
    for i in 0..16 {
        statuses.push(sign_in(&server, &format!("name{i}"), "a guess at it", &[]).await.status);
    }
    assert_eq!(statuses.iter().filter(|&&s| s == 401).count(), 13, "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
}

#[tokio::test]
async fn names_per_address_are_bounded() {
    let config = capicua_server::Config { registrations_per_min: 3, ..common::config() };
    let server = TestServer::start_with(common::temp_db(), config).await;
    let mut statuses = Vec::new();
    for i in 0..4 {
        let a =
            request(&server, "POST", "/api/account", &[], Some(json!({"name": format!("p{i}"), "password": PASSWORD})))
                .await;
        statuses.push((a.status, a.body["code"].clone()));
    }
    assert_eq!(statuses[3], (429, json!("rate-limited")), "{statuses:?}");
    assert!(statuses[..3].iter().all(|s| s.0 == 201), "{statuses:?}");
}

#[tokio::test]
async fn a_session_id_chosen_before_signing_in_is_not_the_session() {
    let server = TestServer::start().await;
    register(&server, "ana").await;
    // An attacker planted a cookie of its choosing in the victim's browser.
    let planted = "ab".repeat(32);
    let a = sign_in(&server, "ana", PASSWORD, &[("Cookie", &format!("capicua_session={planted}"))]).await;
    assert_eq!(a.status, 200);
    let given = a.cookie().unwrap();
    assert_ne!(given, planted, "signing in gives a new session id");
    let planted_use =
        request(&server, "GET", "/api/account", &[("Cookie", &format!("capicua_session={planted}"))], None).await;
    assert_eq!(planted_use.status, 401, "{}", planted_use.body);
}

#[tokio::test]
async fn another_sites_page_cannot_act_with_the_cookie() {
    let server = TestServer::start().await;
    let cookie = register(&server, "ana").await;
    let jar = format!("capicua_session={cookie}");
    for (method, path, body) in [
        ("DELETE", "/api/sessions", None),
        ("DELETE", "/api/session", None),
        ("PUT", "/api/account/password", Some(json!({"password": "evil password", "current": PASSWORD}))),
        ("POST", "/api/account/tokens", Some(json!({"name": "stolen"}))),
    ] {
        for headers in [vec![("Cookie", jar.as_str()), EVIL], vec![("Cookie", jar.as_str())]] {
            let a = request(&server, method, path, &headers, body.clone()).await;
            assert_eq!(
                (a.status, &a.body["code"]),
                (403, &json!("bad-origin")),
                "{method} {path} {headers:?}: {}",
                a.body
            );
        }
    }
    let signin = sign_in(&server, "ana", PASSWORD, &[EVIL]).await;
    assert_eq!(signin.status, 403, "another site cannot sign a browser in either");
    // Nothing changed: the session is open, the password is the old one, no token was made.
    let acct = request(&server, "GET", "/api/account", &[("Cookie", &jar)], None).await;
    assert_eq!((acct.status, &acct.body["tokens"]), (200, &json!([])), "{}", acct.body);
    assert_eq!(sign_in(&server, "ana", PASSWORD, &[]).await.status, 200);
    // A socket opened by another site's page is refused, cookie or not.
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", server.addr).into_client_request().unwrap();
    req.headers_mut().insert("Origin", "https://evil.example".parse().unwrap());
    req.headers_mut().insert("Cookie", jar.parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_err(), "the upgrade is refused");
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session() {
    let server = TestServer::start().await;
    let laptop = register(&server, "ana").await;
    let phone = sign_in(&server, "ana", PASSWORD, &[]).await.cookie().unwrap();
    let out =
        request(&server, "DELETE", "/api/sessions", &[("Cookie", &format!("capicua_session={phone}")), OWN], None)
            .await;
    assert_eq!((out.status, &out.body["ended"]), (200, &json!(2)), "{}", out.body);
    assert_eq!(out.cookie().as_deref(), Some(""), "the cookie is cleared");
    for c in [&laptop, &phone] {
        let a = request(&server, "GET", "/api/account", &[("Cookie", &format!("capicua_session={c}"))], None).await;
        assert_eq!(a.status, 401);
        let (_s, welcome) = page_socket(&server, c).await;
        assert_eq!(welcome["player"]["guest"], true, "an ended session is a guest: {welcome}");
    }
}

#[tokio::test]
async fn a_bot_token_plays_as_the_account_and_nothing_more_until_revoked() {
    let server = TestServer::start().await;
    let cookie = register(&server, "ana").await;
    let jar = format!("capicua_session={cookie}");
    let made =
        request(&server, "POST", "/api/account/tokens", &[("Cookie", &jar), OWN], Some(json!({"name": "laptop bot"})))
            .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let token = made.body["token"].as_str().unwrap().to_string();
    let id = made.body["id"].as_i64().unwrap();
    let listed = request(&server, "GET", "/api/account", &[("Cookie", &jar)], None).await;
    assert_eq!(listed.body["tokens"][0]["name"], "laptop bot");
    assert!(listed.body["tokens"][0].get("token").is_none(), "a token is shown once, when made");
    // It plays: a hello with it is ana.
    let mut bot = server.client().await;
    let welcome = bot.hello(Some(&token)).await;
    assert_eq!(welcome["player"]["name"], "ana", "{welcome}");
    // It cannot manage the account.
    let bearer = format!("Bearer {token}");
    for (method, path, body) in [
        ("GET", "/api/account", None),
        ("POST", "/api/account/tokens", Some(json!({"name": "another"}))),
        ("PUT", "/api/account/password", Some(json!({"password": "taken over", "current": PASSWORD}))),
        ("DELETE", "/api/sessions", None),
    ] {
        let a = request(&server, method, path, &[("Authorization", &bearer)], body).await;
        assert_eq!((a.status, &a.body["code"]), (403, &json!("unauthorized")), "{method} {path}: {}", a.body);
    }
    // Revoked, it is refused at the next hello.
    let gone = request(&server, "DELETE", &format!("/api/account/tokens/{id}"), &[("Cookie", &jar), OWN], None).await;
    assert_eq!(gone.status, 204);
    let mut late = server.client().await;
    late.send(json!({"type": "hello", "version": capicua_protocol::PROTOCOL_VERSION, "token": token})).await;
    let refused = late.recv().await;
    assert_eq!(refused["code"], "bad-token", "{refused}");
    assert_eq!(late.closed_with().await, capicua_protocol::close::BAD_TOKEN);
    let again = request(&server, "DELETE", &format!("/api/account/tokens/{id}"), &[("Cookie", &jar), OWN], None).await;
    assert_eq!(again.status, 404);
}
