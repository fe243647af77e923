//! `mcp_runtime::client` against the official TypeScript reference server,
//! `@modelcontextprotocol/server-everything` (pinned in scripts/server-everything.sh, which
//! scripts/test.sh runs first), over stdio and Streamable HTTP. It speaks the 2025-11-25
//! family only, so auto negotiation must fall back to the handshake.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientError, CompletionTarget, Negotiation, Notification};
use mcp_runtime::{CompletionRequest, LoggingLevel, ProtocolVersion, ResourceContents};
use mcp_tests::client_kit::{ROOT, Received, answering_client};
use mcp_tests::external::{HttpProcess, node, server_everything};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn over_stdio() -> (Client, Received) {
    let mut command = tokio::process::Command::new(node());
    command.arg(server_everything()).arg("stdio");
    let (builder, received) = answering_client(Negotiation::Auto);
    let client = builder.stderr(mcp_runtime::client::StderrMode::Capture).connect_stdio(command).await.unwrap();
    (client, received)
}

fn start_http() -> HttpProcess {
    let script = server_everything();
    HttpProcess::start(&node(), &[script.to_str().unwrap(), "streamableHttp"])
}

/// What both transports must do alike.
async fn exercise(client: &Client, received: &Received) {
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let info = client.server().server_info.clone().expect("serverInfo");
    assert!(info.name.contains("everything"), "{info:?}");
    client.ping().await.unwrap();

    let tools = client.list_tools().await.unwrap();
    for name in ["echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request", "get-roots-list"] {
        assert!(
            tools.iter().any(|t| t.name == name),
            "no {name} in {:?}",
            tools.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
    }
    let echo = client.call_tool("echo", json!({"message": "héllo"})).await.unwrap();
    assert_eq!(echo.text(), Some("Echo: héllo"));
    let sum = client.call_tool("get-sum", json!({"a": 2, "b": 40})).await.unwrap();
    assert!(sum.text().unwrap_or_default().contains("42"), "{sum:?}");
    let invalid = client.call_tool("get-sum", json!({"a": "two"})).await;
    assert!(invalid.as_ref().map_or(true, |r| r.is_error), "{invalid:?}");

    // Progress.
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let done = client
        .call_tool("trigger-long-running-operation", json!({"duration": 0.3, "steps": 3}))
        .on_progress(move |p| sink.lock().unwrap().push(p.progress))
        .await
        .unwrap();
    assert!(!done.is_error, "{done:?}");
    assert_eq!(*reports.lock().unwrap(), [1.0, 2.0, 3.0]);

    // Cancellation: the call ends at once, and the connection goes on.
    let token = mcp_runtime::CancellationToken::new();
    let long = client
        .call_tool("trigger-long-running-operation", json!({"duration": 30, "steps": 3}))
        .cancel_with(token.clone());
    let cancel_soon = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    };
    let (outcome, ()) = tokio::join!(std::future::IntoFuture::into_future(long), cancel_soon);
    assert!(matches!(outcome, Err(ClientError::Cancelled)), "{outcome:?}");
    client.ping().await.unwrap();

    // The server's requests: sampling, elicitation, roots.
    let sampled =
        client.call_tool("trigger-sampling-request", json!({"prompt": "2+2?", "maxTokens": 10})).await.unwrap();
    let text = sampled.text().unwrap_or_default();
    assert!(
        text.contains("echo: Resource trigger-sampling-request context: 2+2?") && text.contains("test-model"),
        "{text}"
    );
    let elicited = client.call_tool("trigger-elicitation-request", json!({})).await.unwrap();
    let text: String = elicited.content.iter().filter_map(|c| c.as_text()).collect();
    assert!(text.contains("Ada") && text.contains("accept"), "{text}");
    let roots = client.call_tool("get-roots-list", json!({})).await.unwrap();
    let text: String = roots.content.iter().filter_map(|c| c.as_text()).collect();
    assert!(text.contains(ROOT), "{text}");

    // Resources, subscriptions.
    let resources = client.list_resources().await.unwrap();
    assert!(!resources.is_empty());
    let templates = client.list_resource_templates().await.unwrap();
    assert!(templates.iter().any(|t| t.uri_template.starts_with("demo://resource/dynamic/text/")), "{templates:?}");
    let read = client.read_resource("demo://resource/dynamic/text/1").await.unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::Text { uri, .. } if uri == "demo://resource/dynamic/text/1"));
    client.subscribe("demo://resource/dynamic/text/1").await.unwrap();
    client.call_tool("toggle-subscriber-updates", json!({})).await.unwrap();
    let update = received.wait_for("resources/updated", |n| matches!(n, Notification::ResourceUpdated { .. })).await;
    assert_eq!(update, Notification::ResourceUpdated { uri: "demo://resource/dynamic/text/1".into() });
    client.call_tool("toggle-subscriber-updates", json!({})).await.unwrap();
    client.unsubscribe("demo://resource/dynamic/text/1").await.unwrap();

    // Prompts and completion.
    let prompts = client.list_prompts().await.unwrap();
    let args = prompts.iter().find(|p| p.name == "args-prompt").expect("args-prompt");
    assert!(args.arguments.iter().any(|a| a.name == "city" && a.required));
    let prompt = client.get_prompt("args-prompt", [("city", "Lyon")]).await.unwrap();
    assert!(prompt.messages[0].content.as_text().unwrap_or_default().contains("Lyon"), "{prompt:?}");
    let department = CompletionRequest { argument: "department".into(), value: "S".into(), ..Default::default() };
    let target = CompletionTarget::Prompt("completable-prompt".into());
    let completion = client.complete(target.clone(), department).await.unwrap();
    assert_eq!(completion.values, ["Sales", "Support"]);
    let name = CompletionRequest {
        argument: "name".into(),
        value: "".into(),
        arguments: [("department".to_owned(), "Sales".to_owned())].into(),
    };
    assert_eq!(client.complete(target, name).await.unwrap().values, ["David", "Eve", "Frank"]);

    // Logging.
    client.set_logging_level(LoggingLevel::Debug).await.unwrap();
    client.call_tool("toggle-simulated-logging", json!({})).await.unwrap();
    received.wait_for("a log message", |n| matches!(n, Notification::Log { .. })).await;
    client.call_tool("toggle-simulated-logging", json!({})).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_stdio() {
    let (client, received) = over_stdio().await;
    exercise(&client, &received).await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http() {
    let server = start_http();
    let (builder, received) = answering_client(Negotiation::Auto);
    let client = builder.connect_http(&server.url()).await.unwrap();
    exercise(&client, &received).await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forcing_2026_07_28_on_server_everything_is_an_error() {
    let server = start_http();
    let refused = Client::builder().negotiation(Negotiation::Stateless).connect_http(&server.url()).await;
    assert!(refused.is_err());
}
