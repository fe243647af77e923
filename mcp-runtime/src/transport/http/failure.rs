//! [`Failure`]: why a request is refused, as data (a status, a JSON-RPC code, a message), so
//! the layers that decide it (header checks, the session table, the replicas' store) need not
//! know how an answer is built; `body.rs` turns it into one.

use super::code;
use hyper::StatusCode;

/// An error answer, built once it is returned ([`Failure::answer`], in `body.rs`).
pub(super) struct Failure {
    pub status: StatusCode,
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, code: code::BAD_REQUEST, message: message.into() }
    }

    /// 404: no such session (any more).
    pub fn session_not_found() -> Self {
        Self { status: StatusCode::NOT_FOUND, code: code::SESSION_NOT_FOUND, message: "Session not found".into() }
    }
}
