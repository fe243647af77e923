//! [`ToolBuilder`]: a tool described by JSON and served by a closure.

use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::tool::descriptor::{
    CallFn, OutputSchemaFn, SchemaFn, TaskSupport, ToolCall, ToolDescriptor, parse_arguments,
};
use crate::tool::{IntoToolResult, Str, ToolAnnotations};
use futures_util::FutureExt as _;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The arguments of a call, as the client sent them (an absent `arguments` is an empty object).
pub type Arguments = Map<String, Value>;

type Handler = Arc<dyn Fn(Arguments, Context) -> ToolCall + Send + Sync>;

/// Builds a [`ToolDescriptor`] at run time: what `#[mcp_tool]` generates, from a name, JSON
/// schemas and an async closure. The runtime serves it as it serves a macro tool: arguments
/// checked against the input schema before the closure runs, the schema shown to every client as
/// written (as `#[mcp_tool(input_schema = ..)]`'s), scopes, middleware, tasks, timeouts. An `Err`
/// the closure returns becomes a tool error result, as a tool function's does.
///
/// ```
/// use mcp_runtime::{Json, Server, ToolDescriptor};
/// use serde_json::json;
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let greet = ToolDescriptor::builder("greet")
///     .description("Greets someone by name.")
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"name": {"type": "string", "minLength": 1}},
///         "required": ["name"],
///     }))
///     .handler(|arguments, _ctx| async move {
///         let name = arguments["name"].as_str().unwrap_or_default().to_owned();
///         Ok::<_, std::convert::Infallible>(Json(json!({ "greeting": format!("Hello, {name}!") })))
///     })
///     .build()?;
/// let server = Server::new("greeter", "1.0").tools(greet.into());
/// # let _ = server; Ok(()) }
/// ```
///
/// Added to a running server with [`ServerHandle::add_tools`](crate::ServerHandle::add_tools)
/// (its clients are told with `notifications/tools/list_changed`).
#[must_use = "a builder does nothing until `build` is called"]
pub struct ToolBuilder {
    name: String,
    title: Option<String>,
    description: Option<String>,
    annotations: ToolAnnotations,
    meta: Option<Map<String, Value>>,
    confirm: bool,
    hidden: bool,
    scopes: Vec<String>,
    tags: Vec<String>,
    timeout: Option<Duration>,
    task: TaskSupport,
    input_schema: Value,
    output_schema: Option<Value>,
    handler: Option<Handler>,
}

impl ToolDescriptor {
    /// A tool named `name` (1 to 128 characters of `A-Z`, `a-z`, `0-9`, `_`, `-`, `.`), to be
    /// described and given a handler: see [`ToolBuilder`].
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        ToolBuilder {
            name: name.into(),
            title: None,
            description: None,
            annotations: ToolAnnotations::default(),
            meta: None,
            confirm: false,
            hidden: false,
            scopes: Vec::new(),
            tags: Vec::new(),
            timeout: None,
            task: TaskSupport::Forbidden,
            input_schema: serde_json::json!({ "type": "object", "properties": {} }),
            output_schema: None,
            handler: None,
        }
    }
}

impl ToolBuilder {
    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The JSON Schema of its arguments: an object schema (`"type": "object"`). Without one, the
    /// tool takes no arguments. Every constraint it states is checked before the handler runs.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    /// The JSON Schema of its structured result (`"type": "object"`): the handler then returns
    /// [`Json`](crate::Json) of a value that matches it.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Behaviour hints (read-only, destructive, idempotent, open-world).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// `_meta` of its definition.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Asks the user to confirm (through elicitation) before each call, as `#[mcp_tool(confirm)]`.
    pub fn confirm(mut self, confirm: bool) -> Self {
        self.confirm = confirm;
        self
    }

    /// Callable by name but left out of `tools/list`, as `#[mcp_tool(hidden)]`.
    pub fn hidden(mut self, hidden: bool) -> Self {
        self.hidden = hidden;
        self
    }

    /// Tags, to switch it off and on with others (`Server::disable_tags`, `Context::disable_tags`).
    pub fn tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// OAuth scopes a caller must hold to see and call it (HTTP with feature `auth`).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How long one call may run (the server's [`tool_timeout`](crate::Server::tool_timeout)
    /// otherwise).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Whether its calls may, or must, run as tasks.
    pub fn task(mut self, task: TaskSupport) -> Self {
        self.task = task;
        self
    }

    /// What a call runs: an async closure given the arguments and the request's [`Context`]
    /// (progress, logging, cancellation, requests to the client), returning anything a tool
    /// function may return ([`IntoToolResult`]: text, content, [`Json`](crate::Json),
    /// `Result<T, E: Display>`...).
    pub fn handler<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Arguments, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output: IntoToolResult> + Send + 'static,
    {
        self.handler = Some(Arc::new(move |arguments, ctx| {
            ToolCall::Running(handler(arguments, ctx).map(IntoToolResult::into_tool_result).boxed())
        }));
        self
    }

    /// The descriptor; an error of kind [`Config`](ErrorKind::Config) names what is wrong: an
    /// invalid name, a schema that is not an object schema, no handler.
    pub fn build(self) -> Result<ToolDescriptor> {
        let name = self.name;
        let refused = |what: String| Error::new(ErrorKind::Config, format!("tool `{name}`: {what}"));
        if !is_valid_tool_name(&name) {
            return Err(refused("a tool name is 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`".into()));
        }
        let input_schema = object_schema(self.input_schema).map_err(|e| refused(format!("input schema: {e}")))?;
        let output_schema = match self.output_schema {
            Some(schema) => Some(object_schema(schema).map_err(|e| refused(format!("output schema: {e}")))?),
            None => None,
        };
        let handler = self.handler.ok_or_else(|| refused("no handler: give one with `ToolBuilder::handler`".into()))?;
        let meta = self.meta.map(|meta| Str::from(Value::Object(meta).to_string()));
        let call_name = name.clone();
        Ok(ToolDescriptor {
            name: name.into(),
            title: self.title.map(Str::from),
            description: self.description.map(Str::from),
            annotations: self.annotations,
            icons: &[],
            meta,
            confirm: self.confirm,
            hidden: self.hidden,
            scopes: super::interned::scopes(self.scopes),
            tags: super::interned::scopes(self.tags),
            param_headers: &[],
            timeout: self.timeout,
            task: self.task,
            input_schema: SchemaFn::Arc(Arc::new(move || input_schema.clone())),
            input_schema_verbatim: true,
            output_schema: OutputSchemaFn::Arc(Arc::new(move || output_schema.clone())),
            call: CallFn::Arc(Arc::new(move |arguments, ctx| match parse_arguments(&call_name, arguments) {
                Ok(arguments) => handler(arguments, ctx.clone()),
                Err(error) => ToolCall::Finished(error.into()),
            })),
            required_state: Vec::new(),
        })
    }
}

/// 1 to 128 characters of `[A-Za-z0-9_.-]`, as the 2025-11-25 spec asks (the macros check
/// the same at compile time).
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// `schema` as the object schema a tool's arguments or structured result need.
fn object_schema(schema: Value) -> std::result::Result<Map<String, Value>, String> {
    match schema {
        Value::Object(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => Ok(schema),
        Value::Object(_) => Err("needs `\"type\": \"object\"` at its root".into()),
        other => Err(format!("a JSON Schema is an object, not `{}`", crate::clip::clip(&other.to_string()))),
    }
}
