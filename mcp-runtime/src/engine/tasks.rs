//! Tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28) in the engine: when a
//! call becomes a task, how the task runs, and `tasks/get`, `tasks/update`, `tasks/cancel`.
//!
//! A call of a tool with task support, from a client that declares the extension on the
//! request, becomes a task when its handler first waits for something other than the client
//! (I/O, a timer): a call that finishes at once is answered at once, and input the handler asks
//! for before that point is gathered with the multi round-trip flow, as the extension asks
//! ("resolve all MRTR exchanges synchronously before responding with a CreateTaskResult"). The
//! answer is then the task's handle, once its record is stored; the handler goes on as the
//! task's runner, on this process, which keeps the record current: `input_required` with the
//! requests the handler waits on (answered by `tasks/update`, where the handler stands), then
//! `completed` (a tool error included), `failed` (a JSON-RPC error, or a panic) or `cancelled`.

use super::connection::{Connection, Received, encode_answer, in_scope, panic_message, panicked, refused};
use super::stateless::StatelessCall;
use crate::context::{Context, TaskLink};
use crate::jsonrpc::{ErrorObject, RequestId, code};
use crate::message::Request;
use crate::protocol::Method;
use crate::router;
use crate::router::reply::to_raw;
use crate::router::reply::{Outcome, Reply};
use crate::router::task::{Handler, PanicAnswer, Route, Run, Task};
use crate::server_requests::input_round::missing_capability;
use crate::session::budget::OverBudget;
use crate::session::outgoing::Sink;
use crate::sync::lock;
use crate::tasks::{Access, EXTENSION, Signal, Status, StoredTask, TaskOwner, TaskRecord, TaskStore, Tasks};
use crate::tool::TaskSupport;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;

/// -32021 for a client that did not declare the extension on this request.
pub(super) fn extension_required() -> ErrorObject {
    missing_capability(&["extensions", EXTENSION])
}

/// Whether the request's client capabilities declare the extension.
pub(super) fn declares_extension(capabilities: &Map<String, Value>) -> bool {
    crate::server_requests::declared(Some(capabilities), &["extensions", EXTENSION])
}

/// The era a task was created in, and what that changes for its runner.
pub(super) enum Flavor {
    /// The tasks extension (2026-07-28): the call's stateless state, whose input round holds
    /// the requests the handler waits on.
    Extension(StatelessCall, Arc<TaskLink>),
    /// 2025-11-25: the handler's requests to the client go out on the session, counted here.
    Session(Arc<TaskLink>),
}

impl Flavor {
    /// The requests the handler waits on, if any.
    fn pending(&self, ctx: &Context) -> Option<Map<String, Value>> {
        match self {
            Self::Extension(..) => ctx.stateless().and_then(|s| s.round.pending_requests()),
            Self::Session(link) => (link.waiting.load(Ordering::Acquire) > 0).then(Map::new),
        }
    }

    /// The progress the handler last reported.
    fn progress(&self) -> Option<String> {
        let link = match self {
            Self::Extension(_, link) | Self::Session(link) => link,
        };
        lock(&link.progress).clone()
    }

    /// A finished handler's result for the record, or the error that fails the task.
    fn finish(&self, outcome: Outcome) -> Result<Value, ErrorObject> {
        match self {
            Self::Extension(call, _) => call.finish_task(outcome),
            Self::Session(_) => outcome.and_then(|raw| {
                serde_json::from_str(raw.get()).map_err(|e| ErrorObject::new(code::INTERNAL_ERROR, e.to_string()))
            }),
        }
    }

    /// The answer that creates the task.
    fn created(&self, task: &TaskRecord) -> Outcome {
        match self {
            Self::Extension(..) => {
                let mut handle = task.handle();
                handle["resultType"] = json!("task");
                to_raw(&handle)
            }
            Self::Session(_) => to_raw(&json!({ "task": session_wire(task) })),
        }
    }
}

