//! Accounts over HTTP: registering with a password, signing in and out
//! (a session held in an HttpOnly, SameSite cookie that scripts cannot
//! read), the account's page (password, bot tokens).
//!
//! | route | what |
//! |---|---|
//! | `POST /api/account` | register `{name, password}`: the player, signed in |
//! | `POST /api/session` | sign in `{name, password}`, or trade an account token (`Authorization: Bearer`) for a session |
//! | `DELETE /api/session` | sign out this session |
//! | `DELETE /api/sessions` | sign out everywhere: every session of the player |
//! | `GET /api/account` | the account: name, whether it has a password, sessions, bot tokens |
//! | `PUT /api/account/password` | set `{password}` (and `current`, once one is set) |
//! | `POST /api/account/tokens` | a new bot token `{name}`: shown once |
//! | `DELETE /api/account/tokens/{id}` | revoke one |
//!
//! A request the cookie authorises that changes something must come from
//! this server's own pages (its `Origin`), so another site cannot make a
//! signed-in browser act: the cookie is `SameSite=Strict` too. A bot token
//! plays and reads; it never manages the account, so a leaked one is not
//! the account.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::accounts::SignInError;
use crate::api::{ApiError, ApiPath, Peer};
use crate::db::DbError;
use crate::db::accounts::{BotToken, Credential};
use crate::db::players::Player;
use crate::passwords;

/// The session cookie's name.
pub(crate) const COOKIE: &str = "capicua_session";

/// Most bytes of an account request's body.
pub(super) const MAX_BODY: usize = 2048;

/// The session secret a request's `Cookie` headers carry, if any.
pub(crate) fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty() && v.len() <= 128)
}

/// Whether the request comes from one of this server's own pages: its
/// `Origin` is this host's (or the public URL's).
pub(crate) fn own_origin(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else { return false };
    is_own_origin(state, origin, headers.get(header::HOST).and_then(|h| h.to_str().ok()))
}

/// Whether `origin` is this server's: the request's own `host`, or the
/// public URL's.
pub(crate) fn is_own_origin(state: &AppState, origin: &str, host: Option<&str>) -> bool {
    let own = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    let same_host = matches!((own, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h));
    same_host || state.config.public_url.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(origin))
}

/// Refuses a request from another site's page (an `Origin` that is not
/// this server's); one without `Origin` (a bot, a script) passes.
fn refuse_foreign(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if headers.contains_key(header::ORIGIN) && !own_origin(state, headers) {
        return Err(bad_origin());
    }
    Ok(())
}

fn bad_origin() -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, ErrorCode::BadOrigin, "the account is managed from this server's own pages")
}

/// The `Set-Cookie` of a session: scripts cannot read it, other sites'
/// requests do not carry it, and over HTTPS it is sent over HTTPS only.
fn set_cookie(state: &AppState, token: &str) -> HeaderValue {
    let secure = state.config.public_url.as_deref().is_some_and(|u| u.starts_with("https://"));
    let value = format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000{}",
        if secure { "; Secure" } else { "" }
    );
    HeaderValue::from_str(&value).expect("a hex token is a valid header value")
}

fn clear_cookie() -> HeaderValue {
    HeaderValue::from_static("capicua_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Who manages the account, and with what.
struct Holder {
    player: Player,
    /// The session secret the request used, if it used one.
    session: Option<String>,
}

/// The account a request acts for: by `Authorization: Bearer` (the
/// account's token or a session's; a bot token is refused) or by the
/// session cookie, which for a change (`write`) must come with this
/// server's own `Origin`.
async fn holder(
    state: &AppState,
    peer: Option<std::net::IpAddr>,
    headers: &HeaderMap,
    write: bool,
) -> Result<Holder, ApiError> {
    let (token, by_cookie) = match crate::api::bearer(headers)? {
        Some(t) => (t.to_string(), false),
        None => match session_cookie(headers) {
            Some(t) => (t, true),
            None => return Err(ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, "sign in first")),
        },
    };
    if by_cookie && write && !own_origin(state, headers) {
        return Err(bad_origin());
    }
    let limits = &state.http_limits;
    if let Some(wait) = peer.and_then(|a| limits.may_try_token(a).err()) {
        return Err(ApiError::rate_limited("too many wrong tokens from this address", wait));
    }
    match state.db.credential(&token).await.map_err(ApiError::internal)? {
        Some((_, Credential::Bot(_))) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            "a bot token plays; it cannot manage the account (sign in, or use the account's own token)",
        )),
        Some((player, Credential::Session)) => Ok(Holder { player, session: Some(token) }),
        Some((player, Credential::Account)) if !by_cookie => Ok(Holder { player, session: None }),
        _ if by_cookie => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "this session has ended: sign in again",
        )),
        _ => {
            if let Some(a) = peer {
                limits.wrong_token(a);
            }
            Err(ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::BadToken, "unknown token"))
        }
    }
}

