//! Middleware: a layer around every request a server answers, in the spirit of tower's
//! `Layer`/`Service` but on MCP's own terms.
//!
//! A [`Middleware`] sees each request once it is decoded (its method, target, arguments, the
//! session and the verified caller) and returns a [`Verdict`]: let it through, let it through
//! and watch how it ends, answer it here, or [`Rewrite`] it: change its params before it is
//! routed and its result after it is handled. Middlewares compose in the order they were added
//! ([`Server::middleware`](crate::Server::middleware)): the first sees a request first and its
//! watcher sees the response last, as layers of an onion; one that answers early stops the
//! request, and the layers outside it still see that answer.
//!
//! Shipped on it: `RateLimit` (feature `rate-limit`) and [`AuditLog`].
//!
//! | File | Owns |
//! |---|---|
//! | `mod.rs` | [`Middleware`], [`RequestInfo`], [`Verdict`], [`Response`]; the chain a built server runs |
//! | `rewrite.rs` | [`Rewrite`]: a request's new params, its result's rewriter |
//! | `audit.rs` | [`AuditLog`]: who called what, with which arguments, and how it ended |
//! | `rate_limit.rs` | `RateLimit`: requests per caller, with `governor` |
//!
//! Why a verdict and not a future around the rest: a request is routed, and a tool that does not
//! wait runs to its end, on the thread its message arrived on, with no task and no allocation;
//! a middleware that could suspend there would cost every request a task and break the order in
//! which one stdio connection's messages take effect. Work that waits belongs in the handler.

mod audit;
#[cfg(feature = "rate-limit")]
mod rate_limit;
mod rewrite;

pub use audit::{AuditLog, AuditOutcome, AuditRecord};
#[cfg(feature = "rate-limit")]
pub use rate_limit::{Quota, RateLimit};
pub use rewrite::Rewrite;
use rewrite::{ResultRewriter, apply_to_outcome, failed};

use crate::jsonrpc::{ErrorObject, RequestId};
use crate::message::Request;
use crate::protocol::ProtocolVersion;
use crate::session::Session;
use crate::session::outgoing::{Kind, Outgoing};
use crate::sync::lock;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A layer around every request: sees it before it is handled, may answer it early, and may
/// watch its response. Add one with [`Server::middleware`](crate::Server::middleware).
///
/// `on_request` runs where the request arrived, before any handler: keep it quick and never
/// block in it (see the module's documentation for why it does not return a future).
///
/// ```
/// use mcp_runtime::middleware::{Middleware, RequestInfo, Verdict};
/// use mcp_runtime::{ErrorObject, Server};
///
/// /// Refuses the tool `drop_tables` outside business hours, and logs how long calls take.
/// struct Guard;
///
/// impl Middleware for Guard {
///     fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
///         if request.method() == "tools/call" && request.target() == Some("drop_tables") {
///             return Verdict::error(ErrorObject::new(-32000, "not now"));
///         }
///         let method = request.method().to_owned();
///         Verdict::watch(move |response| {
///             tracing::info!(%method, took = ?response.duration(), failed = response.is_error(), "answered");
///         })
///     }
/// }
///
/// let server = Server::new("guarded", "1.0").middleware(Guard);
/// # let _ = server;
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// What to do with this request.
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict;

    /// What this middleware keeps in its process only, which replicas sharing a session store
    /// do not share (`RateLimit`'s counts), said in a sentence; `None` (the default) for none.
    /// A server built with a shared store logs it as a warning at start.
    fn per_process(&self) -> Option<&'static str> {
        None
    }
}

