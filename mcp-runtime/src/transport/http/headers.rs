//! Reading a request's headers: what the client accepts, its content type, the protocol
//! version it names.

use super::body::{self, Answer};
use super::code;
use crate::protocol::ProtocolVersion;
use hyper::StatusCode;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderMap};

pub(super) const SESSION_ID: &str = "mcp-session-id";
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub(super) const LAST_EVENT_ID: &str = "last-event-id";

/// What the client's `Accept` header lets the server answer with.
#[derive(Clone, Copy, Debug)]
pub(super) struct Accepts {
    pub json: bool,
    pub sse: bool,
}

impl Accepts {
    /// No `Accept` header accepts anything.
    pub fn of(headers: &HeaderMap) -> Self {
        let mut accepts = Self { json: false, sse: false };
        let mut any_header = false;
        for value in headers.get_all(ACCEPT) {
            any_header = true;
            for item in value.to_str().unwrap_or_default().split(',') {
                let media = item.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
                match media.as_str() {
                    "*/*" => accepts = Self { json: true, sse: true },
                    "application/json" | "application/*" => accepts.json = true,
                    "text/event-stream" | "text/*" => accepts.sse = true,
                    _ => {}
                }
            }
        }
        if any_header { accepts } else { Self { json: true, sse: true } }
    }
}

pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json"))
}

pub(super) fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

pub(super) fn bad_request(message: impl Into<String>) -> Answer {
    body::error(StatusCode::BAD_REQUEST, code::BAD_REQUEST, message)
}

/// An error answer, built once it is returned.
pub(super) struct Failure {
    pub status: StatusCode,
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, code: code::BAD_REQUEST, message: message.into() }
    }

    pub fn answer(self) -> Answer {
        body::error(self.status, self.code, self.message)
    }
}

/// A present `MCP-Protocol-Version` must name a version this server speaks; an absent one
/// means 2025-03-26, which it does.
pub(super) fn check_protocol_version(headers: &HeaderMap) -> Result<(), Failure> {
    match header(headers, PROTOCOL_VERSION) {
        None => Ok(()),
        Some(version) if ProtocolVersion::parse(version.trim()).is_some() => Ok(()),
        Some(version) => {
            let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
            Err(Failure::bad_request(format!(
                "Bad Request: unsupported MCP-Protocol-Version `{version}`; this server speaks {}",
                supported.join(", ")
            )))
        }
    }
}

/// Whether `MCP-Protocol-Version` names a stateless (2026-07-28) version: such a client only
/// `POST`s, and each of its requests stands alone.
pub(super) fn names_stateless_version(headers: &HeaderMap) -> bool {
    header(headers, PROTOCOL_VERSION).is_some_and(|v| ProtocolVersion::STATELESS.iter().any(|s| s.as_str() == v.trim()))
}
