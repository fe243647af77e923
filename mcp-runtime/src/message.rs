//! One incoming message, decoded once into what every layer decides by: the transport's
//! policy (bearer scopes, mirrored headers), the engine's routing and the handlers. The
//! members that decide where a request goes (its method, `name`, `uri` or `ref`, `_meta`) are read
//! here and nowhere else, so two layers can never read the same bytes two ways.

use crate::jsonrpc::{self, ErrorObject, Incoming, Rejected, RequestId, without_position};
use crate::protocol::{Method, Target, meta_key};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A decoded message.
pub(crate) enum Message<'a> {
    Request(Request<'a>),
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    /// The client's answer to a request of the server's.
    Response {
        id: RequestId,
        outcome: Result<&'a RawValue, ErrorObject>,
    },
}

/// The HTTP request captured for a handler that takes an `HttpRequest` (`None` for the others,
/// and off HTTP); nothing without feature `http`.
#[cfg(feature = "http")]
pub(crate) type HttpCapture = Option<crate::http_request::HttpRequest>;
/// The HTTP request captured for a handler: nothing without feature `http`.
#[cfg(not(feature = "http"))]
#[derive(Default)]
pub(crate) struct HttpCapture;

/// A request, borrowing from the bytes it was decoded from.
pub(crate) struct Request<'a> {
    pub id: RequestId,
    /// The method as sent.
    pub name: Cow<'a, str>,
    /// The method, when this server answers it.
    pub method: Option<Method>,
    /// The params object (absent for `{}`), for the members only its handler reads.
    pub params: Option<&'a RawValue>,
    /// What the request acts on: `params.name` or `params.uri`, as the method table says.
    pub target: Option<Cow<'a, str>>,
    /// `params.arguments`, raw: a tool's arguments (parsed by the tool), a prompt's.
    pub arguments: Option<&'a RawValue>,
    /// `params.task`, raw: a 2025-11-25 client asking for a task-augmented call.
    pub task: Option<&'a RawValue>,
    /// `params.ref`, raw: what a `completion/complete` completes (a prompt or a resource
    /// template), read here so the scope check and the completion read one copy.
    pub reference: Option<&'a RawValue>,
    /// `params._meta`, raw.
    pub meta: Option<&'a RawValue>,
    /// `_meta`, parsed, when it names a protocol version: the request is stateless.
    pub stateless_meta: Option<Map<String, Value>>,
    /// The client's network address (its host, as `transport/http/client.rs` reduces it), set by the HTTP transport
    /// for what counts per client; `None` as decoded (stdio, in memory).
    pub peer: Option<std::net::IpAddr>,
    /// The HTTP request it arrived in, borrowed while the engine receives it (set by the HTTP
    /// transport; `None` as decoded).
    #[cfg(feature = "http")]
    pub http: Option<crate::http_request::Arrival<'a>>,
}

impl Request<'_> {
    /// Whether the request is stateless (2026-07-28): it is `server/discover`, or its `_meta`
    /// names a protocol version.
    pub fn is_stateless(&self) -> bool {
        self.method == Some(Method::Discover) || self.stateless_meta.is_some()
    }

    /// `_meta` as an object (progress token, related task...).
    pub fn meta_object(&self) -> Result<Option<Map<String, Value>>, ErrorObject> {
        match (&self.stateless_meta, self.meta) {
            (Some(meta), _) => Ok(Some(meta.clone())),
            (None, None) => Ok(None),
            (None, Some(raw)) => serde_json::from_str(raw.get())
                .map(Some)
                .map_err(|_| ErrorObject::invalid_params("Invalid params: `_meta` must be an object")),
        }
    }

    /// The HTTP request, for a handler needing `required`: captured when the handler asks for
    /// it (an `HttpRequest` parameter) and the request came over HTTP, else nothing, at no cost.
    pub fn http_for(&self, required: &[crate::required_state::RequiredState]) -> HttpCapture {
        #[cfg(feature = "http")]
        return self.http.filter(|_| crate::http_request::asked(required)).map(crate::http_request::Arrival::capture);
        #[cfg(not(feature = "http"))]
        {
            let _ = required;
            HttpCapture
        }
    }

    /// The target the method requires, or -32602 naming the missing member.
    pub fn required_target(&self) -> Result<&str, ErrorObject> {
        let member = match self.method.map(Method::target) {
            Some(Target::Uri) => "uri",
            Some(Target::TaskId) => "taskId",
            _ => "name",
        };
        self.target
            .as_deref()
            .ok_or_else(|| ErrorObject::invalid_params(format!("Invalid params: missing field `{member}`")))
    }
}

/// The params members read for every request. Raw, so their types are checked only where
/// they matter (a method's target must be a string); a member given twice is refused.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "taskId")]
    task_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "ref")]
    reference: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

/// Decodes one JSON-RPC message, and a request's routing members.
pub(crate) fn decode(bytes: &[u8]) -> Result<Message<'_>, Rejected> {
    Ok(match jsonrpc::decode(bytes)? {
        Incoming::Request { id, method, params } => Message::Request(request(id, method, params)?),
        Incoming::Notification { method, params } => Message::Notification { method, params },
        Incoming::Response { id, outcome } => Message::Response { id, outcome },
    })
}

/// Whether `bytes` is a session's `initialize` request, which is answered without user code.
pub(crate) fn is_initialize(bytes: &[u8]) -> bool {
    matches!(decode(bytes), Ok(Message::Request(request)) if request.method == Some(Method::Initialize) && !request.is_stateless())
}

