//! Streamable HTTP with reqwest: each message a `POST`, answered with JSON or an SSE stream;
//! the `GET` stream of a session; `Mcp-Session-Id` and `MCP-Protocol-Version`; the mirrored
//! 2026-07-28 headers; a dropped stream resumed with `Last-Event-ID`; `DELETE` on close.
//! Every body and stream is read within the client's maximum message size (`bounded.rs`,
//! `sse.rs`), redirects are followed here (`redirect.rs`), and streams are reopened with a
//! backoff (`reconnect.rs`).

use super::authorization::Authorization;
use super::bounded;
use super::error::ClientError;
use super::reconnect::{Backoff, MAX_FAILURES};
use super::redirect::{self, MAX_REDIRECTS};
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
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

pub(super) const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// The most of an error answer's body kept for [`ClientError::Http`].
const ERROR_BODY: usize = 512;

/// A reqwest client with the runtime's outgoing TLS (`outbound_tls.rs`: ring, the platform's
/// verifier; no process-wide default provider needed), which leaves redirects to the transport.
pub(crate) fn default_client() -> Result<reqwest::Client, ClientError> {
    let tls = crate::outbound_tls::client_config().map_err(|e| ClientError::Transport(format!("TLS setup: {e}")))?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ClientError::Transport(format!("HTTP client setup: {e}")))
}

pub(crate) struct HttpTransport {
    shared: Arc<Shared>,
}

struct Shared {
    client: reqwest::Client,
    url: reqwest::Url,
    /// The user's headers and the bearer token: sent to the endpoint's origin only.
    headers: HeaderMap,
    /// The client's maximum message size.
    limit: usize,
    /// The session's id, and the URL of the answer that gave it (the origin it is sent to
    /// when a redirect leaves the endpoint's).
    session: Mutex<Option<(String, reqwest::Url)>>,
    version: Mutex<Option<ProtocolVersion>>,
    /// The tasks following the SSE answers of requests, by request id.
    streams: Mutex<HashMap<RequestId, AbortHandle>>,
    listening: Mutex<Option<AbortHandle>>,
    inbox: Inbox,
    /// The sign-in flow, when the client has one: its token goes with every request, and a
    /// `POST` it refuses is authorized anew and sent again.
    authorization: Option<Arc<dyn Authorization>>,
}

impl HttpTransport {
    pub fn new(
        client: reqwest::Client,
        url: &str,
        bearer: Option<&str>,
        mut headers: HeaderMap,
        limit: usize,
        inbox: Inbox,
        authorization: Option<Arc<dyn Authorization>>,
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
            limit,
            session: Mutex::default(),
            version: Mutex::default(),
            streams: Mutex::default(),
            listening: Mutex::default(),
            inbox,
            authorization,
        };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// Makes sure the client holds a token the server accepts, before any request whose time is
    /// limited: a `ping` the server refuses (401) runs the sign-in flow, however long the user
    /// takes. Nothing happens without a flow, or with a token in store; what the server answers
    /// the `ping` otherwise does not matter.
    pub async fn sign_in(&self) -> Result<(), ClientError> {
        let Some(authorization) = &self.shared.authorization else { return Ok(()) };
        if authorization.credentials("POST", &self.shared.url).await?.is_some() {
            return Ok(());
        }
        let probe = r#"{"jsonrpc":"2.0","id":"sign-in","method":"ping"}"#;
        let request = self
            .shared
            .request(reqwest::Method::POST)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(probe);
        self.shared.execute(request).await.map(drop)
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
        let response = shared.execute(request.body(message.body)).await?;
        if let Some(id) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            lock(&shared.session).get_or_insert_with(|| (id.to_owned(), response.url().clone()));
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
        let body = match bounded::body(response, shared.limit).await {
            Ok(body) => body,
            Err(error) if status.is_success() => return Err(error),
            Err(error) => return Err(ClientError::Http { status: status.as_u16(), body: error.to_string() }),
        };
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
        let body = String::from_utf8_lossy(&body[..body.len().min(ERROR_BODY)]).into_owned();
        Err(ClientError::Http { status: status.as_u16(), body })
    }

    /// Stops following the answer of request `id` (2026-07-28 cancels a request so).
    pub fn abandon(&self, id: &RequestId) {
        if let Some(stream) = lock(&self.shared.streams).remove(id) {
            stream.abort();
        }
    }

