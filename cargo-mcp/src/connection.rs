//! The seam between the commands and an MCP client: [`Connection`], what `list`, `call`,
//! `read`, `get` and `surface` need of a server, in JSON as the protocol writes it.
//!
//! Two implementations today: [`StdioConnection`], a minimal line-delimited JSON-RPC client over
//! a child process, and the in-process [`TestClient`]. **`StdioConnection` is a stand-in, to be
//! replaced by `mcp_runtime::client`** (feature `client`, stdio and HTTP) when it lands: an
//! `impl Connection` for that client, and `connect` below choosing it, are all the wiring left.

use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};
use std::fmt;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

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

/// A server run as a child process, spoken to in line-delimited JSON-RPC over its stdin and
/// stdout (the MCP stdio transport). Its stderr is the terminal's.
///
/// A stand-in until `mcp_runtime::client` lands: it does the `initialize` handshake, sends
/// requests one at a time, answers `ping` and refuses the server's other requests.
pub struct StdioConnection {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    command: String,
}

impl StdioConnection {
    /// Starts `command_line` (split like a shell would: `"target/debug/calc --flag 'a b'"`) and
    /// does the `initialize` handshake.
    pub async fn spawn(command_line: &str) -> Result<Self, ConnectionError> {
        let words = shlex::split(command_line).filter(|w| !w.is_empty()).ok_or_else(|| {
            ConnectionError::Transport(format!(
                "`{command_line}` is not a command: give the server's program and arguments, e.g. --stdio \"target/debug/my-server --verbose\""
            ))
        })?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                ConnectionError::Transport(format!(
                    "cannot start `{}`: {e}. Check the path (a server of this workspace is built with `cargo build`, into target/debug/)",
                    words[0]
                ))
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
        let mut connection =
            StdioConnection { child, stdin: Some(stdin), stdout, next_id: 1, command: words[0].clone() };
        connection
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "cargo-mcp", "version": env!("CARGO_PKG_VERSION")}
                }),
            )
            .await?;
        connection.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        Ok(connection)
    }

    /// Closes the server's stdin and waits a moment for it to exit (it is killed otherwise).
    pub async fn close(mut self) {
        self.stdin.take();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
    }

    async fn send(&mut self, message: &Value) -> Result<(), ConnectionError> {
        let mut line = message.to_string();
        line.push('\n');
        let command = &self.command;
        let Some(stdin) = self.stdin.as_mut() else { return Err(gone(command, "its input is closed")) };
        stdin.write_all(line.as_bytes()).await.map_err(|e| gone(command, &e.to_string()))?;
        stdin.flush().await.map_err(|e| gone(command, &e.to_string()))
    }

    fn gone(&self, why: &str) -> ConnectionError {
        gone(&self.command, why)
    }
}

fn gone(command: &str, why: &str) -> ConnectionError {
    ConnectionError::Transport(format!("the server `{command}` stopped answering: {why}"))
}

impl Requester for StdioConnection {
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ConnectionError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        loop {
            let line = match tokio::time::timeout(TIMEOUT, self.stdout.next_line()).await {
                Err(_) => return Err(self.gone(&format!("no answer to `{method}` within {}s", TIMEOUT.as_secs()))),
                Ok(Err(e)) => return Err(self.gone(&e.to_string())),
                Ok(Ok(None)) => return Err(self.gone("it exited (its messages, if any, are above)")),
                Ok(Ok(Some(line))) => line,
            };
            if line.trim().is_empty() {
                continue;
            }
            let message: Value = serde_json::from_str(&line).map_err(|e| {
                ConnectionError::Transport(format!(
                    "the server wrote something that is not JSON-RPC on stdout ({e}): {}",
                    line.chars().take(200).collect::<String>()
                ))
            })?;
            match (message.get("method").and_then(Value::as_str), message.get("id")) {
                // The server's own request: ping is answered, the rest refused.
                (Some(server_method), Some(server_id)) => {
                    let answer = if server_method == "ping" {
                        json!({"jsonrpc": "2.0", "id": server_id, "result": {}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": server_id,
                               "error": {"code": METHOD_NOT_FOUND, "message": "cargo-mcp does not serve client requests"}})
                    };
                    self.send(&answer).await?;
                }
                (Some(_), None) => {} // a notification: logs, progress, list changes
                (None, Some(answer_id)) if answer_id == &json!(id) => {
                    if let Some(error) = message.get("error") {
                        return Err(ConnectionError::Rpc {
                            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                            message: error.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
                        });
                    }
                    return Ok(message.get("result").cloned().unwrap_or(Value::Null));
                }
                (None, _) => {} // an answer to nothing this client is waiting for
            }
        }
    }
}
