//! Stateless (2026-07-28) requests over HTTP: no session; the standard headers (`MCP-Protocol-
//! Version`, `Mcp-Method`, `Mcp-Name`) must mirror the body (400 + -32020 otherwise); errors
//! carry their HTTP status (400 for invalid requests, 404 for unknown methods); and closing
//! the response stream cancels the request.

use super::body::{self, Answer};
use super::{Accepts, PROTOCOL_VERSION, header};
use crate::engine::Connection;
use crate::engine::outgoing::Outgoing;
use crate::jsonrpc::{self, ErrorObject, RequestId};
use crate::protocol::{ProtocolVersion, meta_key};
use crate::server::ServerCore;
use base64::Engine as _;
use hyper::StatusCode;
use hyper::header::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio::sync::mpsc;

const METHOD: &str = "mcp-method";
const NAME: &str = "mcp-name";

/// The body fields the headers mirror.
#[derive(Deserialize)]
pub(super) struct Mirrored {
    id: Option<RequestId>,
    method: Option<String>,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    name: Option<Value>,
    uri: Option<Value>,
    #[serde(rename = "_meta")]
    meta: Option<Map<String, Value>>,
}

/// `Some` when a POST is stateless: its `MCP-Protocol-Version` header names a stateless
/// version, or, without a session, its body says so (`_meta` or `server/discover`). It holds
/// the body's mirrored fields, read once for [`post`] (`None` if they cannot be read).
pub(super) fn stateless_body(headers: &HeaderMap, bytes: &[u8], has_session: bool) -> Option<Option<Mirrored>> {
    let header_says = header(headers, PROTOCOL_VERSION)
        .is_some_and(|v| ProtocolVersion::STATELESS.iter().any(|s| s.as_str() == v.trim()));
    if !header_says && has_session {
        return None;
    }
    let body = serde_json::from_slice::<Mirrored>(bytes).ok();
    (header_says || body.as_ref().is_some_and(Mirrored::says_stateless)).then_some(body)
}

impl Mirrored {
    fn says_stateless(&self) -> bool {
        let meta = self.params.as_ref().and_then(|p| p.meta.as_ref());
        self.method.as_deref().is_some_and(|method| crate::engine::says_stateless(method, meta))
    }
}

/// `Some(message)` when the standard headers do not mirror the body.
fn header_mismatch(headers: &HeaderMap, body: &Mirrored) -> Option<String> {
    let Some(method) = &body.method else { return None }; // a response: nothing to mirror
    body.id.as_ref()?; // notifications carry no required headers
    let params = body.params.as_ref();
    let body_version =
        params.and_then(|p| p.meta.as_ref()).and_then(|m| m.get(meta_key::PROTOCOL_VERSION)).and_then(Value::as_str);
    match (header(headers, PROTOCOL_VERSION).map(str::trim), body_version) {
        (None, _) => return Some("Header mismatch: the MCP-Protocol-Version header is required".into()),
        (Some(header), Some(body)) if header != body => {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version header value '{header}' does not match body value '{body}'"
            ));
        }
        _ => {}
    }
    match header(headers, METHOD).map(str::trim) {
        None => return Some("Header mismatch: the Mcp-Method header is required".into()),
        Some(value) if value != method => {
            return Some(format!(
                "Header mismatch: Mcp-Method header value '{value}' does not match body value '{method}'"
            ));
        }
        _ => {}
    }
    let named = match method.as_str() {
        "tools/call" | "prompts/get" => params.and_then(|p| p.name.as_ref()),
        "resources/read" => params.and_then(|p| p.uri.as_ref()),
        _ => return None,
    };
    let expected = named.and_then(Value::as_str).unwrap_or_default();
    match header(headers, NAME).map(str::trim) {
        None => Some("Header mismatch: the Mcp-Name header is required".into()),
        Some(value) => match decode_sentinel(value) {
            Some(decoded) if decoded == expected => None,
            Some(decoded) => Some(format!(
                "Header mismatch: Mcp-Name header value '{decoded}' does not match body value '{expected}'"
            )),
            None => Some(format!("Header mismatch: Mcp-Name header value '{value}' is not valid Base64")),
        },
    }
}

/// A header value, decoding the `=?base64?...?=` sentinel form; `None` when it is malformed.
fn decode_sentinel(value: &str) -> Option<String> {
    match value.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_owned()),
    }
}

/// The HTTP status of a stateless error response.
fn status_of(response: &[u8]) -> StatusCode {
    #[derive(Deserialize)]
    struct Response {
        error: Option<ErrorObject>,
    }
    match serde_json::from_slice::<Response>(response).ok().and_then(|r| r.error).map(|e| e.code) {
        Some(jsonrpc::code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(-32602 | -32600 | -32700 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Serves one stateless POST, whose mirrored fields [`stateless_body`] read.
pub(super) async fn post(
    core: &Arc<ServerCore>,
    headers: &HeaderMap,
    bytes: &[u8],
    body: Option<Mirrored>,
    accepts: Accepts,
) -> Answer {
    let Some(body) = body else {
        let error = ErrorObject::invalid_params("Invalid Request: not a JSON-RPC message");
        return body::json(StatusCode::BAD_REQUEST, jsonrpc::encode_error(None, &error));
    };
    if let Some(message) = header_mismatch(headers, &body) {
        let error = ErrorObject::new(-32020, message);
        return body::json(StatusCode::BAD_REQUEST, jsonrpc::encode_error(body.id.as_ref(), &error));
    }
    let connection = Connection::stateless(Arc::clone(core));
    let (sink, mut messages) = mpsc::channel::<Outgoing>(64);
    connection.receive(bytes, &sink).await;
    drop(sink);
    let Some(first) = messages.recv().await else {
        return body::empty(StatusCode::ACCEPTED); // a notification: nothing to say
    };
    if first.is_response {
        return body::json(status_of(&first.bytes), first.bytes);
    }
    if !accepts.sse {
        // JSON only: the request's notifications have nowhere to go; wait for the response.
        while let Some(message) = messages.recv().await {
            if message.is_response {
                return body::json(status_of(&message.bytes), message.bytes);
            }
        }
        return body::empty(StatusCode::ACCEPTED);
    }
    // The stream owns the connection: when the client closes it, the request is cancelled.
    body::message_stream(first, messages, connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_values_are_decoded() {
        assert_eq!(decode_sentinel("get_weather"), Some("get_weather".into()));
        assert_eq!(decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?="), Some("Hello, 世界".into()));
        assert_eq!(decode_sentinel("=?base64?!!!?="), None);
    }

    #[test]
    fn errors_map_to_their_status() {
        assert_eq!(
            status_of(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status_of(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"x"}}"#),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status_of(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), StatusCode::OK);
    }
}
