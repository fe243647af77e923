//! RFC 6570 URI template syntax: splitting a template into literals and expressions.
//!
//! Dependency-free on purpose: the macro crate includes this very file (`#[path]`) to check,
//! at compile time, that a template's variables match the function's parameters.

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

/// Splits `template` into parts, or says what is wrong with it.
pub fn parse(template: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(at) if rest[at..].starts_with('}') => {
                return Err(format!("unmatched `}}` at byte {}", template.len() - rest.len() + at));
            }
            Some(at) => {
                if at > 0 {
                    parts.push(Part::Literal(rest[..at].to_owned()));
                }
                let close = rest[at..].find('}').ok_or("unclosed `{`: close the expression with `}`")?;
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

fn expression(body: &str) -> Result<Part, String> {
    let mut chars = body.chars();
    let (operator, names) = match chars.next().and_then(Operator::from_char) {
        Some(operator) => (operator, chars.as_str()),
        None => (Operator::Simple, body),
    };
    let mut variables = Vec::new();
    for name in names.split(',') {
        if name.ends_with('*') || name.contains(':') {
            return Err(format!("`{{{body}}}`: modifiers (`*`, `:n`) are not supported"));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
            return Err(format!("`{{{body}}}`: `{name}` is not a variable name (letters, digits, `_` and `.`)"));
        }
        if variables.iter().any(|v| v == name) {
            return Err(format!("`{{{body}}}`: `{name}` appears twice"));
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
