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

// Handlers with more parameters than clippy's `too_many_arguments` allows a Rust function
// (seven): the generated code, the typed calls and the annotated functions themselves build
// lint-free (the test command runs clippy with `-D warnings` over this file).

/// A tool of eight arguments.
#[mcp_tool]
fn eight(a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8, h: u8) -> String {
    [a, b, c, d, e, f, g, h].map(|n| n.to_string()).concat()
}

/// The same, async, with an injected parameter besides.
#[mcp_tool]
async fn eight_async(a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8, h: u8, ctx: Context) -> String {
    let _ = ctx.request_id();
    [h, g, f, e, d, c, b, a].map(|n| n.to_string()).concat()
}

/// A prompt of eight arguments.
#[mcp_prompt]
fn eight_prompt(a: String, b: String, c: String, d: String, e: String, f: String, g: String, h: String) -> String {
    [a, b, c, d, e, f, g, h].concat()
}

/// A resource of eight template variables.
#[mcp_resource(uri = "eight://{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}")]
fn eight_vars(a: String, b: String, c: String, d: String, e: String, f: String, g: String, h: String) -> String {
    [a, b, c, d, e, f, g, h].concat()
}

#[tokio::test]
async fn handlers_of_eight_parameters_build_lint_free_and_run() {
    let client = TestClient::connect(
        server!().tools(tools![eight, eight_async]).prompts(prompts![eight_prompt]).resources(resources![eight_vars]),
    )
    .await;
    let arguments = json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8});
    assert_eq!(client.call_tool("eight", arguments.clone()).await.unwrap().text(), Some("12345678"));
    assert_eq!(client.call_tool("eight_async", arguments).await.unwrap().text(), Some("87654321"));
    let texts = json!({"a": "a", "b": "b", "c": "c", "d": "d", "e": "e", "f": "f", "g": "g", "h": "h"});
    let prompt = client.request("prompts/get", json!({"name": "eight_prompt", "arguments": texts})).await.unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "abcdefgh");
    let read = client.request("resources/read", json!({"uri": "eight://a/b/c/d/e/f/g/h"})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "abcdefgh");
}
