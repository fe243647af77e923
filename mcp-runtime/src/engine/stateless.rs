//! The 2026-07-28 era at the engine's edge: stateless requests that carry their protocol
//! version and client capabilities in `_meta`, `server/discover`, `subscriptions/listen`,
//! `resultType` and caching hints on results, and input-required results (multi round-trip
//! requests) for handlers that ask the client for something.
//!
//! A request is stateless when its `_meta` names a protocol version; it is then served
//! without any session state, on the same connection as 2025-11-25 traffic.

use super::connection::{Connection, Received, encode_answer, panicked};
use crate::context::Stateless;
use crate::jsonrpc::{ErrorObject, RequestId, code};
use crate::message::Request;
use crate::protocol::request_state;
use crate::protocol::{Method, ProtocolVersion, RequestMeta, meta_key};
use crate::registry::Change;
use crate::router::reply::{Outcome, Reply, parse_params, to_raw, to_raw_value};
use crate::router::task::{Handler, PanicAnswer, Route, Task};
use crate::router::{self, visibility};
use crate::server_requests::input_round::InputRound;
use crate::session::budget::{Budget, Held};
use crate::session::outgoing::{self, Outgoing, Sink};
use crate::settings::Settings;
use crate::tool::TaskSupport;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::broadcast;

/// The members of a stateless request's params this module reads (the decoder read its
/// `_meta` and target).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
    request_state: Option<String>,
    #[serde(default)]
    notifications: Option<Map<String, Value>>,
}

/// How to finish a stateless request once its handler is done.
pub(super) struct StatelessCall {
    pub state: Arc<Stateless>,
    /// The method's name (a sealed `requestState` is bound to it).
    method: Cow<'static, str>,
    /// Its result carries caching hints.
    cacheable: bool,
    target: String,
    /// An authenticated caller's lists and reads may differ per user: not for shared caches.
    private: bool,
    /// For a call of a tool with task support from a client that declared the tasks
    /// extension, the tool's scopes (a task it becomes needs them to be read): it becomes a
    /// task if its handler waits (`engine/tasks.rs`).
    as_task: Option<&'static [&'static str]>,
    /// The length of the call's arguments: what its handler holds, charged to a task it becomes.
    pub arguments_len: usize,
}

