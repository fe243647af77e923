//! The error results of arguments that do not decode: what the model reads to correct its call.

use crate::clip::clip;
use crate::jsonrpc::without_position;
use crate::tool::result::CallToolResult;
use serde::de::DeserializeOwned;

/// The error result of `member`, which does not decode into a `T`, naming the path to the bad
/// value: decoded again under `serde_path_to_error`, which only a failure pays for.
#[cold]
pub(super) fn decoding<T: DeserializeOwned>(tool: &str, name: &str, member: &str) -> CallToolResult {
    let deserializer = &mut serde_json::Deserializer::from_str(member);
    match serde_path_to_error::deserialize::<_, T>(deserializer) {
        Ok(_) => CallToolResult::error(format!("invalid arguments for tool `{tool}`: `{name}`")),
        Err(error) => invalid(tool, &joined(name, &error.path().to_string()), error.inner()),
    }
}

/// `name` followed by the path inside its value, as `serde_path_to_error` writes paths.
fn joined(name: &str, inner: &str) -> String {
    match inner {
        "." => name.to_owned(),
        seq if seq.starts_with('[') => format!("{name}{seq}"),
        inner => format!("{name}.{inner}"),
    }
}

/// The error result of `error` at `path` (`.`: the arguments' object itself).
#[cold]
pub(super) fn invalid(tool: &str, path: &str, error: &serde_json::Error) -> CallToolResult {
    let problem = without_position(error);
    let message = match path {
        "." => format!("invalid arguments for tool `{tool}`: {problem}"),
        path => format!("invalid arguments for tool `{tool}`: `{}`: {problem}", clip(path)),
    };
    CallToolResult::error(message)
}

/// The error result of a required member the client left out.
#[cold]
pub(super) fn missing(tool: &str, name: &str) -> CallToolResult {
    CallToolResult::error(format!("invalid arguments for tool `{tool}`: missing field `{name}`"))
}
