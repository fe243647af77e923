//! Requests a server's handler sends to the client (sampling, elicitation, roots), awaited like a
//! function call. Each checks the client's declared capabilities first: asking for something
//! the client did not declare is an immediate [`ClientError::Unsupported`], never a hang.

mod elicitation;
pub(crate) mod input_round;
#[cfg(feature = "fs")]
mod path_in_root;
pub(crate) mod root;
mod roots;
mod sampling;

pub use elicitation::{Elicitation, ElicitationSchemaError, elicitation_schema_for};
#[cfg(feature = "fs")]
#[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
pub use path_in_root::{FolderEntry, OutsideRoot, PathInRoot};
pub use root::Root;
pub use roots::RootsError;
pub use sampling::{ModelPreferences, Sampled, Sampling, SamplingMessage};

use crate::context::Context;
use crate::jsonrpc::ErrorObject;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// Why a request to the client did not produce an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The client did not declare the capability this request needs (e.g. `sampling`).
    Unsupported {
        /// The capability, as a dotted path (`elicitation.url`).
        capability: &'static str,
    },
    /// No answer within the time limit; the client was told to stop.
    Timeout(Duration),
    /// The client answered with a JSON-RPC error.
    Rejected(ErrorObject),
    /// The client's answer did not have the expected shape.
    InvalidResponse(String),
    /// The request could not be made as asked (e.g. an elicitation schema the spec forbids).
    InvalidRequest(String),
    /// The connection closed before the answer came.
    Disconnected,
    /// The server serves HTTP without sessions
    /// ([`HttpConfig::stateless`](crate::http::HttpConfig::stateless)) and the request came
    /// from a 2025-era client: nothing can carry the client's answer back to this request.
    /// (A 2026-07-28 client gets the request as an input request, in either mode.)
    Sessionless,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { capability } => write!(f, "the client does not support `{capability}`"),
            Self::Timeout(after) => write!(f, "the client did not answer within {after:?}"),
            Self::Rejected(error) => write!(f, "the client refused the request: {} ({})", error.message, error.code),
            Self::InvalidResponse(why) => write!(f, "the client's answer is malformed: {why}"),
            Self::InvalidRequest(why) => write!(f, "invalid request to the client: {why}"),
            Self::Disconnected => f.write_str("the client disconnected"),
            Self::Sessionless => f.write_str(
                "the server runs HTTP without sessions (stateless mode): it cannot send requests to a 2025-era \
                 client, whose answer would have no session to come back to",
            ),
        }
    }
}

impl std::error::Error for ClientError {}

/// Whether the capability at `path` (e.g. `["elicitation", "url"]`) was declared.
pub(crate) fn declared(capabilities: Option<&serde_json::Map<String, Value>>, path: &[&str]) -> bool {
    let Some(capabilities) = capabilities else { return false };
    let mut node = capabilities.get(path[0]);
    for key in &path[1..] {
        node = node.and_then(|n| n.get(*key));
    }
    node.is_some_and(|n| !n.is_null())
}

/// A request to the client under a chosen key. In the 2026-07-28 era a request to the client
/// travels inside an input-required result, keyed by name; the key is assigned in call order
/// unless you choose it with [`Context::input`]. In the 2025-11-25 era the key is unused.
pub struct Input<'a> {
    ctx: &'a Context,
    key: Option<String>,
}

impl Context {
    /// A request to the client under `key` (`ctx.input("user_name").elicit::<Name>("Your name?")`).
    pub fn input(&self, key: impl Into<String>) -> Input<'_> {
        Input { ctx: self, key: Some(key.into()) }
    }

    fn unkeyed(&self) -> Input<'_> {
        Input { ctx: self, key: None }
    }

    /// Asks the client's model for a completion; see [`Input::sample`].
    pub async fn sample(&self, request: Sampling) -> Result<Sampled, ClientError> {
        self.unkeyed().sample(request).await
    }

    /// Asks the user to fill in a form shaped like `T`; see [`Input::elicit`].
    pub async fn elicit<T: DeserializeOwned + schemars::JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ClientError> {
        self.unkeyed().elicit(message).await
    }

    /// Asks the user to fill in a hand-written form; see [`Input::elicit_with_schema`].
    pub async fn elicit_with_schema(
        &self,
        message: impl Into<String>,
        requested_schema: serde_json::Map<String, Value>,
    ) -> Result<Elicitation<serde_json::Map<String, Value>>, ClientError> {
        self.unkeyed().elicit_with_schema(message, requested_schema).await
    }

    /// Sends the user to a URL; see [`Input::elicit_url`].
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ClientError> {
        self.unkeyed().elicit_url(message, url, elicitation_id).await
    }

    /// The client's roots; see [`Input::roots`].
    pub async fn roots(&self) -> Result<Vec<Root>, ClientError> {
        self.unkeyed().roots().await
    }
}

impl Input<'_> {
    /// Sends `method` to the client once `capability` is known to be declared, and decodes the
    /// answer: the single path every server-to-client request takes, in both eras.
    async fn ask<R: DeserializeOwned>(
        self,
        capability: (&'static str, &[&str]),
        method: &str,
        params: &(impl Serialize + ?Sized),
        timeout: Option<Duration>,
    ) -> Result<R, ClientError> {
        let ctx = self.ctx;
        if let Some(stateless) = ctx.stateless() {
            return stateless.round.ask(self.key, capability, method, params, ctx.client_capabilities()).await;
        }
        if ctx.session().is_sessionless() {
            return Err(ClientError::Sessionless);
        }
        if !declared(ctx.client_capabilities(), capability.1) {
            return Err(ClientError::Unsupported { capability: capability.0 });
        }
        let limit = timeout.unwrap_or(ctx.session().settings.client_request_timeout);
        let answer = match ctx.task() {
            None => tokio::time::timeout(limit, ctx.session().request_client(ctx.sink(), method, params)).await,
            Some(task) => {
                // A task's requests name it, and make it `input_required` while they wait.
                let mut params =
                    serde_json::to_value(params).map_err(|e| ClientError::InvalidResponse(e.to_string()))?;
                if let Some(params) = params.as_object_mut() {
                    let meta = params.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
                    meta["io.modelcontextprotocol/related-task"] = serde_json::json!({ "taskId": task.id });
                }
                let _waiting = Waiting::on(&task.waiting);
                tokio::time::timeout(limit, ctx.session().request_client(ctx.sink(), method, &params)).await
            }
        }
        .map_err(|_| ClientError::Timeout(limit))?;
        match answer {
            Some(Ok(value)) => {
                serde_json::from_value::<R>(value).map_err(|e| ClientError::InvalidResponse(e.to_string()))
            }
            Some(Err(error)) => Err(ClientError::Rejected(error)),
            None => Err(ClientError::Disconnected),
        }
    }
}

/// Counts a request to the client as waiting while it lives.
struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> Waiting<'a> {
    fn on(count: &'a std::sync::atomic::AtomicUsize) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Self(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Drops `_meta` from a client's answer before it is decoded into a user type.
pub(crate) fn without_meta(mut value: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        map.remove("_meta");
    }
    value
}
