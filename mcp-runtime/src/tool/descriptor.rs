//! The descriptor `#[mcp_tool]` generates for each function: metadata plus a call shim.

use super::{CallToolResult, Icon, ToolAnnotations};
use crate::clip::clip;
use crate::context::Context;
use crate::jsonrpc::without_position;
use crate::shared_fn::SharedFn;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Text of a descriptor: a literal the macros wrote, or owned (a mounted server's items).
pub type Str = Cow<'static, str>;
/// Builds a tool's input schema.
pub type SchemaFn = SharedFn<dyn Fn() -> Map<String, Value> + Send + Sync>;
/// Builds a tool's output schema, if it has one.
pub type OutputSchemaFn = SharedFn<dyn Fn() -> Option<Map<String, Value>> + Send + Sync>;
/// Starts a call of a tool (see [`ToolDescriptor::call`]).
pub type CallFn = SharedFn<dyn Fn(Option<&RawValue>, &Context) -> ToolCall + Send + Sync>;

/// Whether a tool's calls run as tasks (the tasks extension, `io.modelcontextprotocol/tasks`):
/// `#[mcp_tool(task = "optional")]` or `task = "required"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never: the call is answered when it finishes (the default).
    #[default]
    Forbidden,
    /// As a task for a client that supports them (the call is answered at once with a task
    /// handle it polls), as a plain call for the others.
    Optional,
    /// Only as a task: a client that does not support them gets error -32021.
    Required,
}

/// Everything the runtime knows about one tool: what `#[mcp_tool]` generates, and what
/// [`ToolDescriptor::builder`] builds at run time (prefer it to filling the fields, which the
/// macros write and which may grow).
#[derive(Clone)]
pub struct ToolDescriptor {
    /// The wire name.
    pub name: Str,
    /// A display title.
    pub title: Option<Str>,
    /// The description (from the doc comment).
    pub description: Option<Str>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Icons.
    pub icons: &'static [Icon],
    /// `_meta` of its definition: a JSON object (`#[mcp_tool(meta = r#"{...}"#)]`, checked by
    /// the macro).
    pub meta: Option<Str>,
    /// Ask the user to confirm (through elicitation) before each call.
    pub confirm: bool,
    /// Callable by name but left out of `tools/list` (e.g. test hooks).
    pub hidden: bool,
    /// OAuth scopes a caller must hold to see and call the tool (HTTP with feature `auth`).
    pub scopes: &'static [&'static str],
    /// Labels that switch the tool off and on with others (`Server::disable_tags`).
    pub tags: &'static [&'static str],
    /// The arguments a client mirrors in `Mcp-Param-{Name}` HTTP headers (`x-mcp-header`),
    /// which the HTTP transport checks against the body; empty for most tools.
    pub param_headers: &'static [ParamHeader],
    /// How long one call may run (`#[mcp_tool(timeout_ms = ...)]`); `None` uses the server's
    /// [`tool_timeout`](crate::Server::tool_timeout), if any.
    pub timeout: Option<std::time::Duration>,
    /// Whether a call may run as a task (`#[mcp_tool(task = "...")]`).
    pub task: TaskSupport,
    /// Builds the input schema (called when the server is built, for the argument checks,
    /// and once per [`SchemaProfile`](crate::SchemaProfile) when the tool is first listed).
    pub input_schema: SchemaFn,
    /// The input schema was written by hand (`#[mcp_tool(input_schema = ...)]`): every client
    /// gets it as written, whatever its schema profile.
    pub input_schema_verbatim: bool,
    /// Builds the output schema, for tools returning `Json<T>`.
    pub output_schema: OutputSchemaFn,
    /// Starts a call on raw arguments (absent arguments are `None`): parses them at once,
    /// and runs a sync tool there and then; an async one is returned to be awaited. Arguments
    /// that do not fit finish it with their error result. A tool with `confirm` is always
    /// returned unstarted, to run once the user agrees.
    pub call: CallFn,
    /// The server states its parameters need, checked when the server is built.
    pub required_state: Vec<crate::required_state::RequiredState>,
}

/// A tool argument mirrored in an HTTP header: `#[mcp(header = "Region")]` on a parameter, or
/// `"x-mcp-header": "Region"` in a hand-written input schema.
#[derive(Clone, Copy, Debug)]
pub struct ParamHeader {
    /// The `x-mcp-header` value, as declared: `Region`.
    pub name: &'static str,
    /// The header's full name in lower case: `mcp-param-region`.
    pub header: &'static str,
    /// The chain of `properties` keys from the arguments to the value: `["region"]`.
    pub path: &'static [&'static str],
}