/// A task as 2025-11-25 shows it (`Task`): `ttl` and `pollInterval`, and a tool's error result
/// counts as `failed` there.
pub(super) fn session_wire(task: &TaskRecord) -> Value {
    let tool_error = task.result.as_ref().is_some_and(|result| result["isError"] == json!(true));
    let status = if task.status == Status::Completed && tool_error { Status::Failed } else { task.status };
    let mut wire = json!({
        "taskId": task.task_id,
        "status": status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
        "pollInterval": task.poll_interval_ms,
    });
    if let Some(message) = &task.status_message {
        wire["statusMessage"] = json!(message);
    }
    wire
}

/// What the runner of a task sees happen.
enum Event {
    Finished(std::thread::Result<Outcome>),
    Signal(Option<Signal>),
    /// The requests the handler waits on changed.
    Requests(Option<Map<String, Value>>),
    /// The handler reported progress.
    Progress(Option<String>),
}

/// A call about to become a task: its id, how long its record is kept, whose it is, and the
/// bytes its handler holds while it runs (the call's arguments), charged with the record.
pub(super) struct NewTask {
    pub id: String,
    pub ttl: Option<std::time::Duration>,
    pub access: Access,
    pub held: usize,
}

impl Connection {
    /// Turns a call into task `new` (a call of 2026-07-28 whose handler waits, or a
    /// 2025-11-25 call that asked for a task): charges and stores its record, answers with its
    /// handle, and runs the handler to its end as the task. A record its owner's allowance
    /// cannot hold is refused: the call is answered with the error, and nothing runs.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_task(
        &self,
        id: RequestId,
        new: NewTask,
        ctx: Context,
        handler: Run,
        flavor: Flavor,
        sink: &Sink,
        on_panic: PanicAnswer,
    ) -> Received {
        let (session, core, sink) = (Arc::clone(&self.session), Arc::clone(&self.core), sink.clone());
        if let Some(link) = ctx.task() {
            link.started.store(true, Ordering::Release);
        }
        tokio::spawn(async move {
            let tasks = &core.tasks;
            let store = tasks.store();
            let NewTask { id: task_id, ttl, access, held } = new;
            let mut stored = StoredTask {
                task: TaskRecord::new(task_id.clone(), ttl, tasks.poll_interval),
                replica: store.tag(),
                access,
            };
            let expires = ttl.map(|ttl| std::time::Instant::now() + ttl);
            let account = stored.access.owner.account(&task_id);
            let signals = tasks.run_here(&task_id);
            // Durably created before the client learns the id: its first `tasks/get` may come at once.
            let created = match tasks.ledger.charge(&task_id, &account, stored.bytes() + held, expires) {
                Err(over) => Err(over_budget(over, "this call, as a task,")),
                Ok(()) => store.put(&stored, ttl).await.map_err(|_| {
                    tasks.ledger.discharge(&task_id);
                    ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the task store is unreachable")
                }),
            };
            let started = created.is_ok();
            let reply = created.and_then(|()| flavor.created(&stored.task));
            let answer = encode_answer(&id, reply.map(Reply::Serialized));
            ctx.finish_trace(&answer); // the call's answer is the task's handle
            match sink.reserve().await {
                Ok(permit) => {
                    session.finish_then(&id, || permit.send(answer));
                }
                Err(_) => {
                    session.finish(&id);
                }
            }
            if started {
                tracing::debug!(task = %task_id, "a call became a task");
                run(ctx, handler, flavor, signals, &mut stored, (tasks, &*store), held, on_panic).await;
            }
            tasks.finished_here(&task_id);
        });
        Received::Nothing
    }
}

