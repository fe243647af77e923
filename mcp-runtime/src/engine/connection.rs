//! One session's connection to the engine: the [`Connection`] the engine's files each add
//! their part of the lifecycle to, what a message yields at once ([`Received`]), and the
//! answers they all build (refusals, panics, encoded results).

use crate::clip::clip;
use crate::context::{CURRENT, Context};
use crate::core::ServerCore;
use crate::engine::first_poll::FirstPolls;
use crate::jsonrpc::{self, ErrorObject, Rejected, RequestId, code};
use crate::router::reply::{Outcome, Reply, to_raw};
use crate::router::task::PanicAnswer;
use crate::session::outgoing::{Kind, Outgoing};
use crate::session::{Refusal, Session};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use tokio::task::JoinHandle;

/// What a message produced at once, for [`Connection::receive_now`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Received {
    /// The answer, ready at once. It goes out after whatever is already queued on the sink
    /// (its own handler's progress and logs among them).
    Answer(Outgoing),
    /// Nothing to send now: a notification, a client's answer, or a request whose handler
    /// waits on its own task and queues its answer on the sink.
    Nothing,
    /// The client asked the server to exit (`exit` notification).
    Exit,
}

pub(crate) struct Connection {
    pub(super) core: Arc<ServerCore>,
    pub(super) session: Arc<Session>,
    /// Tells the client about list changes, started when the client finishes the handshake
    /// (nothing changed before is announced, so nothing is missed): the first answer waits for
    /// no task to be spawned and no worker to be woken. `None` where nothing is announced:
    /// stateless connections (their clients use `subscriptions/listen`) and shared ones (the
    /// store's stream carries the changes).
    pub(super) announcer: Option<OnceLock<JoinHandle<()>>>,
    /// Serves every request as stateless, whatever its body says (the transport knows, e.g.
    /// from an HTTP header).
    pub(super) stateless_only: bool,
    /// `Some` when every message is received by one thread, in order (stdio): no cancellation
    /// or duplicate id can arrive while a handler's first poll runs, so a request is registered
    /// in flight only if that poll leaves it pending. Its first polls are marked there, for a
    /// watchdog to see one block that thread.
    pub(super) serial: Option<Arc<FirstPolls>>,
}

/// Dropping a connection cancels what it still runs: its client is gone.
impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(announcer) = self.announcer.as_ref().and_then(OnceLock::get) {
            announcer.abort();
        }
        self.session.cancel_all();
    }
}

/// The answer to a request that cannot start: its id is in use by a request in flight, or the
/// session runs `limit` requests already.
pub(super) fn refused(id: &RequestId, refusal: Refusal, limit: usize) -> Received {
    let error = match refusal {
        Refusal::IdInUse => ErrorObject::new(
            code::INVALID_REQUEST,
            format!("Invalid Request: request id {} is already in use by a request in flight", clip(&id.to_string())),
        ),
        Refusal::Full => ErrorObject::new(
            code::TOO_MANY_REQUESTS,
            format!("Too many requests in flight: this session may run {limit} at once; retry once some finish"),
        ),
    };
    Received::Answer(encode_answer(id, Err(error)))
}

/// Runs user code with its request's context set, a panic caught.
pub(super) fn in_scope<T>(ctx: &Context, user_code: impl FnOnce() -> T) -> std::thread::Result<T> {
    ctx.trace_span().in_scope(|| CURRENT.set(ctx, || std::panic::catch_unwind(AssertUnwindSafe(user_code))))
}

/// A request's answer, marked with what it says for the transport.
pub(super) fn encode_answer(id: &RequestId, reply: Result<Reply<'_>, ErrorObject>) -> Outgoing {
    let bytes = match reply {
        Ok(Reply::Serialized(result)) => result.into_response(id),
        Ok(Reply::Shared(raw)) => jsonrpc::encode_raw_result(id, raw),
        Ok(reply) => jsonrpc::encode_result(id, &reply),
        Err(error) => return encode_rejected(&Rejected { id: Some(id.clone()), error }),
    };
    Outgoing { bytes, kind: Kind::Result }
}

/// The error answer to a message, marked with its code for the transport.
pub(crate) fn encode_rejected(rejected: &Rejected) -> Outgoing {
    let bytes = jsonrpc::encode_error(rejected.id.as_ref(), &rejected.error);
    Outgoing { bytes, kind: Kind::Error(rejected.error.code) }
}

/// What a panic said.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string panic payload")
}

/// The answer for a handler that panicked; the panic's message goes to the log only.
pub(super) fn panicked(panic: &(dyn std::any::Any + Send), on_panic: PanicAnswer) -> Outcome {
    let message = panic_message(panic);
    match on_panic {
        PanicAnswer::ToolError(tool) => {
            tracing::error!(tool = &*tool, "tool panicked: {message}");
            let text = format!("tool `{tool}` failed unexpectedly (it panicked); the server logged the details");
            to_raw(&crate::tool::CallToolResult::error(text))
        }
        PanicAnswer::InternalError => {
            tracing::error!("handler panicked: {message}");
            Err(ErrorObject::new(code::INTERNAL_ERROR, "Internal error: the handler failed unexpectedly"))
        }
    }
}
