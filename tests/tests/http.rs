//! The Streamable HTTP transport (2025-11-25) over real sockets: sessions, JSON and SSE
//! answers, the GET stream, resumption, security checks, limits and shutdown. Every JSON-RPC
//! message the server sends is validated against the official 2025-11-25 schema.

use hyper::{Method, StatusCode};
use mcp_runtime::http::{HttpConfig, McpHttpService};
use mcp_runtime::prelude::*;
use mcp_tests::http::Reply;
use mcp_tests::{HttpClient, spec_2025_11_25};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Reports progress `count` times, then answers.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
        ctx.info(format!("step {i}")).await;
    }
    format!("{count} steps")
}

/// Adds the `late` tool to the running server.
#[mcp_tool]
fn add_late_tool(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    ctx.server().add_tools(tools![late])?;
    Ok("added")
}

/// Arrives while the server runs.
#[mcp_tool]
fn late() -> &'static str {
    "late but here"
}

/// Closes its SSE connection after the priming event; the result comes on resumption.
#[mcp_tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    ctx.progress(1.0, 1.0).await;
    "reconnected"
}

/// Takes a while.
#[mcp_tool]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// Blocks its thread in its first poll (as blocking I/O in an `async fn` would), then answers.
#[mcp_tool]
async fn block_for(millis: u64) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    format!("blocked {millis} ms")
}

/// Answers at once, and logs a little later from a task that kept its context.
#[mcp_tool]
fn log_later(ctx: Context) -> &'static str {
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.info("from an answered request").await;
    });
    "answered"
}

fn server() -> Server {
    server!().tools(tools![steps, add_late_tool, test_reconnection, slow, log_later])
}

/// A running server and the means to stop it.
struct Running {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<mcp_runtime::Result<()>>,
}

impl Running {
    fn client(&self) -> HttpClient {
        HttpClient::new(self.address)
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        let result = tokio::time::timeout(Duration::from_secs(5), self.task).await;
        result.expect("the server stops in time").expect("no panic").expect("serving ends without error");
    }
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    (listener, address)
}

async fn start(server: Server) -> Running {
    let (listener, address) = listener().await;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(server.serve_http_on(listener, async {
        let _ = stopped.await;
    }));
    Running { address, stop: Some(stop), task }
}

async fn start_service(service: McpHttpService) -> Running {
    let (listener, address) = listener().await;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(service.serve(listener, async {
        let _ = stopped.await;
    }));
    Running { address, stop: Some(stop), task }
}