/// Runs a task's handler to its end, keeping its record current.
#[allow(clippy::too_many_arguments)]
async fn run(
    ctx: Context,
    mut handler: Run,
    flavor: Flavor,
    mut signals: tokio::sync::mpsc::UnboundedReceiver<Signal>,
    stored: &mut StoredTask,
    (tasks, store): (&Tasks, &dyn TaskStore),
    held: usize,
    on_panic: PanicAnswer,
) {
    let ttl = stored.task.ttl_ms.map(std::time::Duration::from_millis);
    let mut shown: Option<Map<String, Value>> = None;
    let mut progress: Option<String> = None;
    loop {
        let event = std::future::poll_fn(|cx| {
            match in_scope(&ctx, || std::pin::Pin::new(&mut handler).poll(cx)) {
                Ok(Poll::Ready(outcome)) => return Poll::Ready(Event::Finished(Ok(outcome))),
                Err(panic) => return Poll::Ready(Event::Finished(Err(panic))),
                Ok(Poll::Pending) => {}
            }
            if let Poll::Ready(signal) = signals.poll_recv(cx) {
                return Poll::Ready(Event::Signal(signal));
            }
            let requests = flavor.pending(&ctx);
            if requests != shown {
                return Poll::Ready(Event::Requests(requests));
            }
            let reported = flavor.progress();
            if reported != progress {
                return Poll::Ready(Event::Progress(reported));
            }
            Poll::Pending
        })
        .await;
        let task = &mut stored.task;
        match event {
            Event::Finished(outcome) => {
                // The task's result, as the call's middlewares rewrite it.
                finish(task, outcome.map(|outcome| ctx.rewrite_result(outcome)), &flavor, on_panic);
                break;
            }
            Event::Signal(Some(Signal::Input(responses))) => {
                if let Some(stateless) = ctx.stateless() {
                    stateless.round.supply(responses);
                }
                continue; // the next poll shows what changed
            }
            Event::Signal(Some(Signal::Cancel) | None) => {
                task.set(Status::Cancelled, Some("Cancelled by the client".into()));
                break;
            }
            Event::Requests(requests) => {
                shown = requests.clone();
                match requests {
                    Some(requests) => {
                        task.set(Status::InputRequired, Some("Waiting for input from the client".into()));
                        task.input_requests = Some(requests).filter(|requests| !requests.is_empty());
                    }
                    None => task.set(Status::Working, progress.clone()),
                }
            }
            Event::Progress(reported) => {
                progress = reported;
                if task.status == Status::Working {
                    task.set(Status::Working, progress.clone());
                }
            }
        }
        if !charge(tasks, stored, held) {
            break; // failed: too large to keep
        }
        if store.put(stored, ttl).await.is_err() {
            tracing::warn!(task = %stored.task.task_id, "a task's new status was not stored: the store is unreachable");
        }
        announce(tasks, store, stored).await;
    }
    drop(handler); // a cancelled handler stops here
    charge(tasks, stored, 0);
    if store.put(stored, ttl).await.is_err() {
        tracing::error!(task = %stored.task.task_id, "a task's outcome was lost: the store is unreachable");
    }
    announce(tasks, store, stored).await;
}

/// Charges a task's record as it now stands (with `held` bytes of its running handler) to its
/// owner. A record that no longer fits fails the task instead, keeping the error rather than
/// what did not fit: `false` then.
fn charge(tasks: &Tasks, stored: &mut StoredTask, held: usize) -> bool {
    let account = stored.access.owner.account(&stored.task.task_id);
    let Err(over) = tasks.ledger.charge(&stored.task.task_id, &account, stored.bytes() + held, None) else {
        return true;
    };
    let task = &mut stored.task;
    tracing::warn!(task = %task.task_id, "a task failed: its record grew past what the server keeps for its owner");
    let error = over_budget(over, "the task's outcome");
    (task.result, task.input_requests) = (None, None);
    task.set(Status::Failed, Some(error.message.clone()));
    task.error = serde_json::to_value(&error).ok();
    // Now small: it fits in what the record held before.
    let bytes = stored.bytes();
    let _ = tasks.ledger.charge(&stored.task.task_id, &account, bytes, None);
    false
}

