//! Streamable HTTP (protocol 2025-11-25): one endpoint; `POST` carries client messages,
//! `GET` opens the session's own SSE stream, `DELETE` ends the session.
//!
//! Each request a client `POST`s gets a stream of its own (SSE when the client accepts it):
//! its progress, logs and requests to the client, then its response, which ends the stream.
//! Messages tied to no request (`list_changed`...) go on the `GET` stream. Every stream is a
//! bounded log ([`sse`]), so a client that lost its connection resumes with `GET` and
//! `Last-Event-ID` and receives what it missed, from that stream only.
//!
//! | Module | Owns |
//! |---|---|
//! | `config.rs` | [`HttpConfig`] |
//! | `security.rs` | the Origin/Host allow-lists (DNS-rebinding protection) |
//! | `sessions.rs` | the session table: ids, the cap, the idle timeout |
//! | `session.rs` | one session: its engine connection and its streams |
//! | `sse.rs` | event encoding, event ids, the per-stream replay log |
//! | `body.rs` | [`McpBody`] and the shapes of the answers |
//! | `auth.rs` | bearer tokens, `401`/`403` challenges, protected-resource metadata (feature `auth`) |
//! | `tls.rs` | [`TlsConfig`] and HTTPS connections (feature `tls`) |

#[cfg(feature = "auth")]
mod auth;
mod body;
mod config;
mod security;
mod session;
mod sessions;
mod sse;
mod stateless;
#[cfg(feature = "tls")]
mod tls;

pub use body::McpBody;
pub use config::HttpConfig;
#[cfg(feature = "tls")]
pub use tls::TlsConfig;

use crate::error::{Error, ErrorKind, Result};
use crate::jsonrpc::{self, Incoming};
use crate::protocol::ProtocolVersion;
use crate::server::ServerCore;
use body::Answer;
use http_body_util::{BodyExt as _, Limited};
use hyper::body::Body;
use hyper::header::{ACCEPT, ALLOW, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use session::HttpSession;
use sessions::{Refused, Sessions};
use sse::{KeepAlive, StreamSettings};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";

/// JSON-RPC codes of the transport's own errors (as the reference servers use them).
mod code {
    pub const BAD_REQUEST: i32 = -32000;
    pub const SESSION_NOT_FOUND: i32 = -32001;
}

/// The MCP endpoint as a service, to serve with [`McpHttpService::serve`] or to mount in an
/// application of your own. Get one from
/// [`Server::into_http_service`](crate::Server::into_http_service). Clones share the sessions.
///
/// It implements both [`hyper::service::Service`] and [`tower_service::Service`] for
/// `Request<B>` with any body `B` (hyper's `Incoming`, axum's `Body`...), answering with an
/// [`McpBody`]. It checks the request path itself ([`HttpConfig::path`]), so mount it where
/// the full path reaches it: with axum, `Router::new().route_service("/mcp", service)` (not
/// `nest_service`, which strips the prefix). With hyper alone:
///
/// ```no_run
/// use hyper_util::rt::TokioIo;
/// use mcp_runtime::http::HttpConfig;
/// use mcp_runtime::prelude::*;
///
/// /// Add two numbers.
/// #[mcp_tool]
/// fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let service = server!().tools(tools![add]).into_http_service(HttpConfig::default())?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     let service = service.clone();
///     tokio::spawn(async move {
///         let _ = hyper::server::conn::http1::Builder::new()
///             .serve_connection(TokioIo::new(stream), service)
///             .await;
///     });
/// }
/// # }
/// ```
///
/// Serving it yourself, call [`shutdown`](Self::shutdown) when you stop, so requests in
/// flight can finish and open streams end.
#[derive(Clone)]
pub struct McpHttpService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").field("path", &self.inner.config.path).finish_non_exhaustive()
    }
}

struct Inner {
    core: Arc<ServerCore>,
    config: HttpConfig,
    settings: StreamSettings,
    sessions: Sessions,
    #[cfg(feature = "auth")]
    guard: Option<auth::Guard>,
}

impl McpHttpService {
    pub(crate) fn new(core: Arc<ServerCore>, config: HttpConfig) -> Self {
        let settings = StreamSettings {
            capacity: config.replay_buffer,
            retry: config.sse_retry,
            keep_alive: config.keep_alive.map(KeepAlive::new),
        };
        let sessions = Sessions::new(config.max_sessions, config.idle_timeout);
        #[cfg(feature = "auth")]
        let guard = config.auth.as_ref().map(|auth| auth::Guard::new(auth, &config.path));
        Self {
            inner: Arc::new(Inner {
                core,
                config,
                settings,
                sessions,
                #[cfg(feature = "auth")]
                guard,
            }),
        }
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }

