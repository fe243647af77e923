//! An in-process client for testing servers (the in-memory transport).
//!
//! It talks to a [`Server`] through the same engine as stdio and HTTP, without a process or a
//! socket, so a test can call tools with `serde_json` values and read every notification:
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::testing::TestClient;
//!
//! /// Add two numbers.
//! #[mcp_tool]
//! fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # #[mcp_runtime::main]
//! # async fn main() {
//! let client = TestClient::connect(server!().tools(tools![add])).await;
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
//! assert_eq!(result.text(), Some("5"));
//! # }
//! ```

use crate::core::ServerCore;
use crate::engine::Connection;
use crate::jsonrpc::{ErrorObject, RequestId};
use crate::protocol::ProtocolVersion;
use crate::server::Server;
use crate::session::outgoing::{Outgoing, Sink};
use crate::tool::CallToolResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long [`TestClient`] waits for an answer before failing the test.
const TIMEOUT: Duration = Duration::from_secs(10);

type Pending = Arc<Mutex<HashMap<RequestId, (String, oneshot::Sender<Value>)>>>;

/// Answers the server's requests to the client (`sampling/createMessage`, `elicitation/create`,
/// `roots/list`): given the method and params, the result or error to send back, or `None` to
/// never answer (to test timeouts).
pub type RequestHandler = Arc<dyn Fn(&str, &Value) -> Option<Result<Value, ErrorObject>> + Send + Sync>;

/// How a [`TestClient`] introduces itself and answers the server.
#[derive(Clone)]
pub struct ClientOptions {
    version: String,
    capabilities: Value,
    name: String,
    handler: Option<RequestHandler>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            version: ProtocolVersion::LATEST.as_str().to_owned(),
            capabilities: json!({}),
            name: "mcp-runtime-test-client".to_owned(),
            handler: None,
        }
    }
}

impl ClientOptions {
    /// The `clientInfo.name` to send (default `mcp-runtime-test-client`): the server picks the
    /// form of its tool schemas by it ([`SchemaProfile`](crate::SchemaProfile)).
    pub fn client_name(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    /// The protocol version to ask for.
    pub fn version(mut self, version: &str) -> Self {
        self.version = version.to_owned();
        self
    }

    /// The capabilities to declare (e.g. `{"sampling": {}, "elicitation": {}, "roots": {}}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers the server's requests with `handler`.
    pub fn on_request(
        mut self,
        handler: impl Fn(&str, &Value) -> Option<Result<Value, ErrorObject>> + Send + Sync + 'static,
    ) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Connects and completes the handshake.
    pub async fn connect(self, server: Server) -> TestClient {
        self.connect_to(&TestServer::start(server)).await
    }

    /// Connects to a server that other clients may share, and completes the handshake.
    pub async fn connect_to(self, server: &TestServer) -> TestClient {
        let client = TestClient::connect_core(Arc::clone(&server.core), self.handler);
        let params = json!({
            "protocolVersion": self.version,
            "capabilities": self.capabilities,
            "clientInfo": {"name": self.name, "version": env!("CARGO_PKG_VERSION")},
        });
        if let Err(err) = client.request("initialize", params).await {
            panic!("initialize failed: {err:?}");
        }
        client.notify("notifications/initialized", json!({})).await;
        client
    }
}

/// A server built once that several [`TestClient`]s can connect to (each is its own session,
/// sharing the server's state and tools).
pub struct TestServer {
    core: Arc<ServerCore>,
}

impl TestServer {
    /// Builds the server.
    ///
    /// # Panics
    /// If the server's configuration is invalid (e.g. two tools share a name).
    pub fn start(server: Server) -> Self {
        Self { core: server.build().unwrap_or_else(|err| panic!("invalid server: {err}")) }
    }

    /// A new session, handshake done.
    pub async fn connect(&self) -> TestClient {
        ClientOptions::default().connect_to(self).await
    }

    /// A new connection without the handshake (for 2026-07-28 stateless requests, or to test
    /// the lifecycle).
    pub fn connect_uninitialized(&self) -> TestClient {
        TestClient::connect_core(Arc::clone(&self.core), None)
    }
}

/// One message the server sent, with the method of the request it answers (for responses).
#[derive(Clone, Debug)]
pub struct ServerMessage {
    /// The message as JSON.
    pub message: Value,
    /// For a response to a request of this client: that request's method.
    pub answers: Option<String>,
}

/// An in-process MCP client connected to one server. Its methods panic when the server
/// does not answer within 10 seconds: it is meant for tests.
pub struct TestClient {
    connection: Arc<Connection>,
    sink: Sink,
    next_id: AtomicI64,
    pending: Pending,
    unmatched: tokio::sync::Mutex<mpsc::UnboundedReceiver<Value>>,
    transcript: Arc<Mutex<Vec<ServerMessage>>>,
}

impl TestClient {
    /// Connects and completes the handshake at the latest protocol version.
    pub async fn connect(server: Server) -> Self {
        Self::connect_with_version(server, ProtocolVersion::LATEST.as_str()).await
    }

    /// Connects and completes the handshake asking for `version`.
    pub async fn connect_with_version(server: Server, version: &str) -> Self {
        Self::options().version(version).connect(server).await
    }

    /// Options for a client with capabilities and answers to the server's requests:
    /// `TestClient::options().capabilities(json!({"sampling": {}})).on_request(...).connect(server)`.
    pub fn options() -> ClientOptions {
        ClientOptions::default()
    }

