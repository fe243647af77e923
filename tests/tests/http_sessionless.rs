//! HTTP without sessions (`HttpConfig::stateless(true)`), both eras: a 2025-era `initialize` gets
//! no `Mcp-Session-Id`, every other `POST` stands alone (on a server that never saw the
//! handshake too), `GET` and `DELETE` get 405, a request's progress and logs still go on its own
//! SSE stream, and a handler's requests to a 2025-era client fail with an error naming the mode,
//! while a 2026-07-28 client still gets them as input requests. Messages are validated against
//! their revision's schema.

use hyper::{Method, StatusCode};
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use mcp_runtime::{ClientError, LoggingLevel, Sampling};
use mcp_tests::{HttpClient, spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use std::net::SocketAddr;

/// Logs, reports progress `count` times, then answers.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    ctx.log(LoggingLevel::Info, "starting").await;
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
    }
    format!("{count} steps")
}

/// Asks the client's model.
#[mcp_tool]
async fn needs_sampling(ctx: Context) -> Result<String, ClientError> {
    Ok(ctx.sample(Sampling::new("hi")).await?.model)
}

/// Works a moment, then answers; as a task if asked.
#[mcp_tool(task = "optional")]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// A server without sessions on a port of its own.
async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service =
        server!().tools(tools![steps, needs_sampling, slow]).into_http_service(HttpConfig::default().stateless(true));
    tokio::spawn(service.unwrap().serve(listener, std::future::pending()));
    address
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// POSTs a 2025-era request as a client does after the handshake: no session id to send.
async fn post_2025(client: &HttpClient, message: &Value) -> mcp_tests::http::Reply {
    client.post_with(message, &[("mcp-protocol-version", "2025-11-25")]).await
}

#[tokio::test]
async fn initialize_mints_no_session_and_each_post_stands_alone() {
    let client = HttpClient::new(start().await);
    let initialize = request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    let reply = client.post(&initialize).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.header("mcp-session-id").is_none(), "no session id in stateless mode");
    let answer = reply.messages().await.pop().unwrap();
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    // Nothing but answers reaches this client: it is promised no list changes.
    assert_eq!(answer["result"]["capabilities"]["tools"], json!({}), "{answer}");

    let initialized = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    let list = post_2025(&client, &request(1, "tools/list", json!({}))).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.header("mcp-session-id").is_none());
    let names: Vec<Value> =
        list.json().await["result"]["tools"].as_array().unwrap().iter().map(|tool| tool["name"].clone()).collect();
    assert_eq!(names, [json!("steps"), json!("needs_sampling"), json!("slow")]);

    // Another instance of the server, which never saw the handshake, serves the next request.
    let elsewhere = HttpClient::new(start().await);
    let call = request(2, "tools/call", json!({"name": "steps", "arguments": {"count": 0}}));
    let answer = post_2025(&elsewhere, &call).await.messages().await.pop().unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "0 steps");

    // A session id sent anyway is ignored, and without MCP-Protocol-Version the request is
    // served as 2025-03-26.
    let reply = client.post_with(&request(3, "ping", json!({})), &[("mcp-session-id", "made-up")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json().await["result"], json!({}));
    let bad_version = client.post_with(&request(4, "ping", json!({})), &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(bad_version.status, StatusCode::BAD_REQUEST);
    spec_2025_11_25().assert_all_valid(&client.transcript());
    spec_2025_11_25().assert_all_valid(&elsewhere.transcript());
}

#[tokio::test]
async fn get_and_delete_are_not_allowed() {
    let client = HttpClient::new(start().await);
    for method in [Method::GET, Method::DELETE] {
        let reply = client.send(method.clone(), "/mcp", &[("accept", "text/event-stream")], Vec::new()).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.header("allow"), Some("POST"));
        let body = String::from_utf8(reply.bytes().await).unwrap();
        assert!(body.contains("without sessions"), "{body}");
    }
}

#[tokio::test]
async fn progress_and_logs_go_on_the_requests_own_stream() {
    let client = HttpClient::new(start().await);
    let call =
        request(5, "tools/call", json!({"name": "steps", "arguments": {"count": 3}, "_meta": {"progressToken": "p"}}));
    let reply = post_2025(&client, &call).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    let messages = reply.messages().await;
    let methods: Vec<&str> = messages.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["notifications/message", "notifications/progress", "notifications/progress", "notifications/progress"]
    );
    assert_eq!(messages[3]["params"]["progress"], 3.0);
    assert_eq!(messages.last().unwrap()["result"]["content"][0]["text"], "3 steps");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn requests_to_a_2025_client_fail_naming_the_mode() {
    let client = HttpClient::new(start().await);
    let reply = post_2025(&client, &request(6, "tools/call", json!({"name": "needs_sampling", "arguments": {}}))).await;
    let messages = reply.messages().await;
    assert_eq!(messages.len(), 1, "no request reaches the client: {messages:?}");
    let result = &messages[0]["result"];
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("without sessions (stateless mode)"), "{text}");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_2026_client_is_served_as_before() {
    let client = HttpClient::new(start().await);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
    });
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "needs_sampling", "arguments": {}, "_meta": meta}});
    let headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "needs_sampling")];
    let reply = client.post_with(&call, &headers).await;
    assert_eq!(reply.status, StatusCode::OK);
    let result = reply.json().await["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    let [(_, input)] = result["inputRequests"].as_object().unwrap().iter().collect::<Vec<_>>()[..] else {
        panic!("one input request: {result}");
    };
    assert_eq!(input["method"], "sampling/createMessage");
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_2025_task_is_reached_by_its_id_from_any_request() {
    let client = HttpClient::new(start().await);
    let call = request(8, "tools/call", json!({"name": "slow", "arguments": {"millis": 20}, "task": {"ttl": 60000}}));
    let created = post_2025(&client, &call).await.json().await;
    let task = created["result"]["task"]["taskId"].as_str().expect("a task handle").to_owned();
    // Later requests stand alone: the id is all that names the task.
    let polled = post_2025(&client, &request(9, "tasks/get", json!({"taskId": task}))).await.json().await;
    assert_eq!(polled["result"]["taskId"], task.as_str(), "{polled}");
    let result = post_2025(&client, &request(10, "tasks/result", json!({"taskId": task}))).await.messages().await;
    assert_eq!(result.last().unwrap()["result"]["content"][0]["text"], "slept 20 ms");
    let unknown = post_2025(&client, &request(11, "tasks/get", json!({"taskId": "not-a-task"}))).await.json().await;
    assert!(unknown.get("error").is_some(), "{unknown}");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}
