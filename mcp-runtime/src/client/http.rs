//! Streamable HTTP with reqwest: each message a `POST`, answered with JSON or an SSE stream;
//! the `GET` stream of a session; `Mcp-Session-Id` and `MCP-Protocol-Version`; the mirrored
//! 2026-07-28 headers; a dropped stream resumed with `Last-Event-ID`; `DELETE` on close.

use super::error::ClientError;
use super::sse;
use super::transport::{Inbound, Inbox, Outbound};
use crate::jsonrpc::RequestId;
use crate::protocol::ProtocolVersion;
use crate::sync::lock;
use base64::Engine as _;
use futures_util::StreamExt as _;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Response, StatusCode};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// How long to wait before resuming a stream whose server named no `retry:` delay.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// Resumption attempts in a row that may fail before a request's stream is given up.
const RESUME_ATTEMPTS: u32 = 5;

/// A reqwest client with the runtime's outgoing TLS (`outbound_tls.rs`: ring, the platform's
/// verifier; no process-wide default provider needed).
pub(crate) fn default_client() -> Result<reqwest::Client, ClientError> {
    let tls = crate::outbound_tls::client_config().map_err(|e| ClientError::Transport(format!("TLS setup: {e}")))?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|e| ClientError::Transport(format!("HTTP client setup: {e}")))
}

pub(crate) struct HttpTransport {
    shared: Arc<Shared>,
}

struct Shared {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    session_id: Mutex<Option<String>>,
    version: Mutex<Option<ProtocolVersion>>,
    /// The tasks following the SSE answers of requests, by request id.
    streams: Mutex<HashMap<RequestId, AbortHandle>>,
    listening: Mutex<Option<AbortHandle>>,
    inbox: Inbox,
}

impl HttpTransport {
    pub fn new(
        client: reqwest::Client,
        url: &str,
        bearer: Option<&str>,
        mut headers: HeaderMap,
        inbox: Inbox,
    ) -> Result<Self, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| ClientError::Transport(format!("invalid URL {url:?}: {e}")))?;
        if let Some(token) = bearer {
            let value = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| ClientError::Transport("the bearer token is not a valid header value".into()))?;
            headers.insert(AUTHORIZATION, value);
        }
        let shared = Shared {
            client,
            url,
            headers,
            session_id: Mutex::default(),
            version: Mutex::default(),
            streams: Mutex::default(),
            listening: Mutex::default(),
            inbox,
        };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// The version the `MCP-Protocol-Version` header names (`None`: no header, as for `initialize`).
    pub fn set_version(&self, version: Option<ProtocolVersion>) {
        *lock(&self.shared.version) = version;
    }

    pub async fn send(&self, message: Outbound<'_>) -> Result<(), ClientError> {
        let shared = &self.shared;
        let mut request = shared
            .request(reqwest::Method::POST)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        if lock(&shared.version).is_some_and(ProtocolVersion::is_stateless) {
            if let Some(method) = message.method {
                request = request.header("mcp-method", header_text(method));
            }
            if let Some(name) = message.name {
                request = request.header("mcp-name", header_text(name));
            }
            for (header, value) in message.param_headers {
                request = request.header(header.as_str(), header_text(value));
            }
        }
        let response = request.body(message.body).send().await.map_err(transport)?;
        if let Some(id) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            lock(&shared.session_id).get_or_insert_with(|| id.to_owned());
        }
        let status = response.status();
        if status == StatusCode::ACCEPTED || (status.is_success() && message.request.is_none()) {
            return Ok(());
        }
        let is_sse = content_type(&response).starts_with("text/event-stream");
        if status.is_success() && is_sse {
            if let Some(id) = message.request {
                let follower = tokio::spawn(Arc::clone(shared).follow(response, Some(id.clone())));
                lock(&shared.streams).insert(id.clone(), follower.abort_handle());
            }
            return Ok(());
        }
        let body = response.bytes().await.map_err(transport)?;
        let unauthorized = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
        // A JSON answer, or an error status with a JSON-RPC error in its body.
        if let Some(id) = message.request
            && !unauthorized
            && let Ok(mut answer) = serde_json::from_slice::<Value>(&body)
            && answer.get("jsonrpc").is_some()
            && (status.is_success() || answer.get("error").is_some())
        {
            if answer.get("id").is_none_or(Value::is_null) {
                answer["id"] = serde_json::to_value(id).unwrap_or_default();
            }
            let _ = shared.inbox.send(Inbound::Message(answer.to_string().into_bytes(), None));
            return Ok(());
        }
        let body = String::from_utf8_lossy(&body[..body.len().min(512)]).into_owned();
        Err(ClientError::Http { status: status.as_u16(), body })
    }

    /// Stops following the answer of request `id` (2026-07-28 cancels a request so).
    pub fn abandon(&self, id: &RequestId) {
        if let Some(stream) = lock(&self.shared.streams).remove(id) {
            stream.abort();
        }
    }

    /// Opens the session's `GET` stream (reopened, resuming, whenever it drops).
    pub fn listen(&self) {
        let task = tokio::spawn(Arc::clone(&self.shared).listen());
        if let Some(old) = lock(&self.shared.listening).replace(task.abort_handle()) {
            old.abort();
        }
    }

    /// Ends the session: the streams stop, and a session is deleted on the server.
    pub async fn close(&self) {
        let shared = &self.shared;
        if let Some(listening) = lock(&shared.listening).take() {
            listening.abort();
        }
        lock(&shared.streams).drain().for_each(|(_, stream)| stream.abort());
        if lock(&shared.session_id).is_some() {
            let _ = shared.request(reqwest::Method::DELETE).send().await;
        }
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        if let Some(listening) = lock(&self.shared.listening).take() {
            listening.abort();
        }
        lock(&self.shared.streams).drain().for_each(|(_, stream)| stream.abort());
    }
}

