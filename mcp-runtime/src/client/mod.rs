//! A client for any MCP server (feature `client`): a child process over stdio, or a
//! Streamable HTTP endpoint; either protocol era, chosen when connecting.
//!
//! ```no_run
//! use mcp_runtime::client::Client;
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! let client = Client::stdio(tokio::process::Command::new("calculator")).await?;
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
//! }
//! let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//! assert_eq!(sum.text(), Some("5"));
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! The era is negotiated as the official Python SDK's `auto` mode does it
//! ([`Negotiation::Auto`]): a `server/discover` probe at 2026-07-28 (stateless requests, each
//! carrying the client's `_meta`; a result that asks for input is answered with the client's
//! handlers and sent again), else the `initialize` handshake of the 2025-11-25 family (a
//! session; the server's requests arrive as requests). The caller's code is the same for both.
//!
//! The server's requests are answered by the handlers given to the [`ClientBuilder`]
//! (sampling, elicitation, roots); which handlers exist decides the capabilities the client
//! declares. Notifications go to [`ClientBuilder::on_notification`], and a call's progress to
//! its own callback ([`ToolCall::on_progress`]).

mod authorization;
mod bounded;
mod builder;
mod error;
mod handlers;
mod http;
mod negotiate;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth;
mod param_headers;
mod peer;
mod reconnect;
mod redirect;
mod sse;
mod stdio;
mod transport;
pub(crate) mod typed;
mod types;

pub use builder::ClientBuilder;
pub use error::ClientError;
pub use stdio::StderrMode;
pub use types::{
    ElicitationRequest, Negotiation, Notification, Page, Progress, Prompt, PromptArgument, ResourceTemplate,
    ServerDetails, Tool,
};

use crate::CancellationToken;
use crate::completion::{Completion, CompletionRequest};
use crate::logging::LoggingLevel;
use crate::prompt::GetPromptResult;
use crate::protocol::ProtocolVersion;
use crate::resource::{ReadResourceResult, ResourceEntry};
use crate::server_requests::Root;
use crate::sync::lock;
use crate::tool::CallToolResult;
use futures_util::future::BoxFuture;
pub(crate) use handlers::{AnswerFn, elicitation_result};
use param_headers::ParamHeader;
use peer::Peer;
pub(crate) use peer::RequestOptions;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// How long a 2026-07-28 subscription may stay open: as long as the client, in practice.
const LISTEN_LIMIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// A connection to one MCP server. Cheap to share by reference; its calls may run
/// concurrently. Dropping it stops a child process and the streams; [`close`](Self::close)
/// also ends an HTTP session on the server.
pub struct Client {
    peer: Arc<Peer>,
    details: ServerDetails,
    /// 2026-07-28 `subscriptions/listen` requests standing for `subscribe`, by URI.
    listens: Mutex<HashMap<String, AbortHandle>>,
    /// The `x-mcp-header` arguments of each tool listed so far, by tool name.
    param_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
}

/// Which prompt or resource template a completion is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionTarget {
    /// A prompt's argument, by the prompt's name.
    Prompt(String),
    /// A resource template's variable, by the template's URI template.
    ResourceTemplate(String),
}

impl Client {
    /// Options for a connection: the client's name, the era, handlers, timeouts.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Starts `command` and connects to it over stdio, with the default options.
    pub async fn stdio(command: tokio::process::Command) -> Result<Self, ClientError> {
        Self::builder().connect_stdio(command).await
    }

    /// Connects to a Streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`), with the default options.
    pub async fn http(url: &str) -> Result<Self, ClientError> {
        Self::builder().connect_http(url).await
    }

    fn new(peer: Arc<Peer>, details: ServerDetails) -> Self {
        Self { peer, details, listens: Mutex::default(), param_headers: Mutex::default() }
    }

    /// What the connection settled on: the protocol version, the server's info and capabilities.
    pub fn server(&self) -> &ServerDetails {
        &self.details
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.details.protocol_version
    }

    /// What a child server wrote on stderr, when started with [`StderrMode::Capture`].
    pub fn stderr(&self) -> Option<String> {
        self.peer.link.stderr()
    }

