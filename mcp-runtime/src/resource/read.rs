//! `resources/read` results, and the conversion from what a resource function returns.

use crate::content::ResourceContents;
use crate::tool::Json;
use serde::{Deserialize, Serialize};
use std::fmt::{self, Display};

/// The result of `resources/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One or more contents (a folder may return several files, each with its own URI).
    pub contents: Vec<ResourceContents>,
    /// `_meta`: what the result says beyond the protocol (see [`with_meta`](Self::with_meta)).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ReadResourceResult {
    /// Adds `key` to the result's `_meta` (keys of your own prefix, `com.example/etag`).
    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.meta.get_or_insert_default().insert(key.into(), value.into());
        self
    }
}

/// Return this (e.g. as `Err(ResourceNotFound)`) when the resource does not exist: the client
/// gets the protocol's "resource not found" error with the URI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceNotFound;

impl Display for ResourceNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("resource not found")
    }
}

impl std::error::Error for ResourceNotFound {}

/// Why a read failed, before it becomes a JSON-RPC error (the code depends on the protocol
/// version, chosen in one place: the router).
#[doc(hidden)]
#[derive(Debug)]
pub enum ResourceError {
    /// No such resource.
    NotFound,
    /// The function failed with this message.
    Failed(String),
}

/// Turns what a resource function returns into contents. `uri` is the URI read and
/// `mime_type` the one declared in the attribute.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this return type is not resource contents",
    note = "return a `String` (text), `Vec<u8>` (bytes, sent base64), `Json<T>`, `ResourceContents`, `Vec<ResourceContents>`, a `ReadResourceResult`, an `Option` of one of these (`None`: not found), or a `Result<T, E>` where `E: Display` (`Err(ResourceNotFound)`: not found)"
)]
pub trait IntoReadResult {
    /// The conversion.
    #[doc(hidden)]
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError>;
}

fn one(contents: ResourceContents) -> Result<ReadResourceResult, ResourceError> {
    Ok(ReadResourceResult { contents: vec![contents], meta: None })
}

impl IntoReadResult for String {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        one(ResourceContents::text(uri, mime_type.unwrap_or("text/plain"), self))
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        one(ResourceContents::blob(uri, mime_type.unwrap_or("application/octet-stream"), self))
    }
}

impl<T: Serialize> IntoReadResult for Json<T> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        let text =
            serde_json::to_string(&self.0).map_err(|e| ResourceError::Failed(format!("cannot serialize: {e}")))?;
        one(ResourceContents::text(uri, mime_type.unwrap_or("application/json"), text))
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        one(self)
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        Ok(ReadResourceResult { contents: self, meta: None })
    }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        Ok(self)
    }
}

impl<T: IntoReadResult> IntoReadResult for Option<T> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        self.ok_or(ResourceError::NotFound)?.into_read_result(uri, mime_type)
    }
}

impl<T: IntoReadResult, E: Display + 'static> IntoReadResult for Result<T, E> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, ResourceError> {
        match self {
            Ok(value) => value.into_read_result(uri, mime_type),
            Err(err) if (&err as &dyn std::any::Any).is::<ResourceNotFound>() => Err(ResourceError::NotFound),
            Err(err) => Err(ResourceError::Failed(err.to_string())),
        }
    }
}