impl Connection {
    pub(super) fn on_stateless_request(
        &self,
        request: Request<'_>,
        sink: &Sink,
        trace: &mut Option<crate::telemetry::Trace>,
    ) -> Received {
        let id = request.id.clone();
        let answer = |reply| Received::Answer(encode_answer(&id, reply));
        let Some(method) = request.method.filter(|method| method.is_stateless()) else {
            if let Some(task) = self.core.custom.task(&request) {
                return self.on_vendor_request(request, task, sink, trace);
            }
            return answer(Reply::method_not_found(&request.name));
        };
        let settings = &self.core.settings;
        let target = request.target.as_deref().unwrap_or_default().to_owned();
        let (envelope, meta, answers) = match read_envelope(settings, &request, method.name(), &target) {
            Ok(read) => read,
            Err(error) => return answer(Err(error)),
        };
        let registry = self.core.catalog.snapshot();
        let declares_tasks = super::tasks::declares_extension(&meta.capabilities);
        let (task_support, scopes) = match method {
            Method::ToolsCall if registry.has_task_tools => {
                registry.tools.get(&target).map_or((TaskSupport::Forbidden, &[][..]), |tool| (tool.task, tool.scopes))
            }
            _ => (TaskSupport::Forbidden, &[][..]),
        };
        if task_support == TaskSupport::Required && !declares_tasks {
            return answer(Err(super::tasks::extension_required()));
        }
        let call = StatelessCall {
            state: Arc::new(Stateless { meta, round: InputRound::new(answers) }),
            method: Cow::Borrowed(method.name()),
            cacheable: method.is_cacheable(),
            target,
            private: has_verified_caller() || answer_depends_on_client(method, settings, &registry),
            as_task: (task_support != TaskSupport::Forbidden && declares_tasks).then_some(scopes),
            arguments_len: request.arguments.map_or(0, |arguments| arguments.get().len()),
        };
        let route = match method {
            Method::Discover => Route::Reply(discover(settings, &registry)),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel if !declares_tasks => {
                return answer(Err(super::tasks::extension_required()));
            }
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
                let params = request.params.and_then(|raw| serde_json::from_str(raw.get()).ok());
                super::tasks::route(Arc::clone(&self.core), method, params, super::tasks::Era::Extension)
            }
            Method::SubscriptionsListen => {
                let wanted = envelope.notifications.unwrap_or_default();
                let task_ids: Vec<String> =
                    wanted.get("taskIds").and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default();
                if !task_ids.is_empty() && !declares_tasks {
                    return answer(Err(super::tasks::extension_required()));
                }
                let changes = (self.core.catalog.subscribe(), self.core.tasks.subscribe());
                listen(&id, wanted, task_ids, &registry, &self.session.budget, changes)
            }
            _ => {
                // The form of the tool schemas, for the client this request says it comes from.
                let profile = match method {
                    Method::ToolsList => Some(settings.schema_profiles.choose(call.state.meta.client_info.as_ref())),
                    _ => None,
                };
                router::route(&registry, &self.session, Some(ProtocolVersion::V2026_07_28), profile, &request)
            }
        };
        match route {
            Route::Reply(reply) => {
                let outcome = reply.and_then(|reply| to_raw(&reply));
                let outcome = match trace {
                    Some(trace) => trace.rewrite(outcome),
                    None => outcome,
                };
                answer(call.complete(outcome, settings).map(Reply::Serialized))
            }
            Route::Spawn(task) => self.run_handler(id, task, sink, Some(call), trace.take()),
        }
    }
}

impl Connection {
    /// A vendor method's request (`Server::on_request`): its handler runs as any other, with
    /// this request's client view, and its result is decorated as any other.
    fn on_vendor_request(
        &self,
        request: Request<'_>,
        task: Task<'_>,
        sink: &Sink,
        trace: &mut Option<crate::telemetry::Trace>,
    ) -> Received {
        let id = request.id.clone();
        let answer = |reply| Received::Answer(encode_answer(&id, reply));
        let method = request.name.clone().into_owned();
        let (_, meta, answers) = match read_envelope(&self.core.settings, &request, &method, "") {
            Ok(read) => read,
            Err(error) => return answer(Err(error)),
        };
        let call = StatelessCall {
            state: Arc::new(Stateless { meta, round: InputRound::new(answers) }),
            cacheable: self.core.custom.is_cacheable(&method),
            method: Cow::Owned(method),
            target: String::new(),
            private: has_verified_caller(),
            as_task: None,
            arguments_len: 0,
        };
        self.run_handler(request.id, task, sink, Some(call), trace.take())
    }
}

/// What every stateless request reads before it runs: the members of its params this module
/// reads, its `_meta` (checked), and the answers its retry brings (`method` and `target` bind a
/// sealed `requestState`).
fn read_envelope(
    server: &Settings,
    request: &Request<'_>,
    method: &str,
    target: &str,
) -> Result<(Envelope, RequestMeta, Map<String, Value>), ErrorObject> {
    let envelope: Envelope = parse_params(request.params)?;
    let meta = RequestMeta::parse(request.stateless_meta.as_ref())?;
    let answers = gather_answers(server, &envelope, method, target)?;
    Ok((envelope, meta, answers))
}

#[cfg(feature = "auth")]
fn has_verified_caller() -> bool {
    crate::auth::current_caller().is_some()
}

#[cfg(not(feature = "auth"))]
fn has_verified_caller() -> bool {
    false
}

/// Whether what `method` answers depends on which client asks, not only on what it asks:
/// `tools/list` when the schema profiles give clients different forms of some tool's schema.
fn answer_depends_on_client(method: Method, settings: &Settings, registry: &crate::registry::Registry) -> bool {
    method == Method::ToolsList && !settings.schema_profiles.is_forced() && registry.tools.forms_differ()
}

