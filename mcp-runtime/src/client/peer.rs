//! The connection under a [`Client`](super::Client): request ids and the answers awaited,
//! the server's requests and notifications dispatched to the handlers, the 2026-07-28
//! `_meta` on every request and its input-required rounds, cancellation.

use super::error::ClientError;
use super::handlers::{AnswerFn, Handlers};
use super::http::HttpTransport;
use super::stdio::StdioTransport;
use super::transport::{Inbound, Outbound};
use super::types::{Notification, Progress, ServerDetails};
use crate::CancellationToken;
use crate::jsonrpc::{self, ErrorObject, RequestId};
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion, meta_key};
use crate::sync::{lock, read, write};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};

/// A transport the client speaks through.
pub(crate) enum Link {
    Stdio(Box<StdioTransport>),
    Http(HttpTransport),
}

impl Link {
    async fn send(&self, message: Outbound<'_>) -> Result<(), ClientError> {
        match self {
            Self::Stdio(stdio) => stdio.send(message).await,
            Self::Http(http) => http.send(message).await,
        }
    }

    /// The `MCP-Protocol-Version` header of what follows (HTTP only).
    pub fn set_version(&self, version: Option<ProtocolVersion>) {
        if let Self::Http(http) = self {
            http.set_version(version);
        }
    }

    /// Opens the session's `GET` stream (HTTP only), returning once the server answered it.
    pub async fn listen(&self) {
        if let Self::Http(http) = self {
            http.listen().await;
        }
    }

    /// Ends the connection: a child's stdin is closed (killed if it does not exit within 2
    /// seconds); an HTTP session is deleted on the server.
    pub async fn close(&self) {
        match self {
            Self::Stdio(stdio) => stdio.close().await,
            Self::Http(http) => http.close().await,
        }
    }

    pub fn stderr(&self) -> Option<String> {
        match self {
            Self::Stdio(stdio) => stdio.stderr(),
            Self::Http(_) => None,
        }
    }
}

/// Called with each progress report of one call.
pub(crate) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// What one request may carry beyond its params.
#[derive(Clone, Default)]
pub(crate) struct RequestOptions {
    pub progress: Option<ProgressFn>,
    pub cancel: Option<CancellationToken>,
    pub timeout: Option<Duration>,
    /// `Mcp-Param-*` headers (name, value) of a tool call, for 2026-07-28 over HTTP.
    pub param_headers: Vec<(String, String)>,
    /// Answers the server's requests made on behalf of this one, instead of the handlers.
    pub answerer: Option<AnswerFn>,
}

type Answer = Result<Value, ClientError>;

pub(crate) struct Peer {
    pub link: Link,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
    progress: Mutex<HashMap<String, ProgressFn>>,
    /// `subscriptions/listen` requests waiting for their acknowledgement, by request id.
    acknowledgements: Mutex<HashMap<String, oneshot::Sender<()>>>,
    /// The server's requests being answered, by id: `notifications/cancelled` stops one.
    answering: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    /// The requests in flight with an answerer of their own, oldest first.
    answerers: Mutex<Vec<Answerer>>,
    /// Every notification, for whoever subscribed after connecting ([`Client::notifications`](super::Client::notifications)).
    pub notifications: broadcast::Sender<Notification>,
    next_id: AtomicI64,
    pub handlers: Handlers,
    pub client_info: Implementation,
    details: RwLock<Option<ServerDetails>>,
    log_level: Mutex<Option<LoggingLevel>>,
    closed: AtomicBool,
    pub timeout: Duration,
    pub max_input_rounds: u32,
}

impl Peer {
    pub fn new(
        link: Link,
        handlers: Handlers,
        client_info: Implementation,
        timeout: Duration,
        max_input_rounds: u32,
    ) -> Self {
        Self {
            link,
            pending: Mutex::default(),
            progress: Mutex::default(),
            acknowledgements: Mutex::default(),
            answering: Mutex::default(),
            answerers: Mutex::default(),
            notifications: broadcast::channel(64).0,
            next_id: AtomicI64::new(1),
            handlers,
            client_info,
            details: RwLock::default(),
            log_level: Mutex::default(),
            closed: AtomicBool::new(false),
            timeout,
            max_input_rounds,
        }
    }

