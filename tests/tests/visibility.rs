//! Per-session visibility: `ctx.hide_tools` takes tools out of one session's list and calls,
//! tells that session alone with `notifications/tools/list_changed`, and `ctx.show_tools` brings
//! them back; other sessions see the server's whole list all along.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_tests::spec_2025_11_25;
use serde_json::{Value, json};

/// Focuses this session on reading: the tools that write leave its list.
#[mcp_tool]
async fn focus(ctx: Context) -> &'static str {
    ctx.hide_tools(&["write", "erase"]).await;
    "focused"
}

/// Brings the writing tools back to this session.
#[mcp_tool]
async fn unfocus(ctx: Context) -> &'static str {
    ctx.show_tools(&["write", "erase"]).await;
    "unfocused"
}

/// Writes.
#[mcp_tool]
fn write(text: String) -> String {
    format!("wrote {text}")
}

/// Erases.
#[mcp_tool]
fn erase() -> &'static str {
    "erased"
}

async fn names(client: &TestClient) -> Vec<String> {
    let listed = client.request("tools/list", json!({})).await.unwrap();
    listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn list_changes(messages: &[Value]) -> usize {
    messages.iter().filter(|m| m["method"] == "notifications/tools/list_changed").count()
}

#[tokio::test]
async fn hidden_tools_leave_one_sessions_list_and_calls_and_come_back() {
    let server = TestServer::start(server!().tools(tools![focus, unfocus, write, erase]));
    let (one, other) = (server.connect().await, server.connect().await);
    assert_eq!(names(&one).await, ["focus", "unfocus", "write", "erase"]);

    assert_eq!(one.call_tool("focus", json!({})).await.unwrap().text(), Some("focused"));
    assert_eq!(names(&one).await, ["focus", "unfocus"]);
    let refused = one.request("tools/call", json!({"name": "write", "arguments": {"text": "x"}})).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (-32602, "Unknown tool: write"));
    assert_eq!(list_changes(&one.received().await), 1, "the session that changed is told");

    assert_eq!(names(&other).await, ["focus", "unfocus", "write", "erase"], "another session sees them all");
    assert_eq!(other.call_tool("write", json!({"text": "y"})).await.unwrap().text(), Some("wrote y"));
    assert_eq!(list_changes(&other.received().await), 0, "and is not told of another's change");

    // Hiding again changes nothing, so tells nothing.
    one.call_tool("focus", json!({})).await.unwrap();
    assert_eq!(list_changes(&one.received().await), 0);
    one.call_tool("unfocus", json!({})).await.unwrap();
    assert_eq!(names(&one).await, ["focus", "unfocus", "write", "erase"]);
    assert_eq!(one.call_tool("erase", json!({})).await.unwrap().text(), Some("erased"));
    assert_eq!(list_changes(&one.received().await), 1);
    spec_2025_11_25().assert_all_valid(&one.transcript());
}
