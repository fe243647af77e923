//! What can go wrong with a request to the client, and the two checks every such request
//! shares: whether the client declared the capability, and its answer without `_meta`.

use crate::jsonrpc::ErrorObject;
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

/// Drops `_meta` from a client's answer before it is decoded into a user type.
pub(crate) fn without_meta(mut value: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        map.remove("_meta");
    }
    value
}
