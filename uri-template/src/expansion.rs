//! Expansion: a template filled with values (RFC 6570 section 3.2, string values), the inverse
//! of matching, for clients that read a templated resource.

use crate::matching::UriTemplate;
use crate::syntax::{Operator, Part};
use std::fmt::Write as _;

/// How an operator joins and encodes its variables (RFC 6570 appendix A).
struct Style {
    first: &'static str,
    separator: char,
    named: bool,
    if_empty: &'static str,
    reserved: bool,
}

impl Operator {
    fn style(self) -> Style {
        let style = |first, separator, named, if_empty, reserved| Style { first, separator, named, if_empty, reserved };
        match self {
            Self::Simple => style("", ',', false, "", false),
            Self::Reserved => style("", ',', false, "", true),
            Self::Fragment => style("#", ',', false, "", true),
            Self::Label => style(".", '.', false, "", false),
            Self::Path => style("/", '/', false, "", false),
            Self::PathParameter => style(";", ';', true, "", false),
            Self::Query => style("?", '&', true, "=", false),
            Self::QueryContinuation => style("&", '&', true, "=", false),
        }
    }
}

impl UriTemplate {
    /// The URI this template gives with these values; a variable without one is left out, as
    /// RFC 6570 says for undefined variables.
    ///
    /// ```
    /// use mcp_runtime_uri_template::UriTemplate;
    ///
    /// let template = UriTemplate::parse("file:///{+path}{?lines,rev}").unwrap();
    /// let uri = template.expand(|name| match name {
    ///     "path" => Some("src/main file.rs".to_owned()),
    ///     "lines" => Some("10".to_owned()),
    ///     _ => None,
    /// });
    /// assert_eq!(uri, "file:///src/main%20file.rs?lines=10");
    /// assert_eq!(template.matches(&uri).unwrap()["path"], "src/main file.rs");
    /// ```
    pub fn expand(&self, value: impl Fn(&str) -> Option<String>) -> String {
        let mut uri = String::new();
        for part in self.parts() {
            match part {
                Part::Literal(text) => uri.push_str(text),
                Part::Expression { operator, variables } => {
                    let style = operator.style();
                    let mut first = true;
                    for name in variables {
                        let Some(value) = value(name) else { continue };
                        uri.push_str(if first { style.first } else { "" });
                        if !first {
                            uri.push(style.separator);
                        }
                        first = false;
                        if style.named {
                            uri.push_str(name);
                            if value.is_empty() {
                                uri.push_str(style.if_empty);
                                continue;
                            }
                            uri.push('=');
                        }
                        encode(&mut uri, &value, style.reserved);
                    }
                }
            }
        }
        uri
    }
}

/// Appends `value`, percent-encoding every byte outside the unreserved set (and outside the
/// reserved set too unless `reserved`; a `%XX` triplet then stays as it is).
fn encode(out: &mut String, value: &str, reserved: bool) {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let unreserved = byte.is_ascii_alphanumeric() || b"-._~".contains(&byte);
        let kept_reserved = reserved && b":/?#[]@!$&'()*+,;=".contains(&byte);
        let triplet = reserved
            && byte == b'%'
            && bytes.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit));
        if unreserved || kept_reserved || triplet {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6570 section 3.2's examples that use string values.
    #[test]
    fn the_rfcs_examples() {
        let values = |name: &str| {
            let value = match name {
                "var" => "value",
                "hello" => "Hello World!",
                "path" => "/foo/bar",
                "x" => "1024",
                "y" => "768",
                "empty" => "",
                _ => return None,
            };
            Some(value.to_owned())
        };
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{x}{?undef}", "1024"),
            ("{+path}%20{+hello}", "/foo/bar%20Hello%20World!"),
        ];
        for (template, expected) in cases {
            assert_eq!(UriTemplate::parse(template).unwrap().expand(values), expected, "{template}");
        }
    }

    #[test]
    fn non_ascii_is_percent_encoded_as_utf8() {
        let template = UriTemplate::parse("notes://{name}").unwrap();
        let uri = template.expand(|_| Some("café/1".to_owned()));
        assert_eq!(uri, "notes://caf%C3%A9%2F1");
        assert_eq!(template.matches(&uri).unwrap()["name"], "café/1");
    }
}
