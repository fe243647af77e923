//! The grammar: splitting a template into literals and expressions.

use std::fmt;

/// An expression's operator (RFC 6570 section 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `{var}`: one segment, unreserved characters only.
    Simple,
    /// `{+var}`: reserved characters allowed, `/` included.
    Reserved,
    /// `{#var}`: a fragment, `#` then reserved characters.
    Fragment,
    /// `{.var}`: a `.`-prefixed label.
    Label,
    /// `{/var}`: a `/`-prefixed path segment.
    Path,
    /// `{;var}`: a `;name=value` path parameter.
    PathParameter,
    /// `{?a,b}`: a query `?a=1&b=2`.
    Query,
    /// `{&a}`: a query continuation `&a=1`.
    QueryContinuation,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            ';' => Self::PathParameter,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }
}

/// A piece of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Text that must appear as is.
    Literal(String),
    /// `{op var, var}`.
    Expression {
        /// The operator.
        operator: Operator,
        /// The variable names, in order.
        variables: Vec<String>,
    },
}

/// What is wrong with a template; its `Display` says it in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Splits `template` into parts, or says what is wrong with it.
///
/// ```
/// use mcp_runtime_uri_template::{Operator, Part, parse};
///
/// let parts = parse("notes://{name}{?rev}").unwrap();
/// assert_eq!(parts[0], Part::Literal("notes://".into()));
/// assert_eq!(parts[2], Part::Expression { operator: Operator::Query, variables: vec!["rev".into()] });
/// assert_eq!(parse("notes://{name").unwrap_err().to_string(), "unclosed `{`: close the expression with `}`");
/// ```
pub fn parse(template: &str) -> Result<Vec<Part>, ParseError> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(at) if rest[at..].starts_with('}') => {
                return Err(ParseError(format!("unmatched `}}` at byte {}", template.len() - rest.len() + at)));
            }
            Some(at) => {
                if at > 0 {
                    parts.push(Part::Literal(rest[..at].to_owned()));
                }
                let close = rest[at..]
                    .find('}')
                    .ok_or_else(|| ParseError("unclosed `{`: close the expression with `}`".into()))?;
                let body = &rest[at + 1..at + close];
                parts.push(expression(body)?);
                rest = &rest[at + close + 1..];
            }
            None => {
                parts.push(Part::Literal(rest.to_owned()));
                rest = "";
            }
        }
    }
    Ok(parts)
}

fn expression(body: &str) -> Result<Part, ParseError> {
    let mut chars = body.chars();
    let (operator, names) = match chars.next().and_then(Operator::from_char) {
        Some(operator) => (operator, chars.as_str()),
        None => (Operator::Simple, body),
    };
    let mut variables = Vec::new();
    for name in names.split(',') {
        if name.ends_with('*') || name.contains(':') {
            return Err(ParseError(format!("`{{{body}}}`: modifiers (`*`, `:n`) are not supported")));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
            return Err(ParseError(format!(
                "`{{{body}}}`: `{name}` is not a variable name (letters, digits, `_` and `.`)"
            )));
        }
        if variables.iter().any(|v| v == name) {
            return Err(ParseError(format!("`{{{body}}}`: `{name}` appears twice")));
        }
        variables.push(name.to_owned());
    }
    Ok(Part::Expression { operator, variables })
}

/// Every variable of a parsed template, in order.
pub fn variables(parts: &[Part]) -> impl Iterator<Item = &str> {
    parts.iter().flat_map(|part| match part {
        Part::Expression { variables, .. } => variables.iter().map(String::as_str).collect::<Vec<_>>(),
        Part::Literal(_) => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(template: &str) -> String {
        parse(template).unwrap_err().to_string()
    }

    #[test]
    fn literals_and_expressions_alternate() {
        let parts = parse("x://a/{id}/b{?q,r}").unwrap();
        assert_eq!(
            parts,
            [
                Part::Literal("x://a/".into()),
                Part::Expression { operator: Operator::Simple, variables: vec!["id".into()] },
                Part::Literal("/b".into()),
                Part::Expression { operator: Operator::Query, variables: vec!["q".into(), "r".into()] },
            ]
        );
        assert_eq!(variables(&parts).collect::<Vec<_>>(), ["id", "q", "r"]);
        assert_eq!(parse("").unwrap(), []);
    }

    #[test]
    fn every_operator_is_recognized() {
        let operators: Vec<Operator> = parse("{a}{+b}{#c}{.d}{/e}{;f}{?g}{&h}")
            .unwrap()
            .into_iter()
            .map(|part| match part {
                Part::Expression { operator, .. } => operator,
                Part::Literal(l) => panic!("unexpected literal {l}"),
            })
            .collect();
        use Operator::*;
        assert_eq!(operators, [Simple, Reserved, Fragment, Label, Path, PathParameter, Query, QueryContinuation]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(error("x://{unclosed"), "unclosed `{`: close the expression with `}`");
        assert_eq!(error("x://a}"), "unmatched `}` at byte 5");
        assert_eq!(error("x://{a*}"), "`{a*}`: modifiers (`*`, `:n`) are not supported");
        assert_eq!(error("x://{a:3}"), "`{a:3}`: modifiers (`*`, `:n`) are not supported");
        assert_eq!(error("x://{a,a}"), "`{a,a}`: `a` appears twice");
        assert_eq!(error("x://{}"), "`{}`: `` is not a variable name (letters, digits, `_` and `.`)");
        assert_eq!(error("x://{a-b}"), "`{a-b}`: `a-b` is not a variable name (letters, digits, `_` and `.`)");
    }
}
