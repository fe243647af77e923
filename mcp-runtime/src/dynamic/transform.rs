//! [`ToolTransform`]: an existing tool reshaped (renamed, its description rewritten, an argument
//! renamed, hidden behind a fixed value or given a default) without rewriting it. The listed
//! schema says the new shape; each call is mapped back to the old one before the tool runs.

use crate::error::{Error, ErrorKind, Result};
use crate::tool::descriptor::{CallFn, SchemaFn, ToolCall, ToolDescriptor};
use crate::tool::{CallToolResult, Str};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What becomes of one argument.
#[derive(Clone)]
enum Change {
    /// Listed (and sent by clients) under another name.
    Rename(String),
    /// Left out of the schema; the tool always gets this value.
    Hide(Value),
    /// No longer required; the tool gets this value when the client sends none.
    Default(Value),
    /// Another description in the schema.
    Describe(String),
}

/// Reshapes a tool, from [`ToolDescriptor::transform`]. Its checks, scopes, tasks and result are
/// the tool's own.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{ToolDef, ToolSet};
/// use serde_json::json;
///
/// /// Searches the catalogue.
/// #[mcp_tool]
/// fn search(query: String, region: String, limit: u32) -> String {
///     format!("{limit} results for {query} in {region}")
/// }
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let find = <search as ToolDef>::descriptor()
///     .transform()
///     .name("find")
///     .rename_argument("query", "q")
///     .hide_argument("region", json!("eu"))
///     .default_argument("limit", json!(5))
///     .build()?;
/// let server = server!().tools(find.into());
/// # let _ = server; Ok(()) }
/// ```
#[must_use = "a transform does nothing until `build` is called"]
pub struct ToolTransform {
    tool: ToolDescriptor,
    name: Option<String>,
    description: Option<String>,
    changes: Vec<(String, Change)>,
}

impl ToolDescriptor {
    /// This tool, to be reshaped: see [`ToolTransform`].
    pub fn transform(self) -> ToolTransform {
        ToolTransform { tool: self, name: None, description: None, changes: Vec::new() }
    }
}

impl ToolTransform {
    /// Lists and calls the tool under `name`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Replaces the tool's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Lists the argument `argument` as `new_name` (clients send it so).
    pub fn rename_argument(mut self, argument: impl Into<String>, new_name: impl Into<String>) -> Self {
        self.changes.push((argument.into(), Change::Rename(new_name.into())));
        self
    }

    /// Leaves `argument` out of the schema: the tool always gets `value` (what a client sends
    /// under that name is replaced).
    pub fn hide_argument(mut self, argument: impl Into<String>, value: Value) -> Self {
        self.changes.push((argument.into(), Change::Hide(value)));
        self
    }

    /// Makes `argument` optional with `value` as its default (in the schema's `default`, and
    /// given to the tool when a client sends none).
    pub fn default_argument(mut self, argument: impl Into<String>, value: Value) -> Self {
        self.changes.push((argument.into(), Change::Default(value)));
        self
    }

    /// Replaces the description of `argument` in the schema.
    pub fn describe_argument(mut self, argument: impl Into<String>, description: impl Into<String>) -> Self {
        self.changes.push((argument.into(), Change::Describe(description.into())));
        self
    }

