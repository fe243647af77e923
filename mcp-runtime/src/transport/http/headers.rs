//! Reading a request's headers: what the client accepts, its content type, the protocol
//! version it names.

use super::body::{self, Answer};
use super::code;
use super::media::{self, NotJson};
use crate::protocol::ProtocolVersion;
use hyper::StatusCode;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderMap};

pub(super) const SESSION_ID: &str = "mcp-session-id";
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub(super) const LAST_EVENT_ID: &str = "last-event-id";

/// What the client's `Accept` headers let the server answer with.
#[derive(Clone, Copy, Debug)]
pub(super) struct Accepts {
    pub json: bool,
    pub sse: bool,
}

impl Accepts {
    /// Read as media ranges with q-values ([`media::accepted`]); no `Accept` header accepts
    /// nothing (the spec requires clients to send one; the reference servers answer 406).
    pub fn of(headers: &HeaderMap) -> Self {
        let values = headers.get_all(ACCEPT).iter().map(|v| v.to_str().unwrap_or_default());
        let [json, sse] = media::accepted(values, ["application/json", "text/event-stream"]);
        Self { json, sse }
    }
}

/// The body must be `application/json` (in UTF-8, if a charset is named): 415 otherwise, and
/// 400 for two `Content-Type` headers.
pub(super) fn check_content_type(headers: &HeaderMap) -> Result<(), Failure> {
    let mut values = headers.get_all(CONTENT_TYPE).iter();
    let (first, second) = (values.next(), values.next());
    if second.is_some() {
        return Err(Failure::bad_request("Bad Request: more than one Content-Type header"));
    }
    let unsupported = |message: &str| Failure {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code: code::BAD_REQUEST,
        message: message.to_owned(),
    };
    let content_type = first.and_then(|v| v.to_str().ok()).unwrap_or_default();
    media::check_json(content_type).map_err(|not_json| match not_json {
        NotJson::OtherType => {
            unsupported("Unsupported Media Type: the body must be one JSON-RPC message as application/json")
        }
        NotJson::Charset => unsupported("Unsupported Media Type: JSON-RPC messages must be encoded in UTF-8"),
    })
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
