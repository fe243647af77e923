//! What a broken rule says: where in the arguments (a dotted path, built only on failure), what
//! is wrong, in jsonschema's words where they read well, and the keyword that says so.

use serde_json::Value;
use std::fmt::Write;

/// Where a value sits in the arguments: a chain of frames on the validator's stack, so
/// descending costs nothing until a problem names it.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Member(&'a Path<'a>, &'a str),
    Item(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// `order.items.3`; empty for the arguments themselves.
    pub fn dotted(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        let separate = |out: &mut String, parent: &Path<'_>| {
            parent.write(out);
            if !out.is_empty() {
                out.push('.');
            }
        };
        match self {
            Path::Root => {}
            Path::Member(parent, name) => {
                separate(out, parent);
                out.push_str(name);
            }
            Path::Item(parent, index) => {
                separate(out, parent);
                let _ = write!(out, "{index}");
            }
        }
    }
}

/// One broken rule.
pub(super) struct Problem {
    /// The dotted path of the value at fault (empty: the arguments).
    pub field: String,
    /// What is wrong with it.
    pub what: String,
    /// The keyword that says so.
    pub keyword: &'static str,
}

impl Problem {
    /// A problem with the value at `at`.
    pub fn new(at: &Path<'_>, keyword: &'static str, what: String) -> Self {
        Self { field: at.dotted(), what, keyword }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.field.is_empty() {
            true => write!(f, "{} ({})", self.what, self.keyword),
            false => write!(f, "`{}`: {} ({})", self.field, self.what, self.keyword),
        }
    }
}

/// A value as the message quotes it: its JSON.
pub(super) fn quote(value: &Value) -> String {
    value.to_string()
}

/// `"blue" is not one of "red" or "green"`.
pub(super) fn not_one_of(value: &Value, options: &[Value]) -> String {
    let mut listed = String::new();
    for (i, option) in options.iter().enumerate() {
        if i > 0 {
            listed.push_str(if i + 1 == options.len() { " or " } else { ", " });
        }
        listed.push_str(&quote(option));
    }
    format!("{} is not one of {listed}", quote(value))
}

/// `"x" is not of type "integer"`, or of types `"integer", "null"`.
pub(super) fn not_of_type(value: &Value, names: &[&str]) -> String {
    let listed: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    match listed.len() {
        1 => format!("{} is not of type {}", quote(value), listed[0]),
        _ => format!("{} is not of types {}", quote(value), listed.join(", ")),
    }
}

/// `5 items` or `1 item`.
pub(super) fn count(n: u64, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// Where in the arguments a part of the schema applies, from its JSON pointer: the names
/// under `properties` joined by dots (`to.country`); empty for the arguments themselves.
pub(super) fn argument_at(schema_pointer: &str) -> String {
    let mut names = Vec::new();
    let mut segments = schema_pointer.split('/').skip(1);
    while let Some(segment) = segments.next() {
        if segment == "properties"
            && let Some(name) = segments.next()
        {
            names.push(name.replace("~1", "/").replace("~0", "~"));
        }
    }
    names.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_dotted_and_lists_read_as_prose() {
        let order = Path::Member(&Path::Root, "order");
        assert_eq!(Path::Item(&Path::Member(&order, "items"), 3).dotted(), "order.items.3");
        assert_eq!(Path::Root.dotted(), "");
        assert_eq!(not_one_of(&json!(1), &[json!("a"), json!(2), json!(null)]), "1 is not one of \"a\", 2 or null");
        assert_eq!(argument_at("/properties/to/properties/country/pattern"), "to.country");
        assert_eq!(argument_at("/allOf/0/properties/a~1b/pattern"), "a/b");
    }
}
