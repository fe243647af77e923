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

use super::stateless::StatelessCall;
use super::{Connection, Received, encode_answer, in_scope};
use crate::client::input_round::missing_capability;
use crate::context::Context;
use crate::jsonrpc::{ErrorObject, RequestId, code};
use crate::router::{self, Handler, Outcome, PanicAnswer, Reply, Route, Run, Task};
use crate::session::outgoing::Sink;
use crate::tasks::{EXTENSION, Signal, Status, StoredTask, TaskRecord, TaskStore, Tasks};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::task::Poll;

/// -32021 for a client that did not declare the extension on this request.
pub(super) fn extension_required() -> ErrorObject {
    missing_capability(&["extensions", EXTENSION])
}

/// Whether the request's client capabilities declare the extension.
pub(super) fn declares_extension(capabilities: &Map<String, Value>) -> bool {
    crate::client::declared(Some(capabilities), &["extensions", EXTENSION])
}

/// What the runner of a task sees happen.
enum Event {
    Finished(std::thread::Result<Outcome>),
    Signal(Option<Signal>),
    /// The requests the handler waits on changed.
    Requests(Option<Map<String, Value>>),
}

impl Connection {
    /// Turns a call whose handler waits into a task: stores its record, answers with its
    /// handle, and runs the handler to its end as the task.
    pub(super) fn start_task(
        &self,
        id: RequestId,
        ctx: Context,
        handler: Run,
        call: StatelessCall,
        sink: &Sink,
        on_panic: PanicAnswer,
    ) -> Received {
        let (session, core, sink) = (Arc::clone(&self.session), Arc::clone(&self.core), sink.clone());
        tokio::spawn(async move {
            let tasks = &core.tasks;
            let store = tasks.store();
            let mut stored = StoredTask {
                task: TaskRecord::new(Tasks::new_id(), tasks.ttl, tasks.poll_interval),
                owner: store.tag(),
            };
            let task_id = stored.task.task_id.clone();
            let signals = tasks.run_here(&task_id);
            // Durably created before the client learns the id: its first `tasks/get` may come at once.
            let created = store.put(&stored, tasks.ttl).await;
            let reply = match created {
                Ok(()) => {
                    let mut handle = stored.task.handle();
                    handle["resultType"] = json!("task");
                    router::to_raw(&handle)
                }
                Err(_) => Err(ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the task store is unreachable")),
            };
            let answer = encode_answer(&id, reply.map(Reply::Serialized));
            match sink.reserve().await {
                Ok(permit) => {
                    session.finish_then(&id, || permit.send(answer));
                }
                Err(_) => {
                    session.finish(&id);
                }
            }
            if created.is_ok() {
                tracing::debug!(task = %task_id, "a call became a task");
                run(ctx, handler, call, signals, &mut stored, &*store, tasks.ttl, on_panic).await;
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
    call: StatelessCall,
    mut signals: tokio::sync::mpsc::UnboundedReceiver<Signal>,
    stored: &mut StoredTask,
    store: &dyn TaskStore,
    ttl: Option<std::time::Duration>,
    on_panic: PanicAnswer,
) {
    let mut shown: Option<Map<String, Value>> = None;
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
            let requests = ctx.stateless().and_then(|s| s.round.pending_requests());
            if requests != shown {
                return Poll::Ready(Event::Requests(requests));
            }
            Poll::Pending
        })
        .await;
        let task = &mut stored.task;
        match event {
            Event::Finished(outcome) => {
                finish(task, outcome, &call, on_panic);
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
                        task.input_requests = Some(requests);
                    }
                    None => task.set(Status::Working, None),
                }
            }
        }
        if store.put(stored, ttl).await.is_err() {
            tracing::warn!(task = %stored.task.task_id, "a task's new status was not stored: the store is unreachable");
        }
    }
    drop(handler); // a cancelled handler stops here
    if store.put(stored, ttl).await.is_err() {
        tracing::error!(task = %stored.task.task_id, "a task's outcome was lost: the store is unreachable");
    }
}

/// Records a handler's outcome: `completed` with its result (a tool error included), or
/// `failed` with the JSON-RPC error (a panic is one: the task could not run to its end).
fn finish(task: &mut TaskRecord, outcome: std::thread::Result<Outcome>, call: &StatelessCall, on_panic: PanicAnswer) {
    let outcome = match outcome {
        Ok(outcome) => call.finish_task(outcome),
        Err(panic) => {
            let message = super::panic_message(&*panic);
            let tool = match on_panic {
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

/// `tasks/get`, `tasks/update` or `tasks/cancel`, for a client that declared the extension.
pub(super) fn route(
    tasks_of: Arc<crate::core::ServerCore>,
    method: crate::protocol::Method,
    params: Option<Value>,
) -> Route<'static> {
    Route::Spawn(Task {
        meta: None,
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |_| async move {
            let tasks = &tasks_of.tasks;
            match method {
                crate::protocol::Method::TasksGet => get(tasks, params).await,
                crate::protocol::Method::TasksUpdate => update(tasks, params).await,
                _ => cancel(tasks, params).await,
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

/// The stored task `id`; -32602 for one that does not exist (any more).
async fn find(tasks: &Tasks, id: &str) -> Result<(StoredTask, Arc<dyn TaskStore>), ErrorObject> {
    let store = tasks.store();
    match store.get(id).await.map_err(|_| unavailable())? {
        Some(stored) => Ok((stored, store)),
        None => Err(ErrorObject::invalid_params(format!("Unknown task: {}", crate::clip::clip(id)))),
    }
}

async fn get(tasks: &Tasks, params: Option<Value>) -> Outcome {
    let params = parse(params)?;
    let (mut stored, store) = find(tasks, &params.task_id).await?;
    // A task whose replica died would say `working` for ever: its lease (the replica's
    // heartbeat) tells.
    if !stored.task.status.is_terminal() && stored.owner != store.tag() && !store.is_alive(stored.owner).await {
        stored.task.set(Status::Failed, Some("The server replica running this task stopped".into()));
        let error =
            ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the server replica running this task stopped");
        stored.task.error = serde_json::to_value(&error).ok();
        let _ = store.put(&stored, tasks.ttl).await;
    }
    router::to_raw(&stored.task)
}

async fn update(tasks: &Tasks, params: Option<Value>) -> Outcome {
    let params = parse(params)?;
    let responses = match params.input_responses {
        Some(Value::Object(responses)) => responses,
        _ => return Err(ErrorObject::invalid_params("Invalid params: `inputResponses` must be an object")),
    };
    let (stored, store) = find(tasks, &params.task_id).await?;
    if !stored.task.status.is_terminal() {
        deliver(tasks, &*store, &stored, Signal::Input(responses)).await?;
    }
    router::to_raw(&json!({}))
}

async fn cancel(tasks: &Tasks, params: Option<Value>) -> Outcome {
    let params = parse(params)?;
    let (stored, store) = find(tasks, &params.task_id).await?;
    if !stored.task.status.is_terminal() {
        deliver(tasks, &*store, &stored, Signal::Cancel).await?;
    }
    router::to_raw(&json!({}))
}

/// Hands a signal to the task's runner: here, or on the replica that runs it.
async fn deliver(tasks: &Tasks, store: &dyn TaskStore, stored: &StoredTask, signal: Signal) -> Result<(), ErrorObject> {
    match tasks.signal_here(&stored.task.task_id, signal) {
        Ok(()) => Ok(()),
        Err(signal) => store.forward(&stored.task.task_id, stored.owner, signal).await.map_err(|_| unavailable()),
    }
}
