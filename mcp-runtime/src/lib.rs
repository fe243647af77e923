//! Declarative [Model Context Protocol](https://modelcontextprotocol.io) servers.
//!
//! Put `#[mcp_tool]` on a plain function, list it with `tools![...]`, and serve:
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Add two numbers.
//! #[mcp_tool(read_only)]
//! fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! #[mcp_runtime::main]
//! async fn main() -> mcp_runtime::Result<()> {
//!     server!().tools(tools![add]).serve_stdio().await
//! }
//! ```
//!
//! The function stays ordinary Rust (`add(1.0, 2.0)` still works); the attribute adds a
//! hidden descriptor next to it that carries the JSON Schema of its parameters and a call shim.
//! See `docs/ARCHITECTURE.md` in the repository for how the layers fit together.
#![warn(missing_docs)]

#[cfg(feature = "auth")]
pub mod auth;
mod client;
mod completion;
mod content;
mod context;
mod engine;
mod error;
mod jsonrpc;
pub mod logging;
mod prompt;
mod protocol;
mod registry;
mod resource;
mod router;
mod server;
mod state;
pub mod testing;
mod text_value;
mod tool;
mod transport;

pub use client::{
    ClientError, Elicitation, ElicitationSchemaError, Input, ModelPreferences, Root, RootsError, Sampled, Sampling,
    SamplingMessage, elicitation_schema_for,
};
pub use completion::{Completer, Completion, CompletionRequest, IntoCompletion};
pub use content::{Annotations, Audio, Content, EmbeddedResource, Image, ResourceContents, ResourceLink, Role, Text};
pub use context::{Context, FromContext};
pub use error::{Error, Result};
pub use jsonrpc::{ErrorObject, RequestId};
pub use logging::LoggingLevel;
pub use prompt::{GetPromptResult, IntoPromptResult, PromptMessage, PromptSet};
pub use protocol::ProtocolVersion;
pub use resource::{
    IntoReadResult, IntoResourceEntries, Lister, ReadResourceResult, ResourceEntry, ResourceNotFound, ResourceSet,
};
pub use server::{Implementation, Server, ServerHandle};
pub use state::{SessionState, State};
pub use tokio_util::sync::CancellationToken;
pub use tool::{CallToolResult, ConfirmationFallback, Icon, IntoToolResult, Json, ToolDef, ToolSet};

/// Runs an `async fn main` on the runtime's multi-threaded tokio runtime, so a server needs no
/// direct dependency on tokio.
pub use mcp_macros::main;
/// Marks a plain function as an MCP prompt: its parameters are the prompt's arguments.
pub use mcp_macros::mcp_prompt;
/// Marks a plain function as an MCP resource (`uri = "docs://readme"`) or resource template
/// (`uri = "notes://{name}"`, whose variables bind to the parameters).
pub use mcp_macros::mcp_resource;
/// Marks a plain function as an MCP tool. See the crate documentation.
pub use mcp_macros::mcp_tool;
/// Builds a [`PromptSet`]: `prompts![review, summarize]`.
pub use mcp_macros::prompts;
/// Builds a [`ResourceSet`]: `resources![readme, note]`.
pub use mcp_macros::resources;
/// Builds a [`ToolSet`] from functions marked with `#[mcp_tool]`, rejecting duplicate names at
/// compile time: `tools![add, math::divide]`.
pub use mcp_macros::tools;

/// A [`Server`] named after the calling crate: its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`
/// become the `serverInfo` that clients see.
#[macro_export]
macro_rules! server {
    () => {
        $crate::Server::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
    };
}

/// Streamable HTTP (feature `http`): [`Server::serve_http`] serves it; these types configure
/// it and let you mount the endpoint in an application of your own.
#[cfg(feature = "http")]
pub mod http {
    #[cfg(feature = "tls")]
    pub use crate::transport::http::TlsConfig;
    pub use crate::transport::http::{HttpConfig, McpBody, McpHttpService};
}

/// Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`): crate-internal code run
/// on arbitrary input, panicking when an invariant breaks. Not a public API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz {
    use crate::jsonrpc::{self, Incoming};
    use crate::resource::uri_template::UriTemplate;

    /// Decodes one JSON-RPC message; whatever the outcome, the answer the server would send
    /// must be JSON carrying the same id.
    pub fn decode_jsonrpc(bytes: &[u8]) {
        let (id, answer) = match jsonrpc::decode(bytes) {
            Err(rejected) => (rejected.id.clone(), jsonrpc::encode_error(rejected.id.as_ref(), &rejected.error)),
            Ok(Incoming::Request { id, method, params }) => {
                let echo = serde_json::json!({ "method": &*method, "params": params.map(|p| p.get()) });
                (Some(id.clone()), jsonrpc::encode_result(&id, &echo))
            }
            Ok(Incoming::Notification { method, .. }) => (None, jsonrpc::encode_notification(&method, &())),
            Ok(Incoming::Response { id, .. }) => (Some(id.clone()), jsonrpc::encode_result(&id, &())),
        };
        let answer: serde_json::Value = serde_json::from_slice(&answer).expect("an answer is JSON");
        assert_eq!(answer["jsonrpc"], "2.0");
        let expected = id.map(|id| serde_json::to_value(&id).expect("an id serializes"));
        assert_eq!(answer.get("id"), expected.as_ref(), "the answer carries the request's id");
    }

    /// Parses `template`; when it parses, matches `uri` against it. A template without
    /// variables matches exactly itself.
    pub fn uri_template(template: &str, uri: &str) {
        let Ok(parsed) = UriTemplate::parse(template) else { return };
        let bindings = parsed.matches(uri);
        if parsed.is_static() {
            assert_eq!(bindings.is_some(), uri == template, "a static template matches itself only");
        }
        if let Some(bindings) = bindings {
            let variables: Vec<&str> = parsed.variables().collect();
            assert!(bindings.keys().all(|k| variables.contains(&k.as_str())), "only the template's variables bind");
        }
        let _ = parsed.matches(template);
    }
}

/// Everything a server file usually needs: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        CallToolResult, CompletionRequest, Content, Context, Json, LoggingLevel, PromptMessage, ResourceEntry,
        ResourceNotFound, Server, mcp_prompt, mcp_resource, mcp_tool, prompts, resources, server, tools,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Items the macros expand to. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::completion::{CompleteFn, run_completer};
    pub use crate::prompt::{PromptArgument, PromptDef, PromptDescriptor};
    pub use crate::resource::{ListFn, ResourceDef, ResourceDescriptor, ResourceRequest, run_lister};
    pub use crate::text_value::{FromText, ParseUnsupported, ParseViaDeserialize, ParseViaFromStr, TextValue};
    pub use crate::tool::descriptor::{ToolCall, ToolDescriptor, parse_arguments};
    pub use crate::tool::schema::{input_schema_for, verbatim_schema};
    pub use crate::tool::{ToolAnnotations, ToolDef, ToolParameter};
    pub use futures_util::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use tokio;

    use crate::{CallToolResult, Context, ErrorObject, GetPromptResult, ReadResourceResult};

    /// A resource function's return value as a `resources/read` result or error.
    pub fn read_result<T: crate::IntoReadResult>(
        value: T,
        uri: &str,
        mime_type: Option<&str>,
        ctx: &Context,
    ) -> Result<ReadResourceResult, ErrorObject> {
        value.into_read_result(uri, mime_type).map_err(|err| match err {
            crate::resource::ResourceError::NotFound => {
                crate::protocol::resource_not_found(uri, ctx.protocol_version())
            }
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

    /// An injected parameter that could not be provided, outside a tool.
    pub fn injection_failed(result: CallToolResult) -> ErrorObject {
        let message = result.text().unwrap_or("a handler parameter could not be provided").to_owned();
        ErrorObject::new(crate::jsonrpc::code::INTERNAL_ERROR, message)
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

    /// Compares two names in a `const` context, for the duplicate-name check of `tools![...]`.
    pub const fn str_eq(a: &str, b: &str) -> bool {
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
}