    /// Connects without the handshake, to test the lifecycle itself.
    ///
    /// # Panics
    /// If the server's configuration is invalid (e.g. two tools share a name).
    pub fn connect_uninitialized(server: Server) -> Self {
        Self::connect_core(TestServer::start(server).core, None)
    }

    fn connect_core(core: Arc<ServerCore>, handler: Option<RequestHandler>) -> Self {
        let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(1024);
        let (unmatched_tx, unmatched_rx) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let transcript: Arc<Mutex<Vec<ServerMessage>>> = Arc::default();
        let (pending_in, transcript_in) = (Arc::clone(&pending), Arc::clone(&transcript));
        let connection = Arc::new(Connection::new(core, out_tx.clone()));
        let (weak_connection, answer_sink) = (Arc::downgrade(&connection), out_tx.clone());
        tokio::spawn(async move {
            while let Some(Outgoing { bytes, .. }) = out_rx.recv().await {
                let message: Value = serde_json::from_slice(&bytes).expect("the server sent invalid JSON");
                let waiter = is_response(&message)
                    .then(|| message.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok()))
                    .flatten()
                    .and_then(|id| pending_in.lock().unwrap().remove(&id));
                let answers = waiter.as_ref().map(|(method, _)| method.clone());
                transcript_in.lock().unwrap().push(ServerMessage { message: message.clone(), answers });
                if let (Some(method), Some(id)) = (message.get("method").and_then(Value::as_str), message.get("id")) {
                    let answer = match &handler {
                        Some(handler) => handler(method, &message["params"]),
                        None => Some(Err(ErrorObject::new(-32601, format!("Method not found: {method}")))),
                    };
                    let reply = match answer {
                        Some(Ok(result)) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Some(Err(error)) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                        None => continue,
                    };
                    if let Some(connection) = weak_connection.upgrade() {
                        connection.receive_bytes(reply.to_string().as_bytes(), &answer_sink).await;
                    }
                    continue;
                }
                match waiter {
                    Some((_, waiter)) => {
                        let _ = waiter.send(message);
                    }
                    None => {
                        let _ = unmatched_tx.send(message);
                    }
                }
            }
        });
        Self {
            connection,
            sink: out_tx,
            next_id: AtomicI64::new(1),
            pending,
            unmatched: tokio::sync::Mutex::new(unmatched_rx),
            transcript,
        }
    }

    /// Sends a request and waits for its answer: the `result`, or the JSON-RPC error.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let response = self.request_with_id(id, method, params).await;
        match response.get("error") {
            Some(error) => Err(serde_json::from_value(error.clone()).expect("malformed error object")),
            None => Ok(response["result"].clone()),
        }
    }

    /// Sends a request with a chosen id and returns the whole response message.
    pub async fn request_with_id(&self, id: RequestId, method: &str, params: Value) -> Value {
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id.clone(), (method.to_owned(), tx));
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&message.to_string()).await;
        match tokio::time::timeout(TIMEOUT, rx).await {
            Ok(Ok(response)) => response,
            _ => panic!("no answer to `{method}` (id {id}) within {TIMEOUT:?}"),
        }
    }

    /// Starts a request without waiting for the answer; returns its id and a receiver for it.
    pub async fn start_request(&self, method: &str, params: Value) -> (RequestId, oneshot::Receiver<Value>) {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id.clone(), (method.to_owned(), tx));
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&message.to_string()).await;
        (id, rx)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(&message.to_string()).await;
    }

    /// Sends raw bytes as one message, as a transport would hand them to the server.
    pub async fn send_raw(&self, message: &str) {
        self.send_bytes(message.as_bytes()).await;
    }

    /// Sends arbitrary bytes (e.g. invalid UTF-8) as one message.
    pub async fn send_bytes(&self, message: &[u8]) {
        self.connection.receive_bytes(message, &self.sink).await;
    }

    /// The next message that is not an answer to one of this client's pending requests:
    /// a notification, or an answer to something sent with [`send_raw`](Self::send_raw).
    pub async fn next_message(&self) -> Value {
        let mut unmatched = self.unmatched.lock().await;
        match tokio::time::timeout(TIMEOUT, unmatched.recv()).await {
            Ok(Some(message)) => message,
            _ => panic!("no message from the server within {TIMEOUT:?}"),
        }
    }

    /// Such messages that have arrived already, without waiting.
    pub async fn received(&self) -> Vec<Value> {
        let mut unmatched = self.unmatched.lock().await;
        std::iter::from_fn(|| unmatched.try_recv().ok()).collect()
    }

    /// Calls a tool. A JSON-RPC error (unknown tool...) is `Err`; a tool failure is an
    /// `Ok` result with `is_error` set.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ErrorObject> {
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments})).await?;
        Ok(serde_json::from_value(result).expect("tools/call result does not match CallToolResult"))
    }

    /// Every tool, following `nextCursor` across pages.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ErrorObject> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = self.request("tools/list", params).await?;
            tools.extend(page["tools"].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(tools),
            }
        }
    }

    /// Every message the server has sent so far, in order.
    pub fn transcript(&self) -> Vec<ServerMessage> {
        self.transcript.lock().unwrap().clone()
    }
}

fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && (message.get("result").is_some() || message.get("error").is_some())
}
