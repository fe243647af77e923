//! Matching concrete URIs against parsed templates, and ranking templates by specificity.

use crate::syntax::{self, Operator, ParseError, Part};
use std::collections::{HashMap, HashSet};

/// A parsed URI template, ready to match URIs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

/// Variables bound by a match, percent-decoded.
pub type Bindings = HashMap<String, String>;

impl UriTemplate {
    /// Parses a template (see [`parse`](crate::parse) for the grammar).
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        Ok(Self { parts: syntax::parse(text)? })
    }

    /// The template's literals and expressions, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Whether the template has no variables (a static URI).
    pub fn is_static(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Literal(_)))
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        syntax::variables(&self.parts)
    }

    /// How specific the template is: more literal text first, then fewer variables. Used to
    /// pick one template deterministically when several match.
    pub fn specificity(&self) -> (usize, std::cmp::Reverse<usize>) {
        let literal = self.parts.iter().map(|p| if let Part::Literal(l) = p { l.len() } else { 0 }).sum();
        (literal, std::cmp::Reverse(self.variables().count()))
    }

    /// The variables `uri` binds, percent-decoded, if it matches. Variables the URI leaves
    /// undefined (an empty expansion, an absent query parameter) are not bound. A URI crafted to
    /// make the search explode stops after a bounded amount of work and does not match.
    ///
    /// ```
    /// use mcp_runtime_uri_template::UriTemplate;
    ///
    /// let template = UriTemplate::parse("search://q{?term,limit}").unwrap();
    /// let bindings = template.matches("search://q?limit=5&term=a%26b").unwrap();
    /// assert_eq!((bindings["term"].as_str(), bindings["limit"].as_str()), ("a&b", "5"));
    /// assert!(template.matches("search://q").unwrap().is_empty());
    /// ```
    pub fn matches(&self, uri: &str) -> Option<Bindings> {
        let mut matcher = Matcher { failed: HashSet::new(), budget: MATCH_BUDGET + 8 * uri.len() };
        let mut bindings = Bindings::new();
        matcher.match_parts(&self.parts, uri, &mut bindings).then_some(bindings)
    }
}

/// Work units (candidates tried, bytes decoded) a match may spend beyond 8 per URI byte. Real
/// templates match in a few units per byte; a URI crafted to make the backtracking search
/// explode (`x://{a}{b}{c}/z` against a long run of letters) stops there and does not match.
const MATCH_BUDGET: usize = 1_000_000;

/// A backtracking match with memoized failures: whether the parts from some index on match the
/// input from some offset on does not depend on what was bound before, so each such state is
/// searched once (keyed by the lengths of both remainders).
struct Matcher {
    failed: HashSet<(usize, usize)>,
    budget: usize,
}

impl Matcher {
    fn spend(&mut self, units: usize) -> bool {
        self.budget = self.budget.saturating_sub(units);
        self.budget > 0
    }

    /// Binds into `bindings` only on success. The rest is matched before this expression's
    /// values are decoded, so a failing tail costs no decoding; later bindings of a repeated
    /// variable win, as before.
    fn match_parts(&mut self, parts: &[Part], input: &str, bindings: &mut Bindings) -> bool {
        let Some((first, rest)) = parts.split_first() else { return input.is_empty() };
        let state = (parts.len(), input.len());
        if self.failed.contains(&state) || !self.spend(1) {
            return false;
        }
        let matched = match first {
            Part::Literal(literal) => {
                input.strip_prefix(literal.as_str()).is_some_and(|tail| self.match_parts(rest, tail, bindings))
            }
            Part::Expression { operator, variables } => {
                let (prefix, separator) = prefix_and_separator(*operator);
                // An expression may expand to nothing (undefined variables); try that last.
                let candidates = expansion_lengths(*operator, input, prefix);
                if !self.spend(candidates.len()) {
                    return false;
                }
                let mut matched = false;
                for length in candidates {
                    let mut attempt = bindings.clone();
                    if !self.match_parts(rest, &input[length..], &mut attempt) {
                        continue;
                    }
                    let mut own = Bindings::new();
                    if !self.spend(length) {
                        return false;
                    }
                    if bind(*operator, variables, &input[..length], prefix, separator, &mut own) {
                        for (name, value) in own {
                            attempt.entry(name).or_insert(value);
                        }
                        *bindings = attempt;
                        matched = true;
                        break;
                    }
                }
                matched
            }
        };
        if !matched {
            self.failed.insert(state);
        }
        matched
    }
}

