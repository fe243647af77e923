//! The engine: the lifecycle of one session (handshake, concurrency, cancellation, panics,
//! server-to-client requests), independent of the transport that carries its bytes.
//!
//! A transport feeds each incoming message to [`Connection::receive`] with the [`Sink`] its
//! answer should go to, and writes out whatever arrives there. Requests that run user code are
//! spawned on their own task, so a slow tool never holds up the next message.

pub(crate) mod outgoing;
pub(crate) mod session;

use crate::context::{CURRENT, Context};
use crate::jsonrpc::{self, ErrorObject, Incoming, RequestId, code};
use crate::registry::Change;
use crate::router::{self, Reply};
use crate::server::ServerCore;
use futures_util::FutureExt as _;
use outgoing::Sink;
use serde::Deserialize;
use serde_json::value::RawValue;
use session::Session;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// What the transport should do after a message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// The client asked the server to exit (`exit` notification).
    Exit,
}

pub(crate) struct Connection {
    session: Arc<Session>,
    announcer: JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.announcer.abort();
        self.session.cancel_all();
    }
}

impl Connection {
    /// A new session; `unsolicited` receives messages that answer no request.
    pub fn new(server: Arc<ServerCore>, unsolicited: Sink) -> Self {
        let session = Arc::new(Session::new(server, unsolicited));
        let announcer = tokio::spawn(announce_changes(Arc::clone(&session)));
        Self { session, announcer }
    }

    /// Handles one message. Answers that need no user code are queued on `sink` before this
    /// returns; the others follow from their own tasks.
    pub async fn receive(&self, bytes: &[u8], sink: &Sink) -> Flow {
        match jsonrpc::decode(bytes) {
            Err(rejected) => {
                let bytes = jsonrpc::encode_error(rejected.id.as_ref(), &rejected.error);
                outgoing::send(sink, bytes, true).await;
                Flow::Continue
            }
            Ok(Incoming::Request { id, method, params }) => {
                self.on_request(id, &method, params, sink).await;
                Flow::Continue
            }
            Ok(Incoming::Notification { method, params }) => self.on_notification(&method, params),
            Ok(Incoming::Response { id, outcome }) => {
                let answer = outcome.map(|raw| serde_json::from_str(raw.get()).unwrap_or_default());
                if !self.session.resolve_client_request(&id, answer) {
                    tracing::debug!(%id, "ignoring a response to no request in flight");
                }
                Flow::Continue
            }
        }
    }

    /// Answers a message the transport could not even frame (e.g. one over the size limit).
    pub async fn reject(&self, error: ErrorObject, sink: &Sink) {
        outgoing::send(sink, jsonrpc::encode_error(None, &error), true).await;
    }

    async fn on_request(&self, id: RequestId, method: &str, params: Option<&RawValue>, sink: &Sink) {
        let session = &self.session;
        let reply = match method {
            "initialize" => router::initialize(session, params),
            "ping" | "shutdown" => Reply::empty(),
            _ if session.client().is_none() && !router::is_known_method(method) => Reply::method_not_found(method),
            _ if session.client().is_none() => Err(ErrorObject::new(
                code::INVALID_REQUEST,
                "Invalid Request: the session is not initialized; send `initialize` first",
            )),
            "tools/call" => return self.spawn_tool_call(id, params, sink).await,
            _ => {
                let registry = session.server.catalog.snapshot();
                return answer(sink, &id, router::route(&registry, session, method, params)).await;
            }
        };
        answer(sink, &id, reply).await;
    }

    async fn spawn_tool_call(&self, id: RequestId, params: Option<&RawValue>, sink: &Sink) {
        #[derive(Deserialize)]
        struct CallParams<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
            arguments: Option<Box<RawValue>>,
            #[serde(rename = "_meta")]
            meta: Option<serde_json::Map<String, serde_json::Value>>,
        }
        let registry = self.session.server.catalog.snapshot();
        let parsed = router::parse_params::<CallParams<'_>>(params).and_then(|p| {
            let tool = registry
                .tools
                .get(&p.name)
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown tool: {}", p.name)))?;
            if p.arguments.as_deref().is_some_and(|a| !a.get().starts_with('{')) {
                return Err(ErrorObject::invalid_params("tools/call: `arguments` must be an object"));
            }
            Ok((tool.clone(), p.arguments, p.meta))
        });
        let (tool, arguments, meta) = match parsed {
            Ok(call) => call,
            Err(error) => return answer(sink, &id, Err(error)).await,
        };
        let Some(cancellation) = self.session.begin(&id) else {
            let error = ErrorObject::new(
                code::INVALID_REQUEST,
                format!("Invalid Request: request id {id} is already in use by a request in flight"),
            );
            return answer(sink, &id, Err(error)).await;
        };
        let session = Arc::clone(&self.session);
        let ctx = Context::new(id.clone(), meta, cancellation.clone(), Arc::clone(&session), sink.clone());
        let sink = sink.clone();
        tokio::spawn(async move {
            let run = CURRENT.scope(ctx.clone(), AssertUnwindSafe((tool.call)(arguments, ctx)).catch_unwind());
            let result = tokio::select! {
                biased;
                () = cancellation.cancelled() => return,
                result = run => result,
            };
            let result = result.unwrap_or_else(|panic| {
                let message = panic_message(&*panic);
                tracing::error!(tool = tool.name, "tool panicked: {message}");
                crate::tool::CallToolResult::error(format!(
                    "tool `{}` failed unexpectedly (it panicked); the server logged the details",
                    tool.name
                ))
            });
            if session.finish(&id) {
                outgoing::send(&sink, jsonrpc::encode_result(&id, &result), true).await;
            }
        });
    }

    fn on_notification(&self, method: &str, params: Option<&RawValue>) -> Flow {
        match method {
            "notifications/initialized" => self.session.mark_initialized(),
            "notifications/cancelled" => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                }
                match router::parse_params::<Cancelled>(params) {
                    Ok(cancelled) => self.session.cancel(&cancelled.request_id),
                    Err(err) => tracing::debug!("ignoring a malformed notifications/cancelled: {}", err.message),
                }
            }
            "notifications/roots/list_changed" => self.session.invalidate_roots(),
            "exit" => return Flow::Exit,
            _ => tracing::debug!(method, "ignoring an unknown notification"),
        }
        Flow::Continue
    }

    /// Waits up to the server's grace period for requests in flight, then cancels the rest.
    pub async fn drain(&self) {
        let deadline = tokio::time::Instant::now() + self.session.server.shutdown_grace;
        while self.session.in_flight_count() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        self.session.cancel_all();
    }
}

async fn answer(sink: &Sink, id: &RequestId, reply: Result<Reply<'_>, ErrorObject>) {
    let bytes = match reply {
        Ok(reply) => jsonrpc::encode_result(id, &reply),
        Err(error) => jsonrpc::encode_error(Some(id), &error),
    };
    outgoing::send(sink, bytes, true).await;
}

/// Tells the client about changes to what the server offers, once it is initialized.
async fn announce_changes(session: Arc<Session>) {
    let mut changes = session.server.catalog.subscribe();
    loop {
        let change = match changes.recv().await {
            Ok(change) => change,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        if !session.is_initialized() {
            continue;
        }
        let method = match change {
            Change::Tools => "notifications/tools/list_changed",
        };
        session.notify(&session.unsolicited, method, &serde_json::json!({})).await;
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string panic payload")
}