/// A watcher of one request's response.
type Watcher = Box<dyn FnOnce(&Response<'_>) + Send>;

/// What a [`Middleware`] decided about a request.
pub enum Verdict {
    /// Handle it.
    Continue,
    /// Handle it, and call this with its response (or [`Response::is_cancelled`] if it never
    /// gets one).
    Watch(Watcher),
    /// Answer it with this, without handling it: a result object, or a JSON-RPC error.
    Answer(Result<Value, ErrorObject>),
    /// Handle it changed: with other params, or with its result rewritten (see [`Rewrite`]).
    Rewrite(Rewrite),
}

impl Verdict {
    /// Handle the request and call `watcher` with its response.
    pub fn watch(watcher: impl FnOnce(&Response<'_>) + Send + 'static) -> Self {
        Self::Watch(Box::new(watcher))
    }

    /// Answer with a JSON-RPC error instead of handling the request.
    pub fn error(error: ErrorObject) -> Self {
        Self::Answer(Err(error))
    }
}

impl From<Rewrite> for Verdict {
    fn from(rewrite: Rewrite) -> Self {
        Self::Rewrite(rewrite)
    }
}

/// A request, as a [`Middleware`] sees it.
pub struct RequestInfo<'a> {
    request: &'a Request<'a>,
    session: &'a Session,
    stateless: bool,
}

impl<'a> RequestInfo<'a> {
    /// The JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        &self.request.id
    }

    /// The method, as sent (`tools/call`, `resources/read`, a vendor method...).
    pub fn method(&self) -> &str {
        &self.request.name
    }

    /// What the request acts on: the tool or prompt name, or the resource URI.
    pub fn target(&self) -> Option<&str> {
        self.request.target.as_deref()
    }

    /// The `params` object, raw (absent when the request sent none).
    pub fn params(&self) -> Option<&'a RawValue> {
        self.request.params
    }

    /// A tool's or prompt's `arguments`, raw.
    pub fn arguments(&self) -> Option<&'a RawValue> {
        self.request.arguments
    }

    /// The `params` object, parsed (empty when the request sent none): a starting point for
    /// [`Rewrite::params`].
    pub fn params_object(&self) -> serde_json::Map<String, Value> {
        self.request.params.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default()
    }

    /// A tool's or prompt's `arguments`, parsed: a starting point for [`Rewrite::arguments`].
    pub fn arguments_value(&self) -> Option<Value> {
        self.request.arguments.and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// The session's id on its transport (HTTP's `Mcp-Session-Id`); `None` over stdio and for
    /// stateless requests.
    pub fn session_id(&self) -> Option<&str> {
        if self.stateless { None } else { self.session.transport_id() }
    }

    /// The protocol version the request is served under (`None` before `initialize`).
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        if self.stateless { Some(ProtocolVersion::V2026_07_28) } else { self.session.protocol_version() }
    }

    /// The HTTP request this one arrived in (feature `http`; `None` on stdio and in memory): its
    /// headers, and what the layers in front of the service put into its extensions. Borrowed,
    /// so reading it costs nothing.
    #[cfg(feature = "http")]
    pub fn http_parts(&self) -> Option<&'a hyper::http::request::Parts> {
        self.request.http.map(|arrival| arrival.parts)
    }

    /// The HTTP client's address (feature `http`): the connection's, or a [`SocketAddr`](std::net::SocketAddr)
    /// a host application put into the request's extensions; `None` elsewhere.
    #[cfg(feature = "http")]
    pub fn peer_address(&self) -> Option<std::net::SocketAddr> {
        self.request.http.and_then(|arrival| arrival.peer())
    }

    /// The verified caller: who the request's bearer token says made it (HTTP with
    /// authorization; `None` elsewhere).
    #[cfg(feature = "auth")]
    pub fn caller(&self) -> Option<Arc<crate::auth::AuthInfo>> {
        crate::auth::current_caller()
    }

    /// Who made the request, for limits and logs: the verified caller's subject (`user:NAME`
    /// or `client:NAME`, then ` (ISSUER)` when the token names its issuer) when there is one,
    /// else the client's network address (`address:IP`, an IPv6 address by its /64 prefix),
    /// else `None` (stdio or in memory, where one process is the one client; or an HTTP service
    /// mounted without its peer's address). Never the session: a client can start as many as
    /// it likes.
    pub fn caller_key(&self) -> Option<String> {
        match self.caller_id() {
            #[cfg(feature = "auth")]
            CallerId::Verified(owner) => Some(owner.to_string()),
            CallerId::Remote(Some(address)) => Some(format!("address:{address}")),
            CallerId::Remote(None) => None,
        }
    }

    /// Who made the request, as a key for per-caller state (see [`caller_key`](Self::caller_key)).
    pub(crate) fn caller_id(&self) -> CallerId {
        #[cfg(feature = "auth")]
        if let Some(caller) = crate::auth::current_caller() {
            return CallerId::Verified(crate::auth::SessionOwner::of(&caller));
        }
        CallerId::Remote(self.request.peer)
    }
}

