//! Resources, templates, subscriptions, prompts and completion through the in-process client,
//! every message validated against the 2025-11-25 schema.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Completion, ResourceContents};
use mcp_tests::spec_2025_11_25;
use serde_json::{Value, json};

/// The project's README.
#[mcp_resource(uri = "docs://readme", mime_type = "text/markdown", size = 9, audience = ["user"], priority = 0.8)]
fn readme() -> &'static str {
    "# Readme\n"
}

/// A logo.
#[mcp_resource(uri = "docs://logo.png", mime_type = "image/png")]
fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// A note by name.
#[mcp_resource(uri = "notes://{name}", mime_type = "text/plain", list = list_notes, complete(name = complete_note))]
fn note(name: String) -> Result<String, ResourceNotFound> {
    match name.as_str() {
        "todo" => Ok("buy milk".into()),
        "ideas" => Ok("an MCP framework".into()),
        _ => Err(ResourceNotFound),
    }
}

fn list_notes() -> Vec<ResourceEntry> {
    ["todo", "ideas"].map(|n| ResourceEntry::new(format!("notes://{n}"), n).mime_type("text/plain")).into()
}

fn complete_note(request: CompletionRequest) -> Vec<String> {
    request.filter(["todo", "ideas", "travel"])
}

/// An archived note: more specific than `notes://{name}`.
#[mcp_resource(uri = "notes://archive/{year}")]
fn archive(year: u16) -> String {
    format!("archive of {year}")
}

/// A file under a folder, by path.
#[mcp_resource(uri = "files:///{+path}")]
fn file(path: String) -> String {
    format!("contents of {path}")
}

/// A search with optional query parameters.
#[mcp_resource(uri = "search://notes{?term,limit}")]
fn search(term: Option<String>, limit: Option<u32>) -> Json<Value> {
    Json(json!({"term": term, "limit": limit}))
}

/// A resource whose function fails.
#[mcp_resource(uri = "broken://always")]
fn broken() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("disk on fire"))
}

/// Several contents at once.
#[mcp_resource(uri = "bundle://both")]
fn bundle() -> Vec<ResourceContents> {
    vec![
        ResourceContents::text("bundle://a", "text/plain", "a"),
        ResourceContents::text("bundle://b", "text/plain", "b"),
    ]
}

/// Review a piece of code.
#[mcp_prompt(complete(language = complete_language))]
fn review(
    /// The code to review
    code: String,
    /// Its language
    language: Option<String>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!("Review this {} code:\n{code}", language.unwrap_or_else(|| "unknown".into()))),
        PromptMessage::assistant("I'll look at it."),
    ]
}

async fn complete_language(request: CompletionRequest) -> Completion {
    Completion::from_values(request.filter(["python", "rust", "ruby", "typescript"]))
}

/// Repeat a word.
#[mcp_prompt(name = "repeat", title = "Repeat a word")]
fn repeat_word(word: String, times: u8) -> String {
    vec![word; times as usize].join(" ")
}

fn server() -> Server {
    server!()
        .resources(resources![readme, logo, note, archive, file, search, broken, bundle])
        .prompts(prompts![review, repeat_word])
}

fn assert_valid(client: &TestClient) {
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn capabilities_follow_what_is_registered() {
    let client = TestClient::connect_uninitialized(server());
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let result = client.request("initialize", params).await.unwrap();
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "completions": {},
        })
    );
    assert_valid(&client);
}

#[tokio::test]
async fn static_resources_and_listed_template_resources_are_listed() {
    let client = TestClient::connect(server()).await;
    let list = client.request("resources/list", json!({})).await.unwrap();
    let uris: Vec<&str> = list["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        ["docs://readme", "docs://logo.png", "broken://always", "bundle://both", "notes://todo", "notes://ideas"]
    );
    assert_eq!(
        list["resources"][0],
        json!({
            "uri": "docs://readme", "name": "readme", "description": "The project's README.",
            "mimeType": "text/markdown", "size": 9, "annotations": {"audience": ["user"], "priority": 0.8},
        })
    );
    let templates = client.request("resources/templates/list", json!({})).await.unwrap();
    let templates: Vec<&str> =
        templates["resourceTemplates"].as_array().unwrap().iter().map(|t| t["uriTemplate"].as_str().unwrap()).collect();
    assert_eq!(
        templates,
        ["notes://{name}", "notes://archive/{year}", "files:///{+path}", "search://notes{?term,limit}"]
    );
    assert_valid(&client);
}

