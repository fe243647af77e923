//! CORS for browser apps: the preflight (`OPTIONS` with `Access-Control-Request-Method`) and the
//! headers that let a page read an answer. Only for origins the Origin check of `security.rs`
//! allowed (one allow-list, [`HttpConfig::allow_origin`](super::HttpConfig::allow_origin)): a
//! refused origin gets its 403 there, with no CORS header, so the browser's `fetch` fails.
//! A request without an `Origin` (not from a browser page) gets nothing added.

use super::body::{self, Answer};
use hyper::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_HEADERS,
    ACCESS_CONTROL_REQUEST_METHOD, HeaderMap, HeaderValue, VARY,
};
use hyper::{Method, StatusCode};

/// The methods of the endpoint.
const METHODS: HeaderValue = HeaderValue::from_static("POST, GET, DELETE");

/// The request headers a client of the protocol sends, allowed to every allowed origin.
/// `Mcp-Param-*` (2026-07-28) cannot be listed by a wildcard: those a preflight asks for are
/// echoed after these.
const ALLOWED_HEADERS: &str =
    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";

/// The response headers a page may read (beyond the CORS-safelisted ones, `Content-Type`...).
const EXPOSED: HeaderValue = HeaderValue::from_static("Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate");

/// How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at 7200).
const MAX_AGE: HeaderValue = HeaderValue::from_static("7200");

/// An answer varies with the origin (its `Access-Control-Allow-Origin` does).
const VARY_ORIGIN: HeaderValue = HeaderValue::from_static("Origin");

/// A preflight's answer varies with what it asked too.
const VARY_PREFLIGHT: HeaderValue =
    HeaderValue::from_static("Origin, Access-Control-Request-Method, Access-Control-Request-Headers");

/// Whether this request is a CORS preflight.
pub(super) fn is_preflight(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::OPTIONS && headers.contains_key(ACCESS_CONTROL_REQUEST_METHOD)
}

/// `204` allowing `origin` the endpoint's methods and the headers of the protocol, plus those
/// the preflight asks for (`Mcp-Param-*`...). Needs no token: a browser sends none with it.
pub(super) fn preflight(origin: HeaderValue, headers: &HeaderMap) -> Answer {
    let mut answer = body::empty(StatusCode::NO_CONTENT);
    let out = answer.headers_mut();
    out.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    out.insert(VARY, VARY_PREFLIGHT);
    out.insert(ACCESS_CONTROL_ALLOW_METHODS, METHODS);
    out.insert(ACCESS_CONTROL_ALLOW_HEADERS, allowed_headers(headers));
    out.insert(ACCESS_CONTROL_MAX_AGE, MAX_AGE);
    answer
}

/// Lets a page of `origin` read `answer` and the protocol's headers on it (error answers
/// included: a `401`'s `WWW-Authenticate`, a `400`'s body).
pub(super) fn expose(answer: &mut Answer, origin: HeaderValue) {
    let out = answer.headers_mut();
    out.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    out.insert(VARY, VARY_ORIGIN);
    out.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
}

/// [`ALLOWED_HEADERS`], then every header name the preflight's
/// `Access-Control-Request-Headers` lists that is not among them (names only: anything else in
/// the list is left out).
fn allowed_headers(headers: &HeaderMap) -> HeaderValue {
    let mut allowed = ALLOWED_HEADERS.to_owned();
    for value in headers.get_all(ACCESS_CONTROL_REQUEST_HEADERS) {
        let Ok(value) = value.to_str() else { continue };
        for name in value.split(',').map(str::trim) {
            let is_name = !name.is_empty() && name.len() <= 256 && name.bytes().all(is_token_byte);
            if is_name && !ALLOWED_HEADERS.split(", ").any(|known| known.eq_ignore_ascii_case(name)) {
                allowed.push_str(", ");
                allowed.push_str(name);
            }
        }
    }
    HeaderValue::from_str(&allowed).unwrap_or(HeaderValue::from_static(ALLOWED_HEADERS))
}

/// A byte of an HTTP token (RFC 9110 §5.6.2), what a header name is made of.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_allows_the_protocol_headers_and_echoes_the_others() {
        let mut headers = HeaderMap::new();
        headers.insert(ACCESS_CONTROL_REQUEST_METHOD, HeaderValue::from_static("POST"));
        headers.insert(
            ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("content-type,mcp-param-region, mcp-session-id,x bad,,mcp-param-x"),
        );
        assert!(is_preflight(&Method::OPTIONS, &headers));
        assert!(!is_preflight(&Method::POST, &headers));
        let answer = preflight(HeaderValue::from_static("https://app.example.com"), &headers);
        assert_eq!(answer.status(), StatusCode::NO_CONTENT);
        let allowed = answer.headers()[ACCESS_CONTROL_ALLOW_HEADERS].to_str().unwrap();
        assert_eq!(allowed, format!("{ALLOWED_HEADERS}, mcp-param-region, mcp-param-x"));
        assert_eq!(answer.headers()[ACCESS_CONTROL_ALLOW_ORIGIN], "https://app.example.com");
        assert_eq!(answer.headers()[ACCESS_CONTROL_ALLOW_METHODS], "POST, GET, DELETE");
    }
}
