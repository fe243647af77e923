//! What a 2026-07-28 request says about its client in `_meta`, and the keys it uses.

use super::{Implementation, ProtocolVersion};
use crate::jsonrpc::ErrorObject;
use crate::logging::LoggingLevel;
use serde_json::{Map, Value};

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
    pub log_level: Option<LoggingLevel>,
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
