//! Whole HTTP/1.1 requests on the wire: each input is up to four requests described by their
//! parts (method, target, headers including a bearer token described by its parts, a JSON-RPC
//! body built from an id, a method, a tool call or any JSON, and its framing: `Content-Length`
//! right or wrong, or chunked), written as bytes to hyper's HTTP/1 server over an in-memory
//! connection that serves `McpHttpService` with authorization on (`authorized_server.rs`). A
//! session is started first with Alice's token. Invariants: no panic, every answer starts with
//! an HTTP/1.1 status line, no 5xx, nothing but the metadata (and a CORS preflight's empty
//! `204`) answered 2xx without a valid token, `erase` never run without `files:write`, Alice's session served to her only.
#![no_main]

mod authorized_server;

use arbitrary::Arbitrary;
use authorized_server::{Authorization, Sent, Token, Watch};
use hyper::StatusCode;
use hyper_util::rt::TokioIo;
use mcp_runtime::http::McpHttpService;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

#[derive(Arbitrary, Deserialize, Debug)]
struct Input {
    requests: Vec<WireRequest>,
}

#[derive(Arbitrary, Deserialize, Debug)]
struct WireRequest {
    method: HttpMethod,
    target: Target,
    authorization: Option<Authorization>,
    session: SessionId,
    protocol_version: Option<ProtocolVersion>,
    accept: Option<Accept>,
    content_type: Option<ContentType>,
    /// Further headers, names and values as given (hyper refuses the malformed ones: a 400).
    extra_headers: Vec<(String, String)>,
    body: Body,
    framing: Framing,
}

