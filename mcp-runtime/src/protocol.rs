//! Protocol versions and the shapes of the lifecycle messages (`initialize`).

use crate::jsonrpc::ErrorObject;
use crate::server::Implementation;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
}

impl ProtocolVersion {
    /// Every revision of the initialize-handshake era, oldest first.
    pub const ALL: [Self; 4] = [Self::V2024_11_05, Self::V2025_03_26, Self::V2025_06_18, Self::V2025_11_25];
    /// The newest revision of the initialize-handshake era.
    pub const LATEST: Self = Self::V2025_11_25;

    /// The revision's date string, as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
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

/// The error for reading a resource that does not exist: -32002 with the URI in `data`
/// (2025-11-25 and before). Kept here so each protocol version's code lives in one place.
pub(crate) fn resource_not_found(uri: &str, _version: Option<ProtocolVersion>) -> ErrorObject {
    ErrorObject { code: -32002, message: "Resource not found".into(), data: Some(serde_json::json!({ "uri": uri })) }
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
