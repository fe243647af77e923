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

    /// 503: the session store is unreachable (feature `redis`).
    pub fn store_unavailable() -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: crate::jsonrpc::code::INTERNAL_ERROR,
            message: "Service Unavailable: the session store is unreachable; retry shortly".into(),
        }
    }
}