async fn session_client(running: &Running) -> HttpClient {
    let mut client = running.client();
    client.initialize().await;
    client
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn call_with_progress(id: i64, name: &str, arguments: Value, token: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": token}}})
}

async fn error_of(reply: Reply, status: StatusCode) -> Value {
    assert_eq!(reply.status, status);
    assert_eq!(reply.content_type(), "application/json");
    let body = reply.json().await;
    assert!(body.get("id").is_none(), "transport errors carry no id: {body}");
    body["error"].clone()
}

fn assert_valid(client: &HttpClient) {
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn initialize_issues_a_random_visible_ascii_session_id() {
    let running = start(server()).await;
    let mut first = running.client();
    let id = first.initialize().await;
    assert!(id.len() >= 32, "{id}");
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{id}");
    let second = running.client().clone().initialize().await;
    assert_ne!(id, second);
    let tools = first.request(1, "tools/list", json!({})).await;
    assert_eq!(tools.last().unwrap()["result"]["tools"].as_array().unwrap().len(), 5);
    assert_valid(&first);
    running.stop().await;
}

#[tokio::test]
async fn a_failed_initialize_starts_no_session() {
    let running = start(server()).await;
    let client = running.client();
    let reply = client.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.header("mcp-session-id").is_none());
    let messages = reply.messages().await;
    assert_eq!(messages[0]["error"]["code"], -32602);
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn requests_need_a_known_session() {
    let running = start(server()).await;
    let client = running.client();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let error = error_of(client.post(&list).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(error["code"], -32000);
    assert_eq!(error["message"], "Bad Request: missing session id (the Mcp-Session-Id header)");

    let reply = client.post_with(&list, &[("mcp-session-id", "no-such-session")]).await;
    let error = error_of(reply, StatusCode::NOT_FOUND).await;
    assert_eq!(error["code"], -32001);
    assert_eq!(error["message"], "Session not found");

    let reply = client.get(None).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    running.stop().await;
}

#[tokio::test]
async fn delete_ends_the_session() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let reply = client.send(Method::DELETE, "/mcp", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let error = error_of(client.post(&list).await, StatusCode::NOT_FOUND).await;
    assert_eq!(error["code"], -32001);
    let reply = client.send(Method::DELETE, "/mcp", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    running.stop().await;
}

#[tokio::test]
async fn notifications_and_client_responses_get_202_without_a_body() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let reply = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.bytes().await.is_empty());
    let reply = client.post(&json!({"jsonrpc": "2.0", "id": 99, "result": {}})).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.bytes().await.is_empty());
    running.stop().await;
}

#[tokio::test]
async fn a_ready_answer_is_json_when_the_client_takes_it_and_sse_for_sse_only_clients() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    for (id, accept) in [(1, "application/json"), (3, "application/json, text/event-stream")] {
        let list = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        let reply = client.post_with(&list, &[("accept", accept)]).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.content_type(), "application/json", "{accept}");
        let body = reply.json().await;
        assert_eq!(body["id"], id);
        assert!(body["result"]["tools"].is_array());
    }

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let reply = client.post_with(&list, &[("accept", "text/event-stream")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("cache-control"), Some("no-cache"));
    let mut events = reply.events();
    let priming = events.next().await.unwrap();
    let priming_id = priming.id.clone().expect("the priming event has an id");
    assert!(priming.has_data && priming.data.is_empty(), "{priming:?}");
    assert_eq!(priming.retry, Some(1000));
    let answer = events.next().await.unwrap();
    assert_ne!(answer.id.as_deref(), Some(priming_id.as_str()));
    assert_eq!(answer.id.as_deref().unwrap().split('-').next(), priming_id.split('-').next(), "same stream");
    assert_eq!(answer.json()["id"], 2);
    assert!(events.next().await.is_none(), "the stream ends after the response");
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn a_sink_a_handler_still_holds_is_not_handed_to_the_next_request() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let messages = client.request(1, "tools/call", json!({"name": "log_later", "arguments": {}})).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["result"]["content"][0]["text"], "answered");
    // Still running when the first request's task logs: that log is not this request's.
    let messages = client.request(2, "tools/call", json!({"name": "slow", "arguments": {"millis": 200}})).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["result"]["content"][0]["text"], "slept 200 ms");
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn progress_and_logs_stream_before_the_result_on_the_post_stream() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let reply = client.post(&call_with_progress(7, "steps", json!({"count": 3}), "progress-test-1")).await;
    // It finishes in its first poll, but sent before its answer: a stream, nothing lost.
    assert_eq!(reply.content_type(), "text/event-stream");
    let messages = reply.messages().await;
    let methods: Vec<&str> = messages.iter().map(|m| m["method"].as_str().unwrap_or("(response)")).collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "(response)"
        ]
    );
    let progress: Vec<&Value> = messages.iter().filter(|m| m["method"] == "notifications/progress").collect();
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(p["params"]["progressToken"], "progress-test-1");
        assert_eq!(p["params"]["progress"], json!(i as f64 + 1.0));
    }
    assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "3 steps");
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn a_stream_log_smaller_than_what_a_handler_sends_at_once_still_delivers_it_all() {
    // `steps` sends its progress without waiting and finishes in its first poll, so its 8
    // messages are queued before the POST's reader exists; a 2-event log must not stall them.
    let service = server().into_http_service(HttpConfig::default().replay_buffer(2)).unwrap();
    let running = start_service(service).await;
    let client = session_client(&running).await;
    let reply = client.post(&call_with_progress(3, "steps", json!({"count": 8}), "small-log")).await;
    let messages = tokio::time::timeout(Duration::from_secs(5), reply.messages()).await.expect("no stall");
    let progress = messages.iter().filter(|m| m["method"] == "notifications/progress").count();
    assert_eq!(progress, 8, "{messages:?}");
    assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "8 steps");
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn concurrent_posts_each_get_their_own_stream() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let ids = [1000, 1001, 1002];
    let answers = futures_join(ids.map(|id| {
        let client = client.clone();
        async move { client.request(id, "tools/list", json!({})).await }
    }))
    .await;
    for (id, messages) in ids.iter().zip(&answers) {
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert_eq!(messages[0]["id"], *id);
    }
    // A slow call does not hold up a quick one on the same session: the quick one is answered
    // while the slow one still runs (by order, not by a clock: seconds of margin on a loaded
    // machine, and the test waits only as long as the answers take).
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client.request(1, "tools/call", json!({"name": "slow", "arguments": {"millis": 3000}})).await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.request(2, "tools/list", json!({})).await;
    assert!(!slow.is_finished(), "the quick call waited for the slow one");
    assert_eq!(slow.await.unwrap()[0]["result"]["content"][0]["text"], "slept 3000 ms");
    assert_valid(&client);
    running.stop().await;
}