    /// Reads what the transport receives, for as long as the peer lives.
    pub fn start(self: &Arc<Self>, mut inbox: mpsc::UnboundedReceiver<Inbound>) {
        let weak: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(inbound) = inbox.recv().await {
                let Some(peer) = weak.upgrade() else { return };
                match inbound {
                    Inbound::Message(bytes, stream) => peer.receive(&bytes, stream),
                    Inbound::Failed { id, error } => peer.resolve(&id, Err(error)),
                    Inbound::Closed => peer.shut(ClientError::Closed),
                    Inbound::Broken(error) => {
                        tracing::warn!("mcp client: closing the connection: {error}");
                        peer.shut(error);
                        peer.link.close().await;
                    }
                }
            }
        });
    }

    /// Marks the connection closed and fails every request still waiting with `error`.
    pub fn shut(&self, error: ClientError) {
        self.closed.store(true, Ordering::Release);
        let waiting: Vec<_> = lock(&self.pending).drain().collect();
        for (_, waiter) in waiting {
            let _ = waiter.send(Err(error.clone()));
        }
    }

    pub fn set_details(&self, details: ServerDetails) {
        *write(&self.details) = Some(details);
    }

    pub fn is_stateless(&self) -> bool {
        self.stateless_version().is_some()
    }

    /// The negotiated version, when it is a stateless one (2026-07-28).
    fn stateless_version(&self) -> Option<ProtocolVersion> {
        read(&self.details).as_ref().map(|d| d.protocol_version).filter(|v| v.is_stateless())
    }

    /// Whether this is 2026-07-28 over HTTP: tool calls mirror their `x-mcp-header` arguments,
    /// and a request is cancelled by dropping its stream.
    pub fn is_stateless_http(&self) -> bool {
        matches!(self.link, Link::Http(_)) && self.is_stateless()
    }

    pub fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    /// The 2026-07-28 `_meta` every request carries: `version`, client, capabilities, log level.
    pub fn stamp(&self, params: &mut Map<String, Value>, version: ProtocolVersion) {
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        let meta = meta.as_object_mut().expect("made an object above");
        meta.insert(meta_key::PROTOCOL_VERSION.into(), version.as_str().into());
        meta.insert(meta_key::CLIENT_INFO.into(), serde_json::to_value(&self.client_info).unwrap_or_default());
        meta.insert(meta_key::CLIENT_CAPABILITIES.into(), self.handlers.capabilities());
        if let Some(level) = *lock(&self.log_level) {
            meta.entry(meta_key::LOG_LEVEL).or_insert_with(|| serde_json::to_value(level).unwrap_or_default());
        }
    }

    /// Sends a request and awaits its answer; in 2026-07-28, answers the server's input
    /// requests and sends it again until the result is complete.
    pub async fn call(
        self: &Arc<Self>,
        method: &str,
        mut params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let mut rounds = 0;
        let mut delay = Duration::from_millis(50);
        loop {
            let result = self.request(method, params.clone(), options).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            rounds += 1;
            if rounds > self.max_input_rounds {
                return Err(ClientError::TooManyInputRounds(self.max_input_rounds));
            }
            params.remove("inputResponses");
            params.remove("requestState");
            match result.get("inputRequests").and_then(Value::as_object).filter(|r| !r.is_empty()) {
                Some(requests) => {
                    let answers = futures_util::future::join_all(requests.iter().map(|(key, request)| async move {
                        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
                        let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                        let answer = match &options.answerer {
                            Some(answerer) => answerer(method.to_owned(), params).await,
                            None => self.handlers.answer(method, params).await,
                        };
                        (key.clone(), answer)
                    }))
                    .await;
                    let mut responses = Map::new();
                    for (key, answer) in answers {
                        responses.insert(key, answer.map_err(ClientError::Server)?);
                    }
                    params.insert("inputResponses".into(), Value::Object(responses));
                    delay = Duration::from_millis(50);
                }
                None => {
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_millis(250));
                }
            }
            if let Some(state) = result.get("requestState") {
                params.insert("requestState".into(), state.clone());
            }
        }
    }

    /// Sends one request and awaits its answer. Dropped before the answer (or timed out, or
    /// cancelled), it tells the server to stop.
    pub async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        self.request_numbered(self.next_number(), method, params, options).await
    }

    /// A fresh request id.
    pub fn next_number(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// [`request`](Self::request) with an id taken from [`next_number`](Self::next_number).
    pub async fn request_numbered(
        self: &Arc<Self>,
        number: i64,
        method: &str,
        mut params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ClientError::Closed);
        }
        if let Some(version) = self.stateless_version() {
            self.stamp(&mut params, version);
        }
        let id = RequestId::Number(number);
        let progress_key = options.progress.as_ref().map(|progress| {
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert("progressToken".into(), number.into());
            }
            let key = number.to_string();
            lock(&self.progress).insert(key.clone(), Arc::clone(progress));
            key
        });
        let (sender, answer) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), sender);
        if let Some(answerer) = &options.answerer {
            let answerer = Answerer { request: id.clone(), answer: Arc::clone(answerer), tasks: Vec::new() };
            lock(&self.answerers).push(answerer);
        }
        let answered_here = options.answerer.is_some();
        let mut outstanding = Outstanding { peer: self, id: &id, progress_key, answered_here, cancel_on_drop: true };
        let name = match method {
            "tools/call" | "prompts/get" => params.get("name"),
            "resources/read" => params.get("uri"),
            _ => None,
        }
        .and_then(Value::as_str);
        let body = jsonrpc::encode_request(&id, method, &params);
        let limit = options.timeout.unwrap_or(self.timeout);
        let cancelled = async {
            match &options.cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let exchange = async {
            let sent = self
                .link
                .send(Outbound {
                    body,
                    request: Some(&id),
                    method: Some(method),
                    name,
                    param_headers: &options.param_headers,
                })
                .await;
            match sent {
                Ok(()) => answer.await.unwrap_or(Err(ClientError::Closed)),
                Err(error) => Err(error),
            }
        };
        let outcome = tokio::select! {
            outcome = exchange => outcome,
            () = tokio::time::sleep(limit) => return Err(ClientError::Timeout(limit)),
            () = cancelled => return Err(ClientError::Cancelled),
        };
        outstanding.cancel_on_drop = false;
        outcome
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let body = jsonrpc::encode_notification(method, &params);
        self.link.send(Outbound { body, request: None, method: Some(method), name: None, param_headers: &[] }).await
    }

    /// Waits for the acknowledgement of the `subscriptions/listen` request numbered `id`.
    pub fn acknowledgement(&self, id: i64) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        lock(&self.acknowledgements).insert(id.to_string(), sender);
        receiver
    }

    fn resolve(&self, id: &RequestId, answer: Answer) {
        if let Some(waiter) = lock(&self.pending).remove(id) {
            let _ = waiter.send(answer);
        }
    }

    fn receive(self: &Arc<Self>, bytes: &[u8], stream: Option<RequestId>) {
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(bytes) else {
            tracing::debug!("mcp client: ignored a message that is not a JSON object");
            return;
        };
        let id = message.get("id").filter(|id| !id.is_null()).and_then(|id| serde_json::from_value(id.clone()).ok());
        let params = message.remove("params").unwrap_or(Value::Null);
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => self.answer(method.to_owned(), id, params, stream),
            (Some(method), None) => self.notified(method, params),
            (None, Some(id)) => {
                let answer = match (message.remove("result"), message.remove("error")) {
                    (_, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
                        Ok(error) => Err(ClientError::Server(error)),
                        Err(e) => Err(ClientError::InvalidResponse(format!("malformed error object: {e}"))),
                    },
                    (Some(result), None) => Ok(result),
                    (None, None) => Err(ClientError::InvalidResponse("a response without result or error".into())),
                };
                self.resolve(&id, answer);
            }
            (None, None) => tracing::debug!("mcp client: ignored a message with neither method nor id"),
        }
    }

    /// Answers a request of the server, on a task of its own: through the answerer of the
    /// request it was made for, if any, else with the client's handlers.
    fn answer(self: &Arc<Self>, method: String, id: RequestId, params: Value, stream: Option<RequestId>) {
        let peer = Arc::clone(self);
        let key = id.clone();
        // Held until the task is registered, so it cannot unregister itself before that.
        let mut answering = lock(&self.answering);
        // Held until the task is recorded with its answerer, which aborts it when its request ends.
        let mut answerers = lock(&self.answerers);
        let mut routed = answerer_for(&mut answerers, stream.as_ref());
        let answerer = routed.as_ref().map(|answerer| Arc::clone(&answerer.answer));
        let task = tokio::spawn(async move {
            let answer = match answerer {
                Some(answerer) => answerer(method.clone(), params).await,
                None => peer.handlers.answer(&method, params).await,
            };
            if lock(&peer.answering).remove(&id).is_none() {
                return; // cancelled by the server meanwhile: no answer
            }
            let body = match answer {
                Ok(result) => jsonrpc::encode_result(&id, &result),
                Err(error) => jsonrpc::encode_error(Some(&id), &error),
            };
            if let Err(error) =
                peer.link.send(Outbound { body, request: None, method: None, name: None, param_headers: &[] }).await
            {
                tracing::debug!("mcp client: cannot answer the server's `{method}`: {error}");
            }
        });
        if let Some(routed) = routed.as_mut() {
            routed.tasks.push(task.abort_handle());
        }
        answering.insert(key, task.abort_handle());
    }

    fn notified(&self, method: &str, params: Value) {
        if method == "notifications/cancelled"
            && let Some(id) =
                params.get("requestId").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
            && let Some(task) = lock(&self.answering).remove(&id)
        {
            task.abort();
        }
        if method == "notifications/subscriptions/acknowledged" {
            let id = params.get("_meta").and_then(|m| m.get(meta_key::SUBSCRIPTION_ID)).map(Value::to_string);
            if let Some(waiter) = id.and_then(|id| lock(&self.acknowledgements).remove(&id)) {
                let _ = waiter.send(());
            }
        }
        let notification = Notification::from_message(method, params);
        if let Notification::Progress { token, progress } = &notification {
            let key = match token {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let callback = lock(&self.progress).get(&key).cloned();
            if let Some(callback) = callback {
                callback(progress.clone());
            }
        }
        if self.notifications.receiver_count() > 0 {
            let _ = self.notifications.send(notification.clone());
        }
        self.handlers.notify(notification);
    }

    /// Tells the server to stop request `id`: `notifications/cancelled`, or in 2026-07-28 over
    /// HTTP, where the client sends no notifications, by dropping the request's stream.
    fn cancel(self: &Arc<Self>, id: &RequestId) {
        lock(&self.pending).remove(id);
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let stateless_http = self.is_stateless_http();
        if let Link::Http(http) = &self.link {
            http.abandon(id);
        }
        if stateless_http {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let peer = Arc::clone(self);
        let id = id.clone();
        runtime.spawn(async move {
            let params = json!({"requestId": id, "reason": "cancelled by the client"});
            let _ = peer.notify("notifications/cancelled", params).await;
        });
    }
}

/// Which answerer takes a request of the server: that of the request whose stream carried it,
/// else that of the only request in flight with one. Several in flight and nothing to tell
/// them apart (stdio): none, rather than ask the wrong user.
fn answerer_for<'a>(answerers: &'a mut [Answerer], stream: Option<&RequestId>) -> Option<&'a mut Answerer> {
    match stream.and_then(|id| answerers.iter().position(|answerer| answerer.request == *id)) {
        Some(index) => Some(&mut answerers[index]),
        None => match answerers {
            [only] => Some(only),
            _ => None,
        },
    }
}

/// A request in flight that answers the server's requests made for it.
struct Answerer {
    request: RequestId,
    answer: AnswerFn,
    /// The answers under way, stopped when the request ends.
    tasks: Vec<tokio::task::AbortHandle>,
}

/// A request sent and not yet answered: dropped early, it cancels the request.
struct Outstanding<'a> {
    peer: &'a Arc<Peer>,
    id: &'a RequestId,
    progress_key: Option<String>,
    /// The request registered an answerer, to remove with it.
    answered_here: bool,
    cancel_on_drop: bool,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        if let Some(key) = &self.progress_key {
            lock(&self.peer.progress).remove(key);
        }
        if self.answered_here {
            lock(&self.peer.answerers).retain(|answerer| {
                let ended = answerer.request == *self.id;
                if ended {
                    // Nobody is left to take their answers.
                    answerer.tasks.iter().for_each(tokio::task::AbortHandle::abort);
                }
                !ended
            });
        }
        if self.cancel_on_drop {
            self.peer.cancel(self.id);
        } else {
            lock(&self.peer.pending).remove(self.id);
        }
    }
}