    /// Serves connections from `listener` until `shutdown` resolves, then shuts down
    /// gracefully: no new connections or sessions, requests in flight get the server's
    /// [`shutdown_grace`](crate::Server::shutdown_grace) to finish, then every stream ends.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()>) -> Result<()> {
        self.run(
            listener,
            shutdown,
            #[cfg(feature = "tls")]
            None,
        )
        .await
    }

    /// [`serve`](Self::serve) over HTTPS: each connection starts with a TLS handshake
    /// (feature `tls`).
    #[cfg(feature = "tls")]
    pub async fn serve_tls(
        self,
        listener: TcpListener,
        tls: TlsConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<()> {
        self.run(listener, shutdown, Some(tls.acceptor())).await
    }

    async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
        #[cfg(feature = "tls")] tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Result<()> {
        #[cfg(feature = "tls")]
        let scheme = if tls.is_some() { "https" } else { "http" };
        #[cfg(not(feature = "tls"))]
        let scheme = "http";
        if let Ok(address) = listener.local_addr() {
            tracing::info!("serving MCP over HTTP at {scheme}://{address}{}", self.inner.config.path);
        }
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(hyper_util::rt::TokioTimer::new());
        let sweeper = tokio::spawn(sweep_idle_sessions(Arc::downgrade(&self.inner)));
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let stream = match accepted {
                        Ok((stream, _)) => stream,
                        Err(err) => {
                            // Out of file descriptors, or a connection reset before accept.
                            tracing::warn!("accepting a connection failed: {err}");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    // An SSE answer is several small writes (priming event, then the message);
                    // with Nagle's algorithm the second waits for the client's delayed ACK
                    // (40 ms on Linux), so every call took 40+ ms (bench/, issue 8).
                    let _ = stream.set_nodelay(true);
                    #[cfg(feature = "tls")]
                    if let Some(acceptor) = &tls {
                        // The handshake runs on the connection's task, not in the accept loop.
                        let (acceptor, watcher, http, service) =
                            (acceptor.clone(), graceful.watcher(), http.clone(), self.clone());
                        tokio::spawn(async move {
                            let Some(stream) = tls::handshake(&acceptor, stream).await else { return };
                            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                            if let Err(err) = watcher.watch(connection).await {
                                tracing::debug!("HTTPS connection ended: {err}");
                            }
                        });
                        continue;
                    }
                    let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), self.clone());
                    let connection = graceful.watch(connection);
                    tokio::spawn(async move {
                        if let Err(err) = connection.await {
                            tracing::debug!("HTTP connection ended: {err}");
                        }
                    });
                }
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        sweeper.abort();
        tracing::info!("shutting down: finishing requests in flight");
        let connections_closed = async {
            let limit = self.inner.core.shutdown_grace + Duration::from_secs(1);
            if tokio::time::timeout(limit, graceful.shutdown()).await.is_err() {
                tracing::debug!("some HTTP connections were still open after {limit:?}");
            }
        };
        tokio::join!(connections_closed, self.shutdown());
        Ok(())
    }

    /// Refuses new sessions, lets requests in flight run for the server's shutdown grace
    /// period, cancels the rest and ends every session and stream.
    pub async fn shutdown(&self) {
        let sessions = self.inner.sessions.close();
        futures_util::future::join_all(sessions.iter().map(|s| s.connection.drain())).await;
        for session in &sessions {
            session.end();
        }
    }
}

/// Ends idle sessions even when no request comes to do it.
async fn sweep_idle_sessions(inner: std::sync::Weak<Inner>) {
    let Some(interval) =
        inner.upgrade().map(|i| (i.config.idle_timeout / 10).clamp(Duration::from_millis(10), Duration::from_secs(60)))
    else {
        return;
    };
    every(interval, inner, |inner| inner.sessions.sweep()).await;
}

/// Runs `tick` on `target` every `interval` (the first time one interval from now), until
/// `target` is dropped.
async fn every<T>(interval: Duration, target: std::sync::Weak<T>, tick: impl Fn(&T)) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match target.upgrade() {
            Some(target) => tick(&target),
            None => return,
        }
    }
}

impl<B> hyper::service::Service<Request<B>> for McpHttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn call(&self, request: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(request).await) })
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        hyper::service::Service::call(self, request)
    }
}