async fn read(client: &TestClient, uri: &str) -> Result<Value, mcp_runtime::ErrorObject> {
    client.request("resources/read", json!({"uri": uri})).await
}

#[tokio::test]
async fn reading_text_blobs_templates_and_several_contents() {
    let client = TestClient::connect(server()).await;
    assert_eq!(
        read(&client, "docs://readme").await.unwrap(),
        json!({"contents": [{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Readme\n"}]})
    );
    assert_eq!(read(&client, "docs://logo.png").await.unwrap()["contents"][0]["blob"], "iVBORw==");
    assert_eq!(read(&client, "notes://todo").await.unwrap()["contents"][0]["text"], "buy milk");
    assert_eq!(read(&client, "notes://archive/2024").await.unwrap()["contents"][0]["text"], "archive of 2024");
    assert_eq!(read(&client, "files:///src/main.rs").await.unwrap()["contents"][0]["text"], "contents of src/main.rs");
    let search = read(&client, "search://notes?limit=5&term=milk").await.unwrap();
    assert_eq!(search["contents"][0]["text"], r#"{"limit":5,"term":"milk"}"#);
    assert_eq!(search["contents"][0]["mimeType"], "application/json");
    assert_eq!(read(&client, "search://notes").await.unwrap()["contents"][0]["text"], r#"{"limit":null,"term":null}"#);
    assert_eq!(read(&client, "bundle://both").await.unwrap()["contents"].as_array().unwrap().len(), 2);
    assert_valid(&client);
}

#[tokio::test]
async fn the_most_specific_template_wins() {
    let client = TestClient::connect(server()).await;
    // `notes://archive/2024` also fits nothing else, but `notes://archive` would fit `notes://{name}`
    assert_eq!(read(&client, "notes://archive/1999").await.unwrap()["contents"][0]["text"], "archive of 1999");
    let err = read(&client, "notes://archive").await.unwrap_err();
    assert_eq!(err.code, -32002, "`archive` is read as a note name, and there is no such note");
}

#[tokio::test]
async fn unknown_uris_and_failures_are_errors() {
    let client = TestClient::connect(server()).await;
    let err = read(&client, "nothing://here").await.unwrap_err();
    assert_eq!((err.code, err.data), (-32002, Some(json!({"uri": "nothing://here"}))));
    let err = read(&client, "notes://missing").await.unwrap_err();
    assert_eq!((err.code, err.data), (-32002, Some(json!({"uri": "notes://missing"}))));
    let err = read(&client, "notes://archive/not-a-year").await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("`year`"), "{}", err.message);
    let err = read(&client, "broken://always").await.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32603, "disk on fire"));
    let err = read(&client, "files:///docs/../../etc/passwd").await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains(".."), "{}", err.message);
    assert_valid(&client);
}

#[tokio::test]
async fn template_variables_that_name_another_place_are_refused() {
    let client = TestClient::connect(server()).await;
    let refused = [
        ("files:////etc/passwd", "an absolute path"),
        ("files:///%2Fetc%2Fpasswd", "an absolute path"),
        ("files:///C:%5CWindows", "a Windows drive"),
        ("files:///~/.ssh/id_rsa", "a home folder"),
        ("files:///%5C%5Cserver%5Cshare", "a UNC path"),
        ("notes://todo%00.png", "a NUL byte"),
    ];
    for (uri, why) in refused {
        let err = read(&client, uri).await.unwrap_err();
        assert_eq!(err.code, -32602, "{uri}");
        assert!(err.message.contains(why), "{uri}: {}", err.message);
    }
    let fine = read(&client, "files:///docs/a~b/x:y.txt").await.unwrap();
    assert_eq!(fine["contents"][0]["text"], "contents of docs/a~b/x:y.txt");
    assert_valid(&client);
}

#[tokio::test]
async fn subscribers_alone_hear_about_updates() {
    let server = server();
    let handle = server.handle();
    let server = mcp_runtime::testing::TestServer::start(server);
    let (subscriber, bystander) = (server.connect().await, server.connect().await);
    assert_eq!(subscriber.request("resources/subscribe", json!({"uri": "notes://todo"})).await.unwrap(), json!({}));
    handle.resource_updated("notes://todo").unwrap();
    let update = subscriber.next_message().await;
    assert_eq!(
        update,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://todo"}})
    );
    handle.resource_updated("notes://ideas").unwrap();
    subscriber.request("resources/unsubscribe", json!({"uri": "notes://todo"})).await.unwrap();
    handle.resource_updated("notes://todo").unwrap();
    assert_eq!(subscriber.request("ping", json!({})).await.unwrap(), json!({}));
    assert!(subscriber.received().await.is_empty(), "no update for other URIs or after unsubscribing");
    assert!(bystander.received().await.is_empty());
    assert_valid(&subscriber);
}

#[tokio::test]
async fn adding_resources_and_prompts_at_run_time_is_announced() {
    let server = server!().resources(resources![readme]);
    let handle = server.handle();
    let client = TestClient::connect(server).await;
    handle.add_resources(resources![logo]).unwrap();
    assert_eq!(client.next_message().await["method"], "notifications/resources/list_changed");
    handle.add_prompts(prompts![review]).unwrap();
    assert_eq!(client.next_message().await["method"], "notifications/prompts/list_changed");
    handle.remove_resources(&["docs://readme"]).unwrap();
    assert_eq!(client.next_message().await["method"], "notifications/resources/list_changed");
    let list = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(list["resources"].as_array().unwrap().len(), 1);
    assert!(handle.add_resources(resources![logo]).is_err(), "a URI already offered is refused");
    assert_valid(&client);
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    let client = TestClient::connect(server()).await;
    let list = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        list["prompts"][0],
        json!({
            "name": "review", "description": "Review a piece of code.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "language", "description": "Its language", "required": false},
            ],
        })
    );
    assert_eq!(list["prompts"][1]["title"], "Repeat a word");
    assert_valid(&client);
}

