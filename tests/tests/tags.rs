//! Tags: tools tagged by the macro (`#[mcp_tool(tags = [..])]`) or the builder (`.tags(..)`)
//! switched off and on by tag for the whole server (`Server::disable_tags`, `ServerHandle`) and
//! for one session (`Context::disable_tags`/`enable_tags`): a tool switched off is neither
//! listed nor callable, and the clients concerned are told with `list_changed`; in a session
//! (2025-11-25) and statelessly (2026-07-28).

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_runtime::{ToolDescriptor, ToolSet};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};

/// Resets everything.
#[mcp_tool(tags = ["admin"])]
fn reset() -> &'static str {
    "reset"
}

/// Reads.
#[mcp_tool]
fn read() -> &'static str {
    "read"
}

/// Proves this session is an administrator's: the admin tools are offered to it.
#[mcp_tool]
async fn become_admin(ctx: Context) -> &'static str {
    ctx.enable_tags(&["admin"]).await;
    "admin"
}

/// Leaves the beta: its tools leave this session.
#[mcp_tool]
async fn leave_beta(ctx: Context) -> &'static str {
    ctx.disable_tags(&["beta"]).await;
    "left"
}

/// A beta tool built at run time.
fn preview() -> ToolDescriptor {
    ToolDescriptor::builder("preview")
        .description("Previews what is coming.")
        .tags(["beta", "ui"])
        .handler(|_, _| async { Ok::<_, String>("preview".to_owned()) })
        .build()
        .unwrap()
}

fn server() -> Server {
    let tools: ToolSet = tools![reset, read, become_admin, leave_beta];
    server!().tools(tools).tools(preview().into()).disable_tags(["admin"])
}

async fn names(client: &TestClient, params: Value) -> Vec<String> {
    let listed = client.request("tools/list", params).await.unwrap();
    listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn list_changes(messages: &[Value]) -> usize {
    messages.iter().filter(|m| m["method"] == "notifications/tools/list_changed").count()
}

#[tokio::test]
async fn tags_switch_tools_off_and_on_for_the_server_and_for_one_session() {
    let server = server();
    let handle = server.handle();
    let server = TestServer::start(server);
    let (one, other) = (server.connect().await, server.connect().await);
    let all_but_admin = ["read", "become_admin", "leave_beta", "preview"];
    assert_eq!(names(&one, json!({})).await, all_but_admin);
    let refused = one.request("tools/call", json!({"name": "reset", "arguments": {}})).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (-32602, "Unknown tool: reset"));

    // One session enables what the server disabled, and leaves the beta: it alone is told.
    assert_eq!(one.call_tool("become_admin", json!({})).await.unwrap().text(), Some("admin"));
    assert_eq!(one.call_tool("reset", json!({})).await.unwrap().text(), Some("reset"));
    one.call_tool("leave_beta", json!({})).await.unwrap();
    assert_eq!(names(&one, json!({})).await, ["reset", "read", "become_admin", "leave_beta"]);
    assert_eq!(one.request("tools/call", json!({"name": "preview"})).await.unwrap_err().code, -32602);
    assert_eq!(list_changes(&one.received().await), 2);
    one.call_tool("leave_beta", json!({})).await.unwrap(); // nothing changes: nothing told
    assert_eq!(list_changes(&one.received().await), 0);
    assert_eq!(names(&other, json!({})).await, all_but_admin);
    assert_eq!(list_changes(&other.received().await), 0);

    // The server enables `admin` for everyone, then disables `ui`: every session is told.
    handle.enable_tags(&["admin"]).unwrap();
    assert_eq!(names(&other, json!({})).await, ["reset", "read", "become_admin", "leave_beta", "preview"]);
    handle.disable_tags(&["ui"]).unwrap();
    assert_eq!(names(&other, json!({})).await, ["reset", "read", "become_admin", "leave_beta"]);
    for client in [&one, &other] {
        let told = [client.next_message().await, client.next_message().await];
        assert_eq!(list_changes(&told), 2, "{told:?}");
    }
    spec_2025_11_25().assert_all_valid(&one.transcript());
    spec_2025_11_25().assert_all_valid(&other.transcript());
}

#[tokio::test]
async fn statelessly_the_servers_tags_decide_and_a_sessions_switches_do_nothing() {
    let server = server();
    let handle = server.handle();
    let client = TestClient::connect_uninitialized(server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let all_but_admin = ["read", "become_admin", "leave_beta", "preview"];
    assert_eq!(names(&client, json!({"_meta": meta})).await, all_but_admin);
    let call = |name: &str| json!({"name": name, "arguments": {}, "_meta": meta});
    assert_eq!(client.request("tools/call", call("reset")).await.unwrap_err().code, -32602);
    client.request("tools/call", call("become_admin")).await.unwrap();
    assert_eq!(client.request("tools/call", call("reset")).await.unwrap_err().code, -32602);

    handle.enable_tags(&["admin"]).unwrap();
    assert_eq!(client.request("tools/call", call("reset")).await.unwrap()["content"][0]["text"], "reset");
    handle.disable_tags(&["beta"]).unwrap();
    assert_eq!(names(&client, json!({"_meta": meta})).await, ["reset", "read", "become_admin", "leave_beta"]);
    spec_2026_07_28().assert_all_valid(&client.transcript());
}
