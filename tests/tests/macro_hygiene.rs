//! What the macros generate cannot shadow, or be shadowed by, the user's own names: handlers
//! named like the generated shims (`call`, `read`, `get`, `list`, `complete`) and parameters
//! named like their locals (`context`, `request`, `arguments`) run as written. Run through the
//! runtime, not only compiled: a shim that called itself instead of the user's function
//! compiled, then overflowed the stack on the first request.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use serde_json::json;

/// A tool named like the descriptor's call shim, with parameters named like its locals.
#[mcp_tool]
fn call(context: String, arguments: u32, request: bool) -> String {
    format!("{context} {arguments} {request}")
}

/// A resource template named like the read shim, listed by `list` and completed by `complete`.
#[mcp_resource(uri = "items://{name}", list = list, complete(name = complete))]
fn read(name: String) -> String {
    format!("item {name}")
}

fn list() -> Vec<ResourceEntry> {
    vec![ResourceEntry::new("items://one", "one")]
}

fn complete(request: CompletionRequest) -> Vec<String> {
    request.filter(["one", "two"])
}

/// A prompt named like the get shim, completed by a function named `complete` too.
#[mcp_prompt(complete(topic = complete))]
fn get(topic: String) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("about {topic}"))]
}

#[tokio::test]
async fn handlers_named_like_the_generated_shims_run_as_written() {
    let client =
        TestClient::connect(server!().tools(tools![call]).resources(resources![read]).prompts(prompts![get])).await;

    let result = client.call_tool("call", json!({"context": "c", "arguments": 7, "request": true})).await.unwrap();
    assert_eq!(result.text(), Some("c 7 true"));

    let read = client.request("resources/read", json!({"uri": "items://two"})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "item two");
    let listed = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(listed["resources"][0]["uri"], "items://one");

    let prompt = client.request("prompts/get", json!({"name": "get", "arguments": {"topic": "rust"}})).await.unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "about rust");

    for reference in
        [json!({"type": "ref/prompt", "name": "get"}), json!({"type": "ref/resource", "uri": "items://{name}"})]
    {
        let argument = if reference["type"] == "ref/prompt" { "topic" } else { "name" };
        let completion = client
            .request("completion/complete", json!({"ref": reference, "argument": {"name": argument, "value": "t"}}))
            .await
            .unwrap();
        assert_eq!(completion["completion"]["values"], json!(["two"]), "{reference}");
    }
}
