//! Reading a request's headers: what the client accepts, its content type, the protocol
//! version it names.

use super::body::{self, Answer};
use super::code;
pub(super) use super::failure::Failure;
use super::media::{self, NotJson};
use crate::protocol::ProtocolVersion;
use hyper::StatusCode;
use hyper::header::{
    ACCEPT, AsHeaderName, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue, ORIGIN,
};

// Names made once: a lookup by `&str` parses and validates the name on every request.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The headers the endpoint decides on, found in one pass over the request's: a lookup by
/// name hashes the name and walks its bucket, and a `POST` made nine of them. Every check
/// reads them from here, so no two read the same header differently.
pub(super) struct RequestHeaders<'a> {
    /// All of them, for the headers read on rarer paths.
    pub all: &'a HeaderMap,
    pub host: Seen<'a>,
    pub origin: Seen<'a>,
    pub accept: Seen<'a>,
    pub content_type: Seen<'a>,
    pub content_length: Seen<'a>,
    pub session_id: Seen<'a>,
    pub protocol_version: Seen<'a>,
}

/// A header's first value, and whether it came more than once.
#[derive(Clone, Copy, Default)]
pub(super) struct Seen<'a> {
    pub first: Option<&'a HeaderValue>,
    pub repeated: bool,
}

impl<'a> Seen<'a> {
    /// The only value: `Err` when the header came more than once.
    pub fn only(self) -> Result<Option<&'a HeaderValue>, ()> {
        if self.repeated { Err(()) } else { Ok(self.first) }
    }

    /// The first value as text (a value with bytes outside visible ASCII reads as U+FFFD).
    pub fn text(self) -> Option<&'a str> {
        // `to_str` passes visible ASCII and tabs only: trimming ASCII is `str::trim` here,
        // without decoding characters.
        self.first.map(|v| v.to_str().unwrap_or("\u{fffd}").trim_ascii())
    }

    /// The only value as text, trimmed of spaces and tabs: for a header that must mirror the
    /// body, where a second value is one a proxy may have acted on instead, and a byte outside
    /// visible ASCII is one the spec calls an invalid character (reading it as U+FFFD would
    /// let `évil` match a body's `\u{fffd}`).
    pub fn mirror(self) -> Result<Option<&'a str>, Unmirrorable> {
        if self.repeated {
            return Err(Unmirrorable::SentTwice);
        }
        self.first.map(|v| v.to_str().map(str::trim_ascii).map_err(|_| Unmirrorable::InvalidCharacters)).transpose()
    }

    fn see(&mut self, value: &'a HeaderValue) {
        self.repeated |= self.first.is_some();
        self.first.get_or_insert(value);
    }
}

impl<'a> RequestHeaders<'a> {
    pub fn read(all: &'a HeaderMap) -> Self {
        let mut headers = Self {
            all,
            host: Seen::default(),
            origin: Seen::default(),
            accept: Seen::default(),
            content_type: Seen::default(),
            content_length: Seen::default(),
            session_id: Seen::default(),
            protocol_version: Seen::default(),
        };
        for (name, value) in all {
            let seen = match name {
                name if name == HOST => &mut headers.host,
                name if name == ACCEPT => &mut headers.accept,
                name if name == CONTENT_TYPE => &mut headers.content_type,
                name if name == CONTENT_LENGTH => &mut headers.content_length,
                name if name == ORIGIN => &mut headers.origin,
                name if name == SESSION_ID => &mut headers.session_id,
                name if name == PROTOCOL_VERSION => &mut headers.protocol_version,
                _ => continue,
            };
            seen.see(value);
        }
        headers
    }

    /// Whether `MCP-Protocol-Version` names a stateless (2026-07-28) version: such a client
    /// only `POST`s, and each of its requests stands alone.
    pub fn names_stateless_version(&self) -> bool {
        self.protocol_version.text().is_some_and(|v| ProtocolVersion::STATELESS.iter().any(|s| s.as_str() == v))
    }

    /// A present `MCP-Protocol-Version` must name a version this server speaks, once; an
    /// absent one means 2025-03-26, which it does.
    pub fn check_protocol_version(&self) -> Result<(), Failure> {
        if self.protocol_version.repeated {
            return Err(Failure::bad_request("Bad Request: more than one MCP-Protocol-Version header"));
        }
        match self.protocol_version.text() {
            None => Ok(()),
            Some(version) if ProtocolVersion::parse(version).is_some() => Ok(()),
            Some(version) => {
                let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
                Err(Failure::bad_request(format!(
                    "Bad Request: unsupported MCP-Protocol-Version `{}`; this server speaks {}",
                    crate::clip::clip(version),
                    supported.join(", ")
                )))
            }
        }
    }

