//! The MCP service mounted in an axum `Router`, as the README shows it: behind a layer that
//! checks an API key (401 without one) and puts the caller's tenant into the request's
//! extensions, which a tool reads through `HttpRequest` and a middleware through its request
//! info; `ConnectInfo` gives the peer's address; the server stops gracefully. Off HTTP, the
//! request is absent.

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::{Next, from_fn};
use axum::response::{IntoResponse, Response};
use hyper::StatusCode;
use mcp_runtime::http::{HttpConfig, HttpRequest};
use mcp_runtime::middleware::{Middleware, RequestInfo, Verdict};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_tests::TIMEOUT;
use mcp_tests::http::HttpClient;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// Whom an API key belongs to, put into the request's extensions by [`api_key`].
#[derive(Clone, Debug)]
struct Tenant(&'static str);

/// The layer in front of the MCP service: 401 without a known `X-Api-Key`; otherwise the
/// request goes on with its tenant, and with the peer's address where the runtime looks for it.
async fn api_key(ConnectInfo(peer): ConnectInfo<SocketAddr>, mut request: Request, next: Next) -> Response {
    let tenant = match request.headers().get("x-api-key").and_then(|key| key.to_str().ok()) {
        Some("key-acme") => Tenant("acme"),
        Some("key-globex") => Tenant("globex"),
        _ => return (StatusCode::UNAUTHORIZED, "a valid X-Api-Key is required").into_response(),
    };
    request.extensions_mut().insert(tenant);
    request.extensions_mut().insert(peer);
    next.run(request).await
}

/// Who is calling: the tenant the API-key layer found, from where, with which agent.
#[mcp_tool]
fn whoami(request: HttpRequest) -> Json<Value> {
    let tenant = request.extensions().get::<Tenant>().map(|tenant| tenant.0);
    let connected = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0.to_string());
    let agent = request.headers().get("user-agent").and_then(|agent| agent.to_str().ok());
    Json(json!({
        "tenant": tenant,
        "peer": request.peer().map(|peer| peer.to_string()),
        "connectInfo": connected,
        "agent": agent,
        "method": request.method().as_str(),
        "path": request.uri().path(),
    }))
}

/// The tenant, when the call came over HTTP.
#[mcp_tool]
fn maybe_tenant(request: Option<HttpRequest>) -> String {
    match request {
        None => "no HTTP request".into(),
        Some(request) => request.extensions().get::<Tenant>().map_or("no tenant", |tenant| tenant.0).into(),
    }
}

/// The tenant's own readme: a resource reads the request as a tool does.
#[mcp_resource(uri = "tenant://readme")]
fn tenant_readme(request: HttpRequest) -> String {
    format!("readme of {}", request.extensions().get::<Tenant>().map_or("nobody", |tenant| tenant.0))
}

/// A greeting for the tenant: so does a prompt.
#[mcp_prompt]
fn greet(request: HttpRequest) -> String {
    format!("greet {}", request.extensions().get::<Tenant>().map_or("nobody", |tenant| tenant.0))
}

/// Records the tenant of every `tools/call`, read from the request info's HTTP parts.
struct TenantLog(Arc<Mutex<Vec<String>>>);

impl Middleware for TenantLog {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if request.method() == "tools/call" {
            let tenant = request.http_parts().and_then(|parts| parts.extensions.get::<Tenant>()).map(|t| t.0);
            let peer = request.peer_address().map(|peer| peer.ip().to_string());
            self.0.lock().unwrap().push(format!("{}@{}", tenant.unwrap_or("-"), peer.unwrap_or_default()));
        }
        Verdict::Continue
    }
}

fn server(log: Arc<Mutex<Vec<String>>>) -> Server {
    server!()
        .tools(tools![whoami, maybe_tenant])
        .resources(resources![tenant_readme])
        .prompts(prompts![greet])
        .middleware(TenantLog(log))
}

