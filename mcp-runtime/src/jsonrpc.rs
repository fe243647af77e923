//! JSON-RPC 2.0 framing: decoding one incoming message, encoding responses and notifications.
//!
//! Decoding borrows from the input bytes; only `params` is copied out (as raw JSON) so a handler
//! can deserialize it later straight into its argument type.

use serde::de::Deserializer;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The standard JSON-RPC error codes, and this server's own (from the implementation-defined
/// range -32000 to -32019).
pub(crate) mod code {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    /// The session already runs as many requests as it may (`Server::max_requests_in_flight`).
    pub const TOO_MANY_REQUESTS: i32 = -32010;
    /// The request was still running when the server's shutdown grace ended.
    pub const SHUTTING_DOWN: i32 = -32011;
}

/// A request id: a string or an integer, as the spec allows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl RequestId {
    fn from_raw(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        if text.starts_with('"') {
            serde_json::from_str::<String>(text).ok().map(|s| Self::String(s.into()))
        } else {
            text.parse::<i64>().ok().map(Self::Number)
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => s.serialize_i64(*n),
            Self::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <Box<RawValue>>::deserialize(d)?;
        Self::from_raw(&raw).ok_or_else(|| serde::de::Error::custom("id must be a string or an integer"))
    }
}

/// A parse error's text without its position (" at line 1 column 9"), which means nothing to
/// the client.
pub(crate) fn without_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let text = match text.rfind(" at line ") {
        Some(at) if err.line() > 0 => &text[..at],
        _ => &text,
    };
    crate::clip::clip_problem(text).to_string()
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorObject {
    /// The error code.
    pub code: i32,
    /// A short human-readable description.
    pub message: String,
    /// Extra structured information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    /// An error with this code and message (codes from -32768 to -32000 are JSON-RPC's and
    /// MCP's; a vendor method's own errors take others).
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// -32602, invalid params: what a [vendor method](crate::Server::on_request) answers to
    /// params it cannot use.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }
}

/// One decoded incoming message.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    Request { id: RequestId, method: Cow<'a, str>, params: Option<&'a RawValue> },
    Notification { method: Cow<'a, str>, params: Option<&'a RawValue> },
    Response { id: RequestId, outcome: Result<&'a RawValue, ErrorObject> },
}

/// A message that could not be decoded, and the error response it deserves.
#[derive(Debug)]
pub(crate) struct Rejected {
    /// The id, when it could be read.
    pub id: Option<RequestId>,
    pub error: ErrorObject,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "borrowed")]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    /// Parsed only when present: an `ErrorObject` here would make the struct large enough for
    /// each of serde's moves of it to be a `memcpy` call (a fortieth of a call's time).
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Borrows a string without escapes: serde borrows a `Cow` field, but one inside an `Option`
/// it always copies.
fn borrowed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Option::<Borrowed<'de>>::deserialize(d).map(|text| text.map(|Borrowed(text)| text))
}

/// Keeps a field that is present but `null` (a plain `Option` would read it as absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Decodes one JSON-RPC message. The method name is borrowed unless it contains escapes.
pub(crate) fn decode(bytes: &[u8]) -> Result<Incoming<'_>, Rejected> {
    let reject = |id, code, message: &str| Rejected { id, error: ErrorObject::new(code, message) };
    // Check the shape first: serde would happily read a struct from an array.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err() {
            return Err(reject(None, code::PARSE_ERROR, "Parse error: invalid JSON"));
        }
        let message = match first {
            Some(b'[') => "Invalid Request: batches are not supported; send one message at a time",
            _ => "Invalid Request: a JSON-RPC message must be an object",
        };
        return Err(reject(None, code::INVALID_REQUEST, message));
    }
    // One UTF-8 check of the whole message, rather than one per borrowed field.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(reject(None, code::PARSE_ERROR, "Parse error: the message is not valid UTF-8"));
    };
    let envelope: Envelope<'_> = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(err) if err.is_syntax() || err.is_eof() => {
            return Err(reject(None, code::PARSE_ERROR, &format!("Parse error: {err}")));
        }
        Err(err) => return Err(reject(None, code::INVALID_REQUEST, &format!("Invalid Request: {err}"))),
    };
    let id = match envelope.id {
        None => None,
        Some(raw) => match RequestId::from_raw(raw) {
            Some(id) => Some(id),
            None => {
                return Err(reject(None, code::INVALID_REQUEST, "Invalid Request: id must be a string or an integer"));
            }
        },
    };
    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Err(reject(id, code::INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\""));
    }
    // `"params": null` is read as absent: some clients send it for parameterless methods.
    let params = envelope.params.filter(|p| p.get() != "null");
    match params.and_then(|p| p.get().as_bytes().first()) {
        None | Some(b'{') => {}
        // JSON-RPC allows positional params; MCP names every parameter. Refused here, before any
        // layer could read an array as a struct (serde reads one positionally).
        Some(b'[') => {
            let message = "Invalid params: params must be an object (MCP parameters are named, not positional)";
            return Err(reject(id, code::INVALID_PARAMS, message));
        }
        Some(_) => return Err(reject(id, code::INVALID_REQUEST, "Invalid Request: params must be an object")),
    }
    let message = match (envelope.method, id) {
        (Some(method), Some(id)) => Incoming::Request { id, method, params },
        (Some(method), None) => Incoming::Notification { method, params },
        (None, Some(id)) => {
            let error = envelope.error.filter(|e| e.get() != "null");
            let outcome = match (envelope.result, error) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => match serde_json::from_str(error.get()) {
                    Ok(error) => Err(error),
                    Err(err) => {
                        let message = format!("Invalid Request: error is not a JSON-RPC error object: {err}");
                        return Err(reject(Some(id), code::INVALID_REQUEST, &message));
                    }
                },
                _ => {
                    return Err(reject(
                        Some(id),
                        code::INVALID_REQUEST,
                        "Invalid Request: a response carries exactly one of result and error",
                    ));
                }
            };
            Incoming::Response { id, outcome }
        }
        (None, None) => {
            return Err(reject(None, code::INVALID_REQUEST, "Invalid Request: no method and no id"));
        }
    };
    Ok(message)
}