/// The answers a retry brings: those sealed in `requestState` by earlier rounds, then this
/// round's `inputResponses` (which win).
fn gather_answers(
    server: &Settings,
    envelope: &Envelope,
    method: &str,
    target: &str,
) -> Result<Map<String, Value>, ErrorObject> {
    let mut answers = match &envelope.request_state {
        Some(state) => request_state::open(&server.request_state_key, state, method, target)?,
        None => Map::new(),
    };
    answers.extend(envelope.input_responses.clone().unwrap_or_default());
    Ok(answers)
}

impl StatelessCall {
    pub fn context_state(&self) -> Arc<Stateless> {
        Arc::clone(&self.state)
    }

    pub fn runs_as_task(&self) -> bool {
        self.as_task.is_some()
    }

    /// The scopes of the tool a call that may become a task runs.
    pub fn task_scopes(&self) -> &'static [&'static str] {
        self.as_task.unwrap_or_default()
    }

    /// A task's finished handler: its result, for the task record (no `resultType`), or the
    /// error that fails the task (the capability failure it hit, if it failed of it).
    pub fn finish_task(&self, reply: Outcome) -> Result<Value, ErrorObject> {
        let failure = self.state.round.take_failure();
        let result = match reply {
            Err(error) => return Err(failure.unwrap_or(error)),
            Ok(result) => result,
        };
        if let Some(failure) = failure.filter(|_| is_error_result(result.get())) {
            return Err(failure);
        }
        let mut value: Value = serde_json::from_str(result.get()).map_err(|e| {
            ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: a result is not JSON: {e}"))
        })?;
        if let Some(object) = value.as_object_mut() {
            object.remove("resultType");
        }
        Ok(value)
    }

    /// A finished handler's answer: the capability failure it hit, if it failed because of
    /// it, else its result with `resultType`, `serverInfo` and (for lists and reads) caching
    /// hints.
    pub fn complete(&self, reply: Outcome, server: &Settings) -> Outcome {
        // A handler may recover from a missing capability (do without the client's input):
        // only a failed handler turns it into -32021.
        let failure = self.state.round.take_failure();
        let result = match reply {
            Err(error) => return Err(failure.unwrap_or(error)),
            Ok(result) => result,
        };
        // Checked once: a result's text is validated as UTF-8 each time it is read.
        let json = result.get();
        if let Some(failure) = failure.filter(|_| is_error_result(json)) {
            return Err(failure);
        }
        let mut extras = Map::new();
        extras.insert("resultType".into(), json!("complete"));
        extras.insert("_meta".into(), json!({ meta_key::SERVER_INFO: &server.info }));
        if self.cacheable {
            extras.insert("ttlMs".into(), json!(server.cache_ttl.as_millis() as u64));
            extras.insert("cacheScope".into(), json!(if self.private { "private" } else { "public" }));
        }
        merge_into(json, extras)
    }

    /// The interim answer when the handler is waiting on the client: its requests, and the
    /// answers so far sealed in `requestState`.
    pub fn input_required(&self, requests: Map<String, Value>, server: &Settings) -> Outcome {
        let state =
            request_state::seal(&server.request_state_key, &self.method, &self.target, &self.state.round.answers());
        to_raw(&json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
            "_meta": { meta_key::SERVER_INFO: &server.info },
        }))
    }
}

/// Whether a result is a tool's error result.
fn is_error_result(result: &str) -> bool {
    #[derive(Deserialize)]
    struct Flag {
        #[serde(default, rename = "isError")]
        is_error: bool,
    }
    serde_json::from_str::<Flag>(result).is_ok_and(|f| f.is_error)
}

