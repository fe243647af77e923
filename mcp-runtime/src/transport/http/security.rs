//! DNS-rebinding protection: the `Host` and `Origin` of each request against the allow-lists
//! of [`HttpConfig`](super::HttpConfig).

use super::config::AllowList;
use super::headers::RequestHeaders;
use hyper::header::HeaderValue;
use hyper::http::uri::Authority;
use hyper::{StatusCode, Uri};

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Why a request is refused: the status and message of the answer.
pub(super) struct Refusal {
    pub status: StatusCode,
    pub message: &'static str,
}

const HOST_NOT_ALLOWED: Refusal =
    Refusal { status: StatusCode::FORBIDDEN, message: "Forbidden: the Host header is not allowed" };
const ORIGIN_NOT_ALLOWED: Refusal =
    Refusal { status: StatusCode::FORBIDDEN, message: "Forbidden: the Origin header is not allowed" };

/// Checks the request's host (its URI authority, else the `Host` header) and, when present,
/// its `Origin`. Two `Host` headers are a 400 (RFC 9112 §3.2) and two `Origin` headers a 403,
/// whatever the allow-lists: which one counts would be a guess. Passed, the request's
/// `Origin`, if it has one: an allowed origin, which CORS (`cors.rs`) lets read the answer.
pub(super) fn check(
    hosts: &AllowList,
    origins: &AllowList,
    uri: &Uri,
    headers: &RequestHeaders<'_>,
) -> Result<Option<HeaderValue>, Refusal> {
    let host = headers
        .host
        .only()
        .map_err(|()| Refusal { status: StatusCode::BAD_REQUEST, message: "Bad Request: more than one Host header" })?;
    let origin = headers
        .origin
        .only()
        .map_err(|()| Refusal { status: StatusCode::FORBIDDEN, message: "Forbidden: more than one Origin header" })?;
    if !hosts.any {
        let host = uri.authority().map(Authority::as_str).or_else(|| host.and_then(|h| h.to_str().ok()));
        if !host.is_some_and(|host| host_allowed(hosts, host)) {
            return Err(HOST_NOT_ALLOWED);
        }
    }
    if !origins.any
        && let Some(origin) = origin
        && !origin.to_str().is_ok_and(|origin| origin_allowed(origins, origin))
    {
        return Err(ORIGIN_NOT_ALLOWED);
    }
    Ok(origin.cloned())
}

/// A `Host` value (`uri-host [ ":" port ]`, RFC 9110 §7.2) as its name (in the value's case)
/// and port. `None` unless it is exactly that: no user info, nothing after a bracketed IPv6
/// address but its port (`[::1].evil.com` is refused, where a bracket-aware split would read
/// `[::1]`), a port that is a number.
fn parse_host(host: &str) -> Option<(&str, Option<u16>)> {
    let host = trim(host);
    // A bracketed IPv6 address ends at its `]`, any other name at the first `:`. (Read in
    // place: parsing an `Authority` copied the value, an allocation on every request.)
    let bytes = host.as_bytes();
    let end = if host.starts_with('[') {
        bytes.iter().position(|&b| b == b']')? + 1
    } else {
        bytes.iter().position(|&b| b == b':').unwrap_or(host.len())
    };
    let name = &host[..end];
    if name.is_empty() || !name.bytes().all(is_host_byte) {
        return None;
    }
    let port = match &host[name.len()..] {
        "" => None,
        rest => {
            let port = rest.strip_prefix(':')?;
            if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(port.parse::<u16>().ok()?)
        }
    };
    let well_formed = match name.strip_prefix('[') {
        Some(bracketed) => bracketed.strip_suffix(']').is_some_and(|ip| ip.parse::<std::net::Ipv6Addr>().is_ok()),
        None => !name.bytes().any(|b| matches!(b, b'[' | b']' | b'%')),
    };
    well_formed.then_some((name, port))
}

/// `str::trim`, without decoding characters when the ends are plain ASCII (a Host header's
/// are): `trim` was a third of the Host check's instructions (bench/NOTES.md).
fn trim(text: &str) -> &str {
    let plain = |b: &u8| b.is_ascii() && !b.is_ascii_whitespace() && *b != 0x0b;
    match text.as_bytes() {
        [first, .., last] if plain(first) && plain(last) => text,
        [only] if plain(only) => text,
        _ => text.trim(),
    }
}

/// A byte of a URI host (RFC 3986 §3.2.2: a reg-name, or an IP literal in brackets): not `@`
/// (user info), `/`, `?`, `#`, spaces or quotes.
fn is_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'%'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b'['
                | b']'
                | b':'
        )
}