/// What the client's `Accept` header lets the server answer with.
#[derive(Clone, Copy, Debug)]
struct Accepts {
    json: bool,
    sse: bool,
}

impl Accepts {
    /// No `Accept` header accepts anything.
    fn of(headers: &HeaderMap) -> Self {
        let mut accepts = Self { json: false, sse: false };
        let mut any_header = false;
        for value in headers.get_all(ACCEPT) {
            any_header = true;
            for item in value.to_str().unwrap_or_default().split(',') {
                let media = item.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
                match media.as_str() {
                    "*/*" => accepts = Self { json: true, sse: true },
                    "application/json" | "application/*" => accepts.json = true,
                    "text/event-stream" | "text/*" => accepts.sse = true,
                    _ => {}
                }
            }
        }
        if any_header { accepts } else { Self { json: true, sse: true } }
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json"))
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

fn bad_request(message: impl Into<String>) -> Answer {
    body::error(StatusCode::BAD_REQUEST, code::BAD_REQUEST, message)
}

/// An error answer, built once it is returned.
struct Failure {
    status: StatusCode,
    code: i32,
    message: String,
}

impl Failure {
    fn bad_request(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, code: code::BAD_REQUEST, message: message.into() }
    }

    fn answer(self) -> Answer {
        body::error(self.status, self.code, self.message)
    }
}

/// A present `MCP-Protocol-Version` must name a version this server speaks; an absent one
/// means 2025-03-26, which it does.
fn check_protocol_version(headers: &HeaderMap) -> Result<(), Failure> {
    match header(headers, PROTOCOL_VERSION) {
        None => Ok(()),
        Some(version) if ProtocolVersion::parse(version.trim()).is_some() => Ok(()),
        Some(version) => {
            let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
            Err(Failure::bad_request(format!(
                "Bad Request: unsupported MCP-Protocol-Version `{version}`; this server speaks {}",
                supported.join(", ")
            )))
        }
    }
}

impl Inner {
    async fn handle<B>(self: Arc<Self>, request: Request<B>) -> Answer
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        let config = &self.config;
        if let Err(refusal) = security::check(&config.hosts, &config.origins, &parts.uri, &parts.headers) {
            tracing::warn!(host = ?parts.headers.get(hyper::header::HOST), origin = ?parts.headers.get(hyper::header::ORIGIN), "{refusal}");
            return body::error(StatusCode::FORBIDDEN, code::BAD_REQUEST, refusal);
        }
        #[cfg(feature = "auth")]
        if let Some(answer) = self.guard.as_ref().and_then(|guard| guard.metadata(&parts.method, parts.uri.path())) {
            return answer;
        }
        if parts.uri.path() != config.path {
            let message = format!("Not Found: the MCP endpoint is {}", config.path);
            return body::error(StatusCode::NOT_FOUND, code::BAD_REQUEST, message);
        }
        #[cfg(feature = "auth")]
        if let Some(guard) = &self.guard {
            return match guard.authenticate(&parts).await {
                // The caller stays current while the engine handles the request.
                Ok(caller) => crate::auth::with_caller(caller, self.dispatch(parts, body)).await,
                Err(refusal) => refusal,
            };
        }
        self.dispatch(parts, body).await
    }

