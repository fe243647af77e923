//! `x-mcp-header` (2026-07-28): the tool arguments a call over Streamable HTTP mirrors in
//! `Mcp-Param-{Name}` headers, read from a tool's input schema, and the rules a declaration must
//! keep. A tool that breaks one is left out of `tools/list` ("clients MUST reject tool
//! definitions where any `x-mcp-header` value violates these constraints"), so one malformed
//! tool does not cost the others. The macros check the same rules on a server's own tools at
//! compile time (`mcp-macros/src/tool/headers.rs`).

use serde_json::Value;
use std::collections::HashMap;

/// Keywords whose value is a schema (or a list or map of them) but not a property of the
/// arguments: an annotation below one is not reachable through `properties` alone.
const SUBSCHEMA: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const SUBSCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS: &[&str] = &["patternProperties", "dependentSchemas", "$defs", "definitions"];

/// A tool argument a 2026-07-28 call over HTTP mirrors in an `Mcp-Param-{Name}` header.
#[derive(Clone, Debug)]
pub(super) struct ParamHeader {
    header: String,
    /// The argument's path from the arguments' root, through `properties`.
    path: Vec<String>,
}

impl ParamHeader {
    /// The `x-mcp-header` properties of an input schema, or why the declarations are invalid
    /// (the first rule broken). The walk enters schema keywords only (never `default`, `enum`
    /// or other data) and does not follow `$ref`.
    pub fn of_schema(schema: &Value) -> Result<Vec<Self>, String> {
        let mut found = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        // A node's path through `properties` alone from the root, `None` once off it.
        let mut stack: Vec<(Option<Vec<String>>, &Value)> = vec![(Some(Vec::new()), schema)];
        while let Some((path, node)) = stack.pop() {
            let Value::Object(object) = node else { continue };
            if let Some(declared) = object.get("x-mcp-header") {
                let path = path.clone().filter(|p| !p.is_empty()).ok_or_else(|| {
                    "an `x-mcp-header` is not on a property reached from the root through `properties` alone".to_owned()
                })?;
                let at = path.join(".");
                let Value::String(name) = declared else {
                    return Err(format!("the `x-mcp-header` of `{at}` is not a string"));
                };
                if name.is_empty() {
                    return Err(format!("the `x-mcp-header` of `{at}` is empty"));
                }
                if let Some(bad) = name.chars().find(|&c| !is_tchar(c)) {
                    return Err(format!("the `x-mcp-header` of `{at}`, {name:?}, is not an HTTP field name ({bad:?})"));
                }
                let ty = object.get("type").and_then(Value::as_str).unwrap_or_default();
                if !matches!(ty, "string" | "integer" | "boolean") {
                    return Err(format!(
                        "`{at}` carries an `x-mcp-header` but its type is not string, integer or boolean"
                    ));
                }
                if let Some(first) = seen.insert(name.to_ascii_lowercase(), at.clone()) {
                    return Err(format!("`{first}` and `{at}` declare the same header, `Mcp-Param-{name}`"));
                }
                found.push(Self { header: format!("Mcp-Param-{name}"), path });
            }
            for (keyword, value) in object {
                let keyword = keyword.as_str();
                if keyword == "properties"
                    && let Value::Object(properties) = value
                {
                    for (name, property) in properties {
                        let path = path.as_ref().map(|p| p.iter().cloned().chain([name.clone()]).collect());
                        stack.push((path, property));
                    }
                } else if SUBSCHEMA.contains(&keyword) {
                    stack.push((None, value));
                } else if SUBSCHEMA_LISTS.contains(&keyword)
                    && let Value::Array(schemas) = value
                {
                    stack.extend(schemas.iter().map(|schema| (None, schema)));
                } else if SUBSCHEMA_MAPS.contains(&keyword)
                    && let Value::Object(schemas) = value
                {
                    stack.extend(schemas.values().map(|schema| (None, schema)));
                }
            }
        }
        Ok(found)
    }

    /// The header and its value for these arguments, when the argument is there (a string,
    /// an integer or a boolean).
    pub fn value_in(&self, arguments: &Value) -> Option<(String, String)> {
        let value = self.path.iter().try_fold(arguments, |node, key| node.get(key))?;
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            _ => return None,
        };
        Some((self.header.clone(), text))
    }
}

/// An HTTP field-name character (`tchar`, RFC 9110 §5.6.2): no space, control character,
/// separator or non-ASCII.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(properties: Value) -> String {
        ParamHeader::of_schema(&json!({"type": "object", "properties": properties})).unwrap_err()
    }

    #[test]
    fn nested_properties_are_found_with_their_paths() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "where": {"type": "object", "properties": {"zone": {"type": "integer", "x-mcp-header": "Zone"}}},
        }});
        let mut headers = ParamHeader::of_schema(&schema).unwrap();
        headers.sort_by(|a, b| a.header.cmp(&b.header));
        let arguments = json!({"region": "eu", "where": {"zone": 3}});
        let values: Vec<_> = headers.iter().filter_map(|h| h.value_in(&arguments)).collect();
        assert_eq!(values, [("Mcp-Param-Region".into(), "eu".into()), ("Mcp-Param-Zone".into(), "3".into())]);
    }

    #[test]
    fn every_broken_rule_is_named() {
        assert!(problem(json!({"v": {"type": "string", "x-mcp-header": ""}})).contains("empty"));
        for name in ["My Region", "Region:Primary", "Région", "Region\t1"] {
            let why = problem(json!({"v": {"type": "string", "x-mcp-header": name}}));
            assert!(why.contains("not an HTTP field name"), "{name:?}: {why}");
        }
        for ty in ["object", "array", "null", "number"] {
            let why = problem(json!({"v": {"type": ty, "x-mcp-header": "V"}}));
            assert!(why.contains("not string, integer or boolean"), "{ty}: {why}");
        }
        let why = problem(json!({
            "a": {"type": "string", "x-mcp-header": "MyField"},
            "b": {"type": "string", "x-mcp-header": "myfield"},
        }));
        assert!(why.contains("same header"), "{why}");
        let why = problem(json!({"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}));
        assert!(why.contains("`properties` alone"), "{why}");
    }

    #[test]
    fn data_keywords_are_not_walked() {
        let schema = json!({"type": "object", "properties": {
            "v": {"type": "object", "default": {"x-mcp-header": "Not a declaration"}},
        }});
        assert!(ParamHeader::of_schema(&schema).unwrap().is_empty());
    }
}
