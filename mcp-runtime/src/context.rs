//! The per-request context a tool can ask for: request id, cancellation, progress and logging.

use crate::jsonrpc::RequestId;
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion, RequestMeta};
use crate::server_requests::input_round::InputRound;
use crate::session::outgoing::{self, Outgoing, Sink};
use crate::session::{Cancel, Session};
use crate::sync::lock;
use crate::tool::CallToolResult;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

scoped_tls::scoped_thread_local! {
    /// The context of the request whose handler this thread is polling, for the `tracing`
    /// bridge. Set only for the span of a poll (or of a blocking tool's run): borrowing the
    /// context there costs nothing, where a task-local took a clone per poll.
    pub(crate) static CURRENT: Context
}

/// What a handler knows about the request it serves. Add a `ctx: Context` parameter to a tool
/// to get it; it never appears in the tool's input schema.
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

struct Inner {
    request_id: RequestId,
    meta: Option<Map<String, Value>>,
    cancellation: Cancellation,
    session: Arc<Session>,
    /// Where this request's progress, logs and requests to the client go, when not to the
    /// session's own sink (stdio's one stream): a clone costs atomic updates on every call.
    sink: Option<Sink>,
    /// For a stateless (2026-07-28) request: its client view and input round.
    stateless: Option<Arc<Stateless>>,
    /// For a call that is (or may become) a task: what its runner shares with it.
    task: Option<Arc<TaskLink>>,
    /// The request's span and duration metric (`telemetry.rs`).
    trace: crate::telemetry::Trace,
    /// The verified caller (HTTP with authorization).
    #[cfg(feature = "auth")]
    auth: Option<Arc<crate::auth::AuthInfo>>,
    /// The HTTP request, for a handler that asked for it.
    #[cfg(feature = "http")]
    http: crate::message::HttpCapture,
}

/// What a task's handler shares with the task's runner: the task's id, the progress it reports
/// (the task's status message), and, in 2025-11-25, how many requests to the client wait for an
/// answer (the task is `input_required` meanwhile; they carry the id in their related-task
/// `_meta`). A 2026-07-28 call that may become a task has one from its start.
pub(crate) struct TaskLink {
    pub id: String,
    pub waiting: std::sync::atomic::AtomicUsize,
    /// The latest progress the handler reported, the task's status message while it works.
    pub progress: std::sync::Mutex<Option<String>>,
    /// The call is a task (a 2026-07-28 call becomes one at its first wait): until then its
    /// progress goes out as notifications, as any call's.
    pub started: AtomicBool,
}

impl TaskLink {
    pub fn new(id: String) -> Self {
        Self { id, waiting: Default::default(), progress: Default::default(), started: AtomicBool::new(false) }
    }
}

/// Whether the client cancelled the request. The token those who wait need is made on first
/// use: most requests finish without anyone asking, and a token costs an allocation and a
/// lock per clone.
#[derive(Default)]
struct Cancellation {
    cancelled: AtomicBool,
    token: OnceLock<CancellationToken>,
}

impl Cancellation {
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst); // pairs with `token`'s: one of the two sees the other's write
        if let Some(token) = self.token.get() {
            token.cancel();
        }
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    fn token(&self) -> &CancellationToken {
        let token = self.token.get_or_init(CancellationToken::new);
        fence(Ordering::SeqCst);
        if self.is_cancelled() {
            token.cancel();
        }
        token
    }
}

/// What a stateless request carries instead of a session: the client's view from `_meta`, and
/// the answers to requests to the client gathered over the rounds.
pub(crate) struct Stateless {
    pub meta: RequestMeta,
    pub round: InputRound,
}

