//! The HTTP API's error type, shared by every route, and path and query
//! extractors whose rejections are that error.
//!
//! Every error body is `{"code": ..., "message": ...}`, with `"field"` when
//! one field of the request is at fault. axum's own `Path` and `Query` reject a bad value (`/api/games/abc`,
//! `?seat=x`) with a plain-text body; a client of this API always gets
//! `{"code": "bad-request", "message": ...}` instead.

use axum::Json;
use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use capicua_protocol::ErrorCode;
use serde::de::DeserializeOwned;

/// An HTTP error: a status, a code, a message and the field at fault.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    field: Option<String>,
    /// Seconds after which the request may succeed if sent again.
    retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a status.
    pub(crate) fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), field: None, retry_after: None }
    }

    /// An error whose status follows from its code (see [`status_of`]).
    pub(crate) fn of(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError::new(status_of(code), code, message)
    }

    /// Names the request field at fault.
    pub(crate) fn with_field(mut self, field: Option<&str>) -> ApiError {
        self.field = field.map(str::to_string);
        self
    }

    /// Tells the client to send the request again after `secs` seconds (at
    /// least 1): a `Retry-After` header and a `retry-after` member.
    pub(crate) fn with_retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after = Some(secs.max(1));
        self
    }

    /// `429 rate-limited` with `Retry-After`: `what` happened too often;
    /// the request may succeed after `wait`.
    pub(crate) fn rate_limited(what: &str, wait: std::time::Duration) -> ApiError {
        let secs = wait.as_secs().max(1);
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited, format!("{what}; retry in {secs} s"))
            .with_retry_after(secs)
    }

    /// A request body that could not be read: over the route's `limit` of
    /// bytes (413), or cut short (400). axum answers these in plain text; the
    /// API answers them as every other error, with `code`.
    pub(crate) fn body(e: &axum::extract::rejection::BytesRejection, code: ErrorCode, limit: usize) -> ApiError {
        let status = e.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is over the limit of {limit} bytes")
        } else {
            e.body_text()
        };
        ApiError::new(status, code, message)
    }

    /// A failure of the server itself: logged, and reported without detail.
    pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %e, "http handler");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, "internal error (logged)")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(f) = self.field {
            body["field"] = serde_json::Value::String(f);
        }
        if let Some(secs) = self.retry_after {
            body["retry-after"] = secs.into();
            let mut response = (self.status, Json(body)).into_response();
            response.headers_mut().insert(header::RETRY_AFTER, secs.into());
            return response;
        }
        (self.status, Json(body)).into_response()
    }
}

/// The `no-such-seat` message, in the words players use: the seat asked
/// for and the seat numbers the table has (from 0, as on the wire).
pub(crate) fn no_such_seat(seat: impl std::fmt::Display, seats: impl Into<u64>) -> String {
    let seats: u64 = seats.into();
    match seats {
        0 => format!("there is no seat {seat}: this table has no seats"),
        1 => format!("there is no seat {seat}: this table has one seat, seat 0"),
        n => format!("there is no seat {seat}: this table has {n} seats, numbered 0 to {}", n - 1),
    }
}

/// The HTTP status of an error code. Credentials follow one rule on every
/// route: 401 when the request carries no valid credential (`bad-token` for
/// a malformed header or an unknown token, `unauthorized` for no header,
/// which [`Caller::refuse`] answers), 403 `unauthorized` when a valid
/// credential does not allow the action.
pub(crate) fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Unauthorized => StatusCode::FORBIDDEN,
        ErrorCode::BadToken | ErrorCode::BadSignIn => StatusCode::UNAUTHORIZED,
        ErrorCode::ShuttingDown | ErrorCode::Busy => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::RateLimited | ErrorCode::TooManyRooms => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::HintUnavailable => StatusCode::FORBIDDEN,
        ErrorCode::TournamentState => StatusCode::CONFLICT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::NoSuchRoom
        | ErrorCode::NoSuchTournament
        | ErrorCode::NoSuchGame
        | ErrorCode::NoSuchPlayer
        | ErrorCode::NotFound => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// The token of a request's `Authorization: Bearer TOKEN` header: `None`
/// without the header, `401 bad-token` for a header of another shape.
pub(crate) fn bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Ok(None) };
    match value.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")).map(str::trim) {
        Some(token) => Ok(Some(token)),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::BadToken,
            "the Authorization header must be `Bearer TOKEN`",
        )),
    }
}

/// Who sent a request, by its `Authorization: Bearer TOKEN` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No `Authorization` header.
    Guest,
    /// A registered player's token, with the player's id.
    Player(i64),
    /// The admin token.
    Admin,
}

impl Caller {
    /// Reads the credential of a request against the admin token (if admin
    /// actions are enabled) and the players of `db`: a malformed header or
    /// a token that is neither the admin's nor a player's is `401 bad-token`.
    /// A client address that sent too many wrong tokens is answered `429
    /// rate-limited` for a while, whatever it sends.
    pub(crate) async fn of(
        state: &crate::AppState,
        addr: Option<std::net::IpAddr>,
        headers: &HeaderMap,
    ) -> Result<Caller, ApiError> {
        let Some(token) = bearer(headers)? else {
            return Ok(Caller::Guest);
        };
        let limits = &state.http_limits;
        if let Some(wait) = addr.and_then(|a| limits.may_try_token(a).err()) {
            return Err(ApiError::rate_limited("too many wrong tokens from this address", wait));
        }
        if crate::secret::is_admin(token, state.config.admin_token.as_deref()) {
            return Ok(Caller::Admin);
        }
        match state.db.player_by_token(token).await? {
            Some(p) => Ok(Caller::Player(p.id)),
            None => {
                if let Some(a) = addr {
                    limits.wrong_token(a);
                }
                Err(ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::BadToken, "unknown token"))
            }
        }
    }

    /// Refuses an action this caller may not take: `401 unauthorized` for a
    /// guest (no credential was sent), `403 unauthorized` for a player or
    /// the admin (the credential is valid but not enough).
    pub(crate) fn refuse(self, message: impl Into<String>) -> ApiError {
        let status = if self == Caller::Guest { StatusCode::UNAUTHORIZED } else { StatusCode::FORBIDDEN };
        ApiError::new(status, ErrorCode::Unauthorized, message)
    }
}

/// The client address a request counts against (see
/// [`crate::limits::peer_of`]); `None` on a Unix socket.
pub(crate) struct Peer(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Peer(crate::limits::peer_of(&parts.extensions)))
    }
}

/// A path parameter; a bad one is a `400 bad-request` JSON error.
pub(crate) struct ApiPath<T>(pub T);

/// Query parameters; bad ones are a `400 bad-request` JSON error.
pub(crate) struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(v)) => Ok(ApiPath(v)),
            Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, e.body_text())),
        }
    }
}

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(v)) => Ok(ApiQuery(v)),
            Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, e.body_text())),
        }
    }
}

impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> Self {
        ApiError::internal(e)
    }
}
