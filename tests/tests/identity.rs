//! Server identity and vendor extensions, through the in-process client in both eras:
//! `serverInfo` with a description, website and icons; `_meta` on tool, resource and prompt
//! definitions (`meta = r#"{...}"#`) and on their results (`with_meta`); vendor request and
//! notification handlers (`Server::on_request`, `Server::on_notification`); and
//! `capabilities.extensions` (`Server::extension`), beside the tasks extension in
//! `server/discover`. Every message is validated against the official schemas.

use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{CallToolResult, Content, ErrorKind, ErrorObject, GetPromptResult, Icon, PromptMessage};
use mcp_runtime::{ReadResourceResult, ResourceContents};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Looks a word up.
#[mcp_tool(meta = r#"{
    "com.example/ui": {"panel": "wide"},
    "com.example/cost": 2
}"#)]
fn lookup(word: String) -> CallToolResult {
    CallToolResult::success([Content::text(format!("{word}: a word"))]).with_meta("com.example/source", "a dictionary")
}

/// May run as a task (so `server/discover` also advertises the tasks extension).
#[mcp_tool(task = "optional")]
fn quick() -> &'static str {
    "quick"
}

/// A glossary.
#[mcp_resource(uri = "test://glossary", mime_type = "text/plain", meta = r#"{"com.example/owner": "docs"}"#)]
fn glossary() -> ReadResourceResult {
    ReadResourceResult { contents: vec![ResourceContents::text("test://glossary", "text/plain", "words")], meta: None }
        .with_meta("com.example/etag", "v1")
}

/// Explains a word.
#[mcp_prompt(meta = r#"{"com.example/category": "language"}"#)]
fn explain(word: String) -> GetPromptResult {
    GetPromptResult { description: None, messages: vec![PromptMessage::user(format!("Explain {word}"))], meta: None }
        .with_meta("com.example/version", 3)
}

const ICON: Icon = Icon { src: "https://example.com/icon.png", mime_type: Some("image/png"), sizes: &["48x48"] };

fn server() -> Server {
    Server::new("identity", "1.2.3")
        .title("Identity")
        .description("A server that says who it is.")
        .website_url("https://example.com")
        .icon(ICON)
        .tools(tools![lookup, quick])
        .resources(resources![glossary])
        .prompts(prompts![explain])
        .extension("com.example/search", json!({"maxResults": 5}))
        .on_request("com.example/search", |params: Value, ctx: Context| async move {
            ctx.info("searching").await;
            match params["query"].as_str() {
                Some("nothing") => Ok(json!("not an object")),
                Some(query) => Ok(json!({"hits": [format!("{query} (1)"), format!("{query} (2)")]})),
                None => Err(ErrorObject::invalid_params("Invalid params: `query` is missing")),
            }
        })
}

fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A stateless request.
async fn stateless(client: &TestClient, method: &str, mut params: Value) -> Result<Value, ErrorObject> {
    params["_meta"] = stateless_meta();
    client.request(method, params).await
}

