//! The engine: the lifecycle of one session (handshake, concurrency, cancellation, panics,
//! server-to-client requests), independent of the transport that carries its bytes.
//!
//! A transport feeds each incoming message to [`Connection::receive`] with the [`Sink`] its
//! answer should go to, and writes out whatever arrives there; a transport that writes for
//! itself (stdio) uses [`Connection::receive_now`], which hands back the answers ready at once
//! instead of queuing them. A handler of user code is polled once where its request arrived;
//! one that waits (I/O, a timer, the client) continues on a task of its own, so it never holds
//! up the next message.

mod connection;
pub(crate) mod first_poll;
mod stateless;
mod tasks;

pub(crate) use connection::{Connection, Received, encode_rejected};
use connection::{encode_answer, in_scope, refused};

use crate::context::Context;
use crate::core::ServerCore;
use crate::jsonrpc::{ErrorObject, RequestId, code};
use crate::message::{self, Message, Request};
use crate::middleware::{self, Passage};
use crate::protocol::Method;
use crate::registry::Change;
use crate::router;
use crate::router::reply::{Outcome, Reply, parse_params, to_raw};
use crate::router::task::{Route, Run, Task};
use crate::session::Session;
use crate::session::outgoing::{self, Sink};
use crate::telemetry::Trace;
use first_poll::FirstPolls;
use serde::Deserialize;
use serde_json::value::RawValue;
use stateless::Step;
use std::future::Future as _;
use std::sync::{Arc, OnceLock};
use std::task::{Poll, Waker};
use std::time::Instant;

impl Connection {
    /// A new session; `unsolicited` receives messages that answer no request.
    pub fn new(server: Arc<ServerCore>, unsolicited: Sink) -> Self {
        let session = Arc::new(Session::new(Arc::clone(&server.settings), unsolicited));
        Self { core: server, session, announcer: Some(OnceLock::new()), stateless_only: false, serial: None }
    }

    /// A session shared with other processes of the server (HTTP replicas sharing a store):
    /// its requests to the client are numbered from `first_request_id`, and it announces no
    /// list changes itself (the store writes them to its stream, wherever they happened).
    #[cfg(feature = "http")]
    pub fn shared(server: Arc<ServerCore>, unsolicited: Sink, first_request_id: i64) -> Self {
        let session = Arc::new(Session::new(Arc::clone(&server.settings), unsolicited));
        session.number_requests_from(first_request_id);
        Self { core: server, session, announcer: None, stateless_only: false, serial: None }
    }

    /// The session, for a transport that keeps some of it (HTTP: its replay buffers count
    /// against its budget; a shared store saves its record).
    #[cfg(feature = "http")]
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// A new session whose messages all arrive on one thread, in order (stdio); its handlers'
    /// first polls are marked in `first_polls`.
    pub fn serial(server: Arc<ServerCore>, unsolicited: Sink, first_polls: Arc<FirstPolls>) -> Self {
        let mut connection = Self::new(server, unsolicited);
        connection.serial = Some(first_polls);
        connection
    }

    /// A connection for stateless (2026-07-28) requests only, e.g. one HTTP POST: no session
    /// state, nothing unsolicited.
    #[cfg(feature = "http")]
    pub fn stateless(server: Arc<ServerCore>) -> Self {
        let (unsolicited, _) = tokio::sync::mpsc::channel(1);
        let session = Arc::new(Session::new(Arc::clone(&server.settings), unsolicited));
        Self { core: server, session, announcer: None, stateless_only: true, serial: None }
    }

    /// A connection for one 2025-era HTTP request of a server without sessions
    /// (`HttpConfig::stateless`): nothing unsolicited, and no request to the client (its
    /// answer would have no session to come back to). `initialize` (`version` `None`) is
    /// answered and forgotten; any other request is served as in a session the client opened
    /// at `version` (its `MCP-Protocol-Version` header) declaring nothing, as the peers' stateless
    /// modes do.
    #[cfg(feature = "http")]
    pub fn sessionless(server: Arc<ServerCore>, version: Option<crate::protocol::ProtocolVersion>) -> Self {
        let (unsolicited, _) = tokio::sync::mpsc::channel(1);
        let session = Arc::new(Session::new(Arc::clone(&server.settings), unsolicited));
        session.mark_sessionless();
        if let Some(version) = version {
            let client = crate::session::ClientState::new(&server.settings, version, None, Default::default());
            session.set_client(client);
            session.mark_initialized();
        }
        Self { core: server, session, announcer: None, stateless_only: false, serial: None }
    }