#[tokio::test]
async fn prompts_render_and_check_their_arguments() {
    let client = TestClient::connect(server()).await;
    let result = client
        .request("prompts/get", json!({"name": "review", "arguments": {"code": "x = 1", "language": "python"}}))
        .await
        .unwrap();
    assert_eq!(
        result["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Review this python code:\nx = 1"}})
    );
    assert_eq!(result["messages"][1]["role"], "assistant");
    let result = client
        .request("prompts/get", json!({"name": "repeat", "arguments": {"word": "hi", "times": "3"}}))
        .await
        .unwrap();
    assert_eq!(result["messages"][0]["content"]["text"], "hi hi hi");

    let err = client.request("prompts/get", json!({"name": "review", "arguments": {}})).await.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32602, "missing required argument `code` for prompt `review`"));
    let err = client
        .request("prompts/get", json!({"name": "repeat", "arguments": {"word": "a", "times": "many"}}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("`times`"), "{}", err.message);
    let err = client.request("prompts/get", json!({"name": "nope"})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert_valid(&client);
}

#[tokio::test]
async fn completion_suggests_values_for_prompt_arguments_and_template_variables() {
    let client = TestClient::connect(server()).await;
    let params =
        json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "r"}});
    let result = client.request("completion/complete", params).await.unwrap();
    assert_eq!(result, json!({"completion": {"values": ["rust", "ruby"]}}));
    let params = json!({
        "ref": {"type": "ref/resource", "uri": "notes://{name}"},
        "argument": {"name": "name", "value": "t"},
        "context": {"arguments": {}},
    });
    let result = client.request("completion/complete", params).await.unwrap();
    assert_eq!(result["completion"]["values"], json!(["todo", "travel"]));
    let params = json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "code", "value": ""}});
    assert_eq!(client.request("completion/complete", params).await.unwrap(), json!({"completion": {"values": []}}));
    let params = json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}});
    assert_eq!(client.request("completion/complete", params).await.unwrap_err().code, -32602);
    assert_valid(&client);
}