/// Adds `extras` to a result object, keeping what the result already has (its own caching
/// hints, its `_meta` keys). The result's members stay serialized: only their extent is
/// scanned, and only a `_meta` both sides have is parsed, so a large result is copied once
/// rather than parsed into values and serialized again.
fn merge_into(json: &str, extras: Map<String, Value>) -> Outcome {
    let not_an_object = |e: serde_json::Error| {
        ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: a result is not an object: {e}"))
    };
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(json).map_err(not_an_object)?;
    let mut result: BTreeMap<String, Cow<'_, RawValue>> =
        members.into_iter().map(|(key, value)| (key, Cow::Borrowed(value))).collect();
    for (key, value) in extras {
        let merged = match (result.get(&key), value) {
            (None, value) => value,
            (Some(existing), Value::Object(more)) if existing.get().starts_with('{') => {
                let mut existing: Map<String, Value> = serde_json::from_str(existing.get()).map_err(not_an_object)?;
                for (k, v) in more {
                    existing.entry(k).or_insert(v);
                }
                Value::Object(existing)
            }
            (Some(_), _) => continue, // the result's own value wins
        };
        result.insert(key, Cow::Owned(to_raw_value(&merged)?));
    }
    to_raw(&result)
}

fn discover(server: &Settings, registry: &crate::registry::Registry) -> Result<Reply<'static>, ErrorObject> {
    let versions: Vec<&str> = ProtocolVersion::STATELESS.iter().map(|v| v.as_str()).collect();
    let mut capabilities = router::capabilities(server, registry);
    if registry.has_task_tools {
        // Beside the server's own extensions (whose settings win, should it declare this one).
        if let Some(Value::Object(extensions)) =
            capabilities.as_object_mut().map(|c| c.entry("extensions").or_insert_with(|| json!({})))
        {
            extensions.entry(crate::tasks::EXTENSION).or_insert_with(|| json!({}));
        }
    }
    let mut result = json!({
        "supportedVersions": versions,
        "capabilities": capabilities,
    });
    if let Some(instructions) = &server.instructions {
        result["instructions"] = json!(instructions);
    }
    Ok(Reply::Value(result))
}

/// `subscriptions/listen`: acknowledges the filter it honours, then forwards matching changes,
/// each tagged with the subscription id, until the client cancels (or the server stops). What
/// the stream keeps of its filter (resource URIs, task ids) is charged to `budget` while it
/// lives, and it shows a task's changes only to the task's owner.
fn listen(
    id: &RequestId,
    wanted: Map<String, Value>,
    task_ids: Vec<String>,
    registry: &crate::registry::Registry,
    budget: &Arc<Budget>,
    (mut changes, mut task_changes): (broadcast::Receiver<Change>, broadcast::Receiver<crate::tasks::StoredTask>),
) -> Route<'static> {
    let flag = |name: &str, offered: bool| offered && wanted.get(name) == Some(&Value::Bool(true));
    let tools = flag("toolsListChanged", !registry.tools.is_empty());
    let prompts = flag("promptsListChanged", !registry.prompts.is_empty());
    let resources_offered = !registry.resources.is_empty() || !registry.templates.is_empty();
    let resources = flag("resourcesListChanged", resources_offered);
    let mut uris: Vec<String> = if resources_offered {
        wanted.get("resourceSubscriptions").and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
    } else {
        Vec::new()
    };
    // Only resources the caller may read: a URI of one whose scopes it lacks is not honoured.
    let viewer = visibility::Viewer::current();
    uris.retain(|uri| {
        registry.resource_for(uri).is_none_or(|(resource, _)| visibility::sees(viewer.as_ref(), resource.scopes))
    });
    let mut honoured = Map::new();
    for (name, on) in
        [("toolsListChanged", tools), ("promptsListChanged", prompts), ("resourcesListChanged", resources)]
    {
        if on {
            honoured.insert(name.into(), Value::Bool(true));
        }
    }
    if !uris.is_empty() {
        honoured.insert("resourceSubscriptions".into(), json!(uris));
    }
    if !task_ids.is_empty() {
        honoured.insert("taskIds".into(), json!(task_ids));
    }
    let kept = uris.iter().chain(&task_ids).map(|text| text.len() + std::mem::size_of::<String>()).sum();
    let held = match Held::take(budget, kept) {
        Ok(held) => held,
        Err(over) => return Route::Reply(Err(over.into_error())),
    };
    let subscription = json!({ meta_key::SUBSCRIPTION_ID: id });
    Route::Spawn(Task {
        meta: None,
        http: Default::default(),
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move {
            let _held = held;
            let viewer = crate::tasks::TaskOwner::of(&ctx);
            let sink = ctx.sink();
            let ack = json!({ "_meta": subscription, "notifications": honoured });
            notify(sink, "notifications/subscriptions/acknowledged", ack).await;
            loop {
                use tokio::sync::broadcast::error::RecvError;
                let change = tokio::select! {
                    change = changes.recv() => change,
                    task = task_changes.recv(), if !task_ids.is_empty() => match task {
                        // Each carries the whole task, as `tasks/get` would show it.
                        Ok(stored) if task_ids.contains(&stored.task.task_id)
                            && stored.access.admits(&viewer, &ctx) => {
                            let mut params = serde_json::to_value(&stored.task).unwrap_or_default();
                            params["_meta"] = subscription.clone();
                            notify(sink, "notifications/tasks", params).await;
                            continue;
                        }
                        Ok(_) | Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => break,
                    },
                };
                let change = match change {
                    Ok(change) => change,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                };
                let wanted = match &change {
                    Change::Tools => tools,
                    Change::Prompts => prompts,
                    Change::Resources => resources,
                    Change::ResourceUpdated(uri) => uris.iter().any(|u| **u == **uri),
                };
                if !wanted {
                    continue;
                }
                let (method, mut params) = change.notification();
                params["_meta"] = subscription.clone();
                notify(sink, method, params).await;
            }
            // The server is going away: end the subscription gracefully.
            to_raw(&json!({ "_meta": subscription }))
        }),
    })
}

