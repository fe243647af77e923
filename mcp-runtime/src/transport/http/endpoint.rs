//! The endpoint's methods: `POST` (a session's messages, or a new session's `initialize`),
//! `GET` (a session's stream, or the resumption of one), `DELETE` (the end of a session).

use super::body::{self, Answer};
use super::client::Client;
use super::headers::{Accepts, Failure, LAST_EVENT_ID, RequestHeaders, SESSION_ID, bad_request, header};
use super::policy::Route;
use super::replication::Replication;
use super::service::Inner;
use super::session::HttpSession;
use super::sessions::{self, Refused};
use super::{code, cors, security, sessionless, sse, stateless};
use crate::clip::clip;
use crate::engine::{Received, encode_rejected};
use crate::jsonrpc;
use crate::message::{self, Message};
use crate::session::outgoing::Kind;
use http_body_util::{BodyExt as _, Limited};
use hyper::body::{Body, Buf as _, Bytes};
use hyper::header::{ALLOW, CONNECTION, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, StatusCode};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use tokio::sync::mpsc;

impl Inner {
    /// Serves one request; `peer`: the client's address when [`serve`](super::McpHttpService::serve)
    /// accepted its connection.
    pub(super) fn handle<B>(
        self: Arc<Self>,
        request: Request<B>,
        peer: Option<SocketAddr>,
    ) -> impl Future<Output = Answer>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        // The request's parts live in this future, and every layer below borrows them: a
        // future holds what it is passed (an `async fn` its arguments too), so parts passed
        // on by value made each layer's future larger than the last (3 KB, copied whenever a
        // future moves; bench/NOTES.md).
        let (parts, body) = request.into_parts();
        async move {
            let config = &self.config;
            let headers = RequestHeaders::read(&parts.headers);
            let origin = match security::check(&config.hosts, &config.origins, &parts.uri, &headers) {
                Ok(origin) => origin,
                Err(refusal) => {
                    tracing::warn!(host = ?parts.headers.get(hyper::header::HOST), origin = ?parts.headers.get(hyper::header::ORIGIN), "{}", refusal.message);
                    return body::error(refusal.status, code::BAD_REQUEST, refusal.message);
                }
            };
            // Without an `Origin` (not a browser page), CORS costs this one test.
            let Some(origin) = origin else { return self.respond(&parts, &headers, body, peer).await };
            if cors::is_preflight(&parts.method, &parts.headers) && self.serves_path(parts.uri.path()) {
                return cors::preflight(origin, &parts.headers);
            }
            let mut answer = self.respond(&parts, &headers, body, peer).await;
            cors::expose(&mut answer, origin);
            answer
        }
    }

    /// Whether `path` is the endpoint's, or (feature `auth`) one the metadata is served at.
    fn serves_path(&self, path: &str) -> bool {
        #[cfg(feature = "auth")]
        if self.guard.as_ref().is_some_and(|guard| guard.is_metadata_path(path)) {
            return true;
        }
        #[cfg(feature = "oauth-proxy")]
        if self.config.routes.as_ref().is_some_and(|routes| routes.0.serves(path)) {
            return true;
        }
        path == self.config.path
    }

    /// Serves a request that passed the Host and Origin checks: the metadata (feature `auth`),
    /// else the endpoint, once the caller is authenticated.
    async fn respond<B>(&self, parts: &Parts, headers: &RequestHeaders<'_>, body: B, peer: Option<SocketAddr>) -> Answer
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let config = &self.config;
        #[cfg(feature = "auth")]
        if let Some(answer) = self.guard.as_ref().and_then(|guard| guard.metadata(&parts.method, parts.uri.path())) {
            return answer;
        }
        #[cfg(feature = "oauth-proxy")]
        if let Some(routes) = config.routes.as_ref().filter(|routes| routes.0.serves(parts.uri.path())) {
            return Box::pin(serve_routes(&*routes.0, parts, body)).await;
        }
        if parts.uri.path() != config.path {
            let message = format!("Not Found: the MCP endpoint is {}", config.path);
            return body::error(StatusCode::NOT_FOUND, code::BAD_REQUEST, message);
        }
        #[cfg(feature = "auth")]
        if let Some(guard) = &self.guard {
            return match guard.authenticate(parts).await {
                // The caller stays current while the engine handles the request.
                Ok(caller) => crate::auth::with_caller(caller, self.dispatch(parts, headers, body, peer)).await,
                Err(refusal) => refusal,
            };
        }
        self.dispatch(parts, headers, body, peer).await
    }

    /// Serves a request to the MCP endpoint by its method.
    async fn dispatch<B>(
        &self,
        parts: &Parts,
        headers: &RequestHeaders<'_>,
        body: B,
        peer: Option<SocketAddr>,
    ) -> Answer
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let stateless_client = headers.names_stateless_version();
        match &parts.method {
            &Method::POST => self.post(parts, headers, body, stateless_client, peer).await,
            &Method::GET | &Method::DELETE if stateless_client || self.config.stateless => {
                let message = if stateless_client {
                    "Method Not Allowed: 2026-07-28 clients only POST to the MCP endpoint"
                } else {
                    "Method Not Allowed: this server runs HTTP without sessions (stateless mode): only POST"
                };
                let mut answer = body::error(StatusCode::METHOD_NOT_ALLOWED, code::BAD_REQUEST, message);
                answer.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
                answer
            }
            // Rare, and larger than a `POST`'s future: boxed, so a `POST`'s is not as large.
            &Method::GET => Box::pin(self.get(headers)).await,
            &Method::DELETE => Box::pin(self.delete(headers)).await,
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
    /// does not exist (any more). With a shared store, a session this replica has not served
    /// yet is read from the store (503 while it is unreachable).
    async fn session(&self, headers: &RequestHeaders<'_>) -> Result<Arc<HttpSession>, Failure> {
        if headers.session_id.repeated {
            return Err(Failure::bad_request("Bad Request: more than one Mcp-Session-Id header"));
        }
        let Some(id) = headers.session_id.text() else {
            return Err(Failure::bad_request("Bad Request: missing session id (the Mcp-Session-Id header)"));
        };
        let session = match (self.sessions.get(id), &self.replication) {
            (Some(session), _) => session,
            (None, Some(replication)) => self.adopt(replication, id).await?,
            (None, None) => return Err(Failure::session_not_found()),
        };
        // A session gone from a shared store (ended elsewhere, or expired) is gone here too.
        if let Some(replication) = &self.replication
            && !replication.is_current(&session).await
        {
            self.sessions.remove(&session.id);
            return Err(Failure::session_not_found());
        }
        #[cfg(feature = "auth")]
        if let Some(owner) = session.owner.get()
            && crate::auth::current_caller().is_none_or(|caller| crate::auth::SessionOwner::of(&caller) != *owner)
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

    /// `stateless_client`: the headers name a 2026-07-28 version.
    async fn post<B>(
        &self,
        parts: &Parts,
        headers: &RequestHeaders<'_>,
        body: B,
        stateless_client: bool,
        peer: Option<SocketAddr>,
    ) -> Answer
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
        if let Err(failure) = headers.check_content_type() {
            return failure.answer();
        }
        let limit = self.core.settings.max_message_size;
        let too_large = || {
            let message = format!("Payload Too Large: messages are limited to {limit} bytes");
            body::error(StatusCode::PAYLOAD_TOO_LARGE, code::BAD_REQUEST, message)
        };
        let declared = headers.content_length.text().and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return too_large();
        }
        let read = tokio::time::timeout(self.config.body_timeout, read_body(Limited::new(body, limit)));
        let bytes = match read.await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => return too_large(),
            Ok(Err(err)) => return bad_request(format!("Bad Request: reading the body failed: {err}")),
            Err(_) => return self.body_timed_out(),
        };

        // Decoded once: every decision below, and the engine, read this one value.
        let mut message = match message::decode(&bytes) {
            Ok(message) => message,
            Err(rejected) => {
                // A session's request whose params do not fit is answered as the engine answers
                // one (200); a malformed message, and any error of a stateless client, is a 400.
                let fits_a_session = rejected.error.code == jsonrpc::code::INVALID_PARAMS && !stateless_client;
                let status = if fits_a_session { StatusCode::OK } else { StatusCode::BAD_REQUEST };
                return body::json(status, encode_rejected(&rejected).bytes);
            }
        };
        // Whom the engine's per-client work (rate limits, audit records) counts it against.
        if let Message::Request(request) = &mut message {
            request.peer = address_of(peer, &parts.extensions).map(super::client::host);
            // Borrowed, for middleware and the handlers that ask for it: free for the others.
            request.http = Some(crate::http_request::Arrival { parts, peer });
        }
        let is_request = match self.admit(headers, &message, stateless_client) {
            Route::Refused(refusal) => return refusal,
            // The other era's requests and a session's first run futures of their own, each as
            // large as the rest of this one: boxed, so a session's requests do not carry them.
            Route::Stateless => return Box::pin(stateless::post(&self.core, message, accepts)).await,
            Route::Sessionless => return Box::pin(sessionless::post(&self.core, headers, message, accepts)).await,
            Route::Initialize => {
                return Box::pin(self.initialize(message, accepts, client_of(peer, &parts.extensions))).await;
            }
            Route::Session { is_request } => is_request,
        };
        let session = match self.session(headers).await {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = headers.check_protocol_version() {
            return failure.answer();
        }

        if !is_request {
            if let Some(replication) = &self.replication
                && let Err(failure) = replication.forward(&session, &message, &bytes).await
            {
                return failure.answer();
            }
            // Notifications and the client's answers produce no message (a broken one only a
            // log line): 202 once handled, so the next message sees its effect.
            let (sink, _) = mpsc::channel(1);
            // Boxed like the routes above: a request, the common message, never awaits it.
            Box::pin(session.connection.receive(message, &sink)).await;
            if let Err(failure) = self.persist(&session).await {
                return failure.answer();
            }
            return body::empty(StatusCode::ACCEPTED);
        }
        // In a shared store, a request's stream names it, so that a replica resuming the
        // stream can answer for the replica running it, should that one die.
        let request = match &message {
            Message::Request(request) if self.replication.is_some() => Some(request.id.clone()),
            _ => None,
        };
        let (sink, mut messages) = session.request_sink();
        // An answer ready at once, with nothing queued before it, is the whole reply: JSON
        // when the client takes it (the server may choose), with no stream to set up. A
        // request that sent something first, or waits, gets a stream.
        let answer = match session.connection.receive_message(message, &sink) {
            Received::Answer(answer) if accepts.json && messages.is_empty() => {
                session.recycle_sink(sink, messages);
                if let Err(failure) = self.persist(&session).await {
                    return failure.answer();
                }
                return body::json(StatusCode::OK, answer.bytes);
            }
            Received::Answer(answer) => Some(answer),
            Received::Nothing | Received::Exit => None,
        };
        if answer.is_some()
            && let Err(failure) = self.persist(&session).await
        {
            return failure.answer();
        }
        if accepts.sse {
            let (reader, pump) = session.open_stream(&sink, messages, request);
            drop(sink);
            pump.start(answer);
            return body::event_stream(reader);
        }
        // JSON: what the request sends before its response (progress, logs, requests to the
        // client) has no stream of its own, so it goes on the GET stream.
        drop(sink);
        if let Some(answer) = answer {
            messages.close();
            while let Ok(message) = messages.try_recv() {
                session.send_unsolicited(&message.bytes).await;
            }
            return body::json(StatusCode::OK, answer.bytes);
        }
        while let Some(message) = messages.recv().await {
            if message.is_response() {
                return body::json(StatusCode::OK, message.bytes);
            }
            session.send_unsolicited(&message.bytes).await;
        }
        body::empty(StatusCode::ACCEPTED) // cancelled by the client: no answer
    }

    /// 408 for a body still incomplete after the body timeout, closing the connection: what
    /// is left of the body would otherwise be read as the next request.
    fn body_timed_out(&self) -> Answer {
        let timeout = self.config.body_timeout;
        tracing::debug!("a request body took longer than {timeout:?}; closing its connection");
        let message = format!("Request Timeout: the body must arrive within {timeout:?}");
        let mut answer = body::error(StatusCode::REQUEST_TIMEOUT, code::BAD_REQUEST, message);
        answer.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
        answer
    }

    /// `initialize` without a session id: a new session, kept if the handshake succeeds.
    async fn initialize(&self, message: Message<'_>, accepts: Accepts, client: Client) -> Answer {
        match self.sessions.admits(&client) {
            Ok(()) => {}
            Err(refused) => return session_refused(refused),
        }
        let id = match sessions::new_session_id() {
            Ok(id) => id,
            Err(err) => {
                tracing::error!("no randomness for a session id: {err}");
                let message = "Internal error: cannot create a session id";
                return body::error(StatusCode::INTERNAL_SERVER_ERROR, jsonrpc::code::INTERNAL_ERROR, message);
            }
        };
        let session = self.new_session(id, &client);
        let (sink, mut messages) = session.request_sink();
        session.connection.receive(message, &sink).await;
        drop(sink);
        let mut response = None;
        while let Some(message) = messages.recv().await {
            if message.is_response() {
                response = Some(message);
                break;
            }
        }
        let Some(response) = response else {
            let message = "Internal error: initialize was not answered";
            return body::error(StatusCode::INTERNAL_SERVER_ERROR, jsonrpc::code::INTERNAL_ERROR, message);
        };
        let succeeded = response.kind == Kind::Result;
        let mut answer = if accepts.json {
            body::json(StatusCode::OK, response.bytes)
        } else {
            body::event_frames(sse::unnumbered_event(&response.bytes))
        };
        if succeeded {
            #[cfg(feature = "auth")]
            if let Some(caller) = crate::auth::current_caller() {
                let _ = session.owner.set(crate::auth::SessionOwner::of(&caller));
            }
            let header = HeaderValue::from_str(&session.id);
            if let Err(refused) = self.sessions.insert(Arc::clone(&session), client) {
                return session_refused(refused);
            }
            // Saved before the client learns the id: its next request may reach any replica.
            if let Some(replication) = &self.replication {
                let refusal = match replication.admit(&session, self.config.sessions_per_client()).await {
                    Ok(true) => None,
                    Ok(false) => Some(session_refused(Refused::ClientShare)),
                    Err(failure) => Some(failure.answer()),
                };
                if let Some(refusal) = refusal {
                    self.sessions.remove(&session.id);
                    return refusal;
                }
            }
            if let Ok(value) = header {
                answer.headers_mut().insert(SESSION_ID, value);
            }
            tracing::debug!(session = %session.id, "session started");
        }
        answer
    }

    /// `GET`: the session's stream, or the resumption of the stream named by `Last-Event-ID`.
    async fn get(&self, headers: &RequestHeaders<'_>) -> Answer {
        if !Accepts::of(headers).sse {
            let message = "Not Acceptable: GET opens an SSE stream; the client must accept text/event-stream";
            return body::error(StatusCode::NOT_ACCEPTABLE, code::BAD_REQUEST, message);
        }
        let session = match self.session(headers).await {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = headers.check_protocol_version() {
            return failure.answer();
        }
        let last_event = match header(headers.all, LAST_EVENT_ID) {
            None => None,
            Some(id) => match sse::parse_event_id(id) {
                Some(event) => Some(event),
                None => return bad_request(format!("Bad Request: malformed Last-Event-ID `{}`", clip(id))),
            },
        };
        match session.listen(last_event).await {
            Ok(Some(reader)) => body::event_stream(reader),
            Ok(None) => bad_request("Bad Request: the stream of this Last-Event-ID is no longer available"),
            Err(failure) => failure.answer(),
        }
    }

    /// `DELETE`: ends the session.
    async fn delete(&self, headers: &RequestHeaders<'_>) -> Answer {
        let session = match self.session(headers).await {
            Ok(session) => session,
            Err(failure) => return failure.answer(),
        };
        if let Err(failure) = headers.check_protocol_version() {
            return failure.answer();
        }
        if let Some(replication) = &self.replication
            && let Err(failure) = replication.end(&session).await
        {
            return failure.answer();
        }
        if self.sessions.remove(&session.id) {
            tracing::debug!(session = %session.id, "session ended by the client");
            body::empty(StatusCode::NO_CONTENT)
        } else {
            Failure::session_not_found().answer()
        }
    }
}