fn prefix_and_separator(operator: Operator) -> (&'static str, char) {
    match operator {
        Operator::Simple | Operator::Reserved => ("", ','),
        Operator::Fragment => ("#", ','),
        Operator::Label => (".", '.'),
        Operator::Path => ("/", '/'),
        Operator::PathParameter => (";", ';'),
        Operator::Query => ("?", '&'),
        Operator::QueryContinuation => ("&", '&'),
    }
}

/// Candidate lengths of the expansion at the start of `input`, longest first, ending with 0.
fn expansion_lengths(operator: Operator, input: &str, prefix: &str) -> Vec<usize> {
    let allowed = |c: char| match operator {
        Operator::Simple => is_unreserved(c) || c == '%' || c == ',',
        Operator::Reserved | Operator::Fragment => {
            !matches!(c, '?' | '#') || (operator == Operator::Fragment && c == '?')
        }
        Operator::Label => is_unreserved(c) || c == '%' || c == '.',
        Operator::Path => is_unreserved(c) || c == '%' || c == '/' || c == ',',
        Operator::PathParameter => is_unreserved(c) || c == '%' || c == ';' || c == '=' || c == ',',
        Operator::Query | Operator::QueryContinuation => c != '#',
    };
    let mut lengths = Vec::new();
    if input.starts_with(prefix) {
        let body_start = prefix.len();
        let end = input[body_start..].find(|c: char| !allowed(c)).map_or(input.len(), |i| body_start + i);
        let boundaries = input[body_start..end].char_indices().map(|(i, _)| body_start + i).skip(1).chain([end]);
        lengths.extend(boundaries.collect::<Vec<_>>().into_iter().rev());
        if prefix.is_empty() {
            lengths.retain(|&l| l > 0);
        }
    }
    lengths.push(0);
    lengths
}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn bind(
    operator: Operator,
    variables: &[String],
    expansion: &str,
    prefix: &str,
    separator: char,
    bindings: &mut Bindings,
) -> bool {
    if expansion.is_empty() {
        return true; // every variable undefined
    }
    let Some(body) = expansion.strip_prefix(prefix) else { return false };
    match operator {
        Operator::Query | Operator::QueryContinuation | Operator::PathParameter => {
            for pair in body.split(separator) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                if variables.iter().any(|v| v == key) {
                    let Some(value) = percent_decode(value) else { return false };
                    bindings.insert(key.to_owned(), value);
                }
            }
            true
        }
        _ => {
            let values: Vec<&str> =
                if variables.len() == 1 { vec![body] } else { body.splitn(variables.len(), separator).collect() };
            for (name, value) in variables.iter().zip(values) {
                let Some(value) = percent_decode(value) else { return false };
                bindings.insert(name.clone(), value);
            }
            true
        }
    }
}

