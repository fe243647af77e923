//! The Streamable HTTP handler (`McpHttpService`) with authorization on, driven through
//! `hyper::service::Service::call`, no sockets: a fresh service per input, a real session
//! (initialized with Alice's token), then up to four requests whose method, path, headers,
//! bearer token (described by its parts: subject, scopes, expiry, audience, issuer, signature)
//! and body come from the input. Invariants (`authorized_server.rs`): no panic, no 5xx, every
//! JSON body parses, every POST body ends, nothing but the metadata answered 2xx without a
//! valid token, `erase` never run without `files:write`, Alice's session served to her only.
#![no_main]

mod authorized_server;

use arbitrary::Arbitrary;
use authorized_server::{Authorization, Sent, Token, Watch};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::service::Service as _;
use hyper::{Method, Request, Response};
use mcp_runtime::http::{McpBody, McpHttpService};
use serde::Deserialize;
use std::time::Duration;

#[derive(Arbitrary, Deserialize, Debug)]
struct Input {
    requests: Vec<Call>,
}

#[derive(Arbitrary, Deserialize, Debug)]
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
    authorization: Option<Authorization>,
    extra: Vec<(String, Vec<u8>)>,
    body: Body,
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Version {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Deserialize, Debug)]
enum Body {
    Raw(Vec<u8>),
    /// A JSON-RPC message with fuzzed parts: `{"jsonrpc":"2.0","id":<id>,"method":<m>,"params":<p>}`.
    Message {
        id: Option<String>,
        method: u8,
        params: String,
    },
    /// A `tools/call` of one of the tools (`erase` needs a scope).
    Call {
        id: i64,
        tool: u8,
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

fn body_of(body: &Body) -> Vec<u8> {
    match body {
        Body::Raw(bytes) => bytes.clone(),
        Body::Message { id, method, params } => {
            let method = METHODS[*method as usize % METHODS.len()];
            let id = id.as_deref().map(|id| format!(r#""id":{id},"#)).unwrap_or_default();
            format!(r#"{{"jsonrpc":"2.0",{id}"method":"{method}","params":{params}}}"#).into_bytes()
        }
        Body::Call { id, tool } => {
            let name = authorized_server::TOOLS[*tool as usize % authorized_server::TOOLS.len()];
            let params = serde_json::json!({"name": name, "arguments": {"text": "t", "a": 1, "b": 2}});
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string()
                .into_bytes()
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
    if let Some(authorization) = &call.authorization {
        builder = builder.header("authorization", authorization.header_value());
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

async fn session(service: &McpHttpService) -> String {
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
    let request = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("authorization", Token::alice().header_value())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(initialize.as_bytes())))
        .unwrap();
    let response = service.call(request).await.unwrap();
    let id = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    read(response, Duration::from_secs(5)).await.expect("the initialize answer ends");
    id
}

/// Whether a request goes to Alice's session: it names it, and no 2026-07-28 header makes it
/// stateless (a stateless POST ignores the session id).
fn on_session(call: &Call, session: &str) -> bool {
    let names_it = if call.with_session { true } else { call.session_id.as_deref() == Some(session) };
    let stateless = match &call.protocol_version {
        Some(Version::Known(i)) => VERSIONS[*i as usize % VERSIONS.len()] == "2026-07-28",
        Some(Version::Other(v)) => v.contains("2026-07-28"),
        None => false,
    };
    names_it && !stateless
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(input) = authorized_server::decode::<Input>(data) else { return };
    authorized_server::runtime().block_on(async {
        let service = authorized_server::service();
        let session = session(&service).await;
        for call in input.requests.iter().take(4) {
            let Some(request) = request(call, Some(&session)) else { continue };
            let is_post = request.method() == Method::POST;
            let path = request.uri().path().to_owned();
            let sent = Sent {
                path: &path,
                authorization: call.authorization.as_ref(),
                on_alice_session: on_session(call, &session),
                preflight: false, // it sends no OPTIONS
            };
            let watch = Watch::start();
            let response = service.call(request).await.unwrap();
            let status = response.status();
            let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let bytes = if is_post {
                read(response, Duration::from_secs(5)).await.expect("a POST's answer ends")
            } else {
                // A GET stream stays open: read what is there, then drop it (a client leaving).
                read(response, Duration::from_millis(1)).await.unwrap_or_default()
            };
            watch.check(&sent, status, content_type.as_deref(), &bytes);
        }
        service.shutdown().await;
    });
});