/// A call started by [`ToolDescriptor::call`].
pub enum ToolCall {
    /// Done already: a sync tool, or arguments that do not fit. No future, so no allocation.
    Finished(super::result::Finished),
    /// To be awaited: an async tool, a blocking one, or one that asks for confirmation.
    Running(BoxFuture<'static, CallToolResult>),
}

impl ToolDescriptor {
    /// The tool as `tools/list` shows it to a client of `profile`.
    pub(crate) fn wire(&self, profile: crate::SchemaProfile) -> impl Serialize + '_ {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            title: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            description: Option<&'a str>,
            input_schema: Map<String, Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            output_schema: Option<Map<String, Value>>,
            #[serde(skip_serializing_if = "ToolAnnotations::is_empty")]
            annotations: ToolAnnotations,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            icons: &'a [Icon],
            /// 2025-11-25's `execution.taskSupport` (left out when forbidden, the default).
            #[serde(skip_serializing_if = "Option::is_none")]
            execution: Option<Value>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a RawValue>,
        }
        let task_support = match self.task {
            TaskSupport::Forbidden => None,
            TaskSupport::Optional => Some("optional"),
            TaskSupport::Required => Some("required"),
        };
        Wire {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            input_schema: self.input_schema_for(profile),
            output_schema: (self.output_schema)().map(|schema| super::profile::output(profile, schema)),
            annotations: self.annotations,
            icons: self.icons,
            execution: task_support.map(|support| serde_json::json!({ "taskSupport": support })),
            meta: raw_meta(self.meta.as_deref()),
        }
    }
}

impl ToolDescriptor {
    /// The input schema a client of `profile` gets: the hand-written one as it is, the derived
    /// one in the profile's form.
    fn input_schema_for(&self, profile: crate::SchemaProfile) -> Map<String, Value> {
        let schema = (self.input_schema)();
        if self.input_schema_verbatim || profile == crate::SchemaProfile::Full {
            return schema;
        }
        super::profile::input(profile, schema)
    }
}

/// A definition's `_meta`, as the JSON it is (the macros checked that it is an object).
pub(crate) fn raw_meta(meta: Option<&str>) -> Option<&RawValue> {
    meta.and_then(|meta| serde_json::from_str(meta).ok())
}

/// Deserializes a call's arguments into the generated argument struct; a failure is a tool
/// error result (not a protocol error) whose text names the field and the problem, so the model
/// can correct its call.
pub fn parse_arguments<T: DeserializeOwned>(tool: &str, arguments: Option<&RawValue>) -> Result<T, CallToolResult> {
    let json = arguments.map_or("{}", RawValue::get);
    // Plain serde_json first: serde_path_to_error tracks (and allocates) the path of every
    // field, a sixth of a call's instructions (bench/NOTES.md); only a failure needs the path.
    if let Ok(arguments) = serde_json::from_str(json) {
        return Ok(arguments);
    }
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(deserializer).map_err(|err| {
        let path = clip(&err.path().to_string()).to_string();
        let problem = without_position(err.inner());
        let message = if path == "." {
            format!("invalid arguments for tool `{tool}`: {problem}")
        } else {
            format!("invalid arguments for tool `{tool}`: `{path}`: {problem}")
        };
        CallToolResult::error(message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Args {
        a: f64,
        b: f64,
    }

    fn error_text(json: Option<&str>) -> String {
        let raw = json.map(|j| RawValue::from_string(j.to_owned()).unwrap());
        let err = parse_arguments::<Args>("add", raw.as_deref()).unwrap_err();
        assert!(err.is_error);
        err.text().unwrap().to_owned()
    }

    #[test]
    fn errors_name_the_field_and_the_problem() {
        assert_eq!(
            error_text(Some(r#"{"a":"x","b":1}"#)),
            "invalid arguments for tool `add`: `a`: invalid type: string \"x\", expected f64"
        );
        assert_eq!(error_text(Some(r#"{"a":1}"#)), "invalid arguments for tool `add`: missing field `b`");
        assert_eq!(error_text(None), "invalid arguments for tool `add`: missing field `a`");
    }
}