    /// The body must be `application/json` (in UTF-8, if a charset is named): 415 otherwise,
    /// and 400 for two `Content-Type` headers.
    pub fn check_content_type(&self) -> Result<(), Failure> {
        let Ok(content_type) = self.content_type.only() else {
            return Err(Failure::bad_request("Bad Request: more than one Content-Type header"));
        };
        let unsupported = |message: &str| Failure {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code: code::BAD_REQUEST,
            message: message.to_owned(),
        };
        if content_type.is_some_and(|v| v.as_bytes() == b"application/json") {
            return Ok(()); // what clients send: no parse
        }
        let content_type = content_type.and_then(|v| v.to_str().ok()).unwrap_or_default();
        media::check_json(content_type).map_err(|not_json| match not_json {
            NotJson::OtherType => {
                unsupported("Unsupported Media Type: the body must be one JSON-RPC message as application/json")
            }
            NotJson::Charset => unsupported("Unsupported Media Type: JSON-RPC messages must be encoded in UTF-8"),
        })
    }
}

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
    pub fn of(headers: &RequestHeaders<'_>) -> Self {
        if let Ok(Some(only)) = headers.accept.only()
            && let Some((_, accepts)) = COMMON_ACCEPTS.iter().find(|(common, _)| only.as_bytes() == *common)
        {
            return *accepts;
        }
        Self::parse(headers.all.get_all(ACCEPT).iter().map(|v| v.to_str().unwrap_or_default()))
    }

    fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let [json, sse] = media::accepted(values, ["application/json", "text/event-stream"]);
        Self { json, sse }
    }
}

/// The first value of header `name` as text, as [`Seen::text`] reads it.
pub(super) fn header(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    seen(headers, name).text()
}

/// Every value of `name`, seen as `RequestHeaders` sees the headers it keeps.
pub(super) fn seen(headers: &HeaderMap, name: impl AsHeaderName) -> Seen<'_> {
    let mut seen = Seen::default();
    headers.get_all(name).iter().for_each(|value| seen.see(value));
    seen
}

/// Why a header that mirrors the body cannot be compared with it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unmirrorable {
    SentTwice,
    InvalidCharacters,
}

impl Unmirrorable {
    /// The `HeaderMismatch` message for `header` (a name, or a label naming it).
    pub fn message(&self, header: impl std::fmt::Display) -> String {
        match self {
            Self::SentTwice => format!("Header mismatch: the {header} header is sent more than once"),
            Self::InvalidCharacters => {
                format!("Header mismatch: the {header} header value contains invalid characters")
            }
        }
    }
}

pub(super) fn bad_request(message: impl Into<String>) -> Answer {
    body::error(StatusCode::BAD_REQUEST, code::BAD_REQUEST, message)
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
            assert_eq!(Accepts::of(&RequestHeaders::read(&headers)), accepts, "{value}");
        }
        let mut headers = HeaderMap::new();
        headers.append(ACCEPT, hyper::header::HeaderValue::from_static("application/json"));
        headers.append(ACCEPT, hyper::header::HeaderValue::from_static("text/event-stream;q=0"));
        let accepts = Accepts::of(&RequestHeaders::read(&headers));
        assert_eq!(accepts, Accepts { json: true, sse: false }, "two values: the general parse");
    }

    #[test]
    fn one_pass_finds_each_header_and_notes_repeats() {
        let mut headers = HeaderMap::new();
        headers.append(HOST, HeaderValue::from_static("localhost:3000"));
        headers.append("user-agent", HeaderValue::from_static("test"));
        headers.append(SESSION_ID, HeaderValue::from_static(" abc "));
        headers.append(PROTOCOL_VERSION, HeaderValue::from_static("2025-11-25"));
        headers.append(PROTOCOL_VERSION, HeaderValue::from_static("2026-07-28"));
        let read = RequestHeaders::read(&headers);
        assert_eq!(read.host.only(), Ok(Some(&HeaderValue::from_static("localhost:3000"))));
        assert_eq!(read.session_id.text(), Some("abc"));
        assert!(read.origin.first.is_none() && !read.origin.repeated);
        assert!(read.protocol_version.repeated);
        assert_eq!(read.protocol_version.text(), Some("2025-11-25"), "the first value");
        let failure = read.check_protocol_version().expect_err("two versions are refused");
        assert_eq!(failure.status, StatusCode::BAD_REQUEST);
        assert!(failure.message.contains("more than one MCP-Protocol-Version"), "{}", failure.message);
    }

    #[test]
    fn a_mirrored_value_is_the_only_one_and_visible_ascii() {
        let mut all = HeaderMap::new();
        let name = HeaderName::from_static("mcp-name");
        assert_eq!(seen(&all, &name).mirror(), Ok(None));
        all.append(&name, HeaderValue::from_static(" \tsteps "));
        assert_eq!(seen(&all, &name).mirror(), Ok(Some("steps")), "trimmed of spaces and tabs");
        all.append(&name, HeaderValue::from_static("steps"));
        assert_eq!(seen(&all, &name).mirror(), Err(Unmirrorable::SentTwice), "even when the values agree");
        all.insert(&name, HeaderValue::from_bytes(b"\xc3\xa9vil").unwrap());
        assert_eq!(seen(&all, &name).mirror(), Err(Unmirrorable::InvalidCharacters));
        assert_eq!(
            Unmirrorable::InvalidCharacters.message("Mcp-Name"),
            "Header mismatch: the Mcp-Name header value contains invalid characters"
        );
    }
}
