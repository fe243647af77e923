//! The calculator as a client process sees it: spawned, spoken to over stdin/stdout.

use mcp_tests::StdioServer;
use serde_json::json;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_calculator");

#[tokio::test]
async fn serves_the_handshake_tools_and_errors_then_exits_on_eof() {
    let mut server = StdioServer::spawn(BIN);
    let init = server.initialize("2025-11-25").await;
    assert_eq!(init["serverInfo"]["name"], "calculator");
    assert_eq!(init["capabilities"]["tools"], json!({"listChanged": true}));

    let (list, _) = server.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "subtract", "multiply", "divide"]);

    let (sum, _) = server.request(2, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await;
    assert_eq!(sum["result"]["content"], json!([{"type": "text", "text": "5"}]));
    let (quotient, _) = server.request(3, "tools/call", json!({"name": "divide", "arguments": {"a": 1, "b": 0}})).await;
    assert_eq!(quotient["result"]["isError"], true);
    assert_eq!(quotient["result"]["content"][0]["text"], "cannot divide by zero");

    server.close_stdin();
    // It ends on its own once stdin closes (`wait` panics if it has not within the bound, a
    // loaded machine's margin: the test waits only as long as the exit takes).
    let status = server.wait(Duration::from_secs(10)).await;
    assert!(status.success(), "exit status {status}");
    assert!(server.drain().await.is_empty());
    server.assert_schema_valid();
}

#[tokio::test]
async fn bad_input_gets_an_error_and_loses_nothing() {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-11-25").await;
    server.send_line(b"{this is not json").await;
    assert_eq!(server.recv().await.unwrap()["error"]["code"], -32700);
    server.send_line(b"\xff\xfe invalid utf-8").await;
    assert_eq!(server.recv().await.unwrap()["error"]["code"], -32700);
    server.send_line(b"").await; // blank lines are skipped silently
    let huge = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(5 << 20));
    server.send_line(huge.as_bytes()).await;
    let answer = server.recv().await.unwrap();
    assert_eq!(answer["error"]["code"], -32600);
    assert!(answer["error"]["message"].as_str().unwrap().contains("limit"), "{answer}");
    let (pong, _) = server.request(10, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(1)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn lsp_style_shutdown_and_exit_end_the_process_cleanly() {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-06-18").await;
    let (answer, _) = server.request(1, "shutdown", json!(null)).await;
    assert_eq!(answer["result"], json!({}));
    server.notify("exit", json!(null)).await;
    let status = server.wait(Duration::from_secs(1)).await;
    assert!(status.success(), "exit status {status}");
    server.assert_schema_valid();
}
