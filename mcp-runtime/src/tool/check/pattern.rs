//! `pattern` and `patternProperties` regexes: ECMA-262 syntax turned into `regex-lite`'s where
//! the two differ in what they mean, not only in spelling. `\s` is Unicode's white space in
//! ECMA-262 (`\d` and `\w` are ASCII in both); `\cX` is a control character; any punctuation
//! may be escaped.

use regex_lite::Regex;

/// ECMA-262's white space and line terminators, beyond ASCII's, as a class's contents.
const UNICODE_SPACE: &str =
    r"\t\n\x0B\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// `pattern` compiled with ECMA-262's meaning, or regex-lite's reason why not.
pub(super) fn compile(pattern: &str) -> Result<Regex, String> {
    Regex::new(&translate(pattern)?).map_err(|err| err.to_string().lines().last().unwrap_or_default().to_owned())
}

fn translate(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else { return Err("a trailing backslash".to_owned()) };
                match escaped {
                    's' if in_class => out.push_str(UNICODE_SPACE),
                    's' => out.push_str(&format!("[{UNICODE_SPACE}]")),
                    'S' if in_class => return Err("`\\S` inside a character class".to_owned()),
                    'S' => out.push_str(&format!("[^{UNICODE_SPACE}]")),
                    'c' => match chars.next() {
                        Some(letter) if letter.is_ascii_alphabetic() => {
                            out.push_str(&format!("\\x{{{:X}}}", (letter as u32) % 32));
                        }
                        _ => return Err("`\\c` without a letter".to_owned()),
                    },
                    'u' => {
                        let hex: String = chars.by_ref().take(4).collect();
                        if hex.len() != 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                            return Err("`\\u` without four hex digits".to_owned());
                        }
                        out.push_str(&format!("\\x{{{hex}}}"));
                    }
                    c if c.is_ascii_punctuation() => out.push_str(&format!("\\x{{{:X}}}", c as u32)),
                    c => {
                        out.push('\\');
                        out.push(c);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecma_escapes_mean_what_they_mean_in_javascript() {
        assert!(compile(r"^\s$").unwrap().is_match("\u{2003}"));
        assert!(!compile(r"^\S$").unwrap().is_match("\u{A0}"));
        assert!(compile(r"^\cC$").unwrap().is_match("\u{3}"));
        assert!(compile(r"^a\/b\u0041$").unwrap().is_match("a/bA"));
        assert!(compile(r"(?=a)").is_err(), "look-around is refused, not ignored");
    }
}
