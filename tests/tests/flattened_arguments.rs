//! `#[mcp(flatten)]`: a struct parameter whose fields are the tool's top-level arguments
//! (`{"title": ..}`, not `{"todo": {"title": ..}}`), in the schema and in calls of both eras.
//! Every message is validated against the official schemas.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};

/// A todo to add.
#[derive(Deserialize, JsonSchema)]
struct NewTodo {
    /// What to do
    title: String,
    /// Done already
    #[serde(default)]
    done: bool,
    /// Due date, as written
    due: Option<String>,
}

/// Adds a todo to a list.
#[mcp_tool]
fn add_todo(
    /// The list to add it to
    list: String,
    #[mcp(flatten)] todo: NewTodo,
    ctx: Context,
) -> String {
    let _ = ctx;
    let due = todo.due.map(|d| format!(", due {d}")).unwrap_or_default();
    format!("{list}: {} (done: {}{due})", todo.title, todo.done)
}

fn server() -> Server {
    server!().tools(tools![add_todo])
}

/// The arguments of the call, and what the tool answers.
fn calls() -> [(Value, &'static str); 2] {
    [
        (json!({"list": "home", "title": "milk"}), "home: milk (done: false)"),
        (
            json!({"list": "work", "title": "report", "done": true, "due": "Friday"}),
            "work: report (done: true, due Friday)",
        ),
    ]
}

#[tokio::test]
async fn the_fields_are_top_level_arguments_in_the_schema() {
    let client = TestClient::connect(server()).await;
    let tools = client.list_tools().await.unwrap();
    let schema = &tools[0]["inputSchema"];
    let mut names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    names.sort();
    assert_eq!(names, ["done", "due", "list", "title"], "{schema}");
    let mut required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    required.sort();
    assert_eq!(required, ["list", "title"], "{schema}");
    assert_eq!(schema["properties"]["title"]["description"], "What to do");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_session_calls_with_top_level_fields() {
    let client = TestClient::connect(server()).await;
    for (arguments, answer) in calls() {
        let result = client.call_tool("add_todo", arguments).await.unwrap();
        assert!(!result.is_error, "{result:?}");
        assert_eq!(result.text(), Some(answer));
    }
    // A missing field is named, as any missing argument is.
    let result = client.call_tool("add_todo", json!({"list": "home"})).await.unwrap();
    assert!(result.is_error);
    assert!(result.text().unwrap().contains("title"), "{result:?}");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_stateless_request_calls_with_top_level_fields() {
    let server = TestServer::start(server());
    let client = server.connect_uninitialized();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for (arguments, answer) in calls() {
        let params = json!({"name": "add_todo", "arguments": arguments, "_meta": meta});
        let result = client.request("tools/call", params).await.unwrap();
        assert_eq!(result["content"][0]["text"], answer, "{result}");
        assert_ne!(result["isError"], true);
    }
    spec_2026_07_28().assert_all_valid(&client.transcript());
}