    /// Says which transport carries the session, for traces: its id there (HTTP's session id)
    /// and its kind (`pipe`, `tcp`).
    pub fn set_transport(&self, id: Option<String>, kind: &'static str) {
        self.session.set_transport(id, kind);
    }

    /// Lets the transport close a request's stream early when a handler asks
    /// ([`Context::close_sse_stream`]).
    #[cfg(feature = "http")]
    pub fn set_stream_closer(&self, closer: crate::session::StreamCloser) {
        self.session.set_stream_closer(closer);
    }

    /// Handles one decoded message, queuing every answer on `sink`: answers ready at once
    /// before this returns, the others from their handlers' tasks. (`exit` means nothing to a
    /// transport that serves many requests per connection.)
    pub async fn receive(&self, message: Message<'_>, sink: &Sink) {
        if let Received::Answer(answer) = self.receive_message(message, sink) {
            outgoing::send(sink, answer).await;
        }
    }

    /// [`receive`](Self::receive) for bytes not decoded yet.
    pub async fn receive_bytes(&self, bytes: &[u8], sink: &Sink) {
        match message::decode(bytes) {
            Ok(message) => self.receive(message, sink).await,
            Err(rejected) => outgoing::send(sink, encode_rejected(&rejected)).await,
        }
    }

    /// Decodes and handles one message without waiting: an answer ready at once is returned
    /// for the transport to write; handlers that wait continue on their own tasks and answer
    /// on `sink`.
    pub fn receive_now(&self, bytes: &[u8], sink: &Sink) -> Received {
        match message::decode(bytes) {
            Ok(message) => self.receive_message(message, sink),
            Err(rejected) => Received::Answer(encode_rejected(&rejected)),
        }
    }

    /// [`receive_now`](Self::receive_now) for a message decoded already (HTTP decodes each
    /// body once, for its own checks, and answers one ready at once without a stream).
    pub fn receive_message(&self, message: Message<'_>, sink: &Sink) -> Received {
        match message {
            Message::Request(request) => self.on_request(request, sink),
            Message::Notification { method, params } => self.on_notification(&method, params),
            Message::Response { id, outcome } => {
                let answer = outcome.map(|raw| serde_json::from_str(raw.get()).unwrap_or_default());
                if !self.session.resolve_client_request(&id, answer) {
                    tracing::debug!(%id, "ignoring a response to no request in flight");
                }
                Received::Nothing
            }
        }
    }

    /// A request, traced: its span is current while it is routed and first polled, and a
    /// handler that goes on takes the trace with it (`run_handler`), to end it with its answer.
    fn on_request(&self, request: Request<'_>, sink: &Sink) -> Received {
        let stateless = self.stateless_only || request.is_stateless();
        let trace = Trace::start(&request, &self.session, stateless);
        if self.core.middleware.is_empty() {
            return self.handle(request, sink, trace, None, stateless);
        }
        self.pass_middleware(request, sink, trace, middleware::Pass::default(), stateless)
    }

    /// Runs the middleware chain over a request from where `pass` stands, then handles it. A
    /// middleware that changes the params hands back the request encoded again: it is decoded
    /// here (keeping where it came from) and goes on through the rest of the chain, so all that
    /// borrows it is done with before this returns.
    fn pass_middleware(
        &self,
        request: Request<'_>,
        sink: &Sink,
        trace: Trace,
        mut pass: middleware::Pass,
        stateless: bool,
    ) -> Received {
        let passage =
            trace.span().in_scope(|| self.core.middleware.pass(&request, &self.session, stateless, &mut pass));
        match passage {
            Passage::Through(watch) => self.handle(request, sink, trace.watched_by(watch.clone()), watch, stateless),
            Passage::Answered(reply, watch) => self.answer_early(&request.id, reply, trace, watch, stateless),
            Passage::Rewritten(bytes) => match message::decode(&bytes) {
                Ok(Message::Request(mut rewritten)) => {
                    rewritten.peer = request.peer;
                    #[cfg(feature = "http")]
                    {
                        rewritten.http = request.http;
                    }
                    self.pass_middleware(rewritten, sink, trace, pass, stateless)
                }
                Ok(_) => unreachable!("a rewritten request is encoded as a request"),
                Err(rejected) => {
                    self.answer_early(&request.id, Err(rejected.error), trace, pass.into_watch(), stateless)
                }
            },
        }
    }

