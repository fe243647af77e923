//! The shapes of the façade's answers: JSON (never cached), OAuth errors, HTML pages, redirects.

use hyper::body::Bytes;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue, LOCATION, PRAGMA, RETRY_AFTER};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

pub(super) type Answer = Response<Bytes>;

fn with(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Answer {
    let mut answer = Response::new(body.into());
    *answer.status_mut() = status;
    answer.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    answer
}

/// JSON that may be cached (metadata, keys).
pub(super) fn public_json(value: &Value) -> Answer {
    let mut answer = with(StatusCode::OK, "application/json", value.to_string());
    answer.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    answer
}

/// JSON that carries secrets or one-time answers: never stored by a cache (RFC 6749 §5.1).
pub(super) fn json(status: StatusCode, value: &Value) -> Answer {
    let mut answer = with(status, "application/json", value.to_string());
    answer.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer.headers_mut().insert(PRAGMA, HeaderValue::from_static("no-cache"));
    answer
}

/// An OAuth error answer (`{"error": ..., "error_description": ...}`).
pub(super) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Answer {
    json(status, &json!({"error": error, "error_description": description}))
}

/// The provider or the store is down: `503` with `Retry-After`, so clients wait rather than
/// start over (a `401` would send them to sign in again).
pub(super) fn unavailable(description: &str) -> Answer {
    let mut answer = oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", description);
    answer.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("30"));
    answer
}

/// An HTML page, never framed by another site (clickjacking) nor cached.
pub(super) fn html(status: StatusCode, page: String) -> Answer {
    let mut answer = with(status, "text/html; charset=utf-8", page);
    let headers = answer.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(HeaderName::from_static("x-frame-options"), HeaderValue::from_static("DENY"));
    headers.insert(
        HeaderName::from_static("content-security-policy"),
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    answer
}

/// `303 See Other` to `location` (a form's answer, or the redirect back to a client).
pub(super) fn redirect(location: &str) -> Answer {
    let mut answer = with(StatusCode::SEE_OTHER, "text/plain", Bytes::new());
    if let Ok(value) = HeaderValue::from_str(location) {
        answer.headers_mut().insert(LOCATION, value);
    }
    answer.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    answer
}