impl Context {
    pub(crate) fn new(
        request_id: RequestId,
        meta: Option<Map<String, Value>>,
        session: Arc<Session>,
        sink: &Sink,
        stateless: Option<Arc<Stateless>>,
        http: crate::message::HttpCapture,
    ) -> Self {
        let sink = (!sink.same_channel(&session.unsolicited)).then(|| sink.clone());
        #[cfg(not(feature = "http"))]
        let crate::message::HttpCapture = http; // nothing to keep off HTTP
        Self {
            inner: Arc::new(Inner {
                request_id,
                meta,
                cancellation: Cancellation::default(),
                session,
                sink,
                stateless,
                task: None,
                trace: crate::telemetry::Trace::none(),
                // Created while the transport handles the request: its caller is current.
                #[cfg(feature = "auth")]
                auth: crate::auth::current_caller(),
                #[cfg(feature = "http")]
                http,
            }),
        }
    }

    /// The verified caller of this request: `None` unless the server authorizes HTTP requests
    /// (feature `auth`). Handlers usually take an [`AuthInfo`](crate::auth::AuthInfo)
    /// parameter instead.
    #[cfg(feature = "auth")]
    pub fn auth(&self) -> Option<&crate::auth::AuthInfo> {
        self.inner.auth.as_deref()
    }

    /// The HTTP request, when this handler takes an [`HttpRequest`](crate::http::HttpRequest)
    /// and the call came over HTTP.
    #[cfg(feature = "http")]
    pub(crate) fn http_request(&self) -> Option<&crate::http_request::HttpRequest> {
        self.inner.http.as_ref()
    }