/// Who made a request: the verified caller (issuer and principal) when there is one, else
/// where the request came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CallerId {
    /// Whom the request's token was issued for, by whom (feature `auth`).
    #[cfg(feature = "auth")]
    Verified(crate::auth::SessionOwner),
    /// The client's host (`None`: the one local client, or an HTTP client whose address the
    /// transport does not know).
    Remote(Option<std::net::IpAddr>),
}

/// A request's response, as a watcher sees it.
pub struct Response<'a> {
    answer: Option<&'a Outgoing>,
    duration: Duration,
}

impl Response<'_> {
    /// How long the request took, from its arrival to its answer.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// The whole JSON-RPC response as sent (`None` for a request that got none).
    pub fn json(&self) -> Option<&str> {
        self.answer.and_then(|answer| std::str::from_utf8(&answer.bytes).ok())
    }

    /// The JSON-RPC error's code, if the answer is an error.
    pub fn error_code(&self) -> Option<i32> {
        match self.answer?.kind {
            Kind::Error(code) => Some(code),
            _ => None,
        }
    }

    /// Whether the answer is a JSON-RPC error.
    pub fn is_error(&self) -> bool {
        self.error_code().is_some()
    }

    /// Whether the answer is a tool's error result (`isError: true`).
    pub fn is_tool_error(&self) -> bool {
        self.answer.is_some_and(|answer| answer.kind == Kind::Result && answer.is_tool_error())
    }

    /// Whether the request ended without an answer: cancelled by the client, or its connection
    /// gone.
    pub fn is_cancelled(&self) -> bool {
        self.answer.is_none()
    }

    /// The result or the error, parsed (a JSON parse of the answer: call it only when needed).
    pub fn outcome(&self) -> Option<Result<Value, ErrorObject>> {
        #[derive(serde::Deserialize)]
        struct Answer {
            result: Option<Value>,
            error: Option<ErrorObject>,
        }
        let answer: Answer = serde_json::from_slice(&self.answer?.bytes).ok()?;
        match (answer.result, answer.error) {
            (_, Some(error)) => Some(Err(error)),
            (result, None) => Some(Ok(result.unwrap_or(Value::Null))),
        }
    }
}

/// The middlewares of a built server, in the order they were added.
#[derive(Clone, Default)]
pub(crate) struct Middlewares(Arc<[Arc<dyn Middleware>]>);

/// What the chain decided about a request.
pub(crate) enum Passage {
    /// Handle it; `Some` when someone watches its response or rewrites its result.
    Through(Option<Arc<Watch>>),
    /// Answer it with this; the watch has seen nothing yet.
    Answered(Result<Value, ErrorObject>, Option<Arc<Watch>>),
    /// A middleware changed its params: decode this request instead, then pass it on through
    /// the chain with the same [`Pass`].
    Rewritten(Vec<u8>),
}

/// A request's way through the chain: the middleware it is at, and what those before it want
/// done with its response. Costs nothing until a middleware watches or rewrites.
#[derive(Default)]
pub(crate) struct Pass {
    next: usize,
    started: Option<Instant>,
    watchers: Vec<Watcher>,
    rewriters: Vec<ResultRewriter>,
}