#[derive(Arbitrary, Deserialize, Debug)]
enum HttpMethod {
    Post,
    Get,
    Delete,
    Put,
    Options,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Target {
    Endpoint,
    /// The endpoint with a query string.
    EndpointWithQuery(String),
    Metadata,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum SessionId {
    None,
    /// The session the target started with Alice's token.
    Alice,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum ProtocolVersion {
    V2025_11_25,
    V2025_03_26,
    V2026_07_28,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Accept {
    Both,
    Json,
    EventStream,
    Any,
    JsonRefused,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum ContentType {
    Json,
    JsonUtf8,
    JsonUtf16,
    Text,
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Body {
    Empty,
    Message(Message),
    Batch(Vec<Message>),
    Raw(Vec<u8>),
}

/// A JSON-RPC message from its parts.
#[derive(Arbitrary, Deserialize, Debug)]
struct Message {
    id: Option<Id>,
    method: RpcMethod,
    params: Option<Params>,
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Id {
    Number(i64),
    Text(String),
    Null,
    Float(f64),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum RpcMethod {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Params {
    /// `tools/call` params naming one of the tools.
    ToolCall {
        tool: u8,
        arguments: Json,
    },
    /// `initialize` params with a chosen version.
    Initialize {
        version: ProtocolVersion,
        capabilities: Json,
    },
    Any(Json),
}

/// Any JSON value.
#[derive(Arbitrary, Deserialize, Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(i64),
    Float(f64),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Framing {
    ContentLength,
    /// A `Content-Length` this much off (short or long).
    WrongLength(i16),
    /// Chunked, in chunks of these sizes (the rest in one chunk).
    Chunked(Vec<u8>),
    /// No length at all.
    Unframed,
}

const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/list",
    "server/discover",
    "subscriptions/listen",
];

impl ProtocolVersion {
    fn text(&self) -> &str {
        match self {
            Self::V2025_11_25 => "2025-11-25",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2026_07_28 => "2026-07-28",
            Self::Other(text) => text,
        }
    }
}

impl Json {
    fn value(&self, depth: usize) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => (*b).into(),
            Self::Number(n) => (*n).into(),
            Self::Float(f) => json!(f),
            Self::Text(text) => text.as_str().into(),
            _ if depth > 8 => Value::Null,
            Self::Array(items) => items.iter().map(|item| item.value(depth + 1)).collect(),
            Self::Object(members) => {
                members.iter().map(|(k, v)| (k.clone(), v.value(depth + 1))).collect::<Map<_, _>>().into()
            }
        }
    }
}

impl Message {
    fn value(&self) -> Value {
        let method = match &self.method {
            RpcMethod::Known(i) => METHODS[*i as usize % METHODS.len()],
            RpcMethod::Other(name) => name,
        };
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(id) = &self.id {
            message["id"] = match id {
                Id::Number(n) => (*n).into(),
                Id::Text(text) => text.as_str().into(),
                Id::Null => Value::Null,
                Id::Float(f) => json!(f),
            };
        }
        if let Some(params) = &self.params {
            message["params"] = match params {
                Params::ToolCall { tool, arguments } => {
                    let name = authorized_server::TOOLS[*tool as usize % authorized_server::TOOLS.len()];
                    json!({"name": name, "arguments": arguments.value(0)})
                }
                Params::Initialize { version, capabilities } => json!({
                    "protocolVersion": version.text(), "capabilities": capabilities.value(0),
                    "clientInfo": {"name": "fuzz", "version": "0"}}),
                Params::Any(value) => value.value(0),
            };
        }
        message
    }
}

impl WireRequest {
    fn path(&self) -> String {
        match &self.target {
            Target::Endpoint => "/mcp".to_owned(),
            Target::EndpointWithQuery(query) => format!("/mcp?{}", query.replace([' ', '\r', '\n'], "")),
            Target::Metadata => "/.well-known/oauth-protected-resource/mcp".to_owned(),
            Target::Other(path) => path.replace([' ', '\r', '\n'], ""),
        }
    }

    fn body(&self) -> Vec<u8> {
        match &self.body {
            Body::Empty => Vec::new(),
            Body::Message(message) => message.value().to_string().into_bytes(),
            Body::Batch(messages) => {
                Value::from_iter(messages.iter().take(8).map(Message::value)).to_string().into_bytes()
            }
            Body::Raw(bytes) => bytes.clone(),
        }
    }

    /// Whether it goes to Alice's session (a 2026-07-28 header makes a POST stateless: it
    /// ignores the session id).
    fn on_alice_session(&self) -> bool {
        matches!(self.session, SessionId::Alice)
            && !self.protocol_version.as_ref().is_some_and(|v| v.text().contains("2026-07-28"))
    }

    /// The request as bytes on the wire.
    fn wire(&self, alice_session: &str) -> Vec<u8> {
        let method = match &self.method {
            HttpMethod::Post => "POST",
            HttpMethod::Get => "GET",
            HttpMethod::Delete => "DELETE",
            HttpMethod::Put => "PUT",
            HttpMethod::Options => "OPTIONS",
            HttpMethod::Other(name) => name,
        };
        let mut out = format!("{method} {} HTTP/1.1\r\nhost: 127.0.0.1\r\n", self.path()).into_bytes();
        let mut header = |name: &str, value: &[u8]| {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend(value.iter().filter(|b| !matches!(b, b'\r' | b'\n')));
            out.extend_from_slice(b"\r\n");
        };
        if let Some(authorization) = &self.authorization {
            header("authorization", &authorization.header_value());
        }
        match &self.session {
            SessionId::None => {}
            SessionId::Alice => header("mcp-session-id", alice_session.as_bytes()),
            SessionId::Other(id) => header("mcp-session-id", id.as_bytes()),
        }
        if let Some(version) = &self.protocol_version {
            header("mcp-protocol-version", version.text().as_bytes());
        }
        if let Some(accept) = &self.accept {
            let value = match accept {
                Accept::Both => "application/json, text/event-stream",
                Accept::Json => "application/json",
                Accept::EventStream => "text/event-stream",
                Accept::Any => "*/*",
                Accept::JsonRefused => "application/json;q=0, text/event-stream",
                Accept::Other(value) => value,
            };
            header("accept", value.as_bytes());
        }
        if let Some(content_type) = &self.content_type {
            let value = match content_type {
                ContentType::Json => "application/json",
                ContentType::JsonUtf8 => "application/json; charset=utf-8",
                ContentType::JsonUtf16 => "application/json; charset=utf-16",
                ContentType::Text => "text/plain",
                ContentType::Other(value) => value,
            };
            header("content-type", value.as_bytes());
        }
        for (name, value) in self.extra_headers.iter().take(4) {
            header(name.trim_end_matches(':'), value.as_bytes());
        }
        let body = self.body();
        match &self.framing {
            Framing::ContentLength => header("content-length", body.len().to_string().as_bytes()),
            Framing::WrongLength(off) => {
                let length = (body.len() as i64 + i64::from(*off)).max(0);
                header("content-length", length.to_string().as_bytes());
            }
            Framing::Chunked(_) => header("transfer-encoding", b"chunked"),
            Framing::Unframed => {}
        }
        out.extend_from_slice(b"\r\n");
        if let Framing::Chunked(sizes) = &self.framing {
            let mut rest = body.as_slice();
            for &size in sizes.iter().chain(std::iter::once(&u8::MAX)) {
                let (chunk, tail) = rest.split_at((size as usize).max(1).min(rest.len()));
                if chunk.is_empty() {
                    break;
                }
                out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                out.extend_from_slice(chunk);
                out.extend_from_slice(b"\r\n");
                rest = tail;
            }
            out.extend_from_slice(b"0\r\n\r\n");
        } else {
            out.extend_from_slice(&body);
        }
        out
    }
}

/// Sends `request` on a fresh connection to `service` and returns what came back before the
/// connection closed or went quiet (an SSE stream stays open: what it sent so far).
async fn exchange(service: &McpHttpService, request: &[u8]) -> Vec<u8> {
    let (mut client, server) = tokio::io::duplex(64 * 1024);
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(server), service.clone());
    let serving = tokio::spawn(connection);
    let mut answer = Vec::new();
    if client.write_all(request).await.is_ok() {
        let mut buffer = [0; 16 * 1024];
        while let Ok(Ok(read)) = tokio::time::timeout(Duration::from_secs(30), client.read(&mut buffer)).await {
            if read == 0 || answer.len() > 1 << 20 {
                break;
            }
            answer.extend_from_slice(&buffer[..read]);
            // One answer per exchange: stop once a whole non-streaming one is in.
            if complete(&answer) {
                break;
            }
        }
    }
    drop(client);
    serving.abort();
    answer
}

/// A response's head (lower case) and where its body starts, once the head is complete.
fn head(answer: &[u8]) -> Option<(String, usize)> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    Some((String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase(), end))
}

/// A header's value in a lower-cased head.
fn field<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(':')).map(str::trim)
}

/// Whether `answer` holds a whole response with a `Content-Length` body.
fn complete(answer: &[u8]) -> bool {
    let Some((head, end)) = head(answer) else { return false };
    field(&head, "content-length")
        .and_then(|v| v.parse().ok())
        .is_some_and(|length: usize| answer.len() >= end + length)
}

/// The status and content type of the first response in `answer`, and its body (what arrived
/// of it; a request whose framing left bytes over may have drawn a second response after it).
fn parse(answer: &[u8]) -> (StatusCode, Option<String>, &[u8]) {
    assert!(answer.starts_with(b"HTTP/1.1 "), "not an HTTP/1.1 answer: {:?}", String::from_utf8_lossy(answer));
    let code = std::str::from_utf8(&answer[9..12]).ok().and_then(|code| code.parse().ok()).expect("a status code");
    let status = StatusCode::from_u16(code).expect("a valid status code");
    let (head, end) = head(answer).unwrap_or_else(|| (String::new(), answer.len()));
    let body = &answer[end..];
    match field(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        Some(length) => {
            let content_type = field(&head, "content-type").map(str::to_owned);
            (status, content_type, &body[..length.min(body.len())])
        }
        // A chunked (SSE) body is not parsed as JSON.
        None => (status, None, body),
    }
}

/// Starts Alice's session; its id.
async fn alice_session(service: &McpHttpService) -> String {
    let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: {}\r\naccept: application/json\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        Token::alice().header_value(),
        body.len()
    );
    let answer = exchange(service, request.as_bytes()).await;
    let (head, _) = head(&answer).expect("an answer to initialize");
    field(&head, "mcp-session-id").expect("a session id").to_owned()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(input) = authorized_server::decode::<Input>(data) else { return };
    authorized_server::runtime().block_on(async {
        let service = authorized_server::service();
        let session = alice_session(&service).await;
        for request in input.requests.iter().take(4) {
            let path = request.path();
            let path = path.split('?').next().unwrap_or_default();
            let watch = Watch::start();
            let answer = exchange(&service, &request.wire(&session)).await;
            if answer.is_empty() {
                // No answer (hyper closed the connection, or the request never ended).
                watch.check_unanswered(request.authorization.as_ref());
                continue;
            }
            let (status, content_type, body) = parse(&answer);
            let sent = Sent {
                path,
                authorization: request.authorization.as_ref(),
                on_alice_session: request.on_alice_session(),
                preflight: matches!(request.method, HttpMethod::Options),
            };
            watch.check(&sent, status, content_type.as_deref(), body);
        }
        service.shutdown().await;
    });
});