/// The error of a task record that `over` says does not fit; `what` would have kept it.
fn over_budget(over: OverBudget, what: &str) -> ErrorObject {
    match over {
        OverBudget::Session { bytes, limit } => ErrorObject::invalid_params(format!(
            "Invalid params: {what} would keep {bytes} more bytes for its caller, past the limit of {limit} \
             on what the server keeps for one caller"
        )),
        OverBudget::Server => over.into_error(),
    }
}

/// Tells `subscriptions/listen` streams, here and on the other replicas, that a task changed.
async fn announce(tasks: &Tasks, store: &dyn TaskStore, task: &StoredTask) {
    tasks.announce(task);
    store.announce(task).await;
}

/// Records a handler's outcome: `completed` with its result (a tool error included), or
/// `failed` with the JSON-RPC error (a panic is one: the task could not run to its end).
fn finish(task: &mut TaskRecord, outcome: std::thread::Result<Outcome>, flavor: &Flavor, on_panic: PanicAnswer) {
    let outcome = match outcome {
        Ok(outcome) => flavor.finish(outcome),
        Err(panic) => {
            let message = panic_message(&*panic);
            let tool = match &on_panic {
                PanicAnswer::ToolError(tool) => tool,
                PanicAnswer::InternalError => "?",
            };
            tracing::error!(tool, "a task's tool panicked: {message}");
            Err(ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: tool `{tool}` failed unexpectedly")))
        }
    };
    match outcome {
        Ok(result) => {
            task.set(Status::Completed, None);
            task.result = Some(result);
        }
        Err(error) => {
            task.set(Status::Failed, Some(error.message.clone()));
            task.error = serde_json::to_value(&error).ok();
        }
    }
}

/// The era a task method is called in: it decides the method's answer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// The tasks extension (2026-07-28): `tasks/get`, `tasks/update`, `tasks/cancel`.
    Extension,
    /// A 2025-11-25 session: `tasks/get`, `tasks/cancel`, `tasks/result`.
    Session,
}

/// A task method: the task is read (its owner and lease checked) once, then answered as
/// `era` says.
pub(super) fn route(
    core: Arc<crate::core::ServerCore>,
    method: Method,
    params: Option<Value>,
    era: Era,
) -> Route<'static> {
    Route::Spawn(Task {
        meta: None,
        http: Default::default(),
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move {
            let tasks = &core.tasks;
            let viewer = Viewer { owner: TaskOwner::of(&ctx), ctx };
            let params = parse(params)?;
            let responses = match (method, params.input_responses) {
                (Method::TasksUpdate, Some(Value::Object(responses))) => Some(responses),
                (Method::TasksUpdate, _) => {
                    return Err(ErrorObject::invalid_params("Invalid params: `inputResponses` must be an object"));
                }
                _ => None,
            };
            let (mut stored, store) = current(tasks, &params.task_id, &viewer).await?;
            let terminal = stored.task.status.is_terminal();
            match (era, method) {
                (Era::Extension, Method::TasksGet) => to_raw(&stored.task),
                (Era::Extension, _) => {
                    // Acknowledged alike whether the task still runs or ended already.
                    if !terminal {
                        let signal = responses.map_or(Signal::Cancel, Signal::Input);
                        deliver(tasks, &*store, &stored, signal).await?;
                    }
                    to_raw(&json!({}))
                }
                (Era::Session, Method::TasksGet) => to_raw(&session_wire(&stored.task)),
                (Era::Session, Method::TasksCancel) => {
                    if terminal {
                        let status = serde_json::to_value(stored.task.status).unwrap_or_default();
                        return Err(ErrorObject::invalid_params(format!(
                            "Cannot cancel task: it is already {}",
                            status.as_str().unwrap_or("over")
                        )));
                    }
                    deliver(tasks, &*store, &stored, Signal::Cancel).await?;
                    stored.task.set(Status::Cancelled, Some("Cancelled by the client".into()));
                    to_raw(&session_wire(&stored.task))
                }
                (Era::Session, _) => result(tasks, stored, &viewer).await,
            }
        }),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams {
    task_id: String,
    #[serde(default)]
    input_responses: Option<Value>,
}

fn parse(params: Option<Value>) -> Result<TaskParams, ErrorObject> {
    serde_json::from_value(params.unwrap_or_default())
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {}", crate::jsonrpc::without_position(&e))))
}

fn unavailable() -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the task store is unreachable; retry shortly")
}