/// Percent-decodes `text`; `None` when an escape is malformed or the result is not UTF-8.
///
/// ```
/// assert_eq!(mcp_runtime_uri_template::percent_decode("a%20b%2Fc").as_deref(), Some("a b/c"));
/// assert_eq!(mcp_runtime_uri_template::percent_decode("%zz"), None);
/// ```
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bindings(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let mut pairs: Vec<_> = UriTemplate::parse(template).unwrap().matches(uri)?.into_iter().collect();
        pairs.sort();
        Some(pairs)
    }

    fn pairs(list: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn simple_variables_match_one_segment() {
        assert_eq!(bindings("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
        assert_eq!(bindings("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(bindings("users://{name}", "users://Ada%20Lovelace"), pairs(&[("name", "Ada Lovelace")]));
        assert_eq!(bindings("a://{x}", "b://y"), None);
    }

    #[test]
    fn reserved_and_fragment_expansion_keep_slashes() {
        assert_eq!(bindings("file:///{+path}", "file:///src/main.rs"), pairs(&[("path", "src/main.rs")]));
        assert_eq!(bindings("docs://page{#section}", "docs://page#intro"), pairs(&[("section", "intro")]));
        assert_eq!(bindings("docs://page{#section}", "docs://page"), pairs(&[]));
    }

    #[test]
    fn query_variables_are_optional_and_unordered() {
        let t = "search://q{?term,limit}";
        assert_eq!(bindings(t, "search://q?limit=5&term=rust"), pairs(&[("limit", "5"), ("term", "rust")]));
        assert_eq!(bindings(t, "search://q?term=a%26b"), pairs(&[("term", "a&b")]));
        assert_eq!(bindings(t, "search://q"), pairs(&[]));
        assert_eq!(bindings("x://{id}{?v}", "x://7?v=2"), pairs(&[("id", "7"), ("v", "2")]));
    }

    #[test]
    fn path_and_label_operators() {
        assert_eq!(bindings("x://root{/a,b}", "x://root/one/two"), pairs(&[("a", "one"), ("b", "two")]));
        assert_eq!(bindings("x://file{.ext}", "x://file.txt"), pairs(&[("ext", "txt")]));
    }

    #[test]
    fn specificity_prefers_more_literal_text() {
        let general = UriTemplate::parse("notes://{name}").unwrap();
        let specific = UriTemplate::parse("notes://archive/{name}").unwrap();
        assert!(specific.specificity() > general.specificity());
    }

    #[test]
    fn malformed_templates_are_rejected() {
        assert!(UriTemplate::parse("x://{unclosed").is_err());
        assert!(UriTemplate::parse("x://{a*}").is_err());
        assert!(UriTemplate::parse("x://{a,a}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/uri_template.rs` in the repository): the backtracking search was
    /// polynomial in the URI's length with the degree the number of adjacent expressions
    /// (`x://{a}{b}{c}{d}/z` against 80 letters took 1.7 s, 1000 letters would take hours), and
    /// quadratic for one expression followed by a literal (a 40 KB URI took 1 s; `resources/read`
    /// accepts 4 MiB).
    #[test]
    fn pathological_uris_are_matched_or_refused_quickly() {
        let start = std::time::Instant::now();
        let letters = format!("x://{}", "a".repeat(1000));
        assert_eq!(bindings("x://{a}{b}{c}{d}/z", &letters), None);
        assert_eq!(bindings("x://{a}{b}{c}{d}", "x://abcd"), pairs(&[("a", "abcd")]));
        let long = format!("x://{}", "a".repeat(400_000));
        assert_eq!(bindings("x://{a}/z", &long), None);
        assert_eq!(bindings("x://{a}/z", &format!("{long}/z")).map(|p| p[0].1.len()), Some(400_000));
        // The fuzzer's input (over 15 s before): nine adjacent expressions, a 46-byte URI.
        let template = "x://{a}{4b}{/c}{na}{3}{2f}{/c}{na}{3e}";
        assert_eq!(bindings(template, "x://one.PPPPPPPPPPPPPPPPPtwo~/tr\0\0\0x://{\0{;heea"), None);
        let escapes = format!("x://{}", "%41".repeat(100_000));
        assert!(bindings("x://{a}{+b}", &escapes).is_some());
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
    }

    #[test]
    fn a_repeated_variable_keeps_its_last_value() {
        assert_eq!(bindings("x://{a}/{a}", "x://one/two"), pairs(&[("a", "two")]));
    }

    #[test]
    fn percent_decoding_refuses_malformed_escapes() {
        assert_eq!(percent_decode("caf%C3%A9").as_deref(), Some("café"));
        assert_eq!(percent_decode("100%"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%FF"), None);
        assert_eq!(bindings("x://{a}", "x://%FF"), None);
    }

    #[test]
    fn parts_are_exposed_in_order() {
        let template = UriTemplate::parse("x://{a}/b").unwrap();
        assert_eq!(template.parts().len(), 3);
        assert!(!template.is_static());
        assert!(UriTemplate::parse("x://b").unwrap().is_static());
    }
}