/// A JSON body of type `T`, or a `bad-request` naming what is wrong.
fn body<T: serde::de::DeserializeOwned>(
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|e| ApiError::body(&e, ErrorCode::BadRequest, MAX_BODY))?;
    capicua_protocol::decode_strict(&body)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Credentials {
    name: String,
    password: String,
}

/// The answer to signing in or registering: who, and the cookie.
#[derive(Serialize)]
pub(super) struct SignedIn {
    name: String,
}

fn signed_in(state: &AppState, status: StatusCode, name: String, session: &str) -> Response {
    let mut r = (status, Json(SignedIn { name })).into_response();
    r.headers_mut().insert(header::SET_COOKIE, set_cookie(state, session));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The answer to a failed password check; `wrong` says what was wrong.
fn refused(e: SignInError, wrong: &str) -> ApiError {
    match e {
        SignInError::Wrong => ApiError::of(ErrorCode::BadSignIn, wrong),
        SignInError::TooMany(wait) => {
            ApiError::rate_limited("too many attempts to sign in to this name or from this address", wait)
        }
        SignInError::Busy => busy(),
        SignInError::Db(e) => ApiError::internal(e),
    }
}

fn busy() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Busy,
        "the server is checking other passwords; retry shortly",
    )
    .with_retry_after(1)
}

/// `POST /api/account`: registers `name` with `password` and signs in.
pub(super) async fn register(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    raw: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    refuse_foreign(&state, &headers)?;
    let c: Credentials = body(raw)?;
    let name = capicua_protocol::check_name(&c.name)
        .map_err(|rules| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadName, rules).with_field(Some("name")))?;
    if !passwords::acceptable(&c.password) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, passwords::RULES)
            .with_field(Some("password")));
    }
    if let Some(wait) = peer.and_then(|a| state.http_limits.check_registration(a).err()) {
        return Err(ApiError::rate_limited("too many new names from this address", wait));
    }
    let phc = state.accounts.hash(&c.password).await.ok_or_else(busy)?;
    let player = match state.db.register_with_password(&name, &phc).await {
        Ok((player, _token)) => player,
        Err(DbError::NameTaken(n)) => {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::NameTaken, crate::accounts::name_taken(&n))
                .with_field(Some("name")));
        }
        Err(e) => return Err(ApiError::internal(e)),
    };
    let session = state.db.new_session(player.id).await.map_err(ApiError::internal)?;
    Ok(signed_in(&state, StatusCode::CREATED, player.name, &session))
}

/// `POST /api/session`: signs in with a name and password, or trades the
/// account's token (or a session's) for a new session. Every sign-in
/// makes a new session secret: none chosen before survives it.
pub(super) async fn sign_in(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    raw: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    refuse_foreign(&state, &headers)?;
    if headers.contains_key(header::AUTHORIZATION) {
        let h = holder(&state, peer, &headers, true).await?;
        let session = state.db.new_session(h.player.id).await.map_err(ApiError::internal)?;
        return Ok(signed_in(&state, StatusCode::OK, h.player.name, &session));
    }
    let c: Credentials = body(raw)?;
    match state.accounts.sign_in(&state.db, &c.name, &c.password, peer).await {
        Ok(player) => {
            let session = state.db.new_session(player.id).await.map_err(ApiError::internal)?;
            tracing::info!(player = %player.name, "signed in");
            Ok(signed_in(&state, StatusCode::OK, player.name, &session))
        }
        Err(e) => Err(refused(e, "the name or the password is wrong")),
    }
}