impl Shared {
    /// A request to the endpoint with the headers every one carries.
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut request = self.client.request(method, self.url.clone()).headers(self.headers.clone());
        if let Some(id) = lock(&self.session_id).as_deref() {
            request = request.header(SESSION_ID, id);
        }
        if let Some(version) = *lock(&self.version) {
            request = request.header(PROTOCOL_VERSION, version.as_str());
        }
        request
    }

    /// A `GET` of the endpoint: the session's stream, or (with `last_event_id`) the rest of a
    /// stream that dropped.
    async fn get(&self, last_event_id: Option<&str>) -> Result<Response, ClientError> {
        let mut request = self.request(reqwest::Method::GET).header(ACCEPT, "text/event-stream");
        if let Some(last) = last_event_id {
            request = request.header(LAST_EVENT_ID, last);
        }
        let response = request.send().await.map_err(transport)?;
        if response.status().is_success() && content_type(&response).starts_with("text/event-stream") {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        Err(ClientError::Http { status, body: body.chars().take(512).collect() })
    }

    /// Follows the SSE answer of request `id` until its answer arrives, resuming it with
    /// `Last-Event-ID` when it drops before.
    async fn follow(self: Arc<Self>, response: Response, id: Option<RequestId>) {
        let mut cursor = Cursor::default();
        let mut response = Some(response);
        let mut failures = 0;
        loop {
            if let Some(stream) = response.take()
                && self.read(stream, &mut cursor, id.as_ref()).await
            {
                break;
            }
            let Some(last) = cursor.last_event_id.clone() else {
                self.fail(id.as_ref(), "the stream ended before the answer, and cannot be resumed (no event id)");
                break;
            };
            tokio::time::sleep(cursor.retry).await;
            match self.get(Some(&last)).await {
                Ok(resumed) => {
                    failures = 0;
                    response = Some(resumed);
                }
                Err(error) => {
                    failures += 1;
                    if failures >= RESUME_ATTEMPTS {
                        self.fail(id.as_ref(), &format!("the stream could not be resumed: {error}"));
                        break;
                    }
                }
            }
        }
        if let Some(id) = id {
            lock(&self.streams).remove(&id);
        }
    }

    /// The session's `GET` stream, for as long as the server keeps one (405: it has none).
    async fn listen(self: Arc<Self>) {
        let mut cursor = Cursor::default();
        let mut failures = 0u32;
        loop {
            match self.get(cursor.last_event_id.as_deref()).await {
                Ok(stream) => {
                    failures = 0;
                    self.read(stream, &mut cursor, None).await;
                }
                Err(ClientError::Http { status: 405 | 404 | 400 | 401 | 403, .. }) => return,
                Err(_) => {
                    failures += 1;
                    if failures > RESUME_ATTEMPTS {
                        return;
                    }
                }
            }
            tokio::time::sleep(cursor.retry).await;
        }
    }

    /// Reads events into the inbox; `true` once the answer to `id` went by.
    async fn read(&self, response: Response, cursor: &mut Cursor, id: Option<&RequestId>) -> bool {
        let mut parser = sse::Parser::default();
        let mut chunks = response.bytes_stream();
        while let Some(Ok(chunk)) = chunks.next().await {
            for event in parser.feed(&chunk) {
                if let Some(event_id) = event.id {
                    cursor.last_event_id = Some(event_id);
                }
                if let Some(retry) = event.retry {
                    cursor.retry = Duration::from_millis(retry);
                }
                if event.data.trim().is_empty() {
                    continue;
                }
                let answered = id.is_some_and(|id| answers(&event.data, id));
                let _ = self.inbox.send(Inbound::Message(event.data.into_bytes(), id.cloned()));
                if answered {
                    return true;
                }
            }
        }
        false
    }

    fn fail(&self, id: Option<&RequestId>, why: &str) {
        if let Some(id) = id {
            let _ = self.inbox.send(Inbound::Failed { id: id.clone(), error: ClientError::Transport(why.into()) });
        }
    }
}

/// Where a stream is: its last event id and the delay before resuming it.
struct Cursor {
    last_event_id: Option<String>,
    retry: Duration,
}

impl Default for Cursor {
    fn default() -> Self {
        Self { last_event_id: None, retry: DEFAULT_RETRY }
    }
}

/// Whether `data` is the response to request `id`.
fn answers(data: &str, id: &RequestId) -> bool {
    #[derive(serde::Deserialize)]
    struct Envelope {
        id: Option<RequestId>,
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Envelope>(data).is_ok_and(|e| e.method.is_none() && e.id.as_ref() == Some(id))
}

fn content_type(response: &Response) -> &str {
    response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// A mirrored header's value: as is when it is plain visible ASCII, else the
/// `=?base64?...?=` form 2026-07-28 defines.
fn header_text(value: &str) -> HeaderValue {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?");
    let text = if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
    };
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn transport(error: reqwest::Error) -> ClientError {
    ClientError::Transport(error.to_string())
}