fn request<'a>(id: RequestId, name: Cow<'a, str>, params: Option<&'a RawValue>) -> Result<Request<'a>, Rejected> {
    let method = Method::parse(&name);
    let reject = |id: RequestId, error: ErrorObject| Rejected { id: Some(id), error };
    let members = match params {
        None => {
            Members { name: None, uri: None, task_id: None, arguments: None, task: None, reference: None, meta: None }
        }
        Some(params) => match serde_json::from_str::<Members<'a>>(params.get()) {
            Ok(members) => members,
            Err(err) => return Err(reject(id, invalid_params(&err))),
        },
    };
    let target = match method.map(Method::target) {
        Some(Target::Name) => members.name.map(|raw| text(raw, "name")),
        Some(Target::Uri) => members.uri.map(|raw| text(raw, "uri")),
        Some(Target::TaskId) => members.task_id.map(|raw| text(raw, "taskId")),
        Some(Target::None) | None => None,
    };
    let target = match target.transpose() {
        Ok(target) => target,
        Err(error) => return Err(reject(id, error)),
    };
    let stateless_meta = match members.meta.filter(|meta| mentions_protocol_version(meta.get())) {
        None => None,
        Some(meta) => match serde_json::from_str::<Map<String, Value>>(meta.get()) {
            Ok(meta) => Some(meta).filter(|meta| meta.contains_key(meta_key::PROTOCOL_VERSION)),
            Err(_) => return Err(reject(id, ErrorObject::invalid_params("Invalid params: `_meta` must be an object"))),
        },
    };
    Ok(Request {
        id,
        name,
        method,
        params,
        target,
        arguments: members.arguments,
        task: members.task,
        reference: members.reference,
        meta: members.meta,
        stateless_meta,
        peer: None,
        #[cfg(feature = "http")]
        http: None,
    })
}

/// A member that must be a string, borrowed unless it holds escapes.
fn text<'a>(raw: &'a RawValue, member: &str) -> Result<Cow<'a, str>, ErrorObject> {
    // A raw value is valid JSON already: a string without escapes is its own text.
    let plain = raw.get().strip_prefix('"').and_then(|text| text.strip_suffix('"'));
    if let Some(text) = plain.filter(|text| !text.contains('\\')) {
        return Ok(Cow::Borrowed(text));
    }
    #[derive(Deserialize)]
    struct Text<'a>(#[serde(borrow)] Cow<'a, str>);
    serde_json::from_str::<Text<'a>>(raw.get())
        .map(|Text(text)| text)
        .map_err(|err| ErrorObject::invalid_params(format!("Invalid params: `{member}`: {}", without_position(&err))))
}

fn invalid_params(err: &serde_json::Error) -> ErrorObject {
    ErrorObject::invalid_params(format!("Invalid params: {}", without_position(err)))
}

/// `params.contains(PROTOCOL_VERSION)` with a searcher built once, not for every request
/// (`str::contains` builds one each time: a twentieth of a `tools/call`; bench/NOTES.md).
fn mentions_protocol_version(params: &str) -> bool {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(meta_key::PROTOCOL_VERSION));
    FINDER.find(params.as_bytes()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(json: &str) -> Result<Request<'_>, Rejected> {
        match decode(json.as_bytes())? {
            Message::Request(request) => Ok(request),
            _ => panic!("not a request: {json}"),
        }
    }

    #[test]
    fn the_target_is_read_once_and_must_be_a_string() {
        let call =
            decoded(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a\u005fb","arguments":{}}}"#);
        assert!(matches!(call.unwrap().target, Some(Cow::Owned(name)) if name == "a_b"));
        let plain =
            decoded(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"é \/","arguments":{}}}"#);
        assert!(matches!(plain.unwrap().target, Some(Cow::Owned(name)) if name == "é /"));
        let plain = decoded(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"é_b"}}"#);
        assert!(matches!(plain.unwrap().target, Some(Cow::Borrowed("é_b"))));
        let read = decoded(r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x://y","name":5}}"#);
        assert_eq!(read.unwrap().target.as_deref(), Some("x://y"));
        let complete = r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"}}}"#;
        assert_eq!(
            decoded(complete).unwrap().reference.map(RawValue::get),
            Some(r#"{"type":"ref/prompt","name":"p"}"#)
        );
        for bad in [
            r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"ref":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["add"]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["add",{}]}"#,
        ] {
            let rejected = decoded(bad).err().expect(bad);
            assert_eq!(rejected.error.code, -32602, "{bad}");
            assert_eq!(rejected.id, Some(RequestId::Number(1)));
        }
    }

    #[test]
    fn a_request_is_stateless_when_its_meta_names_a_version() {
        let key = meta_key::PROTOCOL_VERSION;
        let stateless = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"{key}":"2026-07-28"}}}}}}"#
        );
        assert!(decoded(&stateless).unwrap().is_stateless());
        let mentioned =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"note":"{key}"}}}}}}"#);
        assert!(!decoded(&mentioned).unwrap().is_stateless());
        assert!(decoded(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#).unwrap().is_stateless());
    }

    #[test]
    fn the_protocol_version_key_is_found_like_str_contains() {
        let key = meta_key::PROTOCOL_VERSION;
        for params in [
            String::new(),
            "/".into(),
            "{\"path\":\"/a/b\"}".into(),
            format!("{{\"_meta\":{{\"{key}\":\"2026-07-28\"}}}}"),
            format!("{{\"x\":\"a/b\",\"_meta\":{{\"{key}\":1}}}}"),
            key[1..].to_owned(),
            key[..key.len() - 1].to_owned(),
            format!("é{key}"),
        ] {
            assert_eq!(mentions_protocol_version(&params), params.contains(key), "{params}");
        }
    }
}