/// The answer to signing out: how many sessions ended, and a cleared cookie.
fn signed_out(ended: u64) -> Response {
    let mut r = Json(serde_json::json!({ "ended": ended })).into_response();
    r.headers_mut().insert(header::SET_COOKIE, clear_cookie());
    r
}

/// `DELETE /api/session`: signs this session out.
pub(super) async fn sign_out(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let h = holder(&state, peer, &headers, true).await?;
    let ended = match &h.session {
        Some(s) => u64::from(state.db.end_session(s).await.map_err(ApiError::internal)?),
        None => 0,
    };
    Ok(signed_out(ended))
}

/// `DELETE /api/sessions`: signs every session of the player out.
pub(super) async fn sign_out_everywhere(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let h = holder(&state, peer, &headers, true).await?;
    let ended = state.db.end_sessions(h.player.id).await.map_err(ApiError::internal)?;
    tracing::info!(player = %h.player.name, ended, "signed out everywhere");
    Ok(signed_out(ended))
}

/// The account as its page shows it.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct AccountBody {
    name: String,
    password: bool,
    sessions: i64,
    tokens: Vec<BotToken>,
}

/// `GET /api/account`.
pub(super) async fn account(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
) -> Result<Json<AccountBody>, ApiError> {
    let h = holder(&state, peer, &headers, false).await?;
    let id = h.player.id;
    let db = &state.db;
    Ok(Json(AccountBody {
        name: h.player.name,
        password: db.has_password(id).await.map_err(ApiError::internal)?,
        sessions: db.sessions(id).await.map_err(ApiError::internal)?,
        tokens: db.bot_tokens(id).await.map_err(ApiError::internal)?,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPassword {
    password: String,
    current: Option<String>,
}

/// `PUT /api/account/password`: sets the password; changing one needs
/// the current one (counted as a sign-in attempt).
pub(super) async fn set_password(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    raw: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<StatusCode, ApiError> {
    let h = holder(&state, peer, &headers, true).await?;
    let p: NewPassword = body(raw)?;
    if !passwords::acceptable(&p.password) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, passwords::RULES)
            .with_field(Some("password")));
    }
    if state.db.has_password(h.player.id).await.map_err(ApiError::internal)? {
        let current = p.current.unwrap_or_default();
        if let Err(e) = state.accounts.sign_in(&state.db, &h.player.name, &current, peer).await {
            return Err(refused(e, "the current password is wrong").with_field(Some("current")));
        }
    }
    let phc = state.accounts.hash(&p.password).await.ok_or_else(busy)?;
    state.db.set_password(h.player.id, &phc).await.map_err(ApiError::internal)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TokenName {
    name: String,
}

/// A new bot token: its listing and, this once, the token.
#[derive(Serialize)]
pub(super) struct NewToken {
    #[serde(flatten)]
    listed: BotToken,
    token: String,
}

/// `POST /api/account/tokens`: a new bot token, shown this once.
pub(super) async fn new_token(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    raw: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<(StatusCode, Json<NewToken>), ApiError> {
    let h = holder(&state, peer, &headers, true).await?;
    let t: TokenName = body(raw)?;
    let name = t.name.trim();
    if name.is_empty() || name.chars().count() > 32 || name.chars().any(char::is_control) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            "a token's name is 1 to 32 characters",
        )
        .with_field(Some("name")));
    }
    match state.db.new_bot_token(h.player.id, name).await.map_err(ApiError::internal)? {
        Some((listed, token)) => Ok((StatusCode::CREATED, Json(NewToken { listed, token }))),
        None => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("an account holds {} bot tokens at most: revoke one first", crate::db::accounts::MAX_BOT_TOKENS),
        )),
    }
}

/// `DELETE /api/account/tokens/{id}`: revokes a bot token; the next
/// `hello` or request with it is refused.
pub(super) async fn revoke_token(
    State(state): State<Arc<AppState>>,
    Peer(peer): Peer,
    headers: HeaderMap,
    ApiPath(id): ApiPath<i64>,
) -> Result<StatusCode, ApiError> {
    let h = holder(&state, peer, &headers, true).await?;
    if state.db.revoke_bot_token(h.player.id, id).await.map_err(ApiError::internal)? {
        tracing::info!(player = %h.player.name, token = id, "bot token revoked");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::of(ErrorCode::NotFound, format!("the account has no bot token {id}")))
    }
}