    /// The reshaped tool; an error of kind [`Config`](ErrorKind::Config) names an argument the
    /// tool does not have, or a name that is not a tool name.
    pub fn build(self) -> Result<ToolDescriptor> {
        let mut tool = self.tool;
        let original = tool.name.clone();
        let refused = |what: String| Error::new(ErrorKind::Config, format!("transform of tool `{original}`: {what}"));
        let mut schema = (tool.input_schema)();
        let mut mapping = Mapping::default();
        let reshaped = !self.changes.is_empty();
        for (argument, change) in self.changes {
            let listed = mapping.listed_name(&argument).to_owned();
            let properties = schema.get_mut("properties").and_then(Value::as_object_mut);
            let Some(property) = properties.and_then(|properties| properties.remove(&listed)) else {
                return Err(refused(format!("it has no argument `{argument}`")));
            };
            let was_required = unrequire(&mut schema, &listed);
            match change {
                Change::Rename(to) => {
                    insert_property(&mut schema, &to, property, was_required);
                    mapping.renamed.push((argument, to));
                }
                Change::Hide(value) => mapping.fixed.push((argument, value)),
                Change::Default(value) => {
                    let mut property = property;
                    if let Some(property) = property.as_object_mut() {
                        property.insert("default".into(), value.clone());
                    }
                    insert_property(&mut schema, &listed, property, false);
                    mapping.defaults.push((argument, value));
                }
                Change::Describe(description) => {
                    let mut property = property;
                    if let Some(property) = property.as_object_mut() {
                        property.insert("description".into(), description.into());
                    }
                    insert_property(&mut schema, &listed, property, was_required);
                }
            }
        }
        if let Some(name) = self.name {
            if !super::tool::is_valid_tool_name(&name) {
                return Err(refused(format!(
                    "`{name}` is not a tool name: 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`"
                )));
            }
            tool.name = name.into();
        }
        if let Some(description) = self.description {
            tool.description = Some(Str::from(description));
        }
        if reshaped {
            tool.input_schema = SchemaFn::Arc(Arc::new(move || schema.clone()));
            // Serde's decode no longer enforces what the schema lists (the names differ), so the
            // whole schema is checked, and shown, as a hand-written one.
            tool.input_schema_verbatim = true;
        }
        if mapping.is_empty() {
            return Ok(tool);
        }
        // The mirrored headers name the old properties.
        tool.param_headers = &[];
        let (call, mapping) = (tool.call.clone(), Arc::new(mapping));
        tool.call = CallFn::Arc(Arc::new(move |arguments, ctx| match mapping.apply(arguments) {
            Ok(arguments) => call(Some(&arguments), ctx),
            Err(result) => ToolCall::Finished(result.into()),
        }));
        Ok(tool)
    }
}

/// How a call's arguments go back to the tool's own names and values.
#[derive(Default)]
struct Mapping {
    /// (the tool's name, the listed name)
    renamed: Vec<(String, String)>,
    fixed: Vec<(String, Value)>,
    defaults: Vec<(String, Value)>,
}

impl Mapping {
    fn is_empty(&self) -> bool {
        self.renamed.is_empty() && self.fixed.is_empty() && self.defaults.is_empty()
    }

    fn listed_name<'a>(&'a self, argument: &'a str) -> &'a str {
        self.renamed.iter().find(|(from, _)| from == argument).map_or(argument, |(_, to)| to)
    }

    /// The arguments as the tool takes them; arguments that are not an object are the tool's
    /// to refuse, as it would have.
    fn apply(&self, arguments: Option<&RawValue>) -> std::result::Result<Box<RawValue>, CallToolResult> {
        let json = arguments.map_or("{}", RawValue::get);
        let Ok(mut arguments) = serde_json::from_str::<Map<String, Value>>(json) else {
            return RawValue::from_string(json.to_owned()).map_err(|e| CallToolResult::error(e.to_string()));
        };
        for (from, to) in &self.renamed {
            // The old name is not listed: what a client sends under it is not the argument.
            arguments.remove(from);
            if let Some(value) = arguments.remove(to) {
                arguments.insert(from.clone(), value);
            }
        }
        for (name, value) in &self.defaults {
            if arguments.get(name).is_none_or(Value::is_null) {
                arguments.insert(name.clone(), value.clone());
            }
        }
        for (name, value) in &self.fixed {
            arguments.insert(name.clone(), value.clone());
        }
        serde_json::value::to_raw_value(&arguments).map_err(|e| CallToolResult::error(e.to_string()))
    }
}

/// Takes `name` out of the schema's `required`; whether it was there.
fn unrequire(schema: &mut Map<String, Value>, name: &str) -> bool {
    let Some(Value::Array(required)) = schema.get_mut("required") else { return false };
    let before = required.len();
    required.retain(|entry| entry.as_str() != Some(name));
    let was = required.len() != before;
    if required.is_empty() {
        schema.remove("required");
    }
    was
}

fn insert_property(schema: &mut Map<String, Value>, name: &str, property: Value, required: bool) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert(name.to_owned(), property);
    }
    if required {
        let required = schema.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(required) = required {
            required.push(name.into());
        }
    }
}