impl Inner {
    /// A new session of `client`: in this process, or in the shared store.
    fn new_session(&self, id: String, client: &Client) -> Arc<HttpSession> {
        match &self.replication {
            Some(replication) => replication.create(id, Arc::clone(&self.core), client.store_key()),
            None => HttpSession::new(id, Arc::clone(&self.core), self.settings.clone()),
        }
    }

    /// A session another replica started, read from the shared store into this replica's
    /// table: 404 when the store has none.
    async fn adopt(&self, replication: &Replication, id: &str) -> Result<Arc<HttpSession>, Failure> {
        let Some(session) = replication.adopt(id, &self.core).await? else {
            return Err(Failure::session_not_found());
        };
        match self.sessions.adopt(session) {
            Ok(session) => {
                tracing::debug!(session = %session.id, "serving a session started on another replica");
                Ok(session)
            }
            Err(refused) => Err(Failure {
                status: StatusCode::SERVICE_UNAVAILABLE,
                code: code::BAD_REQUEST,
                message: format!("Service Unavailable: this replica cannot take the session now ({refused:?})"),
            }),
        }
    }

    /// Saves what a message changed of a session in the shared store, if the server has one.
    async fn persist(&self, session: &HttpSession) -> Result<(), Failure> {
        match &self.replication {
            Some(replication) => replication.persist(session).await,
            None => Ok(()),
        }
    }
}

