//! The Streamable HTTP handler (`McpHttpService`) driven through `hyper::service::Service::call`,
//! no sockets: a fresh service per input, a real session (initialized), then up to four
//! requests whose method, path, headers and body come from the input. Invariants: no panic,
//! no 5xx, every JSON body parses, and every POST body ends (a POST stream that never ends is
//! a wedged request).
#![no_main]

use arbitrary::Arbitrary;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::service::Service as _;
use hyper::{Method, Request, Response};
use mcp_runtime::http::{HttpConfig, McpBody, McpHttpService};
use mcp_runtime::prelude::*;
use std::sync::OnceLock;
use std::time::Duration;

/// Echoes its text.
#[mcp_tool]
fn echo(text: String) -> String {
    text
}

/// Adds two integers.
#[mcp_tool]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[derive(Arbitrary, Debug)]
struct Input {
    requests: Vec<Call>,
}

#[derive(Arbitrary, Debug)]
struct Call {
    method: u8,
    path: Option<String>,
    /// Send the session's id (else `session_id`, if any).
    with_session: bool,
    session_id: Option<String>,
    protocol_version: Option<Version>,
    accept: Option<u8>,
    content_type: Option<u8>,
    last_event_id: Option<String>,
    origin: Option<String>,
    host: Option<String>,
    extra: Vec<(String, Vec<u8>)>,
    body: Body,
}

#[derive(Arbitrary, Debug)]
enum Version {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Body {
    Raw(Vec<u8>),
    /// A JSON-RPC message with fuzzed parts: `{"jsonrpc":"2.0","id":<id>,"method":<m>,"params":<p>}`.
    Message {
        id: Option<String>,
        method: u8,
        params: String,
    },
}

const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/cancelled",
    "logging/setLevel",
    "resources/list",
    "prompts/list",
    "completion/complete",
    "server/discover",
    "subscriptions/listen",
    "shutdown",
];
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28"];

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap())
}

fn body_of(body: &Body) -> Vec<u8> {
    match body {
        Body::Raw(bytes) => bytes.clone(),
        Body::Message { id, method, params } => {
            let method = METHODS[*method as usize % METHODS.len()];
            let id = id.as_deref().map(|id| format!(r#""id":{id},"#)).unwrap_or_default();
            format!(r#"{{"jsonrpc":"2.0",{id}"method":"{method}","params":{params}}}"#).into_bytes()
        }
    }
}

fn request(call: &Call, session: Option<&str>) -> Option<Request<Full<Bytes>>> {
    let method = match call.method % 6 {
        0 | 1 | 2 => Method::POST,
        3 => Method::GET,
        4 => Method::DELETE,
        _ => Method::PUT,
    };
    let path = call.path.as_deref().unwrap_or("/mcp");
    let mut builder = Request::builder().method(method).uri(path);
    builder = builder.header("host", call.host.as_deref().unwrap_or("127.0.0.1"));
    let session = if call.with_session { session } else { call.session_id.as_deref() };
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    match &call.protocol_version {
        Some(Version::Known(i)) => {
            builder = builder.header("mcp-protocol-version", VERSIONS[*i as usize % VERSIONS.len()])
        }
        Some(Version::Other(v)) => builder = builder.header("mcp-protocol-version", v.as_str()),
        None => {}
    }
    let accept = ["application/json, text/event-stream", "application/json", "text/event-stream", "*/*", "text/html"];
    if let Some(i) = call.accept {
        builder = builder.header("accept", accept[i as usize % accept.len()]);
    }
    let content_type = ["application/json", "application/json; charset=utf-8", "text/plain", ""];
    if let Some(i) = call.content_type {
        builder = builder.header("content-type", content_type[i as usize % content_type.len()]);
    }
    if let Some(id) = &call.last_event_id {
        builder = builder.header("last-event-id", id.as_str());
    }
    if let Some(origin) = &call.origin {
        builder = builder.header("origin", origin.as_str());
    }
    for (name, value) in call.extra.iter().take(4) {
        builder = builder.header(name.as_str(), value.as_slice());
    }
    builder.body(Full::new(Bytes::from(body_of(&call.body)))).ok()
}

/// Reads a body to its end, or gives up after `limit` (an SSE stream may stay open).
async fn read(response: Response<McpBody>, limit: Duration) -> Option<Vec<u8>> {
    tokio::time::timeout(limit, response.into_body().collect()).await.ok().map(|b| b.unwrap().to_bytes().to_vec())
}

fn check(status: hyper::StatusCode, content_type: Option<&str>, bytes: &[u8]) {
    assert!(!status.is_server_error() || status == hyper::StatusCode::SERVICE_UNAVAILABLE, "status {status}");
    if content_type == Some("application/json") && !bytes.is_empty() {
        serde_json::from_slice::<serde_json::Value>(bytes).expect("a JSON body parses");
    }
}

async fn session(service: &McpHttpService) -> String {
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
    let request = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(initialize.as_bytes())))
        .unwrap();
    let response = service.call(request).await.unwrap();
    let id = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    read(response, Duration::from_secs(5)).await.expect("the initialize answer ends");
    id
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    runtime().block_on(async {
        let service = Server::new("fuzz", "0")
            .tools(tools![echo, add])
            .shutdown_grace(Duration::from_millis(10))
            .into_http_service(HttpConfig::default())
            .unwrap();
        let session = session(&service).await;
        for call in input.requests.iter().take(4) {
            let Some(request) = request(call, Some(&session)) else { continue };
            let is_post = request.method() == Method::POST;
            let response = service.call(request).await.unwrap();
            let status = response.status();
            let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
            if is_post {
                let bytes = read(response, Duration::from_secs(5)).await.expect("a POST's answer ends");
                check(status, content_type.as_deref(), &bytes);
            } else {
                // A GET stream stays open: read what is there, then drop it (a client leaving).
                let bytes = read(response, Duration::from_millis(1)).await.unwrap_or_default();
                check(status, content_type.as_deref(), &bytes);
            }
        }
        service.shutdown().await;
    });
});
