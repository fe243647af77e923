//! `uuid`, `json-pointer`, `relative-json-pointer` (RFC 6901 and its draft) and `regex`.

/// `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`: hex digits in groups of 8, 4, 4, 4 and 12.
pub(super) fn is_uuid(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `/a~1b/0`: empty, or tokens each after a `/`, `~` only as `~0` or `~1`.
pub(super) fn is_json_pointer(text: &str) -> bool {
    if !(text.is_empty() || text.starts_with('/')) {
        return false;
    }
    let b = text.as_bytes();
    b.iter().enumerate().all(|(i, c)| *c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
}

/// `1/a`, `0#`: a non-negative integer (no leading zero), then `#` or a JSON pointer.
pub(super) fn is_relative_json_pointer(text: &str) -> bool {
    let count = text.bytes().take_while(u8::is_ascii_digit).count();
    if count == 0 || (count > 1 && text.starts_with('0')) {
        return false;
    }
    let rest = &text[count..];
    rest == "#" || is_json_pointer(rest)
}

/// An ECMA-262 regular expression: what `regex-lite` compiles, or, for what it does not support
/// (look-around, back-references), brackets that balance and no escape left open.
pub(super) fn is_regex(text: &str) -> bool {
    if !is_ecma_syntax(text) {
        return false;
    }
    if regex_lite::Regex::new(text).is_ok() {
        return true;
    }
    let (mut depth, mut in_class, mut chars) = (0usize, false, text.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '\\' => {}
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0 && !in_class
}

/// Syntax other engines take that ECMA-262 does not: `\a`, Python's `(?P<name>)`, `(?P=name)`
/// and `(?#comment)`, and flags set for the whole pattern (`(?i)`).
fn is_ecma_syntax(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1) == Some(&b'a') => return false,
            b'\\' => i += 1,
            b'(' if b.get(i + 1) == Some(&b'?') => {
                let rest = &b[i + 2..];
                if matches!(rest.first(), Some(b'P' | b'#')) {
                    return false;
                }
                let flags = rest.iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'-').count();
                if flags > 0 && rest.get(flags) == Some(&b')') {
                    return false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}
