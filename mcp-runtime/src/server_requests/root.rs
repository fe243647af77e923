//! [`Root`]: a folder the client lets the server work in. Its own file because the session
//! layer caches the client's roots and sits below the requests that list them.

use crate::resource::uri_template::decode;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A root the client exposes (a `file://` URI, usually a folder).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// The local path of a `file://` root.
    pub fn path(&self) -> Option<PathBuf> {
        let rest = self.uri.strip_prefix("file://")?;
        let path = rest.strip_prefix("localhost").unwrap_or(rest);
        Some(PathBuf::from(decode(path)?))
    }
}
