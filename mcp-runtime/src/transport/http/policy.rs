//! What is decided about a `POST`ed message before the engine runs it, on the one decoded
//! [`Message`] the engine then runs: whether the caller's token holds the scopes of the item
//! (tool, resource, prompt) the request will actually use, whether a 2026-07-28 request's
//! headers mirror its body (`Mcp-Param-*` ones in `mirrored.rs`), and which era serves it.

use super::body::{self, Answer};
use super::headers::{RequestHeaders, seen};
use super::mirrored::{self, decode_sentinel};
use super::service::Inner;
use crate::clip::clip;
use crate::engine::encode_rejected;
use crate::jsonrpc::{ErrorObject, Rejected};
use crate::message::{Message, Request};
use crate::protocol::{Method, Target, meta_key};
use hyper::StatusCode;
use hyper::header::{HeaderMap, HeaderName};
use serde_json::Value;

const METHOD: HeaderName = HeaderName::from_static("mcp-method");
const NAME: HeaderName = HeaderName::from_static("mcp-name");

/// Where an admitted `POST` goes.
pub(super) enum Route {
    /// A 2026-07-28 request: no session.
    Stateless,
    /// `initialize` without a session: a new session.
    Initialize,
    /// A message of an existing session (a request, or a notification or answer).
    Session { is_request: bool },
    /// A 2025-era message to a server without sessions (`HttpConfig::stateless`): served alone.
    Sessionless,
    /// Refused before the engine saw it, with this answer.
    Refused(Answer),
}

impl Inner {
    /// The route of a decoded message, or the answer that refuses it. `stateless_client`: the
    /// headers name a 2026-07-28 version.
    pub(super) fn admit(&self, headers: &RequestHeaders<'_>, message: &Message<'_>, stateless_client: bool) -> Route {
        let request = match message {
            Message::Request(request) => Some(request),
            Message::Notification { .. } | Message::Response { .. } => None,
        };
        #[cfg(feature = "auth")]
        if let Some(refusal) = request.and_then(|request| self.check_scopes(request)) {
            return Route::Refused(refusal);
        }
        let has_session = headers.session_id.first.is_some();
        // A request stamped 2026-07-28 (by its header or its body's `_meta`) is served by that
        // era's rules, session or not, so its headers must mirror its body wherever it goes.
        let stamped = request.filter(|request| stateless_client || request.is_stateless());
        if let Some(request) = stamped {
            let mismatch = header_mismatch(headers, request).or_else(|| self.param_mismatch(headers.all, request));
            if let Some(mismatch) = mismatch {
                let rejected = Rejected { id: Some(request.id.clone()), error: ErrorObject::new(-32020, mismatch) };
                return Route::Refused(body::json(StatusCode::BAD_REQUEST, encode_rejected(&rejected).bytes));
            }
        }
        // The header decides for a 2026-07-28 client; without a session, the body may say so.
        if stateless_client || (!has_session && stamped.is_some()) {
            return Route::Stateless;
        }
        if self.config.stateless {
            return Route::Sessionless;
        }
        match request {
            Some(request) if request.method == Some(Method::Initialize) && !has_session => Route::Initialize,
            request => Route::Session { is_request: request.is_some() },
        }
    }

    /// `Some(message)` when a `tools/call`'s `Mcp-Param-*` headers do not mirror its arguments.
    /// The tool is looked up only when some tool of the catalog mirrors arguments, and the
    /// arguments parsed only when this one does.
    fn param_mismatch(&self, headers: &HeaderMap, request: &Request<'_>) -> Option<String> {
        let (Some(Method::ToolsCall), Some(name)) = (request.method, request.target.as_deref()) else { return None };
        let registry = self.core.catalog.snapshot();
        if !registry.has_param_headers {
            return None;
        }
        let tool = registry.tools.get(name).filter(|tool| !tool.param_headers.is_empty())?;
        mirrored::param_mismatch(headers, tool.param_headers, request.arguments)
    }

    /// `403 insufficient_scope` for a request acting on an item whose scopes the caller lacks:
    /// a tool it calls, a resource it reads or subscribes to, a prompt it gets, a prompt or
    /// template it completes. The item is the one the router will use: found by the same
    /// decoded member in the same catalog (`auth::scopes::guarded`).
    #[cfg(feature = "auth")]
    fn check_scopes(&self, request: &Request<'_>) -> Option<Answer> {
        let (Some(guard), Some(caller)) = (&self.guard, crate::auth::current_caller()) else { return None };
        let registry = self.core.catalog.snapshot();
        let item = crate::auth::scopes::guarded(&registry, request)?;
        let missing = crate::auth::scopes::missing(item.scopes, &caller);
        if missing.is_empty() {
            return None;
        }
        let name = clip(item.name);
        tracing::debug!(item = %name, subject = caller.subject(), "refused a {} lacking the scopes {missing:?}", item.what);
        let description = format!("{} `{name}` needs the scopes: {}", item.what, missing.join(" "));
        Some(guard.insufficient_scope(&caller, item.scopes, &description, Some(&request.id)))
    }
}

/// `Some(message)` when the standard headers do not mirror a 2026-07-28 request's body.
fn header_mismatch(headers: &RequestHeaders<'_>, request: &Request<'_>) -> Option<String> {
    let method = &request.name;
    let body_version =
        request.stateless_meta.as_ref().and_then(|m| m.get(meta_key::PROTOCOL_VERSION)).and_then(Value::as_str);
    let version = match headers.protocol_version.mirror() {
        Ok(version) => version,
        Err(why) => return Some(why.message("MCP-Protocol-Version")),
    };
    // Values the client sent are echoed clipped: a header may be as long as hyper's limit.
    match (version, body_version) {
        (None, _) => return Some("Header mismatch: the MCP-Protocol-Version header is required".into()),
        (Some(header), Some(body)) if header != body => {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version header value '{}' does not match body value '{}'",
                clip(header),
                clip(body)
            ));
        }
        _ => {}
    }
    match seen(headers.all, METHOD).mirror() {
        Err(why) => return Some(why.message("Mcp-Method")),
        Ok(None) => return Some("Header mismatch: the Mcp-Method header is required".into()),
        Ok(Some(value)) if value != method => {
            return Some(format!(
                "Header mismatch: Mcp-Method header value '{}' does not match body value '{}'",
                clip(value),
                clip(method)
            ));
        }
        _ => {}
    }
    // `Mcp-Name` mirrors the target of the era's methods that have one.
    request.method.filter(|m| m.is_stateless() && m.target() != Target::None)?;
    let expected = request.target.as_deref().unwrap_or_default();
    match seen(headers.all, NAME).mirror() {
        Err(why) => Some(why.message("Mcp-Name")),
        Ok(None) => Some("Header mismatch: the Mcp-Name header is required".into()),
        Ok(Some(value)) => match decode_sentinel(value) {
            Some(decoded) if decoded == expected => None,
            Some(decoded) => Some(format!(
                "Header mismatch: Mcp-Name header value '{}' does not match body value '{}'",
                clip(&decoded),
                clip(expected)
            )),
            None => Some(format!("Header mismatch: Mcp-Name header value '{}' is not valid Base64", clip(value))),
        },
    }
}