/// The whole body, as `collect()` reads it but without its list of frames: a request's body
/// usually comes in one frame, whose bytes are then kept as they are (no allocation, no copy).
async fn read_body<B: Body>(body: B) -> Result<Bytes, B::Error> {
    let mut body = std::pin::pin!(body);
    let mut first = None;
    let mut joined = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame?.into_data() else { continue }; // trailers: nothing to read
        let data = data.copy_to_bytes(data.remaining());
        match &first {
            None => first = Some(data),
            Some(first) => {
                if joined.is_empty() {
                    joined.extend_from_slice(first);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Ok(if joined.is_empty() { first.unwrap_or_default() } else { Bytes::from(joined) })
}

/// The answer to an `initialize` the session table refused.
fn session_refused(refused: Refused) -> Answer {
    let (status, message) = match refused {
        Refused::Full => (StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: too many sessions; try again later"),
        Refused::ClientShare => {
            (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests: this client holds too many sessions; end some first")
        }
        Refused::ShuttingDown => (StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: the server is shutting down"),
    };
    body::error(status, code::BAD_REQUEST, message)
}

/// Whom a new session counts against: the caller's token (feature `auth`), else the peer's
/// address: the connection's, or one a host application put in the request's extensions
/// (passed along rather than inserted there by `serve`, which cost three allocations a
/// request).
fn client_of(peer: Option<SocketAddr>, extensions: &hyper::http::Extensions) -> Client {
    #[cfg(feature = "auth")]
    if let Some(caller) = crate::auth::current_caller() {
        return Client::User(crate::auth::SessionOwner::of(&caller));
    }
    Client::at(address_of(peer, extensions))
}

/// The client's address: the connection's, or one a host application put in the request's
/// extensions.
fn address_of(peer: Option<SocketAddr>, extensions: &hyper::http::Extensions) -> Option<IpAddr> {
    peer.or_else(|| extensions.get::<SocketAddr>().copied()).map(|peer| peer.ip())
}

/// A request for one of the pages served beside the endpoint (feature `oauth-proxy`): its body
/// read (within `routes::MAX_BODY`), then answered by `routes`.
#[cfg(feature = "oauth-proxy")]
async fn serve_routes<B>(routes: &dyn super::routes::Routes, parts: &Parts, body: B) -> Answer
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    use http_body_util::BodyExt as _;
    let limit = super::routes::MAX_BODY;
    let bytes = match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            let message = format!("the body is over {limit} bytes, or was cut short");
            return body::error(StatusCode::PAYLOAD_TOO_LARGE, code::BAD_REQUEST, message);
        }
    };
    let mut request = Request::new(bytes);
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.headers_mut() = parts.headers.clone();
    body::bytes(routes.answer(request).await)
}
