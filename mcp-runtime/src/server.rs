//! The server builder: what the user registers, turned into the immutable core every
//! connection shares.

use crate::error::{Error, Result};
use crate::registry::ToolRegistry;
use crate::tool::ToolSet;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A name and version: the server's `serverInfo`, or the client's `clientInfo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Implementation {
    /// The program's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// A display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// An MCP server under construction. Start with [`server!`](crate::server!) (named after your
/// crate) or [`Server::new`], register what it offers, then serve it.
///
/// ```no_run
/// # use mcp_runtime::prelude::*;
/// /// Greets someone.
/// #[mcp_tool]
/// fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// # async fn run() -> mcp_runtime::Result<()> {
/// server!()
///     .instructions("Call `greet` to greet someone.")
///     .tools(tools![greet])
///     .serve_stdio()
///     .await
/// # }
/// ```
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    tools: ToolSet,
    page_size: Option<usize>,
    shutdown_grace: Duration,
    max_message_size: usize,
}

impl Server {
    /// A server with this `serverInfo` name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation { name: name.into(), version: version.into(), title: None },
            instructions: None,
            tools: ToolSet::default(),
            page_size: None,
            shutdown_grace: Duration::from_millis(500),
            max_message_size: 4 * 1024 * 1024,
        }
    }

    /// A human-readable title for `serverInfo`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Instructions a client may add to the model's prompt.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds tools, usually `tools![a, b, c]`. They are listed in this order.
    pub fn tools(mut self, tools: ToolSet) -> Self {
        self.tools.tools.extend(tools.tools);
        self
    }

    /// Splits list results into pages of at most `size` items (default: one page).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size);
        self
    }

    /// How long requests in flight may run to completion once the client has gone away or a
    /// shutdown signal arrived (default 500 ms); after that they are cancelled.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB). Larger ones are answered with
    /// an error and skipped.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Serves one client over stdin/stdout until stdin closes, the client sends `exit`, or the
    /// process gets SIGINT/SIGTERM.
    pub async fn serve_stdio(self) -> Result<()> {
        crate::transport::stdio::serve(Arc::new(self.build()?)).await
    }

    pub(crate) fn build(self) -> Result<ServerCore> {
        let tools = ToolRegistry::new(self.tools.tools, self.page_size)?;
        let mut capabilities = json!({ "logging": {} });
        if !tools.is_empty() {
            capabilities["tools"] = json!({});
        }
        if self.max_message_size == 0 {
            return Err(Error::msg("max_message_size must be positive"));
        }
        Ok(ServerCore {
            info: self.info,
            instructions: self.instructions,
            capabilities,
            tools,
            shutdown_grace: self.shutdown_grace,
            max_message_size: self.max_message_size,
        })
    }
}

/// What every connection of a server shares; immutable once built.
pub(crate) struct ServerCore {
    pub info: Implementation,
    pub instructions: Option<String>,
    pub capabilities: Value,
    pub tools: ToolRegistry,
    pub shutdown_grace: Duration,
    pub max_message_size: usize,
}
