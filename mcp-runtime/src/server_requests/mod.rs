//! Requests a server's handler sends to the client (sampling, elicitation, roots), awaited like a
//! function call. Each checks the client's declared capabilities first: asking for something
//! the client did not declare is an immediate [`ClientError::Unsupported`], never a hang.

mod client_error;
mod elicitation;
pub(crate) mod input_round;
#[cfg(feature = "fs")]
mod path_in_root;
pub(crate) mod root;
mod roots;
mod sampling;

pub use client_error::ClientError;
pub(crate) use client_error::declared;
pub use elicitation::{Elicitation, ElicitationSchemaError, elicitation_schema_for};
#[cfg(feature = "fs")]
#[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
pub use path_in_root::{FolderEntry, OutsideRoot, PathInRoot};
pub use root::Root;
pub use roots::RootsError;
pub use sampling::{ModelPreferences, Sampled, Sampling, SamplingMessage};

use crate::context::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

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