    /// This context, running the 2025-11-25 task `link` (set right after [`Context::new`]).
    pub(crate) fn for_task(mut self, link: Arc<TaskLink>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.task = Some(link);
        }
        self
    }

    /// This context, traced by `trace` (set right after [`Context::new`]).
    pub(crate) fn with_trace(mut self, trace: crate::telemetry::Trace) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.trace = trace;
        }
        self
    }

    /// The request's span, current while its handler runs.
    pub(crate) fn trace_span(&self) -> &tracing::Span {
        self.inner.trace.span()
    }

    /// The handler's outcome as the request's middlewares rewrite it.
    pub(crate) fn rewrite_result(&self, outcome: crate::router::reply::Outcome) -> crate::router::reply::Outcome {
        self.inner.trace.rewrite(outcome)
    }

    /// Ends the request's trace with its answer.
    pub(crate) fn finish_trace(&self, answer: &crate::session::outgoing::Outgoing) {
        self.inner.trace.finish(answer);
    }

    pub(crate) fn task(&self) -> Option<&TaskLink> {
        self.inner.task.as_deref()
    }

    pub(crate) fn stateless(&self) -> Option<&Stateless> {
        self.inner.stateless.as_deref()
    }

    pub(crate) fn is_stateless(&self) -> bool {
        self.inner.stateless.is_some()
    }

    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.inner.session
    }

    pub(crate) fn sink(&self) -> &Sink {
        self.inner.answer_sink()
    }

    /// The id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The request's `_meta` object, if it had one.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.inner.meta.as_ref()
    }

    /// The progress token the client attached, if any. Only a string or an integer is one
    /// (`ProgressToken` in the schema): any other value (`null`, `1.5`, an object) asks for no
    /// progress, since a notification echoing it would not be valid.
    pub fn progress_token(&self) -> Option<&Value> {
        self.meta()?.get("progressToken").filter(|token| token.is_string() || token.is_i64() || token.is_u64())
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Resolves when the client cancels this request. The handler's future is dropped on
    /// cancellation anyway; this is for work the handler spawned elsewhere.
    pub async fn cancelled(&self) {
        self.inner.cancellation.token().cancelled().await
    }

    /// A token cancelled with this request, to hand to spawned tasks.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancellation.token().clone()
    }

    /// The request as the session's table of requests in flight holds it: cancelling it
    /// marks this context cancelled.
    pub(crate) fn in_flight(&self) -> Arc<dyn Cancel> {
        Arc::clone(&self.inner) as Arc<dyn Cancel>
    }

    /// The client's name and version, as it introduced itself.
    pub fn client_info(&self) -> Option<&Implementation> {
        match self.stateless() {
            Some(stateless) => stateless.meta.client_info.as_ref(),
            None => self.inner.session.client().and_then(|c| c.info.as_ref()),
        }
    }

    /// The capabilities the client declared (for this request, in the 2026-07-28 era).
    pub fn client_capabilities(&self) -> Option<&Map<String, Value>> {
        match self.stateless() {
            Some(stateless) => Some(&stateless.meta.capabilities),
            None => self.inner.session.client().map(|c| &c.capabilities),
        }
    }

    /// The protocol version this request is served under.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match self.stateless() {
            Some(_) => Some(ProtocolVersion::V2026_07_28),
            None => self.inner.session.client().map(|c| c.version),
        }
    }

    /// Reports progress (`notifications/progress`). A no-op when the client did not ask for
    /// progress (no `progressToken`).
    pub async fn progress(&self, done: f64, total: impl Into<Option<f64>>) {
        self.report_progress(done, total.into(), None).await
    }

    /// Reports progress with a human-readable message.
    pub async fn progress_with_message(&self, done: f64, total: impl Into<Option<f64>>, message: impl Into<String>) {
        self.report_progress(done, total.into(), Some(message.into())).await
    }

    async fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        // In a task, progress is the task's status message (tasks send no progress notifications).
        if let Some(task) = self.task().filter(|task| task.started.load(Ordering::Acquire)) {
            let status = match (&message, total) {
                (Some(message), _) => message.clone(),
                (None, Some(total)) => format!("{progress} of {total}"),
                (None, None) => format!("{progress}"),
            };
            *lock(&task.progress) = Some(status);
            return;
        }
        let Some(progress_token) = self.progress_token() else { return };
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a Value,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<String>,
        }
        let params = Params { progress_token, progress, total, message };
        self.inner.session.notify(self.sink(), "notifications/progress", &params).await;
    }

    /// Streamable HTTP: closes the connection carrying this request's SSE stream now, without
    /// ending the stream (SSE polling). The client reconnects with `GET` and `Last-Event-ID`
    /// and receives what the request sends afterwards, its result included. Use it for long
    /// calls behind proxies that cut idle connections. A no-op on stdio, in tests, and when the
    /// request is answered with plain JSON.
    pub fn close_sse_stream(&self) {
        self.inner.session.close_stream(self.sink());
    }

    /// Sends a log message to the client if its level lets `level` through.
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        if self.wants_log(level) {
            outgoing::send(self.sink(), Outgoing::message(log_message(level, None, data.into()))).await;
        }
    }

    /// Logs at `debug`.
    pub async fn debug(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Debug, message.into()).await
    }

    /// Logs at `info`.
    pub async fn info(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Info, message.into()).await
    }

    /// Logs at `warning`.
    pub async fn warning(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Warning, message.into()).await
    }

    /// Logs at `error`.
    pub async fn error(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Error, message.into()).await
    }

    /// Whether a log message at `level` goes to the client: the session's level in the
    /// 2025-11-25 era; in the 2026-07-28 era only when the request asked for a level.
    pub(crate) fn wants_log(&self, level: LoggingLevel) -> bool {
        match self.stateless() {
            Some(stateless) => stateless.meta.log_level.is_some_and(|wanted| level >= wanted),
            None => level >= self.inner.session.log_level(),
        }
    }

    /// The `tracing` bridge's path: it cannot wait, so a full outbound queue drops the line.
    pub(crate) fn send_log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        outgoing::try_send(self.sink(), log_message(level, logger, data));
    }
}

impl Cancel for Inner {
    fn cancel(&self) {
        self.cancellation.cancel();
    }

    fn answer_sink(&self) -> &Sink {
        self.sink.as_ref().unwrap_or(&self.session.unsolicited)
    }
}