/// A client of `address` sending `key` as its API key.
fn client(address: SocketAddr, key: &str) -> HttpClient {
    let mut client = HttpClient::new(address);
    client.default_headers.push(("x-api-key".into(), key.into()));
    client.default_headers.push(("user-agent".into(), format!("agent-{key}")));
    client
}

async fn call(client: &HttpClient, id: i64, tool: &str) -> Value {
    let messages = client.request(id, "tools/call", json!({"name": tool, "arguments": {}})).await;
    let result = &messages.last().expect("an answer")["result"];
    assert!(result.get("isError").is_none_or(|error| error == false), "{result}");
    result.clone()
}

#[tokio::test]
async fn a_tool_behind_an_axum_layer_reads_the_tenant_and_the_peer_and_the_server_stops_gracefully() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mcp = server(Arc::clone(&log)).into_http_service(HttpConfig::default()).unwrap();
    let app = Router::new().route_service("/mcp", mcp.clone()).layer(from_fn(api_key));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
                // Ends the open streams, which would otherwise hold the server up forever.
                mcp.shutdown().await;
            })
            .await
    });

    // Without a key, the layer answers; the service never sees the request.
    let mut anonymous = HttpClient::new(address);
    let refused = anonymous.post(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"})).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    anonymous.default_headers.push(("x-api-key".into(), "key-unknown".into()));
    assert_eq!(anonymous.post(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"})).await.status, 401);

    let mut acme = client(address, "key-acme");
    acme.initialize().await;
    let mut globex = client(address, "key-globex");
    globex.initialize().await;

    let seen = call(&acme, 1, "whoami").await["structuredContent"].clone();
    assert_eq!(seen["tenant"], "acme", "{seen}");
    assert_eq!(seen["agent"], "agent-key-acme", "{seen}");
    assert_eq!((seen["method"].as_str(), seen["path"].as_str()), (Some("POST"), Some("/mcp")), "{seen}");
    let peer: SocketAddr = seen["peer"].as_str().expect("the peer's address").parse().unwrap();
    assert!(peer.ip().is_loopback() && peer.port() != address.port(), "{seen}");
    assert_eq!(seen["connectInfo"], seen["peer"], "ConnectInfo is in the extensions as axum put it");

    let other = call(&globex, 2, "whoami").await["structuredContent"].clone();
    assert_eq!(other["tenant"], "globex", "each request carries its own extensions: {other}");
    let maybe = call(&globex, 3, "maybe_tenant").await;
    assert_eq!(maybe["content"][0]["text"], "globex");

    let read = acme.request(4, "resources/read", json!({"uri": "tenant://readme"})).await;
    assert_eq!(read.last().unwrap()["result"]["contents"][0]["text"], "readme of acme");
    let prompt = globex.request(5, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(prompt.last().unwrap()["result"]["messages"][0]["content"]["text"], "greet globex");

    assert_eq!(*log.lock().unwrap(), ["acme@127.0.0.1", "globex@127.0.0.1", "globex@127.0.0.1"], "middleware");

    // Graceful shutdown: an open GET stream ends, and the server returns.
    let mut stream = acme.get(None).await.events();
    stop.send(()).unwrap();
    let ended = tokio::time::timeout(TIMEOUT, async { while stream.next().await.is_some() {} }).await;
    assert!(ended.is_ok(), "the GET stream ended at shutdown");
    let result = tokio::time::timeout(TIMEOUT, served).await.expect("axum::serve returned after shutdown");
    result.unwrap().unwrap();
}

#[tokio::test]
async fn off_http_an_optional_request_is_none_and_a_required_one_fails_the_call() {
    let client = TestClient::connect(server(Arc::default())).await;
    let maybe = client.request("tools/call", json!({"name": "maybe_tenant", "arguments": {}})).await.unwrap();
    assert_eq!(maybe["content"][0]["text"], "no HTTP request");
    let required = client.request("tools/call", json!({"name": "whoami", "arguments": {}})).await.unwrap();
    assert_eq!(required["isError"], json!(true), "{required}");
    let message = required["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("needs the HTTP request"), "{message}");
}
