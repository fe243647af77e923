//! `uri`, `uri-reference`, `iri`, `iri-reference` (RFC 3986, RFC 3987) and `uri-template`
//! (RFC 6570, level 4).

use std::net::Ipv6Addr;

/// What a URI format admits.
#[derive(Clone, Copy)]
pub(super) struct Kind {
    /// A relative reference (no scheme) is allowed.
    relative: bool,
    /// Non-ASCII characters (RFC 3987's `ucschar`, and `iprivate` in the query) are allowed.
    international: bool,
}

impl Kind {
    pub const ABSOLUTE: Self = Self { relative: false, international: false };
    pub const REFERENCE: Self = Self { relative: true, international: false };
    pub const IRI: Self = Self { relative: false, international: true };
    pub const IRI_REFERENCE: Self = Self { relative: true, international: true };
}

/// Whether `text` is a URI (or reference, or IRI) of `kind`.
pub(super) fn is_uri(text: &str, kind: Kind) -> bool {
    let (text, fragment) = text.split_once('#').unwrap_or((text, ""));
    let (text, query) = text.split_once('?').unwrap_or((text, ""));
    if !chars_ok(fragment, kind, "/?:@") || !query_ok(query, kind) {
        return false;
    }
    let rest = match scheme(text) {
        Some(scheme_len) => &text[scheme_len + 1..],
        None if kind.relative => {
            // path-noscheme: a first segment without a colon.
            let first = text.split('/').next().unwrap_or_default();
            if first.contains(':') {
                return false;
            }
            text
        }
        None => return false,
    };
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let end = authority_and_path.find('/').unwrap_or(authority_and_path.len());
            if !authority(&authority_and_path[..end], kind) {
                return false;
            }
            &authority_and_path[end..]
        }
        None => rest,
    };
    chars_ok(path, kind, "/:@")
}

/// The length of `text`'s scheme, when it starts with one and a colon.
fn scheme(text: &str) -> Option<usize> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))).then_some(colon)
}

/// `userinfo@host:port`.
fn authority(text: &str, kind: Kind) -> bool {
    let (userinfo, host_port) = match text.rfind('@') {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => ("", text),
    };
    if !chars_ok(userinfo, kind, ":") {
        return false;
    }
    let (host, port) = match host_port.strip_prefix('[') {
        Some(literal) => {
            let Some(end) = literal.find(']') else { return false };
            if !ip_literal(&literal[..end]) {
                return false;
            }
            match &literal[end + 1..] {
                "" => (None, None),
                after => match after.strip_prefix(':') {
                    Some(port) => (None, Some(port)),
                    None => return false,
                },
            }
        }
        None => match host_port.rfind(':') {
            Some(colon) => (Some(&host_port[..colon]), Some(&host_port[colon + 1..])),
            None => (Some(host_port), None),
        },
    };
    let host_ok = host.is_none_or(|host| chars_ok(host, kind, ""));
    host_ok && port.is_none_or(|port| port.bytes().all(|c| c.is_ascii_digit()))
}

/// `[v6 address]` or `[vF.future]`.
fn ip_literal(text: &str) -> bool {
    if let Some(future) = text.strip_prefix(['v', 'V']) {
        let Some((version, rest)) = future.split_once('.') else { return false };
        let unreserved = |c: char| c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:".contains(c);
        return !version.is_empty()
            && version.chars().all(|c| c.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest.chars().all(unreserved);
    }
    text.parse::<Ipv6Addr>().is_ok()
}

/// Whether every character of `text` is unreserved, a sub-delimiter, one of `extra`, a
/// complete percent-encoding, or (for an IRI) a `ucschar`.
fn chars_ok(text: &str, kind: Kind, extra: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let ok = match c {
            '%' => percent_encoded(&mut chars),
            c if c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=".contains(c) || extra.contains(c) => true,
            c => kind.international && is_ucschar(c),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// A query: a fragment's characters, and private-use ones too in an IRI.
fn query_ok(query: &str, kind: Kind) -> bool {
    if !kind.international || query.is_ascii() {
        return chars_ok(query, kind, "/?:@");
    }
    let public: String = query.chars().filter(|c| !is_private(*c)).collect();
    chars_ok(&public, kind, "/?:@")
}

fn is_private(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// RFC 3987's `ucschar`.
fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || (c >= 0x10000 && c & 0xFFFF < 0xFFFE && c < 0xE0000)
        || (0xE1000..=0xEFFFD).contains(&c)
}

/// `http://example.com/{term:1}/{+path*}`: literals and expressions (RFC 6570 section 2).
pub(super) fn is_template(text: &str) -> bool {
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(at) if rest.as_bytes()[at] == b'}' => return false,
            Some(at) => {
                let Some(end) = rest[at..].find('}') else { return false };
                if !template_literal(&rest[..at]) || !expression(&rest[at + 1..at + end]) {
                    return false;
                }
                rest = &rest[at + end + 1..];
            }
            None => return template_literal(rest),
        }
    }
    true
}

fn template_literal(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let ok = match c {
            '%' => percent_encoded(&mut chars),
            '\0'..=' ' | '\x7F' | '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}' => false,
            c => c.is_ascii() || is_ucschar(c) || is_private(c),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `+var:3,list*`: an optional operator, then variables each with an optional modifier.
fn expression(text: &str) -> bool {
    let variables = text.strip_prefix(['+', '#', '.', '/', ';', '?', '&']).unwrap_or(text);
    variables.split(',').all(|spec| {
        let (name, modifier) = match spec.split_once(':') {
            Some((name, length)) => {
                let digits = length.bytes().all(|c| c.is_ascii_digit());
                (name, digits && (1..=4).contains(&length.len()) && !length.starts_with('0'))
            }
            None => (spec.strip_suffix('*').unwrap_or(spec), true),
        };
        modifier && variable_name(name)
    })
}

/// `a.b`, `%41`: characters or percent-encodings, single dots between them.
fn variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty() && {
                let mut chars = part.chars();
                let mut ok = true;
                while let Some(c) = chars.next() {
                    ok &= match c {
                        '%' => {
                            chars.next().is_some_and(|c| c.is_ascii_hexdigit())
                                && chars.next().is_some_and(|c| c.is_ascii_hexdigit())
                        }
                        c => c.is_ascii_alphanumeric() || c == '_',
                    };
                }
                ok
            }
        })
}

/// Whether the two characters after a `%` (taken from `chars`) are hexadecimal digits.
fn percent_encoded(chars: &mut std::str::Chars<'_>) -> bool {
    let mut hex = || chars.next().is_some_and(|c| c.is_ascii_hexdigit());
    hex() && hex()
}
