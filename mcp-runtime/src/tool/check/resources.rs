//! The places of one schema document a `$ref` can name: its `$id`s (each an embedded
//! resource with its own base URI) and `$anchor`s, and the base URI in force at each
//! subschema. Nothing is fetched: a reference outside the document is for `compile.rs` to
//! refuse.

use serde_json::Value;
use std::collections::HashMap;

/// The base URI of a document without an `$id`: references resolve against it like any other.
const DEFAULT_BASE: &str = "mcp:///arguments";

/// The index of one document.
pub(super) struct Resources {
    /// Each resource's absolute URI (no fragment) to its JSON pointer in the document.
    ids: HashMap<String, String>,
    /// `(resource URI, anchor name)` to a JSON pointer.
    anchors: HashMap<(String, String), String>,
    /// Each subschema's JSON pointer to the base URI in force there.
    bases: HashMap<String, String>,
}

impl Resources {
    /// Indexes `document`, walking only where subschemas sit (an `$id` inside an `enum` value
    /// is data).
    pub fn of(document: &Value) -> Self {
        let mut resources = Self { ids: HashMap::new(), anchors: HashMap::new(), bases: HashMap::new() };
        resources.ids.insert(DEFAULT_BASE.to_owned(), String::new());
        resources.walk(document, String::new(), DEFAULT_BASE);
        resources
    }

    fn walk(&mut self, schema: &Value, pointer: String, base: &str) {
        let Value::Object(keywords) = schema else { return };
        let mut base = base.to_owned();
        // A `$id` next to a `$ref` names a resource only from 2019-09 on, as in 2020-12.
        if let Some(id) = keywords.get("$id").and_then(Value::as_str) {
            base = without_fragment(&resolve(&base, id)).to_owned();
            self.ids.entry(base.clone()).or_insert_with(|| pointer.clone());
        }
        for anchor in ["$anchor", "$dynamicAnchor"] {
            if let Some(name) = keywords.get(anchor).and_then(Value::as_str) {
                self.anchors.entry((base.clone(), name.to_owned())).or_insert_with(|| pointer.clone());
            }
        }
        for (keyword, value) in keywords {
            let here = format!("{pointer}/{}", escape(keyword));
            match keyword.as_str() {
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" | "dependencies" => {
                    for (name, subschema) in value.as_object().into_iter().flatten() {
                        self.walk(subschema, format!("{here}/{}", escape(name)), &base);
                    }
                }
                "items" | "prefixItems" | "allOf" | "anyOf" | "oneOf" if value.is_array() => {
                    for (i, subschema) in value.as_array().into_iter().flatten().enumerate() {
                        self.walk(subschema, format!("{here}/{i}"), &base);
                    }
                }
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contains"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else" => self.walk(value, here, &base),
                _ => {}
            }
        }
        self.bases.insert(pointer, base);
    }

    /// The base URI in force at `pointer` (a subschema's, or, for a place the walk did not
    /// reach, its nearest indexed parent's).
    pub fn base_at(&self, pointer: &str) -> &str {
        let mut at = pointer;
        loop {
            if let Some(base) = self.bases.get(at) {
                return base;
            }
            match at.rfind('/') {
                Some(slash) => at = &at[..slash],
                None => return DEFAULT_BASE,
            }
        }
    }

    /// The JSON pointer `reference` names from a subschema whose base is `base`, or `None` when
    /// it lies outside the document.
    pub fn locate(&self, base: &str, reference: &str) -> Option<String> {
        let absolute = resolve(base, reference);
        let (uri, fragment) = absolute.split_once('#').unwrap_or((&absolute, ""));
        let resource = self.ids.get(uri)?;
        let fragment = percent_decode(fragment)?;
        match fragment.as_str() {
            "" => Some(resource.clone()),
            pointer if pointer.starts_with('/') => Some(format!("{resource}{pointer}")),
            anchor => self.anchors.get(&(uri.to_owned(), anchor.to_owned())).cloned(),
        }
    }
}

/// A JSON pointer's escaping of one name.
pub(super) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn without_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(uri, _)| uri)
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// `reference` resolved against `base` (RFC 3986 section 5.2).
fn resolve(base: &str, reference: &str) -> String {
    if has_scheme(reference) {
        return remove_dots(reference);
    }
    let base = without_fragment(base);
    let scheme_end = base.find(':').map_or(0, |colon| colon + 1);
    let (scheme, rest) = base.split_at(scheme_end);
    if reference.starts_with("//") {
        return format!("{scheme}{}", remove_dots(reference));
    }
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (&rest[..end + 2], &after[end..])
        }
        None => ("", rest),
    };
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    match reference.chars().next() {
        None => base.to_owned(),
        Some('#') => format!("{base}{reference}"),
        Some('?') => format!("{scheme}{authority}{path}{reference}"),
        Some('/') => format!("{scheme}{authority}{}", remove_dots(reference)),
        Some(_) => {
            let directory = path.rfind('/').map_or("", |slash| &path[..=slash]);
            let directory = if directory.is_empty() && !authority.is_empty() { "/" } else { directory };
            format!("{scheme}{authority}{}", remove_dots(&format!("{directory}{reference}")))
        }
    }
}

fn has_scheme(reference: &str) -> bool {
    reference.find(':').is_some_and(|colon| {
        let scheme = &reference[..colon];
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// A path's `.` and `..` segments applied (the query and fragment left alone).
fn remove_dots(uri: &str) -> String {
    let split = uri.find(['?', '#']).unwrap_or(uri.len());
    let (path, tail) = uri.split_at(split);
    if !path.contains("/.") {
        return uri.to_owned();
    }
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *segment {
            "." if last => out.push(""),
            "." => {}
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            segment => out.push(segment),
        }
    }
    format!("{}{tail}", out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_against_their_base() {
        assert_eq!(resolve("http://x.io/a/b.json", "c.json#/d"), "http://x.io/a/c.json#/d");
        assert_eq!(resolve("http://x.io/a/b.json", "/c"), "http://x.io/c");
        assert_eq!(resolve("http://x.io/a/b.json", "../c"), "http://x.io/c");
        assert_eq!(resolve("http://x.io", "c"), "http://x.io/c");
        assert_eq!(resolve("urn:uuid:1234", "#foo"), "urn:uuid:1234#foo");
        assert_eq!(resolve(DEFAULT_BASE, "#/$defs/a"), "mcp:///arguments#/$defs/a");
    }
}
