//! The showcase over stdio: progress and logs in order, and a graceful SIGTERM.

use mcp_tests::StdioServer;
use serde_json::json;
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