    /// Serves a request to the MCP endpoint by its method.
    async fn dispatch<B>(&self, parts: hyper::http::request::Parts, body: B) -> Answer
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let stateless_client = header(&parts.headers, PROTOCOL_VERSION)
            .is_some_and(|v| ProtocolVersion::STATELESS.iter().any(|s| s.as_str() == v.trim()));
        match parts.method {
            Method::POST => self.post(&parts.headers, body).await,
            Method::GET | Method::DELETE if stateless_client => {
                let message = "Method Not Allowed: 2026-07-28 clients only POST to the MCP endpoint";
                let mut answer = body::error(StatusCode::METHOD_NOT_ALLOWED, code::BAD_REQUEST, message);
                answer.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
                answer
            }
            Method::GET => self.get(&parts.headers),
            Method::DELETE => self.delete(&parts.headers),
            _ => {
                let message =
                    format!("Method Not Allowed: the MCP endpoint takes POST, GET and DELETE, not {}", parts.method);
                let mut answer = body::error(StatusCode::METHOD_NOT_ALLOWED, code::BAD_REQUEST, message);
                answer.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                answer
            }
        }
    }

    /// The session named by the `Mcp-Session-Id` header: 400 without one, 404 for one that
    /// does not exist (any more).
    fn session(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Failure> {
        let Some(id) = header(headers, SESSION_ID) else {
            return Err(Failure::bad_request("Bad Request: missing session id (the Mcp-Session-Id header)"));
        };
        let session = self.sessions.get(id.trim()).ok_or_else(|| Failure {
            status: StatusCode::NOT_FOUND,
            code: code::SESSION_NOT_FOUND,
            message: "Session not found".into(),
        })?;
        #[cfg(feature = "auth")]
        if let Some(owner) = session.owner.get()
            && crate::auth::current_caller().is_none_or(|caller| auth::owner_of(&caller) != *owner)
        {
            tracing::warn!(session = %session.id, "refused a request for a session started by another user");
            return Err(Failure {
                status: StatusCode::FORBIDDEN,
                code: code::BAD_REQUEST,
                message: "Forbidden: this session belongs to another user".into(),
            });
        }
        Ok(session)
    }

    async fn post<B>(&self, headers: &HeaderMap, body: B) -> Answer
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let accepts = Accepts::of(headers);
        if !accepts.json && !accepts.sse {
            let message = "Not Acceptable: the client must accept application/json or text/event-stream";
            return body::error(StatusCode::NOT_ACCEPTABLE, code::BAD_REQUEST, message);
        }
        if !is_json(headers) {
            let message = "Unsupported Media Type: the body must be one JSON-RPC message as application/json";
            return body::error(StatusCode::UNSUPPORTED_MEDIA_TYPE, code::BAD_REQUEST, message);
        }
        let limit = self.core.max_message_size;
        let too_large = || {
            let message = format!("Payload Too Large: messages are limited to {limit} bytes");
            body::error(StatusCode::PAYLOAD_TOO_LARGE, code::BAD_REQUEST, message)
        };
        let declared = header(headers, CONTENT_LENGTH.as_str()).and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return too_large();
        }
        let bytes = match Limited::new(body, limit).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(err) if err.is::<http_body_util::LengthLimitError>() => return too_large(),
            Err(err) => return bad_request(format!("Bad Request: reading the body failed: {err}")),
        };

        let decoded = match jsonrpc::decode(&bytes) {
            Ok(decoded) => decoded,
            Err(rejected) => {
                let status = StatusCode::BAD_REQUEST;
                return body::json(status, jsonrpc::encode_error(rejected.id.as_ref(), &rejected.error));
            }
        };
        #[cfg(feature = "auth")]
        if let (Some(guard), Some(caller)) = (&self.guard, crate::auth::current_caller())
            && let Some(refusal) = guard.check_call(&self.core, &caller, &bytes)
        {
            return refusal;
        }
        if let Some(body) = stateless::stateless_body(headers, &bytes, header(headers, SESSION_ID).is_some()) {
            return stateless::post(&self.core, headers, &bytes, body, accepts).await;
        }
        let is_request = match decoded {
            Incoming::Request { method, .. } if method == "initialize" && header(headers, SESSION_ID).is_none() => {
                return self.initialize(&bytes, accepts).await;
            }
            Incoming::Request { .. } => true,
            Incoming::Notification { .. } | Incoming::Response { .. } => false,
        };
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = check_protocol_version(headers) {
            return failure.answer();
        }

        if !is_request {
            // Notifications and the client's answers produce no message (a broken one only a
            // log line): 202 once handled, so the next message sees its effect.
            let (sink, _) = mpsc::channel(1);
            session.connection.receive(&bytes, &sink).await;
            return body::empty(StatusCode::ACCEPTED);
        }
        if accepts.sse {
            let (sink, reader, pump) = session.open_stream();
            session.connection.receive(&bytes, &sink).await;
            pump.start();
            return body::event_stream(reader);
        }
        // JSON only: wait for the response. What the request sends before it (progress, logs,
        // requests to the client) has no stream of its own, so it goes on the GET stream.
        let (sink, mut messages) = mpsc::channel(64);
        session.connection.receive(&bytes, &sink).await;
        drop(sink);
        while let Some(message) = messages.recv().await {
            if message.is_response {
                return body::json(StatusCode::OK, message.bytes);
            }
            session.send_unsolicited(&message.bytes).await;
        }
        body::empty(StatusCode::ACCEPTED) // cancelled by the client: no answer
    }

    /// `initialize` without a session id: a new session, kept if the handshake succeeds.
    async fn initialize(&self, bytes: &[u8], accepts: Accepts) -> Answer {
        match self.sessions.admits() {
            Ok(()) => {}
            Err(refused) => return unavailable(refused),
        }
        let id = match sessions::new_session_id() {
            Ok(id) => id,
            Err(err) => {
                tracing::error!("no randomness for a session id: {err}");
                let message = "Internal error: cannot create a session id";
                return body::error(StatusCode::INTERNAL_SERVER_ERROR, jsonrpc::code::INTERNAL_ERROR, message);
            }
        };
        let session = HttpSession::new(id, Arc::clone(&self.core), self.settings.clone());
        let (sink, mut messages) = mpsc::channel(64);
        session.connection.receive(bytes, &sink).await;
        drop(sink);
        let mut response = None;
        while let Some(message) = messages.recv().await {
            if message.is_response {
                response = Some(message.bytes);
                break;
            }
        }
        let Some(response) = response else {
            let message = "Internal error: initialize was not answered";
            return body::error(StatusCode::INTERNAL_SERVER_ERROR, jsonrpc::code::INTERNAL_ERROR, message);
        };
        #[derive(serde::Deserialize)]
        struct Outcome {
            result: Option<serde::de::IgnoredAny>,
        }
        let succeeded = serde_json::from_slice::<Outcome>(&response).is_ok_and(|o| o.result.is_some());
        let mut answer = if accepts.json {
            body::json(StatusCode::OK, response)
        } else {
            body::event_frames(sse::unnumbered_event(&response))
        };
        if succeeded {
            let header = HeaderValue::from_str(&session.id);
            if let Err(refused) = self.sessions.insert(Arc::clone(&session)) {
                return unavailable(refused);
            }
            if let Ok(value) = header {
                answer.headers_mut().insert(SESSION_ID, value);
            }
            #[cfg(feature = "auth")]
            if let Some(caller) = crate::auth::current_caller() {
                let _ = session.owner.set(auth::owner_of(&caller));
            }
            tracing::debug!(session = %session.id, "session started");
        }
        answer
    }

    /// `GET`: the session's stream, or the resumption of the stream named by `Last-Event-ID`.
    fn get(&self, headers: &HeaderMap) -> Answer {
        if !Accepts::of(headers).sse {
            let message = "Not Acceptable: GET opens an SSE stream; the client must accept text/event-stream";
            return body::error(StatusCode::NOT_ACCEPTABLE, code::BAD_REQUEST, message);
        }
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = check_protocol_version(headers) {
            return failure.answer();
        }
        let last_event = match header(headers, LAST_EVENT_ID) {
            None => None,
            Some(id) => match sse::parse_event_id(id) {
                Some(event) => Some(event),
                None => return bad_request(format!("Bad Request: malformed Last-Event-ID `{id}`")),
            },
        };
        match session.listen(last_event) {
            Some(reader) => body::event_stream(reader),
            None => bad_request("Bad Request: the stream of this Last-Event-ID is no longer available"),
        }
    }

    /// `DELETE`: ends the session.
    fn delete(&self, headers: &HeaderMap) -> Answer {
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = check_protocol_version(headers) {
            return failure.answer();
        }
        if self.sessions.remove(&session.id) {
            tracing::debug!(session = %session.id, "session ended by the client");
            body::empty(StatusCode::NO_CONTENT)
        } else {
            body::error(StatusCode::NOT_FOUND, code::SESSION_NOT_FOUND, "Session not found")
        }
    }
}

fn unavailable(refused: Refused) -> Answer {
    let message = match refused {
        Refused::Full => "Service Unavailable: too many sessions; try again later",
        Refused::ShuttingDown => "Service Unavailable: the server is shutting down",
    };
    body::error(StatusCode::SERVICE_UNAVAILABLE, code::BAD_REQUEST, message)
}

/// [`Server::serve_http`](crate::Server::serve_http) and friends: binds, serves, stops.
pub(crate) async fn serve(
    core: Arc<ServerCore>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    McpHttpService::new(core, HttpConfig::default()).serve(listener, shutdown).await
}

/// [`Server::serve_https`](crate::Server::serve_https) and friends.
#[cfg(feature = "tls")]
pub(crate) async fn serve_tls(
    core: Arc<ServerCore>,
    listener: TcpListener,
    tls: TlsConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    McpHttpService::new(core, HttpConfig::default()).serve_tls(listener, tls, shutdown).await
}

/// Binds `address`, naming it in the error.
pub(crate) async fn bind(address: impl tokio::net::ToSocketAddrs) -> Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|err| Error::new(ErrorKind::Bind, "cannot bind the HTTP address").with_source(err))
}
