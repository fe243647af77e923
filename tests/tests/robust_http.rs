//! Robustness over Streamable HTTP (in-process `serve_http_on`, real sockets): bad input gets
//! a clear error and loses nothing; no input crashes or wedges the server. Each test sends
//! something hostile to `mcp_tests::robust::server()`, checks the answer, then checks that the
//! server still serves (the same session, and a new one).

use hyper::{Method, StatusCode};
use mcp_runtime::http::{HttpConfig, McpHttpService};
use mcp_tests::robust::{HANG_TIMEOUT_MS, TOOL_TIMEOUT, nested_arrays, server};
use mcp_tests::{HttpClient, spec_2025_11_25};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

struct Running {
    address: SocketAddr,
    service: McpHttpService,
    stop: oneshot::Sender<()>,
    task: JoinHandle<mcp_runtime::Result<()>>,
}

async fn start() -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server().shutdown_grace(Duration::from_millis(50)).into_http_service(HttpConfig::default()).unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(service.clone().serve(listener, async {
        let _ = stopped.await;
    }));
    Running { address, service, stop, task }
}

/// A running server with an initialized session.
async fn started() -> (Running, HttpClient) {
    let running = start().await;
    let mut client = HttpClient::new(running.address);
    client.initialize().await;
    (running, client)
}

/// The session still answers ping, tools/list and a tool call; a new session can start; every
/// message of the session was schema-valid; the server stops cleanly.
async fn assert_still_serves(running: Running, client: HttpClient) {
    let pong = client.request(900_001, "ping", json!({})).await;
    assert_eq!(pong.last().unwrap()["result"], json!({}));
    let list = client.request(900_002, "tools/list", json!({})).await;
    assert_eq!(list.last().unwrap()["result"]["tools"].as_array().map(Vec::len), Some(9));
    let echo =
        client.request(900_003, "tools/call", json!({"name": "echo", "arguments": {"text": "still here"}})).await;
    assert_eq!(echo.last().unwrap()["result"]["content"][0]["text"], "still here");
    let mut other = HttpClient::new(running.address);
    other.initialize().await;
    assert_eq!(other.request(1, "ping", json!({})).await.last().unwrap()["result"], json!({}));
    spec_2025_11_25().assert_all_valid(&client.transcript());
    let _ = running.stop.send(());
    let stopped = tokio::time::timeout(Duration::from_secs(5), running.task).await;
    stopped.expect("the server stops in time").expect("no panic").expect("serving ends without error");
}

/// POSTs raw bytes on the session, accepting JSON only; returns the status and the body.
async fn post_raw(client: &HttpClient, body: Vec<u8>) -> (StatusCode, Value) {
    let headers = [("accept", "application/json"), ("content-type", "application/json")];
    let reply = client.send(Method::POST, "/mcp", &headers, body).await;
    let status = reply.status;
    let bytes = reply.bytes().await;
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, body)
}

