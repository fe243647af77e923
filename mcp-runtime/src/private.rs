//! Items the macros expand to (`mcp_runtime::__private`). Not a public API: it changes without
//! notice.

pub use crate::completion::{CompleteFn, run_completer};
pub use crate::param::{
    InjectedParameter, NotAnArgument, PatternParameter, Probe, ProbeArgument, ProbeInjected, ProbeOther,
    ProbeUndecided, ProbeUnsupported, ProbeUnsupportedOldSchemars, ResourceInjected, SentParameter, TextArgument,
    ToolParameter, ToolParameterOldSchemars, UndecidedParameter, injection_failed, required_states,
};
pub use crate::prompt::GetFn;
pub use crate::prompt::{PromptArgument, PromptDef, PromptDescriptor};
pub use crate::resource::ReadFn;
pub use crate::resource::{ListFn, ResourceDef, ResourceDescriptor, ResourceRequest, run_lister};
pub use crate::text_value::{DoesNotParse, ParseUnsupported, ParseViaDeserialize, ParseViaFromStr, Parses, TextValue};
pub use crate::tool::arguments::{Argument, Slot, decode as decode_arguments};
pub use crate::tool::descriptor::{
    CallFn, OutputSchemaFn, ParamHeader, SchemaFn, Str, ToolCall, ToolDescriptor, parse_arguments,
};
pub use crate::tool::schema::{input_schema_for, verbatim_schema};
pub use crate::tool::{ToolAnnotations, ToolDef};
pub use futures_util::future::BoxFuture;
pub use schemars;
pub use serde;
pub use serde_json;
pub use tokio;

/// How long `#[mcp_runtime::main]` lets work left on its runtime run once the function
/// returned, before it abandons it (a handler that blocks cannot keep the process alive).
pub const SHUTDOWN_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

use crate::{CallToolResult, Context, ErrorObject, GetPromptResult, ReadResourceResult};

/// A resource function's return value as a `resources/read` result or error.
pub fn read_result<T: crate::IntoReadResult>(
    value: T,
    uri: &str,
    mime_type: Option<&str>,
    ctx: &Context,
) -> Result<ReadResourceResult, ErrorObject> {
    value.into_read_result(uri, mime_type).map_err(|err| match err {
        crate::resource::ResourceError::NotFound => crate::protocol::resource_not_found(uri, ctx.protocol_version()),
        crate::resource::ResourceError::Failed(message) => {
            ErrorObject::new(crate::jsonrpc::code::INTERNAL_ERROR, message)
        }
    })
}

/// A prompt function's return value as a `prompts/get` result or error.
pub fn prompt_result<T: crate::IntoPromptResult>(value: T) -> Result<GetPromptResult, ErrorObject> {
    value.into_prompt_result().map_err(|message| ErrorObject::new(crate::jsonrpc::code::INTERNAL_ERROR, message))
}

/// A template variable or prompt argument that does not parse: -32602 naming it.
pub fn invalid_argument(name: &str, problem: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("invalid value for `{name}`: {problem}"))
}

/// A template variable or prompt argument that is required but absent.
pub fn missing_argument(name: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("missing required argument `{name}`"))
}

/// Runs a `#[mcp_tool(blocking)]` function on tokio's blocking pool, with the request's
/// context set there too (so its `tracing` events reach the client). A panic carries on
/// in the caller, where it becomes the tool's error result.
pub async fn run_blocking<R: Send + 'static>(function: impl FnOnce() -> R + Send + 'static) -> R {
    let current = &crate::context::CURRENT;
    let context = current.is_set().then(|| current.with(Context::clone));
    let run = move || match context {
        Some(context) => crate::context::CURRENT.set(&context, function),
        None => function(),
    };
    match tokio::task::spawn_blocking(run).await {
        Ok(value) => value,
        Err(failed) => match failed.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(_) => panic!("the runtime shut down while a blocking tool ran"),
        },
    }
}

/// Fails to compile, on the parameter's type, when it cannot be a tool argument.
pub fn assert_tool_parameter<T: ToolParameter>() {}

/// [`assert_tool_parameter`] in a crate that depends on schemars 0.x, with the message that
/// says so.
pub fn assert_tool_parameter_old_schemars<T: ToolParameterOldSchemars>() {}

/// A text argument (a template variable or prompt argument) parsed by `parse`; `support`
/// (from `TextValue::support`) makes a type that does not parse from text a compile error.
pub fn parse_text_argument<T, S: crate::param::TextArgument<T>>(
    _support: S,
    parse: impl FnOnce() -> Result<T, ErrorObject>,
) -> Result<T, ErrorObject> {
    parse()
}

/// The arguments' shape picked by the probes: tells `parse_arguments` what to decode into.
pub fn parse_arguments_as<T: serde::de::DeserializeOwned>(
    tool: &str,
    arguments: Option<&serde_json::value::RawValue>,
    _shape: std::marker::PhantomData<T>,
) -> Result<T, CallToolResult> {
    parse_arguments(tool, arguments)
}

/// The input schema of the arguments' shape picked by the probes.
pub fn input_schema_as<T: schemars::JsonSchema + 'static>(_shape: std::marker::PhantomData<T>) -> SchemaFn {
    SchemaFn::Static(&input_schema_for::<T>)
}

/// Whether `names[index]` equals a name before it, in a `const` context: the duplicate check of
/// `tools![...]`, `resources![...]` and `prompts![...]`.
pub const fn repeats_earlier(names: &[&str], index: usize) -> bool {
    let mut earlier = 0;
    while earlier < index {
        if str_eq(names[earlier], names[index]) {
            return true;
        }
        earlier += 1;
    }
    false
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Typed client calls (`add::call(&client, ..)`, `mcp-macros/src/stub.rs`): the macros wrap
/// them in this gate, which keeps them with the feature `client` and drops them without it (a
/// proc macro cannot see the runtime's features).
#[cfg(feature = "client")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_client {
    ($($item:tt)*) => { $($item)* };
}

#[cfg(not(feature = "client"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_client {
    ($($item:tt)*) => {};
}

pub use crate::__with_client as with_client;

#[cfg(feature = "client")]
pub use crate::client::typed::*;
