//! `initialize` and `logging/setLevel`.

use super::reply::{Reply, parse_params, to_raw};
use crate::core::ServerCore;
use crate::jsonrpc::{ErrorObject, code};
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, InitializeParams, InitializeResult, ProtocolVersion};
use crate::registry::Registry;
use crate::session::budget::{OverBudget, members_bytes};
use crate::session::{ClientState, Session};
use crate::settings::Settings;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

/// The most a client's `capabilities` and `clientInfo` may take, as the budget counts them:
/// real ones take a few hundred bytes, and a session keeps them for its whole life.
const MAX_CLIENT_DESCRIPTION: usize = 64 * 1024;

pub(crate) fn initialize(
    server: &ServerCore,
    session: &Session,
    params: Option<&RawValue>,
) -> Result<Reply<'static>, ErrorObject> {
    let params: InitializeParams = parse_params(params)?;
    let version = ProtocolVersion::negotiate(&params.protocol_version);
    if session.client().is_some() {
        return Err(already_initialized());
    }
    // The session keeps what the client says about itself: it counts against its budget.
    let info_bytes = params.client_info.as_ref().map_or(0, Implementation::text_bytes);
    let bytes = members_bytes(&params.capabilities) + info_bytes;
    if bytes > MAX_CLIENT_DESCRIPTION {
        return Err(ErrorObject::invalid_params(format!(
            "Invalid params: `capabilities` and `clientInfo` take {bytes} bytes; this server keeps at most {MAX_CLIENT_DESCRIPTION}"
        )));
    }
    session.budget.try_reserve(bytes).map_err(OverBudget::into_error)?;
    let client = ClientState::new(&server.settings, version, params.client_info, params.capabilities);
    if !session.set_client(client) {
        session.budget.release(bytes);
        return Err(already_initialized());
    }
    let registry = server.catalog.snapshot();
    let mut capabilities = capabilities(&server.settings, &registry);
    // Without sessions nothing reaches a 2025-era client but the answers to its requests: no
    // list changes, no resource updates.
    if session.is_sessionless()
        && let Some(capabilities) = capabilities.as_object_mut()
    {
        for primitive in capabilities.values_mut().filter_map(serde_json::Value::as_object_mut) {
            primitive.remove("listChanged");
            primitive.remove("subscribe");
        }
    }
    // 2025-11-25's experimental tasks, for tools that run as tasks.
    if version >= ProtocolVersion::V2025_11_25 && registry.has_task_tools {
        capabilities["tasks"] = json!({ "cancel": {}, "requests": { "tools": { "call": {} } } });
    }
    let result = InitializeResult {
        protocol_version: version.as_str(),
        capabilities: &capabilities,
        server_info: &server.settings.info,
        instructions: server.settings.instructions.as_deref(),
    };
    to_raw(&result).map(Reply::Serialized)
}

fn already_initialized() -> ErrorObject {
    ErrorObject::new(code::INVALID_REQUEST, "Invalid Request: the session is already initialized")
}

/// Capabilities follow from what is registered: nothing to declare twice. The vendor
/// extensions the server declared (`Server::extension`) go in `extensions`.
pub(crate) fn capabilities(server: &Settings, registry: &Registry) -> serde_json::Value {
    let mut capabilities = json!({ "logging": {} });
    if !server.extensions.is_empty() {
        capabilities["extensions"] = serde_json::Value::Object(server.extensions.clone());
    }
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