    /// Opens the session's `GET` stream (reopened, resuming, whenever it drops); returns once
    /// the server answered the first attempt: the stream is open, or the server has none.
    pub async fn listen(&self) {
        let (opened, answered) = oneshot::channel();
        let task = tokio::spawn(Arc::clone(&self.shared).listen(opened));
        if let Some(old) = lock(&self.shared.listening).replace(task.abort_handle()) {
            old.abort();
        }
        let _ = answered.await;
    }

    /// Ends the session: the streams stop, and a session is deleted on the server.
    pub async fn close(&self) {
        let shared = &self.shared;
        if let Some(listening) = lock(&shared.listening).take() {
            listening.abort();
        }
        lock(&shared.streams).drain().for_each(|(_, stream)| stream.abort());
        if lock(&shared.session).is_some() {
            let _ = shared.execute(shared.request(reqwest::Method::DELETE)).await;
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
        if let Some((id, _)) = lock(&self.session).as_ref() {
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
        let response = self.execute(request).await?;
        if response.status().is_success() && content_type(&response).starts_with("text/event-stream") {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let body = bounded::head(response, ERROR_BODY).await;
        Err(ClientError::Http { status, body: String::from_utf8_lossy(&body).into_owned() })
    }

    /// Sends `request` with the sign-in flow's token, if any. A `POST` the server refuses for its
    /// token is authorized anew and sent again, at most the flow's limit of times; other
    /// requests (the streams, the session's end) only carry the token.
    async fn execute(&self, request: reqwest::RequestBuilder) -> Result<Response, ClientError> {
        let request = request.build().map_err(transport)?;
        let Some(authorization) = &self.authorization else { return self.send_following(request).await };
        let may_authorize = request.method() == reqwest::Method::POST;
        let mut authorizations = 0;
        loop {
            let mut attempt = request.try_clone().ok_or_else(|| ClientError::Transport("a streaming body".into()))?;
            let credentials = authorization.credentials(attempt.method().as_str(), attempt.url()).await?;
            if let Some(credentials) = &credentials {
                let invalid = |_| ClientError::Auth("the access token is not a valid header value".into());
                let value = format!("{} {}", credentials.scheme, credentials.token);
                attempt.headers_mut().insert(AUTHORIZATION, HeaderValue::from_str(&value).map_err(invalid)?);
                if let Some(proof) = &credentials.proof {
                    attempt.headers_mut().insert("dpop", HeaderValue::from_str(proof).map_err(invalid)?);
                }
            }
            let token = credentials.map(|credentials| credentials.token);
            let response = self.send_following(attempt).await?;
            let status = response.status().as_u16();
            if !may_authorize || !authorization.refused(status, response.headers()) {
                return Ok(response);
            }
            if authorizations == authorization.max_authorizations() {
                return Err(ClientError::Auth(format!(
                    "the server still refuses access (HTTP {status}) after {authorizations} authorizations"
                )));
            }
            authorizations += 1;
            authorization.challenged(response.headers(), token.as_deref()).await?;
        }
    }

    /// Sends `request`, following redirects (`redirect.rs`: off the endpoint's origin, without
    /// the user's headers, the token and the session id).
    async fn send_following(&self, mut request: reqwest::Request) -> Result<Response, ClientError> {
        let session_home = lock(&self.session).as_ref().map_or_else(|| self.url.clone(), |(_, home)| home.clone());
        let private = redirect::Private { endpoint: &self.url, headers: &self.headers, session_home: &session_home };
        for _ in 0..=MAX_REDIRECTS {
            let again = request.try_clone();
            let response = self.client.execute(request).await.map_err(transport)?;
            match again.and_then(|again| private.next(&response, again)) {
                Some(next) => request = next,
                None => return Ok(response),
            }
        }
        Err(ClientError::Transport(format!("more than {MAX_REDIRECTS} redirects")))
    }

    /// Follows the SSE answer of request `id` until its answer arrives, resuming it with
    /// `Last-Event-ID` when it drops before.
    async fn follow(self: Arc<Self>, response: Response, id: Option<RequestId>) {
        let mut cursor = Cursor::default();
        let mut response = Some(response);
        loop {
            if let Some(stream) = response.take() {
                match self.read(stream, &mut cursor, id.as_ref()).await {
                    Read::Answered => break,
                    Read::Broken(error) => {
                        self.fail(id.as_ref(), error);
                        break;
                    }
                    Read::Ended { progressed: true } => cursor.backoff.progressed(),
                    Read::Ended { progressed: false } if !cursor.backoff.failed() => {
                        let why =
                            format!("the stream ended {MAX_FAILURES} times in a row with nothing before the answer");
                        self.fail(id.as_ref(), ClientError::Transport(why));
                        break;
                    }
                    Read::Ended { progressed: false } => {}
                }
            }
            let Some(last) = cursor.last_event_id.clone() else {
                let why = "the stream ended before the answer, and cannot be resumed (no event id)";
                self.fail(id.as_ref(), ClientError::Transport(why.into()));
                break;
            };
            tokio::time::sleep(cursor.backoff.delay()).await;
            match self.get(Some(&last)).await {
                Ok(resumed) => response = Some(resumed),
                Err(error) if !cursor.backoff.failed() => {
                    let why = format!("the stream could not be resumed: {error}");
                    self.fail(id.as_ref(), ClientError::Transport(why));
                    break;
                }
                Err(_) => {}
            }
        }
        if let Some(id) = id {
            lock(&self.streams).remove(&id);
        }
    }

    /// The session's `GET` stream, for as long as the server keeps one (405: it has none),
    /// reopened when it ends; given up after [`MAX_FAILURES`] fruitless attempts in a row.
    /// `opened` is told when the server answered the first attempt.
    async fn listen(self: Arc<Self>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut cursor = Cursor::default();
        loop {
            let attempt = self.get(cursor.last_event_id.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let fruitless = match attempt {
                Ok(stream) => match self.read(stream, &mut cursor, None).await {
                    Read::Broken(error) => {
                        tracing::warn!("mcp client: the session's stream is closed: {error}");
                        return;
                    }
                    Read::Answered | Read::Ended { progressed: true } => {
                        cursor.backoff.progressed();
                        None
                    }
                    Read::Ended { progressed: false } => Some("it ended with no event".to_owned()),
                },
                Err(ClientError::Http { status: 405 | 404 | 400 | 401 | 403, .. }) => return,
                Err(error) => Some(error.to_string()),
            };
            if let Some(why) = fruitless
                && !cursor.backoff.failed()
            {
                tracing::warn!(
                    "mcp client: stopped reopening the session's stream after {MAX_FAILURES} fruitless attempts \
                     in a row (the last: {why})"
                );
                return;
            }
            tokio::time::sleep(cursor.backoff.delay()).await;
        }
    }

    /// Reads events into the inbox, until the answer to `id` went by or the stream ends.
    async fn read(&self, response: Response, cursor: &mut Cursor, id: Option<&RequestId>) -> Read {
        let mut parser = sse::Parser::new(self.limit);
        let mut chunks = response.bytes_stream();
        let mut progressed = false;
        while let Some(Ok(chunk)) = chunks.next().await {
            let events = match parser.feed(&chunk) {
                Ok(events) => events,
                Err(error) => return Read::Broken(error),
            };
            for event in events {
                if let Some(event_id) = event.id
                    && cursor.last_event_id.as_ref() != Some(&event_id)
                {
                    cursor.last_event_id = Some(event_id);
                    progressed = true;
                }
                if let Some(retry) = event.retry {
                    cursor.backoff.set_retry(retry);
                }
                if event.data.trim().is_empty() {
                    continue;
                }
                progressed = true;
                let answered = id.is_some_and(|id| answers(&event.data, id));
                let _ = self.inbox.send(Inbound::Message(event.data.into_bytes(), id.cloned()));
                if answered {
                    return Read::Answered;
                }
            }
        }
        Read::Ended { progressed }
    }

    fn fail(&self, id: Option<&RequestId>, error: ClientError) {
        if let Some(id) = id {
            let _ = self.inbox.send(Inbound::Failed { id: id.clone(), error });
        }
    }
}

/// How reading a stream ended.
enum Read {
    /// The answer awaited went by.
    Answered,
    /// The stream ended; `progressed` when it brought a message or a new event id.
    Ended { progressed: bool },
    /// A line or an event passed the maximum message size: the stream cannot be read on.
    Broken(ClientError),
}

/// Where a stream is: its last event id, and when to reopen it.
#[derive(Default)]
struct Cursor {
    last_event_id: Option<String>,
    backoff: Backoff,
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
