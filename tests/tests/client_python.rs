//! `mcp_runtime::client` against a server written with the official Python SDK (`mcp==2.3.0`,
//! `tests/python/client_server.py`, run with the venv of scripts/python-env.sh, which
//! scripts/test.sh runs first), over stdio and Streamable HTTP, in both protocol eras.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientError, Negotiation};
use mcp_runtime::{ProtocolVersion, ResourceContents};
use mcp_tests::client_kit::{ROOT, answering_client};
use mcp_tests::external::{HttpProcess, python, python_server};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn stdio_command() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(python());
    command.arg(python_server()).arg("stdio");
    command
}

fn start_http() -> HttpProcess {
    let script = python_server();
    HttpProcess::start(&python(), &[script.to_str().unwrap(), "http", "{port}"])
}

/// Calls, progress, cancellation, resources and prompts: the same in both eras.
async fn exercise(client: &Client) {
    let tools = client.list_tools().await.unwrap();
    assert!(
        tools.iter().any(|t| t.name == "add" && t.description.as_deref() == Some("Add two integers.")),
        "{tools:?}"
    );
    let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(sum.text(), Some("42"));
    assert_eq!(sum.structured_content, Some(json!({"result": 42})));

    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let counted = client
        .call_tool("count_to", json!({"steps": 3}))
        .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.message)))
        .await
        .unwrap();
    assert_eq!(counted.text(), Some("counted to 3"));
    assert_eq!(reports.lock().unwrap().len(), 3, "{:?}", reports.lock().unwrap());
    assert_eq!(reports.lock().unwrap()[2], (3.0, Some("step 3".into())));

    let slow = client.call_tool("sleep", json!({"seconds": 30})).timeout(Duration::from_millis(300)).await;
    assert!(matches!(slow, Err(ClientError::Timeout(_))), "{slow:?}");
    assert_eq!(client.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap().text(), Some("2"));

    let read = client.read_resource("note://hello").await.unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::Text { text, .. } if text == "hello from python"));
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greet");
    let prompt = client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
    assert_eq!(prompt.messages[0].content.as_text(), Some("Say hello to Ada."));
}

/// The server's requests to the client, which the Python SDK sends in a session.
async fn exercise_session_requests(client: &Client) {
    let sampled = client.call_tool("ask_model", json!({"prompt": "2+2?"})).await.unwrap();
    assert_eq!(sampled.text(), Some("model said: echo: 2+2?"));
    let named = client.call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(named.text(), Some("hello Ada"));
    let roots = client.call_tool("client_roots", json!({})).await.unwrap();
    assert_eq!(roots.text(), Some(ROOT));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_over_stdio_in_both_eras() {
    let (builder, _) = answering_client(Negotiation::Auto);
    let client = builder.connect_stdio(stdio_command()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    exercise(&client).await;
    client.close().await;

    let (builder, _) = answering_client(Negotiation::Handshake);
    let client = builder.connect_stdio(stdio_command()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    exercise_session_requests(&client).await;
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_over_streamable_http_in_both_eras() {
    let server = start_http();
    let (builder, _) = answering_client(Negotiation::Auto);
    let client = builder.connect_http(&server.url()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    exercise(&client).await;
    client.close().await;

    let (builder, _) = answering_client(Negotiation::Handshake);
    let client = builder.connect_http(&server.url()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    exercise_session_requests(&client).await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_servers_dropped_sse_stream_is_resumed() {
    let server = start_http();
    let (builder, _) = answering_client(Negotiation::Handshake);
    let client = builder.connect_http(&server.url()).await.unwrap();
    let progress = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&progress);
    let result = client
        .call_tool("drop_stream", json!({}))
        .on_progress(move |p| sink.lock().unwrap().push(p.progress))
        .await
        .unwrap();
    assert_eq!(result.text(), Some("answered after the drop"));
    assert_eq!(*progress.lock().unwrap(), [1.0]);
    client.close().await;
}
