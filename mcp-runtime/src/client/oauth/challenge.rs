//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): the
//! parameters the authorization flow starts from.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};

/// What a 401 or 403 said about how to authorize.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`...
    pub error: Option<String>,
    /// Whether the server offered a `DPoP` challenge: it accepts DPoP-bound tokens (RFC 9449 §7.1).
    pub dpop: bool,
}

impl Challenge {
    /// The first `Bearer` (or `DPoP`) challenge among the response's `WWW-Authenticate` headers (an empty
    /// one when there is none: a bare 401 still starts discovery from the well-known URLs).
    pub fn of(headers: &HeaderMap) -> Self {
        let values = || headers.get_all(WWW_AUTHENTICATE).iter().filter_map(|value| value.to_str().ok());
        let mut challenge = values().find_map(bearer).unwrap_or_default();
        challenge.dpop = values().any(offers_dpop);
        challenge
    }

    /// Whether the server asks for a DPoP proof with its nonce (RFC 9449 §9).
    pub fn wants_nonce(&self) -> bool {
        self.error.as_deref() == Some("use_dpop_nonce")
    }

    /// Whether the token is good but lacks a scope (step-up authorization).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The parameters of the `Bearer` or `DPoP` challenge in one header value, if it has one.
fn bearer(header: &str) -> Option<Challenge> {
    let mut rest = header.trim_start();
    let mut challenge = None;
    // A header may hold several challenges (`DPoP ..., Bearer ...`): an auth-scheme is a token
    // followed by a space (or the end), a parameter a token followed by `=`.
    while !rest.is_empty() {
        let name_end = rest.find(|c: char| c == '=' || c == ',' || c.is_whitespace()).unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        let after = after.trim_start();
        if let Some(value_text) = after.strip_prefix('=') {
            let (value, remainder) = value(value_text.trim_start());
            if let Some(challenge) = challenge.as_mut() {
                set(challenge, name, value);
            }
            rest = remainder.trim_start().trim_start_matches(',').trim_start();
        } else {
            if challenge.is_some() && !name.is_empty() {
                break; // the next scheme: the Bearer challenge is complete
            }
            if name.eq_ignore_ascii_case("bearer") || name.eq_ignore_ascii_case("dpop") {
                challenge = Some(Challenge::default());
            }
            rest = after.trim_start_matches(',').trim_start();
            if name.is_empty() && after.is_empty() {
                break;
            }
        }
    }
    challenge
}

/// Whether a header value holds a `DPoP` challenge (a scheme, not a parameter's value).
fn offers_dpop(header: &str) -> bool {
    header.split(',').any(|part| {
        let word = part.trim_start().split([' ', '=']).next().unwrap_or_default();
        word.eq_ignore_ascii_case("dpop") && !part.trim_start()[word.len()..].trim_start().starts_with('=')
    })
}

/// A token or a quoted string (with `\` escapes), and what follows it.
fn value(text: &str) -> (String, &str) {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(text.len());
        return (text[..end].to_owned(), &text[end..]);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return (value, &quoted[at + 1..]),
            '\\' => value.extend(chars.next().map(|(_, escaped)| escaped)),
            c => value.push(c),
        }
    }
    (value, "")
}

fn set(challenge: &mut Challenge, name: &str, value: String) {
    let slot = match name.to_ascii_lowercase().as_str() {
        "resource_metadata" => &mut challenge.resource_metadata,
        "scope" => &mut challenge.scope,
        "error" => &mut challenge.error,
        _ => return,
    };
    slot.get_or_insert(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(header: &str) -> Option<Challenge> {
        bearer(header)
    }

    #[test]
    fn reads_the_bearer_parameters() {
        let challenge = parse(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp""#,
        )
        .unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert!(challenge.insufficient_scope());
    }

    #[test]
    fn finds_bearer_among_other_schemes_and_reads_escapes_and_tokens() {
        let challenge =
            parse(r#"Basic realm="y", Bearer realm="x", error=invalid_token, scope="a \"b\"", Basic realm="y""#)
                .unwrap();
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
        assert_eq!(challenge.scope.as_deref(), Some(r#"a "b""#));
        assert_eq!(parse("Bearer").unwrap(), Challenge::default());
        let dpop = parse(r#"DPoP error="use_dpop_nonce", algs="ES256""#).unwrap();
        assert!(dpop.wants_nonce());
        assert!(offers_dpop(r#"Bearer realm="x", DPoP algs="ES256""#));
        assert!(!offers_dpop(r#"Bearer realm="DPoP", error="dpop""#));
        assert_eq!(parse(r#"Basic realm="x""#), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn an_unterminated_quote_ends_the_header() {
        let challenge = parse(r#"Bearer scope="never closed"#).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("never closed"));
    }
}
