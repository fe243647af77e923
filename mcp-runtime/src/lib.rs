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

mod client;
mod content;
mod context;
mod engine;
mod error;
mod jsonrpc;
pub mod logging;
mod protocol;
mod registry;
mod router;
mod server;
mod state;
pub mod testing;
mod tool;
mod transport;

pub use client::{
    ClientError, Elicitation, ElicitationSchemaError, ModelPreferences, Root, RootsError, Sampled, Sampling,
    SamplingMessage, elicitation_schema_for,
};
pub use content::{Annotations, Audio, Content, EmbeddedResource, Image, ResourceContents, ResourceLink, Role, Text};
pub use context::{Context, FromContext};
pub use error::{Error, Result};
pub use logging::LoggingLevel;
pub use protocol::ProtocolVersion;
pub use server::{Implementation, Server, ServerHandle};
pub use state::{SessionState, State};
pub use tokio_util::sync::CancellationToken;
pub use tool::{CallToolResult, Icon, IntoToolResult, Json, ToolDef, ToolSet};

/// Runs an `async fn main` on the runtime's multi-threaded tokio runtime, so a server needs no
/// direct dependency on tokio.
pub use mcp_macros::main;
/// Marks a plain function as an MCP tool. See the crate documentation.
pub use mcp_macros::mcp_tool;
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

/// Everything a server file usually needs: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{CallToolResult, Content, Context, Json, LoggingLevel, Server, mcp_tool, server, tools};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Items the macros expand to. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::tool::descriptor::{ToolDescriptor, parse_arguments};
    pub use crate::tool::schema::{input_schema_for, verbatim_schema};
    pub use crate::tool::{ToolAnnotations, ToolDef, ToolParameter};
    pub use futures_util::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use tokio;

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