fn log_message(level: LoggingLevel, logger: Option<&str>, data: Value) -> Vec<u8> {
    #[derive(Serialize)]
    struct Params<'a> {
        level: LoggingLevel,
        #[serde(skip_serializing_if = "Option::is_none")]
        logger: Option<&'a str>,
        data: Value,
    }
    crate::jsonrpc::encode_notification("notifications/message", &Params { level, logger, data })
}

/// Types the runtime provides to a handler instead of reading them from the arguments.
///
/// The macros inject a parameter because its type implements this trait, never because of its
/// name: the runtime's `Context`, `CancellationToken`, `State<T>`, `SessionState<T>`, `AuthInfo`
/// and `Option<AuthInfo>`, and your own types that implement it. Any other type is an argument
/// (a user type named `State` or `Context` included). `#[mcp(inject)]` is accepted, and not
/// needed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a handler",
    label = "not provided by the runtime",
    note = "injected parameters are runtime types such as `Context` and `CancellationToken`, or your own types that implement `mcp_runtime::FromContext`; remove `#[mcp(inject)]` to read this parameter from the arguments"
)]
pub trait FromContext: Sized {
    /// Extracts the value, or fails the call with an error result.
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult>;

    /// The server [`State<T>`](crate::State) this value is read from, if any: a server whose
    /// handlers need a state it was never given is refused when it is built, naming the
    /// handler and the type. `None` by default; `State<T>` returns `RequiredState::of::<T>()`,
    /// and so may your own types that read one.
    fn required_state() -> Option<crate::required_state::RequiredState> {
        None
    }
}

impl FromContext for Context {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(ctx.clone())
    }
}

impl FromContext for CancellationToken {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(ctx.cancellation_token())
    }
}

// Kept out of "other types implement `FromContext`" hints, which list the core injected types.
#[diagnostic::do_not_recommend]
#[cfg(feature = "auth")]
impl FromContext for crate::auth::AuthInfo {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        ctx.auth().cloned().ok_or_else(|| {
            CallToolResult::error(
                "this tool needs an authenticated caller, and the request carried no verified token \
                 (the server has no authorization configured, or runs over stdio)",
            )
        })
    }
}

#[diagnostic::do_not_recommend]
#[cfg(feature = "auth")]
impl FromContext for Option<crate::auth::AuthInfo> {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(ctx.auth().cloned())
    }
}

// Kept out of "other types implement `FromContext`" hints, which list the core injected types.
#[diagnostic::do_not_recommend]
#[cfg(feature = "http")]
impl FromContext for crate::http_request::HttpRequest {
    fn from_context(ctx: &Context) -> Result<Self, crate::tool::CallToolResult> {
        ctx.http_request().cloned().ok_or_else(|| {
            crate::tool::CallToolResult::error(
                "this tool needs the HTTP request, and the call did not come over HTTP (stdio, or in memory)",
            )
        })
    }

    /// Not a server state: the mark that makes the transport capture the request for this
    /// handler (see the module's documentation).
    fn required_state() -> Option<crate::required_state::RequiredState> {
        Some(crate::required_state::RequiredState::http_mark())
    }
}

#[diagnostic::do_not_recommend]
#[cfg(feature = "http")]
impl FromContext for Option<crate::http_request::HttpRequest> {
    fn from_context(ctx: &Context) -> Result<Self, crate::tool::CallToolResult> {
        Ok(ctx.http_request().cloned())
    }

    fn required_state() -> Option<crate::required_state::RequiredState> {
        <crate::http_request::HttpRequest as FromContext>::required_state()
    }
}

#[cfg(test)]
mod tests {
    use super::Cancellation;

    #[test]
    fn a_token_made_before_or_after_the_cancellation_is_cancelled() {
        let early = Cancellation::default();
        let token = early.token().clone();
        assert!(!token.is_cancelled() && !early.is_cancelled());
        early.cancel();
        assert!(token.is_cancelled() && early.is_cancelled());

        let late = Cancellation::default();
        late.cancel();
        assert!(late.is_cancelled());
        assert!(late.token().is_cancelled(), "a token first asked for after the cancellation");
    }
}