impl Pass {
    /// What the request's response goes through: `None` when nobody watches or rewrites.
    pub fn into_watch(self) -> Option<Arc<Watch>> {
        let Self { started, watchers, rewriters, .. } = self;
        (!watchers.is_empty() || !rewriters.is_empty()).then(|| {
            Arc::new(Watch {
                started: started.unwrap_or_else(Instant::now),
                watchers: Mutex::new(watchers),
                rewriters: Mutex::new(rewriters),
            })
        })
    }

    fn watched_by(&mut self, watcher: Watcher) {
        self.started.get_or_insert_with(Instant::now);
        self.watchers.push(watcher);
    }
}

impl Middlewares {
    pub fn new(middlewares: Vec<Arc<dyn Middleware>>) -> Self {
        Self(middlewares.into())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Runs the chain over a request, from where `pass` stands: to its end, to a middleware
    /// that answers, or to one that changes the params (the engine decodes the new request and
    /// calls this again with the same `pass`).
    pub fn pass(&self, request: &Request<'_>, session: &Session, stateless: bool, pass: &mut Pass) -> Passage {
        let info = RequestInfo { request, session, stateless };
        while let Some(middleware) = self.0.get(pass.next) {
            pass.next += 1;
            // A middleware that panics fails its request, not the connection.
            let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| middleware.on_request(&info)))
                .unwrap_or_else(|_| {
                    tracing::error!(method = %info.method(), "a middleware panicked");
                    Verdict::error(failed())
                });
            match verdict {
                Verdict::Continue => {}
                Verdict::Watch(watcher) => pass.watched_by(watcher),
                Verdict::Answer(early) => return Passage::Answered(early, std::mem::take(pass).into_watch()),
                Verdict::Rewrite(mut rewrite) => {
                    pass.rewriters.extend(rewrite.take_result());
                    if rewrite.changes_params() {
                        return Passage::Rewritten(rewrite.encode(request));
                    }
                }
            }
        }
        Passage::Through(std::mem::take(pass).into_watch())
    }
}

/// The watchers and result rewriters of one request. The first answer reaches the watchers;
/// a request dropped without one reaches them as cancelled. The rewriters see its result once.
pub(crate) struct Watch {
    started: Instant,
    watchers: Mutex<Vec<Watcher>>,
    rewriters: Mutex<Vec<ResultRewriter>>,
}

impl Watch {
    /// Whether a rewriter waits for the result (checked first, so a result nobody rewrites
    /// is never parsed).
    pub fn rewrites(&self) -> bool {
        !lock(&self.rewriters).is_empty()
    }

    /// `result` as the rewriters make it; later calls change nothing.
    pub fn rewrite(&self, result: Result<Value, ErrorObject>) -> Result<Value, ErrorObject> {
        rewrite::apply(std::mem::take(&mut *lock(&self.rewriters)), result)
    }

    /// [`rewrite`](Self::rewrite) for a handler's serialized outcome.
    pub fn rewrite_outcome(&self, outcome: crate::router::reply::Outcome) -> crate::router::reply::Outcome {
        match std::mem::take(&mut *lock(&self.rewriters)) {
            rewriters if rewriters.is_empty() => outcome,
            rewriters => apply_to_outcome(rewriters, outcome),
        }
    }

    /// Shows `answer` to the watchers, innermost first; later calls do nothing.
    pub fn finish(&self, answer: Option<&Outgoing>) {
        let watchers = std::mem::take(&mut *lock(&self.watchers));
        if watchers.is_empty() {
            return;
        }
        let response = Response { answer, duration: self.started.elapsed() };
        for watcher in watchers.into_iter().rev() {
            // A watcher that panics must not take the request's answer down with it.
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| watcher(&response))).is_err() {
                tracing::error!("a middleware's watcher panicked");
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.finish(None);
    }
}