async fn notify(sink: &Sink, method: &str, params: Value) {
    outgoing::send(sink, Outgoing::message(crate::jsonrpc::encode_notification(method, &params))).await;
}

/// What a stateless handler did: finished (or panicked), or stopped to wait on the client.
pub(super) enum Step {
    Done(std::thread::Result<Outcome>),
    InputRequired(Map<String, Value>),
}

impl Step {
    /// The answer to send, for a request of either era: the handler's outcome as its
    /// middlewares rewrite it (`ctx`), then decorated as its era wants.
    pub fn into_reply(
        self,
        call: Option<&StatelessCall>,
        on_panic: PanicAnswer,
        server: &Settings,
        ctx: &crate::context::Context,
    ) -> Outcome {
        let finished = |outcome: std::thread::Result<Outcome>| {
            ctx.rewrite_result(outcome.unwrap_or_else(|panic| panicked(&*panic, on_panic)))
        };
        match (self, call) {
            (Step::Done(outcome), None) => finished(outcome),
            (Step::Done(outcome), Some(call)) => call.complete(finished(outcome), server),
            (Step::InputRequired(requests), Some(call)) => call.input_required(requests, server),
            (Step::InputRequired(_), None) => unreachable!("only stateless requests wait on input"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_the_results_own_members_and_meta_keys() {
        let raw = r#"{"content":[{"type":"text","text":"a\"b"}],"ttlMs":5,"_meta":{"mine":1,"shared":"result"}}"#;
        let mut extras = Map::new();
        extras.insert("resultType".into(), json!("complete"));
        extras.insert("ttlMs".into(), json!(60_000));
        extras.insert("_meta".into(), json!({"shared": "server", "serverInfo": {"name": "x"}}));
        let merged: Value = serde_json::from_str(merge_into(raw, extras).unwrap().get()).unwrap();
        assert_eq!(
            merged,
            json!({
                "content": [{"type": "text", "text": "a\"b"}],
                "ttlMs": 5,
                "resultType": "complete",
                "_meta": {"mine": 1, "shared": "result", "serverInfo": {"name": "x"}},
            })
        );
        assert_eq!(merge_into("[1]", Map::new()).unwrap_err().code, code::INTERNAL_ERROR);
    }
}