fn is_loopback(name: &str) -> bool {
    LOOPBACK.iter().any(|loopback| loopback.eq_ignore_ascii_case(name))
}

/// `host` is `name` or `name:port`, where `name` may be a bracketed IPv6 address.
fn host_allowed(list: &AllowList, host: &str) -> bool {
    let Some((name, port)) = parse_host(host) else { return false };
    (list.loopback && is_loopback(name))
        || list.extra.iter().any(|allowed| match parse_host(allowed) {
            Some((allowed_name, allowed_port)) => {
                allowed_name.eq_ignore_ascii_case(name) && (allowed_port.is_none() || allowed_port == port)
            }
            None => false,
        })
}

/// `origin` is `scheme://host[:port]`.
fn origin_allowed(list: &AllowList, origin: &str) -> bool {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if list.extra.contains(&origin) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else { return false };
    list.loopback
        && matches!(scheme, "http" | "https")
        && parse_host(authority).is_some_and(|(name, _)| is_loopback(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(extra: &[&str]) -> AllowList {
        AllowList { any: false, loopback: true, extra: extra.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn loopback_hosts_pass_on_any_port() {
        let list = list(&[]);
        for host in ["localhost", "localhost:3000", "127.0.0.1:8080", "[::1]:9", "[::1]", "LOCALHOST:1"] {
            assert!(host_allowed(&list, host), "{host}");
        }
        for host in ["evil.example.com", "evil.example.com:3000", "localhost.evil.com", "127.0.0.2", "[::2]:1", ""] {
            assert!(!host_allowed(&list, host), "{host}");
        }
        // What a bracket-aware split of `name[:port]` took for `[::1]`.
        for host in [
            "[::1].evil.com",
            "[::1]evil",
            "[::1]:80.evil.com",
            "[::1]:",
            "localhost:",
            "localhost:99999",
            "localhost:+1",
            "user@localhost",
            "localhost/x",
            "[::1%25eth0]",
            "[localhost]",
            "local host",
            "localhost#x",
            "localhost?x",
            "\"localhost\"",
        ] {
            assert!(!host_allowed(&list, host), "{host}");
        }
    }

    #[test]
    fn trim_is_str_trim() {
        for text in ["", " ", "a", " a", "a ", "\u{b}a\u{b}", "\ta b\r\n", "\u{a0}a\u{3000}", "é", "aé", "\u{85}x"] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn extra_hosts_match_with_or_without_a_port() {
        let list = list(&["mcp.example.com", "other.example.com:8443"]);
        assert!(host_allowed(&list, "mcp.example.com:443"));
        assert!(host_allowed(&list, "mcp.example.com"));
        assert!(host_allowed(&list, "other.example.com:8443"));
        assert!(!host_allowed(&list, "other.example.com:8444"));
        assert!(!host_allowed(&list, "other.example.com"));
    }

    #[test]
    fn two_hosts_or_two_origins_are_refused() {
        use hyper::HeaderMap;
        use hyper::header::{HOST, ORIGIN};
        let check = |hosts: &AllowList, origins: &AllowList, uri: &Uri, headers: &HeaderMap| {
            check(hosts, origins, uri, &RequestHeaders::read(headers))
        };
        let (hosts, origins, uri) = (list(&[]), list(&[]), Uri::from_static("/mcp"));
        let mut headers = HeaderMap::new();
        headers.append(HOST, HeaderValue::from_static("localhost"));
        assert!(check(&hosts, &origins, &uri, &headers).is_ok());
        headers.append(HOST, HeaderValue::from_static("localhost"));
        assert_eq!(check(&hosts, &origins, &uri, &headers).err().map(|r| r.status), Some(StatusCode::BAD_REQUEST));
        headers.remove(HOST);
        headers.append(HOST, HeaderValue::from_static("localhost"));
        headers.append(ORIGIN, HeaderValue::from_static("http://localhost"));
        assert!(check(&hosts, &origins, &uri, &headers).is_ok());
        headers.append(ORIGIN, HeaderValue::from_static("http://localhost"));
        assert_eq!(check(&hosts, &origins, &uri, &headers).err().map(|r| r.status), Some(StatusCode::FORBIDDEN));
    }

    #[test]
    fn origins() {
        let list = list(&["https://app.example.com"]);
        for origin in ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:80", "https://app.example.com/"] {
            assert!(origin_allowed(&list, origin), "{origin}");
        }
        for origin in [
            "http://evil.example.com",
            "null",
            "file://localhost",
            "https://app.example.com:444",
            "",
            "http://[::1].evil.com",
            "http://localhost@evil.com",
        ] {
            assert!(!origin_allowed(&list, origin), "{origin}");
        }
    }
}