    /// The answer of a middleware (or of a rewrite the request cannot be read after), shown to
    /// the rewriters and watchers of the middlewares before it.
    fn answer_early(
        &self,
        id: &RequestId,
        reply: Result<serde_json::Value, ErrorObject>,
        trace: Trace,
        watch: Option<Arc<middleware::Watch>>,
        stateless: bool,
    ) -> Received {
        let reply = match &watch {
            Some(watch) => watch.rewrite(reply),
            None => reply,
        };
        let reply = reply.map(|result| Reply::Value(self.early_result(result, stateless)));
        let answer = encode_answer(id, reply);
        trace.watched_by(watch).finish(&answer);
        Received::Answer(answer)
    }

    /// Routes and handles a request the middlewares let through (`watch`: what watches its
    /// answer, also carried by `trace`).
    fn handle(
        &self,
        request: Request<'_>,
        sink: &Sink,
        trace: Trace,
        watch: Option<Arc<middleware::Watch>>,
        stateless: bool,
    ) -> Received {
        let span = trace.span().clone();
        let mut trace = Some(trace);
        let received = span.in_scope(|| {
            if stateless {
                self.on_stateless_request(request, sink, &mut trace)
            } else {
                self.on_session_request(request, sink, &mut trace)
            }
        });
        if let Received::Answer(answer) = &received {
            // The trace (and the watch it carries) finishes here, unless a handler took it; then
            // the watch kept here finishes, in case the answer came before the handler could
            // (a refusal, a panic while starting): a watch finishes once, whoever is first.
            match (&trace, &watch) {
                (Some(trace), _) => trace.finish(answer),
                (None, Some(watch)) => watch.finish(Some(answer)),
                (None, None) => {}
            }
        }
        received
    }

    /// A middleware's early result, shaped as its era wants: a stateless result says it is
    /// complete and names the server, as a handler's would.
    fn early_result(&self, result: serde_json::Value, stateless: bool) -> serde_json::Value {
        match result {
            serde_json::Value::Object(mut members) if stateless => {
                members.entry("resultType").or_insert_with(|| "complete".into());
                let meta = members.entry("_meta").or_insert_with(|| serde_json::Value::Object(Default::default()));
                if let serde_json::Value::Object(meta) = meta {
                    meta.entry(crate::protocol::meta_key::SERVER_INFO)
                        .or_insert_with(|| serde_json::json!(&self.core.settings.info));
                }
                serde_json::Value::Object(members)
            }
            result => result,
        }
    }

    fn on_session_request(&self, request: Request<'_>, sink: &Sink, trace: &mut Option<Trace>) -> Received {
        let session = &self.session;
        let not_initialized = || {
            ErrorObject::new(
                code::INVALID_REQUEST,
                "Invalid Request: the session is not initialized; send `initialize` first",
            )
        };
        let reply = match request.method.filter(|method| method.in_session()) {
            Some(Method::Initialize) => router::initialize(&self.core, session, request.params),
            Some(Method::Ping | Method::Shutdown) => Reply::empty(),
            None if !self.core.custom.has_requests() => Reply::method_not_found(&request.name),
            None => match self.core.custom.task(&request) {
                None => Reply::method_not_found(&request.name),
                Some(_) if session.client().is_none() => Err(not_initialized()),
                Some(task) => return self.run_handler(request.id, task, sink, None, trace.take()),
            },
            Some(_) if session.client().is_none() => Err(not_initialized()),
            Some(method @ (Method::TasksGet | Method::TasksCancel | Method::TasksResult)) => {
                let params = request.params.and_then(|raw| serde_json::from_str(raw.get()).ok());
                match tasks::route(Arc::clone(&self.core), method, params, tasks::Era::Session) {
                    Route::Reply(reply) => {
                        return Received::Answer(encode_answer(&request.id, rewritten(trace, reply)));
                    }
                    Route::Spawn(task) => return self.run_handler(request.id, task, sink, None, trace.take()),
                }
            }
            Some(Method::ToolsCall) if let Some(received) = self.session_tool_call(&request, sink, trace) => {
                return received;
            }
            Some(_) => {
                let registry = self.core.catalog.snapshot();
                match router::route(&registry, session, session.protocol_version(), None, &request) {
                    Route::Reply(reply) => {
                        return Received::Answer(encode_answer(&request.id, rewritten(trace, reply)));
                    }
                    Route::Spawn(task) => return self.run_handler(request.id, task, sink, None, trace.take()),
                }
            }
        };
        Received::Answer(encode_answer(&request.id, rewritten(trace, reply)))
    }

