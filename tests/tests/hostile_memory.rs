//! What a client can make the server keep is bounded: error messages echo only a short prefix
//! of a client's string; a subscription needs a URI something serves and counts against the
//! session's byte budget; `initialize` cannot park megabytes of capabilities in a session.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_tests::HttpClient;
use mcp_tests::http::logged_address;
use serde_json::{Value, json};
use std::process::Stdio;

/// A note by name.
#[mcp_resource(uri = "notes://{name}", mime_type = "text/plain")]
fn note(name: String) -> String {
    name
}

/// Says hello.
#[mcp_prompt]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn server() -> Server {
    server!()
        .tools(mcp_runtime::tools![mcp_tests::robust::echo, mcp_tests::robust::add])
        .resources(resources![note])
        .prompts(prompts![greet])
}

/// Every error message the client can provoke with a long name is short.
#[tokio::test]
async fn errors_echo_a_short_prefix_of_a_long_name() {
    let client = TestClient::connect(server()).await;
    let long = "n".repeat(1 << 20);
    let uri = format!("notes:/{long}");
    let attempts = [
        ("tools/call", json!({"name": long, "arguments": {}})),
        ("prompts/get", json!({"name": long})),
        ("resources/read", json!({"uri": uri})),
        ("resources/subscribe", json!({"uri": uri})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": long}, "argument": {"name": "a", "value": ""}}),
        ),
        ("tools/call", json!({"name": "add", "arguments": {"a": long, "b": 1}})),
        (long.as_str(), json!({})),
    ];
    for (method, params) in attempts {
        let answer = match client.request(method, params).await {
            Err(error) => serde_json::to_string(&error).unwrap(),
            Ok(result) => {
                assert_eq!(result["isError"], true, "{method}: {result}");
                result.to_string()
            }
        };
        assert!(answer.len() < 1024, "{method}: an answer of {} bytes", answer.len());
        assert!(answer.contains(&"n".repeat(32)), "{method}: names a prefix: {answer}");
    }
}

#[tokio::test]
async fn a_subscription_needs_a_uri_that_something_serves() {
    let client = TestClient::connect(server()).await;
    let error = client.request("resources/subscribe", json!({"uri": "nowhere://at/all"})).await.unwrap_err();
    assert_eq!(error.code, -32002);
    assert_eq!(error.data, Some(json!({"uri": "nowhere://at/all"})));
    assert_eq!(client.request("resources/subscribe", json!({"uri": "notes://todo"})).await.unwrap(), json!({}));
}

#[tokio::test]
async fn subscriptions_stop_at_the_session_budget_and_unsubscribing_makes_room() {
    let server = TestServer::start(server().max_session_bytes(64 * 1024));
    let client = server.connect().await;
    let subscribe = |i: usize| {
        let uri = format!("notes://{i}-{}", "x".repeat(10_000));
        client.request("resources/subscribe", json!({"uri": uri}))
    };
    let mut accepted = 0;
    let refused = loop {
        match subscribe(accepted).await {
            Ok(_) => accepted += 1,
            Err(error) => break error,
        }
        assert!(accepted < 100, "the budget never ran out");
    };
    assert!((4..=6).contains(&accepted), "{accepted} subscriptions of 10 kB under 64 KiB");
    assert_eq!(refused.code, -32602);
    assert!(refused.message.contains("limit of 65536"), "{}", refused.message);
    let first = format!("notes://0-{}", "x".repeat(10_000));
    client.request("resources/unsubscribe", json!({"uri": first})).await.unwrap();
    subscribe(accepted).await.expect("room again after unsubscribing");
    // Another session has its own allowance.
    let other = server.connect().await;
    assert_eq!(other.request("resources/subscribe", json!({"uri": "notes://mine"})).await.unwrap(), json!({}));
}

fn initialize_params(capabilities: Value) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}})
}

#[tokio::test]
async fn capabilities_past_64_kib_are_refused() {
    let client = TestClient::connect_uninitialized(server());
    let huge = json!({"experimental": {"padding": "x".repeat(100_000)}});
    let error = client.request("initialize", initialize_params(huge)).await.unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("at most 65536"), "{}", error.message);
    let result = client.request("initialize", initialize_params(json!({"roots": {}}))).await.unwrap();
    assert_eq!(result["protocolVersion"], "2025-11-25", "a refused handshake can be retried");
}

/// Ten sessions, each offering almost 4 MiB of capabilities (the attack that took a server
/// from 6 to 101 MB): every one is refused, so the server keeps none of them (what a session
/// keeps is counted by its budget, `capabilities_past_64_kib_are_refused`), and it serves on.
/// Its resident memory is not asserted: it follows the allocator and the scheduler, and a
/// bound on it failed one run in several.
#[tokio::test]
async fn sessions_cannot_park_megabytes_of_capabilities() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_robust-http-server"))
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start robust-http-server");
    let (address, _log) = logged_address(child.stderr.take().unwrap()).await;
    let mut warm = HttpClient::new(address);
    warm.initialize().await;
    let huge = json!({"experimental": {"padding": "x".repeat(4 * 1024 * 1024 - 4096)}});
    for id in 0..10 {
        let client = HttpClient::new(address);
        let initialize =
            json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": initialize_params(huge.clone())});
        let messages = client.post(&initialize).await.messages().await;
        let error = &messages.last().expect("an answer")["error"];
        assert_eq!(error["code"], -32602, "{error}");
    }
    let mut after = HttpClient::new(address);
    after.initialize().await;
    assert_eq!(after.request(1, "ping", json!({})).await.last().unwrap()["result"], json!({}));
}
