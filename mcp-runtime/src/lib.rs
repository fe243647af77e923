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
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod clip;
mod completion;
mod content;
mod context;
mod core;
mod custom;
mod dynamic;
mod engine;
mod error;
#[cfg(feature = "http")]
mod http_request;
mod jsonrpc;
pub mod logging;
mod message;
pub mod middleware;
#[cfg(feature = "client")]
mod mount;
#[cfg(feature = "oauth-proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth-proxy")))]
pub mod oauth_proxy;
#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
pub mod openapi;
#[cfg(any(feature = "auth", feature = "client", feature = "openapi"))]
mod outbound_tls;
mod param;
mod prompt;
mod protocol;
mod registry;
mod required_state;
mod resource;
mod router;
mod server;
mod server_requests;
mod session;
mod settings;
mod shared_fn;
#[cfg(feature = "skills")]
mod skills;
mod state;
mod store;
mod sync;
mod tags;
mod tasks;
mod telemetry;
pub mod testing;
mod text_value;
mod tool;
mod transport;
mod type_map;

pub use completion::{Completer, Completion, CompletionRequest, IntoCompletion};
pub use content::{Annotations, Audio, Content, EmbeddedResource, Image, ResourceContents, ResourceLink, Role, Text};
pub use context::{Context, FromContext};
pub use dynamic::{PromptBuilder, ResourceBuilder, ToolBuilder, ToolTransform};
pub use error::{Error, ErrorKind, Result};
pub use jsonrpc::{ErrorObject, RequestId};
pub use logging::LoggingLevel;
pub use prompt::{GetPromptResult, IntoPromptResult, PromptArgument, PromptDescriptor, PromptMessage, PromptSet};
pub use protocol::{Implementation, ProtocolVersion};
pub use required_state::RequiredState;
pub use resource::{
    IntoReadResult, IntoResourceEntries, Lister, ReadResourceResult, ResourceDescriptor, ResourceEntry,
    ResourceNotFound, ResourceRequest, ResourceSet,
};
pub use server::{Server, ServerHandle};
pub use server_requests::{
    ClientError, Elicitation, ElicitationSchemaError, Input, ModelPreferences, Root, RootsError, Sampled, Sampling,
    SamplingMessage, elicitation_schema_for,
};
#[cfg(feature = "fs")]
#[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
pub use server_requests::{FolderEntry, OutsideRoot, PathInRoot};
pub use settings::ConfirmationFallback;
pub use state::{LocalSessionState, SessionState, State};
pub use store::SessionStore;
pub use tokio_util::sync::CancellationToken;
pub use tool::{
    CallToolResult, Icon, IntoToolResult, Json, SchemaProfile, TaskSupport, ToolAnnotations, ToolDef, ToolDescriptor,
    ToolSet,
};

// The macros are documented here, where rustdoc runs their examples against this crate; the
// text lives in `docs/`, one file per macro.
/// Typed calls of a server known only by its surface file (feature `client`): the file
/// `cargo mcp surface` writes, its path relative to this crate's `Cargo.toml`.
///
/// ```ignore
/// mcp_runtime::client_stubs!(pub mod weather = "weather-surface.json");
///
/// let client = mcp_runtime::client::Client::http("https://weather.example.com/mcp").await?;
/// let forecast = weather::get_forecast(&client, "Paris".into(), Some(3)).await?;  // a tool
/// let alerts = weather::resources::read_alerts(&client, "FR").await?;           // a template
/// let prompt = weather::prompts::get_plan_trip(&client, "Paris", None).await?;  // a prompt
/// ```
///
/// A tool's parameters are typed from its input schema (`number` `f64`, `integer` `i64`,
/// `string` `String`, `boolean` `bool`, `array` `Vec<_>`, anything else `serde_json::Value`;
/// optional ones `Option<_>`); it returns its structured content as a `serde_json::Value` when
/// it declares an output schema, else its `CallToolResult`, and a tool error as
/// [`client::ClientError::Tool`]. Names that are not Rust identifiers become snake case ones
/// (`get-forecast` is `get_forecast`). The module is rebuilt when the file changes.
#[cfg(feature = "client")]
pub use mcp_runtime_macros::client_stubs;
#[doc = include_str!("../docs/main.md")]
pub use mcp_runtime_macros::main;
#[doc = include_str!("../docs/mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;
#[doc = include_str!("../docs/mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;
#[doc = include_str!("../docs/mcp_tool.md")]
pub use mcp_runtime_macros::mcp_tool;
#[doc = include_str!("../docs/prompts.md")]
pub use mcp_runtime_macros::prompts;
#[doc = include_str!("../docs/resources.md")]
pub use mcp_runtime_macros::resources;
#[doc = include_str!("../docs/tools.md")]
pub use mcp_runtime_macros::tools;

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
    pub use crate::http_request::HttpRequest;
    #[cfg(feature = "tls")]
    pub use crate::transport::http::TlsConfig;
    pub use crate::transport::http::{HttpConfig, McpBody, McpHttpService};
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

/// Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`). Not a public API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzzing.rs"]
pub mod __fuzz;

/// Items the macros expand to. Not a public API: it changes without notice.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The guide's code blocks (`docs/guide`), compiled and run as doc tests, a chapter each
/// (`tests/tests/guide.rs` checks that every chapter is here).
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../docs/guide/src/asking-the-client.md")]
    struct AskingTheClient;
    #[doc = include_str!("../../docs/guide/src/authorization.md")]
    struct Authorization;
    #[doc = include_str!("../../docs/guide/src/built-at-run-time.md")]
    struct BuiltAtRunTime;
    #[doc = include_str!("../../docs/guide/src/cargo-mcp.md")]
    struct CargoMcp;
    #[doc = include_str!("../../docs/guide/src/client.md")]
    struct Client;
    #[doc = include_str!("../../docs/guide/src/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../docs/guide/src/http.md")]
    struct Http;
    #[doc = include_str!("../../docs/guide/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../../docs/guide/src/long-running-tools.md")]
    struct LongRunningTools;
    #[doc = include_str!("../../docs/guide/src/middleware.md")]
    struct Middleware;
    #[doc = include_str!("../../docs/guide/src/observability.md")]
    struct Observability;
    #[doc = include_str!("../../docs/guide/src/protocol-eras.md")]
    struct ProtocolEras;
    #[doc = include_str!("../../docs/guide/src/resources-and-prompts.md")]
    struct ResourcesAndPrompts;
    #[doc = include_str!("../../docs/guide/src/security.md")]
    struct Security;
    #[doc = include_str!("../../docs/guide/src/server-identity.md")]
    struct ServerIdentity;
    #[doc = include_str!("../../docs/guide/src/status.md")]
    struct Status;
    #[doc = include_str!("../../docs/guide/src/testing.md")]
    struct Testing;
    #[doc = include_str!("../../docs/guide/src/tools.md")]
    struct Tools;
}