    /// Runs a handler of user code, cancellable by `notifications/cancelled`, with panics
    /// turned into answers. A stateless request (`call`) may stop early to ask the client for
    /// input.
    ///
    /// The first poll happens here, where the request arrived (stdio's connection thread, an
    /// HTTP request's task): most handlers (every sync tool) finish in it, and then cost no
    /// task, no channel hop and no wake-up. One still pending moves to its own task, so a tool
    /// awaiting I/O never holds up the next message.
    fn run_handler(
        &self,
        id: RequestId,
        task: Task,
        sink: &Sink,
        mut call: Option<stateless::StatelessCall>,
        trace: Option<Trace>,
    ) -> Received {
        let state = call.as_ref().map(stateless::StatelessCall::context_state);
        let mut ctx = Context::new(id.clone(), task.meta, Arc::clone(&self.session), sink, state, task.http)
            .with_trace(trace.unwrap_or_else(Trace::none));
        // A call that may become a task reports its progress to the task from the start.
        let task_link = call
            .as_ref()
            .filter(|call| call.runs_as_task())
            .map(|_| Arc::new(crate::context::TaskLink::new(crate::tasks::Tasks::new_id())));
        if let Some(link) = &task_link {
            ctx = ctx.for_task(Arc::clone(link));
        }
        // Registered before its first poll unless the connection is serial (see `serial`).
        let registered = self.serial.is_none();
        let admitted = if registered { self.session.begin(&id, &ctx.in_flight()) } else { self.session.admits(&id) };
        if let Err(refusal) = admitted {
            return refused(&id, refusal, self.core.settings.max_requests_in_flight);
        }
        // Made (which parses a tool's arguments, and runs a sync tool) and first polled in one
        // scope, with panics caught and the context set for the `tracing` bridge. No waker to
        // give: a handler left pending is polled again, with its task's waker, as soon as that
        // task starts, and a future registers the waker of its latest poll.
        let mut made = None;
        let handler_name = task.on_panic.handler_name();
        // Watched on a serial connection (stdio's watchdog); timed elsewhere, where a call
        // costs far more than reading the clock twice.
        let started = match &self.serial {
            Some(first_polls) => {
                first_polls.enter(handler_name);
                None
            }
            None => Some(Instant::now()),
        };
        let polled = in_scope(&ctx, || {
            let handler = made.insert(task.run.start(&ctx));
            std::pin::Pin::new(handler).poll(&mut std::task::Context::from_waker(Waker::noop()))
        });
        match (&self.serial, started) {
            (Some(first_polls), _) => first_polls.leave(),
            (None, Some(started)) if started.elapsed() >= first_poll::BLOCKING_THRESHOLD => {
                first_poll::report_blocking(handler_name)
            }
            (None, _) => {}
        }
        if let Poll::Ready(step) = settle(&ctx, polled) {
            let reply = step.into_reply(call.as_ref(), task.on_panic, &self.core.settings, &ctx);
            // Over HTTP a cancellation may come in on another request meanwhile; it wins.
            if registered && !self.session.finish(&id) {
                return Received::Nothing;
            }
            let answer = encode_answer(&id, reply.map(Reply::Serialized));
            ctx.finish_trace(&answer);
            return Received::Answer(answer);
        }
        // (On a serial connection only its own thread registers requests, and it checked that
        // this one would be admitted, so this cannot fail.)
        if !registered && let Err(refusal) = self.session.begin(&id, &ctx.in_flight()) {
            return refused(&id, refusal, self.core.settings.max_requests_in_flight);
        }
        let mut handler = made.expect("a handler left pending was made");
        if let Some(link) = task_link
            && let Some(call) = call.take()
        {
            let new = tasks::NewTask {
                id: link.id.clone(),
                ttl: self.core.tasks.ttl,
                access: crate::tasks::Access::of(&ctx, call.task_scopes()),
                held: call.arguments_len,
            };
            let flavor = tasks::Flavor::Extension(call, link);
            return self.start_task(id, new, ctx, handler, flavor, sink, task.on_panic);
        }
        let (session, settings, sink, on_panic) =
            (Arc::clone(&self.session), Arc::clone(&self.core.settings), sink.clone(), task.on_panic);
        tokio::spawn(async move {
            // Runs the handler until it finishes or, stateless, stops waiting on the client;
            // `None` once cancelled. A cancelled handler is never polled again.
            let mut cancelled = std::pin::pin!(ctx.cancelled());
            let step = std::future::poll_fn(|cx| {
                if ctx.is_cancelled() {
                    return Poll::Ready(None);
                }
                if let Poll::Ready(step) = advance(&ctx, &mut handler, cx) {
                    return Poll::Ready(Some(step));
                }
                cancelled.as_mut().poll(cx).map(|()| None)
            });
            let Some(step) = step.await else { return };
            // Ended before its answer leaves: a stateless handler waiting on input must not
            // outlive its round (what it holds, a mounted call, could meet the retry).
            drop(handler);
            let reply = step.into_reply(call.as_ref(), on_panic, &settings, &ctx);
            // Encode and wait for room while still in flight, then end the request and queue
            // its answer in one step: `drain` counts the request until its answer is queued,
            // so shutdown never stops the writer ahead of it (such an answer used to be lost
            // at stdin EOF now and then; see bench/NOTES.md).
            let answer = encode_answer(&id, reply.map(Reply::Serialized));
            ctx.finish_trace(&answer);
            match sink.reserve().await {
                Ok(permit) => {
                    session.finish_then(&id, || permit.send(answer));
                }
                Err(_) => {
                    session.finish(&id); // the transport is gone
                }
            }
        });
        Received::Nothing
    }

