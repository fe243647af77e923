//! The router: method name to handler, for the requests the engine does not handle itself.

use crate::engine::session::{ClientState, Session};
use crate::jsonrpc::{ErrorObject, code};
use crate::logging::LoggingLevel;
use crate::protocol::{InitializeParams, InitializeResult, ProtocolVersion};
use crate::registry::Registry;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A successful answer, in whichever form is cheapest to produce.
pub(crate) enum Reply<'a> {
    /// Serialized ahead of time and shared (e.g. a `tools/list` page).
    Shared(&'a RawValue),
    /// Serialized for this answer.
    Raw(Box<RawValue>),
    /// A value to serialize.
    Value(serde_json::Value),
}

impl Reply<'_> {
    pub fn empty() -> Result<Self, ErrorObject> {
        Ok(Self::Value(serde_json::Value::Object(Default::default())))
    }

    pub fn method_not_found(method: &str) -> Result<Self, ErrorObject> {
        Err(ErrorObject::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}")))
    }
}

impl Serialize for Reply<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Shared(raw) => raw.serialize(s),
            Self::Raw(raw) => raw.serialize(s),
            Self::Value(value) => value.serialize(s),
        }
    }
}

/// Methods this router answers once the session is initialized.
const METHODS: &[&str] = &["tools/list", "tools/call", "logging/setLevel"];

pub(crate) fn is_known_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Parses `params`, absent counting as `{}`; a mismatch is -32602 naming the problem.
pub(crate) fn parse_params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    let json = params.map_or("{}", RawValue::get);
    serde_json::from_str(json).map_err(|err| ErrorObject::invalid_params(format!("Invalid params: {err}")))
}

pub(crate) fn initialize(session: &Session, params: Option<&RawValue>) -> Result<Reply<'static>, ErrorObject> {
    let params: InitializeParams = parse_params(params)?;
    let version = ProtocolVersion::negotiate(&params.protocol_version);
    let client = ClientState { version, info: params.client_info, capabilities: params.capabilities };
    if !session.set_client(client) {
        return Err(ErrorObject::new(code::INVALID_REQUEST, "Invalid Request: the session is already initialized"));
    }
    let server = &session.server;
    let result = InitializeResult {
        protocol_version: version.as_str(),
        capabilities: &capabilities(&server.catalog.snapshot()),
        server_info: &server.info,
        instructions: server.instructions.as_deref(),
    };
    to_reply(&result)
}

/// Capabilities follow from what is registered: nothing to declare twice.
fn capabilities(registry: &Registry) -> serde_json::Value {
    let mut capabilities = serde_json::json!({ "logging": {} });
    if !registry.tools.is_empty() {
        capabilities["tools"] = serde_json::json!({ "listChanged": true });
    }
    capabilities
}

pub(crate) fn route<'a>(
    registry: &'a Registry,
    session: &Session,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Reply<'a>, ErrorObject> {
    match method {
        "tools/list" => {
            let page = registry.tools.page(parse_params::<Paginated>(params)?.cursor.as_deref())?;
            Ok(Reply::Shared(page))
        }
        "logging/setLevel" => {
            #[derive(Deserialize)]
            struct SetLevel {
                level: LoggingLevel,
            }
            session.set_log_level(parse_params::<SetLevel>(params)?.level);
            Reply::empty()
        }
        _ => Reply::method_not_found(method),
    }
}

#[derive(Deserialize)]
struct Paginated {
    cursor: Option<String>,
}

fn to_reply(value: &impl Serialize) -> Result<Reply<'static>, ErrorObject> {
    serde_json::value::to_raw_value(value)
        .map(Reply::Raw)
        .map_err(|err| ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: {err}")))
}
