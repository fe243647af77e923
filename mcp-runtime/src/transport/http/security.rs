//! DNS-rebinding protection: the `Host` and `Origin` of each request against the allow-lists
//! of [`HttpConfig`](super::HttpConfig).

use super::config::AllowList;
use hyper::header::{HOST, ORIGIN};
use hyper::{HeaderMap, Uri};

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Why a request is refused (the message of the 403 answer).
pub(super) type Refusal = &'static str;

/// Checks the request's host (its URI authority, else the `Host` header) and, when present,
/// its `Origin`.
pub(super) fn check(hosts: &AllowList, origins: &AllowList, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
    if !hosts.any {
        let host = uri.authority().map(|a| a.as_str()).or_else(|| headers.get(HOST).and_then(|h| h.to_str().ok()));
        match host {
            Some(host) if host_allowed(hosts, host) => {}
            _ => return Err("Forbidden: the Host header is not allowed"),
        }
    }
    if !origins.any
        && let Some(origin) = headers.get(ORIGIN)
    {
        match origin.to_str() {
            Ok(origin) if origin_allowed(origins, origin) => {}
            _ => return Err("Forbidden: the Origin header is not allowed"),
        }
    }
    Ok(())
}

/// `host` is `name` or `name:port`, where `name` may be a bracketed IPv6 address.
fn host_allowed(list: &AllowList, host: &str) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let name = host_name(&host);
    (list.loopback && LOOPBACK.contains(&name))
        || list.extra.iter().any(|allowed| allowed == &host || (!has_port(allowed) && allowed == name))
}

/// `origin` is `scheme://host[:port]`.
fn origin_allowed(list: &AllowList, origin: &str) -> bool {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if list.extra.contains(&origin) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else { return false };
    list.loopback && matches!(scheme, "http" | "https") && LOOPBACK.contains(&host_name(authority))
}

/// The name part of `name[:port]`.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(end) => &host[..=end],
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn has_port(host: &str) -> bool {
    host_name(host).len() != host.len()
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
    fn origins() {
        let list = list(&["https://app.example.com"]);
        for origin in ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:80", "https://app.example.com/"] {
            assert!(origin_allowed(&list, origin), "{origin}");
        }
        for origin in ["http://evil.example.com", "null", "file://localhost", "https://app.example.com:444", ""] {
            assert!(!origin_allowed(&list, origin), "{origin}");
        }
    }
}