/// Who asks about a task: the owner their request would make, and its context (its caller's
/// scopes).
struct Viewer {
    owner: TaskOwner,
    ctx: Context,
}

/// The stored task `id`; -32602 for one that does not exist (any more) or is not the
/// viewer's: another caller's task is not there for them, whatever they know of its id.
async fn find(tasks: &Tasks, id: &str, viewer: &Viewer) -> Result<(StoredTask, Arc<dyn TaskStore>), ErrorObject> {
    let store = tasks.store();
    match store.get(id).await.map_err(|_| unavailable())? {
        Some(stored) if stored.access.admits(&viewer.owner, &viewer.ctx) => Ok((stored, store)),
        Some(_) => {
            tracing::debug!(task = %crate::clip::clip(id), "refused a task request from a caller who does not own it");
            Err(unknown_task(id))
        }
        None => Err(unknown_task(id)),
    }
}

fn unknown_task(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Unknown task: {}", crate::clip::clip(id)))
}

/// The task `id` as it stands: a task whose replica died would say `working` for ever, so its
/// lease (the replica's heartbeat) is checked, and such a task is failed here.
async fn current(tasks: &Tasks, id: &str, viewer: &Viewer) -> Result<(StoredTask, Arc<dyn TaskStore>), ErrorObject> {
    let (mut stored, store) = find(tasks, id, viewer).await?;
    if !stored.task.status.is_terminal() && stored.replica != store.tag() && !store.is_alive(stored.replica).await {
        stored.task.set(Status::Failed, Some("The server replica running this task stopped".into()));
        let error =
            ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the server replica running this task stopped");
        stored.task.error = serde_json::to_value(&error).ok();
        let _ = store.put(&stored, tasks.ttl).await;
    }
    Ok((stored, store))
}

