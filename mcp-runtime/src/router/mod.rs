//! The router: method name to handler. Handlers that need no user code answer at once
//! ([`Route::Reply`]); the others return a [`Task`] of user code for the engine to run.

mod completion;
mod lifecycle;
mod prompts;
mod resources;
mod tools;
pub(crate) mod visibility;

pub(crate) use lifecycle::{capabilities, initialize};

use crate::clip::clip;
use crate::context::Context;
use crate::jsonrpc::{ErrorObject, Serialized, code, without_position};
use crate::message::Request;
use crate::protocol::{Method, ProtocolVersion};
use crate::registry::{ListItem, Listing, Registry};
use crate::session::Session;
use crate::tool::SchemaProfile;
use futures_util::future::{BoxFuture, Either};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::future::Ready;
use std::sync::Arc;

/// A successful answer, in whichever form is cheapest to produce.
pub(crate) enum Reply<'a> {
    /// Serialized ahead of time and shared (e.g. a `tools/list` page).
    Shared(&'a RawValue),
    /// Serialized for this answer.
    Serialized(Serialized),
    /// A value to serialize.
    Value(Value),
}

impl Reply<'_> {
    pub fn empty() -> Result<Self, ErrorObject> {
        Ok(Self::Value(Value::Object(Map::new())))
    }

    pub fn method_not_found(method: &str) -> Result<Self, ErrorObject> {
        Err(ErrorObject::new(code::METHOD_NOT_FOUND, format!("Method not found: {}", clip(method))))
    }
}

impl Serialize for Reply<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Shared(raw) => raw.serialize(s),
            Self::Serialized(result) => result.serialize(s),
            Self::Value(value) => value.serialize(s),
        }
    }
}

/// What a handler of user code yields: the serialized result, or the error to answer.
pub(crate) type Outcome = Result<Serialized, ErrorObject>;

/// The user-code part of a request, given its context. It may borrow the request's params:
/// it is called before the engine's next message, and what it returns may not borrow them.
pub(crate) enum Handler<'a> {
    /// A tool call: the most common request, started without an allocation of its own.
    Tool(tools::ToolRun<'a>),
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

/// Parses `params`, absent counting as `{}`; a mismatch is -32602 naming the field and the
/// problem (`Invalid params: `name`: invalid type: integer `5`, expected a string`).
pub(crate) fn parse_params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    let json = params.map_or("{}", RawValue::get);
    // Plain serde_json first; only a failure pays for tracking the path (bench/NOTES.md).
    if let Ok(params) = serde_json::from_str(json) {
        return Ok(params);
    }
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(json)).map_err(|err| {
        let path = clip(&err.path().to_string()).to_string();
        let inner = err.into_inner();
        let problem = without_position(&inner);
        match path.as_str() {
            "." => ErrorObject::invalid_params(format!("Invalid params: {problem}")),
            path => ErrorObject::invalid_params(format!("Invalid params: `{path}`: {problem}")),
        }
    })
}

/// Serializes a handler's result.
pub(crate) fn to_raw(value: &(impl Serialize + ?Sized)) -> Outcome {
    Serialized::new(value).map_err(unserializable)
}

/// Serializes a part of a result (a listed resource, a merged member) that stays raw JSON.
pub(crate) fn to_raw_value(value: &(impl Serialize + ?Sized)) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value).map_err(unserializable)
}

/// The error for a result that would not serialize (a map with non-string keys, a failing
/// `Serialize` impl).
fn unserializable(err: serde_json::Error) -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: {err}"))
}

#[derive(Deserialize)]
struct Paginated<'a> {
    #[serde(borrow)]
    cursor: Option<std::borrow::Cow<'a, str>>,
}

fn cursor(params: Option<&RawValue>) -> Result<Option<String>, ErrorObject> {
    Ok(parse_params::<Paginated<'_>>(params)?.cursor.map(|c| c.into_owned()))
}

/// The list page `params`' cursor points at, as the caller may see it.
fn page<'a, T: ListItem>(listing: &'a Listing<T>, params: Option<&RawValue>) -> Route<'a> {
    let page = cursor(params).and_then(|cursor| listing.page(cursor.as_deref()));
    Route::Reply(page.and_then(|page| visibility::seen(listing, page)))
}

/// Routes a request of an initialized session, or a stateless one (`version` is the
/// protocol version the request is served under; `profile`, the form of the tool schemas a
/// stateless request's client gets, `None` for the session's). The lifecycle methods
/// (`initialize`, `ping`) and the stateless era's own are the engine's.
pub(crate) fn route<'a>(
    registry: &'a Arc<Registry>,
    session: &Session,
    version: Option<ProtocolVersion>,
    profile: Option<SchemaProfile>,
    request: &Request<'a>,
) -> Route<'a> {
    let params = request.params;
    let Some(method) = request.method else { return Reply::method_not_found(&request.name).into() };
    match method {
        Method::ToolsList => match cursor(params) {
            Ok(cursor) => {
                let profile = profile.unwrap_or_else(|| session.schema_profile());
                tools::list(registry, session, profile, cursor.as_deref()).into()
            }
            Err(error) => Route::Reply(Err(error)),
        },
        Method::ToolsCall => tools::call(registry, session, request),
        Method::ResourcesList => resources::list(registry, params),
        Method::ResourcesTemplatesList => page(&registry.templates, params),
        Method::ResourcesRead => resources::read(registry, version, request),
        Method::ResourcesSubscribe => resources::subscribe(registry, session, request, true).into(),
        Method::ResourcesUnsubscribe => resources::subscribe(registry, session, request, false).into(),
        Method::PromptsList => page(&registry.prompts, params),
        Method::PromptsGet => prompts::get(registry, request),
        Method::CompletionComplete => completion::complete(registry, request),
        Method::LoggingSetLevel => lifecycle::set_level(session, params).into(),
        Method::Initialize
        | Method::Ping
        | Method::Shutdown
        | Method::Discover
        | Method::SubscriptionsListen
        | Method::TasksGet
        | Method::TasksUpdate
        | Method::TasksCancel
        | Method::TasksResult => Reply::method_not_found(&request.name).into(),
    }
}
