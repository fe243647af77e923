//! Requests a handler sends to the client (sampling, elicitation, roots), awaited like a
//! function call. Each checks the client's declared capabilities first: asking for something
//! the client did not declare is an immediate [`ClientError::Unsupported`], never a hang.

mod elicitation;
mod roots;
mod sampling;

pub use elicitation::{Elicitation, ElicitationSchemaError, elicitation_schema_for};
pub use roots::{Root, RootsError};
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
        }
    }
}

impl std::error::Error for ClientError {}

/// Whether the capability at `path` (e.g. `["elicitation", "url"]`) was declared.
fn declared(ctx: &Context, path: &[&str]) -> bool {
    let Some(capabilities) = ctx.client_capabilities() else { return false };
    let mut node = capabilities.get(path[0]);
    for key in &path[1..] {
        node = node.and_then(|n| n.get(*key));
    }
    node.is_some_and(|n| !n.is_null())
}

impl Context {
    /// Sends `method` to the client once `capability` is known to be declared, and decodes the
    /// answer. The single path every server-to-client request takes.
    pub(crate) async fn ask_client<R: DeserializeOwned>(
        &self,
        capability: (&'static str, &[&str]),
        method: &str,
        params: &(impl Serialize + ?Sized),
        timeout: Option<Duration>,
    ) -> Result<R, ClientError> {
        if !declared(self, capability.1) {
            return Err(ClientError::Unsupported { capability: capability.0 });
        }
        let limit = timeout.unwrap_or(self.session().server.client_request_timeout);
        let answer = tokio::time::timeout(limit, self.session().request_client(self.sink(), method, params))
            .await
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

/// Drops `_meta` from a client's answer before it is decoded into a user type.
pub(crate) fn without_meta(mut value: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        map.remove("_meta");
    }
    value
}
