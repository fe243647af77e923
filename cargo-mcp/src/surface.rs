//! The surface a server shows its clients (tools, resources, templates, prompts) as one file.
//!
//! A [`Surface`] is built from the answers of `tools/list`, `resources/list`,
//! `resources/templates/list` and `prompts/list`, and saved as `mcp-surface.json`: keys sorted,
//! entries sorted by name (or URI), pretty-printed with a trailing newline, so that the file
//! changes only when the surface does and its diff reads well in a review.

use serde_json::{Map, Value};

/// The name of the surface file, beside the crate's `Cargo.toml`.
pub const DEFAULT_FILE: &str = "mcp-surface.json";

/// The members of a tool the surface keeps: what a client relies on. `_meta`, `icons` and
/// `execution` hints are left out; they change without breaking anyone.
const TOOL_MEMBERS: &[&str] = &["name", "title", "description", "inputSchema", "outputSchema", "annotations"];
const RESOURCE_MEMBERS: &[&str] = &["uri", "name", "title", "description", "mimeType"];
const TEMPLATE_MEMBERS: &[&str] = &["uriTemplate", "name", "title", "description", "mimeType"];
const PROMPT_MEMBERS: &[&str] = &["name", "title", "description", "arguments"];

/// Everything a client can see of a server, as stored in `mcp-surface.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// Each tool: `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`.
    pub tools: Vec<Value>,
    /// Each direct resource: `uri`, `name`, `title`, `description`, `mimeType`.
    pub resources: Vec<Value>,
    /// Each resource template: `uriTemplate`, `name`, `title`, `description`, `mimeType`.
    pub resource_templates: Vec<Value>,
    /// Each prompt: `name`, `title`, `description`, `arguments` (`name`, `description`, `required`).
    pub prompts: Vec<Value>,
    /// The token count of the `tools/list` payload when the surface was recorded.
    pub tokens: Option<u64>,
    /// The most tokens `tools/list` may take (`"tokenBudget"`); `surface --check` fails above it.
    pub token_budget: Option<u64>,
}

/// A surface file that cannot be read.
#[derive(Debug)]
pub struct SurfaceError(pub String);

impl std::fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SurfaceError {}

impl Surface {
    /// Builds a surface from the items of the four list answers (each list's items, all pages).
    pub fn from_lists(tools: &[Value], resources: &[Value], resource_templates: &[Value], prompts: &[Value]) -> Self {
        Surface {
            tools: normalize(tools, TOOL_MEMBERS, "name"),
            resources: normalize(resources, RESOURCE_MEMBERS, "uri"),
            resource_templates: normalize(resource_templates, TEMPLATE_MEMBERS, "uriTemplate"),
            prompts: normalize(prompts, PROMPT_MEMBERS, "name"),
            tokens: None,
            token_budget: None,
        }
    }

    /// The surface as a JSON value, keys sorted at every level.
    pub fn to_value(&self) -> Value {
        let mut root = Map::new();
        root.insert("prompts".into(), Value::Array(self.prompts.clone()));
        root.insert("resourceTemplates".into(), Value::Array(self.resource_templates.clone()));
        root.insert("resources".into(), Value::Array(self.resources.clone()));
        if let Some(budget) = self.token_budget {
            root.insert("tokenBudget".into(), budget.into());
        }
        if let Some(tokens) = self.tokens {
            let mut count = Map::new();
            count.insert("encoding".into(), crate::tokens::ENCODING.into());
            count.insert("toolsList".into(), tokens.into());
            root.insert("tokens".into(), Value::Object(count));
        }
        root.insert("tools".into(), Value::Array(self.tools.clone()));
        sort_keys(Value::Object(root))
    }

    /// The text of `mcp-surface.json`: pretty, keys sorted, ending with a newline.
    pub fn to_json_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_value()).expect("a JSON value always serializes");
        text.push('\n');
        text
    }

    /// Reads the text of a surface file.
    pub fn from_json_str(text: &str) -> Result<Self, SurfaceError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| SurfaceError(format!("the surface file is not JSON: {e}")))?;
        let Value::Object(root) = value else {
            return Err(SurfaceError("the surface file must hold a JSON object".into()));
        };
        let list = |key: &str| -> Result<Vec<Value>, SurfaceError> {
            match root.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => Ok(items.clone()),
                Some(_) => Err(SurfaceError(format!("`{key}` in the surface file must be an array"))),
            }
        };
        let token_budget = match root.get("tokenBudget") {
            None | Some(Value::Null) => None,
            Some(value) => Some(value.as_u64().ok_or_else(|| {
                SurfaceError("`tokenBudget` in the surface file must be a whole number of tokens".into())
            })?),
        };
        Ok(Surface {
            tools: list("tools")?,
            resources: list("resources")?,
            resource_templates: list("resourceTemplates")?,
            prompts: list("prompts")?,
            tokens: root.get("tokens").and_then(|t| t.get("toolsList")).and_then(Value::as_u64),
            token_budget,
        })
    }
}

/// Keeps the members a client relies on, sorts their keys, and sorts the items by `key`.
fn normalize(items: &[Value], members: &[&str], key: &str) -> Vec<Value> {
    let mut kept: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut out = Map::new();
            for member in members {
                if let Some(value) = item.get(*member) {
                    out.insert((*member).to_owned(), value.clone());
                }
            }
            sort_keys(Value::Object(out))
        })
        .collect();
    kept.sort_by(|a, b| a.get(key).and_then(Value::as_str).cmp(&b.get(key).and_then(Value::as_str)));
    kept
}

/// The same value with every object's keys in sorted order, whatever map serde_json is built with.
pub fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sort_keys(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_file_is_sorted_pretty_and_ends_with_a_newline() {
        let tools = [
            json!({"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}, "_meta": {"x": 1}}),
            json!({"name": "a", "description": "first", "inputSchema": {"type": "object"}}),
        ];
        let surface =
            Surface { token_budget: Some(500), tokens: Some(42), ..Surface::from_lists(&tools, &[], &[], &[]) };
        let text = surface.to_json_string();
        assert!(text.ends_with("}\n"));
        assert!(!text.contains("_meta"), "{text}");
        assert!(text.find("\"name\": \"a\"").unwrap() < text.find("\"name\": \"b\"").unwrap());
        assert!(text.find("\"a\": {}").unwrap() < text.find("\"z\": {}").unwrap());
        assert!(text.contains("\"tokenBudget\": 500"));
        let read = Surface::from_json_str(&text).unwrap();
        assert_eq!(read, surface);
        assert_eq!(read.to_json_string(), text);
    }

    #[test]
    fn a_bad_budget_is_explained() {
        let error = Surface::from_json_str(r#"{"tokenBudget": "lots"}"#).unwrap_err();
        assert!(error.0.contains("whole number"), "{error}");
        assert!(Surface::from_json_str("[]").is_err());
    }
}
