//! The protocol's wire vocabulary: versions, the method table, the lifecycle messages
//! (`initialize`, `Implementation` and its `Icon`s), the 2026-07-28 `_meta` keys and the sealed `requestState`.

mod meta;
mod method;
pub(crate) mod request_state;

pub(crate) use meta::{RequestMeta, meta_key};
pub(crate) use method::{Method, Target};

use crate::clip::clip;
use crate::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A name and version, and what a client may show about it: the server's `serverInfo`, or the
/// client's `clientInfo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// The program's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// A display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, in a sentence or two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons a client may show for it. Only the server's: a client's icons are not kept.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
}

impl Implementation {
    /// A name and version, nothing else.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
        }
    }

    /// The bytes of text it keeps (what a session counts for a client's `clientInfo`).
    pub(crate) fn text_bytes(&self) -> usize {
        let optional = |text: &Option<String>| text.as_ref().map_or(0, String::len);
        self.name.len()
            + self.version.len()
            + optional(&self.title)
            + optional(&self.description)
            + optional(&self.website_url)
    }
}

/// An icon a client may show for a tool, resource, prompt or the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: &'static str,
    /// The MIME type, when the URI does not make it clear.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'static str>,
    /// Sizes such as `48x48` or `any`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub sizes: &'static [&'static str],
}

/// A protocol revision this runtime speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05, the first public revision.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, tool annotations.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation.
    V2025_06_18,
    /// 2025-11-25: icons, URL elicitation, sampling with tools.
    V2025_11_25,
    /// 2026-07-28: stateless requests, `server/discover`, input-required results.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision of the initialize-handshake era, oldest first.
    pub const ALL: [Self; 4] = [Self::V2024_11_05, Self::V2025_03_26, Self::V2025_06_18, Self::V2025_11_25];
    /// The newest revision of the initialize-handshake era.
    pub const LATEST: Self = Self::V2025_11_25;
    /// The stateless revisions, whose requests carry their version in `_meta`.
    pub const STATELESS: [Self; 1] = [Self::V2026_07_28];

    /// Whether this is a stateless (2026-07-28 or later) revision.
    pub const fn is_stateless(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }

    /// The revision's date string, as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named by `version`, if this runtime speaks it.
    pub fn parse(version: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == version)
    }

    /// What to answer a client that asked for `requested`: the same revision when we speak it,
    /// otherwise our latest (the client then decides whether it can go on).
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested).unwrap_or(Self::LATEST)
    }
}

/// The error for reading a resource that does not exist, with the URI in `data`: -32002 up
/// to 2025-11-25, -32602 from 2026-07-28. Kept here so each version's code lives in one place.
pub(crate) fn resource_not_found(uri: &str, version: Option<ProtocolVersion>) -> ErrorObject {
    let code = if version.is_some_and(ProtocolVersion::is_stateless) { -32602 } else { -32002 };
    ErrorObject {
        code,
        message: "Resource not found".into(),
        data: Some(serde_json::json!({ "uri": clip(uri).to_string() })),
    }
}

/// `initialize` request parameters (the parts the server uses).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeParams {
    pub protocol_version: String,
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    pub client_info: Option<Implementation>,
}

/// `initialize` result.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeResult<'a> {
    pub protocol_version: &'static str,
    pub capabilities: &'a Value,
    pub server_info: &'a Implementation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_known_versions_and_falls_back_to_latest() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::negotiate(v.as_str()), v);
        }
        assert_eq!(ProtocolVersion::negotiate("2099-01-01"), ProtocolVersion::LATEST);
    }
}
