//! The seam between the commands and an MCP client: [`Connection`], what `list`, `call`,
//! `read`, `get` and `surface` need of a server, in JSON as the protocol writes it.
//!
//! Two implementations: the runtime's network client (`mcp_runtime::client`: a child process
//! over stdio, or Streamable HTTP, either protocol era) and the in-process [`TestClient`], so a
//! unit test runs the same checks.

use mcp_runtime::client::oauth::OAuth;
use mcp_runtime::client::{Client, ClientBuilder, ClientError};
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};
use std::fmt;
use std::time::Duration;
use tokio::process::Command;

/// How long a command waits for one answer from a server.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionError {
    /// The server could not be reached, or stopped answering: nothing to do with the request.
    Transport(String),
    /// The server answered with a JSON-RPC error (an unknown tool, bad params...).
    Rpc {
        /// The JSON-RPC error code.
        code: i64,
        /// The server's message.
        message: String,
    },
}

/// The JSON-RPC code of a method the server does not serve (a server without prompts...).
pub const METHOD_NOT_FOUND: i64 = -32601;

impl fmt::Display for ConnectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionError::Transport(message) => f.write_str(message),
            ConnectionError::Rpc { code, message } => write!(f, "the server answered with error {code}: {message}"),
        }
    }
}

impl std::error::Error for ConnectionError {}

/// What the commands ask of a server. Results are the protocol's JSON: a `CallToolResult`, a
/// `ReadResourceResult`, a `GetPromptResult`; lists are every item of every page.
#[allow(async_fn_in_trait)] // used generically, never as `dyn` or across threads
pub trait Connection {
    /// `tools/list`, all pages.
    async fn list_tools(&mut self) -> Result<Vec<Value>, ConnectionError>;
    /// `resources/list`, all pages.
    async fn list_resources(&mut self) -> Result<Vec<Value>, ConnectionError>;
    /// `resources/templates/list`, all pages.
    async fn list_resource_templates(&mut self) -> Result<Vec<Value>, ConnectionError>;
    /// `prompts/list`, all pages.
    async fn list_prompts(&mut self) -> Result<Vec<Value>, ConnectionError>;
    /// `tools/call`: the result, `isError` included (a tool's failure is a result, not an `Err`).
    async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, ConnectionError>;
    /// `resources/read`.
    async fn read_resource(&mut self, uri: &str) -> Result<Value, ConnectionError>;
    /// `prompts/get`.
    async fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<Value, ConnectionError>;
}

/// A client that can send any request: it gets [`Connection`] for free.
#[allow(async_fn_in_trait)]
pub trait Requester {
    /// Sends a request and waits for its result.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ConnectionError>;
}

impl<R: Requester> Connection for R {
    async fn list_tools(&mut self) -> Result<Vec<Value>, ConnectionError> {
        list_all(self, "tools/list", "tools").await
    }

    async fn list_resources(&mut self) -> Result<Vec<Value>, ConnectionError> {
        list_all(self, "resources/list", "resources").await
    }

    async fn list_resource_templates(&mut self) -> Result<Vec<Value>, ConnectionError> {
        list_all(self, "resources/templates/list", "resourceTemplates").await
    }

    async fn list_prompts(&mut self) -> Result<Vec<Value>, ConnectionError> {
        list_all(self, "prompts/list", "prompts").await
    }

    async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, ConnectionError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments})).await
    }

    async fn read_resource(&mut self, uri: &str) -> Result<Value, ConnectionError> {
        self.request("resources/read", json!({"uri": uri})).await
    }

    async fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<Value, ConnectionError> {
        self.request("prompts/get", json!({"name": name, "arguments": arguments})).await
    }
}

/// Every item of a list method, following `nextCursor`.
async fn list_all<R: Requester>(client: &mut R, method: &str, key: &str) -> Result<Vec<Value>, ConnectionError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = client.request(method, params).await?;
        items.extend(page.get(key).and_then(Value::as_array).cloned().unwrap_or_default());
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
            _ => return Ok(items),
        }
    }
    Err(ConnectionError::Transport(format!("`{method}` kept sending pages (over 10,000)")))
}

/// The in-process client of `mcp_runtime::testing`, so unit tests run the same checks.
impl Requester for &TestClient {
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ConnectionError> {
        TestClient::request(self, method, params)
            .await
            .map_err(|e| ConnectionError::Rpc { code: i64::from(e.code), message: e.message })
    }
}