async fn futures_join<F: std::future::Future<Output = Vec<Value>> + Send + 'static>(
    futures: [F; 3],
) -> Vec<Vec<Value>> {
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

#[tokio::test]
async fn the_get_stream_carries_list_changed_and_no_responses() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let reply = client.get(None).await;
    assert_eq!(reply.status, StatusCode::OK);
    let mut stream = reply.events();
    let hint = stream.next().await.unwrap();
    assert_eq!((hint.id.as_deref(), hint.has_data, hint.retry), (None, false, Some(1000)));

    let messages = client.request(5, "tools/call", json!({"name": "add_late_tool", "arguments": {}})).await;
    assert_eq!(messages.len(), 1, "the POST stream carries only its response: {messages:?}");
    assert_eq!(messages[0]["result"]["content"][0]["text"], "added");
    let event = stream.next().await.unwrap();
    assert!(event.id.is_some());
    assert_eq!(event.json()["method"], "notifications/tools/list_changed");
    assert!(event.json().get("id").is_none());

    let messages = client.request(6, "tools/call", json!({"name": "late", "arguments": {}})).await;
    assert_eq!(messages[0]["result"]["content"][0]["text"], "late but here");
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn a_closed_post_stream_resumes_with_last_event_id_and_replays_only_that_stream() {
    let running = start(server()).await;
    let client = session_client(&running).await;

    // Another stream of the same session (its progress makes it one), answered in full.
    let mut other = client.post(&call_with_progress(1, "steps", json!({"count": 1}), "other")).await.events();
    let other_priming = other.next().await.unwrap().id.unwrap();
    while other.next().await.is_some() {}

    // The server closes this stream after the priming event, before the result.
    let reply = client.post(&call_with_progress(2, "test_reconnection", json!({}), "tok")).await;
    let mut events = reply.events();
    let priming = events.next().await.unwrap();
    assert!(priming.data.is_empty() && priming.retry.is_some(), "{priming:?}");
    let last_id = priming.id.unwrap();
    let mut rest = Vec::new();
    while let Some(event) = events.next().await {
        rest.push(event);
    }
    assert!(rest.iter().all(|e| e.data.is_empty()), "closed before any message: {rest:?}");
    assert!(rest.iter().any(|e| e.retry.is_some()), "a retry hint before closing: {rest:?}");

    let resumed = client.get(Some(&last_id)).await;
    assert_eq!(resumed.status, StatusCode::OK);
    let messages = resumed.messages().await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[1]["id"], 2);
    assert_eq!(messages[1]["result"]["content"][0]["text"], "reconnected");

    // Replaying the other stream from its priming event yields its messages, and only those.
    let replayed = client.get(Some(&other_priming)).await.messages().await;
    assert_eq!(replayed.last().unwrap()["id"], 1, "{replayed:?}");
    assert!(replayed.iter().all(|m| m["id"] != 2 && m["params"]["progressToken"] != "tok"), "{replayed:?}");

    let reply = client.get(Some("not-an-id")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let reply = client.get(Some("999-0")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_forbidden() {
    let running = start(server()).await;
    let client = running.client();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let reply = client.post_with(&initialize, &[("origin", "http://evil.example.com")]).await;
    assert_eq!(error_of(reply, StatusCode::FORBIDDEN).await["message"], "Forbidden: the Origin header is not allowed");
    let reply = client.post_with(&initialize, &[("host", "evil.example.com")]).await;
    assert_eq!(error_of(reply, StatusCode::FORBIDDEN).await["message"], "Forbidden: the Host header is not allowed");
    let reply =
        client.post_with(&initialize, &[("host", "evil.example.com"), ("origin", "http://evil.example.com")]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    for (host, origin) in [("localhost:3000", "http://localhost:3000"), ("[::1]:8080", "http://[::1]:8080")] {
        let reply = client.post_with(&initialize, &[("host", host), ("origin", origin)]).await;
        assert_eq!(reply.status, StatusCode::OK, "{host} {origin}");
    }
    running.stop().await;

    let config = HttpConfig::default().allow_host("mcp.example.com").allow_origin("https://app.example.com");
    let running = start_service(server().into_http_service(config).unwrap()).await;
    let client = running.client();
    let reply =
        client.post_with(&initialize, &[("host", "mcp.example.com"), ("origin", "https://app.example.com")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = client.post_with(&initialize, &[("origin", "https://evil.example.com")]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    running.stop().await;
}

/// The headers of an answer a browser page may read, for `origin`.
fn assert_readable_by(reply: &Reply, origin: &str) {
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert_eq!(reply.header("vary"), Some("Origin"));
    assert_eq!(
        reply.header("access-control-expose-headers"),
        Some("Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate")
    );
}

#[tokio::test]
async fn allowed_origins_get_cors_answers_and_requests_without_origin_get_none() {
    let config = HttpConfig::default().allow_origin("https://app.example.com");
    let running = start_service(server().into_http_service(config).unwrap()).await;
    let mut client = running.client();
    let origin = "https://app.example.com";
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});

    // The preflight: every method and protocol header, and the `Mcp-Param-*` it asks for.
    let preflight = [
        ("origin", origin),
        ("access-control-request-method", "POST"),
        ("access-control-request-headers", "content-type, mcp-session-id, mcp-param-region"),
    ];
    let reply = client.send(Method::OPTIONS, "/mcp", &preflight, Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert!(reply.header("vary").unwrap().starts_with("Origin"));
    assert_eq!(reply.header("access-control-allow-methods"), Some("POST, GET, DELETE"));
    let allowed: Vec<String> = reply
        .header("access-control-allow-headers")
        .unwrap()
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    for name in [
        "content-type",
        "accept",
        "authorization",
        "mcp-session-id",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "last-event-id",
        "mcp-param-region",
    ] {
        assert!(allowed.iter().any(|a| a == name), "{name} is not allowed: {allowed:?}");
    }
    assert!(reply.header("access-control-max-age").is_some());
    // Loopback origins are allowed by default, so they get CORS answers too.
    let loopback = [("origin", "http://localhost:5173"), ("access-control-request-method", "DELETE")];
    let reply = client.send(Method::OPTIONS, "/mcp", &loopback, Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert_eq!(reply.header("access-control-allow-origin"), Some("http://localhost:5173"));
    // Another origin is refused, preflight or not, and learns nothing.
    for method in [Method::OPTIONS, Method::POST] {
        let headers = [("origin", "https://evil.example.com"), ("access-control-request-method", "POST")];
        let reply = client.send(method.clone(), "/mcp", &headers, Vec::new()).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{method}");
        assert_eq!(reply.header("access-control-allow-origin"), None);
    }
    // A preflight elsewhere than the endpoint is not answered as one.
    let elsewhere = client.send(Method::OPTIONS, "/other", &preflight, Vec::new()).await;
    assert_eq!(elsewhere.status, StatusCode::NOT_FOUND);

    // Answers, errors included, are readable by the page, with the session id.
    let reply = client.post_with(&initialize, &[("origin", origin)]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_readable_by(&reply, origin);
    client.session = Some(reply.header("mcp-session-id").unwrap().to_owned());
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let reply = client.post_with(&list, &[("origin", origin), ("accept", "text/event-stream")]).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    assert_readable_by(&reply, origin);
    let reply = client.post_with(&list, &[("origin", origin), ("mcp-session-id", "0123")]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_readable_by(&reply, origin);
    // An OPTIONS that is no preflight is a method the endpoint does not take.
    let reply = client.send(Method::OPTIONS, "/mcp", &[("origin", origin)], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_readable_by(&reply, origin);

    // Without an Origin (not a browser): no CORS header at all.
    let reply = client.post(&list).await;
    assert_eq!(reply.status, StatusCode::OK);
    for name in ["access-control-allow-origin", "access-control-expose-headers", "vary"] {
        assert_eq!(reply.header(name), None, "{name}");
    }
    assert_eq!(reply.messages().await.len(), 1);
    spec_2025_11_25().assert_all_valid(&client.transcript());
    running.stop().await;
}

#[tokio::test]
async fn the_protocol_version_header_must_be_supported_when_present() {
    let running = start(server()).await;
    let client = session_client(&running).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let error =
        error_of(client.post_with(&list, &[("mcp-protocol-version", "1999-01-01")]).await, StatusCode::BAD_REQUEST)
            .await;
    assert!(error["message"].as_str().unwrap().contains("MCP-Protocol-Version"), "{error}");
    let reply = client.get(None).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = client
        .send(Method::GET, "/mcp", &[("accept", "text/event-stream"), ("mcp-protocol-version", "nope")], Vec::new())
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    // Absent: 2025-03-26 is assumed, which the server speaks.
    let reply = client.post_with(&list, &[("mcp-protocol-version", "")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = client.post_with(&list, &[("mcp-protocol-version", "2025-06-18")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    running.stop().await;
}

#[tokio::test]
async fn malformed_bodies_headers_and_routes_get_http_errors() {
    let running = start(server().max_message_size(1024)).await;
    let client = session_client(&running).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});

    let huge = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"pad": "x".repeat(2000)}});
    let error = error_of(client.post(&huge).await, StatusCode::PAYLOAD_TOO_LARGE).await;
    assert!(error["message"].as_str().unwrap().contains("1024"), "{error}");

    let reply = client.post_with(&list, &[("content-type", "text/plain")]).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply = client.post_with(&list, &[("content-type", "")]).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply = client.post_with(&list, &[("accept", "text/html")]).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    let reply = client.send(Method::GET, "/mcp", &[("accept", "application/json")], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);

    let headers = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
    let reply = client.send(Method::POST, "/mcp", &headers, b"{not json".to_vec()).await;
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], -32700);
    let reply =
        client.send(Method::POST, "/mcp", &headers, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_vec()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], -32600);

    let reply = client.send(Method::PUT, "/mcp", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.header("allow"), Some("GET, POST, DELETE"));
    let reply = client.send(Method::POST, "/other", &headers, list.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_valid(&client);
    running.stop().await;
}

#[tokio::test]
async fn idle_sessions_expire_and_the_session_cap_holds() {
    let config = HttpConfig::default().idle_timeout(Duration::from_millis(200)).max_sessions(1);
    let service = server().into_http_service(config).unwrap();
    let running = start_service(service.clone()).await;
    let client = session_client(&running).await;
    assert_eq!(service.session_count(), 1);

    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let error = error_of(running.client().post(&initialize).await, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(error["code"], -32000);

    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(service.session_count(), 0, "the idle session was swept");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    assert_eq!(client.post(&list).await.status, StatusCode::NOT_FOUND);
    session_client(&running).await;
    running.stop().await;
}

#[tokio::test]
async fn shutdown_lets_requests_in_flight_finish_and_ends_streams() {
    let running = start(server().shutdown_grace(Duration::from_secs(2))).await;
    let client = session_client(&running).await;
    let mut listening = client.get(None).await.events();
    listening.next().await.unwrap(); // the retry hint
    let call = {
        let client = client.clone();
        tokio::spawn(async move {
            client.request(3, "tools/call", json!({"name": "slow", "arguments": {"millis": 300}})).await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let address = running.address;
    running.stop().await;
    let messages = call.await.unwrap();
    assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "slept 300 ms");
    assert!(listening.next().await.is_none(), "the GET stream ended");
    assert!(tokio::net::TcpStream::connect(address).await.is_err(), "no longer listening");
    assert_valid(&client);
}

/// A request still running when the grace ends is answered with an error (-32011, cancelled by
/// shutdown): as the JSON body for a JSON-only client, as the last event for an SSE one.
#[tokio::test]
async fn requests_still_running_when_the_grace_ends_get_an_error_on_json_and_sse() {
    let running = start(server().shutdown_grace(Duration::from_millis(200))).await;
    let client = session_client(&running).await;
    let json_only = {
        let client = client.clone();
        tokio::spawn(async move {
            let reply =
                client.post_with(&call(3, "slow", json!({"millis": 60_000})), &[("accept", "application/json")]).await;
            (reply.status, reply.json().await)
        })
    };
    let sse = {
        let client = client.clone();
        tokio::spawn(async move {
            client.request(4, "tools/call", json!({"name": "slow", "arguments": {"millis": 60_000}})).await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    running.stop().await;
    let (status, answer) = json_only.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["error"]["code"], -32011, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or_default().contains("shutting down"), "{answer}");
    let messages = sse.await.unwrap();
    let last = messages.last().expect("the stream carries an answer");
    assert_eq!(last["id"], 4, "{messages:?}");
    assert_eq!(last["error"]["code"], -32011, "{messages:?}");
    assert_valid(&client);
}

/// What the runtime logs in this process, from the first call on.
fn captured_log() -> &'static std::sync::Mutex<Vec<u8>> {
    static LOG: std::sync::OnceLock<&'static std::sync::Mutex<Vec<u8>>> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let log: &'static std::sync::Mutex<Vec<u8>> = Box::leak(Box::default());
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .with_writer(move || LogWriter(log))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber");
        log
    })
}

struct LogWriter(&'static std::sync::Mutex<Vec<u8>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Serving HTTP on a current-thread runtime (`#[tokio::test]`'s, or `#[mcp_runtime::main(flavor =
/// "current_thread")]`) is warned about, naming the address; on the multi-threaded one it is not.
#[tokio::test]
async fn serving_http_on_a_current_thread_runtime_is_warned_about() {
    let log = captured_log();
    let on_one_thread = start(server!()).await;
    let warned = |log: &[u8], address: SocketAddr| {
        let address = format!("http://{address}/mcp on a current-thread runtime");
        String::from_utf8_lossy(log)
            .lines()
            .any(|line| line.contains("WARN") && line.contains(&address) && line.contains("without `flavor"))
    };
    // Only what was logged while this server held its port: other tests' servers log too, and
    // one of them may have had the same port before.
    let during_workers = {
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
            runtime.block_on(async {
                let before = log.lock().unwrap().len();
                let running = start(server!()).await;
                session_client(&running).await;
                (running.address, log.lock().unwrap()[before..].to_vec())
            })
        })
    };
    let (workers_address, logged) = during_workers.join().unwrap();
    session_client(&on_one_thread).await;
    assert!(warned(&log.lock().unwrap(), on_one_thread.address));
    assert!(!warned(&logged, workers_address));
    on_one_thread.stop().await;
}

/// A first poll that blocks a worker for longer than the threshold (500 ms) is reported once,
/// naming the tool and saying what to do.
#[tokio::test]
async fn a_first_poll_that_blocks_a_worker_is_reported_once() {
    let log = captured_log();
    let running = start(server!().tools(tools![block_for])).await;
    let client = session_client(&running).await;
    for id in 1..=2 {
        let messages =
            client.request(id, "tools/call", json!({"name": "block_for", "arguments": {"millis": 600}})).await;
        assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "blocked 600 ms");
    }
    running.stop().await;
    let log = String::from_utf8(log.lock().unwrap().clone()).unwrap();
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("`block_for`")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(warnings[0].contains("#[mcp_tool(blocking)]") && warnings[0].contains("async I/O"), "{}", warnings[0]);
    assert_valid(&client);
}

/// With a cap of 2 requests in flight per session, a third long call at once is refused with
/// -32010 while the two others complete; then a new call is accepted.
#[tokio::test]
async fn requests_beyond_the_cap_in_flight_are_refused_on_http() {
    let running = start(server().max_requests_in_flight(2)).await;
    let client = session_client(&running).await;
    let long_calls: Vec<_> = (1..=2)
        .map(|id| {
            let client = client.clone();
            tokio::spawn(async move {
                client.request(id, "tools/call", json!({"name": "slow", "arguments": {"millis": 400}})).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = client.request(3, "tools/call", json!({"name": "slow", "arguments": {"millis": 1}})).await;
    assert_eq!(refused.last().unwrap()["error"]["code"], -32010, "{refused:?}");
    for call in long_calls {
        let messages = call.await.unwrap();
        assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "slept 400 ms");
    }
    let accepted = client.request(4, "tools/call", json!({"name": "slow", "arguments": {"millis": 1}})).await;
    assert_eq!(accepted.last().unwrap()["result"]["content"][0]["text"], "slept 1 ms");
    running.stop().await;
    assert_valid(&client);
}

/// `serve_http_with(address, config)`: the configuration applies (a host it allows is served,
/// others still get 403), and SIGTERM stops the server as it stops `serve_http`: a call in flight
/// finishes and is answered, then the process exits with success.
#[tokio::test]
async fn serve_http_with_applies_its_configuration_and_stops_gracefully_on_sigterm() {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_configured-http-server"));
    let (mut child, address, _log) = mcp_tests::http::start_logged(command).await;
    let mut client = HttpClient::new(address);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let allowed = client.post_with(&initialize, &[("host", "mcp.example.com")]).await;
    assert_eq!(allowed.status, StatusCode::OK, "the configured host is allowed");
    let refused = client.post_with(&initialize, &[("host", "evil.example.com")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "other hosts are still refused");

    client.initialize().await;
    let mut events =
        client.post(&call_with_progress(2, "ticks", json!({"count": 2, "millis": 300}), "t")).await.events();
    let first = events.next_message().await.unwrap();
    assert_eq!(first["method"], "notifications/progress", "the call is running: {first}");
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let mut last = Value::Null;
    while let Some(message) = events.next_message().await {
        last = message;
    }
    assert_eq!(last["result"]["content"][0]["text"], "2 ticks", "the call in flight finished");
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
}
