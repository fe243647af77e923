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
    ErrorObject { code, message: "Resource not found".into(), data: Some(serde_json::json!({ "uri": uri })) }
}

/// `_meta` keys of the 2026-07-28 revision.
pub(crate) mod meta_key {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// What a 2026-07-28 request says about its client in `_meta`: every request carries it.
#[derive(Debug)]
pub(crate) struct RequestMeta {
    pub capabilities: Map<String, Value>,
    pub client_info: Option<Implementation>,
    /// Log messages are sent only when the request asks for a level.
    pub log_level: Option<crate::LoggingLevel>,
}

impl RequestMeta {
    /// Reads and checks `_meta`: -32602 when a required field is missing or malformed,
    /// -32022 (with the supported versions) when the version is not one we speak.
    pub fn parse(meta: Option<&Map<String, Value>>) -> Result<Self, ErrorObject> {
        use meta_key::*;
        let missing = |what: &str| ErrorObject::invalid_params(format!("Invalid params: `_meta.{what}` is required"));
        let meta = meta.ok_or_else(|| missing(PROTOCOL_VERSION))?;
        let version = meta.get(PROTOCOL_VERSION).and_then(Value::as_str).ok_or_else(|| missing(PROTOCOL_VERSION))?;
        if !ProtocolVersion::STATELESS.iter().any(|v| v.as_str() == version) {
            return Err(unsupported_version(version));
        }
        let capabilities = match meta.get(CLIENT_CAPABILITIES) {
            Some(Value::Object(capabilities)) => capabilities.clone(),
            _ => return Err(missing(CLIENT_CAPABILITIES)),
        };
        let client_info = meta.get(CLIENT_INFO).and_then(|v| serde_json::from_value(v.clone()).ok());
        let log_level = meta.get(LOG_LEVEL).and_then(|v| serde_json::from_value(v.clone()).ok());
        Ok(Self { capabilities, client_info, log_level })
    }
}

/// -32022 for a protocol version this server does not speak.
pub(crate) fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = ProtocolVersion::STATELESS.iter().map(|v| v.as_str()).collect();
    ErrorObject {
        code: -32022,
        message: format!("Unsupported protocol version: {requested}"),
        data: Some(serde_json::json!({ "supported": supported, "requested": requested })),
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