    /// The client finished the handshake: list changes are announced from now on.
    fn finish_handshake(&self) {
        let Some(announcer) = self.announcer.as_ref().filter(|announcer| announcer.get().is_none()) else {
            return self.session.mark_initialized();
        };
        // Subscribed first: a change between the two is announced, as the session is initialized
        // by the time the announcer, spawned after, reads it.
        let changes = self.core.catalog.subscribe();
        self.session.mark_initialized();
        announcer.get_or_init(|| tokio::spawn(announce_changes(Arc::clone(&self.session), changes)));
    }

    fn on_notification(&self, method: &str, params: Option<&RawValue>) -> Received {
        match method {
            "notifications/initialized" => self.finish_handshake(),
            "notifications/cancelled" => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                }
                match parse_params::<Cancelled>(params) {
                    Ok(cancelled) => self.session.cancel(&cancelled.request_id),
                    Err(err) => tracing::debug!("ignoring a malformed notifications/cancelled: {}", err.message),
                }
            }
            "notifications/roots/list_changed" => self.session.invalidate_roots(),
            "exit" => return Received::Exit,
            _ if self.core.custom.notify(method, params) => {}
            _ => tracing::debug!(method, "ignoring an unknown notification"),
        }
        Received::Nothing
    }

    /// Waits up to the server's grace period for requests in flight, then cancels the rest,
    /// each answered with an error saying the server is shutting down.
    pub async fn drain(&self) {
        let deadline = tokio::time::Instant::now() + self.core.settings.shutdown_grace;
        while self.session.in_flight_count() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        self.session.shut_down();
    }
}

/// A reply answered at once (a list, a read of what the server holds), as the request's
/// middlewares rewrite it: serialized for them only when one does.
fn rewritten<'a>(trace: &Option<Trace>, reply: Result<Reply<'a>, ErrorObject>) -> Result<Reply<'a>, ErrorObject> {
    match trace {
        Some(trace) if trace.rewrites() => trace.rewrite(reply.and_then(|reply| to_raw(&reply))).map(Reply::Serialized),
        _ => reply,
    }
}

/// Polls a handler once with its request's context set, a panic caught as its outcome.
/// Ready when it finished, or when a stateless handler waits on input from the client.
fn advance(ctx: &Context, handler: &mut Run, cx: &mut std::task::Context<'_>) -> Poll<Step> {
    if let Some(stateless) = ctx.stateless() {
        stateless.round.watch(cx.waker());
    }
    settle(ctx, in_scope(ctx, || std::pin::Pin::new(handler).poll(cx)))
}

/// What a poll of a handler means for its request.
fn settle(ctx: &Context, polled: std::thread::Result<Poll<Outcome>>) -> Poll<Step> {
    match polled {
        Ok(Poll::Ready(outcome)) => Poll::Ready(Step::Done(Ok(outcome))),
        Err(panic) => Poll::Ready(Step::Done(Err(panic))),
        Ok(Poll::Pending) => match ctx.stateless().and_then(|s| s.round.pending_requests()) {
            Some(requests) => Poll::Ready(Step::InputRequired(requests)),
            None => Poll::Pending,
        },
    }
}

/// Tells the client about changes to what the server offers; started once it is initialized
/// (`Connection::finish_handshake`).
async fn announce_changes(session: Arc<Session>, mut changes: tokio::sync::broadcast::Receiver<Change>) {
    loop {
        let change = match changes.recv().await {
            Ok(change) => change,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        if let Change::ResourceUpdated(uri) = &change
            && !session.is_subscribed(uri)
        {
            continue;
        }
        let (method, params) = change.notification();
        session.notify(&session.unsolicited, method, &params).await;
    }
}
