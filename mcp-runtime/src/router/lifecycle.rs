//! `initialize` and `logging/setLevel`.

use super::{Reply, parse_params, to_raw};
use crate::core::ServerCore;
use crate::jsonrpc::{ErrorObject, code};
use crate::logging::LoggingLevel;
use crate::protocol::{InitializeParams, InitializeResult, ProtocolVersion};
use crate::registry::Registry;
use crate::session::{ClientState, Session};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

pub(crate) fn initialize(
    server: &ServerCore,
    session: &Session,
    params: Option<&RawValue>,
) -> Result<Reply<'static>, ErrorObject> {
    let params: InitializeParams = parse_params(params)?;
    let version = ProtocolVersion::negotiate(&params.protocol_version);
    let client = ClientState { version, info: params.client_info, capabilities: params.capabilities };
    if !session.set_client(client) {
        return Err(ErrorObject::new(code::INVALID_REQUEST, "Invalid Request: the session is already initialized"));
    }
    let result = InitializeResult {
        protocol_version: version.as_str(),
        capabilities: &capabilities(&server.catalog.snapshot()),
        server_info: &server.settings.info,
        instructions: server.settings.instructions.as_deref(),
    };
    to_raw(&result).map(Reply::Serialized)
}

/// Capabilities follow from what is registered: nothing to declare twice.
pub(crate) fn capabilities(registry: &Registry) -> serde_json::Value {
    let mut capabilities = json!({ "logging": {} });
    if !registry.tools.is_empty() {
        capabilities["tools"] = json!({ "listChanged": true });
    }
    if !registry.resources.is_empty() || !registry.templates.is_empty() {
        capabilities["resources"] = json!({ "subscribe": true, "listChanged": true });
    }
    if !registry.prompts.is_empty() {
        capabilities["prompts"] = json!({ "listChanged": true });
    }
    if registry.has_completions() {
        capabilities["completions"] = json!({});
    }
    capabilities
}

pub(crate) fn set_level(session: &Session, params: Option<&RawValue>) -> Result<Reply<'static>, ErrorObject> {
    #[derive(Deserialize)]
    struct SetLevel {
        level: LoggingLevel,
    }
    session.set_log_level(parse_params::<SetLevel>(params)?.level);
    Reply::empty()
}