#[derive(Serialize)]
struct ResultResponse<'a, T: Serialize + ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a T,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    /// Absent when the id could not be read: the 2025-11-25 schema allows no `null` id.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    error: &'a ErrorObject,
}

#[derive(Serialize)]
struct Notification<'a, T: Serialize + ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a T,
}

#[derive(Serialize)]
struct Request<'a, T: Serialize + ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a T,
}

/// Room for a message's envelope, and for the newline a transport may add.
const ENVELOPE: usize = 128;

/// Serializing our own types cannot fail: they hold no maps with non-string keys and no
/// user `Serialize` impls that could error (user values are turned into `Value` first).
fn to_vec(value: &impl Serialize) -> Vec<u8> {
    let mut out = Vec::with_capacity(ENVELOPE);
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => out,
        Err(err) => {
            tracing::error!("failed to serialize an outgoing message: {err}");
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: unserializable message"}}"#
                .to_vec()
        }
    }
}

pub(crate) fn encode_result(id: &RequestId, result: &(impl Serialize + ?Sized)) -> Vec<u8> {
    to_vec(&ResultResponse { jsonrpc: "2.0", id, result })
}

/// [`encode_result`] for a result serialized already (a shared `tools/list` page): the same
/// bytes, in a buffer sized once, without serde's machinery around a copy.
pub(crate) fn encode_raw_result(id: &RequestId, result: &RawValue) -> Vec<u8> {
    frame(id, result.get().as_bytes())
}

fn frame(id: &RequestId, result: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + ENVELOPE);
    out.extend_from_slice(RESULT_HEAD);
    let _ = serde_json::to_writer(&mut out, id); // cannot fail: a string or an integer, into memory
    out.extend_from_slice(RESULT_FIELD);
    out.extend_from_slice(result);
    out.push(b'}');
    out
}

const RESULT_HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const RESULT_FIELD: &[u8] = br#","result":"#;

/// Room in front of a [`Serialized`] result for its response's envelope: with an id of up to
/// 32 bytes, the envelope fits.
const ROOM: usize = 64;

thread_local! {
    /// An answer's buffer its transport is done with (stdio's outbox copies small answers into
    /// the batch it writes): the next result this thread serializes goes into it, so a call
    /// answered at once allocates nothing for its answer.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The largest buffer kept for reuse: a large answer's is freed, not held by the thread.
const SPARE_UP_TO: usize = 4096;

/// Hands back an answer's buffer once its bytes were copied out, for the next answer.
pub(crate) fn recycle(mut buffer: Vec<u8>) {
    if buffer.capacity() <= SPARE_UP_TO {
        buffer.clear();
        SPARE.set(buffer);
    }
}

/// A handler's result, serialized behind room for its response's envelope, so the response
/// is made in place: one allocation per answer and no copy of the result.
pub(crate) struct Serialized(Vec<u8>);

impl Serialized {
    pub fn new(value: &(impl Serialize + ?Sized)) -> serde_json::Result<Self> {
        let mut bytes = SPARE.take();
        bytes.reserve(ROOM + ENVELOPE);
        bytes.resize(ROOM, b' ');
        serde_json::to_writer(&mut bytes, value)?;
        Ok(Self(bytes))
    }

    /// The result's JSON.
    pub fn get(&self) -> &str {
        std::str::from_utf8(&self.0[ROOM..]).expect("serde_json writes UTF-8")
    }

    /// The response carrying this result to request `id`.
    pub fn into_response(mut self, id: &RequestId) -> Vec<u8> {
        use std::io::Write as _;
        let mut room = &mut self.0[..ROOM];
        let fits = room.write_all(RESULT_HEAD).is_ok()
            && serde_json::to_writer(&mut room, id).is_ok()
            && room.write_all(RESULT_FIELD).is_ok();
        let unused = room.len();
        if !fits {
            return frame(id, &self.0[ROOM..]); // a long string id
        }
        let envelope = ROOM - unused;
        self.0.copy_within(ROOM.., envelope);
        self.0.truncate(self.0.len() - unused);
        self.0.push(b'}');
        self.0
    }
}

impl fmt::Debug for Serialized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Serialized").field(&self.get()).finish()
    }
}

