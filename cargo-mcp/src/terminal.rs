//! What reaches the terminal: every line `cargo mcp` prints goes through [`print`] or
//! [`eprint`], which escape the characters a terminal would act on rather than show, so text
//! from a server (a tool's name, a description, a result, an error message) cannot recolour,
//! retitle or rewrite the terminal, nor reorder what it shows.

use std::borrow::Cow;
use std::fmt::Display;
use std::io::Write as _;

/// Whether a terminal would act on `c` rather than show it: C0 controls but the line feed and
/// the tab (ESC starts an escape sequence, CR rewrites the line), DEL, C1 controls (CSI alone
/// starts a sequence on some terminals), and the bidirectional overrides and isolates, which
/// reorder what follows them.
fn acts_on_terminal(c: char) -> bool {
    matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each character a terminal acts on written as `\uXXXX`: JSON's own escape, so
/// `--json` output (where such characters can only be inside strings) stays JSON, meaning the
/// same.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts_on_terminal(c) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// Writes `text` to stdout, escaped. A closed stdout (`cargo mcp list | head`) is not an error.
pub fn print(text: impl Display) {
    let _ = std::io::stdout().lock().write_all(escape(&text.to_string()).as_bytes());
}

/// Writes `text` to stderr, escaped.
pub fn eprint(text: impl Display) {
    let _ = std::io::stderr().lock().write_all(escape(&text.to_string()).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_terminal_acts_on_is_escaped_and_the_rest_kept() {
        assert!(matches!(escape("plain text,\ttabbed\nand multi-line: é ∑ 日本"), Cow::Borrowed(_)));
        assert_eq!(escape("\x1b[31mred\x1b[0m"), "\\u001b[31mred\\u001b[0m");
        assert_eq!(escape("over\rwrite\x07\x7f\u{9b}2J"), "over\\u000dwrite\\u0007\\u007f\\u009b2J");
        assert_eq!(escape("abc\u{202e}fed\u{2066}x\u{2069}"), "abc\\u202efed\\u2066x\\u2069");
    }

    #[test]
    fn escaped_json_is_the_same_json() {
        let value = serde_json::json!({"name": "\x1b]0;title\x07\u{9b}\u{202e}"});
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let escaped = escape(&pretty);
        assert!(!escaped.chars().any(acts_on_terminal), "{escaped}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&escaped).unwrap(), value);
    }
}