/// The network client of the runtime (`mcp_runtime::client`): a child process over stdio, or
/// Streamable HTTP, in whichever protocol era the server speaks.
impl Requester for Client {
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ConnectionError> {
        Client::request(self, method, params).await.map_err(|error| match error {
            ClientError::Server(error) => ConnectionError::Rpc { code: i64::from(error.code), message: error.message },
            other => ConnectionError::Transport(describe(&other)),
        })
    }
}

/// What went wrong, in the terms of the command line (`--max-message-size`, not the builder).
fn describe(error: &ClientError) -> String {
    match error {
        ClientError::MessageTooLarge { limit, what } => {
            format!("the server sent {what} over the limit of {limit} bytes (raise it with --max-message-size BYTES)")
        }
        ClientError::Http { status: 401, body } => format!(
            "HTTP 401, the server wants a token{}: sign in with `cargo mcp login URL`, or pass --bearer TOKEN",
            reason(body)
        ),
        ClientError::Http { status: 403, body } => {
            format!("HTTP 403, the token is refused{} (a missing scope? sign in again with --scope)", reason(body))
        }
        ClientError::Auth(why) if why.starts_with("not signed in") => {
            format!("{why}: sign in with `cargo mcp login URL`")
        }
        other => other.to_string(),
    }
}

/// The server's reason in an error body (`error_description`, `error`, or the JSON-RPC message).
fn reason(body: &str) -> String {
    let Ok(json) = serde_json::from_str::<Value>(body) else { return String::new() };
    ["error_description", "error"]
        .iter()
        .find_map(|key| json.get(key).and_then(Value::as_str))
        .or_else(|| json.pointer("/error/message").and_then(Value::as_str))
        .map(|why| format!(" ({why})"))
        .unwrap_or_default()
}

/// The client every command connects with: named `cargo-mcp`, waiting [`TIMEOUT`] per answer,
/// reading at most `max_message_size` bytes per message (default: the runtime's).
fn builder(max_message_size: Option<usize>) -> ClientBuilder {
    let builder = Client::builder().name("cargo-mcp", env!("CARGO_PKG_VERSION")).timeout(TIMEOUT);
    match max_message_size {
        Some(bytes) => builder.max_message_size(bytes),
        None => builder,
    }
}

/// Runs `command_line` (a program and its arguments, quoted as in a shell) and connects to it
/// over stdio.
pub async fn connect_stdio(command_line: &str, max_message_size: Option<usize>) -> Result<Client, ConnectionError> {
    let words = shlex::split(command_line)
        .filter(|words| !words.is_empty())
        .ok_or_else(|| ConnectionError::Transport(format!("`{command_line}` is not a command line")))?;
    let mut command = Command::new(&words[0]);
    command.args(&words[1..]);
    connect_command(command, command_line, max_message_size).await
}

/// Runs `command` (its arguments and environment set by the caller) and connects to it over
/// stdio; `shown` names it in errors.
pub async fn connect_command(
    command: Command,
    shown: &str,
    max_message_size: Option<usize>,
) -> Result<Client, ConnectionError> {
    builder(max_message_size).connect_stdio(command).await.map_err(|e| {
        ConnectionError::Transport(format!("cannot run the server `{shown}` over stdio: {}", describe(&e)))
    })
}

/// Connects to the Streamable HTTP endpoint at `url`, with a bearer token if given, else with
/// the tokens `cargo mcp login` stored for it, if any.
pub async fn connect_http(
    url: &str,
    token: Option<&str>,
    max_message_size: Option<usize>,
) -> Result<Client, ConnectionError> {
    let oauth = if token.is_none() { crate::login::stored_sign_in(url) } else { None };
    connect_http_with(url, token, oauth, max_message_size).await
}

/// Connects to the Streamable HTTP endpoint at `url`, with a bearer token or a sign-in.
pub async fn connect_http_with(
    url: &str,
    token: Option<&str>,
    oauth: Option<OAuth>,
    max_message_size: Option<usize>,
) -> Result<Client, ConnectionError> {
    let mut builder = builder(max_message_size);
    if let Some(token) = token {
        builder = builder.bearer_token(token);
    }
    if let Some(oauth) = oauth {
        builder = builder.oauth(oauth);
    }
    builder
        .connect_http(url)
        .await
        .map_err(|e| ConnectionError::Transport(format!("cannot connect to {url}: {}", describe(&e))))
}
