//! The server builder: what the user registers, turned into the immutable core every
//! connection shares.

use crate::error::{Error, Result};
use crate::registry::Catalog;
use crate::state::TypeMap;
use crate::tool::ToolSet;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock, Weak};
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
    client_request_timeout: Duration,
    state: TypeMap,
    running: Arc<OnceLock<Weak<ServerCore>>>,
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
            client_request_timeout: Duration::from_secs(300),
            state: TypeMap::default(),
            running: Arc::default(),
        }
    }

    /// A handle to change what the server offers while it runs (clients are notified).
    pub fn handle(&self) -> ServerHandle {
        ServerHandle { running: Arc::clone(&self.running) }
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

    /// Registers shared state that handlers receive as a [`State<T>`](crate::State) parameter
    /// (one value per type; a second call with the same type replaces the first).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
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

    /// How long a request to the client (sampling, elicitation, roots) may wait for its answer
    /// unless the call sets its own limit (default 5 minutes: a person may be answering).
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// Serves one client over stdin/stdout until stdin closes, the client sends `exit`, or the
    /// process gets SIGINT/SIGTERM.
    pub async fn serve_stdio(self) -> Result<()> {
        crate::transport::stdio::serve(self.build()?).await
    }

    pub(crate) fn build(self) -> Result<Arc<ServerCore>> {
        if self.max_message_size == 0 {
            return Err(Error::msg("max_message_size must be positive"));
        }
        let core = Arc::new(ServerCore {
            info: self.info,
            instructions: self.instructions,
            catalog: Catalog::new(self.tools.tools, self.page_size)?,
            shutdown_grace: self.shutdown_grace,
            max_message_size: self.max_message_size,
            client_request_timeout: self.client_request_timeout,
            state: self.state,
        });
        let _ = self.running.set(Arc::downgrade(&core));
        Ok(core)
    }
}

/// Changes what a running server offers; every connected client gets a `list_changed`
/// notification. Get one from [`Server::handle`] before serving, or from a [`Context`](crate::Context).
#[derive(Clone)]
pub struct ServerHandle {
    running: Arc<OnceLock<Weak<ServerCore>>>,
}

impl ServerHandle {
    pub(crate) fn of(core: &Arc<ServerCore>) -> Self {
        let running = OnceLock::new();
        let _ = running.set(Arc::downgrade(core));
        Self { running: Arc::new(running) }
    }

    fn core(&self) -> Result<Arc<ServerCore>> {
        self.running.get().and_then(Weak::upgrade).ok_or_else(|| Error::msg("the server is not running"))
    }

    /// Adds tools; fails if one has the name of a tool already offered.
    pub fn add_tools(&self, tools: ToolSet) -> Result<()> {
        self.core()?.catalog.change_tools(tools.tools, &[])
    }

    /// Removes the tools with these names (unknown names are ignored).
    pub fn remove_tools(&self, names: &[&str]) -> Result<()> {
        self.core()?.catalog.change_tools(Vec::new(), names)
    }
}

/// What every connection of a server shares; immutable once built.
pub(crate) struct ServerCore {
    pub info: Implementation,
    pub instructions: Option<String>,
    pub catalog: Catalog,
    pub shutdown_grace: Duration,
    pub max_message_size: usize,
    pub client_request_timeout: Duration,
    pub state: TypeMap,
}