    /// Sends any request and returns its `result` (2026-07-28 input rounds included).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let params = match params {
            Value::Object(params) => params,
            Value::Null => Map::new(),
            _ => return Err(ClientError::InvalidResponse("params must be a JSON object".into())),
        };
        self.peer.call(method, params, &RequestOptions::default()).await
    }

    /// [`request`](Self::request) with the options of a mounted call (its answerer...).
    pub(crate) async fn request_with(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        self.peer.call(method, params, options).await
    }

    /// Every notification the server sends from now on (also given to
    /// [`ClientBuilder::on_notification`]). A receiver that falls more than 64 behind skips
    /// the oldest and is told how many ([`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged)).
    ///
    /// ```no_run
    /// # use mcp_runtime::client::{Client, Notification};
    /// # async fn f(client: Client) {
    /// let mut notifications = client.notifications();
    /// while let Ok(notification) = notifications.recv().await {
    ///     if notification == Notification::ToolsListChanged {
    ///         let tools = client.list_tools().await;
    ///     }
    /// }
    /// # }
    /// ```
    pub fn notifications(&self) -> tokio::sync::broadcast::Receiver<Notification> {
        self.peer.notifications.subscribe()
    }

    async fn typed<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T, ClientError> {
        let result = self.request(method, params).await?;
        serde_json::from_value(result).map_err(|e| ClientError::InvalidResponse(format!("{method}: {e}")))
    }

    /// Checks the server answers: `ping` in a session, `server/discover` in 2026-07-28 (which has no `ping`).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.peer.is_stateless() { "server/discover" } else { "ping" };
        self.request(method, json!({})).await.map(drop)
    }

    async fn page<T: DeserializeOwned>(
        &self,
        method: &str,
        key: &str,
        cursor: Option<&str>,
    ) -> Result<Page<T>, ClientError> {
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let mut result = self.request(method, params).await?;
        let items = result.get_mut(key).map(Value::take).unwrap_or_else(|| json!([]));
        let items =
            serde_json::from_value(items).map_err(|e| ClientError::InvalidResponse(format!("{method}: {e}")))?;
        let next_cursor = result.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
        Ok(Page { items, next_cursor })
    }

    async fn all<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, ClientError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = self.page(method, key, cursor.as_deref()).await?;
            all.extend(page.items);
            match page.next_cursor {
                Some(next) if cursor.as_deref() != Some(&next) => cursor = Some(next),
                _ => return Ok(all),
            }
        }
    }

    /// Every tool, following `nextCursor` across pages. In 2026-07-28 over HTTP, a tool whose
    /// `x-mcp-header` declarations break the spec's rules is left out, with a warning.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let tools: Vec<Tool> = self.all("tools/list", "tools").await?;
        Ok(self.keep_valid_tools(tools))
    }

    /// One page of tools: the first with `None`, then each `next_cursor` (invalid tools left
    /// out, as by [`list_tools`](Self::list_tools)).
    pub async fn list_tools_page(&self, cursor: Option<&str>) -> Result<Page<Tool>, ClientError> {
        let page: Page<Tool> = self.page("tools/list", "tools", cursor).await?;
        Ok(Page { items: self.keep_valid_tools(page.items), next_cursor: page.next_cursor })
    }

    /// Keeps the `x-mcp-header` arguments of `tools`, which a 2026-07-28 call over HTTP
    /// mirrors, and drops the tools whose declarations are invalid there (where the headers
    /// are not sent, the declarations mean nothing and every tool is kept).
    fn keep_valid_tools(&self, mut tools: Vec<Tool>) -> Vec<Tool> {
        let mirrored = self.peer.is_stateless_http();
        let mut known = lock(&self.param_headers);
        tools.retain(|tool| {
            let headers = match ParamHeader::of_schema(&tool.input_schema) {
                Ok(headers) => headers,
                Err(why) if mirrored => {
                    tracing::warn!("mcp client: left out the tool `{}`: {why}", tool.name);
                    known.remove(&tool.name);
                    return false;
                }
                Err(_) => Vec::new(),
            };
            if headers.is_empty() {
                known.remove(&tool.name);
            } else {
                known.insert(tool.name.clone(), headers);
            }
            true
        });
        tools
    }

    /// Calls a tool. Await it as is, or first ask for progress, a cancellation token or a
    /// time limit:
    ///
    /// ```no_run
    /// # use mcp_runtime::client::Client;
    /// # async fn f(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let stop = mcp_runtime::CancellationToken::new();
    /// let result = client
    ///     .call_tool("long_job", serde_json::json!({"steps": 10}))
    ///     .on_progress(|p| eprintln!("{} of {:?}", p.progress, p.total))
    ///     .cancel_with(stop.clone())
    ///     .timeout(std::time::Duration::from_secs(30))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// A tool that fails is an `Ok` result with `is_error` set; an unknown tool is
    /// [`ClientError::Server`]. Dropping the call before it ends (or cancelling it) tells the
    /// server to stop.
    pub fn call_tool(&self, name: impl Into<String>, arguments: Value) -> ToolCall<'_> {
        ToolCall { client: self, name: name.into(), arguments, options: RequestOptions::default() }
    }

    /// Every resource, following `nextCursor` across pages.
    pub async fn list_resources(&self) -> Result<Vec<ResourceEntry>, ClientError> {
        self.all("resources/list", "resources").await
    }

    /// One page of resources.
    pub async fn list_resources_page(&self, cursor: Option<&str>) -> Result<Page<ResourceEntry>, ClientError> {
        self.page("resources/list", "resources", cursor).await
    }

    /// Every resource template, following `nextCursor` across pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.all("resources/templates/list", "resourceTemplates").await
    }

    /// One page of resource templates.
    pub async fn list_resource_templates_page(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>, ClientError> {
        self.page("resources/templates/list", "resourceTemplates", cursor).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.typed("resources/read", json!({ "uri": uri })).await
    }

    /// Asks for `notifications/resources/updated` when the resource at `uri` changes (they
    /// reach [`ClientBuilder::on_notification`]). In a session this is `resources/subscribe`;
    /// in 2026-07-28 a `subscriptions/listen` request that stays open until
    /// [`unsubscribe`](Self::unsubscribe), returning once the server acknowledged it.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        if !self.peer.is_stateless() {
            return self.request("resources/subscribe", json!({ "uri": uri })).await.map(drop);
        }
        let number = self.peer.next_number();
        let acknowledged = self.peer.acknowledgement(number);
        let peer = Arc::clone(&self.peer);
        let params = json!({ "notifications": { "resourceSubscriptions": [uri] } });
        let Value::Object(params) = params else { unreachable!("a JSON object literal") };
        let listen = tokio::spawn(async move {
            let options = RequestOptions { timeout: Some(LISTEN_LIMIT), ..RequestOptions::default() };
            peer.request_numbered(number, "subscriptions/listen", params, &options).await
        });
        let previous = lock(&self.listens).insert(uri.to_owned(), listen.abort_handle());
        if let Some(previous) = previous {
            previous.abort();
        }
        tokio::select! {
            _ = acknowledged => Ok(()),
            ended = listen => Err(match ended {
                Ok(Err(error)) => error,
                _ => ClientError::InvalidResponse("subscriptions/listen ended before its acknowledgement".into()),
            }),
            () = tokio::time::sleep(self.peer.timeout) => Err(ClientError::Timeout(self.peer.timeout)),
        }
    }

    /// Stops the notifications [`subscribe`](Self::subscribe) asked for.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        if !self.peer.is_stateless() {
            return self.request("resources/unsubscribe", json!({ "uri": uri })).await.map(drop);
        }
        if let Some(listen) = lock(&self.listens).remove(uri) {
            listen.abort();
        }
        Ok(())
    }

    /// Every prompt, following `nextCursor` across pages.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.all("prompts/list", "prompts").await
    }

    /// One page of prompts.
    pub async fn list_prompts_page(&self, cursor: Option<&str>) -> Result<Page<Prompt>, ClientError> {
        self.page("prompts/list", "prompts", cursor).await
    }

    /// Renders a prompt with these arguments.
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError> {
        let arguments: Map<String, Value> =
            arguments.into_iter().map(|(k, v)| (k.into(), Value::String(v.into()))).collect();
        self.typed("prompts/get", json!({ "name": name, "arguments": arguments })).await
    }

    /// Suggestions for a prompt argument or a template variable (`completion/complete`).
    ///
    /// ```no_run
    /// # use mcp_runtime::client::{Client, CompletionTarget};
    /// # use mcp_runtime::CompletionRequest;
    /// # async fn f(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let typed = CompletionRequest { argument: "language".into(), value: "ru".into(), ..Default::default() };
    /// let completion = client.complete(CompletionTarget::Prompt("review".into()), typed).await?;
    /// println!("{:?}", completion.values);
    /// # Ok(()) }
    /// ```
    pub async fn complete(
        &self,
        target: CompletionTarget,
        request: CompletionRequest,
    ) -> Result<Completion, ClientError> {
        let reference = match target {
            CompletionTarget::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
            CompletionTarget::ResourceTemplate(uri) => json!({"type": "ref/resource", "uri": uri}),
        };
        let mut params = json!({
            "ref": reference,
            "argument": {"name": request.argument, "value": request.value},
        });
        if !request.arguments.is_empty() {
            params["context"] = json!({ "arguments": request.arguments });
        }
        let mut result = self.request("completion/complete", params).await?;
        let completion = result.get_mut("completion").map(Value::take).unwrap_or_default();
        serde_json::from_value(completion)
            .map_err(|e| ClientError::InvalidResponse(format!("completion/complete: {e}")))
    }

    /// The least severe log messages the server should send. In a session this is
    /// `logging/setLevel`; in 2026-07-28 every later request asks for it in its `_meta`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.peer.set_log_level(level);
        if self.peer.is_stateless() {
            return Ok(());
        }
        self.request("logging/setLevel", json!({ "level": level })).await.map(drop)
    }

    /// Replaces the roots the client offers (set first with [`ClientBuilder::roots`]) and, in a
    /// session, tells the server with `notifications/roots/list_changed`.
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<(), ClientError> {
        let Some(offered) = &self.peer.handlers.roots else {
            return Err(ClientError::Unsupported("roots (the client was built without ClientBuilder::roots)"));
        };
        *lock(offered) = roots;
        if self.peer.is_stateless() {
            return Ok(());
        }
        self.peer.notify("notifications/roots/list_changed", json!({})).await
    }

    /// Ends the connection: a child's stdin is closed (it is killed if it does not exit
    /// within 2 seconds); an HTTP session is deleted on the server.
    pub async fn close(self) {
        lock(&self.listens).drain().for_each(|(_, listen)| listen.abort());
        self.peer.link.close().await;
        self.peer.shut(ClientError::Closed);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        lock(&self.listens).drain().for_each(|(_, listen)| listen.abort());
    }
}

