//! Path and query extractors whose rejections are the API's JSON errors.
//!
//! axum's own `Path` and `Query` reject a bad value (`/api/games/abc`,
//! `?seat=x`) with a plain-text body; a client of this API always gets
//! `{"code": "bad-request", "message": ...}` instead.

use axum::extract::{FromRequestParts, Path, Query};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::http::ApiError;
use capicua_protocol::ErrorCode;

/// A path parameter; a bad one is a `400 bad-request` JSON error.
pub struct ApiPath<T>(pub T);

/// Query parameters; bad ones are a `400 bad-request` JSON error.
pub struct ApiQuery<T>(pub T);

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
