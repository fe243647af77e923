//! Reading a request's headers: what the client accepts, its content type, the protocol
//! version it names.

use super::body::{self, Answer};
use super::code;
use super::media::{self, NotJson};
use crate::protocol::ProtocolVersion;
use hyper::StatusCode;
use hyper::header::{ACCEPT, AsHeaderName, CONTENT_TYPE, HeaderMap, HeaderName};

// Names made once: a lookup by `&str` parses and validates the name on every request.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// What clients send as `Accept`, and what it accepts: the SDKs send the first, and the
/// spec asks for both types, so the general parse is for everything else.
const COMMON_ACCEPTS: [(&[u8], Accepts); 4] = [
    (b"application/json, text/event-stream", Accepts { json: true, sse: true }),
    (b"text/event-stream, application/json", Accepts { json: true, sse: true }),
    (b"application/json", Accepts { json: true, sse: false }),
    (b"text/event-stream", Accepts { json: false, sse: true }),
];

/// What the client's `Accept` headers let the server answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Accepts {
    pub json: bool,
    pub sse: bool,
}

impl Accepts {
    /// Read as media ranges with q-values ([`media::accepted`]); no `Accept` header accepts
    /// nothing (the spec requires clients to send one; the reference servers answer 406).
    pub fn of(headers: &HeaderMap) -> Self {
        let all = headers.get_all(ACCEPT);
        let mut values = all.iter();
        if let (Some(only), None) = (values.next(), values.next())
            && let Some((_, accepts)) = COMMON_ACCEPTS.iter().find(|(common, _)| only.as_bytes() == *common)
        {
            return *accepts;
        }
        Self::parse(all.iter().map(|v| v.to_str().unwrap_or_default()))
    }

    fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
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
    if first.is_some_and(|v| v.as_bytes() == b"application/json") {
        return Ok(()); // what clients send: no parse
    }
    let content_type = first.and_then(|v| v.to_str().ok()).unwrap_or_default();
    media::check_json(content_type).map_err(|not_json| match not_json {
        NotJson::OtherType => {
            unsupported("Unsupported Media Type: the body must be one JSON-RPC message as application/json")
        }
        NotJson::Charset => unsupported("Unsupported Media Type: JSON-RPC messages must be encoded in UTF-8"),
    })
}

pub(super) fn header(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
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

    /// 503: the session store is unreachable (feature `redis`).
    pub fn store_unavailable() -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: crate::jsonrpc::code::INTERNAL_ERROR,
            message: "Service Unavailable: the session store is unreachable; retry shortly".into(),
        }
    }

    pub fn answer(self) -> Answer {
        let unavailable = self.status == StatusCode::SERVICE_UNAVAILABLE;
        let mut answer = body::error(self.status, self.code, self.message);
        if unavailable {
            answer.headers_mut().insert(hyper::header::RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
        }
        answer
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_accept_values_mean_what_the_general_parse_says() {
        for (common, accepts) in COMMON_ACCEPTS {
            let value = std::str::from_utf8(common).unwrap();
            assert_eq!(Accepts::parse([value]), accepts, "{value}");
            let mut headers = HeaderMap::new();
            headers.insert(ACCEPT, hyper::header::HeaderValue::from_static(value));
            assert_eq!(Accepts::of(&headers), accepts, "{value}");
        }
        let mut headers = HeaderMap::new();
        headers.append(ACCEPT, hyper::header::HeaderValue::from_static("application/json"));
        headers.append(ACCEPT, hyper::header::HeaderValue::from_static("text/event-stream;q=0"));
        assert_eq!(Accepts::of(&headers), Accepts { json: true, sse: false }, "two values: the general parse");
    }
}