/// A tool call being prepared: await it (it is an [`IntoFuture`]) for the result.
#[must_use = "a tool call does nothing until it is awaited"]
pub struct ToolCall<'a> {
    client: &'a Client,
    name: String,
    arguments: Value,
    options: RequestOptions,
}

impl ToolCall<'_> {
    /// Asks the server for progress (a `progressToken`) and calls `callback` with each report.
    pub fn on_progress(mut self, callback: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.options.progress = Some(Arc::new(callback));
        self
    }

    /// Cancels the call when `token` is cancelled: the server is told to stop, and the call
    /// ends with [`ClientError::Cancelled`].
    pub fn cancel_with(mut self, token: CancellationToken) -> Self {
        self.options.cancel = Some(token);
        self
    }

    /// How long to wait for the result (default: the client's timeout) before telling the
    /// server to stop and failing with [`ClientError::Timeout`].
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.options.timeout = Some(limit);
        self
    }

    /// Answers the server's requests made for this call with `answerer` (a mounted call).
    pub(crate) fn answered_by(mut self, answerer: handlers::AnswerFn) -> Self {
        self.options.answerer = Some(answerer);
        self
    }
}

impl<'a> IntoFuture for ToolCall<'a> {
    type Output = Result<CallToolResult, ClientError>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let mut options = self.options;
            if let Some(headers) = lock(&self.client.param_headers).get(&self.name) {
                options.param_headers = headers.iter().filter_map(|h| h.value_in(&self.arguments)).collect();
            }
            let mut params = Map::new();
            params.insert("name".into(), Value::String(self.name));
            if !self.arguments.is_null() {
                params.insert("arguments".into(), self.arguments);
            }
            let result = self.client.peer.call("tools/call", params, &options).await?;
            serde_json::from_value(result).map_err(|e| ClientError::InvalidResponse(format!("tools/call: {e}")))
        })
    }
}
