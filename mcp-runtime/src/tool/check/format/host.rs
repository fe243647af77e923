//! `hostname` and `idn-hostname` (RFC 1123, IDNA 2008 through `idna.rs`), `email` and
//! `idn-email` (RFC 5321's mailbox, RFC 6531's with Unicode).

use super::idna::{bidi_allows, decode_punycode, is_u_label};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `www.example.com`: ASCII labels of letters, digits and inner hyphens, at most 63 bytes each
/// and 253 in all; an `xn--` label must be the Punycode of a valid Unicode label.
pub(super) fn is_hostname(text: &str) -> bool {
    text.len() <= 253 && text.split('.').all(is_ascii_label) && !text.is_empty()
}

/// A host name whose labels may be Unicode, separated by `.` or its ideographic and
/// full-width forms.
pub(super) fn is_idn_hostname(text: &str) -> bool {
    let separators = ['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'];
    let mut labels = Vec::new();
    for label in text.split(separators) {
        let decoded = match label.is_ascii() {
            true if !is_ascii_label(label) => return false,
            true => ascii_u_label(label).unwrap_or_else(|| label.chars().collect()),
            false if !is_u_label(&label.chars().collect::<Vec<_>>()) => return false,
            false => label.chars().collect(),
        };
        labels.push(decoded);
    }
    // Room for the ASCII form: a long Unicode label's Punycode is longer still.
    let ascii_length: usize = labels.iter().map(|l| l.len() + if l.iter().all(char::is_ascii) { 1 } else { 5 }).sum();
    !text.is_empty() && ascii_length <= 254 && bidi_allows(&labels)
}

fn is_ascii_label(label: &str) -> bool {
    let b = label.as_bytes();
    let shaped = !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-';
    if !shaped {
        return false;
    }
    let reserved = b.len() >= 4 && &b[2..4] == b"--";
    if !reserved {
        return true;
    }
    // `xn--` is Punycode; any other `??--` is reserved (RFC 5891 section 4.2.3.1).
    match ascii_u_label(label) {
        Some(decoded) => is_u_label(&decoded) && !decoded.iter().all(char::is_ascii),
        None => false,
    }
}

/// The Unicode label an `xn--` label encodes.
fn ascii_u_label(label: &str) -> Option<Vec<char>> {
    let encoded = label.get(..4).filter(|prefix| prefix.eq_ignore_ascii_case("xn--")).map(|_| &label[4..])?;
    decode_punycode(encoded)
}

/// `local@domain`: a dot-atom or quoted local part, and a host name or an address literal
/// (`[192.0.2.1]`, `[IPv6:::1]`). `unicode` lets both parts hold non-ASCII text.
pub(super) fn is_email(text: &str, unicode: bool) -> bool {
    let Some(at) = text.rfind('@') else { return false };
    let (local, domain) = (&text[..at], &text[at + 1..]);
    is_local_part(local, unicode) && is_mail_domain(domain, unicode)
}

fn is_local_part(local: &str, unicode: bool) -> bool {
    if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        let mut chars = quoted.chars();
        while let Some(c) = chars.next() {
            let ok = match c {
                '\\' => chars.next().is_some_and(|e| e == ' ' || e == '\t' || ('!'..='~').contains(&e)),
                '"' => false,
                ' '..='~' => true,
                c => unicode && !c.is_ascii(),
            };
            if !ok {
                return false;
            }
        }
        return true;
    }
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (unicode && !c.is_ascii());
    !local.is_empty() && local.split('.').all(|atom| !atom.is_empty() && atom.chars().all(atext))
}

fn is_mail_domain(domain: &str, unicode: bool) -> bool {
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
            None => literal.parse::<Ipv4Addr>().is_ok(),
        };
    }
    if unicode { is_idn_hostname(domain) } else { is_hostname(domain) }
}