/// POSTs a request on the session (JSON only) and returns its answer.
async fn post(client: &HttpClient, message: Value) -> Value {
    let (status, body) = post_raw(client, message.to_string().into_bytes()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn assert_error(body: &Value, id: Option<Value>, code: i64, text: &str) {
    assert_eq!(body.get("id"), id.as_ref(), "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(text), "`{message}` should mention `{text}`");
}

fn tool_error_text(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let (running, client) = started().await;
    for body in [&b"{this is not json"[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", b"", b"}"] {
        let (status, answer) = post_raw(&client, body.to_vec()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&answer, None, -32700, "Parse error");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn non_object_messages_are_invalid_requests() {
    let (running, client) = started().await;
    for body in ["42", "\"ping\"", "null", "true", "[]", r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#] {
        let (status, answer) = post_raw(&client, body.as_bytes().to_vec()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&answer, None, -32600, "Invalid Request");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn invalid_id_types_are_invalid_requests_without_an_id() {
    let (running, client) = started().await;
    for id in ["1.5", "{}", "null", "true", "[1]"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let (status, answer) = post_raw(&client, body.into_bytes()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&answer, None, -32600, "id must be a string or an integer");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_wrong_jsonrpc_version_is_an_invalid_request_with_the_id() {
    let (running, client) = started().await;
    for version in [r#""jsonrpc":"1.0","#, r#""jsonrpc":2,"#, ""] {
        let body = format!(r#"{{{version}"id":7,"method":"ping"}}"#);
        let (status, answer) = post_raw(&client, body.into_bytes()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&answer, Some(json!(7)), -32600, "jsonrpc must be \"2.0\"");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn unknown_methods_are_method_not_found() {
    let (running, client) = started().await;
    let answer = post(&client, json!({"jsonrpc": "2.0", "id": 3, "method": "tools/explode"})).await;
    assert_error(&answer, Some(json!(3)), -32601, "tools/explode");
    let headers = [("accept", "application/json"), ("content-type", "application/json")];
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/unheard_of"}).to_string().into_bytes();
    let reply = client.send(Method::POST, "/mcp", &headers, notification).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn wrong_parameter_types_are_named() {
    let (running, client) = started().await;
    let (status, scalar) =
        post_raw(&client, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"add"}"#.to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&scalar, Some(json!(1)), -32600, "params must be an object");
    let name = post(&client, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}})).await;
    assert_error(&name, Some(json!(2)), -32602, "`name`: invalid type: integer `5`, expected a string");
    let arguments = post(&client, call(3, "add", json!([1, 2]))).await;
    assert_error(&arguments, Some(json!(3)), -32602, "`arguments` must be an object");
    let typed = post(&client, call(4, "add", json!({"a": "one", "b": 2}))).await;
    let text = tool_error_text(&typed);
    assert!(text.contains("`a`") && text.contains("expected i64"), "{text}");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn missing_arguments_are_tool_errors_and_extra_ones_are_ignored() {
    let (running, client) = started().await;
    let missing = post(&client, call(1, "add", json!({"a": 1}))).await;
    assert!(tool_error_text(&missing).contains("missing field `b`"), "{missing}");
    let extra = post(&client, call(2, "add", json!({"a": 1, "b": 2, "c": 3}))).await;
    assert_eq!(extra["result"]["content"][0]["text"], "3", "{extra}");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_10_mb_message_is_refused_with_413() {
    let (running, client) = started().await;
    let huge = call(9, "echo", json!({"text": "x".repeat(10 << 20)})).to_string().into_bytes();
    let (status, answer) = post_raw(&client, huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_error(&answer, None, -32000, "Payload Too Large: messages are limited to 4194304 bytes");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
    let (running, client) = started().await;
    let (status, top) = post_raw(&client, nested_arrays(100_000).into_bytes()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&top, None, -32600, "batches are not supported");
    let (status, unclosed) = post_raw(&client, "[".repeat(100_000).into_bytes()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&unclosed, None, -32700, "Parse error");
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}}}}}}}"#,
        nested_arrays(100_000)
    );
    let (status, call) = post_raw(&client, deep.into_bytes()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(tool_error_text(&call).contains("invalid arguments for tool `echo`"), "{call}");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let (running, client) = started().await;
    let bodies: [&[u8]; 2] =
        [b"\xff\xfe\xfd", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}"];
    for body in bodies {
        let (status, answer) = post_raw(&client, body.to_vec()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_error(&answer, None, -32700, "Parse error");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_thousand_concurrent_requests_are_all_answered() {
    let (running, client) = started().await;
    let limit = Arc::new(tokio::sync::Semaphore::new(64));
    let mut answers = Vec::new();
    for id in 1..=1000_i64 {
        let (client, limit) = (client.clone(), Arc::clone(&limit));
        answers.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.unwrap();
            let answer = post(&client, call(id, "echo", json!({"text": format!("message {id}")}))).await;
            assert_eq!(answer["id"], id, "{answer}");
            assert_eq!(answer["result"]["content"][0]["text"], format!("message {id}"), "{answer}");
        }));
    }
    for answer in answers {
        answer.await.expect("every request is answered");
    }
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_refused_and_the_first_request_is_answered() {
    let (running, client) = started().await;
    let first = tokio::spawn({
        let client = client.clone();
        async move { post(&client, call(42, "nap", json!({"millis": 300}))).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let duplicate = post(&client, call(42, "echo", json!({"text": "again"}))).await;
    assert_error(&duplicate, Some(json!(42)), -32600, "already in use");
    let first = first.await.unwrap();
    assert_eq!(first["result"]["content"][0]["text"], "slept 300 ms", "{first}");
    let reused = post(&client, call(42, "echo", json!({"text": "reused"}))).await;
    assert_eq!(reused["result"]["content"][0]["text"], "reused");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_client_that_drops_an_sse_stream_mid_way_leaves_the_server_serving() {
    let (running, client) = started().await;
    let message = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "ticks", "arguments": {"count": 20, "millis": 20}, "_meta": {"progressToken": "t"}}});
    let reply = client.post(&message).await;
    assert_eq!(reply.status, StatusCode::OK);
    let mut events = reply.events();
    for _ in 0..3 {
        let progress = events.next_message().await.expect("a progress notification");
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
    }
    drop(events); // the client goes away mid-stream
    // Others, and the same session, are served meanwhile and after the tool finishes.
    let mut other = HttpClient::new(running.address);
    other.initialize().await;
    assert_eq!(other.request(1, "ping", json!({})).await.last().unwrap()["result"], json!({}));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result() {
    let (running, client) = started().await;
    for id in 1..=3 {
        let answer = post(&client, call(id, "boom", json!({}))).await;
        assert!(tool_error_text(&answer).contains("tool `boom` failed unexpectedly (it panicked)"), "{answer}");
    }
    let answer = post(&client, call(4, "touchy", json!({"value": "x"}))).await;
    assert!(tool_error_text(&answer).contains("tool `touchy` failed unexpectedly (it panicked)"), "{answer}");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn tools_that_never_return_time_out() {
    let (running, client) = started().await;
    let start = Instant::now();
    let hang = tokio::spawn({
        let client = client.clone();
        async move { post(&client, call(1, "hang", json!({}))).await }
    });
    let stall = tokio::spawn({
        let client = client.clone();
        async move { post(&client, call(2, "stall", json!({}))).await }
    });
    let echo = post(&client, call(3, "echo", json!({"text": "meanwhile"}))).await;
    assert_eq!(echo["result"]["content"][0]["text"], "meanwhile");
    let hang = hang.await.unwrap();
    assert_eq!(tool_error_text(&hang), format!("tool `hang` timed out after {HANG_TIMEOUT_MS} ms and was stopped"));
    let stall = stall.await.unwrap();
    let limit = TOOL_TIMEOUT.as_millis();
    assert_eq!(tool_error_text(&stall), format!("tool `stall` timed out after {limit} ms and was stopped"));
    let elapsed = start.elapsed();
    assert!(elapsed >= TOOL_TIMEOUT && elapsed < TOOL_TIMEOUT * 3, "{elapsed:?}");
    assert_still_serves(running, client).await;
}

#[tokio::test]
async fn two_hundred_sessions_initialize_and_call_concurrently() {
    let running = start().await;
    let mut sessions = Vec::new();
    for i in 0..200_i64 {
        let address = running.address;
        sessions.push(tokio::spawn(async move {
            let mut client = HttpClient::new(address);
            client.initialize().await;
            let answer = post(&client, call(i, "add", json!({"a": i, "b": 1000}))).await;
            assert_eq!(answer["result"]["content"][0]["text"], (i + 1000).to_string(), "{answer}");
            client.session.clone().unwrap()
        }));
    }
    let mut ids = std::collections::HashSet::new();
    for session in sessions {
        assert!(ids.insert(session.await.expect("every session is served")), "session ids are unique");
    }
    assert_eq!(running.service.session_count(), 200);
    let mut client = HttpClient::new(running.address);
    client.initialize().await;
    assert_still_serves(running, client).await;
}