impl Serialize for Serialized {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(self.get()).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

pub(crate) fn encode_error(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
    to_vec(&ErrorResponse { jsonrpc: "2.0", id, error })
}

pub(crate) fn encode_notification(method: &str, params: &(impl Serialize + ?Sized)) -> Vec<u8> {
    to_vec(&Notification { jsonrpc: "2.0", method, params })
}

pub(crate) fn encode_request(id: &RequestId, method: &str, params: &(impl Serialize + ?Sized)) -> Vec<u8> {
    to_vec(&Request { jsonrpc: "2.0", id, method, params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rejected(input: &str) -> Rejected {
        decode(input.as_bytes()).expect_err("should be rejected")
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        let d = decode(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert!(
            matches!(d, Incoming::Request { id: RequestId::String(s), method, params: None } if &*s == "a" && method == "ping")
        );
        let d = decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(d, Incoming::Notification { method, .. } if method == "notifications/initialized"));
        let d = decode(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#).unwrap();
        assert!(matches!(d, Incoming::Response { id: RequestId::Number(7), outcome: Ok(_) }));
        let d = decode(br#"{"jsonrpc":"2.0","id":7,"result":{},"error":null}"#).unwrap();
        assert!(matches!(d, Incoming::Response { outcome: Ok(_), .. }));
        let d = decode(br#"{"jsonrpc":"2.0","id":8,"error":{"code":-1,"message":"no"}}"#).unwrap();
        assert!(
            matches!(d, Incoming::Response { id: RequestId::Number(8), outcome: Err(e) } if e.code == -1 && e.message == "no")
        );
        let bad = rejected(r#"{"jsonrpc":"2.0","id":9,"error":{"code":"x"}}"#);
        assert_eq!((bad.id, bad.error.code), (Some(RequestId::Number(9)), code::INVALID_REQUEST));
    }

    #[test]
    fn the_method_is_borrowed_unless_it_has_escapes() {
        let d = decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#).unwrap();
        assert!(matches!(d, Incoming::Request { method: Cow::Borrowed("tools/call"), .. }));
        let d = decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#).unwrap();
        assert!(matches!(d, Incoming::Request { method: Cow::Owned(m), .. } if m == "tools/call"));
        assert_eq!(rejected(r#"{"jsonrpc":"2.0","id":1,"method":7}"#).error.code, code::INVALID_REQUEST);
    }

    #[test]
    fn rejects_malformed_messages_with_the_right_code() {
        assert_eq!(rejected("{not json").error.code, code::PARSE_ERROR);
        assert_eq!(rejected("[1,2]").error.code, code::INVALID_REQUEST);
        assert_eq!(rejected("42").error.code, code::INVALID_REQUEST);
        assert_eq!(rejected(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#).error.code, code::INVALID_REQUEST);
        assert_eq!(rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).error.code, code::INVALID_REQUEST);
        assert_eq!(rejected(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).error.code, code::INVALID_REQUEST);
        assert_eq!(rejected(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#).error.code, code::INVALID_REQUEST);
        assert!(rejected(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#).id.is_some());
    }

    #[test]
    fn results_serialized_ahead_are_encoded_as_serde_would() {
        let result = json!({"content": [{"type": "text", "text": "a\"b"}]});
        let raw = serde_json::value::to_raw_value(&result).unwrap();
        let long = "an id longer than the room left for the envelope in front of a result";
        for id in [
            RequestId::Number(7),
            RequestId::Number(i64::MIN),
            RequestId::String("x\"\\y\u{1}é".into()),
            RequestId::String(long.into()),
        ] {
            let expected = encode_result(&id, &result);
            assert_eq!(encode_raw_result(&id, &raw), expected, "{id}");
            assert_eq!(Serialized::new(&result).unwrap().into_response(&id), expected, "{id}");
        }
        assert_eq!(serde_json::to_string(&Serialized::new(&result).unwrap()).unwrap(), result.to_string());
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        let err = decode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").unwrap_err();
        assert_eq!(err.error.code, code::PARSE_ERROR);
    }
}