/// `tasks/result`: waits for the task's end, then its result (with the related-task `_meta`)
/// or the JSON-RPC error it failed with.
async fn result(tasks: &Tasks, mut stored: StoredTask, viewer: &Viewer) -> Outcome {
    let pause = tasks.poll_interval.min(std::time::Duration::from_millis(100));
    while !stored.task.status.is_terminal() {
        tokio::time::sleep(pause).await;
        stored = current(tasks, &stored.task.task_id, viewer).await?.0;
    }
    let task = stored.task;
    match (task.status, task.result, task.error) {
        (Status::Completed, Some(mut result), _) => {
            if let Some(result) = result.as_object_mut() {
                let meta = result.entry("_meta").or_insert_with(|| json!({}));
                meta["io.modelcontextprotocol/related-task"] = json!({ "taskId": task.task_id });
            }
            to_raw(&result)
        }
        (Status::Failed, _, Some(error)) => Err(serde_json::from_value(error)
            .unwrap_or_else(|_| ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the task failed"))),
        _ => Err(ErrorObject::new(
            code::INTERNAL_ERROR,
            format!("The task ended without a result: {}", task.status_message.unwrap_or_default()),
        )),
    }
}

impl Connection {
    /// A 2025-11-25 `tools/call`: `None` unless tasks decide it (the request asks for a task,
    /// or the tool runs only as one). A tool that never runs as a task refuses the `task`
    /// param, and one that only does refuses a call without it (-32601, as the spec says).
    pub(super) fn session_tool_call(
        &self,
        request: &Request<'_>,
        sink: &Sink,
        trace: &mut Option<crate::telemetry::Trace>,
    ) -> Option<Received> {
        let version = self.session.protocol_version()?;
        if version < crate::protocol::ProtocolVersion::V2025_11_25 {
            return None; // no tasks before 2025-11-25: a `task` param means nothing
        }
        let answer = |error| Some(Received::Answer(encode_answer(&request.id, Err(error))));
        // Read from the one decode of the message: a plain call costs no lookup here.
        let ttl = match request.task.map(|raw| serde_json::from_str::<Value>(raw.get())) {
            None => None,
            Some(Ok(Value::Object(task))) => Some(task.get("ttl").and_then(Value::as_u64)),
            Some(_) => return answer(ErrorObject::invalid_params("Invalid params: `task` must be an object")),
        };
        let registry = self.core.catalog.snapshot();
        if ttl.is_none() && !registry.has_required_tasks {
            return None;
        }
        let tool = registry.tools.get(request.target.as_deref()?)?;
        match (tool.task, ttl) {
            (TaskSupport::Forbidden, Some(_)) => answer(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: tool `{}` does not run as a task; call it without `task`", tool.name),
            )),
            (TaskSupport::Required, None) => answer(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: tool `{}` runs only as a task; add `task` to the call's params", tool.name),
            )),
            (_, None) => None,
            (_, Some(ttl)) => Some(self.start_session_task(request, &registry, tool.scopes, ttl, sink, trace.take())),
        }
    }

    /// Starts the task a 2025-11-25 call asked for, of a tool needing `scopes`: the handler's
    /// requests to the client go out on the session (the call's own stream ends with the
    /// task's handle), naming the task.
    fn start_session_task(
        &self,
        request: &Request<'_>,
        registry: &Arc<crate::registry::Registry>,
        scopes: &[&str],
        ttl: Option<u64>,
        sink: &Sink,
        trace: Option<crate::telemetry::Trace>,
    ) -> Received {
        let task = match router::route(registry, &self.session, self.session.protocol_version(), None, request) {
            Route::Spawn(task) => task,
            Route::Reply(reply) => return Received::Answer(encode_answer(&request.id, reply)),
        };
        let tasks = &self.core.tasks;
        // The client may ask for a shorter life than the server's, not a longer one.
        let ttl = match (ttl.map(std::time::Duration::from_millis), tasks.ttl) {
            (Some(asked), Some(most)) => Some(asked.min(most)),
            (asked, most) => asked.or(most),
        };
        let link = Arc::new(TaskLink::new(Tasks::new_id()));
        let id = request.id.clone();
        let ctx =
            Context::new(id.clone(), task.meta, Arc::clone(&self.session), &self.session.unsolicited, None, task.http)
                .for_task(Arc::clone(&link))
                .with_trace(trace.unwrap_or_else(crate::telemetry::Trace::none));
        if let Err(refusal) = self.session.begin(&id, &ctx.in_flight()) {
            return refused(&id, refusal, self.core.settings.max_requests_in_flight);
        }
        let handler = match in_scope(&ctx, || task.run.start(&ctx)) {
            Ok(handler) => handler,
            Err(panic) => {
                self.session.finish(&id);
                let reply = panicked(&*panic, task.on_panic);
                return Received::Answer(encode_answer(&id, reply.map(Reply::Serialized)));
            }
        };
        let held = request.arguments.map_or(0, |arguments| arguments.get().len());
        let new = NewTask { id: link.id.clone(), ttl, access: Access::of(&ctx, scopes), held };
        self.start_task(id, new, ctx, handler, Flavor::Session(link), sink, task.on_panic)
    }
}

/// Hands a signal to the task's runner: here, or on the replica that runs it.
async fn deliver(tasks: &Tasks, store: &dyn TaskStore, stored: &StoredTask, signal: Signal) -> Result<(), ErrorObject> {
    match tasks.signal_here(&stored.task.task_id, signal) {
        Ok(()) => Ok(()),
        Err(signal) => store.forward(&stored.task.task_id, stored.replica, signal).await.map_err(|_| unavailable()),
    }
}
