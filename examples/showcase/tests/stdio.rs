//! The showcase over stdio: progress and logs in order, and a graceful SIGTERM.

use mcp_tests::StdioServer;
use serde_json::{Value, json};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_showcase");

#[tokio::test]
async fn progress_and_logs_arrive_before_the_result() {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-11-25").await;
    let (_, _) = server.request(1, "logging/setLevel", json!({"level": "info"})).await;
    let params = json!({"name": "count_slowly", "arguments": {"to": 3}, "_meta": {"progressToken": 7}});
    let (result, notifications) = server.request(2, "tools/call", params).await;
    assert_eq!(result["result"]["content"][0]["text"], "counted to 3");
    let progress: Vec<f64> = notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    let logs: Vec<&str> = notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["data"].as_str().unwrap())
        .collect();
    assert_eq!(logs, ["counted 1", "counted 2", "counted 3"]);
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(1)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn sigterm_flushes_the_answer_in_flight_and_exits_zero() {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-11-25").await;
    server.send_request(json!(1), "tools/call", json!({"name": "count_slowly", "arguments": {"to": 5}})).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    let status = server.wait(Duration::from_secs(2)).await;
    assert!(status.success(), "exit status {status}");
    let rest = server.drain().await;
    let answer = rest.iter().find(|m| m["id"] == 1).expect("the answer in flight was flushed");
    assert_eq!(answer["result"]["content"][0]["text"], "counted to 5");
    server.assert_schema_valid();
}

/// Calls a tool from a client declaring `capabilities`, answering the one request the server
/// sends to the client with `answer` (or never, when `None`); returns that request, the result
/// and the messages that came between.
async fn call_answering(
    server: &mut StdioServer,
    capabilities: Value,
    tool: &str,
    answer: Option<Value>,
) -> (Value, Value, Vec<Value>) {
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}});
    server.request(0, "initialize", params).await;
    server.notify("notifications/initialized", json!({})).await;
    server.send_request(json!(1), "tools/call", json!({"name": tool, "arguments": {"text": "a long text"}})).await;
    let request = server.recv().await.unwrap();
    assert!(request["method"].is_string(), "{request}");
    if let Some(answer) = answer {
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": answer});
        server.send_line(reply.to_string().as_bytes()).await;
    }
    let mut between = Vec::new();
    loop {
        let message = server.recv().await.unwrap();
        if message["id"] == 1 && message.get("method").is_none() {
            return (request, message["result"].clone(), between);
        }
        between.push(message);
    }
}

#[tokio::test]
async fn sampling_elicitation_and_roots_round_trip_through_the_client() {
    let mut server = StdioServer::spawn(BIN);
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m"});
    let (request, result, _) = call_answering(&mut server, json!({"sampling": {}}), "summarize", Some(answer)).await;
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 200);
    assert_eq!(result["content"][0]["text"], "Short.");
    server.close_stdin();
    server.wait(Duration::from_secs(1)).await;
    server.assert_schema_valid();

    let mut server = StdioServer::spawn(BIN);
    let answer = json!({"action": "accept", "content": {"destination": "Porto", "nights": 3, "travel": "train"}});
    let (request, result, _) = call_answering(&mut server, json!({"elicitation": {}}), "plan_trip", Some(answer)).await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["requestedSchema"]["required"], json!(["destination", "nights", "travel"]));
    assert_eq!(result["content"][0]["text"], "3 nights in Porto, by train");
    server.close_stdin();
    server.wait(Duration::from_secs(1)).await;
    server.assert_schema_valid();

    let mut server = StdioServer::spawn(BIN);
    let answer = json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "b"}]});
    let (request, result, _) = call_answering(&mut server, json!({"roots": {}}), "list_roots", Some(answer)).await;
    assert_eq!(request["method"], "roots/list");
    assert_eq!(result["content"][0]["text"], "file:///a\nfile:///b");
    server.close_stdin();
    server.wait(Duration::from_secs(1)).await;
    server.assert_schema_valid();
}

#[tokio::test]
async fn an_unanswered_request_times_out_as_configured_by_the_environment() {
    let mut server = StdioServer::spawn_with(BIN, |command| {
        command.env("MCP_CLIENT_TIMEOUT_MS", "200");
    });
    let (request, result, between) = call_answering(&mut server, json!({"sampling": {}}), "summarize", None).await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "the client did not answer within 200ms");
    let (_, after) = server.request(2, "ping", json!({})).await; // anything sent after the result
    let cancelled = between.iter().chain(&after).find(|m| m["method"] == "notifications/cancelled");
    assert_eq!(cancelled.expect("the server withdrew its request")["params"]["requestId"], request["id"]);
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(1)).await.success());
    server.assert_schema_valid();
}
