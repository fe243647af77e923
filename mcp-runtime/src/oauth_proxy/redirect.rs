//! Redirect URIs: which a client may register, and which of an authorization request's match
//! a registered one. Exact string comparison, except that a loopback redirect may use any port
//! (RFC 8252 §7.3: a native app picks a free port each time).

use reqwest::Url;

/// What redirect URIs the façade accepts at registration.
#[derive(Clone, Debug, Default)]
pub(super) struct RedirectPolicy {
    /// Prefixes that `https` and custom-scheme redirects must start with; none = any `https`.
    pub allowed_prefixes: Vec<String>,
}

impl RedirectPolicy {
    /// Why `uri` cannot be registered, if it cannot: not absolute, a fragment, plain `http` to
    /// another host than a loopback address, or off the allow-list.
    pub fn refusal(&self, uri: &str) -> Option<String> {
        let Ok(url) = Url::parse(uri) else { return Some(format!("`{uri}` is not an absolute URI")) };
        if uri.contains('#') {
            return Some(format!("`{uri}` has a fragment (RFC 6749 §3.1.2)"));
        }
        let listed = self.allowed_prefixes.iter().any(|prefix| uri.starts_with(prefix.as_str()));
        match url.scheme() {
            "http" if is_loopback(&url) => None,
            "http" => Some(format!("`{uri}`: plain http only to a loopback address (127.0.0.1, [::1], localhost)")),
            "https" if self.allowed_prefixes.is_empty() || listed => None,
            _ if listed => None,
            _ => Some(format!("`{uri}` is not on this server's list of allowed redirect URIs")),
        }
    }
}

/// Whether `requested` (an authorization or token request's) is one of `registered`.
pub(super) fn matches(registered: &[String], requested: &str) -> bool {
    registered.iter().any(|uri| uri == requested || same_but_loopback_port(uri, requested))
}

/// Both loopback `http` URIs that differ at most in their port.
fn same_but_loopback_port(registered: &str, requested: &str) -> bool {
    let (Ok(mut a), Ok(mut b)) = (Url::parse(registered), Url::parse(requested)) else { return false };
    if a.scheme() != "http" || !is_loopback(&a) {
        return false;
    }
    let _ = a.set_port(None);
    let _ = b.set_port(None);
    a == b
}

fn is_loopback(url: &Url) -> bool {
    url.host_str().is_some_and(|host| {
        let ip = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case("localhost") || ip.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_port_may_vary() {
        let registered = vec!["http://127.0.0.1:3000/callback".to_owned(), "https://app.example/cb".to_owned()];
        assert!(matches(&registered, "http://127.0.0.1:3000/callback"));
        assert!(matches(&registered, "http://127.0.0.1:49152/callback"));
        assert!(!matches(&registered, "http://127.0.0.1:49152/other"));
        assert!(!matches(&registered, "https://127.0.0.1:3000/callback"));
        assert!(!matches(&registered, "http://127.0.0.1:3000/callback#x"));
        assert!(!matches(&registered, "http://127.0.0.1:3000/callback?x=1"));
        assert!(!matches(&registered, "https://app.example:8443/cb"));
        assert!(!matches(&registered, "https://app.example/cb/"));
        assert!(!matches(&registered, "http://app.example/cb"));
    }

    #[test]
    fn registration_takes_https_loopback_and_the_allow_list() {
        let open = RedirectPolicy::default();
        assert_eq!(open.refusal("https://app.example/cb"), None);
        assert_eq!(open.refusal("http://[::1]:8080/cb"), None);
        assert!(open.refusal("http://app.example/cb").is_some());
        assert!(open.refusal("https://app.example/cb#frag").is_some());
        assert!(open.refusal("cursor://callback").is_some());
        assert!(open.refusal("/relative").is_some());
        let listed = RedirectPolicy { allowed_prefixes: vec!["https://claude.ai/".into(), "cursor://".into()] };
        assert_eq!(listed.refusal("https://claude.ai/api/mcp/auth_callback"), None);
        assert_eq!(listed.refusal("cursor://anysphere.cursor-mcp/oauth/callback"), None);
        assert!(listed.refusal("https://evil.example/cb").is_some());
        assert_eq!(listed.refusal("http://127.0.0.1:1234/cb"), None);
    }
}