#[tokio::test]
async fn server_info_and_extensions_are_advertised_in_both_eras() {
    let client = TestClient::connect_uninitialized(server());
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0",
                   "description": "a test client", "websiteUrl": "https://client.example.com"}}),
        )
        .await
        .unwrap();
    let info = &init["serverInfo"];
    assert_eq!(info["description"], "A server that says who it is.");
    assert_eq!(info["websiteUrl"], "https://example.com");
    assert_eq!(
        info["icons"],
        json!([{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}])
    );
    assert_eq!(info["title"], "Identity");
    // The tasks extension is 2026-07-28's: a session sees the server's own only.
    assert_eq!(init["capabilities"]["extensions"], json!({"com.example/search": {"maxResults": 5}}));
    spec_2025_11_25().assert_all_valid(&client.transcript());

    let client = TestClient::connect_uninitialized(server());
    let discover = stateless(&client, "server/discover", json!({})).await.unwrap();
    assert_eq!(
        discover["capabilities"]["extensions"],
        json!({"com.example/search": {"maxResults": 5}, "io.modelcontextprotocol/tasks": {}})
    );
    assert_eq!(discover["_meta"]["io.modelcontextprotocol/serverInfo"]["websiteUrl"], "https://example.com");
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn definitions_and_results_carry_their_meta() {
    let client = TestClient::connect(server()).await;
    let tools = client.list_tools().await.unwrap();
    let lookup = tools.iter().find(|t| t["name"] == "lookup").unwrap();
    assert_eq!(lookup["_meta"], json!({"com.example/ui": {"panel": "wide"}, "com.example/cost": 2}));
    assert_eq!(tools.iter().find(|t| t["name"] == "quick").unwrap().get("_meta"), None);
    let resources = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(resources["resources"][0]["_meta"], json!({"com.example/owner": "docs"}));
    let prompts = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(prompts["prompts"][0]["_meta"], json!({"com.example/category": "language"}));

    let call = client.request("tools/call", json!({"name": "lookup", "arguments": {"word": "mcp"}})).await.unwrap();
    assert_eq!(call["_meta"], json!({"com.example/source": "a dictionary"}));
    let read = client.request("resources/read", json!({"uri": "test://glossary"})).await.unwrap();
    assert_eq!(read["_meta"], json!({"com.example/etag": "v1"}));
    let prompt = client.request("prompts/get", json!({"name": "explain", "arguments": {"word": "mcp"}})).await.unwrap();
    assert_eq!(prompt["_meta"], json!({"com.example/version": 3}));
    spec_2025_11_25().assert_all_valid(&client.transcript());

    // Stateless: the result's own `_meta` keys beside the protocol's.
    let client = TestClient::connect_uninitialized(server());
    let call = stateless(&client, "tools/call", json!({"name": "lookup", "arguments": {"word": "mcp"}})).await.unwrap();
    assert_eq!(call["_meta"]["com.example/source"], "a dictionary");
    assert_eq!(call["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "identity");
    let list = stateless(&client, "tools/list", json!({})).await.unwrap();
    assert_eq!(list["tools"][0]["_meta"]["com.example/cost"], 2);
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn vendor_requests_are_answered_in_both_eras_and_unknown_methods_are_still_not_found() {
    let client = TestClient::connect_uninitialized(server());
    // Before `initialize`, as any method of a session.
    let error = client.request("com.example/search", json!({"query": "x"})).await.unwrap_err();
    assert_eq!(error.code, -32600);
    let error = client.request("com.example/nothing", json!({})).await.unwrap_err();
    assert_eq!(error.code, -32601);

    let client = TestClient::connect(server()).await;
    let result = client.request("com.example/search", json!({"query": "rust"})).await.unwrap();
    assert_eq!(result, json!({"hits": ["rust (1)", "rust (2)"]}));
    let error = client.request("com.example/search", json!({})).await.unwrap_err();
    assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid params: `query` is missing"));
    let error = client.request("com.example/search", json!({"query": "nothing"})).await.unwrap_err();
    assert_eq!(error.code, -32603);
    let error = client.request("com.example/other", json!({})).await.unwrap_err();
    assert_eq!(error.code, -32601);
    assert!(error.message.contains("com.example/other"), "{}", error.message);
    // The handler's log line reached the client.
    let logs = client.received().await;
    assert!(
        logs.iter().any(|m| m["method"] == "notifications/message" && m["params"]["data"] == "searching"),
        "{logs:?}"
    );
    spec_2025_11_25().assert_all_valid(&client.transcript());

    let client = TestClient::connect_uninitialized(server());
    let result = stateless(&client, "com.example/search", json!({"query": "rust"})).await.unwrap();
    assert_eq!(result["hits"], json!(["rust (1)", "rust (2)"]));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "identity");
    let error = stateless(&client, "com.example/other", json!({})).await.unwrap_err();
    assert_eq!(error.code, -32601);
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn vendor_notifications_reach_their_handler() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let server = server().on_notification("com.example/clicked", move |params| {
        let sink = Arc::clone(&sink);
        async move { sink.lock().unwrap().push(params) }
    });
    let client = TestClient::connect(server).await;
    client.notify("com.example/clicked", json!({"hit": 2})).await;
    client.notify("com.example/unknown", json!({})).await;
    // Still serving, and the handler ran.
    client.request("ping", json!({})).await.unwrap();
    for _ in 0..100 {
        if !seen.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(*seen.lock().unwrap(), vec![json!({"hit": 2})]);
}

#[tokio::test]
async fn what_cannot_be_served_is_refused_when_the_server_is_built() {
    let refused = |server: Server| server.into_http_service(HttpConfig::default()).expect_err("refused");
    let error = refused(server().on_request("tools/call", |_: Value, _: Context| async { Ok(json!({})) }));
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(error.to_string().contains("tools/call"), "{error}");
    let error = refused(server().on_notification("notifications/cancelled", |_| async {}));
    assert_eq!(error.kind(), ErrorKind::Config);
    let error = refused(server().extension("search", json!({})));
    assert!(error.to_string().contains("needs a prefix"), "{error}");
    let error = refused(server().extension("com.example/search", json!(true)));
    assert!(error.to_string().contains("JSON object"), "{error}");
}
