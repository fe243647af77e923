//! Work that runs user code: the [`Task`] a route hands the engine, its [`Handler`] and the
//! [`Run`] it starts.

use super::reply::{Outcome, Reply, to_raw};
use crate::context::Context;
use crate::jsonrpc::ErrorObject;
use crate::tool::descriptor::{ToolCall, ToolDescriptor};
use futures_util::future::{BoxFuture, Either};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::future::Ready;

/// The user-code part of a request, given its context. It may borrow the request's params:
/// it is called before the engine's next message, and what it returns may not borrow them.
pub(crate) enum Handler<'a> {
    /// A tool call: the most common request, started without an allocation of its own.
    Tool(ToolRun<'a>),
    /// Any other (resources, prompts, completion, subscriptions).
    Other(Box<dyn FnOnce(&Context) -> Run + Send + 'a>),
}

impl<'a> Handler<'a> {
    /// A handler that runs as a future owning a clone of the request's context (every
    /// handler but a tool's, which may finish at once).
    pub fn waiting<F>(run: impl FnOnce(Context) -> F + Send + 'a) -> Self
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        Self::Other(Box::new(move |ctx| running(run(ctx.clone()))))
    }

    /// Starts the handler: a sync tool runs to the end here.
    pub fn start(self, ctx: &Context) -> Run {
        match self {
            Self::Tool(run) => run.start(ctx),
            Self::Other(run) => run(ctx),
        }
    }
}

/// A handler's run: finished when the handler returns (a sync tool: no future allocated), or
/// a future to poll.
pub(crate) type Run = Either<Ready<Outcome>, BoxFuture<'static, Outcome>>;

/// A run that finished when its handler returned.
pub(crate) fn finished(outcome: Outcome) -> Run {
    Either::Left(std::future::ready(outcome))
}

/// A run still to poll.
pub(crate) fn running(run: impl Future<Output = Outcome> + Send + 'static) -> Run {
    Either::Right(Box::pin(run))
}

/// Work that runs user code, to be spawned by the engine.
pub(crate) struct Task<'a> {
    /// The request's `_meta` (progress token...).
    pub meta: Option<Map<String, Value>>,
    pub run: Handler<'a>,
    /// What to answer if the user code panics.
    pub on_panic: PanicAnswer,
    /// The HTTP request, when the handler asked for it (`Request::http_for`).
    pub http: crate::message::HttpCapture,
}

/// The answer to a request whose handler panicked.
#[derive(Clone)]
pub(crate) enum PanicAnswer {
    /// A tool: an `isError` result naming it, so the model sees the failure.
    ToolError(crate::tool::Str),
    /// Anything else: an internal error.
    InternalError,
}

impl PanicAnswer {
    /// The handler's name for the stdio watchdog's report that it blocked: the tool's, when
    /// it is a literal (a mounted server's tools only forward, and never block).
    pub fn handler_name(&self) -> &'static str {
        match self {
            Self::ToolError(std::borrow::Cow::Borrowed(tool)) => tool,
            Self::ToolError(std::borrow::Cow::Owned(_)) => "a mounted tool",
            Self::InternalError => crate::engine::first_poll::OTHER_HANDLER,
        }
    }
}

pub(crate) enum Route<'a> {
    Reply(Result<Reply<'a>, ErrorObject>),
    Spawn(Task<'a>),
}

impl<'a> From<Result<Reply<'a>, ErrorObject>> for Route<'a> {
    fn from(reply: Result<Reply<'a>, ErrorObject>) -> Self {
        Self::Reply(reply)
    }
}

/// A tool call about to start: the tool, borrowed from the catalog, and its raw arguments.
pub(crate) struct ToolRun<'a> {
    pub(super) tool: &'a ToolDescriptor,
    pub(super) arguments: Option<&'a RawValue>,
}

impl ToolRun<'_> {
    pub fn start(self, ctx: &Context) -> Run {
        let Self { tool, arguments } = self;
        // Parsed now, while the arguments are at hand; a sync tool runs now too (one asking
        // for confirmation never does).
        let call = match (tool.call)(arguments, ctx) {
            ToolCall::Finished(result) => return finished(to_raw(&result)),
            ToolCall::Running(call) => call,
        };
        let server = &ctx.session().settings;
        let limit = tool.timeout.or(server.tool_timeout);
        // The raw arguments are copied only to show them to the user.
        let confirm = tool.confirm.then(|| (ctx.clone(), arguments.map(ToOwned::to_owned)));
        let (name, fallback) = (tool.name.clone(), server.confirmation_fallback);
        running(async move {
            if let Some((ctx, shown)) = confirm {
                // Boxed: asking the user takes a large future, which would otherwise size (and
                // make slower to allocate) every call's.
                let confirmed = Box::pin(crate::tool::confirm(&ctx, &name, shown.as_deref(), fallback));
                if let Err(refused) = confirmed.await {
                    return to_raw(&refused);
                }
            }
            let result = match limit {
                None => call.await,
                Some(limit) => tokio::time::timeout(limit, call).await.unwrap_or_else(|_| {
                    tracing::warn!(tool = &*name, "tool call timed out after {limit:?}");
                    crate::tool::CallToolResult::error(format!(
                        "tool `{name}` timed out after {} ms and was stopped",
                        limit.as_millis()
                    ))
                }),
            };
            to_raw(&result)
        })
    }
}
